"""The label checks of a serial run, made by a forked process of their own while this
one scores (``validate.LabelChecks.start_beside``): the same lines as made here, in the
same order, whatever becomes of the child."""

from __future__ import annotations

import os
import signal
import time

import pytest
from cli_helpers import make_benchmark

from leafscore import api, validate

#: Two labels of three break the flat schema ("a" is a string there).
LABELS = {"d": {"a": 1}, "e": {"a": "y"}, "f": {"a": [2]}}
RESULTS = {"s": {"d": {"a": "1"}, "e": {"a": "y"}, "f": {"a": "2"}}}
EXPECTED = [
    "labels/d.json: violates its schema (1 problem(s); first at #/a: 1 is not of type "
    "'string' (schema schemas/d.json#/properties/a/type)); scored as it is",
    "labels/f.json: violates its schema (1 problem(s); first at #/a: [2] is not of type "
    "'string' (schema schemas/f.json#/properties/a/type)); scored as it is",
    "2 label(s) violate their schema; run `leafscore validate`",
]


@pytest.fixture
def bench(tmp_path):
    return api.load(make_benchmark(tmp_path / "b", LABELS, RESULTS))


def test_labels_checked_here_give_the_expected_lines(bench):
    assert validate.label_warnings(bench) == EXPECTED


def test_labels_checked_beside_give_the_lines_checked_here(bench):
    checks = validate.LabelChecks(bench)
    assert checks.start_beside(processors=2) is True
    assert checks.steps == []
    assert checks.warnings() == EXPECTED


def _checked_here(checks: validate.LabelChecks) -> None:
    """The three labels' checks left as steps, made here, give the expected lines."""
    assert len(checks.steps) == 3
    for step in checks.steps:
        step()
    assert checks.warnings() == EXPECTED


def test_one_processor_checks_here(bench):
    checks = validate.LabelChecks(bench)
    assert checks.start_beside(processors=1) is False
    _checked_here(checks)


def test_a_child_that_dies_leaves_its_checks_to_this_process(bench, monkeypatch):
    monkeypatch.setattr(validate, "check_beside", lambda *args: os._exit(3))
    checks = validate.LabelChecks(bench)
    assert checks.start_beside(processors=2) is True
    assert checks.warnings() == EXPECTED


def test_a_child_whose_check_fails_sends_nothing_and_this_process_checks(bench, monkeypatch):
    def failing(doc, readings):
        raise RuntimeError("not in the child")

    real = validate._label_check
    monkeypatch.setattr(validate, "_label_check", failing)
    checks = validate.LabelChecks(bench)
    assert checks.start_beside(processors=2) is True
    monkeypatch.setattr(validate, "_label_check", real)  # the parent's, after the fork
    assert checks.warnings() == EXPECTED


def test_lines_checked_beside_are_stored_in_the_cache_by_this_process(bench, tmp_path,
                                                                      monkeypatch):
    cache = api.Cache(tmp_path / "cache")
    checks = validate.LabelChecks(bench, cache)
    assert checks.start_beside(processors=2) is True
    assert checks.warnings() == EXPECTED
    monkeypatch.setattr(validate, "check_label", lambda *a: pytest.fail("validated again"))
    again = validate.LabelChecks(bench, cache)
    assert again.steps == []  # the whole benchmark's lines, in one entry
    assert again.warnings() == EXPECTED


def test_only_labels_the_cache_does_not_hold_are_sent_to_the_child(tmp_path):
    cache = api.Cache(tmp_path / "cache")
    first = api.load(make_benchmark(tmp_path / "b", LABELS, RESULTS))
    assert validate.label_warnings(first, cache) == EXPECTED
    more = {**LABELS, "g": {"a": 3}}  # one more label: the whole benchmark's entry misses
    bench = api.load(make_benchmark(tmp_path / "b", more, {"s": {**RESULTS["s"], "g": {}}}))
    checks = validate.LabelChecks(bench, cache)
    assert checks.start_beside(processors=2) is True
    assert [bench.documents[i].id for i in checks.beside[2]] == ["g"]
    assert checks.warnings() == [
        *EXPECTED[:2],
        "labels/g.json: violates its schema (1 problem(s); first at #/a: 3 is not of type "
        "'string' (schema schemas/g.json#/properties/a/type)); scored as it is",
        "3 label(s) violate their schema; run `leafscore validate`"]


def test_a_serial_run_checks_its_labels_beside_and_warns_as_a_pool_does(tmp_path):
    root = make_benchmark(tmp_path / "b", LABELS, RESULTS)
    serial = api.evaluate(root, cache=False, workers=1)
    pool = api.evaluate(root, cache=False, workers=2)
    assert [w for w in serial.warnings if "violate" in w] == EXPECTED
    assert serial.warnings == pool.warnings


def test_a_local_pool_run_checks_its_labels_beside_not_between_its_cells(tmp_path,
                                                                         monkeypatch):
    # checked here, the labels kept the pool's workers waiting for their next batches
    root = make_benchmark(tmp_path / "b", LABELS, RESULTS)
    started = []
    real = validate.LabelChecks.start_beside

    def recorded(self, processors=None):
        started.append(real(self, processors=2))
        return started[-1]

    monkeypatch.setattr(validate.LabelChecks, "start_beside", recorded)
    pool = api.evaluate(root, cache=False, workers=2)
    assert started == [True]
    assert [w for w in pool.warnings if "violate" in w] == EXPECTED


def test_a_fork_that_fails_leaves_the_checks_here(bench, monkeypatch):
    import multiprocessing.process

    def no_process(self):
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", no_process)
    checks = validate.LabelChecks(bench)
    assert checks.start_beside(processors=2) is False
    _checked_here(checks)


def _warnings_in_a_daemonic_worker(root: str) -> list[str]:
    return list(api.evaluate(root, cache=False, workers=1).warnings)


def test_a_daemonic_process_checks_its_labels_itself(tmp_path):
    import multiprocessing

    root = make_benchmark(tmp_path / "b", LABELS, RESULTS)
    with multiprocessing.get_context("fork").Pool(1) as pool:  # daemonic workers
        found = pool.apply(_warnings_in_a_daemonic_worker, (str(root),))
    assert [w for w in found if "violate" in w] == EXPECTED


def _checking_beside(bench, monkeypatch, tmp_path, seconds: float):
    """Checks started beside whose child has begun its first check, each check taking
    ``seconds`` more; the real check is put back here (the child keeps the slow one)."""
    started = tmp_path / "started"
    real = validate._label_check

    def slow(doc, readings):
        started.touch()
        time.sleep(seconds)
        return real(doc, readings)

    monkeypatch.setattr(validate, "_label_check", slow)
    checks = validate.LabelChecks(bench)
    assert checks.start_beside(processors=2) is True
    _wait_for(started)
    monkeypatch.setattr(validate, "_label_check", real)
    return checks


def test_a_closed_child_leaves_its_checks_to_warnings(bench, monkeypatch, tmp_path):
    checks = _checking_beside(bench, monkeypatch, tmp_path, 30)
    process = checks.beside[0]
    checks.close()
    assert checks.beside is None
    assert not process.is_alive()
    assert checks.warnings() == EXPECTED


def test_ctrl_c_is_the_parents_the_child_checks_on_silently(bench, monkeypatch, tmp_path,
                                                              capfd):
    checks = _checking_beside(bench, monkeypatch, tmp_path, 0.5)
    os.kill(checks.beside[0].pid, signal.SIGINT)
    assert checks.warnings() == EXPECTED
    assert "Traceback" not in capfd.readouterr().err


def test_a_label_check_that_fails_fails_the_run_before_its_verdicts_are_kept(tmp_path,
                                                                            monkeypatch):
    root = make_benchmark(tmp_path / "b", LABELS, RESULTS)

    def failing(doc, readings):
        raise RuntimeError("a check that fails")

    monkeypatch.setattr(validate, "_label_check", failing)
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(RuntimeError, match="a check that fails"):
        api.evaluate(root, cache=False, workers=1, verdicts_to=out / "v.csv")
    assert list(out.iterdir()) == []


def _wait_for(path, seconds: float = 60.0) -> None:
    end = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < end, "the child never started its checks"
        time.sleep(0.01)
