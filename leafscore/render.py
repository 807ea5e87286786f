"""Text renderings: score matrix, leaderboard, fields, diff and explain views.

Every renderer takes analysis data (or a ``Run``) and a format, and returns one string:

- ``table``: plain text (tabulate ``simple``), for a terminal;
- ``md``: GitHub markdown (tabulate ``pipe``), ``&<>`` in a value written as HTML
  entities and ``|`` as ``\\|``, so no value can open a tag or break a table;
- ``html``: a fragment of ``<table>``s, every value and header escaped with
  ``html.escape``;
- ``csv``: the main table only, unrounded floats (shortest round-trip text), an empty
  cell for an undefined number, then ``# <signature>`` as the last line;
- ``json``: the data itself, keys sorted, unrounded floats, ``null`` for undefined.

Text formats print scores as percentages with 2 decimals, an undefined number (``None``)
as ``–`` (never as 0 or 1), and control characters as ``\\xNN`` escapes (none reaches a
terminal raw); every rendering ends with the signature line.
Output depends on its input only (sorted keys, fixed float formatting).
"""

from __future__ import annotations

import csv
import dataclasses
import html
import io
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tabulate import tabulate

import scorer
from leafscore import hygiene
from leafscore.diff import Diff
from leafscore.explain import Explanation
from leafscore.fields import FieldRow
from leafscore.leaderboard import Leaderboard

#: Formats every renderer accepts.
FORMATS: tuple[str, ...] = ("table", "md", "html", "csv", "json")
#: How an undefined number (``None``) is shown in text formats.
NONE = "–"
#: Mark of a system whose gap to the leader is not significant.
TIE = "≈"
#: Marks of document cells in the score matrix that were not read from a result.
STATUS_MARKS = {"parse_failure": "†", "missing": "‡"}
_TABLEFMT = {"table": "simple", "md": "pipe", "html": "unsafehtml"}


@dataclass(frozen=True)
class Table:
    """One table: ``shown`` rows of text for text formats, ``raw`` rows for CSV.

    ``align`` gives ``"left"``/``"right"`` per column; ``title`` and ``notes`` (lines
    under the table) may be empty.
    """

    title: str
    headers: tuple[str, ...]
    shown: tuple[tuple[str, ...], ...]
    raw: tuple[tuple[Any, ...], ...]
    align: tuple[str, ...]
    notes: tuple[str, ...] = ()


# -------------------------------------------------------------------------------------
# Number formatting
# -------------------------------------------------------------------------------------


def percent(value: float | None) -> str:
    """A score in [0, 1] as a percentage with 2 decimals (``0.9724 -> "97.24"``), ``–`` for None."""
    if value is None or math.isnan(value):
        return NONE
    return f"{100.0 * value:.2f}"


def signed(value: float | None) -> str:
    """A difference in [-1, 1] as signed percentage points (``0.012 -> "+1.20"``)."""
    if value is None or math.isnan(value):
        return NONE
    return f"{100.0 * value:+.2f}"


def bracket(low: float | None, high: float | None, show: Callable[[float | None], str]) -> str:
    """An interval as ``[low, high]``, ``–`` when undefined."""
    if low is None or high is None:
        return NONE
    return f"[{show(low)}, {show(high)}]"


def number(value: Any) -> str:
    """An int as written, ``None`` as ``–``."""
    return NONE if value is None else str(value)


def json_value(value: Any) -> str:
    """A raw JSON value as compact JSON text (keys sorted), ``None`` as ``–``."""
    if value is None:
        return NONE
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


# -------------------------------------------------------------------------------------
# Score matrix
# -------------------------------------------------------------------------------------


def render_matrix(run: Any, fmt: str) -> str:
    """Documents x systems, plus the aggregate row (macro accuracy of each system).

    Parse failures are marked ``†`` and missing results ``‡`` in text formats. JSON:
    ``{"version", "signature", "systems": {S: {"score", "documents": {id: score}},
    "status": {id: status}}}``.
    """
    _check(fmt)
    if fmt == "json":
        systems = {
            s: {
                "score": run.system_score(s),
                "documents": dict(zip(run.documents, run.document_scores(s), strict=True)),
                "status": {d: run.cells[(s, d)].status for d in run.documents},
            }
            for s in run.systems
        }
        return _json({"version": run.version, "signature": run.signature, "systems": systems})
    shown, raw = [], []
    for doc in run.documents:
        cells = [run.cells[(s, doc)] for s in run.systems]
        scores = [None if c.score is None else float(c.score.value) for c in cells]
        marks = [STATUS_MARKS.get(c.status, "") for c in cells]
        shown.append((doc, *(percent(v) + m for v, m in zip(scores, marks, strict=True))))
        raw.append((doc, *scores))
    totals = [run.system_score(s) for s in run.systems]
    shown.append(("mean", *(percent(v) for v in totals)))
    raw.append(("mean", *totals))
    notes = []
    used = {c.status for c in run.cells.values()}
    if "parse_failure" in used:
        notes.append("†: parse failure (scored 0).")
    if "missing" in used:
        empty = scorer.scoring_version(run.version).missing_rule
        notes.append(f"‡: missing result ({empty}).")
    table = Table(
        title="Document scores (%)",
        headers=("document", *run.systems),
        shown=tuple(shown),
        raw=tuple(raw),
        align=("left", *("right" for _ in run.systems)),
        notes=tuple(notes),
    )
    return _emit([table], fmt, run.signature)


# -------------------------------------------------------------------------------------
# Leaderboard
# -------------------------------------------------------------------------------------


def render_leaderboard(board: Leaderboard, fmt: str) -> str:
    """Rank, system, score with its interval, micro P/R/F1, coverage, tie mark; breakdowns.

    Scores, intervals and P/R/F1 are percentages with 2 decimals; ``≈`` marks a system
    whose gap to the leader is not significant at ``board.alpha``.
    """
    _check(fmt)
    if fmt == "json":
        return _json(_plain(board))
    level = f"{100 * board.confidence:g}% CI (%)"
    headers = ("rank", "system", "score (%)", level, "P (%)", "R (%)", "F1 (%)",
               "scored", "parse failures", "missing", f"{TIE} leader")
    shown, raw = [], []
    for row in board.rows:
        micro = row.micro
        rates = (None, None, None) if micro is None else (micro.precision, micro.recall, micro.f1)
        cov = row.coverage
        shown.append((
            str(row.rank), row.system, percent(row.score),
            bracket(row.low, row.high, percent), *(percent(r) for r in rates),
            f"{cov.scored}/{cov.documents}", str(cov.parse_failures), str(cov.missing),
            TIE if row.tie else "",
        ))
        raw.append((
            row.rank, row.system, row.score, row.low, row.high, *rates,
            cov.scored, cov.parse_failures, cov.missing, row.tie,
        ))
    note = (
        f"{TIE}: gap to the leader not significant at {100 * board.alpha:g}% "
        f"(paired bootstrap over documents, {board.resamples} resamples, seed {board.seed})."
    )
    main = Table(
        title="",
        headers=headers,
        shown=tuple(shown),
        raw=tuple(raw),
        align=("right", "left", *("right" for _ in range(8)), "left"),
        notes=(note,),
    )
    if fmt == "csv":
        main = dataclasses.replace(main, headers=(
            "rank", "system", "score", "ci_low", "ci_high", "precision", "recall", "f1",
            "scored", "parse_failures", "missing", "tie_with_leader"))
    tables = [main]
    systems = [row.system for row in board.rows]
    for part in board.breakdowns:
        tables.append(Table(
            title=f"By {part.column} (score %)",
            headers=(part.column, "docs", *systems),
            shown=tuple(
                (g.value, str(g.documents), *(percent(g.scores[s]) for s in systems))
                for g in part.groups
            ),
            raw=tuple((g.value, g.documents, *(g.scores[s] for s in systems))
                      for g in part.groups),
            align=("left", *("right" for _ in range(len(systems) + 1))),
        ))
    return _emit(tables, fmt, board.signature)


# -------------------------------------------------------------------------------------
# Fields
# -------------------------------------------------------------------------------------


def render_fields(rows: Sequence[FieldRow], fmt: str, *, system: str, signature: str) -> str:
    """Per-field TP/FP/FN, P/R/F1 (percentages) and error categories, in the given order."""
    _check(fmt)
    if fmt == "json":
        fields = [r.to_dict() for r in rows]
        return _json({"system": system, "signature": signature, "fields": fields})
    table = Table(
        title=f"Fields of {system}",
        headers=("field", "TP", "FP", "FN", "P (%)", "R (%)", "F1 (%)", "errors"),
        shown=tuple(
            (r.field, str(r.counts.tp), str(r.counts.fp), str(r.counts.fn),
             percent(r.counts.precision), percent(r.counts.recall), percent(r.f1),
             _errors(r.errors))
            for r in rows
        ),
        raw=tuple(
            (r.field, r.counts.tp, r.counts.fp, r.counts.fn, r.counts.precision,
             r.counts.recall, r.f1, _errors(r.errors, ""))
            for r in rows
        ),
        align=("left", "right", "right", "right", "right", "right", "right", "left"),
    )
    return _emit([table], fmt, signature)


# -------------------------------------------------------------------------------------
# Diff
# -------------------------------------------------------------------------------------


def render_diff(result: Diff, fmt: str) -> str:
    """Overall change with its interval, regression decision, field changes, flipped documents.

    Text formats list the fields whose F1 changed (JSON lists every field); CSV holds the
    flipped documents (``document, base, head, change``).
    """
    _check(fmt)
    if fmt == "json":
        data = _plain(result)
        data["fields"] = None if result.fields is None else [
            dict(_plain(f), change=f.change) for f in result.fields]
        data["flipped"] = [dict(_plain(f), change=f.change) for f in result.flipped]
        data["change"]["significant"] = result.change.significant()
        return _json(data)
    change = result.change
    p_text = NONE if change.p_value is None else f"{change.p_value:.3f}"
    verdict = "significant" if change.significant() else "not significant"
    summary = (
        f"{result.base} {percent(result.base_score)} → {result.head} "
        f"{percent(result.head_score)}: change {signed(change.estimate)} points, "
        f"95% CI {bracket(change.low, change.high, signed)}, p = {p_text} ({verdict} at 5%)."
    )
    decision = (
        f"Regression: {'yes' if result.regression else 'no'} "
        f"(tolerance {100 * result.tolerance:g} points)."
    )
    flipped = Table(
        title="Flipped documents",
        headers=("document", "base (%)", "head (%)", "change (points)"),
        shown=tuple((f.document, percent(f.base), percent(f.head), signed(f.change))
                    for f in result.flipped),
        raw=tuple((f.document, f.base, f.head, f.change) for f in result.flipped),
        align=("left", "right", "right", "right"),
        notes=() if result.flipped else ("No document moved beyond the tolerance.",),
    )
    if fmt == "csv":
        return _emit([flipped], fmt, result.signature)
    tables = [Table(title="Summary", headers=(), shown=(), raw=(), align=(),
                    notes=(summary, decision))]
    if result.fields is not None:
        moved = [f for f in result.fields if f.base != f.head]
        same = len(result.fields) - len(moved)
        tables.append(Table(
            title="Field F1",
            headers=("field", "base F1 (%)", "head F1 (%)", "change (points)"),
            shown=tuple((f.field, percent(f.base), percent(f.head), signed(f.change))
                        for f in moved),
            raw=tuple((f.field, f.base, f.head, f.change) for f in moved),
            align=("left", "right", "right", "right"),
            notes=(f"{same} of {len(result.fields)} fields unchanged.",),
        ))
    tables.append(flipped)
    return _emit(tables, fmt, result.signature)


# -------------------------------------------------------------------------------------
# Explain
# -------------------------------------------------------------------------------------


def render_explain(explanation: Explanation, fmt: str) -> str:
    """Every leaf of one document for one system: address, label, result, verdict.

    Raw values print as compact JSON text; an absent or null value as ``–``. Raises
    ``ValueError`` for an unknown ``fmt``.
    """
    _check(fmt)
    e = explanation
    if fmt == "json":
        rows = [
            {"address": v.address, "field": v.field, "verdict": v.kind, "label": v.label,
             "result": v.result, "label_canon": v.label_canon, "result_canon": v.result_canon}
            for v in e.verdicts
        ]
        return _json({"document": e.document, "system": e.system, "status": e.status,
                      "accuracy": e.accuracy, "verdicts": rows, "signature": e.signature})
    table = Table(
        title=f"{e.document} · {e.system} · {e.status} · accuracy {percent(e.accuracy)}%",
        headers=("address", "label", "result", "verdict"),
        shown=tuple((v.address, json_value(v.label), json_value(v.result), v.kind)
                    for v in e.verdicts),
        raw=tuple((v.address, _json_or_empty(v.label), _json_or_empty(v.result), v.kind)
                  for v in e.verdicts),
        align=("left", "left", "left", "left"),
        notes=e.warnings,
    )
    return _emit([table], fmt, e.signature)


# -------------------------------------------------------------------------------------
# Emitters
# -------------------------------------------------------------------------------------


def _check(fmt: str) -> None:
    if fmt not in FORMATS:
        raise ValueError(f"format={fmt!r} is not one of {', '.join(map(repr, FORMATS))}")


def _emit(tables: Sequence[Table], fmt: str, signature: str) -> str:
    if fmt == "csv":
        return _csv(tables[0], signature)
    if fmt == "html":
        return _html(tables, signature)
    blocks = []
    for table in tables:
        parts = []
        if table.title:
            title = _text_cell(table.title, fmt)
            parts.append(f"### {title}" if fmt == "md" else title)
        if table.headers:
            cells = [[_text_cell(c, fmt) for c in row] for row in table.shown]
            heads = [_text_cell(h, fmt) for h in table.headers]
            parts.append(tabulate(cells, headers=heads, tablefmt=_TABLEFMT[fmt],
                                  colalign=table.align, disable_numparse=True))
        parts.extend(_text_cell(note, fmt) for note in table.notes)
        blocks.append("\n\n".join(parts))
    blocks.append(signature)
    return "\n\n".join(blocks) + "\n"


def _text_cell(value: str, fmt: str) -> str:
    """One line of visible text; in markdown, ``&<>`` as entities and ``|`` as ``\\|``."""
    text = _visible(" ".join(value.splitlines()) if value else value)
    if fmt == "md":
        return html.escape(text, quote=False).replace("|", "\\|")
    return text


# Control and bidi characters as visible escapes (one helper for every output).
_visible = hygiene.visible


def _html(tables: Sequence[Table], signature: str) -> str:
    """A whole page (doctype, UTF-8, a title), every text escaped."""
    parts = []
    for table in tables:
        if table.title:
            parts.append(f"<h3>{html.escape(_visible(table.title))}</h3>")
        if table.headers:
            cells = [[html.escape(_visible(c)) for c in row] for row in table.shown]
            heads = [html.escape(_visible(h)) for h in table.headers]
            parts.append(tabulate(cells, headers=heads, tablefmt="unsafehtml",
                                  colalign=table.align, disable_numparse=True))
        parts.extend(f"<p>{html.escape(_visible(note))}</p>" for note in table.notes)
    parts.append(f'<p class="signature"><code>{html.escape(signature)}</code></p>')
    title = next((t.title for t in tables if t.title), "leafscore")
    return ("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{html.escape(_visible(title))} · leafscore</title>\n</head>\n<body>\n"
            + "\n".join(parts) + "\n</body>\n</html>\n")


def _csv(table: Table, signature: str) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    # Machine output holds fractions in [0, 1]: the headers lose their display units.
    heads = [h.replace(" (%)", "").replace(" (points)", "") for h in table.headers]
    writer.writerow([hygiene.csv_cell(h) for h in heads])
    writer.writerows([_csv_cell(v) for v in row] for row in table.raw)
    out.write(f"# {signature}\n")
    return out.getvalue()


def _csv_cell(value: Any) -> Any:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return hygiene.csv_cell(value)  # names: never a formula; numbers are not str here


def _json(data: Any) -> str:
    return json.dumps(_finite(data), ensure_ascii=False, sort_keys=True, indent=2,
                      default=str) + "\n"


def _finite(data: Any) -> Any:
    """``NaN`` (an undefined estimate) becomes ``None``; containers become lists/dicts."""
    if isinstance(data, float) and math.isnan(data):
        return None
    if isinstance(data, dict):
        return {str(k): _finite(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [_finite(v) for v in data]
    return data


def _plain(obj: Any) -> Any:
    """A frozen dataclass as plain JSON data (mappings inside copied to dicts); a record
    with ``to_dict`` (``scorer.FieldCounts``: its ratios are properties) gives that."""
    if hasattr(obj, "to_dict"):
        return obj.to_dict()
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: _plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, Mapping):
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_plain(v) for v in obj]
    return obj


def _errors(errors: Any, empty: str = NONE) -> str:
    return ", ".join(f"{kind} {n}" for kind, n in sorted(errors.items())) or empty


def _json_or_empty(value: Any) -> str:
    return "" if value is None else json.dumps(value, ensure_ascii=False, sort_keys=True,
                                                default=str)
