"""Warnings grouped by kind (issue 24, item 6): the first three of a kind in full, then
one line with the count and where the rest are; ``--warnings all`` prints every one,
``--quiet`` none, and ``--format json`` carries them all."""

from __future__ import annotations

import json
from collections import Counter

from cli_helpers import invoke, make_benchmark, private_cache

from leafscore.warnings_out import WarningPrinter, folder_of, kind_of, split_place

__all__ = ["private_cache"]

#: The three count lines of `leafscore validate` on DocuBench (14 labels with nulls where
#: the schema has none, 6 schemas with a root "name" keyword, 150 envelopes without a
#: status), as printed.
DOCUBENCH_COUNTS = [
    "leafscore: warning: 11 more like \"29 null value(s) where the schema's type has no null "
    "(first here); re…\" (14 in all), in labels/ (11); --warnings all prints every one",
    "leafscore: warning: 3 more like \"unknown keyword \"name\": not JSON Schema draft-07 "
    "vocabulary nor an x-…\" (6 in all), in schemas/ (3); --warnings all prints every one",
    "leafscore: warning: 147 more like \"no 'status' member: read as an envelope because the "
    "schema does not d…\" (150 in all), in results/docupipe_standard/ (50), "
    "results/extend/ (50), results/docupipe_high/ (47); --warnings all prints every one",
]


FAILED = "envelope status is 'failed', not 'ok' (parse failure)"


def failed_everywhere(tmp_path, n=8):
    """A benchmark whose system `s` failed on every document but d0: n - 1 warnings of
    one kind."""
    labels = {f"d{i}": {"a": "x"} for i in range(n)}
    results = {f"d{i}": b'{"status": "failed"}' for i in range(1, n)}
    return make_benchmark(tmp_path, labels, {"s": {"d0": {"a": "x"}, **results}})


def test_docubench_validate_prints_at_most_30_lines_to_stderr(shared):
    result = invoke("validate", shared / "docubench")
    assert result.exit_code == 0
    assert len(result.stderr.splitlines()) <= 30


def test_docubench_validate_names_the_count_of_each_group(shared):
    result = invoke("validate", shared / "docubench")
    lines = result.stderr.splitlines()
    assert lines[-3:] == DOCUBENCH_COUNTS
    assert len(lines) == 3 + 3 + 3 + 3  # three of each kind in full, then the three counts
    assert result.stdout.splitlines()[-1] == "0 error(s), 170 warning(s)"


def test_warnings_all_prints_every_warning_of_docubench(shared):
    result = invoke("validate", shared / "docubench", "--warnings", "all")
    lines = result.stderr.splitlines()
    assert len(lines) == 170
    assert all(line.startswith("leafscore: warning: ") for line in lines)
    assert not any("more like" in line for line in lines)


def test_quiet_prints_no_warning(shared):
    result = invoke("validate", shared / "docubench", "--quiet")
    assert result.exit_code == 0
    assert result.stderr == ""
    assert result.stdout == "0 error(s), 170 warning(s)\n"


def test_validate_json_carries_every_warning_and_prints_none(shared):
    result = invoke("validate", shared / "docubench", "--format", "json")
    out = json.loads(result.stdout)
    assert (out["errors"], out["warnings"], len(out["problems"])) == (0, 170, 170)
    assert result.stderr == ""


def test_score_groups_repeated_warnings_and_counts_the_rest(tmp_path):
    result = invoke("score", failed_everywhere(tmp_path), "--version", "2.1")
    lines = result.stderr.splitlines()
    assert lines == [
        f"leafscore: warning: results/s/d1.json: {FAILED}",
        f"leafscore: warning: results/s/d2.json: {FAILED}",
        f"leafscore: warning: results/s/d3.json: {FAILED}",
        f"leafscore: warning: 4 more like \"{FAILED}\" (7 in all), in results/s/ (4); "
        "--warnings all prints every one",
    ]


def test_score_warnings_all_prints_each_missing_result(tmp_path):
    result = invoke("score", failed_everywhere(tmp_path), "--version", "2.1",
                    "--warnings", "all")
    assert len(result.stderr.splitlines()) == 7


def test_score_quiet_prints_nothing_on_stderr(tmp_path):
    result = invoke("score", failed_everywhere(tmp_path), "--quiet")
    assert result.exit_code == 0
    assert result.stderr == ""  # nor the note that no version is pinned


def test_score_json_carries_every_warning(tmp_path):
    result = invoke("score", failed_everywhere(tmp_path), "--version", "2.1",
                    "--format", "json")
    warnings = json.loads(result.stdout)["warnings"]
    assert warnings == [f"results/s/d{i}.json: {FAILED}" for i in range(1, 8)]


def test_score_json_carries_the_warnings_under_quiet_too(tmp_path):
    result = invoke("score", failed_everywhere(tmp_path), "--version", "2.1",
                    "--format", "json", "--quiet")
    assert len(json.loads(result.stdout)["warnings"]) == 7
    assert result.stderr == ""


def test_score_json_has_an_empty_warning_list_when_there_is_none(tmp_path):
    root = make_benchmark(tmp_path, {"d": {"a": "x"}}, {"s": {"d": {"a": "x"}}})
    result = invoke("score", root, "--version", "2.1", "--format", "json")
    assert json.loads(result.stdout)["warnings"] == []


def test_score_warns_once_for_an_empty_system_folder(tmp_path):
    root = make_benchmark(tmp_path, {"d": {"a": "x"}, "e": {"a": "y"}},
                          {"s": {"d": {"a": "x"}, "e": {"a": "y"}}})
    (root / "results" / "gamma").mkdir()
    result = invoke("score", root, "--version", "2.1", "--warnings", "all")
    empty = [line for line in result.stderr.splitlines() if "results/gamma/:" in line]
    assert empty == ["leafscore: warning: results/gamma/: no result of any of the 2 labelled "
                     "document(s): every one is a missing result"]


def test_score_warns_for_each_result_file_that_names_no_document(tmp_path):
    root = make_benchmark(tmp_path, {"d": {"a": "x"}}, {"s": {"d": {"a": "x"}}})
    (root / "results" / "s" / "D.json").write_text("{}", encoding="utf-8")
    (root / "results" / "s" / "d.txt").write_text("{}", encoding="utf-8")
    result = invoke("score", root, "--version", "2.1")
    assert result.stderr.splitlines() == [
        "leafscore: warning: results/s/D.json: not a result of a labelled document: ignored",
        "leafscore: warning: results/s/d.txt: not a result of a labelled document: ignored",
    ]


def test_validate_names_an_empty_system_folder_too(tmp_path):
    root = make_benchmark(tmp_path, {"d": {"a": "x"}}, {"s": {"d": {"a": "x"}}})
    (root / "results" / "gamma").mkdir()
    result = invoke("validate", root)
    assert ("leafscore: warning: results/gamma/: no result of any of the 1 labelled "
            "document(s): every one is a missing result") in result.stderr.splitlines()


def test_every_command_takes_quiet_and_warnings():
    for command in ("validate", "score", "leaderboard", "report", "explore", "verify",
                    "fields", "explain", "diff", "gate", "power", "suspects"):
        text = invoke(command, "--help").stdout
        assert "--quiet" in text and "--warnings [grouped|all]" in text, command


def test_the_kind_of_a_warning_is_its_message_without_place_numbers_or_values():
    assert kind_of("labels/a.json#/x/0/y: 29 null value(s) where the schema's type has no "
                   "null (first here); read as absent") == \
        kind_of("labels/b.json#/z: 1 null value(s) where the schema's type has no null "
                "(first here); read as absent")
    assert kind_of("results/s/d.json:line 2 column 8: Expecting ',' delimiter") == \
        kind_of("results/t/e.json:line 9 column 1: Expecting ':' delimiter")
    assert kind_of("results/s/d.json: missing result") != \
        kind_of("results/s/d.json: result is a JSON array, not an object")


def test_the_place_of_a_warning_is_the_path_before_its_first_colon_space():
    assert split_place("gold.jsonl:3: id 'x' repeats an earlier line; ignored") == (
        "gold.jsonl:3", "id 'x' repeats an earlier line; ignored")
    assert split_place("pred.jsonl:5:line 1 column 51: Expecting value (parse failure)") == (
        "pred.jsonl:5:line 1 column 51", "Expecting value (parse failure)")
    assert split_place("only 5 documents: intervals are too narrow") == (
        "", "only 5 documents: intervals are too narrow")


def test_the_rest_are_counted_by_folder_or_jsonl_file():
    assert [folder_of(p) for p in ("results/gpt/a.json", "results/gpt/a.json:line 2 column 1",
                                   "pred.jsonl:4", "results/gamma/", "labels/x.json#/a/0")] \
        == ["results/gpt/", "results/gpt/", "pred.jsonl", "results/", "labels/"]


def test_the_printer_shows_three_of_a_kind_then_one_count_line_per_kind():
    lines: list[str] = []
    printer = WarningPrinter(lines.append)
    for system in ("a", "b"):
        for i in range(5):
            printer.warn(f"results/{system}/d{i}.json: missing result")
    printer.warn("results/a/x.json: not a result of a labelled document: ignored")
    printer.finish()
    printer.finish()  # a second call prints nothing again
    assert lines[:3] == [f"results/a/d{i}.json: missing result" for i in range(3)]
    assert lines[3] == "results/a/x.json: not a result of a labelled document: ignored"
    assert lines[4:] == ["7 more like \"missing result\" (10 in all), in results/b/ (5), "
                         "results/a/ (2); --warnings all prints every one"]
    assert len(printer.seen) == 11


def test_the_printer_keeps_every_warning_when_quiet():
    lines: list[str] = []
    printer = WarningPrinter(lines.append, quiet=True)
    for i in range(5):
        printer.warn(f"results/s/d{i}.json: missing result")
    printer.finish()
    assert lines == [] and Counter(map(kind_of, printer.seen)) == {"missing result": 5}
