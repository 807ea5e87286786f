"""Leaderboard data: ranks, intervals, ties with the leader, coverage, breakdowns.

Data, not text (``render`` turns it into tables). Everything is read from a ``Run``'s
stored document scores; nothing is rescored.

- **Rank** by macro accuracy (``Run.system_score``) descending, ties broken by system
  name; a system with no scored document ranks last.
- **Interval**: percentile bootstrap over documents, the same draws for every system
  (``stats.bootstrap_macro``); the gap to the leader has the percentile interval of the
  paired draws.
- **Test of the gap**: the two-sided paired sign-flip permutation test of the
  per-document differences over the documents both are scored on
  (``stats.sign_flip_test``; exact when there are few sign patterns), Holm-adjusted
  across the k - 1 comparisons with the leader (``stats.holm``) unless
  ``correction="none"``.
- **Tie with the leader** follows from the row's figures: ``"tie"`` when the adjusted
  p-value is at least ``alpha``, ``"behind"`` when it is below, and ``"none"`` (no
  decision, with the reason) when the test cannot decide: fewer than
  ``stats.MIN_PAIRED`` paired documents, no paired document, or a smallest attainable
  p-value not below ``alpha``. A system identical to the leader on its (at least 6)
  paired documents is a tie. The leader is never marked. A decision that another seed
  could change (``stats.near_alpha``) is flagged.
- **Few documents**: a system scored on fewer than half as many documents as the
  best-covered system is flagged; its score and rank rest on those documents only.
- **Micro P/R/F1**: from TP/FP/FN summed over every field of every document (spec
  scoring-2.0 §4); ``None`` under version 1.0, which keeps no verdicts.
- **Coverage**: documents in the run, scored, parse failures, missing results.
- **Error shares** (version 2.0): each verdict kind's share of a system's scored verdicts
  (every verdict but ``correct_absence``, summed over documents), ``correct`` included,
  so the shares add up to 1.
- **Breakdowns**: the macro accuracy of each system on the documents sharing a metadata
  value; a list-valued column counts a document under each of its values (once, even
  if a value repeats).
- **Cost and latency** (when the envelopes give any): ``economy.system_costs`` over the
  same bootstrap draws as the score, with the frontier marks; ``None`` otherwise, so a
  benchmark without them shows nothing new.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import scorer
from leafscore import economy, stats
from leafscore.costs import Costs
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
    one); ``paired`` the documents both the leader and this system are scored on (the
    gap rests on them; 0 for the leader); ``micro`` is ``None`` under version 1.0.

    ``decision`` is ``"leader"``, ``"tie"``, ``"behind"`` or ``"none"`` (module
    docstring), ``reason`` the words behind it; ``tie`` is True for ``"tie"``, False for
    ``"leader"``/``"behind"`` and ``None`` for no decision; ``near_alpha`` True when the
    decision lies within Monte Carlo error of ``alpha``; ``few_documents`` True when the
    system is scored on fewer than half as many documents as the best-covered one;
    ``warning`` the small-sample line of its gap (``stats.small_sample_warning`` of
    ``paired``), or None.
    """

    rank: int
    system: str
    score: float | None
    low: float | None
    high: float | None
    gap: stats.Difference | None
    tie: bool | None
    micro: scorer.FieldCounts | None
    coverage: Coverage
    p_adjusted: float | None = None
    paired: int = 0
    decision: str = "none"
    reason: str = ""
    near_alpha: bool = False
    few_documents: bool = False
    warning: str | None = None


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
    permutations: int = stats.DEFAULT_PERMUTATIONS
    warnings: tuple[str, ...] = ()
    costs: tuple[economy.SystemCost, ...] | None = None

    @property
    def warning(self) -> str | None:
        """Every warning line (``warnings``) joined by newlines, or None."""
        return "\n".join(self.warnings) if self.warnings else None


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
    permutations: int = stats.DEFAULT_PERMUTATIONS,
    costs: Costs | None = None,
) -> Leaderboard:
    """Build the leaderboard of ``run``.

    Parameters
    ----------
    run : leafscore.run.Run
        At least one system and one document.
    resamples, seed, confidence
        Bootstrap settings (``stats.bootstrap_macro``); recorded in the signature.
        ``seed`` also seeds the sign-flip test.
    alpha : float, default=0.05
        Significance level of the tie-with-leader decision, in (0, 1).
    columns : sequence of str, optional
        Metadata columns to break down by; default every column of ``run.metadata``
        (which holds the benchmark's breakdown columns), in ``metadata_columns`` order.
    correction : {"holm", "none"}, default="holm"
        How the p-values of the k - 1 gaps to the leader are corrected before the tie
        decision (``stats.holm``), or ``"none"`` for the raw tests.
    errors : bool, default=False
        Also compute :class:`ErrorShares` for every system (``Leaderboard.errors``).
    validity : sequence of validity.Validity, optional
        Schema validity per system (``validity.schema_validity``), carried to the board
        as it is, in rank order; it never changes a score or a rank.
    permutations : int, default=10000
        Random sign patterns of the paired test (``stats.sign_flip_test``). Too few to
        reach ``alpha`` after the correction adds a warning naming the fewest that work
        (``stats.permutations_needed``).
    costs : costs.Costs, optional
        What the result envelopes say each answer cost and took (``costs.read_costs``).
        When it holds any value, ``Leaderboard.costs`` gives each system's
        ``economy.SystemCost`` in rank order (the same bootstrap draws as the score);
        else it stays ``None``.

    Raises
    ------
    ValueError
        If the run has no system or no document, a bootstrap or test setting is
        invalid, or ``correction`` is unknown.
    """
    if not run.systems or not run.documents:
        raise ValueError("a leaderboard needs at least one system and one document")
    if correction not in ("holm", "none"):
        raise ValueError(f"correction={correction!r} is not 'holm' or 'none'")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha={alpha} must be between 0 and 1")
    order = ranking(run)
    columns_of = [run.document_scores(s) for s in order]
    matrix = stats.score_matrix(columns_of)
    samples = stats.bootstrap_macro(matrix, resamples=resamples, seed=seed)
    scores = [run.system_score(s) for s in order]
    bounds: list[stats.Interval | None] = []
    gaps: list[stats.Difference | None] = []
    for index, score in enumerate(scores):
        bounds.append(None if score is None else
                      stats.interval(samples[index], score, confidence=confidence))
        gaps.append(None if score is None or index == 0 else stats.paired_comparison(
            columns_of[0], columns_of[index], samples[0], samples[index], scores[0] - score,
            confidence=confidence, permutations=permutations, seed=seed))
    raw = [None if gap is None else gap.p_value for gap in gaps]
    adjusted = stats.adjust(raw, correction)
    near = stats.near_alpha([None if gap is None else gap.test for gap in gaps], alpha,
                            correction)
    covered = [coverage(run, s) for s in order]
    most = max(c.scored for c in covered)
    rows = []
    for index, system in enumerate(order):
        gap, p = gaps[index], adjusted[index]
        paired = 0 if index == 0 else int(stats.paired_differences(
            columns_of[0], columns_of[index]).size)
        decision, reason = _decide(index, scores[index], gap, p, paired, alpha)
        few = covered[index].scored < most / 2
        rows.append(
            Row(
                rank=index + 1,
                system=system,
                score=scores[index],
                low=None if bounds[index] is None else bounds[index].low,
                high=None if bounds[index] is None else bounds[index].high,
                gap=gap,
                tie={"tie": True, "none": None}.get(decision, False),
                micro=micro(run, system),
                coverage=covered[index],
                p_adjusted=p,
                paired=paired,
                decision=decision,
                reason=reason,
                near_alpha=bool(near[index]) and decision in ("tie", "behind"),
                few_documents=few,
                warning=None if index == 0 or scores[index] is None else
                stats.small_sample_warning(paired, "paired document(s)"),
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
        permutations=permutations,
        warnings=_warnings(rows, len(run.documents), permutations, alpha, correction),
        costs=None if costs is None or costs.empty else economy.system_costs(
            costs, order, samples, scores, resamples=resamples, seed=seed,
            confidence=confidence),
    )


def _decide(index: int, score: float | None, gap: stats.Difference | None,
            p: float | None, paired: int, alpha: float) -> tuple[str, str]:
    """(decision, reason) of one row (see the module)."""
    if index == 0:
        return "leader", "the leader"
    if score is None:
        return "none", "no document scored"
    if gap is None or gap.test is None or p is None:
        return "none", "no document scored for both it and the leader"
    test = gap.test
    if paired < stats.MIN_PAIRED:
        return "none", (f"only {paired} paired document(s), fewer than {stats.MIN_PAIRED}: "
                        f"no test on so few can reach {100 * alpha:g}%")
    if test.informative == 0:
        return "tie", f"identical to the leader on all {paired} paired documents"
    if test.smallest_p >= alpha:
        if test.exact:
            why = (f"only {test.informative} of {paired} paired documents differ; the "
                   f"smallest possible p-value is {test.smallest_p:.3g}")
        else:
            why = (f"{test.patterns} sign patterns cannot give a p-value below "
                   f"{100 * alpha:g}%")
        return "none", why
    if p >= alpha:
        return "tie", f"adjusted p = {p:.3g} >= {alpha:g}"
    return "behind", f"adjusted p = {p:.3g} < {alpha:g}"


def _warnings(rows: Sequence[Row], documents: int, permutations: int, alpha: float,
              correction: str) -> tuple[str, ...]:
    """The board's warning lines: few documents overall, or per gap; too few patterns."""
    lines = []
    overall = stats.small_sample_warning(documents)
    if overall:
        lines.append(overall)
    else:
        lines.extend(f"{row.warning} ({row.system} against the leader)"
                     for row in rows if row.warning)
    tested = sum(1 for row in rows if row.gap is not None and row.gap.test is not None
                 and not row.gap.test.exact)
    comparisons = sum(1 for row in rows if row.gap is not None and row.gap.test is not None)
    m = comparisons if correction == "holm" else 1
    if tested and permutations < stats.permutations_needed(m, alpha):
        needed = stats.permutations_needed(m, alpha)
        lines.append(
            f"warning: {permutations} random sign patterns cannot give an adjusted p-value "
            f"below {100 * alpha:g}% for {m} comparison(s) (the smallest is "
            f"{m}/({permutations} + 1) = {m / (permutations + 1):.3g}): no gap can be "
            f"called significant; use --permutations {needed} or more")
    return tuple(lines)


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
