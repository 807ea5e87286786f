"""``python scorer.py ROOT`` shows only document values, so it counts each document's
verdicts as the walk goes instead of listing them (``Document.value``); these tests hold
that count to the listed verdicts' accuracy, bit for bit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import scorer

REPO = Path(__file__).resolve().parent.parent


def outcomes(root: Path, version: str):
    """(document prepared, outcome) of every document x system of a benchmark folder."""
    record = scorer.scoring_version(version)
    options = scorer.read_config(root)["options"]
    for doc_id in scorer.document_ids(root / "labels"):
        schema = scorer.read_json_file(root / "schemas" / f"{doc_id}.json").value
        label = scorer.read_json_file(root / "labels" / f"{doc_id}.json").value
        document = record.document(schema, label, options, doc_id)
        for system in scorer.system_names(root / "results"):
            path = root / "results" / system / f"{doc_id}.json"
            yield record, document, scorer.read_outcome(path, schema, record, root)


@pytest.mark.parametrize("version", ["1.0", "2.0", "2.1"])
def test_the_counted_value_is_the_listed_verdicts_value_on_docubench(shared, version):
    seen = 0
    for record, document, outcome in outcomes(shared / "docubench", version):
        full = record.score_outcome(outcome, None, None, scorer.Options(), document=document)
        assert record.value_of(outcome, document) == (None if full is None else full.value)
        seen += 1
    assert seen == 300


@pytest.mark.parametrize("version", ["2.0", "2.1"])
def test_the_counted_value_is_the_listed_verdicts_value_on_the_sample(version):
    values = [(record.value_of(outcome, document),
               record.score_outcome(outcome, None, None, scorer.Options(), document=document))
              for record, document, outcome in outcomes(REPO, version)]
    assert len(values) == 48
    assert all(value == full.value for value, full in values)


def test_a_document_stating_nothing_is_worth_1_counted_or_listed():
    record = scorer.scoring_version("2.1")
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    document = record.document(schema, {"a": None}, scorer.Options(), "")
    assert document.value({"a": ""}) == 1.0 == document.score({"a": ""}).value


def test_a_result_that_is_not_an_object_counts_as_a_parse_failure_worth_0():
    record = scorer.scoring_version("2.1")
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    document = record.document(schema, {"a": "x"}, scorer.Options(), "")
    assert document.value([1, 2]) == 0.0


def test_extra_items_count_against_the_value_as_they_do_listed():
    record = scorer.scoring_version("2.1")
    schema = {"type": "object", "properties": {"rows": {"type": "array", "items": {
        "type": "object", "properties": {"x": {"type": "string"}}}}}}
    document = record.document(schema, {"rows": [{"x": "a"}]}, scorer.Options(), "")
    result = {"rows": [{"x": "a"}, {"x": "b"}, {"x": "c"}]}
    assert document.value(result) == 1 / 3 == document.score(result).value
    assert json.dumps(document.score(result).counts["extra_item"]) == "2"
