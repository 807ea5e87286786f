"""Small flat arrays weighed in plain Python (``Tuning.flat_python_cells``): the same pairs
as numpy's joins (``flat.flat_graph``) and the definition's verdicts, the threshold forced
each way; outweighing edges taken out before the small path's choice
(``Tuning.lexi_small_forced``), each way; and compiled schemas remembered by their pickle,
never merging two values."""

from __future__ import annotations

import copy
import json
import random

import numpy as np
import pytest
from engines import differences, output
from hostile_strategies import cases
from hypothesis import HealthCheck, given, settings
from strategies import triples
from test_lexi_small import arrays, group_graphs, groups_of, item_edges
from test_two_engines import PROPERTY, VERSIONS, large_document
from tie_strategies import document, tie_documents

import scorer
from leafscore import _fast
from leafscore._fast import flat
from leafscore._fast.walker import FastWalker

#: The plain-Python weights never, always, and always with 2.1's group path behind them;
#: numpy's joins with every key left out (``slack``).
BOTH_WAYS: tuple[dict, ...] = (
    {"flat_python_cells": 0}, {"flat_python_cells": 10**9},
    {"flat_python_cells": 10**9, "lexi_small_units": 0},
    {"flat_python_cells": 0, "lexi_small_units": 0},
    {"lexi_small_forced": False}, {"flat_python_cells": 0, "lexi_small_forced": False},
    {"flat_python_cells": 0, "lexi_small_units": 0, "slack_wide": 0.01})


@PROPERTY
@given(case=tie_documents())
def test_tie_heavy_arrays_agree_with_the_definition_either_way(case):
    schema, label, result = case
    assert differences(schema, label, result, forced=BOTH_WAYS, versions=VERSIONS) == []


@PROPERTY
@given(case=triples())
def test_generated_documents_agree_with_the_definition_either_way(case):
    schema, label, result = case
    assert differences(schema, label, result, forced=BOTH_WAYS, versions=VERSIONS) == []


@PROPERTY
@given(case=cases())
def test_hostile_documents_agree_with_the_definition_either_way(case):
    assert differences(case.schema, case.label, case.result, forced=BOTH_WAYS,
                       versions=VERSIONS) == []


@pytest.mark.parametrize("seed, n, m, loose", [(2, 160, 150, False), (4, 120, 130, True),
                                               (7, 90, 60, True)])
def test_larger_arrays_weighed_in_python_give_the_definitions_verdicts(seed, n, m, loose):
    schema, label, result = large_document(seed, n, m, loose, False)
    expected = output(scorer.score, result, schema, label, "2.1")
    for forced in BOTH_WAYS:
        with _fast.tuned(**forced):
            assert output(_fast.score, result, schema, label, "2.1") == expected, forced


def graphs(walker, specs, left, right, values, small_graph=flat.small_graph):
    """(row, column, shared, both, one) of every edge by numpy's joins and in Python."""
    found = flat.flat_graph(walker, specs, left, right, values, len(specs) + 1)
    by_numpy = []
    if found is not None:
        (indptr, indices, data), masks_left, masks_right = found
        for r in range(len(left[0])):
            for k in range(int(indptr[r]), int(indptr[r + 1]) - 1):  # the dummy slot last
                c = int(indices[k])
                shared, both = divmod(int(data[k]), len(specs) + 1)
                one = int(masks_left[r] ^ masks_right[c]).bit_count()
                by_numpy.append((r, c, shared, both, one))
    return by_numpy, list(zip(*small_graph(walker, specs, left, right, values), strict=True))


@pytest.mark.parametrize("seed", range(40))
def test_the_python_graph_has_numpys_edges_and_weights(seed, monkeypatch):
    rng = random.Random(seed)
    schema, label, result = document(rng, rng.randint(1, 30), rng.randint(1, 30),
                                     loose=seed % 2 == 0)
    seen = []

    def both(walker, specs, left, right, values):
        numpy_edges, python_edges = graphs(walker, specs, left, right, values)
        seen.append(len(python_edges))
        assert python_edges == numpy_edges
        return tuple(map(list, zip(*python_edges, strict=True))) if python_edges else ([],) * 5

    monkeypatch.setattr(flat, "small_graph", both)
    with _fast.tuned(flat_python_cells=10**9):
        _fast.score(result, schema, label, version="2.1")
    if isinstance(schema["properties"]["rows"]["items"].get("properties"), dict) and \
            not schema["properties"]["rows"].get("x-leafscore", {}).get("ordered"):
        if paired_as_copies(schema, label, result):  # 2.1 weighs no pair of copies
            assert seen == []
        else:
            assert seen or not label["rows"] or not result.get("rows")


def paired_as_copies(schema: dict, label: dict, result: dict) -> bool:
    """Whether the definition's 2.1 pairs the rows as copies (docs/SCORING.md, "Copies
    pair in order"): the same signatures on both sides, none empty."""
    node = scorer.compile_schema(schema, v21=True).properties["rows"]
    walker = scorer.Walker(scorer.COMPARATORS_2_1, scorer.pair_2_1, readings=True)
    left = walker.read(node, label["rows"], 1, label=True).key or []
    right = walker.read(node, result.get("rows"), 1).key or []
    signatures = sorted(sig or "" for _, _, sig in left)
    return bool(left) and "" not in signatures and \
        signatures == sorted(sig or "" for _, _, sig in right)


def test_docubench_under_both_ways_equals_the_definition(shared):
    root = shared / "docubench"
    docs = sorted(p.stem for p in (root / "labels").glob("*.json"))[:12]
    systems = sorted(p.name for p in (root / "results").iterdir() if p.is_dir())
    for doc in docs:
        schema = scorer.read_json_file(root / "schemas" / f"{doc}.json").value
        label = scorer.read_json_file(root / "labels" / f"{doc}.json").value
        for system in systems:
            path = root / "results" / system / f"{doc}.json"
            if not path.exists():
                continue
            result = scorer.read_json_file(path).value
            expected = output(scorer.score, result, schema, label, "2.1")
            for forced in BOTH_WAYS[:2]:
                with _fast.tuned(**forced):
                    got = output(_fast.score, result, schema, label, "2.1")
                assert got == expected, (doc, system, forced)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=group_graphs())
def test_outweighing_edges_taken_out_first_leave_the_definitions_pairs(graph):
    sizes_left, sizes_right, edges = graph
    left, right = groups_of(sizes_left), groups_of(sizes_right)
    expected = sorted(scorer.lexicographic_assignment(
        sum(sizes_left), sum(sizes_right), item_edges(left, right, edges)))
    for forced in (True, False):
        with _fast.tuned(lexi_small_forced=forced):
            assert flat.assign_items(left, right, *arrays(edges)) == expected
            listed = [list(map(int, a)) for a in arrays(edges)]
            assert flat.assign_items(left, right, *listed) == expected


def test_an_outweighing_edge_is_one_of_single_items_heavier_than_both_rivals_together():
    single = [[0], [1], [2]]
    # (0, 0) weighs 5 > 2 + 2; (1, 1) weighs 4, not above 2 + 2; (2, 2) has no rival
    row, col, weights = [0, 0, 1, 1, 2], [0, 1, 0, 1, 2], [5, 2, 2, 4, 1]
    assert flat._outweighing(single, single, row, col, weights) == [(0, 0), (2, 2)]
    twins = [[0, 1], [2]]  # a group of two items: never taken out
    assert flat._outweighing(twins, [[0], [1]], [0, 1], [0, 1], [9, 1]) == [(1, 1)]


# ----- compiled schemas by their pickle --------------------------------------------

def test_schemas_equal_as_floats_but_written_apart_are_compiled_apart():
    one = scorer.parse_json('{"type": "object", "properties": {"n": {"type": "number", '
                            '"x-leafscore": {"abs_tol": 1.50}}}}', "a.json").value
    other = scorer.parse_json('{"type": "object", "properties": {"n": {"type": "number", '
                              '"x-leafscore": {"abs_tol": 1.5}}}}', "b.json").value
    assert _fast.compile_schema(one) is _fast.compile_schema(copy.deepcopy(one))
    assert _fast.compile_schema(one) is not _fast.compile_schema(other)


@pytest.mark.parametrize("pair", [
    ({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "number"}}},
     {"type": "object", "properties": {"b": {"type": "number"}, "a": {"type": "string"}}}),
    ({"type": "object", "properties": {"a": {"enum": [1]}}},
     {"type": "object", "properties": {"a": {"enum": [True]}}}),
    ({"type": "object", "properties": {"a": {"enum": [0.0]}}},
     {"type": "object", "properties": {"a": {"enum": [-0.0]}}})],
    ids=["key order", "1 and true", "0.0 and -0.0"])
def test_schemas_equal_to_python_but_not_as_json_are_compiled_apart(pair):
    one, other = pair
    assert one == other and json.dumps(one) != json.dumps(other)
    assert _fast.compile_schema(one) is not _fast.compile_schema(other)


def test_a_schema_that_is_not_json_data_is_compiled_each_time():
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "x": {1, 2}}
    assert _fast.compile_schema(schema) is not _fast.compile_schema(schema)


def test_the_python_graph_needs_no_numpy_array():
    walker = FastWalker(scorer.COMPARATORS_2_1, scorer.pair_2_1, readings=True)
    leaf = scorer.compile_schema({"type": "string"})
    specs = [(leaf, '"a"=', ".a", "rows[].a")]
    read = ("text", "x", ',"a"=text:x')
    columns = flat.small_graph(walker, specs, [[read, flat.EMPTY_READ]], [[read]], [["x"]])
    assert columns == ([0], [0], [1], [1], [0])
    assert not any(isinstance(v, np.generic) for column in columns for v in column)


GROUPS = {"type": "object", "properties": {"groups": {"type": "array", "items": {
    "type": "object", "properties": {
        "name": {"type": "string"},
        "rows": {"type": "array", "items": {"type": "object", "properties": {
            "a": {"type": "string"}, "b": {"type": "number"}}}}}}}}}


@pytest.mark.parametrize("version", ["2.0", "2.1"])
def test_a_flat_array_in_a_weighed_pair_tallies_as_the_definitions_walk(version):
    # The pair of groups is walked into a Tally, as a candidate pair is weighed. Rows
    # (x, 1) pair with their copy: name, a and b correct on both sides (3, 3). (y, 2)
    # shares no key with (z, 3) or (w): unpaired, 2 + 2 + 1 leaves on one side.
    label = {"name": "g", "rows": [{"a": "x", "b": 1}, {"a": "y", "b": 2}]}
    result = {"name": "g", "rows": [{"a": "x", "b": 1}, {"a": "z", "b": 3}, {"a": "w"}]}
    v21 = version == "2.1"
    item = scorer.compile_schema(GROUPS, v21=v21).properties["groups"].items
    comparators = scorer.COMPARATORS_2_1 if v21 else scorer.COMPARATORS
    rule = scorer.pair_2_1 if v21 else scorer.pair_2_0
    tallies = []
    for walker in (scorer.Walker(comparators, rule, readings=v21),
                   FastWalker(comparators, rule, readings=v21)):
        tally = scorer.Tally()
        walker.walk(item, walker.read(item, label, 1, label=True), walker.read(item, result, 1),
                    "", "groups[]", tally, 1)
        tallies.append(list(tally))
    assert tallies == [[3, 3, 5], [3, 3, 5]]


def test_the_join_weighs_alike_with_the_slack_paths_key_ids_or_its_own(monkeypatch):
    """``flat.flat_graph`` given ``slack.key_ids``' answer (as ``match_flat_2_1`` hands it
    on when the slack path gives way) gives the graph it makes numbering the keys itself,
    on 40 generated documents (loose fields in half: no key ids, nothing to compare)."""
    from leafscore._fast import slack

    real, compared = flat.flat_graph, []

    def both(walker, specs, left, right, values, ceiling, keyed=None):
        keyed = keyed if keyed is not None else slack.key_ids(walker, specs, left, right,
                                                                values)
        own = real(walker, specs, left, right, values, ceiling)
        if keyed is not None:
            given_ids = real(walker, specs, left, right, values, ceiling, keyed)
            assert (own is None) == (given_ids is None)
            if own is not None:
                (graph, *masks), (graph_given, *masks_given) = own, given_ids
                for mine, theirs in zip([*graph, *masks], [*graph_given, *masks_given],
                                        strict=True):
                    assert mine.tolist() == theirs.tolist()
                compared.append(len(graph[1]))
        return own

    monkeypatch.setattr(flat, "flat_graph", both)
    for seed in range(40):
        rng = random.Random(seed)
        schema, label, result = document(rng, rng.randint(1, 30), rng.randint(1, 30),
                                         loose=seed % 2 == 0)
        with _fast.tuned(flat_python_cells=0, lexi_small_units=0, slack_wide=10**6):
            _fast.score(result, schema, label, version="2.1")
    assert len(compared) >= 20  # not vacuous: 29 graphs compared when written
