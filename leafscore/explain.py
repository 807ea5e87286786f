"""One document of one system, leaf by leaf: the data ``leafscore explain`` renders."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import scorer


@dataclass(frozen=True)
class Explanation:
    """Every verdict of one (system, document), in reading order.

    ``status`` is the cell's ``"scored"``, ``"parse_failure"`` or ``"missing"``;
    ``accuracy`` the document score in [0, 1]; ``verdicts`` the ``scorer.Verdict``
    records: fields in schema order, array items by label index, unpaired result items
    (``lines[r3]``) last (a display order only: the scorer's order is untouched);
    ``warnings`` what reading the result said; ``signature`` the run's.
    """

    document: str
    system: str
    status: str
    accuracy: float
    verdicts: tuple[scorer.Verdict, ...]
    warnings: tuple[str, ...]
    signature: str


def explain(run: Any, system: str, document: str) -> Explanation:
    """The :class:`Explanation` of ``document`` for ``system`` in ``run``.

    Raises ``KeyError`` if the pair is not in the run, ``ValueError`` if the run's
    version keeps no verdicts (1.0).
    """
    if (system, document) not in run.cells:
        raise KeyError(f"no document {document!r} for system {system!r}")
    if not getattr(run, "kept_verdicts", True):
        raise ValueError("this run was scored without keeping its verdicts "
                         "(keep_verdicts=False)")
    cell = run.cells[(system, document)]
    verdicts = getattr(cell.score, "verdicts", None)
    if verdicts is None:
        raise ValueError(f"explain needs per-leaf verdicts, which version {run.version} "
                         "does not keep")
    return Explanation(document, system, cell.status, float(cell.score.value),
                       tuple(reading_order(verdicts)), tuple(cell.warnings), run.signature)


_INDEX = re.compile(r"\[(r?)([0-9]+)\]")


def _index_key(digits: str) -> tuple[int, str]:
    """An array index written as ASCII digits, as a sort key of its numeric order, made
    without ``int()``: a result key of an open map may look like an index of any length
    (5,000 digits), over Python's int-string limit of 4,300."""
    significant = digits.lstrip("0")
    return len(significant), significant


def reading_order(verdicts: Sequence[Any]) -> list[Any]:
    """Verdicts as a reader expects them: fields in schema order, array items by label
    index (``lines[2]`` before ``lines[10]``), unpaired result items (``lines[r3]``) last.

    The scorer lists paired items in its tie-break order (by canonical content); only
    this view is reordered, never the scorer's output.
    """
    first: dict[str, int] = {}
    for position, v in enumerate(verdicts):
        first.setdefault(v.field, position)
        first.setdefault(v.field.split("[]", 1)[0], position)

    def key(v: Any) -> tuple:
        top = v.field.split("[]", 1)[0]
        indices = tuple((1 if r else 0, _index_key(n)) for r, n in _INDEX.findall(v.address))
        return first[top], indices, first[v.field]

    return sorted(verdicts, key=key)
