"""Version 2.0 documents: verdicts, counts, fields, the entry point (spec 2.0 §4, §6, §7)."""

from __future__ import annotations

import copy
import json

import pytest

import scorer
from leafscore.cells import score_from_dict
from leafscore.fields import normalize_field_path
from leafscore.signature import options_digest
from scorer import DocScore, FieldCounts, Options, ScoringError

SCHEMA = {"type": "object", "properties": {
    "vendor": {"type": "string"}, "total": {"type": "number"}, "paid": {"type": "boolean"},
    "lines": {"type": "array", "items": {"type": "object", "properties": {
        "sku": {"type": "string"}, "qty": {"type": "integer"}}}}}}
LABEL = {"vendor": "Acme, Inc.", "total": 1240, "paid": True,
         "lines": [{"sku": "A-1", "qty": 2}, {"sku": "B-2", "qty": 1}]}


def kinds(doc) -> dict[str, int]:
    return {k: n for k, n in doc.counts.items() if n and k != "correct_absence"}


def one(engine, kind_schema: dict, label, result) -> scorer.Verdict:
    schema = {"type": "object", "properties": {"x": kind_schema}}
    doc = engine.score({"x": result}, schema, {"x": label})
    (verdict,) = doc.verdicts
    return verdict


# --- verdict kinds ----------------------------------------------------------------------


def test_a_result_equal_to_its_label_scores_1(engine):
    assert engine.score(LABEL, SCHEMA, LABEL).value == 1.0


def test_a_wrong_value_counts_as_one_false_positive_and_one_false_negative(engine):
    doc = engine.score({**LABEL, "total": 1250}, SCHEMA, LABEL)
    assert (doc.fields["total"].fp, doc.fields["total"].fn) == (1, 1)


def test_an_unreadable_result_against_a_readable_label_is_a_type_error(engine):
    assert one(engine, {"type": "number"}, 5, "five").kind == "type_error"


def test_an_unreadable_result_against_an_empty_label_is_hallucinated(engine):
    assert one(engine, {"type": "number"}, None, "five").kind == "hallucinated"


def test_a_container_at_a_scalar_leaf_is_a_type_error(engine):
    assert one(engine, {"type": "string"}, "a", ["a"]).kind == "type_error"


def test_a_label_unreadable_as_its_type_is_compared_as_text_on_both_sides(engine):
    assert one(engine, {"type": "number"}, "N/A", "n/a").kind == "correct"


def test_a_label_container_at_a_scalar_leaf_is_compared_as_exact_json(engine):
    assert one(engine, {"type": "string"}, {"a": 1}, {"a": 1.0}).kind == "correct"


def test_a_missing_result_member_is_missing(engine):
    assert one(engine, {"type": "string"}, "a", None).kind == "missing"


def test_true_is_not_1_in_a_boolean_field(engine):
    assert one(engine, {"type": "boolean"}, True, 1).kind == "type_error"


def test_a_verdict_records_raw_and_canonical_values_on_both_sides(engine):
    verdict = one(engine, {"type": "number"}, 1240, "1,240.00")
    assert (verdict.label, verdict.result) == (1240, "1,240.00")
    assert (verdict.label_canon, verdict.result_canon) == ("1240", "1240")


def test_an_unreadable_date_keeps_a_tilde_prefixed_text_key(engine):
    verdict = one(engine, {"type": "string", "format": "date"}, "2024-03-31", "end of March")
    assert (verdict.kind, verdict.result_canon) == ("wrong_value", "~endofmarch")


# --- counts, fields, accuracy ----------------------------------------------------------------


def test_counts_hold_every_kind_including_zeros_and_correct_absence(engine):
    doc = engine.score(LABEL, SCHEMA, LABEL)
    assert set(doc.counts) == set(scorer.VERDICT_KINDS)
    assert doc.counts["correct"] == 7


def test_accuracy_is_correct_over_scored_verdicts(engine):
    doc = engine.score({**LABEL, "paid": False, "vendor": None}, SCHEMA, LABEL)
    assert kinds(doc) == {"correct": 5, "wrong_value": 1, "missing": 1}
    assert doc.value == 5 / 7


def test_a_document_with_nothing_to_score_scores_1(engine):
    assert engine.score({}, SCHEMA, {}).value == 1.0


def test_verdict_counts_add_up_to_the_scored_leaves(engine):
    doc = engine.score({"vendor": "x", "lines": [{"sku": "A-1"}, {"sku": "Z"}]}, SCHEMA, LABEL)
    scored = [v for v in doc.verdicts if v.kind != "correct_absence"]
    assert sum(kinds(doc).values()) == len(scored) == 8


def test_field_counts_are_sorted_by_path(engine):
    doc = engine.score(LABEL, SCHEMA, LABEL)
    assert list(doc.fields) == ["lines[].qty", "lines[].sku", "paid", "total", "vendor"]


def test_precision_recall_and_f1_are_none_for_zero_over_zero():
    counts = FieldCounts(tp=0, fp=0, fn=0)
    assert (counts.precision, counts.recall, counts.f1) == (None, None, None)


def test_f1_is_written_in_counts_so_missing_only_fields_have_f1_0_and_no_precision():
    counts = FieldCounts(tp=0, fp=0, fn=2)
    assert (counts.precision, counts.recall, counts.f1) == (None, 0.0, 0.0)


def test_f1_of_3_tp_1_fp_2_fn_is_6_over_9():
    assert FieldCounts(tp=3, fp=1, fn=2).f1 == 6 / 9


def test_both_sides_empty_at_a_container_gives_one_correct_absence_there(engine):
    doc = engine.score({"vendor": "a", "lines": [{}]}, SCHEMA, {"vendor": "a", "lines": None})
    assert [(v.address, v.kind) for v in doc.verdicts] == [
        ("vendor", "correct"), ("total", "correct_absence"),
        ("paid", "correct_absence"), ("lines", "correct_absence")]


def test_a_document_whose_label_and_result_are_both_empty_has_no_verdicts(engine):
    assert engine.score({}, SCHEMA, {"lines": []}).verdicts == ()


def test_fields_list_only_paths_with_a_scored_verdict(engine):
    assert list(engine.score({"vendor": "a"}, SCHEMA, {"vendor": "a"}).fields) == ["vendor"]


# --- parse failures ----------------------------------------------------------------------------


@pytest.mark.parametrize("result", [None, [], "oops", 3])
def test_a_result_that_is_not_an_object_is_a_parse_failure_of_every_label_leaf(engine, result):
    doc = engine.score(result, SCHEMA, LABEL)
    assert kinds(doc) == {"parse_failure": 7}
    assert doc.value == 0.0


def test_a_parse_failure_scores_0_even_when_the_label_states_nothing(engine):
    assert engine.score_parse_failure(SCHEMA, {}).value == 0.0


def test_a_parse_failure_under_1_0_is_the_score_of_an_empty_result(engine):
    assert engine.score_parse_failure(SCHEMA, LABEL, version="1.0").value == engine.score(
        {}, SCHEMA, LABEL, version="1.0").value


# --- entry point ----------------------------------------------------------------------------


def test_an_unknown_version_is_refused_quoting_value_and_choices(engine):
    with pytest.raises(ValueError, match=r"version='3\.0' is not one of '1\.0', '2\.0', '2\.1'"):
        engine.score(LABEL, SCHEMA, LABEL, version="3.0")


def test_the_default_version_is_2_1(engine):
    assert isinstance(engine.score(LABEL, SCHEMA, LABEL), DocScore)
    assert engine.score(LABEL, SCHEMA, LABEL).version == "2.1"


def test_the_version_table_names_both_versions_and_their_matching():
    assert set(scorer.VERSIONS) == set(scorer.SCORING_VERSIONS)


def test_a_label_that_is_not_an_object_is_a_scoring_error(engine):
    with pytest.raises(ScoringError, match="label must be a JSON object"):
        engine.score({}, SCHEMA, [LABEL], file="labels/x.json")


@pytest.mark.parametrize("version", ["2.0", "2.1"])
@pytest.mark.parametrize(("label", "kind"), [(None, "null"), ([LABEL], "array"), ("x", "string")])
def test_a_non_object_label_names_the_label_file_and_its_json_kind(engine, version, label, kind):
    document = engine.versions[version].document(SCHEMA, label, Options(), "schemas/x.json",
                                                 "labels/x.json")
    with pytest.raises(ScoringError) as raised:
        document.score({})
    assert (raised.value.file, raised.value.reason) == (
        "labels/x.json", f"the label must be a JSON object, not {kind}")


def test_the_matching_is_always_exact(engine):
    assert engine.score(LABEL, SCHEMA, LABEL).exact is True


def test_scoring_twice_gives_identical_output(engine):
    result = {"vendor": "ACME INC", "lines": [{"sku": "B-2", "qty": "1"}, {"sku": "a 1"}]}
    first = engine.score(result, SCHEMA, LABEL).to_dict(verdicts=True)
    again = engine.score(result, SCHEMA, LABEL).to_dict(verdicts=True)
    assert json.dumps(again) == json.dumps(first)


# --- serialization -----------------------------------------------------------------------------


def test_to_dict_has_version_accuracy_counts_and_fields(engine):
    keys = list(engine.score(LABEL, SCHEMA, LABEL).to_dict())
    assert keys == ["version", "accuracy", "counts", "fields"]


def test_stored_form_inverts_to_dict_with_verdicts_through_json(engine):
    result = {"vendor": "ACME", "total": "1.240,00", "lines": [{"sku": "A1"}]}
    doc = engine.score(result, SCHEMA, LABEL)
    again = score_from_dict(json.loads(json.dumps(doc.to_dict(verdicts=True))))
    assert again == doc


def test_a_field_serializes_its_counts_and_ratios():
    assert FieldCounts(1, 1, 0).to_dict() == {
        "tp": 1, "fp": 1, "fn": 0, "precision": 0.5, "recall": 1.0, "f1": 2 / 3}


# --- options -----------------------------------------------------------------------------------


def test_options_from_a_mapping_set_the_named_options():
    options = Options.from_mapping({"abs_tol": 0.01, "date_formats": ["%d/%m/%Y"]})
    assert (options.abs_tol, options.date_formats) == (0.01, ("%d/%m/%Y",))


def test_an_unknown_option_is_refused_by_name():
    with pytest.raises(ValueError, match="'abs_tolerance'"):
        Options.from_mapping({"abs_tolerance": 1})


@pytest.mark.parametrize("bad", [{"threshold": 1.5}, {"abs_tol": -1}, {"abs_tol": True},
                                 {"decimal_separator": ";"}, {"ordered": "yes"},
                                 {"date_formats": "%Y"}])
def test_a_bad_option_value_is_refused(bad):
    with pytest.raises(ValueError):
        Options.from_mapping(bad)


def test_options_to_dict_lists_every_resolved_option():
    assert Options().to_dict() == {
        "compare": None, "abs_tol": 0.0, "rel_tol": 0.0, "threshold": 0.9,
        "decimal_separator": ".", "date_formats": None, "ordered": False}


def test_the_options_digest_is_8_hex_digits_that_change_with_any_option():
    digest = options_digest(Options())
    assert len(digest) == 8 and int(digest, 16) >= 0
    assert options_digest(Options(abs_tol=0.01)) != digest
    assert options_digest(Options()) == digest


def test_score_accepts_options_as_a_mapping(engine):
    schema = {"type": "object", "properties": {"n": {"type": "number"}}}
    assert engine.score({"n": 10.5}, schema, {"n": 10}, options={"abs_tol": 0.5}).value == 1.0


def test_version_1_0_validates_options_but_ignores_them(engine):
    with pytest.raises(ValueError):
        engine.score(LABEL, SCHEMA, LABEL, version="1.0", options={"nope": 1})


def test_data_deeper_than_120_levels_under_a_recursive_schema_is_one_exact_json_leaf(engine):
    node = {"type": "object", "properties": {"c": {"$ref": "#/$defs/N"}, "v": {"type": "string"}}}
    schema = {"type": "object", "properties": {"c": {"$ref": "#/$defs/N"}}, "$defs": {"N": node}}
    label: dict = {"v": "end"}
    for _ in range(300):
        label = {"c": label}
    doc = engine.score(copy.deepcopy(label), schema, label)
    assert (doc.value, doc.counts["correct"]) == (1.0, 1)
    (verdict,) = [v for v in doc.verdicts if v.kind == "correct"]
    assert verdict.address.count("c") == 121 and verdict.label_canon.startswith("{")


def test_an_empty_label_of_the_wrong_kind_at_a_container_counts_as_absent(engine):
    schema = {"type": "object", "properties": {"a": {"type": "object"}, "r": {
        "type": "array", "items": {"type": "string"}}}}
    doc = engine.score({"a": {"x": 1}, "r": ["y"]}, schema, {"a": [[]], "r": {"k": None}})
    assert kinds(doc) == {"hallucinated": 1, "extra_item": 1}


# --- issue 9: field paths are unambiguous ---------------------------------------------

DOTTED = {"type": "object", "properties": {
    "a.b": {"type": "string"}, "a": {"type": "object", "properties": {"b": {"type": "string"}}}}}


def test_a_member_named_a_dot_b_and_a_nested_a_b_are_two_fields(engine):
    doc = engine.score({"a.b": "north", "a": {"b": "east"}}, DOTTED,
                       {"a.b": "north", "a": {"b": "south"}})
    assert {path: (c.tp, c.fp, c.fn) for path, c in doc.fields.items()} == {
        '["a.b"]': (1, 0, 0), "a.b": (0, 1, 1)}


@pytest.mark.parametrize("name, path", [("", 'x[""]'), ("a[0]", 'x["a[0]"]'), ("q]", 'x["q]"]'),
                                        ('say "hi"', 'x["say \\"hi\\""]'),
                                        ("back\\slash", 'x["back\\\\slash"]'),
                                        ("café", "x.café"), ("a b", "x.a b")])
def test_a_member_name_holding_a_path_character_is_quoted_with_json_escaping(engine, name, path):
    schema = {"type": "object", "properties": {"x": {"type": "object", "properties": {
        name: {"type": "string"}}}}}
    (verdict,) = engine.score({"x": {name: "v"}}, schema, {"x": {name: "v"}}).verdicts
    assert (verdict.address, verdict.field) == (path, path)


def test_an_open_map_entry_with_a_dotted_key_is_quoted_under_its_map(engine):
    schema = {"type": "object", "properties": {"m": {"type": "object"}}}
    doc = engine.score({"m": {"x.y": 1, "x": {"y": 1}}}, schema, {"m": {"x.y": 1, "x": {"y": 2}}})
    assert sorted((v.field, v.kind) for v in doc.verdicts) == [
        ("m.x", "wrong_value"), ('m["x.y"]', "correct")]


def test_a_quoted_member_inside_array_items_follows_the_item_index(engine):
    schema = {"type": "object", "properties": {"rows": {"type": "array", "items": {
        "type": "object", "properties": {"unit.price": {"type": "number"}}}}}}
    label = {"rows": [{"unit.price": 2}]}
    (verdict,) = engine.score(copy.deepcopy(label), schema, label).verdicts
    assert (verdict.address, verdict.field) == ('rows[0]["unit.price"]', 'rows[]["unit.price"]')


@pytest.mark.parametrize("given, path", [('["a.b"]', '["a.b"]'), ("a.b", "a.b"), ('["b"]', "b"),
                                         ('["a\\u002eb"].c', '["a.b"].c'),
                                         ('rows[].["unit.price"]', 'rows[]["unit.price"]'),
                                         ('m[""]', 'm[""]')])
def test_a_field_path_given_in_any_spelling_reads_as_the_scorers_own(given, path):
    assert normalize_field_path(given) == path


@pytest.mark.parametrize("given", ["a..b", '["a', 'a["b"', "a]b", ".a", "a.", "a[0]"])
def test_a_malformed_field_path_is_a_value_error(given):
    with pytest.raises(ValueError, match="field path"):
        normalize_field_path(given)


# --- issue 9: identity on faulty labels -----------------------------------------------

ROWS = {"type": "object", "properties": {"rows": {"type": "array", "items": {
    "type": "object", "properties": {"x": {"type": "number"}}}}}}


def test_a_label_with_a_wrong_kind_array_item_scored_against_itself_is_1(engine):
    label = {"rows": ["a", {"x": 1}]}
    assert engine.score(copy.deepcopy(label), ROWS, label).value == 1.0


def test_a_wrong_kind_label_item_is_dropped_so_the_result_item_is_not_missing_it(engine):
    doc = engine.score({"rows": [{"x": 1}]}, ROWS, {"rows": ["a", {"x": 1}]})
    assert kinds(doc) == {"correct": 1}


def test_a_wrong_kind_label_value_inside_flat_items_still_pairs_optimally(engine):
    schema = {"type": "object", "properties": {"rows": {"type": "array", "items": {
        "type": "object", "properties": {
            "o": {"type": "object", "properties": {"b": {"type": "number"}}},
            "c": {"type": "number"}}}}}}
    label = {"rows": [{"o": "zz", "c": 1}, {"c": 1}]}
    doc = engine.score({"rows": [{"o": "zz"}, {"c": 1}]}, schema, label)
    assert kinds(doc) == {"correct": 2, "missing": 1}
