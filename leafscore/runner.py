"""Documents x systems -> document scores: the run every command reads.

The data model (``Cell``, ``Run``) is shared by every command: analysis modules
(leaderboard, fields, diff, gate) read a ``Run`` and never rescore (STYLE.md §1).

``score_benchmark`` keys every (system, document) by content (``cache.cache_key``), takes
what the cache holds, scores the rest serially or in worker processes (``fork`` where
available, so the benchmark is shared, not pickled), and assembles the cells in id order,
so the output never depends on ``workers`` or on completion order. Scoring itself is
``scorer.score``; what a missing or unreadable result becomes is a per-version rule
(``RULES``).
"""

from __future__ import annotations

import dataclasses
import multiprocessing
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import scorer
from leafscore import __version__
from leafscore.benchmark import Benchmark, Document, RawResult, read_result
from leafscore.cache import Cache, cache_key, scorer_digest
from leafscore.signature import format_signature, set_digest

#: The statuses a ``Cell`` may carry.
STATUSES: tuple[str, ...] = ("scored", "parse_failure", "missing")


@dataclass(frozen=True)
class Cell:
    """One (system, document) outcome.

    ``status`` is ``"scored"`` (a result was read), ``"parse_failure"`` (invalid JSON, an
    envelope that is not an object, or ``"status": "failed"``) or ``"missing"`` (no result
    file). ``score`` is the scorer's ``DocScore`` (2.0) or ``DocScoreV1`` (1.0); it is
    ``None`` only for a missing result under version 1.0, which leaves it out of the mean.
    ``warnings`` are human-readable lines (``"results/gpt/a.json: ..."``).
    """

    status: str
    score: Any
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Run:
    """Every document of a benchmark scored for every system, in id order.

    ``documents`` are label ids, sorted; ``systems`` sorted; ``cells`` holds every
    ``(system, doc_id)`` pair. ``metadata`` maps doc_id -> metadata columns (may be
    empty); ``digests`` maps a relative path (``"schemas/a.json"``) -> sha256 hex.
    """

    version: str
    options: Any
    documents: tuple[str, ...]
    systems: tuple[str, ...]
    cells: Mapping[tuple[str, str], Cell]
    metadata: Mapping[str, Mapping[str, Any]]
    digests: Mapping[str, str]
    signature: str

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
        return scorer.scoring_version(self.version).mean(values)


# ------------------------------------------------------------------------------------
# Scoring a benchmark
# ------------------------------------------------------------------------------------
# What a parse failure and a missing result become, how scores are stored and averaged:
# each is a field of the version's record, ``scorer.VERSIONS[version]`` (STYLE.md §3).


def matching_name(version: str) -> str:
    """How array items are paired under ``version`` (its record's ``pairing``)."""
    return scorer.scoring_version(version).pairing


def score_cell(doc: Document, raw: RawResult, version: str, options: Any) -> Cell:
    """Score one (system, document) as ``python scorer.py`` would; never raises for a bad
    result. Raises ``scorer.ScoringError`` for a schema or label the metric cannot score.
    """
    record = scorer.scoring_version(version)
    read = read_result(raw, record, doc.schema)
    score = record.score_outcome(read.outcome, doc.schema, doc.label, options, doc.schema_file)
    return Cell(read.status, score, read.warnings)


def _to_dict(score: Any) -> dict[str, Any]:
    """Every stored field of a document score, verdicts included."""
    return score.to_dict(verdicts=True) if isinstance(score, scorer.DocScore) \
        else score.to_dict()


def _store(cache: Cache, key: str, cell: Cell, version: str) -> None:
    """Cache a cell; its verdicts (if any) go in the entry's detail line, so reading a
    run's values (``score``, ``leaderboard``) never parses them."""
    score = None if cell.score is None else _to_dict(cell.score)
    verdicts = None if score is None else score.pop("verdicts", None)
    entry = {"status": cell.status, "warnings": list(cell.warnings), "score": score}
    cache.put(key, entry, verdicts)


def _load(cache: Cache, key: str, version: str, *, verdicts: bool) -> Cell | None:
    """A cached cell, or ``None`` on a miss (absent, damaged, or verdicts wanted but gone).

    With ``verdicts=False`` a version-2.0 score is rebuilt without its verdicts.
    """
    record = scorer.scoring_version(version)
    found = cache.get(key, detail=verdicts and record.has_verdicts)
    if found is None:
        return None
    entry, listed = found
    try:
        raw = entry["score"]
        if raw is not None and verdicts and record.has_verdicts:
            if not isinstance(listed, list):
                return None
            raw = {**raw, "verdicts": listed}
        score = None if raw is None else record.result_type.from_dict(raw)
        return Cell(entry["status"], score, tuple(entry["warnings"]))
    except (KeyError, TypeError, ValueError):
        return None


@dataclass(frozen=True)
class _Job:
    """What a worker needs, set once per process (fork shares it without pickling)."""

    bench: Benchmark
    docs: Mapping[str, Document]
    version: str
    options: Any
    cache: Cache
    keys: Mapping[tuple[str, str], str]
    verdicts: bool


_JOB: _Job | None = None


def _init_worker(job: _Job | None) -> None:
    global _JOB
    _JOB = job


def _work(pair: tuple[str, str]) -> Cell:
    """Score one pair in a worker (or in the parent when serial) and cache it."""
    job = _JOB
    if job is None:  # pragma: no cover - set by _init_worker
        raise RuntimeError("worker used before initialisation")
    cell = score_cell(job.docs[pair[1]], job.bench.results[pair], job.version, job.options)
    _store(job.cache, job.keys[pair], cell, job.version)
    if not job.verdicts and getattr(cell.score, "verdicts", None):
        # Not wanted by the caller: dropping them here spares pickling them back.
        cell = Cell(cell.status, dataclasses.replace(cell.score, verdicts=()), cell.warnings)
    return cell


def score_benchmark(
    bench: Benchmark,
    *,
    version: str,
    options: Any,
    workers: int = 1,
    cache: Cache | None = None,
    progress: Callable[[int, int], None] | None = None,
    verdicts: bool = True,
) -> Run:
    """Score every (system, document) of ``bench`` into a ``Run``.

    Parameters
    ----------
    version : str
        One of ``scorer.SCORING_VERSIONS``.
    options : scorer.Options
        Benchmark-wide scoring options.
    workers : int, default=1
        Processes to score with (>= 1); the output is identical for every value.
    cache : Cache, optional
        Per-document cache; cached cells are not rescored.
    progress : callable(done, total), optional
        Called in this process after each cell is ready.
    verdicts : bool, default=True
        False when the caller reads no verdicts (values, counts and fields only): a
        version-2.0 score read from the cache then carries ``verdicts == ()``, which
        saves parsing them (most of a warm run's time on large documents).

    Raises
    ------
    ValueError
        If ``version`` is unknown or ``workers < 1``.
    scorer.ScoringError
        For a schema or label the metric cannot score (the first met, in id order
        when serial).
    """
    scorer.scoring_version(version)  # ValueError for an unknown version
    if workers < 1:
        raise ValueError(f"workers={workers} must be at least 1")
    cache = cache or Cache(None)
    digest, scorer_sha = options.digest(), scorer_digest()
    pairs = [(s, d.id) for s in bench.systems for d in bench.documents]
    docs = {d.id: d for d in bench.documents}
    keys = {
        (s, d): cache_key(
            schema_sha256=docs[d].schema_sha256, label_sha256=docs[d].label_sha256,
            result_sha256=bench.results[(s, d)].sha256, version=version,
            options_digest=digest, scorer_sha256=scorer_sha,
        )
        for s, d in pairs
    }
    cells: dict[tuple[str, str], Cell] = {}
    todo: list[tuple[str, str]] = []
    for pair in pairs:
        cell = _load(cache, keys[pair], version, verdicts=verdicts)
        if cell is None:
            todo.append(pair)
        else:
            cells[pair] = cell
    done, total = len(cells), len(pairs)
    if progress:
        progress(done, total)
    job = _Job(bench, docs, version, options, cache, keys, verdicts)
    for pair, cell in zip(todo, _map(job, todo, workers), strict=True):
        cells[pair] = cell
        done += 1
        if progress:
            progress(done, total)
    ordered = {pair: cells[pair] for pair in pairs}
    return Run(
        version=version,
        options=options,
        documents=bench.ids(),
        systems=bench.systems,
        cells=MappingProxyType(ordered),
        metadata=bench.metadata,
        digests=MappingProxyType(bench.digests),
        signature=run_signature(bench, version, options),
    )


def _map(job: _Job, todo: list[tuple[str, str]], workers: int) -> Iterator[Cell]:
    """Cells of ``todo`` in order, scored serially or by ``workers`` processes."""
    if workers == 1 or len(todo) < 2:
        _init_worker(job)
        try:
            yield from map(_work, todo)
        finally:
            _init_worker(None)
        return
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    chunk = max(1, min(64, len(todo) // (workers * 8)))
    with ProcessPoolExecutor(workers, mp_context=context, initializer=_init_worker,
                             initargs=(job,)) as pool:
        yield from pool.map(_work, todo, chunksize=chunk)


def run_signature(bench: Benchmark, version: str, options: Any) -> str:
    """The signature line of a run (default bootstrap settings)."""
    schemas = {d.schema_file: d.schema_sha256 for d in bench.documents}
    labels = {d.label_file: d.label_sha256 for d in bench.documents}
    return format_signature(
        version=version, matching=matching_name(version), options_digest=options.digest(),
        schemas=set_digest(schemas), labels=set_digest(labels), tool=__version__,
    )
