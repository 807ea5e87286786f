"""Version 2.1's flat pairing without its widest keys: the pairs they alone would join are
left out of the graph and proved slack by optimal duals, so that a status enum of six
values does not join 50,000 rows to 50,000 (issue 26: 6e8 edges, 7 GB).

A key held by ``a`` label groups and ``b`` result groups joins ``a b`` pairs. Keys joining
more than ``tuning.TUNING.slack_wide`` times the groups of both sides are **wide**. The
graph is built from the other keys only (each of its pairs weighed in full, wide keys
counted too); a pair sharing wide keys only is left out. Then, round after round:

1. A best assignment of that graph and optimal duals (``lexi.best_flow``), spread to
   their midpoint (``lexi.spread_duals``): optimal duals of a convex set, the one that
   leaves every left-out pair the most room on both of its sides at once.
2. A left-out pair shares at most ``s`` keys (``s``: the fields holding a wide key), so
   it weighs at most ``W`` (:func:`_ceiling`). Every pair of each wide key whose duals
   do not exceed ``W`` is weighed exactly and joins the graph (sorted prefixes, in
   numpy); none: done. When the round's highest optimal duals cover every pair it
   adds, they and its flow stay optimal (and those duals the highest) for the larger
   graph: the next round spreads them without solving again (``Tuning.slack_reuse``).

When the duals exceed the weight of every pair left out, they are feasible for the
whole graph and complementary-slack with the assignment, which is therefore best for the
whole graph (LP duality); and every best assignment of the whole graph is
complementary-slack with them, so it uses no left-out pair (each strictly slack). The
best assignments of the two graphs are the same set, so the lexicographic choice
among them (``lexi.assign``) is the same. Pair weights here take bases of their own
(``fields * size + 1``), large enough for each criterion's totals, so each assignment
orders as under the definition's bases (``scorer.pair_2_1``) and the best ones are the
same. Where the rounds would weigh more than a quarter of the wide keys' pairs (and more
than :data:`BUDGET_MIN`), or the columns are not one key per field (a loose field, a
value re-read under two tags matching two label values), this path gives way (None) to
the full join (``flat.flat_graph``).

Before the rounds, ``lexi.assign``'s dominant rounds run with each item's left-out pairs
counted in (``lexi._dominant``'s floors): a pair outweighing the best other pairs of both
its items, left-out ones included, is in every best assignment of the whole graph; its
two items leave the graph with every pair at them, left out or not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import scorer
from leafscore._fast import joins, lexi, tuning
from leafscore._fast.numpy_lazy import np

#: Rounds of step 2 before the full join is taken instead (each adds every pair its
#: duals do not clear, so one or two suffice on the benches).
ROUNDS = 8
#: Pairs of wide keys the rounds may weigh before the full join is taken instead: a
#: quarter of the pairs the wide keys join, and never fewer than this.
BUDGET_MIN = 1 << 12


def assign(keyed: tuple[np.ndarray, ...], row_sizes: list[int], col_sizes: list[int],
           ) -> lexi.Flows | None:
    """``lexi.assign``'s flows for the groups of a flat 2.1 array (``row_sizes``,
    ``col_sizes`` items), made without the pairs of wide keys (module text), from the
    key ids of one item per group (``keyed``: :func:`key_ids`' answer for the columns
    of ``flat.match_flat_2_1``); None when that path gives way to the full join."""
    if not tuning.TUNING.slack_wide:
        return None
    ids_left, ids_right, masks_left, masks_right = keyed
    fields, rows = ids_left.shape
    cols = ids_right.shape[1]
    wide = []  # per field: which of its key ids (below rows + 1) are wide
    left_out = 0  # the pairs the wide keys join
    for b in range(fields):
        joined = np.bincount(ids_left[b][ids_left[b] >= 0], minlength=rows + 1) * \
            np.bincount(ids_right[b][ids_right[b] >= 0], minlength=rows + 1)
        wide.append(joined > tuning.TUNING.slack_wide * (rows + cols))
        left_out += int(joined[wide[b]].sum())
    if not left_out:
        return None
    p, q = np.asarray(row_sizes, np.int64), np.asarray(col_sizes, np.int64)
    size = min(int(p.sum()), int(q.sum()))
    base = fields * size + 1  # above any total of pairs' both-side or one-side leaves
    if (fields * base + fields) * base >= 2**62:
        return None
    row, col, weights = narrow_pairs(ids_left, ids_right, wide, masks_left, masks_right,
                                     base)
    # the most a left-out pair at each item weighs: by the fields it holds a wide key in
    floor_rows = _ceiling(sum(w[np.maximum(ids, 0)] & (ids >= 0)
                              for w, ids in zip(wide, ids_left, strict=True)), fields, base)
    floor_cols = _ceiling(sum(w[np.maximum(ids, 0)] & (ids >= 0)
                              for w, ids in zip(wide, ids_right, strict=True)), fields, base)
    found: lexi.Flows = {}
    alive_rows, alive_cols = np.ones(rows, bool), np.ones(cols, bool)
    while len(weights):  # lexi.assign's dominant rounds, left-out pairs counted in
        dominant = lexi._dominant(p, q, row, col, weights, floor_rows, floor_cols)
        if not dominant.any():
            break
        found.update(dict.fromkeys(zip(row[dominant].tolist(), col[dominant].tolist(),
                                       strict=True), 1))
        alive_rows[row[dominant]] = False
        alive_cols[col[dominant]] = False
        rest = alive_rows[row] & alive_cols[col]
        row, col, weights = row[rest], col[rest], weights[rest]
    most = 2 * int(_ceiling(np.int64(sum(bool(w.any()) for w in wide)), fields, base))
    known = None  # a best flow of the graph and its highest optimal duals, if known
    for _ in range(ROUNDS):
        u, v, settle, best = _solved(p, q, row, col, weights, alive_rows, alive_cols, known)
        new = unproved_pairs(ids_left, ids_right, wide, alive_rows, alive_cols, u, v, most,
                             row * cols + col, max(left_out // 4, BUDGET_MIN))
        if new is None:
            return None
        if not len(new):  # certified: this flow and these duals hold for the whole graph
            found.update(settle())
            return found
        new_row, new_col = np.divmod(new, cols)
        added = pair_weights(ids_left, ids_right, masks_left, masks_right, new_row, new_col,
                             base)
        codes = np.concatenate((row * cols + col, new))
        order = np.argsort(codes, kind="stable")
        row = np.concatenate((row, new_row))[order]
        col = np.concatenate((col, new_col))[order]
        weights = np.concatenate((weights, added))[order]
        # duals that cover every pair added stay feasible, hence optimal with the same
        # flow (the pairs added carry none), and the highest (a point of the larger set
        # it still holds): solved again only when some pair added is not covered
        flow, u_best, v_best = best
        known = (np.concatenate((flow, np.zeros(len(new), np.int64)))[order], u_best,
                 v_best) if tuning.TUNING.slack_reuse and bool(
                     (u_best[new_row] + v_best[new_col] >= added).all()) else None
    return None


def _solved(p: np.ndarray, q: np.ndarray, row: np.ndarray, col: np.ndarray,
            weights: np.ndarray, alive_rows: np.ndarray, alive_cols: np.ndarray,
            known: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
            ) -> tuple[np.ndarray, np.ndarray, Callable[[], lexi.Flows], tuple]:
    """Twice the midpoint of the optimal duals of these edges between the groups still
    alive (the rest taken out as dominant), per group (0 for groups not alive); a
    function giving ``lexi._settle``'s flows from the best flow found; and (that flow
    per edge, the highest optimal duals per group, 0 for groups not alive): solved on
    the alive groups numbered anew, in order (the same canonical ranks), unless
    ``known`` gives such a flow and duals of these edges."""
    keep_rows, keep_cols = np.flatnonzero(alive_rows), np.flatnonzero(alive_cols)
    at_row = np.cumsum(alive_rows) - 1  # an alive group's new number
    at_col = np.cumsum(alive_cols) - 1
    p, q, row, col = p[keep_rows], q[keep_cols], at_row[row], at_col[col]
    spread_u = np.zeros(len(alive_rows), np.int64)
    spread_v = np.zeros(len(alive_cols), np.int64)
    best_u, best_v = spread_u.copy(), spread_v.copy()
    if not len(weights):
        return spread_u, spread_v, dict, (np.zeros(0, np.int64), best_u, best_v)
    if known is None:
        flow, u, v = lexi.best_flow(p, q, row, col, weights)
    else:
        flow, u, v = known[0], known[1][keep_rows], known[2][keep_cols]
    spread_u[keep_rows], spread_v[keep_cols] = lexi.spread_duals(p, q, row, col, weights,
                                                                 flow, u, v)
    best_u[keep_rows], best_v[keep_cols] = u, v

    def settle() -> lexi.Flows:
        flows = lexi._settle(p, q, row, col, weights, flow, u, v)
        return {(int(keep_rows[g]), int(keep_cols[h])): many for (g, h), many in flows.items()}

    return spread_u, spread_v, settle, (flow, best_u, best_v)


def key_ids(walker: Any, specs: list[tuple], left: list[list], right: list[list],
            values: list[list]) -> tuple[np.ndarray, ...] | None:
    """(label key ids, result key ids, label masks, result masks): per field and item the
    id of its read (equal reads one id, each below the label items + 1; -1 for none or a
    result read no label item holds) and each item's bit mask of non-empty fields, as
    ``flat.flat_graph`` numbers them; None where a field is loose (found by reach) or a
    result value, re-read under the label column's tags, matches two label reads."""
    fields, rows, cols = len(specs), len(left[0]), len(right[0])
    ids_left = np.full((fields, rows), -1, np.int64)
    ids_right = np.full((fields, cols), -1, np.int64)
    masks_left, masks_right = np.zeros(rows, np.uint64), np.zeros(cols, np.uint64)
    for b, ((leaf, member, _, _), column) in enumerate(zip(specs, left, strict=True)):
        stated = set(map(joins.TAG, column))
        stated.discard(None)
        if any(not walker.comparators[tag].hashable(leaf.options) for tag in stated):
            return None
        ids, numbers = joins.key_ids(column, set())
        masks_left[ids >= 0] |= np.uint64(1 << b)
        tags = sorted(stated)
        got = joins.result_ids(right[b], numbers, tags[0] if len(tags) == 1 else None)
        masks_right[got != -2] |= np.uint64(1 << b)
        for c in np.flatnonzero(got == -3).tolist():  # read under another tag: each tag's
            read_as, value = right[b][c], values[b][c]
            found = set()
            for tag in tags:
                if tag == read_as[0]:
                    key = read_as
                else:
                    known = walker.key(leaf, tag, value)
                    key = (tag, known, f",{member}{tag}:{scorer.shown(known)}")
                if key[1] is not None and (number := numbers.get(key)) is not None:
                    found.add(number)
            if len(found) > 1:
                return None
            got[c] = found.pop() if found else -1
        ids_left[b] = ids
        ids_right[b] = np.maximum(got, -1)
    return ids_left, ids_right, masks_left, masks_right


def narrow_pairs(ids_left: np.ndarray, ids_right: np.ndarray, wide: list[np.ndarray],
                 masks_left: np.ndarray, masks_right: np.ndarray, base: int,
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(row, column, weight) of every pair sharing a key that is not wide, sorted by row
    then column: ``joins.join_counts`` on those keys' entries (keys shared and fields on
    both sides counted there), the wide keys a pair shares besides counted after, and
    weighed as :func:`pair_weights`."""
    fields, rows = ids_left.shape
    cols = ids_right.shape[1]
    narrow = [~w for w in wide]
    label_rows, label_ids = joins.entries(ids_left, rows + 1, narrow)
    order = np.argsort(label_rows, kind="stable")
    indptr, indices, data = joins.join_counts(
        rows, cols, label_rows[order], label_ids[order],
        *joins.entries(ids_right, rows + 1, narrow), masks_left, masks_right, fields + 1,
        fields, fields * (rows + 1))
    real = np.ones(len(indices), bool)
    real[indptr[1:] - 1] = False
    row = np.repeat(np.arange(rows, dtype=np.int64), np.diff(indptr) - 1)
    col = indices[real].astype(np.int64)
    shared, both = np.divmod(data[real].astype(np.int64), fields + 1)
    for b in range(fields):
        if wide[b].any():
            key = ids_left[b][row]
            shared += (key >= 0) & (key == ids_right[b][col]) & wide[b][np.maximum(key, 0)]
    one = np.bitwise_count(masks_left[row] ^ masks_right[col]).astype(np.int64)
    return row, col, (shared * base + both) * base - one


def pair_weights(ids_left: np.ndarray, ids_right: np.ndarray, masks_left: np.ndarray,
                 masks_right: np.ndarray, row: np.ndarray, col: np.ndarray, base: int,
                 ) -> np.ndarray:
    """Each pair's 2.1 weight (spec 2.1 §1): ``(shared B + both) B - one``, ``B`` =
    ``base``, from the pair's shared keys, fields non-empty on both sides and on one."""
    shared = np.zeros(len(row), np.int64)
    for b in range(ids_left.shape[0]):
        key = ids_left[b][row]
        shared += (key >= 0) & (key == ids_right[b][col])
    mine, theirs = masks_left[row], masks_right[col]
    both = np.bitwise_count(mine & theirs).astype(np.int64)
    one = np.bitwise_count(mine ^ theirs).astype(np.int64)
    return (shared * base + both) * base - one


def _ceiling(wide_fields: np.ndarray, fields: int, base: int) -> np.ndarray:
    """The most a pair sharing wide keys only can weigh, given how many fields hold a wide
    key (int64, per item or one): a key in each, every field on both sides, none on one."""
    return (wide_fields.astype(np.int64) * base + fields) * base


def unproved_pairs(ids_left: np.ndarray, ids_right: np.ndarray, wide: list[np.ndarray],
                   alive_rows: np.ndarray, alive_cols: np.ndarray, u: np.ndarray,
                   v: np.ndarray, limit: int, known: np.ndarray, budget: int,
                   ) -> np.ndarray | None:
    """Codes ``row * columns + column``, ascending, of the pairs of wide keys between
    items still ``alive`` that are not in ``known`` (sorted codes) and whose duals
    ``u[row] + v[column]`` do not exceed ``limit``; None when more than ``budget`` such
    pairs are found (known or not). A key's result items sorted by dual, each label
    item's pairs are a prefix."""
    cols = ids_right.shape[1]
    codes, total = [], 0
    for b in range(ids_left.shape[0]):
        keys = np.flatnonzero(wide[b])
        if not len(keys):
            continue
        by_left = np.argsort(ids_left[b], kind="stable")
        by_right = np.lexsort((v, ids_right[b]))  # by key, then by dual
        bounds_left = np.searchsorted(ids_left[b][by_left], np.stack((keys, keys + 1)))
        bounds_right = np.searchsorted(ids_right[b][by_right], np.stack((keys, keys + 1)))
        for (lo, hi), (start, stop) in zip(bounds_left.T.tolist(), bounds_right.T.tolist(),
                                           strict=True):
            mine, theirs = by_left[lo:hi], by_right[start:stop]
            mine, theirs = mine[alive_rows[mine]], theirs[alive_cols[theirs]]
            reach = np.searchsorted(v[theirs], limit - u[mine], side="right")
            many = int(reach.sum())
            total += many
            if total > budget:
                return None
            if many:
                first = np.repeat(np.cumsum(reach) - reach, reach)
                codes.append(np.repeat(mine, reach) * cols +
                             theirs[np.arange(many) - first])
    if not codes:
        return np.zeros(0, np.int64)
    found = np.unique(np.concatenate(codes))
    at = np.searchsorted(known, found)
    seen = at < len(known)
    seen[seen] = known[at[seen]] == found[seen]
    return found[~seen]

