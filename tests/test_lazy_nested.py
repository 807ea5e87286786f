"""Unordered arrays of non-flat items, paired lazily (``leafscore._fast.lazy``): the same
verdicts as the definition, row by row, with the lazy path forced on and off.

* nested documents ``sections[] -> groups[] -> rows[]`` shaped like the benchmark's
  (distinct items: the lazy answer is unique and kept), and tie-heavy ones (twins at
  every level, values from tiny pools reading alike, label readings under 2.1: 2.0's
  uniqueness check fails and every pair is weighed), seeded and by hypothesis;
* :func:`lazy.only_best` against brute force over every matching of small graphs;
* the bounds: never below an exact weight, and the lazy path walks few pairs.
"""

from __future__ import annotations

import copy
import decimal
import itertools
import random
from typing import Any

import pytest
from engines import differences, output
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scorer
from leafscore import _fast
from leafscore._fast import lazy
from leafscore._fast.walker import FastWalker

VERSIONS = ("2.0", "2.1")
#: the lazy path on and off, with flat items (rows) by columns (the arrays of one node
#: together or one by one) or walked
FORCED: tuple[dict, ...] = ({}, {"lazy_nested": False}, {"flat": False},
                            {"flat": False, "lazy_nested": False}, {"lazy_leaves_min": 0},
                            {"flat": False, "lazy_leaves_min": 0},
                            {"lazy_leaves_min": 0, "lazy_python_keys": 0},
                            {"lazy_leaves_min": 0, "flat_together": False})

ROW = {"type": "object", "properties": {
    "code": {"type": "string"}, "n": {"type": "number"},
    "when": {"type": "string", "format": "date"}}}
DEEP_ROW = {"type": "object", "properties": {  # an item holding an array: never flat
    "code": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}}}


def schema_of(row: dict) -> dict:
    group = {"type": "object", "properties": {"name": {"type": "string"},
                                              "rows": {"type": "array", "items": row}}}
    section = {"type": "object", "properties": {"title": {"type": "string"},
                                                "groups": {"type": "array", "items": group}}}
    return {"type": "object", "properties": {"sections": {"type": "array", "items": section}}}


#: tiny pools, several values reading alike ("a"/"A", 1/1.0/"1", two date spellings)
POOLS: dict[str, tuple] = {
    "code": ("a", "A", "b", None), "n": (1, 1.0, "1", 2, None),
    "when": ("2024-01-02", "01/02/2024", "2024-03-04", None),
    "name": ("g", "G", "h"), "title": ("s", "t", None), "tags": ("x", "X", "y")}


#: wide pools: items that rarely agree by chance, as in the benchmark
WIDE: dict[str, Any] = {
    "code": lambda rng: f"c{rng.randrange(10**5)}", "n": lambda rng: rng.randrange(500),
    "when": lambda rng: f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
    "name": lambda rng: f"g{rng.randrange(10**4)}", "title": lambda rng: f"s{rng.randrange(99)}",
    "tags": lambda rng: rng.choice("xyzw")}


def draw(rng: random.Random, name: str, wide: bool = False) -> Any:
    return WIDE[name](rng) if wide else rng.choice(POOLS[name])


def make_row(rng: random.Random, deep: bool, readings: bool, wide: bool = False) -> dict:
    if deep:
        return {"code": draw(rng, "code", wide),
                "tags": [draw(rng, "tags", wide) for _ in range(rng.randint(0, 3))]}
    row = {name: draw(rng, name, wide) for name in ("code", "n", "when")}
    if readings and rng.random() < 0.2:  # a label's alternative readings (spec 2.1 §6)
        row["code"] = {"$anyOf": rng.sample(["a", "b", "c"], 2)}
    return row


def make_section(rng: random.Random, deep: bool, readings: bool, groups: int,
                 rows: int, wide: bool = False) -> dict:
    return {"title": draw(rng, "title", wide), "groups": [
        {"name": draw(rng, "name", wide),
         "rows": [make_row(rng, deep, readings, wide) for _ in range(rng.randint(0, rows))]}
        for _ in range(rng.randint(0, groups))]}


def perturb(rng: random.Random, section: dict, deep: bool) -> dict:
    """A copy with one change: a leaf redrawn, a row or group dropped or doubled, or
    the groups shuffled."""
    out = copy.deepcopy(section)
    groups = out["groups"]
    roll = rng.random()
    if not groups or roll < 0.15:
        out["title"] = rng.choice(POOLS["title"])
    elif roll < 0.3:
        groups.pop(rng.randrange(len(groups)))
    elif roll < 0.4:
        groups.append(copy.deepcopy(rng.choice(groups)))
    elif roll < 0.5:
        rng.shuffle(groups)
    else:
        group = rng.choice(groups)
        if group["rows"] and rng.random() < 0.7:
            row = rng.choice(group["rows"])
            name = rng.choice(sorted(row))
            row[name] = [rng.choice(POOLS["tags"])] if name == "tags" else \
                rng.choice(POOLS[name])
        else:
            group["name"] = rng.choice(POOLS["name"])
    return out


def nested_document(rng: random.Random, sections: int, *, groups: int = 4, rows: int = 3,
                    deep: bool = False, twins: bool = True,
                    readings: bool = False) -> tuple[dict, dict, dict]:
    """(schema, label, result): ``sections`` label sections (from one to three
    prototypes when ``twins``, so most have twins; else each its own, from wide
    pools), the result made of copies,
    perturbed copies, duplicates and inventions, shuffled at every level."""
    prototypes = [make_section(rng, deep, readings, groups, rows, not twins)
                  for _ in range(rng.randint(1, 3) if twins else sections)]
    label = [copy.deepcopy(rng.choice(prototypes)) if twins else prototypes[k]
             for k in range(sections)]
    if twins:
        label = [perturb(rng, s, deep) if rng.random() < 0.4 else s for s in label]
    result = []
    for section in label:
        roll = rng.random()
        if roll < 0.5:
            result.append(copy.deepcopy(section))
        elif roll < 0.9:
            result.append(perturb(rng, section, deep))
    result += [perturb(rng, rng.choice(label), deep) for _ in range(rng.randint(0, 2))
               if label]
    for section in result:
        for group in section["groups"]:
            rng.shuffle(group["rows"])
        rng.shuffle(section["groups"])
    rng.shuffle(result)
    if readings:  # readings are a label's only: the result holds plain values
        result = [_plain(s) for s in result]
    return schema_of(DEEP_ROW if deep else ROW), {"sections": label}, {"sections": result}


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        if "$anyOf" in value:
            return value["$anyOf"][0]
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value




@pytest.fixture
def spied(monkeypatch):
    """Counts of what the lazy path did: ``unique``/``tied`` (2.0's check), ``full``
    (every pair weighed), ``loose`` (a bound failed: the caller weighed without it)."""
    seen = {"unique": 0, "tied": 0, "full": 0, "loose": 0}
    only_best, every_edge, weigh = lazy.only_best, lazy.Lazy.every_edge, lazy.Lazy.weigh

    def checked(*args):
        answer = only_best(*args)
        seen["unique" if answer else "tied"] += 1
        return answer

    def full(self):
        seen["full"] += 1
        return every_edge(self)

    def weighed(self, r, g):
        try:
            return weigh(self, r, g)
        except lazy.Loose:
            seen["loose"] += 1
            raise

    monkeypatch.setattr(lazy, "only_best", checked)
    monkeypatch.setattr(lazy.Lazy, "every_edge", full)
    monkeypatch.setattr(lazy.Lazy, "weigh", weighed)
    return seen


# ----- whole documents ------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(12))
def test_distinct_nested_items_are_paired_as_the_definition_pairs_them(seed, spied):
    rng = random.Random(seed)
    schema, label, result = nested_document(rng, rng.randint(3, 8), groups=5, rows=4,
                                            twins=False)
    assert differences(schema, label, result, forced=FORCED, versions=VERSIONS) == []
    assert spied["unique"] > 0 and spied["loose"] == 0


@pytest.mark.parametrize("seed", range(40))
def test_tie_heavy_nested_items_are_paired_as_the_definition_pairs_them(seed, spied):
    rng = random.Random(1000 + seed)
    schema, label, result = nested_document(rng, rng.randint(0, 9), deep=seed % 4 == 3,
                                            readings=seed % 3 == 1)
    assert differences(schema, label, result, forced=FORCED, versions=VERSIONS) == []
    assert spied["loose"] == 0


def test_the_tie_heavy_documents_exercise_both_outcomes_of_the_uniqueness_check(spied):
    # What the seeded tie-heavy documents are for: 2.0's lazy answer kept when unique,
    # and every pair weighed when ties make it one of several best (small items too).
    with _fast.tuned(lazy_leaves_min=0):
        documents_scored(40)
    assert spied["tied"] >= 10 and spied["full"] == spied["tied"]
    assert spied["unique"] >= 10 and spied["loose"] == 0


def documents_scored(count: int) -> None:
    for seed in range(count):
        rng = random.Random(1000 + seed)
        schema, label, result = nested_document(rng, rng.randint(0, 9), deep=seed % 4 == 3,
                                                readings=seed % 3 == 1)
        _fast.score(result, schema, label, version="2.0")


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(seed=st.integers(0, 2**32 - 1), sections=st.integers(0, 7),
       groups=st.integers(0, 5), rows=st.integers(0, 4), deep=st.booleans(),
       twins=st.booleans(), readings=st.booleans())
def test_the_engines_agree_on_random_small_nested_arrays(seed, sections, groups, rows,
                                                         deep, twins, readings):
    schema, label, result = nested_document(random.Random(seed), sections, groups=groups,
                                            rows=rows, deep=deep, twins=twins,
                                            readings=readings)
    assert differences(schema, label, result, forced=FORCED, versions=VERSIONS) == []


def test_a_known_tie_under_2_0_is_broken_as_the_definitions_solver_breaks_it(spied):
    # Two label sections each as good a partner for either result section: 2.0's
    # solver picks one of two best assignments; the lazy path must not guess.
    row = {"code": "a", "n": 1, "when": "2024-01-02"}
    label = {"sections": [{"title": "s", "groups": [{"name": "g", "rows": [row]}]},
                          {"title": "t", "groups": [{"name": "g", "rows": [row]}]}]}
    result = {"sections": [{"title": "u", "groups": [{"name": "g", "rows": [row]}]},
                           {"title": "v", "groups": [{"name": "g", "rows": [row]}]}]}
    schema = schema_of(ROW)
    assert differences(schema, label, result, forced=FORCED, versions=VERSIONS) == []
    assert spied["tied"] >= 1 and spied["full"] >= 1
    doc = _fast.score(result, schema, label, version="2.0")
    assert doc.counts["correct"] == 8  # group name and three row leaves, twice


# ----- the uniqueness check against brute force -----------------------------------------

def best_matchings(rows: int, cols: int, edges: dict[tuple[int, int], int]) -> list[set]:
    """Every matching of ``edges`` of the most weight (as edge sets), by enumeration."""
    found: dict[frozenset, int] = {}
    listed = sorted(edges)
    for size in range(min(rows, cols) + 1):
        for chosen in itertools.combinations(listed, size):
            if len({r for r, _ in chosen}) == size == len({c for _, c in chosen}):
                found[frozenset(chosen)] = sum(edges[e] for e in chosen)
    most = max(found.values())
    return [set(m) for m, weight in found.items() if weight == most]


@pytest.mark.parametrize("seed", range(300))
def test_only_best_says_whether_the_best_matching_is_the_only_one(seed):
    rng = random.Random(seed)
    rows, cols = rng.randint(1, 4), rng.randint(1, 4)
    weights = rng.choice([(1, 2), (1, 2, 3), (2, 3, 5, 7), (1, 1, 2)])
    edges = {(r, c): rng.choice(weights) for r in range(rows) for c in range(cols)
             if rng.random() < 0.6}
    tight, u, v, mate_row, mate_col = scorer.best_matching(rows, cols, edges)
    best = best_matchings(rows, cols, edges)
    mine = {(r, c) for r, c in enumerate(mate_row) if c >= 0}
    assert mine in best
    assert lazy.only_best(tight, u, v, mate_row, mate_col) == (len(best) == 1)


def test_only_best_sees_a_path_to_an_unpaired_row_and_a_swap():
    # row 1 unpaired could take row 0's column for the same weight: a tie
    tight, u, v, mate_row, mate_col = scorer.best_matching(2, 1, {(0, 0): 5, (1, 0): 5})
    assert not lazy.only_best(tight, u, v, mate_row, mate_col)
    tight, u, v, mate_row, mate_col = scorer.best_matching(2, 1, {(0, 0): 5, (1, 0): 4})
    assert lazy.only_best(tight, u, v, mate_row, mate_col)
    square = {(0, 0): 3, (0, 1): 3, (1, 0): 3, (1, 1): 3}  # two perfect matchings
    assert not lazy.only_best(*scorer.best_matching(2, 2, square))
    square[0, 0] = 4
    assert lazy.only_best(*scorer.best_matching(2, 2, square))


# ----- the bounds and the work ----------------------------------------------------------

@pytest.mark.parametrize("seed", range(15))
@pytest.mark.parametrize("version", VERSIONS)
def test_bounds_are_never_below_exact_weights(seed, version):
    rng = random.Random(seed)
    schema, label, result = nested_document(rng, rng.randint(1, 8), deep=seed % 2 == 1,
                                            readings=version == "2.1")
    walker = _fast.VERSIONS[version].document(schema, label, scorer.Options(), "")
    fast = FastWalker(walker.walker.comparators, walker.walker.rule, [],
                            walker.walker.readings)
    node = walker.root.properties["sections"]
    left = walker.label_read.key["sections"].key or []
    right = fast.read(walker.root, result).key["sections"].key or []
    if not left or not right:
        return
    with _fast.tuned(lazy_leaves_min=0):  # bounds made whatever the items' size
        problem = lazy.Lazy(fast, node.items, left, right, "sections[]", 1, version == "2.1")
    assert not problem.small
    problem.price(lambda r, g, hits: hits * 10**6 + problem.leaves[r],
                  lambda hits, both, one: hits * 10**6 + both)
    edges = problem.every_edge()  # raises lazy.Loose above a bound
    for (r, g), hits in ((rg, problem.hits[rg[0]][rg[1]]) for rg in problem.bound):
        counts = problem.counts[problem.label_group[r], g]
        assert counts[0] <= hits and counts[1] <= problem.leaves[r]
        assert counts[2] <= problem.leaves[r] + problem.result_leaves[g]
    expected = fast.weights(node.items, left, right, "", "sections[]", 1)[0]
    assert {rc: w for rc, w in edges.items()} == {
        rc: hits * 10**6 + both for rc, (hits, both, _) in expected.items()}


#: keys as Walker.keys gives them, (path, tag, key, leaf), drawn from a few of each so
#: that items share keys, hold several copies of one, and equal keys differ in form
#: (Decimal 1 and 1.0; the leaf, left out of the count, differs too)
KEY_PARTS = st.tuples(st.sampled_from(["a", "b.c"]), st.sampled_from(["text", "number"]),
                      st.sampled_from(["x", "y", decimal.Decimal("1"), decimal.Decimal("1.0")]),
                      st.sampled_from([None, "leaf"]))


@settings(max_examples=300, deadline=None)
@given(label_keys=st.lists(st.lists(KEY_PARTS, max_size=8), max_size=6),
       result_keys=st.lists(st.lists(KEY_PARTS, max_size=8), max_size=6))
def test_shared_keys_counted_in_python_equal_the_sparse_product(label_keys, result_keys):
    python = lazy._shared_python(label_keys, result_keys)
    assert [list(line.items()) for line in python] == \
        [list(line.items()) for line in lazy._shared_sparse(label_keys, result_keys)]


def test_shared_keys_are_the_multiset_intersection_per_pair():
    one = decimal.Decimal("1")
    label = [[("a", "text", "x", None)] * 3 + [("a", "number", one, None)],
             [("b.c", "text", "y", None)]]
    result = [[("a", "text", "x", "leaf")] * 2 + [("a", "number", decimal.Decimal("1.0"), 0)],
              [("a", "text", "y", None)],
              [("a", "text", "x", None), ("b.c", "text", "y", None)]]
    # min(3, 2) x's and the 1 = 1.0 with group 0; one x with group 2; group 1's y is at
    # another path than the label's
    expected = [{0: 3, 2: 1}, {2: 1}]
    assert lazy._shared_python(label, result) == expected
    assert lazy._shared_sparse(label, result) == expected


def test_the_lazy_path_walks_few_of_the_candidate_pairs(monkeypatch):
    # Sections of distinct codes and a few shared quantities, each result section its
    # label's with one row's quantity changed: no identical pair, every pair a candidate.
    rng = random.Random(7)

    def section(s: int) -> dict:
        return {"title": f"s{s}", "groups": [{"name": f"g{s}-{g}", "rows": [
            {"code": f"c{s}-{g}-{k}", "n": rng.randrange(6)} for k in range(4)]}
            for g in range(5)]}

    label = {"sections": [section(s) for s in range(24)]}
    result = copy.deepcopy(label)
    for s in result["sections"]:
        s["groups"][0]["rows"][0]["n"] = 99
    rng.shuffle(result["sections"])
    schema = schema_of(ROW)
    sizes = []
    solve = lazy.Lazy.solve

    def recorded(self):
        solve(self)
        sizes.append((len(self.left), len(self.bound), len(self.exact)))

    monkeypatch.setattr(lazy.Lazy, "solve", recorded)
    for version in VERSIONS:
        sizes.clear()
        expected = output(scorer.score, result, schema, label, version)
        assert output(_fast.score, result, schema, label, version) == expected
        outer = [size for size in sizes if size[0] == 24]
        assert outer, sizes
        rows, candidates, walked = outer[0]
        assert candidates >= 200  # nearly every pair of sections shares a key
        assert walked <= 3 * rows  # the chosen ones and a few more


def test_usable_for_names_the_lazy_path_for_key_compared_nested_items():
    root = scorer.compile_schema(schema_of(ROW))
    sections = root.properties["sections"]
    assert _fast.usable_for(sections, 1) == "lazy"
    assert _fast.usable_for(sections.items.properties["groups"].items.properties["rows"],
                            3) == "flat"
    with _fast.tuned(lazy_nested=False):
        assert _fast.usable_for(sections, 1) is None
    loose = schema_of({"type": "object", "properties": {
        "code": {"type": "string", "x-leafscore": {"compare": "fuzzy"}}}})
    assert _fast.usable_for(scorer.compile_schema(loose).properties["sections"], 1) is None
