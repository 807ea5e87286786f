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

The paired *test* behind "tied with the leader" and "significant change" is not read off
the bootstrap replicates (whose percentile-interval p-value is anti-conservative on few
documents): it is the sign-flip permutation test of the per-document differences
(:func:`sign_flip_test`) [7]_, exact over every sign pattern when there are at most
``permutations`` of them, else approximate over random ones with its Monte Carlo error
[8]_. The bootstrap stays for the intervals.

Also here: the Holm correction of several tests against one leader [4]_, and the power
of a paired comparison (:func:`min_detectable_difference`, :func:`documents_needed`,
:func:`bootstrap_power`) [5]_ [6]_; these use ``scipy.stats.norm`` for normal quantiles.

References
----------
.. [1] B. Efron and R. J. Tibshirani, *An Introduction to the Bootstrap*, Chapman & Hall,
   1993: the nonparametric bootstrap, ch. 6; percentile intervals, ch. 13.
.. [2] P. Koehn, "Statistical Significance Tests for Machine Translation Evaluation",
   EMNLP 2004: the paired bootstrap over test documents, one set of draws for both systems.
.. [3] A. C. Davison and D. V. Hinkley, *Bootstrap Methods and their Application*,
   Cambridge University Press, 1997, ch. 4: Monte Carlo p-values,
   ``(count + 1) / (resamples + 1)``.
.. [4] S. Holm, "A Simple Sequentially Rejective Multiple Test Procedure", *Scandinavian
   Journal of Statistics* 6(2), 1979, pp. 65-70.
.. [5] S.-C. Chow, J. Shao and H. Wang, *Sample Size Calculations in Clinical Research*,
   2nd ed., Chapman & Hall/CRC, 2008, §3.1 (one-sample / paired mean, large-sample
   formula ``n = (z_{1-a/2} + z_{1-b})^2 sigma^2 / delta^2``).
.. [6] J. Cohen, *Statistical Power Analysis for the Behavioral Sciences*, 2nd ed.,
   Lawrence Erlbaum, 1988, ch. 2 (the paired t-test as a one-sample test of the
   differences, effect size ``d = delta / sigma_d``).
.. [7] E. W. Noreen, *Computer-Intensive Methods for Testing Hypotheses*, Wiley, 1989,
   ch. 2-3: approximate randomization; the paired sign-flip (randomization) test, exact
   over all sign patterns or approximate over random ones, p-value
   ``(count + 1) / (patterns + 1)`` for random patterns.
.. [8] P. H. Westfall and S. S. Young, *Resampling-Based Multiple Testing*, Wiley, 1993,
   §2.2: the Monte Carlo standard error of a resampled p-value,
   ``sqrt(p (1 - p) / patterns)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: numpy is loaded where a statistic is computed
    import numpy as np


#: Resamples drawn when none are given.
DEFAULT_RESAMPLES = 1000
#: Most resamples accepted (``--resamples``, or a committed summary's ``bs:``): the draws
#: are a resamples x documents int64 table, so 100,000 resamples of 300 documents take
#: about 0.25 GB per copy; a signature asking for 10**12 must not reach numpy.
MAX_RESAMPLES = 100_000
#: Fewest resamples the commands accept (``--resamples``): a 95% percentile interval
#: reads the 2.5th and 97.5th percentiles, 0.025 x resamples draws from each end, so
#: below 40 a bound is one draw (at 1, both bounds are one replicate, which may exclude
#: the estimate); 100 leaves 2.5 draws a tail, still rough beside the default 1000 [1]_.
MIN_RESAMPLES = 100
#: Seed of ``numpy.random.default_rng`` when none is given; recorded in the signature.
DEFAULT_SEED = 12345
#: Coverage of the intervals when none is given.
DEFAULT_CONFIDENCE = 0.95
#: Replicate differences within this of 0 count as ties in the p-value: float summation
#: noise, not a difference (scores are in [0, 1]).
TIE = 1e-12
#: Below this many documents every printed interval and p-value carries a warning line.
SMALL_SAMPLE = 10
#: Power and two-sided significance level of the power analysis when none are given.
DEFAULT_POWER = 0.8
DEFAULT_ALPHA = 0.05
#: Random sign patterns of the paired sign-flip test when none are given (the test is
#: exact, over every pattern, when there are at most this many). 10,000 keeps the Monte
#: Carlo standard error of a p-value near 0.05 at 0.0022.
DEFAULT_PERMUTATIONS = 10_000
#: Most sign patterns accepted (``--permutations``); drawn a block at a time.
MAX_PERMUTATIONS = 1_000_000
#: Fewest sign patterns the commands accept (``--permutations``): below 20 no p-value
#: reaches 5% (the smallest is 1 / (permutations + 1)), so ``diff --fail-on-regression``
#: and ``gate --baseline`` could never fail; 100 gives a Monte Carlo standard error of
#: 0.022 at p = 0.05 and lets 5 Holm-corrected comparisons reach 5%.
MIN_PERMUTATIONS = 100
#: Below this many paired documents no tie/significance decision is made: the sign-flip
#: test's smallest two-sided p-value on n documents is ``2 / 2**n``, 0.0625 at n = 5,
#: so fewer documents can never reject at 5%.
MIN_PAIRED = 6
#: A decision is "within Monte Carlo error" of alpha when moving every p-value by this
#: many standard errors [8]_ (then correcting) could change it.
MC_Z = 3.0


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
class SignFlip:
    """The result of :func:`sign_flip_test`.

    ``p_value`` in (0, 1]: two-sided p-value of "the per-document differences are
    symmetric about 0" (no difference); ``documents``: paired documents tested;
    ``informative``: those whose difference is not 0 (only they change under a sign
    flip); ``exact``: True when every one of the ``2**informative`` sign patterns was
    evaluated, ``patterns`` then being that number, else the random patterns drawn;
    ``mc_error``: the Monte Carlo standard error of ``p_value`` (0 when exact) [8]_;
    ``smallest_p``: the smallest p-value this test could have given.
    """

    p_value: float
    documents: int
    informative: int
    exact: bool
    patterns: int
    mc_error: float
    smallest_p: float


@dataclass(frozen=True)
class Difference:
    """A paired difference ``a - b``, its percentile interval and a two-sided p-value.

    ``estimate`` is the difference of the two point estimates; ``low``/``high`` the
    bootstrap percentile interval of the paired draws; ``p_value`` in (0, 1], ``None``
    (with the bounds) when no draw gave both systems a value. ``test`` is the paired
    sign-flip test the p-value comes from (:func:`paired_comparison`), ``None`` when the
    p-value is the bootstrap's own (:func:`paired_difference`) or undefined.
    """

    estimate: float
    low: float | None
    high: float | None
    p_value: float | None
    test: SignFlip | None = None

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
    import numpy as np  # loaded by the first statistic: reading a cached run needs none
    if not rows or not rows[0]:
        raise ValueError("the bootstrap needs at least one system and one document")
    if len({len(row) for row in rows}) != 1:
        raise ValueError("every system needs one score slot per document")
    return np.array([[np.nan if v is None else v for v in row] for row in rows], dtype=float)


def bootstrap_counts(
    n_documents: int, *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
    dtype: Any = "int64",
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
    import numpy as np  # loaded by the first statistic: reading a cached run needs none
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
    import numpy as np  # loaded by the first statistic: reading a cached run needs none
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
    import numpy as np  # loaded by the first statistic: reading a cached run needs none
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
    import numpy as np  # loaded by the first statistic: reading a cached run needs none
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
    permutations: int = DEFAULT_PERMUTATIONS,
) -> Difference:
    """Change of the macro mean from ``base`` to ``head``, paired over documents.

    Parameters
    ----------
    base, head : lists of n_documents floats in [0, 1] or None
        Document scores in the same document order; ``None`` is a document not scored
        for that side, left out of that side's mean (module docstring).
    resamples, seed, confidence, permutations
        As :func:`bootstrap_macro`, :func:`percentile_interval` and
        :func:`sign_flip_test` (which ``seed`` also seeds).

    Returns
    -------
    Difference
        ``head - base``: estimate from the two means over the scored documents, the
        bootstrap percentile interval and the sign-flip p-value of
        :func:`paired_comparison`. If either side has no scored document, the estimate
        is ``NaN`` and the rest ``None``.

    Raises
    ------
    ValueError
        If the lists differ in length or are empty, ``resamples < 1`` or
        ``permutations`` is out of range.
    """
    import numpy as np  # loaded by the first statistic: reading a cached run needs none
    matrix = score_matrix([list(base), list(head)])
    if np.isnan(matrix).all(axis=1).any():
        return Difference(float("nan"), None, None, None)
    estimate = float(np.nanmean(matrix[1]) - np.nanmean(matrix[0]))
    samples = bootstrap_macro(matrix, resamples=resamples, seed=seed)
    return paired_comparison(head, base, samples[1], samples[0], estimate,
                             confidence=confidence, permutations=permutations, seed=seed)


def small_sample_warning(n_documents: int, unit: str = "document(s)") -> str | None:
    """The warning line for intervals and p-values resting on ``n_documents`` documents.

    Returns ``None`` at ``SMALL_SAMPLE`` (10) documents or more, else one line saying
    that the percentile bootstrap intervals are unreliable at that size (too narrow on
    few documents [1]_, ch. 13); the sign-flip p-values stay valid but coarse. ``unit``
    names what is counted (``"paired document(s)"`` for a gap).
    """
    if n_documents >= SMALL_SAMPLE:
        return None
    return (f"warning: only {n_documents} {unit}, fewer than {SMALL_SAMPLE}: "
            "bootstrap intervals are unreliable at this size (too narrow) and p-values "
            "coarse")


def holm(p_values: Sequence[float | None]) -> tuple[float | None, ...]:
    """Holm's step-down adjusted p-values [4]_.

    Parameters
    ----------
    p_values : sequence of m floats in (0, 1], or None
        Raw p-values of m tests (e.g. every system against the leader); ``None`` (no
        test) is kept as ``None`` and not counted in m.

    Returns
    -------
    tuple of floats in (0, 1] or None, in the input order
        Sorting the k defined p-values ascending, ``p_(1) <= ... <= p_(k)``, the
        adjusted value of ``p_(i)`` is ``max_{j <= i} min(1, (k - j + 1) p_(j))``.
        Rejecting where the adjusted value is below ``alpha`` controls the family-wise
        error rate at ``alpha``; each adjusted value is >= its raw one.
    """
    defined = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    k = len(defined)
    out: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, index) in enumerate(defined):
        running = max(running, min(1.0, (k - rank) * p))
        out[index] = running
    return tuple(out)


def smallest_p(informative: int, permutations: int) -> float:
    """The smallest p-value :func:`sign_flip_test` can give.

    ``informative`` nonzero differences (>= 0) and ``permutations`` >= 1: exact
    enumeration (``2**informative <= permutations``) gives ``2 / 2**informative`` (the
    observed pattern and its mirror image are always as extreme; 1 with no nonzero
    difference), random patterns ``1 / (permutations + 1)`` [7]_.
    """
    if informative == 0:
        return 1.0
    if informative < 63 and 2 ** informative <= permutations:
        return 2.0 / 2 ** informative
    return 1.0 / (permutations + 1)


def permutations_needed(comparisons: int, alpha: float = DEFAULT_ALPHA) -> int:
    """The fewest random sign patterns with which ``comparisons`` Holm-corrected tests can
    reach ``alpha``: the smallest ``R`` with ``comparisons / (R + 1) < alpha`` (the
    smallest adjusted p-value is ``comparisons`` times the smallest raw one, [4]_ [7]_).

    ``comparisons`` >= 1, ``alpha`` in (0, 1); raises ``ValueError`` otherwise.

    >>> permutations_needed(5, 0.05)
    100
    """
    if comparisons < 1:
        raise ValueError(f"comparisons={comparisons} must be at least 1")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha={alpha} must be between 0 and 1")
    count = max(1, math.floor(comparisons / alpha) - 2)
    while comparisons / (count + 1) >= alpha:
        count += 1
    return count


def sign_flip_test(differences: Sequence[float] | np.ndarray, *,
                   permutations: int = DEFAULT_PERMUTATIONS,
                   seed: int = DEFAULT_SEED) -> SignFlip:
    """Two-sided paired sign-flip (randomization) test of a mean difference of 0 [7]_.

    Under "no difference" each document's difference ``d_i`` is as likely to have come
    out ``-d_i``: the statistic ``|sum(d)|`` is compared with ``|sum(s_i d_i)|`` over sign
    patterns ``s`` in {-1, +1}^n. Documents with ``d_i == 0`` (within ``TIE``) do not
    change under a flip and are left out of the patterns.

    - **Exact** when ``2**k <= permutations`` (``k`` the nonzero differences): every
      pattern is evaluated, ``p = #{patterns as extreme} / 2**k``.
    - **Approximate randomization** otherwise: ``permutations`` random patterns from
      ``numpy.random.default_rng(seed)``, ``p = (#{as extreme} + 1) / (permutations + 1)``
      (the observed pattern counted once [3]_ [7]_), Monte Carlo standard error
      ``sqrt(p (1 - p) / permutations)`` [8]_.

    "As extreme" is ``|sum(s d)| >= |sum(d)|`` up to ``1e-9`` of float noise.

    Parameters
    ----------
    differences : sequence of n floats in [-1, 1]
        Per-document differences over the paired documents (:func:`paired_differences`);
        n may be 0 (p-value 1).
    permutations : int, default=10000
        Random patterns when not exact, 1..``MAX_PERMUTATIONS``.
    seed : int, default=12345
        Seeds the random patterns; the same seed gives the same p-value.

    Returns
    -------
    SignFlip

    Raises
    ------
    ValueError
        If ``permutations`` is outside 1..``MAX_PERMUTATIONS`` or a difference is not
        finite.
    """
    import numpy as np  # loaded by the first statistic: reading a cached run needs none
    if not 1 <= permutations <= MAX_PERMUTATIONS:
        raise ValueError(f"permutations={permutations} must be between 1 and "
                         f"{MAX_PERMUTATIONS:,}")
    d = np.asarray(differences, dtype=float).ravel()
    if not np.isfinite(d).all():
        raise ValueError("paired differences must be finite numbers")
    nonzero = d[np.abs(d) > TIE]
    k = int(nonzero.size)
    floor = smallest_p(k, permutations)
    if k == 0:
        return SignFlip(1.0, int(d.size), 0, True, 1, 0.0, 1.0)
    observed = abs(float(nonzero.sum())) - 1e-9
    if k < 63 and 2 ** k <= permutations:
        total = 2 ** k
        bits = (np.arange(total, dtype=np.int64)[:, None] >> np.arange(k)) & 1
        sums = np.abs((1 - 2 * bits).astype(float) @ nonzero)
        count = int(np.count_nonzero(sums >= observed))
        return SignFlip(count / total, int(d.size), k, True, total, 0.0, floor)
    rng = np.random.default_rng(seed)
    count = 0
    step = max(1, _DRAW_BLOCK // k)
    for start in range(0, permutations, step):
        rows = min(step, permutations - start)
        signs = rng.integers(0, 2, size=(rows, k), dtype=np.int8) * 2 - 1
        count += int(np.count_nonzero(np.abs(signs @ nonzero) >= observed))
    p = (count + 1) / (permutations + 1)
    error = math.sqrt(p * (1.0 - p) / permutations)
    return SignFlip(p, int(d.size), k, False, permutations, error, floor)


def adjust(p_values: Sequence[float | None], correction: str = "holm") -> tuple[float | None, ...]:
    """``p_values`` after ``correction``: ``"holm"`` (:func:`holm`) or ``"none"`` (as given).

    Raises ``ValueError`` for another correction.
    """
    if correction == "holm":
        return holm(p_values)
    if correction == "none":
        return tuple(p_values)
    raise ValueError(f"correction={correction!r} is not 'holm' or 'none'")


def near_alpha(tests: Sequence[SignFlip | None], alpha: float,
               correction: str = "holm") -> tuple[bool, ...]:
    """Which corrected decisions lie within Monte Carlo error of ``alpha``.

    Every raw p-value is moved down, then up, by ``MC_Z`` of its standard errors (exact
    tests do not move) and corrected again; a decision (adjusted p < ``alpha``) that is
    not the same at both ends is within Monte Carlo error: another seed may change it.
    ``None`` entries (no test) are never near. Raises as :func:`adjust`.
    """
    low = adjust([None if t is None else max(0.0, t.p_value - MC_Z * t.mc_error)
                  for t in tests], correction)
    high = adjust([None if t is None else min(1.0, t.p_value + MC_Z * t.mc_error)
                   for t in tests], correction)
    return tuple(a is not None and b is not None and (a < alpha) != (b < alpha)
                 for a, b in zip(low, high, strict=True))


def paired_comparison(
    a: Sequence[float | None],
    b: Sequence[float | None],
    samples_a: np.ndarray | None,
    samples_b: np.ndarray | None,
    estimate: float,
    *,
    confidence: float = DEFAULT_CONFIDENCE,
    permutations: int = DEFAULT_PERMUTATIONS,
    seed: int = DEFAULT_SEED,
) -> Difference:
    """The paired difference ``a - b``: bootstrap percentile interval, sign-flip p-value.

    Parameters
    ----------
    a, b : sequences of n_documents floats in [0, 1] or None
        Document scores in the same order; the test uses the documents scored for both.
    samples_a, samples_b : ndarray of shape (resamples,), or None
        Two rows of one :func:`bootstrap_macro` call; ``None`` leaves the interval out.
    estimate : float
        ``a - b`` on the full sample, in [-1, 1].
    confidence, permutations, seed
        As :func:`percentile_interval` and :func:`sign_flip_test`.

    Returns
    -------
    Difference
        ``p_value`` and ``test`` from :func:`sign_flip_test` [7]_; ``None`` (with
        ``test``) when no document is scored for both.

    Raises
    ------
    ValueError
        As :func:`paired_differences`, :func:`percentile_interval`, :func:`sign_flip_test`.
    """
    low = high = None
    if samples_a is not None and samples_b is not None:
        if samples_a.shape != samples_b.shape:
            raise ValueError("paired samples must come from the same draws")
        low, high = percentile_interval(samples_a - samples_b, confidence=confidence)
    diffs = paired_differences(a, b)
    if diffs.size == 0:
        return Difference(estimate, low, high, None)
    test = sign_flip_test(diffs, permutations=permutations, seed=seed)
    return Difference(estimate, low, high, test.p_value, test)


def paired_differences(a: Sequence[float | None], b: Sequence[float | None]) -> np.ndarray:
    """Per-document differences ``a - b`` over the documents scored for both.

    Parameters
    ----------
    a, b : sequences of n_documents floats in [0, 1] or None
        Document scores in the same order; ``None`` (not scored) drops that document.

    Returns
    -------
    ndarray of shape (n_paired,), floats in [-1, 1]

    Raises
    ------
    ValueError
        If the sequences differ in length.
    """
    import numpy as np  # loaded by the first statistic: reading a cached run needs none
    if len(a) != len(b):
        raise ValueError("paired scores need one slot per document on both sides")
    return np.array([x - y for x, y in zip(a, b, strict=True)
                     if x is not None and y is not None], dtype=float)


def _z_total(alpha: float, power: float) -> float:
    """``z_{1-alpha/2} + z_{power}`` (standard normal quantiles); checks both ranges."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha={alpha} must be between 0 and 1")
    if not 0.0 < power < 1.0:
        raise ValueError(f"power={power} must be between 0 and 1")
    from scipy.stats import norm  # 0.4 s to import: loaded by the one function using it

    return float(norm.ppf(1.0 - alpha / 2.0) + norm.ppf(power))


def min_detectable_difference(sd: float, n: int, *, alpha: float = DEFAULT_ALPHA,
                              power: float = DEFAULT_POWER) -> float:
    """Smallest true mean difference a paired test on ``n`` documents detects.

    Normal approximation of the two-sided paired t-test [5]_ [6]_:
    ``MDD = (z_{1-alpha/2} + z_{power}) * sd / sqrt(n)``. At alpha 0.05 and power 0.8
    the factor is 1.959964 + 0.841621 = 2.801585.

    Parameters
    ----------
    sd : float
        Standard deviation of the per-document differences, >= 0 (scores in [0, 1],
        so sd is in [0, 1] and so is the result's unit).
    n : int
        Documents, >= 1.
    alpha : float, default=0.05
        Two-sided significance level, in (0, 1).
    power : float, default=0.8
        Wanted power, in (0, 1).

    Returns
    -------
    float, >= 0, in the unit of ``sd``

    Raises
    ------
    ValueError
        If ``sd < 0``, ``n < 1``, or alpha or power is outside (0, 1).
    """
    if sd < 0 or not math.isfinite(sd):
        raise ValueError(f"sd={sd} must be a finite number >= 0")
    if n < 1:
        raise ValueError(f"n={n} must be at least 1")
    return _z_total(alpha, power) * sd / math.sqrt(n)


def documents_needed_exact(delta: float, sd: float, *, alpha: float = DEFAULT_ALPHA,
                           power: float = DEFAULT_POWER) -> float:
    """``n = ((z_{1-alpha/2} + z_{power}) * sd / delta)^2`` unrounded [5]_ (for tests
    against other implementations; :func:`documents_needed` rounds it up).

    Raises ``ValueError`` if ``delta <= 0``, ``sd < 0`` or alpha/power outside (0, 1).
    """
    if not delta > 0 or not math.isfinite(delta):
        raise ValueError(f"delta={delta} must be a number > 0")
    if sd < 0 or not math.isfinite(sd):
        raise ValueError(f"sd={sd} must be a finite number >= 0")
    return (_z_total(alpha, power) * sd / delta) ** 2


def documents_needed(delta: float, sd: float, *, alpha: float = DEFAULT_ALPHA,
                     power: float = DEFAULT_POWER) -> int:
    """Documents a paired comparison needs to detect a true difference ``delta``.

    ``ceil(((z_{1-alpha/2} + z_{power}) * sd / delta)^2)`` [5]_, and at least 2 (a
    standard deviation needs two documents).

    Parameters
    ----------
    delta : float
        The difference to detect, > 0, in score units (0.01 = 1 point).
    sd : float
        Standard deviation of the per-document differences, >= 0.
    alpha, power : float
        As :func:`min_detectable_difference`.

    Returns
    -------
    int, >= 2

    Raises
    ------
    ValueError
        As :func:`documents_needed_exact`.
    """
    exact = documents_needed_exact(delta, sd, alpha=alpha, power=power)
    return max(2, math.ceil(exact - 1e-9))  # 1e-9: float noise must not add a document


def bootstrap_power(differences: np.ndarray, shift: float, *, n: int | None = None,
                    alpha: float = DEFAULT_ALPHA, resamples: int = DEFAULT_RESAMPLES,
                    seed: int = DEFAULT_SEED) -> float:
    """Simulated power of the paired test when the true mean difference is ``shift``.

    The observed differences are centred on ``shift`` (``d - mean(d) + shift``: their
    spread and shape kept, the truth set), ``n`` documents are drawn with replacement
    ``resamples`` times [1]_, and each draw is tested two-sided at ``alpha`` with the
    statistic of the formula, ``mean / (s / sqrt(n))`` (``s`` the draw's standard
    deviation, ddof 1) against ``z_{1-alpha/2}``; a draw with ``s == 0`` rejects when its
    mean is not 0. At ``shift`` = :func:`min_detectable_difference` the result should
    be close to the wanted power: this checks the normal approximation on the real,
    often skewed, distribution of differences.

    Parameters
    ----------
    differences : ndarray of shape (n_paired,)
        Observed per-document differences (:func:`paired_differences`), n_paired >= 2.
    shift : float
        True mean difference to simulate, in the unit of ``differences``.
    n : int, optional
        Documents per draw, >= 2; default ``n_paired``.
    alpha : float, default=0.05
    resamples : int, default=1000
    seed : int, default=12345

    Returns
    -------
    float in [0, 1]: the share of draws in which the test rejects "no difference".

    Raises
    ------
    ValueError
        If fewer than 2 differences, ``n < 2``, ``resamples < 1`` or alpha outside (0, 1).
    """
    import numpy as np  # loaded by the first statistic: reading a cached run needs none
    d = np.asarray(differences, dtype=float)
    if d.size < 2:
        raise ValueError("a simulated power needs at least two paired documents")
    size = d.size if n is None else n
    if size < 2:
        raise ValueError(f"n={size} must be at least 2")
    if resamples < 1:
        raise ValueError(f"resamples={resamples} must be at least 1")
    critical = _z_total(alpha, 0.5)  # z_{0.5} = 0: the two-sided critical value alone
    centred = d - d.mean() + shift
    rng = np.random.default_rng(seed)
    means, spread = np.empty(resamples), np.empty(resamples)
    # Drawn a block of resamples at a time: the generator's stream and each row's mean
    # and deviation are those of one draw of the whole table, without the two
    # resamples x n tables (indices and values, 320 MB at 20,000 documents) at once.
    step = max(1, _DRAW_BLOCK // size)
    for start in range(0, resamples, step):
        rows = min(step, resamples - start)
        draws = centred[rng.integers(0, d.size, size=(rows, size))]
        means[start:start + rows] = draws.mean(axis=1)
        spread[start:start + rows] = draws.std(axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        statistic = np.abs(means) / (spread / math.sqrt(size))
    reject = np.where(spread > TIE, statistic > critical, np.abs(means) > TIE)
    return float(reject.mean())


def null_rejection_rate(differences: Sequence[float] | np.ndarray, n: int, *,
                        trials: int = 200, alpha: float = DEFAULT_ALPHA,
                        permutations: int = DEFAULT_PERMUTATIONS,
                        seed: int = DEFAULT_SEED) -> float:
    """Share of null benchmarks on which :func:`sign_flip_test` rejects at ``alpha``.

    A calibration check of the paired test on a real benchmark's spread [7]_: each of
    ``trials`` null benchmarks draws ``n`` of the observed per-document differences
    without replacement and gives each a random sign, so the true mean difference is 0
    and the differences keep their real sizes, skew and zeros. A calibrated test rejects
    on at most about ``alpha`` of them. Trial ``t`` uses ``default_rng([seed, t])`` for
    its documents and signs and seed ``seed + t`` for its test, so the rate is
    deterministic for a seed.

    Parameters
    ----------
    differences : sequence of floats in [-1, 1]
        Observed per-document differences of one pair (:func:`paired_differences`).
    n : int
        Documents per null benchmark, 1..len(differences).
    trials : int, default=200
        Null benchmarks, >= 1.
    alpha, permutations, seed
        As :func:`sign_flip_test`; ``alpha`` in (0, 1).

    Returns
    -------
    float in [0, 1]

    Raises
    ------
    ValueError
        If ``n`` or ``trials`` is out of range, alpha outside (0, 1), or as
        :func:`sign_flip_test`.
    """
    import numpy as np  # loaded by the first statistic: reading a cached run needs none
    d = np.asarray(differences, dtype=float).ravel()
    if not 1 <= n <= d.size:
        raise ValueError(f"n={n} must be between 1 and {d.size}")
    if trials < 1:
        raise ValueError(f"trials={trials} must be at least 1")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha={alpha} must be between 0 and 1")
    rejected = 0
    for trial in range(trials):
        rng = np.random.default_rng([seed, trial])
        chosen = d[rng.permutation(d.size)[:n]]
        signs = rng.integers(0, 2, size=n) * 2 - 1
        test = sign_flip_test(chosen * signs, permutations=permutations, seed=seed + trial)
        rejected += test.p_value < alpha
    return rejected / trials
