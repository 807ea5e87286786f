"""Dying workers (issue 22): a worker killed or out of memory costs at most its batch's
retry. A run either writes exactly the bytes of a serial run, or exits 2 with one line
naming the results it could not score; a result that runs out of memory alone twice is
a parse failure with a warning. Real worker processes are killed: by the test hook
``worker_hooks`` (installed in the workers only) on a result that carries its trigger,
or by ``os.kill`` of a worker's pid from the parent.

Every test has a timeout through its tiny benchmark (a few dozen pairs); no wall time is
asserted.
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import os
import signal
from pathlib import Path

import pytest
import worker_hooks
from cli_helpers import invoke, make_benchmark, private_cache  # noqa: F401 (autouse)

import leafscore
from leafscore import runner
from leafscore.executors import LocalPool, Serial, local
from leafscore.executors.base import DIED, MEMORY, Failure, Lost, survive

DOCS = [f"d{n:02d}" for n in range(12)]
LABELS = {doc: {"a": f"alpha {doc}", "b": f"beta {doc}"} for doc in DOCS}
VICTIM = "d05"


def _results(trigger: str | None) -> dict[str, dict[str, object]]:
    """Two systems; ``bravo``'s result for :data:`VICTIM` carries ``trigger``."""
    alpha = {doc: {"a": f"alpha {doc}", "b": f"beta {doc}"} for doc in DOCS}
    bravo = {doc: {"a": f"alpha {doc}", "b": "wrong"} for doc in DOCS}
    bravo["d01"] = None  # a missing result
    bravo[VICTIM] = {"a": f"alpha {VICTIM}", "b": trigger or "wrong"}
    return {"alpha": alpha, "bravo": bravo}


def _bench(root: Path, trigger: str | None) -> Path:
    return make_benchmark(root, LABELS, _results(trigger),
                          config='scoring_version = "2.1"\n')


def _report(root: Path, out: Path, *options: str) -> dict[str, bytes]:
    """Every file ``report`` writes, by name, after a run that must exit 0."""
    done = invoke("report", str(root), "--out", str(out), "--no-cache", *options)
    assert done.exit_code == 0, done.stderr
    assert "Traceback" not in done.stderr
    return {p.name: p.read_bytes() for p in sorted(out.iterdir())}


@pytest.fixture
def hooked_pool(monkeypatch):
    """Local pools whose workers (only) carry the test hook."""
    monkeypatch.setattr(local, "_set_shared", worker_hooks.pool_initializer(local._set_shared))


def _one_line_naming_the_victim(result) -> None:
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("leafscore: error: could not score 1 result(s)")
    assert f"results/bravo/{VICTIM}.json (its worker died each time, alone too)" in lines[0]
    assert "Traceback" not in result.stderr


# ------------------------------------------------------------------------------------
# The local pool
# ------------------------------------------------------------------------------------


def test_a_pool_worker_that_kills_itself_once_costs_a_retry_and_changes_no_byte(
        tmp_path, hooked_pool):
    root = _bench(tmp_path / "b", worker_hooks.trigger("KILL", "ONCE", tmp_path / "once"))
    serial = _report(root, tmp_path / "serial")
    pooled = _report(root, tmp_path / "pool", "--workers", "2")
    assert (tmp_path / "once").exists(), "no worker was killed"
    assert pooled == serial


def test_a_pool_worker_killed_from_outside_mid_run_changes_no_byte(tmp_path):
    root = _bench(tmp_path / "b", None)
    serial = _report(root, tmp_path / "serial")
    killed: list[int] = []

    def kill_a_worker(done: int, total: int) -> None:
        workers = multiprocessing.active_children()
        if done >= 4 and not killed and workers:
            os.kill(workers[0].pid, signal.SIGKILL)
            killed.append(workers[0].pid)

    evaluation = leafscore.evaluate(root, cache=False, keep_verdicts=False,
                                    executor=LocalPool(2, batch_size=1), progress=kill_a_worker)
    assert killed, "no worker was killed"
    out = tmp_path / "pool"
    evaluation.report(out)
    assert {p.name: p.read_bytes() for p in sorted(out.iterdir())} == serial


def test_a_result_that_kills_every_pool_worker_scoring_it_exits_2_naming_it(
        tmp_path, hooked_pool):
    root = _bench(tmp_path / "b", worker_hooks.trigger("KILL", "ALWAYS"))
    out = tmp_path / "out"
    result = invoke("report", str(root), "--out", str(out), "--no-cache", "--workers", "2")
    _one_line_naming_the_victim(result)
    assert not (out / "summary.json").exists()


def test_a_pool_worker_out_of_memory_once_costs_a_retry_and_changes_no_byte(
        tmp_path, hooked_pool):
    root = _bench(tmp_path / "b", worker_hooks.trigger("OOM", "ONCE", tmp_path / "once"))
    serial = _report(root, tmp_path / "serial")
    assert _report(root, tmp_path / "pool", "--workers", "2") == serial
    assert (tmp_path / "once").exists()


def _out_of_memory_is_a_parse_failure(root: Path, tmp_path: Path, *options: str) -> None:
    """The victim is a parse failure with a warning naming it; every other cell is the
    serial run's."""
    done = invoke("score", str(root), "--no-cache", "--format", "json", *options)
    assert done.exit_code == 0, done.stderr
    warning = (f"leafscore: warning: results/bravo/{VICTIM}.json: "
               f"{runner.OUT_OF_MEMORY_NOTE} (parse failure)")
    assert warning in done.stderr.splitlines()
    assert "Traceback" not in done.stderr
    clean = _bench(tmp_path / "clean", None)
    (clean / "results" / "bravo" / f"{VICTIM}.json").write_bytes(b"{not json")
    expected = invoke("score", str(clean), "--no-cache", "--format", "json")
    got, want = json.loads(done.stdout), json.loads(expected.stdout)
    assert got.pop("warnings") == [warning.removeprefix("leafscore: warning: ")]
    want.pop("warnings")  # the clean run's warning names its unreadable file instead
    assert got == want


def test_a_result_that_runs_a_pool_worker_out_of_memory_twice_is_a_parse_failure(
        tmp_path, hooked_pool):
    root = _bench(tmp_path / "b", worker_hooks.trigger("OOM", "ALWAYS"))
    _out_of_memory_is_a_parse_failure(root, tmp_path, "--workers", "2")


def test_a_result_out_of_memory_in_this_process_twice_is_a_parse_failure(
        tmp_path, monkeypatch):
    root = _bench(tmp_path / "b", worker_hooks.trigger("OOM", "ALWAYS"))
    monkeypatch.setattr(runner, "score_cell", runner.score_cell)  # undone after the test
    worker_hooks.install()
    _out_of_memory_is_a_parse_failure(root, tmp_path)


def test_an_out_of_memory_parse_failure_is_not_cached(tmp_path, hooked_pool):
    root = _bench(tmp_path / "b", worker_hooks.trigger("OOM", "ALWAYS"))
    cache = ("--cache-dir", str(tmp_path / "cache"))
    failed = invoke("score", str(root), *cache, "--format", "json", "--workers", "2")
    assert failed.exit_code == 0 and "ran out of memory" in failed.stderr
    # The same bytes again, in this process (no hook): scored, not read back as failed.
    again = invoke("score", str(root), *cache, "--format", "json")
    fresh = invoke("score", str(root), "--no-cache", "--format", "json")
    assert again.exit_code == 0 and "ran out of memory" not in again.stderr
    assert again.stdout == fresh.stdout


# ------------------------------------------------------------------------------------
# The one rule (base.survive), on this process
# ------------------------------------------------------------------------------------


def test_a_batch_out_of_memory_is_split_and_an_item_out_of_memory_twice_is_lost():
    calls: list[list[int]] = []

    def square(shared: int, batch: list[int]) -> list[int]:
        calls.append(list(batch))
        if 7 in batch:
            raise MemoryError
        return [shared * n * n for n in batch]

    batches = [[1, 2, 3], [4, 5, 6, 7], [8], []]
    got = list(Serial().map_batches(square, 1, batches))
    assert got == [[1, 4, 9], [16, 25, 36, Lost(7, MEMORY)], [64], []]
    assert [call for call in calls if 7 in call] == [[4, 5, 6, 7], [7]]  # retried alone once


def test_an_error_of_fn_that_is_not_a_lost_worker_is_raised_as_it_is():
    def broken(shared: None, batch: list[int]) -> list[int]:
        raise KeyError("not a lost worker")

    with pytest.raises(KeyError, match="not a lost worker"):
        list(Serial().map_batches(broken, None, [[1]]))


class _SharedFate:
    """A pool-like backend: a call holding item ``die`` kills its worker, and that fails
    every call in flight."""

    def __init__(self, die: int) -> None:
        self.die, self.flight, self.runs, self.broken = die, {}, [], set()

    def submit(self, items):
        handle = object()
        self.flight[handle] = list(items)
        return handle

    def next_done(self):
        if any(self.die in items for items in self.flight.values()):
            self.broken |= set(self.flight)  # the pool breaks: every call in flight fails
        handle = next(iter(self.flight))
        self.runs.append((self.flight[handle], len(self.flight)))
        items = self.flight.pop(handle)
        if handle in self.broken:
            return handle, None, BrokenPipeError("pool broken")
        return handle, [n * 10 for n in items], None

    @staticmethod
    def failure(error):
        return Failure(DIED, False) if isinstance(error, BrokenPipeError) else None


def test_after_a_pool_breaks_the_calls_in_flight_run_alone_until_the_killer_is_found():
    backend = _SharedFate(die=5)
    got = list(survive(backend, [[1, 2], [3], [4, 5, 6], [7]], window=4))
    assert got == [[10, 20], [30], [40, Lost(5, DIED), 60], [70]]
    # every retry ran alone (one call in flight): each call that was in flight, then the
    # killer's batch split, and the killer given up when it failed alone a second time
    retries = backend.runs[4:]
    assert all(flight == 1 for _, flight in retries)
    assert [items for items, _ in retries] == [[1, 2], [3], [4, 5, 6], [7], [4], [5], [6]]


def test_a_window_below_one_is_refused():
    with pytest.raises(ValueError, match="window=0"):
        list(survive(_SharedFate(die=0), [[1]], window=0))


# ------------------------------------------------------------------------------------
# Dask
# ------------------------------------------------------------------------------------

distributed = pytest.importorskip("distributed")
import dask.config  # noqa: E402

from leafscore.executors import dask as dask_executor  # noqa: E402


@pytest.fixture(scope="module")
def hooked_cluster():
    """A LocalCluster of 2 single-thread workers carrying the test hook (restarted ones
    too: it is their preload); Dask gives a task up after 1 lost worker, not 3."""
    settings = {"distributed.scheduler.allowed-failures": 1,
                "distributed.worker.profile.enabled": False,
                # as DaskExecutor sets it for a LocalCluster of its own: workers killed
                # again while restarting are restarted, not given up after 15 s
                "distributed.deploy.lost-worker-timeout": dask_executor.LOST_WORKER_TIMEOUT}
    with dask.config.set(settings):
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
            silence_logs=logging.CRITICAL,
            preload=[*dask_executor.PRELOAD, str(worker_hooks.PRELOAD)])
        try:
            yield cluster
        finally:
            cluster.close(timeout=20)


def _dask(cluster) -> tuple[str, ...]:
    return ("--executor", "dask", "--scheduler", cluster.scheduler_address)


def test_a_dask_worker_that_kills_itself_once_changes_no_byte(tmp_path, hooked_cluster):
    root = _bench(tmp_path / "b", worker_hooks.trigger("KILL", "ONCE", tmp_path / "once"))
    serial = _report(root, tmp_path / "serial")
    assert _report(root, tmp_path / "dask", *_dask(hooked_cluster)) == serial
    assert (tmp_path / "once").exists()


def test_every_dask_worker_killed_at_once_mid_run_changes_no_byte(tmp_path, hooked_cluster):
    """Both workers die together: the documents scattered to them are lost with them
    (Dask cancels the tasks: lost dependencies), so they are scattered again."""
    root = _bench(tmp_path / "b", None)
    serial = _report(root, tmp_path / "serial")
    with distributed.Client(hooked_cluster.scheduler_address, timeout=10,
                            set_as_default=False) as client:
        pids = list(client.run(os.getpid).values())
        killed: list[int] = []

        def kill_every_worker(done: int, total: int) -> None:
            if done >= 4 and not killed:
                for pid in pids:
                    os.kill(pid, signal.SIGKILL)
                killed.extend(pids)

        executor = dask_executor.DaskExecutor(scheduler=hooked_cluster.scheduler_address,
                                              batch_size=1)
        evaluation = leafscore.evaluate(root, cache=False, keep_verdicts=False,
                                        executor=executor, progress=kill_every_worker)
        assert killed
        client.wait_for_workers(2, timeout=30)
    out = tmp_path / "dask"
    evaluation.report(out)
    assert {p.name: p.read_bytes() for p in sorted(out.iterdir())} == serial


def test_a_result_that_kills_every_dask_worker_scoring_it_exits_2_naming_it(
        tmp_path, hooked_cluster):
    root = _bench(tmp_path / "b", worker_hooks.trigger("KILL", "ALWAYS"))
    out = tmp_path / "out"
    result = invoke("report", str(root), "--out", str(out), "--no-cache",
                    *_dask(hooked_cluster))
    _one_line_naming_the_victim(result)
    assert not (out / "summary.json").exists()


def test_a_result_that_runs_a_dask_worker_out_of_memory_twice_is_a_parse_failure(
        tmp_path, hooked_cluster):
    root = _bench(tmp_path / "b", worker_hooks.trigger("OOM", "ALWAYS"))
    _out_of_memory_is_a_parse_failure(root, tmp_path, *_dask(hooked_cluster))


def test_a_worker_of_the_dask_local_cluster_killed_once_changes_no_byte(tmp_path, monkeypatch):
    """``--executor dask --workers 2``: the LocalCluster the run starts, its worker killed."""
    root = _bench(tmp_path / "b", worker_hooks.trigger("KILL", "ONCE", tmp_path / "once"))
    serial = _report(root, tmp_path / "serial")
    monkeypatch.setattr(dask_executor, "PRELOAD",
                        (*dask_executor.PRELOAD, str(worker_hooks.PRELOAD)))
    assert _report(root, tmp_path / "dask", "--executor", "dask", "--workers", "2") == serial
    assert (tmp_path / "once").exists()
