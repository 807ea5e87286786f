"""Warnings for people: grouped by kind, so one repeated fault does not drown the others.

Every command prints its warnings through one :class:`WarningPrinter` (``leafscore.cli``
makes one per command line, from ``--warnings`` and ``--quiet``):

* ``grouped`` (the default): the first :data:`SHOWN` warnings of each kind in full, as
  they come; when the command ends, one line per kind that had more, with how many more,
  how many in all and where the rest are (their folders or files, with counts);
* ``all``: every warning in full, as before;
* ``quiet``: none (errors are never warnings, and are always printed).

A warning's **kind** is its message with the place it names taken away: the file (or
``file:line``, ``file#/pointer``) before the first ``": "``, and then every number and
every quoted value abstracted (:func:`kind_of`). ``results/a/x.json: missing result`` and
``results/b/y.json: missing result`` are one kind; ``labels/p.json#/q: 3 null value(s)``
and ``labels/r.json#/s: 29 null value(s)`` are one kind too. Structured findings
(``validate.Problem``) give their file and message apart, so nothing is guessed there.

Every warning is kept (:attr:`WarningPrinter.seen`), so ``--format json`` can carry all
of them whichever way stderr shows them.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

#: ``--warnings`` choices.
MODES: tuple[str, ...] = ("grouped", "all")
#: Warnings of one kind printed in full before the rest are counted.
SHOWN = 3
#: Places named on a kind's count line before the rest are counted.
PLACES = 4

# A place: a path-like token (no blanks), then optionally ``:N`` (a JSONL line),
# ``:line N column M`` (a text position) and ``#/pointer``.
_PLACE = re.compile(r"[^\s:#]+(?::\d+)?(?::line \d+ column \d+)?(?:#\S*)?")
_QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_LEVEL = re.compile(r"^(?:warning|error): ")


def split_place(text: str) -> tuple[str, str]:
    """``(place, message)`` of a warning line: the place is the path-like text before the
    first ``": "`` (``""`` when the line names none)."""
    text = _LEVEL.sub("", text, count=1)
    head, sep, rest = text.partition(": ")
    if sep and _PLACE.fullmatch(head):
        return head, rest
    return "", text


def abstract(message: str) -> str:
    """``message`` with every quoted value as ``'…'`` and every number as ``N``."""
    return _NUMBER.sub("N", _QUOTED.sub("'…'", message))


def kind_of(text: str) -> str:
    """The kind of a warning line: its message without its place, values abstracted."""
    return abstract(split_place(text)[1])


def folder_of(place: str) -> str:
    """Where a place lies, for the count line: a file's folder (``results/gpt/``), the
    JSONL file of a line (``pred.jsonl``), else the place itself."""
    path = re.split(r"[#:]", place, maxsplit=1)[0]
    if path.endswith(".jsonl") or "/" not in path.rstrip("/"):
        return path or "(no file)"
    return path.rstrip("/").rsplit("/", 1)[0] + "/"


@dataclass
class _Group:
    text: str  # the first warning of the kind, in full
    shown: int = 0
    rest: Counter = field(default_factory=Counter)


class WarningPrinter:
    """Prints warnings one line each through ``echo``, grouped by kind (module docstring).

    ``mode``: ``"grouped"`` or ``"all"``; ``quiet``: print none. :meth:`warn` each as it
    comes; :meth:`finish` once at the end prints the count lines (it may be called again;
    it prints each count once)."""

    def __init__(self, echo: Callable[[str], None], *, mode: str = "grouped",
                 quiet: bool = False, shown: int = SHOWN) -> None:
        if mode not in MODES:
            raise ValueError(f"mode={mode!r} is not one of {MODES}")
        self.echo, self.mode, self.quiet, self.shown = echo, mode, quiet, shown
        self.seen: list[str] = []
        self.groups: dict[str, _Group] = {}

    def warn(self, text: str, *, kind: str | None = None, place: str | None = None) -> None:
        """One warning: ``text`` is the line printed (without ``leafscore: warning: ``);
        ``kind`` and ``place`` when known (else read from ``text``: :func:`kind_of`,
        :func:`split_place`)."""
        self.seen.append(text)
        if self.quiet:
            return
        if self.mode == "all":
            self.echo(text)
            return
        found_place, message = split_place(text)
        key = abstract(message) if kind is None else kind
        group = self.groups.setdefault(key, _Group(text))
        if group.shown < self.shown:
            group.shown += 1
            self.echo(text)
        else:
            group.rest[folder_of(found_place if place is None else place)] += 1

    def finish(self) -> None:
        """One line per kind with warnings not printed: how many, in all, and where."""
        for group in self.groups.values():
            more = sum(group.rest.values())
            if not more:
                continue
            self.echo(count_line(group.text, more, group.shown + more, group.rest))
            group.rest.clear()


def count_line(first: str, more: int, total: int, where: Counter) -> str:
    """``N more like "<message>" (T in all): <folder> (n), ...; --warnings all prints
    every one``, naming the kind by the first warning's message."""
    message = split_place(first)[1]
    if len(message) > 70:
        message = message[:69].rstrip() + "…"
    places = sorted(where.items(), key=lambda kv: (-kv[1], kv[0]))
    listed = ", ".join(f"{place} ({n})" for place, n in places[:PLACES])
    if len(places) > PLACES:
        others = sum(n for _, n in places[PLACES:])
        listed += f" and {len(places) - PLACES} other place(s) ({others})"
    return (f"{more} more like \"{message}\" ({total} in all), in {listed}; "
            "--warnings all prints every one")
