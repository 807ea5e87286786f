"""Version 1.0's greedy pairing, replayed fast: the same running sum, bit for bit.

DocuBench sorts every (label item, result item) pair by similarity and takes pairs
greedily (``scorer._v1_array_score``, as spec 1.0 §3 states it). Only pairs with a
positive similarity can change the sum, and every addition inside one similarity value
adds the same float, so only which pairs each value's group takes matters: these walks
find those pairs through shared leaf values (sparse) or a similarity code per pair
(dense, numpy), highest similarity first, and add in the reference's order. Moved from
the 1.0 release path of ``scorer.py``; the definition's plain walk is what they are
tested against (tests/test_two_engines.py).
"""

from __future__ import annotations

import math
from typing import Any

import scorer
from leafscore._fast import tuning
from leafscore._fast.numpy_lazy import np


class _Unequal:
    """A hashable stand-in for NaN: equal to nothing, itself included (spec 1.0 §7)."""

    __slots__ = ()


def _hashable(value: Any) -> Any:
    """A hashable key with Python's == of ``value`` (NaN equal to nothing)."""
    # Maps a leaf to a hashable key with the same == as Python's on the original:
    # hash(1) == hash(1.0) == hash(True), and lists/dicts compare element-wise.
    if isinstance(value, float) and math.isnan(value):
        return _Unequal()
    if isinstance(value, list):
        return ("list", tuple(_hashable(v) for v in value))
    if isinstance(value, dict):
        return ("dict", frozenset((k, _hashable(v)) for k, v in value.items()))
    return value



def array_score(label_items: list[Any], result_items: list[Any]) -> tuple[float, float]:
    """``scorer._v1_array_score`` of the same items: (score, weight), the same bits."""
    n_label, n_result = len(label_items), len(result_items)
    if n_label == 0 and n_result == 0:
        return 1.0, 0.0
    label_leaves = [scorer._v1_flatten(item) for item in label_items]
    result_leaves = [scorer._v1_flatten(item) for item in result_items]
    counts = [max(1, sum(not scorer._v1_is_empty(v) for v in leaves.values()))
              for leaves in label_leaves]
    weight = max(n_label, n_result) * (sum(counts) / n_label if n_label else 1.0)
    if n_label == 0 or n_result == 0:
        return 0.0, weight
    return greedy_sum(label_leaves, result_leaves) / max(n_label, n_result), weight


#: Most keys for which the dense pairing (a similarity code per pair, numpy) is used: its
#: table of similarity values grows with the square of the key count, its code matrices
#: with items x keys, so items with thousands of distinct keys go the sparse way.
DENSE_MAX_KEYS = 32
#: Relative cost of one candidate pair in the sparse (Python) walk against one
#: pair-key cell of the dense (numpy) one; measured, roughly.
SPARSE_COST = 200
#: Cells (label items x result items x keys) up to which the dense walk is taken without
#: weighing the sparse one: both give the same bits, and counting shared leaves costs
#: more than the dense walk itself on arrays of this size.
DENSE_SMALL = 20_000


def greedy_sum(label_leaves: list[dict[str, Any]],
                   result_leaves: list[dict[str, Any]]) -> float:
    """§3: the running sum of DocuBench's greedy pairing, by the cheaper of two walks.

    Both walks give the same float: only pairs sharing a (key, value) leaf, or pairs of
    two items without a non-empty leaf (similarity 1.0), have a similarity above 0, and
    the sum adds one similarity per taken pair, highest group first, so only which pairs
    each group takes matters (all additions inside a group add the same value).
    """
    keys = {k for leaves in (*label_leaves, *result_leaves) for k in leaves}
    dense = len(label_leaves) * len(result_leaves) * (len(keys) + 1)
    forced = tuning.TUNING.v1_walk
    if forced == "dense":
        return _greedy_dense(label_leaves, result_leaves)
    if forced == "sparse":
        label_codes, result_codes = _leaf_codes(label_leaves, result_leaves)
        postings: dict[int, list[int]] = {}
        for j, codes in enumerate(result_codes):
            for code in codes.values():
                postings.setdefault(code, []).append(j)
        return _greedy_sparse(label_codes, result_codes, postings)
    if len(keys) <= DENSE_MAX_KEYS and dense <= DENSE_SMALL:
        return _greedy_dense(label_leaves, result_leaves)  # small: no need to compare costs
    label_codes, result_codes = _leaf_codes(label_leaves, result_leaves)
    postings: dict[int, list[int]] = {}
    for j, codes in enumerate(result_codes):
        for code in codes.values():
            postings.setdefault(code, []).append(j)
    label_count: dict[int, int] = {}
    for codes in label_codes:
        for code in codes.values():
            label_count[code] = label_count.get(code, 0) + 1
    # Pairs the sparse walk visits: one per shared (key, value) leaf of a pair.
    shared = sum(n * len(postings.get(code, ())) for code, n in label_count.items())
    if len(keys) <= DENSE_MAX_KEYS and dense <= SPARSE_COST * (
            shared + len(label_leaves) + len(result_leaves)):
        return _greedy_dense(label_leaves, result_leaves)
    return _greedy_sparse(label_codes, result_codes, postings)


def _leaf_codes(label_leaves: list[dict[str, Any]], result_leaves: list[dict[str, Any]],
                   ) -> tuple[list[dict[str, int]], list[dict[str, int]]]:
    """Each item's non-empty leaves as {key: code}; equal (key, value) leaves share a code.

    Every NaN gets a code of its own (``_hashable``), so it equals nothing.
    """
    values: dict[Any, int] = {}

    def encode(leaves: dict[str, Any]) -> dict[str, int]:
        return {key: values.setdefault((key, _hashable(value)), len(values))
                for key, value in leaves.items() if not scorer._v1_is_empty(value)}

    return [encode(leaves) for leaves in label_leaves], [encode(leaves) for leaves in result_leaves]


def _greedy_sparse(label_codes: list[dict[str, int]], result_codes: list[dict[str, int]],
                      postings: dict[int, list[int]]) -> float:
    """The greedy sum from the pairs that share a leaf: work grows with those pairs.

    ``label_codes``/``result_codes``: per item {key: code} of its non-empty leaves;
    ``postings``: code -> result indices holding it, ascending. Similarity of a pair is
    equal / kept with kept = |keys_i| + |keys_j| - |keys_i & keys_j| (keys empty on both
    sides are skipped); a pair sharing nothing has 0.0 unless both items are empty.
    """
    candidates: list[tuple[float, int, int]] = []
    for i, codes in enumerate(label_codes):
        equal: dict[int, int] = {}
        for code in codes.values():
            for j in postings.get(code, ()):
                equal[j] = equal.get(j, 0) + 1
        for j, count in equal.items():
            other = result_codes[j]
            both = len(codes.keys() & other.keys()) if len(codes) > count else count
            # Negated so an ascending sort gives the reference's stable order.
            candidates.append((-(count / (len(codes) + len(other) - both)), i, j))
    candidates.sort()
    empty_pairs = min(sum(1 for c in label_codes if not c), sum(1 for c in result_codes if not c))
    row_free = [True] * len(label_codes)
    col_free = [True] * len(result_codes)
    total = 0.0
    for negated, i, j in candidates:
        if empty_pairs and negated != -1.0:
            # Empty items pair only with each other (1.0) and touch no other pair; the
            # additions of one group are all equal, so adding them here changes no bit.
            for _ in range(empty_pairs):
                total += 1.0
            empty_pairs = 0
        if row_free[i] and col_free[j]:
            row_free[i] = col_free[j] = False
            total += -negated
    for _ in range(empty_pairs):
        total += 1.0
    return total


def _greedy_dense(label_leaves: list[dict[str, Any]],
                     result_leaves: list[dict[str, Any]]) -> float:
    """The greedy sum from a similarity code for every pair (numpy, few keys only)."""
    n_label, n_result = len(label_leaves), len(result_leaves)
    keys = sorted({k for leaves in (*label_leaves, *result_leaves) for k in leaves})
    # codes[:, k]: equal non-empty values share a code; empty is -1 (label) / -2 (result),
    # so empty never equals anything; every NaN gets a code of its own.
    values: dict[Any, int] = {}

    def encode(leaves_list: list[dict[str, Any]], empty: int) -> np.ndarray:
        out = np.full((len(leaves_list), len(keys)), empty, dtype=np.int64)
        for row, leaves in enumerate(leaves_list):
            for k, key in enumerate(keys):
                value = leaves.get(key)
                if not scorer._v1_is_empty(value):
                    out[row, k] = values.setdefault((key, _hashable(value)), len(values))
        return out

    label_codes, result_codes = encode(label_leaves, -1), encode(result_leaves, -2)
    label_ne, result_ne = label_codes >= 0, result_codes >= 0
    # Every similarity is equal/kept with 0 <= equal <= kept <= len(keys). A pair is
    # stored as the code equal * (len(keys) + 1) + kept (one byte for up to 14 keys);
    # each distinct similarity value is the set of codes that give it.
    n_keys = len(keys)
    codes_of: dict[float, list[int]] = {}
    for kept in range(n_keys + 1):
        for equal in range(kept + 1):
            value = equal / kept if kept else 1.0  # the float the reference computes
            codes_of.setdefault(value, []).append(equal * (n_keys + 1) + kept)
    largest = n_keys * (n_keys + 2)
    code_dtype = np.uint8 if largest < 256 else np.uint16 if largest < 65536 else np.int64
    pair_codes = np.empty((n_label, n_result), dtype=code_dtype)
    chunk = max(1, 4_000_000 // max(1, n_result))
    for lo in range(0, n_label, chunk):
        hi = min(n_label, lo + chunk)
        equal = np.zeros((hi - lo, n_result), dtype=code_dtype)
        kept = np.zeros((hi - lo, n_result), dtype=code_dtype)
        for k in range(n_keys):
            equal += label_codes[lo:hi, k, None] == result_codes[None, :, k]
            kept += label_ne[lo:hi, k, None] | result_ne[None, :, k]
        equal *= n_keys + 1
        equal += kept
        pair_codes[lo:hi] = equal

    # DocuBench walks all pairs sorted by similarity (stable: label index, then result
    # index) and takes a pair when both items are free. Walk the same order group by
    # group, highest similarity first; only free rows and columns can take anything,
    # and 0.0 adds nothing.
    row_free = np.ones(n_label, dtype=bool)
    col_free = np.ones(n_result, dtype=bool)
    total = 0.0
    for value in sorted(codes_of, reverse=True):
        if value == 0.0:
            break
        rows, cols = np.flatnonzero(row_free), np.flatnonzero(col_free)
        if not len(rows) or not len(cols):
            break
        everything_free = len(rows) == n_label and len(cols) == n_result
        sub = pair_codes if everything_free else pair_codes[np.ix_(rows, cols)]
        hits = sub == codes_of[value][0]
        for code in codes_of[value][1:]:
            hits |= sub == code
        for r in np.flatnonzero(hits.any(axis=1)).tolist():
            candidates = cols[hits[r]]
            candidates = candidates[col_free[candidates]]
            if len(candidates):
                col_free[candidates[0]] = False
                row_free[rows[r]] = False
                total += value  # one addition per pair, in the reference's order
    return total
