"""The fast engine's walker: the definition's (``scorer.Walker``), with each canonical
value read once per document, flat arrays read and paired by columns, and candidate
pairs of loose (tolerant or fuzzy) fields found by bisection and ``rapidfuzz.cdist``
instead of trying every pair.

Every override gives what the definition gives, verdict for verdict; which path applies
where is decided in one place, :func:`leafscore._fast.usable_for`.
"""

from __future__ import annotations

import bisect
import functools
from decimal import MAX_EMAX, MIN_EMIN, ROUND_CEILING, ROUND_FLOOR, Decimal, localcontext
from typing import Any

import scorer
from leafscore._fast import flat, solve, tuning

#: Types whose ``==`` is JSON value equality: a memo may key on such a value itself.
_PLAIN = frozenset((str, int, bool, type(None)))


def memo_value(value: Any) -> Any:
    """A scalar as a memo key, equal only for the same JSON value: Python's ``==`` makes
    ``-0.0`` equal ``0.0``, two ``scorer.JSONNumber`` of one float equal whatever their
    written forms, and ``Decimal("1.50")`` equal ``Decimal("1.5")``, yet each is read
    (and shown in a Verdict) as itself."""
    cls = value.__class__
    if cls in _PLAIN:
        return value
    if cls is float:
        return value if value else repr(value)  # only zero is written two ways
    if cls is scorer.JSONNumber:
        return value.text
    return repr(value)


# The canonical text and date of short strings are remembered across documents (a label
# is read once per system; most result values equal label values): pure functions of the
# string, so remembering changes no value; the bounds keep the memory under ~40 MB.
@functools.lru_cache(maxsize=1 << 16)
def _text(value: str) -> str:
    return scorer.canon_text(value)


@functools.lru_cache(maxsize=1 << 14)
def _date(value: str, formats: tuple[str, ...] | None) -> str | None:
    return scorer.canon_date(value, formats)


class FastWalker(scorer.Walker):
    """``scorer.Walker`` with per-document memos and the fast paths. ``document`` is the
    walk's own output list (a flat array appends its rows there as one block)."""

    def __init__(self, comparators: Any, pair: Any, document: list | None = None) -> None:
        super().__init__(comparators, pair)
        self.document = document
        self.blocks = False  # whether ``document`` holds a FlatRows block
        # keyed by the value's type and memo_value: equal keys, the same JSON value
        self.memo: dict[tuple, Any] = {}  # (tag, leaf id, JSON type, value) -> key
        self.reads: dict[tuple, scorer.Read] = {}  # (leaf id, JSON type, value) -> read

    # -- reading, each distinct value once -------------------------------------------

    def text_key(self, value: str) -> str:
        """``canon_text`` of a string, remembered."""
        return _text(value) if len(value) <= tuning.TUNING.memo_text else scorer.canon_text(value)

    def key(self, leaf: scorer.Leaf, tag: str, value: Any) -> Any:
        if isinstance(value, dict | list):
            return super().key(leaf, tag, value)
        cls = value.__class__
        memo = (tag, id(leaf), cls, value if cls in _PLAIN else memo_value(value))
        found = self.memo.get(memo, self)
        if found is self:
            short = value.__class__ is str and len(value) <= tuning.TUNING.memo_text
            if short and tag in ("text", "fuzzy"):
                found = _text(value)
            elif short and tag == "date" and (leaf.options.date_formats is None
                                              or leaf.options.date_formats.__class__ is tuple):
                iso = _date(value, leaf.options.date_formats)
                found = iso if iso is not None else "~" + self.text_key(value)
            else:
                found = super().key(leaf, tag, value)
            self.memo[memo] = found
        return found

    def read_leaf(self, leaf: scorer.Leaf, value: Any) -> scorer.Read:
        if isinstance(value, dict | list):
            return super().read_leaf(leaf, value)
        cls = value.__class__
        memo = (id(leaf), cls, value if cls in _PLAIN else memo_value(value))
        found = self.reads.get(memo)
        if found is None:
            found = self.reads[memo] = super().read_leaf(leaf, value)
        return found

    def read(self, node: Any, value: Any, depth: int = 0) -> scorer.Read:
        """The definition's read; an unordered array of flat objects keeps its items raw
        (:class:`~leafscore._fast.flat.FlatItems`), to be read by columns."""
        if isinstance(node, scorer.ArrayNode) and isinstance(value, list) and \
                usable(node, self, depth) == "flat":
            tag = None if scorer.is_empty(value) else "[]"
            return scorer.Read(value, tag, flat.FlatItems(self, node, value, depth))
        return super().read(node, value, depth)

    # -- arrays ----------------------------------------------------------------------

    def walk_array(self, node: scorer.ArrayNode, left: Any, right: Any, address: str,
                   field: str, out: list, depth: int) -> None:
        fields = None
        if isinstance(left, flat.FlatItems) or isinstance(right, flat.FlatItems):
            fields = flat.flat_fields(node.items, self)
        if fields is None:
            super().walk_array(node, left, right, address, field, out, depth)
            return
        raw_left = left.raw if isinstance(left, flat.FlatItems) else []
        raw_right = right.raw if isinstance(right, flat.FlatItems) else []
        if flat.walk_flat(self, fields, raw_left, raw_right, address, field, out,
                          self.document):
            self.blocks = True

    def solve_2_0(self, rows: int, cols: int, edges: Any) -> list[tuple[int, int]]:
        return solve.assign_2_0(rows, cols, edges)

    def weights(self, item: Any, left: list, right: list, address: str, field: str,
                depth: int) -> tuple[dict, int]:
        """The definition's weights; where a leaf is loose (tolerant numbers, fuzzy text),
        candidate pairs are those sharing a key under a hashable comparator or holding a
        loose value within reach (every pair with a correct leaf is one), not every pair."""
        if self.hashable(item):
            return super().weights(item, left, right, address, field, depth)
        label_keys = [self.keys(item, read, "") for _, read, _ in left]
        most = max(map(len, label_keys), default=0)
        tags: dict[str, set[str]] = {}
        for path, tag, _, _ in (k for keys in label_keys for k in keys):
            tags.setdefault(path, set()).add(tag)
        holding: dict[tuple, list[int]] = {}
        loose: dict[tuple[str, str], tuple[scorer.Leaf, list, list]] = {}
        for c, (_, read, _) in enumerate(right):
            for path, tag, key, leaf in set(self.keys(item, read, "", tags)):
                if self.comparators[tag].hashable(leaf.options):
                    holding.setdefault((path, tag, key, leaf), []).append(c)
                else:
                    loose.setdefault((path, tag), (leaf, [], []))[2].append((c, key))
        candidates: set[tuple[int, int]] = set()
        for r, keys in enumerate(label_keys):
            for path, tag, key, leaf in keys:
                if self.comparators[tag].hashable(leaf.options):
                    candidates.update((r, c) for c in holding.get((path, tag, key, leaf), ()))
                elif (path, tag) in loose:
                    loose[path, tag][1].append((r, key))
        for (_, tag), (leaf, label_values, result_values) in loose.items():
            candidates |= self.near(leaf, tag, label_values, result_values)
        found = {}
        for r, c in sorted(candidates):
            hits, both, one = self.tally(item, left[r][1], right[c][1], depth + 1, [0, 0, 0])
            if hits:
                found[r, c] = (hits, both, one)
        return found, most

    def near(self, leaf: scorer.Leaf, tag: str, label_values: list, result_values: list,
             ) -> set[tuple[int, int]]:
        """(row, column) of every label and result value equal under a loose comparator."""
        if tag == "fuzzy":
            found = _fuzzy_pairs(leaf.options.threshold, label_values, result_values)
            if found is not None:
                return found
            self.exact = False  # over the budget: equal texts only, and the document says so
            groups: dict[Any, list[int]] = {}
            for c, key in result_values:
                groups.setdefault(key, []).append(c)
            return {(r, c) for r, key in label_values for c in groups.get(key, ())}
        return _tolerant_pairs(leaf, label_values, result_values)


def usable(node: Any, walker: scorer.Walker, depth: int) -> str | None:
    """Which fast path reads and pairs an array node (None: the definition's way). The
    one dispatch rule, exported as ``leafscore._fast.usable_for``."""
    if not isinstance(node, scorer.ArrayNode) or node.ordered or depth >= walker.MAX_DEPTH:
        return None
    return "flat" if flat.flat_fields(node.items, walker) is not None else None


def _tolerant_pairs(leaf: scorer.Leaf, label_values: list, result_values: list,
                    ) -> set[tuple[int, int]]:
    """(row, column) of every label and result number within tolerance of each other.

    ``|a - b| <= max(abs_tol, rel_tol * max(|a|, |b|))`` (spec 2.0 §7) implies
    ``|a - b| <= max(abs_tol, rel_tol * |a| / (1 - rel_tol))`` for ``rel_tol < 1``, so the
    result values within that reach of ``a`` are found by bisection in the sorted values
    (rounded outward) and each is checked with ``scorer.numbers_equal``: the work is the
    sort plus the pairs in range."""
    ordered = sorted(result_values, key=lambda cv: cv[1])
    values = [v for _, v in ordered]
    found: set[tuple[int, int]] = set()
    absolute, relative = Decimal(repr(leaf.options.abs_tol)), Decimal(repr(leaf.options.rel_tol))
    for r, a in label_values:
        with localcontext() as context:
            context.prec, context.Emax, context.Emin = 60, MAX_EMAX, MIN_EMIN
            if relative >= 1:
                low, high = 0, len(values)
            else:
                context.rounding = ROUND_CEILING
                reach = max(absolute, relative * abs(a) / (1 - relative))
                high = bisect.bisect_right(values, a + reach)
                context.rounding = ROUND_FLOOR
                low = bisect.bisect_left(values, a - reach)
        found.update((r, c) for c, b in ordered[low:high]
                     if scorer.numbers_equal(a, b, leaf.options))
    return found


def _fuzzy_pairs(threshold: float, label_values: list, result_values: list,
                 ) -> set[tuple[int, int]] | None:
    """(row, column) of every label and result text at least ``threshold`` similar, by
    ``rapidfuzz.process.cdist`` over the distinct texts (the same Indel similarity as
    ``scorer.fuzzy_similarity``, in C), in slices of bounded memory. None when the
    distinct texts would need more than ``tuning.TUNING.fuzzy_budget`` similarities (a
    safety budget: the caller then takes equal texts only and says it is not exact)."""
    import numpy as np
    from rapidfuzz import process
    from rapidfuzz.distance import Indel

    label_texts = sorted({text for _, text in label_values})
    result_texts = sorted({text for _, text in result_values})
    if len(label_texts) * len(result_texts) > tuning.TUNING.fuzzy_budget:
        return None
    slice_rows = max(1, 1_000_000 // max(1, len(result_texts)))
    close: dict[str, list[str]] = {}
    for start in range(0, len(label_texts), slice_rows):
        rows = label_texts[start:start + slice_rows]
        similar = process.cdist(rows, result_texts, scorer=Indel.normalized_similarity,
                                dtype=np.float64)
        for i, j in zip(*np.nonzero(similar >= threshold), strict=True):
            close.setdefault(rows[i], []).append(result_texts[j])
    columns_of: dict[str, list[int]] = {}
    for c, text in result_values:
        columns_of.setdefault(text, []).append(c)
    return {(r, c) for r, text in label_values for other in close.get(text, ())
            for c in columns_of[other]}
