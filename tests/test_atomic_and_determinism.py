"""No data lost, and the same numbers every time (issue 5, items 4 and 5).

* A ``leafscore report`` killed (SIGKILL) while it writes leaves the previous
  ``results/summary.json`` intact. The child process is stopped at a known point, after
  the new summary is fully written to its temporary file and before the rename, by a
  test-side harness that wraps ``os.fsync``; nothing in leafscore knows about it.
* The same ROOT reported serially and with ``--workers 2``, under ``PYTHONHASHSEED`` 0
  and 1, gives byte-identical ``summary.json`` (subprocesses, cold caches).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SCHEMA = '{"type":"object","properties":{"total":{"type":"number"},"rows":{"type":"array",' \
    '"items":{"type":"object","properties":{"sku":{"type":"string"},"qty":{"type":"integer"}}}}}}'

# Runs `leafscore` in this process with os.fsync replaced: the first fsync of a file
# named summary.json's temporary creates the marker file, then sleeps until killed.
HARNESS = """
import os, sys, time
marker = sys.argv[1]
real_fsync = os.fsync
def fsync(fd):
    if ".summary.json." in os.readlink(f"/proc/self/fd/{fd}"):
        open(marker, "w").close()
        time.sleep(600)
    real_fsync(fd)
os.fsync = fsync
from leafscore.cli import main
main(sys.argv[2:], prog_name="leafscore")
"""


def make_benchmark(root: Path, docs: int = 6) -> Path:
    for folder in ("schemas", "labels", "results/sysA", "results/sysB"):
        (root / folder).mkdir(parents=True)
    for n in range(docs):
        doc_id = f"d{n:02d}"
        label = {"total": n, "rows": [{"sku": f"A{k}", "qty": k} for k in range(n % 4)]}
        (root / f"schemas/{doc_id}.json").write_text(SCHEMA)
        (root / f"labels/{doc_id}.json").write_text(json.dumps(label))
        (root / f"results/sysA/{doc_id}.json").write_text(json.dumps({"data": label}))
        wrong = {"total": n + n % 2, "rows": label["rows"][::-1][: max(0, n % 4 - 1)]}
        (root / f"results/sysB/{doc_id}.json").write_text(json.dumps({"data": wrong}))
    (root / "benchmark.toml").write_text('scoring_version = "2.0"\n')
    return root


def leafscore_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "leafscore", *args]


def run(args: list[str], **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        args, capture_output=True, text=True, timeout=300, check=False, cwd=REPO,
        env={**os.environ, **env},
    )


# --- killed mid-write ------------------------------------------------------------------------


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc (Linux)")
def test_a_report_killed_while_writing_leaves_the_previous_summary_intact(tmp_path):
    root = make_benchmark(tmp_path / "bench")
    first = run(leafscore_cmd("report", str(root), "--no-cache", "--resamples", "100"))
    assert first.returncode == 0, first.stderr
    previous = (root / "results/summary.json").read_bytes()
    (root / "results/sysB/d01.json").write_text('{"data": {"total": 99}}')  # changes the summary

    marker = tmp_path / "writing"
    child = subprocess.Popen(
        [sys.executable, "-c", HARNESS, str(marker), "report", str(root), "--no-cache",
         "--resamples", "100"],
        cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while not marker.exists():
            assert child.poll() is None, "the report finished before writing summary.json"
            assert time.monotonic() < deadline, "the report never reached summary.json"
            time.sleep(0.02)
        child.send_signal(signal.SIGKILL)
        assert child.wait(timeout=30) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()

    assert (root / "results/summary.json").read_bytes() == previous
    json.loads(previous)  # and it is whole


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc (Linux)")
def test_a_report_after_a_killed_one_writes_the_new_summary(tmp_path):
    root = make_benchmark(tmp_path / "bench")
    report = ["report", str(root), "--no-cache", "--resamples", "100"]
    marker = tmp_path / "writing"
    child = subprocess.Popen([sys.executable, "-c", HARNESS, str(marker), *report], cwd=REPO,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not marker.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert not (root / "results/summary.json").exists()  # killed before the rename

    again = run(leafscore_cmd(*report))
    assert again.returncode == 0, again.stderr
    assert json.loads((root / "results/summary.json").read_text())["version"] == "2.0"


def test_a_report_run_to_the_end_replaces_the_summary(tmp_path):
    root = make_benchmark(tmp_path / "bench")
    report = leafscore_cmd("report", str(root), "--no-cache", "--resamples", "100")
    assert run(report).returncode == 0
    before = (root / "results/summary.json").read_bytes()
    (root / "results/sysB/d01.json").write_text('{"data": {"total": 99}}')
    assert run(report).returncode == 0
    after = (root / "results/summary.json").read_bytes()
    assert after != before
    assert sorted(p.name for p in (root / "results").iterdir()) == [
        "summary.csv", "summary.json", "sysA", "sysB"
    ]


# --- determinism ---------------------------------------------------------------------------------


def summary_bytes(root: Path, out: Path, version: str, workers: int, hashseed: str) -> bytes:
    outcome = run(
        leafscore_cmd("report", str(root), "--out", str(out), "--version", version,
                      "--workers", str(workers), "--no-cache", "--resamples", "200"),
        PYTHONHASHSEED=hashseed,
    )
    assert outcome.returncode == 0, outcome.stderr
    return (out / "summary.json").read_bytes()


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_serial_and_two_workers_under_different_hash_seeds_give_identical_summaries(
    tmp_path, version
):
    root = make_benchmark(tmp_path / "bench", docs=12)
    serial = summary_bytes(root, tmp_path / "serial", version, 1, "0")
    parallel = summary_bytes(root, tmp_path / "parallel", version, 2, "1")
    assert serial == parallel


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_docubench_summaries_are_identical_serial_and_parallel(shared, tmp_path, version):
    root = shared / "docubench"  # read only: --out writes elsewhere
    serial = summary_bytes(root, tmp_path / "serial", version, 1, "0")
    parallel = summary_bytes(root, tmp_path / "parallel", version, 2, "1")
    assert serial == parallel
