"""Leaderboard --errors (error shares, schema validity), Holm-corrected ties, small-sample
warnings, and the new summary.json keys."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from cli_helpers import FLAT, REPO, invoke, make_benchmark

import leafscore
from leafscore.leaderboard import ERROR_KINDS
from leafscore.validity import is_valid


@pytest.fixture(scope="module")
def sample():
    return leafscore.evaluate(REPO, cache=False)


def test_error_shares_add_up_to_1_and_equal_the_verdict_counts(sample):
    for shares in sample.error_shares():
        kinds = Counter(r.kind for r in sample.verdicts() if r.system == shares.system)
        scored = sum(kinds.values()) - kinds["correct_absence"]
        assert shares.verdicts == scored
        assert dict(shares.counts) == {k: kinds[k] for k in ERROR_KINDS}
        assert sum(shares.shares.values()) == pytest.approx(1.0, abs=1e-12)


def test_atlas_has_438_correct_and_4_wrong_values_of_442_verdicts(sample):
    atlas = next(s for s in sample.error_shares() if s.system == "atlas")
    assert (atlas.verdicts, atlas.counts["correct"], atlas.counts["wrong_value"]) == (
        442, 438, 4)


def test_the_samples_schema_validity_is_8_2_1_2_of_12(sample):
    validity = {v.system: (v.valid, v.documents, v.missing, v.parse_failures)
                for v in sample.schema_validity()}
    assert validity == {"atlas": (8, 12, 0, 0), "beacon": (2, 12, 0, 1),
                        "cobalt": (1, 12, 1, 0), "drift": (2, 12, 0, 1)}


def test_atlas_is_invalid_where_it_writes_a_total_as_text_or_a_date_out_of_format(sample):
    atlas = next(v for v in sample.schema_validity() if v.system == "atlas")
    assert atlas.invalid == ("inv-001", "inv-002", "pay-001", "rct-001")


def test_schema_validity_uses_the_schemas_own_draft_and_no_retrieval():
    draft7 = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
              "properties": {"n": {"type": "number"}}, "dependencies": {"n": ["m"]}}
    assert not is_valid({"n": 1}, draft7)  # draft-07 `dependencies` is enforced
    remote = {"$ref": "https://example.com/schema.json"}
    assert not is_valid({}, remote)  # never fetched: unresolvable, so invalid


def test_schema_validity_never_changes_the_scores(sample):
    with_errors = sample.leaderboard(errors=True)
    plain = sample.leaderboard()
    assert [(r.system, r.score, r.low, r.high) for r in with_errors.rows] == [
        (r.system, r.score, r.low, r.high) for r in plain.rows]


def test_leaderboard_errors_prints_the_block_with_schema_validity():
    out = invoke("leaderboard", REPO, "--errors", "--format", "table").stdout
    assert "Error shares (% of scored verdicts) and schema validity" in out
    assert "66.67 (8/12)" in out
    assert "a missing or unparsable result counts as invalid" in out


def test_under_1_0_error_shares_are_undefined_and_validity_is_kept():
    out = json.loads(invoke("leaderboard", REPO, "--version", "1.0", "--errors",
                            "--format", "json").stdout)
    assert all(e["shares"] is None for e in out["errors"])
    assert [v["valid"] for v in out["validity"]] == [8, 2, 1, 2]


def test_the_footnote_states_holms_correction_and_the_document_count():
    out = invoke("leaderboard", REPO).stdout
    assert "Holm-adjusted for 3 comparisons with the leader" in out
    assert "Gaps rest on 12 paired documents (of 12)." in out
    assert "warning:" not in out


def test_docubench_1_0_docupipe_standard_and_gemini_are_tied_with_or_without_holm(shared):
    # Paired sign-flip test (10,000 patterns, seed 12345): docupipe_standard raw p = 0.0699
    # (0.140 after Holm over 5 comparisons), gemini 0.197: tied either way. (The old
    # bootstrap read 0.036 and called docupipe_standard behind without Holm.)
    run = leafscore.evaluate(shared / "docubench", version="1.0", keep_verdicts=False)
    holm = {r.system: r for r in run.leaderboard().rows}
    raw = {r.system: r.tie for r in run.leaderboard(correction="none").rows}
    assert [s for s, r in holm.items() if r.tie] == ["docupipe_standard", "gemini"]
    assert [s for s, tie in raw.items() if tie] == ["docupipe_standard", "gemini"]
    assert holm["docupipe_standard"].gap.p_value == pytest.approx(0.0699, abs=0.0001)
    assert holm["docupipe_standard"].p_adjusted == pytest.approx(0.1398, abs=0.0001)


def test_a_leaderboard_on_fewer_than_10_documents_warns_and_says_its_size(tmp_path):
    labels = {f"d{i}": {"a": "x", "b": "y"} for i in range(5)}
    results = {"s1": {f"d{i}": {"a": "x", "b": "y"} for i in range(5)},
               "s2": {f"d{i}": {"a": "x", "b": "z"} for i in range(5)}}
    root = make_benchmark(tmp_path, labels, results, schema=FLAT)
    out = invoke("leaderboard", root, "--version", "2.0").stdout
    assert ("warning: only 5 document(s), fewer than 10: bootstrap intervals are unreliable "
            "at this size (too narrow) and p-values coarse") in out
    assert "Gaps rest on 5 paired documents (of 5)." in out
    diff = invoke("diff", root, "--base", "s2", "--head", "s1", "--version", "2.0").stdout
    assert "on 5 documents scored on both sides." in diff
    assert "warning: only 5 document(s)" in diff
    csv = invoke("leaderboard", root, "--version", "2.0", "--format", "csv")
    assert "warning: only 5 document(s)" in csv.stderr


def test_the_summary_adds_power_suspects_error_shares_and_validity_after_the_old_keys(
        tmp_path):
    invoke("report", REPO, "--out", tmp_path)
    summary = json.loads((tmp_path / "summary.json").read_text())
    # then costs, as the sample's envelopes give cost and latency (issue 25)
    assert list(summary)[-5:] == ["power", "suspects", "error_shares", "schema_validity",
                                  "costs"]
    assert summary["power"]["documents_needed"] == {"0.01": 9391, "0.005": 37561}
    assert summary["suspects"] == {"min_agree": 3, "leaves": []}
    assert summary["schema_validity"]["atlas"]["share"] == pytest.approx(8 / 12)
    # Exact sign-flip test over beacon's 10 differing documents: 10 of 2**10 patterns;
    # the largest of the three raw p-values, so Holm leaves it as it is.
    assert summary["intervals"]["beacon"]["p_holm"] == 10 / 1024


def test_the_1_0_summary_has_no_suspects_and_no_error_shares(tmp_path):
    invoke("report", REPO, "--version", "1.0", "--out", tmp_path)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["suspects"] is None
    assert set(summary["error_shares"].values()) == {None}
