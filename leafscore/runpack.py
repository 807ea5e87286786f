"""A whole run's cells in one signed cache entry: a warm rerun of an unchanged benchmark
reads one file instead of one per (system, document).

A run pack is keyed by :func:`pack_key`: the per-cell cache keys of every pair
(``cache.cache_key``: schema, label and result digests, version, options, code, reader)
and the file each result was read from, in pair order. So any edit, added or removed
file, other option or other code misses the pack, and the run falls back to the
per-cell entries (which rescore only what changed) and writes a new pack.

The cells are those of 2.0 scores without verdicts (``runner.packed``), their equal
parts stored once (``encode``). ``decode`` checks what it reads (each status must fit
its result's presence, each accuracy the one its counts give); a pack that does not
fit is a miss, never an error.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import scorer
from leafscore.fields import NOT_ERRORS

#: The statuses a ``runner.Cell`` may carry.
STATUSES: tuple[str, ...] = ("scored", "parse_failure", "missing")

#: Bumped when the pack layout changes; part of every pack key.
PACK_FORMAT = "1"


def pack_key(cells: Sequence[tuple[str, str, str, str]]) -> str:
    """sha256 hex of a run's cells: ``(system, doc_id, result file, cell cache key)`` per
    pair, in pair order. The separators (U+001F, U+001E) appear in none of the parts."""
    text = "\x1e".join("\x1f".join(cell) for cell in cells)
    return hashlib.sha256(f"run-pack\x1f{PACK_FORMAT}\x1e{text}".encode()).hexdigest()


def encode(items: Sequence[tuple[Any, ...]], version: str) -> dict[str, Any] | None:
    """JSON form of a run's ``runner.packed`` cells ``(status, version, value, counts,
    fields, exact, warnings, errors)``, all of ``version``; ``None`` when one is not such
    a cell. Laid out to be read fast: distinct count vectors, field-path lists and
    (tp, fp, fn) triples are listed once and named by index, so reading 10,000 cells
    builds a few hundred ``FieldCounts``, not one per field."""
    tables: dict[str, dict[Any, int]] = {"counts": {}, "paths": {}, "triples": {},
                                         "errors": {}}

    def ref(table: str, value: tuple[Any, ...]) -> int:
        return tables[table].setdefault(value, len(tables[table]))

    kinds = tuple(scorer.VERDICT_KINDS)
    cells = []
    for item in items:
        if not isinstance(item, tuple) or len(item) != 8 or item[1] != version \
                or tuple(k for k, _ in item[3]) != kinds:
            return None
        status, _, value, counts, fields, exact, warnings, errors = item
        cells.append([status, value, ref("counts", tuple(n for _, n in counts)),
                      ref("paths", tuple(row[0] for row in fields)),
                      [ref("triples", tuple(row[1:])) for row in fields], exact,
                      list(warnings), [ref("errors", row) for row in errors]])
    return {"version": version, **{name: list(table) for name, table in tables.items()},
            "cells": cells}


def decode(entry: Any, present: Sequence[bool],
           version: str) -> list[tuple[str, scorer.DocScore, tuple[str, ...], dict]] | None:
    """The cells of a pack entry as ``(status, DocScore without verdicts, warnings,
    per-field error kinds)``, or ``None`` when it is not a pack of ``len(present)``
    cells of ``version`` (``present[i]``: whether cell ``i``'s result file exists, so a
    ``"missing"`` status exactly when it does not). Never raises.

    Checked: the shape of every table and cell, and every index in range; counts,
    triples and error counts are non-negative integers (error counts positive, of error
    kinds only, one row per field path); field paths sorted and distinct; statuses and
    warnings; each accuracy the one its counts give (0.0 for a parse failure). What
    the pack holds was checked when it was written (``runner._load`` for cached cells)
    and is signed since, so sums are not added up again: that would cost as much as
    the per-cell reads the pack saves.
    """
    try:
        if entry["version"] != version or len(entry["cells"]) != len(present):
            return None
        counts = [_counts(c) for c in entry["counts"]]
        paths = [_paths(p) for p in entry["paths"]]
        triples = [_triple(t) for t in entry["triples"]]
        errors = [_error_row(row) for row in entry["errors"]]
        accuracy = [scorer.DocScore.accuracy_of(c) for c in counts]
        out = []
        make, pick_triple, pick_error = scorer.DocScore, triples.__getitem__, errors.__getitem__
        for cell, there in zip(entry["cells"], present, strict=True):
            status, value, c, p, t, exact, warnings, e = cell
            names = paths[p]
            if status not in STATUSES or (status == "missing") == there \
                    or exact not in (True, False) or type(value) is not float \
                    or value != (0.0 if status == "parse_failure" else accuracy[c]) \
                    or min(c, p, *t, *e, 0) < 0 or len(t) != len(names) \
                    or (warnings and not all(type(w) is str for w in warnings)):
                return None
            kinds = dict(map(pick_error, e))
            if len(kinds) != len(e):
                return None
            fields = dict(zip(names, map(pick_triple, t), strict=True))  # lengths checked
            score = make(version, value, (), counts[c], fields, exact)
            out.append((status, score, tuple(warnings), kinds))
        return out
    except (KeyError, TypeError, ValueError, IndexError):
        return None


def _is_count(value: Any) -> bool:
    return type(value) is int and value >= 0


def _counts(vector: Any) -> dict[str, int]:
    """Verdict kind -> count, in the scorer's order, from a stored vector."""
    if len(vector) != len(scorer.VERDICT_KINDS) or not all(_is_count(n) for n in vector):
        raise ValueError("not a count of every verdict kind")
    return dict(zip(scorer.VERDICT_KINDS, vector, strict=True))


def _paths(paths: Any) -> tuple[str, ...]:
    if not all(type(p) is str for p in paths) or list(paths) != sorted(set(paths)):
        raise ValueError("field paths are not sorted and distinct")
    return tuple(paths)


def _triple(triple: Any) -> scorer.FieldCounts:
    tp, fp, fn = triple
    if not (_is_count(tp) and _is_count(fp) and _is_count(fn)):
        raise ValueError("field counts are not counts")
    return scorer.FieldCounts(tp, fp, fn)


def _error_row(row: Any) -> tuple[str, dict[str, int]]:
    """One field's error kinds, ``[path, [[kind, n], ...]]`` -> ``(path, {kind: n})``, each
    a positive count of an error kind. Cells with equal rows share the dict, which no
    reader mutates (as ``runner.unpacked`` shares them)."""
    path, kinds = row
    counts = dict(kinds)
    if type(path) is not str or len(counts) != len(kinds) or not all(
            kind not in NOT_ERRORS and kind in scorer.VERDICT_KINDS and _is_count(n) and n
            for kind, n in counts.items()):
        raise ValueError("not a positive count of an error kind")
    return path, counts
