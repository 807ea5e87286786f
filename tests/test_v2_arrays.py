"""Version 2.0 array matching (spec 2.0 §5, §7 "Pairing")."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

import scorer
from leafscore._fast import solve
from leafscore._fast.walker import FastWalker

ROWS = {"type": "object", "properties": {"rows": {"type": "array", "items": {
    "type": "object", "properties": {"sku": {"type": "string"}, "qty": {"type": "number"}}}}}}
TAGS = {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}}


def kinds(doc) -> dict[str, int]:
    return {k: n for k, n in doc.counts.items() if n and k != "correct_absence"}


def rows(*pairs) -> dict:
    return {"rows": [{"sku": s, "qty": q} for s, q in pairs]}


def test_reordered_rows_score_as_if_in_order(engine):
    assert engine.score(rows(("B", 2), ("A", 1)), ROWS, rows(("A", 1), ("B", 2))).value == 1.0


def test_a_pair_sharing_no_correct_leaf_is_not_made(engine):
    doc = engine.score(rows(("X", 9)), ROWS, rows(("A", 1)))
    assert kinds(doc) == {"missing": 2, "extra_item": 2}


def test_pairing_maximizes_correct_leaves_over_the_whole_array(engine):
    # greedy in input order pairs label (A, 1) with result (A, 2) (one correct leaf, first
    # of a tie), leaving (A, 2) with (B, 1): 1 correct leaf; optimal pairing finds 3
    label = rows(("A", 1), ("A", 2))
    result = rows(("A", 2), ("B", 1))
    assert kinds(engine.score(result, ROWS, label)) == {"correct": 3, "wrong_value": 1}


def test_among_equal_correct_totals_more_leaves_present_on_both_sides_win(engine):
    schema = {"type": "object", "properties": {"r": {"type": "array", "items": {
        "type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}}}}
    label = {"r": [{"a": "x", "b": "1"}]}
    result = {"r": [{"a": "x"}, {"a": "x", "b": "2"}]}
    doc = engine.score(result, schema, label)
    assert kinds(doc) == {"correct": 1, "wrong_value": 1, "extra_item": 1}


def test_a_leaf_of_a_paired_item_is_addressed_by_its_label_index(engine):
    doc = engine.score(rows(("B", 3), ("A", 1)), ROWS, rows(("A", 1), ("B", 2)))
    assert {v.address: v.kind for v in doc.verdicts} == {
        "rows[0].sku": "correct", "rows[0].qty": "correct",
        "rows[1].sku": "correct", "rows[1].qty": "wrong_value"}


def test_a_leaf_of_an_unpaired_result_item_is_addressed_by_r_and_its_result_index(engine):
    doc = engine.score(rows(("A", 1), ("Z", 9)), ROWS, rows(("A", 1)))
    assert {v.address for v in doc.verdicts if v.kind == "extra_item"} == {
        "rows[r1].sku", "rows[r1].qty"}


def test_field_paths_of_array_items_carry_brackets(engine):
    doc = engine.score(rows(("A", 1)), ROWS, rows(("A", 1)))
    assert sorted(doc.fields) == ["rows[].qty", "rows[].sku"]


def test_empty_items_are_dropped_before_matching(engine):
    doc = engine.score({"rows": [{}, {"sku": "", "qty": None}, {"sku": "A", "qty": 1}]}, ROWS,
                rows(("A", 1)))
    assert kinds(doc) == {"correct": 2}


def test_only_non_empty_leaves_of_an_unpaired_item_yield_verdicts(engine):
    doc = engine.score({"rows": []}, ROWS, {"rows": [{"sku": "A", "qty": None}]})
    assert kinds(doc) == {"missing": 1}


def test_scalar_items_match_as_a_multiset_one_to_one(engine):
    doc = engine.score({"tags": ["a", "a", "b"]}, TAGS, {"tags": ["A", "c", "a"]})
    assert kinds(doc) == {"correct": 2, "missing": 1, "extra_item": 1}


def test_an_unreadable_scalar_result_item_is_an_extra_item(engine):
    schema = {"type": "object", "properties": {"n": {"type": "array", "items": {"type": "number"}}}}
    doc = engine.score({"n": [1, "n/a"]}, schema, {"n": [1]})
    assert kinds(doc) == {"correct": 1, "extra_item": 1}


def test_tolerant_scalar_items_use_the_optimal_assignment(engine):
    schema = {"type": "object", "properties": {"v": {"type": "array", "items": {
        "type": "number", "x-leafscore": {"abs_tol": 1}}}}}
    assert engine.score({"v": [6, 5]}, schema, {"v": [4, 5]}).value == 1.0


def test_an_ordered_array_pairs_item_k_with_item_k_whatever_its_worth(engine):
    schema = {"type": "object", "properties": {"s": {"type": "array", "items": {
        "type": "string"}, "x-leafscore": {"ordered": True}}}}
    doc = engine.score({"s": ["b", "a", "c"]}, schema, {"s": ["a", "b"]})
    assert kinds(doc) == {"wrong_value": 2, "extra_item": 1}


def test_an_ordered_array_takes_positions_after_dropping_empty_items(engine):
    schema = {"type": "object", "properties": {"s": {"type": "array", "items": {
        "type": "string"}, "x-leafscore": {"ordered": True}}}}
    assert engine.score({"s": ["", "a", None, "b"]}, schema, {"s": ["a", "b"]}).value == 1.0


def test_nested_arrays_are_matched_optimally_at_every_level(engine):
    schema = {"type": "object", "properties": {"g": {"type": "array", "items": ROWS}}}
    label = {"g": [rows(("A", 1), ("B", 2)), rows(("C", 3))]}
    result = {"g": [rows(("C", 3)), rows(("B", 2), ("A", 1))]}
    assert kinds(engine.score(result, schema, label)) == {"correct": 6}


def test_items_that_are_arrays_are_paired_by_their_inner_matched_count(engine):
    schema = {"type": "object", "properties": {"m": {"type": "array", "items": {
        "type": "array", "items": {"type": "number"}}}}}
    doc = engine.score({"m": [[3, 4], [1, 9]]}, schema, {"m": [[1, 2], [3, 4]]})
    assert kinds(doc) == {"correct": 3, "missing": 1, "extra_item": 1}


def test_a_result_item_of_the_wrong_json_kind_counts_as_empty(engine):
    doc = engine.score({"rows": ["A 1", {"sku": "A", "qty": 1}]}, ROWS, rows(("A", 1)))
    assert kinds(doc) == {"correct": 2}


def test_a_result_array_where_an_object_is_due_counts_as_empty_there(engine):
    schema = {"type": "object", "properties": {"o": {"type": "object", "properties": {
        "a": {"type": "string"}}}}}
    assert kinds(engine.score({"o": ["x"]}, schema, {"o": {"a": "x"}})) == {"missing": 1}


def test_a_label_scalar_where_an_array_is_due_is_one_exact_json_leaf(engine):
    doc = engine.score({"rows": "A"}, ROWS, {"rows": "A"})
    assert [(v.field, v.kind) for v in doc.verdicts] == [("rows", "correct")]


@pytest.mark.parametrize("seed", range(5))
def test_permuting_result_rows_changes_no_verdict_count(engine, seed):
    rng = random.Random(seed)
    label = rows(*[(rng.choice("ABC"), rng.randint(1, 3)) for _ in range(8)])
    result = rows(*[(rng.choice("ABCD"), rng.randint(1, 3)) for _ in range(9)])
    once = engine.score(result, ROWS, label).counts
    rng.shuffle(result["rows"])
    assert engine.score(result, ROWS, label).counts == once


def test_a_600_row_array_with_every_other_row_changed_scores_as_expected(engine):
    # 300 identical pairs first; each changed row shares its sku with one result row only,
    # a matching taken as it is (tests/test_two_engines.py holds the sparse solver's cases)
    n = 600
    label = rows(*[(f"S{i}", i % 7) for i in range(n)])
    result = rows(*[(f"S{i}", (i % 7) + (i % 2)) for i in reversed(range(n))])
    doc = engine.score(result, ROWS, label)
    assert kinds(doc) == {"correct": 900, "wrong_value": 300}


@pytest.mark.parametrize("assign", [scorer.assign_2_0, solve.assign_2_0],
                         ids=["reference", "fast"])
def test_the_sparse_and_dense_solvers_reach_the_same_total_weight(assign):
    # The same 40 x 50 edges, alone (2,000 cells: the dense solver) and among empty rows
    # and columns (600 x 500 cells, over DENSE_CELLS_2_0: the sparse one).
    rng = np.random.default_rng(7)
    row, col = rng.integers(0, 40, 300), rng.integers(0, 50, 300)
    edges = {(int(r), int(c)): int(w) for r, c, w in zip(row, col, rng.integers(1, 9, 300),
                                                         strict=True)}
    assert 600 * 500 > scorer.DENSE_CELLS_2_0 >= 40 * 50

    def total(pairs):
        return sum(edges[p] for p in pairs)

    assert total(assign(40, 50, edges)) == total(assign(600, 500, edges)) == 282


def test_a_tie_between_assignments_is_broken_by_content_never_by_input_order(engine):
    # Both pairings have 2 correct and 4 present leaves; one gives two wrong values, the
    # other a wrong value and a type error. Every input order must choose the same one.
    schema = {"type": "object", "properties": {"r": {"type": "array", "items": {
        "type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "number"}}}}}}
    label = [{"a": "x", "b": "N/A"}, {"a": "x", "b": 2}]
    result = [{"a": "x", "b": "oops"}, {"a": "x", "b": 3}]
    seen = {json.dumps(engine.score({"r": r}, schema, {"r": lab}).counts, sort_keys=True)
            for lab in (label, label[::-1]) for r in (result, result[::-1])}
    assert len(seen) == 1


LOOSE_ITEMS = {"type": "object", "properties": {"g": {"type": "array", "items": {
    "type": "object", "properties": {
        "sku": {"type": "string", "x-leafscore": {"compare": "fuzzy", "threshold": 0.6}},
        "qty": {"type": "number", "x-leafscore": {"abs_tol": 1, "rel_tol": 0.1}},
        "tag": {"type": "string"}}}}}}


@pytest.mark.parametrize("seed", range(20))
def test_loose_field_candidates_weigh_the_same_pairs_as_trying_every_pair(seed):
    # The fast walker finds the candidates of fuzzy and tolerant fields by rapidfuzz's
    # cdist and by bisection; the definition tries every pair.
    rng = random.Random(seed)
    array = scorer.compile_schema(LOOSE_ITEMS).properties["g"]

    def side(n):
        return [{"sku": rng.choice(["AB-1", "ab 1", "AB-12", "XY", "", None]),
                 "qty": rng.choice([1, 2, 2.5, 4, "3", 40, 44, None]),
                 "tag": rng.choice(["p", "q", None])} for _ in range(n)]

    label, result = side(rng.randint(1, 8)), side(rng.randint(1, 8))
    weighed = []
    for walker in (scorer.Walker(scorer.COMPARATORS, scorer.pair_2_0),
                   FastWalker(scorer.COMPARATORS, scorer.pair_2_0)):
        left, right = walker.read(array, label, 1).key, walker.read(array, result, 1).key
        weighed.append(walker.weights(array.items, left, right, "g", "g[]", 1))
    assert weighed[0] == weighed[1]
