"""Whole-process start-up and folder scoring: ``python scorer.py`` against DocuBench's own
``scripts/score_all.py`` on the same data, and the cost of ``import scorer``.

DocuBench's reference scorer (MIT) is never copied into this repository: the script builds
a temporary folder holding copies of its ``scorer.py`` and ``scripts/`` beside symlinks to
the data folders ``schemas/``, ``labels/`` and ``results/``, runs it from there, and removes
the folder at the end. The three commands run alternately, ``--runs`` times each, so load
on a shared machine hits all of them alike; medians are compared in the same run. Every
command runs with Python allowed to cache bytecode, as a user's Python does (the
environment's ``PYTHONDONTWRITEBYTECODE`` is dropped), after one untimed run of each that
writes the cache (DocuBench's copy caches its bytecode in the temporary folder). One cost
stays unlike: Python never runs a script from cached bytecode, so ``python scorer.py``
compiles its whole file on every run (some 35 ms here), while ``score_all.py`` is a short
script importing its scorer from a ``.pyc``. The issue names ``python scorer.py``, so that
is the command timed.

Targets (issues 15, 20): ``python scorer.py DOCUBENCH --version 1.0``, ``--version 2.0``
(and ``--version 2.1``, the default) each at least 1.5x faster than
``scripts/score_all.py`` (ratio = reference median / ours);
``import scorer`` under 150 ms, measured as the median of ``python -c "import scorer"``
minus ``python -c "pass"``, and with neither scipy nor rapidfuzz nor referencing loaded.

Usage::

    python benchmarks/bench_startup.py                       # /work/shared/docubench
    python benchmarks/bench_startup.py --docubench PATH --runs 11
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DOCUBENCH = Path("/work/shared/docubench")


def reference_folder(docubench: Path) -> Path:
    """A temporary folder from which DocuBench's ``scripts/score_all.py`` runs as shipped."""
    folder = Path(tempfile.mkdtemp(prefix="leafscore-docubench-ref-"))
    shutil.copy2(docubench / "reference" / "scorer.py", folder / "scorer.py")
    shutil.copytree(docubench / "reference" / "scripts", folder / "scripts")
    for name in ("schemas", "labels", "results"):
        (folder / name).symlink_to(docubench / name, target_is_directory=True)
    return folder


#: The environment of every command: this one, with bytecode caching allowed.
ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def timed(command: list[str], cwd: Path) -> float:
    """Wall-clock seconds of one whole process; raises if it fails."""
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, check=False, env=ENV)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        tail = (done.stderr.decode(errors="replace").strip().splitlines() or ["?"])[-1]
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}: {tail}")
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    parser.add_argument("--docubench", type=Path, default=DEFAULT_DOCUBENCH)
    parser.add_argument("--runs", type=int, default=7, help="runs per command (default 7)")
    args = parser.parse_args(argv)

    python = sys.executable
    folder = reference_folder(args.docubench.resolve())
    try:
        commands = {
            "reference": ([python, "scripts/score_all.py"], folder),
            "v1": ([python, str(REPO / "scorer.py"), str(args.docubench), "--version", "1.0"],
                   REPO),
            "v2": ([python, str(REPO / "scorer.py"), str(args.docubench), "--version", "2.0"],
                   REPO),
            "v21": ([python, str(REPO / "scorer.py"), str(args.docubench), "--version", "2.1"],
                    REPO),
            "bare": ([python, "-c", "pass"], REPO),
            "import": ([python, "-c", "import scorer"], REPO),
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        for command, cwd in commands.values():  # untimed: writes each bytecode cache
            timed(command, cwd)
        for _ in range(args.runs):
            for name, (command, cwd) in commands.items():
                times[name].append(timed(command, cwd))
    finally:
        shutil.rmtree(folder)

    loaded = subprocess.run(
        [python, "-c", "import sys, scorer; print(' '.join(sorted({m.split('.')[0] for m in "
         "sys.modules} & {'scipy', 'rapidfuzz', 'referencing'})) or 'none')"],
        cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()
    median = {name: statistics.median(values) for name, values in times.items()}
    import_ms = (median["import"] - median["bare"]) * 1000
    print(f"bench_startup: {args.runs} alternating runs per command, medians in seconds; "
          f"DocuBench at {args.docubench}")
    print(f"  scripts/score_all.py (reference)    {median['reference']:.3f}")
    print(f"  python scorer.py --version 1.0      {median['v1']:.3f}")
    print(f"  python scorer.py --version 2.0      {median['v2']:.3f}")
    print(f"  python scorer.py --version 2.1      {median['v21']:.3f}")
    print(f"  python -c pass / import scorer      {median['bare']:.3f} / {median['import']:.3f}")
    rows = [
        ("1.0 speed-up over score_all.py", median["reference"] / median["v1"], 1.5, ">="),
        ("2.0 speed-up over score_all.py", median["reference"] / median["v2"], 1.5, ">="),
        ("2.1 speed-up over score_all.py", median["reference"] / median["v21"], 1.5, ">="),
    ]
    for what, ratio, target, sense in rows:
        ok = ratio >= target
        print(f"{what}: {ratio:.2f}x (target {sense} {target:g}x) {'ok' if ok else 'MISSED'}")
    print(f"import scorer: {import_ms:.0f} ms above a bare interpreter (target < 150 ms) "
          f"{'ok' if import_ms < 150 else 'MISSED'}; lazy libraries loaded at import: {loaded}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
