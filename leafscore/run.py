"""The run every command reads: documents x systems -> cells, as one frozen ``Run``.

Analysis modules (leaderboard, fields, diff, gate, power, suspects, report, explore)
read a ``Run`` and never rescore (STYLE.md §1); ``runner.score_benchmark`` makes one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import scorer
from leafscore.cells import Cell

__all__ = ["Run"]


@dataclass(frozen=True)
class Run:
    """Every document of a benchmark scored for every system, in id order.

    ``record`` is the scoring version every cell was scored under (its rules: pairing,
    mean, missing rule...), as the engine named ``engine`` (``versions.ENGINES``) scores
    it. ``documents`` are label ids, sorted; ``systems`` sorted; ``cells`` holds every
    ``(system, doc_id)`` pair. ``metadata`` maps doc_id -> metadata columns (may be
    empty); ``digests`` maps a relative path (``"schemas/a.json"``) -> sha256 hex.
    ``kept_verdicts`` is False when the cells' scores carry no verdicts (scored with
    ``verdicts=False``; their per-field error kinds are in ``Cell.errors``).
    ``results_sha256`` maps each result file present (``"results/gpt/a.json"``) to the
    sha256 hex of the bytes scored (``None``: not recorded, as for a hand-built run).
    """

    record: scorer.ScoringVersion
    engine: str
    options: Any
    documents: tuple[str, ...]
    systems: tuple[str, ...]
    cells: Mapping[tuple[str, str], Cell]
    metadata: Mapping[str, Mapping[str, Any]]
    digests: Mapping[str, str]
    signature: str
    kept_verdicts: bool = True
    results_sha256: Mapping[str, str] | None = None

    @property
    def version(self) -> str:
        """The scoring version's name (``"2.0"``), as outputs print it."""
        return self.record.name

    def document_scores(self, system: str) -> list[float | None]:
        """Document scores of ``system`` in id order: floats in [0, 1], ``None`` = not scored.

        ``None`` appears only for a missing result under version 1.0.
        """
        out: list[float | None] = []
        for doc in self.documents:
            cell = self.cells[(system, doc)]
            out.append(None if cell.score is None else float(cell.score.value))
        return out

    def system_score(self, system: str) -> float | None:
        """Macro average over scored documents with the version's arithmetic (1.0:
        DocuBench's ``sum / len``, bit for bit), ``None`` if none is scored."""
        values = [v for v in self.document_scores(system) if v is not None]
        return self.mean(values) if values else None

    def mean(self, values: list[float]) -> float:
        """The version's mean of document scores (system scores and breakdowns alike)."""
        return self.record.mean(values)
