"""CI gates (leafscore.gate)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from analysis_fakes import doc, run_of, v
from hypothesis import given
from hypothesis import strategies as st

from leafscore.gate import (
    Check,
    Failure,
    check_threshold,
    checks,
    gate,
    parse_field_min,
    percent_against,
    percent_threshold,
    points,
)

FIELDS = run_of({"gpt": [
    doc(v("date", "correct"), v("total", "wrong_value"), v("note", "correct_absence")),
    doc(v("date", "correct"), v("total", "correct")),
]})


def test_a_score_above_the_minimum_passes():
    assert gate(run_of({"gpt": [0.995]}), "gpt", min_score=0.99) == ()


def test_a_score_equal_to_the_minimum_passes():
    assert gate(run_of({"gpt": [0.99]}), "gpt", min_score=0.99) == ()


def test_a_score_that_rounds_up_to_the_minimum_still_fails():
    (failure,) = gate(run_of({"gpt": [0.98684]}), "gpt", min_score=0.99)
    assert failure == Failure("score", 0.98684, 0.99)
    assert failure.message == "score 98.7% is below the minimum 99%"


def test_the_decision_uses_the_unrounded_value():
    (failure,) = gate(run_of({"gpt": [0.98999999]}), "gpt", min_score=0.99)
    assert failure.message == "score 98.999999% is below the minimum 99%"


def test_a_field_below_its_minimum_f1_fails():
    (failure,) = gate(FIELDS, "gpt", field_min=[("total", 0.7)])
    assert failure == Failure("total", 0.5, 0.7)
    assert failure.message == "field total: F1 50.0% is below the minimum 70%"


def test_a_field_at_or_above_its_minimum_f1_passes():
    assert gate(FIELDS, "gpt", field_min=[("date", 1.0)]) == ()


def test_every_failure_is_listed_score_first():
    thresholds = [("total", 0.9), ("date", 0.5), ("note", 0.5)]
    failures = gate(FIELDS, "gpt", min_score=0.9, field_min=thresholds)
    assert [(f.target, f.value) for f in failures] == [
        ("score", 0.75), ("total", 0.5), ("note", None)]


def test_checks_lists_every_threshold_applied_met_or_not_score_first():
    applied = checks(FIELDS, "gpt", min_score=0.5, field_min=[("total", 0.9), ("date", 0.5)])
    assert applied == (Check("score", 0.75, 0.5), Check("total", 0.5, 0.9),
                       Check("date", 1.0, 0.5))
    assert [c.passed for c in applied] == [True, False, True]


def test_a_met_field_minimum_says_its_f1_and_minimum():
    (check,) = checks(FIELDS, "gpt", field_min=[("date", 0.5)])
    assert check.message == "field date: F1 100.0% >= 50%"


def test_a_threshold_of_negative_zero_is_read_as_zero():
    assert str(check_threshold("-0.0")) == "0.0"


@pytest.mark.parametrize("show, expected", [(percent_threshold, "0%"), (points, "0 points"),
                                            (lambda x: percent_against(x, 0.0), "0.0%")])
def test_negative_zero_never_prints_with_a_sign(show, expected):
    assert show(-0.0) == expected


def test_a_field_with_undefined_f1_fails():
    (failure,) = gate(FIELDS, "gpt", field_min=[("note", 0.5)])
    assert failure.message == "field note: F1 is undefined (nothing scored); minimum 50%"


def test_a_system_with_nothing_scored_fails_the_minimum_score():
    (failure,) = gate(run_of({"gpt": [None]}, version="1.0"), "gpt", min_score=0.1)
    assert failure.value is None


def test_an_unknown_field_is_an_error_listing_the_fields():
    with pytest.raises(ValueError, match="no field 'totl' in gpt; fields: date, note, total"):
        gate(FIELDS, "gpt", field_min=[("totl", 0.5)])


def test_field_minimums_need_version_2_0():
    with pytest.raises(ValueError, match=r"need version 2\.0"):
        gate(run_of({"gpt": [0.5]}, version="1.0"), "gpt", field_min=[("total", 0.5)])


def test_a_minimum_score_given_as_a_percent_is_an_error():
    with pytest.raises(ValueError, match="a fraction, not a percent"):
        gate(run_of({"gpt": [0.5]}), "gpt", min_score=99)


def test_field_min_reads_path_and_minimum():
    assert parse_field_min("lines[].qty=0.9") == ("lines[].qty", 0.9)


def test_field_min_splits_on_the_last_equals_sign():
    assert parse_field_min("m.a=b=0.5") == ("m.a=b", 0.5)


@pytest.mark.parametrize("text", ["qty", "=0.5", "qty=high", "qty=95"])
def test_a_malformed_field_min_is_an_error(text):
    with pytest.raises(ValueError, match="--field-min"):
        parse_field_min(text)


def test_a_value_far_from_the_threshold_keeps_one_decimal_of_percent():
    assert percent_against(0.5, 0.9) == "50.0%"


def test_a_value_near_a_threshold_with_more_decimals_shows_as_many():
    assert percent_against(0.9949, 0.995) == "99.49%"


@given(value=st.floats(0.0, 1.0), threshold=st.floats(0.0, 1.0))
def test_a_printed_value_never_crosses_the_threshold(value, threshold):
    shown = Decimal(percent_against(value, threshold)[:-1])
    assert (shown >= Decimal(threshold) * 100) == (value >= threshold)


def test_a_field_min_path_may_quote_a_member_name_holding_a_dot():
    assert parse_field_min('["a.b"]=0.5') == ('["a.b"]', 0.5)


def test_a_field_min_path_quoting_a_plain_name_reads_as_the_bare_name():
    assert parse_field_min('rows[].["qty"]=0.9') == ("rows[].qty", 0.9)


def test_a_field_min_path_with_an_unclosed_quote_is_a_value_error():
    with pytest.raises(ValueError, match="field path"):
        parse_field_min('["a.b=0.5')


def test_a_gate_finds_a_quoted_field_given_in_another_spelling():
    quoted = run_of({"gpt": [doc(v('["a.b"]', "wrong_value"), v("a.b", "correct"))]})
    (failure,) = gate(quoted, "gpt", field_min=[('["a\\u002eb"]', 0.5)])
    assert failure == Failure('["a.b"]', 0.0, 0.5)
