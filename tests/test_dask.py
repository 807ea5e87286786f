"""Past one machine (issue 10): the same bytes from every executor, streaming, faults.

One small Dask ``LocalCluster`` (2 single-thread worker processes) serves the module;
serial, local-pool and Dask runs must write byte-identical summary.json files, on a
generated benchmark and on DocuBench under both versions, also when a worker is killed
mid-run. Everything has a timeout: the file stays well under a minute.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_helpers import REPO, invoke, private_cache  # noqa: F401 (autouse)
from kill_timeout import killed_after

import leafscore
import scorer
from leafscore import api, executors, runner
from leafscore.executors import ExecutorError, in_order

distributed = pytest.importorskip("distributed")
from leafscore.executors.dask import DaskExecutor  # noqa: E402


def _bench_scale():
    spec = importlib.util.spec_from_file_location("bench_scale",
                                                  REPO / "benchmarks" / "bench_scale.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def cluster():
    """A LocalCluster of 2 worker processes, closed after the module."""
    local = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     dashboard_address=None, silence_logs=logging.ERROR)
    try:
        yield local
    finally:
        local.close(timeout=20)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """A generated benchmark: 40 small invoices x 3 systems (with failures and gaps)."""
    root = tmp_path_factory.mktemp("corpus")
    _bench_scale().write_corpus(root, 40, systems=3)
    return root


def _summary(root: Path, out: Path, *options: str) -> bytes:
    result = invoke("report", str(root), "--out", str(out), "--no-cache", *options)
    assert result.exit_code == 0, result.stderr
    return (out / "summary.json").read_bytes()


def test_the_core_never_imports_dask():
    code = ("import sys, leafscore.cli, leafscore.api, scorer; "
            "print(sorted(m for m in ('dask', 'distributed') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=REPO, timeout=60, check=True)
    assert done.stdout.strip() == "[]"


def test_serial_pool_and_dask_write_the_same_summary(corpus, cluster, tmp_path):
    serial = _summary(corpus, tmp_path / "serial")
    pool = _summary(corpus, tmp_path / "pool", "--workers", "2")
    dask = _summary(corpus, tmp_path / "dask", "--executor", "dask",
                    "--scheduler", cluster.scheduler_address)
    assert serial == pool == dask


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_docubench_is_the_same_on_every_executor(shared, cluster, tmp_path, version):
    root = shared / "docubench"
    serial = _summary(root, tmp_path / "serial", "--version", version)
    pool = _summary(root, tmp_path / "pool", "--version", version, "--workers", "2")
    dask = _summary(root, tmp_path / "dask", "--version", version, "--executor", "dask",
                    "--scheduler", cluster.scheduler_address)
    assert serial == pool == dask


def test_a_worker_killed_mid_run_is_survived(corpus, cluster, tmp_path):
    expected = leafscore.evaluate(corpus, cache=False).summary()
    with distributed.Client(cluster.scheduler_address, timeout=10,
                            set_as_default=False) as client:
        pids = client.run(os.getpid)
        victim = sorted(pids)[0]
        killed = []

        def kill_once(done: int, total: int) -> None:
            if done >= 5 and not killed:
                os.kill(pids[victim], signal.SIGKILL)
                killed.append(done)

        executor = DaskExecutor(scheduler=cluster.scheduler_address, batch_size=1)
        evaluation = leafscore.evaluate(corpus, cache=False, keep_verdicts=False,
                                        executor=executor, progress=kill_once)
        assert killed, "the worker was never killed"
        assert evaluation.summary() == expected
        client.wait_for_workers(2, timeout=30)
        assert pids[victim] not in client.run(os.getpid).values()
    out = tmp_path / "after"
    assert _summary(corpus, out, "--executor", "dask", "--scheduler",
                    cluster.scheduler_address) == _summary(corpus, tmp_path / "serial")


def test_dask_without_an_address_starts_a_local_cluster(tmp_path):
    root = tmp_path / "small"
    _bench_scale().write_corpus(root, 6, systems=2)
    assert _summary(root, tmp_path / "dask", "--executor", "dask", "--workers", "2") \
        == _summary(root, tmp_path / "serial")


def test_a_scheduler_that_cannot_be_reached_is_one_error_exit_2(corpus):
    with killed_after(120):  # a connection refused, not Dask's long connect retries
        result = invoke("score", str(corpus), "--no-cache", "--executor", "dask",
                        "--scheduler", "tcp://127.0.0.1:9")
    assert result.exit_code == 2
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_a_scheduler_without_the_dask_executor_is_a_usage_error(corpus):
    result = invoke("score", str(corpus), "--scheduler", "tcp://127.0.0.1:9")
    assert result.exit_code == 2
    assert "--scheduler goes with --executor dask" in result.stderr


def test_the_cache_is_written_by_the_client_and_read_back(corpus, cluster, tmp_path):
    cache = ["--cache-dir", str(tmp_path / "cache")]
    cold = invoke("report", str(corpus), "--out", str(tmp_path / "cold"), *cache,
                  "--executor", "dask", "--scheduler", cluster.scheduler_address)
    assert cold.exit_code == 0, cold.stderr
    assert list((tmp_path / "cache").glob("*/*.json"))
    warm = invoke("report", str(corpus), "--out", str(tmp_path / "warm"), *cache)
    assert warm.exit_code == 0, warm.stderr
    assert (tmp_path / "cold" / "summary.json").read_bytes() \
        == (tmp_path / "warm" / "summary.json").read_bytes()
    # Verdicts come from the warm cache too, streamed in order.
    streamed = tmp_path / "v.csv"
    leafscore.evaluate(corpus, cache_dir=tmp_path / "cache", keep_verdicts=False,
                       verdicts_to=streamed)
    kept = tmp_path / "kept.csv"
    leafscore.evaluate(corpus, cache=False).write_verdicts(kept)
    assert streamed.read_bytes() == kept.read_bytes()


def test_a_streamed_run_keeps_no_verdicts_and_the_same_tables(corpus):
    seen = []
    lean = api.evaluate(corpus, cache=False, keep_verdicts=False,
                        progress=None, executor=executors.Serial(batch_size=7))
    full = api.evaluate(corpus, cache=False)
    assert all(cell.score.verdicts == () for cell in lean.run.cells.values())
    assert lean.fields("alpha") == full.fields("alpha")
    assert lean.summary() == full.summary()
    with pytest.raises(ValueError, match="without keeping its verdicts"):
        lean.explain("inv-000000", "alpha")
    bench = api.load(corpus)
    runner.score_benchmark(bench, record=scorer.VERSIONS["2.0"], engine="reference",
                           options=bench.config.options,
                           verdicts=False, on_cell=lambda pair, cell: seen.append(
                               (pair, len(cell.score.verdicts))))
    assert [pair for pair, _ in seen] == list(full.run.cells)
    assert all(n > 0 for _, n in seen)


def test_ctrl_c_leaves_no_summary_and_no_partial_verdicts(corpus, tmp_path, monkeypatch):
    out = tmp_path / "out"
    out.mkdir()

    def interrupt(done: int, total: int) -> None:
        if done > 10:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        api.evaluate(corpus, cache=False, verdicts_to=out / "v.csv", progress=interrupt)
    assert list(out.iterdir()) == []
    calls = []
    real = runner.score_cell

    def score_then_interrupt(*args):
        calls.append(1)
        if len(calls) > 10:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(runner, "score_cell", score_then_interrupt)
    result = invoke("report", str(corpus), "--out", str(out), "--no-cache",
                    "--verdicts", str(out / "v.parquet"))
    assert result.exit_code != 0
    assert list(out.iterdir()) == []


def test_results_come_back_in_order_whatever_order_they_finish_in():
    from concurrent.futures import ThreadPoolExecutor

    in_flight, most = [0], [0]

    def slow_first(n: int) -> int:
        time.sleep(0.02 * (5 - n % 5))
        return n * n

    with ThreadPoolExecutor(4) as pool:
        def submit(n: int):
            in_flight[0] += 1
            most[0] = max(most[0], in_flight[0])
            return pool.submit(slow_first, n)

        out = []
        for value in in_order(submit, range(12), window=3):
            in_flight[0] -= 1
            out.append(value)
    assert out == [n * n for n in range(12)]
    assert most[0] <= 3 + 1


def test_a_worker_with_other_scoring_code_is_refused(corpus):
    bench = api.load(corpus)
    docs = {d.id: d for d in bench.documents}
    job = runner.BatchJob(docs, scorer.VERSIONS["2.0"], "reference", bench.config.options,
                          "not-this-code", False)
    pair = (bench.systems[0], bench.documents[0].id)
    with pytest.raises(ExecutorError, match="other scoring code"):
        runner.score_batch(job, [(pair[1], bench.results[pair])])


def test_executor_choices_are_checked():
    with pytest.raises(ValueError, match="goes with the dask executor"):
        executors.make_executor("local", scheduler="tcp://127.0.0.1:9")
    with pytest.raises(ValueError, match="not one of"):
        executors.make_executor("ray")
    assert isinstance(executors.make_executor("dask", workers=2), DaskExecutor)
    assert isinstance(executors.make_executor("local", workers=2), executors.LocalPool)
