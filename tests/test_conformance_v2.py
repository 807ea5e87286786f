"""Version 2.0 agrees with an independent brute-force reference of the spec.

shared/conformance/scoring-2.0/cases.jsonl holds 1,500 generated (schema, label, result)
cases with ``expected.accuracy`` and ``expected.counts`` (non-zero verdict counts without
``correct_absence``; null where a tie may legitimately split verdicts either way).
"""

from __future__ import annotations

import json
import math
from collections import Counter

import scorer


def _cases(shared) -> list[dict]:
    path = shared / "conformance" / "scoring-2.0" / "cases.jsonl"
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]


def _scored_counts(doc: scorer.DocScore) -> dict[str, int]:
    return {k: n for k, n in doc.counts.items() if n and k != "correct_absence"}


def test_the_reference_file_holds_1500_cases_with_unique_ids(shared):
    ids = [case["id"] for case in _cases(shared)]
    assert len(ids) == 1500
    assert len(set(ids)) == 1500


def test_every_case_scores_the_reference_accuracy_within_1e_12(engine, shared):
    wrong = []
    for case in _cases(shared):
        doc = engine.score(case["result"], case["schema"], case["label"], version="2.0")
        if not math.isclose(doc.value, case["expected"]["accuracy"], rel_tol=0, abs_tol=1e-12):
            wrong.append((case["id"], doc.value, case["expected"]["accuracy"]))
    assert wrong == []


def test_every_case_with_stated_counts_has_exactly_those_verdict_counts(engine, shared):
    wrong = []
    for case in _cases(shared):
        if case["expected"]["counts"] is None:
            continue
        doc = engine.score(case["result"], case["schema"], case["label"], version="2.0")
        if _scored_counts(doc) != case["expected"]["counts"]:
            wrong.append((case["id"], _scored_counts(doc), case["expected"]["counts"]))
    assert wrong == []


def test_the_cases_exercise_every_scored_verdict_kind(shared):
    seen = Counter()
    for case in _cases(shared):
        seen.update(case["expected"]["counts"] or {})
    assert set(seen) == set(scorer.VERDICT_KINDS) - {"correct_absence"}
