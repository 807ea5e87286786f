"""Version 2.1's dominant edges (``lexi._dominant``, ``tuning.lexi_dominant``): an edge
of a single label item and a single result item that outweighs the best other edge of
each of its items together is in every best assignment, so it is taken out, with its
items, before the rest is solved; round after round. Held to the definition's
``scorer.lexicographic_assignment`` on random group graphs, both ways."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scorer
from leafscore._fast import lexi, tuning


def arrays(edges: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    keys = sorted(edges)
    return (np.array([g for g, _ in keys], np.int64), np.array([h for _, h in keys], np.int64),
            np.array([edges[k] for k in keys], np.int64))


def test_an_edge_outweighing_both_its_items_other_edges_together_is_dominant():
    # (0, 0): 10 > 3 (row 0's other) + 4 (column 0's other); (2, 2) has no rival at all;
    # (1, 1): 5 is not above 4 + 3
    edges = {(0, 0): 10, (0, 1): 3, (1, 0): 4, (1, 1): 5, (2, 2): 1}
    found = lexi._dominant(np.ones(3, np.int64), np.ones(3, np.int64), *arrays(edges))
    assert found.tolist() == [True, False, False, False, True]


def test_an_edge_equal_to_the_sum_of_its_rivals_is_not_dominant():
    edges = {(0, 0): 7, (0, 1): 3, (1, 0): 4}
    found = lexi._dominant(np.ones(2, np.int64), np.ones(2, np.int64), *arrays(edges))
    assert found.tolist() == [False, False, False]


def test_a_tie_for_an_items_heaviest_edge_or_a_group_of_alike_items_is_never_dominant():
    tie = {(0, 0): 5, (0, 1): 5}
    assert lexi._dominant(np.ones(1, np.int64), np.ones(2, np.int64),
                          *arrays(tie)).tolist() == [False, False]
    alone = {(0, 0): 5}
    assert lexi._dominant(np.array([2]), np.array([1]), *arrays(alone)).tolist() == [False]
    assert lexi._dominant(np.array([1]), np.array([3]), *arrays(alone)).tolist() == [False]
    assert lexi._dominant(np.array([1]), np.array([1]), *arrays(alone)).tolist() == [True]


def test_an_edge_dominant_once_another_pair_is_out_is_taken_in_a_later_round():
    # round 1 takes (0, 0) (10 > 6); (1, 1) is then alone at column 1: round 2 takes it
    edges = {(0, 0): 10, (0, 1): 6, (1, 1): 5, (1, 2): 5, (2, 2): 1}
    first = lexi._dominant(np.ones(3, np.int64), np.ones(3, np.int64), *arrays(edges))
    assert first.tolist() == [True, False, False, False, False]
    expected = {(0, 0): 1, (1, 1): 1, (2, 2): 1}
    assert lexi.assign([1, 1, 1], [1, 1, 1], *arrays(edges)) == expected
    with tuning.tuned(lexi_dominant=False):
        assert lexi.assign([1, 1, 1], [1, 1, 1], *arrays(edges)) == expected


@st.composite
def sparse_graphs(draw):
    """Group sizes (mostly single items), and sparse edges of widely spread weights, so
    that some edges dominate and some only after others are out."""
    left = draw(st.lists(st.sampled_from([1, 1, 1, 2]), min_size=1, max_size=8))
    right = draw(st.lists(st.sampled_from([1, 1, 1, 2]), min_size=1, max_size=8))
    cells = list(itertools.product(range(len(left)), range(len(right))))
    chosen = draw(st.lists(st.sampled_from(cells), unique=True, max_size=3 * len(cells) // 4))
    weights = draw(st.lists(st.sampled_from([1, 2, 3, 5, 8, 13, 21]), min_size=len(chosen),
                            max_size=len(chosen)))
    return left, right, dict(zip(sorted(chosen), weights, strict=True))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=sparse_graphs())
def test_taking_dominant_edges_out_first_gives_the_definitions_pairs(graph):
    sizes_left, sizes_right, edges = graph
    starts_left = list(itertools.accumulate(sizes_left, initial=0))
    starts_right = list(itertools.accumulate(sizes_right, initial=0))
    left = [list(range(starts_left[g], starts_left[g + 1])) for g in range(len(sizes_left))]
    right = [list(range(starts_right[h], starts_right[h + 1]))
             for h in range(len(sizes_right))]
    items = {(a, b): w for (g, h), w in edges.items() for a in left[g] for b in right[h]}
    expected = sorted(scorer.lexicographic_assignment(starts_left[-1], starts_right[-1], items))
    if not edges:
        return
    for dominant in (True, False):
        with tuning.tuned(lexi_dominant=dominant, lexi_subset_min=0):
            flows = lexi.assign(sizes_left, sizes_right, *arrays(edges))
        assert lexi.expand(left, right, flows) == expected, dominant


def most_shared_by_trying(mine: np.ndarray, others: np.ndarray) -> list[int]:
    """``flat._most_shared`` by its rule: per column of ``mine``, the largest set of two or
    more fields (stated in it) on which at least two columns of ``others`` hold its keys,
    else 1."""
    out = []
    for j in range(mine.shape[1]):
        stated = [f for f in range(mine.shape[0]) if mine[f, j] >= 0]
        best = 1
        for size in range(2, len(stated) + 1):
            for subset in itertools.combinations(stated, size):
                alike = sum(all(others[f, k] == mine[f, j] for f in subset)
                            for k in range(others.shape[1]))
                if alike >= 2:
                    best = size
        out.append(best)
    return out


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_keys_shared_with_a_second_item_are_counted_as_by_trying_every_field_set(seed):
    from leafscore._fast import flat

    rng = np.random.default_rng(seed)
    fields, keys = int(rng.integers(1, 6)), int(rng.integers(1, 5))
    mine = rng.integers(-1, keys, (fields, int(rng.integers(1, 12))))
    others = rng.integers(-2, keys, (fields, int(rng.integers(1, 16))))
    others[:, :mine.shape[1]] = np.where(mine >= 0, mine, -1)[:, :others.shape[1]]  # alike
    assert flat._most_shared(mine, others).tolist() == most_shared_by_trying(mine, others)
