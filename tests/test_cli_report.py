"""`leafscore report`, `verify` and `leaderboard --update/--out`: written files."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from cli_helpers import REPO, copy_tree, invoke, make_benchmark, private_cache

import leafscore.api
import leafscore.cells
import leafscore.cli
import leafscore.runner

__all__ = ["private_cache"]

DOCUBENCH_KEYS = ["benchmark", "engine_display_names", "aggregates", "breakdowns", "per_doc"]


def reported(tmp_path, *args):
    root = copy_tree(REPO, tmp_path / "bench")
    result = invoke("report", root, *args)
    assert result.exit_code == 0, result.stderr
    return root


def summary_of(root):
    return json.loads((root / "results" / "summary.json").read_text(encoding="utf-8"))


def test_report_writes_summary_json_and_csv_under_results(tmp_path):
    root = reported(tmp_path)
    assert (root / "results" / "summary.json").is_file()
    assert (root / "results" / "summary.csv").is_file()


def test_the_summary_starts_with_docubenchs_keys(tmp_path):
    assert list(summary_of(reported(tmp_path)))[:5] == DOCUBENCH_KEYS


def test_the_summary_adds_version_signature_digests_intervals_and_fields(tmp_path):
    summary = summary_of(reported(tmp_path))
    for key in ("version", "signature", "sha256", "intervals", "coverage", "fields"):
        assert key in summary
    label = json.loads((REPO / "labels" / "inv-001.json").read_text())
    canonical = json.dumps(label, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert summary["sha256"]["labels/inv-001.json"] == __import__("hashlib").sha256(
        canonical.encode()).hexdigest()


def test_the_summary_per_doc_scores_equal_the_score_command(tmp_path):
    root = reported(tmp_path)
    scores = json.loads(invoke("score", root, "--format", "json").stdout)["systems"]
    for row in summary_of(root)["per_doc"]:
        for system in scores:
            assert row[system] == scores[system]["documents"][row["doc_id"]]


def test_the_summary_csv_has_one_row_per_document_then_the_aggregate(tmp_path):
    root = reported(tmp_path)
    lines = (root / "results" / "summary.csv").read_text().splitlines()
    assert lines[0] == "doc_id,atlas,beacon,cobalt,drift"
    assert len(lines) == 1 + 12 + 1
    assert lines[-1].startswith("AGGREGATE,")


def test_two_workers_write_the_same_summary_bytes_as_one(tmp_path):
    one = (reported(tmp_path / "a", "--no-cache") / "results" / "summary.json").read_bytes()
    two = reported(tmp_path / "b", "--no-cache", "--workers", "2")
    assert (two / "results" / "summary.json").read_bytes() == one


def test_the_summary_bytes_do_not_depend_on_the_hash_seed(tmp_path):
    outputs = []
    for seed in ("1", "2"):
        root = copy_tree(REPO, tmp_path / seed)
        env = dict(os.environ, PYTHONHASHSEED=seed)
        subprocess.run([sys.executable, "-m", "leafscore", "report", str(root), "--no-cache"],
                       check=True, env=env, capture_output=True)
        outputs.append((root / "results" / "summary.json").read_bytes())
    assert outputs[0] == outputs[1]


def test_a_read_only_results_folder_exits_2_suggesting_out(tmp_path, monkeypatch):
    root = copy_tree(REPO, tmp_path / "bench")
    monkeypatch.setattr(leafscore.cli, "_writable", lambda folder: False)
    result = invoke("report", root)
    assert result.exit_code == 2
    assert "not writable; pass --out DIR" in result.stderr


def test_out_writes_the_summary_elsewhere(shared, tmp_path):
    result = invoke("report", shared / "docubench", "--version", "1.0", "--out", tmp_path / "o")
    assert result.exit_code == 0, result.stderr
    assert json.loads((tmp_path / "o" / "summary.json").read_text())["version"] == "1.0"


def test_the_1_0_summary_of_docubench_matches_its_published_summary(shared, tmp_path):
    invoke("report", shared / "docubench", "--version", "1.0", "--out", tmp_path)
    ours = json.loads((tmp_path / "summary.json").read_text())
    theirs = json.loads((shared / "docubench/results/summary.json").read_text())
    assert ours["aggregates"] == theirs["aggregates"]
    assert ours["per_doc"] == theirs["per_doc"]
    assert ours["breakdowns"] == theirs["breakdowns"]  # fsum / len, bit for bit (126 cells)


def test_python_scorer_py_reproduces_docubench_s_aggregates_and_document_scores(shared):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, str(REPO / "scorer.py"), str(shared / "docubench"),
                           "--version", "1.0", "--format", "json"],
                          capture_output=True, text=True, check=True)
    ours = json.loads(done.stdout)["systems"]
    theirs = json.loads((shared / "docubench/results/summary.json").read_text())
    assert {s: ours[s]["score"] for s in ours} == theirs["aggregates"]
    assert [{"doc_id": row["doc_id"], **{s: ours[s]["documents"][row["doc_id"]] for s in ours}}
            for row in theirs["per_doc"]] == theirs["per_doc"]


def test_the_1_0_summary_csv_of_docubench_is_byte_identical_to_its_published_one(
        shared, tmp_path):
    invoke("report", shared / "docubench", "--version", "1.0", "--out", tmp_path)
    published = (shared / "docubench/results/summary.csv").read_bytes()
    assert (tmp_path / "summary.csv").read_bytes() == published


def test_out_inside_an_input_folder_is_refused(tmp_path):
    root = copy_tree(REPO, tmp_path / "bench")
    result = invoke("report", root, "--out", root / "labels")
    assert result.exit_code == 2
    assert "labels/" in result.stderr


def test_verify_passes_right_after_report(tmp_path):
    root = reported(tmp_path)
    result = invoke("verify", root)
    assert result.exit_code == 0
    assert result.stdout.startswith("verify: OK")


def test_verify_fails_when_a_label_changes_and_names_it(tmp_path):
    root = reported(tmp_path)
    label = root / "labels" / "inv-001.json"
    data = json.loads(label.read_text())
    data["invoice_number"] = "INV-0000"
    label.write_text(json.dumps(data))
    result = invoke("verify", root)
    assert result.exit_code == 1
    assert "labels changed: labels/inv-001.json edited" in result.stdout


def test_verify_fails_when_a_result_changes_and_names_it(tmp_path):
    root = reported(tmp_path)
    (root / "results" / "atlas" / "inv-001.json").write_text('{"status": "ok", "data": {}}')
    result = invoke("verify", root)
    assert result.exit_code == 1
    assert "results changed: results/atlas/inv-001.json edited" in result.stdout


def test_verify_fails_when_the_scorer_changes(tmp_path, monkeypatch):
    root = reported(tmp_path)
    monkeypatch.setattr(leafscore.api, "scorer_digest", lambda: "0" * 64)
    result = invoke("verify", root)
    assert result.exit_code == 1
    assert "the scorer changed" in result.stdout


def test_verify_says_when_numbers_move_with_no_input_changed(tmp_path, monkeypatch):
    root = reported(tmp_path)
    real = leafscore.runner.score_cell

    def shifted(doc, raw, record, options, prepared=None):
        cell = real(doc, raw, record, options, prepared)
        return leafscore.cells.Cell(cell.status, leafscore.cells.score_from_dict(
            {**cell.score.to_dict(verdicts=True), "accuracy": 0.5}), cell.warnings)

    monkeypatch.setattr(leafscore.runner, "score_cell", shifted)
    result = invoke("verify", root, "--no-cache")
    assert result.exit_code == 1
    assert "the numbers differ although no input changed" in result.stdout


def test_verify_without_a_summary_exits_2(tmp_path):
    root = make_benchmark(tmp_path, {"a": {"a": "x"}}, {"s": {"a": {"a": "x"}}})
    result = invoke("verify", root)
    assert result.exit_code == 2
    assert "leafscore report" in result.stderr


def test_leaderboard_update_rewrites_only_the_marked_block(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("intro\n<!-- leafscore:leaderboard:start -->\nold\n"
                      "<!-- leafscore:leaderboard:end -->\noutro\n")
    result = invoke("leaderboard", REPO, "--update", readme)
    assert result.exit_code == 0, result.stderr
    text = readme.read_text()
    assert text.startswith("intro\n<!-- leafscore:leaderboard:start -->\n| ")
    assert text.endswith("<!-- leafscore:leaderboard:end -->\noutro\n")
    assert "old" not in text and "leafscore:2.0|" in text


def test_leaderboard_update_without_markers_exits_2(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("no markers\n")
    result = invoke("leaderboard", REPO, "--update", readme)
    assert result.exit_code == 2
    assert readme.read_text() == "no markers\n"


def test_leaderboard_out_writes_the_file_and_prints_nothing(tmp_path):
    result = invoke("leaderboard", REPO, "--out", tmp_path / "board.md")
    assert result.stdout == ""
    assert (tmp_path / "board.md").read_text().startswith("| ")


def test_leaderboard_seed_and_resamples_enter_the_signature():
    out = invoke("leaderboard", REPO, "--resamples", "200", "--seed", "7").stdout
    assert "|bs:200|seed:7|" in out.splitlines()[-1]


def test_the_readme_leaderboard_block_is_current(tmp_path):
    """Fix a failure with: leafscore leaderboard --update README.md (in the repo root)."""
    copy = tmp_path / "README.md"
    copy.write_bytes((REPO / "README.md").read_bytes())
    result = invoke("leaderboard", REPO, "--update", copy)
    assert result.exit_code == 0, result.stderr
    assert copy.read_text(encoding="utf-8") == (REPO / "README.md").read_text(encoding="utf-8")


def test_a_summary_leafscore_did_not_write_is_never_replaced(tmp_path):
    root = copy_tree(REPO, tmp_path / "bench")
    foreign = root / "results" / "summary.json"
    foreign.write_text('{"benchmark": {"name": "DocuBench"}}')
    result = invoke("report", root)
    assert result.exit_code == 2
    assert "not written by leafscore" in result.stderr
    assert foreign.read_text() == '{"benchmark": {"name": "DocuBench"}}'


def test_force_replaces_a_summary_leafscore_did_not_write(tmp_path):
    root = copy_tree(REPO, tmp_path / "bench")
    (root / "results" / "summary.json").write_text("{}")
    assert invoke("report", root, "--force").exit_code == 0
    assert summary_of(root)["signature"].startswith("leafscore:")


def test_a_results_folder_marked_read_only_is_not_written_even_by_root(tmp_path):
    root = copy_tree(REPO, tmp_path / "bench")
    (root / "results").chmod(0o555)
    try:
        result = invoke("report", root)
    finally:
        (root / "results").chmod(0o755)
    assert result.exit_code == 2
    assert not (root / "results" / "summary.json").exists()
