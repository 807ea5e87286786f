"""The fast engine's speed choices, in one record, and a switch to force them.

None of them but ``fuzzy_budget`` (a safety budget, see :class:`Tuning`) can move a
verdict: each picks between two ways of computing the same thing, and the tests run
both ways (``with tuned(...)``) against the definition. The
definition itself (``scorer.py``) has none; version 2.0's frozen solver choice by size
(``scorer.DENSE_CELLS_2_0``) is part of the metric, not listed here.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Tuning:
    """``flat``: read and pair unordered arrays of flat objects by columns;
    ``flat_together``: read such arrays of one node read since (the groups of an array
    of objects) together, their items end to end (``flat.read_columns_many``), rather
    than one array at a time;
    ``flat_fields_max``: most fields of such an item (present fields are counted in a
    64-bit mask, so at most 62); ``same_at_once``: identical pairs from which their rows
    are checked all at once rather than one by one; ``join_slice``: (row, column) join
    entries held at once when flat weights are counted; ``memo_text``: longest string
    whose canonical text and date are remembered across documents (0: none);
    ``v1_walk``: version 1.0's greedy replay, ``"auto"`` (by cost), ``"dense"`` or
    ``"sparse"``; ``compiled_text_max``: bytes of schema text whose compiled nodes are
    kept for the process; ``lexi_units_max``: item edges up to which version 2.1's best
    assignment is found by scipy on the items, groups of alike items expanded (above it,
    on the groups in Python integers); ``lexi_greedy``: settle 2.1's ties greedily in
    each tight component where that gives a best assignment (else exactly);
    ``lexi_subset_min``: edges from which 2.1's best assignment is found on each
    group's better edges first, then on any edge its duals leave uncovered;
    ``lexi_forced``: take out first the flat pairs every best 2.1 assignment makes
    (``flat.forced_pairs_2_1``), for items of at most ``lexi_forced_fields_max`` fields;
    ``lexi_dominant``: take out first, round after round, the group edges that outweigh
    the best other edges of both their items together (``lexi._dominant``), before
    2.1's best assignment is solved on the rest;
    ``lexi_small_units``: label x result items of an array up to which 2.1's choice is
    made in plain Python on the items (``flat.assign_items``: the definition's
    ``scorer.best_matching``, then ``lexi.choose``; no forced pairs, no numpy, whose
    per-call cost outweighs its speed there), flat arrays and others alike;
    ``lazy_nested``: pair unordered arrays that take no column path (items holding arrays
    or objects) by bounds on each pair's counts, walking only the pairs a best assignment
    may use (:mod:`~leafscore._fast.lazy`; 2.0 keeps the answer only when it is the one
    best assignment, else weighs every pair), rather than walking every candidate pair;
    ``lazy_leaves_min``: the average leaves (both sides) of a candidate pair from which
    that path is taken (smaller items are walked faster than solved lazily);
    ``lazy_edges_max``: the most (label item, result item) candidates it solves on;
    ``lazy_python_keys``: the keys of both sides up to which that path counts the keys
    each candidate pair shares in plain Python rather than by a sparse product;
    ``flat_python_cells``: label x result groups x fields of a flat 2.1 array up to which
    its pair weights are counted in plain Python (``flat.small_graph``) rather than by
    numpy joins, whose per-call cost outweighs their speed on small arrays;
    ``lexi_small_forced``: on that small path (``flat.assign_items``), take out first the
    edges of single items outweighing the best other edges of both their items together;
    ``slack_wide``: on a flat 2.1 array past ``lexi_small_units``, the pairs one key may
    join (label x result groups holding it), as a multiple of the groups of both sides,
    above which its pairs are left out of the graph and proved slack by duals
    (:mod:`~leafscore._fast.slack`; 0: every key joined); ``slack_reuse``: on that
    path, keep a round's best flow and duals for the next when they cover every pair it
    adds, rather than solving again;
    ``memo_pairs``: array pairs whose counts and pairs a document's walk remembers
    (``FastWalker.remember``: an array inside items is walked to weigh a pair, again
    inside the walk of that pair, again for verdicts), each memo emptied when full
    (0: none remembered); ``memo_reads``: values whose reads as a flat field's are kept
    across documents (``flat._caches``: a benchmark's label is scored against every
    system's result, whose values mostly equal the label's), all emptied when that many
    are kept (0: each document reads its own).

    One field is not a choice between equal ways but a safety budget: ``fuzzy_budget``,
    the most similarities computed per fuzzy field of one array (distinct label texts x
    distinct result texts). Beyond it only equal texts become fuzzy candidates, so the
    pairing may be approximate and the document says so (``DocScore.exact`` False,
    docs/LIMITS.md). The definition never approximates: a test comparing the engines
    must stay within it."""

    flat: bool = True
    flat_together: bool = True
    flat_fields_max: int = 62
    same_at_once: int = 16
    join_slice: int = 1 << 21
    memo_text: int = 200
    v1_walk: str = "auto"
    compiled_text_max: int = 16 * 2**20
    lexi_units_max: int = 20_000_000
    lexi_greedy: bool = True
    lexi_subset_min: int = 1_000_000
    lexi_forced: bool = True
    lexi_dominant: bool = True
    lexi_forced_fields_max: int = 6
    lexi_small_units: int = 20_000
    lazy_nested: bool = True
    lazy_leaves_min: int = 16
    lazy_edges_max: int = 40_000
    lazy_python_keys: int = 4096
    flat_python_cells: int = 20_000
    lexi_small_forced: bool = True
    slack_wide: float = 8.0
    slack_reuse: bool = True
    memo_pairs: int = 1 << 16
    memo_reads: int = 1 << 16
    fuzzy_budget: int = 50_000_000


TUNING = Tuning()


@contextlib.contextmanager
def tuned(**changes: object) -> Iterator[Tuning]:
    """The fast engine with some choices forced for a ``with`` block (tests and
    benchmarks), restored after: ``with tuned(flat=False): ...``. Raises TypeError for
    an unknown choice."""
    global TUNING
    before = TUNING
    TUNING = dataclasses.replace(before, **changes)  # type: ignore[arg-type]
    try:
        yield TUNING
    finally:
        TUNING = before


def remember(memo: dict, key: tuple, value: tuple) -> tuple:
    """``value`` (whose first members hold the objects of the ids in ``key``, so that no
    id is reused while remembered) put in a memo of array pairs, emptied first when it
    holds ``TUNING.memo_pairs`` (0: nothing kept); returns ``value``."""
    most = TUNING.memo_pairs
    if len(memo) >= most:
        memo.clear()
    if most:
        memo[key] = value
    return value
