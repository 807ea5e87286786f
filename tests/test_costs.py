"""Cost, latency and tokens read from result envelopes (issue 25; leafscore.costs), and
how the leaderboard, the summary and the API carry them (leafscore.economy)."""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path

import numpy as np
import pytest
from cli_helpers import invoke, make_benchmark, private_cache  # noqa: F401 (fixture)
from hypothesis import given, settings
from hypothesis import strategies as st

import leafscore
from leafscore import costs, economy, stats
from leafscore.costs import CostSettings, Price, Reading, parse_settings, read_envelope
from scorer import InputError

REPO = Path(__file__).resolve().parent.parent
PRICED = ("docupipe_high", "docupipe_standard", "extend")
TOKENS = ("claude", "gemini", "gpt")


# ------------------------------------------------------------------------------------
# One envelope
# ------------------------------------------------------------------------------------


def test_cost_and_time_sec_are_read_by_default():
    reading, warnings = read_envelope({"cost": 0.02, "time_sec": 1.5, "data": {}},
                                      CostSettings())
    assert reading == Reading(cost=0.02, latency=1.5, cost_from="envelope")
    assert warnings == ()


def test_a_null_cost_is_absent_not_zero_and_not_a_warning():
    reading, warnings = read_envelope({"cost": None, "data": {}}, CostSettings())
    assert reading.cost is None
    assert warnings == ()


def test_a_bare_result_is_not_read_its_cost_is_an_extracted_field():
    reading, _ = read_envelope({"cost": 12.5, "time_sec": 3}, CostSettings())
    assert reading == Reading()


def test_a_dotted_latency_in_milliseconds_becomes_seconds():
    settings = parse_settings({"latency": "meta.latency_ms", "latency_unit": "ms"})
    reading, _ = read_envelope({"meta": {"latency_ms": 2500}, "data": {}}, settings)
    assert reading.latency == 2.5


@pytest.mark.parametrize(("usage", "expected"), [
    ({"input_tokens": 3272, "output_tokens": 230}, (3272, 230)),           # Anthropic
    ({"prompt_tokens": 10, "completion_tokens": 4}, (10, 4)),              # OpenAI chat
    ({"promptTokenCount": 574, "candidatesTokenCount": 388,                # Gemini
      "thoughtsTokenCount": 961}, (574, 388 + 961)),
    ({"inputTokens": 7, "outputTokens": 3}, (7, 3)),                       # Bedrock
])
def test_token_counts_are_read_in_the_common_spellings(usage, expected):
    reading, _ = read_envelope({"data": {}, "meta": {"usage": usage}}, CostSettings())
    assert (reading.input_tokens, reading.output_tokens) == expected
    assert reading.cost is None  # no price: tokens only


def test_tokens_become_cost_at_the_configured_price_per_million():
    settings = parse_settings({"prices": {"gpt": {"input": 1.25, "output": 10.0}}})
    envelope = {"cost": None, "data": {},
                "meta": {"usage": {"input_tokens": 2000, "output_tokens": 500}}}
    reading, _ = read_envelope(envelope, settings, system="gpt")
    assert reading.cost == pytest.approx((2000 * 1.25 + 500 * 10.0) / 1e6)
    assert reading.cost_from == "tokens"
    other, _ = read_envelope(envelope, settings, system="claude")
    assert other.cost is None


def test_an_envelope_cost_wins_over_priced_tokens():
    settings = parse_settings({"prices": {"gpt": {"input": 1.0, "output": 1.0}}})
    envelope = {"cost": 0.5, "data": {}, "usage": {"input_tokens": 1, "output_tokens": 1}}
    reading, _ = read_envelope(envelope, settings, system="gpt")
    assert (reading.cost, reading.cost_from) == (0.5, "envelope")


@pytest.mark.parametrize(("value", "why"), [
    (-0.5, "is negative"), ("0.02", "is not a number"), (True, "is not a number"),
    (5000.0, "is beyond 1000"),
])
def test_a_bad_cost_is_left_out_with_a_warning_naming_file_and_pointer(value, why):
    reading, warnings = read_envelope({"cost": value, "data": {}}, CostSettings(),
                                      file="results/x/a.json")
    assert reading.cost is None
    assert len(warnings) == 1
    assert warnings[0].startswith("results/x/a.json#/cost: cost ")
    assert why in warnings[0]


def test_an_integer_too_large_for_a_float_is_a_warning_not_a_crash():
    reading, warnings = read_envelope({"cost": 10 ** 400, "data": {}}, CostSettings(),
                                      file="r.json")
    assert reading.cost is None
    assert warnings[0].startswith("r.json#/cost: cost 1000000000")
    assert "…" in warnings[0] and len(warnings[0]) < 160


def test_a_negative_zero_latency_reads_as_zero():
    reading, _ = read_envelope({"time_sec": -0.0, "data": {}}, CostSettings())
    assert str(reading.latency) == "0.0"


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
    | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                 max_size=3),
    max_leaves=8)


@settings(max_examples=200, deadline=None)
@given(cost=JSON, latency=JSON, usage=JSON)
def test_no_envelope_value_makes_the_reader_raise(cost, latency, usage):
    envelope = {"data": {}, "cost": cost, "time_sec": latency, "meta": {"usage": usage}}
    prices = parse_settings({"prices": {"s": {"input": 1, "output": 2}}})
    reading, warnings = read_envelope(envelope, prices, system="s", file="f.json")
    for value in (reading.cost, reading.latency):
        assert value is None or 0 <= value < math.inf
    assert all(w.startswith("f.json#/") for w in warnings)


def test_a_bad_token_count_names_its_pointer():
    envelope = {"data": {}, "meta": {"usage": {"input_tokens": -3, "output_tokens": 1}}}
    reading, warnings = read_envelope(envelope, CostSettings(), file="r.json")
    assert reading.input_tokens is None
    assert warnings == ("r.json#/meta/usage/input_tokens: token count -3 is negative; "
                        "left out (not counted as 0)",)


def test_an_absurd_latency_is_left_out():
    reading, warnings = read_envelope({"time_sec": 200_000, "data": {}}, CostSettings(),
                                      file="r.json")
    assert reading.latency is None
    assert "r.json#/time_sec" in warnings[0]


# ------------------------------------------------------------------------------------
# Settings ([costs] of benchmark.toml)
# ------------------------------------------------------------------------------------


def test_prices_are_parsed_per_system():
    settings = parse_settings({"prices": {"gpt": {"input": 1.25, "output": 10}}})
    assert settings.price("gpt") == Price(1.25, 10.0)
    assert settings.price("claude") is None


@pytest.mark.parametrize(("table", "place"), [
    ({"prices": {"gpt": {"input": -1, "output": 1}}}, "costs.prices.gpt.input"),
    ({"prices": {"gpt": {"input": 1}}}, "costs.prices.gpt.output"),
    ({"prices": {"gpt": {"input": 1, "output": 1, "cached": 1}}}, "costs.prices.gpt.cached"),
    ({"prices": {"gpt": 3}}, "costs.prices.gpt"),
    ({"latency_unit": "h"}, "costs.latency_unit"),
    ({"latency": ""}, "costs.latency"),
    ({"currency": "EUR"}, "costs.currency"),
])
def test_a_bad_costs_table_raises_naming_the_key(table, place):
    with pytest.raises(InputError) as raised:
        parse_settings(table, "bench/benchmark.toml")
    assert (raised.value.file, raised.value.pointer) == ("bench/benchmark.toml", place)


def test_a_bad_price_table_is_exit_2_with_one_line_naming_file_and_place(tmp_path):
    root = make_benchmark(tmp_path / "b", {"a": {"a": "x"}}, {"s": {"a": {"a": "x"}}},
                          config='[costs.prices.s]\ninput = "cheap"\noutput = 1\n')
    result = invoke("leaderboard", root)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "benchmark.toml:costs.prices.s.input: must be a number >= 0" in lines[0]


def test_python_scorer_accepts_a_benchmark_toml_with_costs(tmp_path):
    import scorer

    table = scorer.parse_config('[costs]\nlatency = "meta.ms"\nlatency_unit = "ms"\n')
    assert table["costs"] == {"latency": "meta.ms", "latency_unit": "ms"}


# ------------------------------------------------------------------------------------
# A benchmark: coverage, leaderboard, no-cost benchmarks
# ------------------------------------------------------------------------------------


def _priced_bench(root: Path) -> Path:
    labels = {f"d{i}": {"a": "x", "b": "y"} for i in range(4)}
    results = {"cheap": {d: {"a": "x", "b": "y"} for d in labels},
               "dear": {d: {"a": "x", "b": "y"} for d in labels}}
    make_benchmark(root, labels, results)
    for system, cost in (("cheap", 0.01), ("dear", 0.05)):
        for i, doc in enumerate(labels):
            path = root / "results" / system / f"{doc}.json"
            envelope = json.loads(path.read_text())
            envelope["cost"] = None if (system, i) == ("cheap", 3) else cost
            envelope["time_sec"] = 1.0 + i
            path.write_text(json.dumps(envelope))
    return root


def test_a_missing_cost_counts_against_coverage_not_as_zero(tmp_path):
    evaluation = leafscore.evaluate(_priced_bench(tmp_path / "b"), cache=False)
    rows = {c.system: c for c in evaluation.leaderboard().costs}
    assert (rows["cheap"].cost, rows["cheap"].cost_documents, rows["cheap"].documents) == (
        pytest.approx(0.01), 3, 4)
    assert rows["dear"].cost == pytest.approx(0.05)


def test_a_mean_cost_is_correctly_rounded_and_inside_its_own_interval(tmp_path):
    root = make_benchmark(tmp_path / "b", {f"d{i}": {"a": "x"} for i in range(11)},
                          {"s": {f"d{i}": {"a": "x"} for i in range(11)}})
    for path in (root / "results" / "s").iterdir():
        path.write_text(json.dumps({**json.loads(path.read_text()), "cost": 0.0009}))
    (row,) = leafscore.evaluate(root, cache=False).leaderboard().costs
    # numpy's mean of eleven 0.0009 is 0.0008999999999999999; the draws are 0.0009
    assert (row.cost, row.cost_low, row.cost_high) == (0.0009, 0.0009, 0.0009)


def test_of_two_tied_systems_only_the_cheaper_is_on_the_frontier(tmp_path):
    board = leafscore.evaluate(_priced_bench(tmp_path / "b"), cache=False).leaderboard()
    marks = {c.system: (c.cost_frontier, c.latency_frontier) for c in board.costs}
    # Equal scores (a tie) and equal latencies: the cheaper dominates on cost only.
    assert marks == {"cheap": (True, True), "dear": (False, True)}


def test_a_benchmark_without_costs_shows_no_new_column_and_no_warning(tmp_path):
    root = make_benchmark(tmp_path / "b", {"a": {"a": "x"}, "b": {"a": "y"}},
                          {"s": {"a": {"a": "x"}, "b": {"a": "z"}}})
    evaluation = leafscore.evaluate(root, cache=False)
    assert evaluation.costs().empty and evaluation.costs().warnings == ()
    assert evaluation.leaderboard().costs is None
    assert "costs" not in evaluation.summary()
    for fmt in ("md", "table", "csv", "json"):
        result = invoke("leaderboard", root, "--format", fmt)
        assert result.exit_code == 0, result.stderr
        for word in ("cost", "latency", "frontier", "token"):
            assert word not in result.stdout.lower()
            assert word not in result.stderr.lower()


def test_the_leaderboard_outputs_carry_the_cost_columns(tmp_path):
    root = _priced_bench(tmp_path / "b")
    md = invoke("leaderboard", root).stdout
    assert "### Cost and latency" in md
    assert economy.FRONTIER_NOTE in md
    csv_head = invoke("leaderboard", root, "--format", "csv").stdout.splitlines()[0]
    assert csv_head.endswith("cost_usd,cost_low,cost_high,cost_documents,cost_from,"
                             "latency_median_s,latency_p90_s,latency_documents,input_tokens,"
                             "output_tokens,token_documents,cost_frontier,latency_frontier")
    data = json.loads(invoke("leaderboard", root, "--format", "json").stdout)
    assert [c["system"] for c in data["costs"]] == [r["system"] for r in data["rows"]]


def test_a_bad_cost_in_a_file_is_a_warning_on_stderr_and_the_run_goes_on(tmp_path):
    root = _priced_bench(tmp_path / "b")
    path = root / "results" / "dear" / "d1.json"
    envelope = json.loads(path.read_text())
    envelope["cost"] = -1
    path.write_text(json.dumps(envelope))
    result = invoke("leaderboard", root)
    assert result.exit_code == 0
    assert ("warning: results/dear/d1.json#/cost: cost -1 is negative; left out (not "
            "counted as 0)") in result.stderr


def test_the_cost_interval_uses_the_score_bootstrap_draws(tmp_path):
    evaluation = leafscore.evaluate(_priced_bench(tmp_path / "b"), cache=False)
    board = evaluation.leaderboard(resamples=200, seed=7)
    found = evaluation.costs()
    order = [r.system for r in board.rows]
    matrix = stats.score_matrix([found.column(s, "cost") for s in order])
    draws = stats.bootstrap_macro(matrix, resamples=200, seed=7)
    for index, row in enumerate(board.costs):
        assert (row.cost_low, row.cost_high) == stats.percentile_interval(draws[index])


def test_costs_never_change_a_score(tmp_path):
    root = _priced_bench(tmp_path / "b")
    with_costs = leafscore.evaluate(root, cache=False).leaderboard()
    for path in (root / "results").rglob("*.json"):
        envelope = json.loads(path.read_text())
        envelope.pop("cost"), envelope.pop("time_sec")
        path.write_text(json.dumps(envelope))
    without = leafscore.evaluate(root, cache=False).leaderboard()
    assert with_costs.rows == without.rows and with_costs.signature == without.signature


def test_the_warm_cache_path_gives_the_same_costs(tmp_path):
    root = _priced_bench(tmp_path / "b")
    cold = leafscore.evaluate(root, cache_dir=tmp_path / "cache").leaderboard()
    warm = leafscore.evaluate(root, cache_dir=tmp_path / "cache").leaderboard()
    assert cold.costs == warm.costs is not None


def test_to_pandas_gains_the_cost_columns(tmp_path):
    frame = leafscore.evaluate(_priced_bench(tmp_path / "b"), cache=False).to_pandas()
    assert list(frame.columns[-4:]) == ["cost_usd", "latency_s", "input_tokens",
                                        "output_tokens"]
    cheap = frame[(frame["system"] == "cheap") & (frame["document"] == "d0")]
    assert set(cheap["cost_usd"]) == {0.01} and set(cheap["latency_s"]) == {1.0}
    missing = frame[(frame["system"] == "cheap") & (frame["document"] == "d3")]
    assert missing["cost_usd"].isna().all()


def test_summary_holds_costs_per_system(tmp_path):
    summary = leafscore.evaluate(_priced_bench(tmp_path / "b"), cache=False).summary()
    assert summary["costs"]["dear"]["cost"] == pytest.approx(0.05)
    assert summary["costs"]["dear"]["latency_median"] == 2.5


# ------------------------------------------------------------------------------------
# DocuBench (acceptance)
# ------------------------------------------------------------------------------------


def _envelopes(shared: Path, system: str) -> list[dict]:
    folder = shared / "docubench" / "results" / system
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]


@pytest.fixture(scope="module")
def docubench(shared):
    evaluation = leafscore.evaluate(shared / "docubench", cache=False, keep_verdicts=False)
    board = evaluation.leaderboard()
    return evaluation, {c.system: c for c in board.costs}


def test_docubench_mean_cost_of_the_three_that_report_it_matches_the_envelopes(
        shared, docubench):
    _, rows = docubench
    for system in PRICED:
        values = [e["cost"] for e in _envelopes(shared, system)]
        assert rows[system].cost == pytest.approx(math.fsum(values) / len(values), abs=1e-15)
        assert rows[system].cost_documents == 50
    for system in TOKENS:
        assert (rows[system].cost, rows[system].cost_documents) == (None, 0)
    assert round(rows["docupipe_high"].cost, 6) == 0.103073
    assert round(rows["docupipe_standard"].cost, 6) == 0.021705
    assert round(rows["extend"].cost, 5) == 0.17075


def test_docubench_median_and_p90_latency_of_all_six_match_the_envelopes(shared, docubench):
    _, rows = docubench
    for system in (*PRICED, *TOKENS):
        values = [e["time_sec"] for e in _envelopes(shared, system)]
        assert rows[system].latency_median == pytest.approx(statistics.median(values))
        assert rows[system].latency_p90 == pytest.approx(float(np.percentile(values, 90)))
    assert round(rows["docupipe_standard"].latency_median, 4) == 1.7720
    assert round(rows["claude"].latency_median, 4) == 15.0827


def test_docubench_token_counts_of_the_three_that_report_usage(shared, docubench):
    _, rows = docubench
    spell = {"claude": ("input_tokens", "output_tokens"),
             "gpt": ("input_tokens", "output_tokens")}
    for system, (inp, out) in spell.items():
        usage = [e["meta"]["usage"] for e in _envelopes(shared, system)]
        assert rows[system].input_tokens == pytest.approx(statistics.mean(u[inp] for u in usage))
        assert rows[system].output_tokens == pytest.approx(
            statistics.mean(u[out] for u in usage))
    gemini = [e["meta"]["usage"] for e in _envelopes(shared, "gemini")]
    assert rows["gemini"].output_tokens == pytest.approx(statistics.mean(
        u["candidatesTokenCount"] + u.get("thoughtsTokenCount", 0) for u in gemini))
    assert rows["claude"].input_tokens == pytest.approx(8360.66)
    for system in PRICED:
        assert rows[system].token_documents == 0


def test_docubench_frontier_marks(docubench):
    _, rows = docubench
    assert {s for s, c in rows.items() if c.cost_frontier} == {"docupipe_high",
                                                               "docupipe_standard"}
    assert {s for s, c in rows.items() if c.latency_frontier} == {"docupipe_high",
                                                                  "docupipe_standard"}
    assert rows["extend"].cost_frontier is False
    assert rows["gpt"].cost_frontier is None  # no cost: not placed


def test_docubench_tokens_priced_in_benchmark_toml_become_cost(shared, tmp_path):
    from cli_helpers import copy_tree

    root = copy_tree(shared / "docubench", tmp_path / "docubench")
    (root / "benchmark.toml").write_text(
        '[costs.prices.gpt]\ninput = 1.25\noutput = 10.0\n', encoding="utf-8")
    evaluation = leafscore.evaluate(root, cache=False, keep_verdicts=False)
    row = next(c for c in evaluation.leaderboard().costs if c.system == "gpt")
    usage = [e["meta"]["usage"] for e in _envelopes(shared, "gpt")]
    expected = statistics.mean((u["input_tokens"] * 1.25 + u["output_tokens"] * 10.0) / 1e6
                               for u in usage)
    assert (row.cost, row.cost_documents, row.cost_from) == (pytest.approx(expected), 50,
                                                             "tokens")


def test_costs_module_reads_nothing_it_was_not_asked_for():
    assert costs.needles(CostSettings()) == (b'"cost"', b'"time_sec"', b'"usage"', b"\\u")


def test_a_jsonl_line_written_as_an_envelope_carries_its_cost(tmp_path):
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"a": {"type": "string"}}}))
    (tmp_path / "gold.jsonl").write_text('{"id": "d1", "a": "x"}\n{"id": "d2", "a": "y"}\n')
    (tmp_path / "s.jsonl").write_text(
        '{"id": "d1", "status": "ok", "data": {"a": "x"}, "cost": 0.25, "time_sec": 2}\n'
        '{"id": "d2", "status": "ok", "data": {"a": "y"}, "cost": "free"}\n')
    evaluation = leafscore.evaluate_jsonl(tmp_path / "gold.jsonl",
                                          {"s": tmp_path / "s.jsonl"}, schema, cache=False)
    row = evaluation.leaderboard().costs[0]
    assert (row.cost, row.cost_documents, row.latency_median) == (0.25, 1, 2.0)
    assert evaluation.costs().warnings == (
        's.jsonl:2#/cost: cost "free" is not a number; left out (not counted as 0)',)


def test_only_the_figures_some_system_has_are_shown(tmp_path):
    root = make_benchmark(tmp_path / "b", {"a": {"a": "x"}}, {"s": {"a": {"a": "x"}}})
    path = root / "results" / "s" / "a.json"
    path.write_text(json.dumps({"status": "ok", "data": {"a": "x"}, "time_sec": 4.0}))
    md = invoke("leaderboard", root).stdout
    assert "latency p50 (s)" in md and "latency frontier" in md
    assert "cost/doc" not in md and "tokens in/doc" not in md
