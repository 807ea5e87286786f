"""Bootstrap confidence intervals and paired differences over documents.

A benchmark is a sample of documents, so a system's macro accuracy is an estimate. This
module resamples the documents with replacement (the same draws for every system, so
differences are paired) and reads percentile intervals off the resampled means. It only
ever re-averages stored document scores; it never rescores. numpy only; nothing from the
project is imported here.

Documents not scored for a system (version 1.0 leaves a missing result out of the mean)
are ``NaN`` in the score matrix. In every draw a system's mean is taken over the drawn
documents that it has a score for, exactly as its point estimate is taken over all of its
scored documents; a draw holding none of them gives no value for that system and is left
out of its interval (and, for a difference, out of that pair's distribution).

References
----------
.. [1] B. Efron and R. J. Tibshirani, *An Introduction to the Bootstrap*, Chapman & Hall,
   1993: the nonparametric bootstrap, ch. 6; percentile intervals, ch. 13.
.. [2] P. Koehn, "Statistical Significance Tests for Machine Translation Evaluation",
   EMNLP 2004: the paired bootstrap over test documents, one set of draws for both systems.
.. [3] A. C. Davison and D. V. Hinkley, *Bootstrap Methods and their Application*,
   Cambridge University Press, 1997, ch. 4: Monte Carlo p-values,
   ``(count + 1) / (resamples + 1)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

#: Resamples drawn when none are given.
DEFAULT_RESAMPLES = 1000
#: Most resamples accepted (``--resamples``, or a committed summary's ``bs:``): the draws
#: are a resamples x documents int64 table, so 100,000 resamples of 300 documents take
#: about 0.25 GB per copy; a signature asking for 10**12 must not reach numpy.
MAX_RESAMPLES = 100_000
#: Seed of ``numpy.random.default_rng`` when none is given; recorded in the signature.
DEFAULT_SEED = 12345
#: Coverage of the intervals when none is given.
DEFAULT_CONFIDENCE = 0.95
#: Replicate differences within this of 0 count as ties in the p-value: float summation
#: noise, not a difference (scores are in [0, 1]).
TIE = 1e-12


@dataclass(frozen=True)
class Interval:
    """A point estimate and its bootstrap percentile interval.

    ``estimate``, ``low`` and ``high`` are in the unit of the input (scores: floats in
    [0, 1]; differences: floats in [-1, 1]). ``low``/``high`` are ``None`` when no draw
    gave a value (a system with no scored document).
    """

    estimate: float
    low: float | None
    high: float | None


@dataclass(frozen=True)
class Difference:
    """A paired difference ``a - b``, its percentile interval and a two-sided p-value.

    ``estimate`` is the difference of the two point estimates; ``low``/``high`` the
    percentile interval of the paired draws; ``p_value`` in (0, 1], ``None`` (with the
    bounds) when no draw gave both systems a value.
    """

    estimate: float
    low: float | None
    high: float | None
    p_value: float | None

    def significant(self, alpha: float = 0.05) -> bool:
        """True when ``p_value < alpha``; an undefined p-value is never significant."""
        return self.p_value is not None and self.p_value < alpha


def score_matrix(rows: list[list[float | None]]) -> np.ndarray:
    """Stack per-system document scores into a float matrix, ``None`` becoming ``NaN``.

    Parameters
    ----------
    rows : list of n_systems lists of n_documents floats in [0, 1] or None
        Each system's document scores in document id order (``Run.document_scores``).

    Returns
    -------
    ndarray of shape (n_systems, n_documents), dtype float64

    Raises
    ------
    ValueError
        If the rows differ in length, or there are no systems or no documents.
    """
    if not rows or not rows[0]:
        raise ValueError("the bootstrap needs at least one system and one document")
    if len({len(row) for row in rows}) != 1:
        raise ValueError("every system needs one score slot per document")
    return np.array([[np.nan if v is None else v for v in row] for row in rows], dtype=float)


def bootstrap_counts(
    n_documents: int, *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
    dtype: Any = np.int64,
) -> np.ndarray:
    """How often each document is drawn in each bootstrap resample.

    Parameters
    ----------
    n_documents : int
        Documents in the benchmark, >= 1.
    resamples : int, default=1000
        Number of resamples, >= 1.
    seed : int, default=12345
        Seeds ``numpy.random.default_rng``; the same seed gives the same draws.
    dtype : numpy dtype, default=int64
        Of the result (``float64`` spares a matrix product converting it).

    Returns
    -------
    ndarray of shape (resamples, n_documents), dtype ``dtype``
        Row ``r`` counts the documents of draw ``r`` (``n_documents`` draws with
        replacement, so each row sums to ``n_documents``).

    Raises
    ------
    ValueError
        If ``n_documents < 1`` or ``resamples < 1``.
    """
    if n_documents < 1:
        raise ValueError("the bootstrap needs at least one document")
    if resamples < 1:
        raise ValueError(f"resamples={resamples} must be at least 1")
    rng = np.random.default_rng(seed)
    counts = np.empty((resamples, n_documents), dtype=dtype)
    # Drawn a block of resamples at a time (the generator's stream is the same as one
    # draw of the whole matrix), so memory holds the counts and one block, not three
    # copies of the matrix (640 MB at 20,000 documents).
    step = max(1, _DRAW_BLOCK // n_documents)
    for start in range(0, resamples, step):
        rows = min(step, resamples - start)
        draws = rng.integers(0, n_documents, size=(rows, n_documents))
        draws += n_documents * np.arange(rows)[:, None]
        counts[start:start + rows] = np.bincount(
            draws.ravel(), minlength=rows * n_documents).reshape(rows, n_documents)
    return counts


#: Draws made at once by :func:`bootstrap_counts`.
_DRAW_BLOCK: int = 1 << 20


def bootstrap_macro(
    scores: np.ndarray, *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> np.ndarray:
    """Macro accuracy of each system over bootstrap draws of the documents.

    Parameters
    ----------
    scores : ndarray of shape (n_systems, n_documents)
        Document accuracies, floats in [0, 1], documents in id order; ``NaN`` marks a
        document not scored for that system.
    resamples : int, default=1000
    seed : int, default=12345
        Seeds ``numpy.random.default_rng``; printed in the signature as ``seed:``.

    Returns
    -------
    ndarray of shape (n_systems, resamples)
        Every system is scored on the same draws, so row differences are paired [2]_.
        Entry ``[s, r]`` is the mean of system ``s`` over the drawn documents it has a
        score for, ``NaN`` when draw ``r`` holds none of them.

    Raises
    ------
    ValueError
        If there are no documents or ``resamples < 1``.
    """
    scores = np.atleast_2d(np.asarray(scores, dtype=float))
    # Float counts: the products below would convert int64 counts to exactly these.
    counts = bootstrap_counts(scores.shape[1], resamples=resamples, seed=seed,
                              dtype=np.float64)
    scored = ~np.isnan(scores)
    # Sum deviations from each system's own mean, then add the mean back: a system with
    # one score on every document gets exactly that score in every draw, not ulps off.
    rows = zip(scores, scored, strict=True)
    centre = np.array([row[ok].mean() if ok.any() else 0.0 for row, ok in rows])
    deviations = np.where(scored, scores - centre[:, None], 0.0)
    totals = counts @ deviations.T
    weights = counts @ scored.T.astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(weights > 0, centre + totals / weights, np.nan)
    return means.T


def percentile_interval(
    samples: np.ndarray, *, confidence: float = DEFAULT_CONFIDENCE
) -> tuple[float, float] | tuple[None, None]:
    """Equal-tailed percentile interval of bootstrap samples [1]_.

    Parameters
    ----------
    samples : ndarray of shape (resamples,)
        Bootstrap replicates of a statistic; ``NaN`` entries are ignored.
    confidence : float, default=0.95
        Coverage in (0, 1); 0.95 reads the 2.5th and 97.5th percentiles (numpy's
        default linear interpolation).

    Returns
    -------
    (low, high) : floats, or (None, None) when every sample is ``NaN``.

    Raises
    ------
    ValueError
        If ``confidence`` is not in (0, 1).
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence={confidence} must be between 0 and 1")
    kept = samples[~np.isnan(samples)]
    if kept.size == 0:
        return None, None
    tail = 50.0 * (1.0 - confidence)
    low, high = np.percentile(kept, [tail, 100.0 - tail])
    return float(low), float(high)


def interval(
    samples: np.ndarray, estimate: float, *, confidence: float = DEFAULT_CONFIDENCE
) -> Interval:
    """Wrap ``estimate`` with the percentile interval of its bootstrap ``samples``.

    ``samples`` is one row of :func:`bootstrap_macro`; ``estimate`` the statistic on the
    full sample (``Run.system_score``). Raises ValueError as :func:`percentile_interval`.
    """
    low, high = percentile_interval(samples, confidence=confidence)
    return Interval(estimate, low, high)


def paired_difference(
    samples_a: np.ndarray,
    samples_b: np.ndarray,
    estimate: float,
    *,
    confidence: float = DEFAULT_CONFIDENCE,
) -> Difference:
    """Paired bootstrap of the difference ``a - b`` [2]_.

    Parameters
    ----------
    samples_a, samples_b : ndarray of shape (resamples,)
        Two rows of one :func:`bootstrap_macro` call (same draws); ``NaN`` draws of
        either are left out.
    estimate : float
        ``a - b`` on the full sample, in [-1, 1].
    confidence : float, default=0.95

    Returns
    -------
    Difference
        The percentile interval of the ``a - b`` replicates, and the two-sided p-value
        of "no difference": ``min(1, 2 * (k + 1) / (n + 1))`` where ``k`` is the smaller
        of the counts of replicates ``<= 0`` and ``>= 0`` (within ``TIE`` of 0 counting
        as 0) and ``n`` the replicates kept [3]_. Identical systems give replicates that
        are all 0, so ``p_value == 1``; a system better on every document gives
        ``k == 0``, ``p_value == 2 / (n + 1)``.

    Raises
    ------
    ValueError
        If the sample rows differ in length, or as :func:`percentile_interval`.
    """
    if samples_a.shape != samples_b.shape:
        raise ValueError("paired samples must come from the same draws")
    deltas = samples_a - samples_b
    low, high = percentile_interval(deltas, confidence=confidence)
    kept = deltas[~np.isnan(deltas)]
    if kept.size == 0:
        return Difference(estimate, None, None, None)
    tail = min(int(np.count_nonzero(kept <= TIE)), int(np.count_nonzero(kept >= -TIE)))
    p_value = min(1.0, 2.0 * (tail + 1) / (kept.size + 1))
    return Difference(estimate, low, high, p_value)


def mean_difference(
    base: list[float | None],
    head: list[float | None],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> Difference:
    """Change of the macro mean from ``base`` to ``head``, paired over documents.

    Parameters
    ----------
    base, head : lists of n_documents floats in [0, 1] or None
        Document scores in the same document order; ``None`` is a document not scored
        for that side, left out of that side's mean (module docstring).
    resamples, seed, confidence
        As :func:`bootstrap_macro` and :func:`percentile_interval`.

    Returns
    -------
    Difference
        ``head - base``: estimate from the two means over the scored documents, interval
        and p-value from :func:`paired_difference`. If either side has no scored
        document, the estimate is ``NaN`` and the rest ``None``.

    Raises
    ------
    ValueError
        If the lists differ in length or are empty, or ``resamples < 1``.
    """
    matrix = score_matrix([list(base), list(head)])
    if np.isnan(matrix).all(axis=1).any():
        return Difference(float("nan"), None, None, None)
    estimate = float(np.nanmean(matrix[1]) - np.nanmean(matrix[0]))
    samples = bootstrap_macro(matrix, resamples=resamples, seed=seed)
    return paired_difference(samples[1], samples[0], estimate, confidence=confidence)
