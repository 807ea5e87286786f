"""Reading JSON from untrusted files: every hostile input ends as a value or a located error.

Every file leafscore reads (schemas, labels, results, JSONL lines) goes through
:func:`load_json` or :func:`loads_json`. They return a :class:`Loaded` (the value plus
warnings for things accepted but suspicious) or raise :class:`JSONInputError`, which
names the file, a position and a reason on one line. Nothing else escapes: no
``UnicodeDecodeError``, ``RecursionError``, ``OverflowError`` or int-string-limit
``ValueError``.

Decisions, one per hostile input:

* **Size**: files larger than ``max_bytes`` (default :data:`DEFAULT_MAX_BYTES`, 64 MiB)
  are refused before they are read.
* **Encoding**: UTF-8. A UTF-8 byte-order mark is accepted with a warning; UTF-16 and
  UTF-32 *with* a byte-order mark are decoded with a warning; anything else that is not
  valid UTF-8 is refused at the byte offset of the first bad byte (counted from 0).
* **Empty** (or whitespace-only) input is refused.
* **Nesting** deeper than ``max_depth`` (default :data:`DEFAULT_MAX_DEPTH`, 200) is
  refused with ``nesting deeper than 200 levels``, checked before parsing, so no
  ``RecursionError`` can happen in the parser or later in the scorer.
* **NaN, Infinity, -Infinity** are not JSON (RFC 8259 section 6) and are refused, so a
  result holding them is a parse failure and a label holding them is an error.
* **Numbers out of range**: a float literal that overflows (``1e999999``) is refused; an
  integer literal longer than Python's int-string limit (``sys.get_int_max_str_digits()``,
  :data:`MAX_INT_DIGITS` = 4,300 digits by default) is refused. Shorter integers are read
  exactly; floats that underflow (``1e-999999``) read as ``0.0``.
* **Duplicate keys**: the last value wins, with a warning naming the key.
* **Unpaired surrogate escapes** (``"\\ud800"``) are replaced by U+FFFD with a warning,
  so every string read can be written back as UTF-8.
* **Markdown code fences** (a whole input of the form ```` ```json ... ``` ````) are
  unwrapped only when ``unwrap_fences=True``, with a warning.

Positions are ``line L column C`` (both from 1, columns in characters of the decoded
text, the byte-order mark not counted) or ``byte N`` for encoding errors.
"""

from __future__ import annotations

import codecs
import json
import os
import re
import stat
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

#: Largest file :func:`load_json` reads, in bytes (64 MiB).
DEFAULT_MAX_BYTES: int = 64 * 1024 * 1024
#: Deepest nesting of arrays and objects accepted, in levels (``[[1]]`` is 2 levels).
DEFAULT_MAX_DEPTH: int = 200
#: Longest integer literal accepted, in digits (Python's default int-string limit).
MAX_INT_DIGITS: int = 4300

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_DEPTH",
    "MAX_INT_DIGITS",
    "JSONInputError",
    "Loaded",
    "load_json",
    "loads_json",
]


class JSONInputError(ValueError):
    """A file or text that does not hold one usable JSON value.

    ``file`` names the input as given (a path or a source label such as
    ``"pred.jsonl:line 4"``), ``position`` is ``"line 3 column 5"``, ``"byte 17"`` or
    ``""`` when the whole input is at fault, and ``reason`` says what is wrong. Every
    field is in ``.args``, so the error pickles across worker processes.
    """

    def __init__(self, file: str, position: str, reason: str) -> None:
        super().__init__(file, position, reason)
        self.file, self.position, self.reason = str(file), position, reason

    def __str__(self) -> str:
        if self.position:
            return f"{self.file}:{self.position}: {self.reason}"
        return f"{self.file}: {self.reason}"


@dataclass(frozen=True)
class Loaded:
    """A JSON value as read, and the warnings about how it was read (may be empty)."""

    value: Any
    warnings: tuple[str, ...] = ()


# -------------------------------------------------------------------------------------
# Files
# -------------------------------------------------------------------------------------


def load_json(
    path: str | os.PathLike[str],
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    unwrap_fences: bool = False,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> Loaded:
    """Read one JSON value from the file at ``path``.

    Parameters
    ----------
    path : str or path-like
        The file; symlinks are followed (use ``files.safe_child`` first to keep a read
        inside a benchmark folder). Error messages name it as given.
    max_bytes : int, default=DEFAULT_MAX_BYTES
        Size limit in bytes; a larger file is refused without being read.
    unwrap_fences : bool, default=False
        Unwrap a markdown code fence around the whole text, with a warning.
    max_depth : int, default=DEFAULT_MAX_DEPTH
        Deepest nesting accepted, in levels.

    Returns
    -------
    Loaded
        The value and any warnings (BOM, UTF-16, duplicate keys, fence, surrogates).

    Raises
    ------
    JSONInputError
        If the path is missing, a directory or not a regular file, cannot be read, is
        larger than ``max_bytes``, or its content is refused by :func:`loads_json`.
    """
    name = os.fspath(path)
    try:
        info = os.stat(name)
    except FileNotFoundError:
        raise JSONInputError(name, "", "no such file") from None
    except OSError as error:
        raise JSONInputError(name, "", f"cannot read: {error.strerror or error}") from None
    if stat.S_ISDIR(info.st_mode):
        raise JSONInputError(name, "", "is a directory, expected a JSON file") from None
    if not stat.S_ISREG(info.st_mode):
        raise JSONInputError(name, "", "is not a regular file, expected a JSON file")
    if info.st_size > max_bytes:
        raise JSONInputError(name, "", _too_large(info.st_size, max_bytes))
    try:
        with open(name, "rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as error:
        raise JSONInputError(name, "", f"cannot read: {error.strerror or error}") from None
    if len(data) > max_bytes:  # grew after stat
        raise JSONInputError(name, "", _too_large(len(data), max_bytes))
    return loads_json(data, source=name, unwrap_fences=unwrap_fences, max_depth=max_depth)


def _too_large(size: int, limit: int) -> str:
    return (
        f"file is {size:,} bytes, larger than the limit of {limit:,} bytes "
        f"({limit / 2**20:g} MiB)"
    )


# -------------------------------------------------------------------------------------
# Text
# -------------------------------------------------------------------------------------


def loads_json(
    text: str | bytes,
    *,
    source: str,
    unwrap_fences: bool = False,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> Loaded:
    """Parse one JSON value from ``text``.

    Parameters
    ----------
    text : str or bytes
        The JSON text; bytes are decoded as described in the module docstring.
    source : str
        Names the input in errors and warnings (a path, or ``"pred.jsonl:line 4"``).
    unwrap_fences : bool, default=False
        Unwrap a markdown code fence around the whole text, with a warning.
    max_depth : int, default=DEFAULT_MAX_DEPTH
        Deepest nesting accepted, in levels.

    Returns
    -------
    Loaded
        The value (dict, list, str, int, float, bool or None; floats always finite)
        and the warnings, each a one-line message starting with ``source``.

    Raises
    ------
    JSONInputError
        On bad encoding, empty input, nesting deeper than ``max_depth``, invalid JSON,
        ``NaN``/``Infinity`` tokens, or numbers that do not fit.
    """
    warnings: list[str] = []
    if isinstance(text, bytes | bytearray | memoryview):
        text = _decode(bytes(text), source, warnings)
    elif text.startswith("\ufeff"):
        text = text[1:]
        warnings.append(f"{source}: a byte-order mark (U+FEFF) starts the text; ignored")
    base, body = 0, text
    fenced = _FENCE.fullmatch(text) if unwrap_fences else None
    if fenced:
        base, body = fenced.start("body"), fenced.group("body")
        warnings.append(f"{source}: unwrapped a markdown code fence around the JSON")
    if not body.strip():
        raise JSONInputError(source, "", "is empty, expected a JSON value")
    _check_depth(text, body, base, source, max_depth)
    value = _parse(text, body, base, source, warnings)
    if _SURROGATE_ESCAPE.search(body):
        value, replaced = _replace_surrogates(value)
        if replaced:
            warnings.append(
                f"{source}: {replaced} unpaired surrogate escape(s) such as \\ud800 "
                "replaced by U+FFFD"
            )
    return Loaded(value, tuple(warnings))


_FENCE = re.compile(
    r"\s*```[ \t]*(?:json5?|JSON|jsonc)?[ \t]*\r?\n(?P<body>.*?)\r?\n?[ \t]*```\s*", re.DOTALL
)
_BOMS = (  # longest first: the UTF-32-LE mark starts with the UTF-16-LE one
    (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32"),
    (codecs.BOM_UTF8, "utf-8", "UTF-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16"),
)


def _decode(data: bytes, source: str, warnings: list[str]) -> str:
    """UTF-8 text of ``data``; byte-order marks handled as the module docstring says."""
    for mark, codec, label in _BOMS:
        if data.startswith(mark):
            try:
                text = data[len(mark) :].decode(codec)
            except UnicodeDecodeError as error:
                offset = len(mark) + error.start
                raise JSONInputError(
                    source, f"byte {offset}", f"invalid {label} after a {label} byte-order mark"
                ) from None
            if label == "UTF-8":
                warnings.append(f"{source}: starts with a UTF-8 byte-order mark; ignored")
            else:
                warnings.append(f"{source}: decoded as {label} (byte-order mark); use UTF-8")
            return text
    if b"\x00" in data[:4]:  # JSON text never holds a raw NUL
        raise JSONInputError(
            source,
            f"byte {data.index(0)}",
            "NUL byte: UTF-16 or UTF-32 without a byte-order mark? Save as UTF-8",
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        bad = data[error.start : error.start + 1].hex()
        raise JSONInputError(
            source, f"byte {error.start}", f"invalid UTF-8 (byte 0x{bad})"
        ) from None


# -------------------------------------------------------------------------------------
# Nesting depth, checked before parsing
# -------------------------------------------------------------------------------------

_STEP = np.zeros(256, dtype=np.int8)
_STEP[[ord("["), ord("{")]] = 1
_STEP[[ord("]"), ord("}")]] = -1
_QUOTE = ord('"')
_CHUNK = 1 << 22  # bytes per numpy pass: bounds the scan's extra memory to ~40 MiB


def _check_depth(text: str, body: str, base: int, source: str, max_depth: int) -> None:
    """Raise if arrays and objects in ``body`` nest deeper than ``max_depth``.

    Free when the text holds at most ``max_depth`` opening brackets. Otherwise a
    vectorised scan over the UTF-8 bytes: escaped backslashes and quotes are blanked,
    a running count of quotes marks what is inside strings, and the running sum of
    +1/-1 bracket steps outside strings is the depth.
    """
    if body.count("[") + body.count("{") <= max_depth:
        return
    if _max_depth(body.encode("utf-8", "surrogatepass")) <= max_depth:
        return
    offset = base + _deep_offset(body, max_depth)
    raise JSONInputError(
        source, _line_column(text, offset), f"nesting deeper than {max_depth} levels"
    )


def _max_depth(data: bytes) -> int:
    """Deepest bracket nesting outside strings in JSON text ``data`` (not validated)."""
    if b"\\" in data:
        data = data.replace(b"\\\\", b"__").replace(b'\\"', b"__")
    depth = quotes = deepest = 0
    for start in range(0, len(data), _CHUNK):
        chunk = np.frombuffer(data, dtype=np.uint8, count=min(_CHUNK, len(data) - start),
                              offset=start)
        steps = _STEP[chunk]
        at = np.flatnonzero(steps)
        quote_at = np.flatnonzero(chunk == _QUOTE)
        if at.size:
            outside = ((np.searchsorted(quote_at, at) + quotes) & 1) == 0
            kept = steps[at[outside]]
            if kept.size:
                running = np.cumsum(kept, dtype=np.int64) + depth
                deepest = max(deepest, int(running.max()))
                depth = int(running[-1])
        quotes += quote_at.size
    return deepest


def _deep_offset(body: str, max_depth: int) -> int:
    """Offset in ``body`` of the bracket that opens level ``max_depth + 1``."""
    depth = 0
    for match in re.finditer(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', body, re.DOTALL):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > max_depth:
                return match.start()
        elif token in "]}":
            depth -= 1
    return 0


def _line_column(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return f"line {line} column {column}"


# -------------------------------------------------------------------------------------
# Parsing
# -------------------------------------------------------------------------------------


class _Refused(Exception):
    """Raised by a parse hook; ``token`` is the literal refused, ``reason`` why."""

    def __init__(self, token: str, reason: str) -> None:
        super().__init__(token, reason)
        self.token, self.reason = token, reason


def _parse(text: str, body: str, base: int, source: str, warnings: list[str]) -> Any:
    duplicates: list[str] = []

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(pairs)
        if len(obj) != len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    duplicates.append(key)
                seen.add(key)
        return obj

    try:
        value = json.loads(
            body,
            object_pairs_hook=pairs_hook,
            parse_constant=_refuse_constant,
            parse_float=_parse_float,
        )
    except json.JSONDecodeError as error:
        raise JSONInputError(
            source, _line_column(text, base + error.pos), error.msg
        ) from None
    except _Refused as refused:
        offset = base + _offset_outside_strings(body, re.escape(refused.token))
        raise JSONInputError(source, _line_column(text, offset), refused.reason) from None
    except ValueError as error:  # Python's int-string limit, from the C scanner
        if "integer string conversion" not in str(error):
            raise
        raise _long_integer(text, body, base, source) from None
    except RecursionError:  # defensive: _check_depth runs first
        raise JSONInputError(source, "", "nesting too deep to parse") from None
    for key in dict.fromkeys(duplicates):
        warnings.append(f"{source}: duplicate key {key!r} in an object; the last value is kept")
    return value


def _refuse_constant(name: str) -> Any:
    raise _Refused(name, f"{name} is not a JSON value (RFC 8259 allows finite numbers only)")


def _parse_float(literal: str) -> float:
    number = float(literal)
    if number in (float("inf"), float("-inf")):
        raise _Refused(literal, f"number {_short(literal)} is too large for a float")
    return number


def _long_integer(text: str, body: str, base: int, source: str) -> JSONInputError:
    """The error for the first integer literal longer than the int-string limit."""
    limit = sys.get_int_max_str_digits() or MAX_INT_DIGITS
    offset = _offset_outside_strings(body, rf"-?\d{{{limit + 1},}}")
    digits = len(re.match(r"-?(\d*)", body[offset:]).group(1))
    return JSONInputError(
        source,
        _line_column(text, base + offset),
        f"integer with {digits:,} digits exceeds the limit of {limit:,}",
    )


def _short(literal: str) -> str:
    return literal if len(literal) <= 24 else f"{literal[:20]}...({len(literal):,} characters)"


def _offset_outside_strings(body: str, pattern: str) -> int:
    """Offset of the first match of ``pattern`` that stands alone outside strings (0 if
    none); used on error paths only."""
    regex = r'"[^"\\]*(?:\\.[^"\\]*)*"|(?<![\w.+-])(' + pattern + r")(?![\w.])"
    for match in re.finditer(regex, body, re.DOTALL):
        if match.group(1) is not None:
            return match.start(1)
    return 0


# -------------------------------------------------------------------------------------
# Unpaired surrogates
# -------------------------------------------------------------------------------------

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _replace_surrogates(value: Any) -> tuple[Any, int]:
    """``value`` with unpaired surrogates in strings and keys replaced by U+FFFD.

    Recursive; safe because nesting was limited before parsing.
    """
    if isinstance(value, str):
        fixed, count = _LONE_SURROGATE.subn("\ufffd", value)
        return fixed, count
    if isinstance(value, list):
        total = 0
        items = []
        for item in value:
            fixed, count = _replace_surrogates(item)
            items.append(fixed)
            total += count
        return items, total
    if isinstance(value, dict):
        total = 0
        obj = {}
        for key, item in value.items():
            fixed_key, key_count = _replace_surrogates(key)
            fixed, count = _replace_surrogates(item)
            obj[fixed_key] = fixed
            total += key_count + count
        return obj, total
    return value, 0
