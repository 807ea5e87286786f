"""Text leafscore prints or writes from untrusted names: made visible, made inert.

Names of systems, document ids and file names come from strangers' submissions. Two
pure functions keep them from acting on whoever reads an output:

* :func:`visible` escapes control characters (C0, DEL, C1: ESC sequences, CR that
  overwrites a line) and bidirectional controls (which reorder what a terminal or a
  browser shows) as ``\\x1b`` / ``\\u202e``. Every text output (tables, warnings and
  errors on stderr, ``validate``'s lines) goes through it.
* :func:`csv_cell` neutralizes a CSV text cell a spreadsheet would run as a formula
  (OWASP, "CSV Injection": a cell starting with ``=``, ``+``, ``-``, ``@``, tab or CR
  gets a leading ``'``); numbers written as text (``-0.5``) are left as numbers.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

__all__ = ["BIDI_CONTROLS", "csv_cell", "is_hidden", "visible"]

#: Bidirectional formatting characters (Unicode TR 9): embeddings and overrides
#: U+202A-U+202E, isolates U+2066-U+2069, marks U+200E/U+200F and U+061C.
BIDI_CONTROLS: frozenset[str] = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
# What a spreadsheet reads as the start of a formula (OWASP CSV Injection).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
# A plain decimal number; such a cell is data, not a formula, and stays as it is.
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def is_hidden(char: str) -> bool:
    """True for a control character (category ``Cc``) or a bidirectional control."""
    return char in BIDI_CONTROLS or unicodedata.category(char) == "Cc"


def visible(text: str) -> str:
    """``text`` with every control and bidi character written as a visible escape.

    Parameters
    ----------
    text : str
        Any text, typically a name or a message naming files.

    Returns
    -------
    str
        The same text on one line: a character below U+0100 becomes ``\\xNN`` (ESC is
        ``\\x1b``, CR ``\\x0d``, LF ``\\x0a``), any other ``\\uNNNN`` (``\\u202e``).
        Text without such characters is returned unchanged.
    """
    if not any(is_hidden(char) for char in text):
        return text
    return "".join(
        (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}") if is_hidden(c) else c
        for c in text
    )


def csv_cell(value: Any) -> Any:
    """A CSV cell a spreadsheet will show, never evaluate.

    Parameters
    ----------
    value : any
        A cell as passed to ``csv.writer``. Only ``str`` is changed.

    Returns
    -------
    any
        ``"'" + value`` when ``value`` is text starting with ``=``, ``+``, ``-``, ``@``,
        tab or CR and is not a plain number (``"-0.5"`` and ``"+3"`` stay as they are);
        else ``value`` unchanged.
    """
    if isinstance(value, str) and value.startswith(_FORMULA_START) and not _NUMBER.fullmatch(
            value):
        return "'" + value
    return value
