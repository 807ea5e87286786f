"""A whole run's cells in one signed cache entry: a warm rerun of an unchanged benchmark
reads one file instead of one per (system, document).

A run pack is keyed by :func:`pack_key`: the per-cell cache keys of every pair
(``cache.cache_key``: schema, label and result digests, version, engine, options, code,
reader) and the file each result was read from, in pair order. So any edit, added or
removed file, other option, engine or code misses the pack, and the run falls back to
the per-cell entries (which rescore only what changed) and writes a new pack.

A pack holds the stored forms of its cells (``cells.encode``: the per-cell cache's one
form), each member as a column, for 2.x scores without verdicts; equal parts (count
vectors, field-path lists, (tp, fp, fn) triples, per-field error kinds) are listed once
and named by index, so reading 10,000 cells builds a few thousand ``FieldCounts``, not
one per field. ``decode`` checks what it reads with the cells' own rules
(``cells.status_problem`` ...), all of them at once over each column, besides the
indexes of the layout; a pack that does not fit is a miss, never an error.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from itertools import chain
from typing import Any

import scorer
from leafscore import cells
from leafscore.cells import Cell

#: Bumped when the pack layout changes; part of every pack key.
PACK_FORMAT = "2"
#: A pack's columns: one list per member of a cell, each with one item per cell.
COLUMNS: tuple[str, ...] = ("status", "value", "count", "path", "triple", "exact",
                            "warnings", "error")


def pack_key(common: Sequence[str], pairs: Iterable[Sequence[str]]) -> str:
    """sha256 hex of a run: ``common`` holds what every cell shares (the cache format,
    version, engine, options and code digests), ``pairs`` one tuple per pair, in pair
    order (system, doc_id, result file, reader, schema, label and result digests): every
    part of each cell's ``cache.cache_key``, and the file its warnings name. The
    separators (U+001F, U+001E) appear in none of the parts."""
    digest = hashlib.sha256("\x1f".join(("run-pack", PACK_FORMAT, *common)).encode())
    for pair in pairs:
        digest.update(("\x1e" + "\x1f".join(pair)).encode())
    return digest.hexdigest()


def encode(stored: Sequence[dict[str, Any] | None],
           record: scorer.ScoringVersion) -> dict[str, Any] | None:
    """JSON form of a run's cells, each given as its stored form (``cells.encode``), all
    of ``record``'s version; ``None`` when one cannot be packed: not stored (``None``),
    not a 2.x score (``scorer.DocScore.to_dict``) of that version, or one that keeps its
    verdicts. Laid out to be read fast: a column per member (:data:`COLUMNS`), and the
    distinct count vectors, field-path lists, triples and error rows listed once."""
    tables: dict[str, dict[Any, int]] = {"counts": {}, "paths": {}, "triples": {},
                                         "errors": {}}

    def ref(table: str, value: tuple[Any, ...]) -> int:
        return tables[table].setdefault(value, len(tables[table]))

    kinds = tuple(scorer.VERDICT_KINDS)
    columns: dict[str, list[Any]] = {name: [] for name in COLUMNS}
    for form in stored:
        score = None if form is None else form["score"]
        if score is None or form["errors"] is None or score.get("verdicts") \
                or score.get("version") != record.name or "accuracy" not in score \
                or tuple(score["counts"]) != kinds:
            return None
        fields = score["fields"]
        cell = (form["status"], score["accuracy"], ref("counts", tuple(score["counts"].values())),
                ref("paths", tuple(fields)),
                [ref("triples", (c["tp"], c["fp"], c["fn"])) for c in fields.values()],
                score.get("exact", True), list(form["warnings"]),
                [ref("errors", (path, tuple(found.items())))
                 for path, found in form["errors"].items()])
        for name, member in zip(COLUMNS, cell, strict=True):
            columns[name].append(member)
    return {"version": record.name, **{name: list(table) for name, table in tables.items()},
            **columns}


def decode(entry: Any, record: scorer.ScoringVersion, files: Sequence[str],
           missing: Sequence[bool]) -> list[Cell] | None:
    """The cells of a pack entry (2.x scores without verdicts, folded: ``Cell.errors``
    set), or ``None`` when it is not a pack of ``len(files)`` cells of ``record``'s
    version. Cell ``i``'s result was read from ``files[i]`` (put back before each of its
    warnings); ``missing[i]`` says whether that file is absent. Never raises.

    Checked, over each column at once: the layout (every table and column of the right
    shape, every index in range, one error row per field path), and the cells' own rules
    (statuses that fit the files, warnings, count vectors, triples, sorted field paths,
    error kinds, ``exact`` flags, and each accuracy the one its counts give). What the
    pack holds was checked when it was written (a per-cell entry by ``cells.problem``)
    and is signed since, so the two sums ``cells.problem`` adds up per cell (fields and
    error kinds against the counts) are not added up again: that would cost as much as
    the per-cell reads the pack saves.
    """
    try:
        if entry["version"] != record.name:
            return None
        statuses, values, cs, ps, ts, exacts, warnings, es = (entry[n] for n in COLUMNS)
        if len(files) != len(missing) or any(
                len(column) != len(files)
                for column in (statuses, values, cs, ps, ts, exacts, warnings, es)):
            return None
        flat_t, flat_e = list(chain.from_iterable(ts)), list(chain.from_iterable(es))
        indexes = (cs, ps, flat_t, flat_e)
        if not {*map(type, chain(*indexes))} <= {int} or min(chain(*indexes), default=0) < 0:
            return None
        rows = [(path, dict(found)) for path, found in entry["errors"]]
        if any(len(kinds) != len(found) for (_, kinds), (_, found)
               in zip(rows, entry["errors"], strict=True)):
            return None  # one kind twice in a row
        vectors, paths, triples = entry["counts"], entry["paths"], entry["triples"]
        if (cells.status_problem(statuses, missing) or cells.warnings_problem(warnings)
                or cells.counts_problem(vectors) or cells.field_counts_problem(triples)
                or cells.paths_problem(paths) or cells.error_kinds_problem(rows)
                or cells.exact_problem(exacts)):
            return None
        counts = [dict(zip(scorer.VERDICT_KINDS, vector, strict=True)) for vector in vectors]
        if cells.accuracy_problem(values, statuses, [counts[c] for c in cs]) \
                or not all(len(t) == len(paths[p]) for p, t in zip(ps, ts, strict=True)):
            return None
        pick_triple = [scorer.FieldCounts(*triple) for triple in triples].__getitem__
        pick_error = rows.__getitem__
        kinds = [dict(map(pick_error, e)) for e in es]
        if any(len(k) != len(e) for k, e in zip(kinds, es, strict=True)):
            return None  # two rows of one field path
        make, version = scorer.DocScore, record.name
        # Cells with equal rows share their dicts, which no reader mutates (as
        # ``cells.shared_parts`` shares a run's equal parts).
        return [Cell(status, make(version, v, (), counts[c],
                                  dict(zip(paths[p], map(pick_triple, t), strict=True)), x),
                     tuple(file + w for w in said) if said else (), k)
                for status, v, c, p, t, x, said, k, file
                in zip(statuses, values, cs, ps, ts, exacts, warnings, kinds, files,
                       strict=True)]
    except (KeyError, TypeError, ValueError, IndexError):
        return None
