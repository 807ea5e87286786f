"""`leafscore score --gold --pred --schema`: JSONL mode for teams without a folder."""

from __future__ import annotations

import json

from cli_helpers import FLAT, invoke, private_cache, write_json

__all__ = ["private_cache"]


def jsonl(path, lines):
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def run_jsonl(tmp_path, gold, pred, *extra):
    write_json(tmp_path / "schema.json", FLAT)
    result = invoke("score", "--gold", jsonl(tmp_path / "gold.jsonl", gold),
                    "--pred", jsonl(tmp_path / "pred.jsonl", pred),
                    "--schema", tmp_path / "schema.json", "--format", "json", *extra)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)["systems"]["pred"], result.stderr


def test_a_line_that_is_not_json_is_that_documents_parse_failure(tmp_path):
    system, _ = run_jsonl(
        tmp_path,
        ['{"id": "d1", "a": "x"}', '{"id": "d2", "a": "y"}', '{"id": "d3", "a": "z"}'],
        ['{"id": "d1", "a": "x"}', '{"id": "d2", "a": ', '{"id": "d3", "a": "z"}'],
    )
    assert system["documents"] == {"d1": 1.0, "d2": 0.0, "d3": 1.0}
    assert system["status"]["d2"] == "parse_failure"


def test_a_broken_line_without_a_readable_id_is_matched_by_line_number(tmp_path):
    system, stderr = run_jsonl(
        tmp_path, ['{"id": "d1", "a": "x"}', '{"id": "d2", "a": "y"}'],
        ['{"id": "d1", "a": "x"}', "{{{"],
    )
    assert system["status"]["d2"] == "parse_failure"
    assert "matched to gold line 2" in stderr


def test_a_result_in_a_markdown_code_fence_is_unwrapped_with_a_warning(tmp_path):
    fenced = json.dumps({"id": "d1", "prediction": '```json\n{"a": "x", "b": "y"}\n```'})
    system, stderr = run_jsonl(tmp_path, ['{"id": "d1", "a": "x", "b": "y"}'], [fenced])
    assert system["documents"] == {"d1": 1.0}
    assert "code fence" in stderr


def test_an_id_shaped_like_a_path_is_only_a_name(tmp_path):
    system, _ = run_jsonl(tmp_path, ['{"id": "../../x", "a": "x"}'],
                          ['{"id": "../../x", "a": "x"}'])
    assert system["documents"] == {"../../x": 1.0}
    assert not (tmp_path.parent.parent / "x").exists()


def test_a_gold_document_without_a_prediction_is_missing(tmp_path):
    system, _ = run_jsonl(tmp_path, ['{"id": "d1", "a": "x"}', '{"id": "d2", "a": "y"}'],
                          ['{"id": "d1", "a": "x"}'])
    assert system["status"]["d2"] == "missing"
    assert system["documents"]["d2"] == 0.0


def test_the_id_key_option_names_the_id_member(tmp_path):
    system, _ = run_jsonl(tmp_path, ['{"doc": "d1", "a": "x"}'], ['{"doc": "d1", "a": "x"}'],
                          "--id-key", "doc")
    assert system["documents"] == {"d1": 1.0}


def test_jsonl_mode_needs_all_three_files(tmp_path):
    result = invoke("score", "--gold", jsonl(tmp_path / "g.jsonl", ['{"id": "d1"}']))
    assert result.exit_code == 2
    assert "JSONL mode needs --gold, --schema and at least one --pred" in result.stderr


def test_a_gold_line_that_is_not_json_exits_2_naming_the_line(tmp_path):
    write_json(tmp_path / "schema.json", FLAT)
    result = invoke("score", "--gold", jsonl(tmp_path / "g.jsonl", ['{"id": "d1"}', "{oops"]),
                    "--pred", jsonl(tmp_path / "p.jsonl", []), "--schema", tmp_path / "schema.json")
    assert result.exit_code == 2
    assert "line 2" in result.stderr


def test_system_names_the_one_prediction_file(tmp_path):
    write_json(tmp_path / "schema.json", FLAT)
    result = invoke("score", "--gold", jsonl(tmp_path / "gold.jsonl", ['{"id": "d1", "a": "x"}']),
                    "--pred", jsonl(tmp_path / "pred.jsonl", ['{"id": "d1", "a": "x"}']),
                    "--schema", tmp_path / "schema.json", "--system", "model-b",
                    "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["systems"]["model-b"]["documents"] == {"d1": 1.0}


def test_the_same_system_named_twice_is_refused_not_silently_dropped(tmp_path):
    write_json(tmp_path / "schema.json", FLAT)
    pred = jsonl(tmp_path / "pred.jsonl", ['{"id": "d1", "a": "x"}'])
    result = invoke("score", "--gold", jsonl(tmp_path / "gold.jsonl", ['{"id": "d1"}']),
                    "--pred", pred, "--pred", pred, "--schema", tmp_path / "schema.json")
    assert result.exit_code == 2
    assert "--pred names a system twice: pred, pred" in result.stderr


def test_each_named_pred_file_is_one_system(tmp_path):
    write_json(tmp_path / "schema.json", FLAT)
    good = jsonl(tmp_path / "good.jsonl", ['{"id": "d1", "a": "x"}'])
    bad = jsonl(tmp_path / "bad.jsonl", ['{"id": "d1", "a": "y"}'])
    result = invoke("score", "--gold", jsonl(tmp_path / "gold.jsonl", ['{"id": "d1", "a": "x"}']),
                    "--pred", f"m1={good}", "--pred", f"m2={bad}", "--schema",
                    tmp_path / "schema.json", "--format", "json")
    assert result.exit_code == 0, result.stderr
    systems = json.loads(result.stdout)["systems"]
    assert {s: v["score"] for s, v in systems.items()} == {"m1": 1.0, "m2": 0.0}


def test_a_line_naming_its_id_wins_over_a_line_matched_only_by_position(tmp_path):
    # A fenced file: line 1 is "```json" (no id), line 2 names d1. Line 1 would match gold
    # line 1 (d1) by position; the line that names d1 must be the one scored.
    system, stderr = run_jsonl(
        tmp_path, ['{"id": "d1", "a": "x"}', '{"id": "d2", "a": "y"}'],
        ["```json", '{"id": "d1", "a": "x"}', '{"id": "d2", "a": "y"}', "```"],
    )
    assert system["documents"] == {"d1": 1.0, "d2": 1.0}
    assert "pred.jsonl:1: no readable 'id'" in stderr
