"""Time and memory of scoring one document with a large array, leafscore against a peer.

A seeded generator builds one document: a schema with an N-row array of items, a label,
and a result made from the label the way extraction systems err (rows shuffled, about
10% of leaves changed, 3% of rows dropped, 2% invented). Three shapes (``--shape``):
``flat``, 5-field rows (code, description, integer quantity, price, date); ``enum-date``,
6-field rows (the same and a status enum); ``nested``, ``sections[].groups[].rows[]``,
100 x 20 x 5 rows of 5 fields. Each measurement runs in a fresh Python subprocess, so
one run's memory never inflates the next, and times the document's first sight (issue
26): the process first scores a small warm-up document of the same shape whose every
string (values, field names, enum members) differs from the timed document's, so
imports and lazy libraries are loaded but no memo holds a timed value (the caches of
canonical texts and dates are keyed by string, across documents); the child checks that
the two documents share no string and fails otherwise. What the warm-up left is then
collected (``gc.collect``), so that no collection of its objects falls in the timed
call. The same document scored a
second time in the process is reported beside it, labelled as such:

* time: ``time.perf_counter`` around the first scoring call, in seconds;
* peak memory: ``resource.getrusage(RUSAGE_SELF).ru_maxrss`` (Linux: KiB) after the
  call minus the same reading taken just before it, once the inputs are built and every
  import is done, in MB (10**6 bytes). This is the growth of the resident-set peak the
  call caused; memory freed and reused inside the call is not double-counted.

leafscore is called as ``leafscore.score(result, schema, label, version=V)`` (the fast
engine; ``--definition`` also times ``scorer.score``, the definition); the peer as
``omni_extract_bench.score(prediction, ground_truth, schema)``. leafscore never imports
the peer; this benchmark skips it with a note when it is not installed.

Usage::

    python benchmarks/bench_arrays.py --no-peer --n 3000 10000 50000      # 2.1, the default
    python benchmarks/bench_arrays.py --no-peer --shape enum-date --n 3000 10000 50000
    python benchmarks/bench_arrays.py --no-peer --shape nested            # 100 x 20 x 5 items
    python benchmarks/bench_arrays.py --version 1.0 --n 3000 10000
"""

from __future__ import annotations

import argparse
import copy
import gc
import importlib.util
import json
import random
import resource
import string
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tabulate import tabulate

REPO = Path(__file__).resolve().parent.parent
DEFAULT_VERSION = "2.1"  #: scorer.DEFAULT_VERSION, the version the issue's targets name
DEFAULT_SEED = 20240601
WORDS = (
    "bolt", "nut", "washer", "bracket", "hinge", "panel", "cable", "gland", "relay", "fuse",
    "switch", "valve", "pump", "seal", "gasket", "filter", "sensor", "motor", "belt",
    "pulley", "bearing", "shaft", "spring", "clamp",
)

ITEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "code": {"type": "string"},
        "description": {"type": "string"},
        "quantity": {"type": "integer"},
        "price": {"type": "number"},
        "date": {"type": "string", "format": "date"},
    },
}


#: the ``enum-date`` shape's status values
STATUSES = ("open", "paid", "overdue", "disputed", "void", "partial")
ENUM_ITEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {**ITEM_SCHEMA["properties"],
                   "status": {"type": "string", "enum": list(STATUSES)}},
}
SHAPES = ("flat", "enum-date", "nested")
NESTED_SIZE = "100x20x5"  #: how the nested document's size is shown


def flat_schema(item: dict[str, Any] = ITEM_SCHEMA) -> dict[str, Any]:
    """Schema of the flat document: ``{"reference": str, "rows": [item, ...]}``."""
    return {
        "type": "object",
        "properties": {
            "reference": {"type": "string"},
            "rows": {"type": "array", "items": item},
        },
    }


def nested_schema() -> dict[str, Any]:
    """Schema of the 3-level document: ``sections[].groups[].rows[]`` of 5-field items."""
    groups = {
        "type": "object",
        "properties": {
            "group": {"type": "string"},
            "rows": {"type": "array", "items": ITEM_SCHEMA},
        },
    }
    sections = {
        "type": "object",
        "properties": {
            "section": {"type": "string"},
            "groups": {"type": "array", "items": groups},
        },
    }
    return {
        "type": "object",
        "properties": {
            "reference": {"type": "string"},
            "sections": {"type": "array", "items": sections},
        },
    }


def make_item(rng: random.Random, index: int, status: bool = False) -> dict[str, Any]:
    """One 5-field row: unique code, 2-3 word text, integer, 2-decimal price, ISO date;
    with ``status``, a sixth field from :data:`STATUSES`."""
    item = {
        "code": f"P{index:07d}",
        "description": " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 3))),
        "quantity": rng.randint(1, 500),
        "price": round(rng.uniform(0.5, 2000.0), 2),
        "date": f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
    }
    if status:
        item["status"] = rng.choice(STATUSES)
    return item


def perturb_leaf(rng: random.Random, item: dict[str, Any], key: str) -> None:
    """Change one leaf the way an extractor misreads it (always to a different value)."""
    value = item[key]
    if key == "code":
        item[key] = value[:-1] + str((int(value[-1]) + 1) % 10)
    elif key == "description":
        item[key] = value + " " + rng.choice(string.ascii_lowercase)
    elif key == "quantity":
        item[key] = value + rng.randint(1, 9)
    elif key == "price":
        item[key] = round(value + rng.choice((0.1, 1.0, 10.0)), 2)
    elif key == "status":
        item[key] = rng.choice([s for s in STATUSES if s != value])
    else:
        day = int(value[8:]) % 28 + 1
        item[key] = f"{value[:8]}{day:02d}"


def corrupt_rows(
    rng: random.Random, rows: list[dict[str, Any]], start: int, *, change: float = 0.10,
    drop: float = 0.03, invent: float = 0.02,
) -> list[dict[str, Any]]:
    """A shuffled copy of ``rows``: ``change`` of leaves altered, ``drop`` and ``invent``
    shares of rows removed and added (new rows numbered from ``start``)."""
    out = [copy.deepcopy(row) for row in rows]
    for row in out:
        for key in list(row):
            if rng.random() < change:
                perturb_leaf(rng, row, key)
    out = [row for row in out if rng.random() >= drop]
    status = bool(rows) and "status" in rows[0]
    out += [make_item(rng, start + k, status) for k in range(round(len(rows) * invent))]
    rng.shuffle(out)
    return out


def make_flat(n: int, seed: int) -> tuple[dict, dict, dict]:
    """(schema, label, result) with an ``n``-row array; identical for identical arguments."""
    rng = random.Random(seed)
    rows = [make_item(rng, i) for i in range(n)]
    label = {"reference": "BENCH-FLAT", "rows": rows}
    result = {"reference": "BENCH-FLAT", "rows": corrupt_rows(rng, rows, n)}
    return flat_schema(), label, result


def make_enum_date(n: int, seed: int) -> tuple[dict, dict, dict]:
    """(schema, label, result) with an ``n``-row array of 6-field rows (a status enum and
    a date among them); identical for identical arguments."""
    rng = random.Random(seed)
    rows = [make_item(rng, i, status=True) for i in range(n)]
    label = {"reference": "BENCH-ENUM", "rows": rows}
    result = {"reference": "BENCH-ENUM", "rows": corrupt_rows(rng, rows, n)}
    return flat_schema(ENUM_ITEM_SCHEMA), label, result


def make_nested(
    outer: int = 100, middle: int = 20, inner: int = 5, seed: int = DEFAULT_SEED
) -> tuple[dict, dict, dict]:
    """(schema, label, result): ``outer`` sections x ``middle`` groups x ``inner`` rows.

    Every level is shuffled in the result; rows are corrupted as in :func:`corrupt_rows`.
    """
    rng = random.Random(seed)
    serial = 0
    label_sections, result_sections = [], []
    for s in range(outer):
        label_groups, result_groups = [], []
        for g in range(middle):
            rows = [make_item(rng, serial + k) for k in range(inner)]
            serial += inner
            label_groups.append({"group": f"G{s:03d}-{g:02d}", "rows": rows})
            result_groups.append(
                {"group": f"G{s:03d}-{g:02d}", "rows": corrupt_rows(rng, rows, 10**6 + serial)}
            )
        rng.shuffle(result_groups)
        label_sections.append({"section": f"S{s:03d}", "groups": label_groups})
        result_sections.append({"section": f"S{s:03d}", "groups": result_groups})
    rng.shuffle(result_sections)
    label = {"reference": "BENCH-NESTED", "sections": label_sections}
    result = {"reference": "BENCH-NESTED", "sections": result_sections}
    return nested_schema(), label, result


def make_shape(shape: str, n: int, seed: int) -> tuple[dict, dict, dict]:
    """(schema, label, result) of ``shape`` (:data:`SHAPES`; ``n`` unused when nested)."""
    if shape == "nested":
        return make_nested(seed=seed)
    return (make_enum_date if shape == "enum-date" else make_flat)(n, seed)


def disjoint(value: Any, schema: bool = False) -> Any:
    """``value`` with every string changed so that it equals no string the generators
    write: object keys (field names) and texts prefixed ``w``/``warm ``, ISO dates moved
    to 1987, a schema's enum members prefixed alike; a schema's keywords kept."""
    if isinstance(value, dict):
        if schema:
            out = {}
            for key, inner in value.items():
                if key == "properties":
                    out[key] = {"w" + name: disjoint(node, True) for name, node in inner.items()}
                elif key == "enum":
                    out[key] = [disjoint(member) for member in inner]
                else:
                    out[key] = disjoint(inner, True)
            return out
        return {"w" + key: disjoint(inner) for key, inner in value.items()}
    if isinstance(value, list):
        return [disjoint(inner, schema) for inner in value]
    if isinstance(value, str) and not schema:
        return "1987" + value[4:] if value[:4] == "2024" else "warm " + value
    return value


def warm_up_document(shape: str, seed: int) -> tuple[dict, dict, dict]:
    """A small document of ``shape`` sharing no string with any timed document (see
    :func:`disjoint`): the same field kinds, other names and values."""
    if shape == "nested":
        schema, label, result = make_nested(2, 3, 4, seed)
    else:
        schema, label, result = make_shape(shape, 50, seed)
    return disjoint(schema, True), disjoint(label), disjoint(result)


def strings(value: Any) -> set[str]:
    """Every string in a JSON value (or a tuple of them), object keys included."""
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.update(item)
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
        elif isinstance(item, str):
            found.add(item)
    return found


# ------------------------------------------------------------------ one measurement


def maxrss_mb() -> float:
    """Peak resident set of this process so far, in MB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6


def child(scorer_name: str, version: str, n: int, shape: str, seed: int) -> dict[str, Any]:
    """Build the document, score it once with ``scorer_name`` after a warm-up on other
    values (first sight), return time and memory, and the time of a second call."""
    sys.path.insert(0, str(REPO))
    if scorer_name in ("leafscore", "definition"):
        if scorer_name == "leafscore":
            from leafscore import _fast as engine  # the fast engine, what commands run
        else:
            import scorer as engine  # the definition, as python scorer.py runs it

        def run(result, schema, label):
            outcome = engine.score(result, schema, label, version=version)
            return outcome.value, getattr(outcome, "exact", None)
    else:
        import omni_extract_bench

        def run(result, schema, label):
            outcome = omni_extract_bench.score(result, label, schema)
            return outcome["accuracy"], outcome.get("matching_exact")

    schema, label, result = make_shape(shape, n, seed)
    baseline = json_load_seconds(label, result)
    if scorer_name != "peer":  # lazy libraries (scipy) load here, not in the timing
        warm = warm_up_document(shape, seed + 1)
        shared = strings(warm[1:]) & strings((label, result))
        if shared:  # a memo keyed by string would then hold a timed value
            raise SystemExit("warm-up shares strings with the timed document: "
                             f"{sorted(shared)[:5]}")
        run(warm[2], warm[0], warm[1])  # loads numpy, rapidfuzz, the solvers
        import scipy.sparse.csgraph  # noqa: F401  the sparse one: a once-per-process import
    # What the warm-up left (memos, compiled schemas) is collected now, not by a gen-0
    # collection at the timed call's first allocation (2.2 ms of a 42 ms first scoring
    # of 3,000 enum-and-date rows, measured with gc.callbacks): the warm-up's cost, not
    # the document's. Every scorer timed here starts so.
    gc.collect()
    before = maxrss_mb()
    start = time.perf_counter()
    value, exact = run(result, schema, label)
    seconds = time.perf_counter() - start
    peak = maxrss_mb() - before
    start = time.perf_counter()
    run(result, schema, label)  # the same document again: memos warm (labelled as such)
    second = time.perf_counter() - start
    return {"seconds": seconds, "peak_mb": peak, "value": value, "exact": exact,
            "json_seconds": baseline, "second_seconds": second}


def json_load_seconds(label: Any, result: Any, repeats: int = 5) -> float:
    """Median seconds of ``json.load`` of the label and result files (written to a temporary
    folder first): the floor any scorer of these files pays, measured in the same process."""
    import statistics
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        paths = [Path(folder) / "label.json", Path(folder) / "result.json"]
        for path, value in zip(paths, (label, result), strict=True):
            path.write_text(json.dumps(value), encoding="utf-8")
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            for path in paths:
                with open(path, encoding="utf-8") as handle:
                    json.load(handle)
            times.append(time.perf_counter() - start)
    return statistics.median(times)


@dataclass(frozen=True)
class Measurement:
    """One subprocess run: seconds and MB, or ``error`` (a one-line reason)."""

    seconds: float | None = None
    peak_mb: float | None = None
    value: float | None = None
    exact: bool | None = None
    json_seconds: float | None = None
    second_seconds: float | None = None
    error: str | None = None


def measure(
    scorer_name: str, version: str, n: int, shape: str, seed: int, timeout: float
) -> Measurement:
    """Run :func:`child` in a fresh interpreter and parse its one JSON line."""
    command = [sys.executable, __file__, "--child", scorer_name, "--version", version,
               "--n", str(n), "--seed", str(seed), "--shape", shape]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return Measurement(error=f"timed out after {timeout:g} s")
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return Measurement(error=f"exit {done.returncode}: {tail}")
    return Measurement(**json.loads(done.stdout.strip().splitlines()[-1]))


def measure_runs(runs: int, scorer_name: str, version: str, n: int, shape: str, seed: int,
                 timeout: float) -> tuple[Measurement, float | None]:
    """:func:`measure` ``runs`` times, each a fresh process: the median seconds and
    json.load seconds, the largest peak, and the median of each run's ratio of the two
    (each ratio is measured inside one process, so load shifts both sides alike)."""
    import statistics

    seen = [measure(scorer_name, version, n, shape, seed, timeout) for _ in range(runs)]
    failed = next((m for m in seen if m.error), None)
    if failed is not None:
        return failed, None
    ratios = [m.seconds / m.json_seconds for m in seen if m.seconds and m.json_seconds]
    return Measurement(
        seconds=statistics.median(m.seconds for m in seen),
        peak_mb=max(m.peak_mb for m in seen), value=seen[0].value,
        exact=all(m.exact is not False for m in seen) if seen[0].exact is not None else None,
        json_seconds=statistics.median(m.json_seconds for m in seen),
        second_seconds=statistics.median(m.second_seconds for m in seen),
    ), (statistics.median(ratios) if ratios else None)


# ------------------------------------------------------------------ report

TARGETS = {
    # version: {n: (minimum speed-up over the peer or None, peak memory limit in MB or None)}
    "1.0": {3000: (5.0, 300.0), 10000: (None, 1500.0)},
    "2.0": {3000: (5.0, None), 10000: (5.0, 200.0), 50000: (None, 4000.0)},
    "2.1": {3000: (5.0, None), 10000: (5.0, 200.0), 50000: (None, 4000.0)},  # as 2.0's
}
#: versions 2.x: the most a first sight may cost, as a multiple of json.load of the two
#: files (issue 26: every shape; the nested document keyed by its size's name)
JSON_TARGETS: dict[int | str, float] = {3000: 10.0, 10000: 10.0, 50000: 15.0,
                                        NESTED_SIZE: 20.0}


def fmt(value: float | None, pattern: str) -> str:
    return "-" if value is None else format(value, pattern)


def verdict(version: str, n: int | str, ours: Measurement, ratio: float | None,
            over_json: float | None = None) -> str:
    """'ok' / 'MISSED ...' against the issue targets for this version and size."""
    target = TARGETS.get(version, {}).get(n) if isinstance(n, int) else None
    if target is None and version != "1.0" and n in JSON_TARGETS:
        target = (None, None)
    if target is None or ours.error:
        return ""
    speedup, memory = target
    misses = []
    if speedup is not None and ratio is not None and ratio < speedup:
        misses.append(f"speed-up < {speedup:g}x")
    if memory is not None and ours.peak_mb is not None and ours.peak_mb >= memory:
        misses.append(f"peak >= {memory:g} MB")
    floor = JSON_TARGETS.get(n) if version != "1.0" else None
    if over_json is None and ours.json_seconds:
        over_json = ours.seconds / ours.json_seconds
    if floor is not None and over_json is not None and over_json > floor:
        misses.append(f"> {floor:g}x json.load")
    if version == "2.0" and ours.exact is False:
        misses.append("not exact")
    return "MISSED " + ", ".join(misses) if misses else "ok"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--version", default=DEFAULT_VERSION,
                        help=f"leafscore scoring version (default {DEFAULT_VERSION})")
    parser.add_argument("--n", type=int, nargs="+", default=[3000, 10000], help="array sizes")
    parser.add_argument("--shape", choices=SHAPES, default="flat",
                        help="flat 5-field rows (default), 6-field rows with an enum and a "
                             "date, or the 3-level 100 x 20 x 5 document (--n unused)")
    parser.add_argument("--nested", action="store_true", help="the same as --shape nested")
    parser.add_argument("--peer", action=argparse.BooleanOptionalAction, default=True,
                        help="also time omni-extract-bench (default: on)")
    parser.add_argument("--no-leafscore", dest="leafscore", action="store_false",
                        help="time the peer only (to test the harness)")
    parser.add_argument("--peer-max-n", type=int, default=10000,
                        help="skip the peer above this N (default 10000)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per run")
    parser.add_argument("--runs", type=int, default=3,
                        help="fresh leafscore processes per size; medians (default 3)")
    parser.add_argument("--child", choices=["leafscore", "definition", "peer"],
                        help=argparse.SUPPRESS)
    parser.add_argument("--definition", action="store_true",
                        help="also time the definition (scorer.score) on the 10,000-row "
                             "document (target: within 5 s)")
    args = parser.parse_args(argv)
    shape = "nested" if args.nested else args.shape

    if args.child:
        n = args.n[0]
        print(json.dumps(child(args.child, args.version, n, shape, args.seed)))
        return 0

    peer = args.peer
    if peer and importlib.util.find_spec("omni_extract_bench") is None:
        print("note: omni-extract-bench is not installed; timing leafscore only "
              "(pip install -e '.[bench]')", file=sys.stderr)
        peer = False
    nested = shape == "nested"
    sizes: list[int | str] = [NESTED_SIZE] if nested else list(args.n)
    print(f"bench_arrays: shape {shape}, version {args.version}, seed {args.seed}; first "
          "sight: each document scored once per fresh process, after a warm-up on a small "
          "document sharing no string with it; peak = growth of ru_maxrss during the "
          f"scoring call, in MB; leafscore: medians of {max(1, args.runs)} runs (its "
          "json.load ratios: the median of each run's own); 'second call': the same "
          "document scored again in that process, memos warm")
    rows, notes = [], []
    for n in sizes:
        size = 0 if nested else int(n)
        print(f"  N={n} ...", file=sys.stderr, flush=True)
        ours, over_json = (measure_runs(max(1, args.runs), "leafscore", args.version, size,
                                        shape, args.seed, args.timeout)
                           if args.leafscore else (Measurement(error="not run"), None))
        theirs = Measurement(error="not run")
        if peer and (nested or size <= args.peer_max_n):
            theirs = measure("peer", args.version, size, shape, args.seed, args.timeout)
        elif peer:
            theirs = Measurement(error=f"skipped above --peer-max-n {args.peer_max_n}")
        ratio = (theirs.seconds / ours.seconds
                 if ours.seconds and theirs.seconds is not None else None)
        floor = JSON_TARGETS.get(n) if args.version != "1.0" else None
        second = (ours.second_seconds / ours.json_seconds
                  if ours.second_seconds and ours.json_seconds else None)
        rows.append([
            n, fmt(ours.json_seconds, ".4f"),
            fmt(over_json, ".1f") + (f" (<= {floor:g})" if floor and over_json else ""),
            fmt(ours.seconds, ".3f"), fmt(second, ".1f"),
            fmt(theirs.seconds, ".3f"), fmt(ratio, ".1f"),
            fmt(ours.peak_mb, ".0f"), fmt(theirs.peak_mb, ".0f"), fmt(ours.value, ".6f"),
            fmt(theirs.value, ".6f"), verdict(args.version, n, ours, ratio, over_json),
        ])
        for who, m in (("leafscore", ours), ("peer", theirs)):
            if m.error and m.error != "not run":
                notes.append(f"N={n} {who}: {m.error}")
            if who == "leafscore" and m.exact is False:
                notes.append(f"N={n} leafscore: the pairing was approximated")
    header = ["N", "json.load s", "leafscore/json.load (target)", "leafscore s",
              "second call/json.load", "peer s",
              "peer/leafscore", "leafscore MB", "peer MB", "leafscore value", "peer accuracy",
              "target"]
    print(tabulate(rows, headers=header, tablefmt="github", disable_numparse=True))
    for note in notes:
        print("note: " + note)
    if args.definition:  # the definition must stay usable (issue 20): 10,000 rows in 5 s
        seen = measure("definition", args.version, 10000, "flat", args.seed, args.timeout)
        ok = seen.seconds is not None and seen.seconds <= 5.0
        print(f"definition (scorer.score), 10,000 rows, version {args.version}: "
              f"{fmt(seen.seconds, '.2f')} s, value {fmt(seen.value, '.6f')} "
              f"(target <= 5 s) {'ok' if ok else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
