"""Schema lint (issue 24, item 2): typos a metaschema accepts, warned by `leafscore validate`
with the pointer and a suggestion; errors under --strict."""

from __future__ import annotations

from cli_helpers import REPO, invoke, make_benchmark, private_cache

from leafscore.lint import Finding, lint_schema

__all__ = ["private_cache"]

UNREAD = "not JSON Schema 2020-12 vocabulary nor an x- extension, so neither validation " \
    "nor scoring reads it"


def lint_lines(tmp_path, schema, label=None, *args):
    """The schema lines `leafscore validate` prints, and its exit code."""
    root = make_benchmark(tmp_path, {"d": label or {}}, {"s": {"d": {}}}, schema=schema)
    result = invoke("validate", root, *args)
    lines = result.stdout.splitlines() + [  # errors on stdout, warnings on stderr
        line.removeprefix("leafscore: ") for line in result.stderr.splitlines()]
    return [line for line in lines if "schemas/" in line], result.exit_code


def obj(**properties):
    return {"type": "object", "properties": properties}


def test_typ_is_an_unknown_keyword_with_type_suggested(tmp_path):
    lines, code = lint_lines(tmp_path, obj(total={"typ": "number"}))
    assert lines == ['warning: schemas/d.json#/properties/total/typ: unknown keyword "typ": '
                     f'{UNREAD} (did you mean "type"?)']
    assert code == 0


def test_propertes_is_an_unknown_keyword_with_properties_suggested(tmp_path):
    schema = {"type": "object", "propertes": {"total": {"type": "number"}}}
    lines, _ = lint_lines(tmp_path, schema)
    assert lines == ['warning: schemas/d.json#/propertes: unknown keyword "propertes": '
                     f'{UNREAD} (did you mean "properties"?)']


def test_format_data_is_an_unknown_format_with_date_suggested(tmp_path):
    lines, _ = lint_lines(tmp_path, obj(due={"type": "string", "format": "data"}))
    assert lines == ['warning: schemas/d.json#/properties/due/format: unknown format "data": '
                     "not a format of JSON Schema 2020-12 nor one python-jsonschema checks, so "
                     'the field is read by its type alone (did you mean "date"?)']


def test_a_stray_ref_member_of_properties_is_a_field_name_with_its_place_suggested(tmp_path):
    schema = {"type": "object", "$defs": {"party": {"type": "object"}},
              "properties": {"name": {"type": "string"}, "$ref": {"type": "string"}}}
    lines, _ = lint_lines(tmp_path, schema)
    assert lines == ['warning: schemas/d.json#/properties/$ref: "$ref" is a member of '
                     '"properties" here, so it names a field called "$ref", not the keyword '
                     '(did you mean "$ref" beside "properties", one level up?)']


def test_properties_under_a_string_type_cannot_apply(tmp_path):
    schema = obj(vendor={"type": "string", "properties": {"name": {"type": "string"}}})
    lines, _ = lint_lines(tmp_path, schema)
    assert lines == ['warning: schemas/d.json#/properties/vendor/properties: "properties" '
                     'applies only to objects and "type" here is "string", so neither '
                     'validation nor scoring reads it (did you mean "type": "object"?)']


def test_items_outside_an_array_cannot_apply(tmp_path):
    schema = obj(lines={"type": "object", "items": {"type": "string"}})
    lines, _ = lint_lines(tmp_path, schema)
    assert lines == ['warning: schemas/d.json#/properties/lines/items: "items" applies only '
                     'to arrays and "type" here is "object", so neither validation nor '
                     'scoring reads it (did you mean "type": "array"?)']


def test_strict_makes_each_finding_an_error_and_exits_1(tmp_path):
    lines, code = lint_lines(tmp_path, obj(total={"typ": "number"}), None, "--strict")
    assert code == 1
    assert lines == ['error: schemas/d.json#/properties/total/typ: unknown keyword "typ": '
                     f'{UNREAD} (did you mean "type"?)']


def test_strict_on_a_schema_with_no_finding_exits_0(tmp_path):
    lines, code = lint_lines(tmp_path, obj(total={"type": "number"}), None, "--strict")
    assert (lines, code) == ([], 0)


def test_findings_are_listed_in_json_format_with_level_file_and_pointer(tmp_path):
    import json

    root = make_benchmark(tmp_path, {"d": {}}, {"s": {"d": {}}}, schema=obj(t={"typ": "x"}))
    listing = json.loads(invoke("validate", root, "--format", "json").stdout)["problems"]
    assert [(p["level"], p["file"], p["pointer"]) for p in listing] == [
        ("warning", "schemas/d.json", "/properties/t/typ")]


def test_x_extensions_and_x_leafscore_are_known():
    schema = obj(total={"type": "number", "x-leafscore": {"abs_tol": 0.01},
                        "x-source": "page 1"})
    assert lint_schema(schema) == []


def test_keyword_names_inside_values_and_field_names_are_not_linted():
    schema = {"type": "object", "properties": {
        "typ": {"type": "string", "enum": ["typ"], "default": {"propertes": 1}},
        "code": {"const": {"typ": 1}, "examples": [{"items": 2}], "x-notes": {"typ": 3}}}}
    assert lint_schema(schema) == []


def test_a_typo_is_found_under_ref_targets_and_combinators():
    schema = {"$defs": {"money": {"typ": "number"}},
              "anyOf": [{"type": "object", "properties": {"a": {"$ref": "#/$defs/money"}}},
                        {"not": {"formt": "date"}}],
              "items": {"type": "string", "patern": "x"}}
    assert [f.pointer for f in lint_schema(schema)] == [
        "/$defs/money/typ", "/anyOf/1/not/formt", "/items/patern"]


def test_the_schemas_draft_decides_the_vocabulary_and_another_drafts_keyword_is_named():
    schema = {"$schema": "http://json-schema.org/draft-07/schema#",
              "type": "array", "prefixItems": [{"type": "string"}]}
    assert lint_schema(schema) == [Finding(
        "/prefixItems", 'keyword "prefixItems" belongs to JSON Schema 2020-12, not to the '
        "draft-07 this schema is read as, so neither validation nor scoring reads it (did "
        'you mean "items"?)')]


def test_defs_in_an_older_draft_is_known_as_a_ref_target():
    schema = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
              "$defs": {"m": {"type": "number"}}, "properties": {"n": {"$ref": "#/$defs/m"}}}
    assert lint_schema(schema) == []


def test_a_keyword_in_another_case_suggests_its_spelling():
    found = lint_schema({"type": "object", "additionalproperties": False})
    assert [f.message.rsplit(" (", 1)[1] for f in found] == [
        'did you mean "additionalProperties"?)']


def test_an_integer_admits_number_keywords_and_a_nullable_string_a_format():
    schema = obj(n={"type": "integer", "minimum": 0},
                 d={"type": ["string", "null"], "format": "date"})
    assert lint_schema(schema) == []


def test_a_format_under_a_number_type_cannot_apply():
    found = lint_schema(obj(n={"type": "number", "format": "date"}))
    assert [f.pointer for f in found] == ["/properties/n/format"]
    assert found[0].message.endswith('(did you mean "type": "string"?)')


def test_a_keyword_beside_ref_in_draft_07_is_named_since_validation_ignores_it():
    schema = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
              "definitions": {"m": {"type": "number"}},
              "properties": {"a": {"$ref": "#/definitions/m", "type": "string",
                                   "description": "read by no one"}}}
    assert lint_schema(schema) == [Finding(
        "/properties/a/type", '"type" stands beside "$ref", which JSON Schema draft-07 '
        "validation ignores while scoring reads it (spec 2.0 §7) (did you mean to put the "
        '"$ref" in an "allOf"?)')]


def test_a_keyword_beside_ref_in_2020_12_applies_and_is_not_named():
    schema = {"$defs": {"m": {"type": "number"}},
              "properties": {"a": {"$ref": "#/$defs/m", "minimum": 0}}}
    assert lint_schema(schema) == []


def test_an_extension_close_to_x_leafscore_is_named_as_its_typo():
    schema = obj(a={"type": "string", "x-leafscor": {"compare": "fuzzy"}, "x-source": 1})
    assert lint_schema(schema) == [Finding(
        "/properties/a/x-leafscor", 'extension "x-leafscor" is not "x-leafscore", so scoring '
        'does not read it (did you mean "x-leafscore"?)')]


def test_a_labels_dollar_anyof_in_a_schema_is_unknown_with_anyof_suggested():
    found = lint_schema(obj(a={"$anyOf": [{"type": "string"}]}))
    assert [(f.pointer, f.message.rsplit(" (", 1)[1]) for f in found] == [
        ("/properties/a/$anyOf", 'did you mean "anyOf"?)')]


def test_a_format_in_another_case_suggests_its_spelling():
    found = lint_schema(obj(a={"type": "string", "format": "Date"}))
    assert [f.message.rsplit(" (", 1)[1] for f in found] == ['did you mean "date"?)']


def test_the_shipped_sample_has_no_finding():
    result = invoke("validate", REPO, "--strict")
    assert result.exit_code == 0
    assert "unknown" not in result.stdout + result.stderr


def test_docubench_has_only_its_six_root_name_keywords(shared):
    result = invoke("validate", shared / "docubench", "--warnings", "all")
    found = [line.split(": ")[2] for line in result.stderr.splitlines()
             if "unknown keyword" in line or "applies only" in line or "unknown format" in line]
    assert found == [f"schemas/{doc}.json#/name" for doc in (
        "7ZhgzAzp", "FiFgt4a6", "UnG6cLfP", "WnxX1Buq", "bjBNmyNw", "iTruRDrG")]
    assert result.exit_code == 0
