"""Version 2.1's assignment (spec 2.1 §1), fast: the pairs the definition's
``scorer.lexicographic_assignment`` gives, found in three steps that each keep exactness.

Items arrive in **groups**: runs of consecutive items in canonical order that are alike
(equal signature and raw JSON, every value written alike: :func:`runs`), so they weigh
alike against every item of the other side.
A group is a run, so "the earliest item in canonical order" is the first free item of the
earliest group, and the lexicographic rule at item level is the same rule on group flows:
label groups in order, each sending as many of its items as a best assignment allows to
its earliest result group, then to the next, and so on (an item's choice never moves
earlier once a later one is taken: whatever a later item could take, an earlier could).

1. **A best assignment** of group flows: scipy's compiled solver on the items (groups
   expanded), or, when expanding would make too many edges (large groups of identical
   items), successive shortest paths on the groups themselves, in Python integers.
2. **Optimal duals** ``u`` (label groups) and ``v`` (result groups), exact integers, by
   shortest paths over the difference constraints the flow must satisfy (a vectorized
   Bellman-Ford). They certify the flow: a dual solution that is feasible and
   complementary-slack proves it optimal, whatever solver found it; where none exists
   (a float solver went wrong), step 1 is redone in integers.
3. **Ties settled where they exist.** Every best assignment uses only edges tight under
   the duals and fills every group of positive dual, so the choice happens inside each
   connected component of the tight graph. In each, groups in order take their earliest
   tight partners greedily; if that fills every group of positive dual it is the
   lexicographic choice (each step took the earliest partner not already taken, and the
   end is a best assignment). Otherwise each (label group, result group) tight edge in
   order is raised as far as a best assignment allows, by a maximum flow over the tight
   edges that still may change (scipy's ``maximum_flow``), and then kept.
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Callable, Sequence
from typing import Any

from leafscore._fast import solve, tuning
from leafscore._fast.numpy_lazy import np

Flows = dict[tuple[int, int], int]


def assign(row_sizes: Sequence[int], col_sizes: Sequence[int], rows: np.ndarray,
           cols: np.ndarray, weights: np.ndarray) -> Flows:
    """The lexicographically smallest best assignment between label groups (``row_sizes``
    items each, in canonical order) and result groups (``col_sizes``), as {(label group,
    result group): items paired}, over edges ``rows[k], cols[k]`` of positive integer
    weight ``weights[k]`` (int64, each below 2**62; pairs sorted by row then column, each
    at most once). Weights are one item pair's worth; no pair off the edges is made.

    Steps 1 and 2 run on a subset of the edges first (each group's edges worth at least
    half its best, :func:`_start`); edges the duals found there do not cover join the
    subset and the steps run again, until the duals cover every edge, which certifies
    the flow for the whole graph. Before them, edges every best assignment uses
    (:func:`_dominant`, ``tuning.TUNING.lexi_dominant``) are taken out with their two
    items, round after round; the steps run on what is left."""
    if not len(weights):
        return {}
    p = np.asarray(row_sizes, np.int64)
    q = np.asarray(col_sizes, np.int64)
    if not tuning.TUNING.lexi_dominant:
        return _assign(p, q, rows, cols, weights)
    found: Flows = {}
    while True:  # each round's pairs may leave others dominant among what is left
        dominant = _dominant(p, q, rows, cols, weights)
        if not dominant.any():
            break
        found.update(dict.fromkeys(zip(rows[dominant].tolist(), cols[dominant].tolist(),
                                       strict=True), 1))
        left = np.ones(len(p), bool)
        left[rows[dominant]] = False
        right = np.ones(len(q), bool)
        right[cols[dominant]] = False
        rest = left[rows] & right[cols]
        rows, cols, weights = rows[rest], cols[rest], weights[rest]
    if not len(weights):
        return found
    # the rest solved on the groups it still touches, numbered anew (same order)
    row_ids, rows = np.unique(rows, return_inverse=True)
    col_ids, cols = np.unique(cols, return_inverse=True)
    rest = _assign(p[row_ids], q[col_ids], rows.reshape(-1), cols.reshape(-1), weights)
    found.update({(int(row_ids[g]), int(col_ids[h])): many for (g, h), many in rest.items()})
    return found


def _dominant(p: np.ndarray, q: np.ndarray, rows: np.ndarray, cols: np.ndarray,
              weights: np.ndarray, floor_rows: np.ndarray | None = None,
              floor_cols: np.ndarray | None = None) -> np.ndarray:
    """Which edges every best assignment uses because they outweigh the best other edge
    of their label group and the best other edge of their result group together: a
    single label item and a single result item (groups of one) whose edge ``w`` exceeds
    ``a + b``, ``a`` the most any other edge of the label item weighs (0 if none), ``b``
    likewise at the result item. Edges as for :func:`assign`; returns a mask of them.

    Why: an assignment without such an edge pairs the label item with some ``R'`` (worth
    at most ``a``) or not, and the result item with some ``L'`` (at most ``b``) or not;
    dropping those two pairs and taking the edge gains ``w - a - b > 0``, so it was not
    best. Every best assignment thus holds the edge, and the lexicographic choice among
    them is the rest's: the label item's only allowed partner is its own. At most one
    such edge per item (it is its item's unique heaviest); a group of several alike items
    has an alike rival of equal weight, so none of its edges qualifies.

    ``floor_rows``, ``floor_cols`` (optional, per group): the most an edge *not listed*
    at that group may weigh (:mod:`leafscore._fast.slack`); ``a`` and ``b`` are then at
    least these, so the argument covers those edges too."""
    _, second_row, at_top = _top_two_sorted(len(p), rows, weights)
    top_col, second_col, _ = _top_two(len(q), cols, weights)
    if floor_rows is not None and floor_cols is not None:
        second_row, second_col = (np.maximum(second_row, floor_rows),
                                  np.maximum(second_col, floor_cols))
    k = np.flatnonzero(at_top)  # the rest only where an item's heaviest edge is
    r, c, w = rows[k], cols[k], weights[k]
    # weights are below 2**62, so the sum of two fits int64
    keep = (w == top_col[c]) & (w > second_row[r] + second_col[c]) & (p[r] == 1) & \
        (q[c] == 1)
    found = np.zeros(len(weights), bool)
    found[k[keep]] = True
    return found


def _top_two(n: int, ends: np.ndarray, weights: np.ndarray,
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per node ``0..n-1``, the heaviest of its edges (``ends``: each edge's node) and the
    heaviest of the others once one heaviest is set aside (0 where there is none; a tie
    for heaviest gives the heaviest twice); and which edges are their node's heaviest."""
    top = np.zeros(n, np.int64)
    np.maximum.at(top, ends, weights)
    at_top = weights == top[ends]
    second = np.zeros(n, np.int64)
    np.maximum.at(second, ends, np.where(at_top, 0, weights))
    tied = np.bincount(ends[at_top], minlength=n) > 1
    second[tied] = top[tied]
    return top, second, at_top


def _top_two_sorted(n: int, ends: np.ndarray, weights: np.ndarray,
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_top_two` of edges sorted by node (``ends`` ascending), by runs: each
    node's edges are one slice, reduced in place rather than scattered."""
    top = np.zeros(n, np.int64)
    second = np.zeros(n, np.int64)
    bounds = np.searchsorted(ends, np.arange(n + 1))  # each node's slice of the edges
    nodes = np.flatnonzero(bounds[1:] > bounds[:-1])
    starts = bounds[nodes]
    top[nodes] = np.maximum.reduceat(weights, starts)
    at_top = weights == top[ends]
    second[nodes] = np.maximum.reduceat(np.where(at_top, 0, weights), starts)
    tied = np.add.reduceat(at_top, starts, dtype=np.int64) > 1
    second[nodes[tied]] = top[nodes[tied]]
    return top, second, at_top


def _assign(p: np.ndarray, q: np.ndarray, rows: np.ndarray, cols: np.ndarray,
            weights: np.ndarray) -> Flows:
    """:func:`assign`'s steps 1-3 on these edges (none taken out first)."""
    return _settle(p, q, rows, cols, weights, *best_flow(p, q, rows, cols, weights))


def best_flow(p: np.ndarray, q: np.ndarray, rows: np.ndarray, cols: np.ndarray,
              weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Steps 1 and 2 on group sizes ``p``, ``q`` and edges as for :func:`assign`: items
    paired along each edge in some best assignment, and optimal duals ``u``, ``v``
    (int64) that certify it over every edge."""
    keep = _start(len(p), len(q), rows, cols, weights)
    while True:
        sub = np.flatnonzero(keep)
        flow_sub, u, v = _certified(p, q, rows[sub], cols[sub], weights[sub])
        uncovered = u[rows] + v[cols] < weights
        if not uncovered.any():
            break
        keep |= uncovered
    flow = np.zeros(len(weights), np.int64)
    flow[sub] = flow_sub
    return flow, u, v


def _start(n_rows: int, n_cols: int, rows: np.ndarray, cols: np.ndarray,
           weights: np.ndarray) -> np.ndarray:
    """The edges worth at least half the best edge of their label group or of their
    result group; every edge when there are fewer than ``tuning.TUNING.lexi_subset_min``
    (one solve of them all is then the quicker)."""
    if len(weights) < tuning.TUNING.lexi_subset_min:
        return np.ones(len(weights), bool)
    starts = np.concatenate(([0], np.flatnonzero(rows[1:] != rows[:-1]) + 1))  # sorted
    best_row = np.repeat(np.maximum.reduceat(weights, starts),
                         np.diff(np.append(starts, len(rows))))
    best_col = np.zeros(n_cols, np.int64)
    np.maximum.at(best_col, cols, weights)
    return (2 * weights >= best_row) | (2 * weights >= best_col[cols])


def _certified(p: np.ndarray, q: np.ndarray, rows: np.ndarray, cols: np.ndarray,
               weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A best flow over these edges and duals that certify it (steps 1 and 2)."""
    flow = _best_flow(p, q, rows, cols, weights)
    duals = _duals(p, q, rows, cols, weights, flow)
    if duals is None:  # a float solver's answer that no dual solution certifies
        flow = _shortest_paths(p, q, rows, cols, weights)
        duals = _duals(p, q, rows, cols, weights, flow)
        if duals is None:
            raise ArithmeticError("no optimal dual solution for an exact best assignment")
    return flow, *duals


def expand(left_groups: Sequence[Sequence[int]], right_groups: Sequence[Sequence[int]],
           flows: Flows) -> list[tuple[int, int]]:
    """Item pairs of group flows: each label group's items in order take, group by group
    in order, the next free items of their result groups (the item-level rule, see the
    module text). ``*_groups`` hold each group's item positions in canonical order.
    Returns (label position, result position) pairs sorted by label position."""
    taken = [0] * len(right_groups)  # items of each result group given so far
    given: dict[int, int] = {}  # items of each label group given so far
    out = []
    for g, h in sorted(flows):  # label groups in order, each its result groups in order
        many, start, at = flows[g, h], taken[h], given.get(g, 0)
        if many == 1:  # most flows: one item of each
            out.append((left_groups[g][at], right_groups[h][start]))
        else:
            out += zip(left_groups[g][at:at + many], right_groups[h][start:start + many],
                       strict=True)
        taken[h], given[g] = start + many, at + many
    return sorted(out)


def runs(signatures: Sequence[str], texts: Sequence[str],
         raw: Callable[[int], Any] | None = None) -> list[list[int]]:
    """Positions sorted by (signature, text, position), cut where (signature, text)
    changes, and, given each position's ``raw`` value, also where that value is written
    otherwise (:func:`written`): raw JSON writes a ``scorer.JSONNumber`` as its float and
    a Python ``Decimal`` as a string, so alike texts may hold values that read unalike
    (0.1 and 0.1000000000000000000199 under a text key). The order stays the rule's."""
    # tuples compared in C, not a key function called per position
    order = sorted(zip(signatures, texts, range(len(signatures)), strict=True))
    out: list[list[int]] = []
    last = None
    for signature, text, k in order:
        if (signature, text) == last:
            out[-1].append(k)
        else:
            out.append([k])
            last = (signature, text)
    if raw is None:
        return out
    cut: list[list[int]] = []
    for run in out:
        if len(run) == 1:
            cut.append(run)
            continue
        before = written(raw(run[0]))
        cut.append([run[0]])
        for k in run[1:]:  # consecutive positions written alike stay one run
            now = written(raw(k))
            if now == before:
                cut[-1].append(k)
            else:
                cut.append([k])
                before = now
    return cut


def written(value: Any) -> Any:
    """``value`` with every scalar that JSON does not write as itself (a
    ``scorer.JSONNumber``, a ``Decimal``, any other class) replaced by its class name
    and written form, so that two values are equal only if they are written alike."""
    cls = value.__class__
    if cls is dict:
        return {key: written(item) for key, item in value.items()}
    if cls is list:
        return [written(item) for item in value]
    if cls in (str, int, float, bool) or value is None:
        return value
    if isinstance(value, dict):
        return (cls.__qualname__, {key: written(item) for key, item in value.items()})
    if isinstance(value, list | tuple):
        return (cls.__qualname__, [written(item) for item in value])
    return (cls.__qualname__, getattr(value, "text", None), repr(value))


# -- 1. a best assignment ------------------------------------------------------------

def _best_flow(p: np.ndarray, q: np.ndarray, rows: np.ndarray, cols: np.ndarray,
               weights: np.ndarray) -> np.ndarray:
    """Items paired along each edge in some best assignment."""
    units = int((p[rows] * q[cols]).sum())
    if units > tuning.TUNING.lexi_units_max:
        return _shortest_paths(p, q, rows, cols, weights)
    if bool((p == 1).all()) and bool((q == 1).all()):  # no group to expand
        return _unit_flow(len(p), len(q), rows, cols, weights, weights)
    row_start = np.concatenate(([0], np.cumsum(p)))
    col_start = np.concatenate(([0], np.cumsum(q)))
    many = p[rows] * q[cols]  # item edges per group edge
    edge = np.repeat(np.arange(len(weights)), many)
    within = np.arange(units) - np.repeat(np.cumsum(many) - many, many)
    unit_rows = row_start[rows[edge]] + within // q[cols[edge]]
    unit_cols = col_start[cols[edge]] + within % q[cols[edge]]
    order = np.lexsort((unit_cols, unit_rows))
    unit_rows, unit_cols, edge = unit_rows[order], unit_cols[order], edge[order]
    unit = _unit_flow(int(row_start[-1]), int(col_start[-1]), unit_rows, unit_cols,
                      weights[edge], weights)
    flow = np.zeros(len(weights), np.int64)
    np.add.at(flow, edge, unit)
    return flow


def _unit_flow(n_rows: int, n_cols: int, rows: np.ndarray, cols: np.ndarray,
               weights: np.ndarray, most: np.ndarray) -> np.ndarray:
    """0/1 per edge: a best matching of single items by scipy's solvers
    (``solve.assign_csr_2_0``), edges sorted by row then column."""
    indptr = np.zeros(n_rows + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=n_rows) + 1, out=indptr[1:])
    slots = np.ones(len(rows) + n_rows, bool)
    slots[indptr[1:] - 1] = False
    indices = np.zeros(len(slots), np.int32)
    indices[slots] = cols
    data = np.zeros(len(slots), solve.weight_type(int(most.max())))
    data[slots] = weights
    chosen = solve.assign_csr_2_0(n_rows, n_cols, [indptr, indices, data])
    flow = np.zeros(len(rows), np.int64)
    if chosen:
        r, c = np.array(chosen, np.int64).T
        flow[np.searchsorted(rows * (n_cols + 1) + cols, r * (n_cols + 1) + c)] = 1
    return flow


def _shortest_paths(p: np.ndarray, q: np.ndarray, rows: np.ndarray, cols: np.ndarray,
                    weights: np.ndarray) -> np.ndarray:
    """A best assignment of group flows in Python integers: successive shortest paths
    (Dijkstra on reduced costs) from label groups to result groups, cost ``-weight``,
    each path pushing what its narrowest step allows, until no path gains."""
    n_rows, n_cols = len(p), len(q)
    source, sink = n_rows + n_cols, n_rows + n_cols + 1
    w = [int(x) for x in weights]
    r_list, c_list = rows.tolist(), cols.tolist()
    out_of: list[list[int]] = [[] for _ in range(n_rows)]  # edges by row
    into: list[list[int]] = [[] for _ in range(n_cols)]
    for k, (g, h) in enumerate(zip(r_list, c_list, strict=True)):
        out_of[g].append(k)
        into[h].append(k)
    flow = [0] * len(w)
    sent = [0] * n_rows
    got = [0] * n_cols
    caps_r, caps_c = [int(x) for x in p], [int(x) for x in q]
    # potentials making every reduced cost non-negative (costs -w only on row -> column)
    pot = [0] * (n_rows + n_cols + 2)
    for h in range(n_cols):
        pot[n_rows + h] = -max((w[k] for k in into[h]), default=0)
    pot[sink] = min(pot[n_rows:n_rows + n_cols], default=0)
    while True:
        dist: dict[int, int] = {source: 0}
        via: dict[int, tuple[int, int]] = {}  # node -> (previous node, edge or -1)
        heap = [(0, source)]
        done: set[int] = set()
        while heap:
            d, node = heapq.heappop(heap)
            if node in done:
                continue
            done.add(node)
            # (next node, cost, edge or -1); a shortest path never comes back through the
            # source or the sink, so their reverse arcs are left out
            steps: list[tuple[int, int, int]] = []
            if node == source:
                steps = [(g, 0, -1) for g in range(n_rows) if sent[g] < caps_r[g]]
            elif node == sink:
                break
            elif node < n_rows:
                steps = [(n_rows + c_list[k], -w[k], k) for k in out_of[node]]
            elif node < n_rows + n_cols:
                h = node - n_rows
                steps = [(r_list[k], w[k], k) for k in into[h] if flow[k] > 0]
                if got[h] < caps_c[h]:
                    steps.append((sink, 0, -1))
            for nxt, cost, k in steps:
                nd = d + cost + pot[node] - pot[nxt]
                if nd < dist.get(nxt, nd + 1):
                    dist[nxt] = nd
                    via[nxt] = (node, k)
                    heapq.heappush(heap, (nd, nxt))
        if sink not in dist or dist[sink] + pot[sink] - pot[source] >= 0:
            return np.array(flow, np.int64)
        reach = dist[sink]  # nodes not settled by then move as far as the sink did
        for node in range(len(pot)):
            pot[node] += min(dist.get(node, reach), reach)
        path, node = [], sink
        while node != source:
            before, k = via[node]
            path.append((before, node, k))
            node = before
        room = []
        for a, b, k in path:
            if a == source:
                room.append(caps_r[b] - sent[b])
            elif b == sink:
                room.append(caps_c[a - n_rows] - got[a - n_rows])
            elif a < n_rows:
                room.append(min(caps_r[a], caps_c[b - n_rows]))
            else:
                room.append(flow[k])
        push = min(room)
        for a, b, k in path:
            if a == source:
                sent[b] += push
            elif b == sink:
                got[a - n_rows] += push
            elif a < n_rows:
                flow[k] += push
            else:
                flow[k] -= push


# -- 2. optimal duals ------------------------------------------------------------------

def _duals(p: np.ndarray, q: np.ndarray, rows: np.ndarray, cols: np.ndarray,
           weights: np.ndarray, flow: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Duals ``u >= 0`` per label group and ``v >= 0`` per result group with ``u + v >=
    weight`` on every edge, equality where ``flow`` pairs items, ``u = 0`` where a label
    group keeps items unpaired and ``v = 0`` likewise: the certificate that ``flow`` is a
    best assignment (LP duality). None when there is none (``flow`` is not best). Of all
    such duals, the one with each ``u`` highest and each ``v`` lowest.

    With ``x = u`` for label groups, ``x = -v`` for result groups and a node 0 fixed at
    0, each condition is ``x[b] <= x[a] + length`` for an arc a -> b; the shortest
    distances from node 0 satisfy them all exactly when no cycle is negative, and are
    the highest ``x`` that does."""
    src, dst, length = _dual_arcs(p, q, rows, cols, flow, weights)
    dist = _distances(src, dst, length, len(p) + len(q) + 1)
    if dist is None:
        return None  # a negative cycle: no dual solution
    u, v = dist[1:len(p) + 1], -dist[len(p) + 1:]
    sent = np.bincount(rows, flow, minlength=len(p)).astype(np.int64)
    got = np.bincount(cols, flow, minlength=len(q)).astype(np.int64)
    used = flow > 0
    if (u < 0).any() or (v < 0).any() or (u[rows] + v[cols] < weights).any() or \
            (u[rows[used]] + v[cols[used]] != weights[used]).any() or \
            (u[sent < p] != 0).any() or (v[got < q] != 0).any():
        return None
    return u, v


def spread_duals(p: np.ndarray, q: np.ndarray, rows: np.ndarray, cols: np.ndarray,
                 weights: np.ndarray, flow: np.ndarray, u: np.ndarray, v: np.ndarray,
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Twice the midpoint of the optimal duals: ``u`` + the lowest optimal ``u``, ``v`` +
    the highest optimal ``v``, given ``flow``, a best assignment, and ``u``, ``v`` from
    :func:`_duals` (each ``u`` highest). Optimal duals form a convex set, so the sum
    halved is optimal too; it leaves each edge the most room on both sides at once,
    which is what a bound on edges left out needs (:mod:`leafscore._fast.slack`).

    The lowest ``x`` of :func:`_duals`' conditions (node 0 at 0) is minus the shortest
    distance from each node to node 0: the distances from 0 with every arc reversed."""
    src, dst, length = _dual_arcs(p, q, rows, cols, flow, weights)
    back = _distances(dst, src, length, len(p) + len(q) + 1)
    if back is None:  # cannot happen: the same arcs have shortest distances from 0
        raise ArithmeticError("optimal duals without a lowest one")
    return u - back[1:len(p) + 1], v + back[len(p) + 1:]


def _dual_arcs(p: np.ndarray, q: np.ndarray, rows: np.ndarray, cols: np.ndarray,
               flow: np.ndarray, weights: np.ndarray,
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The arcs (from, to, length) of :func:`_duals`' conditions: node 0, label groups
    1..n, result groups after them."""
    n_rows, n_cols = len(p), len(q)
    sent = np.bincount(rows, flow, minlength=n_rows).astype(np.int64)
    got = np.bincount(cols, flow, minlength=n_cols).astype(np.int64)
    row_node, col_node = rows + 1, cols + 1 + n_rows
    used = flow > 0
    free_rows = np.flatnonzero(sent < p) + 1
    free_cols = np.flatnonzero(got < q) + 1 + n_rows
    every_row = np.arange(1, n_rows + 1)
    every_col = np.arange(1 + n_rows, 1 + n_rows + n_cols)
    zeros = np.zeros
    src = np.concatenate((row_node, col_node[used], every_row, zeros(n_cols, np.int64),
                          zeros(len(free_rows), np.int64), free_cols))
    dst = np.concatenate((col_node, row_node[used], zeros(n_rows, np.int64), every_col,
                          free_rows, zeros(len(free_cols), np.int64)))
    length = np.concatenate((-weights, weights[used], zeros(n_rows + n_cols + len(free_rows)
                                                             + len(free_cols), np.int64)))
    return src, dst, length


def _distances(src: np.ndarray, dst: np.ndarray, length: np.ndarray, nodes: int,
               ) -> np.ndarray | None:
    """Shortest distances from node 0 over arcs ``src -> dst`` (a vectorized
    Bellman-Ford, a frontier at a time); None when a cycle is negative."""
    order = np.argsort(src, kind="stable")
    src, dst, length = src[order], dst[order], length[order]
    start = np.searchsorted(src, np.arange(nodes + 1))
    dist = np.full(nodes, np.iinfo(np.int64).max // 4, np.int64)
    dist[0] = 0
    active = np.array([0])
    for _ in range(nodes + 1):
        counts = start[active + 1] - start[active]
        at = np.repeat(start[active] - np.cumsum(counts) + counts, counts) + np.arange(
            int(counts.sum()))
        candidate = dist[src[at]] + length[at]
        better = candidate < dist[dst[at]]
        if not better.any():
            return dist
        np.minimum.at(dist, dst[at][better], candidate[better])
        active = np.unique(dst[at][better])
    return None


# -- 3. ties settled where they exist --------------------------------------------------

def _settle(p: np.ndarray, q: np.ndarray, rows: np.ndarray, cols: np.ndarray,
            weights: np.ndarray, flow: np.ndarray, u: np.ndarray, v: np.ndarray) -> Flows:
    """The lexicographic choice among best assignments (module text, step 3), over the
    edges some best assignment uses (:func:`_allowed`), component by component."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    n_rows, n_cols = len(p), len(q)
    allowed = np.flatnonzero(_allowed(p, q, rows, cols, weights, flow, u, v))
    a_rows, a_cols = rows[allowed], cols[allowed]
    graph = coo_matrix((np.ones(len(allowed)), (a_rows, a_cols + n_rows)),
                       shape=(n_rows + n_cols, n_rows + n_cols))
    _, label = connected_components(graph, directed=False)
    greedy = _greedy(p, q, a_rows.tolist(), a_cols.tolist())
    sent = np.zeros(n_rows, np.int64)
    got = np.zeros(n_cols, np.int64)
    for (g, h), many in greedy.items():
        sent[g] += many
        got[h] += many
    short = set(label[np.flatnonzero((u > 0) & (sent < p))].tolist()) | set(
        label[n_rows + np.flatnonzero((v > 0) & (got < q))].tolist())
    if not tuning.TUNING.lexi_greedy:
        short = set(label[a_rows].tolist())
    out = {gh: many for gh, many in greedy.items() if label[gh[0]] not in short}
    by_component = np.argsort(label[a_rows], kind="stable")
    bounds = np.searchsorted(label[a_rows][by_component], sorted(short))
    for component, start in zip(sorted(short), bounds.tolist(), strict=True):
        inside = by_component[start:start + int((label[a_rows] == component).sum())]
        g_rows, g_cols = a_rows[inside], a_cols[inside]
        if bool((p[g_rows] == 1).all()) and bool((q[g_cols] == 1).all()):
            out.update(_units_in(g_rows, g_cols, flow[allowed][inside], u, v))
        else:
            out.update(_raise_in_order(p, q, g_rows, g_cols, flow[allowed][inside], u, v))
    return out


def _units_in(rows: np.ndarray, cols: np.ndarray, flow: np.ndarray, u: np.ndarray,
              v: np.ndarray) -> Flows:
    """One component of single items, settled by the lexicographic rule from this best
    matching and these duals, over the component's edges some best assignment uses
    (they are its tight edges here): :func:`choose`."""
    row_ids, col_ids = sorted(set(rows.tolist())), sorted(set(cols.tolist()))
    at_r = {g: k for k, g in enumerate(row_ids)}
    at_c = {h: k for k, h in enumerate(col_ids)}
    tight: list[list[int]] = [[] for _ in row_ids]
    mate_row, mate_col = [-1] * len(row_ids), [-1] * len(col_ids)
    for g, h, paired in zip(rows.tolist(), cols.tolist(), flow.tolist(), strict=True):
        tight[at_r[g]].append(at_c[h])
        if paired:
            mate_row[at_r[g]], mate_col[at_c[h]] = at_c[h], at_r[g]
    choose(tight, (u[row_ids] == 0).tolist(), (v[col_ids] == 0).tolist(), mate_row, mate_col)
    return {(row_ids[r], col_ids[c]): 1 for r, c in enumerate(mate_row) if c >= 0}


def choose(tight: list[list[int]], row_free: list[bool], col_free: list[bool],
           mate_row: list[int], mate_col: list[int]) -> None:
    """The rule of ``scorer.lexicographic_choice``, changing ``mate_row``/``mate_col``:
    rows in order, each moved to its earliest tight column (before its own) that an
    alternating rotation allows, then kept. ``row_free``/``col_free``: which may end
    unpaired (zero dual).

    Where the definition searches once per candidate column, this searches once per row,
    backwards from the row's own column (or from outside, for an unpaired row): a column
    is allowed exactly when that search reaches it, and the earliest one reached is taken.
    Steps of a rotation, forwards: a column's owner must move (column -> its row); a row
    takes another tight column (row -> column); a zero-dual row drops out, a free column
    absorbs (-> outside); from outside, a free row comes in or a zero-dual column is let go
    (outside -> row or column). Kept rows and columns take no part. Nodes are numbered:
    rows ``0..rows-1``, then columns, then outside. Which column is reached does not
    depend on the search's order, so neither does the end (the choice is unique)."""
    rows, cols = len(mate_row), len(mate_col)
    outside = rows + cols
    by_col: list[list[int]] = [[] for _ in range(cols)]
    for r, line in enumerate(tight):
        for c in line:
            by_col[c].append(r)
    done_col = [False] * cols
    # rows that may drop out, by number (only later rows are not yet kept); columns not
    # paired (never kept: a kept column is paired for good)
    may_drop = [x for x in range(rows) if row_free[x]]
    unpaired = {y for y in range(cols) if mate_col[y] < 0}
    for r in range(rows):
        mine = mate_row[r]
        wanted = [c for c in tight[r] if not done_col[c] and (mine < 0 or c < mine)]
        if wanted:
            target = rows + mine if mine >= 0 else outside
            toward = {target: -1}  # node -> the next node on its way to the target
            queue, earliest = [target], rows + wanted[0]
            for node in queue:
                if node < rows:  # its column must move it, or it is a free row coming in
                    own = mate_row[node]
                    found = [rows + own] if own >= 0 and not done_col[own] else [outside]
                elif node < outside:  # a row takes it; from outside when it may be let go
                    k = node - rows
                    # the rows after r are the ones not kept (rows are kept in order), and
                    # by_col lists rows ascending: a slice, less the column's own row
                    line = by_col[k]
                    found = line[bisect.bisect_right(line, r):]
                    if mate_col[k] > r:
                        found.remove(mate_col[k])
                    if mate_col[k] >= 0 and col_free[k]:
                        found.append(outside)
                else:
                    found = [x for x in may_drop[bisect.bisect_right(may_drop, r):]
                             if mate_row[x] >= 0] + [rows + y for y in unpaired]
                for before in found:
                    if before not in toward:
                        toward[before] = node
                        queue.append(before)
                if earliest in toward:  # nothing earlier to look for
                    break
            first = next((c for c in wanted if rows + c in toward), -1)
            if first >= 0:
                _rotate(r, first, toward, mate_row, mate_col, unpaired)
        if mate_row[r] >= 0:
            done_col[mate_row[r]] = True


def _rotate(r: int, c: int, toward: dict[int, int], mate_row: list[int],
            mate_col: list[int], unpaired: set[int]) -> None:
    """Row ``r`` takes column ``c``; each step on the way to the target is applied
    (nodes numbered as in :func:`choose`; ``unpaired`` kept up to date)."""
    rows = len(mate_row)
    outside = rows + len(mate_col)
    mate_row[r], mate_col[c] = c, r
    unpaired.discard(c)
    node = rows + c
    while (after := toward[node]) >= 0:  # -1: the target, r's old column or outside
        if node < rows and rows <= after < outside:  # the row takes the next column
            mate_row[node], mate_col[after - rows] = after - rows, node
            unpaired.discard(after - rows)
        elif node < rows:  # the row drops out
            mate_row[node] = -1
        elif node == outside and rows <= after:  # a zero-dual column is let go
            mate_col[after - rows] = -1
            unpaired.add(after - rows)
        node = after  # a column's owner moving on, a free column or row: nothing to write


def _allowed(p: np.ndarray, q: np.ndarray, rows: np.ndarray, cols: np.ndarray,
             weights: np.ndarray, flow: np.ndarray, u: np.ndarray, v: np.ndarray,
             ) -> np.ndarray:
    """Which edges some best assignment uses: those carrying ``flow``, and the tight
    ones lying on a cycle of the residual network (a label group may send more along a
    tight edge, less along one it uses, more if it has items unpaired, fewer if its dual
    is 0; result groups likewise; one node Z stands for outside). An edge is used by some
    best assignment exactly when it carries flow or closes such a cycle: the strongly
    connected components of that network decide it (scipy, in C)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    n_rows, n_cols = len(p), len(q)
    outside = n_rows + n_cols
    tight = u[rows] + v[cols] == weights
    sent = np.bincount(rows, flow, minlength=n_rows)
    got = np.bincount(cols, flow, minlength=n_cols)
    carried = flow > 0
    spare_rows = np.flatnonzero(sent < p)
    lighter_rows = np.flatnonzero((sent > 0) & (u == 0))
    spare_cols = np.flatnonzero(got < q) + n_rows
    lighter_cols = np.flatnonzero((got > 0) & (v == 0)) + n_rows

    def at(k: int) -> np.ndarray:
        return np.full(k, outside)

    src = np.concatenate((rows[tight], cols[carried] + n_rows, at(len(spare_rows)),
                          lighter_rows, spare_cols, at(len(lighter_cols))))
    dst = np.concatenate((cols[tight] + n_rows, rows[carried], spare_rows,
                          at(len(lighter_rows)), at(len(spare_cols)), lighter_cols))
    network = coo_matrix((np.ones(len(src)), (src, dst)), shape=(outside + 1, outside + 1))
    _, strong = connected_components(network, directed=True, connection="strong")
    return tight & (carried | (strong[rows] == strong[cols + n_rows]))


def _greedy(p: np.ndarray, q: np.ndarray, t_rows: list[int], t_cols: list[int]) -> Flows:
    """Label groups in order, each filling its earliest tight result groups first."""
    left, room = p.tolist(), q.tolist()
    out: Flows = {}
    for g, h in zip(t_rows, t_cols, strict=True):
        many = min(left[g], room[h])
        if many:
            out[g, h] = many
            left[g] -= many
            room[h] -= many
    return out


def _raise_in_order(p: np.ndarray, q: np.ndarray, t_rows: np.ndarray, t_cols: np.ndarray,
                    flow: np.ndarray, u: np.ndarray, v: np.ndarray) -> Flows:
    """One tight component's lexicographic flows, from a best flow over its edges: each
    edge in order raised by the most a maximum flow around the rest allows, then kept.

    The network: source -> label group (items, at least all of them when its dual is
    positive), label -> result group over tight edges, result group -> sink (likewise),
    sink -> source. Raising edge (g, h) is a circulation through it: the most flow from h
    back to g in the residual network of what is not yet kept."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import maximum_flow

    groups_r = sorted(set(t_rows.tolist()))
    groups_c = sorted(set(t_cols.tolist()))
    at_r = {g: 2 + k for k, g in enumerate(groups_r)}
    at_c = {h: 2 + len(groups_r) + k for k, h in enumerate(groups_c)}
    edges = list(zip(t_rows.tolist(), t_cols.tolist(), strict=True))
    current = dict(zip(edges, flow.tolist(), strict=True))
    plenty = int(p[groups_r].sum() + q[groups_c].sum()) + 1
    kept_edges: set[tuple[int, int]] = set()
    kept_rows: set[int] = set()
    nodes = 2 + len(groups_r) + len(groups_c)
    for g in groups_r:
        for h in sorted(h for gg, h in edges if gg == g):
            arcs: dict[tuple[int, int], int] = {}

            def arc(a: int, b: int, cap: int, arcs: dict = arcs) -> None:
                if cap > 0:
                    arcs[a, b] = arcs.get((a, b), 0) + cap

            sent = {r: 0 for r in groups_r}
            got = {c: 0 for c in groups_c}
            for (r, c), many in current.items():
                sent[r] += many
                got[c] += many
            for r in groups_r:
                if r not in kept_rows:
                    arc(0, at_r[r], int(p[r]) - sent[r])
                    arc(at_r[r], 0, sent[r] if u[r] == 0 else 0)
            for c in groups_c:
                arc(at_c[c], 1, int(q[c]) - got[c])
                arc(1, at_c[c], got[c] if v[c] == 0 else 0)
            arc(1, 0, plenty)
            arc(0, 1, sum(sent.values()))
            for (r, c), many in current.items():
                if (r, c) in kept_edges or (r, c) == (g, h) or r in kept_rows:
                    continue
                arc(at_r[r], at_c[c], plenty)
                arc(at_c[c], at_r[r], many)
            keys = list(arcs)
            matrix = csr_matrix((np.array([arcs[k] for k in keys], np.int32),
                                 ([a for a, _ in keys], [b for _, b in keys])),
                                shape=(nodes, nodes))
            found = maximum_flow(matrix, at_c[h], at_r[g])
            if found.flow_value:
                moved = found.flow.tocoo()
                for a, b, amount in zip(moved.row.tolist(), moved.col.tolist(),
                                        moved.data.tolist(), strict=True):
                    if amount > 0 and 2 <= a < 2 + len(groups_r) and b >= 2 + len(groups_r):
                        r, c = groups_r[a - 2], groups_c[b - 2 - len(groups_r)]
                        current[r, c] += int(amount)
                    elif amount > 0 and a >= 2 + len(groups_r) and 2 <= b < 2 + len(groups_r):
                        r, c = groups_r[b - 2], groups_c[a - 2 - len(groups_r)]
                        current[r, c] -= int(amount)
                current[g, h] += int(found.flow_value)
            kept_edges.add((g, h))
        kept_rows.add(g)
    return {gh: many for gh, many in current.items() if many}


def certificate(p: Sequence[int], q: Sequence[int], rows: Any, cols: Any, weights: Any,
                flow: Any) -> bool:
    """Whether ``flow`` (items per edge) is a best assignment (tests)."""
    return _duals(np.asarray(p, np.int64), np.asarray(q, np.int64), np.asarray(rows),
                  np.asarray(cols), np.asarray(weights, np.int64),
                  np.asarray(flow, np.int64)) is not None
