"""One (system, document) outcome, the ``Cell``, and its one stored form.

A cell is stored (in the per-cell cache, and column by column in a run pack:
``runpack``) as one JSON object, its **stored form**::

    {"status": "scored" | "parse_failure" | "missing",
     "warnings": [each warning without its leading file name],
     "score": the score's ``to_dict`` (a 2.0 score's verdicts as "verdicts"), or null,
     "errors": field path -> error kind -> count (null for a score without verdicts)}

:func:`encode` makes it, :func:`decode` reads it back, and :func:`problem` says why a
stored form read from disk cannot be used (``""``: it can). A stored form names no file,
so one cache entry serves every system whose result has the same bytes; the reader
puts the file name back. Nothing read is used unchecked: an entry may have been edited
(by a writer holding the signing key, or a bug).

The checks are rules over columns (:func:`status_problem` ... :func:`error_kinds_problem`,
one item per cell), so a run pack checks its thousands of cells with the same rules at
once; :func:`problem` applies every rule to one cell.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

import scorer
from leafscore.fields import NOT_ERRORS, error_kinds, error_kinds_of, tally_error_kinds

#: The statuses a cell may carry.
STATUSES: tuple[str, ...] = ("scored", "parse_failure", "missing")
#: The members of a stored form.
MEMBERS: frozenset[str] = frozenset({"status", "warnings", "score", "errors"})
#: The members of a stored verdict (``scorer.Verdict.to_dict``).
VERDICT_MEMBERS: frozenset[str] = frozenset(scorer.Verdict._fields)


@dataclass(frozen=True)
class Cell:
    """One (system, document) outcome.

    ``status`` is ``"scored"`` (a result was read), ``"parse_failure"`` (invalid JSON, an
    envelope that is not an object, or ``"status": "failed"``) or ``"missing"`` (no result
    file). ``score`` is the scorer's ``DocScore`` (2.0) or ``DocScoreV1`` (1.0); it is
    ``None`` only for a missing result under version 1.0, which leaves it out of the mean.
    ``warnings`` are human-readable lines (``"results/gpt/a.json: ..."``). ``errors``
    (field path -> error kind -> count) is set when the cell was folded (:func:`folded`).
    """

    status: str
    score: Any
    warnings: tuple[str, ...] = ()
    errors: Mapping[str, Mapping[str, int]] | None = None

    def field_errors(self) -> Mapping[str, Mapping[str, int]] | None:
        """Field path -> error kind -> count of this document (``fields.error_kinds``):
        ``errors`` when folded at scoring time, else folded from the score's verdicts;
        ``None`` for a score without verdicts (1.0, or a missing result under 1.0)."""
        if self.errors is not None:
            return self.errors
        if isinstance(self.score, scorer.DocScore):
            return error_kinds_of(self.score)  # counted from rows: no Verdict is built
        verdicts = getattr(self.score, "verdicts", None)
        return None if verdicts is None else error_kinds(verdicts)


def folded(cell: Cell, *, verdicts: bool) -> Cell:
    """``cell`` with its error kinds folded per field (``Cell.errors``) and, unless
    ``verdicts``, its score's verdicts dropped (``verdicts == ()``): what a run keeps of a
    document, O(fields) instead of O(leaves). A score without verdicts is returned as is.
    """
    if isinstance(cell.score, scorer.DocScore):
        # one verdict per count: the counts say whether there are any, and reading
        # .verdicts would build every Verdict object
        any_verdicts = sum(cell.score.counts.values()) > 0
    elif getattr(cell.score, "verdicts", None) is None:
        return cell
    else:
        any_verdicts = bool(cell.score.verdicts)
    score = cell.score if verdicts or not any_verdicts \
        else dataclasses.replace(cell.score, verdicts=())
    return Cell(cell.status, score, cell.warnings, cell.field_errors())


def shared_parts(cell: Cell, table: dict[Any, Any]) -> Cell:
    """``cell`` with the equal parts of its 2.0 score (each field's counts, the verdict
    counts) replaced by the first equal one met in ``table`` (one table per run): equal
    values, one copy each, so a run of many similar documents holds few of them. Parts
    are never mutated. Any other score is returned as is."""
    score = cell.score
    if not isinstance(score, scorer.DocScore):
        return cell
    fields = {path: table.setdefault(counts, counts) for path, counts in score.fields.items()}
    counts = table.setdefault(("counts", *score.counts.items()), score.counts)
    return dataclasses.replace(cell, score=dataclasses.replace(score, fields=fields, counts=counts))


# ------------------------------------------------------------------------------------
# The codec
# ------------------------------------------------------------------------------------


def encode(cell: Cell, file: str) -> dict[str, Any] | None:
    """The stored form of ``cell``, whose result was read from ``file``: JSON-ready (see
    the module docstring), a 2.0 score with the verdicts it keeps (none, and no
    ``"verdicts"`` member, when ``folded`` dropped them), each warning without its
    leading ``file``. ``None`` when a warning does not start with ``file``: read back for
    another system's result of the same bytes, it would name the wrong file."""
    if not all(w.startswith(file) for w in cell.warnings):
        return None
    score = cell.score
    if isinstance(score, scorer.DocScore):
        score = score.to_dict(verdicts=True)
        if not score["verdicts"] and any(score["counts"].values()):
            del score["verdicts"]  # dropped (``folded``): not "no verdict at all"
    elif score is not None:
        score = score.to_dict()
    errors = cell.field_errors()
    return {"status": cell.status, "warnings": [w[len(file):] for w in cell.warnings],
            "score": score, "errors": None if errors is None else dict(errors)}


def score_from_dict(data: Mapping[str, Any]) -> scorer.DocumentScore:
    """A document score from its stored form, the inverse of ``to_dict`` (``verdicts=True``
    for 2.x): a ``scorer.DocScoreV1`` for version 1.0's ``{"final", ...}``, else a
    ``scorer.DocScore``. KeyError if a member is missing (``problem`` checks first)."""
    if "final" in data:
        arrays, non = data.get("arrays"), data.get("non_array")
        return scorer.DocScoreV1(data["final"], None if arrays is None else
                                 {k: (v["score"], v["total"]) for k, v in arrays.items()},
                                 None if non is None else (non["score"], non["total"]))
    fields = {path: scorer.FieldCounts(c["tp"], c["fp"], c["fn"])
              for path, c in data["fields"].items()}
    return scorer.DocScore(data["version"], data["accuracy"], tuple(
        scorer.Verdict(**v) for v in data.get("verdicts", ())), dict(data["counts"]), fields,
        data.get("exact", True))


def decode(stored: Mapping[str, Any], record: scorer.ScoringVersion, file: str) -> Cell:
    """The cell of a stored form that has no :func:`problem` under ``record``, for a
    result read from ``file`` (put back before each warning). A 2.0 score stored without
    its verdicts is rebuilt without them."""
    score = stored["score"]
    return Cell(stored["status"], None if score is None else score_from_dict(score),
                tuple(file + w for w in stored["warnings"]), stored["errors"])


# ------------------------------------------------------------------------------------
# The checker: one cell (``problem``), built of rules over columns
# ------------------------------------------------------------------------------------


def problem(stored: Any, record: scorer.ScoringVersion, *, missing: bool) -> str:
    """Why ``stored`` (a stored form as parsed) cannot be used for a cell of ``record``'s
    version (``""``: it can, and :func:`decode` reads it). ``missing`` says whether the
    result file is absent.

    The members must be exactly :data:`MEMBERS`; the status one of :data:`STATUSES` and
    agree with ``missing``; warnings a list of strings; the score absent exactly when the
    version leaves a missing result unscored, of the version's name, else checked by its
    type (``_SCORE_CHECKS``): values finite and in [0, 1], counts non-negative integers
    that reproduce the value, field paths sorted; ``errors`` present exactly for a score
    with verdicts, each a positive count of an error kind, summing over fields to the
    score's count of that kind; stored verdicts (if any) well-formed and summing to the
    counts, fields and error kinds stored with them. Never raises.
    """
    if not isinstance(stored, dict) or stored.keys() != MEMBERS:
        return "not a stored cell"
    status, warnings, score = stored["status"], stored["warnings"], stored["score"]
    found = (status_problem([status], [missing]) or warnings_problem([warnings])
             or _errors_problem(stored["errors"], score, record))
    if found:
        return found
    if score is None:
        return "" if status == "missing" and unscored_when_missing(record) else "no score"
    check = _SCORE_CHECKS.get(record.result_type)
    if check is None or not isinstance(score, dict):
        return "score of an unknown shape"
    if score.get("version", record.name) != record.name:
        return f"score of version {score['version']!r}"
    found = check(score, status, record)
    return found or (_verdicts_problem(score, stored["errors"]) if record.has_verdicts else "")


def status_problem(statuses: Sequence[Any], missing: Sequence[bool]) -> str:
    """Each status one of :data:`STATUSES`, ``"missing"`` exactly when its result file is
    absent (``missing[i]``)."""
    for status, absent in zip(statuses, missing, strict=True):
        if status not in STATUSES or (status == "missing") != absent:
            return f"status {status!r} does not fit the result"
    return ""


def warnings_problem(warnings: Sequence[Any]) -> str:
    """Each cell's warnings a list of strings."""
    if all(type(w) is list for w in warnings) \
            and all(type(line) is str for line in chain.from_iterable(warnings)):
        return ""
    return "warnings are not a list of strings"


def counts_problem(vectors: Sequence[Any]) -> str:
    """Each a count of every verdict kind: a list of ``len(scorer.VERDICT_KINDS)``
    non-negative integers, in the scorer's order (checked over all of them at once: a
    pack holds thousands)."""
    return "" if _are_counts(vectors, len(scorer.VERDICT_KINDS)) \
        else "counts are not a count of every verdict kind"


def field_counts_problem(triples: Sequence[Any]) -> str:
    """Each field's ``[tp, fp, fn]``, three non-negative integers."""
    return "" if _are_counts(triples, 3) else "field counts are not counts"


def paths_problem(paths: Sequence[Any]) -> str:
    """Each score's field paths: strings, sorted and distinct."""
    for listed in paths:
        if not all(type(p) is str for p in listed) or list(listed) != sorted(set(listed)):
            return "field paths are not sorted and distinct"
    return ""


def exact_problem(exacts: Sequence[Any]) -> str:
    """Each score's ``exact`` flag a boolean."""
    return "" if all(x is True or x is False for x in exacts) else "exact is not a boolean"


def accuracy_problem(values: Sequence[Any], statuses: Sequence[str],
                     counts: Sequence[Mapping[str, int]]) -> str:
    """Each accuracy a float, the one its counts give (``scorer.DocScore.accuracy_of``),
    0.0 for a parse failure. Equal count objects (a pack shares them) are summed once."""
    if not all(type(v) is float for v in values):
        return "an accuracy is not a float"
    known: dict[int, float] = {}
    for value, status, counted in zip(values, statuses, counts, strict=True):
        if status == "parse_failure":
            expected = 0.0
        else:
            expected = known.get(id(counted))
            if expected is None:
                expected = known[id(counted)] = scorer.DocScore.accuracy_of(counted)
        if value != expected:
            return f"accuracy {value!r} is not {expected!r} from the counts"
    return ""


def error_kinds_problem(rows: Iterable[tuple[Any, Any]]) -> str:
    """Each ``(field path, kinds)`` row: a string path, kinds an object of positive counts
    of error kinds (``scorer.VERDICT_KINDS`` not in ``fields.NOT_ERRORS``); ``{}`` for a
    field seen only as correct absences."""
    for path, kinds in rows:
        if type(path) is not str or type(kinds) is not dict:
            return "error kinds are not counts"
        for kind, n in kinds.items():
            if kind in NOT_ERRORS or kind not in scorer.VERDICT_KINDS or not _is_count(n) \
                    or n == 0:
                return f"error kind {kind!r} is not a positive count of an error"
    return ""


def _errors_problem(errors: Any, score: Any, record: scorer.ScoringVersion) -> str:
    """Why a stored per-field error map does not fit its score (``""``: it does): none
    for a score without verdicts; else :func:`error_kinds_problem`'s rows, kinds summing
    over fields to the score's count of that kind."""
    if score is None or not record.has_verdicts:
        return "" if errors is None else "error kinds stored for a score without verdicts"
    if not isinstance(errors, dict) or not isinstance(score, dict) \
            or not isinstance(score.get("counts"), dict):
        return "error kinds are not an object"
    found = error_kinds_problem(errors.items())
    if found:
        return found
    sums: Counter[str] = Counter()
    for kinds in errors.values():
        sums.update(kinds)
    counts = score["counts"]
    wrong = [k for k in scorer.VERDICT_KINDS if k not in NOT_ERRORS
             and sums.get(k, 0) != counts.get(k)]
    return f"error kinds do not sum to the counts of {wrong[0]!r}" if wrong else ""


@functools.cache
def unscored_when_missing(record: scorer.ScoringVersion) -> bool:
    """Whether ``record``'s version leaves a missing result out of the mean (its
    ``missing`` rule gives ``None``), asked of the rule itself on the smallest document."""
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    return record.document(schema, {"a": "x"}, scorer.Options(), "").missing() is None


def _is_count(value: Any) -> bool:
    return type(value) is int and value >= 0


def _are_counts(vectors: Sequence[Any], width: int) -> bool:
    """Whether ``vectors`` are lists of ``width`` non-negative integers (checked over all
    of them at once)."""
    flat = list(chain.from_iterable(vectors)) if all(type(v) is list for v in vectors) \
        else None
    return flat is not None and len(flat) == width * len(vectors) \
        and {*map(type, flat)} <= {int} and min(flat, default=0) >= 0


def _is_unit(value: Any) -> bool:
    """A float (or int) in [0, 1]; NaN and infinities fail both comparisons."""
    return isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1


def _check_v2(score: dict[str, Any], status: str, record: scorer.ScoringVersion) -> str:
    """Problems of a stored ``DocScore`` (``to_dict``, its verdicts included or not), or
    ``""``."""
    counts, fields = score.get("counts"), score.get("fields")
    if score.get("version") != record.name:
        return "score of no version"
    if not isinstance(counts, dict) or counts.keys() != scorer.VERDICT_KINDS.keys():
        return "counts are not a count of every verdict kind"
    found = counts_problem([list(counts.values())]) \
        or accuracy_problem([score.get("accuracy")], [status], [counts]) \
        or exact_problem([score.get("exact", True)])
    if found:
        return found
    if not isinstance(fields, dict) or not all(isinstance(c, dict) for c in fields.values()):
        return "fields are not an object"
    triples = [[c.get("tp"), c.get("fp"), c.get("fn")] for c in fields.values()]
    found = field_counts_problem(triples) or paths_problem([list(fields)])
    if found:
        return found
    sums = [sum(column) for column in zip(*triples, strict=True)] or [0, 0, 0]
    totals = [sum(scorer.VERDICT_KINDS[kind][i] * n for kind, n in counts.items())
              for i in range(3)]
    return "" if sums == totals else f"fields sum to {sums}, counts to {totals}"


def _check_v1(score: dict[str, Any], status: str, record: scorer.ScoringVersion) -> str:
    """Problems of a stored ``DocScoreV1`` (``to_dict``), or ``""``."""
    value, arrays, non = score.get("final"), score.get("arrays"), score.get("non_array")
    if not _is_unit(value):
        return f"final {value!r} is not in [0, 1]"
    parts: dict[str, tuple[float, float]] | None = None
    if arrays is not None:
        if not isinstance(arrays, dict) or not arrays:
            return "arrays are not a non-empty object"
        parts = {}
        for name, part in arrays.items():
            if not isinstance(part, dict) or not _is_unit(part.get("score")) \
                    or not _is_weight(part.get("total")):
                return f"array {name!r} is not a score in [0, 1] with a finite total"
            parts[name] = (part["score"], part["total"])
    pair = None
    if non is not None:
        if not isinstance(non, dict) or not _is_unit(non.get("score")) \
                or not _is_count(non.get("total")):
            return "non_array is not a score in [0, 1] with a count"
        pair = (non["score"], non["total"])
    if parts is None and pair is None:
        return "no part to score"
    expected = scorer.v1_final(parts, pair)
    return "" if value == expected else f"final {value!r} is not {expected!r} from its parts"


def _is_weight(value: Any) -> bool:
    """A finite non-negative number (1.0's array totals are float weights)."""
    return isinstance(value, int | float) and not isinstance(value, bool) \
        and math.isfinite(value) and value >= 0


#: Score type -> check of its stored form (a version's record names its type).
_SCORE_CHECKS: dict[type, Callable[[dict[str, Any], str, scorer.ScoringVersion], str]] = {
    scorer.DocScore: _check_v2,
    scorer.DocScoreV1: _check_v1,
}


def _verdicts_problem(score: dict[str, Any], errors: Any) -> str:
    """Why the verdicts stored with a 2.0 score (if any) cannot be read, or sum to other
    counts, fields or error kinds than the ones stored with them (so what ``explain``
    lists is what the numbers say); ``""`` when there are none or they agree. Counted
    from the stored verdicts as ``DocScore.from_verdicts`` counts them."""
    if "verdicts" not in score:
        return ""
    verdicts = score["verdicts"]
    if type(verdicts) is not list or not all(
            type(v) is dict and v.keys() == VERDICT_MEMBERS and type(v["field"]) is str
            and type(v["kind"]) is str and v["kind"] in scorer.VERDICT_KINDS
            for v in verdicts):
        return "verdicts are not verdicts"
    tally = Counter((v["field"], v["kind"]) for v in verdicts)
    counts = dict.fromkeys(scorer.VERDICT_KINDS, 0)
    sums: dict[str, list[int]] = {}
    for (field, kind), many in tally.items():
        counts[kind] += many
        if kind != "correct_absence":
            total = sums.setdefault(field, [0, 0, 0])
            for i, n in enumerate(scorer.VERDICT_KINDS[kind]):
                total[i] += n * many
    stored = {path: [c["tp"], c["fp"], c["fn"]] for path, c in score["fields"].items()}
    if counts != score["counts"] or sums != stored or tally_error_kinds(tally) != errors:
        return "verdicts disagree with the counts stored with them"
    return ""
