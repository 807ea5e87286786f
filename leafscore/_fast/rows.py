"""A document's verdicts, built only when read: the fast engine's ``DocScore.verdicts``.

Scoring needs only counts; a Verdict costs a tuple and more. The walk's output list holds
``scorer.Verdict`` values and, for flat arrays, :class:`~leafscore._fast.flat.FlatRows`
blocks of rows (canonical keys not yet shown). :func:`summed` counts it as
``DocScore.from_verdicts`` would (the same counts, fields and accuracy), and
:class:`Verdicts` is the sequence of Verdicts it stands for, made on first read, equal to
the tuple the definition makes and pickled as that tuple.
"""

from __future__ import annotations

import collections
import itertools
from collections.abc import Iterator, Sequence
from typing import Any

import scorer
from leafscore._fast.flat import FlatRows
from leafscore._fast.flat import verdict_of as _verdict


class Verdicts(Sequence):
    """The verdicts of one walk's output list (Verdicts and FlatRows blocks), made when
    first read; equal to (and pickled as) the tuple of the same Verdicts."""

    __slots__ = ("_counted", "_made", "_out")

    def __init__(self, out: list, counted: collections.Counter | None = None) -> None:
        # counted: the output list's tally when already taken (by summed), kept for tally()
        self._out, self._made, self._counted = out, None, counted

    def _all(self) -> tuple[scorer.Verdict, ...]:
        if self._made is None:
            self._made = tuple(itertools.chain.from_iterable(
                map(_verdict, part.rows()) if part.__class__ is FlatRows else (part,)
                for part in self._out))
            self._out = None
        return self._made

    @property
    def made(self) -> bool:
        """Whether the Verdicts have been made (by a first read) yet."""
        return self._made is not None

    def __len__(self) -> int:
        return len(self._all())

    def __getitem__(self, k: Any) -> Any:
        return self._all()[k]

    def __iter__(self) -> Iterator[scorer.Verdict]:
        return iter(self._all())

    def __eq__(self, other: object) -> bool:
        return tuple(self) == (tuple(other) if isinstance(other, Sequence) else other)

    def __hash__(self) -> int:
        return hash(self._all())

    def __repr__(self) -> str:
        return repr(self._all())

    def __reduce__(self) -> tuple:
        return tuple, (self._all(),)

    def tally(self) -> collections.Counter:
        """(field path, kind) -> how many, keys in first-seen order, counted without
        making the Verdicts of blocks not yet read."""
        if self._counted is not None:
            return collections.Counter(self._counted)  # a copy: the caller's to change
        if self._out is None:
            return collections.Counter((v.field, v.kind) for v in self._made)
        return _tally(self._out)


def _tally(out: list) -> collections.Counter:
    total: collections.Counter = collections.Counter()
    for is_block, part in itertools.groupby(out, lambda p: p.__class__ is FlatRows):
        for held in part if is_block else (list(part),):
            total.update(held.tally() if is_block else
                         collections.Counter((v.field, v.kind) for v in held))
    return total


def summed(out: list, version: str, exact: bool) -> scorer.DocScore:
    """``DocScore.from_verdicts`` of a walk's output list: the same counts (every kind,
    in ``VERDICT_KINDS`` order), fields (sorted by path) and accuracy, the verdicts left
    to be made when read."""
    counts = dict.fromkeys(scorer.VERDICT_KINDS, 0)
    sums: dict[str, list[int]] = {}
    tally = _tally(out)
    for (field, kind), many in tally.items():
        counts[kind] += many
        if kind != "correct_absence":
            tp, fp, fn = scorer.VERDICT_KINDS[kind]
            total = sums.setdefault(field, [0, 0, 0])
            total[0] += tp * many
            total[1] += fp * many
            total[2] += fn * many
    fields = {path: scorer.FieldCounts(*sums[path]) for path in sorted(sums)}
    return scorer.DocScore(version, scorer.DocScore.accuracy_of(counts), Verdicts(out, tally),
                           counts, fields, exact)


def verdict_tally(score: Any) -> dict[tuple[str, str], int]:
    """(field path, kind) -> how many verdicts of a 2.x ``score``, correct absences
    included, first seen first; counted from rows when its verdicts are not made yet."""
    held = getattr(score, "verdicts", ())
    if isinstance(held, Verdicts):
        return dict(held.tally())
    return dict(collections.Counter((verdict.field, verdict.kind) for verdict in held))
