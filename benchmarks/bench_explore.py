"""The results explorer at scale: ``leafscore explore`` on generated benchmarks of many
systems, its wall time and the size of the page it writes.

A seeded generator writes a benchmark folder into a temporary directory outside the
repository: ``--documents`` small invoices (number, vendor, date, total, 1-4 line items),
one schema for all, and ``--systems`` systems (``sys-0000``...), each a copy of the labels
with errors at one of ten rates (0% to 45% of leaves changed, items dropped or invented;
every 10th system leaves one result out and every 7th writes one unreadable file). The
default case is the issue's: 600 one-document systems.

Each size runs ``python -m leafscore explore ROOT --out PAGE --no-cache`` in a fresh
process, ``--runs`` times; **seconds** is the median wall time of the whole process
(start-up, reading, scoring, the summary's bootstrap, the pair differences and the page),
**MB** the page's size in 10^6 bytes, and **pairs** the ordered system pairs whose paired
interval the page holds. Targets (issue 22): 600 one-document systems in under 10 s and
under 3 MB.

Usage::

    python benchmarks/bench_explore.py                          # 600 systems x 1 document
    python benchmarks/bench_explore.py --systems 100 300 600 --documents 1
    python benchmarks/bench_explore.py --systems 20 --documents 500 --runs 3
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent

SCHEMA = {
    "type": "object",
    "properties": {
        "number": {"type": "string"},
        "vendor": {"type": "string"},
        "date": {"type": "string", "format": "date"},
        "total": {"type": "number"},
        "lines": {"type": "array", "items": {"type": "object", "properties": {
            "desc": {"type": "string"}, "qty": {"type": "integer"},
            "amount": {"type": "number"}}}},
    },
}
WORDS = ("bolts", "paint", "cable", "labour", "pipe", "glass", "timber", "tiles", "sand")
VENDORS = ("Acme GmbH", "Blue Ltd", "Côte SA", "Stark & Co")


def _label(rng: random.Random, n: int) -> dict[str, Any]:
    lines = [{"desc": f"{rng.choice(WORDS)} {rng.randint(1, 99)}", "qty": rng.randint(1, 20),
              "amount": round(rng.uniform(1, 900), 2)} for _ in range(rng.randint(1, 4))]
    return {"number": f"INV-{n:05d}", "vendor": rng.choice(VENDORS),
            "date": f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
            "total": round(sum(line["amount"] for line in lines), 2), "lines": lines}


def _result(rng: random.Random, label: dict[str, Any], rate: float) -> dict[str, Any]:
    data = json.loads(json.dumps(label))
    for key in ("number", "vendor", "date"):
        if rng.random() < rate:
            data[key] += "x"
    if rng.random() < rate:
        data.pop("total")
    for line in data["lines"]:
        if rng.random() < rate:
            line["qty"] += 1
    if data["lines"] and rng.random() < rate:
        data["lines"].pop()
    if rng.random() < rate:
        data["lines"].append({"desc": "surcharge", "qty": 1, "amount": 9.5})
    return {"status": "ok", "data": data}


def write_benchmark(root: Path, *, documents: int, systems: int, seed: int = 22) -> Path:
    """Write a benchmark folder of ``documents`` x ``systems`` at ``root`` (see the module
    docstring) and return it."""
    rng = random.Random(seed)
    for folder in ("schemas", "labels"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    names = [f"sys-{k:04d}" for k in range(systems)]
    for name in names:
        (root / "results" / name).mkdir(parents=True, exist_ok=True)
    schema = json.dumps(SCHEMA)
    for i in range(documents):
        doc = f"doc-{i:05d}"
        label = _label(rng, i)
        (root / "schemas" / f"{doc}.json").write_text(schema, encoding="utf-8")
        (root / "labels" / f"{doc}.json").write_text(json.dumps(label, ensure_ascii=False),
                                                     encoding="utf-8")
        for k, name in enumerate(names):
            path = root / "results" / name / f"{doc}.json"
            if i == 0 and k % 10 == 9:
                continue  # a missing result
            if i == 0 and k % 7 == 6:
                path.write_text("{not json", encoding="utf-8")
                continue
            result = _result(rng, label, 0.05 * (k % 10))
            path.write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")
    (root / "benchmark.toml").write_text('name = "explore-scale"\nscoring_version = "2.1"\n',
                                         encoding="utf-8")
    return root


def measure(root: Path, page: Path) -> float:
    """Wall seconds of one ``leafscore explore`` process; raises when it fails."""
    command = [sys.executable, "-m", "leafscore", "explore", str(root), "--out", str(page),
               "--no-cache"]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=REPO)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"explore exited {done.returncode}: {done.stderr.strip()}")
    return seconds


def pairs_in(page: Path) -> int:
    """Ordered pairs of systems whose paired difference the page holds."""
    text = page.read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="data">(.*?)</script>', text,
                      re.DOTALL)
    if found is None:
        raise SystemExit(f"{page}: no embedded data")
    return len(json.loads(found[1])["pairs"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    parser.add_argument("--systems", type=int, nargs="+", default=[600])
    parser.add_argument("--documents", type=int, default=1)
    parser.add_argument("--runs", type=int, default=1, help="runs per size (median)")
    args = parser.parse_args(argv)
    print(f"{'systems':>8} {'documents':>9} {'seconds':>8} {'MB':>7} {'pairs':>8}")
    for systems in args.systems:
        folder = Path(tempfile.mkdtemp(prefix="leafscore-explore-"))
        try:
            root = write_benchmark(folder / "bench", documents=args.documents,
                                   systems=systems)
            page = folder / "page.html"
            seconds = statistics.median(measure(root, page) for _ in range(args.runs))
            size = page.stat().st_size / 1e6
            print(f"{systems:>8} {args.documents:>9} {seconds:>8.2f} {size:>7.2f} "
                  f"{pairs_in(page):>8}", flush=True)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
