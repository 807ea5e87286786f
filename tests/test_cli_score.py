"""`leafscore score`: documents x systems, formats, versions, workers and the cache."""

from __future__ import annotations

import json
import math
import os

import pytest
from cli_helpers import REPO, copy_tree, invoke, make_benchmark, private_cache, write_json

import leafscore.cli
import leafscore.runner

__all__ = ["private_cache"]

PUBLISHED = {"docupipe_high": "97.24", "docupipe_standard": "96.00", "gemini": "95.80",
             "gpt": "93.54", "extend": "92.52", "claude": "90.33"}


def scores_json(*args):
    result = invoke("score", *args, "--format", "json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_docubench_1_0_reproduces_every_published_document_score(shared, tmp_path):
    out = scores_json(shared / "docubench", "--version", "1.0", "--cache-dir", tmp_path)
    reference = json.loads((shared / "docubench/results/summary.json").read_text())
    worst = 0.0
    for row in reference["per_doc"]:
        for system, value in row.items():
            if system != "doc_id":
                worst = max(worst, abs(out["systems"][system]["documents"][row["doc_id"]] - value))
    assert len(reference["per_doc"]) * 6 == 300
    assert worst <= 1e-12


def test_docubench_1_0_reproduces_the_published_system_scores(shared, tmp_path):
    out = scores_json(shared / "docubench", "--version", "1.0", "--cache-dir", tmp_path)
    reference = json.loads((shared / "docubench/results/summary.json").read_text())
    for system, value in reference["aggregates"].items():
        assert math.isclose(out["systems"][system]["score"], value, rel_tol=0, abs_tol=1e-12)


def test_docubench_1_0_markdown_ends_with_the_published_means(shared, tmp_path):
    result = invoke("score", shared / "docubench", "--version", "1.0", "--format", "md",
                    "--cache-dir", tmp_path)
    rows = [line.split("|")[1:-1] for line in result.stdout.splitlines() if line.startswith("|")]
    header, mean = [c.strip() for c in rows[0]], [c.strip() for c in rows[-1]]
    assert mean[0] == "mean"
    assert dict(zip(header[1:], mean[1:], strict=True)) == PUBLISHED


def test_docubench_scores_under_version_2_0_from_its_read_only_folder(shared, tmp_path):
    out = scores_json(shared / "docubench", "--version", "2.0", "--cache-dir", tmp_path)
    assert out["version"] == "2.0"
    assert all(0.0 <= s["score"] <= 1.0 for s in out["systems"].values())


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_two_workers_print_the_same_bytes_as_one(version):
    one = invoke("score", REPO, "--version", version, "--format", "json", "--no-cache")
    two = invoke("score", REPO, "--version", version, "--format", "json", "--no-cache",
                 "--workers", "2")
    assert one.exit_code == two.exit_code == 0
    assert two.stdout == one.stdout


def test_two_workers_on_docubench_print_the_same_bytes_as_one(shared):
    args = ("score", shared / "docubench", "--version", "1.0", "--format", "csv", "--no-cache")
    assert invoke(*args, "--workers", "2").stdout == invoke(*args).stdout


def test_a_warm_cache_rerun_scores_nothing(tmp_path, monkeypatch):
    cold = invoke("score", REPO, "--format", "json", "--cache-dir", tmp_path)

    def refuse(*args, **kwargs):
        raise AssertionError("a warm run must not score")

    monkeypatch.setattr(leafscore.runner, "score_cell", refuse)
    warm = invoke("score", REPO, "--format", "json", "--cache-dir", tmp_path)
    assert warm.stdout == cold.stdout


def test_editing_one_label_rescores_only_that_document(tmp_path, monkeypatch):
    root = copy_tree(REPO, tmp_path / "bench")
    cache = tmp_path / "cache"
    invoke("score", root, "--cache-dir", cache)
    label = root / "labels" / "inv-001.json"
    label.write_text(label.read_text().replace('"', '"x', 1).replace('"x', '"', 1)
                     .replace(":", ": ", 1) + "\n")  # reformatted only: no rescoring
    text = json.loads(label.read_text())
    text["__edited__"] = 1  # a change of content: rescored
    label.write_text(json.dumps(text))
    scored = []
    real = leafscore.runner.score_cell

    def counting(doc, raw, record, options, prepared=None):
        scored.append(doc.id)
        return real(doc, raw, record, options, prepared)

    monkeypatch.setattr(leafscore.runner, "score_cell", counting)
    invoke("score", root, "--cache-dir", cache)
    systems = [p for p in (root / "results").iterdir() if p.is_dir()]
    assert scored == ["inv-001"] * len(systems)


def test_reformatting_a_label_rescores_nothing(tmp_path, monkeypatch):
    root = copy_tree(REPO, tmp_path / "bench")
    cache = tmp_path / "cache"
    invoke("score", root, "--cache-dir", cache)
    label = root / "labels" / "inv-001.json"
    label.write_bytes(json.dumps(json.loads(label.read_text()), indent=7).encode()
                      .replace(b"\n", b"\r\n"))
    scored = []
    monkeypatch.setattr(leafscore.runner, "score_cell",
                        lambda *args: scored.append(args[0].id))
    invoke("score", root, "--cache-dir", cache)
    assert scored == []


def test_no_cache_writes_no_cache_entry(tmp_path):
    invoke("score", REPO, "--no-cache", "--cache-dir", tmp_path / "cache")
    assert not (tmp_path / "cache").exists()


def test_version_1_0_leaves_a_missing_result_out_of_the_mean(tmp_path):
    root = make_benchmark(tmp_path, {"a": {"a": "x"}, "b": {"a": "y"}}, {"s": {"a": {"a": "x"}}})
    out = scores_json(root, "--version", "1.0")
    assert out["systems"]["s"]["documents"] == {"a": 1.0, "b": None}
    assert out["systems"]["s"]["score"] == 1.0


def test_version_2_0_scores_a_missing_result_as_an_empty_one(tmp_path):
    root = make_benchmark(tmp_path, {"a": {"a": "x"}, "b": {"a": "y"}}, {"s": {"a": {"a": "x"}}})
    out = scores_json(root, "--version", "2.0")
    assert out["systems"]["s"]["documents"] == {"a": 1.0, "b": 0.0}
    assert out["systems"]["s"]["score"] == 0.5


def test_every_document_status_is_shown(tmp_path):
    root = make_benchmark(tmp_path, {"a": {"a": "x"}, "b": {"a": "y"}, "c": {"a": "z"}},
                          {"s": {"a": {"a": "x"}, "b": b'{"data": {"a": '}})
    out = scores_json(root, "--version", "2.0")
    assert out["systems"]["s"]["status"] == {"a": "scored", "b": "parse_failure", "c": "missing"}


def test_a_truncated_result_is_that_documents_parse_failure_and_named_on_stderr(tmp_path):
    root = make_benchmark(tmp_path, {"a": {"a": "x"}, "b": {"a": "y"}},
                          {"s": {"a": {"a": "x"}, "b": b'{"data": {"a": '}})
    result = invoke("score", root, "--version", "2.0", "--format", "json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["systems"]["s"]["documents"] == {"a": 1.0, "b": 0.0}
    assert "results/s/b.json" in result.stderr


def test_a_failed_envelope_is_a_parse_failure(tmp_path):
    root = make_benchmark(tmp_path, {"a": {"a": "x"}},
                          {"s": {"a": b'{"status": "failed", "data": {"a": "x"}}'}})
    out = scores_json(root, "--version", "2.0")
    assert out["systems"]["s"]["status"]["a"] == "parse_failure"
    assert out["systems"]["s"]["documents"]["a"] == 0.0


def test_without_a_pin_the_latest_version_is_used_and_said_on_stderr(tmp_path):
    root = make_benchmark(tmp_path, {"a": {"a": "x"}}, {"s": {"a": {"a": "x"}}})
    result = invoke("score", root, "--format", "json")
    assert json.loads(result.stdout)["version"] == "2.1"
    assert "using the latest, 2.1" in result.stderr


def test_the_pin_in_benchmark_toml_chooses_the_version(tmp_path):
    root = make_benchmark(tmp_path, {"a": {"a": "x"}}, {"s": {"a": {"a": "x"}}},
                          config='scoring_version = "1.0"\n')
    assert scores_json(root)["version"] == "1.0"


def test_an_unknown_key_in_benchmark_toml_exits_2_naming_it(tmp_path):
    root = make_benchmark(tmp_path, {"a": {"a": "x"}}, {"s": {"a": {"a": "x"}}},
                          config='scoring_verison = "1.0"\n')
    result = invoke("score", root)
    assert result.exit_code == 2
    assert "benchmark.toml" in result.stderr and "scoring_verison" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_missing_folder_exits_2_with_one_line(tmp_path):
    result = invoke("score", tmp_path / "nowhere")
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1


def test_an_unreadable_label_exits_2_naming_file_and_position(tmp_path):
    root = make_benchmark(tmp_path, {"a": {"a": "x"}}, {"s": {"a": {"a": "x"}}})
    (root / "labels" / "a.json").write_text('{"a": "x",\n  oops}')
    result = invoke("score", root)
    assert result.exit_code == 2
    assert "labels/a.json:line 2 column 3" in result.stderr


@pytest.mark.parametrize("version", ["2.0", "2.1"])
def test_a_label_that_is_not_an_object_exits_2_naming_the_label(tmp_path, version):
    root = make_benchmark(tmp_path, {"a": None}, {"s": {"a": {"a": "x"}}})
    result = invoke("score", root, "--version", version)
    assert result.exit_code == 2
    assert "error: labels/a.json: the label must be a JSON object, not null" in result.stderr


def test_version_1_0_scores_a_label_that_is_not_an_object_as_docubench_does(tmp_path):
    root = make_benchmark(tmp_path, {"a": None}, {"s": {"a": {"a": "x"}}})
    result = invoke("score", root, "--version", "1.0", "--format", "json")
    assert result.exit_code == 0
    # DocuBench's scorer: label null, result {"a": "x"}: one leaf counted, wrong
    assert json.loads(result.stdout)["systems"]["s"]["documents"] == {"a": 0.0}


def test_the_parse_failure_note_says_scored_0_only_when_every_one_scored_0(tmp_path):
    root = make_benchmark(tmp_path, {"a": None, "b": {"a": "x"}},
                          {"s": {"a": b"{oops", "b": b"{oops"}})
    one_zero = invoke("score", root, "--version", "1.0")
    assert "†: parse failure (scored 0 unless its label holds nothing to score)." in \
        one_zero.stdout
    (root / "labels" / "a.json").write_text('{"a": "y"}')
    all_zero = invoke("score", root, "--version", "1.0")
    assert "†: parse failure (scored 0)." in all_zero.stdout


def test_system_restricts_the_run_to_that_system():
    out = scores_json(REPO, "--system", "atlas")
    assert list(out["systems"]) == ["atlas"]


def test_an_unknown_system_exits_2(tmp_path):
    assert invoke("score", REPO, "--system", "nobody").exit_code == 2


def test_a_result_symlink_leaving_root_is_not_read_and_is_a_parse_failure(tmp_path):
    root = make_benchmark(tmp_path / "b", {"a": {"a": "x"}}, {"s": {}})
    write_json(tmp_path / "outside.json", {"data": {"a": "x"}})
    os.symlink(tmp_path / "outside.json", root / "results" / "s" / "a.json")
    result = invoke("score", root, "--format", "json", "--no-cache")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["systems"]["s"]["documents"] == {"a": 0.0}
    assert "outside" in result.stderr and "(parse failure)" in result.stderr


def test_csv_has_a_document_column_then_one_column_per_system():
    lines = invoke("score", REPO, "--format", "csv").stdout.splitlines()
    assert lines[0] == "document,atlas,beacon,cobalt,drift"


def test_every_format_ends_with_the_signature_line():
    for fmt in ("table", "md", "csv"):
        last = invoke("score", REPO, "--format", fmt).stdout.splitlines()[-1]
        assert "leafscore:2.0|match:optimal|" in last


def test_no_progress_bar_is_drawn_when_stderr_is_not_a_terminal(tmp_path):
    result = invoke("score", REPO, "--no-cache")
    assert "\r" not in result.stderr and "scoring" not in result.stderr


def test_the_progress_bar_counts_every_cell_on_a_terminal(monkeypatch):
    seen = []
    monkeypatch.setattr("sys.stderr.isatty", lambda: True, raising=False)
    with leafscore.cli._progress("scoring") as update:
        update(0, 2)
        update(2, 2)
        seen.append(update is not None)
    assert seen == [True]


def test_a_damaged_cache_entry_is_rescored_not_an_error(tmp_path):
    cold = invoke("score", REPO, "--format", "json", "--cache-dir", tmp_path)
    for entry in tmp_path.rglob("*.json"):
        entry.write_bytes(b'["not an entry"]\n{')
    warm = invoke("score", REPO, "--format", "json", "--cache-dir", tmp_path)
    assert warm.exit_code == 0
    assert warm.stdout == cold.stdout
