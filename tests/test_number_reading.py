"""Generated differential tests of number and date reading (issue 9).

Number strings are built from parts (sign marker and its place, parentheses, trailing
minus, currency symbol or ISO code before or after, spaces, western, Indian or no
grouping by ``,`` ``.`` space ``'`` ``_`` NBSP, decimal mark, exponent, percent); the value
each should read as under a field separator is derived from the parts by the spec's rules
(spec 2.0 §3 number, §7 Values), never by parsing the string. Dates are built from every
default format, padded and not, day-first and month-first, with the ISO date known.
"""

from __future__ import annotations

import calendar
import datetime
import itertools
import random
from decimal import Decimal

import pytest

from scorer import DEFAULT_DATE_FORMATS, canon_date, canon_number

INTEGERS = ("0", "7", "42", "305", "1234", "98765", "123456", "1234567", "12345678")
FRACTIONS = ("", "5", "05", "125", None)  # None: a trailing decimal mark ("7.")
GROUPERS = (",", ".", " ", "'", "_", "\u00a0")
EXPONENTS = ("", "e3", "E-2", "e+1")
SIGNS = ("", "-", "+", "\u2212", "- ", "trailing", "parens-out", "parens-in")
CURRENCIES = ("", "$", "€", "USD", "eur")


def western(digits: str, mark: str) -> str:
    head = len(digits) % 3 or 3
    groups = [digits[:head]] + [digits[i:i + 3] for i in range(head, len(digits), 3)]
    return mark.join(groups)


def indian(digits: str, mark: str) -> str:
    rest, last = digits[:-3], digits[-3:]
    head = len(rest) % 2 or 2
    groups = [rest[:head]] + [rest[i:i + 2] for i in range(head, len(rest), 2)]
    return mark.join([g for g in groups if g] + [last])


def numerals():
    """(numeral, value, reading) where ``reading(separator)`` is the value the spec reads
    from the bare numeral in a field with that decimal separator (None: unreadable)."""
    for whole, fraction, style, grouper, mark, exponent in itertools.product(
            INTEGERS, FRACTIONS, ("none", "western", "indian"), GROUPERS, (".", ","),
            EXPONENTS):
        grouped = style != "none"
        if not grouped and grouper != ",":
            continue  # ungrouped: the grouper plays no part, so take one
        if grouped and len(whole) < (6 if style == "indian" else 4):
            continue  # too short to group (Indian differs from western from 6 digits on)
        if grouped and grouper == mark and fraction != "":
            continue  # one character as grouper and decimal mark: no intended value
        body = (western if style == "western" else indian)(whole, grouper) if grouped else whole
        if fraction is None:
            if exponent:
                continue
            value = Decimal(whole)
            read = _trailing(mark, value)
            yield body + mark, value, read
            continue
        text = body + (mark + fraction if fraction else "") + exponent
        value = Decimal(f"{whole}.{fraction or '0'}e{exponent[1:] or 0}")
        yield text, value, _reading(body, whole, fraction, grouped, grouper, mark, exponent,
                                    value)


def _trailing(mark, value):
    """A trailing decimal mark reads only when it is the field's separator."""
    return lambda separator: value if mark == separator else None


def _reading(body, whole, fraction, grouped, grouper, mark, exponent, value):
    plain_grouper = grouper.replace("\u00a0", " ")

    one_mark = grouped and not fraction and body.count(grouper) == 1
    head, _, tail = body.partition(grouper)

    def read(separator: str) -> Decimal | None:
        if exponent:  # the mantissa carries no grouping; its one mark is decimal
            if one_mark and plain_grouper in ".,":
                return Decimal(f"{head}.{tail}e{exponent[1:]}")
            return None if grouped else value
        if not fraction:
            if one_mark and plain_grouper == separator:
                return Decimal(f"{head}.{tail}")  # one separator mark is the decimal mark
            return value
        if grouped and {plain_grouper, mark} == {".", ","}:
            return value  # both marks: the last is the decimal mark
        if mark == separator:
            return value
        if grouped:
            return None  # the mark must group too: two grouping characters
        if len(fraction) == 3 and len(whole) <= 3 and not whole.startswith("0"):
            return Decimal(whole + fraction)  # "1,125" in a dot field groups thousands
        return None

    return read


def decorated(numeral: str, sign: str, currency: str, front: bool, spaced: bool,
              percent: bool) -> tuple[str, bool]:
    """The numeral with its sign, currency and percent parts, and whether it is negative."""
    core = numeral + ("%" if percent else "")
    space = " " if spaced else ""
    negative = sign not in ("", "+")
    if sign in ("-", "+", "\u2212", "- "):
        core = sign + core
    elif sign == "parens-in":
        core = f"({core})"
    if currency:
        core = f"{currency}{space}{core}" if front else f"{core}{space}{currency}"
    if sign == "trailing":
        core += "-"
    elif sign == "parens-out":
        core = f"({core})"
    return core, negative


def number_cases() -> list[tuple[str, str, Decimal | None]]:
    """(string, separator, expected) for a fixed sample of the product of the parts."""
    rng = random.Random(20261130)
    bare = list(numerals())
    decorations = list(itertools.product(SIGNS, CURRENCIES, (True, False), (True, False),
                                         (False, True)))
    cases = []
    for numeral, _, read in bare:
        for sign, currency, front, spaced, percent in rng.sample(decorations, 6):
            text, negative = decorated(numeral, sign, currency, front, spaced, percent)
            for separator in (".", ","):
                reading = read(separator)
                if reading is not None and negative:
                    reading = -reading
                cases.append((text, separator, reading))
    return cases


NUMBER_CASES = number_cases()


def test_the_number_sweep_covers_at_least_5000_strings():
    assert len({text for text, _, _ in NUMBER_CASES}) >= 5000


def test_every_generated_number_string_reads_as_its_value_by_construction():
    wrong = [(text, separator, expected, canon_number(text, separator))
             for text, separator, expected in NUMBER_CASES
             if canon_number(text, separator) != expected]
    assert wrong == []


@pytest.mark.parametrize("text", ["(5)-", "-(5)", "$(5) USD", "+-5", "5--", "((5))"])
def test_two_sign_markers_or_two_currencies_never_read(text):
    assert canon_number(text) is None


# --- dates ----------------------------------------------------------------------------

MONTH_FIRST = ("%m/%d/%Y", "%B %d, %Y", "%b %d, %Y")
DAY_FIRST = ("%d.%m.%Y", "%d %B %Y")
DAY_FIRST_CUSTOM = ("%d/%m/%Y", "%d-%m-%Y")


def spelled(day: datetime.date, fmt: str, padded: bool, case: str) -> str:
    """``day`` written in ``fmt``, numbers padded or not, month names in ``case``."""
    parts = {"%Y": f"{day.year:04d}", "%B": calendar.month_name[day.month],
             "%b": calendar.month_abbr[day.month],
             "%m": f"{day.month:02d}" if padded else str(day.month),
             "%d": f"{day.day:02d}" if padded else str(day.day)}
    text = fmt
    for code, part in parts.items():
        text = text.replace(code, part)
    return {"upper": text.upper(), "lower": text.lower()}.get(case, text)


def date_cases() -> list[tuple[str, tuple[str, ...] | None, str]]:
    rng = random.Random(20261130)
    start = datetime.date(1990, 1, 1)
    days = sorted({start + datetime.timedelta(days=rng.randrange(0, 365 * 45))
                   for _ in range(240)} | {datetime.date(2024, 2, 29), datetime.date(2023, 12, 31),
                                           datetime.date(2024, 1, 1)})
    cases = []
    for day, padded, case in itertools.product(days, (True, False), ("title", "upper", "lower")):
        for fmt in DEFAULT_DATE_FORMATS:
            cases.append((spelled(day, fmt, padded, case), None, day.isoformat()))
        for fmt in DAY_FIRST_CUSTOM:
            cases.append((spelled(day, fmt, padded, case), DAY_FIRST_CUSTOM, day.isoformat()))
        iso = day.isoformat()
        cases.append((f"{iso}T00:00:00Z" if padded else f" {iso} 00:00 ", None, iso))
    return cases


DATE_CASES = date_cases()


def test_the_date_sweep_covers_every_default_format_and_at_least_5000_strings():
    assert len({text for text, _, _ in DATE_CASES}) >= 5000
    assert set(MONTH_FIRST) | set(DAY_FIRST) <= set(DEFAULT_DATE_FORMATS)


def test_every_generated_date_string_reads_as_its_iso_date_by_construction():
    wrong = [(text, formats, iso, canon_date(text, formats))
             for text, formats, iso in DATE_CASES if canon_date(text, formats) != iso]
    assert wrong == []


def test_a_day_first_slash_date_is_read_month_first_under_the_default_formats():
    assert canon_date("04/03/2024") == "2024-04-03"


def test_a_day_first_slash_date_is_read_day_first_under_a_day_first_format_list():
    assert canon_date("04/03/2024", ["%d/%m/%Y"]) == "2024-03-04"
