"""The Pareto frontier of score against a price (cost or latency), the score compared
with its interval.

Rule (issue 25): a system is on the frontier when no other system is at least as good
on both axes and better on one. The score is compared through its bootstrap interval,
not its point estimate: system ``b`` dominates system ``a`` when

- ``b`` is significantly better than ``a`` (the percentile interval of the paired
  bootstrap difference ``b - a`` lies above 0) and costs no more, or
- the two are tied (that interval holds 0) and ``b`` costs strictly less.

So a system significantly worse than another is still on the frontier when it is
strictly cheaper, and of two tied systems only the cheaper one (both when equally
cheap) is. A system without a score or without a price is not placed (``None``).
This is the usual Pareto dominance (Deb 2001, *Multi-Objective Optimization using
Evolutionary Algorithms*, §2.4) with "better in score" read as "significantly better".
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING

from leafscore import stats

if TYPE_CHECKING:  # annotations only: numpy is loaded where a statistic is computed
    import numpy as np

__all__ = ["comparisons", "pareto_frontier"]


def comparisons(samples: np.ndarray, *,
                confidence: float = stats.DEFAULT_CONFIDENCE) -> tuple[tuple[int, ...], ...]:
    """Pairwise score comparisons from paired bootstrap draws.

    Parameters
    ----------
    samples : ndarray of shape (n_systems, resamples)
        Each system's score over the same bootstrap draws (``stats.bootstrap_macro``);
        ``NaN`` where a draw holds none of its documents.
    confidence : float, default=0.95
        Level of the percentile interval of each difference.

    Returns
    -------
    tuple of n_systems tuples of n_systems ints
        ``[i][j]`` is 1 when ``i`` is significantly better than ``j`` (the interval of
        ``i - j`` lies above 0), -1 when significantly worse, 0 when tied, when ``i ==
        j`` or when either has no draw. The interval is ``stats.percentile_interval``'s
        (numpy's linear interpolation, ``NaN`` draws ignored), one row at a time.

    Raises
    ------
    ValueError
        If ``confidence`` is not in (0, 1).
    """
    import numpy as np  # loaded by the first statistic: reading a cached run needs none
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence={confidence} must be between 0 and 1")
    samples = np.atleast_2d(np.asarray(samples, dtype=float))
    n = samples.shape[0]
    out = [[0] * n for _ in range(n)]
    tail = 50.0 * (1.0 - confidence)  # as stats.percentile_interval reads it
    for i in range(n - 1):
        diffs = samples[i][None, :] - samples[i + 1:]  # one row per j > i
        with warnings.catch_warnings():  # a row of NaN only (no shared draw): no decision
            warnings.simplefilter("ignore", RuntimeWarning)
            low, high = np.nanpercentile(diffs, [tail, 100.0 - tail], axis=1)
        for offset, (lo, hi) in enumerate(zip(low, high, strict=True)):
            j = i + 1 + offset
            if lo > 0:
                out[i][j], out[j][i] = 1, -1
            elif hi < 0:
                out[i][j], out[j][i] = -1, 1
    return tuple(tuple(row) for row in out)


def pareto_frontier(prices: Sequence[float | None],
                    compare: Sequence[Sequence[int]],
                    scored: Sequence[bool] | None = None) -> tuple[bool | None, ...]:
    """Which systems are on the frontier of score against ``prices`` (module rule).

    Parameters
    ----------
    prices : sequence of n floats or None
        Each system's price, lower is better (mean USD per document, or median seconds);
        ``None``: unknown.
    compare : n x n ints
        ``compare[i][j]`` as :func:`comparisons` gives it: 1 when ``i`` is significantly
        better than ``j``, -1 when worse, 0 when tied.
    scored : sequence of n bools, optional
        False for a system without a score (default: every system has one).

    Returns
    -------
    tuple of n values
        True on the frontier, False dominated, ``None`` when the system has no price or
        no score (it is neither placed nor allowed to dominate).

    Raises
    ------
    ValueError
        If ``compare`` is not n x n.

    >>> pareto_frontier([1.0, 2.0, 0.5], [[0, 1, 0], [-1, 0, -1], [0, 1, 0]])
    (False, False, True)
    >>> pareto_frontier([1.0, 2.0], [[0, -1], [1, 0]])
    (True, True)
    """
    n = len(prices)
    if len(compare) != n or any(len(row) != n for row in compare):
        raise ValueError(f"compare must be {n} x {n}")
    placed = [prices[i] is not None and (scored is None or bool(scored[i])) for i in range(n)]
    out: list[bool | None] = []
    for a in range(n):
        if not placed[a]:
            out.append(None)
            continue
        dominated = False
        for b in range(n):
            if b == a or not placed[b]:
                continue
            pa, pb = float(prices[a]), float(prices[b])  # type: ignore[arg-type]
            if (compare[b][a] == 1 and pb <= pa) or (compare[b][a] == 0 and pb < pa):
                dominated = True
                break
        out.append(not dominated)
    return tuple(out)
