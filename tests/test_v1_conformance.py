"""Version 1.0 reproduces DocuBench 0.1.0 (shared/spec/scoring-1.0.md), bit for bit."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from scorer import ScoringError

REPO = Path(__file__).resolve().parent.parent


def _read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _mismatches(got, expected, where="") -> list[str]:
    """Every place where ``got`` differs from ``expected`` beyond 1e-12 (or in shape)."""
    if isinstance(expected, dict):
        if not isinstance(got, dict) or set(got) != set(expected):
            return [f"{where}: keys {sorted(got) if isinstance(got, dict) else got!r} "
                    f"!= {sorted(expected)}"]
        return [m for key in expected for m in _mismatches(got[key], expected[key],
                                                           f"{where}/{key}")]
    if isinstance(expected, float) or isinstance(got, float):
        if math.isclose(got, expected, rel_tol=0.0, abs_tol=1e-12):
            return []
        return [f"{where}: {got!r} != {expected!r}"]
    return [] if got == expected and type(got) is type(expected) else [
        f"{where}: {got!r} != {expected!r}"]


def test_every_generated_case_matches_the_reference_within_1e_12(engine, shared):
    cases = _read_jsonl(shared / "conformance" / "scoring-1.0" / "cases.jsonl")
    failures = []
    for case in cases:
        got = engine.score(case["result"], case["schema"], case["label"], version="1.0")
        for problem in _mismatches(got.to_dict(), case["expected"]):
            failures.append(f"{case['id']}{problem}")
    assert len(cases) == 2938
    assert failures == []


def test_every_generated_case_is_bit_identical_to_the_reference(engine, shared):
    cases = _read_jsonl(shared / "conformance" / "scoring-1.0" / "cases.jsonl")
    differing = [case["id"] for case in cases
                 if engine.score(case["result"], case["schema"], case["label"],
                                 version="1.0").to_dict() != case["expected"]]
    assert differing == []


def test_every_case_where_the_reference_raises_raises_scoring_error(engine, shared):
    cases = _read_jsonl(shared / "conformance" / "scoring-1.0" / "reference-errors.jsonl")
    silent = []
    for case in cases:
        try:
            engine.score(case["result"], case["schema"], case["label"], version="1.0")
        except ScoringError as exc:
            assert "2.0" in str(exc)
        else:
            silent.append(case["id"])
    assert len(cases) == 62
    assert silent == []


def test_an_array_under_any_of_is_an_error_naming_its_schema_pointer(engine):
    schema = {"type": "object", "properties": {
        "rows": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]},
        "x": {"type": "string"}}}
    with pytest.raises(ScoringError) as caught:
        engine.score({"x": "a"}, schema, {"x": "a"}, version="1.0", file="s.json")
    assert caught.value.pointer == "/properties/rows/anyOf/0"
    assert str(caught.value).startswith("s.json#/properties/rows/anyOf/0: ")


def test_scoring_error_is_a_value_error_that_survives_pickling():
    import pickle

    error = ScoringError("s.json", "/properties/a", "why")
    again = pickle.loads(pickle.dumps(error))
    assert isinstance(again, ValueError)
    assert (again.file, again.pointer, again.reason) == ("s.json", "/properties/a", "why")


def test_docubench_scores_reproduce_the_published_summary_through_the_cli(shared):
    root = shared / "docubench"
    reference = json.loads((root / "results" / "summary.json").read_text())
    run = subprocess.run([sys.executable, str(REPO / "scorer.py"), str(root), "--version",
                          "1.0", "--format", "json"], capture_output=True, text=True, check=True)
    got = json.loads(run.stdout)
    assert got["version"] == "1.0"
    assert sorted(got["systems"]) == sorted(reference["aggregates"])
    compared = 0
    for row in reference["per_doc"]:
        for system in reference["aggregates"]:
            value = got["systems"][system]["documents"][row["doc_id"]]
            assert abs(value - row[system]) <= 1e-12, (system, row["doc_id"])
            compared += 1
    assert compared == 300
    for system, value in reference["aggregates"].items():
        assert abs(got["systems"][system]["score"] - value) <= 1e-12, system


def test_docubench_markdown_leaderboard_prints_the_published_numbers_best_first(shared):
    run = subprocess.run([sys.executable, str(REPO / "scorer.py"), str(shared / "docubench"),
                          "--version", "1.0", "--format", "md"],
                         capture_output=True, text=True, check=True)
    rows = [line.split("|") for line in run.stdout.splitlines() if line.startswith("| ")]
    scores = [cells[3].strip() for cells in rows[1:]]
    assert scores == ["97.24", "96.00", "95.80", "93.54", "92.52", "90.33"]
    assert "scoring version 1.0" in run.stdout
