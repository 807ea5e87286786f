"""Hostile files and untrusted folders, through both command lines (issue 5, items 2-4).

Each hostile file is made by the test inside a two-document benchmark (``d1`` a perfect
result, ``d2`` the hostile one) and run through ``leafscore score`` (click's test runner)
and ``python scorer.py ROOT`` (a subprocess). The outcome is defined per role:

* a **result**: that document is a parse failure (score 0.0, a warning naming the file)
  or, for input leafscore accepts with a warning, scored; the run goes on (``d1`` still
  scores 1.0) and exits 0;
* a **label or schema**: one line on stderr naming the file and the position, exit 2, no
  traceback.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import scorer
from leafscore.cli import main

REPO = Path(__file__).resolve().parent.parent
SCHEMA = b'{"type":"object","properties":{"total":{"type":"number"},"name":{"type":"string"}}}'
LABELS = {"d1": b'{"total":5,"name":"Acme"}', "d2": b'{"total":7,"name":"Beta"}'}
DEEP = b"[" * 100_000 + b"]" * 100_000


def envelope(data: bytes) -> bytes:
    return b'{"status":"ok","data":' + data + b"}"


def make_benchmark(root: Path) -> Path:
    """ROOT with schemas/, labels/ and results/sysA/ for d1 and d2, all perfect."""
    for folder in ("schemas", "labels", "results/sysA"):
        (root / folder).mkdir(parents=True)
    for doc_id, label in LABELS.items():
        (root / f"schemas/{doc_id}.json").write_bytes(SCHEMA)
        (root / f"labels/{doc_id}.json").write_bytes(label)
        (root / f"results/sysA/{doc_id}.json").write_bytes(envelope(label))
    return root


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_benchmark(tmp_path / "bench")


def plant(path: Path, content: bytes | str) -> None:
    """Replace ``path`` by ``content``: bytes, ``"DIR"`` (a folder) or ``"BIG"`` (a
    sparse 200 MB file of NUL bytes, made instantly)."""
    path.unlink()
    if content == "DIR":
        path.mkdir()
    elif content == "BIG":
        with open(path, "wb") as handle:
            handle.truncate(200_000_000)
    else:
        assert isinstance(content, bytes)
        path.write_bytes(content)


def leafscore(*args: str):
    return CliRunner().invoke(main, [*args], catch_exceptions=True)


def leafscore_json(root: Path, *extra: str) -> tuple[dict, str]:
    outcome = leafscore("score", str(root), "--format", "json", "--no-cache", *extra)
    assert outcome.exit_code == 0, outcome.output
    return json.loads(outcome.stdout), outcome.stderr


def scorer_py(root: Path, version: str = "2.0") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(REPO / "scorer.py"), str(root), "--version", version,
         "--format", "json"],
        capture_output=True, text=True, errors="replace", timeout=120, check=False,
    )


def assert_one_line_error(stderr: str, *needles: str) -> None:
    lines = stderr.strip().splitlines()
    assert "Traceback" not in stderr
    assert len(lines) == 1, stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


# --- hostile results -----------------------------------------------------------------------

PARSE_FAILURES = {
    "invalid UTF-8": (envelope(b'{"name":"\xff"}'), "byte 31: invalid UTF-8"),
    "NaN": (envelope(b'{"total":NaN}'), "line 1 column 32: NaN is not a JSON value"),
    "Infinity": (envelope(b'{"total":Infinity}'), "line 1 column 32: Infinity is not"),
    "-Infinity": (envelope(b'{"total":-Infinity}'), "line 1 column 32: -Infinity is not"),
    "1e999999": (envelope(b'{"total":1e999999}'), "1e999999 is too large for a float"),
    "5,000-digit integer": (
        envelope(b'{"total":' + b"7" * 5000 + b"}"), "integer with 5,000 digits exceeds"
    ),
    "nesting 100,000 deep": (envelope(b'{"total":' + DEEP + b"}"), "nesting deeper than 200"),
    "envelope not an object": (b'[{"total":7,"name":"Beta"}]', "not an object"),
    "data a string holding broken JSON": (
        json.dumps({"status": "ok", "data": '{"total": 7,'}).encode(), "parse failure"
    ),
    "status failed": (b'{"status":"failed","data":{"total":7,"name":"Beta"}}', "'failed'"),
    "empty file": (b"", "is empty"),
    "directory": ("DIR", "is a directory, expected a JSON file"),
    "200 MB file": ("BIG", "larger than the limit of 67,108,864 bytes (64 MiB)"),
}


@pytest.mark.parametrize("content, warning", PARSE_FAILURES.values(), ids=PARSE_FAILURES.keys())
def test_a_hostile_result_is_that_documents_parse_failure_and_the_run_goes_on(
    root, content, warning
):
    plant(root / "results/sysA/d2.json", content)
    out, stderr = leafscore_json(root, "--version", "2.0")
    system = out["systems"]["sysA"]
    assert system["documents"] == {"d1": 1.0, "d2": 0.0}
    assert system["status"] == {"d1": "scored", "d2": "parse_failure"}
    assert "results/sysA/d2.json" in stderr and warning in stderr
    assert "Traceback" not in stderr


def test_scorer_py_scores_every_hostile_result_as_a_parse_failure_and_goes_on(tmp_path):
    root = make_benchmark(tmp_path / "bench")
    names = {}
    for n, (case, (content, _)) in enumerate(PARSE_FAILURES.items()):
        system = f"sys{n:02d}"
        names[system] = case
        shutil.copytree(root / "results/sysA", root / f"results/{system}")
        plant(root / f"results/{system}/d2.json", content)
    run = scorer_py(root)  # one subprocess for every case: python scorer.py ROOT
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    systems = json.loads(run.stdout)["systems"]
    scores = {names[s]: systems[s]["documents"] for s in names}
    assert scores == {case: {"d1": 1.0, "d2": 0.0} for case in PARSE_FAILURES}


ACCEPTED = {
    "UTF-8 BOM": (
        codecs.BOM_UTF8 + envelope(LABELS["d2"]), "starts with a UTF-8 byte-order mark; ignored"
    ),
    "UTF-16 with BOM": (envelope(LABELS["d2"]).decode().encode("utf-16"), "decoded as UTF-16"),
    "duplicate keys": (
        envelope(b'{"total":1,"total":7,"name":"Beta"}'), "duplicate key 'total'"
    ),
    "data a string holding JSON": (
        json.dumps({"status": "ok", "data": LABELS["d2"].decode()}).encode(),
        "data given as text holding JSON: decoded",
    ),
}


@pytest.mark.parametrize("content, warning", ACCEPTED.values(), ids=ACCEPTED.keys())
def test_a_suspicious_but_readable_result_is_scored_with_a_warning(root, content, warning):
    plant(root / "results/sysA/d2.json", content)
    out, stderr = leafscore_json(root, "--version", "2.0")
    assert out["systems"]["sysA"]["documents"] == {"d1": 1.0, "d2": 1.0}
    assert f"results/sysA/d2.json: {warning}" in stderr


def test_scorer_py_and_leafscore_agree_on_every_readable_hostile_result(tmp_path):
    root = make_benchmark(tmp_path / "bench")
    for n, (content, _) in enumerate(ACCEPTED.values()):
        shutil.copytree(root / "results/sysA", root / f"results/sys{n:02d}")
        plant(root / f"results/sys{n:02d}/d2.json", content)
    theirs = json.loads(scorer_py(root).stdout)["systems"]
    ours, _ = leafscore_json(root, "--version", "2.0")
    assert {s: v["documents"] for s, v in theirs.items()} == {
        s: v["documents"] for s, v in ours["systems"].items()
    }


def test_version_1_0_scores_a_hostile_result_as_empty_data_and_goes_on(root):
    plant(root / "results/sysA/d2.json", envelope(b'{"total":NaN}'))
    out, _ = leafscore_json(root, "--version", "1.0")
    assert out["systems"]["sysA"]["documents"] == {"d1": 1.0, "d2": 0.0}


# --- hostile labels and schemas ----------------------------------------------------------------

REFUSED = {
    "invalid UTF-8": (b'{"name":"\xff"}', "byte 9: invalid UTF-8"),
    "NaN": (b'{"total":NaN}', "line 1 column 10: NaN is not a JSON value"),
    "Infinity": (b'{"total":Infinity}', "line 1 column 10: Infinity is not a JSON value"),
    "-Infinity": (b'{"total":-Infinity}', "line 1 column 10: -Infinity is not a JSON value"),
    "1e999999": (b'{"total":1e999999}', "line 1 column 10: number 1e999999 is too large"),
    "5,000-digit integer": (b'{"total":' + b"7" * 5000 + b"}", "line 1 column 10: integer"),
    "nesting 100,000 deep": (b'{"total":' + DEEP + b"}", "nesting deeper than 200 levels"),
    "syntax error": (b'{"total":\n  7,}', "line 2 column 5: Expecting property name"),
    "empty file": (b"", "is empty"),
    "directory": ("DIR", "is a directory, expected a JSON file"),
    "200 MB file": ("BIG", "larger than the limit of 67,108,864 bytes (64 MiB)"),
}


@pytest.mark.parametrize("role", ["labels", "schemas"])
@pytest.mark.parametrize("content, message", REFUSED.values(), ids=REFUSED.keys())
def test_a_hostile_label_or_schema_is_one_line_naming_file_and_place_exit_2(
    root, role, content, message
):
    plant(root / f"{role}/d2.json", content)
    outcome = leafscore("score", str(root), "--version", "2.0", "--no-cache")
    assert outcome.exit_code == 2
    assert outcome.stdout == ""
    assert_one_line_error(outcome.stderr, f"error: {role}/d2.json", message)


@pytest.mark.parametrize("role", ["labels", "schemas"])
@pytest.mark.parametrize("content, message", REFUSED.values(), ids=REFUSED.keys())
def test_validate_reports_a_hostile_label_or_schema_without_a_traceback(
    root, role, content, message
):
    plant(root / f"{role}/d2.json", content)
    outcome = leafscore("validate", str(root))
    assert outcome.exit_code == 1, outcome.output
    assert outcome.exception is None or isinstance(outcome.exception, SystemExit)
    assert f"{role}/d2.json" in outcome.stdout and message in outcome.stdout


@pytest.mark.parametrize("role", ["labels", "schemas"])
@pytest.mark.parametrize(
    "content, name",
    [
        pytest.param(content, name, id=name) for name, (content, _) in REFUSED.items()
    ],
)
def test_scorer_py_refuses_a_hostile_label_or_schema_in_one_line_exit_2(
    root, role, content, name, capsys
):
    plant(root / f"{role}/d2.json", content)
    code = scorer.main([str(root), "--version", "2.0", "--format", "json"])  # in process
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    assert_one_line_error(captured.err, f"{role}/d2.json")


def test_python_scorer_py_refuses_a_label_nested_900_deep_without_a_traceback(root):
    plant(root / "labels/d2.json", b'{"total":' + b"[" * 900 + b"]" * 900 + b"}")
    run = scorer_py(root, version="1.0")
    assert run.returncode == 2
    assert_one_line_error(run.stderr, "labels/d2.json")


def test_python_scorer_py_refuses_a_hostile_label_without_a_traceback(root):
    plant(root / "labels/d2.json", b'{"total":' + DEEP + b"}")
    run = scorer_py(root)
    assert run.returncode == 2
    assert_one_line_error(run.stderr, "labels/d2.json")


ORIGINAL = {"labels": LABELS["d2"], "schemas": SCHEMA}


@pytest.mark.parametrize("role", ["labels", "schemas"])
def test_a_label_or_schema_with_a_utf8_bom_is_read(root, role):
    plant(root / f"{role}/d2.json", codecs.BOM_UTF8 + ORIGINAL[role])
    out, _ = leafscore_json(root, "--version", "2.0")
    assert out["systems"]["sysA"]["documents"] == {"d1": 1.0, "d2": 1.0}


@pytest.mark.parametrize("role", ["labels", "schemas"])
def test_a_utf16_label_or_schema_with_a_bom_is_decoded(root, role):
    plant(root / f"{role}/d2.json", ORIGINAL[role].decode().encode("utf-16"))
    out, _ = leafscore_json(root, "--version", "2.0")
    assert out["systems"]["sysA"]["documents"] == {"d1": 1.0, "d2": 1.0}


def test_a_label_with_a_duplicate_key_keeps_the_last_value(root):
    plant(root / "labels/d2.json", b'{"total":1,"total":7,"name":"Beta"}')
    out, _ = leafscore_json(root, "--version", "2.0")
    assert out["systems"]["sysA"]["documents"] == {"d1": 1.0, "d2": 1.0}


def test_a_duplicate_key_in_a_label_is_warned_about(root):
    plant(root / "labels/d2.json", b'{"total":1,"total":7,"name":"Beta"}')
    _, stderr = leafscore_json(root, "--version", "2.0")
    assert "labels/d2.json: duplicate key 'total'" in stderr


# --- untrusted folders -----------------------------------------------------------------------


def test_a_result_symlink_pointing_outside_root_is_not_read_and_is_a_parse_failure(
    root, tmp_path
):
    secret = tmp_path / "secret.json"
    secret.write_bytes(envelope(LABELS["d2"]))
    (root / "results/sysA/d2.json").unlink()
    (root / "results/sysA/d2.json").symlink_to(secret)
    outcome = leafscore("score", str(root), "--format", "json", "--no-cache")
    assert outcome.exit_code == 0
    assert json.loads(outcome.stdout)["systems"]["sysA"]["documents"]["d2"] == 0.0
    assert "results/sysA/d2.json" in outcome.stderr and "outside" in outcome.stderr


def test_a_system_folder_symlinked_outside_root_is_refused(root, tmp_path):
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere/d1.json").write_bytes(envelope(LABELS["d1"]))
    (root / "results/sysB").symlink_to(tmp_path / "elsewhere")
    outcome = leafscore("score", str(root), "--no-cache")
    assert outcome.exit_code == 2
    assert_one_line_error(outcome.stderr, "results/sysB", "outside")


def test_scorer_py_never_reads_a_result_symlinked_outside_root(root, tmp_path):
    secret = tmp_path / "secret.json"
    secret.write_bytes(envelope(LABELS["d2"]))
    (root / "results/sysA/d2.json").unlink()
    (root / "results/sysA/d2.json").symlink_to(secret)
    run = scorer_py(root)
    assert "Traceback" not in run.stderr
    if run.returncode == 0:  # refused as that document's parse failure
        assert json.loads(run.stdout)["systems"]["sysA"]["documents"]["d2"] == 0.0
    else:
        assert run.returncode == 2


def test_a_label_symlink_pointing_outside_root_is_refused(root, tmp_path):
    secret = tmp_path / "secret.json"
    secret.write_bytes(LABELS["d2"])
    (root / "labels/d2.json").unlink()
    (root / "labels/d2.json").symlink_to(secret)
    outcome = leafscore("score", str(root), "--no-cache")
    assert outcome.exit_code == 2
    assert_one_line_error(outcome.stderr, "labels/d2.json", "outside")


@pytest.mark.parametrize("name", ["../sysA", "a/b", "..", "", "-rf", "a\\b"])
def test_a_bad_system_name_on_the_command_line_is_refused(root, name):
    outcome = leafscore("score", str(root), "--system", name, "--no-cache")
    assert outcome.exit_code == 2
    assert_one_line_error(outcome.stderr, "system name")


def test_a_document_id_that_is_not_a_safe_name_is_refused(root):
    (root / "labels/-rf.json").write_bytes(LABELS["d1"])
    outcome = leafscore("score", str(root), "--no-cache")
    assert outcome.exit_code == 2
    assert_one_line_error(outcome.stderr, "labels/-rf.json", "document id '-rf'")


def test_an_explain_id_with_a_path_in_it_is_refused(root):
    outcome = leafscore("explain", "../labels/d1", str(root), "--system", "sysA", "--no-cache")
    assert outcome.exit_code == 2
    assert_one_line_error(outcome.stderr, "document id", "path separator")


def test_jsonl_ids_are_never_used_as_paths(tmp_path):
    (tmp_path / "schema.json").write_bytes(SCHEMA)
    evil = "../../escaped"
    (tmp_path / "gold.jsonl").write_text(
        json.dumps({"id": evil, "total": 7, "name": "Beta"}) + "\n"
        + json.dumps({"id": "/etc/passwd", "total": 5, "name": "Acme"}) + "\n"
    )
    (tmp_path / "pred.jsonl").write_text(
        json.dumps({"id": evil, "total": 7, "name": "Beta"}) + "\n"
        + json.dumps({"id": "/etc/passwd", "total": 5, "name": "Acme"}) + "\n"
    )
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    outcome = leafscore(
        "score", "--gold", str(tmp_path / "gold.jsonl"), "--pred", str(tmp_path / "pred.jsonl"),
        "--schema", str(tmp_path / "schema.json"), "--format", "json", "--no-cache",
    )
    assert outcome.exit_code == 0, outcome.output
    documents = json.loads(outcome.stdout)["systems"]["pred"]["documents"]
    assert documents == {evil: 1.0, "/etc/passwd": 1.0}
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


def test_a_jsonl_prediction_line_that_is_not_json_is_that_documents_parse_failure(tmp_path):
    (tmp_path / "schema.json").write_bytes(SCHEMA)
    (tmp_path / "gold.jsonl").write_text(
        '{"id": "d1", "total": 5, "name": "Acme"}\n{"id": "d2", "total": 7, "name": "Beta"}\n'
    )
    (tmp_path / "pred.jsonl").write_text(
        '{"id": "d1", "total": 5, "name": "Acme"}\n{"id": "d2", "total": NaN\n'
    )
    outcome = leafscore(
        "score", "--gold", str(tmp_path / "gold.jsonl"), "--pred", str(tmp_path / "pred.jsonl"),
        "--schema", str(tmp_path / "schema.json"), "--format", "json", "--no-cache",
    )
    assert outcome.exit_code == 0, outcome.output
    assert json.loads(outcome.stdout)["systems"]["pred"]["documents"] == {"d1": 1.0, "d2": 0.0}


def test_a_fenced_jsonl_prediction_is_unwrapped_with_a_warning(tmp_path):
    (tmp_path / "schema.json").write_bytes(SCHEMA)
    (tmp_path / "gold.jsonl").write_text('{"id": "d1", "total": 5, "name": "Acme"}\n')
    fenced = '```json\n{"total": 5, "name": "Acme"}\n```'
    (tmp_path / "pred.jsonl").write_text(json.dumps({"id": "d1", "output": fenced}) + "\n")
    outcome = leafscore(
        "score", "--gold", str(tmp_path / "gold.jsonl"), "--pred", str(tmp_path / "pred.jsonl"),
        "--schema", str(tmp_path / "schema.json"), "--format", "json", "--no-cache",
    )
    assert outcome.exit_code == 0, outcome.output
    assert json.loads(outcome.stdout)["systems"]["pred"]["documents"] == {"d1": 1.0}
    assert "in a markdown code fence: decoded" in outcome.stderr


# --- nothing executed or imported from a benchmark folder ---------------------------------------

TRAP = "import pathlib\npathlib.Path(__file__).with_name('IMPORTED').write_text(__name__)\n"


def trapped_benchmark(tmp_path: Path) -> Path:
    """A benchmark whose folder also holds modules named like leafscore's imports; each
    records its import by writing ROOT/IMPORTED."""
    root = make_benchmark(tmp_path / "bench")
    for name in ("scorer", "click", "numpy", "leafscore", "sitecustomize", "jsonschema"):
        (root / f"{name}.py").write_text(TRAP)
    return root


def test_the_leafscore_command_run_inside_a_benchmark_imports_nothing_from_it(tmp_path):
    command = shutil.which("leafscore")
    if command is None:
        pytest.skip("the leafscore console script is not installed")
    root = trapped_benchmark(tmp_path)
    outcome = subprocess.run([command, "score", ".", "--no-cache", "--version", "2.0"],
                             cwd=root, capture_output=True, text=True, timeout=120, check=False)
    assert outcome.returncode == 0, outcome.stderr
    assert not (root / "IMPORTED").exists()


def test_python_scorer_py_run_inside_a_benchmark_imports_nothing_from_it(tmp_path):
    root = trapped_benchmark(tmp_path)
    outcome = subprocess.run([sys.executable, str(REPO / "scorer.py"), ".", "--version", "2.0"],
                             cwd=root, capture_output=True, text=True, timeout=120, check=False)
    assert outcome.returncode == 0, outcome.stderr
    assert not (root / "IMPORTED").exists()



def test_python_dash_p_m_leafscore_run_inside_a_benchmark_imports_nothing_from_it(tmp_path):
    # Plain `python -m` puts the working folder first on sys.path (a Python rule no package
    # can undo); -P (Python 3.11+) leaves it out, so docs/CLI.md names these entry points.
    root = trapped_benchmark(tmp_path)
    outcome = subprocess.run([sys.executable, "-P", "-m", "leafscore", "score", ".",
                              "--no-cache", "--version", "2.0"],
                             cwd=root, capture_output=True, text=True, timeout=120, check=False)
    assert outcome.returncode == 0, outcome.stderr
    assert not (root / "IMPORTED").exists()

# --- nothing written into the inputs -------------------------------------------------------------


def input_digest(root: Path) -> str:
    """sha256 over names, kinds, modes and contents of schemas/, labels/, results/<system>/."""
    digest = hashlib.sha256()
    folders = [root / "schemas", root / "labels"]
    folders += sorted(p for p in (root / "results").iterdir() if p.is_dir())
    for folder in folders:
        for path in sorted([folder, *folder.rglob("*")]):
            info = os.lstat(path)
            digest.update(f"{path.relative_to(root)}|{info.st_mode:o}\n".encode())
            if path.is_file() and not path.is_symlink():
                digest.update(path.read_bytes())
    return digest.hexdigest()


def test_no_command_writes_inside_schemas_labels_or_system_folders(root, tmp_path):
    plant(root / "results/sysA/d2.json", envelope(b'{"total":NaN}'))
    before = input_digest(root)
    cache = str(tmp_path / "cache")
    commands = [
        ["validate", str(root)],
        ["score", str(root), "--cache-dir", cache],
        ["score", str(root), "--cache-dir", cache, "--workers", "2"],
        ["report", str(root), "--cache-dir", cache, "--resamples", "100"],
        ["verify", str(root), "--cache-dir", cache],
        ["leaderboard", str(root), "--cache-dir", cache, "--resamples", "100"],
        ["fields", str(root), "--system", "sysA", "--cache-dir", cache],
        ["explain", "d2", str(root), "--system", "sysA", "--cache-dir", cache],
    ]
    for command in commands:
        outcome = leafscore(*command)
        assert outcome.exit_code in (0, 1), (command, outcome.output)
    scorer_py(root)
    assert input_digest(root) == before
    assert (root / "results/summary.json").is_file()


def test_writing_a_leaderboard_into_a_system_folder_is_refused(root):
    before = input_digest(root)
    outcome = leafscore(
        "leaderboard", str(root), "--out", str(root / "results/sysA/board.md"), "--no-cache",
        "--resamples", "100", "--version", "2.0",
    )
    assert outcome.exit_code == 2
    assert_one_line_error(outcome.stderr, "results/sysA/board.md", "input folder")
    assert input_digest(root) == before
