"""Untrusted submissions, round 2 (issue 14): what the one reader bounds.

Each hostile input is about 1 MB (or the size the issue measured) and must end as a value
or a located error within 5 s: the nesting scan before parsing is linear, JSONL lines go
through the same reader as files, and ``$ref`` never leaves the schema.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from cli_helpers import REPO, invoke, make_benchmark, private_cache  # noqa: F401 (fixture)
from kill_timeout import killed_after

import scorer

SCHEMA = {"type": "object", "properties": {"total": {"type": "number"},
                                           "name": {"type": "string"}}}
LABEL = {"total": 5, "name": "Beta"}
# 80,000 escaped quotes, then 201 brackets: a scan that retries an unterminated string
# from every quote is quadratic (65 s in `leafscore score` before).
QUOTES = b'{"name": "' + b'\\"' * 80_000 + b'"' + b"[" * 201


def bench(tmp_path: Path, result: bytes) -> Path:
    root = make_benchmark(tmp_path / "b", {"d": LABEL}, {"s": {"d": result}}, schema=SCHEMA)
    return root


def timed(call):
    """``call()``, failed if it runs past the generous kill timeout (no wall-time
    assertion: quadratic work on these inputs takes minutes, linear work a second)."""
    with killed_after():
        return call()


def test_escaped_quotes_before_deep_brackets_are_a_parse_failure_within_the_kill_timeout(tmp_path):
    root = bench(tmp_path, QUOTES)
    result = timed(lambda: invoke("score", root, "--format", "json", "--no-cache"))
    assert result.exit_code == 0
    assert json.loads(result.stdout)["systems"]["s"]["documents"] == {"d": 0.0}
    assert "(parse failure)" in result.stderr


def test_validate_reads_the_same_escaped_quotes_within_the_kill_timeout(tmp_path):
    root = bench(tmp_path, QUOTES)
    result = timed(lambda: invoke("validate", root))
    assert "results/s/d.json" in result.stderr and "(parse failure)" in result.stderr


def test_python_scorer_py_reads_the_same_escaped_quotes_within_the_kill_timeout(tmp_path):
    root = bench(tmp_path, QUOTES)
    run = timed(lambda: subprocess.run(
        [sys.executable, str(REPO / "scorer.py"), str(root), "--format", "json"],
        capture_output=True, text=True, timeout=60, check=False))
    assert run.returncode == 0
    assert json.loads(run.stdout)["systems"]["s"]["documents"] == {"d": 0.0}


def test_a_label_of_escaped_quotes_and_deep_brackets_is_refused_within_the_kill_timeout(tmp_path):
    root = bench(tmp_path, json.dumps({"status": "ok", "data": LABEL}).encode())
    (root / "labels" / "d.json").write_bytes(b'{"name": "' + b'\\"' * 80_000 + b'", "x": '
                                             + b"[" * 201 + b"]" * 201 + b"}")
    result = timed(lambda: invoke("score", root, "--no-cache"))
    assert result.exit_code == 2
    assert result.stderr.startswith("leafscore: error: labels/d.json:line 1 column ")
    assert "nesting deeper than 200 levels" in result.stderr


def test_a_megabyte_of_nesting_in_one_string_is_read_in_linear_time():
    text = b'{"name": "' + b"[" * 1_000_000 + b'"}'
    parsed = timed(lambda: scorer.parse_json(text, "r.json"))
    assert parsed.value == {"name": "[" * 1_000_000}


def jsonl(tmp_path: Path, prediction_lines: list[str]) -> tuple[Path, Path, Path]:
    gold, pred, schema = tmp_path / "gold.jsonl", tmp_path / "pred.jsonl", tmp_path / "s.json"
    gold.write_text("".join(json.dumps({"id": f"d{n}", **LABEL}) + "\n"
                            for n in range(len(prediction_lines))))
    pred.write_text("".join(line + "\n" for line in prediction_lines))
    schema.write_text(json.dumps(SCHEMA))
    return gold, pred, schema


def test_a_jsonl_prediction_holding_a_lone_surrogate_is_scored_without_a_traceback(tmp_path):
    gold, pred, schema = jsonl(tmp_path, ['{"id": "d0", "total": 5, "name": "Be\\ud800ta"}'])
    result = invoke("score", "--gold", gold, "--pred", pred, "--schema", schema,
                    "--format", "json", "--no-cache")
    assert result.exit_code == 0
    # U+FFFD is a symbol, deleted by the text canon: "Be\ufffdta" reads as "beta".
    assert json.loads(result.stdout)["systems"]["pred"]["documents"] == {"d0": 1.0}
    assert "unpaired surrogate" in result.stderr


def test_a_jsonl_prediction_nested_1000_deep_is_that_documents_parse_failure(tmp_path):
    deep = '{"id": "d1", "total": ' + "[" * 1000 + "]" * 1000 + "}"
    gold, pred, schema = jsonl(tmp_path, ['{"id": "d0", "total": 5, "name": "Beta"}', deep])
    result = invoke("score", "--gold", gold, "--pred", pred, "--schema", schema,
                    "--format", "json", "--no-cache")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["systems"]["pred"]["documents"] == {"d0": 1.0, "d1": 0.0}


@pytest.fixture
def no_network(monkeypatch):
    """Any attempt to open a URL or a socket fails the test."""
    def refuse(*args, **kwargs):
        raise AssertionError(f"network access attempted: {args[:1]}")
    monkeypatch.setattr(urllib.request, "urlopen", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)


@pytest.mark.parametrize("ref", ["http://127.0.0.1:9/schema.json", "https://example.com/s.json"])
def test_validate_never_fetches_a_remote_ref(tmp_path, no_network, ref):
    schema = {"type": "object", "properties": {"total": {"$ref": ref}}}
    root = make_benchmark(tmp_path / "b", {"d": LABEL}, {"s": {"d": LABEL}}, schema=schema)
    result = invoke("validate", root)
    assert result.exit_code == 1
    assert "schemas/d.json" in result.stdout and "$ref" in result.stdout


def test_validate_never_reads_a_file_ref_outside_root(tmp_path, no_network):
    secret = tmp_path / "secret.json"
    secret.write_text('{"type": "string", "description": "TOP-SECRET-CONTENT"}')
    schema = {"type": "object", "properties": {"total": {"$ref": secret.as_uri()}}}
    root = make_benchmark(tmp_path / "b", {"d": LABEL}, {"s": {"d": LABEL}}, schema=schema)
    result = invoke("validate", root)
    assert result.exit_code == 1
    assert "TOP-SECRET-CONTENT" not in result.stdout + result.stderr
