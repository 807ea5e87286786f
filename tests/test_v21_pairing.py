"""Version 2.1's pairing (spec 2.1 §1): one rule at every size. For random tie-heavy
arrays the verdicts do not change when either side is shuffled, when both sides are
padded with items nothing can pair past every size at which an implementation might
switch paths, or when the engine changes; and on small arrays the pairs are those a
brute-force search for the spec's choice finds."""

from __future__ import annotations

import itertools
import json
import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tie_strategies import tie_documents

import scorer
from leafscore import _fast
from leafscore._fast import flat, lexi

SETTINGS = settings(max_examples=120, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
ADDRESS = re.compile(r"rows\[(r?)(\d+)\](.*)", re.S)


def content(doc: scorer.DocScore, label: dict, result: dict) -> list[tuple]:
    """The verdicts with each array item named by its content instead of its index, so
    that shuffling either side leaves them equal: per verdict (side, item JSON with
    sorted keys, the rest of its address, kind, label value, result value), sorted.
    Items whose JSON differs only in member order are alike to the rule (spec 2.1 §1:
    raw JSON with sorted keys), so they are named alike."""
    out = []
    for v in doc.verdicts:
        found = ADDRESS.fullmatch(v.address)
        if found is None:  # the array itself (a correct absence): its items as a multiset
            out.append(("", "", v.address, v.kind, as_multiset(v.label), as_multiset(v.result)))
            continue
        side, index, rest = found.groups()
        item = (result if side else label)["rows"][int(index)]  # as canonical order sees it
        out.append((side, scorer.raw_text(item), rest, v.kind, repr(v.label), repr(v.result)))
    return sorted(out)


def as_multiset(value: object) -> str:
    """A raw value shown by a verdict at the array's own address, with an array's items
    sorted by their raw JSON: the verdict shows the array as given, so shuffling reorders
    it (found by hypothesis: an array of empty items on both sides, a correct absence)."""
    if isinstance(value, list):
        return repr(sorted(scorer.raw_text(item) for item in value))
    return repr(value)


def shuffled(value: dict, seed: int) -> dict:
    rows = list(value.get("rows", []))
    random.Random(seed).shuffle(rows)
    return {**value, "rows": rows}


@SETTINGS
@given(case=tie_documents(), seed=st.integers(0, 2**32))
def test_shuffling_either_side_changes_no_verdict(engine, case, seed):
    schema, label, result = case
    if schema["properties"]["rows"].get("x-leafscore", {}).get("ordered"):
        return  # an ordered array pairs by position
    first = content(engine.score(result, schema, label), label, result)
    label_2, result_2 = shuffled(label, seed), shuffled(result, seed + 1)
    assert content(engine.score(result_2, schema, label_2), label_2, result_2) == first


def padded(schema: dict, value: dict, side: str, many: int) -> dict | None:
    """``value`` with ``many`` items no item of the other side can pair with (each a text
    no pool holds, in the one field it states), or None when the items have no text
    field."""
    fields = schema["properties"]["rows"]["items"]["properties"]
    texts = [name for name, leaf in fields.items()
             if leaf.get("x-pool") in ("text", "exact", "any", "fuzzy")]
    if not texts:
        return None
    pads = [{texts[0]: f"zz{side}{k:07d}"} for k in range(many)]
    return {**value, "rows": list(value.get("rows", [])) + pads}


def without_pads(rows: list[tuple]) -> list[tuple]:
    return [row for row in rows if '"zz' not in row[1]]


@settings(SETTINGS, max_examples=25)
@given(case=tie_documents(max_items=12))
def test_padding_past_every_size_threshold_changes_no_verdict_of_the_real_items(engine,
                                                                               case):
    schema, label, result = case
    label_2, result_2 = padded(schema, label, "l", 520), padded(schema, result, "r", 520)
    if label_2 is None or schema["properties"]["rows"].get("x-leafscore", {}).get("ordered"):
        return  # no field to pad with; an ordered array pairs by position
    assert (len(label_2["rows"]) * len(result_2["rows"])) > scorer.DENSE_CELLS_2_0
    first = content(engine.score(result, schema, label), label, result)
    again = content(engine.score(result_2, schema, label_2), label_2, result_2)
    assert without_pads(again) == first


@SETTINGS
@given(case=tie_documents())
def test_both_engines_give_the_same_verdicts_row_for_row_under_every_forced_path(case):
    schema, label, result = case
    expected = scorer.score(result, schema, label, version="2.1").to_dict(verdicts=True)
    for forced in ({}, {"flat": False}, {"lexi_small_units": 0},
                   {"lexi_units_max": 0, "lexi_small_units": 0},
                   {"lexi_dominant": False, "lexi_small_units": 0},
                   {"lexi_greedy": False, "lexi_small_units": 0},
                   {"lexi_subset_min": 0, "lexi_small_units": 0},
                   {"lexi_forced": False, "lexi_small_units": 0},
                   {"lazy_nested": False}, {"flat": False, "lazy_nested": False},
                   {"lazy_leaves_min": 0}, {"flat": False, "lazy_leaves_min": 0}):
        with _fast.tuned(**forced):
            got = _fast.score(result, schema, label, version="2.1").to_dict(verdicts=True)
        assert got == expected, forced


# ----- brute force ---------------------------------------------------------------------

def brute_force(weights: dict[tuple[int, int], tuple[int, int, int]], rows: int, cols: int,
                ) -> list[tuple[int, int]]:
    """The spec's choice by trying every assignment of ``rows`` label items to ``cols``
    result items (both in canonical order) over pairs worth a correct leaf: most correct
    leaves, then most on both sides, then fewest on one side; among those, the smallest
    partner list, label item by label item (unpaired after every partner)."""
    best_key, best = None, []
    for partners in itertools.product(range(cols + 1), repeat=rows):  # cols = unpaired
        taken = [c for c in partners if c < cols]
        if len(taken) != len(set(taken)) or any(
                c < cols and (r, c) not in weights for r, c in enumerate(partners)):
            continue
        totals = [sum(weights[r, c][k] for r, c in enumerate(partners) if c < cols)
                  for k in range(3)]
        key = (-totals[0], -totals[1], totals[2], partners)
        if best_key is None or key < best_key:
            best_key, best = key, [(r, c) for r, c in enumerate(partners) if c < cols]
    return best


def canonical(items: list) -> list[int]:
    return sorted(range(len(items)), key=lambda k: (items[k][2] or "",
                                                    scorer.raw_text(items[k][1].raw), k))


@settings(SETTINGS, max_examples=300)
@given(case=tie_documents(max_items=5))
def test_the_pairs_are_a_brute_force_searchs_on_small_arrays(case):
    schema, label, result = case
    root = scorer.compile_schema(schema, v21=True)
    node = root.properties["rows"]
    if node.ordered:
        return
    walker = scorer.Walker(scorer.COMPARATORS_2_1, scorer.pair_2_1, readings=True)
    left = walker.read(node, label.get("rows"), 1, label=True).key or []
    right = walker.read(node, result.get("rows"), 1).key or []
    if len(left) > 5 or len(right) > 5:
        return
    order_left, order_right = canonical(left), canonical(right)
    found, _ = walker.weights(node.items, [left[k] for k in order_left],
                              [right[k] for k in order_right], "rows", "rows[]", 1)
    expected = sorted((order_left[r], order_right[c])
                      for r, c in brute_force(dict(found), len(left), len(right)))
    assert scorer.pair_2_1(walker, node.items, left, right, "rows", "rows[]", 1) == expected


def brute_force_pairs(schema: dict, label: dict, result: dict) -> tuple[list, list] | None:
    """(the definition's 2.1 pairs, a brute-force search's) of array ``rows``, positions in
    input order; None for an ordered array or one over 5 items a side."""
    node = scorer.compile_schema(schema, v21=True).properties["rows"]
    walker = scorer.Walker(scorer.COMPARATORS_2_1, scorer.pair_2_1, readings=True)
    left = walker.read(node, label.get("rows"), 1, label=True).key or []
    right = walker.read(node, result.get("rows"), 1).key or []
    if node.ordered or len(left) > 5 or len(right) > 5:
        return None
    order_left, order_right = canonical(left), canonical(right)
    found, _ = walker.weights(node.items, [left[k] for k in order_left],
                              [right[k] for k in order_right], "rows", "rows[]", 1)
    expected = sorted((order_left[r], order_right[c])
                      for r, c in brute_force(dict(found), len(left), len(right)))
    return scorer.pair_2_1(walker, node.items, left, right, "rows", "rows[]", 1), expected


@settings(SETTINGS, max_examples=300)
@given(case=tie_documents(max_items=5), seed=st.integers(0, 2**32))
def test_a_shuffled_copy_of_the_label_items_pairs_as_a_brute_force_search_does(case, seed):
    # The result holds the label's items reordered: where they read alike (no readings),
    # pair_2_1 pairs them in canonical order unweighed (docs/SCORING.md, "Copies pair in
    # order"); the brute force weighs every assignment.
    schema, label, _ = case
    found = brute_force_pairs(schema, label, shuffled(label, seed))
    if found is not None:
        assert found[0] == found[1]


class UnweighingWalker(scorer.Walker):
    """The definition's walker, failing if any pair is weighed."""

    def weights(self, *args):
        raise AssertionError("a pair was weighed")


def test_copies_within_tolerance_of_each_other_pair_in_canonical_order_unweighed():
    # Every pair scores both leaves (x within 1 of each other): every assignment is best,
    # and the rule takes, label item by label item in canonical order (x 1, x 1, x 2),
    # the earliest result item in canonical order (x 1 at 0, x 1 at 2, x 2 at 1).
    schema = {"type": "object", "properties": {"rows": {"type": "array", "items": {
        "type": "object", "properties": {
            "note": {"type": "string"},
            "x": {"type": "number", "x-leafscore": {"abs_tol": 1}}}}}}}
    label = {"rows": [{"x": 2, "note": "a"}, {"x": 1, "note": "a"}, {"x": 1, "note": "a"}]}
    result = {"rows": [{"x": 1, "note": "a"}, {"x": 2, "note": "a"}, {"x": 1, "note": "a"}]}
    assert brute_force_pairs(schema, label, result) == ([(0, 1), (1, 0), (2, 2)],) * 2
    node = scorer.compile_schema(schema, v21=True).properties["rows"]
    walker = UnweighingWalker(scorer.COMPARATORS_2_1, scorer.pair_2_1, readings=True)
    left = walker.read(node, label["rows"], 1, label=True).key
    right = walker.read(node, result["rows"], 1).key
    assert scorer.pair_2_1(walker, node.items, left, right, "rows", "rows[]", 1) == [
        (0, 1), (1, 0), (2, 2)]


NAMES = {"type": "object", "properties": {"rows": {"type": "array", "items": {
    "type": "object", "properties": {"name": {"type": "string"}}}}}}
#: "A" and "a" sign alike: a copy whose tied items differ in raw JSON only
TIED_LABEL = {"rows": [{"name": "b"}, {"name": "A"}, {"name": "a"}]}
TIED_RESULT = {"rows": [{"name": "a"}, {"name": "b"}, {"name": "A"}]}


@pytest.mark.parametrize("score", [scorer.score, _fast.score])
def test_copies_with_tied_signatures_pair_by_raw_json_in_canonical_order(score):
    # "A" and "a" sign alike, so raw JSON orders them ({"name":"A"} before {"name":"a"}):
    # label order 1, 2, 0 and result order 2, 0, 1 pair each value with its own spelling.
    doc = score(TIED_RESULT, NAMES, TIED_LABEL, version="2.1")
    assert doc.value == 1.0
    assert [(v.address, v.kind, v.label, v.result) for v in doc.verdicts] == [
        ("rows[0].name", "correct", "b", "b"), ("rows[1].name", "correct", "A", "A"),
        ("rows[2].name", "correct", "a", "a")]


def test_the_fast_engine_pairs_flat_copies_without_weighing(monkeypatch):
    def weighed(*args):
        raise AssertionError("a pair was weighed")

    monkeypatch.setattr(flat, "match_flat_2_1", weighed)
    monkeypatch.setattr(flat, "forced_pairs_2_1", weighed)
    doc = _fast.score(TIED_RESULT, NAMES, TIED_LABEL, version="2.1")
    assert [v.result for v in doc.verdicts] == ["b", "A", "a"]


@pytest.mark.parametrize("score", [scorer.score, _fast.score])
def test_one_signature_apart_is_no_copy_and_pairs_by_weight(score):
    # "c" signs unlike "b": every pair is weighed; the two exact pairs are made and
    # "b" against "c" is worth nothing (no shared key, 2.1 §1), so it stays unpaired.
    label = {"rows": [{"name": "b"}, {"name": "a"}, {"name": "x"}]}
    result = {"rows": [{"name": "x"}, {"name": "c"}, {"name": "a"}]}
    doc = score(result, NAMES, label, version="2.1")
    assert doc.value == 0.5
    assert [(v.address, v.kind) for v in doc.verdicts] == [
        ("rows[1].name", "correct"), ("rows[2].name", "correct"),
        ("rows[0].name", "missing"), ("rows[r1].name", "extra_item")]


UNTYPED_ROWS = {"type": "object", "properties": {"rows": {"type": "array", "items": {
    "type": "object", "properties": {"a": {}}}}}}


@pytest.mark.parametrize("changes", [{}, {"flat": False}], ids=["columns", "walked"])
def test_items_alike_in_raw_json_but_written_otherwise_are_weighed_apart(changes):
    # Found by review: raw JSON writes 0.1000000000000000000199 as the float 0.1, so the
    # two result items sort as alike, yet under the label's text key they differ. Only
    # the first scores "0.1" (correct); the second is worth 0 to both label items, so
    # one label item is missing and it an extra item: 1 correct of 3.
    result = scorer.parse_json('{"rows": [{"a": 0.1}, {"a": 0.1000000000000000000199}]}',
                               "result.json").value
    label = {"rows": [{"a": "0.1"}, {"a": "0.1"}]}
    with _fast.tuned(**changes):
        doc = _fast.score(result, UNTYPED_ROWS, label, version="2.1")
    assert doc.value == 1 / 3
    assert [(v.address, v.kind) for v in doc.verdicts] == [
        ("rows[0].a", "correct"), ("rows[1].a", "missing"), ("rows[r1].a", "extra_item")]
    assert doc.to_dict(verdicts=True) == scorer.score(
        result, UNTYPED_ROWS, label, version="2.1").to_dict(verdicts=True)


def test_a_run_of_alike_items_is_cut_where_a_value_is_written_otherwise():
    long = scorer.parse_json("[0.1000000000000000000199]", "x.json").value[0]
    again = scorer.parse_json("[0.1000000000000000000199]", "x.json").value[0]
    values = [0.1, long, again, 0.1]
    # one signature and raw text for all four: order by position, cut where written
    # otherwise (the two long forms alike, each 0.1 alone)
    assert lexi.runs(["s"] * 4, ["0.1"] * 4, values.__getitem__) == [[0], [1, 2], [3]]
    assert lexi.runs(["s"] * 4, ["0.1"] * 4) == [[0, 1, 2, 3]]


ORDERED_ROWS = {"type": "object", "properties": {"rows": {"type": "array", "items": {
    "type": "array", "x-leafscore": {"ordered": True},
    "items": {"type": "object", "properties": {"v": {"type": "string"}}}}}}}


@pytest.mark.parametrize("score", [scorer.score, _fast.score])
def test_equal_signatures_over_an_ordered_array_still_pair_by_weight(score):
    # Found by review: {"a": 1} states no scored leaf, so each row's signature lists only
    # {"v": "b"}, yet by position label row 0's "b" stands second and result row 0's
    # first. Paired by weight, each label row takes the result row that scores its "b":
    # 2 correct of 2. Paired as copies in canonical order they would score 0.
    label = {"rows": [[{"a": 1}, {"v": "b"}], [{"v": "b"}]]}
    result = {"rows": [[{"v": "b"}], [{"z": 1}, {"v": "b"}]]}
    doc = score(result, ORDERED_ROWS, label, version="2.1")
    assert doc.value == 1.0
    assert [(v.address, v.kind) for v in doc.verdicts] == [
        ("rows[0][0].v", "correct_absence"), ("rows[0][1].v", "correct"),
        ("rows[1][0].v", "correct")]


@pytest.mark.parametrize("score", [scorer.score, _fast.score])
def test_equal_signatures_over_an_ordered_array_worth_nothing_stay_unpaired(score):
    # One row each, signatures alike; by position the pair scores no leaf, so it is not
    # made (spec 2.1 §1): the label's "b" is missing and the result's an extra item.
    label = {"rows": [[{"z": 1}, {"v": "b"}]]}
    result = {"rows": [[{"v": "b"}]]}
    doc = score(result, ORDERED_ROWS, label, version="2.1")
    assert doc.value == 0.0
    assert [(v.address, v.kind) for v in doc.verdicts] == [
        ("rows[0][1].v", "missing"), ("rows[r0][r0].v", "extra_item")]


def test_the_brute_force_prefers_two_half_right_pairs_to_one_exact_copy():
    """The spec's criteria in order (spec 2.1 §1): {x:1,y:1} has an exact copy, yet
    pairing it with {x:2,y:1} and {x:1,y:2} with the copy keeps the same 2 correct leaves
    and puts 4 rather than 2 leaves on both sides."""
    schema = {"type": "object", "properties": {"rows": {"type": "array", "items": {
        "type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}}}}}}
    label = {"rows": [{"x": 1, "y": 1}, {"x": 1, "y": 2}]}
    result = {"rows": [{"x": 1, "y": 1}, {"x": 2, "y": 1}]}
    for score in (scorer.score, _fast.score):
        doc = score(result, schema, label, version="2.1")
        assert doc.counts["correct"] == 2 and doc.counts["wrong_value"] == 2
        assert doc.counts["missing"] == 0 and doc.counts["extra_item"] == 0
        assert [(v.address, v.result) for v in doc.verdicts][:2] == [("rows[0].x", 2),
                                                                    ("rows[0].y", 1)]


def test_pairs_are_listed_by_label_index():
    """Silent in the spec: verdicts of pairs come in label index order, then unpaired
    label items, then unpaired result items (docs/SCORING.md)."""
    schema = {"type": "object", "properties": {"rows": {"type": "array", "items": {
        "type": "object", "properties": {"k": {"type": "string"}}}}}}
    label = {"rows": [{"k": "c"}, {"k": "a"}, {"k": "q"}, {"k": "b"}]}
    result = {"rows": [{"k": "b"}, {"k": "z"}, {"k": "a"}, {"k": "c"}]}
    for score in (scorer.score, _fast.score):
        doc = score(result, schema, label, version="2.1")
        assert [(v.address, v.kind) for v in doc.verdicts] == [
            ("rows[0].k", "correct"), ("rows[1].k", "correct"), ("rows[3].k", "correct"),
            ("rows[2].k", "missing"), ("rows[r1].k", "extra_item")]


@pytest.mark.parametrize("seed", range(4))
def test_a_seeded_50_item_tie_heavy_array_is_shuffle_invariant_on_both_engines(seed):
    from tie_strategies import document

    rng = random.Random(seed)
    schema, label, result = document(rng, 50, 55, loose=seed % 2 == 0, nested=seed == 3)
    docs = [score(result, schema, label, version="2.1") for score in (scorer.score,
                                                                      _fast.score)]
    assert docs[0].to_dict(verdicts=True) == docs[1].to_dict(verdicts=True)
    label_2, result_2 = shuffled(label, seed), shuffled(result, seed + 7)
    again = _fast.score(result_2, schema, label_2, version="2.1")
    assert content(again, label_2, result_2) == content(docs[0], label, result)
    assert json.dumps(again.to_dict()) == json.dumps(docs[0].to_dict())


def overlapping_rows(rng: random.Random, n: int) -> tuple[dict, dict, dict]:
    """Flat items of 3-4 typed fields from pools of 5 values: many pairs share one to
    three keys, many label items have one exact copy in the result, some two."""
    names = ["a", "b", "c", "d"][:rng.randint(3, 4)]
    kinds = {name: rng.choice(["string", "number"]) for name in names}
    schema = {"type": "object", "properties": {"rows": {"type": "array", "items": {
        "type": "object", "properties": {name: {"type": kind} for name, kind in kinds.items()}}}}}

    def value(name: str):
        k = rng.randrange(5)
        return f"v{k}" if kinds[name] == "string" else k

    label = [{name: value(name) for name in names if rng.random() < 0.9} for _ in range(n)]
    result = [dict(row) for row in label if rng.random() < 0.85]
    for row in result:
        if rng.random() < 0.3:
            row[rng.choice(names)] = value(rng.choice(names))
    result += [{name: value(name) for name in names} for _ in range(rng.randint(0, n // 5))]
    rng.shuffle(result)
    return schema, {"rows": label}, {"rows": result}


@pytest.mark.parametrize("seed", range(40))
def test_pairs_every_best_assignment_makes_taken_out_first_change_nothing(seed):
    rng = random.Random(seed)
    schema, label, result = overlapping_rows(rng, rng.choice([8, 30, 80]))
    expected = scorer.score(result, schema, label, version="2.1").to_dict(verdicts=True)
    for forced in ({}, {"lexi_small_units": 0}, {"lexi_forced": False, "lexi_small_units": 0},
                   {"lexi_dominant": False, "lexi_small_units": 0},
                   {"lexi_subset_min": 0, "lexi_greedy": False, "lexi_small_units": 0}):
        with _fast.tuned(**forced):
            assert _fast.score(result, schema, label, version="2.1").to_dict(
                verdicts=True) == expected, forced


# ----- the signature, exactly (docs/SCORING.md, "The signature, exactly") ------------------

SIGNED = {"type": "object", "properties": {
    "name": {"type": "string"}, "n": {"type": "number"},
    "tags": {"type": "array", "items": {"type": "string"}},
    "address": {"type": "object", "properties": {"city": {"type": "string"}}},
    "when": {"type": "string", "format": "date"}}}


@pytest.mark.parametrize(("value", "signature"), [
    ({"name": "Acme, Inc.", "n": "1,234.50", "tags": ["b", "a"]},
     '{"name"=text:acmeinc,"n"=number:1234.5,"tags"=[text:a,text:b]}'),
    ({"address": {"city": "Köln"}}, '{"address"={"city"=text:köln}}'),
    ({"when": "Sept. 5, 2024"}, '{"when"=date:2024-09-05}'),
    ({"when": "soon"}, '{"when"=date:~soon}'),
    # a label fault: a scalar where an object is expected reads as exact JSON, "json:"
    ({"address": "12 Main St"}, '{"address"=json:"12 Main St"}'),
    ({"address": ["x"]}, '{"address"=json:["x"]}'),
    ({"name": ["x", 1]}, '{"name"=json:["x",1]}'),
    ({"name": "  ", "tags": []}, None),
])
def test_an_items_signature_is_the_documented_text(value, signature):
    walker = scorer.Walker(scorer.COMPARATORS_2_1, scorer.pair_2_1, readings=True)
    node = scorer.compile_schema(SIGNED, v21=True)
    assert walker.signature(node, walker.read(node, value, label=True)) == signature
