"""Messages a person reads (issue 24, item 8): an unresolvable `$ref` names its pointer and
target only; folder errors name the root they looked in; `explain` ends with the
benchmark's signature; percent wherever a person reads a score (fractions in JSON);
`scorer.py RESULT SCHEMA LABEL --details` prints a table of verdicts."""

from __future__ import annotations

import json
import subprocess
import sys

from cli_helpers import REPO, invoke, make_benchmark, private_cache

__all__ = ["private_cache"]

#: A schema with a `$ref` to nothing and a long description the message must not dump.
BROKEN_REF = {"type": "object", "properties": {
    "a": {"$ref": "#/$defs/nope"},
    "b": {"type": "string", "description": "LONG-DESCRIPTION " * 20}}}
REF_ERROR = ("schemas/d.json#/properties/a/$ref: $ref '#/$defs/nope' cannot be resolved "
             "(nothing at '/$defs/nope' in this schema)")


def broken_ref(tmp_path):
    return make_benchmark(tmp_path, {"d": {"a": "x"}}, {"s": {"d": {"a": "x"}}},
                          schema=BROKEN_REF)


def scorer_py(*args, cwd=None):
    return subprocess.run([sys.executable, str(REPO / "scorer.py"), *map(str, args)],
                          capture_output=True, text=True, cwd=cwd)


def test_validate_names_an_unresolvable_ref_once_by_pointer_and_target(tmp_path):
    result = invoke("validate", broken_ref(tmp_path))
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [f"error: {REF_ERROR}", "1 error(s), 0 warning(s)"]


def test_score_names_an_unresolvable_ref_without_the_schema(tmp_path):
    result = invoke("score", broken_ref(tmp_path), "--version", "2.1")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == f"leafscore: error: {REF_ERROR}"
    assert "LONG-DESCRIPTION" not in result.stderr


def test_scorer_py_names_an_unresolvable_ref_without_the_schema(tmp_path):
    broken_ref(tmp_path)
    outcome = scorer_py(".", cwd=tmp_path)
    assert outcome.returncode == 2
    assert outcome.stderr == f"scorer.py: {REF_ERROR}\n"


def test_a_ref_outside_the_schema_says_only_local_references_resolve(tmp_path):
    schema = {"type": "object", "properties": {"a": {"$ref": "other.json#/a"}}}
    root = make_benchmark(tmp_path, {"d": {"a": "x"}}, {"s": {"d": {"a": "x"}}}, schema=schema)
    result = invoke("validate", root)
    assert ("error: schemas/d.json#/properties/a/$ref: $ref 'other.json#/a' cannot be "
            "resolved (only references inside this schema are resolved)") in result.stdout


def test_a_missing_labels_folder_names_the_root_looked_in(tmp_path):
    result = invoke("score", tmp_path)
    assert result.exit_code == 2
    assert result.stderr == (
        f"leafscore: error: labels/: folder is missing in the benchmark folder {tmp_path} "
        "(expected schemas/, labels/ and results/<system>/ there)\n")


def test_a_relative_root_is_named_with_where_it_lies(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = invoke("leaderboard")
    assert f"in the benchmark folder . ({tmp_path})" in result.stderr


def test_no_system_folder_names_the_root_looked_in(tmp_path):
    root = make_benchmark(tmp_path, {"d": {"a": "x"}}, {})
    result = invoke("score", root)
    assert result.stderr.splitlines()[-1] == (
        f"leafscore: error: results/: no system folders to score in the benchmark folder "
        f"{root} (expected results/<system>/<id>.json there)")


def test_scorer_py_names_the_folder_it_looked_in(tmp_path):
    outcome = scorer_py(cwd=tmp_path)
    assert outcome.returncode == 2
    assert outcome.stderr == (f"scorer.py: labels/: folder is missing (looked in {tmp_path}; "
                              "expected schemas/, labels/ and results/<system>/ there)\n")


def test_a_named_metadata_file_that_is_missing_names_where_it_was_looked_for(tmp_path):
    root = make_benchmark(tmp_path, {"d": {"a": "x"}}, {"s": {"d": {"a": "x"}}},
                          config='metadata = "nope.json"\n')
    result = invoke("score", root)
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == (
        "leafscore: error: nope.json: metadata file is missing (named by the config's "
        f"`metadata`; looked in {root})")


def test_explain_ends_with_the_benchmarks_signature():
    explained = invoke("explain", "inv-001", REPO, "--system", "cobalt", "--quiet")
    scored = invoke("score", REPO, "--quiet")
    assert explained.stdout.splitlines()[-1] == scored.stdout.splitlines()[-1]
    assert explained.stdout.splitlines()[-1] == (
        "leafscore:2.0|match:optimal|opts:621a0907|schemas:c6bae7bf007f|labels:865ad3c3957d|"
        "bs:1000|seed:12345|tool:0.1.0")


def test_explain_json_carries_the_benchmarks_signature_too():
    explained = json.loads(invoke("explain", "inv-001", REPO, "--system", "cobalt",
                                  "--format", "json").stdout)
    scored = json.loads(invoke("score", REPO, "--format", "json").stdout)
    assert explained["signature"] == scored["signature"]


def test_gate_prints_a_passing_score_in_percent():
    result = invoke("gate", REPO, "--system", "atlas", "--min-score", "0.95")
    assert result.stdout.startswith("gate: atlas passes (score 98.9% >= 95%); leafscore:2.0|")


def test_gate_names_every_field_minimum_it_applied_in_the_pass_line():
    result = invoke("gate", REPO, "--system", "atlas", "--min-score", "0.95",
                    "--field-min", "total=0.9", "--field-min", "line_items[].amount=0.5")
    assert result.exit_code == 0
    assert result.stdout.startswith(
        "gate: atlas passes (score 98.9% >= 95%, field total: F1 100.0% >= 90%, "
        "field line_items[].amount: F1 100.0% >= 50%); leafscore:2.0|")


def test_gate_with_field_minimums_only_names_them_in_the_pass_line():
    result = invoke("gate", REPO, "--system", "atlas", "--field-min", "total=0.9")
    assert result.stdout.startswith(
        "gate: atlas passes (field total: F1 100.0% >= 90%); leafscore:2.0|")


def test_gate_prints_a_minimum_of_negative_zero_as_0_percent():
    result = invoke("gate", REPO, "--system", "atlas", "--min-score", "-0.0")
    assert result.stdout.startswith("gate: atlas passes (score 98.9% >= 0%); leafscore:2.0|")


def test_gate_prints_each_failure_in_percent():
    result = invoke("gate", REPO, "--system", "beacon", "--min-score", "0.95",
                    "--field-min", "line_items[].amount=0.99")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[:2] == [
        "FAIL beacon: score 86.5% is below the minimum 95%",
        "FAIL beacon: field line_items[].amount: F1 88.9% is below the minimum 99%"]


def test_diff_names_its_tolerance_in_points():
    result = invoke("diff", REPO, "--base", "atlas", "--head", "drift",
                    "--fail-on-regression", "--tolerance", "0.01")
    assert result.exit_code == 1
    assert "leafscore: regression: drift is below atlas by more than 1 point, significant" \
        in result.stderr


def test_scorer_py_details_prints_a_table_of_verdicts():
    paths = ("results/beacon/inv-001.json", "schemas/inv-001.json", "labels/inv-001.json")
    outcome = scorer_py(*paths, "--details", cwd=REPO)
    assert outcome.returncode == 0
    lines = outcome.stdout.splitlines()
    assert lines[0] == ("results/beacon/inv-001.json: accuracy 88.64% (scoring version 2.1); "
                        "45 leaves: correct 39, correct_absence 1, missing 5")
    assert lines[2].split() == ["leaf", "label", "result", "verdict"]
    assert lines[4].split() == ["invoice_number", '"INV-2024-0318"', '"INV-2024-0318"',
                                "correct"]
    assert len(lines) == 2 + 2 + 45 + 2  # the head, the table, the note
    assert len(outcome.stdout) < 6000


def test_scorer_py_details_as_json_with_format_json():
    paths = ("results/beacon/inv-001.json", "schemas/inv-001.json", "labels/inv-001.json")
    outcome = scorer_py(*paths, "--details", "--format", "json", cwd=REPO)
    detailed = json.loads(outcome.stdout)
    assert len(detailed["verdicts"]) == 45 and detailed["accuracy"] == 39 / 44
