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
import functools
import math
import multiprocessing
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import scorer
from leafscore import __version__
from leafscore.benchmark import Benchmark, Document, RawResult, read_result
from leafscore.cache import Cache, cache_key, code_digest, options_sha256
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


# ------------------------------------------------------------------------------------
# Cache entries: written with the file name left out, read back only when they add up
# ------------------------------------------------------------------------------------
# The cache is shared by every system whose result has the same bytes, and an entry may
# have been edited, so an entry names no file, and nothing is taken from it unchecked.


def _store(cache: Cache, key: str, cell: Cell, raw: RawResult) -> None:
    """Cache a cell; its verdicts (if any) go in the entry's detail line, so reading a
    run's values (``score``, ``leaderboard``) never parses them.

    Each warning is stored without its leading file name (``raw.file``), which ``_load``
    puts back, so a warm run names the file it reads, as a cold run does. A cell with a
    warning that does not start with its file name is not stored (it would name another
    system's file when read for it).
    """
    prefix = f"{raw.file}"
    if not all(w.startswith(prefix) for w in cell.warnings):
        return
    score = None if cell.score is None else _to_dict(cell.score)
    verdicts = None if score is None else score.pop("verdicts", None)
    entry = {"status": cell.status, "warnings": [w[len(prefix):] for w in cell.warnings],
             "score": score}
    cache.put(key, entry, verdicts)


def _load(cache: Cache, key: str, raw: RawResult, version: str, *,
          verdicts: bool) -> Cell | None:
    """A cached cell, or ``None`` on a miss: absent, damaged, badly signed, verdicts
    wanted but gone, or an entry that does not add up (``entry_problem``).

    With ``verdicts=False`` a version-2.0 score is rebuilt without its verdicts.
    """
    record = scorer.scoring_version(version)
    found = cache.get(key, detail=verdicts and record.has_verdicts)
    if found is None:
        return None
    entry, listed = found
    if entry_problem(entry, record, missing=raw.data is None and not raw.problem):
        return None
    try:
        stored = entry["score"]
        if stored is not None and verdicts and record.has_verdicts:
            if not isinstance(listed, list):
                return None
            stored = {**stored, "verdicts": listed}
        score = None if stored is None else record.result_type.from_dict(stored)
    except (KeyError, TypeError, ValueError):
        return None
    if stored is not None and "verdicts" in stored and _verdicts_disagree(score):
        return None
    return Cell(entry["status"], score, tuple(raw.file + w for w in entry["warnings"]))


def entry_problem(entry: Any, record: scorer.ScoringVersion, *, missing: bool) -> str:
    """Why a cache entry cannot be used for a cell of ``record``'s version (``""``: it can).

    ``entry`` is ``{"status", "warnings", "score"}`` as parsed; ``missing`` says whether
    the result file is absent. The status must be one of :data:`STATUSES` and agree with
    ``missing``; warnings a list of strings; the score absent exactly when the version
    leaves a missing result unscored, else checked by its type (``_SCORE_CHECKS``): values
    finite and in [0, 1], counts non-negative integers that reproduce the value.
    Never raises.
    """
    if not isinstance(entry, dict) or set(entry) != {"status", "warnings", "score"}:
        return "not an entry"
    status, warnings, score = entry["status"], entry["warnings"], entry["score"]
    if status not in STATUSES or (status == "missing") != missing:
        return f"status {status!r} does not fit the result"
    if not isinstance(warnings, list) or not all(isinstance(w, str) for w in warnings):
        return "warnings are not a list of strings"
    if score is None:
        return "" if status == "missing" and _unscored_when_missing(record.name) \
            else "no score"
    check = _SCORE_CHECKS.get(record.result_type)
    if check is None or not isinstance(score, dict):
        return "score of an unknown shape"
    if score.get("version", record.name) != record.name:
        return f"score of version {score['version']!r}"
    return check(score, status)


@functools.cache
def _unscored_when_missing(version: str) -> bool:
    """Whether ``version`` leaves a missing result out of the mean (its ``missing`` rule
    gives ``None``), asked of the rule itself on the smallest document."""
    record = scorer.scoring_version(version)
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    return record.missing(schema, {"a": "x"}, scorer.Options(), "") is None


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_unit(value: Any) -> bool:
    """A float (or int) in [0, 1]; NaN and infinities fail both comparisons."""
    return isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1


def _check_v2(score: dict[str, Any], status: str) -> str:
    """Problems of a stored ``DocScore`` (``to_dict`` without verdicts), or ``""``."""
    value, counts, fields = score.get("accuracy"), score.get("counts"), score.get("fields")
    if not _is_unit(value):
        return f"accuracy {value!r} is not in [0, 1]"
    if not isinstance(counts, dict) or set(counts) != set(scorer.VERDICT_KINDS) \
            or not all(_is_count(n) for n in counts.values()):
        return "counts are not a count of every verdict kind"
    expected = 0.0 if status == "parse_failure" else scorer.DocScore.accuracy_of(counts)
    if value != expected:
        return f"accuracy {value!r} is not {expected!r} from the counts"
    if not isinstance(fields, dict):
        return "fields are not an object"
    sums = [0, 0, 0]
    for counted in fields.values():
        if not isinstance(counted, dict) or not all(
                _is_count(counted.get(k)) for k in ("tp", "fp", "fn")):
            return "field counts are not counts"
        for i, k in enumerate(("tp", "fp", "fn")):
            sums[i] += counted[k]
    totals = [sum(scorer.VERDICT_KINDS[kind][i] * n for kind, n in counts.items())
              for i in range(3)]
    return "" if sums == totals else f"fields sum to {sums}, counts to {totals}"


def _check_v1(score: dict[str, Any], status: str) -> str:
    """Problems of a stored ``DocScoreV1`` (``to_dict``), or ``""``."""
    value, arrays, non = score.get("final"), score.get("arrays"), score.get("non_array")
    if not _is_unit(value):
        return f"final {value!r} is not in [0, 1]"
    parts: dict[str, tuple[float, float]] | None = None
    if arrays is not None:
        if not isinstance(arrays, dict) or not arrays:
            return "arrays are not a non-empty object"
        parts = {}
        for name, part in arrays.items():
            if not isinstance(part, dict) or not _is_unit(part.get("score")) \
                    or not _is_weight(part.get("total")):
                return f"array {name!r} is not a score in [0, 1] with a finite total"
            parts[name] = (part["score"], part["total"])
    pair = None
    if non is not None:
        if not isinstance(non, dict) or not _is_unit(non.get("score")) \
                or not _is_count(non.get("total")):
            return "non_array is not a score in [0, 1] with a count"
        pair = (non["score"], non["total"])
    if parts is None and pair is None:
        return "no part to score"
    expected = scorer.v1_final(parts, pair)
    return "" if value == expected else f"final {value!r} is not {expected!r} from its parts"


def _is_weight(value: Any) -> bool:
    """A finite non-negative number (1.0's array totals are float weights)."""
    return isinstance(value, int | float) and not isinstance(value, bool) \
        and math.isfinite(value) and value >= 0


#: Score type -> check of its stored form (a version's record names its type).
_SCORE_CHECKS: dict[type, Callable[[dict[str, Any], str], str]] = {
    scorer.DocScore: _check_v2,
    scorer.DocScoreV1: _check_v1,
}


def _verdicts_disagree(score: Any) -> bool:
    """Whether the verdicts of a stored 2.0 score sum to other counts or fields than the
    ones stored with them (so what ``explain`` lists is what the numbers say)."""
    try:
        again = scorer.DocScore.from_verdicts(score.verdicts)
    except (KeyError, TypeError):
        return True
    return again.counts != score.counts or again.fields != score.fields


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
    raw = job.bench.results[pair]
    cell = score_cell(job.docs[pair[1]], raw, job.version, job.options)
    _store(job.cache, job.keys[pair], cell, raw)
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
    options_digest, code = options_sha256(options), code_digest()
    pairs = [(s, d.id) for s in bench.systems for d in bench.documents]
    docs = {d.id: d for d in bench.documents}
    keys = {
        (s, d): cache_key(
            schema_sha256=docs[d].schema_sha256, label_sha256=docs[d].label_sha256,
            result_sha256=bench.results[(s, d)].sha256, version=version,
            options_sha256=options_digest, code_sha256=code,
            reader="jsonl-line" if bench.results[(s, d)].from_line else "file",
        )
        for s, d in pairs
    }
    cells: dict[tuple[str, str], Cell] = {}
    todo: list[tuple[str, str]] = []
    for pair in pairs:
        cell = _load(cache, keys[pair], bench.results[pair], version, verdicts=verdicts)
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
