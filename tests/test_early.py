"""The label checks' process the program forks before its imports (``leafscore.early``):
taken by the first run that checks labels, it gives the lines a child forked then gives;
too much to send, gone or failing, the run checks as it would without it; nobody's, it
ends with the program."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_helpers import REPO, make_benchmark
from test_label_checks_beside import EXPECTED, LABELS, RESULTS

from leafscore import api, early, runner, validate
from leafscore.executors import Beside, LocalPool, Serial
from leafscore.executors.beside import stop_child


@pytest.fixture
def bench(tmp_path):
    return api.load(make_benchmark(tmp_path / "b", LABELS, RESULTS))


@pytest.fixture
def started():
    """The early process, started here; stopped after the test if nobody took it."""
    assert early.start(processors=2) is True
    process = early._STARTED[0][0]
    yield process
    left = early.take()
    if left is not None:
        stop_child(*left)
    process.join(timeout=5)


def test_one_processor_starts_no_early_process():
    assert early.start(processors=1) is False
    assert early.take() is None


def test_no_process_to_fork_starts_no_early_process(monkeypatch):
    import multiprocessing.process

    def no_process(self):
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", no_process)
    assert early.start(processors=2) is False
    assert early.take() is None


def test_the_early_process_checks_the_labels_of_the_first_run(bench, started):
    checks = validate.LabelChecks(bench)
    assert checks.start_beside(processors=2) is True
    assert checks.beside[0] is started
    assert checks.warnings() == EXPECTED
    assert not started.is_alive()


def test_the_early_process_is_taken_once(bench, started):
    first = validate.LabelChecks(bench)
    assert first.start_beside(processors=2) is True
    second = validate.LabelChecks(bench)
    assert second.start_beside(processors=2) is True
    assert second.beside[0] is not started  # forked for this run
    assert first.warnings() == EXPECTED
    assert second.warnings() == EXPECTED


def test_labels_too_large_to_send_go_to_a_child_forked_then(bench, started, monkeypatch):
    monkeypatch.setattr(early, "MOST_BYTES", 100)  # one small document pickles to more
    checks = validate.LabelChecks(bench)
    assert checks.start_beside(processors=2) is True
    assert checks.beside[0] is not started
    assert not started.is_alive()  # stopped, not left waiting
    assert checks.warnings() == EXPECTED


def test_an_early_process_that_died_leaves_the_checks_to_a_child_forked_then(bench,
                                                                              started):
    os.kill(started.pid, signal.SIGKILL)
    started.join(timeout=5)
    checks = validate.LabelChecks(bench)
    assert checks.start_beside(processors=2) is True
    assert checks.warnings() == EXPECTED


def test_an_early_process_whose_check_fails_sends_nothing_and_this_process_checks(
        bench, monkeypatch):
    def failing(doc, readings):
        raise RuntimeError("not in the early process")

    real = validate._label_check
    monkeypatch.setattr(validate, "_label_check", failing)
    assert early.start(processors=2) is True  # forked with the failing check
    monkeypatch.setattr(validate, "_label_check", real)
    checks = validate.LabelChecks(bench)
    assert checks.start_beside(processors=2) is True
    assert checks.warnings() == EXPECTED


def _take_in_a_fork(sender) -> None:
    sender.send(early.take() is None)


def test_a_process_forked_later_does_not_take_the_early_process(started):
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_take_in_a_fork, args=(sender,))
    child.start()
    assert receiver.recv() is True
    child.join(timeout=5)
    assert started.is_alive()  # still this process's to take
    taken = early.take()
    assert taken is not None and taken[0] is started
    stop_child(*taken)


def _gone(pid: int, seconds: float = 10.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not Path(f"/proc/{pid}").exists():
            return True
        time.sleep(0.05)
    return False


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
def test_an_early_process_nobody_takes_ends_with_the_program():
    program = ("from leafscore import early\n"
               "assert early.start(processors=2)\n"
               "print(early._STARTED[0][0].pid, flush=True)\n")
    done = subprocess.run([sys.executable, "-c", program], cwd=REPO, capture_output=True,
                          text=True, timeout=60, check=True)
    assert _gone(int(done.stdout))


@pytest.mark.parametrize("workers", [[], ["--workers", "1"], ["--workers", "2"]])
def test_the_program_warns_of_its_labels_as_the_api_does(tmp_path, workers):
    root = make_benchmark(tmp_path / "b", LABELS, RESULTS)
    done = subprocess.run([sys.executable, "-m", "leafscore", "score", str(root),
                           "--no-cache", *workers], cwd=REPO, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if "violate" in line]
    assert lines == [f"leafscore: warning: {line}" for line in EXPECTED]


def test_a_small_run_beside_is_cut_into_eight_batches_per_process():
    assert runner.batch_size(Beside(), 300) == 19  # ceil(300 / 16)
    assert runner.batch_size(LocalPool(2), 300) == 38  # a pool's four: ceil(300 / 8)
    assert runner.batch_size(Serial(), 300) == 75


def test_a_large_run_beside_keeps_batches_of_the_most_pairs():
    assert runner.batch_size(Beside(), 10_000) == runner.MAX_BATCH == 100


def test_an_executor_of_a_users_own_without_the_hints_gets_four_batches_a_worker():
    class Three:  # only what the Executor protocol requires
        workers = 3
        batch_size = None

        def map_batches(self, fn, shared, batches):
            return (fn(shared, batch) for batch in batches)

    assert runner.batch_size(Three(), 300) == 25  # ceil(300 / (4 x 3))
    assert runner.batch_size(Three(), 10_000) == runner.MAX_BATCH
