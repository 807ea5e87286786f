"""The fast engine's per-document memos of array pairs (``Tuning.memo_pairs``): what
they key on. An array is remembered by its read, one per place in the document, never by
its raw list, which a caller's Python data may hold at two places. And the flat fields'
reads kept across documents (``Tuning.memo_reads``): by leaf, member and version rules,
so a value read under one never answers for another."""

from __future__ import annotations

import copy

import pytest
from engines import differences, output

import scorer
from leafscore import _fast
from leafscore._fast import flat

MEMOS = ({}, {"memo_pairs": 0}, {"memo_pairs": 1})
MEMO_IDS = ["default", "memo_pairs=0", "memo_pairs=1"]


def _flat_array(field: str) -> dict:
    return {"type": "array", "items": {"type": "object",
                                       "properties": {field: {"type": "string"}}}}


#: ``a`` pairs its items by ``x``, ``b`` by ``y``: one raw list read under both.
TWO_FIELDS = {"type": "object", "properties": {"a": _flat_array("x"), "b": _flat_array("y")}}
LABEL_ROWS = [{"x": "1", "y": "A"}, {"x": "2", "y": "B"}]
RESULT_ROWS = [{"x": "1", "y": "B"}, {"x": "2", "y": "A"}]


@pytest.mark.parametrize("changes", MEMOS, ids=MEMO_IDS)
@pytest.mark.parametrize("version", ["2.0", "2.1"])
def test_one_list_object_at_two_array_fields_is_paired_at_each_by_its_own_items(version,
                                                                                 changes):
    label = {"a": LABEL_ROWS, "b": LABEL_ROWS}
    result = {"a": RESULT_ROWS, "b": RESULT_ROWS}
    with _fast.tuned(**changes):
        score = _fast.score(result, TWO_FIELDS, label, version=version)
    # a: x pairs item 0 with 0 and 1 with 1; b: y pairs them crosswise; all 4 leaves right
    assert score.value == 1.0
    assert score.counts["correct"] == 4


@pytest.mark.parametrize("version", ["2.0", "2.1"])
def test_one_list_object_at_two_array_fields_scores_as_the_definition_scores_it(version):
    label = {"a": LABEL_ROWS, "b": LABEL_ROWS}
    result = {"a": RESULT_ROWS, "b": RESULT_ROWS}
    assert scorer.score(result, TWO_FIELDS, label, version=version).value == 1.0
    assert differences(TWO_FIELDS, label, result, forced=MEMOS, versions=[version]) == []


NESTED = {"type": "object", "properties": {"groups": {"type": "array", "items": {
    "type": "object", "properties": {"name": {"type": "string"},
                                     "rows": _flat_array("x"),
                                     "cells": _flat_array("y")}}}}}


@pytest.mark.parametrize("version", ["2.0", "2.1"])
def test_inner_arrays_sharing_list_objects_score_as_the_definition_scores_them(version):
    # every group's rows and cells are the same two list objects on each side; the
    # groups are shuffled, so each inner pair is weighed, walked and walked again
    groups = [{"name": f"g{k}", "rows": LABEL_ROWS, "cells": LABEL_ROWS} for k in range(4)]
    label = {"groups": groups}
    result = {"groups": [{"name": f"g{k}", "rows": RESULT_ROWS, "cells": RESULT_ROWS}
                         for k in (2, 0, 3, 1)]}
    expected = scorer.score(result, NESTED, label, version=version)
    # per group: its name, x twice and y twice, all correct
    assert expected.value == 1.0
    assert expected.counts["correct"] == 20
    assert differences(NESTED, label, result, forced=MEMOS, versions=[version]) == []


@pytest.mark.parametrize("version", ["2.0", "2.1"])
def test_a_label_list_object_given_as_the_result_too_scores_every_leaf_correct(version):
    rows = copy.deepcopy(LABEL_ROWS)
    label = {"a": rows, "b": rows}
    score = _fast.score(label, TWO_FIELDS, label, version=version)
    assert (score.value, score.counts["correct"]) == (1.0, 4)


def _nested_case() -> tuple[dict, dict, dict]:
    groups = [{"name": f"g{k}", "rows": copy.deepcopy(LABEL_ROWS),
               "cells": copy.deepcopy(LABEL_ROWS)} for k in range(3)]
    result = {"groups": [{"name": f"g{k}", "rows": copy.deepcopy(RESULT_ROWS),
                          "cells": [{"y": "A"}]} for k in (1, 2, 0)]}
    return NESTED, {"groups": groups}, result


def test_a_prepared_documents_value_walks_each_result_with_a_walker_of_its_own():
    schema, label, result = _nested_case()
    document = _fast.VERSIONS["2.1"].document(schema, label, scorer.Options(), "label.json")
    held = {name: len(getattr(document.walker, name))
            for name in ("tallies", "paired", "signed", "column_reads", "reads")}
    # per group: name, x twice, y once of two (the other cell missing): 4 of 5 right
    assert document.value(result) == document.score(result).value == 12 / 15
    assert document.value(result) == scorer.score(result, schema, label).value
    assert {name: len(getattr(document.walker, name)) for name in held} == held


def test_a_prepared_documents_parse_failure_is_the_definitions_and_keeps_no_memo():
    schema, label, _ = _nested_case()
    document = _fast.VERSIONS["2.1"].document(schema, label, scorer.Options(), "label.json")
    expected = scorer.VERSIONS["2.1"].document(schema, label, scorer.Options(),
                                               "label.json").parse_failure(None)
    paired = len(document.walker.paired)
    got = document.parse_failure(None)
    # 3 groups x (name + 2 x + 2 y) label leaves, each a parse failure
    assert (got.value, got.counts["parse_failure"]) == (0.0, 15)
    assert got.to_dict(verdicts=True) == expected.to_dict(verdicts=True)
    assert len(document.walker.paired) == paired


def _amounts(options: dict | None = None) -> dict:
    leaf = {"type": "string", "x-leafscore": {"compare": "number", **(options or {})}}
    return {"type": "object", "properties": {"rows": {"type": "array", "items": {
        "type": "object", "properties": {"amount": leaf, "note": {"type": "string"}}}}}}


@pytest.mark.parametrize("changes", [{}, {"memo_reads": 0}, {"memo_reads": 1}],
                         ids=["default", "memo_reads=0", "memo_reads=1"])
def test_reads_kept_across_documents_never_answer_for_another_leaf_or_version(changes):
    # "1,500" reads 1500 under the default separator and 1.5 under a decimal comma, and
    # "A+" reads as "A-" does under 2.0 ("a") but not under 2.1 (spec 2.1 §2); one member
    # name, one value, scored in turn under both schemas and both versions: each score
    # is the definition's.
    label = {"rows": [{"amount": "1,500", "note": "A+"}, {"amount": "2", "note": "b"}]}
    result = {"rows": [{"amount": "1500", "note": "A-"}, {"amount": "2", "note": "b"}]}
    schemas = [_amounts(), _amounts({"decimal_separator": ","})]
    seen = []
    with _fast.tuned(**changes):
        for version in ("2.0", "2.1") * 2:
            for schema in schemas:
                assert output(_fast.score, result, schema, label, version) == \
                    output(scorer.score, result, schema, label, version)
                seen.append(_fast.score(result, schema, label, version=version).value)
    # 2.1, decimal comma: no row pair keeps a correct leaf but "2"/"b", 2 of 6 leaves
    assert seen == [1.0, 0.75, 0.75, 1 / 3] * 2


def test_a_document_past_the_bound_leaves_no_reads_behind_and_a_small_one_keeps_them():
    label = {"rows": [{"amount": str(k), "note": f"n{k}"} for k in range(6)]}
    result = {"rows": [{"amount": str(k), "note": f"n{k}"} for k in range(5, -1, -1)]}
    flat.forget_reads(full=True)
    with _fast.tuned(memo_reads=4):  # 12 values read: past the bound, dropped at the end
        assert _fast.score(result, _amounts(), label, version="2.1").value == 1.0
        assert flat._SHARED_READS == {}
    assert _fast.score(result, _amounts(), label, version="2.1").value == 1.0
    kept = sum(len(values) for reads in flat._SHARED_READS.values()
               for values in reads.values())
    assert kept == 2 * (6 + 1)  # per field, each value and the empty read


def _label_reads(monkeypatch: pytest.MonkeyPatch, raw: list) -> list[int]:
    """A counter of ``flat.read_columns`` calls on the list ``raw`` (by identity)."""
    calls = [0]
    real = flat.read_columns

    def counted(walker, item, values):
        calls[0] += values is raw
        return real(walker, item, values)

    monkeypatch.setattr(flat, "read_columns", counted)
    return calls


RESULTS = [{"rows": [{"amount": "3", "note": "c"}, {"amount": "1,500", "note": "A+"}]},
           {"rows": [{"amount": "2", "note": "b"}]},
           {"rows": [{"amount": "1,500", "note": "a+"}, {"amount": "2", "note": "B"},
                     {"amount": "9", "note": "z"}]}]


@pytest.mark.parametrize(("changes", "reads"), [({}, 1), ({"memo_reads": 1}, 1),
                                                ({"memo_reads": 0}, 3)],
                         ids=["default", "memo_reads=1", "memo_reads=0"])
def test_a_prepared_labels_flat_columns_are_read_once_when_reads_are_kept(
        monkeypatch, changes, reads):
    # kept across documents (memo_reads above 0) the label's columns are read by its own
    # walker once and serve each result; with none kept, each result's walk reads them
    label = {"rows": [{"amount": "1,500", "note": "A+"}, {"amount": "2", "note": "b"}]}
    calls = _label_reads(monkeypatch, label["rows"])
    values = []
    with _fast.tuned(**changes):
        document = _fast.VERSIONS["2.1"].document(_amounts(), label, scorer.Options(), "l")
        for result in RESULTS:
            got = document.score(result)
            assert got.to_dict(verdicts=True) == scorer.score(
                result, _amounts(), label, version="2.1").to_dict(verdicts=True)
            values.append(got.value)
    assert calls[0] == reads
    # a row right, a row missing, a row invented: 2 of 6 leaves; a row right, a row
    # missing: 2 of 4; "a+" reads as "A+", both rows right, one invented: 4 of 6
    assert values == [2 / 6, 2 / 4, 4 / 6]
