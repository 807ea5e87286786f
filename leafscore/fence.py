"""The markdown code fence around a whole text, found in linear time.

``scorer.FENCE`` (the definition's rule: a text that is wholly one markdown code fence,
an optional ``json``/``json5``/``jsonc``/``JSON`` tag, LF or CRLF line ends) is a regular
expression whose lazy body tries every end position and scans the blanks after each: a
fence followed by 100,000 blanks costs about 10 s, 300,000 over a minute.
:func:`fence_span` finds the same body by looking at the text once from each end: the
closing fence can only be the last non-blank characters, so the shortest body the
expression would take is fixed by a scan backwards over the blanks before it.
``tests/test_jsonl_reading.py`` checks it against ``scorer.FENCE`` on generated texts.
"""

from __future__ import annotations

import re

__all__ = ["fence_span", "unwrap_fence"]

_TICKS = "```"
# The info strings scorer.FENCE accepts, in the order its alternation tries them.
_TAGS = ("json5", "json", "JSON", "jsonc", "")
_BLANKS = re.compile(r"[ \t]*")


def fence_span(text: str) -> tuple[int, int] | None:
    """The ``(start, end)`` of the body of the code fence around the whole ``text``,
    equal to ``scorer.FENCE.fullmatch(text).span("body")``, or ``None`` when the text
    is not one fence. Linear in ``len(text)``; never raises.

    Parameters
    ----------
    text : str
        Any text, typically a result's ``data`` given as text.
    """
    start = len(text) - len(text.lstrip())  # ``\s*``: str.isspace is re's ``\s``
    if not text.startswith(_TICKS, start):
        return None
    body = _header_end(text, start + len(_TICKS))
    if body < 0:
        return None
    last = len(text.rstrip())  # the closing ticks end where the trailing blanks begin
    close = last - len(_TICKS)
    if close < body or not text.startswith(_TICKS, close):
        return None
    end = body + len(text[body:close].rstrip(" \t"))  # the blanks before the ticks
    for mark in ("\n", "\r"):  # then ``\n?`` and ``\r?``, read backwards
        if end > body and text[end - 1] == mark:
            end -= 1
    return body, end


def _header_end(text: str, at: int) -> int:
    """Where the body starts after the opening ticks (blanks, a tag, blanks, a line end),
    or -1 when the rest of that line is not such a header."""
    after = _BLANKS.match(text, at).end()
    for tag in _TAGS:
        if text.startswith(tag, after):
            end = _BLANKS.match(text, after + len(tag)).end()
            if text.startswith("\r\n", end):
                return end + 2
            if text.startswith("\n", end):
                return end + 1
    return -1


def unwrap_fence(text: str) -> str:
    """The body of a markdown code fence around the whole ``text``, else ``text`` itself
    (``scorer.unwrap_fence``, in linear time: :func:`fence_span`)."""
    span = fence_span(text)
    return text if span is None else text[span[0]:span[1]]
