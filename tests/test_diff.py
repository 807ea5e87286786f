"""Base versus head comparisons (leafscore.diff)."""

from __future__ import annotations

import pytest
from analysis_fakes import doc, run_of, v
from hypothesis import given, settings
from hypothesis import strategies as st

from leafscore.diff import FieldChange, Flip, compare, is_regression

DIGESTS = {"schemas/d1.json": "aa", "labels/d1.json": "bb", "results/gpt/d1.json": "cc"}


def test_the_change_is_head_minus_base_of_the_macro_accuracies():
    run = run_of({"base": [0.5, 1.0], "head": [1.0, 1.0]})
    result = compare(run, "base", run, "head")
    assert (result.base_score, result.head_score, result.change.estimate) == (0.75, 1.0, 0.25)


def test_comparing_a_system_with_itself_changes_nothing():
    run = run_of({"gpt": [0.2, 0.9, 0.4]})
    result = compare(run, "gpt", run, "gpt")
    assert (result.change.estimate, result.change.p_value) == (0.0, 1.0)
    assert (result.flipped, result.regression) == ((), False)


def test_flipped_documents_list_both_scores_biggest_drop_first():
    run = run_of({"base": [0.5, 0.9, 0.3, 0.7], "head": [0.75, 0.4, 0.3, 0.6]})
    result = compare(run, "base", run, "head")
    assert result.flipped == (Flip("d2", 0.9, 0.4), Flip("d4", 0.7, 0.6), Flip("d1", 0.5, 0.75))
    assert result.flipped[0].change == pytest.approx(-0.5)


def test_a_move_within_the_tolerance_is_not_a_flip():
    run = run_of({"base": [0.5, 0.5], "head": [0.52, 0.7]})
    result = compare(run, "base", run, "head", tolerance=0.05)
    assert [f.document for f in result.flipped] == ["d2"]


def test_a_document_scored_on_one_side_only_flips():
    run = run_of({"base": [0.5, None], "head": [0.5, 0.8]}, version="1.0")
    assert compare(run, "base", run, "head").flipped == (Flip("d2", None, 0.8),)


def test_a_drop_beyond_the_tolerance_is_a_drop():
    run = run_of({"base": [0.9, 0.9], "head": [0.8, 0.9]})
    assert compare(run, "base", run, "head", tolerance=0.01).drop is True


def test_a_drop_the_paired_test_cannot_call_significant_is_not_a_regression():
    # 2 documents: the exact sign-flip p-value is at least 2 / 2**1 = 1 here.
    run = run_of({"base": [0.9, 0.9], "head": [0.8, 0.9]})
    result = compare(run, "base", run, "head", tolerance=0.01)
    assert (result.drop, result.change.p_value, result.regression) == (True, 1.0, False)


def test_a_significant_drop_beyond_the_tolerance_is_a_regression():
    # 8 documents, each 10 points down: exact p = 2 / 2**8 = 0.0078125 < 0.05.
    base = [0.9, 0.8, 0.95, 0.7, 0.85, 0.9, 0.6, 0.75]
    run = run_of({"base": base, "head": [x - 0.1 for x in base]})
    result = compare(run, "base", run, "head", tolerance=0.01)
    assert (result.change.p_value, result.regression) == (2 / 256, True)


def test_a_drop_within_the_tolerance_is_not_a_regression():
    run = run_of({"base": [0.9, 0.9], "head": [0.8, 0.9]})
    assert compare(run, "base", run, "head", tolerance=0.06).regression is False


def test_an_improvement_is_never_a_regression():
    assert is_regression(0.5, 0.6) is False


def test_a_head_with_nothing_scored_is_a_regression():
    assert is_regression(0.5, None) is True


def test_per_field_f1_is_shown_before_and_after_biggest_drop_first():
    run = run_of({
        "base": [doc(v("date", "correct"), v("total", "wrong_value"), v("note", "correct"))],
        "head": [doc(v("date", "missing"), v("total", "correct"), v("vat", "correct"))],
    })
    fields = compare(run, "base", run, "head").fields
    assert fields == (
        FieldChange("date", 1.0, 0.0),
        FieldChange("total", 0.0, 1.0),
        FieldChange("note", 1.0, None),
        FieldChange("vat", None, 1.0),
    )
    assert [f.change for f in fields] == [-1.0, 1.0, None, None]


def test_field_changes_are_not_computed_under_version_1_0():
    run = run_of({"base": [0.5], "head": [0.6]}, version="1.0")
    assert compare(run, "base", run, "head").fields is None


def test_two_runs_of_the_same_benchmark_are_compared():
    before = run_of({"gpt": [0.5, 0.5]}, digests=DIGESTS)
    after = run_of({"gpt": [0.5, 1.0]}, digests={**DIGESTS, "results/gpt/d1.json": "dd"})
    result = compare(before, "gpt", after, "gpt", names=("main", "branch"))
    assert (result.base, result.head, result.change.estimate) == ("main", "branch", 0.25)


def test_runs_with_different_labels_are_not_comparable():
    before = run_of({"gpt": [0.5]}, digests=DIGESTS)
    after = run_of({"gpt": [0.5]}, digests={**DIGESTS, "labels/d1.json": "ee"})
    with pytest.raises(ValueError, match="differ in their schemas or labels"):
        compare(before, "gpt", after, "gpt")


def test_runs_of_different_versions_are_not_comparable():
    with pytest.raises(ValueError, match=r"base is version 2\.0, head is version 1\.0"):
        compare(run_of({"gpt": [0.5]}), "gpt", run_of({"gpt": [0.5]}, version="1.0"), "gpt")


def test_runs_with_different_documents_are_not_comparable():
    before = run_of({"gpt": [0.5]}, documents=("a",))
    after = run_of({"gpt": [0.5]}, documents=("b",))
    with pytest.raises(ValueError, match="different documents: a, b"):
        compare(before, "gpt", after, "gpt")


def test_a_negative_tolerance_is_an_error():
    run = run_of({"gpt": [0.5]})
    with pytest.raises(ValueError, match=r"tolerance=-0\.1"):
        compare(run, "gpt", run, "gpt", tolerance=-0.1)


def test_an_unknown_system_is_named_in_the_error():
    run = run_of({"gpt": [0.5]})
    with pytest.raises(KeyError, match="claude"):
        compare(run, "gpt", run, "claude")


@settings(max_examples=40, deadline=None)
@given(
    pairs=st.lists(st.tuples(st.floats(0.0, 1.0), st.floats(0.0, 1.0)), min_size=1, max_size=20),
)
def test_swapping_base_and_head_negates_the_diff(pairs):
    run = run_of({"a": [p[0] for p in pairs], "b": [p[1] for p in pairs]})
    forward = compare(run, "a", run, "b", resamples=200)
    backward = compare(run, "b", run, "a", resamples=200)
    assert backward.change.estimate == -forward.change.estimate
    assert backward.change.low == pytest.approx(-forward.change.high, abs=1e-12)
    assert sorted(f.document for f in backward.flipped) == sorted(
        f.document for f in forward.flipped)
