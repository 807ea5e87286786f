"""The Python API for whole benchmarks (issue 13): the objects the CLI renders.

* ``leafscore.evaluate`` on DocuBench under 1.0 gives the six published scores;
* every command's JSONL run on ``examples/jsonl`` gives the numbers of the same data laid
  out as a folder;
* the verdicts of DocuBench under 2.0, written as parquet and grouped in pandas, give
  every per-document score of the summary.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import REPO, invoke, private_cache  # noqa: F401 (fixture)

import leafscore
from leafscore.benchmark import _as_file
from leafscore.canonical import canonical_json

EXAMPLE = REPO / "examples" / "jsonl"
PREDS = {"atlas": EXAMPLE / "atlas.jsonl", "drift": EXAMPLE / "drift.jsonl"}


def test_evaluate_on_docubench_under_1_0_gives_the_six_published_scores(shared):
    published = json.loads((shared / "docubench/results/summary.json").read_text())
    run = leafscore.evaluate(shared / "docubench", version="1.0", cache=False)
    assert {s: run.score(s) for s in run.systems} == published["aggregates"]
    assert [f"{100 * run.score(s):.2f}" for s in
            ("docupipe_high", "docupipe_standard", "gemini", "gpt", "extend", "claude")] == [
        "97.24", "96.00", "95.80", "93.54", "92.52", "90.33"]


def test_an_evaluation_keeps_every_warning_instead_of_printing_it(capsys):
    run = leafscore.evaluate(REPO, cache=False)
    assert [w.split(":")[0] for w in run.warnings] == [
        "results/beacon/bst-002.json", "results/drift/inv-002.json"]
    assert capsys.readouterr() == ("", "")


def test_the_gate_result_says_what_failed_on_unrounded_values():
    run = leafscore.evaluate(REPO, cache=False)
    result = run.gate("atlas", min_score=0.99, field_min={"total": 0.5})
    assert not result.passed
    assert [f.target for f in result.failures] == ["score"]
    assert result.score == run.score("atlas")


def test_an_unknown_system_is_a_key_error():
    with pytest.raises(KeyError, match="no system 'nobody'"):
        leafscore.evaluate(REPO, cache=False).score("nobody")


def test_version_1_0_has_no_verdicts_to_list():
    run = leafscore.evaluate(REPO, version="1.0", cache=False)
    with pytest.raises(ValueError, match="keeps no per-leaf verdicts"):
        list(run.verdicts())


# ----- JSONL and the same data as a folder ------------------------------------------------

def as_folder(target: Path) -> Path:
    """examples/jsonl laid out as a benchmark folder: the same bytes' meaning."""
    schema = json.loads((EXAMPLE / "schema.json").read_text())
    for line in (EXAMPLE / "gold.jsonl").read_text().splitlines():
        gold = json.loads(line)
        doc = gold.pop("id")
        (target / "schemas").mkdir(parents=True, exist_ok=True)
        (target / "labels").mkdir(parents=True, exist_ok=True)
        (target / "schemas" / f"{doc}.json").write_text(json.dumps(schema))
        (target / "labels" / f"{doc}.json").write_text(json.dumps(gold))
    for system, path in PREDS.items():
        folder = target / "results" / system
        folder.mkdir(parents=True)
        for line in path.read_text().splitlines():
            try:
                value = json.loads(line)
            except ValueError:  # a line cut short: the same text as a file
                doc = line.split('"id": "')[1].split('"')[0]
                (folder / f"{doc}.json").write_text(line.split(", ", 1)[1].join(["{", ""]))
                continue
            (folder / f"{value['id']}.json").write_bytes(
                canonical_json(_as_file(value, "id")))
    return target


JSONL = ["--gold", EXAMPLE / "gold.jsonl", "--schema", EXAMPLE / "schema.json",
         "--pred", f"atlas={PREDS['atlas']}", "--pred", f"drift={PREDS['drift']}"]


def numbers(text: str) -> object:
    """A command's JSON output without what names the inputs (signature, file names; the
    warnings as their kinds, without the file and place they name)."""
    from leafscore.warnings_out import kind_of

    def strip(node: object) -> object:
        if isinstance(node, dict):
            return {k: [kind_of(w) for w in v] if k == "warnings" else strip(v)
                    for k, v in node.items()
                    if k not in ("signature", "sha256", "results_sha256", "benchmark")}
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node
    return strip(json.loads(text))


COMMANDS = {
    "score": ["score", "--format", "json"],
    "leaderboard": ["leaderboard", "--format", "json"],
    "fields": ["fields", "--system", "drift", "--format", "json"],
    "explain": ["explain", "r-001", "--system", "drift", "--format", "json"],
    "diff": ["diff", "--base", "drift", "--head", "atlas", "--format", "json"],
}


@pytest.mark.parametrize("command", COMMANDS.values(), ids=COMMANDS.keys())
def test_a_jsonl_run_gives_the_numbers_of_the_same_data_as_a_folder(tmp_path, command):
    folder = as_folder(tmp_path / "bench")
    at = 2 if command[0] == "explain" else 1  # ROOT follows DOC_ID in explain
    by_folder = invoke(*command[:at], folder, *command[at:], "--no-cache")
    by_jsonl = invoke(*command, *JSONL, "--no-cache")
    assert by_folder.exit_code == by_jsonl.exit_code == 0, by_jsonl.stderr
    assert numbers(by_jsonl.stdout) == numbers(by_folder.stdout)


def test_a_jsonl_gate_decides_as_the_folder_gate(tmp_path):
    folder = as_folder(tmp_path / "bench")
    args = ["--system", "drift", "--min-score", "0.5", "--no-cache"]
    by_folder = invoke("gate", folder, *args)
    by_jsonl = invoke("gate", *args, *JSONL)
    assert by_folder.exit_code == by_jsonl.exit_code == 1
    assert by_folder.stdout.splitlines()[0] == by_jsonl.stdout.splitlines()[0]


def test_a_jsonl_report_and_verify_give_the_folder_summary(tmp_path):
    folder = as_folder(tmp_path / "bench")
    assert invoke("report", folder, "--no-cache").exit_code == 0
    out = tmp_path / "jsonl-report"
    assert invoke("report", *JSONL, "--out", out, "--no-cache").exit_code == 0
    by_folder = json.loads((folder / "results" / "summary.json").read_text())
    by_jsonl = json.loads((out / "summary.json").read_text())
    for key in ("aggregates", "per_doc", "intervals", "coverage", "fields"):
        assert by_jsonl[key] == by_folder[key], key
    verified = invoke("verify", *JSONL, "--summary", out / "summary.json", "--no-cache")
    assert verified.exit_code == 0, verified.output


def test_evaluate_jsonl_equals_evaluate_on_the_folder(tmp_path):
    folder = leafscore.evaluate(as_folder(tmp_path / "bench"), cache=False)
    jsonl = leafscore.evaluate_jsonl(EXAMPLE / "gold.jsonl", PREDS, EXAMPLE / "schema.json",
                                     cache=False)
    assert {s: jsonl.document_scores(s) for s in jsonl.systems} == \
        {s: folder.document_scores(s) for s in folder.systems}


# ----- verdicts as data --------------------------------------------------------------------

def test_docubench_verdicts_as_parquet_group_back_to_every_summary_score(shared, tmp_path):
    pandas = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    out = tmp_path / "report"
    result = invoke("report", shared / "docubench", "--version", "2.0", "--out", out,
                    "--verdicts", out / "verdicts.parquet", "--no-cache")
    assert result.exit_code == 0, result.stderr
    summary = json.loads((out / "summary.json").read_text())
    frame = pandas.read_parquet(out / "verdicts.parquet")
    scored = frame[frame.kind != "correct_absence"]
    correct = scored.kind.eq("correct").groupby([scored.system, scored.document]).mean()
    status = frame.groupby(["system", "document"]).status.first()
    checked = 0
    for row in summary["per_doc"]:
        for system in summary["aggregates"]:
            key = (system, row["doc_id"])
            expected = row[system]
            if key in correct.index:
                value = 0.0 if status[key] == "parse_failure" else float(correct[key])
                assert value == expected, key
            else:  # no scored leaf: 1.0, or 0.0 for a parse failure of an empty label
                assert expected in (0.0, 1.0), key
            checked += 1
    assert checked == 300


def test_verdicts_as_csv_have_one_header_and_one_row_per_verdict(tmp_path):
    run = leafscore.evaluate(REPO, cache=False)
    path = run.write_verdicts(tmp_path / "v.csv")
    lines = path.read_text().splitlines()
    assert lines[0] == ("system,document,status,address,field,kind,label,result,"
                        "label_canon,result_canon")
    assert len(lines) == 1 + len(list(run.verdicts()))


def test_verdicts_go_only_to_csv_or_parquet(tmp_path):
    with pytest.raises(ValueError, match=r"\.csv or \.parquet"):
        leafscore.evaluate(REPO, cache=False).write_verdicts(tmp_path / "v.xlsx")
