"""Per-system cost, latency and tokens beside the leaderboard, and the frontier marks.

Data, not text (``render`` turns it into a table). Reads :class:`costs.Costs` (what the
envelopes say per document) and the leaderboard's bootstrap draws of the score; never
changes a score or a rank.

- **Cost**: mean USD per document over the documents with a cost, with the percentile
  interval of the same bootstrap draws as the score (``stats.bootstrap_macro`` with the
  board's resamples and seed: the same documents drawn in each resample); coverage is
  the documents with a cost, of all. A document without a cost is left out, never 0.
- **Latency**: median and 90th percentile in seconds over the documents with a latency
  (numpy's linear interpolation).
- **Tokens**: mean input and output tokens per document over the documents with both.
- **Frontier**: ``frontier.pareto_frontier`` of the score against the mean cost and
  against the median latency, the score compared through its paired bootstrap interval
  (``frontier.comparisons``).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from leafscore import stats
from leafscore.costs import Costs
from leafscore.frontier import comparisons, pareto_frontier

if TYPE_CHECKING:  # annotations only: numpy is loaded where a statistic is computed
    import numpy as np

__all__ = ["FIGURES_NOTE", "FRONTIER_NOTE", "SystemCost", "system_costs"]

#: The one line the text outputs print under the cost table: what the frontier means.
FRONTIER_NOTE = ("Frontier: no other system is significantly better in score at no more "
                 "cost (latency), or tied in score and strictly cheaper (faster).")
#: The line on how the cost and latency figures are made.
FIGURES_NOTE = ("Cost: mean USD per document, its interval over the score's bootstrap "
                "draws; latency: median and 90th percentile in seconds; a document "
                "without a value is left out (with cost, with latency), never counted as 0.")


@dataclass(frozen=True)
class SystemCost:
    """One system's cost and latency, in rank order on the board.

    ``cost`` mean USD per document (``None``: no document has one) with ``cost_low``/
    ``cost_high`` its percentile interval, over ``cost_documents`` of ``documents``;
    ``cost_from`` ``"envelope"``, ``"tokens"`` (priced by benchmark.toml), ``"mixed"``
    or ``""``. ``latency_median``/``latency_p90`` seconds over ``latency_documents``.
    ``input_tokens``/``output_tokens`` mean tokens per document over
    ``token_documents``. ``cost_frontier``/``latency_frontier``: True on the frontier
    of score against mean cost / median latency, False dominated, ``None`` not placed
    (no score or no value).
    """

    system: str
    documents: int
    cost: float | None
    cost_low: float | None
    cost_high: float | None
    cost_documents: int
    cost_from: str
    latency_median: float | None
    latency_p90: float | None
    latency_documents: int
    input_tokens: float | None
    output_tokens: float | None
    token_documents: int
    cost_frontier: bool | None
    latency_frontier: bool | None


def system_costs(costs: Costs, order: Sequence[str], score_samples: np.ndarray,
                 scores: Sequence[float | None], *, resamples: int = stats.DEFAULT_RESAMPLES,
                 seed: int = stats.DEFAULT_SEED,
                 confidence: float = stats.DEFAULT_CONFIDENCE) -> tuple[SystemCost, ...]:
    """One :class:`SystemCost` per system of ``order`` (the board's rank order).

    ``score_samples`` (n_systems, resamples) are the score's bootstrap draws in that
    order, ``scores`` the systems' scores (``None``: unscored); ``resamples``/``seed``
    must be the ones that drew them, so the cost interval uses the same draws. Raises
    ``ValueError`` for a bad bootstrap setting or a system ``costs`` does not know.
    """
    import numpy as np  # loaded by the first statistic: reading a cached run needs none
    unknown = [s for s in order if s not in costs.systems]
    if unknown:
        raise ValueError(f"no costs read for system {unknown[0]!r}")
    cost_rows = [costs.column(s, "cost") for s in order]
    matrix = stats.score_matrix(cost_rows)
    draws = stats.bootstrap_macro(matrix, resamples=resamples, seed=seed)
    compare = comparisons(score_samples, confidence=confidence)
    scored = [s is not None for s in scores]
    means, medians, p90s, token_pairs = [], [], [], []
    for index, system in enumerate(order):
        kept = matrix[index][~np.isnan(matrix[index])]
        # correctly rounded, as the score's mean (statistics.mean): numpy's sum of eleven
        # 0.0009 costs gives 0.0008999999999999999, outside the draws' [0.0009, 0.0009]
        means.append(float(statistics.mean(kept.tolist())) if kept.size else None)
        latency = np.array([v for v in costs.column(system, "latency") if v is not None])
        medians.append(float(np.median(latency)) if latency.size else None)
        p90s.append(float(np.percentile(latency, 90.0)) if latency.size else None)
        pairs = [(a, b) for a, b in zip(costs.column(system, "input_tokens"),
                                        costs.column(system, "output_tokens"), strict=True)
                 if a is not None and b is not None]
        token_pairs.append(pairs)
    cost_marks = pareto_frontier(means, compare, scored)
    latency_marks = pareto_frontier(medians, compare, scored)
    out = []
    for index, system in enumerate(order):
        low, high = (None, None) if means[index] is None else stats.percentile_interval(
            draws[index], confidence=confidence)
        pairs = token_pairs[index]
        sources = {costs.readings[(system, d)].cost_from for d in costs.documents} - {""}
        out.append(SystemCost(
            system=system, documents=len(costs.documents), cost=means[index],
            cost_low=low, cost_high=high,
            cost_documents=int((~np.isnan(matrix[index])).sum()),
            cost_from="mixed" if len(sources) > 1 else next(iter(sources), ""),
            latency_median=medians[index], latency_p90=p90s[index],
            latency_documents=sum(1 for v in costs.column(system, "latency") if v is not None),
            input_tokens=float(np.mean([a for a, _ in pairs])) if pairs else None,
            output_tokens=float(np.mean([b for _, b in pairs])) if pairs else None,
            token_documents=len(pairs),
            cost_frontier=cost_marks[index], latency_frontier=latency_marks[index]))
    return tuple(out)
