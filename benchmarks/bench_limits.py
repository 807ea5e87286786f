"""Measure leafscore's input limits: nesting depth, file size, array size (docs/LIMITS.md).

Each case runs in its own fresh Python process, so its peak resident memory
(``ru_maxrss``) is its own; the table shows wall time of the measured step, the process's
peak RSS, and the peak above the process's RSS just before the step (imports and input
generation excluded where possible).

Usage::

    python benchmarks/bench_limits.py              # every case, a markdown table
    python benchmarks/bench_limits.py --quick      # skip the slowest cases
    python benchmarks/bench_limits.py --case NAME  # one case, one JSON line (internal)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

ROWS_SCHEMA = {
    "type": "object",
    "properties": {
        "rows": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "sku": {"type": "string"},
                    "qty": {"type": "integer"},
                    "price": {"type": "number"},
                },
            },
        }
    },
}


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def _current_rss_mib() -> float:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


# -------------------------------------------------------------------------------------
# Cases: each prepares its input, then returns the step to time
# -------------------------------------------------------------------------------------


def _parse_deep(depth: int) -> Callable[[], str]:
    from leafscore.benchmark import loads_json
    from scorer import InputError

    text = "[" * depth + "]" * depth

    def step() -> str:
        try:
            loads_json(text, source="deep.json")
        except InputError as error:
            return f"refused: {error.reason}"
        return "read"

    return step


def _rows(n: int, seed: int, dense: bool = False) -> list[dict]:
    """``n`` distinct invoice rows; ``dense`` draws ``sku`` and ``price`` from 4 values
    each, so most pairs of rows share a leaf and the pairing problem is a dense ``n`` x
    ``n`` matrix of small, tied weights."""
    rnd = random.Random(seed)
    if dense:
        return [
            {"sku": f"SKU-{rnd.randrange(4)}", "qty": k,
             "price": rnd.choice((1.5, 2.5, 3.5, 4.5))}
            for k in range(n)
        ]
    return [
        {"sku": f"SKU-{rnd.randrange(10**6):06d}", "qty": rnd.randrange(1, 50),
         "price": round(rnd.uniform(1, 999), 2)}
        for _ in range(n)
    ]


def _load_file(megabytes: float) -> Callable[[], str]:
    from leafscore.benchmark import load_json
    from scorer import InputError

    folder = Path(tempfile.mkdtemp(prefix="leafscore-bench-"))
    path = folder / "big.json"
    if megabytes > 64:  # sparse: the size check refuses it before reading
        with open(path, "wb") as handle:
            handle.truncate(int(megabytes * 10**6))
    else:
        row = json.dumps(_rows(1, 0)[0]) + ","
        count = int(megabytes * 2**20) // len(row) - 1
        with open(path, "w") as handle:
            handle.write('{"rows": [')
            handle.write(row * count)
            handle.write(row[:-1] + "]}")

    def step() -> str:
        size = path.stat().st_size
        try:
            loaded = load_json(path)
        except InputError as error:
            return f"{size:,} bytes: refused: {error.reason}"
        finally:
            path.unlink()
            folder.rmdir()
        return f"{size:,} bytes: read, {len(loaded.value['rows']):,} rows"

    return step


def _score_rows(
    n: int, version: str, perturbed: float = 0.1, dense: bool = False
) -> Callable[[], str]:
    """``n`` label rows against the same rows shuffled, a share ``perturbed`` of them
    with one field changed (so they have no identical partner to pair with)."""
    import scorer  # noqa: F401  (its limits)
    from leafscore import _fast

    label = {"rows": _rows(n, 1, dense)}
    result_rows = [dict(row) for row in label["rows"]]
    rnd = random.Random(2)
    rnd.shuffle(result_rows)
    for row in result_rows[: int(n * perturbed)]:
        row["qty"] += 10**6
    result = {"rows": result_rows}

    def step() -> str:
        doc = _fast.score(result, ROWS_SCHEMA, label, version=version)
        return f"value {doc.value:.4f}"

    return step


def _million_leaves() -> Callable[[], str]:
    """One million label leaves: bench_arrays' invoice document at 200,000 rows of 5
    fields (shuffled, 10% of leaves changed, 3% dropped, 2% invented), scored exactly
    under 2.0. Target (issue 15): under 60 s and 2 GB, ``exact`` true. The time of
    ``json.loads`` of the two documents' text is measured beside it, as the baseline."""
    import scorer  # noqa: F401  (its limits)
    from leafscore import _fast

    sys.path.insert(0, str(REPO / "benchmarks"))
    from bench_arrays import DEFAULT_SEED, make_flat

    schema, label, result = make_flat(200_000, DEFAULT_SEED)
    texts = json.dumps(label), json.dumps(result)

    def step() -> str:
        start = time.perf_counter()
        for text in texts:
            json.loads(text)
        baseline = time.perf_counter() - start
        start = time.perf_counter()
        doc = _fast.score(result, schema, label, version="2.0")
        seconds = time.perf_counter() - start
        leaves = sum(doc.counts.values())
        verdict = "ok" if seconds < 60 and doc.exact else "MISSED"
        return (f"{leaves:,} verdicts, value {doc.value:.4f}, exact {doc.exact}; "
                f"{seconds / baseline:.0f}x json.loads (target: < 60 s, < 2 GB, exact: "
                f"{verdict} on time)")

    return step


def _score_junk_result(rows: int) -> Callable[[], str]:
    """A 3-row label against a result of ``rows`` junk rows (a hostile, huge result)."""
    import scorer  # noqa: F401  (its limits)
    from leafscore import _fast

    label = {"rows": _rows(3, 1)}
    result = {"rows": _rows(rows, 3)}

    def step() -> str:
        return f"value {_fast.score(result, ROWS_SCHEMA, label, version='2.0').value:.4f}"

    return step


def _score_scalars(n: int, version: str) -> Callable[[], str]:
    import scorer  # noqa: F401  (its limits)
    from leafscore import _fast

    schema = {"type": "object", "properties": {"tags": {"type": "array",
                                                        "items": {"type": "string"}}}}
    label = {"tags": [f"tag {k}" for k in range(n)]}
    result = {"tags": [f"TAG-{k}" for k in reversed(range(n))]}

    def step() -> str:
        return f"value {_fast.score(result, schema, label, version=version).value:.4f}"

    return step


def _score_deep_schema(version: str) -> Callable[[], str]:
    import scorer
    from leafscore import _fast

    schema: dict = {"type": "string"}
    label: object = "x"
    for _ in range((scorer.MAX_DEPTH - 2) // 2):
        schema = {"type": "object", "properties": {"a": schema}}
        label = {"a": label}

    def step() -> str:
        return f"value {_fast.score(label, schema, label, version=version).value:.4f}"

    return step


def _hostile_2_0(kind: str) -> Callable[[], str]:
    """Issue 14's hostile results of about 1 MB against a small label: ``nested`` (16,000
    copies of an order whose two lines swap their quantities), ``abs_tol``/``fuzzy``/
    ``open-map`` (50,000 identical rows against 50 label rows), ``windowed`` (50,000
    distinct tolerant numbers against 50), ``marks`` (500,000 combining marks of two
    classes in one text)."""
    import scorer  # noqa: F401  (its limits)
    from leafscore import _fast

    rows_schema = {"type": "object", "properties": {"rows": {"type": "array", "items": {
        "type": "object", "properties": {"currency": {"type": "string"}}}}}}
    fields = {"abs_tol": ({"type": "number", "x-leafscore": {"abs_tol": 0.01}}, "x"),
              "fuzzy": ({"type": "string", "x-leafscore": {"compare": "fuzzy"}}, "x"),
              "open-map": ({"type": "object"}, {"k": "v"})}
    if kind == "nested":
        line = {"type": "object", "properties": {
            "sku": {"type": "string", "x-leafscore": {"compare": "exact"}},
            "qty": {"type": "number"}}}
        schema = {"type": "object", "properties": {"orders": {"type": "array", "items": {
            "type": "object", "properties": {"lines": {"type": "array", "items": line}}}}}}
        label = {"orders": [{"lines": [{"sku": "A", "qty": 1}, {"sku": "B", "qty": 2}]}]}
        result = {"orders": [{"lines": [{"sku": "A", "qty": 2}, {"sku": "B", "qty": 1}]}]
                  * 16_000}
    elif kind == "windowed":
        field = {"type": "number", "x-leafscore": {"abs_tol": 0.5}}
        schema = {"type": "object", "properties": {"rows": {"type": "array", "items": {
            "type": "object", "properties": {"other": field}}}}}
        label = {"rows": [{"other": 1000 * k} for k in range(50)]}
        result = {"rows": [{"other": k} for k in range(50_000)]}
    elif kind == "marks":
        schema = {"type": "object", "properties": {"name": {"type": "string"}}}
        label, result = {"name": "a\u0301"}, {"name": "a" + "\u0301\u0316" * 250_000}
    else:
        field, other = fields[kind]
        schema = json.loads(json.dumps(rows_schema))
        schema["properties"]["rows"]["items"]["properties"]["other"] = field
        label = {"rows": [{"currency": "USD", "other": other} for _ in range(50)]}
        result = {"rows": [{"currency": "USD"}] * 50_000}
    size = len(json.dumps(result, ensure_ascii=False).encode())

    def step() -> str:
        doc = _fast.score(result, schema, label, version="2.0")
        flag = "" if doc.exact else ", exact=False"
        return f"{size:,} bytes, value {doc.value:.6f}{flag}"

    return step


def _cli_rows(rows: int) -> Callable[[], str]:
    """``leafscore score`` end to end (in this process) on one document whose label and
    result each hold ``rows`` rows, the result shuffled with 10% changed."""
    from click.testing import CliRunner

    from leafscore.cli import main

    folder = Path(tempfile.mkdtemp(prefix="leafscore-bench-"))
    for sub in ("schemas", "labels", "results/sys"):
        (folder / sub).mkdir(parents=True)
    label = _rows(rows, 1)
    result = [dict(row) for row in label]
    random.Random(2).shuffle(result)
    for row in result[: rows // 10]:
        row["qty"] += 10**6
    (folder / "schemas/d.json").write_text(json.dumps(ROWS_SCHEMA))
    (folder / "labels/d.json").write_text(json.dumps({"rows": label}))
    (folder / "results/sys/d.json").write_text(json.dumps({"data": {"rows": result}}))
    size = (folder / "results/sys/d.json").stat().st_size

    def step() -> str:
        outcome = CliRunner().invoke(
            main, ["score", str(folder), "--no-cache", "--version", "2.0", "--format", "json"]
        )
        for path in sorted(folder.rglob("*"), reverse=True):
            path.rmdir() if path.is_dir() else path.unlink()
        folder.rmdir()
        if outcome.exit_code != 0:
            return f"exit {outcome.exit_code}: {outcome.output.strip()[-120:]}"
        value = json.loads(outcome.stdout)["systems"]["sys"]["documents"]["d"]
        return f"result file {size:,} bytes, value {value:.4f}"

    return step


CASES: dict[str, tuple[str, Callable[[], Callable[[], str]], bool]] = {
    # name: (what, prepare, slow)
    "depth-200": ("parse: nesting 200 deep (the limit)", lambda: _parse_deep(200), False),
    "depth-100000": ("parse: nesting 100,000 deep", lambda: _parse_deep(100_000), False),
    "schema-depth-200": ("score 2.0: schema and label 198 levels deep",
                         lambda: _score_deep_schema("2.0"), False),
    "file-1MiB": ("load_json: 1 MiB file", lambda: _load_file(1), False),
    "file-64MiB": ("load_json: 64 MiB file (the limit)", lambda: _load_file(63.99), False),
    "file-200MB": ("load_json: 200 MB file", lambda: _load_file(200), False),
    "rows-100-2.0": ("score 2.0: 100 object rows", lambda: _score_rows(100, "2.0"), False),
    "rows-1000-2.0": ("score 2.0: 1,000 object rows", lambda: _score_rows(1000, "2.0"), False),
    "rows-2000-2.0": ("score 2.0: 2,000 object rows", lambda: _score_rows(2000, "2.0"), True),
    "rows-500-2.0-all": ("score 2.0: 500 object rows, all changed",
                         lambda: _score_rows(500, "2.0", 1.0), False),
    "rows-1000-2.0-all": ("score 2.0: 1,000 object rows, all changed",
                          lambda: _score_rows(1000, "2.0", 1.0), True),
    "rows-2000-2.0-all": ("score 2.0: 2,000 object rows, all changed",
                          lambda: _score_rows(2000, "2.0", 1.0), True),
    "rows-500-2.0-dense": ("score 2.0: 500 dense rows, all changed",
                           lambda: _score_rows(500, "2.0", 1.0, True), False),
    "rows-1000-2.0-dense": ("score 2.0: 1,000 dense rows, all changed",
                            lambda: _score_rows(1000, "2.0", 1.0, True), True),
    "rows-2000-2.0-dense": ("score 2.0: 2,000 dense rows, all changed",
                            lambda: _score_rows(2000, "2.0", 1.0, True), True),
    "rows-5000-2.0-dense": ("score 2.0: 5,000 dense rows, all changed",
                            lambda: _score_rows(5000, "2.0", 1.0, True), True),
    "junk-200000-2.0": ("score 2.0: 3-row label, 200,000-row junk result",
                        lambda: _score_junk_result(200_000), True),
    "hostile-nested-2.0": ("score 2.0: 16,000 copies of a nested order, exact leaves",
                           lambda: _hostile_2_0("nested"), False),
    "hostile-abs_tol-2.0": ("score 2.0: 50,000 identical rows, a tolerant field, 50-row label",
                            lambda: _hostile_2_0("abs_tol"), False),
    "hostile-fuzzy-2.0": ("score 2.0: 50,000 identical rows, a fuzzy field, 50-row label",
                          lambda: _hostile_2_0("fuzzy"), False),
    "hostile-open-map-2.0": ("score 2.0: 50,000 identical rows, an open map, 50-row label",
                             lambda: _hostile_2_0("open-map"), False),
    "hostile-windowed-2.0": ("score 2.0: 50,000 distinct tolerant numbers, 50-row label",
                             lambda: _hostile_2_0("windowed"), False),
    "hostile-marks-2.0": ("score 2.0: a text of 500,000 combining marks of two classes",
                          lambda: _hostile_2_0("marks"), False),
    "million-leaves-2.0": ("score 2.0: 200,000 rows x 5 fields (1,000,000 leaves), exact",
                           _million_leaves, True),
    "cli-100000-rows": ("leafscore score: label and result of 100,000 rows each",
                        lambda: _cli_rows(100_000), True),
    "rows-1000-1.0": ("score 1.0: 1,000 object rows", lambda: _score_rows(1000, "1.0"), False),
    "rows-2000-1.0": ("score 1.0: 2,000 object rows", lambda: _score_rows(2000, "1.0"), True),
    "tags-100000-2.0": ("score 2.0: 100,000 strings in a scalar array",
                        lambda: _score_scalars(100_000, "2.0"), True),
}


def run_case(name: str) -> dict:
    """Run one case in this process; its timing and memory as a dict."""
    what, prepare, _ = CASES[name]
    step = prepare()
    before = _current_rss_mib()
    start = time.perf_counter()
    outcome = step()
    seconds = time.perf_counter() - start
    peak = _rss_mib()
    return {"case": name, "what": what, "outcome": outcome, "seconds": round(seconds, 3),
            "peak_rss_mib": round(peak, 1), "above_start_mib": round(max(0.0, peak - before), 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=sorted(CASES))
    parser.add_argument("--quick", action="store_true", help="skip the slowest cases")
    args = parser.parse_args(argv)
    if args.case:
        print(json.dumps(run_case(args.case)))
        return 0
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores; one process per case\n")
    print("| case | outcome | time (s) | peak RSS (MiB) | above start (MiB) |")
    print("|---|---|---:|---:|---:|")
    for name, (_, _, slow) in CASES.items():
        if slow and args.quick:
            continue
        proc = subprocess.run([sys.executable, __file__, "--case", name], capture_output=True,
                              text=True, check=False)
        if proc.returncode != 0:
            last = (proc.stderr.strip().splitlines() or ["?"])[-1]
            print(f"| {CASES[name][0]} | FAILED: {last} | | | |")
            continue
        row = json.loads(proc.stdout)
        print(f"| {row['what']} | {row['outcome']} | {row['seconds']:.3f} | "
              f"{row['peak_rss_mib']:.0f} | {row['above_start_mib']:.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
