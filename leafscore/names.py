"""Names that look like other names: checks on system names and document ids.

``files.check_name`` already refuses names that could act as paths. These checks catch
names that deceive a reader: a leaderboard row ``аtlas`` (Cyrillic ``а``) beside
``atlas``, an id that differs from another only in case or width, a name that is not
in Unicode NFC (two byte sequences that print the same), or one holding bidi controls.

Confusables are found in two cheap ways, with :mod:`unicodedata` only: names equal
after NFKC and case folding collide; a name whose letters come from more than one
script (the script read from the first word of each letter's Unicode name: ``LATIN``,
``CYRILLIC``, ``GREEK``; Han, Hiragana and Katakana count as one, as Japanese mixes
them) is flagged on its own. That is not Unicode's full confusables table (UTS #39): a
name written wholly in Cyrillic look-alikes (``сосо``) passes.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from leafscore.benchmark import list_ids, list_systems
from leafscore.hygiene import is_hidden, visible
from leafscore.validate import Problem
from scorer import InputError

__all__ = ["NameProblem", "check_names", "folder_problems", "scripts"]

# Scripts that one name may mix without suspicion (Japanese writing).
_JAPANESE = frozenset({"CJK", "HIRAGANA", "KATAKANA"})


@dataclass(frozen=True)
class NameProblem:
    """One suspicious name: ``kind`` is ``"system name"`` or ``"document id"``."""

    kind: str
    name: str
    reason: str

    def __str__(self) -> str:
        return visible(f"{self.kind} {self.name!r} {self.reason}")


def scripts(name: str) -> list[str]:
    """The scripts of the letters of ``name``, in order of first use (``["LATIN"]``).

    Digits, punctuation and symbols have no script here; Han, Hiragana and Katakana
    are reported as ``"JAPANESE"``.
    """
    found: list[str] = []
    for char in name:
        if not unicodedata.category(char).startswith("L"):
            continue
        script = unicodedata.name(char, "UNKNOWN").split(" ")[0]
        script = "JAPANESE" if script in _JAPANESE else script
        if script not in found:
            found.append(script)
    return found


def _own_problems(name: str) -> list[str]:
    if name.isascii() and name.isprintable():
        return []  # no control, no format character, in NFC, Latin letters only
    reasons = []
    if any(is_hidden(char) for char in name):
        reasons.append("holds a control or bidirectional formatting character")
    elif any(unicodedata.category(char) == "Cf" for char in name):
        reasons.append("holds an invisible formatting character")
    if unicodedata.normalize("NFC", name) != name:
        reasons.append("is not in Unicode NFC (the same text has a shorter form)")
    used = scripts(name)
    if len(used) > 1:
        reasons.append("mixes letters of scripts " + " and ".join(s.title() for s in used)
                       + " (looks like another name)")
    return reasons


def _fold(name: str) -> str:
    if name.isascii():
        return name.lower()  # NFKC leaves ASCII as it is; its case folding is lower()
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def check_names(systems: Iterable[str], documents: Iterable[str]) -> list[NameProblem]:
    """Every problem of a benchmark's system names and document ids.

    Parameters
    ----------
    systems, documents : iterables of str
        Names already accepted by ``files.check_name`` (any order; duplicates ignored).

    Returns
    -------
    list of NameProblem
        Systems first, then documents, each sorted by name: a name not in NFC, holding
        control, bidi or other invisible formatting characters, mixing scripts, or
        colliding with another name of its kind after NFKC + casefold (each colliding
        name is listed, naming the others). Empty when every name is plain.
    """
    problems: list[NameProblem] = []
    for kind, names in (("system name", systems), ("document id", documents)):
        unique = sorted(set(names))
        folded: dict[str, list[str]] = {}
        for name in unique:
            folded.setdefault(_fold(name), []).append(name)
        for name in unique:
            reasons = _own_problems(name)
            others = [n for n in folded[_fold(name)] if n != name]
            if others:
                shown = ", ".join(repr(n) for n in others)
                reasons.append(f"collides with {shown} after NFKC and case folding")
            problems.extend(NameProblem(kind, name, reason) for reason in reasons)
    return problems


def folder_problems(root: Path) -> list[Problem]:
    """:func:`check_names` on the folder ``root``, as ``validate`` errors.

    Names are those of ``results/<system>/`` folders and ``labels/<id>.json`` files; a
    folder that cannot be listed is skipped here (``validate`` reports it already).
    """
    try:
        systems = list_systems(root)
    except InputError:
        systems = []
    try:
        documents = list_ids(root, "labels")
    except InputError:
        documents = []
    return [
        Problem("error", f"results/{p.name}/" if p.kind == "system name"
                else f"labels/{p.name}.json", "", str(p))
        for p in check_names(systems, documents)
    ]
