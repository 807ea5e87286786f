"""What each answer cost and how long it took, read from the result envelopes.

A result envelope may carry, beside its ``data``, the price of the answer in USD and the
time it took (DocuBench writes ``{"cost": 0.023, "time_sec": 1.38, "data": {...}}``),
and an LLM's envelope the tokens it used (``{"meta": {"usage": {"input_tokens": 3272,
"output_tokens": 230}}}``). This module reads them, one :class:`Reading` per (system,
document), and nothing else: no score depends on it, and it never changes one.

Rules (docs/CLI.md, "Cost and latency"):

- **Members.** The cost is the member ``cost`` (USD per document) and the latency
  ``time_sec`` (seconds) by default; ``[costs]`` in ``benchmark.toml`` names others as
  dotted paths (``latency = "meta.latency_ms"``, ``latency_unit = "ms"``). Only an
  envelope is read: an object with a ``data`` or ``status`` member (a bare result's
  ``cost`` is an extracted field, not a price).
- **Tokens.** The usage object is ``meta.usage``, else ``usage`` (or the path ``usage``
  names); input tokens are the first of :data:`INPUT_TOKENS` found in it, output tokens
  the first of :data:`OUTPUT_TOKENS`, plus Gemini's ``thoughtsTokenCount`` (thinking,
  billed as output). Cache reads and writes an API reports apart are not added.
- **Cost from tokens.** When the envelope gives no cost and ``[costs.prices.<system>]``
  gives USD per million input and output tokens, the cost is
  ``(input * price_in + output * price_out) / 1e6``. An envelope's own cost wins.
- **Missing is not zero.** An absent or ``null`` member is simply not there: the
  document counts against the coverage (documents with a cost, of all), never as 0.
- **Bad values** (not a number, negative, or beyond :data:`ABSURD_COST` /
  :data:`ABSURD_SECONDS` / :data:`ABSURD_TOKENS`) are left out with a warning naming
  the file and the JSON pointer. A result file that cannot be parsed is left out
  silently: scoring already warns about it.

Every JSON value goes through ``scorer.py``'s one reader (``scorer.parse_json``).
Result bytes that mention none of the members looked for (and no ``\\u`` escape) are
not parsed at all, so a benchmark without costs pays one substring search per file.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import scorer
from scorer import InputError

#: Members naming input tokens in a usage object, first found wins (Anthropic and the
#: OpenAI Responses API, OpenAI Chat Completions, Gemini, Amazon Bedrock).
INPUT_TOKENS: tuple[str, ...] = ("input_tokens", "prompt_tokens", "promptTokenCount",
                                 "inputTokens", "input_token_count", "prompt_token_count")
#: Members naming output tokens, first found wins.
OUTPUT_TOKENS: tuple[str, ...] = ("output_tokens", "completion_tokens",
                                  "candidatesTokenCount", "outputTokens",
                                  "output_token_count", "completion_token_count")
#: Output tokens reported apart from the output count and billed as output (Gemini's
#: thinking tokens); added to it.
EXTRA_OUTPUT_TOKENS: tuple[str, ...] = ("thoughtsTokenCount",)
#: A cost above this many USD for one document is taken for an error and left out.
ABSURD_COST = 1000.0
#: A latency above this many seconds (one day) is taken for an error and left out.
ABSURD_SECONDS = 86_400.0
#: A token count above this is taken for an error and left out.
ABSURD_TOKENS = 1_000_000_000
#: Latency units of ``latency_unit`` -> seconds per unit.
UNITS: Mapping[str, float] = MappingProxyType({"s": 1.0, "ms": 0.001})
#: The keys of ``[costs]`` in benchmark.toml.
SETTING_KEYS: tuple[str, ...] = ("cost", "latency", "latency_unit", "usage", "prices")


@dataclass(frozen=True)
class Price:
    """USD per million tokens, input and output (finite, >= 0)."""

    input: float
    output: float

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        """USD for the given token counts."""
        return (input_tokens * self.input + output_tokens * self.output) / 1e6


@dataclass(frozen=True)
class CostSettings:
    """``[costs]`` of benchmark.toml, checked (:func:`parse_settings`).

    ``cost``/``latency``: dotted member paths of the envelope; ``latency_unit`` a key
    of :data:`UNITS`; ``usage``: the dotted paths tried for the usage object, in order;
    ``prices``: (system, :class:`Price`) pairs, sorted by system.
    """

    cost: str = "cost"
    latency: str = "time_sec"
    latency_unit: str = "s"
    usage: tuple[str, ...] = ("meta.usage", "usage")
    prices: tuple[tuple[str, Price], ...] = ()

    def price(self, system: str) -> Price | None:
        """The price table of ``system``, or None."""
        return dict(self.prices).get(system)


@dataclass(frozen=True)
class Reading:
    """What one envelope says: ``cost`` in USD (from the envelope, or its tokens priced:
    ``cost_from`` is ``"envelope"``, ``"tokens"`` or ``""``), ``latency`` in seconds,
    ``input_tokens``/``output_tokens`` (ints >= 0); ``None`` where it says nothing
    usable."""

    cost: float | None = None
    latency: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_from: str = ""


@dataclass(frozen=True)
class Costs:
    """Every (system, document) :class:`Reading` of a benchmark, and the warnings met.

    ``systems`` and ``documents`` in the run's order; ``readings[(system, doc)]`` exists
    for every pair (an empty ``Reading()`` when nothing was read).
    """

    systems: tuple[str, ...]
    documents: tuple[str, ...]
    readings: Mapping[tuple[str, str], Reading]
    warnings: tuple[str, ...] = ()

    def column(self, system: str, member: str) -> list[float | None]:
        """``member`` (``"cost"``, ``"latency"``, ``"input_tokens"``, ``"output_tokens"``)
        of ``system`` per document, in document order; ``None`` where absent."""
        out: list[float | None] = []
        for doc in self.documents:
            value = getattr(self.readings[(system, doc)], member)
            out.append(None if value is None else float(value))
        return out

    def has(self, member: str) -> bool:
        """True when any reading holds ``member``."""
        return any(getattr(r, member) is not None for r in self.readings.values())

    @property
    def empty(self) -> bool:
        """True when no envelope gave a cost, a latency or a token count."""
        return not any(self.has(m) for m in ("cost", "latency", "input_tokens",
                                             "output_tokens"))


def parse_settings(table: Any, source: str = "benchmark.toml") -> CostSettings:
    """``[costs]`` of benchmark.toml (``None``: absent) -> :class:`CostSettings`.

    Shape::

        [costs]
        cost = "cost"                 # dotted path of USD per document
        latency = "meta.latency_ms"   # dotted path of the latency
        latency_unit = "ms"           # "s" (default) or "ms"
        usage = "meta.usage"          # dotted path of the token usage object
        [costs.prices.gpt]            # USD per million tokens
        input = 1.25
        output = 10.0

    Raises ``InputError(source, "costs.<key>", reason)`` for an unknown key, a path that
    is not a non-empty dotted name, an unknown unit, or a price that is not a finite
    number >= 0 given for both ``input`` and ``output``.
    """
    if table is None:
        return CostSettings()
    if not isinstance(table, Mapping):
        raise InputError(source, "costs", "must be a table")
    for key in table:
        if key not in SETTING_KEYS:
            raise InputError(source, f"costs.{key}", f"unknown key {key!r} (known keys: "
                             f"{', '.join(SETTING_KEYS)})")
    paths = {}
    for key in ("cost", "latency", "usage"):
        value = table.get(key, CostSettings.__dataclass_fields__[key].default)
        if key == "usage" and isinstance(value, tuple):
            paths[key] = value
            continue
        if not isinstance(value, str) or not all(value.split(".")):
            raise InputError(source, f"costs.{key}",
                             f"must be a dotted member path such as \"meta.usage\", got "
                             f"{value!r}")
        paths[key] = (value,) if key == "usage" else value
    unit = table.get("latency_unit", "s")
    if unit not in UNITS:
        raise InputError(source, "costs.latency_unit",
                         f"must be one of {', '.join(map(repr, UNITS))}, got {unit!r}")
    prices = table.get("prices", {})
    if not isinstance(prices, Mapping):
        raise InputError(source, "costs.prices", "must be a table of systems")
    pairs = []
    for system, entry in sorted(prices.items()):
        place = f"costs.prices.{system}"
        if not isinstance(entry, Mapping):
            raise InputError(source, place, "must be a table with input and output "
                             "(USD per million tokens)")
        extra = sorted(set(entry) - {"input", "output"})
        if extra:
            raise InputError(source, f"{place}.{extra[0]}",
                             "unknown key (known keys: input, output)")
        numbers = []
        for side in ("input", "output"):
            value = entry.get(side)
            if isinstance(value, bool) or not isinstance(value, int | float) \
                    or not math.isfinite(value) or value < 0:
                raise InputError(source, f"{place}.{side}", "must be a number >= 0 of USD "
                                 f"per million tokens, got {value!r}")
            numbers.append(float(value))
        pairs.append((system, Price(*numbers)))
    return CostSettings(cost=paths["cost"], latency=paths["latency"], latency_unit=unit,
                        usage=paths["usage"], prices=tuple(pairs))


def read_envelope(value: Any, settings: CostSettings, *, system: str = "",
                  file: str = "") -> tuple[Reading, tuple[str, ...]]:
    """The :class:`Reading` of one parsed envelope, and its warnings (one line each,
    ``file#/json/pointer: why``). Pure; never raises. ``system`` picks its price."""
    if not isinstance(value, Mapping) or not ("data" in value or "status" in value):
        return Reading(), ()
    warnings: list[str] = []
    cost = _number(value, settings.cost, "cost", ABSURD_COST, file, warnings)
    seconds = _number(value, settings.latency, "latency", ABSURD_SECONDS
                      / UNITS[settings.latency_unit], file, warnings)
    latency = None if seconds is None else seconds * UNITS[settings.latency_unit]
    tokens_in = tokens_out = None
    for path in settings.usage:
        usage = _member(value, path)
        if isinstance(usage, Mapping):
            tokens_in = _tokens(usage, path, INPUT_TOKENS, (), file, warnings)
            tokens_out = _tokens(usage, path, OUTPUT_TOKENS, EXTRA_OUTPUT_TOKENS, file,
                                 warnings)
            break
    source = "envelope" if cost is not None else ""
    price = settings.price(system)
    if cost is None and price is not None and tokens_in is not None \
            and tokens_out is not None:
        cost, source = price.cost(tokens_in, tokens_out), "tokens"
    return Reading(cost, latency, tokens_in, tokens_out, source), tuple(warnings)


def needles(settings: CostSettings) -> tuple[bytes, ...]:
    """Byte strings one of which an envelope must contain to hold anything read here:
    the quoted last names of the cost, latency and usage paths, and ``\\u`` (a member
    name may be written with escapes)."""
    names = {settings.cost, settings.latency, *settings.usage}
    return (*sorted({f'"{name.rsplit(".", 1)[-1]}"'.encode() for name in names}), b"\\u")


def read_costs(results: Mapping[tuple[str, str], Any], systems: Iterable[str],
               documents: Iterable[str], settings: CostSettings) -> Costs:
    """Read every (system, document) result of ``results`` (``benchmark.RawResult``:
    ``file``, ``data`` bytes or ``None``) into :class:`Costs`. Never raises for a
    result's content: an unparsable file is left out silently, a bad value with a
    warning."""
    systems, documents = tuple(systems), tuple(documents)
    wanted = needles(settings)
    readings: dict[tuple[str, str], Reading] = {}
    warnings: list[str] = []
    for system in systems:
        for doc in documents:
            raw = results.get((system, doc))
            data = None if raw is None else raw.data
            if data is None or not any(n in data for n in wanted):
                readings[(system, doc)] = Reading()
                continue
            try:
                value = scorer.parse_json(data, raw.file).value
            except InputError:
                readings[(system, doc)] = Reading()
                continue
            reading, said = read_envelope(value, settings, system=system, file=raw.file)
            readings[(system, doc)] = reading
            warnings.extend(said)
    return Costs(systems, documents, MappingProxyType(readings), tuple(warnings))


def _member(value: Any, path: str) -> Any:
    """The member at dotted ``path`` of ``value``, or None."""
    for name in path.split("."):
        if not isinstance(value, Mapping) or name not in value:
            return None
        value = value[name]
    return value


def _pointer(path: str) -> str:
    """A dotted path as an RFC 6901 pointer."""
    return "/" + "/".join(p.replace("~", "~0").replace("/", "~1") for p in path.split("."))


def _bad(file: str, path: str, what: str, value: Any, why: str) -> str:
    """One warning line; the value shown cut to 40 characters (with an ellipsis)."""
    shown = repr(value) if not isinstance(value, str) else f'"{value}"'
    shown = shown if len(shown) <= 40 else shown[:39] + "…"
    return f"{file}#{_pointer(path)}: {what} {shown} {why}; left out (not counted as 0)"


def _number(envelope: Any, path: str, what: str, limit: float, file: str,
            warnings: list[str]) -> float | None:
    """A non-negative finite number at ``path``, else None (with a warning when present
    but unusable)."""
    value = _member(envelope, path)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        warnings.append(_bad(file, path, what, value, "is not a number"))
        return None
    if isinstance(value, float) and not math.isfinite(value):
        warnings.append(_bad(file, path, what, value, "is not finite"))
        return None
    if value < 0:  # compared before any conversion: an int may be too large for a float
        warnings.append(_bad(file, path, what, value, "is negative"))
        return None
    if value > limit:
        warnings.append(_bad(file, path, what, value, f"is beyond {limit:g}, taken for an "
                             "error"))
        return None
    return float(value) + 0.0  # -0.0 is 0.0


def _tokens(usage: Mapping[str, Any], path: str, names: tuple[str, ...],
            extra: tuple[str, ...], file: str, warnings: list[str]) -> int | None:
    """The first of ``names`` in ``usage`` (plus every one of ``extra`` present), as a
    count, else None."""
    total = None
    for name in names:
        if name in usage and usage[name] is not None:
            total = _count(usage[name], f"{path}.{name}", file, warnings)
            break
    if total is None:
        return None
    for name in extra:
        if usage.get(name) is not None:
            more = _count(usage[name], f"{path}.{name}", file, warnings)
            if more is None:
                return None
            total += more
    return total


def _count(value: Any, path: str, file: str, warnings: list[str]) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float) \
            or (isinstance(value, float) and not value.is_integer()):
        warnings.append(_bad(file, path, "token count", value, "is not a whole number"))
        return None
    if value < 0:
        warnings.append(_bad(file, path, "token count", value, "is negative"))
        return None
    if value > ABSURD_TOKENS:
        warnings.append(_bad(file, path, "token count", value,
                             f"is beyond {ABSURD_TOKENS:g}, taken for an error"))
        return None
    return int(value)



#: Columns :func:`with_cost_columns` adds, and the :class:`Reading` member of each.
FRAME_COLUMNS: tuple[tuple[str, str], ...] = (
    ("cost_usd", "cost"), ("latency_s", "latency"), ("input_tokens", "input_tokens"),
    ("output_tokens", "output_tokens"))


def with_cost_columns(frame: Any, costs: Costs) -> Any:
    """``frame`` (a ``pandas.DataFrame`` with ``system`` and ``document`` columns) with
    :data:`FRAME_COLUMNS` added: each row's (system, document) cost in USD and latency
    in seconds (floats, ``NaN`` where absent) and tokens (nullable ``Int64``)."""
    import pandas as pd  # the caller made the frame, so pandas is there

    keys = list(zip(frame["system"], frame["document"], strict=True))
    out = frame.copy()
    for column, member in FRAME_COLUMNS:
        values = [getattr(costs.readings.get(key, Reading()), member) for key in keys]
        if member.endswith("tokens"):
            out[column] = pd.array([pd.NA if v is None else v for v in values], dtype="Int64")
        else:
            out[column] = [math.nan if v is None else v for v in values]
    return out
