"""Version 2.0: the schema decides what is scored and how (spec 2.0 §2, §7 "Schema")."""

from __future__ import annotations

import pytest
from kill_timeout import killed_after

from scorer import ScoringError


def obj(**properties) -> dict:
    return {"type": "object", "properties": properties}


def kinds(doc) -> dict[str, int]:
    return {k: n for k, n in doc.counts.items() if n and k != "correct_absence"}


# --- $ref -----------------------------------------------------------------------------


def test_a_local_ref_into_defs_is_followed(engine):
    schema = {**obj(total={"$ref": "#/$defs/Money"}), "$defs": {"Money": {"type": "number"}}}
    assert engine.score({"total": "1,240.00"}, schema, {"total": 1240}).value == 1.0


def test_a_local_ref_into_definitions_is_followed(engine):
    schema = {**obj(d={"$ref": "#/definitions/D"}), "definitions": {"D": {"type": "boolean"}}}
    assert kinds(engine.score({"d": 1}, schema, {"d": True})) == {"type_error": 1}


def test_a_remote_ref_is_a_schema_error_naming_its_place(engine):
    schema = obj(a={"$ref": "https://example.com/money.json"})
    with pytest.raises(ScoringError) as caught:
        engine.score({}, schema, {}, file="s.json")
    assert caught.value.pointer == "/properties/a/$ref"
    assert caught.value.file == "s.json"


def test_an_unresolvable_local_ref_is_a_schema_error(engine):
    with pytest.raises(ScoringError, match="cannot be resolved"):
        engine.score({}, obj(a={"$ref": "#/$defs/Nope"}), {})


def test_a_ref_that_only_refers_to_itself_is_a_schema_error(engine):
    schema = {**obj(a={"$ref": "#/$defs/A"}), "$defs": {"A": {"$ref": "#/$defs/A"}}}
    with pytest.raises(ScoringError, match="refers to itself"):
        engine.score({}, schema, {})


def test_a_recursive_schema_scores_every_level_of_its_data(engine):
    node = {"type": "object", "properties": {
        "name": {"type": "string"}, "kids": {"type": "array", "items": {"$ref": "#/$defs/N"}}}}
    schema = {**obj(root={"$ref": "#/$defs/N"}), "$defs": {"N": node}}
    label = {"root": {"name": "a", "kids": [{"name": "b", "kids": [{"name": "c"}]}]}}
    result = {"root": {"name": "a", "kids": [{"name": "b", "kids": [{"name": "X"}]}]}}
    doc = engine.score(result, schema, label)
    assert kinds(doc) == {"correct": 2, "missing": 1, "extra_item": 1}


def test_keywords_beside_a_ref_override_the_target(engine):
    schema = {**obj(d={"$ref": "#/$defs/S", "format": "date"}), "$defs": {"S": {"type": "string"}}}
    assert engine.score({"d": "03/31/2024"}, schema, {"d": "2024-03-31"}).value == 1.0


def test_options_beside_a_ref_override_the_target_option_by_option(engine):
    target = {"type": "number", "x-leafscore": {"abs_tol": 1, "rel_tol": 0.5}}
    schema = {**obj(n={"$ref": "#/$defs/N", "x-leafscore": {"rel_tol": 0}}), "$defs": {"N": target}}
    assert engine.score({"n": 11}, schema, {"n": 10}).value == 1.0  # abs_tol 1 survives
    assert engine.score({"n": 12}, schema, {"n": 10}).value == 0.0  # rel_tol 0.5 does not


# --- allOf, anyOf, oneOf, type lists ---------------------------------------------------


def test_all_of_merges_its_members_properties(engine):
    schema = {"allOf": [obj(a={"type": "string"}), obj(b={"type": "number"})]}
    assert kinds(engine.score({"a": "x", "b": "2"}, schema, {"a": "x", "b": 2})) == {"correct": 2}


def test_a_nullable_any_of_is_its_one_non_null_branch(engine):
    schema = obj(n={"anyOf": [{"type": "null"}, {"type": "number"}]})
    assert engine.score({"n": "1,000"}, schema, {"n": 1000}).value == 1.0


def test_one_of_several_object_branches_merges_their_properties(engine):
    schema = obj(p={"oneOf": [obj(a={"type": "string"}), obj(b={"type": "string"})]})
    doc = engine.score({"p": {"a": "x", "b": "y"}}, schema, {"p": {"a": "x", "b": "z"}})
    assert kinds(doc) == {"correct": 1, "wrong_value": 1}


def test_a_mixed_any_of_compares_a_number_label_as_a_number(engine):
    schema = obj(v={"anyOf": [{"type": "string"}, {"type": "number"}]})
    assert engine.score({"v": "5.0"}, schema, {"v": 5}).value == 1.0


def test_a_mixed_any_of_compares_a_string_label_as_text(engine):
    schema = obj(v={"anyOf": [{"type": "string"}, {"type": "number"}]})
    assert engine.score({"v": "5.0"}, schema, {"v": "5"}).value == 0.0


def test_a_type_list_with_null_is_the_other_type_nullable(engine):
    schema = obj(d={"type": ["string", "null"], "format": "date"})
    assert engine.score({"d": "March 31, 2024"}, schema, {"d": "2024-03-31"}).value == 1.0


def test_a_type_list_of_several_types_is_compared_by_the_label_kind(engine):
    schema = obj(v={"type": ["boolean", "string"]})
    assert kinds(engine.score({"v": "TRUE"}, schema, {"v": True})) == {"correct": 1}


def test_an_enum_of_strings_without_type_is_text(engine):
    assert engine.score({"c": "eur"}, obj(c={"enum": ["EUR", "USD"]}), {"c": "EUR"}).value == 1.0


def test_an_enum_of_mixed_values_without_type_is_exact(engine):
    assert engine.score({"c": "1"}, obj(c={"enum": [1, "A", True]}), {"c": 1}).value == 0.0


def test_a_leaf_without_type_follows_the_label_value(engine):
    assert engine.score({"x": "12.0"}, obj(x={}), {"x": 12}).value == 1.0


def test_an_unknown_type_is_a_schema_error(engine):
    with pytest.raises(ScoringError, match="unknown type"):
        engine.score({}, obj(a={"type": "money"}), {})


@pytest.mark.parametrize("bad", [False, 0, ["string", 3]])
def test_a_type_that_is_not_a_string_or_list_of_strings_is_a_schema_error(engine, bad):
    with pytest.raises(ScoringError, match="type must be"):
        engine.score({}, obj(a={"type": bad}), {})


# --- which keys are scored ----------------------------------------------------------------


def test_members_outside_properties_are_not_scored_on_either_side(engine):
    doc = engine.score({"a": "x", "z": 1}, obj(a={"type": "string"}), {"a": "x", "y": 2})
    assert [v.field for v in doc.verdicts] == ["a"]


def test_an_open_map_scores_the_keys_present_on_either_side(engine):
    schema = obj(m={"type": "object", "additionalProperties": {"type": "number"}})
    doc = engine.score({"m": {"a": "1.0", "c": 3}}, schema, {"m": {"a": 1, "b": 2}})
    assert {v.field: v.kind for v in doc.verdicts} == {
        "m.a": "correct", "m.b": "missing", "m.c": "hallucinated"}


def test_open_map_values_without_a_schema_follow_the_label_kind(engine):
    schema = obj(m={"type": "object"})
    assert engine.score({"m": {"k": "1,000"}}, schema, {"m": {"k": 1000}}).value == 1.0


# --- x-leafscore ---------------------------------------------------------------------------


def test_compare_on_an_object_applies_to_every_leaf_below(engine):
    schema = obj(o={**obj(n={"type": "number"}), "x-leafscore": {"compare": "text"}})
    assert engine.score({"o": {"n": "1,240"}}, schema, {"o": {"n": 1240}}).value == 0.0


def test_a_leaf_s_own_compare_overrides_an_inherited_one(engine):
    inner = {"type": "number", "x-leafscore": {"compare": "number"}}
    schema = obj(o={**obj(n=inner), "x-leafscore": {"compare": "text"}})
    assert engine.score({"o": {"n": "1,240"}}, schema, {"o": {"n": 1240}}).value == 1.0


def test_compare_ignore_removes_the_whole_subtree(engine):
    schema = obj(a={"type": "string"}, o={**obj(n={"type": "number"}), "x-leafscore": {
        "compare": "ignore"}})
    doc = engine.score({"a": "x", "o": {"n": 2}}, schema, {"a": "x", "o": {"n": 1}})
    assert [v.field for v in doc.verdicts] == ["a"]


def test_benchmark_wide_options_are_inherited_by_every_field(engine):
    schema = obj(n={"type": "number"})
    doc = engine.score({"n": "1,5"}, schema, {"n": 1.5}, options={"decimal_separator": ","})
    assert doc.value == 1.0


def test_a_fuzzy_field_accepts_text_at_or_above_its_threshold(engine):
    schema = obj(s={"type": "string", "x-leafscore": {"compare": "fuzzy", "threshold": 0.8}})
    assert engine.score({"s": "Acme Corporatio"}, schema, {"s": "ACME Corporation"}).value == 1.0
    assert engine.score({"s": "Apex"}, schema, {"s": "ACME Corporation"}).value == 0.0


def test_a_tolerance_bound_is_inclusive_on_exact_decimals(engine):
    schema = obj(n={"type": "number", "x-leafscore": {"abs_tol": 0.01}})
    assert engine.score({"n": 10.01}, schema, {"n": 10}).value == 1.0
    assert engine.score({"n": 10.011}, schema, {"n": 10}).value == 0.0


def test_a_relative_tolerance_scales_with_the_larger_value(engine):
    schema = obj(n={"type": "number", "x-leafscore": {"rel_tol": 0.1}})
    assert engine.score({"n": 110}, schema, {"n": 100}).value == 1.0


def test_an_unknown_x_leafscore_option_is_a_schema_error_naming_it(engine):
    with pytest.raises(ScoringError, match="'tolerance'") as caught:
        engine.score({}, obj(n={"type": "number", "x-leafscore": {"tolerance": 1}}), {})
    assert caught.value.pointer == "/properties/n/x-leafscore"


def test_a_bad_compare_value_is_a_schema_error_quoting_the_choices(engine):
    with pytest.raises(ScoringError, match="'fuzzy'"):
        engine.score({}, obj(n={"x-leafscore": {"compare": "similar"}}), {})


def test_a_false_schema_is_not_scored_and_a_true_schema_is_an_untyped_leaf(engine):
    doc = engine.score({"f": "x", "t": "1.0"}, obj(f=False, t=True), {"f": "y", "t": 1})
    assert [(v.field, v.kind) for v in doc.verdicts] == [("t", "correct")]


def test_in_a_mix_with_a_date_branch_strings_are_read_as_dates(engine):
    schema = obj(d={"anyOf": [{"type": "string", "format": "date"}, {"type": "integer"}]})
    assert engine.score({"d": "March 7, 2024"}, schema, {"d": "2024-03-07"}).value == 1.0


def test_ordered_on_an_array_is_inherited_by_the_arrays_below_it(engine):
    inner = {"type": "array", "items": {"type": "string"}}
    schema = obj(m={"type": "array", "items": inner, "x-leafscore": {"ordered": True}})
    assert engine.score({"m": [["b", "a"]]}, schema, {"m": [["a", "b"]]}).value == 0.0


def test_tolerances_compare_exact_decimals_not_binary_floats(engine):
    schema = obj(n={"type": "number", "x-leafscore": {"abs_tol": 0.1}})
    assert engine.score({"n": 1.1}, schema, {"n": 1.0}).value == 1.0  # 1.1 - 1.0 > 0.1 in binary


def test_a_tolerant_field_compares_numbers_with_huge_exponents_without_overflow(engine):
    schema = obj(n={"type": "number", "x-leafscore": {"abs_tol": 1, "rel_tol": 0.1}})
    assert engine.score({"n": "-1e99999999"}, schema, {"n": 5}).value == 0.0
    assert engine.score({"n": "1e99999999"}, schema, {"n": "1.05e99999999"}).value == 1.0


# --- issue 9: no schema key reaches internal state; compilation is linear -------------


@pytest.mark.parametrize("key", ["x-leafscore-mix", "x-leafscore-dated", "x-leafscorex",
                                 "x-leafscore-anything"])
def test_a_key_beginning_with_x_leafscore_is_a_schema_error_naming_its_pointer(engine, key):
    schema = obj(d={"type": "string", "format": "date", key: True})
    with pytest.raises(ScoringError, match=repr(key)) as caught:
        engine.score({"d": "2024-03-07"}, schema, {"d": "2024-03-07"})
    assert caught.value.pointer == f"/properties/d/{key}"


def test_an_x_leafscore_prefixed_key_reached_through_a_ref_names_the_target_pointer(engine):
    schema = {**obj(d={"$ref": "#/$defs/D"}),
              "$defs": {"D": {"anyOf": [{"type": "string"}, {"type": "number"}],
                              "x-leafscore-dated": True}}}
    with pytest.raises(ScoringError) as caught:
        engine.score({"d": "7 March 2024"}, schema, {"d": "2024-03-07"})
    assert caught.value.pointer == "/$defs/D/x-leafscore-dated"


def test_a_mix_of_string_and_number_compares_dates_as_text_whatever_the_schema_says(engine):
    schema = obj(d={"anyOf": [{"type": "string"}, {"type": "number"}]})
    assert engine.score({"d": "7 March 2024"}, schema, {"d": "2024-03-07"}).value == 0.0


@pytest.mark.parametrize("value", [[], 0, "", False, None, "abs_tol"])
def test_an_x_leafscore_that_is_not_an_object_is_a_schema_error_naming_it(engine, value):
    with pytest.raises(ScoringError, match="must be an object") as caught:
        engine.score({}, obj(n={"type": "number", "x-leafscore": value}), {})
    assert caught.value.pointer == "/properties/n/x-leafscore"


@pytest.mark.parametrize("options", [{"abs_tol": "0.1"}, {"ordered": 1}, {"threshold": 2},
                                     {"decimal_separator": ";"}, {"date_formats": "%Y"}])
def test_an_ill_typed_x_leafscore_option_is_a_schema_error_naming_its_object(engine, options):
    with pytest.raises(ScoringError) as caught:
        engine.score({}, obj(n={"type": "number", "x-leafscore": options}), {})
    assert caught.value.pointer == "/properties/n/x-leafscore"


def anyof_chain(levels: int) -> dict:
    """``$defs`` nesting ``levels`` two-branch ``anyOf``s, each branch reaching the next."""
    defs = {f"L{levels}": {"type": "object", "properties": {"v": {"type": "number"}}}}
    for level in range(levels - 1, -1, -1):
        nxt = f"#/$defs/L{level + 1}"
        defs[f"L{level}"] = {"anyOf": [
            {"type": "object", "properties": {"a": {"$ref": nxt}, "v": {"type": "number"}}},
            {"type": "object", "properties": {"b": {"$ref": nxt}, "w": {"type": "string"}}},
        ]}
    return {**obj(root={"$ref": "#/$defs/L0"}), "$defs": defs}


def test_a_40_level_anyof_chain_compiles_without_expanding_its_branches():
    import scorer

    with killed_after(30):  # 2**40 branch pairs if the chain were expanded
        assert scorer.compile_schema(anyof_chain(40)) is not None


def test_a_40_level_anyof_chain_scores_its_deepest_leaf(engine):
    label = {"root": {"a": {"b": {"v": 5}}}}
    assert engine.score({"root": {"a": {"b": {"v": "5.00"}}}}, anyof_chain(40), label).value == 1.0


def test_a_40_level_chain_of_mixed_anyof_branches_compiles_without_expanding_its_branches():
    import scorer

    defs = {"L40": {"type": "string"}}
    for level in range(39, -1, -1):
        nxt = f"#/$defs/L{level + 1}"
        defs[f"L{level}"] = {"anyOf": [{"$ref": nxt}, {"allOf": [{"$ref": nxt}]}]}
    with killed_after(30):
        assert scorer.compile_schema({**obj(root={"$ref": "#/$defs/L0"}), "$defs": defs}) \
            is not None
