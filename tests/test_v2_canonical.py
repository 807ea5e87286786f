"""Version 2.0 canonical values, one rule per test (spec 2.0 §3 and §7 "Values")."""

from __future__ import annotations

from decimal import Decimal

import pytest
from kill_timeout import killed_after

import scorer
from scorer import canon_boolean, canon_date, canon_exact, canon_number, canon_text, is_empty

# --- emptiness ----------------------------------------------------------------------


@pytest.mark.parametrize("value", [None, "", "   \n\t", [], {}, [None, ""], {"a": {"b": [" "]}}])
def test_values_that_state_nothing_are_empty(value):
    assert is_empty(value) is True


@pytest.mark.parametrize("value", [0, False, "N/A", "none", "-", [0], {"a": {"b": "x"}}])
def test_zero_false_and_placeholder_words_are_values_not_empty(value):
    assert is_empty(value) is False


def test_emptiness_of_a_value_nested_100000_levels_deep_needs_no_recursion():
    value: list = []
    for _ in range(100_000):
        value = [value]
    assert is_empty(value) is True


# --- text ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "a, b",
    [
        ("Acme, Inc.", "ACME INC"),
        ("A-1", "a 1"),
        ("INV-0215", "inv 0215"),
        ("Café", "Cafe\u0301"),
        ("ＡＢＣ１２３", "ABC123"),
        ("1 / 2", "1/2"),
        ("1\u20442", "1/2"),
        ("-", "—"),
        ("O’Brien", "O'Brien"),
        ("zero\u200bwidth", "zerowidth"),
    ],
)
def test_text_values_that_differ_only_in_form_have_one_canonical_text(a, b):
    assert canon_text(a) == canon_text(b)


@pytest.mark.parametrize(
    "a, b",
    [("INV-0215", "INV-215"), ("1/2", "12"), ("Section 2.1", "Section 21"), ("-98.2", "98.2")],
)
def test_text_values_that_differ_in_content_keep_different_canonical_texts(a, b):
    assert canon_text(a) != canon_text(b)


def test_text_canon_of_acme_inc_is_acmeinc():
    assert canon_text("Acme, Inc.") == "acmeinc"


def test_a_leading_minus_before_a_digit_is_kept_in_text():
    assert canon_text(" -98.2 ") == "-98.2"


def test_a_leading_minus_separated_from_the_digit_by_a_space_is_deleted_in_text():
    assert canon_text("- 5") == "5"


def test_a_colon_between_digits_is_kept_and_elsewhere_deleted():
    assert canon_text("Time: 10:45") == "time10:45"


def test_text_made_only_of_punctuation_falls_back_to_its_folded_text():
    assert canon_text(" – ") == "-"


@pytest.mark.parametrize("v21", [False, True])
@pytest.mark.parametrize("text, canon", [
    ("שלום עולם", "שלוםעולם"),
    ("  Ünïcödé Straße ", "ünïcödéstrasse"),
    ("ＡＢＣ　１２３", "abc123"),  # NFKC: full-width letters, digits and space
    ("東京 2026", "東京2026"),
])
def test_letters_digits_and_spaces_only_read_as_their_folded_letters_and_digits(text, canon, v21):
    assert canon_text(text, v21) == canon


def test_no_letter_or_digit_is_one_the_text_canon_deletes_or_changes():
    # Text of letters, digits and spaces only (Python's isalnum) skips the canon's deleting
    # and folding steps; exact only while no such character is in any class they touch.
    alnum = "".join(c for c in map(chr, range(0x110000))
                    if not 0xD800 <= ord(c) < 0xE000 and c.isalnum())
    touched = [scorer._CF, scorer._DASH, scorer._SPACE, scorer._SIGN, scorer._TEXT_DROP,
               scorer._KEPT_SIGNS, scorer._DOT_ABOVE]
    assert len(alnum) > 100_000
    assert {p.pattern: p.findall(alnum) for p in touched} == {p.pattern: [] for p in touched}
    assert alnum.translate(scorer._FOLDS) == alnum


def test_a_number_in_a_text_field_reads_as_its_shortest_decimal():
    assert canon_text(12.0) == "12"


def test_a_boolean_in_a_text_field_reads_as_true_or_false():
    assert canon_text(True) == "true"


# --- numbers ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, value",
    [
        ("1,240.00", "1240"),
        ("1.240,00", "1240"),
        ("1 234 567", "1234567"),
        ("1'234.5", "1234.5"),
        ("1_000", "1000"),
        ("12,34,567.50", "1234567.5"),
        ("(1,234.50)", "-1234.5"),
        ("1234-", "-1234"),
        ("\u22125", "-5"),
        ("$-5", "-5"),
        ("- 5", "-5"),
        ("-$5", "-5"),
        ("€ 12.50", "12.5"),
        ("12.50 eur", "12.5"),
        ("USD 7", "7"),
        ("45%", "45"),
        (".5", "0.5"),
        ("1.5e3", "1500"),
        ("  0.10 ", "0.1"),
        ("1,234,567", "1234567"),
        ("1.234.567", "1234567"),
    ],
)
def test_a_numeric_string_reads_as_its_exact_decimal(text, value):
    assert canon_number(text) == Decimal(value)


@pytest.mark.parametrize(
    "text",
    ["N/A", "1,23", "1,2345", "--5", "(-5)", "5 kg", "NaN", "Infinity", "1/2", "1 2", "ABC 5"],
)
def test_a_string_that_is_not_a_number_reads_as_none(text):
    assert canon_number(text) is None


def test_one_comma_is_the_decimal_mark_when_the_field_says_so():
    assert canon_number("1,5", ",") == Decimal("1.5")


def test_one_dot_groups_thousands_when_the_decimal_separator_is_a_comma():
    assert canon_number("1.234", ",") == Decimal("1234")


def test_a_dot_appearing_twice_groups_thousands_even_under_the_default_separator():
    assert canon_number("1.234.567") == Decimal("1234567")


def test_negative_and_positive_amounts_differ():
    assert canon_number("-98.2") != canon_number("98.2")


def test_numbers_round_half_even_to_six_places():
    assert canon_number("0.0000025") == Decimal("0.000002")
    assert canon_number("0.0000035") == Decimal("0.000004")


def test_a_json_float_is_read_from_its_written_form_not_its_binary_value():
    assert canon_number(0.1) == Decimal("0.1")


def test_integers_above_2_to_the_53_stay_exact():
    assert canon_number(2**53 + 1) == Decimal(9007199254740993)


def test_minus_zero_equals_zero():
    assert canon_number(-0.0) == canon_number(0)


@pytest.mark.parametrize("value", [True, False, float("nan"), float("inf")])
def test_booleans_nan_and_infinity_are_not_numbers(value):
    assert canon_number(value) is None


# Issue 9: parentheses, sign and currency combine in any order; at most one sign marker.
@pytest.mark.parametrize(
    "text, separator, value",
    [
        ("$(1,234)", ".", "-1234"),
        ("($1,234)", ".", "-1234"),
        ("(500) USD", ".", "-500"),
        ("(500 USD)", ".", "-500"),
        ("USD (500)", ".", "-500"),
        ("€(75)", ".", "-75"),
        ("($20)", ".", "-20"),
        ("(€ 1.234,50)", ",", "-1234.5"),
        ("(12%)", ".", "-12"),
    ],
)
def test_a_currency_inside_or_outside_accounting_parentheses_reads_as_a_negative(
        text, separator, value):
    assert canon_number(text, separator) == Decimal(value)


@pytest.mark.parametrize("text", ["-($67.00)", "($-67.00)", "$(5)-", "((5))", "(5", "5)",
                                  "$(5) USD", "5%%"])
def test_a_second_sign_marker_currency_or_unbalanced_parenthesis_reads_as_none(text):
    assert canon_number(text) is None


@pytest.mark.parametrize("separator", [".", ","])
def test_the_mantissa_mark_of_exponent_notation_is_decimal_whatever_the_separator(separator):
    assert canon_number("-5.125e2", separator) == Decimal("-512.5")
    assert canon_number("1,5e-3", separator) == Decimal("0.0015")


@pytest.mark.parametrize("text", ["1,234.5e3", "1 000e3", "1.000.000e1", "5e", "e5", "5e1.5"])
def test_a_grouped_or_broken_exponent_notation_reads_as_none(text):
    assert canon_number(text) is None
    assert canon_number(text, ",") is None


@pytest.mark.parametrize("text", ["0,456", "00,456", "012,345", "0,12,345"])
def test_a_first_group_starting_with_zero_never_groups_thousands_in_a_dot_field(text):
    assert canon_number(text, ".") is None


def test_a_first_group_zero_is_the_decimal_part_in_a_comma_field():
    assert canon_number("0,456", ",") == Decimal("0.456")


def test_a_first_group_zero_with_a_dot_is_unreadable_in_a_comma_field():
    assert canon_number("0.456", ",") is None


@pytest.mark.parametrize("text, separator, value", [("7.", ".", "7"), ("7,", ",", "7"),
                                                    ("1,234.", ".", "1234"),
                                                    ("1.234,", ",", "1234")])
def test_a_trailing_decimal_mark_reads_when_it_is_the_fields_separator(text, separator, value):
    assert canon_number(text, separator) == Decimal(value)


@pytest.mark.parametrize("text, separator", [("7.", ","), ("7,", "."), ("1,234.", ","),
                                             ("1.234,", "."), ("5.e3", ",")])
def test_a_trailing_decimal_mark_that_is_not_the_fields_separator_reads_as_none(text, separator):
    assert canon_number(text, separator) is None


def test_a_150000_digit_string_ending_in_a_letter_is_rejected_within_the_kill_timeout():
    with killed_after(30):
        for text in ("1" * 150_000 + "x", "(" * 150_000 + "5", "1," * 75_000 + "x"):
            assert canon_number(text) is None


# --- booleans -----------------------------------------------------------------------


@pytest.mark.parametrize("value, read", [(True, True), (" FALSE ", False), ("True", True)])
def test_booleans_and_boolean_words_in_any_case_read_as_booleans(value, read):
    assert canon_boolean(value) is read


@pytest.mark.parametrize("value", [1, 0, "yes", "1", "t"])
def test_numbers_and_other_words_are_not_booleans(value):
    assert canon_boolean(value) is None


# --- dates --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "2024-03-31",
        "03/31/2024",
        "31.03.2024",
        "March 31, 2024",
        "MAR 31, 2024",
        "31 march 2024",
        "2024/03/31",
        "2024-03-31T00:00:00Z",
        "2024-03-31 00:00",
        "3/31/2024",
    ],
)
def test_a_date_in_any_default_format_reads_as_its_iso_date(text):
    assert canon_date(text) == "2024-03-31"


def test_a_timestamp_that_is_not_midnight_keeps_its_time_as_written():
    assert canon_date("2024-03-31T14:05:00+02:00") == "2024-03-31T14:05:00"


def test_a_field_date_format_list_replaces_the_defaults():
    assert canon_date("31/03/2024", ["%d/%m/%Y"]) == "2024-03-31"
    assert canon_date("03/31/2024", ["%d/%m/%Y"]) is None


def test_an_impossible_date_reads_as_none():
    assert canon_date("2024-02-30") is None


# --- exact --------------------------------------------------------------------------


def test_under_exact_one_equals_one_point_zero():
    assert canon_exact(1) == canon_exact(1.0)


def test_under_exact_true_differs_from_one():
    assert canon_exact(True) != canon_exact(1)


def test_under_exact_object_key_order_does_not_matter():
    assert canon_exact({"a": 1, "b": [2, "x"]}) == canon_exact({"b": [2, "x"], "a": 1})


def test_under_exact_a_string_differs_from_the_number_it_spells():
    assert canon_exact("1") != canon_exact(1)


def test_a_negative_number_with_an_exponent_beyond_the_decimal_context_reads_exactly():
    assert canon_number("-1e99999999") == Decimal("-1e99999999")
