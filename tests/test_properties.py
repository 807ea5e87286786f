"""Invariants of version 2.0 over generated schemas, labels and results (issue 3, item 3),
on both engines."""

from __future__ import annotations

import copy
import json
import random

from hostile_strategies import faulty_labels, root_nodes, to_schema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import shuffle_arrays, triples

PROPERTY = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def scored(doc) -> dict[str, int]:
    return {k: n for k, n in doc.counts.items() if n and k != "correct_absence"}


def outside_arrays(doc, kind: str) -> list[str]:
    """Addresses of ``kind`` verdicts that lie outside arrays and open maps' odd keys."""
    return [v.address for v in doc.verdicts if v.kind == kind and "[" not in v.address]


def set_path(value: dict, address: str, new) -> None:
    *parents, last = address.split(".")
    for name in parents:
        value = value.setdefault(name, {})
    value[last] = new


def get_path(value: dict, address: str):
    for name in address.split("."):
        value = value[name]
    return value


@PROPERTY
@given(case=triples())
def test_a_result_equal_to_its_label_scores_1(engine, case):
    schema, label, _ = case
    assert engine.score(copy.deepcopy(label), schema, label).value == 1.0


@PROPERTY
@given(case=triples(ordered=False), seed=st.integers(0, 2**16))
def test_permuting_any_array_of_the_result_changes_no_verdict_count(engine, case, seed):
    schema, label, result = case
    once = engine.score(result, schema, label).counts
    assert engine.score(shuffle_arrays(result, random.Random(seed)), schema, label).counts == once


@PROPERTY
@given(case=triples())
def test_wrapping_schema_label_and_result_in_one_more_object_changes_nothing(engine, case):
    schema, label, result = case
    defs = {"$defs": schema["$defs"]} if "$defs" in schema else {}
    inner = {k: v for k, v in schema.items() if k != "$defs"}
    wrapped = {"type": "object", "properties": {"w": inner}, **defs}
    once = engine.score(result, schema, label)
    twice = engine.score({"w": result}, wrapped, {"w": label})
    assert scored(twice) == scored(once)
    assert twice.value == once.value


@PROPERTY
@given(case=triples(), pick=st.integers(0, 100))
def test_fixing_one_wrong_leaf_never_lowers_accuracy(engine, case, pick):
    schema, label, result = case
    before = engine.score(result, schema, label)
    wrong = outside_arrays(before, "wrong_value") + outside_arrays(before, "type_error")
    if not wrong:
        return
    address = wrong[pick % len(wrong)]
    fixed = copy.deepcopy(result)
    set_path(fixed, address, copy.deepcopy(get_path(label, address)))
    assert engine.score(fixed, schema, label).value >= before.value


@PROPERTY
@given(case=triples(), pick=st.integers(0, 100))
def test_dropping_one_correct_leaf_lowers_accuracy(engine, case, pick):
    schema, label, result = case
    before = engine.score(result, schema, label)
    correct = outside_arrays(before, "correct")
    if not correct:
        return
    dropped = copy.deepcopy(result)
    set_path(dropped, correct[pick % len(correct)], None)
    assert engine.score(dropped, schema, label).value < before.value


@PROPERTY
@given(case=triples())
def test_verdict_counts_add_up_to_the_scored_leaves_and_give_the_accuracy(engine, case):
    schema, label, result = case
    doc = engine.score(result, schema, label)
    leaves = [v for v in doc.verdicts if v.kind != "correct_absence"]
    assert sum(scored(doc).values()) == len(leaves)
    expected = doc.counts["correct"] / len(leaves) if leaves else 1.0
    assert doc.value == expected
    assert 0.0 <= doc.value <= 1.0
    assert sum(f.tp for f in doc.fields.values()) == doc.counts["correct"]


@PROPERTY
@given(case=triples())
def test_scoring_twice_gives_identical_output(engine, case):
    schema, label, result = case
    first = json.dumps(engine.score(result, schema, label).to_dict(verdicts=True), sort_keys=True)
    again = json.dumps(engine.score(result, schema, label).to_dict(verdicts=True), sort_keys=True)
    assert again == first


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_label_even_one_that_breaks_its_schema_scored_against_itself_is_1(engine, data):
    tree = data.draw(root_nodes())
    label = data.draw(faulty_labels(tree))
    assert engine.score(copy.deepcopy(label), to_schema(tree), label).value == 1.0
