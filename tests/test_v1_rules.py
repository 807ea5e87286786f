"""Version 1.0's rules, odd ones included: each is DocuBench 0.1.0 behaviour, frozen."""

from __future__ import annotations

import pytest

import scorer
from leafscore.cells import score_from_dict

TEXT = {"type": "object", "properties": {"v": {"type": "string"}}}
ROWS = {"type": "object", "properties": {"rows": {"type": "array", "items": {
    "type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}}}}


def v1(engine, result, schema, label):
    return engine.score(result, schema, label, version="1.0")


def test_a_minus_sign_is_deleted_so_a_negated_amount_counts_as_correct(engine):
    assert v1(engine, {"v": "98.2"}, TEXT, {"v": "-98.2"}).value == 1.0


def test_true_equals_one_because_values_compare_with_python_equality(engine):
    schema = {"type": "object", "properties": {"v": {"type": "boolean"}}}
    assert v1(engine, {"v": 1}, schema, {"v": True}).value == 1.0


def test_a_fraction_slash_is_deleted_so_one_half_equals_twelve(engine):
    assert v1(engine, {"v": "12"}, TEXT, {"v": "1/2"}).value == 1.0


def test_a_number_written_as_a_string_is_never_read_as_a_number(engine):
    schema = {"type": "object", "properties": {"v": {"type": "number"}}}
    assert v1(engine, {"v": "1240"}, schema, {"v": 1240}).value == 0.0


def test_null_and_an_absent_member_are_not_counted(engine):
    doc = v1(engine, {"v": None}, TEXT, {})
    assert doc.to_dict() == {"non_array": {"score": 1.0, "total": 0}, "final": 1.0}


def test_greedy_pairing_takes_the_first_best_pair_even_when_it_costs_the_total(engine):
    # Pairs (0,0), (0,1), (1,0) all score 0.5; greedy takes (0,0) first, which leaves
    # label row 1 with result row 1 at 0.0. The optimal pairing (0,1)+(1,0) would give 0.5.
    label = {"rows": [{"a": "x", "b": "y"}, {"a": "n", "b": "q"}]}
    result = {"rows": [{"a": "x", "b": "q"}, {"a": "m", "b": "y"}]}
    doc = v1(engine, result, ROWS, label)
    assert doc.to_dict()["arrays"]["rows"] == {"score": 0.25, "total": 4.0}


def test_array_weight_is_rows_times_mean_non_empty_leaves_of_label_items(engine):
    label = {"rows": [{"a": "x", "b": "y"}, {"a": "x"}]}
    doc = v1(engine, {"rows": []}, ROWS, label)
    assert doc.to_dict()["arrays"]["rows"] == {"score": 0.0, "total": 3.0}


def test_two_arrays_under_one_top_level_member_keep_only_the_later_one(engine):
    schema = {"type": "object", "properties": {"doc": {"type": "object", "properties": {
        "first": {"type": "array", "items": {"type": "string"}},
        "second": {"type": "array", "items": {"type": "string"}}}}}}
    doc = v1(engine, {"doc": {"first": ["a"], "second": ["b"]}}, schema,
             {"doc": {"first": ["z"], "second": ["b"]}})
    assert doc.to_dict() == {"arrays": {"doc": {"score": 1.0, "total": 1.0}}, "final": 1.0}


def test_a_schema_with_no_scorable_field_has_no_answer(engine):
    with pytest.raises(scorer.ScoringError, match=r"version 2\.0 scores it"):
        v1(engine, {}, {"type": "object", "properties": {}}, {})


def test_a_label_number_too_large_for_a_float_is_a_scoring_error(engine):
    schema = {"type": "object", "properties": {"v": {"type": "number"}}}
    with pytest.raises(scorer.ScoringError):
        v1(engine, {"v": 1}, schema, {"v": 10**400})


def test_a_result_number_too_large_for_a_float_scores_as_no_result(engine):
    schema = {"type": "object", "properties": {"v": {"type": "number"}, "w": {"type": "string"}}}
    assert v1(engine, {"v": 10**400, "w": "a"}, schema, {"v": 1, "w": "a"}).value == 0.0


def test_nan_never_equals_itself(engine):
    schema = {"type": "object", "properties": {"v": {"type": "number"}}}
    assert v1(engine, {"v": float("nan")}, schema, {"v": float("nan")}).value == 0.0


def test_to_dict_round_trips_through_the_stored_form(engine):
    doc = v1(engine, {"rows": [{"a": "x"}], "v": "1"}, {**ROWS, "properties": {
        **ROWS["properties"], "v": {"type": "string"}}}, {"rows": [{"a": "x"}], "v": "1"})
    assert score_from_dict(doc.to_dict()) == doc
