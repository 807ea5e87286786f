"""The two engines as one face for tests: the definition (``scorer.py``) and the fast
engine (``leafscore._fast``), each with the same entry points.

Every test of scores takes the ``engine`` fixture (tests/conftest.py) and so runs once
per engine; ``REFERENCE`` and ``FAST`` are there for tests that compare the two.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import scorer
from leafscore import _fast


@dataclass(frozen=True)
class Engine:
    """One engine: ``name`` as ``--engine`` spells it, ``versions`` its table of records,
    and its ``score``, ``score_parse_failure`` and ``score_file`` (``scorer``'s
    signatures, returns and errors)."""

    name: str
    versions: Mapping[str, scorer.ScoringVersion]
    score: Callable[..., Any]
    score_parse_failure: Callable[..., Any]
    score_file: Callable[..., Any]

    def __repr__(self) -> str:
        return f"<{self.name} engine>"


REFERENCE = Engine("reference", scorer.VERSIONS, scorer.score, scorer.score_parse_failure,
                   scorer.score_file)
FAST = Engine("fast", _fast.VERSIONS, _fast.score, _fast.score_parse_failure,
              _fast.score_file)
#: Both engines, the definition first.
ENGINES: tuple[Engine, ...] = (REFERENCE, FAST)


def output(score: Callable[..., Any], result: Any, schema: Any, label: Any,
           version: str) -> str:
    """What an engine's ``score`` gives for one document: its score's ``to_dict`` (with
    verdicts under 2.x) as text, compared by ``repr`` so that ``1``, ``1.0`` and ``True``,
    or ``0.0`` and ``-0.0``, never pass for each other; or the ScoringError it raises."""
    try:
        doc = score(result, schema, label, version=version, file="doc.json")
    except scorer.ScoringError as error:
        return f"ScoringError: {error}"
    return repr(doc.to_dict(verdicts=True) if version != "1.0" else doc.to_dict())


def differences(schema: Any, label: Any, result: Any, *, forced: Sequence[Mapping[str, Any]],
                versions: Sequence[str]) -> list[str]:
    """Where the fast engine, run under each tuning of ``forced``
    (``leafscore._fast.tuned``), differs from the definition under each of ``versions``;
    empty when it never does."""
    found = []
    for version in versions:
        expected = output(scorer.score, result, schema, label, version)
        for changes in forced:
            with _fast.tuned(**changes):
                got = output(_fast.score, result, schema, label, version)
            if got != expected:
                found.append(f"{version} {changes or 'default'}:\n  fast {got}\n  "
                             f"reference {expected}")
    return found
