"""Leaderboard data: ranks, intervals, ties with the leader, coverage, breakdowns.

Data, not text (``render`` turns it into tables). Everything is read from a ``Run``'s
stored document scores; nothing is rescored.

- **Rank** by macro accuracy (``Run.system_score``) descending, ties broken by system
  name; a system with no scored document ranks last.
- **Interval**: percentile bootstrap over documents, the same draws for every system
  (``stats.bootstrap_macro``).
- **Tie with the leader**: a system whose paired-bootstrap difference to the leader is
  not significant at ``alpha`` (``stats.paired_difference``); the leader is never marked.
  With several systems compared with the leader, the p-values are Holm-adjusted
  (``stats.holm``, family-wise error rate ``alpha`` over the k - 1 comparisons) unless
  ``correction="none"``. Each gap says on how many documents it rests (both scored).
- **Micro P/R/F1**: from TP/FP/FN summed over every field of every document (spec
  scoring-2.0 §4); ``None`` under version 1.0, which keeps no verdicts.
- **Coverage**: documents in the run, scored, parse failures, missing results.
- **Error shares** (version 2.0): each verdict kind's share of a system's scored verdicts
  (every verdict but ``correct_absence``, summed over documents), ``correct`` included,
  so the shares add up to 1.
- **Breakdowns**: the macro accuracy of each system on the documents sharing a metadata
  value; a list-valued column counts a document under each of its values (once, even
  if a value repeats).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import scorer
from leafscore import stats
from leafscore.signature import with_bootstrap


@dataclass(frozen=True)
class Coverage:
    """Documents of one system by outcome (ints).

    ``scored + parse_failures + missing == documents``.
    """

    documents: int
    scored: int
    parse_failures: int
    missing: int


@dataclass(frozen=True)
class Row:
    """One system on the leaderboard.

    ``score`` is macro accuracy in [0, 1] (``None`` when no document is scored);
    ``low``/``high`` its percentile interval; ``gap`` the paired difference
    ``leader - system`` (``None`` for the leader and for unscored systems) with its raw
    p-value, ``p_adjusted`` that p-value after the board's correction (Holm, or the raw
    one); ``tie`` True when ``p_adjusted >= alpha``; ``paired`` the documents both the
    leader and this system are scored on (the gap rests on them; 0 for the leader);
    ``micro`` is ``None`` under version 1.0.
    """

    rank: int
    system: str
    score: float | None
    low: float | None
    high: float | None
    gap: stats.Difference | None
    tie: bool
    micro: scorer.FieldCounts | None
    coverage: Coverage
    p_adjusted: float | None = None
    paired: int = 0


#: Verdict kinds shown as error shares, in column order (``correct`` first).
ERROR_KINDS: tuple[str, ...] = ("correct", "wrong_value", "missing", "hallucinated",
                                "extra_item", "type_error", "parse_failure")


@dataclass(frozen=True)
class ErrorShares:
    """Verdicts of one system by kind, summed over its documents (version 2.0).

    ``verdicts``: scored verdicts (every kind but ``correct_absence``); ``counts``: kind
    -> count for each of ``ERROR_KINDS``; ``shares``: kind -> count / verdicts in
    [0, 1], adding up to 1 (``None`` when there is no scored verdict, or under 1.0,
    which keeps no verdicts, with ``verdicts`` 0 and empty ``counts``).
    """

    system: str
    verdicts: int
    counts: Mapping[str, int]
    shares: Mapping[str, float] | None


@dataclass(frozen=True)
class Group:
    """Documents sharing one value of a metadata column.

    ``value`` is the value as text; ``documents`` how many documents carry it;
    ``scores`` maps system -> macro accuracy over its scored documents in the group
    (``None`` when none is scored).
    """

    value: str
    documents: int
    scores: Mapping[str, float | None]


@dataclass(frozen=True)
class Breakdown:
    """One metadata column: its groups, sorted by value."""

    column: str
    groups: tuple[Group, ...]


@dataclass(frozen=True)
class Leaderboard:
    """Everything a leaderboard shows; ``rows`` in rank order.

    ``signature`` is the run's, with ``bs``/``seed`` set to the bootstrap actually used.
    """

    version: str
    rows: tuple[Row, ...]
    breakdowns: tuple[Breakdown, ...]
    resamples: int
    seed: int
    confidence: float
    alpha: float
    signature: str
    correction: str = "holm"
    documents: int = 0
    errors: tuple[ErrorShares, ...] | None = None
    validity: tuple[Any, ...] | None = None

    @property
    def warning(self) -> str | None:
        """The small-sample warning line (``stats.small_sample_warning``), or None."""
        return stats.small_sample_warning(self.documents)


def ranking(run: Any) -> tuple[str, ...]:
    """Systems best first: macro accuracy descending, then name; unscored systems last."""
    scores = {system: run.system_score(system) for system in run.systems}
    return tuple(
        sorted(run.systems, key=lambda s: (scores[s] is None, -(scores[s] or 0.0), s))
    )


def coverage(run: Any, system: str) -> Coverage:
    """Count the cells of ``system`` by status."""
    statuses = [run.cells[(system, doc)].status for doc in run.documents]
    return Coverage(
        documents=len(statuses),
        scored=statuses.count("scored"),
        parse_failures=statuses.count("parse_failure"),
        missing=statuses.count("missing"),
    )


def micro(run: Any, system: str) -> scorer.FieldCounts | None:
    """TP/FP/FN of ``system`` summed over fields and documents, with P/R/F1.

    ``None`` when any document score lacks per-field counts (version 1.0).
    """
    scores = [run.cells[(system, doc)].score for doc in run.documents]
    if any(getattr(score, "fields", None) is None for score in scores):
        return None
    return sum((f for score in scores for f in score.fields.values()), scorer.FieldCounts())


def error_shares(run: Any, system: str) -> ErrorShares:
    """Verdict counts and shares of ``system`` (see the module); never raises for 1.0."""
    counts = dict.fromkeys(scorer.VERDICT_KINDS, 0)
    for doc in run.documents:
        score = run.cells[(system, doc)].score
        kept = getattr(score, "counts", None)
        if kept is None:  # 1.0: no verdicts (or a missing result left out)
            return ErrorShares(system, 0, {}, None)
        for kind, n in kept.items():
            counts[kind] += n
    total = sum(counts.values()) - counts["correct_absence"]
    shown = {kind: counts[kind] for kind in ERROR_KINDS}
    shares = {kind: n / total for kind, n in shown.items()} if total else None
    return ErrorShares(system, total, shown, shares)


def metadata_columns(metadata: Mapping[str, Mapping[str, Any]]) -> tuple[str, ...]:
    """Every column of ``Run.metadata``, in first-seen order (document id order, then the
    order of each record, which follows the benchmark's ``breakdowns`` setting)."""
    seen: dict[str, None] = {}
    for doc in sorted(metadata):
        seen.update(dict.fromkeys(metadata[doc]))
    return tuple(seen)


def breakdown(run: Any, column: str, systems: Sequence[str]) -> Breakdown:
    """Macro accuracy of each system per value of ``column``.

    Values are sorted, numbers numerically before text; ``null`` values and documents
    without the column are left out. Each system's mean is over its scored documents of
    the group (``None`` if it has none), with the version's arithmetic (``Run.mean``).
    """
    members: dict[str, list[int]] = {}
    order: dict[str, tuple[int, float, str]] = {}
    for index, doc in enumerate(run.documents):
        row = run.metadata.get(doc, {})
        values = row.get(column)
        for value in values if isinstance(values, list) else [values]:
            if value is None:
                continue
            label = _text(value)
            members.setdefault(label, []).append(index)
            order[label] = _sort_key(value, label)
    all_scores = {system: run.document_scores(system) for system in systems}
    groups = []
    for label in sorted(members, key=order.__getitem__):
        indices = sorted(set(members[label]))
        groups.append(
            Group(
                value=label,
                documents=len(indices),
                scores={s: _mean(run, (all_scores[s][i] for i in indices)) for s in systems},
            )
        )
    return Breakdown(column, tuple(groups))


def leaderboard(
    run: Any,
    *,
    resamples: int = stats.DEFAULT_RESAMPLES,
    seed: int = stats.DEFAULT_SEED,
    confidence: float = stats.DEFAULT_CONFIDENCE,
    alpha: float = 0.05,
    columns: Sequence[str] | None = None,
    correction: str = "holm",
    errors: bool = False,
    validity: Sequence[Any] | None = None,
) -> Leaderboard:
    """Build the leaderboard of ``run``.

    Parameters
    ----------
    run : leafscore.run.Run
        At least one system and one document.
    resamples, seed, confidence
        Bootstrap settings (``stats.bootstrap_macro``); recorded in the signature.
    alpha : float, default=0.05
        Significance level of the tie-with-leader mark.
    columns : sequence of str, optional
        Metadata columns to break down by; default every column of ``run.metadata``
        (which holds the benchmark's breakdown columns), in ``metadata_columns`` order.
    correction : {"holm", "none"}, default="holm"
        How the p-values of the k - 1 gaps to the leader are corrected before the tie
        mark is decided (``stats.holm``), or ``"none"`` for the raw tests.
    errors : bool, default=False
        Also compute :class:`ErrorShares` for every system (``Leaderboard.errors``).
    validity : sequence of validity.Validity, optional
        Schema validity per system (``validity.schema_validity``), carried to the board
        as it is, in rank order; it never changes a score or a rank.

    Raises
    ------
    ValueError
        If the run has no system or no document, a bootstrap setting is invalid, or
        ``correction`` is unknown.
    """
    if not run.systems or not run.documents:
        raise ValueError("a leaderboard needs at least one system and one document")
    if correction not in ("holm", "none"):
        raise ValueError(f"correction={correction!r} is not 'holm' or 'none'")
    order = ranking(run)
    matrix = stats.score_matrix([run.document_scores(s) for s in order])
    samples = stats.bootstrap_macro(matrix, resamples=resamples, seed=seed)
    scores = [run.system_score(s) for s in order]
    bounds: list[stats.Interval | None] = []
    gaps: list[stats.Difference | None] = []
    for index, score in enumerate(scores):
        bounds.append(None if score is None else
                      stats.interval(samples[index], score, confidence=confidence))
        gaps.append(None if score is None or index == 0 else stats.paired_difference(
            samples[0], samples[index], scores[0] - score, confidence=confidence))
    raw = [None if gap is None else gap.p_value for gap in gaps]
    adjusted = stats.holm(raw) if correction == "holm" else tuple(raw)
    leader_scores = run.document_scores(order[0])
    rows = []
    for index, system in enumerate(order):
        gap, p = gaps[index], adjusted[index]
        paired = 0 if index == 0 else int(stats.paired_differences(
            leader_scores, run.document_scores(system)).size)
        rows.append(
            Row(
                rank=index + 1,
                system=system,
                score=scores[index],
                low=None if bounds[index] is None else bounds[index].low,
                high=None if bounds[index] is None else bounds[index].high,
                gap=gap,
                tie=gap is not None and not (p is not None and p < alpha),
                micro=micro(run, system),
                coverage=coverage(run, system),
                p_adjusted=p,
                paired=paired,
            )
        )
    chosen = metadata_columns(run.metadata) if columns is None else tuple(columns)
    by_system = {v.system: v for v in validity or ()}
    return Leaderboard(
        version=run.version,
        rows=tuple(rows),
        breakdowns=tuple(breakdown(run, column, order) for column in chosen),
        resamples=resamples,
        seed=seed,
        confidence=confidence,
        alpha=alpha,
        signature=with_bootstrap(run.signature, resamples=resamples, seed=seed),
        correction=correction,
        documents=len(run.documents),
        errors=tuple(error_shares(run, s) for s in order) if errors else None,
        validity=tuple(by_system[s] for s in order if s in by_system) if validity else None,
    )


def _sort_key(value: Any, label: str) -> tuple[int, float, str]:
    """Numbers first, by value; then text."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return (0, float(value), label)
    return (1, 0.0, label)


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _mean(run: Any, values: Iterable[float | None]) -> float | None:
    """The run's version's mean of the scored values (1.0: DocuBench's ``sum / len``)."""
    kept = [v for v in values if v is not None]
    return run.mean(kept) if kept else None
