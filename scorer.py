"""leafscore's scorer: the definition of every scoring version, in one file.

This file scores a system's JSON (the *result*) against a hand-verified *label* under a JSON
Schema, leaf by leaf, as ``shared/spec/scoring-{1.0,2.0,2.1}.md`` say, each rule in one place;
docs/SCORING.md maps each spec section to its function. ``leafscore._fast`` runs the same rules
faster; the tests hold both engines to the same verdicts. 1.0 is DocuBench 0.1.0, faults
included; 2.0 is frozen with its known fault; 2.1 is the default.

The model: the schema picks the scored leaves (``lines[].qty``); each leaf value is read once
into a canonical value of its comparison kind; array items are paired order-independently;
each leaf gets one verdict; a document scores the share of correct verdicts, a system the macro
average. ``python scorer.py [ROOT]`` scores a benchmark folder, ``python scorer.py RESULT
SCHEMA LABEL`` one document.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import math
import os
import re
import stat
import statistics
import sys
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import MAX_EMAX, MIN_EMIN, ROUND_HALF_EVEN, Decimal, localcontext
from functools import reduce
from pathlib import Path
from typing import Any, NamedTuple, NoReturn

import regex

# ===== 2. Vocabulary and types ============================================================

SCORING_VERSIONS: tuple[str, ...] = ("1.0", "2.0", "2.1")  #: versions defined here, oldest first
DEFAULT_VERSION = "2.1"  #: what ``score()`` uses when no version is given
#: Verdict kind -> its (tp, fp, fn) (spec 2.0 §4); ``correct_absence`` is reported, not scored.
VERDICT_KINDS: dict[str, tuple[int, int, int]] = {
    "correct": (1, 0, 0), "wrong_value": (0, 1, 1), "type_error": (0, 1, 1), "missing": (0, 0, 1),
    "hallucinated": (0, 1, 0), "extra_item": (0, 1, 0), "parse_failure": (0, 0, 1),
    "correct_absence": (0, 0, 0)}
#: The ``compare`` values an ``x-leafscore`` option may name (spec 2.0 §2).
COMPARE_MODES: tuple[str, ...] = ("exact", "text", "number", "date", "boolean", "fuzzy", "ignore")
#: Date formats tried after ISO 8601 when a field sets none (spec 2.0 §3), in order.
DEFAULT_DATE_FORMATS: tuple[str, ...] = (
    "%Y-%m-%d", "%m/%d/%Y", "%d.%m.%Y", "%B %d, %Y", "%b %d, %Y", "%d %B %Y", "%Y/%m/%d")


def json_pointer(path: Sequence[Any]) -> str:
    """RFC 6901 pointer of a key/index sequence: ``("a", 0, "b/c~")`` -> ``/a/0/b~1c~0``."""
    return "".join("/" + _token(str(p)) for p in path)


def _token(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


class InputError(ValueError):
    """Unusable input: ``file``, ``pointer`` (RFC 6901, TOML key, text position), ``reason``."""

    def __init__(self, file: str, pointer: str, reason: str) -> None:
        super().__init__(file, pointer, reason)
        self.file, self.pointer, self.reason = str(file), str(pointer), reason

    def __str__(self) -> str:  # schemas/a.json#/properties/x: ..., benchmark.toml:options: ...
        mark = "#" if self.pointer.startswith("/") else ":"
        place = f"{self.file}{mark}{self.pointer}" if self.pointer else self.file
        return f"{place}: {self.reason}" if place else self.reason


class ScoringError(InputError):
    """A schema or label the metric cannot score (``pointer`` into it); never for a result."""


class Verdict(NamedTuple):
    """One leaf address's verdict (2.x): ``lines[3].qty``, its field ``lines[].qty``, its kind,
    the raw values and what the comparison saw of each (None: empty or unreadable)."""
    address: str
    field: str
    kind: str
    label: Any
    result: Any
    label_canon: Any
    result_canon: Any


@dataclass(frozen=True)
class FieldCounts:
    """One field path's tp, fp, fn; precision, recall, f1 in [0, 1], None for 0/0 (spec 2.0 §4)."""
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
        return FieldCounts(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn)

    def to_dict(self) -> dict[str, Any]:
        """``{"tp", "fp", "fn", "precision", "recall", "f1"}``."""
        return {"tp": self.tp, "fp": self.fp, "fn": self.fn,
                "precision": self.precision, "recall": self.recall, "f1": self.f1}


@dataclass(frozen=True)
class DocScore:
    """A 2.x document score from its verdicts: ``value`` in [0, 1], ``counts``, ``fields``."""
    version: str
    value: float
    verdicts: Sequence[Verdict]
    counts: dict[str, int]
    fields: dict[str, FieldCounts]
    exact: bool = True

    @classmethod
    def from_verdicts(cls, verdicts: Sequence[Verdict], *, version: str = "2.0",
                      exact: bool = True) -> DocScore:
        """Counts, fields and accuracy summed from ``verdicts``: the one summation."""
        counts = dict.fromkeys(VERDICT_KINDS, 0)
        sums: dict[str, tuple[int, int, int]] = {}
        for verdict in verdicts:
            counts[verdict.kind] += 1
            if verdict.kind != "correct_absence":
                add, (tp, fp, fn) = VERDICT_KINDS[verdict.kind], sums.get(verdict.field, (0, 0, 0))
                sums[verdict.field] = (tp + add[0], fp + add[1], fn + add[2])
        fields = {path: FieldCounts(*sums[path]) for path in sorted(sums)}
        return cls(version, cls.accuracy_of(counts), tuple(verdicts), counts, fields, exact)

    @staticmethod
    def accuracy_of(counts: Mapping[str, int]) -> float:
        """Correct / all but ``correct_absence``, 1.0 for none: the one accuracy formula."""
        scored = sum(counts.values()) - counts["correct_absence"]
        return counts["correct"] / scored if scored else 1.0

    def to_dict(self, verdicts: bool = False) -> dict[str, Any]:
        """JSON: version, accuracy, counts, fields (+ verdicts when asked, exact when False)."""
        out: dict[str, Any] = {
            "version": self.version, "accuracy": self.value, "counts": dict(self.counts),
            "fields": {path: counts.to_dict() for path, counts in self.fields.items()}}
        if not self.exact:
            out["exact"] = False
        if verdicts:
            out["verdicts"] = [v._asdict() for v in self.verdicts]
        return out


def _option_number(name: str, value: Any, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"x-leafscore option {name!r} must be a number, not {value!r}")
    try:
        value = float(value)
    except OverflowError:
        raise ValueError(f"x-leafscore option {name!r} is too large for a float") from None
    if not (math.isfinite(value) and low <= value <= high):
        raise ValueError(f"x-leafscore option {name!r}={value!r} is outside [{low}, {high}]")
    return value


@dataclass(frozen=True)
class Options:
    """The ``x-leafscore`` options (spec 2.0 §2); ``rel_tol`` and ``threshold`` in [0, 1]."""
    compare: str | None = None
    abs_tol: float = 0.0
    rel_tol: float = 0.0
    threshold: float = 0.9
    decimal_separator: str = "."
    date_formats: tuple[str, ...] | None = None
    ordered: bool = False

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any] | None) -> Options:
        """Options from a mapping such as ``{"abs_tol": 0.01}``; ValueError as :meth:`merged`."""
        return cls().merged(mapping)

    def merged(self, mapping: Mapping[str, Any] | None) -> Options:
        """A copy with ``mapping``'s options set; ValueError for an unknown key or bad value."""
        if mapping is None:
            return self
        if not isinstance(mapping, Mapping):
            raise ValueError(f"x-leafscore must be an object, not {mapping!r}")
        known = {f.name for f in dataclasses.fields(self)}
        if unknown := sorted(set(mapping) - known):
            raise ValueError(f"unknown x-leafscore option(s) {', '.join(map(repr, unknown))}; "
                             f"known: {', '.join(sorted(known))}")
        changes: dict[str, Any] = {}
        for name, value in mapping.items():
            if name == "compare" and value is not None and value not in COMPARE_MODES:
                choices = ", ".join(map(repr, COMPARE_MODES))
                raise ValueError(f"compare={value!r} is not one of {choices}")
            if name in ("abs_tol", "rel_tol", "threshold"):
                value = _option_number(name, value, 0.0, math.inf if name == "abs_tol" else 1.0)
            elif name == "decimal_separator" and value not in (".", ","):
                raise ValueError(f"decimal_separator={value!r} is not one of '.', ','")
            elif name == "date_formats" and value is not None:
                if isinstance(value, str) or not isinstance(value, (list, tuple)) or not all(
                        isinstance(f, str) and f for f in value):
                    raise ValueError(f"date_formats={value!r} must be a list of strings")
                value = tuple(value)
            elif name == "ordered" and not isinstance(value, bool):
                raise ValueError(f"ordered={value!r} must be true or false")
            changes[name] = value
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Every option's resolved value, as JSON."""
        return {f.name: list(value) if isinstance(value := getattr(self, f.name), tuple)
                else value for f in dataclasses.fields(self)}

    @property
    def tolerant(self) -> bool:
        """Whether numbers compare within a tolerance (and so cannot be hashed)."""
        return self.abs_tol > 0 or self.rel_tol > 0


# ===== 3. Canonical values (spec 2.0 §3, §7 "Values") =====================================
# One function per comparison kind: a JSON scalar's canonical value, None if unreadable so.


def is_empty(value: Any) -> bool:
    """Whether ``value`` states nothing: None, blank text, a container of such (spec 2.0 §3)."""
    if isinstance(value, str):
        return not value.strip()
    if not isinstance(value, (dict, list, tuple)):  # a tuple of types: faster than a union
        return value is None
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if item.strip():
                return False
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif item is not None:
            return False
    return True


def plain_decimal(number: Decimal) -> str:
    """Shortest plain text of a finite Decimal: ``12.0`` -> ``"12"``, ``1.5E+99`` past 40 digits."""
    text = str(number)
    if len(text) <= 40 and "E" not in text:  # str wrote it plainly: drop trailing zeros
        text = text.rstrip("0").rstrip(".") if "." in text else text
        return "0" if text in ("0", "-0") else text
    sign, digits, exponent = number.as_tuple()
    digits = list(digits)
    while len(digits) > 1 and digits[-1] == 0:
        digits.pop()
        exponent += 1
    if digits == [0]:
        return "0"
    text, minus = "".join(map(str, digits)), "-" if sign else ""
    if -40 <= exponent <= 40 and len(digits) + exponent <= 60:
        point = len(text) + exponent
        if exponent >= 0:
            return minus + text + "0" * exponent
        return f"{minus}{text[:point]}.{text[point:]}" if point > 0 else \
            f"{minus}0.{'0' * -point}{text}"
    mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
    return f"{minus}{mantissa}E{len(digits) + exponent - 1:+d}"


def json_decimal(value: Any) -> Decimal | None:
    """A JSON number as an exact Decimal, a float by its written or shortest form (spec 2.0 §7)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(value.text if type(value) is JSONNumber else repr(value)) \
            if math.isfinite(value) else None
    if isinstance(value, Decimal) and value.is_finite():
        return value
    return None


# ----- text ----------------------------------------------------------------------------
_CF = regex.compile(r"[\p{Cf}\uFE00-\uFE0F\U000E0100-\U000E01EF]")  # format chars, VS
_DASH = regex.compile(r"[\p{Pd}\u2212]")
_FOLDS = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u201c": '"',
                        "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2044": "/", "\u2215": "/"})
_SPACE = regex.compile(r"[\s\p{Z}]+")
_SIGN = regex.compile(r"[+-](?=\p{Nd})")
_TEXT_DROP = regex.compile(r"(?!(?<=\p{Nd})[.,/:](?=\p{Nd}))[\p{P}\p{S}]")
_STREAM_SAFE_RUN = 30  # non-starters in a row, UAX #15 section 13
_DEGREE = str.maketrans({"\u00ba": "\u00b0", "\u02da": "\u00b0"})  # º and ˚ typed for °
_DOT_ABOVE = regex.compile(r"(?<=i)\u0307")  # İ casefolds to i + U+0307
_KEPT_SIGNS = regex.compile(r"((?<=[\p{L}\p{N}])[+#-]+(?=[\s\p{Z}]|$))")  # 2.1: "C++", "A-"


def _stream_safe(text: str) -> str:
    """UAX #15's Stream-Safe Format: U+034F after each 30 non-starters (NFKC is quadratic)."""
    if len(text) <= _STREAM_SAFE_RUN:
        return text
    marks = [c for c in set(text) if all(map(unicodedata.combining,
                                             unicodedata.normalize("NFKD", c)))]
    if not marks:
        return text
    run = re.compile(f"[{''.join(map(re.escape, marks))}]{{{_STREAM_SAFE_RUN + 1},}}")
    size = _STREAM_SAFE_RUN
    return run.sub(lambda m: "\u034f".join(m[0][k:k + size] for k in range(0, len(m[0]), size)),
                   text)


def text_fold(text: str, v21: bool = False) -> str:
    """Text canon steps 1-5 (spec 2.0 §7; ``v21``: 2.1 §2): strip, NFKC, casefold, folds."""
    if text.isascii():  # NFKC, the deletions and the folds leave ASCII as it is
        return text.strip().lower()
    if v21:
        text = text.translate(_DEGREE)
    text = unicodedata.normalize("NFKC", _stream_safe(text.strip())).casefold()
    if text.replace(" ", "").isalnum():  # no format mark, dot above, dash or fold to change
        return text.strip()
    if v21:
        text = _DOT_ABOVE.sub("", text)
    return _DASH.sub("-", _CF.sub("", text).translate(_FOLDS)).strip()


def canon_text(value: Any, v21: bool = False) -> str:
    """Canonical text of a scalar (spec 2.0 §3, §7 "Text canon"; ``v21``: 2.1 §2)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if not isinstance(value, str):
        number = json_decimal(value)
        return plain_decimal(number) if number is not None else str(value).casefold()
    folded = text_fold(value, v21)
    if (bare := folded.replace(" ", "")).isalnum():
        return bare  # letters, digits and spaces: no sign, nothing else to delete
    sign = _SIGN.match(folded)
    body = folded[1:] if sign else folded
    parts = _KEPT_SIGNS.split(body) if v21 else [body]  # 2.1's kept runs: odd places
    parts[::2] = [_TEXT_DROP.sub("", _SPACE.sub("", part)) for part in parts[::2]]
    canon = "".join(parts)
    return (folded[0] + canon if sign else canon) if canon else _SPACE.sub("", folded)


# ----- numbers -------------------------------------------------------------------------
_ISO_4217 = frozenset("""AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND
    BOB BRL BSD BTN BWP BYN BZD CAD CDF CHF CLP CNY COP CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP
    ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HRK HTG HUF IDR ILS INR IQD IRR
    ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD
    MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN
    PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD SSP STN SVC SYP SZL THB
    TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD UYU UZS VES VND VUV WST XAF XCD XOF XPF YER ZAR
    ZMW ZWL""".split())  # noqa: SIM905 - a list too long to quote
_GROUPING = frozenset(",. '_")  # NFKC has already made NBSP and thin spaces plain spaces
_EXPONENT = regex.compile(r"[+-]?[0-9]{1,9}")
_LETTERS_SC_FRONT = regex.compile(r"[A-Za-z]{1,3}\p{Sc}")
_LETTERS_SC_BACK = regex.compile(r"(?<![A-Za-z])[A-Za-z]{1,3}\p{Sc}$")
#: Local currency abbreviations read in 2.1 (spec 2.1 §3), longest first, in any case.
_LOCAL_CURRENCIES = ("kr.", "rs.", "fr.", "lei", "kr", "kč", "zł", "rs", "ft", "rm", "rp")
_MINUS_2_1 = regex.compile(r"[\u2010-\u2015\u2212]")  # after NFKC folded U+FE63, U+FF0D


def _currency_at(text: str, front: bool, v21: bool = False) -> int:
    """Length of a currency marker at the front or back of ``text``, 0 for none (2.1 §3)."""
    edge = text[:1] if front else text[-1:]
    if edge.isdigit():  # no marker starts or ends with a digit: most numbers end here
        return 0
    # A lettered symbol first: the bare ``$`` of a trailing "R$" would leave its letters.
    if v21 and (found := (_LETTERS_SC_FRONT.match(text) if front else
                          _LETTERS_SC_BACK.search(text))):
        return len(found[0])
    if edge and unicodedata.category(edge) == "Sc":
        return 1
    code, beside = (text[:3], text[3:4]) if front else (text[-3:], text[-4:-3])
    if code.upper() in _ISO_4217 and not beside.isalpha():
        return 3
    low = text.lower()
    for mark in _LOCAL_CURRENCIES if v21 else ():
        at, beside = (low[:len(mark)], low[len(mark):len(mark) + 1]) if front else (
            low[-len(mark):], low[-len(mark) - 1:-len(mark)])
        if at == mark and not beside.isalpha():
            return len(mark)
    return 0


def _peel(text: str, currency_at: Callable[[str, bool], int]) -> tuple[str, bool] | None:
    """(bare numeral, negative): sign, currency, parentheses and ``%`` peeled, each once."""
    signs = currencies = opened = closed = percents = 0
    negative = False
    while text:
        size = currency_at(text, True)
        if text[0] in "+-":
            signs, negative, text = signs + 1, negative or text[0] == "-", text[1:]
        elif text[0] == "(":
            opened, text = opened + 1, text[1:]
        elif size:
            currencies, text = currencies + 1, text[size:]
        else:
            break
        if signs + opened > 1 or currencies > 1:
            return None
        text = text.lstrip()
    while text:
        size = currency_at(text, False)
        if text[-1] in "-)%":
            signs, closed, percents = (signs + (text[-1] == "-"), closed + (text[-1] == ")"),
                                       percents + (text[-1] == "%"))
            negative, text = negative or text[-1] == "-", text[:-1]
        elif size:
            currencies, text = currencies + 1, text[:-size]
        else:
            break
        if signs + closed > 1 or currencies > 1 or percents > 1:
            return None
        text = text.rstrip()
    return (text, negative or opened == 1) if opened == closed and signs + opened <= 1 else None


def _grouped(whole: str, mark: str) -> str | None:
    """The digits of an integer part grouped by ``mark`` in 3s (Indian: 2s before the last 3)."""
    groups = whole.split(mark)
    first, middle, last = groups[0], groups[1:-1], groups[-1]
    sizes = {len(g) for g in middle}
    if not first or first[0] == "0" or len(last) != 3 or len(first) > 3 or not (
            sizes <= {3} or (len(first) <= 2 and sizes <= {2})):
        return None
    return "".join(groups)


def _numeral(numeral: str, separator: str, bare_fraction: bool) -> Decimal | None:
    """The exact value of a bare numeral, or None; ``bare_fraction``: ``".5"`` always reads."""
    mantissa, e, exponent = numeral.replace("E", "e").partition("e")
    marks = [ch for ch in mantissa if not "0" <= ch <= "9"]
    kinds = set(marks)
    if (e and not _EXPONENT.fullmatch(exponent)) or not kinds <= _GROUPING or \
            len(marks) == len(mantissa):
        return None  # a bad exponent, a foreign character, or no digit at all
    decimal = None
    if e:  # the mantissa of exponent notation is never grouped: its one mark is decimal
        if len(marks) > 1 or not kinds <= {".", ","}:
            return None
        decimal = marks[0] if marks else None
    elif "." in kinds and "," in kinds:  # both: the last is the decimal mark
        decimal = "." if mantissa.rfind(".") > mantissa.rfind(",") else ","
    elif marks.count(separator) == 1 or (bare_fraction and marks == ["."] and
                                         mantissa.startswith(".")):
        decimal = marks[0] if marks.count(separator) != 1 else separator
    whole, fraction = mantissa, ""
    if decimal is not None:
        whole, _, fraction = mantissa.partition(decimal)
        if marks.count(decimal) != 1 or (not fraction and decimal != separator):
            return None  # "7." reads 7 only where its mark is the field's separator
        kinds.discard(decimal)
    if len(kinds) > 1 or (fraction and not fraction.isdigit()) or not (whole or fraction):
        return None
    if kinds and (whole := _grouped(whole, kinds.pop())) is None:
        return None
    return Decimal(f"{whole or '0'}.{fraction or '0'}e{exponent or 0}")


def _six_places(number: Decimal) -> Decimal:
    if number.as_tuple().exponent >= -6:
        return number
    with localcontext() as context:
        context.prec, context.rounding = max(28, number.adjusted() + 8), ROUND_HALF_EVEN
        return number.quantize(Decimal("0.000001"))


def canon_number(value: Any, decimal_separator: str = ".", v21: bool = False) -> Decimal | None:
    """A number's exact Decimal at 6 places, or None (spec 2.0 §3, §7; ``v21``: 2.1 §3)."""
    if not isinstance(value, str):
        number = json_decimal(value)
        return None if number is None else _six_places(number)
    text = unicodedata.normalize("NFKC", value)
    text = _MINUS_2_1.sub("-", _CF.sub("", text)) if v21 else _DASH.sub("-", text)
    peeled = _peel(text.strip(), lambda t, front: _currency_at(t, front, v21))
    number = None if peeled is None else _numeral(peeled[0], decimal_separator, not v21)
    if number is None:
        return None
    return _six_places(number.copy_negate() if peeled[1] else number)


def numbers_equal(a: Decimal, b: Decimal, options: Options) -> bool:
    """``|a - b| <= max(abs_tol, rel_tol * max(|a|, |b|))``, exactly (spec 2.0 §7)."""
    if a == b or not options.tolerant:
        return a == b
    with localcontext() as context:  # wide exponents: any readable number, no overflow
        context.prec, context.Emax, context.Emin = 60, MAX_EMAX, MIN_EMIN
        limit = max(Decimal(repr(options.abs_tol)),
                    Decimal(repr(options.rel_tol)) * max(abs(a), abs(b)))
        return abs(a - b) <= limit


# ----- booleans, dates, exact JSON, fuzzy ----------------------------------------------
def canon_boolean(value: Any) -> bool | None:
    """``true``/``false``, as JSON or as text in any case; None for anything else (``1`` too)."""
    if isinstance(value, bool):
        return value
    return {"true": True, "false": False}.get(value.strip().casefold()) \
        if isinstance(value, str) else None


_ISO_DATE = regex.compile(
    r"(\d{4})-(\d{2})-(\d{2})(?:[t ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?"
    r"\s*(?:z|[+-]\d{2}(?::?\d{2})?)?", regex.IGNORECASE)
_ISO_MONTH = regex.compile(r"(\d{4})-(\d{2})")
_ORDINAL = regex.compile(r"(?<=\d)(?:st|nd|rd|th)\b", regex.IGNORECASE)
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december")
_MONTH = regex.compile(r"\b(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?"
                       r"|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?"
                       r"|dec(?:ember)?)\b\.?", regex.IGNORECASE)


def _iso(moment: datetime) -> str:
    """``YYYY-MM-DD`` at midnight, else ``YYYY-MM-DDTHH:MM:SS`` (+ ``.ffffff`` if any)."""
    if moment.time() == datetime.min.time():
        return moment.date().isoformat()
    return moment.isoformat(timespec="microseconds" if moment.microsecond else "seconds")


def _spelled(text: str) -> str:
    """A date text with English month names in full and no ordinal suffix (spec 2.1 §4)."""
    return _ORDINAL.sub("", _MONTH.sub(
        lambda m: next(name for name in _MONTHS if name.startswith(m[1][:3].lower())), text))


def canon_date(value: Any, formats: Sequence[str] | None = None, v21: bool = False) -> str | None:
    """A date's ISO form, or None: ISO 8601, else ``formats`` (spec 2.0 §3, §7; ``v21``: 2.1 §4)."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    if match := _ISO_DATE.fullmatch(text):
        year, month, day, hour, minute, second, fraction = match.groups()
        try:
            return _iso(datetime(int(year), int(month), int(day), int(hour or 0), int(minute or 0),
                                 int(second or 0), int((fraction or "0")[:6].ljust(6, "0"))))
        except ValueError:
            return None
    if v21 and (match := _ISO_MONTH.fullmatch(text)):
        return text if 1 <= int(match[2]) <= 12 else None
    texts = dict.fromkeys((text, _spelled(text)) if v21 else (text,))
    for fmt in DEFAULT_DATE_FORMATS if formats is None else formats:
        for candidate in texts:
            try:
                moment = datetime.strptime(candidate, fmt)
            except ValueError:
                continue
            if not v21 or "%d" in fmt or "%j" in fmt:
                return _iso(moment)
            return f"{moment.year:04d}-{moment.month:02d}" if any(
                m in fmt for m in ("%m", "%b", "%B")) else f"{moment.year:04d}"
    return None


def canon_exact(value: Any) -> str:
    """Canonical JSON of any value (spec 2.0 §3, §7): ``1.0`` is ``1``, keys sorted; any depth."""
    out: list[str] = []
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, _Raw):
            out.append(item)
        elif item is None or isinstance(item, (bool, str)):
            out.append(json.dumps(item, ensure_ascii=False))
        elif isinstance(item, (dict, list, tuple)):
            keys = sorted(item, key=str) if isinstance(item, dict) else range(len(item))
            parts: list[Any] = [_Raw("{" if isinstance(item, dict) else "[")]
            for position, key in enumerate(keys):
                name = json.dumps(str(key), ensure_ascii=False) + ":" \
                    if isinstance(item, dict) else ""
                parts += [_Raw(("," if position else "") + name), item[key]]
            stack.extend(reversed([*parts, _Raw("}" if isinstance(item, dict) else "]")]))
        else:
            number = json_decimal(item)
            out.append(plain_decimal(number) if number is not None else repr(item))
    return "".join(out)


class _Raw(str):
    """Output text on :func:`canon_exact`'s stack, not a value to encode."""
    __slots__ = ()


def fuzzy_similarity(a: str, b: str) -> float:
    """rapidfuzz's normalized Indel similarity of two canonical texts, in [0, 1]."""
    from rapidfuzz.distance import Indel  # loaded with the first fuzzy leaf
    return Indel.normalized_similarity(a, b)


# ===== 4. Schema walk (spec 2.0 §2, §7 "Schema") ==========================================
# The schema compiles into a tree of nodes; $ref through `referencing`, the rest flattened.

@dataclass(frozen=True, slots=True)
class Leaf:
    """A scored scalar: ``compare`` a comparison kind or ``"mix"`` (by JSON kind); ``dated``."""
    compare: str
    options: Options
    dated: bool = False


@dataclass(eq=False, slots=True)
class ObjectNode:
    """An object: ``properties``, or an open map (None) of ``values``; 2.1 ``patterns``."""
    properties: dict[str, Any] | None
    values: Any = None
    patterns: tuple[tuple[re.Pattern[str], Any], ...] = ()


@dataclass(eq=False, slots=True)
class ArrayNode:
    """An array whose items follow ``items``; ``ordered`` pairs them by position."""
    items: Any
    ordered: bool = False


IGNORED: Any = type("Ignored", (), {"__slots__": (), "__repr__": lambda self: "IGNORED"})()
_MAX_SCHEMA_DEPTH = 200
_STRUCTURE = ("$ref", "allOf", "anyOf", "oneOf")


def _types(schema: Mapping[str, Any]) -> list[str] | None:
    if (declared := schema.get("type")) is None:
        return None
    return [t for t in ([declared] if isinstance(declared, str) else declared) if t != "null"]


@dataclass(frozen=True, slots=True)
class _Flat:
    """A node resolved into ``keywords``; ``mix``: a mixed leaf's strings are dates (no key)."""
    keywords: dict[str, Any]
    mix: bool | None = None

    def over(self, top: _Flat) -> _Flat:
        """``self`` overlaid by ``top``; ``properties`` and ``x-leafscore`` merge (``top`` wins)."""
        if not top.keywords and top.mix is None:
            return self
        out = dict(self.keywords)
        for key, value in top.keywords.items():
            if key in ("properties", "x-leafscore") and isinstance(value, Mapping):
                before = out.get(key)
                value = {**(before if isinstance(before, Mapping) else {}), **value}
            out[key] = value
        return _Flat(out, top.mix if top.mix is not None else self.mix)


class _Compiler:
    """Compiles one schema; a ``$ref`` back to a node being built reuses it (recursion)."""

    def __init__(self, schema: Any, file: str, defaults: Options, v21: bool = False) -> None:
        self.file, self.defaults, self.schema, self.v21 = file, defaults, schema, v21
        self.built: dict[tuple[int, Options], tuple[_Flat, Any]] = {}  # keeps ids alive
        self.resolved: dict[int, tuple[Any, _Flat]] = {}
        self.resolver: Any = None

    def error(self, pointer: str, reason: str) -> ScoringError:
        return ScoringError(self.file, pointer, reason)

    def lookup(self, ref: str, where: str) -> Any:
        """The target of a local ``$ref`` by ``referencing``, over this schema alone."""
        from referencing import Registry
        from referencing.exceptions import Unresolvable
        from referencing.jsonschema import DRAFT202012
        if self.resolver is None:  # an empty registry: nothing is ever fetched
            resource = DRAFT202012.create_resource(
                self.schema if isinstance(self.schema, dict) else {})
            self.resolver = Registry().with_resource("urn:leafscore:schema", resource) \
                .resolver(base_uri="urn:leafscore:schema")
        try:
            return self.resolver.lookup(ref).contents
        except (Unresolvable, LookupError, AttributeError, TypeError):
            # referencing raises the last three when the path crosses a non-schema; the
            # message names the reference and its target, never the schema's content
            target = ref.partition("#")[2]
            why = (f"nothing at {target!r} in this schema" if ref.startswith("#")
                   else "only references inside this schema are resolved")
            raise self.error(where, f"$ref {ref!r} cannot be resolved ({why})") from None

    def flatten(self, schema: Any, pointer: str, refs: tuple[str, ...] = ()) -> _Flat:
        """``schema`` resolved into plain keywords (spec 2.0 §2, §7); raises ScoringError."""
        if isinstance(schema, bool):
            return _Flat({} if schema else {"x-leafscore": {"compare": "ignore"}})
        if not isinstance(schema, dict):
            raise self.error(pointer, f"a schema must be an object or a boolean, not {schema!r}")
        if id(schema) in self.resolved:  # a node resolves alike whichever $ref reached it
            return self.resolved[id(schema)][1]
        if len(refs) > _MAX_SCHEMA_DEPTH:
            raise self.error(pointer, "schema nests $ref too deeply")
        for key in schema:
            if isinstance(key, str) and key.startswith("x-leafscore") and key != "x-leafscore":
                raise self.error(f"{pointer}/{_token(key)}", f"{key!r} is not a schema "
                                 "keyword; only 'x-leafscore' configures scoring")
        out = _Flat({})
        if "$ref" in schema:
            ref, where = schema["$ref"], f"{pointer}/$ref"
            if not isinstance(ref, str):
                raise self.error(where, f"$ref must be a string, not {ref!r}")
            if ref in refs:
                raise self.error(where, f"$ref {ref!r} refers to itself without structure")
            out = self.flatten(self.lookup(ref, where), ref.lstrip("#") or "/", (*refs, ref))
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
        if declared is not None and not all(isinstance(t, str) for t in (
                declared if isinstance(declared, list) else [declared])):
            raise self.error(f"{pointer}/type", "type must be a string or a list of strings, "
                             f"not {declared!r}")
        self.resolved[id(schema)] = (schema, out)
        return out

    def choose(self, branches: Any, pointer: str, refs: tuple[str, ...]) -> _Flat:
        """An ``anyOf``/``oneOf`` as one schema: nulls dropped, objects merged, else a mix."""
        if not isinstance(branches, list) or not branches:
            raise self.error(pointer, "anyOf/oneOf must be a non-empty list")
        kept_branches = [b for b in (self.flatten(b, f"{pointer}/{i}", refs)
                                     for i, b in enumerate(branches))
                         if not (_types(b.keywords) == [] or b.keywords.get("enum") == [None]
                                 or b.keywords.get("const", 0) is None)]
        if not kept_branches:
            return _Flat({"type": "null"})
        if len(kept_branches) == 1:
            return kept_branches[0]
        if all(b.mix is None and (_types(b.keywords) == ["object"] or (
                _types(b.keywords) is None and "properties" in b.keywords))
               for b in kept_branches):
            return reduce(_Flat.over, kept_branches, _Flat({}))
        dated = any(b.keywords.get("format") in ("date", "date-time") or b.mix
                    for b in kept_branches)
        return _Flat({"type": ["string", "number"]}, mix=dated)

    def compile(self, schema: Any, pointer: str, inherited: Options, depth: int = 0) -> Any:
        if depth > _MAX_SCHEMA_DEPTH:
            raise self.error(pointer, f"schema nests deeper than {_MAX_SCHEMA_DEPTH} levels")
        resolved = self.flatten(schema, pointer)
        own = resolved.keywords.get("x-leafscore")
        if "x-leafscore" in resolved.keywords and not isinstance(own, Mapping):
            raise self.error(f"{pointer}/x-leafscore",
                             f"x-leafscore must be an object, not {json.dumps(own)}")
        try:
            options = inherited.merged(own)
        except ValueError as exc:
            raise self.error(f"{pointer}/x-leafscore", str(exc)) from None
        if self.v21 and options.threshold == 0 and ((own and "threshold" in own) or not pointer):
            raise self.error(f"{pointer}/x-leafscore" if own else pointer, "threshold=0.0 is "
                             "outside (0, 1]: every text would be similar (spec 2.1 §5)")
        key = (id(resolved), options)
        if key not in self.built:
            self.node(resolved, pointer, options, depth, key)
        return self.built[key][1]

    def node(self, resolved: _Flat, pointer: str, options: Options, depth: int,
             key: tuple[int, Options]) -> Any:
        """The node of a resolved schema; a container is registered before its children."""
        flat = resolved.keywords
        types = _types(flat)
        kind = types[0] if types else None
        if options.compare == "ignore":
            node: Any = IGNORED
        elif resolved.mix is not None or (types is not None and len(types) > 1):
            node = Leaf(options.compare or "mix", options, bool(resolved.mix))
        elif kind == "object" or (kind is None and "properties" in flat):
            node = ObjectNode(None)
            self.built[key] = (resolved, node)
            properties, extra = flat.get("properties"), flat.get("additionalProperties")
            patterns = flat.get("patternProperties") if self.v21 else None
            for text, sub in patterns.items() if isinstance(patterns, Mapping) else ():
                where = f"{pointer}/patternProperties/{_token(text)}"  # spec 2.1 §5
                try:  # searched, not anchored, by Python's `re`, as python-jsonschema does
                    compiled = re.compile(text)
                except (re.error, TypeError) as exc:
                    raise self.error(where, f"pattern {text!r} does not compile ({exc})") from None
                node.patterns += ((compiled, self.compile(sub, where, options, depth + 1)),)
            if isinstance(properties, Mapping):
                node.properties = {name: self.compile(sub, f"{pointer}/properties/{_token(name)}",
                                                      options, depth + 1)
                                   for name, sub in properties.items()}
            else:
                node.values = self.compile(extra if isinstance(extra, dict) else True,
                                           f"{pointer}/additionalProperties", options, depth + 1)
        elif kind == "array" or (kind is None and "items" in flat):
            node = ArrayNode(None, options.ordered)
            self.built[key] = (resolved, node)
            items = flat.get("items")
            node.items = self.compile(items if isinstance(items, (dict, bool)) else True,
                                      f"{pointer}/items", options, depth + 1)
        else:
            node = Leaf(options.compare or self.leaf_compare(flat, kind, pointer), options)
        self.built[key] = (resolved, node)
        return node

    def leaf_compare(self, flat: Mapping[str, Any], kind: str | None, pointer: str) -> str:
        """A scalar's comparator by type; without one, a string enum text, other enums exact."""
        if kind == "string":
            return "date" if flat.get("format") in ("date", "date-time") else "text"
        if kind in ("number", "integer", "boolean"):
            return "boolean" if kind == "boolean" else "number"
        if kind in (None, "null"):
            choices = flat.get("enum", [flat["const"]] if "const" in flat else None)
            if isinstance(choices, list) and choices:
                return "text" if all(isinstance(c, str) for c in choices) else "exact"
            return "mix"
        raise self.error(f"{pointer}/type", f"unknown type {kind!r}")


def compile_schema(schema: Any, *, options: Options | None = None, file: str = "",
                   v21: bool = False) -> Any:
    """The root node of ``schema`` (``v21``: spec 2.1 §5); ScoringError for an unusable one."""
    compiler = _Compiler(schema, file, options or Options(), v21)
    return compiler.compile(schema, "", compiler.defaults)


# ===== 5. One leaf (spec 2.0 §3, §4, §7 "Values") =========================================
# A leaf is compared under a *tag*, the comparison kind its label value is read with.

@dataclass(frozen=True)
class Comparator:
    """A comparison kind: ``canon`` (None: unreadable), ``similar`` (an equality looser than
    equal keys: a tolerance, fuzzy similarity; None: none), ``hashable`` (keys joinable)."""
    canon: Callable[[Any, Options], Any]
    similar: Callable[[Any, Any, Options], bool] | None = None
    hashable: Callable[[Options], bool] = lambda options: True


def _date_key(value: Any, options: Options, v21: bool = False) -> str:
    """A date's ISO form, else ``"~"`` + its text canon (which no ISO date equals; spec 2.0 §7)."""
    iso = canon_date(value, options.date_formats, v21)
    return iso if iso is not None else "~" + canon_text(value, v21)


def comparators(v21: bool) -> dict[str, Comparator]:
    """Comparison kind -> how it reads and compares (spec 2.0 §3; ``v21``: text, numbers and
    dates read by spec 2.1 §2-§4)."""
    return {
        "text": Comparator(lambda v, o: canon_text(v, v21)),
        "number": Comparator(lambda v, o: canon_number(v, o.decimal_separator, v21),
                             numbers_equal, lambda o: not o.tolerant),
        "date": Comparator(lambda v, o: _date_key(v, o, v21)),
        "boolean": Comparator(lambda v, o: canon_boolean(v)),
        "fuzzy": Comparator(lambda v, o: canon_text(v, v21),
                            lambda a, b, o: fuzzy_similarity(a, b) >= o.threshold, lambda o: False),
        "exact": Comparator(lambda v, o: canon_exact(v)),
        "json": Comparator(lambda v, o: canon_exact(v))}


COMPARATORS, COMPARATORS_2_1 = comparators(False), comparators(True)  #: 2.0's table, 2.1's
_JSON_LEAF = Leaf("exact", Options())  # a value of the wrong kind at a container node


def shown(key: Any) -> Any:
    """A canonical key as a Verdict shows it (a Decimal as plain decimal text)."""
    return plain_decimal(key) if isinstance(key, Decimal) else key


def possible_tags(leaf: Leaf) -> tuple[str, ...]:
    """Every tag a label value can put ``leaf`` under."""
    if leaf.compare == "mix":
        return ("text", "number", "boolean", *(("date",) if leaf.dated else ()), "json")
    return (leaf.compare, *(("text",) if leaf.compare in ("number", "boolean") else ()), "json")


# ===== 6-7. The document: reading, the walk, pairing (spec 2.0 §1, §4-§5, §7) =============
# Each side is read once; the walk compares the readings, pairing uses them too (spec 2.0 §1).

class Read(NamedTuple):
    """A value read at a node: ``raw``, ``tag`` (kind, ``"{}"``, ``"[]"``; None: empty), ``key``."""
    raw: Any
    tag: str | None
    key: Any


class Tally(list):
    """[correct, present on both sides, on one side only]: a candidate pair's walk, counted."""
    __slots__ = ()

    def __init__(self) -> None:
        super().__init__((0, 0, 0))

    def add(self, kind: str) -> None:
        if kind in ("correct", "wrong_value", "type_error"):
            self[0] += kind == "correct"
            self[1] += 1
        elif kind != "correct_absence":
            self[2] += 1

    def counts(self) -> dict[str, int]:
        """As verdict counts for :meth:`DocScore.accuracy_of`: correct, the rest scored."""
        return {"correct": self[0], "scored": self[1] + self[2] - self[0], "correct_absence": 0}


EMPTY = Read(None, None, None)
_CONTAINER_TAGS = ("{}", "[]")
_NOT_LEAF = (None, "{}", "[]")  # the tags of a read that is no leaf
Item = tuple[int, Read, str | None]  #: a kept array item: (its index, its read, its signature)
_quote = json.encoder.encode_basestring_ascii  # json.dumps of a str, in C
_NEEDS_QUOTES = re.compile(r'[.\[\]"\\]')  # a member name that needs quoting in a path


class Walker:
    """One document's pass (spec 2.0 §1): both sides read, then walked together, leaf by leaf,
    by the version's ``comparators`` and pairing ``rule``; the fast engine extends this class."""
    MAX_DEPTH = 120  #: data levels walked; deeper data is one exact-JSON leaf (choices)

    def __init__(self, comparators: Mapping[str, Comparator],
                 rule: Callable[..., list[tuple[int, int]]], readings: bool = False) -> None:
        self.comparators, self.rule, self.readings = comparators, rule, readings
        self.exact = True  # the definition never approximates

    def key(self, leaf: Leaf, tag: str, value: Any) -> Any:
        """The key of ``value`` under ``tag``; None if unreadable so (a container: JSON only)."""
        if tag == "json":
            return canon_exact(value)
        return None if isinstance(value, (dict, list)) else \
            self.comparators[tag].canon(value, leaf.options)

    def read_leaf(self, leaf: Leaf, value: Any) -> Read:
        """A leaf's value as a label's (spec 2.0 §7 Values): JSON, by kind, or as text."""
        if is_empty(value):
            return Read(value, None, None)
        if isinstance(value, (dict, list)):
            return Read(value, "json", canon_exact(value))
        tag = leaf.compare
        if tag == "mix":
            tag = ("boolean" if isinstance(value, bool) else
                   ("date" if leaf.dated else "text") if isinstance(value, str) else
                   "number" if json_decimal(value) is not None else "text")
        key = self.comparators[tag].canon(value, leaf.options)  # a scalar: :meth:`key`, inline
        return Read(value, tag, key) if key is not None else \
            Read(value, "text", self.comparators["text"].canon(value, leaf.options))

    def read(self, node: Any, value: Any, depth: int = 0, label: bool = False) -> Read:
        """``value`` read at ``node``, alike for both sides but alternative readings (label)."""
        if value is None:
            return EMPTY
        if node is IGNORED:
            return Read(value, None, None)
        if isinstance(node, Leaf):
            if label and self.readings and value.__class__ is dict and is_readings(value):
                readings = tuple(self.read_leaf(node, reading) for reading in value["$anyOf"])
                if any(r.tag is not None for r in readings):  # spec 2.1 §6
                    return Read(value, "anyOf", readings)
                return Read(value, None, None)
            return self.read_leaf(node, value)
        if depth > self.MAX_DEPTH or not isinstance(value, _kind_of(node)):
            return Read(value, None, None) if is_empty(value) else self.read_leaf(_JSON_LEAF, value)
        tag = None if is_empty(value) else "[]" if isinstance(node, ArrayNode) else "{}"
        if isinstance(node, ObjectNode):
            return Read(value, tag, {name: self.read(child, value.get(name), depth + 1, label)
                                     for name, child in self.members(node, value)})
        reads = [(i, self.read(node.items, v, depth + 1, label)) for i, v in enumerate(value)
                 if kept(node.items, v)]
        return Read(value, tag, [(i, r, self.signature(node.items, r)) for i, r in reads])

    def members(self, node: ObjectNode, *values: dict) -> Any:
        """(name, node) of each member scored: properties, then patterns (2.1) or open keys."""
        if node.properties is not None and not node.patterns:
            return node.properties.items()
        declared = node.properties or {}
        out = list(declared.items())
        for key in sorted(set().union(*values) - declared.keys(), key=str):
            child = next((sub for pattern, sub in node.patterns if pattern.search(str(key))),
                         node.values if node.properties is None else None)
            if child is not None:
                out.append((key, child))
        return out

    def equal(self, leaf: Leaf, tag: str, a: Any, b: Any) -> bool:
        """The one equality: two canonical keys under ``tag`` (equal keys under every one)."""
        similar = self.comparators[tag].similar
        return a == b or (similar is not None and similar(a, b, leaf.options))

    def judge(self, leaf: Leaf, label: Read, result: Read) -> tuple[str, Any, Any]:
        """(kind, label key, result key) of two non-empty reads (readings: spec 2.1 §6)."""
        if label.tag == "anyOf":
            judged = [self.judge(leaf, r, result) for r in label.key if r.tag is not None]
            return next((j for j in judged if j[0] == "correct"), judged[0])
        tag = label.tag
        key = result.key if result.tag == tag else self.key(leaf, tag, result.raw)
        if key is None:
            return "type_error", label.key, None
        kind = "correct" if self.equal(leaf, tag, label.key, key) else "wrong_value"
        return kind, label.key, key

    def kind(self, leaf: Leaf, label: Read, result: Read) -> str:
        """A leaf's verdict kind (spec 2.0 §4; an empty reading makes a label-only leaf none)."""
        if label.tag is None or result.tag is None:
            if label.tag is None:
                return "correct_absence" if result.tag is None else "hallucinated"
            return "correct_absence" if label.tag == "anyOf" and any(
                r.tag is None for r in label.key) else "missing"
        if label.tag == result.tag and label.key == result.key:
            return "correct"  # equal keys under one tag: what judge finds, found first
        return self.judge(leaf, label, result)[0]

    def compare(self, leaf: Leaf, label: Read, result: Read, address: str, field: str) -> Verdict:
        """The verdict of one leaf address (spec 2.0 §4): the one place two values meet."""
        if label.tag is None or result.tag is None:
            return Verdict(address, field, self.kind(leaf, label, result), label.raw,
                           result.raw, None, None)
        kind, label_key, key = self.judge(leaf, label, result)
        return Verdict(address, field, kind, label.raw, result.raw, shown(label_key), shown(key))

    def walk(self, node: Any, label: Read, result: Read, address: str, field: str,
             out: list[Verdict], depth: int = 0) -> None:
        """Append the verdicts of ``node`` at ``address`` from the two sides' reads."""
        if node is IGNORED:
            return
        if isinstance(node, Leaf) or depth > self.MAX_DEPTH or label.tag not in _NOT_LEAF:
            # a leaf, data too deep, or a label of the wrong kind at a container node
            leaf = node if isinstance(node, Leaf) else _JSON_LEAF
            if isinstance(out, Tally):
                out.add(self.kind(leaf, label, result))
            else:
                out.append(self.compare(leaf, label, result, address, field))
            return
        if result.tag not in _NOT_LEAF:
            result = Read(result.raw, None, None)  # the wrong JSON kind states nothing here
        if label.tag is None and result.tag is None:
            if address and not isinstance(out, Tally):  # one at a container, none at the root
                kind = _kind_of(node)
                raws = [r.raw if isinstance(r.raw, kind) else None for r in (label, result)]
                out.append(Verdict(address, field, "correct_absence", *raws, None, None))
            return
        if isinstance(node, ArrayNode):
            self.walk_array(node, label.key or [], result.key or [], address, field, out, depth)
            return
        left, right, tallying = label.key or {}, result.key or {}, isinstance(out, Tally)
        for name, child in self.members(node, left, right):
            if tallying:  # a tally needs no addresses, and counts a leaf in place
                if isinstance(child, Leaf):
                    out.add(self.kind(child, left.get(name, EMPTY), right.get(name, EMPTY)))
                else:
                    self.walk(child, left.get(name, EMPTY), right.get(name, EMPTY), address,
                              field, out, depth + 1)
                continue
            self.walk(child, left.get(name, EMPTY), right.get(name, EMPTY), join(address, name),
                      join(field, name), out, depth + 1)

    def walk_array(self, node: ArrayNode, left: list[Item], right: list[Item], address: str,
                   field: str, out: list[Verdict], depth: int) -> None:
        """Pair the kept items, then walk pairs and unpaired items (spec 2.0 §5, §7 Pairing)."""
        item, item_field = node.items, f"{field}[]"
        pairs = [(k, k) for k in range(min(len(left), len(right)))] if node.ordered else \
            self.pair(item, left, right, address, item_field, depth)
        for k_left, k_right in pairs:
            self.walk(item, left[k_left][1], right[k_right][1],
                      f"{address}[{left[k_left][0]}]", item_field, out, depth + 1)
        for items, paired, side in ((left, {p[0] for p in pairs}, ""),
                                    (right, {p[1] for p in pairs}, "r")):
            for k, (i, read, _) in enumerate(items):
                if k not in paired:  # each non-empty leaf missing, or an extra item's
                    found: Any = out if isinstance(out, Tally) else []
                    self.walk(item, EMPTY if side else read, read if side else EMPTY,
                              f"{address}[{side}{i}]", item_field, found, depth + 1)
                    if found is not out:
                        out += [v._replace(kind="extra_item") if side else v for v in found
                                if v.kind != "correct_absence"]

    def pair(self, item: Any, left: list[Item], right: list[Item], address: str, field: str,
             depth: int) -> list[tuple[int, int]]:
        """(position in ``left``, position in ``right``) pairs by the version's rule."""
        return self.rule(self, item, left, right, address, field, depth)

    def signature(self, node: Any, read: Read) -> str | None:
        """A read's canonical content as text (None: states nothing); orders items canonically."""
        tag = read.tag
        if tag is None or node is IGNORED:
            return None
        if tag == "{}":
            parts = [f"{_quote(name)}={sig}" for name, child in self.members(node, read.key)
                     if (sig := self.signature(child, read.key.get(name, EMPTY)))]
            return "{" + ",".join(parts) + "}" if parts else None
        if tag == "[]":
            parts = [sig for _, _, sig in read.key if sig]
            return "[" + ",".join(parts if node.ordered else sorted(parts)) + "]" if parts else None
        if tag == "anyOf":  # its readings' signatures, sorted, in brackets
            return "[" + ",".join(sorted(filter(None, (self.signature(node, r)
                                                       for r in read.key)))) + "]"
        return f"{tag}:{shown(read.key)}" if isinstance(node, Leaf) else "json:" + read.key

    def keys(self, node: Any, read: Read, path: str,
             tags: Mapping[str, set[str]] | None = None) -> list[tuple[str, str, Any, Leaf]]:
        """(path, tag, key, leaf) of each non-empty leaf below, under the tags labels used."""
        out: list[tuple[str, str, Any, Leaf]] = []
        stack = [(node, read, path)]
        while stack:
            node, read, path = stack.pop()
            if node is IGNORED or read.tag is None:
                continue
            used = None if tags is None else tags.get(path, ())
            if read.tag in _CONTAINER_TAGS:
                if used and "json" in used:  # against a label of the wrong kind here
                    out.append((path, "json", canon_exact(read.raw), _JSON_LEAF))
                stack += [(node.items, v, f"{path}[]") for _, v, _ in read.key] \
                    if read.tag == "[]" else [(child, v, join(path, name))  # the stated ones
                                              for name, child in self.members(node, read.key)
                                              if (v := read.key.get(name, EMPTY)).tag is not None]
                continue
            leaf, own = (node, read.tag) if isinstance(node, Leaf) else (_JSON_LEAF, "json")
            if read.tag == "anyOf":  # a label's readings: a key each
                out += [(path, r.tag, r.key, leaf) for r in read.key if r.tag is not None]
            elif used is None:
                out.append((path, own, read.key, leaf))
            else:
                for tag in used:
                    key = read.key if tag == own else self.key(leaf, tag, read.raw)
                    if key is not None:
                        out.append((path, tag, key, leaf))
        return out

    def hashable(self, item: Any) -> bool:
        """Whether all leaves below compare by key equality (no fuzzy, tolerant or open map)."""
        for node in schema_nodes(item):
            if isinstance(node, Leaf):
                if not all(self.comparators[t].hashable(node.options) for t in possible_tags(node)):
                    return False
            elif isinstance(node, ObjectNode) and node.properties is None:
                return False
        return True

    def weights(self, item: Any, left: list[Item], right: list[Item], address: str, field: str,
                depth: int) -> tuple[dict[tuple[int, int], tuple[int, int, int]], int]:
        """{(row, column): (correct, both, one side)} of pairs worth a correct leaf; most leaves."""
        hashable = self.hashable(item)
        if hashable and is_flat(item) and all(read.tag == "{}" for _, read, _ in (*left, *right)):
            return self.flat_weights(item, left, right)
        label_keys = [self.keys(item, read, "") for _, read, _ in left]
        most = max(map(len, label_keys), default=0)
        candidates: Any = itertools.product(range(len(left)), range(len(right)))
        if hashable:  # only pairs sharing a key can be worth a correct leaf
            tags: dict[str, set[str]] = {}
            for path, tag, _, _ in (k for keys in label_keys for k in keys):
                tags.setdefault(path, set()).add(tag)
            holding: dict[tuple, list[int]] = {}
            for c, (_, read, _) in enumerate(right):
                for key in {k[:3] for k in self.keys(item, read, "", tags)}:
                    holding.setdefault(key, []).append(c)
            candidates = sorted({(r, c) for r, keys in enumerate(label_keys)
                                 for key in {k[:3] for k in keys} for c in holding.get(key, ())})
        return self.walked(item, left, right, candidates, field, depth), most

    def flat_weights(self, item: ObjectNode, left: list[Item], right: list[Item],
                     ) -> tuple[dict[tuple[int, int], tuple[int, int, int]], int]:
        """:meth:`weights` of flat object items (:func:`is_flat`, compared by equal keys), a
        member at a time: a pair's correct leaves are the members where the label item's key
        (one of its readings') is the result item's key under that tag, and the rest follows
        from the members each states (what kind() gives: stated on both sides, a leaf present
        on both; on one side only, a leaf of one side, unless the label's readings allow an
        empty one)."""
        rows = range(len(left))
        hits: list[list[int]] = [[] for _ in rows]  # a result item once per member it matches
        key_counts = [0 for _ in rows]  # each label item's keys, as len(keys()) counts them
        stated = [0 for _ in rows]  # the members each item states, a bit per member
        stated_right = [0 for _ in right]
        may_be_empty = [0 for _ in rows]
        for bit, (name, leaf) in enumerate(item.properties.items()):
            if leaf is IGNORED:
                continue
            mask = 1 << bit
            keyed: list[tuple[tuple[str, Any], ...]] = []  # each label item's (tag, key) here
            for r, (_, read, _) in enumerate(left):
                member = read.key.get(name, EMPTY)
                if member.tag is None:
                    keyed.append(())
                    continue
                stated[r] |= mask
                if member.tag == "anyOf":  # a label's readings: a key each
                    keyed.append(tuple((m.tag, m.key) for m in member.key if m.tag is not None))
                    if any(m.tag is None for m in member.key):
                        may_be_empty[r] |= mask
                else:
                    keyed.append(((member.tag, member.key),))
                key_counts[r] += len(keyed[-1])
            tags = {tag for keys in keyed for tag, _ in keys}
            holding: dict[tuple[str, Any], list[int]] = {}  # (tag, key) -> result items
            for c, (_, read, _) in enumerate(right):
                member = read.key.get(name, EMPTY)
                if member.tag is None:
                    continue
                stated_right[c] |= mask
                for tag in tags:  # its key under each tag a label item is read with here
                    key = member.key if tag == member.tag else self.key(leaf, tag, member.raw)
                    if key is not None:
                        holding.setdefault((tag, key), []).append(c)
            for r, keys in enumerate(keyed):
                if len(keys) == 1:
                    hits[r] += holding.get(keys[0], ())
                elif keys:  # readings: a result item matching two counts once
                    hits[r] += set().union(*(holding.get(key, ()) for key in keys))
        found = {}  # a row's columns in no set order: each reader orders what it needs
        sizes = [result.bit_count() for result in stated_right]
        for r in rows:
            label, allowed = stated[r], may_be_empty[r]
            size = label.bit_count()
            for c, correct in Counter(hits[r]).items():
                result = stated_right[c]
                both = (label & result).bit_count()
                one = size + sizes[c] - 2 * both  # a label's readings may allow an absence
                found[r, c] = (correct, both, one - (allowed & ~result).bit_count() if allowed
                               else one)
        return found, max(key_counts, default=0)

    def walked(self, item: Any, left: list[Item], right: list[Item], pairs: Any, field: str,
               depth: int) -> dict[tuple[int, int], tuple[int, int, int]]:
        """{(row, column): (correct, both, one side)} of ``pairs`` worth a correct leaf, walked."""
        found = {}
        for r, c in pairs:
            counts = Tally()
            self.walk(item, left[r][1], right[c][1], "", field, counts, depth + 1)
            if counts[0]:  # no pair worth 0 correct leaves is made
                found[r, c] = tuple(counts)
        return found


def is_flat(item: Any) -> bool:
    """Whether ``item`` is an object whose scored members are all leaves, named in its schema."""
    return isinstance(item, ObjectNode) and item.properties is not None and not item.patterns \
        and all(isinstance(child, Leaf) or child is IGNORED for child in item.properties.values())


def holds_ordered(item: Any) -> bool:
    """Whether an ordered array lies in ``item``: its signature lists the items that state
    something, not where they stand, so two equal signatures may still pair unalike."""
    return any(isinstance(node, ArrayNode) and node.ordered for node in schema_nodes(item))


def schema_nodes(item: Any) -> Iterator[Any]:
    """Each node of a compiled schema at or below ``item``, once (a ``$ref`` cycle too),
    IGNORED ones and their children left out; members through patterns (spec 2.1 §5) and
    an open map's values included."""
    stack, seen = [item], set()
    while stack:
        node = stack.pop()
        if id(node) in seen or node is IGNORED:
            continue
        seen.add(id(node))
        yield node
        if isinstance(node, ArrayNode):
            stack.append(node.items)
        elif isinstance(node, ObjectNode):
            stack += [*(node.properties or {}).values(), *(sub for _, sub in node.patterns),
                      *([node.values] if node.values is not None else [])]


def is_readings(value: dict) -> bool:
    """Whether a label value is readings, ``{"$anyOf": [scalar, ...]}`` (spec 2.1 §6)."""
    readings = value.get("$anyOf")
    return len(value) == 1 and isinstance(readings, list) and bool(readings) and not any(
        isinstance(r, (dict, list)) for r in readings)


def kept(item: Any, value: Any) -> bool:
    """Whether an array item is matched: non-empty and of its node's kind (spec 2.0 §7)."""
    return (not isinstance(item, (ObjectNode, ArrayNode)) or isinstance(value, _kind_of(item))) \
        and not is_empty(value)


def _kind_of(node: ObjectNode | ArrayNode) -> type:
    return dict if isinstance(node, ObjectNode) else list


def join(path: str, name: Any) -> str:
    """``a.b``, or ``["a.b"]`` for a name holding ``.[]"\\`` or empty (spec 2.0 §7)."""
    name = str(name)
    if not name.isidentifier() and (not name or _NEEDS_QUOTES.search(name)):  # a quick no first
        return f"{path}[{json.dumps(name, ensure_ascii=False)}]"
    return f"{path}.{name}" if path else name


# ----- version 2.0's pairing rule, frozen with its known fault (spec 2.0 §5, §7) -------
#: 2.0's frozen solver choice (spec 2.0 §5 "Known fault"): dense up to this many cells (label x
#: result items left after identical pairs), sparse above; they break ties differently.
DENSE_CELLS_2_0 = 250_000


def pair_2_0(walker: Walker, item: Any, left: list[Item], right: list[Item], address: str,
             field: str, depth: int) -> list[tuple[int, int]]:
    """Version 2.0's pairs of kept items (spec 2.0 §5, §7 Pairing): both sides in canonical
    order (signature, position); identical items first when :meth:`Walker.hashable`; the rest
    by one optimal assignment of weights ``correct x C + both`` (:func:`assign_2_0`)."""
    order_left = sorted(range(len(left)), key=lambda k: left[k][2] or "")
    order_right = sorted(range(len(right)), key=lambda k: right[k][2] or "")
    pairs: list[tuple[int, int]] = []
    rest_right = order_right
    if walker.hashable(item):
        waiting: dict[str, list[int]] = {}
        for k in reversed(order_left):
            waiting.setdefault(left[k][2] or "", []).append(k)
        rest_right = []
        for k in order_right:
            if (bucket := waiting.get(right[k][2] or "")) and right[k][2]:
                pairs.append((bucket.pop(), k))
            else:
                rest_right.append(k)
    taken = {k for k, _ in pairs}
    rest_left = [k for k in order_left if k not in taken]
    if rest_left and rest_right:
        found, most = walker.weights(item, [left[k] for k in rest_left],
                                     [right[k] for k in rest_right], address, field, depth)
        ceiling = most * min(len(rest_left), len(rest_right)) + 1
        edges = {rc: hits * ceiling + both for rc, (hits, both, _) in found.items()}
        pairs += [(rest_left[r], rest_right[c])
                  for r, c in assign_2_0(len(rest_left), len(rest_right), edges)]
    return pairs


def assign_2_0(rows: int, cols: int, edges: Mapping[tuple[int, int], int],
               ) -> list[tuple[int, int]]:
    """A maximum-weight matching by scipy's dense solver, sparse over :data:`DENSE_CELLS_2_0`."""
    if len({r for r, _ in edges}) == len(edges) == len({c for _, c in edges}):
        return sorted(edges)
    if rows * cols <= DENSE_CELLS_2_0:
        weights = [[0] * cols for _ in range(rows)]
        for (r, c), weight in edges.items():
            weights[r][c] = weight
        return [(r, c) for r, c in shortest_augmenting_path(weights) if weights[r][c] > 0]
    import numpy as np
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import min_weight_full_bipartite_matching
    # cost ceiling - weight; each row's own dummy column (cost ceiling) makes it unpaired
    ceiling, indptr, indices, data = max(edges.values()) + 1, [0], [], []
    by_row: list[list[tuple[int, int]]] = [[] for _ in range(rows)]
    for (r, c), weight in sorted(edges.items()):
        by_row[r].append((c, ceiling - weight))
    for r, line in enumerate(by_row):
        for c, cost in [*line, (cols + r, ceiling)]:
            indices.append(c)
            data.append(cost)
        indptr.append(len(indices))
    matrix = csr_matrix((np.array(data, np.float64), np.array(indices), np.array(indptr)),
                        shape=(rows, cols + rows))
    matched = zip(*min_weight_full_bipartite_matching(matrix), strict=True)
    return sorted((int(r), int(c)) for r, c in matched if c < cols)


def shortest_augmenting_path(weights: list[list[int]]) -> list[tuple[int, int]]:
    """scipy's ``linear_sum_assignment(maximize=True)`` restated, ties included: Crouse's
    shortest augmenting path (IEEE TAES 52(4), 2016); pairs sorted by row."""
    transposed = len(weights) > len(weights[0])
    cost = [[-w for w in line] for line in (zip(*weights, strict=True) if transposed else weights)]
    n, m = len(cost), len(cost[0])
    u, v, col4row, row4col, path = [0] * n, [0] * m, [-1] * n, [-1] * m, [-1] * m
    for current in range(n):
        spc, rows_seen, cols_seen = [math.inf] * m, [current], []
        remaining, low, i, sink = list(range(m - 1, -1, -1)), 0, current, -1
        while sink < 0:
            lowest, index, line = math.inf, -1, cost[i]
            for it, j in enumerate(remaining):
                if (reduced := low + line[j] - u[i] - v[j]) < spc[j]:
                    path[j], spc[j] = i, reduced
                if spc[j] < lowest or (spc[j] == lowest and row4col[j] < 0):
                    lowest, index = spc[j], it
            low, j = lowest, remaining[index]
            sink, i = (j, i) if row4col[j] < 0 else (-1, row4col[j])
            if sink < 0:
                rows_seen.append(i)
            cols_seen.append(j)
            remaining[index] = remaining[-1]
            remaining.pop()
        u[current] += low
        for r in rows_seen[1:]:
            u[r] += low - spc[col4row[r]]
        for c in cols_seen:
            v[c] -= low - spc[c]
        j = sink
        while True:  # augment along the path found
            i = path[j]
            row4col[j] = i
            col4row[i], j = j, col4row[i]
            if i == current:
                break
    return sorted((col4row[r], r) if transposed else (r, col4row[r]) for r in range(n))


# ----- version 2.1's pairing rule: one rule at every size (spec 2.1 §1) ---------------
def pair_2_1(walker: Walker, item: Any, left: list[Item], right: list[Item], address: str,
             field: str, depth: int) -> list[tuple[int, int]]:
    """Version 2.1's pairs (spec 2.1 §1): most correct leaves, then most present on both
    sides, then fewest on one side, never a pair worth 0; ties to the lexicographically
    smallest in canonical order (signature, raw JSON, position)."""
    def order(items: list[Item]) -> list[int]:
        signatures = [sig or "" for _, _, sig in items]
        ties = Counter(signatures)  # raw JSON orders equal signatures only
        return sorted(range(len(items)), key=lambda k: (
            signatures[k], raw_text(items[k][1].raw) if ties[signatures[k]] > 1 else "", k))
    order_left, order_right = order(left), order(right)
    signatures = [left[k][2] for k in order_left]
    if all(signatures) and signatures == [right[k][2] for k in order_right] \
            and not holds_ordered(item):
        # the same items on both sides: the k-th with the k-th is the rule's own choice,
        # with no pair weighed (docs/SCORING.md, "Copies pair in order")
        return sorted(zip(order_left, order_right, strict=True))
    found, _ = walker.weights(item, [left[k] for k in order_left],
                              [right[k] for k in order_right], address, field, depth)
    if not found:
        return []
    size = min(len(left), len(right))  # totals of a criterion stay below these bases
    both_base = max([b for _, b, _ in found.values()]) * size + 1
    one_base = max([o for _, _, o in found.values()]) * size + 1
    edges = {rc: (hits * both_base + both) * one_base - one
             for rc, (hits, both, one) in found.items()}
    return sorted((order_left[r], order_right[c])
                  for r, c in lexicographic_assignment(len(left), len(right), edges))


def raw_text(value: Any) -> str:
    """An item's raw JSON as 2.1's canonical order reads it: sorted keys, no spaces."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def lexicographic_assignment(rows: int, cols: int, edges: Mapping[tuple[int, int], int],
                             ) -> list[tuple[int, int]]:
    """The lexicographically smallest maximum-weight matching of ``edges``, exactly."""
    return lexicographic_choice(*best_matching(rows, cols, edges))


def best_matching(rows: int, cols: int, edges: Mapping[tuple[int, int], int]) -> tuple[
        list[list[int]], list[int], list[int], list[int], list[int]]:
    """A maximum-weight matching of ``edges`` and optimal duals, in Python integers:
    (each row's tight columns in order, ``u``, ``v``, ``mate_row``, ``mate_col``)."""
    adjacent: list[list[tuple[int, int]]] = [[] for _ in range(rows)]
    for (r, c), weight in edges.items():
        adjacent[r].append((c, weight))
    u, v, mate_row, mate_col = [0] * rows, [0] * cols, [-1] * rows, [-1] * cols
    for r, line in enumerate(adjacent):
        line.sort()  # each row's edges by column
        best = u[r] = max([w for _, w in line], default=0)
        for c, w in line:  # a greedy start on each row's best edges
            if w == best and mate_col[c] < 0:
                mate_row[r], mate_col[c] = c, r
                break
    for r in range(rows):
        if mate_row[r] < 0 and u[r] > 0:
            _augment(r, adjacent, u, v, mate_row, mate_col)
    tight = [[c for c, w in line if dual + v[c] == w]
             for dual, line in zip(u, adjacent, strict=True)]
    return tight, u, v, mate_row, mate_col


def lexicographic_choice(tight: list[list[int]], u: list[int], v: list[int],
                         mate_row: list[int], mate_col: list[int]) -> list[tuple[int, int]]:
    """Given a maximum matching and optimal duals, each row takes its first allowed column."""
    done_rows, done_cols = [False] * len(mate_row), [False] * len(mate_col)
    for r in range(len(mate_row)):  # the lexicographic choice, row by row
        for c in tight[r]:
            if done_cols[c]:
                continue
            if mate_row[r] == c or _rotation(r, c, tight, u, v, mate_row, mate_col,
                                              done_rows, done_cols):
                break
        done_rows[r] = True
        if mate_row[r] >= 0:
            done_cols[mate_row[r]] = True
    return [(r, c) for r, c in enumerate(mate_row) if c >= 0]


def _augment(root: int, adjacent: list[list[tuple[int, int]]], u: list[int], v: list[int],
             mate_row: list[int], mate_col: list[int]) -> None:
    """One Hungarian step from ``root``: to a free column or a row whose dual reaches 0."""
    import heapq
    row_dist, col_dist, via_row = {root: 0}, {}, {}
    heap, settled_rows, settled_cols = [(0, 0, root)], [], []
    while True:  # entries (distance, 0 row / 1 column / 2 a row's dual reaching 0, node)
        d, what, node = heapq.heappop(heap)
        if what == 2:  # row `node` lets its dual fall to zero: it goes unpaired
            end, end_row = d, node
            break
        if what == 1:
            if col_dist[node] < d:
                continue
            settled_cols.append(node)
            if mate_col[node] < 0:
                end, end_row = d, None
                break
            row = mate_col[node]
            if row not in row_dist:  # each row is pushed once, so never stale
                row_dist[row] = d
                heapq.heappush(heap, (d, 0, row))
            continue
        settled_rows.append(node)
        heapq.heappush(heap, (d + u[node], 2, node))
        for c, w in adjacent[node]:
            nd = d + u[node] + v[c] - w
            if nd < col_dist.get(c, nd + 1):
                col_dist[c], via_row[c] = nd, node
                heapq.heappush(heap, (nd, 1, c))
    for r in settled_rows:
        u[r] -= end - row_dist[r]
    for c in settled_cols:
        v[c] += end - col_dist[c]
    if end_row is not None and end_row != root:  # the end row goes unpaired
        node, mate_row[end_row] = mate_row[end_row], -1
    r, c = None, node
    while end_row != root and r != root:  # flip the path from its last column back to root
        r = via_row[c]
        mate_row[r], mate_col[c], c = c, r, mate_row[r]


def _rotation(r: int, c: int, tight: list[list[int]], u: list[int], v: list[int],
              mate_row: list[int], mate_col: list[int], done_rows: list[bool],
              done_cols: list[bool]) -> bool:
    """Rotate the matching so that row ``r`` takes column ``c``, if a path allows it."""
    path = _alternating_path(r, c, tight, u, v, mate_row, mate_col, done_rows, done_cols)
    if path is None:
        return False
    takes, freed_rows, freed_cols = [(r, c)], [], []
    for here, there in itertools.pairwise(path):  # "Z"[0] is neither "r" nor "c"
        if here[0] == "r" and there[0] == "c":
            takes.append((here[1], there[1]))
        elif here[0] == "r" and there == "Z":
            freed_rows.append(here[1])
        elif here == "Z" and there[0] == "c":
            freed_cols.append(there[1])
    for x in [x for x, _ in takes] + freed_rows:
        if mate_row[x] >= 0:
            mate_col[mate_row[x]], mate_row[x] = -1, -1
    for y in freed_cols:
        if mate_col[y] >= 0:
            mate_row[mate_col[y]], mate_col[y] = -1, -1
    for x, y in takes:
        mate_row[x], mate_col[y] = y, x
    return True


def _alternating_path(r: int, c: int, tight: list[list[int]], u: list[int], v: list[int],
                      mate_row: list[int], mate_col: list[int], done_rows: list[bool],
                      done_cols: list[bool]) -> list[Any] | None:
    """A tight alternating path from ``c``'s row to ``r`` (``"Z"``: free or zero-dual), or None."""
    start = ("r", mate_col[c]) if mate_col[c] >= 0 else "Z"
    back: dict[Any, Any] = {start: None}
    queue, goal = [start], ("r", r)
    while queue and goal not in back:
        node = queue.pop(0)
        steps: list[Any] = []
        if node == "Z":
            steps = [("r", x) for x in range(len(mate_row)) if mate_row[x] < 0 and
                     not done_rows[x]] + [("c", y) for y in range(len(mate_col)) if y != c
                                          and mate_col[y] >= 0 and v[y] == 0 and not done_cols[y]]
        elif node[0] == "c":
            steps = [("r", mate_col[node[1]])] if mate_col[node[1]] >= 0 else ["Z"]
        elif node[1] != r:
            steps = [("c", y) for y in tight[node[1]] if y != mate_row[node[1]] and
                     not done_cols[y] and y != c] + (["Z"] if u[node[1]] == 0 else [])
        for step in steps:
            if step not in back and (step[0] != "r" or not done_rows[step[1]]):
                back[step] = node
                queue.append(step)
    if goal not in back:
        return None
    path, node = [], goal
    while node is not None:
        path.append(node)
        node = back[node]
    return path[::-1]  # start ... goal, each row taking the column that follows it


# ----- the document (spec 2.0 §4, §6) ---------------------------------------------------
def _as_options(options: Options | Mapping[str, Any] | None) -> Options:
    return options if isinstance(options, Options) else Options.from_mapping(options)


@dataclass(frozen=True)
class Document:
    """A 2.x document: schema compiled and label read once (:meth:`prepare`: ScoringError)."""
    version: str
    walker: Walker
    root: Any
    label: Any
    label_read: Read
    file: str = ""  #: the schema's file, named in its errors
    label_file: str = ""  #: the label's file, named in its errors (else ``file``)

    @classmethod
    def prepare(cls, version: str, walker: Walker, schema: Any, label: Any,
                options: Options, file: str, label_file: str = "") -> Document:
        root = compile_schema(schema, options=options, file=file, v21=version != "2.0")
        return cls(version, walker, root, label, walker.read(root, label, label=True), file,
                   label_file)

    def score(self, result: Any) -> DocScore:
        """The score of ``result``, any JSON value; ScoringError only for a non-object label."""
        if isinstance(self.root, ObjectNode):
            if not isinstance(self.label, dict):
                raise ScoringError(self.label_file or self.file, "", "the label must be a "
                                   f"JSON object, not {_kind(self.label)}")
            if not isinstance(result, dict):
                return self.parse_failure(result)
        verdicts: list[Verdict] = []
        self.walker.walk(self.root, self.label_read, self.walker.read(self.root, result),
                         "", "", verdicts)
        return DocScore.from_verdicts(verdicts, version=self.version, exact=self.walker.exact)

    def value(self, result: Any) -> float:
        """The accuracy of ``result`` alone, its verdicts counted as the walk goes, not listed
        (what the folder table shows): ``score(result).value``, bit for bit."""
        if isinstance(self.root, ObjectNode) and not (isinstance(self.label, dict)
                                                      and isinstance(result, dict)):
            return self.score(result).value  # a ScoringError or a parse failure, as score says
        tally = Tally()
        self.walker.walk(self.root, self.label_read, self.walker.read(self.root, result),
                         "", "", tally)
        return DocScore.accuracy_of(tally.counts())

    def parse_failure(self, data: Any = None) -> DocScore:
        """An unusable result (spec 2.0 §4): each non-empty label leaf ``parse_failure``, 0.0."""
        found: list[Verdict] = []
        self.walker.walk(self.root, self.label_read, EMPTY, "", "", found)
        verdicts = [v._replace(kind="parse_failure") for v in found if v.kind == "missing"]
        return dataclasses.replace(DocScore.from_verdicts(verdicts, version=self.version),
                                   value=0.0)

    def missing(self) -> DocScore:
        """A missing result file, scored as an empty result (spec 2.0 §6)."""
        return self.score({})


def _document_2_0(schema: Any, label: Any, options: Options, file: str,
                  label_file: str = "") -> Document:
    return Document.prepare("2.0", Walker(COMPARATORS, pair_2_0), schema, label, options, file,
                            label_file)


def _document_2_1(schema: Any, label: Any, options: Options, file: str,
                  label_file: str = "") -> Document:
    return Document.prepare("2.1", Walker(COMPARATORS_2_1, pair_2_1, readings=True), schema,
                            label, options, file, label_file)


# ===== 8. Version 1.0: DocuBench 0.1.0, frozen (spec 1.0) =================================
# Spec 1.0 (its section numbers), odd rules included; shared with nothing in 2.x.

_V1_SPACE = re.compile(r"\s+")
_V1_NONWORD = re.compile(r"\W")  # the standard `re`, not `regex` (spec 1.0 §1.3)
_V1_GONE = object()  # a pruned node (None is a schema value like any other)


@dataclass(frozen=True)
class DocScoreV1:
    """A 1.0 score (spec 1.0 §5): ``value`` in [0, 1], ``arrays``, ``non_array``."""
    value: float
    arrays: dict[str, tuple[float, float]] | None = None
    non_array: tuple[float, int] | None = None
    version: str = "1.0"

    def to_dict(self) -> dict[str, Any]:
        """DocuBench's output: ``{"arrays"?, "non_array"?, "final"}``."""
        out: dict[str, Any] = {}
        if self.arrays is not None:
            out["arrays"] = {k: {"score": s, "total": t} for k, (s, t) in self.arrays.items()}
        if self.non_array is not None:
            out["non_array"] = {"score": self.non_array[0], "total": self.non_array[1]}
        return {**out, "final": self.value}


def _v1_is_empty(value: Any) -> bool:
    """Spec 1.0 §1: empty is null, "", [] or {} -- never 0 or false."""
    return value is None or (isinstance(value, (str, list, dict)) and len(value) == 0)


def _v1_strip(value: Any) -> Any:
    """§1.1: objects drop members whose stripped value is "", [] or {}; arrays keep all."""
    if isinstance(value, list):
        return [_v1_strip(element) for element in value]
    if not isinstance(value, dict):
        return value
    members = ((key, _v1_strip(member)) for key, member in value.items())
    return {k: m for k, m in members if not (isinstance(m, (str, list, dict)) and not m)}


def _v1_normalize(value: Any, where: str) -> Any:
    """§1.2-1.3: numbers ``round(float, 6)``; strings unspaced, lower-cased, ``\\W`` deleted."""
    if isinstance(value, dict):
        return {key: _v1_normalize(member, where) for key, member in value.items()}
    if isinstance(value, list):
        return [_v1_normalize(element, where) for element in value]
    if isinstance(value, str):
        return _V1_NONWORD.sub("", _V1_SPACE.sub("", value).lower())
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return round(float(value), 6)
        except OverflowError:
            raise ScoringError(where, "", f"number {str(value)[:20]}... is too large "
                               "for a float; version 2.0 reads it exactly") from None
    return value


def _v1_array_fields(schema: Any, file: str) -> dict[str, tuple[str, ...]]:
    """§2: array name -> data path; ScoringError (§7) off a chain of ``properties``."""
    fields: dict[str, tuple[str, ...]] = {}
    stack: list[tuple[Any, list[Any]]] = [(schema, [])]  # depth-first, document order
    while stack:
        node, tokens = stack.pop()
        if isinstance(node, list):
            stack.extend(reversed([(v, [*tokens, i]) for i, v in enumerate(node)]))
        if not isinstance(node, dict):
            continue
        kind = node.get("type")
        if kind == "array" or (isinstance(kind, list) and "array" in kind):
            keys = [t for t in tokens if isinstance(t, str)]
            if not (len(keys) >= 2 and len(keys) % 2 == 0 and len(keys) == len(tokens)
                    and all(k == "properties" for k in keys[0::2])):
                raise ScoringError(file, json_pointer(tokens), (
                    "version 1.0 has no answer for an array field here (DocuBench only "
                    "scores arrays under a chain of 'properties'); version 2.0 scores it"))
            fields[keys[1]] = tuple(keys[1::2])
            continue
        stack.extend(reversed([(v, [*tokens, k]) for k, v in node.items()]))
    return fields


def _v1_items(value: Any, data_path: tuple[str, ...]) -> list[Any]:
    """§2 Items: the array at ``data_path`` in a pre-processed value, else ``[]``."""
    for key in data_path:
        if not isinstance(value, dict) or key not in value:
            return []
        value = value[key]
    return value if isinstance(value, list) else []


def _v1_flatten(item: Any, prefix: str = "") -> dict[str, Any]:
    """§3: an item as {dotted key: leaf}, arrays as JSON text; else ``{"_val": item}``."""
    if not isinstance(item, dict):
        return {"_val": item}
    leaves: dict[str, Any] = {}
    for key, member in item.items():  # a later key wins a collision
        if isinstance(member, dict):
            leaves.update(_v1_flatten(member, prefix + key + "."))
        else:
            leaves[prefix + key] = json.dumps(member, sort_keys=True) \
                if isinstance(member, list) else member
    return leaves


def _v1_array_score(label_items: list[Any], result_items: list[Any]) -> tuple[float, float]:
    """§3: (score, weight) of one array field by greedy pairing (0.0 pairs change nothing)."""
    n_label, n_result = len(label_items), len(result_items)
    if n_label == 0 and n_result == 0:
        return 1.0, 0.0
    label_leaves = [_v1_flatten(item) for item in label_items]
    result_leaves = [_v1_flatten(item) for item in result_items]
    label_full, result_full = ([{k for k, v in leaves.items() if not _v1_is_empty(v)}
                                for leaves in side] for side in (label_leaves, result_leaves))
    weight = max(n_label, n_result) * (
        sum(max(1, len(full)) for full in label_full) / n_label if n_label else 1.0)
    if n_label == 0 or n_result == 0:
        return 0.0, weight
    pairs = []
    for i, (a, a_full) in enumerate(zip(label_leaves, label_full, strict=True)):
        for j, (b, b_full) in enumerate(zip(result_leaves, result_full, strict=True)):
            both = a_full & b_full
            kept_keys = len(a_full) + len(b_full) - len(both)
            if (equal := sum(a[k] == b[k] for k in both)) or not kept_keys:
                pairs.append((equal / kept_keys if kept_keys else 1.0, i, j))
    pairs.sort(key=lambda pair: pair[0], reverse=True)  # stable: ties keep (i, j) order
    free_label, free_result, total = [True] * n_label, [True] * n_result, 0.0
    for similarity, i, j in pairs:
        if free_label[i] and free_result[j]:
            free_label[i] = free_result[j] = False
            total += similarity
    return total / max(n_label, n_result), weight


def _v1_prune(node: Any) -> Any:
    """§4: the schema without array subschemas, empty members and propertyless objects."""
    def keep(member: Any) -> bool:
        return member is not _V1_GONE and not (isinstance(member, (list, dict)) and not member)
    if isinstance(node, list):
        return [e for e in map(_v1_prune, node) if keep(e)]
    if not isinstance(node, dict):
        return node
    kind = node.get("type")
    if kind == "array" or (isinstance(kind, list) and "array" in kind):
        return _V1_GONE
    out = {k: m for k, m in ((key, _v1_prune(member)) for key, member in node.items()) if keep(m)}
    kind = out.get("type")
    is_object = kind == "object" or (isinstance(kind, list) and "object" in kind)
    return _V1_GONE if is_object and not out.get("properties") else out


def _v1_non_array(pruned: dict[str, Any], result: Any, label: Any, file: str) -> tuple[float, int]:
    """§4: (score, counted) of the non-array leaves, values compared by ``==``."""
    correct = counted = 0
    stack: list[tuple[Any, Any, Any, str]] = [(pruned, result, label, "")]
    while stack:
        node, res, lab, pointer = stack.pop()
        props = node.get("properties") if isinstance(node, dict) else None
        if isinstance(node, dict) and node.get("type") == "object" and props:
            if not isinstance(props, dict):  # the reference crashes on this schema
                raise ScoringError(file, pointer + "/properties",
                                   "'properties' is not an object; version 1.0 has no answer")
            stack.extend(reversed([
                (child, res.get(key) if isinstance(res, dict) else None,
                 lab.get(key) if isinstance(lab, dict) else None,
                 f"{pointer}/properties/{_token(key)}") for key, child in props.items()]))
        elif not (_v1_is_empty(res) and _v1_is_empty(lab)):
            counted += 1
            correct += res == lab
    return (correct / counted if counted else 1.0), counted


@dataclass(frozen=True)
class DocumentV1:
    """A 1.0 document (spec 1.0 §1-§4); ``problem``: no answer (§7), raised by every score."""
    arrays: dict[str, tuple[str, ...]]
    pruned: Any
    label: Any
    file: str = ""
    problem: ScoringError | None = None

    @classmethod
    def prepare(cls, schema: Any, label: Any, file: str = "") -> DocumentV1:
        try:
            arrays = _v1_array_fields(schema, file)
            try:
                pruned, label = _v1_prune(schema), _v1_normalize(_v1_strip(label), "label")
            except RecursionError:  # the reference overflows too; name the input instead
                raise ScoringError(file, "", "schema or label nested too deeply to walk") from None
            if not arrays and not (isinstance(pruned, dict) and pruned.get("properties")):
                raise ScoringError(file, "", "version 1.0 has no answer for a schema with "
                                   "no scorable field (DocuBench raises); version 2.0 scores it")
        except ScoringError as problem:
            return cls({}, None, None, file, problem)
        return cls(arrays, pruned, label, file)

    def score(self, result: Any) -> DocScoreV1:
        """The score of ``result`` as DocuBench computes it; raises :attr:`problem`."""
        if self.problem is not None:
            raise self.problem
        try:
            result = _v1_normalize(_v1_strip(result), "result")
        except (ScoringError, RecursionError):
            result = {}  # the reference crashes; a prediction is never an error: no result
        return self.final({name: _v1_array_score(_v1_items(self.label, path),
                                                 _v1_items(result, path))
                           for name, path in self.arrays.items()}, result)

    def final(self, arrays: dict[str, tuple[float, float]], result: Any) -> DocScoreV1:
        """§5: the document score from its arrays' (score, weight) and the non-array part."""
        non_array = _v1_non_array(self.pruned, result, self.label, self.file) \
            if isinstance(self.pruned, dict) and self.pruned.get("properties") else None
        return DocScoreV1(v1_final(arrays or None, non_array), arrays or None, non_array)

    def value(self, result: Any) -> float:
        """The score value of ``result`` (as :meth:`Document.value`)."""
        return self.score(result).value

    def parse_failure(self, data: Any = None) -> DocScoreV1:
        """DocuBench scores what an unusable envelope gives (spec 1.0 §6): its data or {}."""
        return self.score({} if data is None else data)

    def missing(self) -> None:
        """A missing result file is left out of the mean (spec 1.0 §6): no score."""
        return None


def v1_final(arrays: Mapping[str, tuple[float, float]] | None,
             non_array: tuple[float, int] | None) -> float:
    """Spec 1.0 §5: ``final``, in DocuBench's order of float operations."""
    if not arrays:
        return non_array[0] if non_array is not None else 1.0
    weighted = total = 0.0
    for s, w in [*arrays.values(), *([non_array] if non_array is not None else [])]:
        total += w
        weighted += s * w
    return weighted / total if total else 1.0


# ===== 9. Versions and entry points =======================================================
# A scoring version is one record: no code outside the records asks which version it runs.

@dataclass(frozen=True)
class Outcome:
    """A result file's ``status`` (scored, parse_failure, missing), ``data`` and ``note``."""
    status: str
    data: Any
    note: str = ""


#: Marks a result file that holds no usable JSON (passed to an envelope rule).
UNREADABLE: Any = type("Unreadable", (), {"__repr__": lambda self: "UNREADABLE"})()


def _envelope_v1(value: Any, schema: Any) -> Outcome:
    """DocuBench's rule (spec 1.0 §6): an object's ``data``, anything else ``{}``."""
    if not isinstance(value, dict):
        why = "not valid JSON" if value is UNREADABLE else "not a JSON object"
        return Outcome("parse_failure", {}, f"{why}: scored as {{}}")
    failed = value.get("status") == "failed"
    data = value.get("data", {})
    return Outcome("parse_failure" if failed else "scored", {} if data is None else data,
                   "envelope status is 'failed'" if failed else "")


def is_envelope(value: Any, schema: Any) -> bool:
    """An object with ``status``, or an undeclared ``data`` (spec 2.0 §6; SCORING.md, choices)."""
    if not isinstance(value, dict):
        return False
    if "status" in value:
        return True
    declared = schema.get("properties") if isinstance(schema, dict) else None
    return "data" in value and not (isinstance(declared, dict) and "data" in declared)


def _envelope_v2(value: Any, schema: Any) -> Outcome:
    """Spec 2.0 §6: an envelope's ``data`` (text holding JSON decoded), or a parse failure."""
    if value is UNREADABLE:
        return Outcome("parse_failure", None, "not valid JSON")
    if not is_envelope(value, schema):
        if isinstance(value, dict) or (isinstance(schema, dict)
                                       and schema.get("type") not in (None, "object")):
            return Outcome("scored", value)
        return Outcome("parse_failure", None, f"result is a JSON {_kind(value)}, not an object")
    if (status := value.get("status", "ok")) != "ok":
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
    kinds = (("boolean", bool), ("object", dict), ("array", list), ("string", str),
             ("number", (int, float, Decimal)))
    return next((kind for kind, types in kinds if isinstance(value, types)), "null")


def _mean_v1(values: Sequence[float]) -> float:
    """``math.fsum / len``: DocuBench's summary.json, all 126 cells, bit for bit."""
    return math.fsum(values) / len(values)


@dataclass(frozen=True)
class ScoringVersion:
    """One scoring version, whole: the only place where versions differ."""
    name: str
    #: (schema, label, options, schema file[, label file]) -> the document prepared
    document: Callable[..., Any]
    envelope: Callable[[Any, Any], Outcome]
    pairing: str
    mean: Callable[[Sequence[float]], float]  #: 2.x: statistics.mean, correctly rounded
    result_type: type
    uses_options: bool
    missing_rule: str
    has_verdicts: bool = True  #: whether a document score lists one verdict per leaf
    reads_readings: bool = True  #: whether a label may give readings (spec 2.1 §6)

    def score_outcome(self, outcome: Outcome, schema: Any, label: Any, options: Options,
                      file: str = "", document: Any = None) -> Any:
        """The score of an :class:`Outcome` (None: not scored), ``document`` prepared or not."""
        document = document or self.document(schema, label, options, file)
        if outcome.status == "missing":
            return document.missing()
        if outcome.status == "parse_failure":
            return document.parse_failure(outcome.data)
        return document.score(outcome.data)

    def value_of(self, outcome: Outcome, document: Any) -> float | None:
        """Only the score value of an :class:`Outcome` (None: not scored), ``document``
        prepared: what ``python scorer.py ROOT`` shows, without listing verdicts."""
        if outcome.status == "scored":
            return document.value(outcome.data)
        doc = self.score_outcome(outcome, None, None, Options(), document=document)
        return None if doc is None else doc.value


VERSIONS: dict[str, ScoringVersion] = {
    "1.0": ScoringVersion("1.0", lambda s, lab, o, f, lf="": DocumentV1.prepare(s, lab, f),
                          _envelope_v1,
                          "greedy", _mean_v1, DocScoreV1, False, "left out of the mean", False,
                          False),
    "2.0": ScoringVersion("2.0", _document_2_0, _envelope_v2, "optimal", statistics.mean,
                          DocScore, True, "scored as an empty result", reads_readings=False),
    "2.1": ScoringVersion("2.1", _document_2_1, _envelope_v2, "lexicographic", statistics.mean,
                          DocScore, True, "scored as an empty result")}
DocumentScore = DocScore | DocScoreV1  #: a document score of any version


def scoring_version(version: str | None) -> ScoringVersion:
    """The record of ``version`` (None: the default); ValueError quoting the choices."""
    if (record := VERSIONS.get(DEFAULT_VERSION if version is None else version)) is None:
        choices = ", ".join(repr(v) for v in SCORING_VERSIONS)
        raise ValueError(f"version={version!r} is not one of {choices}")
    return record


def score(result: Any, schema: Any, label: Any, *, version: str = DEFAULT_VERSION,
          options: Options | Mapping[str, Any] | None = None, file: str = "") -> DocumentScore:
    """Score ``result`` (any JSON value) against ``label`` under ``schema`` (a JSON Schema dict)
    by ``version``: a :class:`DocScore` (2.x) or :class:`DocScoreV1` (1.0), ``.value`` in [0,
    1]. ValueError for an unknown version or option, ScoringError for an unusable schema or label.

    >>> schema = {"type": "object", "properties": {"n": {"type": "number"}}}
    >>> score({"n": "1,240.00"}, schema, {"n": 1240}).value
    1.0
    >>> score({"n": "1.240,00"}, schema, {"n": 1240}, version="1.0").value
    0.0
    """
    return scoring_version(version).document(schema, label, _as_options(options), file).score(
        result)


def score_parse_failure(schema: Any, label: Any, *, version: str = DEFAULT_VERSION,
                        options: Options | Mapping[str, Any] | None = None,
                        file: str = "") -> DocumentScore:
    """Score an unusable result (2.x: each label leaf ``parse_failure``, 0.0); as :func:`score`."""
    return scoring_version(version).document(schema, label, _as_options(options),
                                             file).parse_failure()


def score_file(result: str | os.PathLike[str], schema: str | os.PathLike[str],
               label: str | os.PathLike[str], *, version: str = DEFAULT_VERSION,
               options: Options | Mapping[str, Any] | None = None) -> DocumentScore:
    """Score result, schema and label files as every entry point does; InputError, as score."""
    record = scoring_version(version)
    schema_value, label_value = read_json_file(schema).value, read_json_file(label).value
    return record.score_outcome(read_outcome(Path(result), schema_value, record), schema_value,
                                label_value, _as_options(options), str(schema))


# ===== 10. Files: reading, envelopes, config, folder, CLI =================================
# One reader for every file of every entry point; the package adds warnings, never a rule.

MAX_FILE_BYTES = 64 * 1024 * 1024  #: largest file read, in bytes (a bigger result: parse failure)
MAX_DEPTH = 200  #: deepest nesting of objects and arrays read from a file (``[[1]]`` is 2)
#: Byte-order marks, longest first (UTF-32-LE's starts with UTF-16-LE's); none: UTF-8.
_BOMS = ((b"\xff\xfe\x00\x00", "utf-32-le", "UTF-32"), (b"\x00\x00\xfe\xff", "utf-32-be", "UTF-32"),
         (b"\xef\xbb\xbf", "utf-8", "UTF-8"), (b"\xff\xfe", "utf-16-le", "UTF-16"),
         (b"\xfe\xff", "utf-16-be", "UTF-16"))
FENCE = re.compile(r"\s*```[ \t]*(?:json5?|JSON|jsonc)?[ \t]*\r?\n(?P<body>.*?)\r?\n?[ \t]*```\s*",
                   re.DOTALL)
_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
_USAGE = """python scorer.py [ROOT] [--version V] [--format table|json|md]
       python scorer.py RESULT.json SCHEMA.json LABEL.json [--version V] [--details]"""
_EPILOG = """formats: table = documents x systems in percent; json = the same as JSON, fractions
in [0, 1]; md = a ranked leaderboard in percent. One document: its score as JSON (fractions);
with --details, a table of every leaf's verdict (--format json: JSON, every verdict).

example: python scorer.py . --format md"""


@dataclass(frozen=True)
class Parsed:
    """A value as read, its warnings (a line each) and how many :class:`JSONNumber` it holds."""
    value: Any
    warnings: tuple[str, ...] = ()
    written_numbers: int | None = dataclasses.field(default=None, compare=False, repr=False)


class JSONNumber(float):
    """A float read from a file with ``text``, its written form (spec 2.0 §7)."""
    __slots__ = ("text",)


class _Refused(Exception):
    """Raised by a parse hook; ``args``: the literal refused and why."""


def _refuse_constant(name: str) -> Any:
    raise _Refused(name, f"{name} is not a JSON value (RFC 8259 allows finite numbers only)")


def decode_bytes(data: bytes, source: str, warnings: list[str]) -> str:
    """Text of a file: UTF-8, or as a byte-order mark says; InputError at a bad byte."""
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


def _deepest(data: bytes, limit: int) -> int:
    """Offset of the bracket opening level ``limit + 1``, -1 for none; linear, unparsed."""
    if data.count(b"[") + data.count(b"{") <= limit:
        return -1
    import numpy as np  # only a file with more brackets than levels allowed needs it
    step = np.zeros(256, dtype=np.int8)
    step[[ord("["), ord("{")]] = 1
    step[[ord("]"), ord("}")]] = -1
    if b"\\" in data:
        data = data.replace(b"\\\\", b"__").replace(b'\\"', b"__")
    codes = np.frombuffer(data, dtype=np.uint8)
    at = np.flatnonzero(step[codes])
    quotes_before = np.searchsorted(np.flatnonzero(codes == 0x22), at)
    at = at[(quotes_before & 1) == 0]
    depth = np.cumsum(step[codes[at]], dtype=np.int64)
    over = np.flatnonzero(depth > limit)
    return int(at[over[0]]) if over.size else -1


def _outside_strings(text: str, token: str) -> int:
    """Offset of the first ``token`` outside JSON strings (0 if none), in linear time."""
    strings_or_token = re.compile(r'"(?:[^"\\]|\\.)*"|' + re.escape(token), re.DOTALL)
    return next((m.start() for m in strings_or_token.finditer(text) if m[0] == token), 0)


def _line_column(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    return f"line {line} column {offset - (text.rfind(chr(10), 0, offset) + 1) + 1}"


def _replace_surrogates(value: Any) -> tuple[Any, int]:
    """``value`` with lone surrogates made U+FFFD, and how many (nesting was bounded first)."""
    if isinstance(value, str):
        return _LONE_SURROGATE.subn("\ufffd", value)
    if isinstance(value, list):
        fixed = [_replace_surrogates(item) for item in value]
        return [item for item, _ in fixed], sum(count for _, count in fixed)
    if isinstance(value, dict):
        pairs = [(_replace_surrogates(k), _replace_surrogates(v)) for k, v in value.items()]
        return ({k: v for (k, _), (v, _) in pairs},
                sum(key_count + count for (_, key_count), (_, count) in pairs))
    return value, 0


def unwrap_fence(text: str) -> str:
    """The body of a markdown code fence around the whole ``text``, else ``text``."""
    return fenced.group("body") if (fenced := FENCE.fullmatch(text)) else text


def parse_json(data: bytes | str, source: str, *, max_depth: int = MAX_DEPTH) -> Parsed:
    """One JSON value by the reader's rules (docs/SCORING.md, "Reading files"); InputError."""
    warnings: list[str] = []
    text = decode_bytes(bytes(data), source, warnings) if not isinstance(data, str) else data
    if text.startswith("\ufeff"):
        text = text[1:]
        warnings.append(f"{source}: a byte-order mark (U+FEFF) starts the text; ignored")
    if not text.strip():
        raise InputError(source, "", "is empty, expected a JSON value")
    encoded = text.encode("utf-8", "surrogatepass")
    if (deep := _deepest(encoded, max_depth)) >= 0:
        offset = len(encoded[:deep].decode("utf-8", "surrogatepass"))
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

    def read_float(token: str) -> float:  # a float, or a JSONNumber if written otherwise
        number = float(token)
        if math.isinf(number):
            short = token if len(token) <= 24 else f"{token[:20]}...({len(token):,} characters)"
            raise _Refused(token, f"number {short} is too large for a float")
        if repr(number) == token:
            return number
        exact = JSONNumber(token)
        exact.text = token
        written.append(exact)
        return exact
    try:
        value = json.loads(text, object_pairs_hook=members, parse_constant=_refuse_constant,
                           parse_float=read_float)
    except json.JSONDecodeError as exc:
        raise InputError(source, _line_column(text, exc.pos), exc.msg) from None
    except _Refused as refused:  # args: the literal refused, the reason
        at = _outside_strings(text, refused.args[0])
        raise InputError(source, _line_column(text, at), refused.args[1]) from None
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


def read_file_bytes(path: str | os.PathLike[str], *, source: str | None = None,
                    max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """A regular file's bytes, at most ``max_bytes``; InputError naming ``source``."""
    name = os.fspath(path)
    source = name if source is None else source
    try:
        # opened without waiting (a FIFO waits for a writer); unopenable: stat names it
        try:
            fd = os.open(name, _OPEN_FLAGS)
        except OSError as exc:
            if not isinstance(exc, FileNotFoundError):
                _check_file(os.stat(name), source, max_bytes)
            raise
        try:
            info = os.fstat(fd)
            _check_file(info, source, max_bytes)
            # the size found, not the limit (max_bytes + 1 would allocate 64 MiB a file);
            # a file grown after fstat is read on, up to the limit
            data, want = b"", info.st_size + 1
            while len(data) <= max_bytes and (chunk := os.read(fd, want - len(data))):
                data += chunk
                want = max_bytes + 1 if len(data) >= want else want
        finally:
            os.close(fd)
    except FileNotFoundError:
        raise InputError(source, "", "no such file") from None
    except OSError as exc:
        raise InputError(source, "", f"cannot read: {exc.strerror or exc}") from None
    if len(data) > max_bytes:  # grew after fstat
        raise InputError(source, "", _too_large(len(data), max_bytes))
    return data


def _check_file(info: os.stat_result, source: str, max_bytes: int) -> None:
    if stat.S_ISDIR(info.st_mode):
        raise InputError(source, "", "is a directory, expected a JSON file")
    if not stat.S_ISREG(info.st_mode):
        raise InputError(source, "", "is not a regular file, expected a JSON file")
    if info.st_size > max_bytes:
        raise InputError(source, "", _too_large(info.st_size, max_bytes))


def _too_large(size: int, limit: int) -> str:
    return (f"file is {size:,} bytes, larger than the limit of {limit:,} bytes "
            f"({limit / 2**20:g} MiB)")


def read_json_file(path: str | os.PathLike[str], *, source: str | None = None,
                   max_bytes: int = MAX_FILE_BYTES) -> Parsed:
    """A JSON file by :func:`read_file_bytes`, :func:`parse_json`; InputError as they raise."""
    source = os.fspath(path) if source is None else source
    return parse_json(read_file_bytes(path, source=source, max_bytes=max_bytes), source)


def read_outcome(path: Path, schema: Any, record: ScoringVersion,
                 root: Path | None = None) -> Outcome:
    """What a result file becomes under a version (an :class:`Outcome`); never raises."""
    if not path.exists() and not path.is_symlink():
        return Outcome("missing", {}, f"missing: {record.missing_rule}")
    try:  # resolved past a link or ".." below root only: each step resolved is a system call
        steps = path.relative_to(root).parts if root and path.is_relative_to(root) else ("..",)
        linked = ".." in steps or any(p.is_symlink() for p in [path, *path.parents][:len(steps)])
        if root is not None and linked and not path.resolve().is_relative_to(root.resolve()):
            raise InputError(str(path), "", "symlink leads outside the benchmark folder")
        value = read_json_file(path).value
    except InputError as exc:
        outcome = record.envelope(UNREADABLE, schema)
        return dataclasses.replace(outcome, note=f"{exc.pointer + ': ' if exc.pointer else ''}"
                                   f"{exc.reason}: {outcome.note}")
    return record.envelope(value, schema)


# ----- benchmark.toml ------------------------------------------------------------------
CONFIG_NAME = "benchmark.toml"
#: The keys of ``benchmark.toml`` and their TOML types; any other key is an error.
CONFIG_KEYS: dict[str, type] = {
    "name": str, "version": str, "scoring_version": str, "metadata": str,
    "breakdowns": list, "options": dict, "display_names": dict, "schema": str, "schema_by": str,
    "costs": dict}  # costs: read by leafscore (leafscore/costs.py), never by the metric


def parse_config(text: str, source: str = CONFIG_NAME) -> dict[str, Any]:
    """A ``benchmark.toml``'s table, checked, ``options`` an :class:`Options`; InputError."""
    import tomllib  # loaded with the first benchmark.toml: most runs have none
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(source, "", f"invalid TOML: {exc}") from None
    for key, value in table.items():
        if key not in CONFIG_KEYS:
            known = ", ".join(sorted(CONFIG_KEYS))
            raise InputError(source, key, f"unknown key {key!r} (known keys: {known})")
        if not isinstance(value, CONFIG_KEYS[key]):
            want = {str: "a string", list: "an array", dict: "a table"}[CONFIG_KEYS[key]]
            quote = f' (quoted: {key} = "{value}")' if want == "a string" and isinstance(
                value, int | float) and not isinstance(value, bool) else ""
            raise InputError(source, key, f"must be {want}, not {value!r}{quote}")
    if not all(isinstance(b, str) for b in table.get("breakdowns", ())):
        raise InputError(source, "breakdowns", "must be a list of column names")
    if not all(isinstance(v, str) for v in table.get("display_names", {}).values()):
        raise InputError(source, "display_names", "values must be strings")
    if "schema" in table and "schema_by" in table:
        raise InputError(source, "schema_by", "give schema or schema_by, not both (a document "
                         "without schemas/<id>.json takes one of them)")
    if "schema" in table and (_not_a_name(table["schema"][:-5])
                              or not table["schema"].endswith(".json")):
        raise InputError(source, "schema", f"must name a .json file in schemas/, no path "
                         f"(got {table['schema']!r})")
    if table.get("schema_by") == "":
        raise InputError(source, "schema_by", "must name a metadata column")
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
    """``ROOT/benchmark.toml`` by :func:`parse_config` (absent: default options); InputError."""
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
# schemas/<id>.json, labels/<id>.json, results/<system>/<id>.json: `python scorer.py ROOT`.

def is_hidden(name: str) -> bool:
    """Hidden entries (``.git``, editor files) are skipped by every entry point."""
    return name.startswith(".")


def document_ids(folder: Path) -> list[str]:
    """Sorted ids of ``folder/<id>.json``, hidden ones skipped; InputError if no folder."""
    if not folder.is_dir():
        raise InputError(f"{folder}/", "", f"folder is missing (looked in "
                         f"{folder.resolve().parent}; expected schemas/, labels/ and "
                         "results/<system>/ there)")
    return sorted(p.name[:-5] for p in folder.iterdir()
                  if p.name.endswith(".json") and not is_hidden(p.name))


def system_names(results: Path) -> list[str]:
    """Sorted system folders under ``results``, hidden ones skipped; InputError if none."""
    names = sorted(p.name for p in results.iterdir() if p.is_dir() and not is_hidden(p.name)) \
        if results.is_dir() else []
    if not names:
        raise InputError(f"{results}/", "", f"no system folders to score (looked in "
                         f"{results.resolve()}; expected results/<system>/<id>.json)")
    return names


SUMMARY_FILES = ("summary.json", "summary.csv")  #: `leafscore report`'s, beside the systems


def stray_files(root: Path) -> list[tuple[str, str]]:
    """(file, why) of each file beside the system folders in ``results/`` (if any), by name,
    hidden ones and SUMMARY_FILES skipped: no score is read from it; every entry point warns."""
    if not (root / "results").is_dir():  # a benchmark no system has run on (`leafscore plan`)
        return []
    return [(f"results/{name}", "not in a system folder (results/<system>/<id>.json): ignored")
            for name in sorted(os.listdir(root / "results"))
            if not (is_hidden(name) or name in SUMMARY_FILES or (root / "results" / name).is_dir())]


def unread_results(root: Path, systems: Sequence[str], ids: Sequence[str]) -> list[tuple[str, str]]:
    """(file, why) of each file in a system folder that names no labelled document, by system
    and name, hidden ones skipped: no score is read from it, and every entry point warns."""
    wanted = {f"{doc_id}.json" for doc_id in ids}
    return [(f"results/{system}/{name}", "not a result of a labelled document: ignored")
            for system in systems for name in sorted(os.listdir(root / "results" / system))
            if name not in wanted and not is_hidden(name)]


MAX_NAME_BYTES = 200  #: longest document id or system name, UTF-8 (a file name holds 255)


def name_problem(name: str) -> str:
    """Why ``name`` cannot be a document id or system name, "" if it can: it is empty, ``.``
    or ``..``, holds a path separator or a control character, starts with ``.`` (hidden) or
    ``-`` (read as an option), has blanks at either end, or is over MAX_NAME_BYTES."""
    if not name:
        return "is empty"
    if name in (".", ".."):
        return "is a relative path component"
    if "/" in name or "\\" in name:
        return "holds a path separator"
    if any(unicodedata.category(char) in ("Cc", "Cs") for char in name):
        return "holds a control character or surrogate"
    if name[0] in ".-":
        return f"starts with {name[0]!r}"
    if name != name.strip():
        return "starts or ends with whitespace"
    if len(name.encode("utf-8")) > MAX_NAME_BYTES:
        return f"is longer than {MAX_NAME_BYTES} bytes"
    return ""


def check_names(kind: str, folder: Path, names: list[str], suffix: str) -> list[str]:
    """``names``, of entries ``folder/<name><suffix>``, if each can be a ``kind``
    (:func:`name_problem`); else InputError naming the first that cannot."""
    for name in names:
        if reason := name_problem(name):
            raise InputError(f"{folder / name}{suffix}", "", f"{kind} {name!r} {reason}")
    return names


# ----- which schema a document is scored with (docs/SCORING.md, "Reading files") -------
METADATA_FILES = ("metadata.json", "sources.json")  #: looked for when benchmark.toml names none


def _not_a_name(value: str) -> bool:
    """A schema name must be a file's stem in ``schemas/``: no path, nothing hidden."""
    return not value or value.startswith(".") or any(c in value for c in "/\\\x00")


def schema_name(doc_id: str, schemas: set[str] | frozenset[str], schema: str | None,
                schema_by: str | None, record: Mapping[str, Any] | None, place: tuple[str, str],
                folder: str = "schemas", label_file: str | None = None) -> str:
    """The file in ``folder`` document ``doc_id`` is scored with: its own ``<id>.json``; else
    ``<value>.json``, ``value`` its ``record``'s member named by benchmark.toml's
    ``schema_by``; else the file named by ``schema``. ``schemas``: the stems in ``folder``;
    ``place``: (file, pointer) of ``record``, or where it is missing. InputError otherwise."""
    if doc_id in schemas:
        return f"{doc_id}.json"
    if schema is not None:
        if schema[:-5] not in schemas:
            raise InputError(CONFIG_NAME, "schema", f"names {folder}/{schema}, which does not "
                             f"exist (document {doc_id!r} has no {folder}/{doc_id}.json)")
        return schema
    if schema_by is None:
        raise InputError(label_file or f"labels/{doc_id}.json", "",
                         f"no schema {folder}/{doc_id}.json")
    if record is None:
        raise InputError(*place, f"no record of document {doc_id!r} to read schema_by = "
                         f"{schema_by!r} from, and no {folder}/{doc_id}.json")
    value = record.get(schema_by)
    if not isinstance(value, str) or not value:
        said = f"{schema_by!r} is {value!r}" if schema_by in record else f"no {schema_by!r}"
        raise InputError(*place, f"document {doc_id!r} has {said}, not the name of a schema "
                         f"(schema_by), and no {folder}/{doc_id}.json")
    if _not_a_name(value):
        raise InputError(*place, f"document {doc_id!r}: {schema_by} {value!r} is a path, not "
                         f"the name of a file in {folder}/ (no '/', '\\' or leading '.')")
    if value not in schemas:
        raise InputError(*place, f"document {doc_id!r}: {schema_by} {value!r} names "
                         f"{folder}/{value}.json, which does not exist")
    return f"{value}.json"


def metadata_records(value: Any, source: str) -> dict[str, tuple[str, dict[str, Any]]]:
    """doc_id -> (JSON pointer, record) of a metadata file's value, a list of objects each
    with a string ``doc_id`` (a repeated id: the last record); InputError otherwise."""
    if not isinstance(value, list):
        raise InputError(source, "", "metadata must be a JSON list of records")
    records: dict[str, tuple[str, dict[str, Any]]] = {}
    for i, rec in enumerate(value):
        if not isinstance(rec, dict) or not isinstance(rec.get("doc_id"), str):
            raise InputError(source, f"/{i}", "record is not an object with a string doc_id")
        records[rec["doc_id"]] = (f"/{i}", rec)
    return records


def schema_records(root: Path, metadata: str | None) -> tuple[str, dict[str, Any]]:
    """(its name, :func:`metadata_records`) of a folder's metadata file for ``schema_by``:
    ``metadata``, else the first of ``METADATA_FILES`` present (none: benchmark.toml, {})."""
    name = metadata or next((n for n in METADATA_FILES if (root / n).is_file()), None)
    if name is None:
        return CONFIG_NAME, {}
    if not (root / name).resolve().is_relative_to(root.resolve()):
        raise InputError(name, "", "leads outside the benchmark folder")
    return name, metadata_records(read_json_file(root / name, source=name).value, name)


def folder_schemas(root: Path, ids: Sequence[str], *, schema: str | None = None,
                   schema_by: str | None = None, metadata: str | None = None) -> dict[str, str]:
    """doc id -> the file in ``ROOT/schemas/`` it is scored with (:func:`schema_name`), the
    metadata read (:func:`schema_records`) only for ``schema_by``."""
    stems = check_names("document id", root / "schemas", document_ids(root / "schemas"), ".json")
    source, records = schema_records(root, metadata) if schema_by is not None else ("", {})
    schemas, names = set(stems), {}
    for i in ids:  # a missing record is named at the file, or at schema_by when there is none
        pointer, record = records.get(i, ("schema_by" if source == CONFIG_NAME else "", None))
        names[i] = schema_name(i, schemas, schema, schema_by, record, (source, pointer))
    return names


def score_folder(root: Path, version: str, options: Options | None = None,
                 config: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``{"version", "systems": {system: {"score", "documents": {id: score}}}}`` of a folder;
    ``config``: benchmark.toml's table (:func:`read_config`), for its ``schema``/``schema_by``."""
    record, options, config = scoring_version(version), options or Options(), config or {}
    ids = check_names("document id", root / "labels", document_ids(root / "labels"), ".json")
    if not ids:  # the label files are the documents: no label, nothing to score
        raise InputError(f"{root / 'labels'}/", "", "no label files (labels/<id>.json)")
    systems = check_names("system name", root / "results", system_names(root / "results"), "/")
    names = folder_schemas(root, ids, schema=config.get("schema"),
                           schema_by=config.get("schema_by"), metadata=config.get("metadata"))
    files = [(root / "schemas" / names[i], root / "labels" / f"{i}.json") for i in ids]
    read = [(read_json_file(schema).value, read_json_file(label).value) for schema, label in files]
    values: dict[str, dict[str, float | None]] = {system: {} for system in systems}
    notes: dict[tuple[str, str], str] = {}
    for doc_id, (schema_file, label_file), (schema, label) in zip(ids, files, read, strict=True):
        document = record.document(schema, label, options, str(schema_file), str(label_file))
        for system in systems:  # each system's result against the document read once
            path = root / "results" / system / f"{doc_id}.json"
            outcome = read_outcome(path, schema, record, root)
            if outcome.note:
                notes[system, doc_id] = f"scorer.py: warning: {path}: {outcome.note}"
            values[system][doc_id] = record.value_of(outcome, document)
    for file, why in stray_files(root) + unread_results(root, systems, ids):  # before notes
        print(f"scorer.py: warning: {root / file}: {why}", file=sys.stderr)
    for system_and_id in sorted(notes):  # by system, then document
        print(notes[system_and_id], file=sys.stderr)
    out: dict[str, Any] = {"version": version, "systems": {}}
    for system in systems:
        scored = [v for v in values[system].values() if v is not None]
        out["systems"][system] = {"score": record.mean(scored) if scored else None,
                                  "documents": values[system]}
    return out


def _table(rows: list[Sequence[Any]], headers: list[str], markdown: bool = False) -> str:
    """Left-aligned columns two wider than their header, over a dashed rule, or markdown."""
    cells = [list(map(str, headers)), *([str(c) for c in row] for row in rows)]
    widths = [max(len(headers[k]) + 2, *(len(row[k]) for row in cells))
              for k in range(len(headers))]
    if markdown:
        lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |"
                 for row in cells]
        return "\n".join([lines[0], "|" + "|".join("-" * (w + 2) for w in widths) + "|",
                          *lines[1:]])
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
             for row in cells]
    return "\n".join([lines[0], "  ".join("-" * w for w in widths), *lines[1:]])


def render_folder(scores: dict[str, Any], fmt: str) -> str:
    """``score_folder``'s output as ``json`` (fractions), ``table`` (%) or ``md`` (ranked, %)."""
    systems = scores["systems"]
    if fmt == "json":
        return json.dumps(scores, indent=2)
    header = f"leafscore scoring version {scores['version']}"
    if fmt == "md":
        ranked = sorted(systems.items(), key=lambda kv: (kv[1]["score"] is None,
                                                         -(kv[1]["score"] or 0.0), kv[0]))
        rows = [(rank, name, "n/a" if entry["score"] is None else f"{100 * entry['score']:.2f}")
                for rank, (name, entry) in enumerate(ranked, start=1)]
        table = _table(rows, ["rank", "system", "score (%)"], markdown=True)
        return f"{table}\n\n_{header}; score = macro average of document scores._"
    names = list(systems)
    ids = list(next(iter(systems.values()))["documents"]) if systems else []
    rows = [[doc_id, *(systems[s]["documents"][doc_id] for s in names)] for doc_id in ids]
    rows.append(["score (macro)", *(systems[s]["score"] for s in names)])
    rows = [[row[0], *("n/a" if v is None else f"{100 * v:.2f}" for v in row[1:])] for row in rows]
    return f"{header}; scores in %\n" + _table(rows, ["document", *names])


def _score_one(paths: list[str], version: str, details: bool, fmt: str | None) -> str:
    """One document's score as JSON; ``details``: every verdict, as a table of one leaf a
    line (``table``, the default, or ``md``) or as JSON (``--format json``)."""
    result_path, schema_path, label_path = (Path(p) for p in paths)
    record = scoring_version(version)
    if details and not record.has_verdicts:
        raise InputError("--details", "", f"version {version} has no verdicts; use --version "
                         f"{SCORING_VERSIONS[-1]}")
    if not details and fmt in ("table", "md"):
        raise InputError("--format", "", f"one document's score is JSON; --format {fmt} goes "
                         "with --details")
    schema, label = read_json_file(schema_path).value, read_json_file(label_path).value
    outcome = read_outcome(result_path, schema, record)
    if outcome.status == "missing":
        raise InputError(str(result_path), "", "result file is missing")
    if outcome.note:
        print(f"scorer.py: warning: {result_path}: {outcome.note}", file=sys.stderr)
    doc = record.score_outcome(outcome, schema, label, Options(), str(schema_path))
    if not details:
        return json.dumps(doc.to_dict(), indent=2, ensure_ascii=False)
    if fmt == "json":
        return json.dumps(doc.to_dict(verdicts=True), indent=2, ensure_ascii=False)
    md = fmt == "md"
    rows = [(v.address, _cell(v.label, md), _cell(v.result, md), v.kind) for v in doc.verdicts]
    kinds = Counter(v.kind for v in doc.verdicts)
    tally = ", ".join(f"{kind} {n}" for kind, n in sorted(kinds.items()))
    return (f"{result_path}: accuracy {100 * doc.value:.2f}% (scoring version {doc.version}); "
            f"{len(rows)} leaves: {tally or 'none'}\n\n"
            + _table(rows, ["leaf", "label", "result", "verdict"], markdown=md)
            + "\n\n(values as compact JSON, cut at 40 characters; --format json gives "
            "every verdict in full)")


def _cell(value: Any, markdown: bool = False, width: int = 40) -> str:
    """A raw value for a table cell: compact JSON on one line, at most ``width`` long;
    ``-`` when absent; in markdown, ``|`` escaped so the cell stays one cell."""
    if value is None:
        return "-"
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    text = text if len(text) <= width else text[:width - 1] + "…"
    return text.replace("|", "\\|") if markdown else text


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2, no usage dump
        self.exit(2, f"scorer.py: {message}\n")


def main(argv: list[str] | None = None) -> int:
    """Command line of ``python scorer.py``; returns the exit code (0 ok, 2 bad input)."""
    parser = _Parser(prog="scorer.py", usage=_USAGE, epilog=_EPILOG,
                     formatter_class=argparse.RawDescriptionHelpFormatter,
                     description="Score extraction results against labels, leaf by leaf.")
    parser.add_argument("paths", nargs="*", help="ROOT (default .) or RESULT SCHEMA LABEL")
    parser.add_argument("--version", help=f"scoring version, one of {', '.join(SCORING_VERSIONS)} "
                        f"(default: ROOT/benchmark.toml's pin, else {DEFAULT_VERSION})")
    parser.add_argument("--format", choices=("table", "json", "md"), default=None)
    parser.add_argument("--details", action="store_true",
                        help="one document: print every leaf's verdict (versions 2.x)")
    args = parser.parse_args(argv)
    try:
        if args.version is not None:
            scoring_version(args.version)
    except ValueError as exc:
        parser.error(str(exc))
    try:
        if len(args.paths) == 3:
            version = args.version or DEFAULT_VERSION
            print(_score_one(args.paths, version, args.details, args.format))
        elif len(args.paths) <= 1:
            root = Path(args.paths[0] if args.paths else ".")
            if not root.is_dir():
                raise InputError(str(root), "", "no such benchmark folder")
            config = read_config(root)
            version = args.version or config.get("scoring_version") or DEFAULT_VERSION
            print(render_folder(score_folder(root, version, config["options"], config),
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
