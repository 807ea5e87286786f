"""Issue 10, memory: a folder's results are read when a run reaches them, a batch at a
time, and a run keeps little of each document (packed cells, one object per equal part).
"""

from __future__ import annotations

import dataclasses
import math
import weakref
from types import MappingProxyType

import numpy as np
from cli_helpers import make_benchmark, private_cache  # noqa: F401 (autouse)

import leafscore
import scorer
from leafscore import api, benchmark, cells, executors, runner, stats

V2 = scorer.VERSIONS["2.0"]


def _corpus(root):
    """30 documents x 2 systems; s2/d03 missing, s2/d04 not JSON, s1/d05 a directory."""
    labels = {f"d{n:02d}": {"a": f"x{n}", "b": "y"} for n in range(30)}
    results = {"s1": dict(labels), "s2": {d: {"a": "z", "b": "y"} for d in labels}}
    results["s2"]["d03"] = None
    results["s2"]["d04"] = b"{not json"
    made = make_benchmark(root, labels, results)
    (made / "results" / "s1" / "d05.json").unlink()
    (made / "results" / "s1" / "d05.json").mkdir()
    return made


def _counting_reads(monkeypatch):
    """Count result files read, and the most results read with their bytes alive at once
    (a missing or unreadable result has none)."""
    seen = {"reads": 0, "alive": 0, "most": 0}
    real = benchmark.raw_result

    def gone() -> None:
        seen["alive"] -= 1

    def counted(*args):
        raw = real(*args)
        seen["reads"] += 1
        if raw.data is not None:
            seen["alive"] += 1
            seen["most"] = max(seen["most"], seen["alive"])
            weakref.finalize(raw, gone)
        return raw

    monkeypatch.setattr(benchmark, "raw_result", counted)
    return seen


def test_loading_a_folder_reads_no_result_file(tmp_path, monkeypatch):
    root = _corpus(tmp_path / "b")
    seen = _counting_reads(monkeypatch)
    bench = api.load(root)
    assert len(bench.results) == 60
    assert seen["reads"] == 0


def test_a_run_reads_each_result_once_and_holds_the_bytes_of_two_batches_at_most(
        tmp_path, monkeypatch):
    root = _corpus(tmp_path / "b")
    seen = _counting_reads(monkeypatch)
    leafscore.evaluate(root, cache=False, keep_verdicts=False,
                       executor=executors.Serial(batch_size=4))
    assert seen["reads"] == 60
    assert seen["most"] <= 8
    assert seen["alive"] == 0


def test_results_read_by_the_run_score_as_results_read_up_front(tmp_path):
    bench = api.load(_corpus(tmp_path / "b"))
    eager = dataclasses.replace(bench, results=MappingProxyType(dict(bench.results)))
    lazy_run = leafscore.evaluate_benchmark(bench, cache=False)
    eager_run = leafscore.evaluate_benchmark(eager, cache=False)
    assert lazy_run.summary() == eager_run.summary()
    statuses = {pair: cell.status for pair, cell in lazy_run.run.cells.items()
                if cell.status != "scored"}
    assert statuses == {("s1", "d05"): "parse_failure", ("s2", "d03"): "missing",
                        ("s2", "d04"): "parse_failure"}


def test_the_summary_lists_the_digests_of_the_bytes_the_run_scored(tmp_path):
    root = _corpus(tmp_path / "b")
    evaluation = leafscore.evaluate(root, cache=False)
    (root / "results" / "s1" / "d00.json").write_text('{"data": {"a": "changed"}}')
    digests = evaluation.summary()["results_sha256"]
    assert len(digests) == 58  # every file but the missing one and the directory
    assert digests["results/s1/d00.json"] == evaluation.run.results_sha256[
        "results/s1/d00.json"] != benchmark.sha256(b'{"data": {"a": "changed"}}')


def test_documents_with_the_same_schema_share_one_parsed_schema(tmp_path):
    bench = api.load(_corpus(tmp_path / "b"))
    assert len({id(doc.schema) for doc in bench.documents}) == 1


def test_a_packed_cell_unpacks_to_an_equal_cell(tmp_path):
    bench = api.load(_corpus(tmp_path / "b"))
    doc = bench.documents[0]
    cell = cells.folded(runner.score_cell(doc, bench.results[("s2", doc.id)], V2,
                                          bench.config.options), verdicts=False)
    item = runner.packed(cell)
    assert isinstance(item, tuple)
    assert runner.unpacked(item, {}) == cell


def test_equal_unpacked_scores_are_one_object(tmp_path):
    bench = api.load(_corpus(tmp_path / "b"))
    table: dict = {}
    made = [runner.unpacked(runner.packed(cells.folded(runner.score_cell(
        doc, bench.results[("s2", doc.id)], V2, bench.config.options), verdicts=False)),
        table) for doc in bench.documents[10:12]]
    assert made[0].score == made[1].score
    assert made[0].score is made[1].score


def test_bootstrap_power_drawn_in_blocks_equals_one_draw_of_the_whole_table():
    # 3,000 differences: the 1,000 draws are made 349 rows at a time.
    d = np.sin(np.arange(3000) * 0.7) * 0.05
    shift, resamples, seed = 0.004, 1000, 12345
    centred = d - d.mean() + shift
    draws = centred[np.random.default_rng(seed).integers(0, d.size, size=(resamples, d.size))]
    means, spread = draws.mean(axis=1), draws.std(axis=1, ddof=1)
    statistic = np.abs(means) / (spread / math.sqrt(d.size))
    whole = float(np.where(spread > stats.TIE, statistic > stats._z_total(0.05, 0.5),
                           np.abs(means) > stats.TIE).mean())
    assert stats.bootstrap_power(d, shift, resamples=resamples, seed=seed) == whole


def test_a_warm_run_keeps_no_bytes_of_the_cached_results_it_reads_ahead(
        tmp_path, monkeypatch):
    root = _corpus(tmp_path / "b")
    cache = tmp_path / "cache"
    leafscore.evaluate(root, cache_dir=cache, keep_verdicts=False)
    # The first pair is rescored; filling its batch reads every cached pair after it.
    (root / "results" / "s1" / "d00.json").write_text('{"data": {"a": "new"}}')
    seen = _counting_reads(monkeypatch)
    warm = leafscore.evaluate(root, cache_dir=cache, keep_verdicts=False,
                              executor=executors.Serial(batch_size=4))
    # Each of the 60 results is read once to key the run pack (a miss: one changed),
    # then only the changed one again, to be scored.
    assert seen["reads"] == 61
    assert seen["most"] <= 2
    assert warm.summary() == leafscore.evaluate(root, cache=False).summary()
