"""Canonical bytes of parsed JSON: what every content digest of leafscore is made of.

A schema's, label's or result's digest (the signature's ``schemas:``/``labels:`` parts,
the cache keys, ``summary.json``'s ``sha256``) is the sha256 of :func:`canonical_json`
of its value as read, so line endings, indentation and key order change no digest and
any change of content does. :func:`json_text` keeps the key order (the fast engine keys
compiled schemas by it: key order decides the order of verdicts).
"""

from __future__ import annotations

import json
import math
from typing import Any

import scorer


def canonical_bytes(parsed: scorer.Parsed) -> bytes:
    """:func:`canonical_json` of a file's value as read, made by ``json.dumps`` in C when
    no number in it keeps a written form (``parsed.written_numbers == 0``: the same
    bytes then, tested)."""
    if parsed.written_numbers == 0:
        return json.dumps(parsed.value, ensure_ascii=False, sort_keys=True,
                          separators=(",", ":"), allow_nan=False).encode("utf-8", "surrogatepass")
    return canonical_json(parsed.value)


def json_text(value: Any) -> bytes:
    """Compact JSON bytes of a parsed value in its own key order, numbers in their
    written form: equal bytes, equal value and order. Raises TypeError for non-JSON."""
    out: list[str] = []
    _canonical(value, out, sort=False)
    return "".join(out).encode("utf-8", "surrogatepass")


def canonical_json(value: Any) -> bytes:
    """The canonical bytes of a parsed JSON value: sorted keys, no spaces, UTF-8, numbers
    in their written form (``scorer.JSONNumber``), so line endings, indentation and key
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
    elif kind is scorer.JSONNumber:
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
