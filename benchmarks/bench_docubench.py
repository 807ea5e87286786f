"""DocuBench on first sight: pairs per second of leafscore's fast engine in one process, and
the whole ``leafscore score DOCUBENCH --no-cache`` against DocuBench's own ``score_all.py``.

1. In process (issue 26: at least 5,000 pairs per second). Each run is a fresh Python
   process that imports ``scorer`` and ``leafscore._fast``, scores a small warm-up
   document sharing no string with DocuBench (``bench_arrays.warm_up_document``: imports
   and lazy libraries loaded, no memo holding a DocuBench value; the child fails if the
   two share a string), then times one pass over every (document, system) pair as a user
   script scores them: each document's schema and label read once (``json.load``), each
   result file read and its envelope applied (``scorer.read_outcome`` with the fast
   engine's record), and ``record.score_outcome`` called per pair, which prepares the
   document (schema compiled, label read) as ``leafscore.score`` does. Reading files
   and compiling schemas are part of the pass. ``json.load`` of the same files (schemas,
   labels, results) is timed in the same process (median of 5) as the floor; a second
   pass over the same pairs is printed beside the first, labelled as such (memos warm).
   Beside them, labelled, and not the target's figure:

   * the product's own path: fresh processes of their own run the same first pass with
     each document prepared once for its systems (``record.document``, then
     ``score_outcome(..., document)``), as ``leafscore score`` (``runner.Prepared``) and
     ``python scorer.py`` run;
   * a positional walk of the same files in the same processes (:func:`positional_pass`,
     median of 5): ``json.load`` of every file, then each label leaf compared with the
     result's leaf at the same place, strings collapsed and casefolded; no schema, no
     pairing, no verdict kept. It is what any pure-Python scorer pays at least, so it
     shows how much of a pair's time the target leaves for the metric's own work.
2. Whole processes (issue 26: at least 2x faster than ``score_all.py``): ``leafscore
   score DOCUBENCH --no-cache`` (``--version``, default the latest; by default on two or
   more processors with a forked helper, and ``--workers 1``, one process, printed beside
   it) and DocuBench's ``scripts/score_all.py``, run from a temporary folder of copies and symlinks
   (``bench_startup.reference_folder``: /work/shared is read-only), alternately,
   ``--cli-runs`` times each after one untimed run of each (bytecode caches written, as
   for an installed package); medians and their ratio.

Usage::

    python benchmarks/bench_docubench.py                    # /work/shared/docubench, 2.1
    python benchmarks/bench_docubench.py --runs 5 --cli-runs 7
    python benchmarks/bench_docubench.py --no-cli           # the in-process pass only
"""

from __future__ import annotations

import argparse
import gc
import json
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFAULT_DOCUBENCH = Path("/work/shared/docubench")
DEFAULT_VERSION = "2.1"  #: scorer.DEFAULT_VERSION, the version the issue's targets name
PAIRS_TARGET = 5000.0  #: pairs per second, first pass in process
CLI_TARGET = 2.0  #: score_all.py seconds / leafscore score seconds


def corpus(root: Path) -> tuple[list[str], list[str]]:
    """(document ids, systems) of a DocuBench-shaped folder, sorted."""
    docs = sorted(p.stem for p in (root / "labels").glob("*.json"))
    systems = sorted(p.name for p in (root / "results").iterdir() if p.is_dir())
    return docs, systems


def loaded(path: Path) -> Any:
    """The JSON value of the file at ``path`` (``json.load``, UTF-8)."""
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def load_all(paths: list[Path]) -> None:
    for path in paths:
        loaded(path)


_SPACES = re.compile(r"\s+")


def _same_place(label: Any, result: Any) -> int:
    """Label leaves equal to the result's leaf at the same place (strings collapsed and
    casefolded; array items by position)."""
    if isinstance(label, dict):
        other = result if isinstance(result, dict) else {}
        return sum(_same_place(value, other.get(name)) for name, value in label.items())
    if isinstance(label, list):
        other = result if isinstance(result, list) else []
        return sum(_same_place(value, other[k] if k < len(other) else None)
                   for k, value in enumerate(label))
    if isinstance(label, str):
        return isinstance(result, str) and \
            _SPACES.sub(" ", label).strip().casefold() == \
            _SPACES.sub(" ", result).strip().casefold()
    return label == result


def positional_pass(root: Path, docs: list[str], systems: list[str]) -> tuple[int, int]:
    """(pairs, equal leaves) of a positional walk over every (document, system) pair:
    each document's schema and label loaded once, each result loaded and walked against
    the label by place (:func:`_same_place`); a missing result walked as nothing, so
    the pairs are the scored pass's. A floor for a pure-Python scorer, not a metric: it
    reads the schema but does not use it, and pairs no array item."""
    pairs = equal = 0
    for doc in docs:
        loaded(root / "schemas" / f"{doc}.json")
        label = loaded(root / "labels" / f"{doc}.json")
        for system in systems:
            path = root / "results" / system / f"{doc}.json"
            equal += _same_place(label, loaded(path) if path.exists() else None)
            pairs += 1
    return pairs, equal


def child(root: Path, version: str, prepared: bool = False) -> dict[str, Any]:
    """One fresh process: warm-up, then the first and a second pass, json.load and the
    positional walk; with ``prepared``, each document prepared once for its systems."""
    sys.path.insert(0, str(REPO))
    sys.path.insert(0, str(HERE))
    import bench_arrays

    import scorer
    from leafscore import _fast

    docs, systems = corpus(root)
    files = [root / folder / f"{doc}.json" for doc in docs for folder in ("schemas", "labels")]
    files += [path for doc in docs for system in systems
              if (path := root / "results" / system / f"{doc}.json").exists()]
    seen: set[str] = set()
    for path in files:
        seen |= bench_arrays.strings(loaded(path))
    warm = bench_arrays.warm_up_document("enum-date", bench_arrays.DEFAULT_SEED + 1)
    shared = bench_arrays.strings(warm[1:]) & seen
    if shared:
        raise SystemExit(f"the warm-up shares strings with DocuBench: {sorted(shared)[:5]}")
    _fast.score(warm[2], warm[0], warm[1], version=version)
    baseline = []
    for _ in range(5):
        start = time.perf_counter()
        load_all(files)
        baseline.append(time.perf_counter() - start)

    record = _fast.VERSIONS[scorer.scoring_version(version).name]
    options = scorer.Options()

    def one_pass() -> tuple[int, float]:
        pairs, total = 0, 0.0
        for doc in docs:
            schema_file = root / "schemas" / f"{doc}.json"
            schema = scorer.read_json_file(schema_file).value
            label = scorer.read_json_file(root / "labels" / f"{doc}.json").value
            document = record.document(schema, label, options, str(schema_file)) \
                if prepared else None
            for system in systems:
                outcome = scorer.read_outcome(root / "results" / system / f"{doc}.json",
                                              schema, record)
                score = record.score_outcome(outcome, schema, label, options,
                                             str(schema_file), document)
                pairs += 1
                total += 0.0 if score is None else score.value
        return pairs, total

    gc.collect()  # the warm-up's objects collected now, not in the pass (bench_arrays)
    start = time.perf_counter()
    pairs, total = one_pass()
    first = time.perf_counter() - start
    start = time.perf_counter()
    again, total_again = one_pass()
    second = time.perf_counter() - start
    assert (again, total_again) == (pairs, total)
    walked = []
    for _ in range(5):
        start = time.perf_counter()
        walked_pairs, _ = positional_pass(root, docs, systems)
        walked.append(time.perf_counter() - start)
    assert walked_pairs == pairs
    return {"pairs": pairs, "first": first, "second": second,
            "json": statistics.median(baseline), "total": total,
            "positional": statistics.median(walked)}


def _child_run(root: Path, version: str, prepared: bool) -> dict[str, Any]:
    command = [sys.executable, __file__, "--child", "--docubench", str(root), "--version",
               version] + (["--prepared"] if prepared else [])
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise SystemExit(f"child exited {done.returncode}: {tail}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def in_process(root: Path, version: str, runs: int) -> None:
    seen, kept = [], []
    for _ in range(runs):  # alternately: the target's pass, then the product's own path
        seen.append(_child_run(root, version, False))
        kept.append(_child_run(root, version, True))
    pairs = seen[0]["pairs"]
    rate = statistics.median(m["pairs"] / m["first"] for m in seen)
    second = statistics.median(m["pairs"] / m["second"] for m in seen)
    over_json = statistics.median(m["first"] / m["json"] for m in seen)
    rate_kept = statistics.median(m["pairs"] / m["first"] for m in kept)
    over_json_kept = statistics.median(m["first"] / m["json"] for m in kept)
    walked = statistics.median(m["pairs"] / m["positional"] for m in seen + kept)
    over_json_walked = statistics.median(m["positional"] / m["json"] for m in seen + kept)
    print(f"in process, version {version}, fast engine: {pairs} pairs, medians of {runs} "
          "fresh processes (reading files and compiling schemas part of the pass)")
    print(f"  first pass:  {rate:,.0f} pairs/s ({pairs / rate:.3f} s), "
          f"{over_json:.1f}x json.load of the same files "
          f"({statistics.median(m['json'] for m in seen):.4f} s) in the same process")
    print(f"  second pass (the same pairs again, memos warm): {second:,.0f} pairs/s")
    print(f"  beside it, first pass with each document prepared once for its systems (as "
          f"leafscore score and python scorer.py run; {runs} processes of its own): "
          f"{rate_kept:,.0f} pairs/s, {over_json_kept:.1f}x json.load")
    print(f"  beside it, a positional walk of the same files (json.load, leaves compared "
          f"by place; no schema, pairing or verdicts; not a metric): {walked:,.0f} pairs/s, "
          f"{over_json_walked:.1f}x json.load; the target is {PAIRS_TARGET / walked:.2f}x "
          "its rate")
    print(f"  target: first pass >= {PAIRS_TARGET:,.0f} pairs/s "
          f"{'ok' if rate >= PAIRS_TARGET else 'MISSED'}")


def whole_runs(root: Path, version: str, runs: int) -> None:
    sys.path.insert(0, str(HERE))
    from bench_startup import ENV, reference_folder, timed

    python = sys.executable
    folder = reference_folder(root)
    commands = {
        "score_all.py": ([python, "scripts/score_all.py"], folder),
        "leafscore score": ([python, "-m", "leafscore", "score", str(root), "--no-cache",
                             "--version", version], REPO),
        # beside it, labelled: this process alone (the default adds a forked helper on
        # two or more processors)
        "... --workers 1": ([python, "-m", "leafscore", "score", str(root), "--no-cache",
                             "--version", version, "--workers", "1"], REPO),
        "python -c pass": ([python, "-c", "pass"], REPO),
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    try:
        for command, cwd in commands.values():  # untimed: writes each bytecode cache
            timed(command, cwd)
        for _ in range(runs):
            for name, (command, cwd) in commands.items():
                times[name].append(timed(command, cwd))
    finally:
        shutil.rmtree(folder)
    assert "PYTHONDONTWRITEBYTECODE" not in ENV
    median = {name: statistics.median(values) for name, values in times.items()}
    ratio = median["score_all.py"] / median["leafscore score"]
    print(f"whole processes, {runs} alternating runs each, medians in seconds:")
    for name, seconds in median.items():
        print(f"  {name:<18} {seconds:.3f}")
    alone = median["score_all.py"] / median["... --workers 1"]
    print(f"  leafscore score --no-cache --version {version}: {ratio:.2f}x faster than "
          f"score_all.py (target >= {CLI_TARGET:g}x) {'ok' if ratio >= CLI_TARGET else 'MISSED'}")
    print(f"  (with --workers 1, one process: {alone:.2f}x faster than score_all.py)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    parser.add_argument("--docubench", type=Path, default=DEFAULT_DOCUBENCH)
    parser.add_argument("--version", default=DEFAULT_VERSION,
                        help=f"scoring version (default {DEFAULT_VERSION})")
    parser.add_argument("--runs", type=int, default=3,
                        help="fresh processes for the in-process pass (default 3)")
    parser.add_argument("--cli-runs", type=int, default=5,
                        help="alternating runs of each whole command (default 5)")
    parser.add_argument("--cli", action=argparse.BooleanOptionalAction, default=True,
                        help="also time the whole commands (default: on)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--prepared", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    root = args.docubench.resolve()
    if args.child:
        print(json.dumps(child(root, args.version, args.prepared)))
        return 0
    in_process(root, args.version, max(1, args.runs))
    if args.cli:
        whole_runs(root, args.version, max(1, args.cli_runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
