"""leafscore scorer: the whole metric in one file.

A system reads a document and returns JSON for a JSON Schema; this file scores that
JSON (the *result*, or prediction) against a hand-verified *label*, leaf by leaf.

Scoring versions (a change in any score is a new version; old versions stay frozen):

* **2.0** (default) -- leafscore's own metric, ``shared/spec/scoring-2.0.md``: typed
  canonical values, optimal order-free array matching, one verdict per leaf.
* **1.0** -- DocuBench 0.1.0 exactly, ``shared/spec/scoring-1.0.md``, faults included:
  greedy pairing, ``\\W``-stripped text, arrays keyed by their top-level member.

The model, in five bullets:

* the schema picks the scored leaves (field paths such as ``lines[].qty``);
* each leaf value is reduced to one canonical value per type (text, number, date, ...);
* array items are paired order-independently before their leaves are compared;
* every scored leaf gets one verdict (correct, wrong_value, missing, ...);
* the document score is the share of correct verdicts; systems are macro averages.

Usage::

    >>> import scorer
    >>> scorer.score({"total": "1,240.00"}, {"type": "object",
    ...     "properties": {"total": {"type": "number"}}}, {"total": 1240}).value
    1.0

Command line::

    $ python scorer.py                          # score the benchmark in the current folder
    $ python scorer.py RESULT SCHEMA LABEL      # one document, as JSON

The file reads top to bottom: vocabulary and types; canonical values; schema walk; one
leaf; arrays; document (version 2.0); version 1.0, frozen; entry point; folder + CLI.
"""

from __future__ import annotations

import argparse
import bisect
import collections
import dataclasses
import functools
import hashlib
import heapq
import itertools
import json
import math
import operator
import os
import re
import stat
import statistics
import sys
import tomllib
import unicodedata
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import (
    MAX_EMAX,
    MIN_EMIN,
    ROUND_CEILING,
    ROUND_FLOOR,
    ROUND_HALF_EVEN,
    Decimal,
    localcontext,
)
from pathlib import Path
from typing import Any, NoReturn

import numpy as np
import regex

# =====================================================================================
# 2. Vocabulary and types
# =====================================================================================

#: The scoring versions this file implements, oldest first.
SCORING_VERSIONS: tuple[str, ...] = ("1.0", "2.0")
#: The version ``score()`` uses when none is given.
DEFAULT_VERSION = "2.0"


def json_pointer(path: Sequence[Any]) -> str:
    """RFC 6901 pointer of a key/index sequence: ``("a", 0, "b/c~")`` -> ``/a/0/b~1c~0``."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


class InputError(ValueError):
    """Input leafscore cannot use, at a place: the one error family of scorer and package.

    ``file`` names the input as given (a path, ``"gold.jsonl:3"``, or ``""`` in memory);
    ``pointer`` is an RFC 6901 JSON pointer into it (see :func:`json_pointer`; ``""`` is
    the whole value), a TOML key, or a text position such as ``"line 3 column 5"`` or
    ``"byte 17"``; ``reason`` says what is wrong. Every field is in ``.args``, so the
    error pickles across worker processes. One string form, printed on one line::

        schemas/a.json#/properties/x: reason     (a JSON pointer)
        benchmark.toml:options: reason           (a key or a text position)
        labels/a.json: reason                    (the whole file)
    """

    def __init__(self, file: str, pointer: str, reason: str) -> None:
        super().__init__(file, pointer, reason)
        self.file, self.pointer, self.reason = str(file), str(pointer), reason

    @property
    def position(self) -> str:
        """The place, as :attr:`pointer` (the name reading errors used to give it)."""
        return self.pointer

    def __str__(self) -> str:
        if self.pointer.startswith("/"):
            place = f"{self.file}#{self.pointer}"
        else:
            place = f"{self.file}:{self.pointer}" if self.pointer else self.file
        return f"{place}: {self.reason}" if place else self.reason


class ScoringError(InputError):
    """A schema or label the metric cannot score. Never raised for a bad result.

    ``pointer`` is an RFC 6901 JSON pointer into the schema (``/properties/rows/anyOf/0``)
    or the label; otherwise as :class:`InputError`.
    """


#: Verdict kind -> its (tp, fp, fn) contribution (spec 2.0 §4). ``correct_absence`` (both
#: sides empty) is reported only and never scored.
VERDICT_KINDS: dict[str, tuple[int, int, int]] = {
    "correct": (1, 0, 0),
    "wrong_value": (0, 1, 1),
    "type_error": (0, 1, 1),
    "missing": (0, 0, 1),
    "hallucinated": (0, 1, 0),
    "extra_item": (0, 1, 0),
    "parse_failure": (0, 0, 1),
    "correct_absence": (0, 0, 0),
}
#: The ``compare`` values an ``x-leafscore`` option may name (spec 2.0 §2).
COMPARE_MODES: tuple[str, ...] = ("exact", "text", "number", "date", "boolean", "fuzzy", "ignore")
#: Date formats tried after ISO 8601 when a field sets none (spec 2.0 §3), in order.
DEFAULT_DATE_FORMATS: tuple[str, ...] = (
    "%Y-%m-%d", "%m/%d/%Y", "%d.%m.%Y", "%B %d, %Y", "%b %d, %Y", "%d %B %Y", "%Y/%m/%d",
)


@dataclass(frozen=True, slots=True)
class Verdict:
    """The fate of one leaf address in one document (version 2.0).

    ``address`` is the concrete place (``lines[3].qty``: label item 3; a result item paired
    with no label item is written ``lines[r5].qty``), ``field`` the path per-field counts
    group by (``lines[].qty``; a member name that is empty or holds ``.`` ``[`` ``]`` ``"``
    ``\\`` is written ``["<name>"]``, so ``["a.b"]`` and ``a.b`` never meet), ``kind`` a
    key of :data:`VERDICT_KINDS`. ``label`` and
    ``result`` are the raw JSON values as read (``None`` when absent); ``label_canon`` and
    ``result_canon`` are what the comparison saw, as JSON values: text as its canonical
    string, numbers as a plain decimal string (``"1240"``), dates as ISO text (an unreadable
    date as ``"~"`` + its text canon), booleans as booleans, exact values as canonical JSON
    text; ``None`` for an empty or unreadable side.
    """

    address: str
    field: str
    kind: str
    label: Any
    result: Any
    label_canon: Any
    result_canon: Any

    def to_dict(self) -> dict[str, Any]:
        """The verdict as a flat JSON object with the seven field names as keys."""
        return {name: getattr(self, name) for name in self.__slots__}


@dataclass(frozen=True)
class FieldCounts:
    """Counts of one field path summed over its verdicts: ``tp``, ``fp``, ``fn`` >= 0.

    ``precision`` = tp / (tp + fp), ``recall`` = tp / (tp + fn) and ``f1`` =
    2 tp / (2 tp + fp + fn) (the harmonic mean written in counts, so it is defined
    whenever any count is non-zero); each is ``None`` when its denominator is 0
    (spec 2.0 §4: "0/0 is reported as none, never as 0 or 1").
    """

    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None

    @property
    def f1(self) -> float | None:
        denominator = 2 * self.tp + self.fp + self.fn
        return 2 * self.tp / denominator if denominator else None

    def __add__(self, other: FieldCounts) -> FieldCounts:
        """Counts summed: how per-field counts add up over documents and fields."""
        return FieldCounts(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn)

    def to_dict(self) -> dict[str, Any]:
        """``{"tp", "fp", "fn", "precision", "recall", "f1"}``; undefined ratios are None."""
        return {
            "tp": self.tp, "fp": self.fp, "fn": self.fn,
            "precision": self.precision, "recall": self.recall, "f1": self.f1,
        }


def _option_number(name: str, value: Any, low: float, high: float) -> float:
    """A finite number in [low, high] for option ``name``, else ValueError."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"x-leafscore option {name!r} must be a number, not {value!r}")
    try:
        value = float(value)
    except OverflowError:
        raise ValueError(f"x-leafscore option {name!r} is too large for a float") from None
    if not (math.isfinite(value) and low <= value <= high):
        raise ValueError(f"x-leafscore option {name!r}={value!r} is outside [{low}, {high}]")
    return float(value)


@dataclass(frozen=True)
class Options:
    """Per-field scoring options: the ``x-leafscore`` keys (spec 2.0 §2), all optional.

    An instance holds benchmark-wide defaults; schema nodes refine it with
    :meth:`merged` (inherited by descendants, nearest node winning, option by option).

    ``compare``: one of :data:`COMPARE_MODES`, or None to take the comparator from the
    schema type. ``abs_tol`` >= 0 and ``rel_tol`` in [0, 1]: number tolerances,
    ``|a - b| <= max(abs_tol, rel_tol * max(|a|, |b|))``. ``threshold`` in [0, 1]: fuzzy
    similarity needed (rapidfuzz normalized Indel similarity). ``decimal_separator``:
    ``"."`` or ``","``. ``date_formats``: ``strptime`` formats replacing
    :data:`DEFAULT_DATE_FORMATS` (ISO 8601 is always tried first). ``ordered``: compare
    array items by position.
    """

    compare: str | None = None
    abs_tol: float = 0.0
    rel_tol: float = 0.0
    threshold: float = 0.9
    decimal_separator: str = "."
    date_formats: tuple[str, ...] | None = None
    ordered: bool = False

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any] | None) -> Options:
        """Options from a mapping such as ``{"abs_tol": 0.01}``; ValueError naming bad keys."""
        return cls().merged(mapping)

    def merged(self, mapping: Mapping[str, Any] | None) -> Options:
        """A copy with ``mapping``'s options set. Raises ValueError naming an unknown key
        or a bad value (the message quotes the value and, for choices, the choices)."""
        if mapping is None:
            return self
        if not isinstance(mapping, Mapping):
            raise ValueError(f"x-leafscore must be an object, not {mapping!r}")
        known = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(mapping) - known)
        if unknown:
            raise ValueError(
                f"unknown x-leafscore option(s) {', '.join(map(repr, unknown))}; "
                f"known: {', '.join(sorted(known))}"
            )
        changes: dict[str, Any] = {}
        for name, value in mapping.items():
            if name == "compare":
                if value is not None and value not in COMPARE_MODES:
                    choices = ", ".join(map(repr, COMPARE_MODES))
                    raise ValueError(f"compare={value!r} is not one of {choices}")
            elif name in ("abs_tol", "rel_tol", "threshold"):
                value = _option_number(name, value, 0.0, math.inf if name == "abs_tol" else 1.0)
            elif name == "decimal_separator":
                if value not in (".", ","):
                    raise ValueError(f"decimal_separator={value!r} is not one of '.', ','")
            elif name == "date_formats":
                if value is not None:
                    if isinstance(value, str) or not isinstance(value, list | tuple):
                        raise ValueError(f"date_formats={value!r} must be a list of strings")
                    if not all(isinstance(f, str) and f for f in value):
                        raise ValueError(f"date_formats={value!r} must be a list of strings")
                    value = tuple(value)
            elif name == "ordered" and not isinstance(value, bool):
                raise ValueError(f"ordered={value!r} must be true or false")
            changes[name] = value
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Every option with its resolved value, as JSON (``date_formats`` as a list)."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        if out["date_formats"] is not None:
            out["date_formats"] = list(out["date_formats"])
        return out

    def digest(self) -> str:
        """First 8 hex digits of the sha256 of :meth:`to_dict` as canonical JSON
        (sorted keys, no spaces): the ``opts:`` part of a signature."""
        text = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


_FIELD, _KIND = operator.itemgetter(1), operator.itemgetter(2)  # of a verdict row


def _tally(rows: list[tuple]) -> collections.Counter:
    """(field path, kind) -> how many of these verdict rows, counted at C speed: a
    handful of keys however many rows."""
    return collections.Counter(zip(map(_FIELD, rows), map(_KIND, rows), strict=True))


class _Rows:
    """Verdict rows (see :func:`_compare_row`) waiting to become Verdict objects; the
    rows of a flat array may still be a :class:`_FlatRows` block, made on first read of
    ``rows`` (counts need only :meth:`tally`)."""

    __slots__ = ("blocks", "counted", "held")

    def __init__(self, rows: list, blocks: bool = False) -> None:
        self.held = rows
        self.blocks = blocks  # whether ``rows`` holds a block
        self.counted: collections.Counter | None = None  # the tally, once counted

    @property
    def rows(self) -> list[tuple]:
        if self.blocks:
            self.held = list(itertools.chain.from_iterable(
                row.rows() if row.__class__ is _FlatRows else (row,) for row in self.held))
            self.blocks = False
        return self.held

    def tally(self) -> collections.Counter:
        """:func:`_tally` of :attr:`rows` (same counts, keys in the same first-seen
        order), blocks counted without making their rows. Counted once (the score's
        counts, then its error kinds, read it); not to be changed by the caller."""
        if self.counted is not None:
            return self.counted
        if not self.blocks:
            self.counted = _tally(self.held)
            return self.counted
        total: collections.Counter = collections.Counter()
        for is_block, part in itertools.groupby(self.held, lambda row: row.__class__ is _FlatRows):
            for held in part if is_block else (list(part),):
                total.update(held.tally() if is_block else _tally(held))
        self.counted = total
        return total

    def __reduce__(self) -> tuple:  # pickled as the Verdicts they stand for
        return tuple, (tuple(_verdict(row) for row in self.rows),)


class _FlatRows:
    """The verdict rows of one flat array (:meth:`_Scorer.walk_flat`) as columns: the
    address of each pair's label item (``bases``), the pairs' label and result items
    (positions in the value columns); per field, its address suffix, field path, the
    kinds of every pair, the label and result values of every item (columns), and the
    keys of every pair; then the rows of unpaired items. :meth:`rows` makes the rows,
    pair by pair."""

    __slots__ = ("at_left", "at_right", "bases", "fields", "unpaired")

    def __init__(self, bases: list[str], at_left: list[int], at_right: list[int],
                 fields: list[tuple], unpaired: list[tuple]) -> None:
        self.bases, self.at_left, self.at_right = bases, at_left, at_right
        self.fields, self.unpaired = fields, unpaired

    def rows(self) -> Iterator[tuple]:
        n = len(self.bases)
        columns = [zip(map(operator.add, self.bases, itertools.repeat(suffix, n)),
                       itertools.repeat(path, n), kinds, map(value.__getitem__, self.at_left),
                       map(other.__getitem__, self.at_right), *keys, strict=True)
                   for suffix, path, kinds, value, other, *keys in self.fields]
        return itertools.chain(itertools.chain.from_iterable(zip(*columns, strict=True)),
                               self.unpaired)

    def tally(self) -> collections.Counter:
        """:func:`_tally` of :meth:`rows`, keys in first-seen order, counted a field at a
        time: a (field, kind) is first seen at the first pair holding it, field by field."""
        width = len(self.fields)
        first: dict[tuple[str, str], tuple[int, int]] = {}
        for b, (_, path, kinds, *_) in enumerate(self.fields):
            for kind, many in collections.Counter(kinds).items():
                at, before = first.get((path, kind), (kinds.index(kind) * width + b, 0))
                first[path, kind] = (min(at, kinds.index(kind) * width + b), before + many)
        total = collections.Counter({key: first[key][1] for key in sorted(first, key=first.get)})
        total.update(_tally(self.unpaired))
        return total


class _LazyVerdicts:
    """``DocScore.verdicts``: a tuple of Verdicts, built from verdict rows on first read
    (scoring needs only counts; the rows cost a tuple each, a Verdict several times more).
    Reading it always gives the same tuple, equal to what eager building gave."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.slot = "_" + name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            raise AttributeError(self.slot[1:])  # no class-level default
        value = obj.__dict__[self.slot]
        if isinstance(value, _Rows):
            value = tuple(_verdict(row) for row in value.rows)
            obj.__dict__[self.slot] = value
        return value

    def __set__(self, obj: Any, value: Any) -> None:
        obj.__dict__[self.slot] = value if isinstance(value, _Rows) else tuple(value)


@dataclass(frozen=True)
class DocScore:
    """The version-2.0 score of one document, derived entirely from its verdicts.

    ``value``: accuracy in [0, 1] = correct / scored verdicts (1.0 when nothing is scored,
    0.0 for a parse failure). ``counts``: every key of :data:`VERDICT_KINDS`, zeros
    included. ``fields``: field path -> :class:`FieldCounts`, sorted by path, for fields
    with at least one scored verdict. ``exact``: False only if a budget made a pairing
    approximate (a fuzzy field over ``_FUZZY_BUDGET`` similarities; docs/LIMITS.md).
    """

    version: str
    value: float
    verdicts: tuple[Verdict, ...] = _LazyVerdicts()  # type: ignore[assignment]
    counts: dict[str, int]
    fields: dict[str, FieldCounts]
    exact: bool = True

    @classmethod
    def from_verdicts(
        cls, verdicts: Sequence[Verdict], *, version: str = "2.0", exact: bool = True
    ) -> DocScore:
        """Counts, fields and accuracy from ``verdicts``: the only place they are summed.

        Accuracy = correct / verdicts other than ``correct_absence``, 1.0 when there are
        none. (A parse failure's 0.0 is set by :func:`score_parse_failure`.)
        """
        counts = dict.fromkeys(VERDICT_KINDS, 0)
        sums: dict[str, list[int]] = {}
        for verdict in verdicts:
            counts[verdict.kind] += 1
            if verdict.kind != "correct_absence":
                tp, fp, fn = VERDICT_KINDS[verdict.kind]
                total = sums.setdefault(verdict.field, [0, 0, 0])
                total[0] += tp
                total[1] += fp
                total[2] += fn
        fields = {path: FieldCounts(*sums[path]) for path in sorted(sums)}
        return cls(version, cls.accuracy_of(counts), tuple(verdicts), counts, fields, exact)

    def replace(self, **changes: Any) -> DocScore:
        """``dataclasses.replace`` of this score; verdicts not yet built stay unbuilt."""
        changes.setdefault("verdicts", self.__dict__["_verdicts"])
        return dataclasses.replace(self, **changes)

    def verdict_tally(self) -> dict[tuple[str, str], int]:
        """(field path, verdict kind) -> how many verdicts, for every pair that occurs,
        correct absences included; keys in first-seen order. Counted from the verdict
        rows when the Verdict objects were not built yet (they are not built here)."""
        held = self.__dict__["_verdicts"]
        if isinstance(held, _Rows):
            return dict(held.tally())
        return dict(collections.Counter((v.field, v.kind) for v in held))

    @classmethod
    def _from_rows(cls, rows: list[tuple], *, exact: bool = True, blocks: bool = False,
                   ) -> DocScore:
        """:meth:`from_verdicts` of verdict rows (:func:`_compare_row`; ``blocks``: some
        are :class:`_FlatRows`), the Verdicts left to be built on first read of
        ``.verdicts``. Same counts, fields, accuracy."""
        counts = dict.fromkeys(VERDICT_KINDS, 0)
        sums: dict[str, list[int]] = {}
        rows = _Rows(rows, blocks)
        for (field, kind), many in rows.tally().items():
            counts[kind] += many
            if kind != "correct_absence":
                tp, fp, fn = VERDICT_KINDS[kind]
                total = sums.get(field)
                if total is None:
                    total = sums[field] = [0, 0, 0]
                total[0] += tp * many
                total[1] += fp * many
                total[2] += fn * many
        fields = {path: FieldCounts(*sums[path]) for path in sorted(sums)}
        return cls("2.0", cls.accuracy_of(counts), rows, counts, fields, exact)

    @staticmethod
    def accuracy_of(counts: Mapping[str, int]) -> float:
        """Accuracy from verdict counts (every key of :data:`VERDICT_KINDS`): correct /
        counts other than ``correct_absence``, 1.0 when there are none. A stored score is
        checked against it (``leafscore.runner``), so this is the one place it is written."""
        scored = sum(counts.values()) - counts["correct_absence"]
        return counts["correct"] / scored if scored else 1.0

    def to_dict(self, verdicts: bool = False) -> dict[str, Any]:
        """JSON form: keys ``version``, ``accuracy``, ``counts``, ``fields`` (each field as
        :meth:`FieldCounts.to_dict`), ``verdicts`` when asked, and ``exact`` only when it
        is False."""
        out: dict[str, Any] = {
            "version": self.version,
            "accuracy": self.value,
            "counts": dict(self.counts),
            "fields": {path: counts.to_dict() for path, counts in self.fields.items()},
        }
        if not self.exact:
            out["exact"] = False
        if verdicts:
            held = self.__dict__["_verdicts"]
            out["verdicts"] = [_row_dict(row) for row in held.rows] \
                if isinstance(held, _Rows) else [v.to_dict() for v in held]
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DocScore:
        """Inverse of ``to_dict(verdicts=True)`` (for caches). KeyError if a key is missing."""
        fields = {
            path: FieldCounts(c["tp"], c["fp"], c["fn"]) for path, c in data["fields"].items()
        }
        return cls(
            version=data["version"],
            value=data["accuracy"],
            verdicts=tuple(Verdict(**v) for v in data.get("verdicts", ())),
            counts=dict(data["counts"]),
            fields=fields,
            exact=data.get("exact", True),
        )


# =====================================================================================
# 3-7. Version 2.0: canonical values, schema walk, one leaf, arrays, document
# =====================================================================================

# ----- 3. Canonical values -----------------------------------------------------------
# One function per type. Each returns the canonical value, or None when the value cannot
# be read as that type. Every comparison, pair weight and index key uses these.


def is_empty(value: Any) -> bool:
    """True when ``value`` states nothing (spec 2.0 §3): ``None``, ``""``, whitespace-only
    text, ``[]``, ``{}``, or a container whose members are all empty.

    Iterative, so any nesting depth is safe. Numbers and booleans are never empty, and
    placeholder words such as ``"N/A"`` are values.
    """
    if value is None:
        return True
    if isinstance(value, str):
        return not value.strip()
    if not isinstance(value, dict | list | tuple):
        return False
    if value.__class__ is dict:  # a first member stating something settles most objects
        for item in value.values():
            if item.__class__ is str:
                if item.strip():
                    return False
            elif item.__class__ in _NEVER_EMPTY:
                return False
            else:
                break
    stack = [value]
    while stack:
        item = stack.pop()
        if item is None:
            continue
        if isinstance(item, str):
            if item.strip():
                return False
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
        else:
            return False
    return True


_NEVER_EMPTY = frozenset((int, float, bool))


def _plain_decimal(number: Decimal) -> str:
    """Shortest plain decimal text of a finite Decimal: ``Decimal("12.0")`` -> ``"12"``,
    ``-0`` -> ``"0"``. Exponents beyond 40 digits are written ``1.5E+99`` instead."""
    text = str(number)
    if len(text) <= 40 and "E" not in text:  # already plain (exponent >= -40, <= 40 digits)
        if "." in text:
            text = text.rstrip("0").rstrip(".")
        return "0" if text in ("0", "-0") else text
    sign, digits, exponent = number.as_tuple()
    digits = list(digits)
    while len(digits) > 1 and digits[-1] == 0:
        digits.pop()
        exponent += 1
    if digits == [0]:
        return "0"
    text = "".join(map(str, digits))
    minus = "-" if sign else ""
    if -40 <= exponent <= 40 and len(digits) + exponent <= 60:
        if exponent >= 0:
            return minus + text + "0" * exponent
        point = len(text) + exponent
        if point > 0:
            return f"{minus}{text[:point]}.{text[point:]}"
        return f"{minus}0.{'0' * -point}{text}"
    adjusted = len(digits) + exponent - 1
    mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
    return f"{minus}{mantissa}E{adjusted:+d}"


def _json_decimal(value: Any) -> Decimal | None:
    """A JSON number (int, float or Decimal; never a bool) as an exact Decimal: read from
    a file, its written form (:class:`JSONNumber`); a Python float, its shortest form
    (``0.1`` -> ``Decimal("0.1")``). None for NaN/Infinity."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):  # a JSONNumber keeps the form a float cannot hold
        if not math.isfinite(value):
            return None
        return Decimal(value.text if type(value) is JSONNumber else repr(value))
    if isinstance(value, Decimal):
        return value if value.is_finite() else None
    return None


_CF = regex.compile(r"[\p{Cf}\uFE00-\uFE0F\U000E0100-\U000E01EF]")
_DASH = regex.compile(r"[\p{Pd}\u2212]")
_QUOTES = str.maketrans(
    {"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'",
     "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"',
     "\u2044": "/", "\u2215": "/"}
)
_SPACE = regex.compile(r"[\s\p{Z}]+")
_SIGN = regex.compile(r"[+-](?=\p{Nd})")
_TEXT_DROP = regex.compile(r"(?!(?<=\p{Nd})[.,/:](?=\p{Nd}))[\p{P}\p{S}]")


_STREAM_SAFE_RUN = 30  # non-starters in a row, UAX #15 section 13
_CGJ = "\u034f"  # COMBINING GRAPHEME JOINER, a starter that blocks reordering


@functools.lru_cache(maxsize=65536)
def _non_starter(char: str) -> bool:
    """Whether ``char`` decomposes (NFKD) into non-starters only (canonical combining
    class > 0), so a run of such characters is reordered as one block by NFKC."""
    return all(unicodedata.combining(c) for c in unicodedata.normalize("NFKD", char))


def _stream_safe(text: str) -> str:
    """``text`` in the Stream-Safe Text Format of UAX #15 section 13: a CGJ after every
    30 non-starters in a row. Real text never holds such a run; without this step NFKC's
    canonical reordering is quadratic in the run's length (80,000 mixed marks: 8 s).
    Applied to every value on both sides alike, so identity and equality are kept."""
    if len(text) <= _STREAM_SAFE_RUN or text.isascii():  # ASCII holds no non-starter
        return text
    marks = [c for c in set(text) if _non_starter(c)]
    if not marks:
        return text
    run = re.compile(f"[{''.join(map(re.escape, marks))}]{{{_STREAM_SAFE_RUN + 1},}}")
    size = _STREAM_SAFE_RUN
    return run.sub(lambda m: _CGJ.join(m[0][k : k + size] for k in range(0, len(m[0]), size)),
                   text)


def _text_fold(text: str) -> str:
    """The first five text steps: strip, NFKC, casefold, drop ``\\p{Cf}`` and variation
    selectors, fold fraction slashes, dashes, minus and curly quotes to ASCII. NFKC runs on
    the stream-safe form (:func:`_stream_safe`), so its cost is linear in the length."""
    if text.isascii():  # NFKC, the drops and folds leave ASCII as is; casefold is lower
        return text.strip().lower()
    text = unicodedata.normalize("NFKC", _stream_safe(text.strip())).casefold()
    text = _CF.sub("", text)
    return _DASH.sub("-", text.translate(_QUOTES)).strip()


def canon_text(value: Any) -> str:
    """Canonical text of a scalar (spec 2.0 §3 text, and §7 "Text canon, in order").

    Numbers read as their shortest exact decimal (``12.0`` -> ``"12"``), booleans as
    ``"true"``/``"false"``. After :func:`_text_fold`, a leading sign directly before a
    digit is kept, whitespace is deleted, then every ``\\p{P}``/``\\p{S}`` character except
    ``. , / :`` standing between two ``\\p{Nd}`` digits. If nothing is left from a
    non-empty value, the folded text without whitespace is the value, so ``"-"`` and
    ``"—"`` are equal and not empty. Examples: ``"Acme, Inc."`` -> ``"acmeinc"``,
    ``"-98.2"`` -> ``"-98.2"``, ``"1 / 2"`` -> ``"1/2"``.
    """
    if value.__class__ is str and len(value) <= _MEMO_TEXT:
        return _canon_string(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if not isinstance(value, str):
        number = _json_decimal(value)
        return _plain_decimal(number) if number is not None else str(value).casefold()
    return _canon_string.__wrapped__(value)


# Canonical forms of short strings are remembered across documents (a label is read once
# per system; most result values equal label values). Pure functions of the string, so
# the memo changes no value; length and entry bounds keep its memory under ~40 MB.
_MEMO_TEXT = 200


@functools.lru_cache(maxsize=1 << 16)
def _canon_string(value: str) -> str:
    """:func:`canon_text` of a string."""
    folded = _text_fold(value)
    if folded.isascii() and (bare := folded.replace(" ", "")).isalnum():
        return bare  # ASCII letters, digits and spaces: no sign, no marks, spaces dropped
    sign = _SIGN.match(folded)
    body = folded[1:] if sign else folded
    canon = _TEXT_DROP.sub("", _SPACE.sub("", body))
    if canon:
        return folded[0] + canon if sign else canon
    return _SPACE.sub("", folded)


_ISO_4217_CODES = (
    """AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD
    BTN BWP BYN BZD CAD CDF CHF CLP CNY COP CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB
    EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HRK HTG HUF IDR ILS INR IQD IRR ISK
    JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD
    MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR
    PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD SSP STN SVC SYP
    SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD UYU UZS VES VND VUV WST XAF XCD XOF
    XPF YER ZAR ZMW ZWL"""
)
_ISO_4217 = frozenset(_ISO_4217_CODES.split())
_DIGITS = frozenset("0123456789")
_GROUPING = frozenset(",. '_")  # NFKC has already made NBSP and thin spaces plain spaces
_EXPONENT = regex.compile(r"[+-]?[0-9]{1,9}")
_Q6 = Decimal("0.000001")


def _currency_at(text: str, front: bool) -> int:
    """Length of one currency marker (``\\p{Sc}`` or an ISO 4217 code in any case, standing
    apart from other letters) at the front or back of ``text``, or 0."""
    edge = text[:1] if front else text[-1:]
    if edge and unicodedata.category(edge) == "Sc":
        return 1
    code = text[:3] if front else text[-3:]
    beside = text[3:4] if front else text[-4:-3]
    if code.upper() in _ISO_4217 and not beside.isalpha():
        return 3
    return 0


def _peel(text: str) -> tuple[str, bool] | None:
    """The bare numeral of a number string and whether it is negative, or None.

    Sign, currency and accounting parentheses combine in any order around the numeral
    (``$(1,234)``, ``($1,234)``, ``(500) USD``, ``-$5``, ``5-``), each at most once, and a
    ``%`` may close it; parentheses are one sign marker, so ``-($5)`` is unreadable. Each
    step strips a known character, so the loop is linear in the markers, never the digits.
    """
    signs = currencies = opened = closed = percents = 0
    negative = False
    while text:
        size = _currency_at(text, front=True)
        if text[0] in "+-":
            signs, negative, text = signs + 1, negative or text[0] == "-", text[1:]
        elif text[0] == "(":
            opened, text = opened + 1, text[1:]
        elif size:
            currencies, text = currencies + 1, text[size:]
        else:
            break
        if signs + opened > 1 or currencies > 1:
            return None  # bail out at once, so a run of markers costs no quadratic slicing
        text = text.lstrip()
    while text:
        size = _currency_at(text, front=False)
        if text[-1] == "-":
            signs, negative, text = signs + 1, True, text[:-1]
        elif text[-1] == ")":
            closed, text = closed + 1, text[:-1]
        elif text[-1] == "%":
            percents, text = percents + 1, text[:-1]
        elif size:
            currencies, text = currencies + 1, text[:-size]
        else:
            break
        if signs + closed > 1 or currencies > 1 or percents > 1:
            return None
        text = text.rstrip()
    if opened != closed or signs + opened > 1 or currencies > 1 or percents > 1:
        return None
    return text, negative or opened == 1


def _grouped(whole: str, mark: str) -> str | None:
    """The digits of an integer part grouped by ``mark``: western groups of 3
    (``1,234,567``) or Indian 2-digit groups before the last 3 (``12,34,567``). A first
    group starting with ``0`` is never a thousands group (``0,456`` is not 456)."""
    groups = whole.split(mark)
    first, middle, last = groups[0], groups[1:-1], groups[-1]
    if not first or first[0] == "0" or len(last) != 3 or len(first) > 3:
        return None
    sizes = {len(g) for g in middle}
    if not (sizes <= {3} or (len(first) <= 2 and sizes <= {2})):
        return None
    return "".join(groups)


def _read_number_text(text: str, decimal_separator: str) -> Decimal | None:
    """The exact value of a numeric string (spec 2.0 §3 number and §7), or None."""
    peeled = _peel(_DASH.sub("-", unicodedata.normalize("NFKC", text)).strip())
    if peeled is None:
        return None
    numeral, negative = peeled
    mantissa, e, exponent = numeral.replace("E", "e").partition("e")
    if e and not _EXPONENT.fullmatch(exponent):
        return None
    marks = [ch for ch in mantissa if ch not in _DIGITS]
    kinds = set(marks)
    if not kinds <= _GROUPING or len(marks) == len(mantissa):
        return None  # a foreign character, or no digit at all
    decimal = None
    if e:
        # the mantissa of exponent notation carries no grouping: its one mark is decimal
        if len(marks) > 1 or not kinds <= {".", ","}:
            return None
        decimal = marks[0] if marks else None
    elif "." in kinds and "," in kinds:
        decimal = "." if mantissa.rfind(".") > mantissa.rfind(",") else ","
    elif marks.count(decimal_separator) == 1:
        decimal = decimal_separator
    elif marks == ["."] and mantissa.startswith("."):
        decimal = "."  # ".5": a missing integer part
    whole, fraction = mantissa, ""
    if decimal is not None:
        if marks.count(decimal) != 1:
            return None
        whole, _, fraction = mantissa.partition(decimal)
        if not fraction and decimal != decimal_separator:
            return None  # "7." reads 7 only where "." is the field's decimal mark
        kinds.discard(decimal)
    if len(kinds) > 1 or not set(fraction) <= _DIGITS or not (whole or fraction):
        return None
    if kinds:
        whole = _grouped(whole, kinds.pop())
        if whole is None:
            return None
    number = Decimal(f"{whole or '0'}.{fraction or '0'}e{exponent or 0}")
    return number.copy_negate() if negative else number  # exact, whatever the exponent


def canon_number(value: Any, decimal_separator: str = ".") -> Decimal | None:
    """The canonical value of a number field: an exact Decimal rounded half-even to 6
    places (spec 2.0 §3), or None when ``value`` is not a number.

    ``value``: a JSON number (never a bool; NaN and Infinity are None) or a numeric
    string: surrounding whitespace, one currency (``\\p{Sc}`` or ISO 4217 code, before or
    after), a trailing ``%`` (value unchanged), grouping by ``,`` ``.`` space ``'`` ``_``
    (groups of exactly 3 digits, or Indian 2-digit groups before the last 3), at most one
    sign marker (``-5``, ``5-``, ``(5)``, ``$-5``, ``$(5)``, ``(5) USD``), ``.5``,
    exponents. With both ``,`` and ``.`` the last is the decimal mark; with one kind, it
    is the decimal mark only when it is ``decimal_separator`` and appears once. The
    mantissa of exponent notation is never grouped: its one ``.`` or ``,`` is the decimal
    mark (``"1,5e-3"`` -> 0.0015 in either field). A first group starting with ``0`` never
    groups thousands, and a trailing mark (``"7."``) is read only when it is
    ``decimal_separator``. ``"1,240.00"`` -> ``Decimal("1240.00")``.
    """
    if value.__class__ is float and "e" not in (text := repr(value)) and "n" not in text:
        number = Decimal(text)  # its shortest form, as _json_decimal reads it (finite)
        if len(text) - text.index(".") <= 7:  # at most 6 places: kept as it is
            return number
    elif isinstance(value, str):
        number = _read_number_text(value, decimal_separator)
    else:
        number = _json_decimal(value)
    if number is None:
        return None
    if number.as_tuple().exponent >= -6:
        return number
    with localcontext() as context:
        context.prec = max(28, number.adjusted() + 8)
        context.rounding = ROUND_HALF_EVEN
        return number.quantize(_Q6)


def canon_boolean(value: Any) -> bool | None:
    """``true``/``false``, or the strings ``"true"``/``"false"`` in any case with
    surrounding whitespace; None for anything else (numbers included: ``1`` is not true)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return {"true": True, "false": False}.get(value.strip().casefold())
    return None


_ISO_DATE = regex.compile(
    r"(\d{4})-(\d{2})-(\d{2})(?:[t ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?"
    r"\s*(?:z|[+-]\d{2}(?::?\d{2})?)?",
    regex.IGNORECASE,
)


def _iso_datetime(moment: datetime) -> str:
    """``YYYY-MM-DD`` at midnight, else ``YYYY-MM-DDTHH:MM:SS`` (+ ``.ffffff`` if any)."""
    if moment.time() == datetime.min.time():
        return moment.date().isoformat()
    return moment.isoformat(timespec="microseconds" if moment.microsecond else "seconds")


def canon_date(value: Any, formats: Sequence[str] | None = None) -> str | None:
    """The ISO form of a date string, or None when no format reads it (spec 2.0 §3, §7).

    ISO 8601 (``YYYY-MM-DD``, optional ``T``/space time, seconds default to 0, an offset
    ignored: the time is taken as written) is tried first, then ``formats`` (default
    :data:`DEFAULT_DATE_FORMATS`) in order with ``datetime.strptime``, which matches
    case-insensitively and accepts unpadded numbers. A midnight timestamp equals its date:
    ``"2024-03-31T00:00:00Z"`` -> ``"2024-03-31"``; ``"March 31, 2024"`` -> the same.
    """
    if value.__class__ is str and len(value) <= _MEMO_TEXT and (
            formats is None or formats.__class__ is tuple):
        return _canon_date_string(value, formats)
    if not isinstance(value, str):
        return None
    return _canon_date_string.__wrapped__(value, formats)


@functools.lru_cache(maxsize=1 << 14)
def _canon_date_string(value: str, formats: Sequence[str] | None) -> str | None:
    """:func:`canon_date` of a string (remembered as :func:`_canon_string`)."""
    text = value.strip()
    match = _ISO_DATE.fullmatch(text)
    if match:
        year, month, day, hour, minute, second, fraction = match.groups()
        micro = int((fraction or "0")[:6].ljust(6, "0"))
        try:
            parts = (int(hour or 0), int(minute or 0), int(second or 0), micro)
            return _iso_datetime(datetime(int(year), int(month), int(day), *parts))
        except ValueError:
            return None
    for fmt in DEFAULT_DATE_FORMATS if formats is None else formats:
        try:
            return _iso_datetime(datetime.strptime(text, fmt))
        except ValueError:
            continue
    return None


def canon_exact(value: Any) -> str:
    """Canonical JSON text of any value, for ``exact`` comparison (spec 2.0 §3, §7).

    Equal by JSON type and value: ``1`` and ``1.0`` give ``"1"``, ``true`` gives
    ``"true"``, strings are quoted unchanged, object keys sorted. Iterative, so any depth
    is safe.
    """
    out: list[str] = []
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, _Raw):
            out.append(item)
        elif item is None or isinstance(item, bool):
            out.append(json.dumps(item))
        elif isinstance(item, str):
            out.append(json.dumps(item, ensure_ascii=False))
        elif isinstance(item, dict):
            stack.append(_Raw("}"))
            for position, key in enumerate(sorted(item, key=str, reverse=True)):
                stack.append(item[key])
                comma = "," if position < len(item) - 1 else ""
                stack.append(_Raw(comma + json.dumps(str(key), ensure_ascii=False) + ":"))
            stack.append(_Raw("{"))
        elif isinstance(item, list | tuple):
            stack.append(_Raw("]"))
            for position in range(len(item) - 1, -1, -1):
                stack.append(item[position])
                if position:
                    stack.append(_Raw(","))
            stack.append(_Raw("["))
        else:
            number = _json_decimal(item)
            out.append(_plain_decimal(number) if number is not None else repr(item))
    return "".join(out)


class _Raw(str):
    """A piece of output text on :func:`canon_exact`'s stack (not a value to encode)."""

    __slots__ = ()


def fuzzy_similarity(a: str, b: str) -> float:
    """rapidfuzz's normalized Indel similarity of two canonical texts, in [0, 1]."""
    from rapidfuzz.distance import Indel  # loaded with the first fuzzy leaf, not at import

    return Indel.normalized_similarity(a, b)


# ----- 4. Schema walk ----------------------------------------------------------------
# The schema compiles once into a tree of nodes: objects, arrays, leaves, ignored
# subtrees. $ref goes through `referencing`; allOf/anyOf/oneOf/type lists are flattened.


@dataclass(frozen=True, slots=True)
class Leaf:
    """A scored scalar field. ``compare``: a :data:`COMPARE_MODES` comparator other than
    ignore, or ``"mix"`` (compared by the JSON kind of the label value, or of the result
    when the label is empty); ``dated``: a mix whose string values are dates."""

    compare: str
    options: Options
    dated: bool = False

    @property
    def tolerant(self) -> bool:
        return self.options.abs_tol > 0 or self.options.rel_tol > 0


@dataclass(eq=False, slots=True)
class ObjectNode:
    """An object: fixed ``properties`` (name -> node), or an open map when ``properties``
    is None, whose every key is scored with the node ``values``."""

    properties: dict[str, Any] | None
    values: Any = None


@dataclass(eq=False, slots=True)
class ArrayNode:
    """An array whose items follow ``items``; ``ordered`` pairs them by position."""

    items: Any
    ordered: bool = False


class _Ignored:
    """The node of a subtree under ``"compare": "ignore"``: no verdicts at all."""

    __slots__ = ()


IGNORED = _Ignored()
_MAX_SCHEMA_DEPTH = 200
_STRUCTURE = ("$ref", "allOf", "anyOf", "oneOf")


def _merge_schema(base: dict[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` overlaid by ``top``: keywords replaced, ``properties`` united and
    ``x-leafscore`` merged option by option, ``top`` winning in both."""
    out = dict(base)
    for key, value in top.items():
        if key in ("properties", "x-leafscore") and isinstance(value, Mapping):
            previous = out.get(key)
            out[key] = {**(previous if isinstance(previous, Mapping) else {}), **value}
        else:
            out[key] = value
    return out


def _types(schema: Mapping[str, Any]) -> list[str] | None:
    """The non-null types of a schema's ``type`` (a string or list), or None if unset."""
    declared = schema.get("type")
    if declared is None:
        return None
    listed = [declared] if isinstance(declared, str) else declared
    return [t for t in listed if t != "null"]


def _is_null_branch(schema: Mapping[str, Any]) -> bool:
    return _types(schema) == [] or schema.get("enum") == [None] or schema.get("const", 0) is None


def _is_object_branch(schema: Mapping[str, Any]) -> bool:
    types = _types(schema)
    return types == ["object"] or (types is None and "properties" in schema)


@dataclass(frozen=True, slots=True)
class _Flat:
    """One schema node with ``$ref``/``allOf``/``anyOf``/``oneOf`` resolved: its plain
    ``keywords``, and ``mix`` (None, or whether the mixed leaf's strings are dates) when an
    ``anyOf``/``oneOf`` made it one leaf compared by JSON kind. The compiler's own state
    lives here, never in schema keys, so no schema can set it."""

    keywords: dict[str, Any]
    mix: bool | None = None

    def over(self, top: _Flat) -> _Flat:
        """``self`` overlaid by ``top`` (see :func:`_merge_schema`); a later mix wins. A bare
        ``$ref`` returns its target's own record, so every use of a target shares one node."""
        if not top.keywords and top.mix is None:
            return self
        mix = top.mix if top.mix is not None else self.mix
        return _Flat(_merge_schema(self.keywords, top.keywords), mix)


def _token(name: str) -> str:
    """``name`` as one RFC 6901 pointer token (``~`` -> ``~0``, ``/`` -> ``~1``)."""
    return name.replace("~", "~0").replace("/", "~1")


class _Compiler:
    """Compiles one schema into nodes. ``file`` names it in errors; ``defaults`` are the
    benchmark-wide options every node inherits."""

    def __init__(self, schema: Any, file: str, defaults: Options) -> None:
        self.file, self.defaults, self.schema = file, defaults, schema
        # (id of a resolved record, options) -> (the record, kept so its id is never
        # reused; its node): each node is compiled once, however many $refs reach it
        self.memo: dict[tuple[int, Options], tuple[_Flat, Any]] = {}
        # id(node) -> (node, its _Flat): the node is kept so its id is never reused, and
        # each node is resolved once, so anyOf chains through $defs cost their size.
        self.flat_memo: dict[int, tuple[Any, _Flat]] = {}

    def error(self, pointer: str, reason: str) -> ScoringError:
        return ScoringError(self.file, pointer, reason)

    @functools.cached_property
    def resolver(self) -> Any:
        """The ``referencing`` resolver of this schema alone (an empty registry: no
        fetching), built with the first ``$ref``: schemas without one never load it."""
        from referencing import Registry
        from referencing.jsonschema import DRAFT202012

        schema = self.schema if isinstance(self.schema, dict) else {}
        uri = "urn:leafscore:schema"
        resource = DRAFT202012.create_resource(schema)
        return Registry().with_resource(uri, resource).resolver(base_uri=uri)

    def flatten(self, schema: Any, pointer: str, refs: tuple[str, ...] = ()) -> _Flat:
        """One schema node with ``$ref``, ``allOf``, ``anyOf``/``oneOf`` resolved into
        plain keywords (spec 2.0 §2, §7 Schema). Raises ScoringError.

        Remembered per node: a resolved node does not depend on the ``$ref`` path that
        reached it (a cycle through it would have failed its own resolution first)."""
        if schema is True:
            return _Flat({})
        if schema is False:
            return _Flat({"x-leafscore": {"compare": "ignore"}})
        if not isinstance(schema, dict):
            raise self.error(pointer, f"a schema must be an object or a boolean, not {schema!r}")
        found = self.flat_memo.get(id(schema))
        if found is not None:
            return found[1]
        if len(refs) > _MAX_SCHEMA_DEPTH:
            raise self.error(pointer, "schema nests $ref too deeply")
        for key in schema:
            if isinstance(key, str) and key.startswith("x-leafscore") and key != "x-leafscore":
                raise self.error(f"{pointer}/{_token(key)}",
                                 f"{key!r} is not a schema keyword; only 'x-leafscore' "
                                 "configures scoring")
        out = _Flat({})
        if "$ref" in schema:
            ref = schema["$ref"]
            where = f"{pointer}/$ref"
            if not isinstance(ref, str):
                raise self.error(where, f"$ref must be a string, not {ref!r}")
            if ref in refs:
                raise self.error(where, f"$ref {ref!r} refers to itself without structure")
            from referencing.exceptions import Unresolvable

            try:
                target = self.resolver.lookup(ref).contents
            except (Unresolvable, LookupError, AttributeError, TypeError) as exc:
                # referencing raises the last three when the path crosses a non-schema
                raise self.error(where, f"$ref {ref!r} cannot be resolved ({exc})") from None
            out = self.flatten(target, ref.lstrip("#") or "/", (*refs, ref))
        members = schema.get("allOf", [])
        if not isinstance(members, list):
            raise self.error(f"{pointer}/allOf", "allOf must be a list")
        for position, member in enumerate(members):
            out = out.over(self.flatten(member, f"{pointer}/allOf/{position}", refs))
        for keyword in ("anyOf", "oneOf"):
            if keyword in schema:
                out = out.over(self.choose(schema[keyword], f"{pointer}/{keyword}", refs))
        out = out.over(_Flat({k: v for k, v in schema.items() if k not in _STRUCTURE}))
        declared = out.keywords.get("type")
        listed = declared if isinstance(declared, list) else [declared]
        if declared is not None and not all(isinstance(t, str) for t in listed):
            raise self.error(f"{pointer}/type", f"type must be a string or a list of strings, "
                                                f"not {declared!r}")
        self.flat_memo[id(schema)] = (schema, out)
        return out

    def choose(self, branches: Any, pointer: str, refs: tuple[str, ...]) -> _Flat:
        """An ``anyOf``/``oneOf`` as one schema: null branches make it nullable; one other
        branch is that branch; several object branches merge their properties; any other
        mix is one leaf compared by the label value's JSON kind."""
        if not isinstance(branches, list) or not branches:
            raise self.error(pointer, "anyOf/oneOf must be a non-empty list")
        flat = [self.flatten(b, f"{pointer}/{i}", refs) for i, b in enumerate(branches)]
        kept = [b for b in flat if not _is_null_branch(b.keywords)]
        if not kept:
            return _Flat({"type": "null"})
        if len(kept) == 1:
            return kept[0]
        if all(_is_object_branch(b.keywords) and b.mix is None for b in kept):
            merged = _Flat({})
            for branch in kept:
                merged = merged.over(branch)
            return merged
        dated = any(b.keywords.get("format") in ("date", "date-time") or b.mix for b in kept)
        return _Flat({"type": ["string", "number"]}, mix=dated)

    def compile(self, schema: Any, pointer: str, inherited: Options, depth: int = 0) -> Any:
        """The node for ``schema`` at ``pointer`` under ``inherited`` options, once per
        (schema node, options). Cycles through ``$ref`` reuse the node being built, so
        recursive schemas compile."""
        if depth > _MAX_SCHEMA_DEPTH:
            raise self.error(pointer, f"schema nests deeper than {_MAX_SCHEMA_DEPTH} levels")
        resolved = self.flatten(schema, pointer)
        flat = resolved.keywords
        own = flat.get("x-leafscore")
        if "x-leafscore" in flat and not isinstance(own, Mapping):
            raise self.error(f"{pointer}/x-leafscore", f"x-leafscore must be an object, "
                                                       f"not {json.dumps(own)}")
        try:
            options = inherited.merged(own)
        except ValueError as exc:
            raise self.error(f"{pointer}/x-leafscore", str(exc)) from None
        key = (id(resolved), options)
        if key not in self.memo:
            self.node(resolved, pointer, options, depth, key)
        return self.memo[key][1]

    def node(self, resolved: _Flat, pointer: str, options: Options, depth: int,
             key: tuple[int, Options]) -> Any:
        """The node of one resolved schema under its own ``options``. Containers enter the
        memo under ``key`` before their children, so a ``$ref`` back to them reuses them."""
        if options.compare == "ignore":
            self.memo[key] = (resolved, IGNORED)
            return IGNORED
        flat = resolved.keywords
        types = _types(flat)
        if resolved.mix is not None or (types is not None and len(types) > 1):
            leaf = Leaf(options.compare or "mix", options, bool(resolved.mix))
            self.memo[key] = (resolved, leaf)
            return leaf
        kind = types[0] if types else None
        if kind == "object" or (kind is None and "properties" in flat):
            node = ObjectNode(None)
            self.memo[key] = (resolved, node)
            properties = flat.get("properties")
            if isinstance(properties, Mapping):
                node.properties = {
                    name: self.compile(sub, f"{pointer}/properties/{_token(name)}", options,
                                       depth + 1)
                    for name, sub in properties.items()
                }
            else:
                extra = flat.get("additionalProperties")
                sub = extra if isinstance(extra, dict) else True
                where = f"{pointer}/additionalProperties"
                node.values = self.compile(sub, where, options, depth + 1)
            return node
        if kind == "array" or (kind is None and "items" in flat):
            array = ArrayNode(None, options.ordered)
            self.memo[key] = (resolved, array)
            items = flat.get("items")
            sub = items if isinstance(items, dict | bool) else True
            array.items = self.compile(sub, f"{pointer}/items", options, depth + 1)
            return array
        leaf = Leaf(self.leaf_compare(flat, kind, options, pointer), options)
        self.memo[key] = (resolved, leaf)
        return leaf

    def leaf_compare(self, flat: Mapping[str, Any], kind: str | None, options: Options,
                     pointer: str) -> str:
        """The comparator of a scalar node: its own or inherited ``compare``, else by type."""
        if options.compare:
            return options.compare
        if kind == "string":
            return "date" if flat.get("format") in ("date", "date-time") else "text"
        if kind in ("number", "integer"):
            return "number"
        if kind == "boolean":
            return "boolean"
        if kind in (None, "null"):
            choices = flat.get("enum", [flat["const"]] if "const" in flat else None)
            if isinstance(choices, list) and choices:
                return "text" if all(isinstance(c, str) for c in choices) else "exact"
            return "mix"
        raise self.error(f"{pointer}/type", f"unknown type {kind!r}")


def compile_schema(schema: Any, *, options: Options | None = None, file: str = "") -> Any:
    """The root node of ``schema`` (a JSON Schema as a dict) under benchmark-wide
    ``options``. Raises ScoringError(file, pointer, reason) for an unusable schema: a
    remote or unresolvable ``$ref``, a bad ``x-leafscore`` option, an unknown type.

    Compiled once per process for each schema text and options (nodes are never changed
    once built), so scoring many systems on one schema compiles it once.
    """
    options = options or Options()
    try:
        text = json_text(schema)
    except (TypeError, ValueError):  # not JSON data (a set, a NaN): compiled as it is
        return _compile(schema, options, file)
    found = _COMPILED.get((text, options))
    if found is None:
        found = _compile(schema, options, file)  # errors are not kept: each call says its own
        _COMPILED[(text, options)] = found
        _COMPILED_TEXT[0] += len(text)
        while _COMPILED_TEXT[0] > _COMPILED_TEXT_MAX and len(_COMPILED) > 1:
            _COMPILED_TEXT[0] -= len(next(iter(_COMPILED))[0])
            del _COMPILED[next(iter(_COMPILED))]  # the oldest first
    return found


# Compiled roots by (schema text in document order, options): equal text, equal nodes
# (nodes are never changed once built), so scoring many systems on one schema compiles
# it once per process. Key order is kept in the text: it decides the order of verdicts.
# Bounded by the texts' total size, not their number: a run goes system by system over
# every document, so the memo must hold every distinct schema of a corpus (1,205 in
# bench_corpus, which a cap of 512 entries recompiled for each system). Compiled nodes
# take about 3.3 bytes per byte of text there: 16 MiB of text is some 70 MB in all.
_COMPILED: dict[tuple[bytes, Options], Any] = {}
_COMPILED_TEXT = [0]  # bytes of the texts held
_COMPILED_TEXT_MAX = 16 * 2**20


def _compile(schema: Any, options: Options, file: str) -> Any:
    compiler = _Compiler(schema, file, options)
    return compiler.compile(schema, "", compiler.defaults)


# ----- 5. One leaf -------------------------------------------------------------------
# A leaf's comparison runs under a *tag*: the comparator the label value is read with.
# Label faults (a label unreadable as its type) fall back to "text"; a label container
# at a scalar leaf is compared as exact JSON ("json").

_SCORED_PAIR = frozenset({"correct", "wrong_value", "type_error"})


def _kind_compare(leaf: Leaf, value: Any) -> str:
    """For a ``mix`` leaf: the comparator the JSON kind of ``value`` calls for."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, str):
        return "date" if leaf.dated else "text"
    return "number" if _json_decimal(value) is not None else "text"


def label_tag(leaf: Leaf, label: Any, canon: Callable[[Leaf, str, Any], Any] | None = None) -> str:
    """The comparator a non-empty label value is read with at ``leaf`` (``canon``: a
    cached :func:`canon_under`, or None for the plain one)."""
    if isinstance(label, dict | list):
        return "json"
    tag = _kind_compare(leaf, label) if leaf.compare == "mix" else leaf.compare
    if tag in ("number", "boolean") and (canon or canon_under)(leaf, tag, label) is None:
        return "text"  # a label fault: compared as text on both sides (spec 2.0 §7)
    return tag


def _label_read(leaf: Leaf, label: Any, canon: Callable[[Leaf, str, Any], Any]) -> tuple:
    """(:func:`label_tag`, its canonical key) of a non-empty scalar label value. A plain
    str, int, float or bool is read with :func:`canon_under` directly (its callers
    remember the answer per value); any other value goes through ``canon``."""
    if label.__class__ not in _PLAIN:
        tag = label_tag(leaf, label, canon)
        return tag, canon(leaf, tag, label)
    tag = _kind_compare(leaf, label) if leaf.compare == "mix" else leaf.compare
    key = canon_under(leaf, tag, label)
    if key is None and tag in ("number", "boolean"):
        tag, key = "text", canon_under(leaf, "text", label)  # a label fault (see label_tag)
    return tag, key


_PLAIN = frozenset((str, int, float, bool))
_CONTAINERS = (dict, list)


def canon_under(leaf: Leaf, tag: str, value: Any) -> Any:
    """The canonical key of ``value`` under comparator ``tag`` at ``leaf``; None when it
    cannot be read so (a type error on the result side). Keys are hashable and equal
    keys mean equal values, except under tolerances and fuzzy thresholds."""
    if tag == "json":
        return canon_exact(value)
    if isinstance(value, dict | list):
        return None  # a container at a scalar leaf
    if tag in ("text", "fuzzy"):
        return canon_text(value)
    if tag == "number":
        return canon_number(value, leaf.options.decimal_separator)
    if tag == "boolean":
        return canon_boolean(value)
    if tag == "date":
        iso = canon_date(value, leaf.options.date_formats)
        return iso if iso is not None else "~" + canon_text(value)
    return canon_exact(value)


def hashable_tag(leaf: Leaf, tag: str) -> bool:
    """Whether equality under ``tag`` is key equality (so it may be indexed)."""
    return not (tag == "fuzzy" or (tag == "number" and leaf.tolerant))


def possible_tags(leaf: Leaf) -> tuple[str, ...]:
    """Every tag a label value can put ``leaf`` under."""
    if leaf.compare == "mix":
        return ("text", "number", "boolean", "date", "json") if leaf.dated else (
            "text", "number", "boolean", "json")
    if leaf.compare in ("number", "boolean"):
        return (leaf.compare, "text", "json")
    return (leaf.compare, "json")


def _equal(leaf: Leaf, tag: str, a: Any, b: Any) -> bool:
    """The one equality of version 2.0, on canonical keys under ``tag``."""
    if a == b:
        return True
    if tag == "number" and leaf.tolerant:
        with localcontext() as context:  # wide exponents: any readable number, no Overflow
            context.prec, context.Emax, context.Emin = 60, MAX_EMAX, MIN_EMIN
            limit = max(Decimal(repr(leaf.options.abs_tol)),
                        Decimal(repr(leaf.options.rel_tol)) * max(abs(a), abs(b)))
            return abs(a - b) <= limit
    if tag == "fuzzy":
        return fuzzy_similarity(a, b) >= leaf.options.threshold
    return False


def _shown(key: Any) -> Any:
    """A canonical key as JSON for a Verdict (Decimals as plain decimal text)."""
    return _plain_decimal(key) if isinstance(key, Decimal) else key


def compare(leaf: Leaf, label: Any, result: Any, address: str, field: str,
            canon: Callable[[Leaf, str, Any], Any] = canon_under) -> Verdict:
    """The verdict of one leaf address (spec 2.0 §4): the only place two values meet.

    Both empty: ``correct_absence``; label only: ``missing``; result only:
    ``hallucinated``; result unreadable under the label's comparator: ``type_error``;
    otherwise ``correct`` or ``wrong_value`` by :func:`_equal`. ``canon`` is
    :func:`canon_under` or a cached equivalent.
    """
    return _verdict(_compare_row(leaf, label, result, address, field, canon))


def _compare_row(leaf: Leaf, label: Any, result: Any, address: str, field: str,
                 canon: Callable[[Leaf, str, Any], Any] = canon_under) -> tuple:
    """:func:`compare` as a verdict row: a plain tuple of the seven Verdict fields in
    order, with the canonical keys not yet shown as JSON (:func:`_verdict` does that).
    The scorer builds rows; Verdict objects are made only when someone reads them."""
    label_empty, result_empty = is_empty(label), is_empty(result)
    if label_empty or result_empty:
        kind = ("correct_absence" if result_empty else "hallucinated") if label_empty else "missing"
        return (address, field, kind, label, result, None, None)
    tag = label_tag(leaf, label, canon)
    label_key = canon(leaf, tag, label)
    result_key = canon(leaf, tag, result)
    if result_key is None:
        kind = "type_error"
    else:
        kind = "correct" if _equal(leaf, tag, label_key, result_key) else "wrong_value"
    return (address, field, kind, label, result, label_key, result_key)


def _row_dict(row: tuple) -> dict[str, Any]:
    """``_verdict(row).to_dict()``, without building the Verdict."""
    *raw, label_key, result_key = row
    return dict(zip(Verdict.__slots__, (*raw, _shown(label_key), _shown(result_key)),
                    strict=True))


def _verdict(row: tuple) -> Verdict:
    """The Verdict of a verdict row (canonical keys shown as JSON, as :func:`_shown`)."""
    address, field, kind, label, result, label_key, result_key = row
    return Verdict(address, field, kind, label, result, _shown(label_key), _shown(result_key))


def _fault(label: Any, result: Any, address: str, field: str) -> tuple:
    """A label of the wrong JSON kind at an object or array node: one exact-JSON leaf."""
    return _compare_row(_JSON_LEAF, label, result, address, field)


_JSON_LEAF = Leaf("exact", Options())


# ----- 6. Arrays -----------------------------------------------------------------------
# Items are paired one-to-one, optimally: identical items first; then only pairs sharing
# a (field, canonical key) are candidates, weighed by sparse products of item-by-key
# matrices (exact for flat items, an upper bound refined lazily for items holding arrays);
# then an exact assignment. Tolerant numbers find candidates by bisection in sorted values,
# fuzzy texts by rapidfuzz cdist; alike result items are grouped and weighed once.

_DENSE_LIMIT = 250_000  # cells up to which the dense solver is used (a speed choice only)


def _solve(rows: int, cols: int, row: np.ndarray, col: np.ndarray, weight: np.ndarray,
           ) -> list[tuple[int, int]]:
    """A maximum-weight one-to-one matching of ``rows`` x ``cols`` items over the edges
    (``row[k]``, ``col[k]``) of positive integer ``weight[k]``; items on no chosen edge
    stay unpaired. Returns (row, col) pairs sorted by row.

    The edges are sorted by (row, column) into the layout of :func:`_assign`, so the
    solver sees one canonical problem whatever order they came in. Deterministic.
    """
    if len(weight) == 0:
        return []
    forced = _forced(row, col)
    row = np.asarray(row, np.int64)
    order = np.lexsort((col, row))
    indptr = np.zeros(rows + 1, np.int64)
    np.cumsum(np.bincount(row, minlength=rows) + 1, out=indptr[1:])
    slots = np.ones(len(weight) + rows, bool)
    slots[indptr[1:] - 1] = False
    indices = np.zeros(len(slots), np.int32)
    indices[slots] = np.asarray(col)[order]
    data = np.zeros(len(slots), _weight_type(int(np.max(weight))))
    data[slots] = np.asarray(weight)[order]
    return _assign(rows, cols, [indptr, indices, data], forced)


def _weight_type(most: int) -> type:
    """int32 for weights (and costs) up to ``most`` when exact in it, else float64."""
    return np.int32 if most < 2**31 - 2 else np.float64


def _assign(rows: int, cols: int, graph: list[np.ndarray], forced: bool,
            ) -> list[tuple[int, int]]:
    """:func:`_solve` of edges in the solver's CSR layout, ``graph`` = [indptr, indices,
    data] (emptied here, so the arrays are freed as soon as they are used): row ``r``
    holds ``indptr[r + 1] - indptr[r] - 1`` edges, columns ascending with their positive
    integer weights, then one slot for its dummy (any value). ``forced``: no row or
    column is on two edges (then every edge is chosen).

    Exact: scipy's ``linear_sum_assignment`` on the dense matrix when it is small, else
    LAPJVsp (``scipy.sparse.csgraph.min_weight_full_bipartite_matching``) on cost
    ``ceiling - weight`` with one private dummy column of cost ``ceiling`` per row, last in
    its row, so a full matching always exists and choosing a dummy means "unpaired". The
    costs overwrite the weights in place (int32 when exact, which scipy reads as the same
    float64 values), so the graph costs no copy of its own.
    """
    indptr, indices, data = graph
    graph.clear()
    dummies = indptr[1:] - 1
    counts = np.diff(indptr) - 1
    if not counts.any():
        return []
    if forced or rows * cols <= _DENSE_LIMIT:
        real = np.ones(len(data), bool)
        real[dummies] = False
        row = np.repeat(np.arange(rows), counts)
        col, weight = indices[real], data[real]
        if forced:  # every edge is chosen
            return list(zip(row.tolist(), col.tolist(), strict=True))
    if rows * cols <= _DENSE_LIMIT:
        matrix = np.zeros((rows, cols))
        matrix[row, col] = weight
        chosen = zip(*_linear_sum_assignment()(matrix, maximize=True), strict=True)
        return [(int(r), int(c)) for r, c in chosen if matrix[r, c] > 0]
    from scipy.sparse.csgraph import min_weight_full_bipartite_matching

    data[dummies] = 0
    ceiling = data.max() + 1
    np.subtract(ceiling, data, out=data)  # the dummies' cost is the ceiling itself
    indices[dummies] = cols + np.arange(rows, dtype=np.int32)
    del dummies
    index = np.int32 if len(data) < 2**31 else np.int64
    matrix = _csr_matrix((data, indices, indptr.astype(index)), shape=(rows, cols + rows))
    del data, indices, indptr
    matched_rows, matched_cols = min_weight_full_bipartite_matching(matrix)
    keep = matched_cols < cols
    return list(zip(matched_rows[keep].tolist(), matched_cols[keep].tolist(), strict=True))


def _forced(row: np.ndarray, col: np.ndarray) -> bool:
    """Whether no row and no column appears on two edges: then the edges (all of positive
    weight) form a matching, and the only maximum-weight one is all of them."""
    return len(np.unique(row)) == len(row) and len(np.unique(col)) == len(col)


@functools.cache
def _linear_sum_assignment() -> Callable[..., Any]:
    """``scipy.optimize.linear_sum_assignment``, loaded on first use.

    Importing ``scipy.optimize`` runs its whole package (linprog, linalg, about 0.2 s),
    three times what a small benchmark takes to score; the function itself lives in the
    extension module ``scipy/optimize/_lsap``, which needs only numpy. So that module is
    loaded from its file (not registered in ``sys.modules``), and its function is used
    only if it is the one scipy exports in this layout (checked by the tests); any other
    layout falls back to the public import. Same function, same answers.
    """
    import importlib.machinery
    import importlib.util

    import scipy

    folder = Path(scipy.__file__).parent / "optimize"
    files = [folder / f"_lsap{suffix}" for suffix in importlib.machinery.EXTENSION_SUFFIXES]
    spec = next((importlib.util.spec_from_file_location("scipy.optimize._lsap", path)
                 for path in files if path.is_file()), None)
    if spec is not None and spec.loader is not None:
        try:
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        except ImportError:
            module = None
        found = getattr(module, "linear_sum_assignment", None)
        if callable(found):
            return found
    from scipy.optimize import linear_sum_assignment

    return linear_sum_assignment


def _csr_matrix(*args: Any, **kwargs: Any) -> Any:
    """``scipy.sparse.csr_matrix``, imported on first use (scipy loads only when needed)."""
    from scipy.sparse import csr_matrix

    return csr_matrix(*args, **kwargs)


class _Scorer:
    """One document's pass: walks the compiled schema over label and result, appending
    one Verdict per leaf address to ``out`` (sections 6 and 7)."""

    MAX_DEPTH = 120  # data levels walked; deeper subtrees are one exact-JSON leaf

    def __init__(self, document: list | None = None) -> None:
        self.memo: dict[tuple, Any] = {}
        self.exact = True  # False once a budget made a pairing approximate (spec 2.0 §5)
        # the document's verdict list, which alone may hold _FlatRows blocks (the lists a
        # walk reads back, in weigh and unpaired, get rows)
        self.document = document
        self.blocks = False  # whether it holds one

    def canon(self, leaf: Leaf, tag: str, value: Any) -> Any:
        """:func:`canon_under`, remembered per (tag, leaf, JSON type, value) for this
        document, so each distinct value is read once per comparator and field. Leaves
        live as long as the compiled schema, which outlives this scorer."""
        if isinstance(value, dict | list):
            return canon_under(leaf, tag, value)
        key = (tag, id(leaf), value.__class__, value)
        found = self.memo.get(key, self)
        if found is self:
            found = self.memo[key] = canon_under(leaf, tag, value)
        return found

    def leaf_signature(self, leaf: Leaf, value: Any) -> str:
        """``tag:canonical text`` of a non-empty scalar leaf value, remembered."""
        if isinstance(value, dict | list):
            return "json:" + canon_exact(value)
        key = ("sig", id(leaf), value.__class__, value)
        found = self.memo.get(key)
        if found is None:
            tag = label_tag(leaf, value, self.canon)
            found = self.memo[key] = f"{tag}:{_shown(self.canon(leaf, tag, value))}"
        return found

    def walk(self, node: Any, label: Any, result: Any, address: str, field: str,
             out: list[tuple], depth: int = 0) -> None:
        """Append the verdicts of ``node`` at ``address`` (label and result may be None)."""
        if node is IGNORED:
            return
        if isinstance(node, Leaf):
            out.append(_compare_row(node, label, result, address, field, self.canon))
            return
        if depth > self.MAX_DEPTH:
            out.append(_fault(label, result, address, field))
            return
        kind = dict if isinstance(node, ObjectNode) else list
        if label is not None and not isinstance(label, kind) and not is_empty(label):
            out.append(_fault(label, result, address, field))
            return
        if not isinstance(label, kind):
            label = None  # empty here (a non-empty one was a fault above)
        if not isinstance(result, kind):
            result = None  # the wrong JSON kind at a container node states nothing
        if is_empty(label) and is_empty(result):
            if address:
                out.append((address, field, "correct_absence", label, result, None, None))
            return
        if isinstance(node, ArrayNode):
            self.walk_array(node, label or [], result or [], address, field, out, depth)
            return
        label, result = label or {}, result or {}
        if node.properties is None:
            pairs = [(k, node.values) for k in sorted(set(label) | set(result), key=str)]
        else:
            pairs = list(node.properties.items())
        for name, child in pairs:
            self.walk(child, label.get(name), result.get(name), _join(address, name),
                      _join(field, name), out, depth + 1)

    def unpaired(self, node: Any, value: Any, side: str, address: str, field: str,
                 out: list[tuple], depth: int) -> None:
        """Verdicts of an item paired with nothing: each non-empty leaf of a label item is
        ``missing``, of a result item ``extra_item``; empty leaves yield nothing."""
        found: list[tuple] = []
        if side == "label":
            self.walk(node, value, None, address, field, found, depth)
        else:
            self.walk(node, None, value, address, field, found, depth)
        for verdict in found:
            if verdict[2] == "correct_absence":
                continue
            if side == "result":
                verdict = (*verdict[:2], "extra_item", *verdict[3:])
            out.append(verdict)

    def walk_array(self, node: ArrayNode, label: list, result: list, address: str,
                   field: str, out: list[tuple], depth: int) -> None:
        """Pair the non-empty items of two arrays and append the verdicts of every pair and
        of every unpaired item (spec 2.0 §5, §7 Pairing)."""
        item = node.items
        if not node.ordered and depth < self.MAX_DEPTH:
            fields = _flat_fields(item)
            if fields is not None:
                self.walk_flat(fields, label, result, address, field, out)
                return
        item_field = f"{field}[]"
        # an item of the wrong JSON kind is dropped as empty on both sides (identity)
        left = [(i, v) for i, v in enumerate(label) if _kept(item, v)]
        right = [(j, v) for j, v in enumerate(result) if _kept(item, v)]
        if node.ordered:
            pairs = [(k, k, None) for k in range(min(len(left), len(right)))]
        else:
            pairs = self.match(item, left, right, address, item_field, depth)
        paired_left, paired_right = set(), set()
        for k_left, k_right, verdicts in pairs:
            paired_left.add(k_left)
            paired_right.add(k_right)
            if verdicts is None:
                verdicts = []
                index, value = left[k_left]
                self.walk(item, value, right[k_right][1], f"{address}[{index}]", item_field,
                          verdicts, depth + 1)
            out.extend(verdicts)
        for k, (i, value) in enumerate(left):
            if k not in paired_left:
                self.unpaired(item, value, "label", f"{address}[{i}]", item_field, out, depth + 1)
        for k, (j, value) in enumerate(right):
            if k not in paired_right:
                self.unpaired(item, value, "result", f"{address}[r{j}]", item_field, out, depth + 1)

    # -- optimal matching ------------------------------------------------------------

    def signature(self, node: Any, value: Any, depth: int = 0) -> str | None:
        """Canonical content of ``value`` at ``node`` as text, None when it states nothing.
        Two items with equal signatures score every leaf correct against each other, and
        signatures order items for deterministic tie-breaking (spec 2.0 §7 Pairing)."""
        if node is IGNORED or is_empty(value):
            return None
        if isinstance(node, Leaf):
            return self.leaf_signature(node, value)
        kind = dict if isinstance(node, ObjectNode) else list
        if depth > self.MAX_DEPTH or not isinstance(value, kind):
            return "json:" + canon_exact(value)
        if isinstance(node, ArrayNode):
            wanted = _ITEM_KIND.get(type(node.items))  # wrong-kind items are dropped
            parts = [s for v in value if (wanted is None or isinstance(v, wanted))
                     and (s := self.signature(node.items, v, depth + 1))]
            if not parts:
                return None
            return "[" + ",".join(parts if node.ordered else sorted(parts)) + "]"
        if node.properties is None:
            children = [(k, node.values) for k in sorted(value, key=str)]
        else:
            children = list(node.properties.items())
        parts = [f"{json.dumps(name)}={s}" for name, child in children
                 if (s := self.signature(child, value.get(name), depth + 1))]
        return "{" + ",".join(parts) + "}" if parts else None

    def match(self, item: Any, left: list, right: list, address: str, field: str, depth: int,
              ) -> list[tuple[int, int, list[tuple] | None]]:
        """Optimal one-to-one pairs (left position, right position, verdicts or None) of two
        lists of non-empty items given as (index in its array, value). Maximizes correct
        leaves, then leaves present on both sides; a pair worth no correct leaf is never
        made. Ties are broken by the order of the items' signatures, never by input order.
        Verdicts computed while weighing a pair are returned with it (None: not yet walked).
        """
        sig_left = [self.signature(item, v, depth + 1) or "" for _, v in left]
        sig_right = [self.signature(item, v, depth + 1) or "" for _, v in right]
        order_left = sorted(range(len(left)), key=sig_left.__getitem__)
        order_right = sorted(range(len(right)), key=sig_right.__getitem__)
        pairs: list[tuple[int, int, list[tuple] | None]] = []
        waiting: dict[str, deque[int]] = {}
        for k in order_left:
            waiting.setdefault(sig_left[k], deque()).append(k)
        rest_right = []
        exact = _all_hashable(item)  # equal-by-key is transitive only without tolerances
        for k in order_right:  # identical items first
            bucket = waiting.get(sig_right[k])
            if exact and bucket and sig_right[k]:
                pairs.append((bucket.popleft(), k, None))
            else:
                rest_right.append(k)
        taken = {p[0] for p in pairs}
        rest_left = [k for k in order_left if k not in taken]
        if not rest_left or not rest_right:
            return pairs
        values_left = [left[k][1] for k in rest_left]
        values_right = [right[k][1] for k in rest_right]
        flat = _flat_leaves(item)
        chosen_flat = None if flat is None else self.match_paths(flat, values_left, values_right)
        if chosen_flat is not None:
            return pairs + [(rest_left[r], rest_right[c], None) for r, c in chosen_flat]
        addresses = [f"{address}[{left[k][0]}]" for k in rest_left]
        chosen = self.match_lazy(item, values_left, values_right, addresses, field, depth)
        return pairs + [(rest_left[r], rest_right[c], verdicts) for r, c, verdicts in chosen]

    def weigh(self, item: Any, label: Any, result: Any, address: str, field: str, depth: int,
              ) -> tuple[int, int, list[tuple]]:
        """(correct leaves, leaves present on both sides, verdicts) of one candidate pair."""
        verdicts: list[tuple] = []
        self.walk(item, label, result, address, field, verdicts, depth + 1)
        hits = sum(v[2] == "correct" for v in verdicts)
        return hits, sum(v[2] in _SCORED_PAIR for v in verdicts), verdicts

    def match_all(self, item: Any, left: list, right: list, addresses: list[str], field: str,
                  depth: int) -> list[tuple[int, int, list[tuple]]]:
        """Exact matching by weighing every pair: the reference :meth:`match_lazy` is tested
        against (quadratic, so never used on a document)."""
        found = {}
        for r, c in itertools.product(range(len(left)), range(len(right))):
            hits, both, verdicts = self.weigh(item, left[r], right[c], addresses[r], field, depth)
            if hits:
                found[r, c] = (hits, both, verdicts)
        if not found:
            return []
        ceiling = max(both for _, both, _ in found.values()) * min(len(left), len(right)) + 1
        cells = np.array([(r, c, hits * ceiling + both)
                          for (r, c), (hits, both, _) in found.items()], np.int64)
        row, col, weight = cells.T
        return [(r, c, found[r, c][2]) for r, c in _solve(len(left), len(right), row, col, weight)]

    def match_lazy(self, item: Any, left: list, right: list, addresses: list[str], field: str,
                   depth: int) -> list[tuple[int, int, list[tuple]]]:
        """Exact matching of any items but flat ones, in time bounded by the candidate pairs.

        Result items that look alike to every label item (:meth:`weight_key`) form one group,
        weighed once; a group offers at most ``len(left)`` members, since no assignment uses
        more. Candidates are pairs that can share a correct leaf (:meth:`bounds`), with an
        upper bound on their weight. The assignment is solved on the bounds, each row
        offering only its ``len(left)`` heaviest candidates (:func:`heaviest`); chosen pairs
        are weighed exactly (walked), with the row's next candidates by bound, twice as many
        each round, and the solve is repeated until every chosen pair is exact. Exact
        weights never exceed the bounds, so the last assignment is optimal for the exact
        weights. Returns (row, column, verdicts), sorted by row.
        """
        seen: dict[str, set[str]] = {}
        leaf_at: dict[str, Leaf] = {}
        keys_left = [self.label_keys(item, v, "", depth + 1, seen, leaf_at) for v in left]
        n = len(left)
        if len(right) <= 2 * n + _GROUP_ABOVE:  # few repeats can matter: each item alone
            members = [[c] for c in range(len(right))]
        else:
            tags = {path: tuple(sorted(used)) for path, used in seen.items()}
            groups: dict[Any, list[int]] = {}
            for c, value in enumerate(right):
                key = self.weight_key(item, value, "", depth + 1, tags)
                if key is not None:  # an item no label leaf can see is worth 0 to every row
                    groups.setdefault(key, []).append(c)
            members = [columns[:n] for columns in groups.values()]
        if not members:
            return []
        found = [self.result_keys(item, right[m[0]], "", depth + 1, seen) for m in members]
        leaves = np.array([len(keys) for keys in keys_left], np.int64)
        ceiling = int(leaves.max()) * min(len(left), len(right)) + 1
        row, group, hits_bound, both_bound = self.bounds(keys_left, found, leaf_at)
        upper = hits_bound * ceiling + both_bound
        order = np.lexsort((group, -upper, row))  # by row, heaviest bound first, then group
        starts = np.searchsorted(row[order], np.arange(len(left) + 1)).tolist()
        queue = [order[starts[r]:starts[r + 1]] for r in range(len(left))]  # views
        group_of = {c: g for g, columns in enumerate(members) for c in columns}
        exact: dict[tuple[int, int], int] = {}
        weighed: dict[tuple[int, int], list[tuple]] = {}
        batch = [1] * len(left)

        def weigh(r: int, g: int) -> None:
            hits, both, verdicts = self.weigh(item, left[r], right[members[g][0]],
                                              addresses[r], field, depth)
            weighed[r, g] = verdicts
            exact[r, g] = hits * ceiling + both if hits else 0

        def heaviest(r: int) -> list[tuple[int, int, int]]:
            """(weight, -group, members) of the groups holding row ``r``'s ``n`` heaviest
            candidates by current weight (exact once weighed, else the bound): an optimal
            assignment never needs the row's others, since one of these is free for it."""
            best: list[tuple[int, int, int]] = []
            capacity = 0
            for k in queue[r]:
                if capacity >= n and best[0][0] >= upper[k]:
                    break  # bounds only fall from here
                g = int(group[k])
                weight = exact.get((r, g), int(upper[k]))
                if weight > 0:
                    heapq.heappush(best, (weight, -g, len(members[g])))
                    capacity += len(members[g])
                    while capacity - best[0][2] >= n:
                        capacity -= heapq.heappop(best)[2]
            return best

        while True:
            live = sorted((r, c, w) for r in range(len(left)) for w, g, _ in heaviest(r)
                          for c in members[-g])
            if not live:
                return []
            rows, cols, cells = np.array(live, np.int64).T
            chosen = _solve(len(left), len(right), rows, cols, cells)
            fresh = [(r, group_of[c]) for r, c in chosen if (r, group_of[c]) not in weighed]
            if not fresh:
                break
            for r, g in fresh:  # the chosen pair, then the row's next bounds, twice as many
                weigh(r, g)     # each round, so a row needs few rounds however loose its bounds
                unweighed = (h for k in queue[r] if (r, h := int(group[k])) not in weighed)
                for h in list(itertools.islice(unweighed, batch[r] - 1)):
                    weigh(r, h)
                batch[r] *= 2
        out = []
        for r, c in chosen:
            verdicts = weighed[r, group_of[c]]
            if c != members[group_of[c]][0]:  # another member of the group: its own verdicts
                verdicts = self.weigh(item, left[r], right[c], addresses[r], field, depth)[2]
            out.append((r, c, verdicts))
        return out

    def bounds(self, keys_left: list[list[tuple]], found: list[tuple[list, list]],
               leaf_at: dict[str, Leaf]) -> tuple[np.ndarray, ...]:
        """Candidate pairs (row, group) with upper bounds on their correct leaves and on
        their leaves present on both sides, as arrays. ``found``: (keys, present paths) of
        each group's first member (:meth:`result_keys`).

        Correct leaves at a path are bounded by the size of the multiset intersection of
        the two items' keys there when equality is key equality, and else by the number of
        label leaves with an equal result value there (tolerant numbers: a window over
        sorted values, :func:`_tolerant_pairs`; fuzzy texts: rapidfuzz ``cdist``,
        :func:`_fuzzy_pairs`). Leaves on both sides are bounded by the label item's leaves,
        or by the result item's non-empty leaves at paths a label uses when fewer. Only
        pairs whose correct-leaf bound is above 0 are candidates, so the work is bounded
        by the pairs that share a value.
        """
        vocabulary: dict[tuple, int] = {}
        loose: dict[tuple[str, str], tuple[list, list]] = {}
        a_rows, a_cols = [], []
        hashed = {(path, tag): tag == "json" or hashable_tag(leaf_at[path], tag)
                  for keys in keys_left for path, tag, _ in keys}
        for r, keys in enumerate(keys_left):
            for place, ((path, tag, key), number) in enumerate(_numbered(keys)):
                if hashed[path, tag]:
                    a_rows.append(r)
                    a_cols.append(vocabulary.setdefault((path, tag, key, number), len(vocabulary)))
                else:  # a label leaf is (row, its place among the row's keys)
                    loose.setdefault((path, tag), ([], []))[0].append(((r, place), key))
        b_rows, b_cols = [], []
        for g, (keys, _) in enumerate(found):
            for (path, tag, key), number in _numbered(keys):
                column = vocabulary.get((path, tag, key, number))
                if column is not None:
                    b_rows.append(g)
                    b_cols.append(column)
                elif (path, tag) in loose and number == 1:
                    loose[path, tag][1].append((g, key))
        rows, groups, size = len(keys_left), len(found), len(vocabulary)
        a = _csr_matrix((np.ones(len(a_rows), np.int64), (a_rows, a_cols)), (rows, size))
        b = _csr_matrix((np.ones(len(b_rows), np.int64), (b_rows, b_cols)), (groups, size))
        hits = a @ b.T
        for (path, tag), (label_values, result_values) in loose.items():
            leaf = leaf_at[path]
            if tag == "fuzzy":
                pairs = _fuzzy_pairs(leaf.options.threshold, label_values, result_values)
                if pairs is None:  # over the budget: equal texts only, and the document says so
                    self.exact = False
                    pairs = _equal_pairs(label_values, result_values)
            else:
                pairs = _tolerant_pairs(leaf, label_values, result_values)
            if pairs:  # a set: each label leaf counts once per group
                pair_rows = [r for (r, _), _ in pairs]
                pair_groups = [g for _, g in pairs]
                hits = hits + _csr_matrix((np.ones(len(pairs), np.int64),
                                          (pair_rows, pair_groups)), (rows, groups))
        hits = hits.tocoo()
        if not hits.nnz:
            return hits.row, hits.col, hits.data, hits.data
        leaves = np.array([len(keys) for keys in keys_left], np.int64)
        present = np.array([len(paths) for _, paths in found], np.int64)
        both = np.minimum(leaves[hits.row], present[hits.col])
        return hits.row, hits.col, hits.data, both

    def label_keys(self, node: Any, value: Any, path: str, depth: int,
                   seen: dict[str, set[str]], leaf_at: dict[str, Leaf] | None = None,
                   ) -> list[tuple]:
        """(path, tag, key) of every non-empty label leaf below ``node``, as the walk will
        compare it (a label of the wrong kind at a container, or data past MAX_DEPTH, is one
        json leaf); records the tags used per path in ``seen``, the leaf in ``leaf_at``."""
        leaf_at = {} if leaf_at is None else leaf_at
        out: list[tuple] = []
        stack = [(node, value, path, depth)]
        while stack:
            node, value, path, depth = stack.pop()
            if node is IGNORED or is_empty(value):
                continue
            if isinstance(node, Leaf):
                tag = label_tag(node, value, self.canon)
                out.append((path, tag, self.canon(node, tag, value)))
                leaf_at[path] = node
            elif depth > self.MAX_DEPTH or not isinstance(
                    value, dict if isinstance(node, ObjectNode) else list):
                tag = "json"
                out.append((path, tag, canon_exact(value)))
            else:
                stack.extend(_children(node, value, path, depth))
                continue
            seen.setdefault(path, set()).add(tag)
        return out

    def result_keys(self, node: Any, value: Any, path: str, depth: int,
                    seen: dict[str, set[str]]) -> tuple[list[tuple], list[str]]:
        """(path, tag, key) of every non-empty result leaf below ``node`` under each tag a
        label used at its path (see :meth:`label_keys`), and the path of every non-empty
        leaf the walk will compare with a label leaf (readable or not)."""
        out: list[tuple] = []
        present: list[str] = []
        stack = [(node, value, path, depth)]
        while stack:
            node, value, path, depth = stack.pop()
            if node is IGNORED or is_empty(value):
                continue
            tags = seen.get(path, ())
            if isinstance(node, Leaf):
                for tag in tags:
                    key = self.canon(node, tag, value)
                    if key is not None:
                        out.append((path, tag, key))
                if tags:
                    present.append(path)
                continue
            if "json" in tags:
                out.append((path, "json", canon_exact(value)))
                present.append(path)
            if depth <= self.MAX_DEPTH and isinstance(
                    value, dict if isinstance(node, ObjectNode) else list):
                stack.extend(_children(node, value, path, depth))
        return out, present

    def weight_key(self, node: Any, value: Any, path: str, depth: int,
                   tags: dict[str, tuple[str, ...]]) -> Any:
        """What a pair weight can see of a result value, as a hashable: its keys under every
        tag a label used at each path (``tags``, sorted), in its structure (inner unordered
        arrays as multisets). Result items with equal keys weigh the same against every
        label item; None when no label leaf can see the value."""
        if node is IGNORED or is_empty(value):
            return None
        used = tags.get(path)
        if isinstance(node, Leaf):
            if not used:
                return None
            return tuple((tag, self.canon(node, tag, value)) for tag in used)
        parts: list[Any] = [("json", canon_exact(value))] if used and "json" in used else []
        if depth <= self.MAX_DEPTH and isinstance(
                value, dict if isinstance(node, ObjectNode) else list):
            inner = [(self.weight_key(child, v, p, d, tags), v, p)
                     for child, v, p, d in _children(node, value, path, depth)]
            if isinstance(node, ArrayNode):
                if node.ordered:  # positions count, after dropping empty items
                    parts.append(tuple(key for key, v, _ in inner if not is_empty(v)))
                else:
                    kept = collections.Counter(key for key, _, _ in inner if key is not None)
                    parts.append(frozenset(kept.items()))
            else:
                parts += [(p, key) for key, _, p in inner if key is not None]
        if not any(parts):
            return None
        return tuple(parts)

    def match_paths(self, flat: list[tuple[tuple[str, ...], Leaf]], left: list, right: list,
                   ) -> list[tuple[int, int]] | None:
        """:meth:`match` for object items whose leaves are all hashable and outside arrays:
        pair weights come from sparse products of item-by-key incidence matrices (correct
        leaves = shared keys) and bit masks (leaves present on both sides). None when a
        label item holds a non-empty value of the wrong kind at an inner object: the walk
        scores that as one exact-JSON leaf, which these keys do not see."""
        vocabulary: dict[tuple, int] = {}
        tags_seen: list[set[str]] = [set() for _ in flat]
        rows, cols, masks_left = [], [], []
        for r, value in enumerate(left):
            mask = 0
            for bit, (path, leaf) in enumerate(flat):
                v = _get_path(value, path, _FAULT)
                if v is _FAULT:
                    return None
                if is_empty(v):
                    continue
                mask |= 1 << bit
                tag = label_tag(leaf, v, self.canon)
                tags_seen[bit].add(tag)
                key = (bit, tag, self.canon(leaf, tag, v))
                rows.append(r)
                cols.append(vocabulary.setdefault(key, len(vocabulary)))
            masks_left.append(mask)
        right_rows, right_cols, masks_right = [], [], []
        for c, value in enumerate(right):
            mask = 0
            for bit, (path, leaf) in enumerate(flat):
                v = _get_path(value, path)
                if is_empty(v):
                    continue
                mask |= 1 << bit
                for tag in tags_seen[bit]:
                    column = vocabulary.get((bit, tag, self.canon(leaf, tag, v)))
                    if column is not None:
                        right_rows.append(c)
                        right_cols.append(column)
            masks_right.append(mask)
        if not right_rows:
            return []
        size = len(vocabulary)
        a = _csr_matrix((np.ones(len(rows), np.int32), (rows, cols)), shape=(len(left), size))
        b = _csr_matrix((np.ones(len(right_rows), np.int32), (right_rows, right_cols)),
                       shape=(len(right), size))
        shared = (a @ b.T).tocoo()
        both = np.asarray(masks_left, np.uint64)[shared.row]
        both &= np.asarray(masks_right, np.uint64)[shared.col]
        present = np.bitwise_count(both).astype(np.int64)
        ceiling = len(flat) * min(len(left), len(right)) + 1
        weight = shared.data.astype(np.int64) * ceiling + present
        return _solve(len(left), len(right), shared.row, shared.col, weight)


    def walk_flat(self, fields: list[tuple[str, Leaf]], label: list, result: list,
                  address: str, field: str, out: list[tuple]) -> None:
        """:meth:`walk_array` of an unordered array of one-level flat objects
        (:func:`_flat_fields`), with the same verdicts in the same order, a field (column)
        at a time: each distinct value is read (:func:`_flat_reads`) once per field and JSON
        type, items are signed from those reads, identical ones paired by signature and the
        rest by :meth:`match_flat`; verdict rows are written without walking the schema, as
        one :class:`_FlatRows` block (columns) when ``out`` is the document's own list."""
        item_field = f"{field}[]"
        names = [name for name, _ in fields]
        specs = [(leaf, f"{json.dumps(name)}=", _quoted(str(name)) or f".{name}",
                  _join(item_field, name)) for name, leaf in fields]
        # per field: JSON type -> {value: read}; a column of one type (and nulls) is
        # looked up by the values alone, at C speed
        caches: list[dict[type, dict]] = [{} for _ in fields]
        canon = self.canon

        def kept(values: list) -> tuple[list[int], list[list]]:
            """The index of each item that takes part (a non-empty object, as
            :func:`_kept`) and the values of each field over those items (columns)."""
            if set(map(type, values)) == {dict}:  # plain dicts: read by dict.get, in C
                items, index, get = values, range(len(values)), dict.get
            else:
                index = [i for i, value in enumerate(values) if isinstance(value, dict)]
                items, get = [values[i] for i in index], _get
            first = list(map(get, items, itertools.repeat(names[0])))
            keep = [(f.__class__ is str and f.strip()) or f.__class__ in _NEVER_EMPTY
                    or not is_empty(item) for f, item in zip(first, items, strict=True)]
            if not all(keep):  # a first field stating something settles most items
                items = list(itertools.compress(items, keep))
                index = itertools.compress(index, keep)
                first = list(itertools.compress(first, keep))
            columns = [first] + [list(map(get, items, itertools.repeat(name)))
                                 for name in names[1:]]
            return list(index), columns

        def read(columns: list[list]) -> tuple[list[str], list[list[tuple]]]:
            """Each item's signature ('' when it states nothing) and the read of each
            value (:func:`_flat_reads`), a column at a time."""
            reads = []
            for (leaf, member, _, _), cache, column in zip(specs, caches, columns,
                                                            strict=True):
                kinds = set(map(type, column))
                kinds.discard(type(None))
                if len(kinds) == 1:
                    reads.append(_flat_column(leaf, member, cache, *kinds, column, canon))
                    continue
                got: list[Any] = [_EMPTY_READ] * len(column)  # mixed JSON types
                for kind in kinds:
                    at = [k for k, v in enumerate(column) if v.__class__ is kind]
                    for k, found in zip(at, _flat_column(
                            leaf, member, cache, kind, [column[k] for k in at], canon),
                            strict=True):
                        got[k] = found
                reads.append(got)
            # ",<part>,<part>}": ordered and equal as "{<part>,<part>}" (one first
            # character replaced); "}" alone is an item stating nothing, signed ""
            signatures = list(map("".join, zip(*[map(_PART, got) for got in reads],
                                               itertools.repeat("}"))))
            if "}" in signatures:
                signatures = ["" if text == "}" else text for text in signatures]
            return signatures, reads

        index_left, values_left = kept(label)
        index_right, values_right = kept(result)
        sig_left, reads_left = read(values_left)
        sig_right, reads_right = read(values_right)
        order_left = sorted(range(len(index_left)), key=sig_left.__getitem__)
        order_right = sorted(range(len(index_right)), key=sig_right.__getitem__)
        pairs: list[tuple[int, int]] = []
        waiting: dict[str, deque[int]] = {}
        for k in order_left:
            waiting.setdefault(sig_left[k], deque()).append(k)
        rest_right = []
        for k in order_right:  # identical items first
            bucket = waiting.get(sig_right[k])
            if bucket and sig_right[k]:
                pairs.append((bucket.popleft(), k))
            else:
                rest_right.append(k)
        same = len(pairs)
        taken = {p[0] for p in pairs}
        rest_left = [k for k in order_left if k not in taken]
        if rest_left and rest_right:
            def pick(columns: list[list], at: list[int]) -> list[list]:
                return [list(map(column.__getitem__, at)) for column in columns]

            chosen = self.match_flat(specs, pick(reads_left, rest_left),
                                     pick(reads_right, rest_right),
                                     pick(values_right, rest_right))
            pairs += [(rest_left[r], rest_right[c]) for r, c in chosen]
        at_left = [k for k, _ in pairs]
        at_right = [k for _, k in pairs]
        bases = [f"{address}[{i}]" for i in map(index_left.__getitem__, at_left)]
        columns = []  # per field, the columns of its rows of every pair, in pair order
        for b, (leaf, _, suffix, path) in enumerate(specs):
            got = list(map(reads_left[b].__getitem__, at_left))
            seen = list(map(reads_right[b].__getitem__, at_right))
            start, kinds, label_keys, result_keys = 0, [], [], []
            if same >= _SAME_AT_ONCE:
                # identical items: every read is equal to its partner's, so each leaf is
                # correct (or a correct absence) with the two reads' own keys; checked,
                # not assumed (equal tags and keys), else compared one by one below
                tags = list(map(_TAG, got[:same]))
                label_keys = list(map(_KEY, got[:same]))
                result_keys = list(map(_KEY, seen[:same]))
                if tags == list(map(_TAG, seen[:same])) and label_keys == result_keys:
                    start = same
                    kinds = list(map(_SAME_KIND.get, tags, itertools.repeat("correct")))
                else:
                    label_keys, result_keys = [], []
            for g, r, c in zip(got[start:], seen[start:], at_right[start:], strict=True):
                if g is _EMPTY_READ:  # the label states nothing here
                    kind = "correct_absence" if r is _EMPTY_READ else "hallucinated"
                    label_key = result_key = None
                elif r is _EMPTY_READ:
                    kind, label_key, result_key = "missing", None, None
                else:
                    label_key = g[1]
                    # the result read under its own tag is its key when the tags agree
                    # (the same read object when both sides hold the same value)
                    result_key = r[1] if r is g or r[0] == g[0] else \
                        canon(leaf, g[0], values_right[b][c])
                    kind = ("type_error" if result_key is None else
                            "correct" if label_key == result_key else "wrong_value")
                kinds.append(kind)
                label_keys.append(label_key)
                result_keys.append(result_key)
            columns.append((suffix, path, kinds, values_left[b], values_right[b], label_keys,
                            result_keys))
        paired_left, paired_right = set(at_left), set(at_right)
        unpaired: list[tuple] = []
        append = unpaired.append
        for k, i in enumerate(index_left):
            if k not in paired_left:
                where = f"{address}[{i}]"
                for (_, _, suffix, path), got, value in zip(specs, reads_left, values_left,
                                                            strict=True):
                    if got[k] is not _EMPTY_READ:
                        append((where + suffix, path, "missing", value[k], None, None, None))
        for k, j in enumerate(index_right):
            if k not in paired_right:
                where = f"{address}[r{j}]"
                for (_, _, suffix, path), got, value in zip(specs, reads_right, values_right,
                                                            strict=True):
                    if got[k] is not _EMPTY_READ:
                        append((where + suffix, path, "extra_item", None, value[k], None,
                                None))
        block = _FlatRows(bases, at_left, at_right, columns, unpaired)
        if out is self.document:  # read by nobody before DocScore: rows made when read
            out.append(block)
            self.blocks = True
        else:
            out.extend(block.rows())

    def match_flat(self, specs: list[tuple], left: list[list], right: list[list],
                   values: list[list]) -> list[tuple[int, int]]:
        """Optimal pairs (row, column) of flat label items and result items, given a field
        at a time: the reads (:func:`_flat_reads`) of the label items, of the result items
        (read as a label would be) and the result items' values. A pair's weight counts its
        correct leaves (shared (field, tag, key)), then its leaves present on both sides.

        Keys are numbered; result items are listed by key; each label key is joined to the
        result items holding it, label rows a slice at a time, and (row, column) codes are
        counted with ``np.unique`` (sorted), so weights arrive in canonical CSR order and
        only one slice of the join is ever held (int32 columns, float64 weights)."""
        canon = self.canon
        rows, cols = len(left[0]), len(right[0])
        size = 0  # key ids: a field's reads, numbered field after field
        label_rows, label_ids, result_rows, result_ids = [], [], [], []
        masks_left, masks_right = np.zeros(rows, np.uint64), np.zeros(cols, np.uint64)
        for b, ((leaf, member, _, _), column) in enumerate(zip(specs, left, strict=True)):
            numbers: dict[tuple, int] = {}  # equal reads <=> equal (tag, key)
            ids = np.array([-1 if got is _EMPTY_READ else numbers.setdefault(got, len(numbers))
                            for got in column], np.int64)
            found = np.flatnonzero(ids >= 0)
            masks_left[found] |= np.uint64(1 << b)
            label_rows.append(found)
            label_ids.append(ids[found] + size)
            tags = sorted({got[0] for got in numbers})
            column = right[b]
            only = tags[0] if len(tags) == 1 else None
            ids = np.array([-2 if got is _EMPTY_READ else numbers.get(got, -1)
                            if got[0] == only else -3 for got in column], np.int64)
            masks_right[ids != -2] |= np.uint64(1 << b)
            others = np.flatnonzero(ids == -3)  # read under another tag than the label's
            ids[others] = -1
            found = np.flatnonzero(ids >= 0)
            result_rows.append(found)
            result_ids.append(ids[found] + size)
            extra_rows, extra_ids = [], []
            for c in others.tolist():
                read_as, v = column[c], values[b][c]
                for tag in tags:
                    if tag == read_as[0]:
                        key = read_as
                    else:
                        known = canon(leaf, tag, v)
                        key = (tag, known, f",{member}{tag}:{_shown(known)}")
                    number = numbers.get(key) if key[1] is not None else None
                    if number is not None:
                        extra_rows.append(c)
                        extra_ids.append(number + size)
            result_rows.append(np.array(extra_rows, np.int64))
            result_ids.append(np.array(extra_ids, np.int64))
            size += len(numbers)
        label_rows, label_ids = np.concatenate(label_rows), np.concatenate(label_ids)
        order = np.argsort(label_rows, kind="stable")
        label_rows, label_ids = label_rows[order], label_ids[order]
        result_rows, result_ids = np.concatenate(result_rows), np.concatenate(result_ids)
        if not len(result_rows):
            return []
        ceiling = len(specs) * min(rows, cols) + 1
        graph = _join_counts(rows, cols, label_rows, label_ids, result_rows, result_ids,
                             masks_left, masks_right, ceiling, len(specs), size)
        del label_rows, label_ids, result_rows, result_ids, order
        indptr, indices = graph[0], graph[1]
        real = np.ones(len(indices), bool)
        real[indptr[1:] - 1] = False
        forced = bool((np.diff(indptr) <= 2).all()) and bool(
            np.bincount(indices[real], minlength=cols).max(initial=0) <= 1)
        del indptr, indices, real
        return _assign(rows, cols, graph, forced)


# A read of a flat field's value: (tag, canonical key, signature part), the part being
# ``,<member>=<tag>:<key as JSON>``; an empty value reads as _EMPTY_READ (no tag, no key,
# no part), so a column of reads gives its tags, keys and parts by C-level itemgetters.
_EMPTY_READ: tuple = (None, None, "")
_TAG, _KEY, _PART = (operator.itemgetter(k) for k in range(3))
_SAME_KIND = {None: "correct_absence"}  # of a leaf of two identical items, by its tag
_SAME_AT_ONCE = 16  # identical pairs from which their rows are checked at once (speed only)


def _flat_column(leaf: Leaf, member: str, cache: dict[type, dict], kind: type,
                 column: list, canon: Callable[[Leaf, str, Any], Any]) -> list[tuple]:
    """The reads of ``column``: values of one JSON ``kind`` (and nulls) at a flat field,
    each distinct value read once per document (``cache``: kind -> {value: read})."""
    if issubclass(kind, _CONTAINERS):  # unhashable: read one by one (as leaf_signature)
        out = []
        for v in column:
            text = None if v is None or is_empty(v) else canon_exact(v)
            out.append(_EMPTY_READ if text is None else ("json", text, f",{member}json:{text}"))
        return out
    known = cache.get(kind)
    if known is None:  # nothing read yet: every distinct value is new
        known = cache[kind] = {None: _EMPTY_READ}
        fresh = list(dict.fromkeys(column))
    else:
        got = list(map(known.get, column))
        if None not in got:
            return got
        fresh = list(dict.fromkeys(itertools.compress(column, map(operator.not_, got))))
    if None in fresh:
        fresh.remove(None)
    known.update(zip(fresh, _flat_reads(leaf, member, kind, fresh, canon), strict=True))
    return list(map(known.__getitem__, column))


def _flat_reads(leaf: Leaf, member: str, kind: type, values: list,
                canon: Callable[[Leaf, str, Any], Any]) -> list[tuple]:
    """The read of each of ``values`` (distinct, non-null, all of JSON type ``kind``) at a
    flat field, as a label value is read (:func:`_label_read`; a result value is read the
    same way, and read again under the label's tag only where the tags differ)."""
    if kind is str and leaf.compare == "text":
        prefix = f",{member}text:"
        # ASCII letters, digits and spaces: the canon is the lower-cased text without
        # spaces (the first test of _canon_string, made here without three calls)
        keys = [bare if v.isascii() and (bare := v.strip().lower().replace(" ", "")).isalnum()
                else canon_text(v) for v in values]
        return [("text", key, prefix + key) if v.strip() else _EMPTY_READ
                for v, key in zip(values, keys, strict=True)]
    out = []
    floats = kind is float and leaf.compare == "number"
    for v in values:
        if (not v.strip()) if kind is str else kind not in _NEVER_EMPTY and is_empty(v):
            out.append(_EMPTY_READ)
            continue
        if floats and "e" not in (text := repr(v)) and "n" not in text and \
                len(text) - text.index(".") <= 7:
            # canon_number's first case (its shortest form, at most 6 places): str of that
            # Decimal is ``text`` itself, so _plain_decimal only drops trailing zeros
            shown = text.rstrip("0").rstrip(".")
            shown = "0" if shown == "-0" else shown
            out.append(("number", Decimal(text), f",{member}number:{shown}"))
            continue
        tag, key = _label_read(leaf, v, canon)
        shown = key if key.__class__ is str else _shown(key)
        out.append((tag, key, f",{member}{tag}:{shown}"))
    return out


_JOIN_SLICE = 1 << 21  # joined (row, column) entries held at once by _join_counts


def _join_counts(rows: int, cols: int, label_rows: np.ndarray, label_ids: np.ndarray,
                 result_rows: np.ndarray, result_ids: np.ndarray, masks_left: np.ndarray,
                 masks_right: np.ndarray, ceiling: int, fields: int, size: int,
                 ) -> list[np.ndarray]:
    """Pair weights of flat items in the layout of :func:`_assign`, [indptr, indices,
    data]: ``shared * ceiling + present`` for every (row, column) sharing at least one key
    id, where ``shared`` counts the key ids they share and ``present`` the fields
    non-empty on both sides (bit masks). ``label_rows`` must be ascending; each label row
    holds a key id at most once per field, so shared = number of join entries of the pair.
    Label rows are joined a slice at a time, (row, column) codes counted by ``np.unique``
    (sorted), and written straight into place."""
    by_key = np.argsort(result_ids, kind="stable")
    sorted_rows = result_rows[by_key]
    del by_key
    per_key = np.bincount(result_ids, minlength=size)
    first = np.cumsum(per_key) - per_key
    fan = per_key[label_ids]  # result entries joined to each label entry
    del per_key
    total = int(fan.sum()) + rows  # a bound: pages never written are never resident
    indices = np.zeros(total, np.int32)
    data = np.zeros(total, _weight_type(fields * ceiling + fields))
    indptr = np.ones(rows + 1, np.int64)  # each row's dummy slot
    indptr[0] = 0
    ends = np.cumsum(fan)
    written, start, done = 0, 0, 0  # slots of the rows before row ``done``, dummies included
    while start < len(label_rows):
        stop = int(np.searchsorted(ends, (ends[start - 1] if start else 0) + _JOIN_SLICE,
                                   side="right"))
        stop = max(stop, start + 1)
        if stop < len(label_rows):  # whole label rows only
            stop = int(np.searchsorted(label_rows, label_rows[stop], side="left"))
            if stop <= start:
                stop = int(np.searchsorted(label_rows, label_rows[start], side="right"))
        low, high = int(label_rows[start]), int(label_rows[stop - 1]) + 1
        written += low - done  # rows between slices hold no key: their dummy slot only
        part = fan[start:stop]
        count = int(part.sum())
        if count:
            offsets = np.repeat(first[label_ids[start:stop]] - (np.cumsum(part) - part), part)
            offsets += np.arange(count)
            codes = np.repeat(label_rows[start:stop] - low, part) * cols + sorted_rows[offsets]
            del offsets
            codes, shared = np.unique(codes, return_counts=True)
            r = codes // cols
            c = codes - r * cols
            present = np.bitwise_count(masks_left[r + low] & masks_right[c])
            per_row = np.bincount(r, minlength=high - low)
            at = written + np.arange(len(codes)) + r  # one dummy slot after each row
            indices[at] = c
            data[at] = shared * ceiling + present
            indptr[low + 1:high + 1] += per_row
            del codes, shared, r, c, present, at
        written += int(indptr[low + 1:high + 1].sum())
        start, done = stop, high
    np.cumsum(indptr, out=indptr)
    end = int(indptr[-1])
    return [indptr, indices[:end], data[:end]]


_GROUP_ABOVE = 64  # result items beyond 2 x label items from which alike ones are grouped
_FUZZY_BUDGET = 50_000_000  # similarities computed per fuzzy field of one array (docs/LIMITS.md)


def _tolerant_pairs(leaf: Leaf, label_values: list[tuple[Any, Decimal]],
                    result_values: list[tuple[int, Decimal]]) -> set[tuple[Any, int]]:
    """(label id, group) of every label and result number within tolerance of each other.

    ``|a - b| <= max(abs_tol, rel_tol * max(|a|, |b|))`` (spec 2.0 §7) implies
    ``|a - b| <= max(abs_tol, rel_tol * |a| / (1 - rel_tol))`` for ``rel_tol < 1``, so the
    result values within that reach of ``a`` are found by bisection in the sorted values
    (rounded outward) and each is checked with :func:`_equal`: the work is the sort plus
    the pairs in range, never all pairs unless they are all in range.
    """
    ordered = sorted(result_values, key=lambda gv: gv[1])
    values = [v for _, v in ordered]
    found: set[tuple[Any, int]] = set()
    absolute, relative = Decimal(repr(leaf.options.abs_tol)), Decimal(repr(leaf.options.rel_tol))
    for label_id, a in label_values:
        with localcontext() as context:
            context.prec, context.Emax, context.Emin = 60, MAX_EMAX, MIN_EMIN
            if relative >= 1:
                low, high = 0, len(values)
            else:
                context.rounding = ROUND_CEILING
                reach = max(absolute, relative * abs(a) / (1 - relative))
                high = bisect.bisect_right(values, a + reach)
                context.rounding = ROUND_FLOOR
                low = bisect.bisect_left(values, a - reach)
        found.update((label_id, g) for g, b in ordered[low:high]
                     if _equal(leaf, "number", a, b))
    return found


def _fuzzy_pairs(threshold: float, label_values: list[tuple[Any, str]],
                 result_values: list[tuple[int, str]]) -> set[tuple[Any, int]] | None:
    """(label id, group) of every label and result text at least ``threshold`` similar, by
    rapidfuzz ``process.cdist`` over the distinct texts (the same Indel similarity as
    :func:`fuzzy_similarity`, in C), in slices of bounded memory. None when the distinct
    texts would need more than ``_FUZZY_BUDGET`` similarities."""
    from rapidfuzz import process  # loaded with the first fuzzy array, not at import
    from rapidfuzz.distance import Indel

    label_texts = sorted({text for _, text in label_values})
    result_texts = sorted({text for _, text in result_values})
    if len(label_texts) * len(result_texts) > _FUZZY_BUDGET:
        return None
    slice_rows = max(1, 1_000_000 // max(1, len(result_texts)))
    close: dict[str, list[str]] = {}
    for start in range(0, len(label_texts), slice_rows):
        rows = label_texts[start:start + slice_rows]
        similar = process.cdist(rows, result_texts, scorer=Indel.normalized_similarity,
                                dtype=np.float64)
        for i, j in zip(*np.nonzero(similar >= threshold), strict=True):
            close.setdefault(rows[i], []).append(result_texts[j])
    groups_of: dict[str, list[int]] = {}
    for g, text in result_values:
        groups_of.setdefault(text, []).append(g)
    return {(label_id, g) for label_id, text in label_values
            for other in close.get(text, ()) for g in groups_of[other]}


def _equal_pairs(label_values: list[tuple[Any, Any]], result_values: list[tuple[int, Any]],
                 ) -> set[tuple[Any, int]]:
    """(label id, group) of every label and result value with equal keys."""
    groups_of: dict[Any, list[int]] = {}
    for g, key in result_values:
        groups_of.setdefault(key, []).append(g)
    return {(label_id, g) for label_id, key in label_values for g in groups_of.get(key, ())}


def _children(node: ObjectNode | ArrayNode, value: dict | list, path: str, depth: int,
              ) -> list[tuple[Any, Any, str, int]]:
    """(node, value, field path, depth) of the members or items of a container value."""
    if isinstance(node, ArrayNode):
        wanted = _ITEM_KIND.get(type(node.items))  # wrong-kind items are dropped
        return [(node.items, item, f"{path}[]", depth + 1) for item in value
                if wanted is None or isinstance(item, wanted)]
    if node.properties is None:
        return [(node.values, v, _join(path, k), depth + 1) for k, v in value.items()]
    return [(child, value.get(k), _join(path, k), depth + 1)
            for k, child in node.properties.items()]


_ITEM_KIND: dict[type, type] = {ObjectNode: dict, ArrayNode: list}


def _kept(item: Any, value: Any) -> bool:
    """Whether an array item takes part in matching: non-empty, and of the JSON kind its
    node needs when that node is an object or an array (spec 2.0 §7: a wrong-kind item is
    dropped as empty from the label as from the result)."""
    wanted = _ITEM_KIND.get(type(item))
    return (wanted is None or isinstance(value, wanted)) and not is_empty(value)


def _numbered(keys: list[tuple]) -> Iterator[tuple[tuple, int]]:
    """Each key with its occurrence number (1, 2, ...): indicator vectors of numbered keys
    have dot product = size of the multiset intersection."""
    count: dict[tuple, int] = {}
    for key in keys:
        count[key] = count.get(key, 0) + 1
        yield key, count[key]


_NEEDS_QUOTES = re.compile(r'[.\[\]"\\]')


@functools.lru_cache(maxsize=4096)
def _quoted(name: str) -> str | None:
    """``["<name>"]`` (JSON string escaping) for a member name that is empty or holds
    ``.`` ``[`` ``]`` ``"`` ``\\``, else None: such a name written bare could read as
    another path (a member ``a.b`` against ``a`` -> ``b``)."""
    if name and not _NEEDS_QUOTES.search(name):
        return None
    return f"[{json.dumps(name, ensure_ascii=False)}]"


def _join(path: str, name: str) -> str:
    """The address or field path of member ``name`` below ``path`` (spec 2.0 §7: field
    paths are unambiguous): ``a.b`` for ``{"a": {"b": ...}}``, ``["a.b"]`` for
    ``{"a.b": ...}``, ``m[""]`` for an empty open-map key."""
    name = str(name)
    quoted = _quoted(name)
    if quoted is not None:
        return path + quoted
    return f"{path}.{name}" if path else name


def normalize_field_path(text: str) -> str:
    """A field path as the scorer writes it, from any spelling a user may give: bare
    names joined by ``.``, ``[]`` after an array, and ``["<name>"]`` (a JSON string,
    any escaping) for any name; ``["b"]`` and ``b`` are one path. Raises ValueError
    for a path that does not read so (an unclosed quote, an empty bare name).

    >>> normalize_field_path('lines[].["unit.price"]')
    'lines[]["unit.price"]'
    """
    out, position, decoder = "", 0, json.JSONDecoder()
    while position < len(text):
        if text.startswith("[]", position):
            out, position = out + "[]", position + 2
            continue
        if text.startswith('.["', position) and out:
            position += 1  # a dot before a quoted name is optional
        if text.startswith('["', position):
            try:
                name, end = decoder.raw_decode(text, position + 1)
            except ValueError:
                raise ValueError(f"field path {text!r}: unclosed quoted name") from None
            if text[end : end + 1] != "]":
                raise ValueError(f"field path {text!r}: a quoted name must end with ']'")
            out, position = _join(out, name), end + 1
            continue
        if out:
            if text[position] != ".":
                raise ValueError(f"field path {text!r}: expected '.' at {position}")
            position += 1
        end = position
        while end < len(text) and text[end] not in ".[":
            end += 1
        name = text[position:end]
        if not name or _quoted(name) is not None:
            raise ValueError(f"field path {text!r}: write the name at {position} as "
                             '["<name>"]')
        out, position = _join(out, name), end
    return out


_FAULT = object()


def _get(item: dict, name: str) -> Any:
    """``item.get(name)``: a member of a dict of any class (dict.get reads plain ones)."""
    return item.get(name)


def _get_path(value: Any, path: tuple[str, ...], fault: Any = None) -> Any:
    """``value[path[0]][path[1]]...``; None where a step is absent or empty, ``fault``
    where it is a non-empty value that is not an object."""
    for name in path:
        if not isinstance(value, dict):
            return None if is_empty(value) else fault
        value = value.get(name)
    return value


def _flat_leaves(item: Any) -> list[tuple[tuple[str, ...], Leaf]] | None:
    """The leaves below an object item node as (key path, leaf), when the subtree holds
    only fixed-property objects and hashable leaves (at most 62); else None."""
    if not isinstance(item, ObjectNode):
        return None
    found: list[tuple[tuple[str, ...], Leaf]] = []
    stack: list[tuple[tuple[str, ...], Any]] = [((), item)]
    seen: set[int] = set()
    while stack:
        path, node = stack.pop()
        if node is IGNORED:
            continue
        if isinstance(node, Leaf):
            if not all(hashable_tag(node, t) for t in possible_tags(node)):
                return None
            found.append((path, node))
        elif isinstance(node, ObjectNode) and node.properties is not None and id(node) not in seen:
            seen.add(id(node))
            stack.extend(((*path, k), child) for k, child in reversed(node.properties.items()))
        else:
            return None
    return found if len(found) <= 62 else None


def _flat_fields(item: Any) -> list[tuple[str, Leaf]] | None:
    """(name, leaf) of each scored property of an object item node whose properties are
    all leaves (ignored ones left out), each comparing by key equality under every tag,
    at least 1 and at most 62; else None (see :meth:`_Scorer.walk_flat`)."""
    if not isinstance(item, ObjectNode) or item.properties is None:
        return None
    fields = []
    for name, child in item.properties.items():
        if child is IGNORED:
            continue
        if not isinstance(child, Leaf) or not all(
                hashable_tag(child, tag) for tag in possible_tags(child)):
            return None
        fields.append((name, child))
    return fields if 0 < len(fields) <= 62 else None


def _all_leaves(item: Any) -> list[Leaf] | None:
    """Every Leaf reachable below ``item`` (None for an open map, whose keys vary)."""
    found: list[Leaf] = []
    stack, seen = [item], set()
    while stack:
        node = stack.pop()
        if id(node) in seen or node is IGNORED:
            continue
        seen.add(id(node))
        if isinstance(node, Leaf):
            found.append(node)
        elif isinstance(node, ArrayNode):
            stack.append(node.items)
        elif node.properties is None:
            return None
        else:
            stack.extend(node.properties.values())
    return found


def _all_hashable(item: Any) -> bool:
    """Whether every leaf below ``item`` compares by key equality under every tag (no
    fuzzy or tolerant leaf, no open map), so items can be indexed and paired by identity."""
    leaves = _all_leaves(item)
    return leaves is not None and all(
        hashable_tag(leaf, tag) for leaf in leaves for tag in possible_tags(leaf)
    )


# ----- 7. Document ---------------------------------------------------------------------


def _as_options(options: Options | Mapping[str, Any] | None) -> Options:
    """``options`` as an Options: a mapping goes through :meth:`Options.from_mapping`."""
    if options is None:
        return Options()
    if isinstance(options, Options):
        return options
    return Options.from_mapping(options)


def score_v2(result: Any, schema: Any, label: Any, *,
             options: Options | Mapping[str, Any] | None = None,
             file: str = "") -> DocScore:
    """Score one document under version 2.0 (``shared/spec/scoring-2.0.md``).

    ``result``: any JSON value (never raises on it); ``schema``: a JSON Schema dict;
    ``label``: the hand-verified JSON value; ``options``: benchmark-wide ``x-leafscore``
    defaults. A result that is not an object under an object schema is a parse failure.
    Returns a DocScore with accuracy in [0, 1]. Raises ScoringError for an unusable schema
    or a label that is not an object under an object schema.
    """
    root = compile_schema(schema, options=_as_options(options), file=file)
    if isinstance(root, ObjectNode):
        if not isinstance(label, dict):
            kind = type(label).__name__
            raise ScoringError(file, "", f"the label must be a JSON object, not {kind}")
        if not isinstance(result, dict):
            return _parse_failure(root, label)
    rows: list[tuple] = []
    scorer = _Scorer(rows)
    with CollectorPaused():
        scorer.walk(root, label, result, "", "", rows)
    return DocScore._from_rows(rows, exact=scorer.exact, blocks=scorer.blocks)


class CollectorPaused:
    """Python's cyclic garbage collector off for a ``with`` block (a speed choice only): a
    walk allocates a tuple per verdict and per leaf value read, which would trigger full
    collections over the whole document again and again; the walk makes no cycles
    (``leafscore.runner`` pauses it too, to read a run pack). Turned back on after,
    unless it was off before."""

    def __enter__(self) -> None:
        import gc

        self.enabled = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        import gc

        if self.enabled:
            gc.enable()


def _parse_failure(root: Any, label: Any) -> DocScore:
    """Every non-empty label leaf as ``parse_failure``; the document scores 0.0."""
    found: list[tuple] = []
    _Scorer().walk(root, label, None, "", "", found)
    rows = [(*v[:2], "parse_failure", *v[3:]) for v in found if v[2] == "missing"]
    return DocScore._from_rows(rows).replace(value=0.0)


# =====================================================================================
# 8. Version 1.0: DocuBench 0.1.0, frozen
# =====================================================================================
# Every rule below is spec 1.0 (shared/spec/scoring-1.0.md), odd ones included; the
# section numbers in comments are that page's. Nothing here is shared with version 2.0,
# so a fix to 2.0 can never move a 1.0 number.

_V1_SPACE = re.compile(r"\s+")
# Standard `re`, not `regex`: DocuBench's \W is the stdlib's (spec 1.0 §1.3).
_V1_NONWORD = re.compile(r"\W")


@dataclass(frozen=True)
class DocScoreV1:
    """A version-1.0 document score, shaped as spec 1.0 §5.

    ``value`` is ``final``, a float in [0, 1]. ``arrays`` maps each array name (its
    top-level member) to ``(score, total)`` with ``total`` the float weight of spec §3;
    ``non_array`` is ``(score, counted)`` or None when the schema has no non-array part.
    """

    value: float
    arrays: dict[str, tuple[float, float]] | None = None
    non_array: tuple[float, int] | None = None
    version: str = "1.0"

    def to_dict(self) -> dict[str, Any]:
        """The reference's output: ``{"arrays"?, "non_array"?, "final"}``."""
        out: dict[str, Any] = {}
        if self.arrays is not None:
            out["arrays"] = {k: {"score": s, "total": t} for k, (s, t) in self.arrays.items()}
        if self.non_array is not None:
            out["non_array"] = {"score": self.non_array[0], "total": self.non_array[1]}
        out["final"] = self.value
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> DocScoreV1:
        """Inverse of :meth:`to_dict` (for caches)."""
        arrays = d.get("arrays")
        non = d.get("non_array")
        return cls(
            value=d["final"],
            arrays=None if arrays is None
            else {k: (v["score"], v["total"]) for k, v in arrays.items()},
            non_array=None if non is None else (non["score"], non["total"]),
        )


# -- 1. pre-processing ------------------------------------------------------------------

def _v1_is_empty(value: Any) -> bool:
    # Spec 1.0 §1: empty is null, "", [] or {} -- never 0 or false.
    return value is None or (isinstance(value, (str, list, dict)) and len(value) == 0)


def _v1_strip(value: Any) -> Any:
    """§1.1: drop object members whose stripped value is "", [] or {}; arrays keep all."""
    if isinstance(value, dict):
        out = {}
        for key, member in value.items():
            member = _v1_strip(member)
            if not (isinstance(member, (str, list, dict)) and len(member) == 0):
                out[key] = member
        return out
    if isinstance(value, list):
        return [_v1_strip(element) for element in value]
    return value


def _v1_normalize(value: Any, where: str) -> Any:
    """§1.2-1.3: numbers to round(float, 6); strings squeezed, lower-cased, \\W deleted."""
    if isinstance(value, dict):
        return {key: _v1_normalize(member, where) for key, member in value.items()}
    if isinstance(value, list):
        return [_v1_normalize(element, where) for element in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        try:
            return round(float(value), 6)
        except OverflowError:
            raise ScoringError(where, "", f"number {str(value)[:20]}... is too large "
                               "for a float; version 2.0 reads it exactly") from None
    if isinstance(value, str):
        return _V1_NONWORD.sub("", _V1_SPACE.sub("", value).lower())
    return value


def _v1_preprocess(value: Any, where: str) -> Any:
    return _v1_normalize(_v1_strip(value), where)


# -- 2. array fields of the schema -------------------------------------------------------

def _v1_is_array_schema(node: Any) -> bool:
    if not isinstance(node, dict):
        return False
    kind = node.get("type")
    return kind == "array" or (isinstance(kind, list) and "array" in kind)


def _v1_array_fields(schema: Any, file: str) -> dict[str, tuple[str, ...]]:
    """§2: array name -> data path, in order of first discovery; the later one wins.

    Raises ScoringError (§7) at the first array field that is not under a chain of
    ``properties``, even when other array fields are scorable.
    """
    fields: dict[str, tuple[str, ...]] = {}
    # Depth-first, document order; an explicit stack keeps deep schemas off the C stack.
    stack: list[tuple[Any, list[Any]]] = [(schema, [])]
    while stack:
        node, tokens = stack.pop()
        if isinstance(node, dict):
            if _v1_is_array_schema(node):
                keys = [t for t in tokens if isinstance(t, str)]
                scorable = (len(keys) >= 2 and len(keys) % 2 == 0
                            and all(k == "properties" for k in keys[0::2])
                            and len(keys) == len(tokens))
                if not scorable:
                    raise ScoringError(file, json_pointer(tokens), (
                        "version 1.0 has no answer for an array field here (DocuBench "
                        "only scores arrays under a chain of 'properties'); "
                        "version 2.0 scores it"))
                data_path = tuple(keys[1::2])
                fields[data_path[0]] = data_path
                continue
            children = [(v, [*tokens, k]) for k, v in node.items()]
        elif isinstance(node, list):
            children = [(v, [*tokens, i]) for i, v in enumerate(node)]
        else:
            continue
        stack.extend(reversed(children))
    return fields


def _v1_items(value: Any, data_path: tuple[str, ...]) -> list[Any]:
    for key in data_path:
        if not isinstance(value, dict) or key not in value:
            return []
        value = value[key]
    return value if isinstance(value, list) else []


# -- 3. scoring one array field ----------------------------------------------------------

def _v1_flatten(item: Any) -> dict[str, Any]:
    """§3: an object item -> {dotted key: leaf}; arrays as sorted-key JSON text."""
    if not isinstance(item, dict):
        return {"_val": item}
    leaves: dict[str, Any] = {}

    def walk(obj: dict[str, Any], prefix: str) -> None:
        for key, member in obj.items():
            name = prefix + key
            if isinstance(member, dict):
                walk(member, name + ".")
            elif isinstance(member, list):
                leaves[name] = json.dumps(member, sort_keys=True)
            else:
                leaves[name] = member  # a colliding key: the later one wins

    walk(item, "")
    return leaves


class _V1Unequal:
    """A hashable stand-in for NaN: equal to nothing, itself included (spec §7)."""

    __slots__ = ()


def _v1_hashable(value: Any) -> Any:
    # Maps a leaf to a hashable key with the same == as Python's on the original:
    # hash(1) == hash(1.0) == hash(True), and lists/dicts compare element-wise.
    if isinstance(value, float) and math.isnan(value):
        return _V1Unequal()
    if isinstance(value, list):
        return ("list", tuple(_v1_hashable(v) for v in value))
    if isinstance(value, dict):
        return ("dict", frozenset((k, _v1_hashable(v)) for k, v in value.items()))
    return value


def _v1_array_score(label_items: list[Any], result_items: list[Any]) -> tuple[float, float]:
    """§3: (score, weight) of one array field, with DocuBench's greedy pairing.

    The reference sorts all n_label x n_result pairs; this computes the same walk without
    materialising them: only pairs with a positive similarity can change the running sum,
    so they are found through shared leaf values, grouped by similarity (highest first)
    and, inside a group, taken in (label, result) index order -- the reference's stable
    order. Additions happen in the reference's order, so the sum is bit-identical.
    """
    n_label, n_result = len(label_items), len(result_items)
    if n_label == 0 and n_result == 0:
        return 1.0, 0.0
    label_leaves = [_v1_flatten(item) for item in label_items]
    result_leaves = [_v1_flatten(item) for item in result_items]
    counts = [sum(1 for v in leaves.values() if not _v1_is_empty(v)) for leaves in label_leaves]
    f = sum(max(1, c) for c in counts) / n_label if n_label else 1.0
    weight = max(n_label, n_result) * f
    if n_label == 0 or n_result == 0:
        return 0.0, weight

    total = _v1_greedy_sum(label_leaves, result_leaves)
    return total / max(n_label, n_result), weight


#: Most keys for which the dense pairing (a similarity code per pair, numpy) is used: its
#: table of similarity values grows with the square of the key count, its code matrices
#: with items x keys, so items with thousands of distinct keys go the sparse way.
_V1_DENSE_MAX_KEYS = 32
#: Relative cost of one candidate pair in the sparse (Python) walk against one
#: pair-key cell of the dense (numpy) one; measured, roughly.
_V1_SPARSE_COST = 200
#: Cells (label items x result items x keys) up to which the dense walk is taken without
#: weighing the sparse one: both give the same bits, and counting shared leaves costs
#: more than the dense walk itself on arrays of this size.
_V1_DENSE_SMALL = 20_000


def _v1_greedy_sum(label_leaves: list[dict[str, Any]],
                   result_leaves: list[dict[str, Any]]) -> float:
    """§3: the running sum of DocuBench's greedy pairing, by the cheaper of two walks.

    Both walks give the same float: only pairs sharing a (key, value) leaf, or pairs of
    two items without a non-empty leaf (similarity 1.0), have a similarity above 0, and
    the sum adds one similarity per taken pair, highest group first, so only which pairs
    each group takes matters (all additions inside a group add the same value).
    """
    keys = {k for leaves in (*label_leaves, *result_leaves) for k in leaves}
    dense = len(label_leaves) * len(result_leaves) * (len(keys) + 1)
    if len(keys) <= _V1_DENSE_MAX_KEYS and dense <= _V1_DENSE_SMALL:
        return _v1_greedy_dense(label_leaves, result_leaves)  # small: no need to compare costs
    label_codes, result_codes = _v1_leaf_codes(label_leaves, result_leaves)
    postings: dict[int, list[int]] = {}
    for j, codes in enumerate(result_codes):
        for code in codes.values():
            postings.setdefault(code, []).append(j)
    label_count: dict[int, int] = {}
    for codes in label_codes:
        for code in codes.values():
            label_count[code] = label_count.get(code, 0) + 1
    # Pairs the sparse walk visits: one per shared (key, value) leaf of a pair.
    shared = sum(n * len(postings.get(code, ())) for code, n in label_count.items())
    if len(keys) <= _V1_DENSE_MAX_KEYS and dense <= _V1_SPARSE_COST * (
            shared + len(label_leaves) + len(result_leaves)):
        return _v1_greedy_dense(label_leaves, result_leaves)
    return _v1_greedy_sparse(label_codes, result_codes, postings)


def _v1_leaf_codes(label_leaves: list[dict[str, Any]], result_leaves: list[dict[str, Any]],
                   ) -> tuple[list[dict[str, int]], list[dict[str, int]]]:
    """Each item's non-empty leaves as {key: code}; equal (key, value) leaves share a code.

    Every NaN gets a code of its own (``_v1_hashable``), so it equals nothing.
    """
    values: dict[Any, int] = {}

    def encode(leaves: dict[str, Any]) -> dict[str, int]:
        return {key: values.setdefault((key, _v1_hashable(value)), len(values))
                for key, value in leaves.items() if not _v1_is_empty(value)}

    return [encode(leaves) for leaves in label_leaves], [encode(leaves) for leaves in result_leaves]


def _v1_greedy_sparse(label_codes: list[dict[str, int]], result_codes: list[dict[str, int]],
                      postings: dict[int, list[int]]) -> float:
    """The greedy sum from the pairs that share a leaf: work grows with those pairs.

    ``label_codes``/``result_codes``: per item {key: code} of its non-empty leaves;
    ``postings``: code -> result indices holding it, ascending. Similarity of a pair is
    equal / kept with kept = |keys_i| + |keys_j| - |keys_i & keys_j| (keys empty on both
    sides are skipped); a pair sharing nothing has 0.0 unless both items are empty.
    """
    candidates: list[tuple[float, int, int]] = []
    for i, codes in enumerate(label_codes):
        equal: dict[int, int] = {}
        for code in codes.values():
            for j in postings.get(code, ()):
                equal[j] = equal.get(j, 0) + 1
        for j, count in equal.items():
            other = result_codes[j]
            both = len(codes.keys() & other.keys()) if len(codes) > count else count
            # Negated so an ascending sort gives the reference's stable order.
            candidates.append((-(count / (len(codes) + len(other) - both)), i, j))
    candidates.sort()
    empty_pairs = min(sum(1 for c in label_codes if not c), sum(1 for c in result_codes if not c))
    row_free = [True] * len(label_codes)
    col_free = [True] * len(result_codes)
    total = 0.0
    for negated, i, j in candidates:
        if empty_pairs and negated != -1.0:
            # Empty items pair only with each other (1.0) and touch no other pair; the
            # additions of one group are all equal, so adding them here changes no bit.
            for _ in range(empty_pairs):
                total += 1.0
            empty_pairs = 0
        if row_free[i] and col_free[j]:
            row_free[i] = col_free[j] = False
            total += -negated
    for _ in range(empty_pairs):
        total += 1.0
    return total


def _v1_greedy_dense(label_leaves: list[dict[str, Any]],
                     result_leaves: list[dict[str, Any]]) -> float:
    """The greedy sum from a similarity code for every pair (numpy, few keys only)."""
    n_label, n_result = len(label_leaves), len(result_leaves)
    keys = sorted({k for leaves in (*label_leaves, *result_leaves) for k in leaves})
    # codes[:, k]: equal non-empty values share a code; empty is -1 (label) / -2 (result),
    # so empty never equals anything; every NaN gets a code of its own.
    values: dict[Any, int] = {}

    def encode(leaves_list: list[dict[str, Any]], empty: int) -> np.ndarray:
        out = np.full((len(leaves_list), len(keys)), empty, dtype=np.int64)
        for row, leaves in enumerate(leaves_list):
            for k, key in enumerate(keys):
                value = leaves.get(key)
                if not _v1_is_empty(value):
                    out[row, k] = values.setdefault((key, _v1_hashable(value)), len(values))
        return out

    label_codes, result_codes = encode(label_leaves, -1), encode(result_leaves, -2)
    label_ne, result_ne = label_codes >= 0, result_codes >= 0
    # Every similarity is equal/kept with 0 <= equal <= kept <= len(keys). A pair is
    # stored as the code equal * (len(keys) + 1) + kept (one byte for up to 14 keys);
    # each distinct similarity value is the set of codes that give it.
    n_keys = len(keys)
    codes_of: dict[float, list[int]] = {}
    for kept in range(n_keys + 1):
        for equal in range(kept + 1):
            value = equal / kept if kept else 1.0  # the float the reference computes
            codes_of.setdefault(value, []).append(equal * (n_keys + 1) + kept)
    largest = n_keys * (n_keys + 2)
    code_dtype = np.uint8 if largest < 256 else np.uint16 if largest < 65536 else np.int64
    pair_codes = np.empty((n_label, n_result), dtype=code_dtype)
    chunk = max(1, 4_000_000 // max(1, n_result))
    for lo in range(0, n_label, chunk):
        hi = min(n_label, lo + chunk)
        equal = np.zeros((hi - lo, n_result), dtype=code_dtype)
        kept = np.zeros((hi - lo, n_result), dtype=code_dtype)
        for k in range(n_keys):
            equal += label_codes[lo:hi, k, None] == result_codes[None, :, k]
            kept += label_ne[lo:hi, k, None] | result_ne[None, :, k]
        equal *= n_keys + 1
        equal += kept
        pair_codes[lo:hi] = equal

    # DocuBench walks all pairs sorted by similarity (stable: label index, then result
    # index) and takes a pair when both items are free. Walk the same order group by
    # group, highest similarity first; only free rows and columns can take anything,
    # and 0.0 adds nothing.
    row_free = np.ones(n_label, dtype=bool)
    col_free = np.ones(n_result, dtype=bool)
    total = 0.0
    for value in sorted(codes_of, reverse=True):
        if value == 0.0:
            break
        rows, cols = np.flatnonzero(row_free), np.flatnonzero(col_free)
        if not len(rows) or not len(cols):
            break
        everything_free = len(rows) == n_label and len(cols) == n_result
        sub = pair_codes if everything_free else pair_codes[np.ix_(rows, cols)]
        hits = sub == codes_of[value][0]
        for code in codes_of[value][1:]:
            hits |= sub == code
        for r in np.flatnonzero(hits.any(axis=1)).tolist():
            candidates = cols[hits[r]]
            candidates = candidates[col_free[candidates]]
            if len(candidates):
                col_free[candidates[0]] = False
                row_free[rows[r]] = False
                total += value  # one addition per pair, in the reference's order
    return total


# -- 4. non-array fields ------------------------------------------------------------------

_V1_GONE = object()


def _v1_prune(node: Any) -> Any:
    """§4: the schema without array subschemas, empty members and propertyless objects."""
    if isinstance(node, dict):
        if _v1_is_array_schema(node):
            return _V1_GONE
        out = {}
        for key, member in node.items():
            member = _v1_prune(member)
            if member is _V1_GONE or (isinstance(member, (list, dict)) and not member):
                continue
            out[key] = member
        kind = out.get("type")
        is_object = kind == "object" or (isinstance(kind, list) and "object" in kind)
        if is_object and not out.get("properties"):
            return _V1_GONE
        return out
    if isinstance(node, list):
        out_list = []
        for element in node:
            element = _v1_prune(element)
            if element is _V1_GONE or (isinstance(element, (list, dict)) and not element):
                continue
            out_list.append(element)
        return out_list
    return node


def _v1_non_array(pruned: dict[str, Any], result: Any, label: Any,
                  file: str) -> tuple[float, int]:
    correct = counted = 0
    stack: list[tuple[Any, Any, Any, str]] = [(pruned, result, label, "")]
    while stack:
        node, res, lab, pointer = stack.pop()
        props = node.get("properties") if isinstance(node, dict) else None
        if isinstance(node, dict) and node.get("type") == "object" and props:
            if not isinstance(props, dict):  # the reference crashes on this schema
                raise ScoringError(file, pointer + "/properties",
                                   "'properties' is not an object; version 1.0 has no answer")
            children = []
            for key, child in props.items():
                r = res.get(key) if isinstance(res, dict) else None
                g = lab.get(key) if isinstance(lab, dict) else None
                children.append((child, r, g, f"{pointer}/properties/{json_pointer([key])[1:]}"))
            stack.extend(reversed(children))
            continue
        if _v1_is_empty(res) and _v1_is_empty(lab):
            continue
        counted += 1
        if res == lab:
            correct += 1
    return (correct / counted if counted else 1.0), counted


# -- 5. document score -------------------------------------------------------------------

def score_v1(result: Any, schema: Any, label: Any, *, file: str = "") -> DocScoreV1:
    """Score one document with version 1.0 (DocuBench 0.1.0), exactly.

    Parameters
    ----------
    result, label : any JSON value
        The system's output (an envelope's ``data``) and the hand-verified label.
    schema : JSON object
        The document's JSON Schema.
    file : str
        Names the schema in errors.

    Returns
    -------
    DocScoreV1
        ``value`` (``final``) in [0, 1], and the sub-scores of spec 1.0 §5.

    Raises
    ------
    ScoringError
        Where the reference has no answer (spec 1.0 §7): no scorable field, an array
        field outside a chain of ``properties``, a label number too large for a float.
    """
    arrays = _v1_array_fields(schema, file)
    try:
        pruned = _v1_prune(schema)
        label = _v1_preprocess(label, "label")
    except RecursionError:  # the reference overflows too; name the input instead
        raise ScoringError(file, "", "schema or label nested too deeply to walk") from None
    has_non_array = isinstance(pruned, dict) and bool(pruned.get("properties"))
    if not arrays and not has_non_array:
        raise ScoringError(file, "", "version 1.0 has no answer for a schema with no "
                           "scorable field (DocuBench raises); version 2.0 scores it")
    try:
        result = _v1_preprocess(result, "result")
    except (ScoringError, RecursionError):
        # The reference crashes here; a prediction is never an error, so an unreadable
        # result counts as no result, as a non-object envelope does (spec 1.0 §6).
        result = {}

    array_scores: dict[str, tuple[float, float]] = {}
    for name, data_path in arrays.items():
        array_scores[name] = _v1_array_score(_v1_items(label, data_path),
                                             _v1_items(result, data_path))
    non_array = _v1_non_array(pruned, result, label, file) if has_non_array else None

    if not arrays:
        return DocScoreV1(value=v1_final(None, non_array), non_array=non_array)
    return DocScoreV1(value=v1_final(array_scores, non_array), arrays=array_scores,
                      non_array=non_array)


def v1_final(arrays: Mapping[str, tuple[float, float]] | None,
             non_array: tuple[float, int] | None) -> float:
    """Spec 1.0 §5: ``final`` from the parts, in DocuBench's order of float operations.

    Without array fields it is the non-array score; else the mean of the part scores
    weighted by their totals (1.0 when every total is 0). A stored 1.0 score is checked
    against it (``leafscore.runner``), so this is the one place it is written.
    """
    if not arrays:
        return non_array[0] if non_array is not None else 1.0
    weighted = total = 0.0
    for s, w in arrays.values():
        total += w
        weighted += s * w
    if non_array is not None:
        total += non_array[1]
        weighted += non_array[0] * non_array[1]
    return weighted / total if total else 1.0


# =====================================================================================
# 9. Versions and entry points
# =====================================================================================
# A scoring version is one record: everything that differs between versions lives in
# its fields, so no code outside the records asks which version it runs.

#: What a result file became after its version's envelope rule: ``status`` is
#: ``"scored"``, ``"parse_failure"`` or ``"missing"``; ``data`` the value to score;
#: ``note`` says what was done with the file (``""`` when nothing odd).
@dataclass(frozen=True)
class Outcome:
    status: str
    data: Any
    note: str = ""


#: Marks a result file that holds no usable JSON (passed to an envelope rule).
UNREADABLE: Any = type("Unreadable", (), {"__repr__": lambda self: "UNREADABLE"})()


def _envelope_v1(value: Any, schema: Any) -> Outcome:
    """DocuBench's rule (spec 1.0 §6): an object gives its ``data`` member (``{}`` when
    absent) whatever its ``status``; anything else is ``{}``. A failed or unreadable
    file is still reported as a parse failure, for coverage."""
    if not isinstance(value, dict):
        why = "not valid JSON" if value is UNREADABLE else "not a JSON object"
        return Outcome("parse_failure", {}, f"{why}: scored as {{}}")
    failed = value.get("status") == "failed"
    data = value.get("data", {})
    return Outcome("parse_failure" if failed else "scored", {} if data is None else data,
                   "envelope status is 'failed'" if failed else "")


def is_envelope(value: Any, schema: Any) -> bool:
    """Whether a result file's top-level value is an envelope (spec 2.0 §6).

    An object with a ``status`` member is an envelope. So is an object with a ``data``
    member that the schema's root ``properties`` do not declare (DocuBench writes some
    systems' envelopes without ``status``; see docs/SCORING.md, "choices"). Any other
    JSON value is the result itself.
    """
    if not isinstance(value, dict):
        return False
    if "status" in value:
        return True
    declared = schema.get("properties") if isinstance(schema, dict) else None
    return "data" in value and not (isinstance(declared, dict) and "data" in declared)


def _envelope_v2(value: Any, schema: Any) -> Outcome:
    """Spec 2.0 §6: a file that is not valid JSON, an envelope whose ``status`` is not
    ``"ok"``, or whose ``data`` is neither an object nor text holding one (a markdown
    code fence around it allowed) is a parse failure; a value that is not an envelope
    (:func:`is_envelope`) is the result itself."""
    if value is UNREADABLE:
        return Outcome("parse_failure", None, "not valid JSON")
    if not is_envelope(value, schema):
        if isinstance(value, dict) or (isinstance(schema, dict)
                                       and schema.get("type") not in (None, "object")):
            return Outcome("scored", value)
        return Outcome("parse_failure", None, f"result is a JSON {_kind(value)}, not an object")
    status = value.get("status", "ok")
    if status != "ok":
        return Outcome("parse_failure", None, f"envelope status is {status!r}, not 'ok'")
    data, note = value.get("data"), ""
    if isinstance(data, str):
        body = unwrap_fence(data)
        try:
            data = parse_json(body, "data").value
        except InputError:
            return Outcome("parse_failure", None, "data is text, not JSON")
        note = "data given as text holding JSON" + (
            " in a markdown code fence" if body is not value["data"] else "") + ": decoded"
    if not isinstance(data, dict):
        kind = "no data" if data is None else f"data is a JSON {_kind(data)}, not an object"
        return Outcome("parse_failure", None, f"envelope has {kind}" if data is None else kind)
    return Outcome("scored", data, note)


def _kind(value: Any) -> str:
    """JSON kind of a parsed value: object, array, string, number, boolean or null."""
    for kind, types in (("boolean", bool), ("object", dict), ("array", list),
                        ("string", str), ("number", (int, float, Decimal))):
        if isinstance(value, types):
            return kind
    return "null"


def _parse_failure_v1(data: Any, schema: Any, label: Any, options: Options,
                      file: str) -> DocScoreV1:
    """1.0 scores what DocuBench would: the envelope's data, or ``{}`` (spec 1.0 §6)."""
    return score_v1(data, schema, label, file=file)


def _parse_failure_v2(data: Any, schema: Any, label: Any, options: Options,
                      file: str) -> DocScore:
    """2.0: every non-empty label leaf is a ``parse_failure`` verdict (spec 2.0 §4)."""
    return _parse_failure(compile_schema(schema, options=options, file=file), label)


def _missing_v1(schema: Any, label: Any, options: Options, file: str) -> None:
    """1.0 leaves a missing result out of the mean (spec 1.0 §6): no score."""
    return None


def _missing_v2(schema: Any, label: Any, options: Options, file: str) -> DocScore:
    """2.0 scores a missing result file as an empty result (spec 2.0 §6)."""
    return score_v2({}, schema, label, options=options, file=file)


def _mean_v1(values: Sequence[float]) -> float:
    """DocuBench's published aggregate, ``math.fsum(scores) / len(scores)``: it matches
    every system score and every breakdown cell of its summary.json bit for bit (126 of
    126 cells; a plain ``sum`` misses 9 and ``statistics.mean`` 5)."""
    return math.fsum(values) / len(values)


def _mean_v2(values: Sequence[float]) -> float:
    """The correctly rounded mean (``statistics.mean`` sums exactly)."""
    return statistics.mean(values)


@dataclass(frozen=True)
class ScoringVersion:
    """One scoring version, whole: the only place where versions differ.

    ``score(result, schema, label, options, file)`` scores one document;
    ``parse_failure(data, schema, label, options, file)`` scores an unusable result (``data``
    is what the envelope rule kept); ``missing(schema, label, options, file)`` scores an
    absent result file (``None``: left out of the mean); ``envelope(value, schema)`` turns
    a result file's parsed value (or :data:`UNREADABLE`) into an :class:`Outcome`;
    ``pairing`` names how array items are paired (printed in signatures); ``mean``
    aggregates document scores (system scores and breakdowns); ``result_type`` is the
    class of a document score (with ``.value`` in [0, 1], ``to_dict`` and ``from_dict``);
    ``uses_options`` says whether ``x-leafscore`` options can move a score;
    ``missing_rule`` says in words what ``missing`` does.
    """

    name: str
    score: Callable[[Any, Any, Any, Options, str], Any]
    parse_failure: Callable[[Any, Any, Any, Options, str], Any]
    missing: Callable[[Any, Any, Options, str], Any]
    envelope: Callable[[Any, Any], Outcome]
    pairing: str
    mean: Callable[[Sequence[float]], float]
    result_type: type
    uses_options: bool
    missing_rule: str

    @property
    def has_verdicts(self) -> bool:
        """Whether a document score of this version lists one verdict per leaf."""
        return any(f.name == "verdicts" for f in dataclasses.fields(self.result_type))

    def score_outcome(self, outcome: Outcome, schema: Any, label: Any, options: Options,
                      file: str = "") -> Any:
        """The document score of what the envelope rule gave (``None``: not scored)."""
        if outcome.status == "missing":
            return self.missing(schema, label, options, file)
        if outcome.status == "parse_failure":
            return self.parse_failure(outcome.data, schema, label, options, file)
        return self.score(outcome.data, schema, label, options, file)


#: Scoring version -> its record.
VERSIONS: dict[str, ScoringVersion] = {
    "1.0": ScoringVersion(
        "1.0", lambda r, s, lab, o, f: score_v1(r, s, lab, file=f), _parse_failure_v1,
        _missing_v1, _envelope_v1, "greedy", _mean_v1, DocScoreV1, False,
        "left out of the mean"),
    "2.0": ScoringVersion(
        "2.0", lambda r, s, lab, o, f: score_v2(r, s, lab, options=o, file=f),
        _parse_failure_v2, _missing_v2, _envelope_v2, "optimal", _mean_v2, DocScore, True,
        "scored as an empty result"),
}
#: How each version pairs array items.
MATCHING: dict[str, str] = {name: record.pairing for name, record in VERSIONS.items()}
#: A document score of either version.
DocumentScore = DocScore | DocScoreV1


def scoring_version(version: str | None) -> ScoringVersion:
    """The record of ``version`` (``None``: :data:`DEFAULT_VERSION`).

    Raises ValueError quoting ``version`` and the choices for an unknown version.
    """
    record = VERSIONS.get(DEFAULT_VERSION if version is None else version)
    if record is None:
        choices = ", ".join(repr(v) for v in SCORING_VERSIONS)
        raise ValueError(f"version={version!r} is not one of {choices}")
    return record


def score(result: Any, schema: Any, label: Any, *, version: str = DEFAULT_VERSION,
          options: Options | Mapping[str, Any] | None = None,
          file: str = "") -> DocumentScore:
    """Score one document: ``result`` (the result itself, any JSON value) against ``label``.

    Parameters
    ----------
    result : JSON value
        The result itself, not a file's envelope: ``score({"status": "ok", "data": d},
        ...)`` scores the envelope's own members (so it is 0.0 against most labels). A
        file is read with :func:`score_file`; a parsed file's value is unwrapped with
        ``scoring_version(version).envelope(value, schema).data``. A value that is not
        an object under an object schema is a parse failure (2.0).
    schema : dict
        The document's JSON Schema.
    label : JSON value
        The hand-verified label.
    version : str, default=DEFAULT_VERSION
        One of :data:`SCORING_VERSIONS`.
    options : Options or mapping, optional
        Benchmark-wide ``x-leafscore`` defaults (ignored by 1.0, validated always).
    file : str, optional
        Names the document in errors.

    Returns
    -------
    DocScore (2.0) or DocScoreV1 (1.0)
        ``.value`` is the document score, a float in [0, 1].

    Raises
    ------
    ValueError
        For an unknown version or option.
    ScoringError
        For a schema or label the metric cannot score; never for a result.

    Examples
    --------
    >>> schema = {"type": "object", "properties": {"n": {"type": "number"}}}
    >>> score({"n": "1,240.00"}, schema, {"n": 1240}).value
    1.0
    >>> score({"n": "1.240,00"}, schema, {"n": 1240}, version="1.0").value
    0.0
    """
    return scoring_version(version).score(result, schema, label, _as_options(options), file)


def score_parse_failure(schema: Any, label: Any, *, version: str = DEFAULT_VERSION,
                        options: Options | Mapping[str, Any] | None = None,
                        file: str = "") -> DocumentScore:
    """Score a document whose result is unusable (invalid JSON, failed envelope).

    2.0: every non-empty label leaf is a ``parse_failure`` verdict (FN) and the value is
    0.0 even when the label states nothing. 1.0: the score of an empty result
    (``score_v1({}, schema, label)``). Raises as :func:`score` does.
    """
    return scoring_version(version).parse_failure({}, schema, label, _as_options(options),
                                                  file)


def score_file(result: str | os.PathLike[str], schema: str | os.PathLike[str],
               label: str | os.PathLike[str], *, version: str = DEFAULT_VERSION,
               options: Options | Mapping[str, Any] | None = None) -> DocumentScore:
    """Score one result file against a label file under a schema file, as every entry
    point does (the reader's rules, then the version's envelope rule).

    ``result`` may hold an envelope (``{"status": "ok", "data": {...}}``) or the result
    itself (:func:`is_envelope`); an unreadable or absent result file is scored as the
    version says (parse failure; missing). Returns as :func:`score`. Raises InputError
    naming the file and place for an unreadable schema or label, ScoringError as
    :func:`score` does, ValueError for an unknown version or option.
    """
    record = scoring_version(version)
    resolved = _as_options(options)
    schema_value = read_json_file(schema).value
    label_value = read_json_file(label).value
    outcome = read_outcome(Path(result), schema_value, record)
    return record.score_outcome(outcome, schema_value, label_value, resolved, str(schema))


# =====================================================================================
# 10. Files: reading, envelopes, config, folder, CLI
# =====================================================================================
# One reader for every file of every entry point: `python scorer.py` and the `leafscore`
# package alike (the package adds warnings and limits around it, never a second rule).

#: Largest label, schema or result file read, in bytes (a bigger result is a parse failure).
MAX_FILE_BYTES = 64 * 1024 * 1024
#: Deepest nesting of objects and arrays read from a file, in levels (``[[1]]`` is 2).
MAX_DEPTH = 200
#: A byte-order mark decides the encoding; without one, files are UTF-8. Longest first:
#: the UTF-32-LE mark starts with the UTF-16-LE one.
_BOMS = ((b"\xff\xfe\x00\x00", "utf-32-le", "UTF-32"), (b"\x00\x00\xfe\xff", "utf-32-be", "UTF-32"),
         (b"\xef\xbb\xbf", "utf-8", "UTF-8"), (b"\xff\xfe", "utf-16-le", "UTF-16"),
         (b"\xfe\xff", "utf-16-be", "UTF-16"))
#: A whole text in a markdown code fence, LF or CRLF line ends.
FENCE = re.compile(r"\s*```[ \t]*(?:json5?|JSON|jsonc)?[ \t]*\r?\n(?P<body>.*?)\r?\n?[ \t]*```\s*",
                    re.DOTALL)


@dataclass(frozen=True)
class Parsed:
    """A JSON value as read, and warnings about how it was read (one line each).
    ``written_numbers``: how many numbers in it keep their written form
    (:class:`JSONNumber`); ``None`` when not counted. A note on how to digest the value,
    not part of what was read: left out of equality and ``repr``."""

    value: Any
    warnings: tuple[str, ...] = ()
    written_numbers: int | None = dataclasses.field(default=None, compare=False, repr=False)

    def canonical(self) -> bytes:
        """:func:`canonical_json` of the value, made by ``json.dumps`` in C when no number
        keeps a written form (the same bytes then: tested)."""
        if self.written_numbers == 0:
            return json.dumps(self.value, ensure_ascii=False, sort_keys=True,
                              separators=(",", ":"), allow_nan=False).encode(
                "utf-8", "surrogatepass")
        return canonical_json(self.value)


class JSONNumber(float):
    """A JSON number read from a file that a float cannot hold exactly: the float, plus
    ``text``, its written form (spec 2.0 §7: numbers are read from their written form).

    It is a float to everything else (version 1.0, JSON output, arithmetic); version 2.0
    and :func:`canonical_json` read ``text``.
    """

    __slots__ = ("text",)


def _read_float(token: str) -> float:
    """A JSON float token: a float, or a :class:`JSONNumber` when its shortest form
    differs from what was written; InputError-bound ValueError when it overflows."""
    number = float(token)
    if math.isinf(number):
        raise _Refused(token, f"number {_short(token)} is too large for a float")
    if repr(number) == token:
        return number
    exact = JSONNumber(token)
    exact.text = token
    return exact


class _Refused(Exception):
    """Raised by a parse hook: ``token`` is the literal refused, ``reason`` why."""

    def __init__(self, token: str, reason: str) -> None:
        super().__init__(token, reason)
        self.token, self.reason = token, reason


def _refuse_constant(name: str) -> Any:
    raise _Refused(name, f"{name} is not a JSON value (RFC 8259 allows finite numbers only)")


def _short(literal: str) -> str:
    return literal if len(literal) <= 24 else f"{literal[:20]}...({len(literal):,} characters)"


def decode_bytes(data: bytes, source: str, warnings: list[str]) -> str:
    """Text of a file's bytes: a byte-order mark decides the encoding (with a warning),
    else UTF-8. Raises InputError at the byte offset of the first bad byte."""
    for mark, codec, label in _BOMS:
        if data.startswith(mark):
            try:
                text = data[len(mark):].decode(codec)
            except UnicodeDecodeError as exc:
                raise InputError(source, f"byte {len(mark) + exc.start}",
                                 f"invalid {label} after a {label} byte-order mark") from None
            warnings.append(f"{source}: starts with a UTF-8 byte-order mark; ignored"
                            if label == "UTF-8" else
                            f"{source}: decoded as {label} (byte-order mark); use UTF-8")
            return text
    if b"\x00" in data[:4]:  # JSON text never holds a raw NUL
        raise InputError(source, f"byte {data.index(0)}", "NUL byte: UTF-16 or UTF-32 "
                         "without a byte-order mark? Save as UTF-8")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = data[exc.start:exc.start + 1].hex()
        raise InputError(source, f"byte {exc.start}", f"invalid UTF-8 (byte 0x{bad})") from None


_STEP = np.zeros(256, dtype=np.int8)
_STEP[[ord("["), ord("{")]] = 1
_STEP[[ord("]"), ord("}")]] = -1


def _deepest(data: bytes, limit: int) -> int:
    """Byte offset of the bracket opening level ``limit + 1`` in JSON text ``data``
    (-1 when nesting stays within ``limit``), found without parsing, in linear time.

    Escaped backslashes and quotes are blanked; a running count of the quotes before each
    bracket tells whether it stands inside a string; the running sum of +1/-1 steps of
    the brackets outside strings is the depth. Text that is not JSON gives some number,
    and the parser then refuses it.
    """
    if data.count(b"[") + data.count(b"{") <= limit:
        return -1
    if b"\\" in data:
        data = data.replace(b"\\\\", b"__").replace(b'\\"', b"__")
    codes = np.frombuffer(data, dtype=np.uint8)
    at = np.flatnonzero(_STEP[codes])
    quotes_before = np.searchsorted(np.flatnonzero(codes == 0x22), at)
    at = at[(quotes_before & 1) == 0]
    depth = np.cumsum(_STEP[codes[at]], dtype=np.int64)
    over = np.flatnonzero(depth > limit)
    return int(at[over[0]]) if over.size else -1


def _outside_strings(text: str, token: str) -> int:
    """Offset of the first ``token`` standing outside JSON strings (0 if none): an error
    path only, linear in the text (no backtracking)."""
    data = text.replace("\\\\", "__").replace('\\"', "__")
    quotes = np.flatnonzero(np.frombuffer(data.encode("utf-32-le", "surrogatepass"),
                                          dtype=np.uint32) == 0x22)
    at = data.find(token)
    while at >= 0:
        if np.searchsorted(quotes, at) % 2 == 0:
            return at
        at = data.find(token, at + 1)
    return 0


def _line_column(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    return f"line {line} column {offset - (text.rfind(chr(10), 0, offset) + 1) + 1}"


_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _replace_surrogates(value: Any) -> tuple[Any, int]:
    """``value`` with unpaired surrogates in strings and keys replaced by U+FFFD, and how
    many (recursive: nesting was bounded before parsing)."""
    if isinstance(value, str):
        return _LONE_SURROGATE.subn("\ufffd", value)
    total = 0
    if isinstance(value, list):
        items = []
        for item in value:
            fixed, count = _replace_surrogates(item)
            items.append(fixed)
            total += count
        return items, total
    if isinstance(value, dict):
        members = {}
        for key, item in value.items():
            fixed_key, key_count = _replace_surrogates(key)
            members[fixed_key], count = _replace_surrogates(item)
            total += key_count + count
        return members, total
    return value, 0


def unwrap_fence(text: str) -> str:
    """The body of a markdown code fence around the whole ``text``, else ``text``."""
    fenced = FENCE.fullmatch(text)
    return fenced.group("body") if fenced else text


def parse_json(data: bytes | str, source: str, *, max_depth: int = MAX_DEPTH) -> Parsed:
    """Read one JSON value from a file's bytes (or text) under the reader's rules.

    The rules, the same for every entry point (docs/SCORING.md, "Reading files"):
    UTF-8, or UTF-16/32 with a byte-order mark (warned); nesting deeper than
    ``max_depth`` levels refused before parsing; ``NaN``/``Infinity`` tokens and numbers
    that overflow a double refused (RFC 8259); integers over Python's int-string limit
    refused; floats kept with their written form (:class:`JSONNumber`); duplicate keys:
    the last wins (warned); unpaired surrogate escapes replaced by U+FFFD (warned).

    Returns a :class:`Parsed`; raises InputError(source, position, reason) otherwise.
    """
    warnings: list[str] = []
    text = decode_bytes(bytes(data), source, warnings) if not isinstance(data, str) else data
    if text.startswith("\ufeff"):
        text = text[1:]
        warnings.append(f"{source}: a byte-order mark (U+FEFF) starts the text; ignored")
    if not text.strip():
        raise InputError(source, "", "is empty, expected a JSON value")
    deep = _deepest(text.encode("utf-8", "surrogatepass"), max_depth)
    if deep >= 0:
        offset = len(text.encode("utf-8", "surrogatepass")[:deep].decode("utf-8",
                                                                        "surrogatepass"))
        raise InputError(source, _line_column(text, offset),
                         f"nesting deeper than {max_depth} levels")
    duplicates: list[str] = []

    def members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(pairs)
        if len(obj) != len(pairs):
            seen: set[str] = set()
            duplicates.extend(k for k, _ in pairs if k in seen or seen.add(k))
        return obj

    written: list[JSONNumber] = []  # counted, so a digest can be made in C without them

    def read_float(token: str) -> float:
        number = _read_float(token)
        if number.__class__ is JSONNumber:
            written.append(number)
        return number

    try:
        value = json.loads(text, object_pairs_hook=members, parse_constant=_refuse_constant,
                           parse_float=read_float)
    except json.JSONDecodeError as exc:
        raise InputError(source, _line_column(text, exc.pos), exc.msg) from None
    except _Refused as refused:
        offset = _outside_strings(text, refused.token)
        raise InputError(source, _line_column(text, offset), refused.reason) from None
    except ValueError:  # Python's int-string limit, from the C scanner
        limit = sys.get_int_max_str_digits()
        found = re.search(rf"\d{{{limit + 1},}}", text.replace('\\"', "__"))
        at = _outside_strings(text, found.group()) if found else 0
        digits = len(found.group()) if found else 0
        raise InputError(source, _line_column(text, at), f"integer with {digits:,} digits "
                         f"exceeds the limit of {limit:,}") from None
    except RecursionError:  # defensive: the depth was checked first
        raise InputError(source, "", "nesting too deep to parse") from None
    warnings += [f"{source}: duplicate key {key!r} in an object; the last value is kept"
                 for key in dict.fromkeys(duplicates)]
    if "\\u" in text and _SURROGATE_ESCAPE.search(text):
        value, replaced = _replace_surrogates(value)
        if replaced:
            warnings.append(f"{source}: {replaced} unpaired surrogate escape(s) such as "
                            "\\ud800 replaced by U+FFFD")
    return Parsed(value, tuple(warnings), len(written))


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def read_file_bytes(path: str | os.PathLike[str], *, source: str | None = None,
                    max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a file the reader may read. ``source`` names it in errors (default:
    the path as given). Raises InputError for a missing file, a folder or other
    non-regular file, or a file over ``max_bytes`` (refused before it is read)."""
    name = os.fspath(path)
    source = name if source is None else source
    try:
        # Opened first, without waiting (a FIFO would wait for a writer), then looked at
        # by fstat and read by os.read: one path lookup and no buffered file object, a
        # third of the time of reading 10,000 small files. A path that cannot be opened
        # is looked at by stat, so a socket or a folder is named as such everywhere.
        try:
            fd = os.open(name, _OPEN_FLAGS)
        except FileNotFoundError:
            raise
        except OSError:
            _check_file(os.stat(name), source, max_bytes)
            raise
        try:
            info = os.fstat(fd)
            _check_file(info, source, max_bytes)
            # Ask for the size found, not the limit: a read of max_bytes + 1 allocates
            # that much (64 MiB) for every file, 50 GB of address space and 280 MB of
            # page tables over the 140,000 files of a 100,000-pair corpus.
            data = _read_up_to(fd, info.st_size + 1)
            if len(data) > info.st_size:  # grew after fstat: read on, up to the limit
                data += _read_up_to(fd, max_bytes + 1 - len(data))
        finally:
            os.close(fd)
    except FileNotFoundError:
        raise InputError(source, "", "no such file") from None
    except OSError as exc:
        raise InputError(source, "", f"cannot read: {exc.strerror or exc}") from None
    if len(data) > max_bytes:  # grew after fstat
        raise InputError(source, "", _too_large(len(data), max_bytes))
    return data


_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


def _check_file(info: os.stat_result, source: str, max_bytes: int) -> None:
    """Raise InputError unless ``info`` is a regular file of at most ``max_bytes``."""
    if stat.S_ISDIR(info.st_mode):
        raise InputError(source, "", "is a directory, expected a JSON file")
    if not stat.S_ISREG(info.st_mode):
        raise InputError(source, "", "is not a regular file, expected a JSON file")
    if info.st_size > max_bytes:
        raise InputError(source, "", _too_large(info.st_size, max_bytes))


def _read_up_to(fd: int, want: int) -> bytes:
    """Up to ``want`` bytes from ``fd``, fewer only at the end of the file."""
    chunks, got = [], 0
    while got < want:
        chunk = os.read(fd, want - got)
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def read_json_file(path: str | os.PathLike[str], *, source: str | None = None,
                   max_bytes: int = MAX_FILE_BYTES) -> Parsed:
    """Read a JSON file (a label, schema or result): :func:`read_file_bytes`, then
    :func:`parse_json`. Raises InputError as they do, naming ``source`` (default: the
    path as given) and the place."""
    source = os.fspath(path) if source is None else source
    return parse_json(read_file_bytes(path, source=source, max_bytes=max_bytes), source)


def _too_large(size: int, limit: int) -> str:
    return (f"file is {size:,} bytes, larger than the limit of {limit:,} bytes "
            f"({limit / 2**20:g} MiB)")


def read_outcome(path: Path, schema: Any, record: ScoringVersion,
                 root: Path | None = None) -> Outcome:
    """What a result file becomes under a version: absent -> ``missing``; unreadable
    (refused by :func:`read_json_file`, or a symlink leading outside ``root``) -> the
    envelope rule applied to :data:`UNREADABLE`; else the envelope rule on its value.
    The outcome's note names the reason; never raises for a bad result file."""
    if not path.exists() and not path.is_symlink():
        return Outcome("missing", {}, f"missing: {record.missing_rule}")
    try:
        if root is not None and not path.resolve().is_relative_to(root.resolve()):
            raise InputError(str(path), "", "symlink leads outside the benchmark folder")
        value = read_json_file(path).value
    except InputError as exc:
        outcome = record.envelope(UNREADABLE, schema)
        return dataclasses.replace(outcome, note=f"{exc.pointer + ': ' if exc.pointer else ''}"
                                   f"{exc.reason}: {outcome.note}")
    return record.envelope(value, schema)


def json_text(value: Any) -> bytes:
    """Compact JSON bytes of a parsed value in its own key order, numbers in their
    written form: equal bytes, equal value and order. Raises TypeError for non-JSON."""
    out: list[str] = []
    _canonical(value, out, sort=False)
    return "".join(out).encode("utf-8", "surrogatepass")


def canonical_json(value: Any) -> bytes:
    """The canonical bytes of a parsed JSON value: sorted keys, no spaces, UTF-8, numbers
    in their written form (:class:`JSONNumber`), so line endings, indentation and key
    order leave it unchanged and any change of content changes it. For data digests."""
    out: list[str] = []
    _canonical(value, out)
    return "".join(out).encode("utf-8", "surrogatepass")


def _canonical(node: Any, out: list[str], sort: bool = True) -> None:
    # Recursive: every value passed here was read with bounded nesting. Strings go through
    # the json module's own C escaper (what json.dumps uses), the commonest scalars by
    # type, the rest through json.dumps itself: the bytes are json.dumps' bytes.
    kind = node.__class__
    if kind is str:
        out.append(_escape(node))
    elif isinstance(node, dict):
        out.append("{")
        comma = ""
        for key in (sorted(node) if sort else node):
            out.append(f"{comma}{_escape(key) if key.__class__ is str else _scalar(key)}:")
            comma = ","
            _canonical(node[key], out, sort)
        out.append("}")
    elif isinstance(node, list | tuple):
        out.append("[")
        comma = False
        for item in node:
            if comma:
                out.append(",")
            comma = True
            _canonical(item, out, sort)
        out.append("]")
    elif kind is JSONNumber:
        out.append(node.text)
    elif kind is int:
        out.append(int.__repr__(node))
    elif kind is bool or node is None:
        out.append(_LITERALS[node])
    elif kind is float and math.isfinite(node):
        out.append(float.__repr__(node))  # what json.dumps writes for a finite float
    else:
        out.append(_scalar(node))


_escape = json.encoder.encode_basestring  # json.dumps(text, ensure_ascii=False)
_LITERALS = {True: "true", False: "false", None: "null"}


def _scalar(node: Any) -> str:
    # allow_nan=False: NaN is not JSON, so it never reaches a key or digest
    return json.dumps(node, ensure_ascii=False, allow_nan=False)


# ----- benchmark.toml ------------------------------------------------------------------

CONFIG_NAME = "benchmark.toml"
#: The keys of ``benchmark.toml`` and their TOML types; any other key is an error.
CONFIG_KEYS: dict[str, type] = {
    "name": str, "version": str, "scoring_version": str, "metadata": str,
    "breakdowns": list, "options": dict, "display_names": dict,
}


def parse_config(text: str, source: str = CONFIG_NAME) -> dict[str, Any]:
    """The table of a ``benchmark.toml``, checked: the one config reader.

    Returns the TOML table with ``options`` resolved to an :class:`Options`. Raises
    InputError(source, key, reason) for invalid TOML, an unknown key (a misspelt
    ``scoring_verison`` is not silently ignored), a value of the wrong type, an unknown
    ``scoring_version``, or an invalid ``[options]`` value.
    """
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(source, "", f"invalid TOML: {exc}") from None
    for key, value in table.items():
        if key not in CONFIG_KEYS:
            known = ", ".join(sorted(CONFIG_KEYS))
            raise InputError(source, key, f"unknown key {key!r} (known keys: {known})")
        if not isinstance(value, CONFIG_KEYS[key]):
            raise InputError(source, key, f"must be a {CONFIG_KEYS[key].__name__}, "
                             f"got {value!r}")
    if not all(isinstance(b, str) for b in table.get("breakdowns", ())):
        raise InputError(source, "breakdowns", "must be a list of column names")
    if not all(isinstance(v, str) for v in table.get("display_names", {}).values()):
        raise InputError(source, "display_names", "values must be strings")
    if "scoring_version" in table:
        try:
            scoring_version(table["scoring_version"])
        except ValueError as exc:
            raise InputError(source, "scoring_version", str(exc)) from None
    try:
        table["options"] = Options.from_mapping(table.get("options"))
    except ValueError as exc:
        raise InputError(source, "options", str(exc)) from None
    return table


def read_config(root: Path) -> dict[str, Any]:
    """``ROOT/benchmark.toml`` read with :func:`parse_config`; ``{"options": Options()}``
    when there is none. Raises InputError as :func:`parse_config`, or for text that is
    not UTF-8."""
    path = Path(root) / CONFIG_NAME
    if not path.is_file():
        return {"options": Options()}
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(str(path), f"byte {exc.start}", "not UTF-8 text") from None
    except OSError as exc:
        raise InputError(str(path), "", f"cannot read: {exc.strerror or exc}") from None
    return parse_config(text, str(path))


# ----- a benchmark folder --------------------------------------------------------------
# `python scorer.py` is the minimal runner: one document, or a benchmark folder laid out
# as schemas/<id>.json, labels/<id>.json, results/<system>/<id>.json. The `leafscore`
# command (the package) adds validation, caching, workers, intervals and reports.

def is_hidden(name: str) -> bool:
    """Hidden entries (``.ipynb_checkpoints``, ``.git``, editor files) are tools'
    leftovers: skipped as systems, documents and results by every entry point."""
    return name.startswith(".")


def document_ids(folder: Path) -> list[str]:
    """Sorted ids of ``folder/<id>.json`` (hidden files skipped); InputError when the
    folder is missing."""
    if not folder.is_dir():
        raise InputError(f"{folder}/", "", "folder is missing (expected schemas/, labels/ "
                         "and results/<system>/)")
    return sorted(p.name[:-5] for p in folder.iterdir()
                  if p.name.endswith(".json") and not is_hidden(p.name))


def system_names(results: Path) -> list[str]:
    """Sorted names of the system folders under ``results`` (hidden ones skipped).

    Raises InputError when there is no system to score: every command treats an empty or
    missing ``results/`` the same way.
    """
    names = sorted(p.name for p in results.iterdir() if p.is_dir() and not is_hidden(p.name)) \
        if results.is_dir() else []
    if not names:
        raise InputError(f"{results}/", "", "no system folders to score "
                         "(expected results/<system>/<id>.json)")
    return names


def score_folder(root: Path, version: str, options: Options | None = None) -> dict[str, Any]:
    """Score every document of every system in a benchmark folder.

    Returns ``{"version": V, "systems": {system: {"score": float | None, "documents":
    {id: float | None}}}}``: documents are the label ids in sorted order; a system's
    score is the version's mean of its document scores (1.0: DocuBench's
    ``sum / len``); ``None`` marks what the version leaves out (1.0: a missing file).
    Warnings (one line per odd result file) go to stderr.

    Raises InputError for a missing folder, label or schema, or no system folders, and
    ScoringError where the version has no answer for a schema or label.
    """
    record = scoring_version(version)
    options = options or Options()
    ids = document_ids(root / "labels")
    systems = system_names(root / "results")
    docs = [(doc_id, str(root / "schemas" / f"{doc_id}.json"),
             read_json_file(root / "schemas" / f"{doc_id}.json").value,
             read_json_file(root / "labels" / f"{doc_id}.json").value)
            for doc_id in ids]
    out: dict[str, Any] = {"version": version, "systems": {}}
    for system in systems:
        values: dict[str, float | None] = {}
        for doc_id, schema_file, schema, label in docs:
            path = root / "results" / system / f"{doc_id}.json"
            outcome = read_outcome(path, schema, record, root)
            if outcome.note:
                print(f"scorer.py: warning: {path}: {outcome.note}", file=sys.stderr)
            doc = record.score_outcome(outcome, schema, label, options, schema_file)
            values[doc_id] = None if doc is None else doc.value
        scored = [v for v in values.values() if v is not None]
        out["systems"][system] = {"score": record.mean(scored) if scored else None,
                                  "documents": values}
    return out


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.2f}"


def _fraction(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"


def render_folder(scores: dict[str, Any], fmt: str) -> str:
    """Render ``score_folder`` output: ``json`` (fractions in [0, 1]), ``table`` (a
    documents x systems matrix of fractions) or ``md`` (a ranked leaderboard in %)."""
    from tabulate import tabulate

    systems = scores["systems"]
    if fmt == "json":
        return json.dumps(scores, indent=2)
    header = f"leafscore scoring version {scores['version']}"
    if fmt == "md":
        ranked = sorted(systems.items(), key=lambda kv: (kv[1]["score"] is None,
                                                         -(kv[1]["score"] or 0.0), kv[0]))
        rows = [(rank, name, _percent(entry["score"]))
                for rank, (name, entry) in enumerate(ranked, start=1)]
        table = tabulate(rows, headers=["rank", "system", "score (%)"], tablefmt="github",
                         disable_numparse=True)
        return f"{table}\n\n_{header}; score = macro average of document scores._"
    names = list(systems)
    ids = list(next(iter(systems.values()))["documents"]) if systems else []
    rows = [[doc_id, *(_fraction(systems[s]["documents"][doc_id]) for s in names)]
            for doc_id in ids]
    rows.append(["score (macro)", *(_fraction(systems[s]["score"]) for s in names)])
    return f"{header}\n" + tabulate(rows, headers=["document", *names], tablefmt="simple",
                                    disable_numparse=True)


def _score_one(paths: list[str], version: str, details: bool, fmt: str) -> str:
    """One document's score as JSON (``details``: with every verdict; a table with
    ``--format table``). ``details`` needs verdicts, which version 1.0 does not have."""
    result_path, schema_path, label_path = (Path(p) for p in paths)
    record = scoring_version(version)
    if details and not record.has_verdicts:
        raise InputError("--details", "", f"version {version} has no verdicts; "
                         "use --version 2.0")
    schema = read_json_file(schema_path).value
    label = read_json_file(label_path).value
    outcome = read_outcome(result_path, schema, record)
    if outcome.status == "missing":
        raise InputError(str(result_path), "", "result file is missing")
    if outcome.note:
        print(f"scorer.py: warning: {result_path}: {outcome.note}", file=sys.stderr)
    doc = record.score_outcome(outcome, schema, label, Options(), str(schema_path))
    if not details:
        return json.dumps(doc.to_dict(), indent=2, ensure_ascii=False)
    if fmt == "table":
        from tabulate import tabulate

        rows = [(v.address, json.dumps(v.label), json.dumps(v.result), v.kind)
                for v in doc.verdicts]
        return (f"leafscore scoring version {doc.version}: accuracy {doc.value:.6f}\n"
                + tabulate(rows, headers=["leaf", "label", "result", "verdict"],
                           disable_numparse=True))
    return json.dumps(doc.to_dict(verdicts=True), indent=2, ensure_ascii=False)


_USAGE = """python scorer.py [ROOT] [--version V] [--format table|json|md]
       python scorer.py RESULT.json SCHEMA.json LABEL.json [--version V] [--details]"""
_EPILOG = """formats: table = documents x systems, fractions in [0, 1]; json = the same as JSON;
md = a ranked leaderboard in percent. One document: its score as JSON (fractions).

example: python scorer.py . --format md"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2, no usage dump
        self.exit(2, f"scorer.py: {message}\n")


def main(argv: list[str] | None = None) -> int:
    """Command line of ``python scorer.py``; returns the exit code (0 ok, 2 bad input)."""
    parser = _Parser(prog="scorer.py", usage=_USAGE, epilog=_EPILOG,
                     formatter_class=argparse.RawDescriptionHelpFormatter,
                     description="Score extraction results against labels, leaf by leaf.")
    parser.add_argument("paths", nargs="*", help="ROOT (default .) or RESULT SCHEMA LABEL")
    parser.add_argument("--version", default=None,
                        help=f"scoring version, one of {', '.join(SCORING_VERSIONS)} (default: "
                             f"ROOT/benchmark.toml's pin, else {DEFAULT_VERSION})")
    parser.add_argument("--format", choices=("table", "json", "md"), default=None)
    parser.add_argument("--details", action="store_true",
                        help="one document: print every leaf's verdict (version 2.0)")
    args = parser.parse_args(argv)
    try:
        if args.version is not None:
            scoring_version(args.version)
    except ValueError as exc:
        parser.error(str(exc))
    try:
        if len(args.paths) == 3:
            version = args.version or DEFAULT_VERSION
            print(_score_one(args.paths, version, args.details, args.format or "json"))
        elif len(args.paths) <= 1:
            root = Path(args.paths[0] if args.paths else ".")
            if not root.is_dir():
                raise InputError(str(root), "", "no such benchmark folder")
            config = read_config(root)
            version = args.version or config.get("scoring_version") or DEFAULT_VERSION
            print(render_folder(score_folder(root, version, config["options"]),
                                args.format or "table"))
        else:
            parser.error("give ROOT, or RESULT SCHEMA LABEL")
    except InputError as exc:  # ScoringError included
        print(f"scorer.py: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `python scorer.py | head`: the reader left; not an error
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - swallow the final flush
    return 0


if __name__ == "__main__":
    sys.exit(main())
