"""Version 2.1's choice on small flat arrays (``lexi_small_units``): the definition's best
matching and duals (``scorer.best_matching``), then ``lexi.choose``. Held to the
definition's ``scorer.lexicographic_assignment`` and to the group path (``lexi.assign``)
on random tie-heavy graphs of groups of alike items."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scorer
from leafscore._fast import flat, lexi


@st.composite
def group_graphs(draw):
    """Group sizes on each side (1-3 items), and edges between groups with few weights."""
    left = draw(st.lists(st.integers(1, 3), min_size=1, max_size=7))
    right = draw(st.lists(st.integers(1, 3), min_size=1, max_size=7))
    cells = list(itertools.product(range(len(left)), range(len(right))))
    chosen = draw(st.lists(st.sampled_from(cells), unique=True, max_size=len(cells)))
    weights = draw(st.lists(st.integers(1, 4), min_size=len(chosen), max_size=len(chosen)))
    return left, right, dict(zip(sorted(chosen), weights, strict=True))


def groups_of(sizes: list[int]) -> list[list[int]]:
    """Consecutive item positions per group: [[0], [1, 2], ...]."""
    starts = list(itertools.accumulate(sizes, initial=0))
    return [list(range(starts[g], starts[g] + size)) for g, size in enumerate(sizes)]


def item_edges(left: list[list[int]], right: list[list[int]], edges: dict) -> dict:
    return {(a, b): w for (g, h), w in edges.items() for a in left[g] for b in right[h]}


def arrays(edges: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    keys = sorted(edges)
    return (np.array([g for g, _ in keys], np.int64), np.array([h for _, h in keys], np.int64),
            np.array([edges[k] for k in keys], np.int64))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=group_graphs())
def test_the_small_path_gives_the_definitions_pairs(graph):
    sizes_left, sizes_right, edges = graph
    left, right = groups_of(sizes_left), groups_of(sizes_right)
    expected = sorted(scorer.lexicographic_assignment(
        sum(sizes_left), sum(sizes_right), item_edges(left, right, edges)))
    assert flat.assign_items(left, right, *arrays(edges)) == expected


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=group_graphs())
def test_the_small_path_gives_the_group_paths_pairs(graph):
    sizes_left, sizes_right, edges = graph
    left, right = groups_of(sizes_left), groups_of(sizes_right)
    if not edges:
        assert flat.assign_items(left, right, *arrays(edges)) == []
        return
    flows = lexi.assign(sizes_left, sizes_right, *arrays(edges))
    assert flat.assign_items(left, right, *arrays(edges)) == lexi.expand(left, right, flows)


def test_a_staircase_of_ties_takes_each_rows_earliest_column():
    n = 12  # every full matching weighs alike: the lexicographic one is the diagonal
    edges = {(r, c): n - c for r in range(n) for c in range(n)}
    groups = [[k] for k in range(n)]
    assert flat.assign_items(groups, groups, *arrays(edges)) == [(k, k) for k in range(n)]


def test_best_matching_gives_duals_that_cover_every_edge_and_are_tight_on_the_matching():
    edges = {(0, 0): 3, (0, 1): 2, (1, 0): 2, (1, 1): 1, (2, 1): 1}
    tight, u, v, mate_row, mate_col = scorer.best_matching(3, 2, edges)
    paired = [r for r, c in enumerate(mate_row) if c >= 0]
    assert [mate_col[mate_row[r]] for r in paired] == paired
    assert all(u[r] + v[c] >= w for (r, c), w in edges.items())
    assert all(u[r] + v[c] == edges[r, c] for r, c in enumerate(mate_row) if c >= 0)
    assert sum(edges[r, c] for r, c in enumerate(mate_row) if c >= 0) == 4
    assert [c in tight[r] for r, c in enumerate(mate_row) if c >= 0] == [True, True]
