"""`leafscore validate`: ids, schemas, labels against schemas, envelopes; errors vs warnings."""

from __future__ import annotations

import json

import pytest
from cli_helpers import FLAT, REPO, invoke, make_benchmark, private_cache, write_json

__all__ = ["private_cache"]


def test_the_shipped_sample_validates_with_no_error():
    result = invoke("validate", REPO)
    assert result.exit_code == 0, result.stdout
    assert "0 error(s)" in result.stdout


def test_docubench_validates_with_warnings_only(shared):
    result = invoke("validate", shared / "docubench")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[-1].startswith("0 error(s)")


def test_every_label_violation_is_listed_with_file_and_pointer(tmp_path):
    root = make_benchmark(tmp_path, {"d": {"a": 1, "b": ["x"]}}, {"s": {"d": {"a": "x"}}})
    result = invoke("validate", root)
    assert result.exit_code == 1
    errors = [line for line in result.stdout.splitlines() if line.startswith("error:")]
    assert [e.split(": ")[1] for e in errors] == ["labels/d.json#/a", "labels/d.json#/b"]


def test_an_invalid_schema_is_an_error_pointing_into_the_schema(tmp_path):
    schema = {"type": "object", "properties": {"a": {"type": "strin"}}}
    root = make_benchmark(tmp_path, {"d": {"a": "x"}}, {"s": {}}, schema=schema)
    result = invoke("validate", root)
    assert result.exit_code == 1
    assert "error: schemas/d.json#/properties/a/type: invalid schema" in result.stdout


@pytest.mark.parametrize("version", ["1.0", "2.0", "2.1"])
@pytest.mark.parametrize(("label", "kind"), [(None, "null"), ([], "array"), ("x", "string")])
def test_a_label_that_is_not_an_object_is_one_error_naming_the_label(tmp_path, version, label,
                                                                     kind):
    root = make_benchmark(tmp_path, {"d": label}, {"s": {"d": {"a": "x"}}})
    result = invoke("validate", root, "--version", version)
    assert result.exit_code == 1
    errors = [line for line in result.stdout.splitlines() if line.startswith("error:")]
    assert errors == [f"error: labels/d.json: the label must be a JSON object, not {kind}"]


def test_a_schema_file_holding_null_is_an_error_naming_it(tmp_path):
    root = make_benchmark(tmp_path, {"d": {"a": "x"}}, {"s": {"d": {"a": "x"}}}, schema=None)
    result = invoke("validate", root)
    assert result.exit_code == 1
    assert "error: schemas/d.json: a JSON Schema is an object or a boolean, not null" in \
        result.stdout


def test_a_label_without_a_schema_is_an_error(tmp_path):
    root = make_benchmark(tmp_path, {"d": {"a": "x"}}, {"s": {}})
    (root / "schemas" / "d.json").unlink()
    result = invoke("validate", root)
    assert result.exit_code == 1
    assert "error: labels/d.json: no schema schemas/d.json" in result.stdout


def test_a_schema_without_a_label_is_only_a_warning(tmp_path):
    root = make_benchmark(tmp_path, {"d": {"a": "x"}}, {"s": {"d": {"a": "x"}}})
    write_json(root / "schemas" / "e.json", FLAT)
    result = invoke("validate", root)
    assert result.exit_code == 0
    assert "warning: schemas/e.json: no label" in result.stderr


def test_a_missing_result_is_a_warning(tmp_path):
    root = make_benchmark(tmp_path, {"d": {"a": "x"}, "e": {"a": "y"}}, {"s": {"d": {"a": "x"}}})
    result = invoke("validate", root)
    assert result.exit_code == 0
    assert "warning: results/s/e.json: missing result" in result.stderr


def test_an_envelope_that_is_not_an_object_is_a_warning_naming_its_outcome(tmp_path):
    root = make_benchmark(tmp_path, {"d": {"a": "x"}}, {"s": {"d": b"[1, 2]"}})
    result = invoke("validate", root)
    assert result.exit_code == 0
    assert ("warning: results/s/d.json: result is a JSON array, not an object "
            "(parse failure)") in result.stderr


def test_an_envelope_that_is_not_json_is_a_warning_with_its_position(tmp_path):
    root = make_benchmark(tmp_path, {"d": {"a": "x"}}, {"s": {"d": b'{"data": {\n  "a": }'}})
    result = invoke("validate", root)
    assert result.exit_code == 0
    assert "warning: results/s/d.json:line 2 column 8" in result.stderr


def test_a_result_symlink_leaving_root_is_a_warning_that_it_is_a_parse_failure(tmp_path):
    import os

    root = make_benchmark(tmp_path / "b", {"d": {"a": "x"}}, {"s": {}})
    write_json(tmp_path / "outside.json", {"data": {"a": "x"}})
    os.symlink(tmp_path / "outside.json", root / "results" / "s" / "d.json")
    result = invoke("validate", root)
    assert result.exit_code == 0
    assert "warning: results/s/d.json" in result.stderr and "outside" in result.stderr
    assert "(parse failure)" in result.stderr


def test_no_results_folder_is_exit_2_in_validate_as_in_score(tmp_path):
    root = make_benchmark(tmp_path, {"d": {"a": "x"}}, {})
    for command in ("validate", "score", "leaderboard"):
        result = invoke(command, root)
        assert result.exit_code == 2, command
        assert "results/: no system folders to score" in result.stderr


def test_an_unknown_x_leafscore_option_is_an_error_naming_the_schema_pointer(tmp_path):
    schema = {"type": "object", "properties": {"a": {"type": "number",
                                                     "x-leafscore": {"tolerance": 1}}}}
    root = make_benchmark(tmp_path, {"d": {"a": 1}}, {"s": {"d": {"a": 1}}}, schema=schema)
    result = invoke("validate", root)
    assert result.exit_code == 1
    assert "error: schemas/d.json#/properties/a/x-leafscore: unknown x-leafscore option" \
        in result.stdout


def test_an_unknown_pinned_version_is_an_error_in_validate(tmp_path):
    root = make_benchmark(tmp_path, {"d": {"a": "x"}}, {"s": {"d": {"a": "x"}}},
                          config='scoring_version = "3.0"\n')
    result = invoke("validate", root)
    assert result.exit_code == 1
    assert "error: benchmark.toml:scoring_version: version='3.0' is not one of" in result.stdout


def test_a_bad_option_value_in_benchmark_toml_is_an_error_in_validate(tmp_path):
    root = make_benchmark(tmp_path, {"d": {"a": "x"}}, {"s": {"d": {"a": "x"}}},
                          config="[options]\nabs_tol = -1\n")
    result = invoke("validate", root)
    assert result.exit_code == 1
    assert "error: benchmark.toml:options:" in result.stdout


def test_validate_says_what_score_does_with_data_given_as_text(tmp_path):
    root = make_benchmark(tmp_path, {"d": {"a": "x"}},
                          {"s": {"d": b'{"status": "ok", "data": "not json"}'}})
    result = invoke("validate", root)
    assert "warning: results/s/d.json: data is text, not JSON (parse failure)" in result.stderr


def test_errors_go_to_stdout_and_warnings_to_stderr_then_the_tally(tmp_path):
    root = make_benchmark(tmp_path, {"d": {"a": 1}, "e": {"a": "y"}}, {"s": {"d": {"a": "x"}}})
    result = invoke("validate", root)
    assert result.stdout.splitlines() == [
        "error: labels/d.json#/a: 1 is not of type 'string' (schema "
        "schemas/d.json#/properties/a/type)",
        "1 error(s), 1 warning(s)"]
    assert result.stderr.splitlines() == [
        "leafscore: warning: results/s/e.json: missing result: scored as an empty result "
        "(shown in coverage)"]


def test_json_format_counts_errors_and_warnings(tmp_path):
    root = make_benchmark(tmp_path, {"d": {"a": 1}, "e": {"a": "y"}}, {"s": {"d": {"a": "x"}}})
    out = json.loads(invoke("validate", root, "--format", "json").stdout)
    assert (out["errors"], out["warnings"]) == (1, 1)


def test_a_missing_root_exits_2(tmp_path):
    result = invoke("validate", tmp_path / "nowhere")
    assert result.exit_code == 2
    assert "does not exist" in result.stderr


def test_score_and_leaderboard_warn_once_per_label_violating_its_schema_and_still_score(
    tmp_path,
):
    root = make_benchmark(tmp_path, {"d": {"a": 1}, "e": {"a": "y"}},
                          {"s": {"d": {"a": "1"}, "e": {"a": "y"}}})
    for command in ("score", "leaderboard"):
        result = invoke(command, root, "--no-cache")
        assert result.exit_code == 0, result.stderr
        lines = [line for line in result.stderr.splitlines() if "violate" in line]
        assert lines[0].startswith("leafscore: warning: labels/d.json: violates its schema (1 ")
        assert lines[1] == ("leafscore: warning: 1 label(s) violate their schema; "
                            "run `leafscore validate`")
        assert len(lines) == 2


def test_a_rerun_with_a_cache_reads_each_label_check_instead_of_validating_again(
    tmp_path, monkeypatch,
):
    from leafscore import api, validate

    root = make_benchmark(tmp_path, {"d": {"a": 1}, "e": {"a": "y"}},
                          {"s": {"d": {"a": "1"}, "e": {"a": "y"}}})
    cache = api.Cache(tmp_path / "cache")
    first = validate.label_warnings(api.load(root), cache)
    monkeypatch.setattr(validate, "check_label", lambda *a: pytest.fail("validated again"))
    assert validate.label_warnings(api.load(root), cache) == first
    assert first[0].startswith("labels/d.json: violates its schema (1 problem(s)")
    assert len(first) == 2


def test_an_edited_label_is_validated_again_despite_the_cache(tmp_path):
    from leafscore import api, validate

    root = make_benchmark(tmp_path, {"d": {"a": 1}}, {"s": {"d": {"a": "1"}}})
    cache = api.Cache(tmp_path / "cache")
    assert len(validate.label_warnings(api.load(root), cache)) == 2
    (root / "labels" / "d.json").write_text('{"a": "fixed"}')
    assert validate.label_warnings(api.load(root), cache) == []


BAD_KEYWORDS = [
    ({"type": "string", "pattern": "("},
     "invalid regular expression: missing ), unterminated subpattern at position 0",
     "error: schemas/d.json: cannot be applied to a label (invalid regular expression: "
     "missing ), unterminated subpattern at position 0): labels not checked against this "
     "schema"),
    ({"type": "string", "minLength": "x"},
     "TypeError: '<' not supported between instances of 'int' and 'str'",
     "error: schemas/d.json#/properties/a/minLength: invalid schema: 'x' is not of type "
     "'integer'"),
    ({"enum": 5},
     "TypeError: 'int' object is not iterable",
     "error: schemas/d.json#/properties/a/enum: invalid schema: 5 is not of type 'array'"),
]


@pytest.mark.parametrize(("field", "raised", "validated"), BAD_KEYWORDS)
def test_a_schema_keyword_jsonschema_cannot_apply_is_a_warning_when_scoring(
    tmp_path, field, raised, validated,
):
    schema = {"type": "object", "properties": {"a": field}}
    root = make_benchmark(tmp_path, {"d": {"a": "x"}}, {"s": {"d": {"a": "x"}}},
                          schema=schema)
    for workers in ("1", "2"):
        result = invoke("score", root, "--no-cache", "--workers", workers)
        assert result.exit_code == 0, result.stderr
        assert "Traceback" not in result.stderr
        lines = result.stderr.splitlines()
        assert (f"leafscore: warning: schemas/d.json: cannot be applied to a label ({raised}): "
                "labels not checked against this schema; its labels scored as they are"
                ) in lines
        assert not any("violate" in line for line in lines)  # the schema's fault, not d's
    checked = invoke("validate", root)
    assert checked.exit_code == 1
    assert "Traceback" not in checked.stderr + checked.stdout
    assert validated in (checked.stdout + checked.stderr).splitlines()
