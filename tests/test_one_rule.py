"""One rule everywhere (issue 8): `validate` catches first, and digests ignore formatting.

* For every fixture on which a scoring command exits 2, `leafscore validate` exits
  non-zero first and names the same file.
* A CRLF, re-indented copy of the sample benchmark has the same signature as the sample,
  and `verify` of the sample's summary passes on it.
* Versions are records: no `version ==` branch outside them.
* `leafscore score` and `python scorer.py`, run in the same folder, stop with the same exit
  code naming the same file, or go on with the same warnings.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import REPO, copy_tree, invoke, private_cache  # noqa: F401 (fixture)

SCHEMA = {"type": "object", "properties": {"total": {"type": "number"},
                                           "name": {"type": "string"}}}
LABEL = {"total": 5, "name": "Acme"}


def write(path: Path, content: bytes | str | dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, dict):
        content = json.dumps(content)
    path.write_bytes(content if isinstance(content, bytes) else content.encode())


def good(root: Path) -> Path:
    """Two documents, one system, all perfect."""
    for doc in ("d1", "d2"):
        write(root / f"schemas/{doc}.json", SCHEMA)
        write(root / f"labels/{doc}.json", LABEL)
        write(root / f"results/sys/{doc}.json", {"status": "ok", "data": LABEL})
    return root


# Each fixture breaks one thing; the file a scoring command must name when it stops.
BROKEN = {
    "label not JSON": ("labels/d2.json", b'{"total": 5,'),
    "label NaN": ("labels/d2.json", b'{"total": NaN}'),
    "label overflow": ("labels/d2.json", b'{"total": 1e999999}'),
    "label nested 300 deep": ("labels/d2.json", b'{"total": ' + b"[" * 300 + b"]" * 300 + b"}"),
    "label not an object": ("labels/d2.json", b'["total", 5]'),
    "label a folder": ("labels/d2.json", "DIR"),
    "schema not JSON": ("schemas/d2.json", b'{"type": "object",'),
    "schema Infinity": ("schemas/d2.json", b'{"type": "object", "maximum": Infinity}'),
    "schema unknown option": ("schemas/d2.json", json.dumps(
        {"type": "object", "properties": {"total": {
            "type": "number", "x-leafscore": {"tolerance": 1}}}}).encode()),
    "schema bad option value": ("schemas/d2.json", json.dumps(
        {"type": "object", "properties": {"total": {
            "type": "number", "x-leafscore": {"abs_tol": -1}}}}).encode()),
    "schema unresolvable ref": ("schemas/d2.json", json.dumps(
        {"type": "object", "properties": {"total": {"$ref": "#/$defs/nope"}}}).encode()),
    "schema missing": ("schemas/d2.json", None),
    "config unknown key": ("benchmark.toml", b'scoring_verison = "1.0"\n'),
    "config unknown version": ("benchmark.toml", b'scoring_version = "3.0"\n'),
    "config bad option": ("benchmark.toml", b'[options]\ndecimal_separator = ";"\n'),
    "config not TOML": ("benchmark.toml", b"scoring_version = \n"),
    "no results": ("results", None),
}


def plant(root: Path, rel: str, content: bytes | str | None) -> None:
    path = root / rel
    if path.is_dir():
        shutil.rmtree(path)
    elif path.exists():
        path.unlink()
    if content == "DIR":
        path.mkdir()
    elif content is not None:
        write(path, content)


@pytest.mark.parametrize("rel, content", BROKEN.values(), ids=BROKEN.keys())
@pytest.mark.parametrize("command", ["score", "leaderboard", "report"])
def test_validate_fails_first_on_every_input_a_scoring_command_refuses(
    tmp_path, rel, content, command
):
    root = good(tmp_path / "bench")
    plant(root, rel, content)
    scored = invoke(command, root, "--no-cache", "--out", tmp_path / "out.json") \
        if command == "report" else invoke(command, root, "--no-cache")
    assert scored.exit_code == 2, scored.output
    assert Path(rel).name in scored.stderr.splitlines()[-1]
    checked = invoke("validate", root)
    assert checked.exit_code != 0
    assert Path(rel).name in checked.stdout + checked.stderr


def test_a_crlf_reindented_copy_has_the_same_signature_and_verifies(tmp_path):
    plain = copy_tree(REPO, tmp_path / "plain")
    crlf = copy_tree(REPO, tmp_path / "crlf")
    for path in list((crlf / "schemas").glob("*.json")) + list((crlf / "labels").glob("*.json")):
        value = json.loads(path.read_text(encoding="utf-8"))
        text = json.dumps(value, indent=3, ensure_ascii=False).replace("\n", "\r\n")
        path.write_bytes(text.encode("utf-8"))
    (crlf / "benchmark.toml").write_bytes((crlf / "benchmark.toml").read_bytes()
                                          .replace(b"\n", b"\r\n"))
    assert invoke("report", plain, "--no-cache").exit_code == 0
    written = json.loads((plain / "results" / "summary.json").read_text())
    shutil.copy(plain / "results" / "summary.json", crlf / "results" / "summary.json")
    shutil.copy(plain / "results" / "summary.csv", crlf / "results" / "summary.csv")
    verified = invoke("verify", crlf, "--no-cache")
    assert verified.exit_code == 0, verified.output + verified.stderr
    board = invoke("leaderboard", crlf, "--no-cache")
    assert written["signature"] in board.stdout


def test_a_change_of_content_changes_the_label_digest(tmp_path):
    plain = copy_tree(REPO, tmp_path / "plain")
    before = invoke("leaderboard", plain, "--no-cache").stdout.splitlines()[-1]
    label = plain / "labels" / "inv-001.json"
    label.write_text(label.read_text().replace("1", "2", 1))
    after = invoke("leaderboard", plain, "--no-cache").stdout.splitlines()[-1]
    assert before.split("|labels:")[1][:12] != after.split("|labels:")[1][:12]
    assert before.split("|schemas:")[1][:12] == after.split("|schemas:")[1][:12]


def test_no_version_branch_lives_outside_the_version_records():
    sources = [REPO / "scorer.py", *sorted((REPO / "leafscore").glob("*.py"))]
    found = [f"{path.name}:{n}" for path in sources
             for n, line in enumerate(path.read_text().splitlines(), 1)
             if "version == " in line]
    assert found == []


# --- both entry points on one folder ----------------------------------------------------


def scorer_py(root: Path) -> subprocess.CompletedProcess:
    """`python scorer.py` run in ``root``."""
    return subprocess.run([sys.executable, str(REPO / "scorer.py")], cwd=root,
                          capture_output=True, text=True, timeout=120, check=False)


def file_named(stderr: str) -> str:
    """The file the last line names: ``leafscore: error: FILE: ...``, ``scorer.py: FILE: ...``."""
    line = stderr.splitlines()[-1]
    return line.removeprefix("leafscore: error: ").removeprefix("scorer.py: ").split(": ")[0]


def stops(root: Path, monkeypatch) -> dict[str, tuple[int, str]]:
    """Exit code and the file named of `leafscore score`, `leafscore validate` and
    `python scorer.py`, each run in ``root``."""
    monkeypatch.chdir(root)
    scored, checked, script = invoke("score", "--no-cache"), invoke("validate"), scorer_py(root)
    return {"leafscore score": (scored.exit_code, file_named(scored.stderr)),
            "leafscore validate": (checked.exit_code, file_named(checked.stderr)),
            "python scorer.py": (script.returncode, file_named(script.stderr))}


def run_both(root: Path, monkeypatch) -> dict[str, tuple[int, list[str]]]:
    """Exit code and stderr lines of `leafscore score` and `python scorer.py`, each run in
    ``root``: ``error: FILE: ...`` and ``warning: FILE: ...``, the program's name left out
    (and leafscore's notes, such as the unpinned version)."""
    monkeypatch.chdir(root)
    package = invoke("score", "--no-cache", "--warnings", "all")
    script = scorer_py(root)
    package_lines = [line.removeprefix("leafscore: ") for line in package.stderr.splitlines()
                     if line.startswith(("leafscore: error: ", "leafscore: warning: "))]
    script_lines = [line.removeprefix("scorer.py: ") for line in script.stderr.splitlines()]
    script_lines = [line if line.startswith("warning: ") else f"error: {line}"
                    for line in script_lines]
    return {"leafscore score": (package.exit_code, package_lines),
            "python scorer.py": (script.returncode, script_lines)}


def test_both_entry_points_refuse_a_system_folder_starting_with_a_dash(tmp_path, monkeypatch):
    root = good(tmp_path / "bench")
    shutil.copytree(root / "results/sys", root / "results/-dash")
    expected = (2, ["error: results/-dash/: system name '-dash' starts with '-'"])
    assert run_both(root, monkeypatch) == {"leafscore score": expected,
                                           "python scorer.py": expected}


def test_both_entry_points_refuse_a_labels_folder_without_label_files(tmp_path, monkeypatch):
    root = good(tmp_path / "bench")
    for label in (root / "labels").iterdir():
        label.unlink()
    expected = (2, ["error: labels/: no label files (labels/<id>.json)"])
    assert run_both(root, monkeypatch) == {"leafscore score": expected,
                                           "python scorer.py": expected}


def test_both_entry_points_warn_about_a_result_with_no_label(tmp_path, monkeypatch):
    root = good(tmp_path / "bench")
    write(root / "results/sys/zzz-999.json", {"status": "ok", "data": LABEL})
    expected = (0, ["warning: results/sys/zzz-999.json: not a result of a labelled document: "
                    "ignored"])
    assert run_both(root, monkeypatch) == {"leafscore score": expected,
                                           "python scorer.py": expected}


def test_both_entry_points_warn_about_a_file_beside_the_system_folders(tmp_path, monkeypatch):
    root = good(tmp_path / "bench")
    write(root / "results/stray.json", {"status": "ok", "data": LABEL})
    expected = (0, ["warning: results/stray.json: not in a system folder "
                    "(results/<system>/<id>.json): ignored"])
    assert run_both(root, monkeypatch) == {"leafscore score": expected,
                                           "python scorer.py": expected}


def test_validate_warns_about_a_file_beside_the_system_folders(tmp_path):
    root = good(tmp_path / "bench")
    write(root / "results/stray.json", {"status": "ok", "data": LABEL})
    checked = invoke("validate", root)
    assert checked.exit_code == 0
    assert checked.stderr.splitlines() == [
        "leafscore: warning: results/stray.json: not in a system folder "
        "(results/<system>/<id>.json): ignored"]


def test_the_summary_files_report_writes_into_results_are_not_stray_files(
    tmp_path, monkeypatch
):
    root = good(tmp_path / "bench")
    write(root / "results/summary.json", {})
    write(root / "results/summary.csv", "system,score\n")
    expected = (0, [])
    assert run_both(root, monkeypatch) == {"leafscore score": expected,
                                           "python scorer.py": expected}


def test_every_entry_point_names_labels_first_when_neither_labels_nor_results_exist(
    tmp_path, monkeypatch
):
    root = tmp_path / "bench"
    (root / "schemas").mkdir(parents=True)
    assert stops(root, monkeypatch) == {"leafscore score": (2, "labels/"),
                                        "leafscore validate": (2, "labels/"),
                                        "python scorer.py": (2, "labels/")}


def test_every_entry_point_names_results_before_a_missing_schemas_folder(tmp_path, monkeypatch):
    root = good(tmp_path / "bench")
    shutil.rmtree(root / "schemas")
    shutil.rmtree(root / "results")
    assert stops(root, monkeypatch) == {"leafscore score": (2, "results/"),
                                        "leafscore validate": (2, "results/"),
                                        "python scorer.py": (2, "results/")}
