"""This process and a forked helper (``executors.Beside``, issue 26): the CLI's default
on two or more processors. Its results are ``Serial``'s, in order; a helper that dies or
runs out of memory costs a retry (``base.survive``); an error of ``fn`` is raised as it
is, the first in batch order; nothing is left behind (no helper, no frozen collector).

Real helper processes are forked and killed; no wall time is asserted.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import invoke, make_benchmark, private_cache  # noqa: F401 (autouse)

from leafscore import executors
from leafscore.executors import Beside, LocalPool, Serial, beside, make_executor
from leafscore.executors.base import DIED, MEMORY, Lost

pytestmark = pytest.mark.skipif(not beside.can_fork(), reason="needs the fork start method")

BATCHES = [[n, n + 1, n + 2] for n in range(0, 30, 3)]  # ten batches of three


def _square_where(shared: int, batch: list[int]) -> list[tuple[int, int]]:
    """Each item's ``shared * n * n`` and the process that computed it."""
    return [(shared * n * n, os.getpid()) for n in batch]


def _values(results: list[list[tuple[int, int]]]) -> list[list[int]]:
    return [[value for value, _ in batch] for batch in results]


def test_beside_returns_serials_results_in_batch_order():
    got = list(Beside().map_batches(_square_where, 2, BATCHES))
    want = list(Serial().map_batches(_square_where, 2, BATCHES))
    assert _values(got) == _values(want) == [[2 * n * n for n in b] for b in BATCHES]


def test_beside_scores_its_first_batches_here_then_shares_them_with_one_helper():
    got = list(Beside().map_batches(_square_where, 1, BATCHES))
    here = os.getpid()
    where = [{pid for _, pid in batch} for batch in got]
    assert where[:beside.FORK_AFTER] == [{here}] * beside.FORK_AFTER
    assert all(len(pids) == 1 for pids in where)  # a batch is scored by one process
    helpers = set().union(*where) - {here}
    assert len(helpers) == 1  # one helper, and it scored some batches


def test_beside_with_a_helper_from_the_start_scores_the_first_batch_there():
    got = list(Beside(fork_after=0).map_batches(_square_where, 1, BATCHES))
    assert {pid for _, pid in got[0]} != {os.getpid()}


def test_beside_leaves_no_helper_and_no_frozen_collector_behind():
    before = gc.get_freeze_count()
    list(Beside().map_batches(_square_where, 1, BATCHES))
    assert multiprocessing.active_children() == []
    assert gc.get_freeze_count() == before


def test_objects_frozen_before_a_run_stay_frozen_after_it():
    gc.freeze()  # as a pre-forking server does: not undone by the run
    try:
        frozen = gc.get_freeze_count()
        list(Beside().map_batches(_square_where, 1, BATCHES))
        assert gc.get_freeze_count() == frozen > 0
    finally:
        gc.unfreeze()


def _kill_on(shared: tuple[int, str | None], batch: list[int]) -> list[int]:
    """``n * n``, but the process scoring item ``shared[0]`` kills itself (SIGKILL, what
    the OOM killer sends): every time, or, with a marker path, only the first time."""
    victim, marker = shared
    for n in batch:
        if n == victim and os.getpid() != PARENT:
            if marker is None:
                os.kill(os.getpid(), signal.SIGKILL)
            try:
                os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            except FileExistsError:
                continue
            os.kill(os.getpid(), signal.SIGKILL)
    return [n * n for n in batch]


PARENT = os.getpid()  # the test process: never killed by _kill_on


def test_a_helper_killed_once_costs_a_retry_and_no_result(tmp_path):
    marker = str(tmp_path / "once")
    victim = 1  # batch 0: the helper's first call (forked at once)
    got = list(Beside(fork_after=0).map_batches(_kill_on, (victim, marker), BATCHES))
    assert Path(marker).exists(), "no helper was killed"
    assert got == [[n * n for n in b] for b in BATCHES]
    assert multiprocessing.active_children() == []


def test_an_item_that_kills_every_helper_scoring_it_is_lost_and_the_rest_scored():
    victim = 1  # batch 0: the helper's first call; its retries go to new helpers
    got = list(Beside(fork_after=0).map_batches(_kill_on, (victim, None), BATCHES))
    want = [[n * n for n in b] for b in BATCHES]
    want[0][1] = Lost(victim, DIED)
    assert got == want
    assert multiprocessing.active_children() == []


def _echo(shared: None, batch: list[bytes]) -> list[bytes]:
    return [item[::-1] for item in batch]


def test_batches_and_answers_larger_than_a_pipe_holds_pass_both_ways():
    # 2 MB each way per item: the helper, answering one call while the next is sent,
    # must not leave both processes waiting on full pipes
    batches = [[bytes([n]) * 2_000_000, bytes([n + 1]) * 2_000_000] for n in range(12)]
    got = list(Beside(fork_after=0).map_batches(_echo, None, batches))
    assert got == [[item[::-1] for item in batch] for batch in batches]


def test_a_lost_helper_names_the_call_it_scored_not_the_one_waiting_behind_it():
    assert beside._Beside.failure(beside.HelperLost(scoring=True)) == (DIED, True)
    assert beside._Beside.failure(beside.HelperLost(scoring=False)) == (DIED, False)


def _out_of_memory_on_7(shared: None, batch: list[int]) -> list[int]:
    if 7 in batch:
        raise MemoryError
    return [n * n for n in batch]


def test_an_item_out_of_memory_twice_is_lost_as_under_serial():
    got = list(Beside().map_batches(_out_of_memory_on_7, None, BATCHES))
    assert got == list(Serial().map_batches(_out_of_memory_on_7, None, BATCHES))
    assert got[2] == [36, Lost(7, MEMORY), 64]


def _fails_from(shared: int, batch: list[int]) -> list[int]:
    """Raises ``KeyError(first item)`` for every batch from item ``shared`` on."""
    if batch[0] >= shared:
        raise KeyError(batch[0])
    return batch


@pytest.mark.parametrize("fork_after", [0, 2, 100])
def test_the_error_raised_is_the_first_failing_batchs_whichever_process_scored_it(fork_after):
    with pytest.raises(KeyError) as raised:
        list(Beside(fork_after=fork_after).map_batches(_fails_from, 9, BATCHES))
    assert raised.value.args == (9,)  # batch 3's; batches 4 to 9 fail too
    assert multiprocessing.active_children() == []


class _Unpicklable(Exception):
    def __reduce__(self):
        raise TypeError("not picklable")


def _raises_unpicklable(shared: None, batch: list[int]) -> list[int]:
    raise _Unpicklable("kept here")


def test_an_error_the_helper_cannot_send_back_is_named_in_a_runtime_error():
    with pytest.raises(RuntimeError, match=r"_Unpicklable: kept here \(not sent back"):
        list(Beside(fork_after=0).map_batches(_raises_unpicklable, None, BATCHES))


def test_no_process_to_fork_scores_every_batch_here(monkeypatch):
    import multiprocessing.process

    def no_process(self):
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", no_process)
    got = list(Beside(fork_after=0).map_batches(_square_where, 3, BATCHES))
    assert _values(got) == [[3 * n * n for n in b] for b in BATCHES]
    assert {pid for batch in got for _, pid in batch} == {os.getpid()}


def _answer(value, connection):
    connection.send(value * 2)


def test_a_started_child_runs_its_target_with_its_end_of_the_pipe_last():
    process, here = beside.start_child(_answer, (21,))
    assert here.recv() == 42
    process.join(timeout=10)
    assert process.exitcode == 0
    with pytest.raises(EOFError):  # the child's end was closed here: its exit is EOF
        here.recv()
    beside.stop_child(process, here)


def _echo_after_asked(connection):
    connection.send("ready")  # in the target: past the signal's setting
    connection.send(connection.recv() * 2)


def test_a_started_child_leaves_ctrl_c_to_its_parent():
    process, here = beside.start_child(_echo_after_asked)
    assert here.recv() == "ready"
    os.kill(process.pid, signal.SIGINT)
    here.send(21)
    assert here.recv() == 42  # still there, answering
    process.join(timeout=10)
    assert process.exitcode == 0
    beside.stop_child(process, here)


def _open_descriptors():
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts /proc/self/fd")
def test_no_process_to_start_gives_none_and_closes_both_ends(monkeypatch):
    import multiprocessing.process

    def no_process(self):
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", no_process)
    before = _open_descriptors()
    assert beside.start_child(_answer, (1,)) is None
    assert beside.start_child(_answer, (1,), duplex=False) is None
    assert _open_descriptors() == before


# ------------------------------------------------------------------------------------
# Which local executor a run gets
# ------------------------------------------------------------------------------------


def test_workers_none_is_beside_on_two_processors(monkeypatch):
    monkeypatch.setattr(executors, "processors", lambda: 2)
    assert isinstance(make_executor("local", workers=None), Beside)


def test_workers_none_is_serial_on_one_processor(monkeypatch):
    monkeypatch.setattr(executors, "processors", lambda: 1)
    assert isinstance(make_executor("local", workers=None), Serial)


def test_workers_none_is_serial_where_no_fork_is(monkeypatch):
    monkeypatch.setattr(executors, "can_fork", lambda: False)
    monkeypatch.setattr(executors, "processors", lambda: 2)
    assert isinstance(make_executor("local", workers=None), Serial)


def test_workers_given_are_serial_for_one_and_a_pool_for_more():
    assert isinstance(make_executor("local", workers=1), Serial)
    assert isinstance(make_executor("local", workers=2), LocalPool)


# ------------------------------------------------------------------------------------
# The CLI
# ------------------------------------------------------------------------------------


DOCS = [f"d{n:02d}" for n in range(20)]


def test_the_clis_default_writes_the_bytes_of_one_process(tmp_path, monkeypatch):
    monkeypatch.setattr(executors, "processors", lambda: 2)
    labels = {doc: {"a": f"alpha {doc}", "n": len(doc)} for doc in DOCS}
    results = {"alpha": labels,
               "bravo": {doc: {"a": "alpha", "n": 3} for doc in DOCS},
               "charlie": {doc: {"a": f"alpha {doc}"} for doc in DOCS}}
    root = make_benchmark(tmp_path / "b", labels, results, config='scoring_version = "2.1"\n')
    for fmt in ("json", "csv", "table"):
        default = invoke("score", str(root), "--no-cache", "--format", fmt)
        one = invoke("score", str(root), "--no-cache", "--format", fmt, "--workers", "1")
        assert default.exit_code == one.exit_code == 0, default.stderr
        assert (default.stdout, default.stderr) == (one.stdout, one.stderr)


def test_the_program_freezes_the_collector_at_exit_after_every_other_exit_handler():
    # A handler registered before run() is called after run()'s (atexit: last in,
    # first out): it sees the collector frozen.
    code = ("import atexit, gc, sys\n"
            "atexit.register(lambda: sys.stdout.write(f'frozen={gc.get_freeze_count() > 0}'))\n"
            "sys.argv = ['leafscore', '--help']\n"
            "from leafscore.__main__ import run\n"
            "run()\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("frozen=True")
