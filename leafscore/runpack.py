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
from collections.abc import Iterable, Sequence
from itertools import chain
from typing import Any

import scorer
from leafscore.fields import NOT_ERRORS

#: The statuses a ``runner.Cell`` may carry.
STATUSES: tuple[str, ...] = ("scored", "parse_failure", "missing")

#: Bumped when the pack layout changes; part of every pack key.
PACK_FORMAT = "1"
#: A pack's columns: one list per member of a cell, each with one item per cell.
COLUMNS: tuple[str, ...] = ("status", "value", "count", "path", "triple", "exact",
                            "warnings", "error")


def pack_key(common: Sequence[str], cells: Iterable[Sequence[str]]) -> str:
    """sha256 hex of a run: ``common`` holds what every cell shares (the cache format,
    version, options and code digests), ``cells`` one tuple per pair, in pair order
    (system, doc_id, result file, reader, schema, label and result digests): every part
    of each cell's ``cache.cache_key``, and the file its warnings name. The separators
    (U+001F, U+001E) appear in none of the parts."""
    digest = hashlib.sha256("\x1f".join(("run-pack", PACK_FORMAT, *common)).encode())
    for cell in cells:
        digest.update(("\x1e" + "\x1f".join(cell)).encode())
    return digest.hexdigest()


def encode(items: Sequence[tuple[Any, ...]], version: str) -> dict[str, Any] | None:
    """JSON form of a run's ``runner.packed`` cells ``(status, version, value, counts,
    fields, exact, warnings, errors)``, all of ``version``; ``None`` when one is not such
    a cell. Laid out to be read fast: a column per member (:data:`COLUMNS`), and the
    distinct count vectors, field-path lists, (tp, fp, fn) triples and per-field error
    kinds listed once and named by index, so reading 10,000 cells builds a few thousand
    ``FieldCounts``, not one per field."""
    tables: dict[str, dict[Any, int]] = {"counts": {}, "paths": {}, "triples": {},
                                         "errors": {}}

    def ref(table: str, value: tuple[Any, ...]) -> int:
        return tables[table].setdefault(value, len(tables[table]))

    kinds = tuple(scorer.VERDICT_KINDS)
    columns: dict[str, list[Any]] = {name: [] for name in COLUMNS}
    for item in items:
        if not isinstance(item, tuple) or len(item) != 8 or item[1] != version \
                or tuple(k for k, _ in item[3]) != kinds:
            return None
        status, _, value, counts, fields, exact, warnings, errors = item
        cell = (status, value, ref("counts", tuple(n for _, n in counts)),
                ref("paths", tuple(row[0] for row in fields)),
                [ref("triples", tuple(row[1:])) for row in fields], exact, list(warnings),
                [ref("errors", row) for row in errors])
        for name, member in zip(COLUMNS, cell, strict=True):
            columns[name].append(member)
    return {"version": version, **{name: list(table) for name, table in tables.items()},
            **columns}


def decode(entry: Any, present: Sequence[bool],
           version: str) -> list[tuple[str, scorer.DocScore, tuple[str, ...], dict]] | None:
    """The cells of a pack entry as ``(status, DocScore without verdicts, warnings,
    per-field error kinds)``, or ``None`` when it is not a pack of ``len(present)``
    cells of ``version`` (``present[i]``: whether cell ``i``'s result file exists, so a
    ``"missing"`` status exactly when it does not). Never raises.

    Checked: the shape of every table and column, and every index in range; counts,
    triples and error counts are non-negative integers (error counts positive, of error
    kinds only, one row per field path); field paths sorted and distinct; statuses and
    warnings; each accuracy the one its counts give (0.0 for a parse failure). What
    the pack holds was checked when it was written (``runner._load`` for cached cells)
    and is signed since, so sums are not added up again: that would cost as much as
    the per-cell reads the pack saves.
    """
    try:
        if entry["version"] != version:
            return None
        statuses, values, cs, ps, ts, exacts, warnings, es = (entry[n] for n in COLUMNS)
        if any(len(column) != len(present) for column in (statuses, values, cs, ps, ts, exacts,
                                                          warnings, es)):
            return None
        counts = _counts(entry["counts"])
        paths = [_paths(p) for p in entry["paths"]]
        triples = _triples(entry["triples"])
        errors = [_error_row(row) for row in entry["errors"]]
        accuracy = [scorer.DocScore.accuracy_of(c) for c in counts]
        flat_t, flat_e = list(chain.from_iterable(ts)), list(chain.from_iterable(es))
        fits = (
            min(chain(cs, ps, flat_t, flat_e), default=0) >= 0
            and all(type(i) is int for i in chain(cs, ps, flat_t, flat_e))
            and all(status in STATUSES and (status == "missing") != there
                    for status, there in zip(statuses, present, strict=True))
            and all(x is True or x is False for x in exacts)
            and all(type(v) is float for v in values)
            and values == [0.0 if status == "parse_failure" else accuracy[c]
                           for status, c in zip(statuses, cs, strict=True)]
            and all(len(t) == len(paths[p]) for p, t in zip(ps, ts, strict=True))
            and all(type(w) is str for w in chain.from_iterable(warnings))
        )
        if not fits:
            return None
        pick_triple, pick_error = triples.__getitem__, errors.__getitem__
        kinds = [dict(map(pick_error, e)) for e in es]
        if any(len(k) != len(e) for k, e in zip(kinds, es, strict=True)):
            return None  # two rows of one field path
        make = scorer.DocScore
        scores = [make(version, v, (), counts[c], dict(zip(paths[p], map(pick_triple, t),
                                                            strict=True)), x)
                  for v, c, p, t, x in zip(values, cs, ps, ts, exacts, strict=True)]
        return list(zip(statuses, scores, map(tuple, warnings), kinds, strict=True))
    except (KeyError, TypeError, ValueError, IndexError):
        return None


def _is_count(value: Any) -> bool:
    return type(value) is int and value >= 0


def _are_counts(vectors: list[Any], width: int) -> bool:
    """Whether ``vectors`` are lists of ``width`` non-negative integers (checked over all
    of them at once: a pack holds thousands)."""
    flat = list(chain.from_iterable(vectors))
    return (all(type(v) is list for v in vectors) and len(flat) == width * len(vectors)
            and {*map(type, flat)} <= {int} and min(flat, default=0) >= 0)


def _counts(vectors: Any) -> list[dict[str, int]]:
    """Verdict kind -> count, in the scorer's order, of each stored vector."""
    if not _are_counts(vectors, len(scorer.VERDICT_KINDS)):
        raise ValueError("not a count of every verdict kind")
    return [dict(zip(scorer.VERDICT_KINDS, vector, strict=True)) for vector in vectors]


def _triples(triples: Any) -> list[scorer.FieldCounts]:
    """The ``FieldCounts`` of each stored (tp, fp, fn)."""
    if not _are_counts(triples, 3):
        raise ValueError("field counts are not counts")
    return [scorer.FieldCounts(*triple) for triple in triples]


def _paths(paths: Any) -> tuple[str, ...]:
    if not all(type(p) is str for p in paths) or list(paths) != sorted(set(paths)):
        raise ValueError("field paths are not sorted and distinct")
    return tuple(paths)


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
