"""Hand-built Runs for the analysis tests (leaderboard, fields, diff, gate, render).

Document scores are small stand-ins with the attributes the contract names: version 2.0
scores have ``value``, ``counts``, ``fields`` (path -> tp/fp/fn) and ``verdicts``, built
from a list of verdicts exactly as spec scoring-2.0 §4 counts them; version 1.0 scores
have ``value`` only. Runs are the real ``leafscore.run.Run``, of the reference engine's
records (``scorer.VERSIONS``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import scorer
from leafscore.cells import Cell
from leafscore.run import Run

SIGNATURE = (
    "leafscore:2.0|match:optimal|opts:5be1c07a|schemas:3f2a9c1e0b7d|labels:9c01d4e2a6f0"
    "|bs:1000|seed:12345|tool:0.1.0"
)
#: Verdict kind -> (tp, fp, fn), spec scoring-2.0 §4.
KINDS = scorer.VERDICT_KINDS


@dataclass(frozen=True)
class Counts:
    tp: int
    fp: int
    fn: int


@dataclass(frozen=True)
class Verdict:
    address: str
    field: str
    kind: str
    label: Any = None
    result: Any = None
    label_canon: Any = None
    result_canon: Any = None


@dataclass(frozen=True)
class Score2:
    value: float
    counts: dict[str, int]
    fields: dict[str, Counts]
    verdicts: tuple[Verdict, ...] = ()


@dataclass(frozen=True)
class Score1:
    value: float
    extra: dict[str, Any] = field(default_factory=dict)


def doc(*verdicts: Verdict) -> Score2:
    """A 2.0 document score from its verdicts: accuracy = correct / scored (1.0 if none)."""
    kinds = Counter(v.kind for v in verdicts)
    scored = sum(n for k, n in kinds.items() if k != "correct_absence")
    per_field: dict[str, list[int]] = {}
    for v in verdicts:
        total = per_field.setdefault(v.field, [0, 0, 0])
        for i, n in enumerate(KINDS[v.kind]):
            total[i] += n
    return Score2(
        value=kinds["correct"] / scored if scored else 1.0,
        counts=dict(kinds),
        fields={path: Counts(*c) for path, c in per_field.items()},
        verdicts=tuple(verdicts),
    )


def v(field_path: str, kind: str, label: Any = None, result: Any = None) -> Verdict:
    """A verdict whose address is its field path."""
    return Verdict(field_path, field_path, kind, label, result, label, result)


def fraction(value: float) -> Score2:
    """A 2.0 document score with accuracy ``value`` and no fields (for score-only tests)."""
    return Score2(value=value, counts={}, fields={})


def run_of(
    cells: dict[str, list[Any]],
    *,
    version: str = "2.0",
    documents: tuple[str, ...] | None = None,
    statuses: dict[tuple[str, str], str] | None = None,
    metadata: dict[str, dict[str, Any]] | None = None,
    digests: dict[str, str] | None = None,
    options: Any = None,
) -> Run:
    """A Run from ``{system: [score per document]}``; a float becomes ``fraction(x)``.

    ``None`` is a missing result left out of the mean (1.0); statuses default to
    ``scored`` (``missing`` for None) and may be overridden per ``(system, doc)``.
    """
    n = len(next(iter(cells.values())))
    docs = documents or tuple(f"d{i}" for i in range(1, n + 1))
    table = {}
    for system, scores in cells.items():
        for d, s in zip(docs, scores, strict=True):
            score = fraction(s) if isinstance(s, float | int) and version == "2.0" else s
            if isinstance(s, float | int) and version == "1.0":
                score = Score1(float(s))
            status = (statuses or {}).get((system, d), "missing" if s is None else "scored")
            table[(system, d)] = Cell(status, score)
    return Run(
        record=scorer.VERSIONS[version],
        engine="reference",
        options=options,
        documents=docs,
        systems=tuple(sorted(cells)),
        cells=table,
        metadata=metadata or {},
        digests=digests or {},
        signature=SIGNATURE.replace("leafscore:2.0", f"leafscore:{version}"),
    )
