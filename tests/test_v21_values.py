"""Version 2.1's values (spec 2.1 §2-§6): each fault the field reported against 2.0, with
the verdict 2.1 gives and, where the spec says 2.0 keeps its own, the one 2.0 still gives.
Every test runs on both engines (the ``engine`` fixture)."""

from __future__ import annotations

import pytest

import scorer

TEXT = {"type": "string"}
NUMBER = {"type": "number"}
COMMA = {"type": "number", "x-leafscore": {"decimal_separator": ","}}
DATE = {"type": "string", "format": "date"}
MONTH_YEAR = {"type": "string", "format": "date", "x-leafscore": {"date_formats": ["%m/%Y"]}}
YEAR_ONLY = {"type": "string", "format": "date", "x-leafscore": {"date_formats": ["%Y"]}}
SHORT_YEAR = {"type": "string", "format": "date", "x-leafscore": {"date_formats": ["%d/%m/%y"]}}


def verdict(engine, leaf: dict, label, result, version: str = "2.1") -> tuple:
    """(kind, label canon, result canon) of the one leaf ``v``."""
    schema = {"type": "object", "properties": {"v": leaf}}
    doc = engine.score({"v": result}, schema, {"v": label}, version=version)
    (found,) = [v for v in doc.verdicts if v.address == "v"]
    return found.kind, found.label_canon, found.result_canon


# ----- §2 text ------------------------------------------------------------------------

@pytest.mark.parametrize(("label", "result", "canons"), [
    ("A+", "A-", ("a+", "a-")), ("C++", "C#", ("c++", "c#")), ("O-", "O+", ("o-", "o+"))])
def test_a_sign_run_ending_a_word_is_kept_so_grades_and_languages_differ(engine, label,
                                                                         result, canons):
    assert verdict(engine, TEXT, label, result) == ("wrong_value", *canons)


@pytest.mark.parametrize(("label", "result"), [("A+", "A-"), ("C++", "C#")])
def test_version_2_0_still_deletes_the_trailing_signs(engine, label, result):
    assert verdict(engine, TEXT, label, result, "2.0")[0] == "correct"


@pytest.mark.parametrize(("written", "canon"), [("A+.", "a"), ("A+\u00a0B", "a+b"),
                                                ("A+,B", "ab")])
def test_a_sign_run_before_punctuation_is_deleted(engine, written, canon):
    """Silent in the spec: "ending a word" is read as followed by whitespace (any, NBSP
    included) or the end; before punctuation the run is deleted (docs/SCORING.md)."""
    assert verdict(engine, TEXT, written, written) == ("correct", canon, canon)


def test_a_dash_inside_an_identifier_is_still_deleted(engine):
    assert verdict(engine, TEXT, "INV-0215", "inv 0215") == ("correct", "inv0215", "inv0215")


def test_a_dotted_capital_i_equals_a_plain_i(engine):
    assert verdict(engine, TEXT, "Istanbul", "İSTANBUL") == ("correct", "istanbul", "istanbul")


@pytest.mark.parametrize("result", ["78 º F", "78˚F"])
def test_a_masculine_ordinal_or_a_ring_typed_for_a_degree_sign_is_one(engine, result):
    assert verdict(engine, TEXT, "78 °F", result) == ("correct", "78f", "78f")


# ----- §3 numbers ---------------------------------------------------------------------

@pytest.mark.parametrize(("leaf", "label", "result", "canon"), [
    (COMMA, 1234.56, "R$ 1.234,56", "1234.56"), (NUMBER, 1000, "US$ 1,000", "1000"),
    (COMMA, 123.45, "kr. 123,45", "123.45"), (COMMA, 5, "5 zł", "5"),
    (NUMBER, 100, "HK$100", "100")])
def test_a_lettered_dollar_or_a_local_abbreviation_is_a_currency(engine, leaf, label, result,
                                                                 canon):
    assert verdict(engine, leaf, label, result) == ("correct", canon, canon)


def test_a_lettered_dollar_may_follow_the_number(engine):
    """Silent in the spec for lettered symbols: they stand after the number as every
    other currency may (docs/SCORING.md)."""
    assert verdict(engine, COMMA, 1234.56, "1.234,56 R$") == ("correct", "1234.56", "1234.56")


def test_version_2_0_cannot_read_a_lettered_dollar(engine):
    assert verdict(engine, COMMA, 1234.56, "R$ 1.234,56", "2.0") == ("type_error", "1234.56",
                                                                     None)


@pytest.mark.parametrize(("label", "result"), [(1234, "1\u200b234"), (-42, "-\ufeff42")])
def test_a_format_character_inside_a_number_is_removed(engine, label, result):
    assert verdict(engine, NUMBER, label, result) == ("correct", str(label), str(label))


@pytest.mark.parametrize("result", ["〜5", "⸺5"])
def test_a_wave_dash_or_a_long_dash_is_no_minus(engine, result):
    assert verdict(engine, NUMBER, 5 if result == "〜5" else -5, result)[0] == "type_error"


def test_version_2_0_still_reads_a_wave_dash_as_a_minus(engine):
    assert verdict(engine, NUMBER, 5, "〜5", "2.0") == ("wrong_value", "5", "-5")


def test_the_minus_sign_is_a_minus(engine):
    assert verdict(engine, NUMBER, -5, "\u22125") == ("correct", "-5", "-5")


def test_a_missing_integer_part_reads_with_the_fields_own_mark(engine):
    assert verdict(engine, NUMBER, 0.5, ".5") == ("correct", "0.5", "0.5")
    assert verdict(engine, COMMA, 0.5, ",5") == ("correct", "0.5", "0.5")


def test_a_missing_integer_part_with_the_other_mark_is_a_type_error(engine):
    assert verdict(engine, COMMA, 0.5, ".5") == ("type_error", "0.5", None)
    assert verdict(engine, COMMA, 0.5, ".5", "2.0") == ("correct", "0.5", "0.5")


# ----- §4 dates -----------------------------------------------------------------------

@pytest.mark.parametrize(("label", "result"), [
    ("2009-09-21", "Sept. 21, 2009"), ("2009-09-21", "September 21st, 2009"),
    ("2024-03-21", "21st March 2024"), ("2024-01-05", "5 Jan. 2024")])
def test_ordinals_dotted_months_and_sept_are_dates(engine, label, result):
    assert verdict(engine, DATE, label, result) == ("correct", label, label)


def test_a_month_and_year_keep_their_precision(engine):
    assert verdict(engine, MONTH_YEAR, "2013-02", "02/2013") == ("correct", "2013-02", "2013-02")


def test_a_month_and_year_never_equal_the_first_of_that_month(engine):
    assert verdict(engine, MONTH_YEAR, "2013-02-01", "02/2013") == (
        "wrong_value", "2013-02-01", "2013-02")
    assert verdict(engine, MONTH_YEAR, "2013-02-01", "02/2013", "2.0")[0] == "correct"


def test_a_year_read_by_a_year_format_is_a_year(engine):
    assert verdict(engine, YEAR_ONLY, "2013", "2013") == ("correct", "2013", "2013")


def test_a_bare_year_is_read_only_by_a_format_holding_percent_y(engine):
    """Silent in the spec: ISO 8601's year-only form is not read as a date (docs/SCORING.md)."""
    assert verdict(engine, DATE, "2013", "2013") == ("correct", "~2013", "~2013")


@pytest.mark.parametrize(("written", "year"), [("01/01/69", "1969"), ("01/01/68", "2068"),
                                               ("01/01/00", "2000"), ("01/01/99", "1999")])
def test_a_two_digit_year_pivots_at_69_whatever_the_day(engine, written, year):
    iso = f"{year}-01-01"
    assert verdict(engine, SHORT_YEAR, iso, written) == ("correct", iso, iso)


# ----- §5 schema ----------------------------------------------------------------------

PATTERNED = {"type": "object", "properties": {"total": NUMBER},
             "patternProperties": {"^tax_": NUMBER, "^t": TEXT},
             "additionalProperties": False}


def test_a_pattern_property_is_scored_with_its_subschema(engine):
    doc = engine.score({"total": 5, "tax_vat": "7.0"}, PATTERNED, {"total": 5, "tax_vat": 7})
    assert [(v.address, v.kind, v.label_canon) for v in doc.verdicts] == [
        ("total", "correct", "5"), ("tax_vat", "correct", "7")]


def test_a_member_takes_the_first_pattern_it_matches_in_schema_order(engine):
    doc = engine.score({"tax_a": "7"}, PATTERNED, {"tax_a": 7})
    assert doc.fields["tax_a"].tp == 1  # "^tax_" (a number), not "^t" (text)


def test_pattern_members_follow_the_properties_sorted_as_text(engine):
    """Silent in the spec: members of patterns come after the declared ones, in code
    point order of their names, from label and result together (docs/SCORING.md)."""
    label = {"tb": "x", "ta": "y", "total": 1}
    doc = engine.score({"ta": "y", "tc": "z"}, PATTERNED, label)
    assert [(v.address, v.kind) for v in doc.verdicts] == [
        ("total", "missing"), ("ta", "correct"), ("tb", "missing"), ("tc", "hallucinated")]


def test_items_whose_only_match_is_a_fuzzy_pattern_member_are_paired(engine):
    """A pair is a candidate when any leaf can be correct, pattern members included: a
    fuzzy member read through a pattern makes the item unhashable, so candidates are not
    found by equal keys alone (else these two items would be a miss and an extra)."""
    schema = {"type": "object", "properties": {"rows": {"type": "array", "items": {
        "type": "object", "properties": {"n": NUMBER},
        "patternProperties": {"^name_": {"type": "string", "x-leafscore": {
            "compare": "fuzzy", "threshold": 0.9}}}}}}}
    label = {"rows": [{"n": 1, "name_a": "acme corporation"}, {"n": 2, "name_a": "zeta"}]}
    result = {"rows": [{"n": 3, "name_a": "acme corporatoin"}]}
    doc = engine.score(result, schema, label)
    assert [(v.address, v.kind) for v in doc.verdicts] == [
        ("rows[0].n", "wrong_value"), ("rows[0].name_a", "correct"), ("rows[1].n", "missing"),
        ("rows[1].name_a", "missing")]
    assert doc.value == 0.25


def test_pattern_members_of_array_items_are_scored_and_paired(engine):
    """Items with pattern members are no flat columns (the fast engine's column path
    reads declared properties only): each member is scored, and pairs found by them."""
    schema = {"type": "object", "properties": {"rows": {"type": "array", "items": {
        "type": "object", "properties": {"n": NUMBER}, "patternProperties": {"^name_": TEXT}}}}}
    label = {"rows": [{"n": 1, "name_a": "acme"}, {"n": 2, "name_b": "zeta"}]}
    result = {"rows": [{"n": 2, "name_b": "zeta"}, {"n": 9, "name_a": "acme"}]}
    doc = engine.score(result, schema, label)
    assert [(v.address, v.kind) for v in doc.verdicts] == [
        ("rows[0].n", "wrong_value"), ("rows[0].name_a", "correct"), ("rows[1].n", "correct"),
        ("rows[1].name_b", "correct")]


def test_version_2_0_ignores_pattern_properties(engine):
    doc = engine.score({"total": 5, "tax_vat": 8}, PATTERNED, {"total": 5, "tax_vat": 7},
                       version="2.0")
    assert [v.address for v in doc.verdicts] == ["total"]


def test_a_pattern_that_does_not_compile_is_a_schema_error_at_its_pointer(engine):
    schema = {"type": "object", "patternProperties": {"(": TEXT}}
    with pytest.raises(scorer.ScoringError) as caught:
        engine.score({}, schema, {})
    assert caught.value.pointer == "/patternProperties/("


@pytest.mark.parametrize(("options", "pointer"), [
    ({"compare": "fuzzy", "threshold": 0}, "/properties/v/x-leafscore"),
    ({"abs_tol": -1}, "/properties/v/x-leafscore"),
    ({"rel_tol": float("nan")}, "/properties/v/x-leafscore"),
    ({"rel_tol": 1.5}, "/properties/v/x-leafscore")])
def test_an_option_out_of_range_is_a_schema_error_naming_its_pointer(engine, options, pointer):
    schema = {"type": "object", "properties": {"v": {"type": "string", "x-leafscore": options}}}
    with pytest.raises(scorer.ScoringError) as caught:
        engine.score({"v": "a"}, schema, {"v": "b"})
    assert caught.value.pointer == pointer


def test_version_2_0_keeps_a_threshold_of_0_which_makes_every_text_similar(engine):
    leaf = {"type": "string", "x-leafscore": {"compare": "fuzzy", "threshold": 0}}
    assert verdict(engine, leaf, "a", "b", "2.0") == ("correct", "a", "b")


# ----- §6 alternative readings --------------------------------------------------------

READINGS = {"$anyOf": ["MOPP", "MCPP"]}


def test_a_result_equal_to_any_reading_is_correct(engine):
    assert verdict(engine, TEXT, READINGS, "MCPP") == ("correct", "mcpp", "mcpp")


def test_a_result_equal_to_no_reading_is_judged_against_the_first(engine):
    assert verdict(engine, TEXT, READINGS, "XXXX") == ("wrong_value", "mopp", "xxxx")


def test_a_result_unreadable_under_the_first_reading_is_a_type_error(engine):
    assert verdict(engine, NUMBER, {"$anyOf": [5, 6]}, "y") == ("type_error", "5", None)


def test_an_empty_result_against_readings_is_missing(engine):
    assert verdict(engine, TEXT, READINGS, None) == ("missing", None, None)


def test_an_empty_result_against_an_empty_reading_is_a_correct_absence(engine):
    assert verdict(engine, TEXT, {"$anyOf": ["MOPP", None]}, None) == (
        "correct_absence", None, None)


def test_readings_that_are_all_empty_state_nothing(engine):
    assert verdict(engine, TEXT, {"$anyOf": [None, ""]}, "x") == ("hallucinated", None, None)


def test_the_verdict_shows_the_readings_as_the_label_wrote_them(engine):
    schema = {"type": "object", "properties": {"v": TEXT}}
    doc = engine.score({"v": "MCPP"}, schema, {"v": READINGS})
    assert doc.verdicts[0].label == {"$anyOf": ["MOPP", "MCPP"]}


def test_versions_2_0_and_1_0_read_readings_as_an_ordinary_object(engine):
    assert verdict(engine, TEXT, READINGS, "MCPP", "2.0") == (
        "wrong_value", '{"$anyOf":["MOPP","MCPP"]}', '"MCPP"')


def test_readings_count_as_correct_when_pairing_array_items(engine):
    schema = {"type": "object", "properties": {"rows": {"type": "array", "items": {
        "type": "object", "properties": {"code": TEXT, "qty": NUMBER}}}}}
    label = {"rows": [{"code": {"$anyOf": ["MOPP", "MCPP"]}, "qty": 1}, {"code": "ZZ", "qty": 2}]}
    result = {"rows": [{"code": "ZZ", "qty": 2}, {"code": "MCPP", "qty": 1}]}
    doc = engine.score(result, schema, label)
    assert doc.value == 1.0
    assert [v.address for v in doc.verdicts] == ["rows[0].code", "rows[0].qty",
                                                 "rows[1].code", "rows[1].qty"]
