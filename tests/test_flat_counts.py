"""The definition's counts of a pair of flat items, read from their keys, are the walk's.

``scorer.Walker.weights`` counts a candidate pair of flat items (objects whose scored
members are all leaves compared by equal keys) without walking it: correct leaves are the
members where the two share a key, the leaves present on both or on one side follow from
which members each states. Spec 2.1 §1 defines the counts by the walk (``Tally``), so this
file checks the identity on generated arrays: every pair the key counts give, and no other,
with the counts the walk gives, under 2.0 and 2.1, labels holding readings included.
"""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import triples
from tie_strategies import tie_documents

import scorer

#: Member schemas: every comparison kind a flat item may hold, and some that make it not
#: flat or not joinable by keys (a tolerant number, a fuzzy text: walked, as before).
MEMBERS = {
    "text": {"type": "string"},
    "number": {"type": "number"},
    "date": {"type": "string", "format": "date"},
    "flag": {"type": "boolean"},
    "any": {},
    "code": {"type": "string", "x-leafscore": {"compare": "exact"}},
    "note": {"type": "string", "x-leafscore": {"compare": "ignore"}},
    "near": {"type": "number", "x-leafscore": {"abs_tol": 0.5}},
    "name": {"type": "string", "x-leafscore": {"compare": "fuzzy"}},
    "sub": {"type": "object", "properties": {"x": {"type": "string"}}},
}
#: Values a member may hold: equal under one kind and not another, empty, of the wrong kind.
VALUES = (None, "", " ", "Acme", "ACME", "1", "1.0", 1, 1.0, 2, "2024-03-05", "03/05/2024",
          "March 5, 2024", True, "true", False, "n/a", {"x": "1"}, [1], [], {})
readings = st.lists(st.sampled_from(("Acme", "1", 1, None, "2024-03-05", True, "")),
                    min_size=1, max_size=3).map(lambda r: {"$anyOf": r})


def items(names: list[str], label: bool) -> st.SearchStrategy[Any]:
    """An array item: an object of some of ``names`` (labels: readings too), or another
    JSON kind."""
    value = st.one_of(st.sampled_from(VALUES), readings) if label else st.sampled_from(VALUES)
    member = st.dictionaries(st.sampled_from(names), value, max_size=len(names))
    return st.one_of(member, member, member, st.sampled_from(("Acme", 1, [1], None)))


@st.composite
def flat_arrays(draw: st.DrawFn) -> tuple[dict, dict, dict]:
    """(schema, label, result) holding one array ``rows`` of items with drawn members."""
    names = draw(st.lists(st.sampled_from(sorted(MEMBERS)), min_size=1, max_size=5,
                          unique=True))
    schema = {"type": "object", "properties": {"rows": {"type": "array", "items": {
        "type": "object", "properties": {name: MEMBERS[name] for name in names}}}}}
    label = {"rows": draw(st.lists(items(names, True), max_size=7))}
    result = {"rows": draw(st.lists(items(names, False), max_size=7))}
    return schema, label, result


class CheckedWalker(scorer.Walker):
    """The definition's walker, checking each array's weights against a walk of every pair."""

    def weights(self, item, left, right, address, field, depth):
        found, most = super().weights(item, left, right, address, field, depth)
        every = itertools.product(range(len(left)), range(len(right)))
        walked = self.walked(item, left, right, every, field, depth)
        assert found == walked
        assert most == max((len(self.keys(item, read, "")) for _, read, _ in left), default=0)
        return found, most


def score_checked(version: str, schema: dict, label: dict, result: dict) -> None:
    """Score ``result`` under ``version`` with every array's weights checked."""
    rule, table = (scorer.pair_2_0, scorer.COMPARATORS) if version == "2.0" else \
        (scorer.pair_2_1, scorer.COMPARATORS_2_1)
    walker = CheckedWalker(table, rule, readings=version != "2.0")
    document = scorer.Document.prepare(version, walker, schema, label, scorer.Options(), "")
    document.score(result)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=flat_arrays(), version=st.sampled_from(("2.0", "2.1")))
def test_a_flat_pairs_counts_from_its_keys_are_the_walks(case, version):
    score_checked(version, *case)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=tie_documents(max_items=12), version=st.sampled_from(("2.0", "2.1")))
def test_tie_heavy_arrays_weigh_as_their_walk(case, version):
    score_checked(version, *case)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=triples(), version=st.sampled_from(("2.0", "2.1")))
def test_generated_documents_weigh_as_their_walk(case, version):
    score_checked(version, *case)


def weights(schema: dict, label_items: list, result_items: list) -> tuple[dict, int]:
    """The definition's 2.1 weights of array ``rows``' items, in input order."""
    walker = scorer.Walker(scorer.COMPARATORS_2_1, scorer.pair_2_1, readings=True)
    root = scorer.compile_schema(schema, v21=True)
    left = walker.read(root, {"rows": label_items}, label=True).key["rows"].key
    right = walker.read(root, {"rows": result_items}).key["rows"].key
    return walker.weights(root.properties["rows"].items, left, right, "", "", 0)


ROWS = {"type": "object", "properties": {"rows": {"type": "array", "items": {
    "type": "object", "properties": {"text": {"type": "string"}, "any": {},
                                     "number": {"type": "number"}}}}}}


def test_a_flat_pairs_counts_are_its_shared_keys_and_stated_members():
    label = [{"text": {"$anyOf": ["MOPP", "MCPP", None]}, "number": 1},
             {"text": "Acme", "any": "1"}, {"number": "1.0", "any": [1]}]
    result = [{"text": "MCPP"}, {"number": 1.0, "any": 1}, {"text": "acme", "any": [1]}]
    assert weights(ROWS, label, result) == ({
        (0, 0): (1, 1, 1),  # text read as MCPP; the label's number on one side
        (0, 1): (1, 1, 1),  # number 1; the text's readings allow its absence; any: one side
        (1, 1): (1, 1, 2),  # any "1" read as text equals 1; text and number: one side each
        (1, 2): (1, 2, 0),  # text Acme == acme; any "1" against [1]: present on both, wrong
        (2, 1): (1, 2, 0),  # number "1.0" == 1.0; any [1] against 1: both, wrong
        (2, 2): (1, 1, 2),  # any [1] == [1]; number and text: one side each
    }, 3)  # no pair worth 0 correct leaves: (0, 2), (1, 0), (2, 0) are none


def test_an_anyof_label_leaf_with_an_empty_reading_counts_no_side_when_the_result_is_empty():
    schema = {"type": "object", "properties": {"rows": {"type": "array", "items": {
        "type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}}}}
    assert weights(schema, [{"a": "x", "b": {"$anyOf": ["y", None]}}], [{"a": "x"}]) == (
        {(0, 0): (1, 1, 0)}, 2)
