"""Leaderboard data (leafscore.leaderboard)."""

from __future__ import annotations

import pytest
from analysis_fakes import doc, run_of, v
from hypothesis import given, settings
from hypothesis import strategies as st

import scorer
from leafscore.leaderboard import (
    Coverage,
    Group,
    leaderboard,
    metadata_columns,
)

EIGHT = [0.5, 0.75, 1.0, 1.0, 0.25, 0.9, 0.8, 0.6]


def systems(board):
    return [row.system for row in board.rows]


def test_systems_rank_by_macro_accuracy_best_first():
    board = leaderboard(run_of({"a": [0.5, 0.5], "b": [0.9, 0.9], "c": [0.7, 0.7]}))
    assert systems(board) == ["b", "c", "a"]
    assert [row.rank for row in board.rows] == [1, 2, 3]


def test_equal_scores_rank_by_system_name():
    board = leaderboard(run_of({"zeta": [0.5, 0.5], "alpha": [0.5, 0.5]}))
    assert systems(board) == ["alpha", "zeta"]


def test_a_system_with_no_scored_document_ranks_last_without_interval():
    run = run_of({"gone": [None, None], "here": [0.1, 0.2]}, version="1.0")
    last = leaderboard(run).rows[-1]
    assert (last.system, last.score, last.low, last.high, last.tie, last.decision) == (
        "gone", None, None, None, None, "none")
    assert last.reason == "no document scored"


def test_the_score_interval_is_the_pinned_bootstrap_interval():
    (row,) = leaderboard(run_of({"gpt": EIGHT})).rows
    assert (row.score, row.low, row.high) == (0.725, 0.55, 0.8875)


def test_the_leader_is_never_marked_as_tied():
    board = leaderboard(run_of({"a": EIGHT, "b": EIGHT}))
    assert [row.tie for row in board.rows] == [False, True]
    assert board.rows[0].gap is None


def test_a_system_identical_to_the_leader_is_tied_with_p_value_1():
    second = leaderboard(run_of({"a": EIGHT, "b": EIGHT})).rows[1]
    assert second.gap.p_value == 1.0


def test_a_system_20_points_behind_on_every_document_is_not_tied():
    worse = [0.1, 0.3, 0.5, 0.7, 0.0, 0.6, 0.8, 0.4]
    board = leaderboard(run_of({"best": [x + 0.2 for x in worse], "worse": worse}))
    assert (board.rows[1].tie, board.rows[1].decision) == (False, "behind")
    assert board.rows[1].gap.p_value == 2 / 256  # exact: 2 of the 2**8 sign patterns


def test_micro_precision_recall_f1_come_from_counts_summed_over_documents():
    run = run_of({"gpt": [
        doc(v("a", "correct"), v("b", "correct"), v("c", "missing")),
        doc(v("a", "wrong_value"), v("b", "hallucinated"), v("c", "correct")),
    ]})
    (row,) = leaderboard(run).rows
    assert row.micro == scorer.FieldCounts(tp=3, fp=2, fn=2)
    assert (row.micro.precision, row.micro.recall, row.micro.f1) == (0.6, 0.6, 0.6)


def test_micro_figures_are_none_under_version_1_0():
    (row,) = leaderboard(run_of({"gpt": [0.5, 1.0]}, version="1.0")).rows
    assert row.micro is None


def test_coverage_counts_scored_documents_parse_failures_and_missing_results():
    run = run_of(
        {"gpt": [1.0, 0.0, 0.0, 0.5]},
        statuses={("gpt", "d2"): "parse_failure", ("gpt", "d3"): "missing"},
    )
    (row,) = leaderboard(run).rows
    assert row.coverage == Coverage(documents=4, scored=2, parse_failures=1, missing=1)


def test_a_missing_result_is_left_out_of_the_mean_under_version_1_0():
    (row,) = leaderboard(run_of({"gpt": [1.0, None, 0.5]}, version="1.0")).rows
    assert row.score == 0.75
    assert row.coverage == Coverage(documents=3, scored=2, parse_failures=0, missing=1)


def test_a_breakdown_gives_each_system_its_mean_per_metadata_value():
    run = run_of(
        {"a": [1.0, 0.5, 0.0], "b": [0.0, 0.5, 1.0]},
        metadata={"d1": {"ftype": "pdf"}, "d2": {"ftype": "pdf"}, "d3": {"ftype": "png"}},
    )
    (part,) = leaderboard(run, columns=["ftype"]).breakdowns
    assert part.column == "ftype"
    assert part.groups == (
        Group("pdf", 2, {"a": 0.75, "b": 0.25}),
        Group("png", 1, {"a": 0.0, "b": 1.0}),
    )


def test_a_list_valued_column_counts_a_document_under_each_tag():
    run = run_of(
        {"a": [1.0, 0.0]},
        metadata={"d1": {"tags": ["table", "scan"]}, "d2": {"tags": ["scan"]}},
    )
    (part,) = leaderboard(run, columns=["tags"]).breakdowns
    assert part.groups == (Group("scan", 2, {"a": 0.5}), Group("table", 1, {"a": 1.0}))


def test_a_group_where_a_system_scored_nothing_shows_none():
    run = run_of({"a": [None, 1.0]}, version="1.0",
                 metadata={"d1": {"lang": "de"}, "d2": {"lang": "en"}})
    (part,) = leaderboard(run, columns=["lang"]).breakdowns
    assert part.groups[0] == Group("de", 1, {"a": None})


def test_breakdown_columns_default_to_every_metadata_column_in_first_seen_order():
    metadata = {"d2": {"lang": "de", "tags": ["scan"]}, "d1": {"ftype": "pdf", "lang": "en"}}
    assert metadata_columns(metadata) == ("ftype", "lang", "tags")


def test_numeric_metadata_values_sort_as_numbers():
    run = run_of({"a": [1.0, 0.5, 0.0]},
                 metadata={"d1": {"pages": 10}, "d2": {"pages": 2}, "d3": {"pages": None}})
    (part,) = leaderboard(run).breakdowns
    assert [g.value for g in part.groups] == ["2", "10"]


def test_a_tag_repeated_on_one_document_counts_it_once():
    run = run_of({"a": [1.0]}, metadata={"d1": {"tags": ["scan", "scan"]}})
    (part,) = leaderboard(run).breakdowns
    assert part.groups == (Group("scan", 1, {"a": 1.0}),)


def test_the_signature_records_the_bootstrap_actually_used():
    board = leaderboard(run_of({"a": EIGHT}), resamples=200, seed=7)
    assert "|bs:200|seed:7|" in board.signature


def test_a_run_without_documents_has_no_leaderboard():
    run = run_of({"a": []})
    with pytest.raises(ValueError, match="at least one system and one document"):
        leaderboard(run)


@settings(max_examples=40, deadline=None)
@given(
    scores=st.lists(st.one_of(st.none(), st.floats(0.0, 1.0)), min_size=1, max_size=25).filter(
        lambda xs: any(x is not None for x in xs)),
    seed=st.integers(0, 2**32 - 1),
)
def test_every_interval_contains_its_score_even_with_unscored_documents(scores, seed):
    (row,) = leaderboard(run_of({"a": scores}, version="1.0"), resamples=200, seed=seed).rows
    assert row.low - 1e-12 <= row.score <= row.high + 1e-12
