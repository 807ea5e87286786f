"""The two engines give the same output on every input (issue 20, item 3).

``scorer.score`` is the definition; ``leafscore._fast.score`` must give the same document
score, verdict row by verdict row (``to_dict(verdicts=True)``, compared by its ``repr``
so that ``1``, ``1.0`` and ``True``, or ``0.0`` and ``-0.0``, never pass for each other),
and raise the same ``ScoringError`` where the definition raises one. The fast engine is
run as it is and with every speed choice of ``leafscore._fast.tuning.Tuning`` forced
each way; none may change a byte.

* whole documents, generated: ``strategies.triples``, ``hostile_strategies.cases`` and the
  tie-heavy ``tie_strategies.tie_documents`` (hypothesis), and seeded tie-heavy arrays of
  up to 600 items (the sparse solver beyond ``scorer.DENSE_CELLS_2_0`` cells);
* the parts the fast engine replaces: the dense solver against scipy's, the two 2.0
  solvers, ``Walker.tally`` against the walk, version 1.0's array score;
* the command line: ``leafscore score --format json`` with ``--engine reference`` and
  with ``--engine fast``, on DocuBench, the sample and a JSONL run.
"""

from __future__ import annotations

import collections
import dataclasses
import json
import random

import numpy as np
import pytest
from cli_helpers import REPO, invoke, private_cache  # noqa: F401 (autouse)
from engines import differences, output
from hostile_strategies import cases
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment
from strategies import triples
from tie_strategies import document, tie_documents

import scorer
from leafscore import _fast
from leafscore._fast import solve, v1
from leafscore._fast.walker import FastWalker

VERSIONS = ("1.0", "2.0", "2.1")
#: Each speed choice forced one way or the other ({}: as the engine chooses).
FORCED: tuple[dict, ...] = (
    {}, {"flat": False}, {"flat_together": False}, {"flat_fields_max": 1}, {"same_at_once": 0},
    {"same_at_once": 10**9}, {"join_slice": 1}, {"memo_text": 0}, {"v1_walk": "dense"},
    {"v1_walk": "sparse"}, {"compiled_text_max": 0}, {"lexi_small_units": 0},
    {"lazy_nested": False}, {"flat": False, "lazy_nested": False},
    {"lazy_leaves_min": 0}, {"flat": False, "lazy_leaves_min": 0},
    {"lazy_leaves_min": 0, "lazy_edges_max": 0}, {"lazy_leaves_min": 0, "lazy_edges_max": 10**9},
    {"lazy_leaves_min": 0, "lazy_python_keys": 0},
    {"lazy_leaves_min": 0, "lazy_python_keys": 10**9},
    {"flat_python_cells": 0}, {"flat_python_cells": 10**9}, {"lexi_small_forced": False},
    {"slack_wide": 0, "lexi_small_units": 0}, {"memo_pairs": 0}, {"memo_pairs": 1},
    {"memo_reads": 0}, {"memo_reads": 1},
    {"slack_wide": 0.01, "lexi_small_units": 0, "flat_python_cells": 0},
    {"slack_wide": 0.01, "lexi_small_units": 0, "flat_python_cells": 0, "slack_reuse": False},
    *({choice: value, "lexi_small_units": 0} for choice, value in (
        ("lexi_units_max", 0), ("lexi_greedy", False), ("lexi_subset_min", 0),
        ("lexi_forced", False), ("lexi_forced_fields_max", 2), ("lexi_dominant", False))))
FORCED_IDS = [",".join(f"{k}={v}" for k, v in f.items()) or "default" for f in FORCED]
#: Tuning's one field that is a safety budget, not a choice between equal ways.
BUDGETS = {"fuzzy_budget"}
PROPERTY = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# ----- (a) whole documents ------------------------------------------------------------

def test_every_speed_choice_of_tuning_is_forced_by_these_tests():
    choices = {field.name for field in dataclasses.fields(_fast.tuning.Tuning)} - BUDGETS
    assert choices - {name for changes in FORCED for name in changes} == set()


@PROPERTY
@given(case=triples())
def test_the_engines_agree_on_generated_documents(case):
    schema, label, result = case
    assert differences(schema, label, result, forced=FORCED, versions=VERSIONS) == []


@PROPERTY
@given(case=cases())
def test_the_engines_agree_on_hostile_documents_and_raise_alike(case):
    assert differences(case.schema, case.label, case.result, forced=FORCED,
                       versions=VERSIONS) == []


@settings(PROPERTY, max_examples=300)
@given(case=tie_documents())
def test_the_engines_agree_on_tie_heavy_arrays(case):
    schema, label, result = case
    assert differences(schema, label, result, forced=FORCED, versions=VERSIONS) == []


def test_the_tie_heavy_documents_hold_twins_loose_fields_and_nested_arrays():
    # What the strategy is for, checked on 200 of its seeded documents.
    seen = collections.Counter()
    for seed in range(200):
        rng = random.Random(seed)
        schema, label, result = document(rng, rng.randint(0, 40), rng.randint(0, 40),
                                         loose=seed % 2 == 0, nested=seed % 3 == 0)
        item = schema["properties"]["rows"]["items"]["properties"]
        texts = [repr(row) for row in label["rows"]]
        seen["twins"] += len(texts) > len(set(texts))
        seen["loose"] += any(word in json.dumps(item) for word in ("_tol", "fuzzy"))
        seen["nested array"] += "list" in item
        seen["copied"] += any(row in label["rows"] for row in result["rows"])
    assert seen["twins"] >= 150 and seen["copied"] >= 150
    assert seen["loose"] >= 60 and seen["nested array"] >= 20


LARGE = [  # (seed, label items, result items, loose, nested)
    (1, 600, 600, False, False), (2, 560, 600, False, False), (3, 600, 520, False, True),
    (4, 520, 500, True, False), (5, 300, 320, True, True), (6, 120, 600, False, False)]


# Seeds 1, 3 and 5 cost the fast engine 10-30 s each under 2.1 (ties everywhere): they run
# as the engine chooses and with each 2.1 pairing choice forced; every other choice is
# forced on the three other documents, each still past 2.0's 250,000-cell solver switch.
_HEAVY = {1, 3, 5}
_LARGE_RUNS = [(forced, fid, case) for forced, fid in zip(FORCED, FORCED_IDS, strict=True)
               for case in LARGE
               if case[0] not in _HEAVY or not forced or (
                   fid.startswith("lexi_") and fid != "lexi_small_units=0")]  # = default


@pytest.mark.parametrize(("forced", "seed", "n", "m", "loose", "nested"),
                         [(forced, *case) for forced, _, case in _LARGE_RUNS],
                         ids=[f"seed{c[0]}-{c[1]}x{c[2]}-{fid}" for _, fid, c in _LARGE_RUNS])
def test_the_engines_agree_on_large_tie_heavy_arrays(seed, n, m, loose, nested, forced,
                                                      large_outputs):
    schema, label, result, expected = large_outputs(seed, n, m, loose, nested)
    for version in VERSIONS:
        with _fast.tuned(**forced):
            got = output(_fast.score, result, schema, label, version)
        assert got == expected[version], version


@pytest.fixture(scope="module")
def large_outputs():
    """The large documents and the definition's output on each, made once per module."""
    made: dict[tuple, tuple] = {}

    def get(seed, n, m, loose, nested):
        key = (seed, n, m, loose, nested)
        if key not in made:
            schema, label, result = large_document(*key)
            made[key] = (schema, label, result, {
                version: output(scorer.score, result, schema, label, version)
                for version in VERSIONS})
        return made[key]

    return get


def large_document(seed: int, n: int, m: int, loose: bool, nested: bool):
    """A tie-heavy document whose array has ``n`` x ``m`` items, few of them identical, so
    that the assignment is left with over ``scorer.DENSE_CELLS_2_0`` cells when n x m is:
    fields drawn from pools of 16 to 30 values (equal weights are common, candidate
    pairs a few percent of all), one result item in 50 a copy of a label item."""
    rng = random.Random(seed)
    pools = {"a": [f"v{k}" for k in range(16)], "b": list(range(30)),
             "c": ["2024-01-02", "01/02/2024", "soon", *map(str, range(20))]}
    fields = {"a": {"type": "string"}, "b": {"type": "number"},
              "c": {"type": "string", "format": "date"}}
    if loose:
        fields["b"] = {"type": "number", "x-leafscore": {"abs_tol": 1}}
    item_schema: dict = {"type": "object", "properties": dict(fields)}
    if nested:
        item_schema["properties"]["list"] = {"type": "array", "items": {"type": "string"}}

    def item():
        out = {name: rng.choice(pool) for name, pool in pools.items() if rng.random() < 0.9}
        if nested:
            out["list"] = rng.sample(pools["a"], rng.randint(0, 3))
        return out

    label = [item() for _ in range(n)]
    result = [dict(rng.choice(label)) for _ in range(m // 50)] + [item()
                                                                 for _ in range(m - m // 50)]
    rng.shuffle(result)
    schema = {"type": "object", "properties": {"rows": {"type": "array", "items": item_schema}}}
    return schema, {"rows": label}, {"rows": result}


@pytest.mark.parametrize("seed, n, m, loose, nested", LARGE[:4],
                         ids=[f"seed{c[0]}-{c[1]}x{c[2]}" for c in LARGE[:4]])
def test_the_largest_cases_leave_the_assignment_over_the_dense_limit(seed, n, m, loose,
                                                                     nested):
    # once identical items (equal signatures) are paired, the cells left exceed
    # DENSE_CELLS_2_0, so version 2.0 takes its sparse solver
    schema, label, result = large_document(seed, n, m, loose, nested)
    array = scorer.compile_schema(schema).properties["rows"]
    walker = scorer.Walker(scorer.COMPARATORS, scorer.pair_2_0)
    signed = [collections.Counter(signature for _, _, signature in walker.read(
        array, side["rows"], 1).key) for side in (label, result)]
    same = sum((signed[0] & signed[1]).values()) if walker.hashable(array.items) else 0
    assert (n - same) * (m - same) > scorer.DENSE_CELLS_2_0


# ----- (b) the dense solver is scipy's, ties included ---------------------------------

def test_the_dense_solver_gives_scipys_assignment_on_20000_tie_heavy_matrices():
    rng = np.random.default_rng(20)
    differing = []
    for k in range(20_000):
        shape = tuple(int(x) for x in rng.integers(1, 13, 2))
        weights = rng.integers(0, 4, shape).tolist()  # entries from {0, 1, 2, 3}
        rows, cols = linear_sum_assignment(np.array(weights, float), maximize=True)
        theirs = list(zip(rows.tolist(), cols.tolist(), strict=True))
        if scorer.shortest_augmenting_path(weights) != theirs:
            differing.append((k, weights))
    assert differing == []


@pytest.mark.parametrize("shape", [(1, 1), (1, 12), (12, 1), (3, 12), (12, 3), (12, 12)])
def test_the_dense_solver_gives_scipys_assignment_on_all_equal_matrices(shape):
    for entry in (0, 1):
        weights = [[entry] * shape[1] for _ in range(shape[0])]
        rows, cols = linear_sum_assignment(np.array(weights, float), maximize=True)
        assert scorer.shortest_augmenting_path(weights) == list(
            zip(rows.tolist(), cols.tolist(), strict=True))


# ----- (c) the two engines' 2.0 solvers ------------------------------------------------

def random_edges(rng: random.Random, rows: int, cols: int, count: int) -> dict:
    weights = rng.choice([(1,), (1, 2), (1, 2, 3, 5), (7, 8, 15, 16)])
    return {(rng.randrange(rows), rng.randrange(cols)): rng.choice(weights)
            for _ in range(count)}


def test_both_solvers_choose_the_same_pairs_on_2000_small_edge_sets():
    rng = random.Random(21)
    differing = []
    for k in range(2000):
        rows, cols = rng.randint(1, 15), rng.randint(1, 15)
        edges = random_edges(rng, rows, cols, rng.randint(1, rows * cols))
        if scorer.assign_2_0(rows, cols, edges) != solve.assign_2_0(rows, cols, edges):
            differing.append(k)
    assert differing == []


@pytest.mark.parametrize("seed, rows, cols, count", [
    (1, 600, 500, 3000), (2, 501, 500, 20_000), (3, 1000, 300, 5000), (4, 260, 1000, 800)])
def test_both_solvers_choose_the_same_pairs_over_the_dense_limit(seed, rows, cols, count):
    assert rows * cols > scorer.DENSE_CELLS_2_0
    edges = random_edges(random.Random(seed), rows, cols, count)
    assert scorer.assign_2_0(rows, cols, edges) == solve.assign_2_0(rows, cols, edges)


def test_both_solvers_return_a_matching_as_it_is():
    edges = {(0, 3): 2, (2, 0): 1, (5, 1): 9}
    assert scorer.assign_2_0(6, 4, edges) == solve.assign_2_0(6, 4, edges) == [
        (0, 3), (2, 0), (5, 1)]


# ----- (d) tally is the walk counted ---------------------------------------------------

def walk_counts(walker, node, label_read, result_read, depth):
    out: list = []
    walker.walk(node, label_read, result_read, "x", "x", out, depth)
    kinds = collections.Counter(v.kind for v in out)
    return [kinds["correct"], kinds["correct"] + kinds["wrong_value"] + kinds["type_error"],
            sum(many for kind, many in kinds.items() if kind not in (
                "correct", "wrong_value", "type_error", "correct_absence"))]


@settings(PROPERTY, max_examples=150)
@given(case=tie_documents(max_items=6), pick=st.integers(0, 10**6))
def test_a_tally_counts_what_the_walk_gives_for_a_pair_of_items(case, pick):
    schema, label, result = case
    item = scorer.compile_schema(schema).properties["rows"].items
    left = [row for row in label["rows"] if scorer.kept(item, row)] or [{}]
    right = [row for row in result["rows"] if scorer.kept(item, row)] or [{}]
    a, b = left[pick % len(left)], right[pick // 7 % len(right)]
    for walker in (scorer.Walker(scorer.COMPARATORS, scorer.pair_2_0),
                   FastWalker(scorer.COMPARATORS, scorer.pair_2_0),
                   scorer.Walker(scorer.COMPARATORS_2_1, scorer.pair_2_1, readings=True),
                   FastWalker(scorer.COMPARATORS_2_1, scorer.pair_2_1, readings=True)):
        label_read, result_read = walker.read(item, a, 2, label=True), walker.read(item, b, 2)
        tallied = scorer.Tally()
        walker.walk(item, label_read, result_read, "", "x", tallied, 2)
        assert list(tallied) == walk_counts(walker, item, label_read, result_read, 2)


# ----- (e) version 1.0's array score, bit for bit --------------------------------------

V1_LEAVES = (None, "", 0, 0.0, False, True, 1, 1.0, "a", "b", [], {}, [1], [1, 2],
             float("nan"), -0.0, 2.5)
v1_items = st.one_of(
    st.sampled_from(V1_LEAVES),
    st.dictionaries(st.sampled_from(["a", "b", "c", "d.e"]),
                    st.one_of(st.sampled_from(V1_LEAVES),
                              st.dictionaries(st.sampled_from(["e", "f"]),
                                              st.sampled_from(V1_LEAVES), max_size=2)),
                    max_size=4))


def bits(pair: tuple[float, float]) -> list[str]:
    return [float(x).hex() for x in pair]


@settings(PROPERTY, max_examples=300)
@given(label=st.lists(v1_items, max_size=12), result=st.lists(v1_items, max_size=12),
       walk=st.sampled_from(["auto", "dense", "sparse"]))
def test_the_fast_1_0_array_score_is_the_definitions_bit_for_bit(label, result, walk):
    expected = scorer._v1_array_score(label, result)
    with _fast.tuned(v1_walk=walk):
        got = v1.array_score(label, result)
    assert got == expected
    assert bits(got) == bits(expected)  # -0.0 is not 0.0


@pytest.mark.parametrize("walk", ["auto", "dense", "sparse"])
def test_the_fast_1_0_array_score_is_the_definitions_on_large_twin_heavy_arrays(walk):
    rng = random.Random(30)
    pool = [{"a": rng.randrange(4), "b": rng.choice("xyz"), "c": rng.choice([None, 1])}
            for _ in range(6)]
    for n, m in ((300, 300), (200, 450), (40, 900)):
        label = [dict(rng.choice(pool)) for _ in range(n)]
        result = [dict(rng.choice(pool)) for _ in range(m)]
        with _fast.tuned(v1_walk=walk):
            got = v1.array_score(label, result)
        assert bits(got) == bits(scorer._v1_array_score(label, result)), (n, m)


# ----- the command line: byte-identical output ----------------------------------------

def stdout_of(*args) -> dict[str, str]:
    """``leafscore score ARGS --format json --no-cache`` of each engine."""
    out = {}
    for engine in ("reference", "fast"):
        result = invoke("score", *args, "--format", "json", "--no-cache", "--engine", engine)
        assert result.exit_code == 0, result.stderr
        out[engine] = result.stdout
    return out


@pytest.mark.parametrize("version", VERSIONS)
def test_docubench_prints_the_same_bytes_on_both_engines(shared, version):
    printed = stdout_of(shared / "docubench", "--version", version)
    assert printed["fast"] == printed["reference"]
    assert '"systems"' in printed["fast"]


@pytest.mark.parametrize("version", VERSIONS)
def test_the_sample_prints_the_same_bytes_on_both_engines(version):
    printed = stdout_of(REPO, "--version", version)
    assert printed["fast"] == printed["reference"]
    assert '"systems"' in printed["fast"]


@pytest.mark.parametrize("version", VERSIONS)
def test_a_jsonl_run_prints_the_same_bytes_on_both_engines(version):
    folder = REPO / "examples" / "jsonl"
    printed = stdout_of("--gold", folder / "gold.jsonl", "--schema", folder / "schema.json",
                        "--pred", f"atlas={folder / 'atlas.jsonl'}",
                        "--pred", f"drift={folder / 'drift.jsonl'}", "--version", version)
    assert printed["fast"] == printed["reference"]
    assert '"atlas"' in printed["fast"] and '"drift"' in printed["fast"]


# ----- differences found by the tests above: minimal inputs -----------------------------
# The fast walker remembered reads by value, and Python's == equates values that are not
# the same JSON value: -0.0 and 0.0; numbers read from a file with written forms of one
# float (scorer.JSONNumber). Fixed in leafscore/_fast (walker.memo_value, flat._column).

WRITTEN = scorer.parse_json("[0.10000000000000000001, 0.1000000000000000000199]",
                            "x.json").value


def array_of(items: dict) -> dict:
    return {"type": "object", "properties": {"n": {"type": "array", "items": items}}}


def test_minus_zero_and_zero_in_one_array_each_keep_their_own_sign(engine):
    doc = engine.score({"n": [0.0, -0.0]}, array_of({"type": "number"}), {"n": [0.0, -0.0]})
    assert [(v.kind, repr(v.label), repr(v.result)) for v in doc.verdicts] == [
        ("correct", "0.0", "0.0"), ("correct", "-0.0", "-0.0")]


@pytest.mark.parametrize("items", [{"type": "string"}, {"x-leafscore": {"compare": "exact"}}],
                         ids=["text", "exact"])
def test_two_written_forms_of_one_float_in_one_array_are_two_values(engine, items):
    assert type(WRITTEN[0]) is scorer.JSONNumber and WRITTEN[0] == WRITTEN[1]
    doc = engine.score({"n": WRITTEN[::-1]}, array_of(items), {"n": WRITTEN})
    assert [(v.kind, v.label_canon, v.result_canon) for v in doc.verdicts] == [
        ("correct", "0.10000000000000000001", "0.10000000000000000001"),
        ("correct", "0.1000000000000000000199", "0.1000000000000000000199")]


@pytest.mark.parametrize("forced", [{}, {"flat": False}], ids=["flat", "generic"])
def test_two_written_forms_of_one_float_in_flat_rows_are_two_values(forced):
    schema = array_of({"type": "object", "properties": {"m": {"type": "string"}}})
    label, result = {"n": [{"m": v} for v in WRITTEN]}, {"n": [{"m": v} for v in WRITTEN[::-1]]}
    with _fast.tuned(**forced):
        doc = _fast.score(result, schema, label)
    assert doc.counts["correct"] == 2
    assert repr(doc.to_dict(verdicts=True)) == repr(
        scorer.score(result, schema, label).to_dict(verdicts=True))


def test_two_fields_holding_written_forms_of_one_float_read_each_its_own(engine):
    text = {"type": "string"}  # one schema node: one compiled leaf for both fields
    schema = {"type": "object", "properties": {"a": text, "b": text}}
    doc = engine.score({"a": WRITTEN[1], "b": WRITTEN[0]}, schema,
                       {"a": WRITTEN[0], "b": WRITTEN[1]})
    assert [(v.kind, v.label_canon, v.result_canon) for v in doc.verdicts] == [
        ("wrong_value", "0.10000000000000000001", "0.1000000000000000000199"),
        ("wrong_value", "0.1000000000000000000199", "0.10000000000000000001")]
