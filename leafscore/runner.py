"""Scoring a benchmark: documents x systems -> a ``Run`` (``leafscore.run``).

``score_benchmark`` reads each result as its turn comes (``_Plan``: a batch at a time, never
the whole corpus), keys it by content (``cache.cache_key``), takes what the cache holds,
and scores the rest in batches on an executor (``executors``: this
process, a local pool, or Dask), which returns them in order. Cells are folded in id
order as they arrive (``cells.folded``: error kinds per field kept, verdicts dropped
unless asked for), the cache is read and written here, in the client, never by a worker
(each cell in its one stored form, ``cells``; a whole run as a pack, ``runpack``), and
``on_cell`` sees each complete cell, verdicts included, in that order; so the output
never depends on the executor, ``workers`` or completion order, and a run holds the
verdicts of O(batch) documents at a time. Scoring itself is the version's record
(``record.score_outcome``, as ``python scorer.py`` scores), chosen once, at the door
(``versions``).
"""

from __future__ import annotations

import itertools
import json
import math
import threading
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple

import scorer
from leafscore import cells, runpack, versions
from leafscore._version import __version__
from leafscore.benchmark import Benchmark, Document, RawResult, read_result
from leafscore.cache import CACHE_FORMAT, Cache, cache_key, code_digest, options_sha256
from leafscore.cells import Cell, folded, shared_parts
from leafscore.collector import CollectorPaused
from leafscore.executors import Beside, Executor, ExecutorError, Serial, make_executor
from leafscore.executors.base import CANCELLED, DIED, MEMORY, Lost
from leafscore.run import Run
from leafscore.signature import format_signature, options_digest, set_digest


def score_cell(doc: Document, raw: RawResult, record: scorer.ScoringVersion,
               options: Any, prepared: Prepared | None = None) -> Cell:
    """Score one (system, document) under ``record``'s version as ``python scorer.py``
    would; never raises for a bad result. Raises ``scorer.ScoringError`` for a schema or
    label the metric cannot score.

    ``prepared`` keeps the document prepared (``record.document``: schema compiled, label
    read) for the next results of the same document, as ``python scorer.py`` prepares a
    document once for all its systems; the score is the same either way.
    """
    read = read_result(raw, record, doc.schema)
    document = record.document(doc.schema, doc.label, options, doc.schema_file,
                               doc.label_file) if prepared is None else \
        prepared.document(doc, record, options)
    score = record.score_outcome(read.outcome, doc.schema, doc.label, options, doc.schema_file,
                                 document)
    return Cell(read.status, score, read.warnings)


class Prepared:
    """Documents prepared by one process for one run (``record.document``), by id, kept
    for that document's other results: a run goes system by system, so a document comes
    back once per system. At most ``most`` characters of their schemas and labels (as
    compact JSON; default :data:`PREPARED_TEXT_MAX`) are kept, the oldest dropped first;
    a document larger than that is prepared for each result, as it costs little beside
    scoring it. ``most=0`` keeps none (a run of one system: no document comes back).

    A prepared document scores any number of results, each as if prepared for it alone:
    ``python scorer.py`` scores every system's result of a document with one, and
    tests/test_runner_prepared.py holds kept and fresh documents equal on both engines.
    Threads of one process may share it (a Dask worker's): its bookkeeping is locked.
    """

    def __init__(self, most: int | None = None) -> None:
        self.most = most
        self.kept: dict[str, tuple[Any, int]] = {}  # doc id -> (document, text size)
        self.size = 0
        self.lock = threading.Lock()

    def document(self, doc: Document, record: scorer.ScoringVersion, options: Any) -> Any:
        """``record.document`` of ``doc``, prepared now or earlier in this run. Raises
        ``scorer.ScoringError`` as ``record.document`` does (nothing is kept then)."""
        found = self.kept.get(doc.id)
        if found is not None:
            return found[0]
        document = record.document(doc.schema, doc.label, options, doc.schema_file,
                                   doc.label_file)
        most = PREPARED_TEXT_MAX if self.most is None else self.most
        if most <= 0:
            return document
        # the schema counts too: the reference engine compiles one for each document
        size = sum(len(json.dumps(value, separators=(",", ":"), default=str))
                   for value in (doc.schema, doc.label))
        if size > most:
            return document
        with self.lock:
            if doc.id not in self.kept:
                while self.kept and self.size + size > most:
                    self.size -= self.kept.pop(next(iter(self.kept)))[1]
                self.kept[doc.id] = (document, size)
                self.size += size
        return document


#: Characters of schema and label JSON whose prepared documents a process keeps during a
#: run (:class:`Prepared`): 4 MiB, a few times that in memory once compiled and read.
PREPARED_TEXT_MAX: int = 4 * 2**20


# ------------------------------------------------------------------------------------
# The per-cell cache: each cell in its stored form (``cells``), verdicts apart
# ------------------------------------------------------------------------------------
# The cache is shared by every system whose result has the same bytes, and an entry may
# have been edited, so an entry names no file, and nothing is taken from it unchecked.


def _store(cache: Cache, key: str, cell: Cell, raw: RawResult) -> None:
    """Cache a cell in its stored form (``cells.encode``: not stored when a warning does
    not start with the file name); its verdicts (if any) go in the entry's detail line,
    so reading a run's values (``score``, ``leaderboard``) never parses them."""
    stored = None if cache.directory is None else cells.encode(cell, raw.file)
    if stored is None:
        return
    score = stored["score"]
    cache.put(key, stored, None if score is None else score.pop("verdicts", None))


def _load(cache: Cache, key: str, raw: RawResult, record: scorer.ScoringVersion, *,
          verdicts: bool) -> Cell | None:
    """A cached cell, or ``None`` on a miss: absent, damaged, badly signed, verdicts
    wanted but gone, or a stored form that cannot be used (``cells.problem``).

    With ``verdicts=False`` a version-2.0 score is rebuilt without its verdicts.
    """
    detail = verdicts and record.has_verdicts
    found = cache.get(key, detail=detail)
    if found is None:
        return None
    stored, listed = found
    if detail and isinstance(stored, dict) and isinstance(stored.get("score"), dict):
        if not isinstance(listed, list):
            return None
        stored["score"]["verdicts"] = listed
    if cells.problem(stored, record, missing=raw.data is None and not raw.problem):
        return None
    return cells.decode(stored, record, raw.file)


# ------------------------------------------------------------------------------------
# Batches: what a worker is sent, what it returns
# ------------------------------------------------------------------------------------

#: Most pairs in one batch sent to a worker (fewer when a run is small, so that every
#: worker gets some).
MAX_BATCH: int = 100


@dataclass(frozen=True)
class BatchJob:
    """What every batch needs, sent to each worker once: ``docs`` doc_id -> Document,
    the scoring version's ``record`` as the engine named ``engine`` scores it, the
    ``options``, the client's ``code`` digest (``cache.code_digest``; ``""`` when the run
    is scored in the client itself and caches nothing: no check), and whether cells
    come back with their ``verdicts``.

    Pickled with the record named, not copied (its rules are functions): a worker takes
    the record of that name from the same engine's table (``versions.table``)."""

    docs: Mapping[str, Document]
    record: scorer.ScoringVersion
    engine: str
    options: Any
    code: str
    verdicts: bool
    #: What this process has prepared for the job (never pickled: a worker its own).
    prepared: Prepared = field(default_factory=Prepared, compare=False, repr=False)

    def __reduce__(self) -> tuple[Any, ...]:
        return _job, (self.docs, self.engine, self.record.name, self.options, self.code,
                      self.verdicts)


def _job(docs: Mapping[str, Document], engine: str, version: str, options: Any, code: str,
         verdicts: bool) -> BatchJob:
    """A :class:`BatchJob` unpickled: its record taken from its engine's table."""
    return BatchJob(docs, versions.table(engine)[version], engine, options, code, verdicts)


def score_batch(job: BatchJob, batch: Sequence[tuple[str, RawResult]]) -> list[Any]:
    """Cells of one batch of ``(doc_id, raw result)``, in order: each scored as
    ``score_cell`` and ``cells.folded`` (verdicts kept only when ``job.verdicts``).
    Without verdicts a 2.0 cell comes back ``packed`` (plain tuples: a fraction of a
    cell's pickling cost, on the worker and in the client); ``unpacked`` makes it a cell
    again. Writes nothing (the client caches); keeps the documents it prepares in
    ``job.prepared`` for the job's next batches.

    Raises ``ExecutorError`` when this process runs other scoring code than the client
    (another scorer.py, reader or library version: its scores would be cached as the
    client's), and ``scorer.ScoringError`` as ``score_cell``.
    """
    if job.code and code_digest() != job.code:
        raise ExecutorError("a worker runs other scoring code than this process "
                            "(scorer.py, leafscore or a library differs); install the same "
                            "versions on every worker")
    done = [folded(score_cell(job.docs[doc_id], raw, job.record, job.options, job.prepared),
                   verdicts=job.verdicts) for doc_id, raw in batch]
    if job.verdicts:
        return done
    equal: dict[Any, Any] = {}
    return [packed(cell, equal) for cell in done]


def packed(cell: Cell, equal: dict[Any, Any] | None = None) -> Any:
    """A folded 2.0 cell without verdicts as plain tuples, the form a batch's cells travel
    in from a worker (``unpacked`` reverses it; never stored); any other cell as it is.
    Equal parts are one object through ``equal`` (one per batch), which pickle then
    writes once."""
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
    ``cells.shared_parts`` shares them): scores are frozen and never mutated, and a run
    of similar documents holds few distinct ones."""
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
    """Pairs per batch: the executor's ``batch_size``, else about ``per_worker`` batches
    per worker (the executor's, default 4), at most the executor's ``max_batch``
    (default :data:`MAX_BATCH`)."""
    if executor.batch_size:
        return executor.batch_size
    most = getattr(executor, "max_batch", None) or MAX_BATCH
    per_worker = getattr(executor, "per_worker", None) or 4
    return max(1, min(most, math.ceil(pairs / (per_worker * executor.workers))))


# ------------------------------------------------------------------------------------
# Scoring a benchmark
# ------------------------------------------------------------------------------------


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
    record: scorer.ScoringVersion,
    engine: str,
    options: Any,
    workers: int | None = 1,
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
    record : scorer.ScoringVersion
        The scoring version, as resolved at the door (``versions.resolve``).
    engine : str
        The name of the engine whose table ``record`` comes from (``versions.ENGINES``):
        part of every cache key, so one engine never reads cells another wrote.
    options : scorer.Options
        Benchmark-wide scoring options.
    workers : int or None, default=1
        Processes of the default executor (``executors.make_executor("local", ...)``;
        ``None``: this process and a forked helper on two or more processors, else this
        one); ignored when ``executor`` is given. The output is identical for every value.
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
        If ``workers < 1``.
    scorer.ScoringError
        For a schema or label the metric cannot score (the first met, in id order
        when serial).
    executors.ExecutorError
        When the executor cannot score (e.g. a Dask scheduler that cannot be reached),
        or, once every other cell is scored, when some results could not be scored
        because the worker scoring each died every time, alone too (``unscorable``: one
        line naming them). A worker lost once costs a retry (``executors.base.survive``);
        a result that runs out of memory (``MemoryError``) in its batch and then alone is
        its document's parse failure with a warning (``out_of_memory``), never cached.
    """
    executor = executor or make_executor("local", workers=workers)
    cache = cache or Cache(None)
    # The code digest keys cached cells and makes a worker running other code refuse
    # (score_batch). A run that caches nothing, scored in this process or its forks (the
    # same code), needs neither; it is "" then, and not computed (it imports
    # importlib.metadata and hashes the engine).
    local = cache.directory is None and isinstance(executor, (Serial, Beside))
    version, options_digest, code = record.name, options_sha256(options), \
        "" if local else code_digest()
    pairs = [(s, d.id) for s in bench.systems for d in bench.documents]
    docs = {d.id: d for d in bench.documents}
    detail = record.has_verdicts and (verdicts or on_cell is not None)

    def key_of(doc_id: str, raw: RawResult, digest: str) -> str:
        doc = docs[doc_id]
        return cache_key(schema_sha256=doc.schema_sha256, label_sha256=doc.label_sha256,
                         result_sha256=digest, version=version, engine=engine,
                         options_sha256=options_digest, code_sha256=code, reader=_reader(raw))

    def run_key(seen: Sequence[_Seen]) -> str:
        # every part of each cell's key_of, and the file its warnings name
        return runpack.pack_key((CACHE_FORMAT, version, engine, options_digest, code), (
            (system, doc_id, s.file, _reader(s), docs[doc_id].schema_sha256,
             docs[doc_id].label_sha256, s.digest) for s in seen for system, doc_id in (s.pair,)))

    def lookup(pair: tuple[str, str], raw: RawResult, digest: str) -> tuple[str, Cell | None]:
        if cache.directory is None:  # nothing to look up or to store
            return "", None
        key = key_of(pair[1], raw, digest)
        cell = _load(cache, key, raw, record, verdicts=detail)
        return key, None if cell is None else folded(cell, verdicts=False)

    def finish(found: Mapping[tuple[str, str], Cell], results: Mapping[str, str]) -> Run:
        return Run(
            record=record, engine=engine, options=options, documents=bench.ids(),
            systems=bench.systems, cells=MappingProxyType(dict(found)),
            metadata=bench.metadata, digests=MappingProxyType(bench.digests),
            signature=run_signature(bench, record, options), kept_verdicts=verdicts,
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
        unpacked_run = _unpack_run(packs, run_key(seen), seen, record)
        if unpacked_run is not None:
            if progress:
                progress(total, total)
            for call in alongside:
                call()
            return finish(unpacked_run, {s.file: s.digest for s in seen if s.read})
    returns_verdicts = detail or cache.directory is not None
    job = BatchJob(docs, record, engine, options, code, returns_verdicts,
                   Prepared(0 if len(bench.systems) < 2 else None))
    plan = _Plan(bench, pairs, lookup, seen)
    fresh = itertools.chain.from_iterable(executor.map_batches(
        score_batch, job, plan.batches(batch_size(executor, total))))
    run_cells: dict[tuple[str, str], Cell] = {}
    results: dict[str, str] = {}
    lost: list[tuple[tuple[str, str], RawResult, str]] = []  # no worker could score
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
            if isinstance(item, Lost):
                lost.append((pair, raw, item.reason))
                cell = None if item.reason != MEMORY \
                    else out_of_memory(docs[pair[1]], raw, record, options)
            else:
                cell = unpacked(item, table)
                ready = cell is not item
                _store(cache, key, cell, raw)
        elif detail:  # read again, verdicts and all, only now: O(1) of them held
            cell = _load(cache, key, raw, record, verdicts=True) \
                or score_batch(job, [(pair[1], bench.results[pair])])[0]
        done += 1
        while called < len(alongside) and called * total < done * len(alongside):
            alongside[called]()
            called += 1
        if progress:
            progress(done, total)
        if cell is None:  # no worker could score it: named when the run ends
            continue
        if on_cell:
            on_cell(pair, cell)
        run_cells[pair] = cell if ready else shared_parts(folded(cell, verdicts=verdicts), table)
    for call in alongside[called:]:  # a run of no cells
        call()
    unscored = [(raw.file, reason) for _, raw, reason in lost if reason != MEMORY]
    if unscored:
        raise ExecutorError(unscorable(unscored))
    if packs.directory is not None and not lost:  # a run pack holds only scored cells
        _pack_run(packs, run_key(scored), scored, run_cells, record)
    return finish(run_cells, results)


#: Result files named in the one line of a run that could not score some (then "and N
#: more").
NAMED_UNSCORED: int = 20

#: The note of a document that ran out of memory alone twice (its parse failure).
OUT_OF_MEMORY_NOTE: str = ("ran out of memory while being scored, in its batch and then "
                           "alone; not cached")


def unscorable(lost: Sequence[tuple[str, str]]) -> str:
    """The one line of a run that could not score the result files of ``lost`` (each
    ``(file, reason)``, ``reason`` ``executors.base.DIED`` or ``CANCELLED``), the first
    :data:`NAMED_UNSCORED` named."""
    why = {DIED: "its worker died each time, alone too", CANCELLED: "Dask dropped it each time"}
    named = ", ".join(f"{file} ({why.get(reason, reason)})"
                      for file, reason in lost[:NAMED_UNSCORED])
    more = len(lost) - NAMED_UNSCORED
    return (f"could not score {len(lost)} result(s), so no scores were written "
            f"(a worker killed, e.g. out of memory): {named}"
            + (f" and {more} more" if more > 0 else ""))


def out_of_memory(doc: Document, raw: RawResult, record: scorer.ScoringVersion,
                  options: Any) -> Cell:
    """The cell of a result whose scoring ran out of memory alone twice: a parse failure
    with a warning naming the file (:data:`OUT_OF_MEMORY_NOTE`), folded with its
    verdicts (those of a parse failure: every label leaf missed). Never cached."""
    failed = RawResult(raw.file, None, OUT_OF_MEMORY_NOTE, raw.from_line)
    return folded(score_cell(doc, failed, record, options), verdicts=True)


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
                record: scorer.ScoringVersion) -> dict[tuple[str, str], Cell] | None:
    """The cells of the run pack ``key`` for ``seen``, in its order; ``None`` on a miss
    (absent, badly signed, or not fitting: ``runpack.decode``)."""
    # Reading a pack builds some 10^5 containers that form no cycle; a collection on the
    # way scans every live object (measured: 40% of reading a 10,000-cell pack).
    with CollectorPaused():
        found = packs.get(key)
        read = None if found is None else runpack.decode(
            found[0], record, [s.file for s in seen], [s.missing for s in seen])
        if read is None:
            return None
        return {s.pair: cell for s, cell in zip(seen, read, strict=True)}


def _pack_run(packs: Cache, key: str, seen: Sequence[_Seen],
              run_cells: Mapping[tuple[str, str], Cell], record: scorer.ScoringVersion) -> None:
    """Store a run's cells as one pack under ``key``, each in its stored form, when every
    one is a 2.0 score without verdicts (``runpack.encode``)."""
    entry = runpack.encode([cells.encode(run_cells[s.pair], s.file) for s in seen], record)
    if entry is not None:
        packs.put(key, entry)


def run_signature(bench: Benchmark, record: scorer.ScoringVersion, options: Any) -> str:
    """The signature line of a run (default bootstrap settings). Its ``schemas`` digest
    is of the schema each document is scored with (``Document.schema_key``)."""
    schemas = {d.schema_key: d.schema_sha256 for d in bench.documents}
    labels = {d.label_file: d.label_sha256 for d in bench.documents}
    return format_signature(
        version=record.name, matching=record.pairing, options_digest=options_digest(options),
        schemas=set_digest(schemas), labels=set_digest(labels), tool=__version__,
    )
