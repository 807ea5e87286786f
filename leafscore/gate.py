"""CI gates: thresholds -> the list of every failure, decided on unrounded values.

A gate compares one system's macro accuracy against ``min_score`` and each listed field's
F1 against its own minimum (``--field-min PATH=X``). Thresholds and values are floats in
[0, 1]. The decision uses the stored floats; :func:`percent_against` prints a value in
percent with as many digits as it takes for the printed figure to sit on the same side
of the threshold as the value itself (0.98684 against 0.99 prints ``98.7%``, never
``99.0%``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from leafscore import diff as diff_mod
from leafscore import stats
from leafscore.fields import field_table, normalize_field_path

#: What ``Failure.target`` holds for the overall score.
SCORE = "score"
#: The most decimals ``percent_against`` tries before printing the exact value.
MAX_DECIMALS = 17


@dataclass(frozen=True)
class Check:
    """One threshold applied, met or not.

    ``target`` is ``"score"`` or a field path; ``value`` the unrounded score or F1 in
    [0, 1] (``None`` when it is undefined: nothing scored); ``minimum`` the threshold.
    """

    target: str
    value: float | None
    minimum: float

    @property
    def passed(self) -> bool:
        """True when ``value >= minimum``; an undefined value never passes."""
        return self.value is not None and self.value >= self.minimum

    @property
    def message(self) -> str:
        """One line for a person, in percent (:func:`percent_against`): ``score 98.7% is
        below the minimum 99%`` when not met, ``score 98.9% >= 95%`` when met."""
        what = "score" if self.target == SCORE else f"field {self.target}: F1"
        minimum = percent_threshold(self.minimum)
        if self.value is None:
            return f"{what} is undefined (nothing scored); minimum {minimum}"
        shown = percent_against(self.value, self.minimum)
        if self.passed:
            return f"{what} {shown} >= {minimum}"
        return f"{what} {shown} is below the minimum {minimum}"


#: A check that was not met: what :func:`gate` returns (the name callers know).
Failure = Check


def parse_field_min(text: str) -> tuple[str, float]:
    """Read a ``PATH=X`` option: field path and minimum F1 in [0, 1].

    The path is everything before the last ``=``, so a path may itself hold ``=``. A
    member name holding ``.`` ``[`` ``]`` ``"`` ``\\`` is written ``["<name>"]``, as the
    scorer writes it; the path comes back in the scorer's own spelling.

    >>> parse_field_min("lines[].qty=0.9")
    ('lines[].qty', 0.9)
    >>> parse_field_min('["a.b"]=0.5')
    ('["a.b"]', 0.5)

    Raises
    ------
    ValueError
        If there is no ``=``, the path is empty, or X is not a number in [0, 1].
    """
    path, sep, number = text.rpartition("=")
    if not sep or not path:
        raise ValueError(f"--field-min {text!r} is not PATH=X")
    return normalize_field_path(path), check_threshold(number, name=f"--field-min {path}")


def check_threshold(value: Any, *, name: str = "threshold") -> float:
    """``value`` as a float in [0, 1]; raises ``ValueError`` naming ``name`` otherwise."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name}={value!r} is not a number") from None
    if not 0.0 <= number <= 1.0:
        raise ValueError(f"{name}={value!r} must be between 0 and 1 (a fraction, not a percent)")
    return number + 0.0  # -0.0 becomes 0.0, so it never prints as "-0%"


def gate(
    run: Any,
    system: str,
    *,
    min_score: float | None = None,
    field_min: Iterable[tuple[str, float]] = (),
) -> tuple[Check, ...]:
    """Every threshold ``system`` fails in ``run``: the overall score first, then fields.

    The checks of :func:`checks` that are not met; same parameters and errors.

    Returns
    -------
    tuple of Check (``Failure``), empty when every threshold is met (``value >= minimum``).
    """
    return tuple(c for c in checks(run, system, min_score=min_score, field_min=field_min)
                 if not c.passed)


def checks(
    run: Any,
    system: str,
    *,
    min_score: float | None = None,
    field_min: Iterable[tuple[str, float]] = (),
) -> tuple[Check, ...]:
    """Every threshold applied to ``system`` in ``run``, met or not: the overall score
    first, then fields in the order given.

    Parameters
    ----------
    run : leafscore.run.Run
    system : str
    min_score : float in [0, 1], optional
        Minimum macro accuracy (``Run.system_score``); a system with nothing scored fails.
    field_min : iterable of (field path, minimum F1 in [0, 1])
        Needs version 2.0; a field whose F1 is undefined (0/0) fails.

    Returns
    -------
    tuple of Check, one per threshold given (``Check.passed`` says whether it is met).

    Raises
    ------
    ValueError
        If a threshold is outside [0, 1], a field path is not in the run, or field
        minimums are asked of a version-1.0 run.
    KeyError
        If ``system`` is not in the run.
    """
    if system not in run.systems:
        raise KeyError(f"no system {system!r}; systems: {', '.join(run.systems)}")
    applied = []
    if min_score is not None:
        minimum = check_threshold(min_score, name="--min-score")
        applied.append(Check(SCORE, run.system_score(system), minimum))
    wanted = [(normalize_field_path(path), check_threshold(x, name=f"--field-min {path}"))
              for path, x in field_min]
    if wanted:
        rows = {row.field: row for row in field_table(run, system)}
        unknown = [path for path, _ in wanted if path not in rows]
        if unknown:
            raise ValueError(
                f"no field {', '.join(map(repr, unknown))} in {system}; "
                f"fields: {', '.join(sorted(rows))}"
            )
        applied.extend(Check(path, rows[path].f1, minimum) for path, minimum in wanted)
    return tuple(applied)


def _percent_text(number: Decimal) -> str:
    """A decimal number as plain text: no exponent, no trailing zeros after the point,
    and no sign on a zero (``Decimal(-0.0)`` would print ``-0``)."""
    text = format(abs(number) if number == 0 else number, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def percent_threshold(threshold: float) -> str:
    """A threshold given as a fraction, in percent exactly as given: 0.95 -> ``95%``,
    0.955 -> ``95.5%`` (the shortest text of the float, times 100, in decimal)."""
    return _percent_text(Decimal(repr(float(threshold))) * 100) + "%"


def points(tolerance: float) -> str:
    """A tolerance given as a fraction, in points: 0.01 -> ``1 point``, 0.005 -> ``0.5
    points``, 0 -> ``0 points``."""
    text = _percent_text(Decimal(repr(float(tolerance))) * 100)
    return f"{text} point" if text == "1" else f"{text} points"


def percent_against(value: float, threshold: float, *, decimals: int = 1) -> str:
    """``value`` (a fraction) in percent with the fewest decimals, at least ``decimals``,
    that keep the printed figure on the same side of ``threshold`` as ``value`` (``>=``
    passes), compared exactly in decimal.

    >>> percent_against(0.98684, 0.99)
    '98.7%'
    >>> percent_against(0.991, 0.99)
    '99.1%'
    >>> percent_against(0.9949, 0.995)
    '99.49%'
    """
    passes = value >= threshold
    # + 0.0 turns -0.0 into 0.0, which would print as "-0.0%".
    exact, bound = Decimal(float(value) + 0.0) * 100, Decimal(float(threshold) + 0.0) * 100
    for digits in range(decimals, MAX_DECIMALS + 1):
        shown = round(exact, digits)
        if (shown >= bound) == passes:
            return f"{shown:.{digits}f}%"
    return f"{exact}%"


@dataclass(frozen=True)
class BaselineCheck:
    """One system against its scores in a committed summary (:func:`against_baseline`).

    ``baseline``/``score``: macro accuracies in [0, 1] (``None`` when nothing is scored);
    ``change``: the paired difference ``score - baseline`` (``stats.Difference``, its
    p-value from the paired sign-flip test); ``drop``: below the baseline by more than
    ``tolerance``; ``failed``: that drop is significant at ``alpha`` (or nothing is
    scored now against a scored baseline), the rule of ``diff --fail-on-regression``.
    """

    system: str
    baseline: float | None
    score: float | None
    change: Any
    tolerance: float
    alpha: float
    drop: bool
    failed: bool
    documents: int

    @property
    def message(self) -> str:
        """One line saying what was compared and why it passes or fails."""
        p = self.change.p_value
        p_text = "undefined" if p is None else f"{p:.3g}"
        change = self.change.estimate
        shown = "undefined" if change is None or change != change else f"{100 * change:+.2f}"
        what = (f"score {_pct(self.score)} against the baseline {_pct(self.baseline)}: "
                f"change {shown} points on {self.documents} paired documents, "
                f"paired sign-flip p = {p_text}")
        tolerance = points(self.tolerance)
        if self.failed:
            return f"{what}: a drop beyond the tolerance of {tolerance}, significant"
        if self.drop:
            return (f"{what}: a drop beyond the tolerance of {tolerance}, but not "
                    f"significant at {self.alpha:g}")
        return f"{what}: no drop beyond the tolerance of {tolerance}"


def _pct(value: float | None) -> str:
    return "undefined" if value is None else f"{100 * value:.2f}%"


def baseline_scores(summary: Any, system: str, documents: Iterable[str]) -> list[float | None]:
    """``system``'s document scores in a summary.json (``per_doc``), in ``documents`` order.

    Parameters
    ----------
    summary : dict
        A parsed summary.json (``leafscore report``).
    system : str
    documents : iterable of str
        The document ids of the run being gated; the summary must hold exactly these.

    Returns
    -------
    list of floats in [0, 1] or None (not scored), one per document.

    Raises
    ------
    ValueError
        If the summary has no readable ``per_doc``, does not hold ``system``, holds
        other documents, or a score is not a number in [0, 1] or null.
    """
    rows = summary.get("per_doc") if isinstance(summary, dict) else None
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise ValueError("the baseline summary has no per_doc list of document scores")
    by_doc: dict[str, Any] = {}
    for row in rows:
        doc = row.get("doc_id")
        if not isinstance(doc, str) or system not in row:
            raise ValueError(f"the baseline summary holds no per_doc scores of {system!r}")
        by_doc[doc] = row[system]
    wanted = list(documents)
    if set(by_doc) != set(wanted):
        only = sorted(set(by_doc) ^ set(wanted))
        raise ValueError("the baseline summary holds other documents than the benchmark: "
                         + ", ".join(only[:5]))
    out: list[float | None] = []
    for doc in wanted:
        value = by_doc[doc]
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)
                                  or not 0.0 <= value <= 1.0):
            raise ValueError(f"the baseline score of {system!r} on {doc!r} is not a number "
                             "in [0, 1] or null")
        out.append(None if value is None else float(value))
    return out


def against_baseline(run: Any, system: str, summary: Any, *, tolerance: float = 0.0,
                     alpha: float = 0.05, permutations: int | None = None,
                     seed: int | None = None) -> BaselineCheck:
    """Gate ``system`` of ``run`` against its scores in a committed summary.json.

    The rule of ``diff --fail-on-regression`` (``diff.is_significant_regression``): it
    fails when the score drops below the baseline's by more than ``tolerance`` and the
    paired sign-flip test of the per-document changes is significant at ``alpha``
    (``stats.paired_comparison``). Both means are taken as the run's version takes them
    (``Run.mean``).

    Parameters
    ----------
    run : leafscore.run.Run
    system : str
    summary : dict
        A parsed summary.json of the same benchmark and scoring version.
    tolerance : float in [0, 1], default 0
    alpha : float in (0, 1), default 0.05
    permutations, seed : int, optional
        Of the sign-flip test; default ``stats.DEFAULT_PERMUTATIONS``/``DEFAULT_SEED``.

    Raises
    ------
    ValueError
        If the summary is of another version or unreadable (``baseline_scores``), or a
        setting is out of range.
    KeyError
        If ``system`` is not in the run.
    """
    if system not in run.systems:
        raise KeyError(f"no system {system!r}; systems: {', '.join(run.systems)}")
    tolerance = check_threshold(tolerance, name="--tolerance")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha={alpha} must be between 0 and 1")
    version = summary.get("version") if isinstance(summary, dict) else None
    if version is not None and version != run.version:
        raise ValueError(f"the baseline summary is of version {version}, the run of "
                         f"version {run.version}; score with --version {version}")
    before = baseline_scores(summary, system, run.documents)
    after = run.document_scores(system)
    kept = [v for v in before if v is not None]
    base = run.mean(kept) if kept else None
    head = run.system_score(system)
    if base is None or head is None:
        change = stats.Difference(float("nan"), None, None, None)
    else:
        change = stats.paired_comparison(
            after, before, None, None, head - base,
            permutations=permutations or stats.DEFAULT_PERMUTATIONS,
            seed=stats.DEFAULT_SEED if seed is None else seed)
    drop = diff_mod.is_regression(base, head, tolerance=tolerance)
    failed = diff_mod.is_significant_regression(base, head, change, tolerance=tolerance,
                                                alpha=alpha)
    return BaselineCheck(system, base, head, change, tolerance, alpha, drop, failed,
                         int(stats.paired_differences(before, after).size))
