"""`leafscore leaderboard`, `fields`, `explain`, `diff` and `gate` end to end."""

from __future__ import annotations

import json

import pytest
from cli_helpers import REPO, copy_tree, invoke, make_benchmark, private_cache

__all__ = ["private_cache"]

WIDE = {"type": "object", "properties": {f"f{i:02d}": {"type": "string"} for i in range(76)}}
LABEL = {f"f{i:02d}": f"v{i}" for i in range(76)}


def wide_benchmark(tmp_path):
    """One document of 76 leaves; system `s` gets 75 right: accuracy 75/76 = 0.98684..."""
    result = dict(LABEL, f00="wrong")
    return make_benchmark(tmp_path, {"d": LABEL}, {"s": {"d": result}}, schema=WIDE)


def test_the_leaderboard_ranks_systems_with_intervals_and_ends_with_the_signature():
    out = invoke("leaderboard", REPO).stdout
    rows = [line for line in out.splitlines() if line.startswith("|") and "---" not in line]
    assert "95% CI" in rows[0]
    assert [r.split("|")[2].strip() for r in rows[1:5]] == ["atlas", "beacon", "cobalt", "drift"]
    assert out.splitlines()[-1].startswith("leafscore:2.0|match:optimal|")


def test_the_leaderboard_breaks_down_by_the_metadata_columns():
    out = invoke("leaderboard", REPO).stdout
    assert "### By ftype" in out and "### By lang" in out


def test_docubench_1_0_leaderboard_shows_the_published_order_and_scores(shared):
    out = invoke("leaderboard", shared / "docubench", "--version", "1.0", "--format",
                 "json").stdout
    rows = json.loads(out)["rows"]
    assert [(r["system"], f"{100 * r['score']:.2f}") for r in rows] == [
        ("docupipe_high", "97.24"), ("docupipe_standard", "96.00"), ("gemini", "95.80"),
        ("gpt", "93.54"), ("extend", "92.52"), ("claude", "90.33")]


def test_fields_lists_the_worst_field_first(tmp_path):
    out = invoke("fields", wide_benchmark(tmp_path), "--system", "s", "--format", "json").stdout
    first = json.loads(out)["fields"][0]
    assert (first["field"], first["tp"], first["fp"], first["fn"]) == ("f00", 0, 1, 1)


def test_fields_under_version_1_0_exits_2_saying_it_needs_2_0():
    result = invoke("fields", REPO, "--system", "atlas", "--version", "1.0")
    assert result.exit_code == 2
    assert ("needs per-leaf verdicts, which version 1.0 does not keep; pass --version 2.1"
            in result.stderr)


def test_fields_of_an_unknown_system_exits_2():
    assert invoke("fields", REPO, "--system", "nobody").exit_code == 2


def test_explain_gives_every_leaf_with_label_result_and_verdict(tmp_path):
    out = invoke("explain", "d", wide_benchmark(tmp_path), "--system", "s", "--format",
                 "json").stdout
    verdicts = json.loads(out)["verdicts"]
    assert len(verdicts) == 76
    wrong = [v for v in verdicts if v["verdict"] != "correct"]
    assert wrong == [{"address": "f00", "field": "f00", "verdict": "wrong_value",
                      "label": "v0", "result": "wrong",
                      "label_canon": wrong[0]["label_canon"],
                      "result_canon": wrong[0]["result_canon"]}]


def test_explain_of_an_unknown_document_exits_2():
    result = invoke("explain", "no-such-doc", REPO, "--system", "atlas")
    assert result.exit_code == 2
    assert "no-such-doc" in result.stderr


def test_explain_refuses_a_document_id_holding_a_path():
    result = invoke("explain", "../labels/inv-001", REPO, "--system", "atlas")
    assert result.exit_code == 2


#: Every command taking --resamples, with the arguments it needs besides.
BOOTSTRAP_COMMANDS = [("leaderboard",), ("report",), ("explore", "--out", "x.html"),
                      ("diff", "--base", "atlas", "--head", "beacon"), ("power",),
                      ("plot", "--out", "x.png")]


@pytest.mark.parametrize("command", BOOTSTRAP_COMMANDS, ids=lambda c: c[0])
def test_fewer_than_100_resamples_are_refused_with_exit_2_naming_the_range(command):
    # 1 resample gave the sample's leader the interval [99.32, 99.32] around 98.91.
    out = invoke(command[0], REPO, *command[1:], "--resamples", "99")
    assert out.exit_code == 2
    assert "Invalid value for '--resamples': 99 is not in the range 100<=x<=100000" \
        in out.stderr


def test_at_the_fewest_resamples_every_interval_of_the_sample_holds_its_score():
    rows = json.loads(invoke("leaderboard", REPO, "--resamples", "100", "--format",
                             "json").stdout)["rows"]
    assert [r["low"] <= r["score"] <= r["high"] for r in rows] == [True] * 4


@pytest.mark.parametrize("command", [("leaderboard",),
                                     ("diff", "--base", "atlas", "--head", "beacon"),
                                     ("gate", "--system", "atlas", "--min-score", "0.5")],
                         ids=lambda c: c[0])
def test_fewer_than_100_permutations_are_refused_with_exit_2_naming_the_range(command):
    # Below 20 no p-value reaches 5%: diff --fail-on-regression could never fail.
    out = invoke(command[0], REPO, *command[1:], "--permutations", "19")
    assert out.exit_code == 2
    assert "Invalid value for '--permutations': 19 is not in the range 100<=x<=1000000" \
        in out.stderr


def test_diff_of_two_systems_reports_the_change_and_its_interval():
    out = invoke("diff", REPO, "--base", "beacon", "--head", "atlas", "--format", "json").stdout
    data = json.loads(out)
    assert data["base"] == "beacon" and data["head"] == "atlas"
    assert data["change"]["low"] <= data["change"]["estimate"] <= data["change"]["high"]


def test_diff_fail_on_regression_exits_1_when_head_is_worse():
    result = invoke("diff", REPO, "--base", "atlas", "--head", "drift", "--fail-on-regression")
    assert result.exit_code == 1


def test_diff_fail_on_regression_exits_0_when_head_is_better():
    result = invoke("diff", REPO, "--base", "drift", "--head", "atlas", "--fail-on-regression")
    assert result.exit_code == 0


def test_a_tolerance_larger_than_the_drop_is_not_a_regression():
    result = invoke("diff", REPO, "--base", "atlas", "--head", "drift", "--fail-on-regression",
                    "--tolerance", "0.6")
    assert result.exit_code == 0


def test_diff_compares_two_result_folders_of_the_same_benchmark(tmp_path):
    root = copy_tree(REPO, tmp_path / "bench")
    by_folder = invoke("diff", root, "--base", root / "results" / "beacon",
                       "--head", root / "results" / "atlas", "--format", "json").stdout
    by_name = invoke("diff", root, "--base", "beacon", "--head", "atlas", "--format",
                     "json").stdout
    assert json.loads(by_folder)["change"] == json.loads(by_name)["change"]


def test_a_head_folder_holding_none_of_the_results_is_warned_about_as_a_system_folder(
        tmp_path):
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "notes.txt").write_text("x")
    result = invoke("diff", REPO, "--base", "atlas", "--head", tmp_path / "elsewhere")
    assert result.exit_code == 0
    assert f"warning: {tmp_path / 'elsewhere'}/notes.txt: not a result of a labelled " \
        "document: ignored" in result.stderr
    assert f"warning: {tmp_path / 'elsewhere'}/: no result of any of the 12 labelled " \
        "document(s): every one is a missing result" in result.stderr


def test_diff_with_an_unknown_side_exits_2():
    assert invoke("diff", REPO, "--base", "atlas", "--head", "nowhere").exit_code == 2


def test_gate_fails_on_the_unrounded_score_and_never_prints_the_threshold_as_the_value(
        tmp_path):
    result = invoke("gate", wide_benchmark(tmp_path), "--system", "s", "--min-score", "0.99")
    assert result.exit_code == 1
    assert "score 98.7% is below the minimum 99%" in result.stdout


def test_gate_passes_a_score_just_above_the_threshold(tmp_path):
    result = invoke("gate", wide_benchmark(tmp_path), "--system", "s", "--min-score", "0.9868")
    assert result.exit_code == 0


def test_gate_lists_every_failure(tmp_path):
    result = invoke("gate", wide_benchmark(tmp_path), "--system", "s", "--min-score", "0.99",
                    "--field-min", "f00=0.5", "--field-min", "f01=0.5")
    fails = [line for line in result.stdout.splitlines() if line.startswith("FAIL")]
    assert len(fails) == 2
    assert result.exit_code == 1


def test_gate_with_an_unknown_field_exits_2(tmp_path):
    result = invoke("gate", wide_benchmark(tmp_path), "--system", "s",
                    "--field-min", "nope=0.5")
    assert result.exit_code == 2


def test_gate_with_a_threshold_given_as_a_percent_exits_2(tmp_path):
    result = invoke("gate", wide_benchmark(tmp_path), "--system", "s", "--min-score", "99")
    assert result.exit_code == 2
    assert "between 0 and 1" in result.stderr


def test_fields_read_from_a_cache_filled_by_score_equal_fields_scored_afresh(tmp_path):
    cache = tmp_path / "cache"
    invoke("score", REPO, "--cache-dir", cache)
    warm = invoke("fields", REPO, "--system", "beacon", "--cache-dir", cache).stdout
    assert warm == invoke("fields", REPO, "--system", "beacon", "--no-cache").stdout
