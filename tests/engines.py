"""The two engines as one face for tests: the definition (``scorer.py``) and the fast
engine (``leafscore._fast``), each with the same entry points.

Every test of scores takes the ``engine`` fixture (tests/conftest.py) and so runs once
per engine; ``REFERENCE`` and ``FAST`` are there for tests that compare the two.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
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
