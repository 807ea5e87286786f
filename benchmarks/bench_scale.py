"""Scale: a generated corpus of small invoices scored serially, by a local pool and by Dask.

A seeded generator writes a benchmark folder into a temporary directory outside the
repository (default 5 systems x 20,000 documents = 100,000 pairs): each document a small
invoice (number, date, vendor, currency, total, 1-4 line items of description, quantity
and amount), one schema for all; systems differ in quality (values changed, items
dropped, a few failed envelopes, unreadable files and missing results).

Each mode runs in a fresh client process, with no cache, and keeps no verdicts (as
``leafscore report``):

1. ``serial``: ``--executor local --workers 1``
2. ``local``: ``--executor local --workers 2`` (a process pool)
3. ``dask``: ``--executor dask`` on a ``LocalCluster`` of 2 single-thread worker
   processes (``executors.dask.local_cluster``, the one ``--executor dask`` starts),
   started by the client before the clock starts (its start-up is reported apart, as a
   cluster would already be running); the client reaches it by its address

For each: **pairs/s** = pairs / seconds of ``evaluate`` after the folder is loaded (its
schemas and labels, reported apart; result files are read by the run, inside the clock);
**peak MB** = ``resource.getrusage(RUSAGE_SELF).ru_maxrss`` of the client process at the
end (reading, scoring and the summary with its bootstrap included; worker processes not
counted), in MB (10^6 bytes). The summaries of the three modes must
be byte-identical; the script says so when they are not. ``--write-doc`` rewrites the
measured part of docs/SCALING.md.

Usage::

    python benchmarks/bench_scale.py                      # 100,000 pairs
    python benchmarks/bench_scale.py --docs 2000          # 10,000 pairs, a quick run
    python benchmarks/bench_scale.py --write-doc docs/SCALING.md
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
MODES = ("serial", "local", "dask")
SYSTEMS = ("alpha", "bravo", "charlie", "delta", "echo")
#: Per system: chance a leaf is changed, an item dropped, a result failed/unreadable/missing.
QUALITY = {"alpha": 0.01, "bravo": 0.03, "charlie": 0.06, "delta": 0.10, "echo": 0.20}

SCHEMA = {
    "type": "object",
    "properties": {
        "invoice_number": {"type": "string"},
        "date": {"type": "string", "format": "date"},
        "vendor": {"type": "string"},
        "currency": {"type": "string"},
        "total": {"type": "number"},
        "line_items": {"type": "array", "items": {"type": "object", "properties": {
            "description": {"type": "string"},
            "quantity": {"type": "integer"},
            "amount": {"type": "number"}}}},
    },
}
WORDS = ("widget", "bolt", "cable", "panel", "sensor", "valve", "filter", "pump", "relay")
VENDORS = ("Acme Ltd", "Globex GmbH", "Initech Inc", "Umbrella SA", "Stark & Co")


def invoice(rng: random.Random, n: int) -> dict[str, Any]:
    """One label: a small invoice with 1-4 line items."""
    items = [{"description": f"{rng.choice(WORDS)} {rng.randint(1, 99)}",
              "quantity": rng.randint(1, 20), "amount": round(rng.uniform(1, 900), 2)}
             for _ in range(rng.randint(1, 4))]
    return {"invoice_number": f"INV-{n:07d}",
            "date": f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
            "vendor": rng.choice(VENDORS), "currency": rng.choice(("EUR", "USD", "GBP")),
            "total": round(sum(i["amount"] for i in items), 2), "line_items": items}


def extraction(rng: random.Random, label: dict[str, Any], noise: float) -> bytes | None:
    """A system's result file for ``label``: bytes, or ``None`` for a missing file."""
    roll = rng.random()
    if roll < noise * 0.05:
        return None
    if roll < noise * 0.10:
        return b'{"status": "failed", "error": "timeout"}'
    if roll < noise * 0.12:
        return b'{"status": "ok", "data": {"invoice_number": '
    data = json.loads(json.dumps(label))
    for key in ("invoice_number", "vendor", "currency"):
        if rng.random() < noise:
            data[key] = data[key].lower() if rng.random() < 0.5 else data[key] + "X"
    if rng.random() < noise:
        data["total"] = round(data["total"] * 1.1, 2)
    if rng.random() < noise:
        data["date"] = data["date"].replace("-", "/")
    items = [i for i in data["line_items"] if rng.random() >= noise]
    for item in items:
        if rng.random() < noise:
            item["quantity"] += 1
    data["line_items"] = items
    return json.dumps({"status": "ok", "data": data}).encode()


def write_corpus(root: Path, documents: int, systems: int = len(SYSTEMS),
                 seed: int = 10) -> int:
    """Write a benchmark folder of ``documents`` invoices x ``systems`` systems at
    ``root``; return the number of (system, document) pairs."""
    rng = random.Random(seed)
    names = SYSTEMS[:systems]
    for folder in ("schemas", "labels", *(f"results/{s}" for s in names)):
        (root / folder).mkdir(parents=True, exist_ok=True)
    schema = json.dumps(SCHEMA).encode()
    (root / "benchmark.toml").write_text('scoring_version = "2.0"\n', encoding="utf-8")
    for n in range(documents):
        doc = f"inv-{n:06d}"
        label = invoice(rng, n)
        (root / "schemas" / f"{doc}.json").write_bytes(schema)
        (root / "labels" / f"{doc}.json").write_text(json.dumps(label), encoding="utf-8")
        for system in names:
            data = extraction(rng, label, QUALITY[system])
            if data is not None:
                (root / "results" / system / f"{doc}.json").write_bytes(data)
    return documents * len(names)


def child(mode: str, root: Path, workers: int, out: Path) -> None:
    """One mode in this (fresh) process: print a JSON line of its measurements."""
    import leafscore
    from leafscore import api

    started = time.perf_counter()
    bench = api.load(root)
    read = time.perf_counter() - started
    cluster, startup, options = None, 0.0, {"executor": "local", "workers": 1}
    if mode == "local":
        options = {"executor": "local", "workers": workers}
    elif mode == "dask":
        from leafscore.executors.dask import local_cluster

        began = time.perf_counter()
        cluster = local_cluster(workers)  # the one `--executor dask` starts
        startup = time.perf_counter() - began
        options = {"executor": "dask", "scheduler": cluster.scheduler_address}
    began = time.perf_counter()
    evaluation = leafscore.evaluate_benchmark(bench, cache=False, keep_verdicts=False,
                                              **options)
    scored = time.perf_counter() - began
    if cluster is not None:
        cluster.close()
    evaluation.report(out)
    pairs = len(evaluation.run.cells)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6  # KiB on Linux
    print(json.dumps({"mode": mode, "pairs": pairs, "read_s": round(read, 2),
                      "startup_s": round(startup, 2), "score_s": round(scored, 2),
                      "pairs_per_s": round(pairs / scored, 1), "peak_mb": round(peak, 1)}))


def run_mode(mode: str, root: Path, workers: int, out: Path) -> dict[str, Any]:
    """Run one mode in a fresh client process; its measurements."""
    command = [sys.executable, __file__, "--child", mode, "--root", str(root),
               "--workers", str(workers), "--out", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=REPO,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    if done.returncode != 0:
        raise SystemExit(f"{mode} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def projection(rows: dict[str, dict[str, Any]], workers: int) -> dict[str, float]:
    """Pairs/s per core from the Dask run, and hours for 10 million pairs on 64 cores."""
    per_core = rows["dask"]["pairs_per_s"] / workers
    return {"per_core": round(per_core, 1),
            "hours_10m_64": round(10_000_000 / (per_core * 64) / 3600, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=20_000, help="documents (x 5 systems)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--root", type=Path, help="corpus folder (default: a temp folder)")
    parser.add_argument("--keep", action="store_true", help="keep the generated corpus")
    parser.add_argument("--write-doc", type=Path, help="rewrite this SCALING.md's numbers")
    parser.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.root, args.workers, args.out)
        return
    base = Path(tempfile.mkdtemp(prefix="leafscore-scale-"))
    root = args.root or base / "corpus"
    try:
        began = time.perf_counter()
        pairs = write_corpus(root, args.docs)
        print(f"corpus: {pairs:,} pairs ({args.docs:,} documents x {len(SYSTEMS)} systems) "
              f"written in {time.perf_counter() - began:.1f} s at {root}", flush=True)
        rows, load = {}, os.getloadavg()[0]
        for mode in MODES:
            rows[mode] = run_mode(mode, root, args.workers, base / mode)
            print(json.dumps(rows[mode]), flush=True)
        summaries = {m: (base / m / "summary.json").read_bytes() for m in MODES}
        same = len(set(summaries.values())) == 1
        ratio = rows["dask"]["pairs_per_s"] / rows["local"]["pairs_per_s"]
        print(f"summary.json byte-identical across modes: {same}")
        print(f"dask / local throughput: {ratio:.2f}")
        proj = projection(rows, args.workers)
        print(f"projection: {proj['per_core']} pairs/s per core; 10 million pairs on 64 "
              f"cores: {proj['hours_10m_64']} h")
        if args.write_doc:
            write_doc(args.write_doc, rows, pairs, ratio, proj, same,
                      (load, os.getloadavg()[0]))
        if not same:
            raise SystemExit("the summaries differ between modes")
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)


def write_doc(path: Path, rows: dict[str, dict[str, Any]], pairs: int, ratio: float,
              proj: dict[str, float], same: bool, load: tuple[float, float]) -> None:
    """Replace the block between the measured-results markers of ``path``; ``load`` is
    the 1-minute load average before and after the modes ran."""
    lines = [f"Measured on {pairs:,} pairs ({os.cpu_count()} cores, "
             f"{time.strftime('%Y-%m-%d')}, load average {load[0]:.2f} before the modes "
             f"and {load[1]:.2f} after):", "",
             "| mode | pairs/s | scoring s | reading s | cluster start s | peak client MB |",
             "|---|---:|---:|---:|---:|---:|"]
    lines += [f"| {r['mode']} | {r['pairs_per_s']:,.0f} | {r['score_s']} | {r['read_s']} | "
              f"{r['startup_s']} | {r['peak_mb']:,.0f} |" for r in rows.values()]
    lines += ["", f"Dask / local pool throughput: **{ratio:.2f}**. summary.json "
              f"byte-identical across the three modes: **{same}**.", "",
              f"Projection: **{proj['per_core']:,} pairs/s per core**; 10 million pairs on "
              f"64 cores: **{proj['hours_10m_64']} hours** "
              f"({proj['hours_10m_64'] * 60:.1f} minutes)."]
    text = path.read_text(encoding="utf-8")
    start, end = "<!-- measured:start -->", "<!-- measured:end -->"
    head, _, rest = text.partition(start)
    _, _, tail = rest.partition(end)
    path.write_text(f"{head}{start}\n" + "\n".join(lines) + f"\n{end}{tail}", encoding="utf-8")


if __name__ == "__main__":
    main()
