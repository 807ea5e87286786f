"""Base versus head: per-field change, flipped documents, interval of the change, regression.

``base`` and ``head`` are two systems of one ``Run``, or one system in each of two Runs
of the same benchmark (same scoring version, options, documents, schemas and labels).
All numbers are read from stored document scores; nothing is rescored.

- **Change**: ``head - base`` of the macro accuracies (``Run.system_score``), with the
  percentile interval of a paired bootstrap over documents (Koehn 2004) and the p-value
  of the two-sided paired sign-flip permutation test of the per-document differences
  (``stats.paired_comparison``, Noreen 1989).
- **Flipped documents**: documents whose score moved by more than ``tolerance``, or that
  are scored on one side only (version 1.0, a missing result).
- **Drop**: ``change < -tolerance``, decided on unrounded values; a head with no scored
  document against a base with one is a drop.
- **Regression**: a drop that the paired test calls significant (``p < alpha``); a head
  with nothing scored against a scored base is always one. ``--fail-on-regression``
  fails on a regression, ``--fail-on-any-drop`` on any drop.
- **Fields** (version 2.0 only): F1 of every field path before and after.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from leafscore import stats
from leafscore.fields import system_fields
from leafscore.signature import with_bootstrap


@dataclass(frozen=True)
class FieldChange:
    """F1 of one field path before and after: floats in [0, 1] or ``None`` (0/0, or absent).

    ``change`` is ``head - base``, ``None`` unless both are defined.
    """

    field: str
    base: float | None
    head: float | None

    @property
    def change(self) -> float | None:
        """``head - base`` in [-1, 1], or ``None``."""
        return None if self.base is None or self.head is None else self.head - self.base


@dataclass(frozen=True)
class Flip:
    """A document whose score moved: scores in [0, 1], ``None`` where not scored."""

    document: str
    base: float | None
    head: float | None

    @property
    def change(self) -> float | None:
        """``head - base`` in [-1, 1], or ``None`` when one side is not scored."""
        return None if self.base is None or self.head is None else self.head - self.base


@dataclass(frozen=True)
class Diff:
    """The comparison of ``head`` against ``base``.

    ``base``/``head`` name the sides; ``base_score``/``head_score`` macro accuracies in
    [0, 1] (``None`` when nothing is scored); ``change`` the paired difference
    ``head - base``; ``fields`` per-field F1 changes, biggest drop first (``None`` under
    version 1.0); ``flipped`` documents, biggest drop first; ``drop`` True when head
    is below base by more than ``tolerance``; ``regression`` True when that drop is
    also significant at ``alpha`` (module docstring); ``signature`` the base run's,
    with the bootstrap used; ``documents`` the documents scored on both sides, on which
    ``change`` rests.
    """

    base: str
    head: str
    base_score: float | None
    head_score: float | None
    change: stats.Difference
    fields: tuple[FieldChange, ...] | None
    flipped: tuple[Flip, ...]
    tolerance: float
    regression: bool
    signature: str
    documents: int = 0
    drop: bool = False
    alpha: float = stats.DEFAULT_ALPHA

    @property
    def warning(self) -> str | None:
        """The small-sample warning line (``stats.small_sample_warning``), or None."""
        return stats.small_sample_warning(self.documents)


def check_comparable(base_run: Any, head_run: Any) -> None:
    """Raise ``ValueError`` unless two runs score the same benchmark the same way.

    Compared: scoring version, options, document ids, and the sha256 of every schema and
    label (``Run.digests`` entries under ``schemas/`` and ``labels/``).
    """
    if base_run is head_run:
        return
    if base_run.version != head_run.version:
        raise ValueError(f"base is version {base_run.version}, head is version {head_run.version}")
    if base_run.options != head_run.options:
        raise ValueError("base and head were scored with different options")
    if tuple(base_run.documents) != tuple(head_run.documents):
        only = sorted(set(base_run.documents) ^ set(head_run.documents))
        raise ValueError(f"base and head hold different documents: {', '.join(only[:5])}")
    if _inputs(base_run.digests) != _inputs(head_run.digests):
        raise ValueError("base and head differ in their schemas or labels")


def compare(
    base_run: Any,
    base_system: str,
    head_run: Any,
    head_system: str,
    *,
    tolerance: float = 0.0,
    resamples: int = stats.DEFAULT_RESAMPLES,
    seed: int = stats.DEFAULT_SEED,
    confidence: float = stats.DEFAULT_CONFIDENCE,
    names: tuple[str, str] | None = None,
    permutations: int = stats.DEFAULT_PERMUTATIONS,
    alpha: float = stats.DEFAULT_ALPHA,
) -> Diff:
    """Compare ``head_system`` of ``head_run`` against ``base_system`` of ``base_run``.

    Parameters
    ----------
    base_run, head_run : leafscore.run.Run
        The same run twice, or two comparable runs (``check_comparable``).
    base_system, head_system : str
        A system of each run.
    tolerance : float, default=0.0
        Non-negative, in score units ([0, 1]): a document flips when its score moves by
        more than this; a regression is a drop of more than this.
    resamples, seed, confidence
        Bootstrap settings (``stats.bootstrap_macro``); ``seed`` also seeds the test.
    names : (str, str), optional
        Labels of the two sides; default the system names.
    permutations : int, default=10000
        Random sign patterns of the paired test (``stats.sign_flip_test``).
    alpha : float, default=0.05
        Significance level of the regression decision, in (0, 1).

    Raises
    ------
    ValueError
        If the runs are not comparable, ``tolerance < 0``, alpha is outside (0, 1), or a
        bootstrap or test setting is bad.
    KeyError
        If a system is not in its run.
    """
    if tolerance < 0:
        raise ValueError(f"tolerance={tolerance} must be non-negative")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha={alpha} must be between 0 and 1")
    check_comparable(base_run, head_run)
    for run, system in ((base_run, base_system), (head_run, head_system)):
        if system not in run.systems:
            raise KeyError(f"no system {system!r}; systems: {', '.join(run.systems)}")
    base_docs = base_run.document_scores(base_system)
    head_docs = head_run.document_scores(head_system)
    base_score = base_run.system_score(base_system)
    head_score = head_run.system_score(head_system)
    if base_score is None or head_score is None:
        change = stats.Difference(float("nan"), None, None, None)
    else:
        matrix = stats.score_matrix([base_docs, head_docs])
        samples = stats.bootstrap_macro(matrix, resamples=resamples, seed=seed)
        change = stats.paired_comparison(
            head_docs, base_docs, samples[1], samples[0], head_score - base_score,
            confidence=confidence, permutations=permutations, seed=seed)
    base_name, head_name = names or (base_system, head_system)
    return Diff(
        base=base_name,
        head=head_name,
        base_score=base_score,
        head_score=head_score,
        change=change,
        fields=_field_changes(base_run, base_system, head_run, head_system),
        flipped=flips(base_run.documents, base_docs, head_docs, tolerance=tolerance),
        tolerance=tolerance,
        regression=is_significant_regression(base_score, head_score, change,
                                             tolerance=tolerance, alpha=alpha),
        signature=with_bootstrap(base_run.signature, resamples=resamples, seed=seed),
        documents=int(stats.paired_differences(base_docs, head_docs).size),
        drop=is_regression(base_score, head_score, tolerance=tolerance),
        alpha=alpha,
    )


def flips(
    documents: tuple[str, ...],
    base: list[float | None],
    head: list[float | None],
    *,
    tolerance: float = 0.0,
) -> tuple[Flip, ...]:
    """Documents whose score moved by more than ``tolerance``, biggest drop first.

    A document scored on one side only always flips (listed after the others); ties in
    the change are ordered by document id.
    """
    out = []
    for doc, before, after in zip(documents, base, head, strict=True):
        if before is None and after is None:
            continue
        if before is None or after is None or abs(after - before) > tolerance:
            out.append(Flip(doc, before, after))
    return tuple(sorted(out, key=lambda f: (f.change is None, f.change or 0.0, f.document)))


def is_regression(base: float | None, head: float | None, *, tolerance: float = 0.0) -> bool:
    """True when ``head`` is below ``base`` by more than ``tolerance`` (unrounded).

    Scores in [0, 1]; ``head is None`` (nothing scored) against a scored base is a
    regression; a base with nothing scored never is.
    """
    if base is None:
        return False
    if head is None:
        return True
    return head - base < -tolerance


def is_significant_regression(base: float | None, head: float | None,
                              change: stats.Difference, *, tolerance: float = 0.0,
                              alpha: float = stats.DEFAULT_ALPHA) -> bool:
    """True when ``head`` drops below ``base`` by more than ``tolerance``
    (:func:`is_regression`) and the paired test of ``change`` is significant
    (``change.p_value < alpha``); a head with nothing scored against a scored base always
    is. Scores in [0, 1], ``alpha`` in (0, 1).
    """
    if not is_regression(base, head, tolerance=tolerance):
        return False
    return head is None or change.significant(alpha)


def _field_changes(
    base_run: Any, base_system: str, head_run: Any, head_system: str
) -> tuple[FieldChange, ...] | None:
    try:
        before = {r.field: r.f1 for r in system_fields(base_run, base_system)}
        after = {r.field: r.f1 for r in system_fields(head_run, head_system)}
    except ValueError:
        return None
    paths = sorted(before.keys() | after.keys())
    rows = [FieldChange(f, before.get(f), after.get(f)) for f in paths]
    return tuple(sorted(rows, key=lambda r: (r.change is None, r.change or 0.0, r.field)))


def _inputs(digests: Any) -> dict[str, str]:
    return {p: h for p, h in digests.items() if p.startswith(("schemas/", "labels/"))}

