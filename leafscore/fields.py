"""Per-field analysis: TP/FP/FN, precision, recall, F1 and error categories, worst first.

Reads the stored version-2.0 document scores of one system (their ``fields`` counts) and
their error kinds per field (folded from the verdicts when a cell was scored,
:func:`error_kinds`) and sums them over documents; nothing is rescored and no verdict
need be kept. Version 1.0 keeps no
per-field record, so every function here raises ``ValueError`` on a 1.0 run.

Precision, recall and F1 follow spec scoring-2.0 §4: ``P = TP / (TP + FP)``,
``R = TP / (TP + FN)``, ``F1 = 2 TP / (2 TP + FP + FN)`` (the harmonic mean of P and R,
written so that it is defined whenever either is); a 0/0 is ``None``, never 0 or 1.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import scorer

#: Verdict kinds that are not errors; every other kind is an error category.
NOT_ERRORS: frozenset[str] = frozenset({"correct", "correct_absence"})


@dataclass(frozen=True)
class FieldRow:
    """One field path of one system, summed over every document.

    ``field`` is a field path (``lines[].qty``); ``counts`` its summed tp/fp/fn with
    precision/recall/F1 (``scorer.FieldCounts``: floats in [0, 1], ``None`` for 0/0);
    ``errors`` maps each error kind (``wrong_value``, ``missing``, ...) seen on this field
    to its count, keys sorted.
    """

    field: str
    counts: scorer.FieldCounts
    errors: Mapping[str, int]

    @property
    def f1(self) -> float | None:
        """F1 of the field, ``None`` for 0/0."""
        return self.counts.f1

    @property
    def error_count(self) -> int:
        """Verdicts on this field that are errors (every kind but correct/correct_absence)."""
        return sum(self.errors.values())

    def to_dict(self) -> dict[str, Any]:
        """``{"field", "tp", "fp", "fn", "precision", "recall", "f1", "errors"}``."""
        return {"field": self.field, **self.counts.to_dict(), "errors": dict(self.errors)}


def error_kinds(verdicts: Iterable[Any]) -> dict[str, dict[str, int]]:
    """Field path -> error kind -> count, folded from one document's verdicts.

    Keys are the fields with an error, and the fields seen only as correct absences
    (mapped to ``{}``: they have no counts, yet are a row of the field table); a field
    with verdicts but no error is left out (its counts make it a row). Kinds are those not
    in :data:`NOT_ERRORS`, keys sorted. This is what a run keeps of a document's verdicts
    for the per-field tables, so reports need not keep the verdicts themselves.
    """
    return tally_error_kinds(Counter((verdict.field, verdict.kind) for verdict in verdicts))


def error_kinds_of(score: Any) -> dict[str, dict[str, int]]:
    """:func:`error_kinds` of a version-2.0 ``DocScore``'s verdicts, counted from its
    ``(field, kind)`` pairs; the fast engine's verdicts, not made yet, count themselves
    (``tally()``), so its Verdict objects are never built."""
    tally = getattr(score.verdicts, "tally", None)
    return tally_error_kinds(tally() if tally is not None else Counter(
        (verdict.field, verdict.kind) for verdict in score.verdicts))


def tally_error_kinds(tally: Mapping[tuple[str, str], int]) -> dict[str, dict[str, int]]:
    """:func:`error_kinds` from ``(field path, kind) -> count`` in first-seen order (a
    score's verdicts, or the verdicts of a stored cell counted as they are read)."""
    found: dict[str, dict[str, int]] = {}
    counted: set[str] = set()
    for (field, kind), many in tally.items():
        kinds = found.setdefault(field, {})
        if kind != "correct_absence":
            counted.add(field)
        if kind not in NOT_ERRORS:
            kinds[kind] = kinds.get(kind, 0) + many
    return {path: {kind: kinds[kind] for kind in sorted(kinds)}
            for path, kinds in sorted(found.items()) if kinds or path not in counted}


def require_fields(run: Any, system: str) -> list[Any]:
    """The version-2.0 document scores of ``system`` in id order.

    Raises ``ValueError`` ("... needs version 2.0") when any of them lacks per-field
    counts (a version-1.0 run), and ``KeyError`` for an unknown system.
    """
    if system not in run.systems:
        raise KeyError(f"no system {system!r}; systems: {', '.join(run.systems)}")
    scores = [run.cells[(system, doc)].score for doc in run.documents]
    if any(getattr(score, "fields", None) is None for score in scores):
        raise ValueError(
            f"per-field counts need version 2.0; this run is version {run.version}"
        )
    return scores


def sum_fields(scores: Iterable[Any],
               errors: Iterable[Mapping[str, Mapping[str, int]]] | None = None
               ) -> tuple[FieldRow, ...]:
    """Sum per-field counts and error kinds over document scores, in field path order.

    ``scores`` are version-2.0 ``DocScore``s (``.fields``: path -> counts with ``tp``,
    ``fp``, ``fn``). ``errors`` are their error kinds, one :func:`error_kinds` map per
    score in the same order; by default they are folded from each score's ``.verdicts``.
    """
    scores = list(scores)
    per_doc = [_kinds(s) for s in scores] if errors is None else list(errors)
    if len(per_doc) != len(scores):
        raise ValueError(f"{len(per_doc)} error maps for {len(scores)} scores")
    counts: dict[str, scorer.FieldCounts] = {}
    totals: dict[str, Counter[str]] = {}
    for score, kinds in zip(scores, per_doc, strict=True):
        for path, field in score.fields.items():
            counts[path] = counts.get(path, scorer.FieldCounts()) + field
        for path, found in kinds.items():
            totals.setdefault(path, Counter()).update(found)
    rows = []
    for path in sorted(counts.keys() | totals.keys()):
        kinds = totals.get(path, Counter())
        rows.append(FieldRow(path, counts.get(path, scorer.FieldCounts()),
                             errors={kind: kinds[kind] for kind in sorted(kinds) if kinds[kind]}))
    return tuple(rows)


def system_fields(run: Any, system: str) -> tuple[FieldRow, ...]:
    """Per-field rows of one system over every document of ``run``, in field path order,
    from each cell's folded error kinds (``Cell.field_errors``), so the run need not
    keep verdicts. Raises as :func:`require_fields`."""
    scores = require_fields(run, system)
    cells = [run.cells[(system, doc)] for doc in run.documents]
    return sum_fields(scores, [cell_errors(cell) for cell in cells])


def cell_errors(cell: Any) -> Mapping[str, Mapping[str, int]]:
    """A cell's per-field error kinds: its folded ``errors`` when it has them (a
    ``cells.Cell``), else folded from its score's verdicts."""
    folded = getattr(cell, "errors", None)
    return folded if folded is not None else _kinds(cell.score)


def _kinds(score: Any) -> dict[str, dict[str, int]]:
    """Error kinds of one score: from its tally when it keeps one (no Verdict built)."""
    return error_kinds_of(score)


def worst_first(rows: Iterable[FieldRow]) -> tuple[FieldRow, ...]:
    """Order rows lowest F1 first, then most errors, then field path.

    A field whose F1 is ``None`` (nothing to score: only correct absences) comes after
    every field with an F1.
    """
    return tuple(sorted(rows, key=lambda r: (r.f1 is None, r.f1 or 0.0, -r.error_count, r.field)))


def field_table(run: Any, system: str) -> tuple[FieldRow, ...]:
    """Per-field rows of one system over every document of ``run``, worst first.

    Raises ``ValueError`` on a version-1.0 run and ``KeyError`` for an unknown system.
    """
    return worst_first(system_fields(run, system))


def normalize_field_path(text: str) -> str:
    """A field path as the scorer writes it, from any spelling a user may give: bare
    names joined by ``.``, ``[]`` after an array, and ``["<name>"]`` (a JSON string,
    any escaping) for any name; ``["b"]`` and ``b`` are one path. Raises ValueError
    for a path that does not read so (an unclosed quote, an empty bare name).

    >>> normalize_field_path('lines[].["unit.price"]')
    'lines[]["unit.price"]'
    """
    out, position, decoder = "", 0, json.JSONDecoder()
    while position < len(text):
        if text.startswith("[]", position):
            out, position = out + "[]", position + 2
            continue
        if text.startswith('.["', position) and out:
            position += 1  # a dot before a quoted name is optional
        if text.startswith('["', position):
            try:
                name, end = decoder.raw_decode(text, position + 1)
            except ValueError:
                raise ValueError(f"field path {text!r}: unclosed quoted name") from None
            if text[end:end + 1] != "]":
                raise ValueError(f"field path {text!r}: a quoted name must end with ']'")
            out, position = scorer.join(out, name), end + 1
            continue
        if out:
            if text[position] != ".":
                raise ValueError(f"field path {text!r}: expected '.' at {position}")
            position += 1
        end = position
        while end < len(text) and text[end] not in ".[":
            end += 1
        name = text[position:end]
        if not name or scorer._NEEDS_QUOTES.search(name):
            raise ValueError(f"field path {text!r}: write the name at {position} as "
                             '["<name>"]')
        out, position = scorer.join(out, name), end
    return out
