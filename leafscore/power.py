"""What differences a benchmark can detect: the power of paired comparisons of systems.

Read from a ``Run``'s stored document scores; nothing is rescored. The design is paired:
two systems are scored on the same documents, so what matters is the spread ``sd`` of
the per-document differences ``d_i = a_i - b_i`` (``stats.paired_differences``, sample
standard deviation, ddof 1), not the spread of either system's scores.

- **Formula** (normal approximation of the two-sided paired t-test; Chow, Shao & Wang,
  *Sample Size Calculations in Clinical Research*, §3.1; Cohen 1988, ch. 2):
  ``MDD = (z_{1-alpha/2} + z_{power}) * sd / sqrt(n)`` is the smallest true difference
  detected with the given power on ``n`` documents, and
  ``n = ((z_{1-alpha/2} + z_{power}) * sd / delta)^2`` (rounded up) the documents needed
  to detect ``delta`` (``stats.min_detectable_difference``, ``stats.documents_needed``).
- **Pairs**: the leader against every other system, and each pair of adjacent ranks
  (a pair that is both is listed once); ranks as on the leaderboard.
- **The benchmark's sd** (the headline): the median of ``sd`` over the pairs of adjacent
  ranks, the comparisons a ranking rests on (neighbours differ least, so far-apart
  pairs would overstate the spread that matters), or the ``sd`` given; its MDD is at the
  benchmark's size, the number of documents. The median over every pair of scored
  systems is reported beside it (``sd_all_pairs``, ``mdd_all_pairs``).
- **Zero spread**: an sd of 0 (identical systems, or differences that never vary)
  makes the formula's MDD 0 and its documents needed 1, which claim nothing: both are
  undefined (``None``) and the pair says why.
- **Check**: for each listed pair, the power of the test at that pair's MDD simulated by
  resampling its own observed differences (``stats.bootstrap_power``); close to the
  wanted power when the normal approximation holds for that pair.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from leafscore import stats
from leafscore.leaderboard import ranking
from leafscore.signature import with_bootstrap

if TYPE_CHECKING:  # annotations only: numpy is loaded where a statistic is computed
    import numpy as np


@dataclass(frozen=True)
class PairPower:
    """The power of comparing systems ``a`` (ranked higher) and ``b``.

    ``relation``: ``"leader"``, ``"adjacent"`` or ``"leader, adjacent"``; ``documents``:
    how many documents both are scored on; ``mean_difference``: ``a - b`` over them, in
    [-1, 1]; ``sd``: the standard deviation of the differences (``None`` below two
    documents); ``mdd``: the minimum detectable difference at ``documents``;
    ``needed``: documents needed for the analysis's ``delta``; ``simulated_power``: the
    bootstrap power at ``mdd`` (``None`` when ``sd`` is undefined or 0); ``mdd`` and
    ``needed`` are ``None`` when ``sd`` is undefined or 0, ``undefined`` then saying why
    (empty otherwise). Differences are fractions (0.01 = 1 point).
    """

    a: str
    b: str
    relation: str
    documents: int
    mean_difference: float | None
    sd: float | None
    mdd: float | None
    needed: int | None
    simulated_power: float | None
    undefined: str = ""


@dataclass(frozen=True)
class PowerAnalysis:
    """The power analysis of one run.

    ``documents``: the benchmark's size; ``sd``: the headline sd (``sd_source`` says
    whether it is the median over ``pairs_pooled`` adjacent pairs or given); ``mdd``:
    the minimum detectable difference at ``documents``; ``needed``: documents for
    ``delta``; ``sd_all_pairs``/``mdd_all_pairs``/``needed_all_pairs`` the same from the
    median over all ``pairs_all`` pairs of scored systems; ``pairs``: the listed pairs
    in rank order. ``None`` where undefined (fewer than two scored systems and no sd
    given, or a zero sd).
    """

    version: str
    documents: int
    alpha: float
    power: float
    delta: float
    sd: float | None
    sd_source: str
    pairs_pooled: int
    mdd: float | None
    needed: int | None
    pairs: tuple[PairPower, ...]
    resamples: int
    seed: int
    signature: str
    sd_all_pairs: float | None = None
    mdd_all_pairs: float | None = None
    needed_all_pairs: int | None = None
    pairs_all: int = 0


def listed_pairs(order: tuple[str, ...]) -> tuple[tuple[str, str, str], ...]:
    """(a, b, relation) for the leader against each system, then adjacent ranks; a pair
    that is both is listed once as ``"leader, adjacent"``.

    >>> listed_pairs(("x", "y", "z"))
    (('x', 'y', 'leader, adjacent'), ('x', 'z', 'leader'), ('y', 'z', 'adjacent'))
    """
    out: dict[tuple[str, str], list[str]] = {}
    for other in order[1:]:
        out.setdefault((order[0], other), []).append("leader")
    for upper, lower in itertools.pairwise(order):
        out.setdefault((upper, lower), []).append("adjacent")
    return tuple((a, b, ", ".join(kinds)) for (a, b), kinds in out.items())


def _sd(differences: np.ndarray) -> float | None:
    return float(differences.std(ddof=1)) if differences.size >= 2 else None


def pair_power(run: Any, a: str, b: str, relation: str, *, delta: float, alpha: float,
               power: float, resamples: int, seed: int) -> PairPower:
    """The :class:`PairPower` of ``a`` against ``b`` in ``run`` (see the module)."""
    diffs = stats.paired_differences(run.document_scores(a), run.document_scores(b))
    sd = _sd(diffs)
    mdd = needed = simulated = None
    why = ""
    if sd is None:
        why = f"{diffs.size} paired document(s): a standard deviation needs two"
    elif sd <= stats.TIE:
        why = "the differences do not vary (sd 0): nothing to extrapolate from"
    else:
        mdd = stats.min_detectable_difference(sd, diffs.size, alpha=alpha, power=power)
        needed = stats.documents_needed(delta, sd, alpha=alpha, power=power)
        simulated = stats.bootstrap_power(diffs, mdd, alpha=alpha, resamples=resamples,
                                          seed=seed)
    mean = float(diffs.mean()) if diffs.size else None
    return PairPower(a, b, relation, int(diffs.size), mean, sd, mdd, needed, simulated, why)


def _figures(sd: float | None, n: int, *, delta: float, alpha: float,
             power: float) -> tuple[float | None, int | None]:
    """(MDD on ``n`` documents, documents needed for ``delta``) of ``sd``; both ``None``
    when ``sd`` is undefined or 0."""
    if sd is None or sd <= stats.TIE:
        return None, None
    return (stats.min_detectable_difference(sd, n, alpha=alpha, power=power),
            stats.documents_needed(delta, sd, alpha=alpha, power=power))


def analyse(run: Any, *, sd: float | None = None, delta: float = 0.01,
            alpha: float = stats.DEFAULT_ALPHA, power: float = stats.DEFAULT_POWER,
            resamples: int = stats.DEFAULT_RESAMPLES,
            seed: int = stats.DEFAULT_SEED) -> PowerAnalysis:
    """The power analysis of ``run``.

    Parameters
    ----------
    run : leafscore.run.Run
        At least one document.
    sd : float, optional
        The sd of per-document differences to assume, >= 0 (a fraction); default the
        median over every pair of scored systems.
    delta : float, default=0.01
        The difference for which ``needed`` is computed, > 0 (0.01 = 1 point).
    alpha : float, default=0.05
        Two-sided significance level, in (0, 1).
    power : float, default=0.8
        Wanted power, in (0, 1).
    resamples, seed
        Of the simulation check (``stats.bootstrap_power``); in the signature.

    Returns
    -------
    PowerAnalysis

    Raises
    ------
    ValueError
        If the run has no document, ``sd < 0``, ``delta <= 0``, alpha or power outside
        (0, 1), or ``resamples < 1``.
    """
    import numpy as np  # loaded by the first statistic: reading a cached run needs none
    if not run.documents:
        raise ValueError("a power analysis needs at least one document")
    if sd is not None and not sd >= 0:
        raise ValueError(f"--sd {sd} must be a number >= 0")
    if not delta > 0:
        raise ValueError(f"--delta {delta} must be a number > 0 (0.01 = 1 point)")
    if resamples < 1:
        raise ValueError(f"resamples={resamples} must be at least 1")
    stats.min_detectable_difference(0.0, 1, alpha=alpha, power=power)  # checks both
    order = tuple(s for s in ranking(run) if run.system_score(s) is not None)
    pairs = tuple(pair_power(run, a, b, relation, delta=delta, alpha=alpha, power=power,
                             resamples=resamples, seed=seed)
                  for a, b, relation in listed_pairs(order))
    pooled = [_sd(stats.paired_differences(run.document_scores(a), run.document_scores(b)))
              for a, b in itertools.combinations(order, 2)]
    every = [v for v in pooled if v is not None]
    adjacent = [p.sd for p in pairs if "adjacent" in p.relation and p.sd is not None]
    if sd is not None:
        chosen, source = float(sd), "given"
    elif adjacent:
        chosen = float(np.median(adjacent))
        source = f"median of {len(adjacent)} adjacent pair(s)"
    else:
        chosen, source = None, "undefined: fewer than two scored systems"
    if chosen is not None and chosen <= stats.TIE:
        source += "; undefined: the sd is 0"
    n = len(run.documents)
    mdd, needed = _figures(chosen, n, delta=delta, alpha=alpha, power=power)
    sd_all = float(np.median(every)) if every else None
    mdd_all, needed_all = _figures(sd_all, n, delta=delta, alpha=alpha, power=power)
    return PowerAnalysis(
        version=run.version, documents=n, alpha=alpha, power=power, delta=delta,
        sd=chosen, sd_source=source, pairs_pooled=len(adjacent), mdd=mdd, needed=needed,
        pairs=pairs, resamples=resamples, seed=seed,
        signature=with_bootstrap(run.signature, resamples=resamples, seed=seed),
        sd_all_pairs=sd_all, mdd_all_pairs=mdd_all, needed_all_pairs=needed_all,
        pairs_all=len(every))
