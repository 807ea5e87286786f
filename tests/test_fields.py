"""Per-field analysis (leafscore.fields)."""

from __future__ import annotations

import pytest
from analysis_fakes import doc, run_of, v

import scorer
from leafscore.fields import FieldRow, field_table, sum_fields, worst_first


def row(field, f1, errors=None):
    # counts whose F1 is the one asked for (2tp / (2tp + fp + fn)); None: nothing counted
    counts = scorer.FieldCounts() if f1 is None else scorer.FieldCounts(
        round(100 * f1), 0, 200 - 2 * round(100 * f1))
    return FieldRow(field, counts, errors or {})


def rates(counts):
    return counts.precision, counts.recall, counts.f1


def test_precision_recall_and_f1_come_from_summed_counts():
    assert rates(scorer.FieldCounts(3, 1, 0)) == (0.75, 1.0, 6 / 7)


def test_nothing_to_count_gives_none_never_0_or_1():
    assert rates(scorer.FieldCounts(0, 0, 0)) == (None, None, None)


def test_a_field_only_ever_missed_has_no_precision_and_zero_recall_and_f1():
    assert rates(scorer.FieldCounts(0, 0, 2)) == (None, 0.0, 0.0)


def test_counts_add_up_field_by_field():
    assert scorer.FieldCounts(1, 2, 3) + scorer.FieldCounts(4, 5, 6) == scorer.FieldCounts(5, 7, 9)


def test_counts_are_summed_over_documents():
    one = doc(v("total", "correct", 5, 5))
    two = doc(v("total", "wrong_value", 5, 6))
    (total,) = sum_fields([one, two])
    assert total.counts == scorer.FieldCounts(1, 1, 1)
    assert rates(total.counts) == (0.5, 0.5, 0.5)


def test_error_categories_count_each_verdict_kind_except_correct_ones():
    score = doc(
        v("qty", "correct"), v("qty", "missing"), v("qty", "missing"),
        v("qty", "hallucinated"), v("qty", "correct_absence"),
    )
    (qty,) = sum_fields([score])
    assert qty.errors == {"hallucinated": 1, "missing": 2}
    assert qty.error_count == 3


def test_a_field_seen_only_as_a_correct_absence_has_no_f1_and_no_errors():
    (note,) = sum_fields([doc(v("note", "correct_absence"))])
    assert (note.f1, note.errors) == (None, {})


def test_fields_are_listed_lowest_f1_first():
    rows = worst_first([row("a", 0.9), row("b", 0.1), row("c", 0.5)])
    assert [r.field for r in rows] == ["b", "c", "a"]


def test_equal_f1_lists_the_field_with_more_errors_first():
    rows = worst_first([row("a", 0.5, {"missing": 1}), row("b", 0.5, {"missing": 4})])
    assert [r.field for r in rows] == ["b", "a"]


def test_equal_f1_and_errors_are_ordered_by_path():
    rows = worst_first([row("lines[].qty", 0.5), row("date", 0.5)])
    assert [r.field for r in rows] == ["date", "lines[].qty"]


def test_a_field_without_f1_comes_after_every_field_with_one():
    rows = worst_first([row("a", None), row("b", 1.0)])
    assert [r.field for r in rows] == ["b", "a"]


def test_field_table_reads_every_document_of_one_system():
    run = run_of({
        "gpt": [doc(v("date", "correct"), v("total", "missing")),
                doc(v("date", "correct"), v("total", "correct"))],
        "claude": [doc(v("date", "wrong_value")), doc(v("date", "wrong_value"))],
    })
    rows = field_table(run, "gpt")
    assert [(r.field, r.counts.tp, r.counts.fn, r.f1) for r in rows] == [
        ("total", 1, 1, 2 / 3), ("date", 2, 0, 1.0)]


def test_a_version_1_0_run_has_no_field_counts():
    run = run_of({"gpt": [0.5, 1.0]}, version="1.0")
    with pytest.raises(ValueError, match=r"need version 2\.0; this run is version 1\.0"):
        field_table(run, "gpt")


def test_an_unknown_system_is_named_in_the_error():
    with pytest.raises(KeyError, match="nope"):
        field_table(run_of({"gpt": [doc()]}), "nope")
