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


def test_an_empty_gold_file_stops_score_and_leaderboard_naming_it(tmp_path):
    write_json(tmp_path / "schema.json", FLAT)
    gold = jsonl(tmp_path / "gold.jsonl", [])
    pred = jsonl(tmp_path / "pred.jsonl", ['{"id": "d1", "a": "x"}'])
    stopped = {}
    for command in ("score", "leaderboard"):
        result = invoke(command, "--gold", gold, "--pred", pred, "--schema",
                        tmp_path / "schema.json", "--no-cache")
        stopped[command] = (result.exit_code, result.stderr.splitlines()[-1])
    line = f"leafscore: error: {gold}: no gold lines (each line a JSON object with its id)"
    assert stopped == {"score": (2, line), "leaderboard": (2, line)}


def test_validate_names_an_empty_gold_file_as_an_error(tmp_path):
    write_json(tmp_path / "schema.json", FLAT)
    gold = jsonl(tmp_path / "gold.jsonl", [])
    pred = jsonl(tmp_path / "pred.jsonl", ['{"id": "d1", "a": "x"}'])
    result = invoke("validate", "--gold", gold, "--pred", pred, "--schema",
                    tmp_path / "schema.json")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f"error: {gold}: no gold lines (each line a JSON object with its id)",
        "1 error(s), 0 warning(s)"]


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


# ------------------------------------------------------------------------------------
# Parity with folder mode (issue 24, item 5): validate, metadata, breakdowns
# ------------------------------------------------------------------------------------

EXAMPLE = ("--gold", "examples/jsonl/gold.jsonl", "--schema", "examples/jsonl/schema.json",
           "--pred", "atlas=examples/jsonl/atlas.jsonl",
           "--pred", "drift=examples/jsonl/drift.jsonl")


def example(*args):
    """``args`` with the paths of the shipped examples made absolute."""
    return tuple(_in_repo(a) if a.startswith(("examples/", "atlas=", "drift=")) else a
                 for a in args)


def _in_repo(value):
    from cli_helpers import REPO

    name, sep, path = value.partition("=")
    return f"{name}={REPO / path}" if sep else str(REPO / value)


def test_validate_takes_gold_pred_schema_and_says_what_score_will_do():
    result = invoke("validate", *example(*EXAMPLE))
    assert result.exit_code == 0
    assert result.stdout == "0 error(s), 3 warning(s)\n"
    assert result.stderr.splitlines() == [
        "leafscore: warning: drift.jsonl:2: data given as text holding JSON in a markdown "
        "code fence: decoded",
        "leafscore: warning: drift.jsonl:3: envelope status is 'failed', not 'ok' "
        "(parse failure)",
        "leafscore: warning: drift.jsonl:5:line 1 column 51: Expecting value (parse failure)"]


def test_validate_in_jsonl_mode_lists_every_label_violation(tmp_path):
    write_json(tmp_path / "schema.json", FLAT)
    result = invoke("validate", "--gold", jsonl(tmp_path / "gold.jsonl", [
        '{"id": "d1", "a": 1}', '{"id": "d2", "a": "x", "b": ["y"]}']),
        "--pred", jsonl(tmp_path / "pred.jsonl", ['{"id": "d1", "a": "x"}']),
        "--schema", tmp_path / "schema.json")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "error: gold.jsonl:1#/a: 1 is not of type 'string' (schema "
        "schema.json#/properties/a/type)",
        "error: gold.jsonl:2#/b: ['y'] is not of type 'string' (schema "
        "schema.json#/properties/b/type)",
        "2 error(s), 1 warning(s)"]
    assert "pred.jsonl: no line for document 'd2': missing result" in result.stderr


def test_validate_in_jsonl_mode_names_a_gold_line_without_an_id(tmp_path):
    write_json(tmp_path / "schema.json", FLAT)
    result = invoke("validate", "--gold", jsonl(tmp_path / "gold.jsonl", ['{"a": "x"}']),
                    "--pred", jsonl(tmp_path / "pred.jsonl", ['{"id": "d1", "a": "x"}']),
                    "--schema", tmp_path / "schema.json")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == (
        f"error: {tmp_path / 'gold.jsonl'}:line 1: no string or integer 'id' member")


def test_validate_refuses_config_in_folder_mode(tmp_path):
    result = invoke("validate", "--config", tmp_path / "benchmark.toml")
    assert result.exit_code == 2
    assert "--config goes with JSONL mode" in result.stderr


def metadata_config(tmp_path, metadata, extra=""):
    (tmp_path / "meta.json").write_text(json.dumps(metadata), encoding="utf-8")
    config = tmp_path / "bench.toml"
    config.write_text(f'metadata = "meta.json"\nscoring_version = "2.1"\n{extra}',
                      encoding="utf-8")
    return config


FTYPES = [{"doc_id": "r-001", "ftype": "pdf", "lang": "en"},
          {"doc_id": "r-002", "ftype": "photo", "lang": "en"},
          {"doc_id": "r-003", "ftype": "pdf", "lang": "de"},
          {"doc_id": "r-004", "ftype": "photo", "lang": "en"},
          {"doc_id": "r-005", "ftype": "pdf", "lang": "en"}]


def test_config_metadata_gives_breakdowns_in_jsonl_mode(tmp_path):
    config = metadata_config(tmp_path, FTYPES, 'breakdowns = ["ftype"]\n')
    result = invoke("leaderboard", *example(*EXAMPLE), "--config", config)
    assert result.exit_code == 0, result.stderr
    assert "### By ftype (score %)" in result.stdout
    assert "### By lang" not in result.stdout  # breakdowns chose ftype only
    rows = [line.split("|")[1:4] for line in result.stdout.splitlines()
            if line.startswith(("| pdf", "| photo"))]
    assert [[c.strip() for c in row] for row in rows] == [["pdf", "3", "100.00"],
                                                         ["photo", "2", "100.00"]]


def test_config_metadata_without_breakdowns_uses_the_default_columns(tmp_path):
    config = metadata_config(tmp_path, FTYPES)
    result = invoke("leaderboard", *example(*EXAMPLE), "--config", config)
    assert "### By ftype (score %)" in result.stdout and "### By lang (score %)" in result.stdout


def test_a_missing_metadata_file_is_exit_2_in_jsonl_mode(tmp_path):
    config = tmp_path / "bench.toml"
    config.write_text('metadata = "gone.json"\n', encoding="utf-8")
    result = invoke("score", *example(*EXAMPLE), "--config", config)
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == (
        "leafscore: error: gone.json: metadata file is missing (named by the config's "
        f"`metadata`; looked in {tmp_path})")


def test_a_gold_lines_members_beside_its_label_are_its_metadata(tmp_path):
    write_json(tmp_path / "schema.json", FLAT)
    gold = jsonl(tmp_path / "gold.jsonl", [
        '{"id": "d1", "label": {"a": "x"}, "lang": "en"}',
        '{"id": "d2", "label": {"a": "y"}, "lang": "de"}',
        '{"id": "d3", "label": {"a": "z"}, "lang": "en"}'])
    pred = jsonl(tmp_path / "pred.jsonl", ['{"id": "d1", "a": "x"}', '{"id": "d2", "a": "y"}',
                                          '{"id": "d3", "a": "q"}'])
    result = invoke("leaderboard", "--gold", gold, "--pred", pred, "--schema",
                    tmp_path / "schema.json", "--version", "2.1")
    assert result.exit_code == 0, result.stderr
    rows = [[c.strip() for c in line.split("|")[1:4]] for line in result.stdout.splitlines()
            if line.startswith(("| de ", "| en "))]
    assert rows == [["de", "1", "100.00"], ["en", "2", "50.00"]]


def test_the_metadata_file_is_an_input_no_output_may_replace(tmp_path):
    config = metadata_config(tmp_path, FTYPES)
    result = invoke("leaderboard", *example(*EXAMPLE), "--config", config,
                    "--out", tmp_path / "meta.json")
    assert result.exit_code == 2
    assert json.loads((tmp_path / "meta.json").read_text()) == FTYPES


def test_a_bare_pred_path_is_named_by_its_file_stem():
    result = invoke("score", *example("--gold", "examples/jsonl/gold.jsonl", "--schema",
                                      "examples/jsonl/schema.json", "--pred",
                                      "examples/jsonl/drift.jsonl"), "--format", "json")
    assert list(json.loads(result.stdout)["systems"]) == ["drift"]
