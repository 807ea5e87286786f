"""Faults reported publicly against scorers of this kind (shared/cases/field-cases.jsonl,
field-cases-2.jsonl: the corner faults of issue 9; field-cases-3.jsonl: the faults 2.1
fixes).

Each case states, for version 2.0, the accuracy (within 1e-12), mostly the non-zero
verdict counts without ``correct_absence`` (exactly) and sometimes per-field tp/fp/fn; for
version 1.0, the reference's ``final`` where it has one; for version 2.1, the same as for
2.0 plus the verdict kind at some addresses (``"at"``). A case without a ``"2.1"``
expectation must score under 2.1 as its ``"2.0"`` one says: 2.1 changes only what its spec
names (spec 2.1 §7).
"""

from __future__ import annotations

import json
import math

import pytest
from conftest import shared_dir

import scorer

CASES_FILES = (shared_dir() / "cases" / "field-cases.jsonl",
               shared_dir() / "cases" / "field-cases-2.jsonl",
               shared_dir() / "cases" / "field-cases-3.jsonl")


def _cases() -> list:
    if not all(path.is_file() for path in CASES_FILES):
        return [pytest.param(None, id="field-cases-absent")]
    cases = [json.loads(line) for path in CASES_FILES
             for line in path.read_text("utf-8").splitlines() if line]
    return [pytest.param(case, id=case["id"]) for case in cases]


def _v1_cases() -> list:
    return [p for p in _cases() if p.values[0] is None or "1.0" in p.values[0]["expected"]]


def scored_counts(doc: scorer.DocScore) -> dict[str, int]:
    """Non-zero verdict counts without correct_absence, as the cases write them."""
    return {k: n for k, n in doc.counts.items() if n and k != "correct_absence"}


def assert_scores_as_expected(doc: scorer.DocScore, expected: dict) -> None:
    assert math.isclose(doc.value, expected["accuracy"], rel_tol=0.0, abs_tol=1e-12)
    if "verdicts" in expected:  # a case may state only its accuracy
        assert scored_counts(doc) == expected["verdicts"]
    for path, counts in expected.get("fields", {}).items():
        got = doc.fields[path]
        assert (got.tp, got.fp, got.fn) == (counts["tp"], counts["fp"], counts["fn"])
    kinds = {v.address: v.kind for v in doc.verdicts}
    for address, kind in expected.get("at", {}).items():
        assert kinds.get(address) == kind, address


@pytest.mark.parametrize("case", _cases())
def test_a_field_case_scores_its_stated_accuracy_and_verdicts_under_2_0(engine, case, shared):
    doc = engine.score(case["result"], case["schema"], case["label"], version="2.0")
    assert_scores_as_expected(doc, case["expected"]["2.0"])


@pytest.mark.parametrize("case", _cases())
def test_a_field_case_scores_its_2_1_expectation_else_its_2_0_one_under_2_1(engine, case,
                                                                            shared):
    expected = case["expected"].get("2.1", case["expected"]["2.0"])
    doc = engine.score(case["result"], case["schema"], case["label"], version="2.1")
    assert_scores_as_expected(doc, expected)


@pytest.mark.parametrize("case", _v1_cases())
def test_a_field_case_scores_its_stated_final_under_1_0(engine, case, shared):
    doc = engine.score(case["result"], case["schema"], case["label"], version="1.0")
    assert math.isclose(doc.value, case["expected"]["1.0"]["final"], rel_tol=0.0, abs_tol=1e-12)
