"""Text renderings: score matrix, leaderboard, fields, diff and explain views.

Every renderer takes analysis data (or a ``Run``) and a format, and returns one string:

- ``table``: plain text (tabulate ``simple``), for a terminal;
- ``md``: GitHub markdown (tabulate ``pipe``), every value inert
  (``hygiene.markdown_text``: ``&<>`` as HTML entities; ``|``, link, image, emphasis,
  code and autolink syntax escaped), so no value can open a tag, make a link or an
  image, or break a table;
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
from typing import TYPE_CHECKING, Any

from leafscore import hygiene, stats

if TYPE_CHECKING:  # the renderings' inputs; ``score`` renders a matrix and loads none
    from leafscore.diff import Diff
    from leafscore.explain import Explanation
    from leafscore.fields import FieldRow
    from leafscore.leaderboard import Leaderboard
    from leafscore.power import PowerAnalysis
    from leafscore.suspects import Suspects

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
    text = f"{100.0 * value:+.2f}"
    return "+0.00" if text == "-0.00" else text


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


def render_matrix(run: Any, fmt: str, *, warnings: Sequence[str] | None = None) -> str:
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
        return _json(warnings, {"version": run.version, "signature": run.signature,
                                "systems": systems})
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
        # 1.0 scores a parse failure against a label with nothing to score as DocuBench
        # does (not 0): the note says so only where a table shows one
        zero = all(c.score is None or float(c.score.value) == 0.0
                   for c in run.cells.values() if c.status == "parse_failure")
        notes.append("†: parse failure (scored 0)." if zero else
                     "†: parse failure (scored 0 unless its label holds nothing to score).")
    if "missing" in used:
        empty = run.record.missing_rule
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


def render_leaderboard(board: Leaderboard, fmt: str, *,
                       warnings: Sequence[str] | None = None) -> str:
    """Rank, system, score with its interval, the gap to the leader with its interval,
    adjusted p-value and paired documents, the tie decision that follows from them,
    micro P/R/F1 and coverage; breakdowns.

    Scores, intervals and P/R/F1 are percentages with 2 decimals, gaps signed points;
    ``≈`` marks a system whose gap to the leader is not significant at ``board.alpha``,
    an empty cell one that is behind, ``–`` a row without a decision (its reason in a
    note), ``*`` a decision within Monte Carlo error of alpha, ``(few)`` a system scored
    on far fewer documents than the others.
    """
    _check(fmt)
    if fmt == "json":
        data = dict(_plain(board), warning=board.warning)
        if board.costs is None:  # a benchmark without costs: the JSON it always had
            del data["costs"]
        return _json(warnings, data)
    level = f"{100 * board.confidence:g}%"
    p_head = "p (Holm)" if board.correction == "holm" else "p"
    headers = ("rank", "system", "score (%)", f"{level} CI (%)", "gap (points)",
               f"gap {level} CI", p_head, "paired", f"{TIE} leader", "P (%)", "R (%)",
               "F1 (%)", "scored", "parse failures", "missing")
    shown, raw = [], []
    for row in board.rows:
        micro = row.micro
        rates = (None, None, None) if micro is None else (micro.precision, micro.recall, micro.f1)
        cov = row.coverage
        gap = row.gap
        behind = _behind(gap)
        gap_cells = (signed(behind[0]), bracket(behind[1], behind[2], signed))
        shown.append((
            str(row.rank), row.system, percent(row.score),
            bracket(row.low, row.high, percent), *gap_cells,
            _p_text(row.p_adjusted), "" if row.rank == 1 else str(row.paired),
            _decision_mark(row), *(percent(r) for r in rates),
            f"{cov.scored}/{cov.documents}" + (" (few)" if row.few_documents else ""),
            str(cov.parse_failures), str(cov.missing),
        ))
        raw.append((
            row.rank, row.system, row.score, row.low, row.high, *behind,
            None if gap is None else gap.p_value, row.p_adjusted,
            None if row.rank == 1 else row.paired, row.decision, row.tie, row.near_alpha,
            *rates, cov.scored, cov.parse_failures, cov.missing, row.few_documents,
        ))
    main = Table(
        title="",
        headers=headers,
        shown=tuple(shown),
        raw=tuple(raw),
        align=("right", "left", "right", "right", "right", "right", "right", "right",
               "left", *("right" for _ in range(6))),
        notes=leaderboard_notes(board),
    )
    if fmt == "csv":
        main = dataclasses.replace(main, headers=(
            "rank", "system", "score", "ci_low", "ci_high", "gap", "gap_low", "gap_high",
            "p_value", "p_adjusted", "paired", "decision", "tie_with_leader", "near_alpha",
            "precision", "recall", "f1", "scored", "parse_failures", "missing",
            "few_documents"))
    if fmt == "csv" and board.costs is not None:
        main = cost_csv_columns(main, board.costs)
    tables = [main]
    if board.costs is not None:
        tables.append(cost_table(board.costs, board.confidence))
    if board.errors is not None:
        tables.append(_errors_table(board))
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


def _behind(gap: stats.Difference | None) -> tuple[float | None, float | None, float | None]:
    """A row's gap as system minus leader (estimate, low, high), ``0.0 - x`` so that a
    zero bound is ``0.0``, never ``-0.0``; ``None`` where undefined."""
    if gap is None:
        return None, None, None

    def flip(x: float | None) -> float | None:
        return None if x is None else 0.0 - x

    return flip(gap.estimate), flip(gap.high), flip(gap.low)


def _p_text(p: float | None) -> str:
    """A p-value with 3 significant digits (``0.0712``, ``0.000100``), ``–`` when None."""
    return NONE if p is None else f"{p:.3g}"


def _decision_mark(row: Any) -> str:
    """``≈`` (tie), empty (behind or leader), ``–`` (no decision); ``*`` when near alpha."""
    mark = {"tie": TIE, "none": NONE}.get(row.decision, "")
    return mark + ("*" if row.near_alpha else "")


def leaderboard_notes(board: Leaderboard) -> tuple[str, ...]:
    """The lines under the leaderboard: how the gaps are tested and what ``≈`` follows
    from, the documents the comparisons rest on, every row without a decision and why,
    flags, and the warnings."""
    compared = [row.paired for row in board.rows[1:] if row.gap is not None]
    tested = [row for row in board.rows[1:] if row.gap is not None and row.gap.test]
    if len(tested) > 1:
        how = (f"Holm-adjusted for {len(tested)} comparisons with the leader"
               if board.correction == "holm" else "not corrected (--no-correction)")
    else:
        how = "one comparison, no correction needed" if tested else "no comparison"
    exact = sum(1 for row in tested if row.gap.test.exact)
    patterns = (f"{board.permutations} random sign patterns, seed {board.seed}"
                if exact < len(tested) else "")
    if exact:
        patterns = (f"exact over every sign pattern for {exact} comparison(s)"
                    + (f", {patterns} for the rest" if patterns else ""))
    low, high = (min(compared), max(compared)) if compared else (board.documents,) * 2
    rests = f"{low}" if low == high else f"{low} to {high}"
    level = f"{100 * board.confidence:g}%"
    lines = [
        f"Gap: system minus leader, in points. p: two-sided paired sign-flip permutation "
        f"test of the per-document differences on the paired documents ({patterns}), "
        f"{how}. {TIE}: p >= {board.alpha:g}, the gap is not significant at "
        f"{100 * board.alpha:g}%; empty: it is; {NONE}: no decision (below).",
        f"Intervals: {level} bootstrap percentile intervals over documents, "
        f"{board.resamples} resamples, seed {board.seed} (paired draws for the gap). "
        f"Gaps rest on {rests} paired documents (of {board.documents}).",
    ]
    lines.extend(f"{NONE} {row.system}: no decision: {row.reason}."
                 for row in board.rows if row.decision == "none")
    if any(row.near_alpha for row in board.rows):
        lines.append(f"*: within Monte Carlo error of {100 * board.alpha:g}% (3 standard "
                     "errors): another seed may change this decision; raise --permutations.")
    if any(row.few_documents for row in board.rows):
        lines.append("(few): scored on fewer than half as many documents as the "
                     "best-covered system; its score and rank rest on those documents only.")
    lines.extend(board.warnings)
    return tuple(lines)


#: CSV columns of the cost figures, appended to the leaderboard's rows when present.
COST_CSV_COLUMNS: tuple[str, ...] = (
    "cost_usd", "cost_low", "cost_high", "cost_documents", "cost_from", "latency_median_s",
    "latency_p90_s", "latency_documents", "input_tokens", "output_tokens",
    "token_documents", "cost_frontier", "latency_frontier")


def _cost_raw(c: Any) -> tuple[Any, ...]:
    return (c.cost, c.cost_low, c.cost_high, c.cost_documents, c.cost_from,
            c.latency_median, c.latency_p90, c.latency_documents, c.input_tokens,
            c.output_tokens, c.token_documents, c.cost_frontier, c.latency_frontier)


def cost_csv_columns(main: Table, costs: Sequence[Any]) -> Table:
    """The leaderboard's CSV table with :data:`COST_CSV_COLUMNS` appended to each row
    (USD per document, seconds, tokens per document; empty where absent)."""
    return dataclasses.replace(
        main, headers=(*main.headers, *COST_CSV_COLUMNS),
        raw=tuple((*row, *_cost_raw(c)) for row, c in zip(main.raw, costs, strict=True)))


def _usd(value: float | None) -> str:
    """USD with 4 decimals (``0.1031``), ``–`` when None."""
    return NONE if value is None else f"{value:.4f}"


def _seconds(value: float | None) -> str:
    return NONE if value is None else f"{value:.2f}"


def _tokens(value: float | None) -> str:
    return NONE if value is None else f"{value:.0f}"


def _mark(on: bool | None) -> str:
    return {True: "yes", False: "", None: NONE}[on]


def cost_table(costs: Sequence[Any], confidence: float) -> Table:
    """Cost, latency and tokens per system in rank order (``economy.SystemCost``), with
    the frontier marks and the line that says what the frontier means. Only the columns
    some system has a value for are shown."""
    level = f"{100 * confidence:g}%"
    has_cost = any(c.cost_documents for c in costs)
    has_latency = any(c.latency_documents for c in costs)
    has_tokens = any(c.token_documents for c in costs)
    columns: list[tuple[str, str, Callable[[Any], str], Callable[[Any], Any]]] = [
        ("system", "left", lambda c: c.system, lambda c: c.system)]
    if has_cost:
        columns += [
            ("cost/doc (USD)", "right", lambda c: _usd(c.cost), lambda c: c.cost),
            (f"cost {level} CI", "right", lambda c: bracket(c.cost_low, c.cost_high, _usd),
             lambda c: c.cost_low),
            ("with cost", "right", lambda c: f"{c.cost_documents}/{c.documents}",
             lambda c: c.cost_documents),
            ("cost frontier", "left", lambda c: _mark(c.cost_frontier),
             lambda c: c.cost_frontier)]
    if has_latency:
        columns += [
            ("latency p50 (s)", "right", lambda c: _seconds(c.latency_median),
             lambda c: c.latency_median),
            ("latency p90 (s)", "right", lambda c: _seconds(c.latency_p90),
             lambda c: c.latency_p90),
            ("with latency", "right", lambda c: f"{c.latency_documents}/{c.documents}",
             lambda c: c.latency_documents),
            ("latency frontier", "left", lambda c: _mark(c.latency_frontier),
             lambda c: c.latency_frontier)]
    if has_tokens:
        columns += [
            ("tokens in/doc", "right", lambda c: _tokens(c.input_tokens),
             lambda c: c.input_tokens),
            ("tokens out/doc", "right", lambda c: _tokens(c.output_tokens),
             lambda c: c.output_tokens)]
    priced = sorted({c.system for c in costs if c.cost_from in ("tokens", "mixed")})
    from leafscore.economy import FIGURES_NOTE, FRONTIER_NOTE

    notes = [FRONTIER_NOTE, FIGURES_NOTE]
    if priced:
        notes.append("Cost from tokens at the prices of benchmark.toml: "
                     + ", ".join(priced) + ".")
    if has_tokens:
        notes.append("Tokens: mean per document as the envelopes report them "
                      "(meta.usage); a system with tokens and no price has no cost.")
    return Table(
        title="Cost and latency",
        headers=tuple(c[0] for c in columns),
        shown=tuple(tuple(c[2](row) for c in columns) for row in costs),
        raw=tuple(tuple(c[3](row) for c in columns) for row in costs),
        align=tuple(c[1] for c in columns),
        notes=tuple(notes),
    )


def _errors_table(board: Leaderboard) -> Table:
    """Error shares and schema validity per system, in rank order."""
    from leafscore.leaderboard import ERROR_KINDS

    validity = {v.system: v for v in board.validity or ()}
    shown, raw = [], []
    for row in board.errors or ():
        shares = row.shares or {}
        valid = validity.get(row.system)
        share = None if valid is None else valid.share
        counted = "" if valid is None else f" ({valid.valid}/{valid.documents})"
        shown.append((row.system, str(row.verdicts),
                       *(percent(shares.get(k)) for k in ERROR_KINDS),
                       percent(share) + counted))
        raw.append((row.system, row.verdicts, *(shares.get(k) for k in ERROR_KINDS), share))
    return Table(
        title="Error shares (% of scored verdicts) and schema validity",
        headers=("system", "verdicts", *(f"{k} (%)" for k in ERROR_KINDS),
                 "schema-valid (%)"),
        shown=tuple(shown), raw=tuple(raw),
        align=("left", *("right" for _ in range(len(ERROR_KINDS) + 2))),
        notes=(
            "Shares of every scored verdict (all but correct_absence, summed over "
            "documents); with correct they add up to 100. Version 1.0 keeps no verdicts (–).",
            "Schema-valid: results that validate against their schema (its own draft, "
            "formats checked, $ref inside the schema only); a missing or unparsable result "
            "counts as invalid. Reported apart from the score; it never changes it.",
        ),
    )


# -------------------------------------------------------------------------------------
# Power and suspects
# -------------------------------------------------------------------------------------


def render_power(analysis: PowerAnalysis, fmt: str, *,
                 warnings: Sequence[str] | None = None) -> str:
    """The benchmark's minimum detectable difference and documents needed, then one row
    per pair of systems (differences in points in text, fractions in json/csv)."""
    _check(fmt)
    a = analysis
    if fmt == "json":
        return _json(warnings, dict(_plain(a),
                                    warning=stats.small_sample_warning(a.documents)))
    z_text = (f"at {100 * a.power:g}% power and {100 * a.alpha:g}% significance "
              f"(two-sided)")
    sd = NONE if a.sd is None else f"{100 * a.sd:.2f}"
    mdd = "undefined" if a.mdd is None else f"{_points(a.mdd)} points"
    lines = [
        f"On {a.documents} documents, {z_text}: the smallest detectable difference is "
        f"{mdd} (sd of per-document differences {sd} points, {a.sd_source}).",
        f"Documents needed to detect {100 * a.delta:g} point(s): "
        f"{'undefined' if a.needed is None else a.needed}.",
        "Headline: " + ("the sd given (--sd)." if a.sd_source == "given" else
                        "the median sd of the adjacent-rank pairs, the comparisons a "
                        "ranking rests on.")
        + ("" if a.sd_all_pairs is None else
           f" Over all {a.pairs_all} pairs of systems: sd {100 * a.sd_all_pairs:.2f} "
           f"points, MDD {_points(a.mdd_all_pairs)} points, "
           f"{number(a.needed_all_pairs)} documents for {100 * a.delta:g} point(s).")
        + " Each listed pair's own figures are in the table below.",
        "Formula (normal approximation of the paired t-test; Chow, Shao & Wang 2008, "
        "§3.1): MDD = (z_{1-α/2} + z_{1-β}) σ_d / √n, n = ((z_{1-α/2} + z_{1-β}) σ_d / δ)².",
        f"Simulated power: the pair's differences centred on its MDD, {a.resamples} "
        f"bootstrap draws of its documents, each tested as the formula does; near "
        f"{a.power:g} when the approximation holds.",
    ]
    warning = stats.small_sample_warning(a.documents)
    if warning:
        lines.append(warning)
    summary = Table(title="Power", headers=(), shown=(), raw=(), align=(), notes=tuple(lines))
    pairs = Table(
        title="Pairs of systems",
        headers=("a", "b", "pair", "docs", "a - b (points)", "sd (points)", "MDD (points)",
                 f"docs for {100 * a.delta:g} pt", "simulated power"),
        shown=tuple((p.a, p.b, p.relation, str(p.documents), signed(p.mean_difference),
                     _points(p.sd), "undefined" if p.undefined else _points(p.mdd),
                     "undefined" if p.undefined else number(p.needed),
                     NONE if p.simulated_power is None else f"{p.simulated_power:.3f}")
                    for p in a.pairs),
        raw=tuple((p.a, p.b, p.relation, p.documents, p.mean_difference, p.sd, p.mdd,
                   p.needed, p.simulated_power) for p in a.pairs),
        align=("left", "left", "left", *("right" for _ in range(6))),
    )
    if fmt == "csv":
        return _emit([pairs], fmt, a.signature)
    return _emit([summary, pairs], fmt, a.signature)


def render_suspects(found: Suspects, fmt: str, *,
                    warnings: Sequence[str] | None = None) -> str:
    """The review queue: one row per pattern (count, most agreeing systems, documents,
    addresses, label value, agreed canonical value, raw values as written with their
    systems), then the disagreements and the unpaired label items. CSV holds the patterns;
    JSON every detail (``patterns`` with their leaves, ``suspects`` one per leaf,
    ``disagreements``, ``unpaired``)."""
    _check(fmt)
    if fmt == "json":
        return _json(warnings, {
            "min_agree": found.min_agree, "systems": found.systems,
            "disagree": found.disagree, "signature": found.signature,
            "suspects": [_suspect_data(s) for s in found.suspects],
            "patterns": [dict(field=p.field, label=p.label, label_canon=p.label_canon,
                              value=p.value, compared=p.compared, count=p.count,
                              agree=p.agree, documents=list(p.documents),
                              written=_written_data(p.written),
                              leaves=[_suspect_data(s) for s in p.leaves])
                         for p in found.patterns],
            "disagreements": [dict(_plain(d), disagree=d.disagree)
                              for d in found.disagreements],
            "unpaired": [dict(_plain(u), unpaired=u.unpaired) for u in found.unpaired]})
    patterns = Table(
        title=f"Suspect labels: at least {found.min_agree} of {found.systems} systems agree "
              "on another value",
        headers=("agree", "leaves", "document", "address", "label", "agreed value",
                 "written (systems)"),
        shown=tuple((f"{p.agree}/{p.leaves[0].of}", str(p.count), ", ".join(p.documents),
                     _places(p), json_value(p.label), json_value(p.value),
                     _written_text(p.written)) for p in found.patterns),
        raw=tuple((p.agree, p.count, " ".join(p.documents), _places(p),
                   _json_or_empty(p.label), _json_or_empty(p.value),
                   _written_text(p.written)) for p in found.patterns),
        align=("right", "right", "left", "left", "left", "left", "left"),
        notes=(f"{len(found.patterns)} entries for {len(found.suspects)} suspect label "
               "leaf/leaves (leaves with one field path, label value and agreed value are "
               "one entry). The agreed value is canonical (as the metric compares it); "
               "'written' is what the systems wrote. Check each against the document.",),
    )
    disputed = Table(
        title=f"Disputed labels: at least {found.disagree} of {found.systems} systems give "
              "other values, not one agreed value",
        headers=("disagree", "document", "address", "label", "written -> canonical (system)"),
        shown=tuple((f"{d.disagree}/{d.of}", d.document, d.address, json_value(d.label),
                     "; ".join(f"{json_value(r)} -> {json_value(c)} ({s})" for s, r, c in
                               zip(d.systems, d.results, d.canons, strict=True)))
                    for d in found.disagreements),
        raw=(), align=("right", "left", "left", "left", "left"),
        notes=(f"{len(found.disagreements)} disputed label leaf/leaves.",),
    )
    unpaired = Table(
        title=f"Unpaired label items: at least {found.disagree} of {found.systems} systems "
              "pair no result item with them",
        headers=("unpaired", "document", "item", "label", "systems"),
        shown=tuple((f"{u.unpaired}/{u.of}", u.document, u.item,
                     json_value({a[len(u.item):].lstrip("."): v for a, v in u.label}),
                     ", ".join(u.systems)) for u in found.unpaired),
        raw=(), align=("right", "left", "left", "left", "left"),
        notes=(f"{len(found.unpaired)} unpaired label item(s).",),
    )
    return _emit([patterns, disputed, unpaired], fmt, found.signature)


def _suspect_data(s: Any) -> dict[str, Any]:
    return dict(_plain(s), agree=s.agree, written=_written_data(s.written))


def _written_data(written: Any) -> list[dict[str, Any]]:
    return [{"result": raw, "systems": list(systems)} for raw, systems in written]


def _written_text(written: Any) -> str:
    return "; ".join(f"{json_value(raw)} ({', '.join(systems)})" for raw, systems in written)


def _places(pattern: Any) -> str:
    """A pattern's addresses: one leaf's address, else per document the field path with
    the indices of each leaf (``tripRows[1-8,10].nights``) when they have one index each."""
    if pattern.count == 1:
        return pattern.leaves[0].address
    out = []
    for document in pattern.documents:
        addresses = [s.address for s in pattern.leaves if s.document == document]
        indices = [a[a.find("[") + 1:a.find("]")] for a in addresses]
        shape = pattern.field.count("[]") == 1 and all(i.isdigit() for i in indices)
        text = (pattern.field.replace("[]", f"[{_ranges([int(i) for i in indices])}]")
                if shape else ", ".join(addresses))
        out.append(text if len(pattern.documents) == 1 else f"{document}: {text}")
    return "; ".join(out)


def _ranges(numbers: list[int]) -> str:
    """``[1, 2, 3, 5]`` -> ``"1-3,5"``."""
    parts: list[tuple[int, int]] = []
    for n in sorted(numbers):
        if parts and parts[-1][1] == n - 1:
            parts[-1] = (parts[-1][0], n)
        else:
            parts.append((n, n))
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in parts)


def _points(value: float | None) -> str:
    """A non-negative difference in [0, 1] as points with 2 decimals."""
    return NONE if value is None else f"{100.0 * value:.2f}"


# -------------------------------------------------------------------------------------
# Fields
# -------------------------------------------------------------------------------------


def render_fields(rows: Sequence[FieldRow], fmt: str, *, system: str, signature: str,
                  warnings: Sequence[str] | None = None) -> str:
    """Per-field TP/FP/FN, P/R/F1 (percentages) and error categories, in the given order."""
    _check(fmt)
    if fmt == "json":
        fields = [r.to_dict() for r in rows]
        return _json(warnings, {"system": system, "signature": signature, "fields": fields})
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


def render_diff(result: Diff, fmt: str, *, warnings: Sequence[str] | None = None) -> str:
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
        data["change"]["significant"] = result.change.significant(result.alpha)
        data["warning"] = result.warning
        return _json(warnings, data)
    change = result.change
    p_text = NONE if change.p_value is None else f"{change.p_value:.3g}"
    alpha = result.alpha
    verdict = ("significant" if change.significant(alpha) else "not significant")
    test = change.test
    how = ("" if test is None else
           "paired sign-flip test, exact; " if test.exact else
           f"paired sign-flip test, {test.patterns} random sign patterns; ")
    summary = (
        f"{result.base} {percent(result.base_score)} → {result.head} "
        f"{percent(result.head_score)}: change {signed(change.estimate)} points, "
        f"95% bootstrap percentile interval {bracket(change.low, change.high, signed)}, "
        f"p = {p_text} ({how}{verdict} at {100 * alpha:g}%), "
        f"on {result.documents} documents scored on both sides."
    )
    tolerance = f"tolerance {100 * result.tolerance:g} points"
    if result.regression:
        why = f"a drop beyond the {tolerance}, significant at {100 * alpha:g}%"
    elif result.drop:
        why = (f"a drop beyond the {tolerance}, but not significant at {100 * alpha:g}% "
               f"(p = {p_text}); --fail-on-any-drop fails on it")
    else:
        why = f"no drop beyond the {tolerance}"
    decision = f"Regression: {'yes' if result.regression else 'no'} ({why})."
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
    warning = (result.warning,) if result.warning else ()
    tables = [Table(title="Summary", headers=(), shown=(), raw=(), align=(),
                    notes=(summary, *warning, decision))]
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


def render_explain(explanation: Explanation, fmt: str, *,
                   warnings: Sequence[str] | None = None) -> str:
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
        return _json(warnings, {"document": e.document, "system": e.system, "status": e.status,
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
    from tabulate import tabulate  # loaded for text tables only: 8 ms of a json run

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
        parts.extend(_text_cell(note, fmt, line_start=True) for note in table.notes)
        blocks.append("\n\n".join(parts))
    blocks.append(signature)
    return "\n\n".join(blocks) + "\n"


def _text_cell(value: str, fmt: str, *, line_start: bool = False) -> str:
    """One line of visible text; in markdown, inert (``hygiene.markdown_text``: ``&<>``
    as entities, ``|``, link, image, emphasis, code and autolink syntax escaped; a note,
    ``line_start``, opens no heading, quote or list)."""
    text = _visible(" ".join(value.splitlines()) if value else value)
    if fmt == "md":
        return hygiene.markdown_text(text, line_start=line_start)
    return text


# Control and bidi characters as visible escapes (one helper for every output).
_visible = hygiene.visible


def _html(tables: Sequence[Table], signature: str) -> str:
    """A whole page (doctype, UTF-8, a title), every text escaped."""
    from tabulate import tabulate  # loaded for tables only (see ``_emit``)

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


def _json(warnings: Sequence[str] | None, data: Mapping[str, Any]) -> str:
    """``data`` as JSON text, sorted keys, two-space indents; with ``warnings`` (a JSON
    output of a command), a ``"warnings"`` member holding them, a line each."""
    if warnings is not None:
        data = {**data, "warnings": list(warnings)}
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
