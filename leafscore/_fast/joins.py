"""Keys of flat columns, numbered, and the pairs their join makes: what the fast
engine's flat paths (:mod:`leafscore._fast.flat`, :mod:`leafscore._fast.slack`) weigh
array items with, no pair walked.

A column is one field's reads over an array's items; equal reads (equal tag and key)
take one id, and a result item's read the id of the equal label read.
"""

from __future__ import annotations

import itertools
import operator

from leafscore._fast import solve, tuning
from leafscore._fast.numpy_lazy import np

#: A read of one flat field's value: (tag, canonical key, signature part), the part being
#: ``,<member>=<tag>:<key as shown>``; an empty value reads as EMPTY_READ, so a column of
#: reads gives its tags, keys and parts by C-level itemgetters.
EMPTY_READ: tuple = (None, None, "")
TAG, KEY, PART = (operator.itemgetter(k) for k in range(3))


def key_ids(column: list[tuple], near: set[str]) -> tuple[np.ndarray, dict[tuple, int]]:
    """Key ids of a column of label reads, and {read: id}: equal reads (equal tag and
    key) share one id, each id below ``len(column) + 1``; -1 for an empty read or one
    under a loose tag (``near``, found by reach instead)."""
    numbers: dict[tuple, int] = {EMPTY_READ: -1}
    if near:
        ids = np.array([-1 if got[0] in near else numbers.setdefault(got, len(numbers))
                        for got in column], np.int64)
    else:  # a new read takes its position as its id: numbered in C, not one by one
        ids = np.fromiter(map(numbers.setdefault, column, itertools.count()), np.int64,
                          len(column))
    del numbers[EMPTY_READ]
    return ids, numbers


def result_ids(column: list[tuple], numbers: dict[tuple, int], only: str | None,
                ) -> np.ndarray:
    """Per result read of ``column``: -2 when empty, -3 when read under another tag
    than ``only`` (the label column's one keyed tag; None when it has several or none),
    else the id of the equal label read in ``numbers``, or -1 when no label read is."""
    numbers[EMPTY_READ] = -2
    try:
        ids = np.fromiter(map(numbers.get, column, itertools.repeat(-1)), np.int64,
                          len(column))
    finally:
        del numbers[EMPTY_READ]
    elsewhere = np.fromiter(map(operator.ne, map(TAG, column), itertools.repeat(only)),
                            bool, len(column))
    ids[elsewhere & (ids != -2)] = -3
    return ids


def entries(ids: np.ndarray, stride: int, keep: list[np.ndarray] | None = None,
            ) -> tuple[np.ndarray, np.ndarray]:
    """(items, key ids) of every stated key of a field x item array of key ids (below 0:
    none), field after field, items ascending within a field, each field's ids offset
    by ``field * stride`` (``stride`` above every id) so that fields never share one;
    with ``keep`` (per field, a bool per key id), only the keys it keeps."""
    items, keys = [], []
    for b, row in enumerate(ids):
        found = np.flatnonzero(row >= 0)
        if keep is not None:
            found = found[keep[b][row[found]]]
        items.append(found)
        keys.append(row[found] + b * stride)
    return np.concatenate(items), np.concatenate(keys)


def join_counts(rows: int, cols: int, label_rows: np.ndarray, label_ids: np.ndarray,
                result_rows: np.ndarray, result_ids: np.ndarray, masks_left: np.ndarray,
                masks_right: np.ndarray, ceiling: int, fields: int, size: int,
                ) -> list[np.ndarray]:
    """Pair weights of flat items in CSR layout with one dummy slot closing each row,
    [indptr, indices, data]: ``shared * ceiling + present`` for every (row, column)
    sharing at least one key id, where ``shared`` counts the key ids they share and
    ``present`` the fields non-empty on both sides (bit masks). ``label_rows`` must be
    ascending; a label row holds a key id at most once per field, so shared = number of
    join entries of the pair. Label rows are joined a slice at a time, (row, column)
    codes counted by ``np.unique`` (sorted), and written straight into place."""
    by_key = np.argsort(result_ids, kind="stable")
    sorted_rows = result_rows[by_key]
    del by_key
    per_key = np.bincount(result_ids, minlength=size)
    first = np.cumsum(per_key) - per_key
    fan = per_key[label_ids]  # result entries joined to each label entry
    del per_key
    total = int(fan.sum()) + rows  # a bound: pages never written are never resident
    indices = np.zeros(total, np.int32)
    data = np.zeros(total, solve.weight_type(fields * ceiling + fields))
    indptr = np.ones(rows + 1, np.int64)  # each row's dummy slot
    indptr[0] = 0
    ends = np.cumsum(fan)
    written, start, done = 0, 0, 0  # slots of the rows before row ``done``, dummies included
    while start < len(label_rows):
        reach = (ends[start - 1] if start else 0) + tuning.TUNING.join_slice
        stop = int(np.searchsorted(ends, reach, side="right"))
        stop = max(stop, start + 1)
        if stop < len(label_rows):  # whole label rows only
            stop = int(np.searchsorted(label_rows, label_rows[stop], side="left"))
            if stop <= start:
                stop = int(np.searchsorted(label_rows, label_rows[start], side="right"))
        low, high = int(label_rows[start]), int(label_rows[stop - 1]) + 1
        written += low - done  # rows between slices hold no key: their dummy slot only
        part = fan[start:stop]
        count = int(part.sum())
        if count:
            offsets = np.repeat(first[label_ids[start:stop]] - (np.cumsum(part) - part), part)
            offsets += np.arange(count)
            codes = np.repeat(label_rows[start:stop] - low, part) * cols + sorted_rows[offsets]
            del offsets
            codes, shared = np.unique(codes, return_counts=True)
            r = codes // cols
            c = codes - r * cols
            present = np.bitwise_count(masks_left[r + low] & masks_right[c])
            per_row = np.bincount(r, minlength=high - low)
            at = written + np.arange(len(codes)) + r  # one dummy slot after each row
            indices[at] = c
            data[at] = shared * ceiling + present
            indptr[low + 1:high + 1] += per_row
            del codes, shared, r, c, present, at
        written += int(indptr[low + 1:high + 1].sum())
        start, done = stop, high
    np.cumsum(indptr, out=indptr)
    end = int(indptr[-1])
    return [indptr, indices[:end], data[:end]]
