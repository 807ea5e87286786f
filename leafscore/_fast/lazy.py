"""Lazy pairing of unordered arrays that take no column path (items holding arrays or
objects, or flat items with the flat path off): the pairs ``scorer.pair_2_0`` and
``scorer.pair_2_1`` give, while walking only a few candidate pairs instead of all.

The definition weighs every candidate pair (:meth:`scorer.Walker.weights`: every pair
sharing a leaf key), each by a recursive walk; for items holding arrays that is most
pairs, each costly. Here every candidate pair first gets an **upper bound** on its
counts, from the two items' leaf keys alone:

* correct leaves <= the size of the multiset intersection of the two items' keys
  (path, tag, key, leaf): each correct leaf is a label leaf paired with a result leaf of
  an equal key at the same path, and the walk pairs each leaf at most once (keys are
  compared by equality only: :func:`pairable` asks every leaf below to be key-compared);
* leaves on both sides <= the label item's keys; leaves on one side <= the label's keys
  plus the result's.

The assignment is solved on the weights known so far (exact once weighed, else the
bound), in Python integers with optimal duals (``scorer.best_matching``); chosen pairs
not yet weighed are walked, with the next candidates of their row by bound (twice as
many each round), until every chosen pair is exact; then every unweighed pair the duals
leave tight on its bound is walked too. Exact weights never exceed their bounds, so the
duals stay feasible for the exact weights and the last matching is a best one for them,
with every pair that could be tight known exactly (:class:`Lazy`).

Ties: 2.1's choice is unique by its rule and is settled on the exact tight graph by
``lexi.choose`` (:func:`pair_2_1`). 2.0's is whatever its solver picks among best
matchings, so the lazy answer is kept only when it is the **only** best matching
(:func:`only_best`); otherwise every candidate is weighed and 2.0's solver decides on the
full edges, as the fast engine does without this path (:func:`pair_2_0`).
"""

from __future__ import annotations

import collections
import itertools
from collections.abc import Sequence
from typing import Any

import scorer
from leafscore._fast import lexi, solve, tuning
from leafscore._fast.numpy_lazy import np

#: (id of item node, id of comparator table) -> (the node, whether it is key-compared);
#: the node is held so that its id is never reused while it is remembered.
_KEYED: dict[tuple[int, int], tuple[Any, bool]] = {}


class Loose(Exception):
    """An exact count above its bound: the bounds cannot be trusted here (never expected;
    the caller then weighs every pair, the path without this module)."""


def pairable(walker: scorer.Walker, item: Any, depth: int) -> bool:
    """Whether the lazy path pairs an unordered array of ``item`` nodes at data ``depth``:
    ``tuning.TUNING.lazy_nested``, ``depth`` below ``walker.MAX_DEPTH``, ``item`` an
    object or array node, and every leaf
    below ``item`` compared by key equality under every tag it may be read with (no
    tolerant number, no fuzzy text, no open map; pattern members checked too), so that
    the bounds hold (part of the one dispatch rule, ``leafscore._fast.usable_for``)."""
    if not tuning.TUNING.lazy_nested or depth >= walker.MAX_DEPTH or \
            isinstance(item, scorer.Leaf) or item is scorer.IGNORED:
        return False  # a scalar item is one leaf: walking a pair costs no more than a bound
    memo = (id(item), id(walker.comparators))
    found = _KEYED.get(memo)
    if found is None or found[0] is not item:
        if len(_KEYED) > 4096:
            _KEYED.clear()
        found = _KEYED[memo] = (item, _key_compared(walker.comparators, item))
    return found[1]


def _key_compared(comparators: dict[str, scorer.Comparator], item: Any) -> bool:
    """Whether every leaf below ``item`` (and a wrong-kind value's exact-JSON leaf)
    compares by key equality; an open map never does (as ``Walker.hashable``)."""
    json_leaf = scorer._JSON_LEAF
    if not comparators["json"].hashable(json_leaf.options):
        return False
    stack, seen = [item], set()
    while stack:
        node = stack.pop()
        if id(node) in seen or node is scorer.IGNORED:
            continue
        seen.add(id(node))
        if isinstance(node, scorer.Leaf):
            if not all(comparators[t].hashable(node.options) for t in scorer.possible_tags(node)):
                return False
        elif isinstance(node, scorer.ArrayNode):
            stack.append(node.items)
        elif node.properties is None:
            return False
        else:
            stack.extend(node.properties.values())
            stack.extend(sub for _, sub in node.patterns)
    return True


class Lazy:
    """One array's lazy assignment. ``left``/``right``: kept items (``scorer.Item``) as
    rows and columns, in the order the rule numbers them; ``presence``: result items are
    grouped seeing every leaf they state (2.1, whose weights count one-sided leaves).
    ``small``: the lazy path would not gain (items too small, or too many candidates).

    After :meth:`solve`: ``mate_row``/``mate_col`` a best matching of the exact weights,
    ``u``/``v`` optimal duals for them, ``exact`` {(row, result group): weight} of every
    pair walked, every unwalked candidate strictly below its duals."""

    def __init__(self, walker: Any, item: Any, left: Sequence, right: Sequence, field: str,
                 depth: int, presence: bool) -> None:
        self.walker, self.item, self.left, self.right = walker, item, left, right
        self.field, self.depth = field, depth
        # result items alike to every label item (FastWalker.group_key) are weighed once
        label_keys, tags, self.members = walker.result_groups(item, left, right, presence)
        self.leaves = [len(keys) for keys in label_keys]  # each label item's keys
        self.group_of = [-1] * len(right)
        for g, columns in enumerate(self.members):
            for c in columns:
                self.group_of[c] = g
        self.label_group = _alike(left)
        self.result_leaves = [walker.stated(item, right[cs[0]][1]) for cs in self.members]
        # Whether walking every pair costs more than solving lazily: a pair's leaves, both
        # sides, at least tuning.TUNING.lazy_leaves_min on average. Each lazy round solves
        # on every candidate in Python; small items (tie-heavy arrays of a few leaves)
        # are walked faster than that.
        seen = sum(len(cs) * leaves for cs, leaves in zip(self.members, self.result_leaves,
                                                           strict=True))
        self.small = sum(self.leaves) / len(left) + seen / len(right) < \
            tuning.TUNING.lazy_leaves_min
        self.hits = [] if self.small else _shared(
            label_keys, [walker.keys(item, right[cs[0]][1], "", tags) for cs in self.members])
        # each round solves on every (label item, result item) candidate in Python: past
        # tuning.TUNING.lazy_edges_max of them (many twins), walking them all is quicker
        if sum(len(self.members[g]) for line in self.hits for g in line) > \
                tuning.TUNING.lazy_edges_max:
            self.small, self.hits = True, []
        self.counts: dict[tuple[int, int], scorer.Tally] = {}
        self.exact: dict[tuple[int, int], int] = {}
        self.bound: dict[tuple[int, int], int] = {}
        self.weight: Any = None
        self.u: list[int] = []
        self.v: list[int] = []
        self.mate_row: list[int] = []
        self.mate_col: list[int] = []

    def price(self, bound: Any, weight: Any) -> None:
        """Set each candidate's bound, ``bound(row, group, correct bound)``, and the exact
        weight of counts, ``weight(correct, both, one side)`` (0: no pair)."""
        self.weight = weight
        self.bound = {(r, g): bound(r, g, hits) for r, line in enumerate(self.hits)
                      for g, hits in line.items()}

    def weigh(self, r: int, g: int) -> int:
        """The exact weight of label item ``r`` with result group ``g``, walked once per
        (alike label items, group); raises :class:`Loose` above the bound."""
        found = self.exact.get((r, g))
        if found is not None:
            return found
        memo = (self.label_group[r], g)
        counts = self.counts.get(memo)
        if counts is None:
            counts = self.counts[memo] = scorer.Tally()
            self.walker.walk(self.item, self.left[r][1], self.right[self.members[g][0]][1],
                             "", self.field, counts, self.depth + 1)
        weight = self.weight(*counts) if counts[0] else 0  # no pair worth 0 correct leaves
        if weight > self.bound[r, g]:
            raise Loose
        self.exact[r, g] = weight
        return weight

    def solve(self) -> None:
        """Weigh until the best matching of the known weights is exact and no unweighed
        candidate is tight under its duals (see the module's docstring)."""
        rows, cols = len(self.left), len(self.right)
        queue = [sorted(line, key=lambda g, r=r: (-self.bound[r, g], g))
                 for r, line in enumerate(self.hits)]
        batch = [1] * rows
        while True:
            edges = {}
            for (r, g), bound in self.bound.items():
                weight = self.exact.get((r, g), bound)
                if weight > 0:
                    for c in self.members[g]:
                        edges[r, c] = weight
            _, self.u, self.v, self.mate_row, self.mate_col = scorer.best_matching(
                rows, cols, edges)
            fresh = sorted({(r, self.group_of[c]) for r, c in enumerate(self.mate_row)
                            if c >= 0 and (r, self.group_of[c]) not in self.exact})
            for r, g in fresh:  # the chosen pair, then the row's next bounds, twice as
                self.weigh(r, g)  # many each round: few rounds however loose the bounds
                more = [h for h in queue[r] if (r, h) not in self.exact][:batch[r] - 1]
                for h in more:
                    self.weigh(r, h)
                batch[r] *= 2
            if fresh:
                continue
            tight = [(r, g) for (r, g), bound in self.bound.items() if (r, g) not in self.exact
                     and any(self.u[r] + self.v[c] == bound for c in self.members[g])]
            if not tight:
                return
            for r, g in tight:  # could be tight for the exact weights: know them
                self.weigh(r, g)

    def tight(self) -> list[list[int]]:
        """Each row's columns, ascending, of positive exact weight equal to its duals: the
        pairs a best matching may use (every other is strictly below its duals)."""
        out: list[list[int]] = [[] for _ in self.left]
        for (r, g), weight in self.exact.items():
            if weight > 0:
                out[r] += [c for c in self.members[g] if self.u[r] + self.v[c] == weight]
        for line in out:
            line.sort()
        return out

    def every_edge(self) -> dict[tuple[int, int], int]:
        """{(row, column): exact weight} of every candidate worth a correct leaf, each
        weighed: the edges ``Walker.weights`` gives."""
        for r, g in self.bound:
            self.weigh(r, g)
        return {(r, c): weight for (r, g), weight in sorted(self.exact.items()) if weight > 0
                for c in self.members[g]}


def _alike(items: Sequence) -> list[int]:
    """A number per item, equal for items of equal signature and raw JSON (which weigh
    alike against any item); raw JSON written only where a signature repeats."""
    signatures = [item[2] or "" for item in items]
    repeats = collections.Counter(signatures)
    numbers: dict[tuple, int] = {}
    return [numbers.setdefault((sig, scorer.raw_text(item[1].raw)) if repeats[sig] > 1
                               else (sig,), len(numbers))
            for item, sig in zip(items, signatures, strict=True)]


def _shared(label_keys: list[list[tuple]], result_keys: list[list[tuple]],
            ) -> list[dict[int, int]]:
    """Per label item, {result group: size of the multiset intersection of their keys}
    for each group sharing a key, groups ascending. A key's leaf is left out: within an
    item the path decides it, and hashing a leaf hashes its options. Up to
    ``tuning.TUNING.lazy_python_keys`` keys (both sides) counted in plain Python
    (:func:`_shared_python`), else by a sparse product (:func:`_shared_sparse`), whose
    fixed cost (about 0.7 ms a call) outweighs its speed on the few keys of small items."""
    if sum(map(len, label_keys)) + sum(map(len, result_keys)) <= \
            tuning.TUNING.lazy_python_keys:
        return _shared_python(label_keys, result_keys)
    return _shared_sparse(label_keys, result_keys)


def _shared_python(label_keys: list[list[tuple]], result_keys: list[list[tuple]],
                   ) -> list[dict[int, int]]:
    """:func:`_shared` by an index of keys: {key: [(group, its copies there)]}, then per
    label item, for each of its keys, the smaller count added to each group holding it."""
    index: dict[tuple, list[tuple[int, int]]] = {}
    for g, keys in enumerate(result_keys):
        for key, many in collections.Counter([key[:3] for key in keys]).items():
            index.setdefault(key, []).append((g, many))
    out: list[dict[int, int]] = []
    for keys in label_keys:
        line: dict[int, int] = {}
        for key, mine in collections.Counter([key[:3] for key in keys]).items():
            for g, theirs in index.get(key, ()):
                line[g] = line.get(g, 0) + (mine if mine < theirs else theirs)
        out.append(dict(sorted(line.items())))
    return out


def _shared_sparse(label_keys: list[list[tuple]], result_keys: list[list[tuple]],
                   ) -> list[dict[int, int]]:
    """:func:`_shared` as a sparse product: the k-th copy of a key is its own word, so the
    intersection is a 0/1 matrix product (label words x group words)."""
    from scipy.sparse import csr_matrix

    out: list[dict[int, int]] = [{} for _ in label_keys]
    known: dict[tuple, int] = {}  # key -> id (a label key's first position), set in C
    label_flat = [key[:3] for keys in label_keys for key in keys]
    label_ids = np.fromiter(map(known.setdefault, label_flat, itertools.count()), np.int64,
                            len(label_flat))
    result_flat = [key[:3] for keys in result_keys for key in keys]
    result_ids = np.fromiter(map(known.get, result_flat, itertools.repeat(-1)), np.int64,
                             len(result_flat))
    label_rows, label_copy = _copies(label_keys, label_ids)
    result_rows, result_copy = _copies(result_keys, result_ids)
    held = result_ids >= 0  # a key no label holds is no word
    if not len(label_ids) or not held.any():
        return out
    # a word is (key id, copy); numbered as the label's words, sorted
    width = int(max(label_copy.max(), result_copy.max())) + 1
    words, a_cols = np.unique(label_ids * width + label_copy, return_inverse=True)
    b_code = result_ids[held] * width + result_copy[held]
    at = np.minimum(np.searchsorted(words, b_code), len(words) - 1)
    found = words[at] == b_code  # else no label holds this many copies of the key
    b_rows, b_cols = result_rows[held][found], at[found]
    if not len(b_rows):
        return out
    a = csr_matrix((np.ones(len(label_rows), np.int64), (label_rows, a_cols.reshape(-1))),
                   shape=(len(label_keys), len(words)))
    b = csr_matrix((np.ones(len(b_rows), np.int64), (b_cols, b_rows)),
                   shape=(len(words), len(result_keys)))
    product = (a @ b).tocsr()
    product.sort_indices()  # groups ascending in each line, as the plain count gives them
    product = product.tocoo()
    for r, g, hits in zip(product.row.tolist(), product.col.tolist(), product.data.tolist(),
                          strict=True):
        if hits:
            out[r][g] = hits
    return out


def _copies(keys: list[list[tuple]], ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(item of each key, which copy of its key in that item it is: 0, 1, ...), for keys
    given per item and their ``ids`` in the same order, flattened."""
    rows = np.repeat(np.arange(len(keys), dtype=np.int64), [len(line) for line in keys])
    order = np.lexsort((ids, rows))
    n = len(order)
    sorted_rows, sorted_ids = rows[order], ids[order]
    starts = np.ones(n, bool)  # where a run of one (item, key) begins
    starts[1:] = (sorted_rows[1:] != sorted_rows[:-1]) | (sorted_ids[1:] != sorted_ids[:-1])
    place = np.arange(n, dtype=np.int64)
    copy = np.empty(n, np.int64)
    copy[order] = place - np.maximum.accumulate(np.where(starts, place, 0))
    return rows, copy


def only_best(tight: list[list[int]], u: list[int], v: list[int], mate_row: list[int],
              mate_col: list[int]) -> bool:
    """Whether the matching ``mate_row``/``mate_col`` is the only best matching, given
    optimal duals ``u``/``v`` and each row's ``tight`` columns (all positive edges).

    Another best matching differs from it by alternating cycles and paths of tight edges
    whose ends may change cover (an unpaired end, or a paired one of zero dual). With
    rows -> their tight non-matched columns, columns -> their matched row, and one node
    Z for "outside" (Z -> an unpaired row or a zero-dual paired column; an unpaired
    column or a zero-dual paired row -> Z), such a cycle or path is a directed cycle, and
    every directed cycle is one: the matching is the only best one iff this is acyclic."""
    rows, cols = len(mate_row), len(mate_col)
    outside = rows + cols
    after: list[list[int]] = [[] for _ in range(outside + 1)]
    for r, line in enumerate(tight):
        after[r] += [rows + c for c in line if c != mate_row[r]]
        if mate_row[r] < 0:
            after[outside].append(r)
        elif u[r] == 0:
            after[r].append(outside)
    for c, r in enumerate(mate_col):
        if r < 0:
            after[rows + c].append(outside)
        else:
            after[rows + c].append(r)
            if v[c] == 0:
                after[outside].append(rows + c)
    into = [0] * (outside + 1)
    for line in after:
        for node in line:
            into[node] += 1
    ready = [node for node, many in enumerate(into) if not many]
    done = 0
    while ready:  # Kahn's order: every node placed iff no cycle
        node = ready.pop()
        done += 1
        for nxt in after[node]:
            into[nxt] -= 1
            if not into[nxt]:
                ready.append(nxt)
    return done == outside + 1


def pair_2_0(walker: Any, item: Any, left: Sequence, right: Sequence, field: str,
             depth: int) -> list[tuple[int, int]] | None:
    """Version 2.0's assignment of ``left`` x ``right`` (the items ``scorer.pair_2_0``
    gives ``Walker.weights`` and ``assign_2_0``: those left after identical pairs, in
    canonical order), as (position in ``left``, position in ``right``) pairs sorted by
    row: the lazy best matching when it is the only best one, else 2.0's solver on every
    edge (``solve.assign_2_0``), with the pairs walked so far reused. None when a bound
    failed (:class:`Loose`) or the items are too small to gain (``Lazy.small``):
    the caller weighs as without this path.

    Weights ``correct * ceiling + both`` with ``ceiling`` = the most keys of a label item
    x the smaller side + 1 (as ``scorer.pair_2_0``); a bound puts the correct bound for
    correct and the label item's keys for both."""
    lazy = Lazy(walker, item, left, right, field, depth, False)
    if lazy.small:
        return None
    ceiling = max(lazy.leaves) * min(len(left), len(right)) + 1
    lazy.price(lambda r, g, hits: hits * ceiling + lazy.leaves[r],
               lambda hits, both, one: hits * ceiling + both)
    try:
        lazy.solve()
        if only_best(lazy.tight(), lazy.u, lazy.v, lazy.mate_row, lazy.mate_col):
            return [(r, c) for r, c in enumerate(lazy.mate_row) if c >= 0]
        return solve.assign_2_0(len(left), len(right), lazy.every_edge())
    except Loose:
        return None


def pair_2_1(walker: Any, item: Any, left: Sequence, right: Sequence,
             groups_left: list[list[int]], groups_right: list[list[int]], field: str,
             depth: int) -> list[tuple[int, int]] | None:
    """Version 2.1's pairs (``scorer.pair_2_1``) of ``left`` x ``right``, whose canonical
    order is given as runs of alike items (``walker.canonical_groups``), sorted by label
    position. None when a bound failed (:class:`Loose`) or the items are too small to
    gain (``Lazy.small``).

    Weights ``(correct * B + both) * O - one side`` with bases above each criterion's
    total over the smaller side's pairs: larger bases than the definition's (from bounds,
    as exact counts are not all known) give the same order of matchings, so the same
    best ones and the same choice among them. A bound puts the correct bound, the label
    item's keys for both, 0 for one side."""
    if not left or not right:
        return []
    order_left = [k for run in groups_left for k in run]
    order_right = [k for run in groups_right for k in run]
    lazy = Lazy(walker, item, [left[k] for k in order_left], [right[k] for k in order_right],
                field, depth, True)
    if lazy.small:
        return None
    size = min(len(left), len(right))
    most = max(lazy.leaves)
    both_base = most * size + 1
    one_most = most + max(lazy.result_leaves, default=0)
    one_base = one_most * size + 1

    def weight(hits: int, both: int, one: int) -> int:
        if both > most or one > one_most:  # the bases would not order the criteria
            raise Loose
        return (hits * both_base + both) * one_base - one

    lazy.price(lambda r, g, hits: (hits * both_base + lazy.leaves[r]) * one_base, weight)
    try:
        lazy.solve()
    except Loose:
        return None
    mate_row, mate_col = lazy.mate_row, lazy.mate_col
    lexi.choose(lazy.tight(), [x == 0 for x in lazy.u], [y == 0 for y in lazy.v], mate_row,
                mate_col)
    return sorted((order_left[r], order_right[c]) for r, c in enumerate(mate_row) if c >= 0)
