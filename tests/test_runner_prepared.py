"""A run prepares each document once for all its systems (``runner.Prepared``), as
``python scorer.py`` does, and asks for the code digest only where it is used."""

from __future__ import annotations

import dataclasses
import json
import threading

import pytest
from cli_helpers import FLAT, REPO, make_benchmark

from leafscore import api, runner, versions
from leafscore.executors import Serial


def counted_record(engine: str, version: str, calls: list[str]):
    """The engine's record of ``version``, each ``document`` call named in ``calls``."""
    record = versions.table(engine)[version]

    def document(schema, label, options, file, label_file=""):
        calls.append(file)
        return record.document(schema, label, options, file, label_file)

    return dataclasses.replace(record, document=document)


def run_of(bench, record, engine: str = "fast"):
    return runner.score_benchmark(bench, record=record, engine=engine,
                                  options=bench.config.options, executor=Serial())


@pytest.mark.parametrize("engine", ["fast", "reference"])
@pytest.mark.parametrize("version", ["1.0", "2.0", "2.1"])
def test_a_run_prepares_each_document_once_for_all_its_systems(engine, version):
    bench = api.load(REPO)
    calls: list[str] = []
    run_of(bench, counted_record(engine, version, calls), engine)
    assert len(bench.systems) == 4
    assert sorted(calls) == sorted(d.schema_file for d in bench.documents)  # 12, not 48


@pytest.mark.parametrize("engine", ["fast", "reference"])
@pytest.mark.parametrize("version", ["1.0", "2.0", "2.1"])
def test_documents_kept_prepared_score_as_documents_prepared_for_each_result(
    engine, version, monkeypatch,
):
    kept = run_of(api.load(REPO), versions.table(engine)[version], engine)
    monkeypatch.setattr(runner, "PREPARED_TEXT_MAX", 0)
    calls: list[str] = []
    each = run_of(api.load(REPO), counted_record(engine, version, calls), engine)
    assert len(calls) == 48  # nothing kept: one preparation per result
    assert kept.cells == each.cells


def text_size(*values) -> int:
    return sum(len(json.dumps(v, separators=(",", ":"))) for v in values)


def test_past_the_bound_the_oldest_prepared_document_is_dropped(tmp_path, monkeypatch):
    labels = {name: {"a": name * 4} for name in ("p", "q", "r")}  # {"a":"pppp"}: 12 chars
    bench = api.load(make_benchmark(tmp_path / "b", labels, {"s": labels}))
    record = versions.table("fast")["2.1"]
    each = text_size(FLAT, labels["p"])  # the schema's text counts with the label's
    monkeypatch.setattr(runner, "PREPARED_TEXT_MAX", 2 * each)  # two such documents
    prepared = runner.Prepared()
    first = [prepared.document(doc, record, bench.config.options) for doc in bench.documents]
    assert list(prepared.kept) == ["q", "r"]
    assert prepared.size == 2 * each
    assert prepared.document(bench.documents[2], record, bench.config.options) is first[2]
    assert prepared.document(bench.documents[0], record, bench.config.options) is not first[0]
    assert list(prepared.kept) == ["r", "p"]


def test_a_document_larger_than_the_bound_is_prepared_for_each_result(tmp_path,
                                                                      monkeypatch):
    bench = api.load(make_benchmark(tmp_path / "b", {"d": {"a": "x" * 20}},
                                    {"s": {"d": {"a": "x"}}}))
    monkeypatch.setattr(runner, "PREPARED_TEXT_MAX", text_size(FLAT, {"a": "x" * 20}) - 1)
    prepared = runner.Prepared()
    doc, record = bench.documents[0], versions.table("fast")["2.1"]
    assert prepared.document(doc, record, bench.config.options) is not \
        prepared.document(doc, record, bench.config.options)
    assert prepared.kept == {}
    assert prepared.size == 0


def test_a_run_of_one_system_keeps_no_document(monkeypatch):
    made: list[runner.Prepared] = []
    real = runner.Prepared

    def recording(most=None):
        made.append(real(most))
        return made[-1]

    monkeypatch.setattr(runner, "Prepared", recording)
    bench = api.load(REPO, systems=["atlas"])
    run_of(bench, versions.table("fast")["2.1"])
    assert [p.most for p in made] == [0]
    assert made[0].kept == {}
    run_of(api.load(REPO), versions.table("fast")["2.1"])
    assert made[1].most is None
    assert len(made[1].kept) == 12


def test_threads_sharing_one_prepared_keep_their_count_straight(tmp_path, monkeypatch):
    labels = {f"d{k:02d}": {"a": f"v{k:02d}"} for k in range(40)}
    bench = api.load(make_benchmark(tmp_path / "b", labels, {"s": labels}))
    record = versions.table("fast")["2.1"]
    each = text_size(FLAT, labels["d00"])
    monkeypatch.setattr(runner, "PREPARED_TEXT_MAX", 5 * each)
    prepared = runner.Prepared()

    def prepare_all() -> None:
        for _ in range(5):
            for doc in bench.documents:
                prepared.document(doc, record, bench.config.options)

    threads = [threading.Thread(target=prepare_all) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(prepared.kept) == 5
    assert prepared.size == 5 * each == sum(size for _, size in prepared.kept.values())


def test_a_serial_run_that_caches_nothing_never_computes_the_code_digest(monkeypatch):
    def refuse():
        raise AssertionError("the code digest was asked for")

    monkeypatch.setattr(runner, "code_digest", refuse)
    evaluation = api.evaluate(REPO, cache=False)
    assert len(evaluation.run.cells) == 48


def test_a_run_with_a_cache_keys_cells_by_the_code_digest(tmp_path, monkeypatch):
    asked: list[int] = []
    real = runner.code_digest
    monkeypatch.setattr(runner, "code_digest", lambda: asked.append(1) or real())
    api.evaluate(REPO, cache_dir=tmp_path / "cache")
    assert asked != []


def test_a_job_with_no_code_digest_is_scored_without_the_check(monkeypatch):
    bench = api.load(REPO)
    monkeypatch.setattr(runner, "code_digest", lambda: "another")
    job = runner.BatchJob({d.id: d for d in bench.documents}, versions.table("fast")["2.1"],
                          "fast", bench.config.options, "", False)
    pair = (bench.systems[0], bench.documents[0].id)
    assert len(runner.score_batch(job, [(pair[1], bench.results[pair])])) == 1
    checked = dataclasses.replace(job, code="this")
    with pytest.raises(runner.ExecutorError, match="other scoring code"):
        runner.score_batch(checked, [(pair[1], bench.results[pair])])
