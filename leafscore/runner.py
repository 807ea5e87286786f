"""Documents x systems -> document scores: the run every command reads.

The data model (``Cell``, ``Run``) is shared by every command: analysis modules
(leaderboard, fields, diff, gate) read a ``Run`` and never rescore (STYLE.md §1).

``score_benchmark`` reads each result as its turn comes (``_Plan``: a batch at a time, never
the whole corpus), keys it by content (``cache.cache_key``), takes what the cache holds,
and scores the rest in batches on an executor (``executors``: this
process, a local pool, or Dask), which returns them in order. Cells are folded in id
order as they arrive (``folded``: error kinds per field kept, verdicts dropped unless
asked for), the cache is read and written here, in the client, never by a worker, and
``on_cell`` sees each complete cell, verdicts included, in that order; so the output
never depends on the executor, ``workers`` or completion order, and a run holds the
verdicts of O(batch) documents at a time. Scoring itself is
``scorer.score``; what a missing or unreadable result becomes is a per-version rule
(``RULES``).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, NamedTuple

import scorer
from leafscore import __version__, runpack
from leafscore.benchmark import Benchmark, Document, RawResult, read_result
from leafscore.cache import CACHE_FORMAT, Cache, cache_key, code_digest, options_sha256
from leafscore.executors import Executor, ExecutorError, make_executor
from leafscore.fields import NOT_ERRORS, error_kinds, error_kinds_of
from leafscore.runpack import STATUSES
from leafscore.signature import format_signature, set_digest


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
    errors: Mapping[str, Mapping[str, int]] | None = None

    def field_errors(self) -> Mapping[str, Mapping[str, int]] | None:
        """Field path -> error kind -> count of this document (``fields.error_kinds``):
        ``errors`` when folded at scoring time, else folded from the score's verdicts;
        ``None`` for a score without verdicts (1.0, or a missing result under 1.0)."""
        if self.errors is not None:
            return self.errors
        if isinstance(self.score, scorer.DocScore):
            return error_kinds_of(self.score)  # counted from rows: no Verdict is built
        verdicts = getattr(self.score, "verdicts", None)
        return None if verdicts is None else error_kinds(verdicts)


def folded(cell: Cell, *, verdicts: bool) -> Cell:
    """``cell`` with its error kinds folded per field (``Cell.errors``) and, unless
    ``verdicts``, its score's verdicts dropped (``verdicts == ()``): what a run keeps of a
    document, O(fields) instead of O(leaves). A score without verdicts is returned as is.
    """
    if isinstance(cell.score, scorer.DocScore):
        # one verdict per count: the counts say whether there are any, and reading
        # .verdicts would build every Verdict object
        any_verdicts = sum(cell.score.counts.values()) > 0
    elif getattr(cell.score, "verdicts", None) is None:
        return cell
    else:
        any_verdicts = bool(cell.score.verdicts)
    score = cell.score if verdicts or not any_verdicts \
        else dataclasses.replace(cell.score, verdicts=())
    return Cell(cell.status, score, cell.warnings, cell.field_errors())


def shared_parts(cell: Cell, table: dict[Any, Any]) -> Cell:
    """``cell`` with the equal parts of its 2.0 score (each field's counts, the verdict
    counts) replaced by the first equal one met in ``table`` (one table per run): equal
    values, one copy each, so a run of many similar documents holds few of them. Parts
    are never mutated. Any other score is returned as is."""
    score = cell.score
    if not isinstance(score, scorer.DocScore):
        return cell
    fields = {path: table.setdefault(counts, counts) for path, counts in score.fields.items()}
    counts = table.setdefault(("counts", *score.counts.items()), score.counts)
    return dataclasses.replace(cell, score=score.replace(fields=fields, counts=counts))


@dataclass(frozen=True)
class Run:
    """Every document of a benchmark scored for every system, in id order.

    ``documents`` are label ids, sorted; ``systems`` sorted; ``cells`` holds every
    ``(system, doc_id)`` pair. ``metadata`` maps doc_id -> metadata columns (may be
    empty); ``digests`` maps a relative path (``"schemas/a.json"``) -> sha256 hex.
    ``kept_verdicts`` is False when the cells' scores carry no verdicts (scored with
    ``verdicts=False``; their per-field error kinds are in ``Cell.errors``).
    ``results_sha256`` maps each result file present (``"results/gpt/a.json"``) to the
    sha256 hex of the bytes scored (``None``: not recorded, as for a hand-built run).
    """

    version: str
    options: Any
    documents: tuple[str, ...]
    systems: tuple[str, ...]
    cells: Mapping[tuple[str, str], Cell]
    metadata: Mapping[str, Mapping[str, Any]]
    digests: Mapping[str, str]
    signature: str
    kept_verdicts: bool = True
    results_sha256: Mapping[str, str] | None = None

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
    if cache.directory is None or not all(w.startswith(prefix) for w in cell.warnings):
        return
    score = None if cell.score is None else _to_dict(cell.score)
    verdicts = None if score is None else score.pop("verdicts", None)
    errors = cell.field_errors()
    entry = {"status": cell.status, "warnings": [w[len(prefix):] for w in cell.warnings],
             "score": score, "errors": None if errors is None else dict(errors)}
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
    if stored is not None and "verdicts" in stored and _verdicts_disagree(score,
                                                                          entry["errors"]):
        return None
    return Cell(entry["status"], score, tuple(raw.file + w for w in entry["warnings"]),
                entry["errors"])


def entry_problem(entry: Any, record: scorer.ScoringVersion, *, missing: bool) -> str:
    """Why a cache entry cannot be used for a cell of ``record``'s version (``""``: it can).

    ``entry`` is ``{"status", "warnings", "score", "errors"}`` as parsed; ``missing``
    says whether the result file is absent. The status must be one of :data:`STATUSES`
    and agree with ``missing``; warnings a list of strings; the score absent exactly when
    the version leaves a missing result unscored, else checked by its type
    (``_SCORE_CHECKS``): values finite and in [0, 1], counts non-negative integers that
    reproduce the value; ``errors`` (per-field error kinds) present exactly for a score
    with verdicts, and summing to its counts of each error kind (``_errors_problem``).
    Never raises.
    """
    if not isinstance(entry, dict) or set(entry) != {"status", "warnings", "score", "errors"}:
        return "not an entry"
    status, warnings, score = entry["status"], entry["warnings"], entry["score"]
    problem = _errors_problem(entry["errors"], score, record)
    if problem:
        return problem
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


def _errors_problem(errors: Any, score: Any, record: scorer.ScoringVersion) -> str:
    """Why a stored per-field error map does not fit its score (``""``: it does): none
    for a score without verdicts; else field -> error kind -> positive count, kinds
    summing over fields to the score's count of that kind."""
    if score is None or not record.has_verdicts:
        return "" if errors is None else "error kinds stored for a score without verdicts"
    if not isinstance(errors, dict) or not isinstance(score, dict) \
            or not isinstance(score.get("counts"), dict):
        return "error kinds are not an object"
    sums: dict[str, int] = {}
    for kinds in errors.values():
        if not isinstance(kinds, dict):
            return "error kinds are not counts"
        for kind, n in kinds.items():
            if kind in NOT_ERRORS or kind not in scorer.VERDICT_KINDS or not _is_count(n) \
                    or n == 0:
                return f"error kind {kind!r} is not a positive count of an error"
            sums[kind] = sums.get(kind, 0) + n
    counts = score["counts"]
    wrong = [k for k in scorer.VERDICT_KINDS if k not in NOT_ERRORS
             and sums.get(k, 0) != counts.get(k)]
    return f"error kinds do not sum to the counts of {wrong[0]!r}" if wrong else ""


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


def _verdicts_disagree(score: Any, errors: Any) -> bool:
    """Whether the verdicts of a stored 2.0 score sum to other counts, fields or error
    kinds than the ones stored with them (so what ``explain`` lists is what the numbers
    say)."""
    try:
        again = scorer.DocScore.from_verdicts(score.verdicts)
        kinds = error_kinds(score.verdicts)
    except (AttributeError, KeyError, TypeError):
        return True
    return again.counts != score.counts or again.fields != score.fields or kinds != errors


#: Most pairs in one batch sent to a worker (fewer when a run is small, so that every
#: worker gets some).
MAX_BATCH: int = 100


@dataclass(frozen=True)
class BatchJob:
    """What every batch needs, sent to each worker once: ``docs`` doc_id -> Document,
    the scoring ``version`` and ``options``, the client's ``code`` digest
    (``cache.code_digest``), and whether cells come back with their ``verdicts``."""

    docs: Mapping[str, Document]
    version: str
    options: Any
    code: str
    verdicts: bool


def score_batch(job: BatchJob, batch: Sequence[tuple[str, RawResult]]) -> list[Any]:
    """Cells of one batch of ``(doc_id, raw result)``, in order: each scored as
    ``score_cell`` and ``folded`` (verdicts kept only when ``job.verdicts``). Without
    verdicts a 2.0 cell comes back ``packed`` (plain tuples: a fraction of a cell's
    pickling cost, on the worker and in the client); ``unpacked`` makes it a cell again.
    Pure: writes nothing (the client caches).

    Raises ``ExecutorError`` when this process runs other scoring code than the client
    (another scorer.py, reader or library version: its scores would be cached as the
    client's), and ``scorer.ScoringError`` as ``score_cell``.
    """
    if code_digest() != job.code:
        raise ExecutorError("a worker runs other scoring code than this process "
                            "(scorer.py, leafscore or a library differs); install the same "
                            "versions on every worker")
    cells = [folded(score_cell(job.docs[doc_id], raw, job.version, job.options),
                    verdicts=job.verdicts) for doc_id, raw in batch]
    if job.verdicts:
        return cells
    equal: dict[Any, Any] = {}
    return [packed(cell, equal) for cell in cells]


def packed(cell: Cell, equal: dict[Any, Any] | None = None) -> Any:
    """A folded 2.0 cell without verdicts as plain tuples (``unpacked`` reverses it);
    any other cell as it is. Equal parts are one object through ``equal`` (one per
    batch), which pickle then writes once."""
    score = cell.score
    if not isinstance(score, scorer.DocScore) or score.verdicts or cell.errors is None:
        return cell
    equal = {} if equal is None else equal
    parts = (tuple(score.counts.items()),
             tuple((path, c.tp, c.fp, c.fn) for path, c in score.fields.items()),
             tuple((path, tuple(kinds.items())) for path, kinds in cell.errors.items()))
    counts, fields, errors = (equal.setdefault(part, part) for part in parts)
    return (cell.status, score.version, score.value, counts, fields, score.exact,
            cell.warnings, errors)


def unpacked(item: Any, table: dict[Any, Any]) -> Cell:
    """The cell of a ``packed`` item (a cell is returned as it is). Equal scores and
    error kinds are one object through ``table`` (a score's counts and fields shared as
    ``shared_parts`` shares them): scores are frozen and never mutated, and a run of
    similar documents holds few distinct ones."""
    if isinstance(item, Cell):
        return item
    status, version, value, counts, fields, exact, warnings, errors = item
    key = ("score", version, value, counts, fields, exact)
    score = table.get(key)
    if score is None:
        shared_counts = table.setdefault(("counts", *counts), dict(counts))
        shared_fields = {}
        for path, *tfn in fields:  # a FieldCounts made only for counts not met before
            found = table.get(("field", *tfn))
            if found is None:
                found = table[("field", *tfn)] = scorer.FieldCounts(*tfn)
            shared_fields[path] = found
        score = table[key] = scorer.DocScore(version, value, (), shared_counts,
                                             shared_fields, exact)
    shared_errors = table.get(("errors", errors))
    if shared_errors is None:
        shared_errors = table[("errors", errors)] = {path: dict(kinds)
                                                      for path, kinds in errors}
    return Cell(status, score, warnings, shared_errors)


def batch_size(executor: Executor, pairs: int) -> int:
    """Pairs per batch: the executor's ``batch_size``, else about four batches per
    worker, at most the executor's ``max_batch`` (default :data:`MAX_BATCH`)."""
    if executor.batch_size:
        return executor.batch_size
    most = getattr(executor, "max_batch", None) or MAX_BATCH
    return max(1, min(most, math.ceil(pairs / (4 * executor.workers))))


class _Plan:
    """The pairs of a run in order, each result read only when its turn comes to be
    looked up in the cache and sent to be scored, so a run holds the result bytes of
    the batches in flight, not of the corpus.

    Each pair read is queued as ``(key, raw, digest, cached cell or None)`` for the fold
    (``take``), a cached pair's raw without its bytes; the pairs the cache does not hold
    are also gathered into batches for the executor (``batches``). Both draw from the one
    reading, in pair order.
    """

    def __init__(self, bench: Benchmark, pairs: Sequence[tuple[str, str]],
                 lookup: Callable[[tuple[str, str], RawResult, str],
                                  tuple[str, Cell | None]],
                 seen: Sequence[_Seen] | None = None) -> None:
        self.bench, self.lookup = bench, lookup
        self.source = iter(pairs)
        self.seen = None if seen is None else iter(seen)
        self.queue: deque[tuple[str, RawResult, str, Cell | None]] = deque()
        self.unsent: list[tuple[str, RawResult]] = []

    def _read_one(self) -> bool:
        """Read the next pair's result into the queue; False when none is left.

        A pair already read to key a run pack (``seen``) is looked up by that reading;
        only when the cache does not hold it is it read again, to be scored as it is
        now (and keyed by those bytes)."""
        pair = next(self.source, None)
        if pair is None:
            return False
        known = None if self.seen is None else next(self.seen)
        if known is not None:
            raw = known.raw
            key, cell = self.lookup(pair, raw, known.digest)
            if cell is not None:
                self.queue.append((key, raw, known.digest, cell))
                return True
        raw = self.bench.results[pair]
        digest = raw.sha256
        key, cell = self.lookup(pair, raw, digest)
        if cell is None:
            self.unsent.append((pair[1], raw))
        else:
            # A cached cell needs its result's name and presence, not its bytes (the rare
            # rescore reads it again): a warm run may read far ahead to fill a batch.
            raw = _without_bytes(raw)
        self.queue.append((key, raw, digest, cell))
        return True

    def batches(self, size: int) -> Iterator[list[tuple[str, RawResult]]]:
        """Batches of ``size`` pairs to score (the last may be shorter), read lazily."""
        while True:
            while len(self.unsent) < size and self._read_one():
                pass
            if not self.unsent:
                return
            batch, self.unsent = self.unsent[:size], self.unsent[size:]
            yield batch

    def take(self) -> tuple[str, RawResult, str, Cell | None]:
        """The next pair's ``(key, raw, digest, cached cell or None)``, in pair order."""
        if not self.queue:
            self._read_one()
        return self.queue.popleft()


def score_benchmark(
    bench: Benchmark,
    *,
    version: str,
    options: Any,
    workers: int = 1,
    cache: Cache | None = None,
    progress: Callable[[int, int], None] | None = None,
    verdicts: bool = True,
    executor: Executor | None = None,
    on_cell: Callable[[tuple[str, str], Cell], None] | None = None,
    alongside: Sequence[Callable[[], Any]] = (),
) -> Run:
    """Score every (system, document) of ``bench`` into a ``Run``.

    Parameters
    ----------
    version : str
        One of ``scorer.SCORING_VERSIONS``.
    options : scorer.Options
        Benchmark-wide scoring options.
    workers : int, default=1
        Processes of the default executor (``executors.make_executor("local", ...)``);
        ignored when ``executor`` is given. The output is identical for every value.
    cache : Cache, optional
        Per-document cache; cached cells are not rescored. A 2.0 run that keeps no
        verdicts is also kept whole, as one run pack (``runpack``): a rerun of the same
        files reads that one entry. Read and written here only.
    progress : callable(done, total), optional
        Called in this process after each cell is folded.
    verdicts : bool, default=True
        Whether the run keeps every document's verdicts (``explain``, ``verdicts``).
        False keeps each cell's counts and per-field error kinds only (every table and
        summary), and then saves parsing verdicts from a warm cache.
    executor : executors.Executor, optional
        Where batches are scored (this process, a local pool, Dask).
    on_cell : callable((system, doc_id), Cell), optional
        Called with each complete cell, verdicts included, in ``(system, doc_id)`` order
        as cells arrive (a streamed verdict export).
    alongside : sequence of callables, optional
        Other work for this process (the label checks), called in order, spread evenly
        over the folding of cells, so a pool's or a cluster's workers score meanwhile;
        every one has been called when the run returns.

    Raises
    ------
    ValueError
        If ``version`` is unknown or ``workers < 1``.
    scorer.ScoringError
        For a schema or label the metric cannot score (the first met, in id order
        when serial).
    executors.ExecutorError
        When the executor cannot score (e.g. a Dask scheduler that cannot be reached).
    """
    record = scorer.scoring_version(version)  # ValueError for an unknown version
    executor = executor or make_executor("local", workers=workers)
    cache = cache or Cache(None)
    options_digest, code = options_sha256(options), code_digest()
    pairs = [(s, d.id) for s in bench.systems for d in bench.documents]
    docs = {d.id: d for d in bench.documents}
    detail = record.has_verdicts and (verdicts or on_cell is not None)

    def key_of(doc_id: str, raw: RawResult, digest: str) -> str:
        doc = docs[doc_id]
        return cache_key(schema_sha256=doc.schema_sha256, label_sha256=doc.label_sha256,
                         result_sha256=digest, version=version, options_sha256=options_digest,
                         code_sha256=code, reader=_reader(raw))

    def run_key(seen: Sequence[_Seen]) -> str:
        # every part of each cell's key_of, and the file its warnings name
        return runpack.pack_key((CACHE_FORMAT, version, options_digest, code), (
            (system, doc_id, s.file, _reader(s), docs[doc_id].schema_sha256,
             docs[doc_id].label_sha256, s.digest) for s in seen for system, doc_id in (s.pair,)))

    def lookup(pair: tuple[str, str], raw: RawResult, digest: str) -> tuple[str, Cell | None]:
        if cache.directory is None:  # nothing to look up or to store
            return "", None
        key = key_of(pair[1], raw, digest)
        cell = _load(cache, key, raw, version, verdicts=detail)
        return key, None if cell is None else folded(cell, verdicts=False)

    def finish(cells: Mapping[tuple[str, str], Cell], results: Mapping[str, str]) -> Run:
        return Run(
            version=version, options=options, documents=bench.ids(), systems=bench.systems,
            cells=MappingProxyType(dict(cells)), metadata=bench.metadata,
            digests=MappingProxyType(bench.digests),
            signature=run_signature(bench, version, options), kept_verdicts=verdicts,
            results_sha256=MappingProxyType(dict(results)),
        )

    done, total = 0, len(pairs)
    if progress:
        progress(done, total)
    # A run of 2.0 scores without verdicts may be in the cache whole (``runpack``): a
    # first pass keys every pair (reading each result once, keeping only its digest).
    packs = cache.part("runs") if record.result_type is scorer.DocScore and not detail \
        else Cache(None)
    seen: list[_Seen] | None = None
    if packs.directory is not None:
        seen = [_seen(pair, bench.results[pair]) for pair in pairs]
        cells = _unpack_run(packs, run_key(seen), seen, version)
        if cells is not None:
            if progress:
                progress(total, total)
            for call in alongside:
                call()
            return finish(cells, {s.file: s.digest for s in seen if s.read})
    returns_verdicts = detail or cache.directory is not None
    job = BatchJob(docs, version, options, code, returns_verdicts)
    plan = _Plan(bench, pairs, lookup, seen)
    fresh = itertools.chain.from_iterable(executor.map_batches(
        score_batch, job, plan.batches(batch_size(executor, total))))
    cells: dict[tuple[str, str], Cell] = {}
    results: dict[str, str] = {}
    table: dict[Any, Any] = {}
    scored: list[_Seen] = []
    called = 0  # of alongside
    for pair in pairs:
        key, raw, digest, cell = plan.take()
        if raw.data is not None:
            results[raw.file] = digest
        if packs.directory is not None:
            scored.append(_seen(pair, raw, digest))
        ready = False  # a packed cell comes unpacked folded, its parts shared
        if cell is None:
            item = next(fresh)
            cell = unpacked(item, table)
            ready = cell is not item
            _store(cache, key, cell, raw)
        elif detail:  # read again, verdicts and all, only now: O(1) of them held
            cell = _load(cache, key, raw, version, verdicts=True) \
                or score_batch(job, [(pair[1], bench.results[pair])])[0]
        done += 1
        while called < len(alongside) and called * total < done * len(alongside):
            alongside[called]()
            called += 1
        if progress:
            progress(done, total)
        if on_cell:
            on_cell(pair, cell)
        cells[pair] = cell if ready else shared_parts(folded(cell, verdicts=verdicts), table)
    for call in alongside[called:]:  # a run of no cells
        call()
    if packs.directory is not None:
        _pack_run(packs, run_key(scored), scored, cells, version)
    return finish(cells, results)


class _Seen(NamedTuple):
    """One pair as a run pack keys it: the ``digest`` of its result as read, and what the
    cell needs of that reading without its bytes (``raw``). A tuple: a warm run makes
    one per pair, and a frozen dataclass costs several times more to make."""

    pair: tuple[str, str]
    file: str
    digest: str
    read: bool  # bytes were read (the file exists and could be read)
    problem: str
    from_line: bool

    @property
    def raw(self) -> RawResult:
        """The result as read, its bytes (if any) dropped (``_without_bytes``)."""
        return RawResult(self.file, b"" if self.read else None, self.problem, self.from_line)

    @property
    def missing(self) -> bool:
        """Whether the result file does not exist (an unreadable one does)."""
        return not self.read and not self.problem


def _seen(pair: tuple[str, str], raw: RawResult, digest: str | None = None) -> _Seen:
    """The pack's view of one pair whose result was just read (its bytes not kept);
    ``digest`` when already taken."""
    return _Seen(pair, raw.file, raw.sha256 if digest is None else digest,
                 raw.data is not None, raw.problem, raw.from_line)


def _without_bytes(raw: RawResult) -> RawResult:
    """``raw`` with its bytes (if any) dropped: its name and presence are kept."""
    return RawResult(raw.file, b"", raw.problem, raw.from_line) if raw.data else raw


def _reader(raw: RawResult | _Seen) -> str:
    """How ``raw``'s bytes came to be (``cache.READERS``)."""
    return "jsonl-line" if raw.from_line else "file"


def _unpack_run(packs: Cache, key: str, seen: Sequence[_Seen],
                version: str) -> dict[tuple[str, str], Cell] | None:
    """The cells of the run pack ``key`` for ``seen``, in its order; ``None`` on a miss
    (absent, badly signed, or not fitting: ``runpack.decode``)."""
    # Reading a pack builds some 10^5 containers that form no cycle; a collection on the
    # way scans every live object (measured: 40% of reading a 10,000-cell pack).
    with scorer.CollectorPaused():
        found = packs.get(key)
        items = None if found is None else runpack.decode(
            found[0], [not s.missing for s in seen], version)
        if items is None:
            return None
        return {s.pair: Cell(*item) for s, item in zip(seen, items, strict=True)}


def _pack_run(packs: Cache, key: str, seen: Sequence[_Seen],
              cells: Mapping[tuple[str, str], Cell], version: str) -> None:
    """Store a run's cells as one pack under ``key``, when every cell is a 2.0 score
    without verdicts (``packed``)."""
    equal: dict[Any, Any] = {}
    entry = runpack.encode([packed(cells[s.pair], equal) for s in seen], version)
    if entry is not None:
        packs.put(key, entry)


def run_signature(bench: Benchmark, version: str, options: Any) -> str:
    """The signature line of a run (default bootstrap settings)."""
    schemas = {d.schema_file: d.schema_sha256 for d in bench.documents}
    labels = {d.label_file: d.label_sha256 for d in bench.documents}
    return format_signature(
        version=version, matching=matching_name(version), options_digest=options.digest(),
        schemas=set_digest(schemas), labels=set_digest(labels), tool=__version__,
    )
