"""Text leafscore prints or writes from untrusted names: made visible, made inert.

Names of systems, document ids and file names come from strangers' submissions. Two
pure functions keep them from acting on whoever reads an output:

* :func:`visible` escapes control characters (C0, DEL, C1: ESC sequences, CR that
  overwrites a line) and bidirectional controls (which reorder what a terminal or a
  browser shows) as ``\\x1b`` / ``\\u202e``. Every text output (tables, warnings and
  errors on stderr, ``validate``'s lines) goes through it.
* :func:`csv_cell` writes control and bidi characters of a CSV text cell as ``\\uNNNN``
  and neutralizes a cell a spreadsheet would run as a formula (OWASP, "CSV Injection":
  a cell starting with ``=``, ``+``, ``-``, ``@``, tab or CR, after any leading blanks,
  gets a leading ``'``); numbers written as text (``-0.5``) are left as numbers.
* :func:`markdown_text` makes a text inert in markdown: HTML characters as entities,
  pipes, link, image, emphasis and code syntax and GitHub's autolinks escaped.
"""

from __future__ import annotations

import html
import re
import unicodedata
from typing import Any

__all__ = ["BIDI_CONTROLS", "csv_cell", "is_hidden", "markdown_text", "visible"]

#: Bidirectional formatting characters (Unicode TR 9): embeddings and overrides
#: U+202A-U+202E, isolates U+2066-U+2069, marks U+200E/U+200F and U+061C.
BIDI_CONTROLS: frozenset[str] = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
# What a spreadsheet reads as the start of a formula (OWASP CSV Injection), after any
# leading blanks (LibreOffice and Excel skip them); tab and CR are escaped before.
_FORMULA_START = ("=", "+", "-", "@")
# A plain decimal number; such a cell is data, not a formula, and stays as it is. Each
# part is unambiguous (no two ways to split a run of digits), so a match is linear.
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
# Markdown: what may open a link, an image, a reference or a footnote (every one starts
# with an unescaped ``[``, so ``]`` needs none), emphasis, strikethrough or a code span,
# and the pipe that ends a table cell; ``\`` too, so no escape is undone.
_MD_ALWAYS = re.compile(r"[\\`*~\[|]")
# ``_`` can open emphasis only if no letter or digit stands before it (CommonMark 6.2:
# one preceded by an alphanumeric is right-flanking and not after punctuation); so with
# every other ``_`` escaped, none opens, and none can close.
_MD_UNDERSCORE = re.compile(r"(?<![^\W_])_")
# GitHub's autolinks: ``www.``, a scheme's ``://``, an address's ``@``.
_MD_AUTOLINK = re.compile(r"(?i)(?<=\bwww)\.|:(?=//)|@")
# A line starting with one of these would open a heading, a quote, a list or a rule.
_MD_BLOCK = re.compile(r"[#>+=-]|[0-9]+(?=[.)])")


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


def markdown_text(text: str, *, line_start: bool = False) -> str:
    """``text`` as markdown that shows it and does nothing else.

    ``&``, ``<`` and ``>`` become HTML entities (no tag, comment or ``<url>`` autolink);
    ``\\``, ``|``, `````, ``*``, ``~``, ``[`` and any ``_`` not after a letter or digit
    get a backslash (no link, image, reference, emphasis, code span, or end of a table
    cell); so do the ``.`` of ``www.``, the ``:`` of ``://`` and every ``@`` (GitHub's
    autolinks). Call :func:`visible` first: control characters are not touched here.

    Parameters
    ----------
    text : str
        One line of text (a name, a title, a cell).
    line_start : bool, default=False
        The text starts a line (a note under a table): a leading ``#``, ``>``, ``+``,
        ``=``, ``-`` or ``1.`` is escaped too, so it opens no heading, quote or list.

    Returns
    -------
    str
        The escaped text; text without such characters comes back unchanged.
    """
    out = html.escape(text, quote=False)
    out = _MD_ALWAYS.sub(r"\\\g<0>", out)
    out = _MD_UNDERSCORE.sub(r"\\_", out)
    out = _MD_AUTOLINK.sub(r"\\\g<0>", out)
    if line_start:
        stripped = out.lstrip(" ")
        block = _MD_BLOCK.match(stripped)
        if block:  # before the marker, or before the ``.`` of ``1.`` (no digit escapes)
            at = len(out) - len(stripped) + (block.end() if block.group()[0].isdigit() else 0)
            out = out[:at] + "\\" + out[at:]
    return out


def csv_cell(value: Any) -> Any:
    """A CSV cell a spreadsheet will show, never evaluate.

    Parameters
    ----------
    value : any
        A cell as passed to ``csv.writer``. Only ``str`` is changed.

    Returns
    -------
    any
        For text: every control or bidi character (:func:`is_hidden`: NUL, ESC, tab, CR,
        LF, DEL, C1, U+202E...) written as ``\\uNNNN`` (a JSON escape, so a cell holding
        JSON text stays valid JSON of the same value), then ``"'"`` in front when the
        cell, past any leading whitespace, starts with ``=``, ``+``, ``-`` or ``@`` and
        is not a plain number (``"-0.5"`` and ``"+3"`` stay as they are; a tab or CR at
        the start is escaped, so it starts nothing). Anything else unchanged.
    """
    if not isinstance(value, str):
        return value
    if any(is_hidden(char) for char in value):
        value = "".join(f"\\u{ord(c):04x}" if is_hidden(c) else c for c in value)
    if value.lstrip().startswith(_FORMULA_START) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value
