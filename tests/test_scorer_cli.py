"""`python scorer.py`: the minimal runner's contract (folder and one-document modes)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SCHEMA = {"type": "object", "properties": {"total": {"type": "number"},
                                           "day": {"type": "string", "format": "date"}}}


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(REPO / "scorer.py"), *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120, check=False)


def make_root(tmp_path: Path, result: dict, toml: str | None = None) -> Path:
    root = tmp_path / "bench"
    for folder in ("schemas", "labels", "results/sys"):
        (root / folder).mkdir(parents=True)
    (root / "schemas/d.json").write_text(json.dumps(SCHEMA))
    (root / "labels/d.json").write_text(json.dumps({"total": 5, "day": "2024-03-07"}))
    (root / "results/sys/d.json").write_text(json.dumps({"status": "ok", "data": result}))
    if toml is not None:
        (root / "benchmark.toml").write_text(toml)
    return root


def test_the_json_format_has_exactly_the_documented_shape(tmp_path):
    root = make_root(tmp_path, {"total": 5, "day": "2024-03-07"})
    out = json.loads(run(str(root), "--format", "json").stdout)
    assert out == {"version": "2.1",
                   "systems": {"sys": {"score": 1.0, "documents": {"d": 1.0}}}}


def test_benchmark_toml_date_formats_reach_the_scorer(tmp_path):
    # "07/03/2024" reads as 7 March only with a day-first format in the benchmark's options.
    toml = '[options]\ndate_formats = ["%d/%m/%Y"]\n'
    root = make_root(tmp_path, {"total": 5, "day": "07/03/2024"}, toml)
    out = json.loads(run(str(root), "--format", "json").stdout)
    assert out["systems"]["sys"]["score"] == 1.0


def test_a_benchmark_toml_pin_is_the_default_version(tmp_path):
    root = make_root(tmp_path, {"total": 5, "day": "2024-03-07"}, 'scoring_version = "1.0"\n')
    assert json.loads(run(str(root), "--format", "json").stdout)["version"] == "1.0"


def test_the_version_flag_overrides_the_pin(tmp_path):
    root = make_root(tmp_path, {"total": 5, "day": "2024-03-07"}, 'scoring_version = "1.0"\n')
    out = run(str(root), "--version", "2.0", "--format", "json").stdout
    assert json.loads(out)["version"] == "2.0"


def test_an_unknown_version_is_one_line_and_exit_2():
    outcome = run("--version", "3.0")
    assert outcome.returncode == 2
    assert outcome.stderr == "scorer.py: version='3.0' is not one of '1.0', '2.0', '2.1'\n"


def test_a_missing_folder_is_one_line_and_exit_2(tmp_path):
    outcome = run(str(tmp_path / "nowhere"))
    assert outcome.returncode == 2
    assert outcome.stderr.count("\n") == 1 and "no such benchmark folder" in outcome.stderr


def test_a_broken_label_names_the_file_and_position_with_exit_2(tmp_path):
    root = make_root(tmp_path, {"total": 5})
    (root / "labels/d.json").write_text('{"total": 5,\n "day": }')
    outcome = run(str(root))
    assert outcome.returncode == 2
    assert "labels/d.json:line 2 column 9:" in outcome.stderr
    assert "Traceback" not in outcome.stderr


def test_a_label_that_is_not_an_object_names_the_label_with_exit_2(tmp_path):
    root = make_root(tmp_path, {"total": 5})
    (root / "labels/d.json").write_text("[]")
    outcome = run(str(root), "--version", "2.1")
    assert outcome.returncode == 2
    assert "labels/d.json: the label must be a JSON object, not array" in outcome.stderr
    assert "Traceback" not in outcome.stderr


def test_details_under_1_0_names_the_latest_version_to_use(tmp_path):
    root = make_root(tmp_path, {"total": 5})
    outcome = run(*(str(root / f) for f in ("results/sys/d.json", "schemas/d.json",
                                            "labels/d.json")), "--details", "--version", "1.0")
    assert outcome.returncode == 2
    assert outcome.stderr == "scorer.py: --details: version 1.0 has no verdicts; use --version " \
        "2.1\n"


@pytest.mark.parametrize("fmt", ["table", "md"])
def test_a_table_format_without_details_in_one_document_mode_is_refused(tmp_path, fmt):
    root = make_root(tmp_path, {"total": 5})
    outcome = run(*(str(root / f) for f in ("results/sys/d.json", "schemas/d.json",
                                            "labels/d.json")), "--format", fmt)
    assert outcome.returncode == 2
    assert outcome.stderr == f"scorer.py: --format: one document's score is JSON; --format {fmt} " \
        "goes with --details\n"


def test_one_document_mode_prints_to_dict_and_details_add_every_verdict(tmp_path):
    root = make_root(tmp_path, {"total": "5.00", "day": "March 7, 2024"})
    paths = [str(root / "results/sys/d.json"), str(root / "schemas/d.json"),
             str(root / "labels/d.json")]
    plain = json.loads(run(*paths).stdout)
    assert plain["accuracy"] == 1.0 and "verdicts" not in plain
    detailed = json.loads(run(*paths, "--details", "--format", "json").stdout)
    assert [v["kind"] for v in detailed["verdicts"]] == ["correct", "correct"]


def test_the_shipped_benchmark_runs_by_default_from_the_repo_root():
    outcome = run(cwd=REPO)
    assert outcome.returncode == 0, outcome.stderr
    assert outcome.stdout.startswith("leafscore scoring version 2.0")
    assert "score (macro)" in outcome.stdout


def _outcome_note(root: Path, path: Path) -> str:
    import scorer
    return scorer.read_outcome(path, SCHEMA, scorer.VERSIONS["2.1"], root).note


def test_a_system_folder_linked_outside_root_is_not_read(tmp_path):
    root = make_root(tmp_path, {"total": 5})
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "d.json").write_text(json.dumps({"status": "ok", "data": {"total": 5}}))
    (root / "results/linked").symlink_to(outside, target_is_directory=True)
    note = _outcome_note(root, root / "results/linked/d.json")
    assert note.startswith("symlink leads outside the benchmark folder")
    out = json.loads(run(str(root), "--format", "json").stdout)
    assert out["systems"]["linked"]["documents"] == {"d": 0.0}


def test_a_dotdot_step_out_of_root_is_not_read(tmp_path):
    root = make_root(tmp_path, {"total": 5})
    (tmp_path / "d.json").write_text(json.dumps({"status": "ok", "data": {"total": 5}}))
    note = _outcome_note(root, root / "results/sys/../../../d.json")
    assert note.startswith("symlink leads outside the benchmark folder")


def test_a_symlink_that_stays_inside_root_is_read(tmp_path):
    root = make_root(tmp_path, {"total": 5, "day": "2024-03-07"})
    (root / "results/alias").symlink_to(root / "results/sys", target_is_directory=True)
    assert _outcome_note(root, root / "results/alias/d.json") == ""
    out = json.loads(run(str(root), "--format", "json").stdout)
    assert out["systems"]["alias"]["documents"] == {"d": 1.0}
