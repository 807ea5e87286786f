"""Reading JSON from untrusted files: the package's door to ``scorer.py``'s one reader.

Every file leafscore reads (schemas, labels, results, JSONL lines) goes through
:func:`load_json` or :func:`loads_json`, which call ``scorer.parse_json`` and
``scorer.read_json_file``: the same rules as ``python scorer.py`` (encoding, nesting,
NaN/Infinity and overflowing numbers refused, numbers kept in their written form,
duplicate keys and lone surrogates warned). The rules are listed in docs/SCORING.md,
"Reading files". This module adds only the package's names for them; it has no rule of
its own.
"""

from __future__ import annotations

import os
import sys

import scorer

#: Largest file read, in bytes (64 MiB): ``scorer.MAX_FILE_BYTES``.
DEFAULT_MAX_BYTES: int = scorer.MAX_FILE_BYTES
#: Deepest nesting of arrays and objects accepted, in levels: ``scorer.MAX_DEPTH``.
DEFAULT_MAX_DEPTH: int = scorer.MAX_DEPTH
#: Longest integer literal accepted, in digits (Python's int-string limit).
MAX_INT_DIGITS: int = sys.get_int_max_str_digits() or 4300
#: The one error family: file, place (JSON pointer or text position), reason.
JSONInputError = scorer.InputError
#: A JSON value as read, and the warnings about how it was read.
Loaded = scorer.Parsed

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_DEPTH",
    "MAX_INT_DIGITS",
    "JSONInputError",
    "Loaded",
    "load_json",
    "loads_json",
]


def load_json(path: str | os.PathLike[str], *, max_bytes: int = DEFAULT_MAX_BYTES,
              unwrap_fences: bool = False, max_depth: int = DEFAULT_MAX_DEPTH) -> Loaded:
    """Read one JSON value from the file at ``path`` (``scorer.read_json_file``).

    ``unwrap_fences``: a markdown code fence around the whole text is removed first, with
    a warning. Raises ``scorer.InputError`` naming the path as given, the place and why.
    """
    data = scorer.read_file_bytes(path, max_bytes=max_bytes)
    return loads_json(data, source=os.fspath(path), unwrap_fences=unwrap_fences,
                      max_depth=max_depth)


def loads_json(text: str | bytes, *, source: str, unwrap_fences: bool = False,
               max_depth: int = DEFAULT_MAX_DEPTH) -> Loaded:
    """Parse one JSON value from ``text`` (``scorer.parse_json``).

    ``source`` names the input in errors and warnings (a path, or ``"pred.jsonl:4"``);
    ``unwrap_fences``: remove a markdown code fence around the whole text
    (``scorer.unwrap_fence``), with a warning. Returns ``scorer.Parsed``; raises
    ``scorer.InputError``.
    """
    if not unwrap_fences:
        return scorer.parse_json(text, source, max_depth=max_depth)
    warnings: list[str] = []
    if not isinstance(text, str):
        text = scorer.decode_bytes(bytes(text), source, warnings)
    fenced = scorer.FENCE.fullmatch(text)
    if fenced:  # the fence becomes blanks, so errors name lines of the whole text
        start, end = fenced.span("body")
        text = _blank(text[:start]) + text[start:end] + _blank(text[end:])
        warnings.append(f"{source}: unwrapped a markdown code fence around the JSON")
    parsed = scorer.parse_json(text, source, max_depth=max_depth)
    return scorer.Parsed(parsed.value, (*warnings, *parsed.warnings), parsed.written_numbers)


def _blank(text: str) -> str:
    """``text`` with every character but line ends turned into a space."""
    return "".join(c if c in "\r\n" else " " for c in text)
