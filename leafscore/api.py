"""A Python API for whole benchmarks: the objects every ``leafscore`` command renders.

``evaluate(root)`` (a folder) or ``evaluate_jsonl(gold, preds, schema)`` scores a
benchmark once and returns an :class:`Evaluation`; its methods give the leaderboard,
per-field counts, diffs, gates, explanations, the summary and the verdicts as data, each
a frozen dataclass (or a plain dict for the summary). The CLI is a thin layer over this
module: it parses options, calls one of these, renders the result and maps it to an exit
code. Nothing here prints; warnings are collected in ``Evaluation.warnings``.

>>> import leafscore
>>> run = leafscore.evaluate(".", cache=False)
>>> run.systems
('atlas', 'beacon', 'cobalt', 'drift')
>>> round(run.score("atlas"), 4)
0.9891
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import scorer
from leafscore import files, names, stats, versions
from leafscore.benchmark import (
    Benchmark,
    load_folder,
    load_jsonl,
    read_raw,
    result_files_problems,
)
from leafscore.cache import Cache, default_cache_dir, scorer_digest
from leafscore.config import BenchmarkConfig, load_config
from leafscore.executors import Beside, Executor, LocalPool, Serial, make_executor
from leafscore.run import Run
from leafscore.runner import score_benchmark
from leafscore.validate import LabelChecks
from scorer import InputError

if TYPE_CHECKING:  # imported where used: a run that only scores never loads them
    from leafscore import costs as costs_mod
    from leafscore import diff as diff_mod
    from leafscore import explain as explain_mod
    from leafscore import fields as fields_mod
    from leafscore import gate as gate_mod
    from leafscore import leaderboard as leaderboard_mod
    from leafscore import power as power_mod
    from leafscore import suspects as suspects_mod
    from leafscore import validity as validity_mod
    from leafscore import verdicts as verdicts_mod

__all__ = ["Evaluation", "GateResult", "evaluate", "evaluate_benchmark", "evaluate_jsonl"]


@dataclass(frozen=True)
class GateResult:
    """What ``Evaluation.gate`` decided: ``failures`` (``gate.Check`` records not met,
    empty when every threshold is met), ``score`` the system's unrounded macro accuracy in
    [0, 1] (``None`` when nothing is scored), the run's ``signature``, and ``checks``:
    every threshold applied, met or not, score first, then fields in the order given."""

    system: str
    failures: tuple[gate_mod.Check, ...]
    score: float | None
    signature: str
    checks: tuple[gate_mod.Check, ...] = ()

    @property
    def passed(self) -> bool:
        """True when no threshold failed."""
        return not self.failures


@dataclass(frozen=True)
class Evaluation:
    """One scored run of a benchmark and every analysis of it.

    ``benchmark`` is what was read (documents, systems, raw results, config); ``run`` the
    document scores (``run.Run``); ``warnings`` every warning met reading and scoring,
    one line each, in order (reading, names, labels that violate their schema, results).
    """

    benchmark: Benchmark
    run: Run
    warnings: tuple[str, ...] = ()

    @property
    def version(self) -> str:
        """The scoring version of every score."""
        return self.run.version

    @property
    def systems(self) -> tuple[str, ...]:
        """System names, sorted."""
        return self.run.systems

    @property
    def documents(self) -> tuple[str, ...]:
        """Document ids, sorted."""
        return self.run.documents

    @property
    def signature(self) -> str:
        """The signature line from which every number can be reproduced."""
        return self.run.signature

    def score(self, system: str) -> float | None:
        """Macro accuracy of ``system`` in [0, 1] (``None`` when nothing is scored).
        Raises ``KeyError`` for an unknown system."""
        self._system(system)
        return self.run.system_score(system)

    def document_scores(self, system: str) -> dict[str, float | None]:
        """Document id -> score in [0, 1] of ``system`` (``None``: left out under 1.0)."""
        self._system(system)
        return dict(zip(self.documents, self.run.document_scores(system), strict=True))

    def leaderboard(self, *, resamples: int = stats.DEFAULT_RESAMPLES,
                    seed: int = stats.DEFAULT_SEED,
                    columns: Iterable[str] | None = None, correction: str = "holm",
                    errors: bool = False,
                    permutations: int = stats.DEFAULT_PERMUTATIONS,
                    ) -> leaderboard_mod.Leaderboard:
        """Ranks, 95% bootstrap percentile intervals, the gap to the leader with its
        sign-flip p-value (Holm-corrected unless ``correction="none"``) and the tie
        decision that follows, micro P/R/F1, coverage and metadata breakdowns
        (``leaderboard.leaderboard``); with ``errors``, error shares and schema validity
        per system too. ``columns`` default to the config's ``breakdowns``;
        ``permutations`` are the random sign patterns of the test. Raises
        ``ValueError`` for bad settings."""
        from leafscore import leaderboard as leaderboard_mod
        chosen = self.benchmark.config.breakdowns if columns is None else tuple(columns)
        return leaderboard_mod.leaderboard(
            self.run, resamples=resamples, seed=seed, columns=chosen, correction=correction,
            errors=errors, validity=self.schema_validity() if errors else None,
            permutations=permutations, costs=self.costs())

    def costs(self) -> costs_mod.Costs:
        """What each result envelope says the answer cost (USD per document), took
        (seconds) and used (tokens), per (system, document), with the warnings for bad
        values (``costs.read_costs`` under the ``[costs]`` settings of benchmark.toml).
        Read from the result files once, apart from the scores and their cache: it
        never changes a score. ``Costs.empty`` when no envelope gives any."""
        return self._costs

    @functools.cached_property
    def _costs(self) -> costs_mod.Costs:
        from leafscore import costs as costs_mod
        bench = self.benchmark
        return costs_mod.read_costs(bench.results, self.run.systems, self.run.documents,
                                    bench.config.costs)

    def power(self, *, sd: float | None = None, delta: float = 0.01,
              alpha: float = stats.DEFAULT_ALPHA, power: float = stats.DEFAULT_POWER,
              resamples: int = stats.DEFAULT_RESAMPLES,
              seed: int = stats.DEFAULT_SEED) -> power_mod.PowerAnalysis:
        """Minimum detectable difference at the benchmark's size and documents needed
        for ``delta`` (a fraction, 0.01 = 1 point), per pair of systems and for the
        benchmark (``power.analyse``: normal approximation of the paired t-test, Chow,
        Shao & Wang §3.1). ``sd`` replaces the observed one. ``ValueError`` for bad
        settings."""
        from leafscore import power as power_mod
        return power_mod.analyse(self.run, sd=sd, delta=delta, alpha=alpha, power=power,
                                 resamples=resamples, seed=seed)

    def suspects(self, *, min_agree: int | None = None,
                 disagree: int | None = None) -> suspects_mod.Suspects:
        """The review queue of possible label errors (``suspects.find``): label leaves where
        at least ``min_agree`` systems (default a majority, at least 3) give one canonical
        value other than the label's, grouped into patterns, then leaves at least
        ``disagree`` systems (same default) dispute in other values and label items they
        leave unpaired. Raises ``ValueError`` under 1.0 (no verdicts) or for
        ``min_agree`` or ``disagree`` below 2 or above the number of systems."""
        from leafscore import suspects as suspects_mod
        return suspects_mod.find(self.run, min_agree=min_agree, disagree=disagree)

    def schema_validity(self) -> tuple[validity_mod.Validity, ...]:
        """Per system, the results that validate against their schema (missing and
        unparsable ones count as invalid); apart from the score (``validity``)."""
        from leafscore import validity as validity_mod
        return validity_mod.schema_validity(self.benchmark, self.run.record)

    def error_shares(self) -> tuple[leaderboard_mod.ErrorShares, ...]:
        """Per system, the share of each verdict kind among its scored verdicts
        (adding up to 1 with ``correct``); empty counts under 1.0."""
        from leafscore import leaderboard as leaderboard_mod
        return tuple(leaderboard_mod.error_shares(self.run, s) for s in self.systems)

    def fields(self, system: str) -> tuple[fields_mod.FieldRow, ...]:
        """Per-field counts, P/R/F1 and error kinds of ``system``, worst F1 first.
        Raises ``ValueError`` under 1.0 (no verdicts), ``KeyError`` for an unknown system."""
        from leafscore import fields as fields_mod
        return fields_mod.field_table(self.run, system)

    def diff(self, base: str, head: str, *, tolerance: float = 0.0,
             resamples: int = stats.DEFAULT_RESAMPLES, seed: int = stats.DEFAULT_SEED,
             head_evaluation: Evaluation | None = None,
             names: tuple[str, str] | None = None,
             permutations: int = stats.DEFAULT_PERMUTATIONS,
             alpha: float = stats.DEFAULT_ALPHA) -> diff_mod.Diff:
        """``head`` against ``base``: per-field F1 change, flipped documents, the paired
        interval of the change and its sign-flip p-value, and the regression decision
        (a drop beyond ``tolerance`` that the test calls significant at ``alpha``;
        ``diff.compare``). ``head`` is a system of ``head_evaluation`` when given (a run
        of other result files on the same benchmark), else of this one. ``tolerance``
        is a fraction in [0, 1]."""
        from leafscore import diff as diff_mod
        other = head_evaluation or self
        return diff_mod.compare(self.run, base, other.run, head, tolerance=tolerance,
                                resamples=resamples, seed=seed, names=names,
                                permutations=permutations, alpha=alpha)

    def gate(self, system: str, *, min_score: float | None = None,
             field_min: Mapping[str, float] | Iterable[tuple[str, float]] = ()) -> GateResult:
        """Every threshold ``system`` fails, decided on unrounded values: ``min_score``
        and each field path's minimum F1, fractions in [0, 1] (``gate.gate``)."""
        from leafscore import gate as gate_mod
        wanted = list(field_min.items() if isinstance(field_min, Mapping) else field_min)
        applied = gate_mod.checks(self.run, system, min_score=min_score, field_min=wanted)
        return GateResult(system, tuple(c for c in applied if not c.passed),
                          self.run.system_score(system), self.signature, applied)

    def explain(self, document: str, system: str) -> explain_mod.Explanation:
        """Every verdict of ``document`` for ``system``, in reading order. Raises
        ``KeyError`` for an unknown pair, ``ValueError`` under 1.0."""
        from leafscore import explain as explain_mod
        return explain_mod.explain(self.run, system, document)

    def summary(self, *, resamples: int = stats.DEFAULT_RESAMPLES,
                seed: int = stats.DEFAULT_SEED) -> dict[str, Any]:
        """summary.json as a dict: DocuBench's keys, then version, signature, intervals,
        coverage, fields, digests, then power, suspects, error shares and schema validity
        (``report.build_summary``)."""
        from leafscore import report
        bench = self.benchmark
        results = self.run.results_sha256  # the bytes scored, not read again
        if results is None:
            results = {raw.file: raw.sha256 for raw in bench.results.values()
                       if raw.data is not None}
        name = bench.config.name or (Path(bench.root).resolve().name if bench.root else "")
        return report.build_summary(
            self.run, name=name, dataset_version=bench.config.version,
            display_names=bench.config.display_names, results_sha256=results,
            scorer_sha256=scorer_digest(), resamples=resamples, seed=seed,
            validity=self.schema_validity(), costs=self.costs())

    def report(self, out_dir: str | Path, *, resamples: int = stats.DEFAULT_RESAMPLES,
               seed: int = stats.DEFAULT_SEED) -> tuple[Path, Path]:
        """Write ``summary.json`` and ``summary.csv`` into ``out_dir`` (created; written
        atomically) and return their paths. Raises ``OSError`` when it cannot write."""
        from leafscore import report
        target = Path(out_dir)
        target.mkdir(parents=True, exist_ok=True)
        return report.write_summary(target, self.summary(resamples=resamples, seed=seed))

    def verify(self, committed: Mapping[str, Any]) -> list[str]:
        """What differs between a committed summary and this run's (empty: it reproduces).
        The bootstrap settings are the committed signature's when in range. ``committed``
        may be any parsed JSON value (``report.drift``: one of a shape ``report`` never
        writes gives that as its reason); never raises for it. The CLI's ``verify`` also
        checks summary.csv and the other files ``report`` writes."""
        from leafscore import report
        signature = committed.get("signature") if isinstance(committed, Mapping) else None
        resamples, seed, _ = report.stored_bootstrap(signature)
        return report.drift(committed, self.summary(resamples=resamples, seed=seed))

    def verdicts(self) -> Iterator[verdicts_mod.VerdictRecord]:
        """One record per leaf verdict (system, document, status, address, field, kind,
        label/result raw and canonical values as JSON text). ``ValueError`` under 1.0."""
        from leafscore import verdicts as verdicts_mod
        return verdicts_mod.records(self.run)

    def to_pandas(self) -> Any:
        """:meth:`verdicts` as a ``pandas.DataFrame`` (the optional ``data`` extra). When
        any envelope gives a cost, latency or tokens (:meth:`costs`), each row also
        holds its document's ``cost_usd``, ``latency_s``, ``input_tokens`` and
        ``output_tokens`` for its system (``NaN``/``<NA>`` where absent)."""
        from leafscore import costs as costs_mod
        from leafscore import verdicts as verdicts_mod
        frame = verdicts_mod.to_pandas(self.run)
        found = self.costs()
        if found.empty:
            return frame
        return costs_mod.with_cost_columns(frame, found)

    def write_verdicts(self, path: str | Path) -> Path:
        """Write :meth:`verdicts` to a ``.csv`` or ``.parquet`` file (atomically)."""
        from leafscore import verdicts as verdicts_mod
        return verdicts_mod.write(self.run, Path(path))

    def _system(self, system: str) -> None:
        if system not in self.run.systems:
            raise KeyError(f"no system {system!r}; systems: {', '.join(self.run.systems)}")


def _cache(cache: bool | Cache, cache_dir: str | Path | None) -> Cache:
    if isinstance(cache, Cache):
        return cache
    return Cache(Path(cache_dir) if cache_dir else default_cache_dir()) if cache else Cache(None)


def evaluate_benchmark(bench: Benchmark, *, version: str | None = None,
                       engine: str | None = None, workers: int | None = 1,
                       cache: bool | Cache = True, cache_dir: str | Path | None = None,
                       keep_verdicts: bool = True,
                       progress: Callable[[int, int], None] | None = None,
                       before_scoring: Callable[[Iterable[str]], None] | None = None,
                       executor: str | Executor = "local", scheduler: str | None = None,
                       verdicts_to: str | Path | None = None) -> Evaluation:
    """Score a loaded :class:`~leafscore.benchmark.Benchmark`.

    ``version``: default the config's pin, else ``scorer.DEFAULT_VERSION`` (the latest).
    ``engine``: ``"fast"`` or ``"reference"`` (``versions.ENGINES``; same scores), default
    ``$LEAFSCORE_ENGINE``, else ``"fast"``. Both are resolved once, here
    (``versions.resolve``), and the run carries the record. ``executor``: where documents
    are scored, in batches: ``"local"`` (this process for ``workers=1``, else a pool of
    ``workers`` processes; ``None``: this process and a forked helper on two or more
    processors where ``fork`` is, else this one, the CLI's default), ``"dask"`` (the
    dask.distributed cluster at ``scheduler``, ``"tcp://HOST:PORT"``, else a
    ``LocalCluster`` of ``workers`` processes; the ``dask`` extra), or an
    ``executors.Executor``; the output is identical for every choice. ``cache``: True (the
    default folder, or ``cache_dir``), False, or a ``Cache``; read and written by this
    process only. ``keep_verdicts=False`` when no verdict will be read from the result
    (every table and summary still works; a run then holds the verdicts of O(batch)
    documents at a time). ``verdicts_to``: a ``.csv`` or ``.parquet`` path the verdicts are
    streamed to as documents are scored (replaced atomically when the run completes; nothing
    is written if it fails). ``progress(done, total)`` is called as cells are ready;
    ``before_scoring(warnings)`` receives the reading warnings before scoring starts (the
    CLI prints them at once).

    Raises ``ValueError`` for an unknown version, engine or executor, ``workers < 1``, or
    ``verdicts_to`` under a version without verdicts or with another suffix;
    ``scorer.ScoringError`` for a schema or label the metric cannot score;
    ``executors.ExecutorError`` when the executor cannot score (Dask not installed, a
    scheduler that cannot be reached within 5 s), or when a worker died every time it
    scored some results, alone too (one line naming them; a worker lost once costs a
    retry, and a result out of memory twice is a parse failure with a warning).
    """
    chosen_engine = versions.choose_engine(engine)
    record = versions.resolve(version, bench.config.scoring_version, engine=chosen_engine)
    if verdicts_to is not None and not record.has_verdicts:
        raise ValueError(f"version {record.name} keeps no per-leaf verdicts to write")
    chosen = executor if not isinstance(executor, str) else make_executor(
        executor, workers=workers, scheduler=scheduler)
    store = _cache(cache, cache_dir)
    early = [*bench.warnings,
             *(str(p) for p in names.check_names(bench.systems, list(bench.ids())))]
    if before_scoring is not None:
        before_scoring(early)
    # Labels are checked while the batches are scored: when this process or a local pool
    # scores them, by a process of their own (on 2 or more processors: checked here they
    # keep a pool's workers waiting for batches), else here, between the cells a cluster
    # sends back. Their warnings come after the reading ones.
    checks = LabelChecks(bench, store, readings=record.reads_readings)
    with contextlib.ExitStack() as stack:
        if isinstance(chosen, (Serial, Beside, LocalPool)) and checks.start_beside():
            stack.callback(checks.close)  # a run that fails leaves no child behind
        on_cell = None
        if verdicts_to is not None:
            from leafscore import verdicts as verdicts_mod
            on_cell = stack.enter_context(verdicts_mod.writer(Path(verdicts_to)))
        run = score_benchmark(bench, record=record, engine=chosen_engine,
                              options=bench.config.options,
                              cache=store, progress=progress,
                              verdicts=keep_verdicts, executor=chosen, on_cell=on_cell,
                              alongside=checks.steps)
        # taken inside: a label check that fails, fails the run before verdicts are kept
        checked = checks.warnings()
    late = [w for cell in run.cells.values() for w in cell.warnings]
    return Evaluation(bench, run, tuple(early + checked + late))


def evaluate(root: str | Path = ".", *, version: str | None = None,
             engine: str | None = None, systems: Iterable[str] | None = None,
             workers: int | None = 1, cache: bool | Cache = True,
             cache_dir: str | Path | None = None, keep_verdicts: bool = True,
             progress: Callable[[int, int], None] | None = None,
             executor: str | Executor = "local", scheduler: str | None = None,
             verdicts_to: str | Path | None = None) -> Evaluation:
    """Score the benchmark folder ``root`` (``schemas/``, ``labels/``,
    ``results/<system>/``, optional ``benchmark.toml``).

    ``systems`` restricts to those systems. Other arguments as :func:`evaluate_benchmark`.
    Raises ``InputError`` naming the file and place for a missing folder, an unreadable
    label, schema or config, or no system folder; ``ValueError`` and
    ``scorer.ScoringError`` as :func:`evaluate_benchmark`.

    >>> import leafscore
    >>> docubench = leafscore.evaluate("../shared/docubench", version="1.0", cache=False)
    >>> [f"{100 * docubench.score(s):.2f}" for s in ("docupipe_high", "claude")]
    ['97.24', '90.33']
    """
    bench = load(root, systems, cache=cache, cache_dir=cache_dir)
    return evaluate_benchmark(bench, version=version, engine=engine, workers=workers,
                              cache=cache, cache_dir=cache_dir, keep_verdicts=keep_verdicts,
                              progress=progress, executor=executor, scheduler=scheduler,
                              verdicts_to=verdicts_to)


def load(root: str | Path, systems: Iterable[str] | None = None, *,
         cache: bool | Cache = False, cache_dir: str | Path | None = None,
         results: bool = True) -> Benchmark:
    """Read a benchmark folder (its ``benchmark.toml`` included) without scoring it.
    ``cache`` as in :func:`evaluate_benchmark`: where the digests of schemas and labels
    read before are kept, so a rerun parses only the files that changed (default: off).
    ``results`` False: a folder with no system folder yet reads with no systems.
    """
    root = Path(root)
    chosen = tuple(systems or ())
    for system in chosen:
        files.check_name("system name", system, source="--system")
    config = load_config(root) if root.is_dir() else BenchmarkConfig()
    return load_folder(root, config, systems=chosen, cache=_cache(cache, cache_dir),
                       results=results)


def load_jsonl_benchmark(gold: str | Path, preds: Mapping[str, str | Path],
                         schema: str | Path, *, id_key: str = "id",
                         config: str | Path | None = None) -> Benchmark:
    """Read a JSONL benchmark without scoring it: ``gold`` labels, ``preds`` system ->
    prediction file, one ``schema`` (or a folder of schemas, chosen per gold line by the
    config's ``schema``/``schema_by``), an optional ``benchmark.toml`` (version pin,
    options, metadata file beside it and breakdowns; a gold line's members beside its
    ``label`` are metadata too). Raises ``InputError`` naming the file (and line): a path
    that does not exist, or is a folder, a FIFO or another file that is not regular (never
    opened, so a FIFO cannot make it wait), a config that is not UTF-8 or not valid."""
    folder = [schema] if Path(schema).is_dir() else []  # a folder of schemas (schema_by)
    for path in (gold, *(() if folder else (schema,)), *preds.values(),
                 *(() if config is None else (config,))):
        files.check_input_file(path)
    settings = BenchmarkConfig()
    if config is not None:
        from leafscore.config import parse_config

        data = scorer.read_file_bytes(config)
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InputError(str(config), f"byte {exc.start}", "not UTF-8 text") from None
        settings = parse_config(text, source=str(config))
    return load_jsonl(Path(gold), {s: Path(p) for s, p in preds.items()}, Path(schema),
                      id_key=id_key, config=settings,
                      metadata_root=None if config is None else Path(config).parent)


def evaluate_jsonl(gold: str | Path, preds: Mapping[str, str | Path], schema: str | Path, *,
                   id_key: str = "id", config: str | Path | None = None,
                   version: str | None = None, engine: str | None = None,
                   workers: int | None = 1, cache: bool | Cache = True,
                   cache_dir: str | Path | None = None, keep_verdicts: bool = True,
                   progress: Callable[[int, int], None] | None = None,
                   executor: str | Executor = "local", scheduler: str | None = None,
                   verdicts_to: str | Path | None = None) -> Evaluation:
    """Score a JSONL benchmark: ``gold`` (one label per line, with ``id_key``), ``preds``
    (system name -> prediction JSONL), one JSON ``schema`` for every document, and an
    optional ``benchmark.toml`` path (``config``). A prediction line is read as the
    result file it stands for, so the numbers equal those of the same data laid out as a
    folder. Other arguments and errors as :func:`evaluate`.

    >>> import leafscore
    >>> jsonl = leafscore.evaluate_jsonl("examples/jsonl/gold.jsonl",
    ...     {"atlas": "examples/jsonl/atlas.jsonl", "drift": "examples/jsonl/drift.jsonl"},
    ...     "examples/jsonl/schema.json", cache=False)
    >>> jsonl.systems
    ('atlas', 'drift')
    """
    bench = load_jsonl_benchmark(gold, preds, schema, id_key=id_key, config=config)
    return evaluate_benchmark(bench, version=version, engine=engine, workers=workers,
                              cache=cache, cache_dir=cache_dir, keep_verdicts=keep_verdicts,
                              progress=progress, executor=executor, scheduler=scheduler,
                              verdicts_to=verdicts_to)


def with_results(evaluation_bench: Benchmark, folder: str | Path, name: str) -> Benchmark:
    """``evaluation_bench``'s documents with the result files of ``folder`` as the one
    system ``name`` (``diff --head FOLDER``): read by the same reader as a system folder."""
    folder = Path(folder)
    results = {(name, doc.id): read_raw(folder, f"{doc.id}.json", scorer.MAX_FILE_BYTES,
                                        shown=str(folder / f"{doc.id}.json"))
               for doc in evaluation_bench.documents}
    # what a system folder is warned about, so that a mistyped folder holding none of the
    # results reads as such, not as a system that scores 0
    left_aside = result_files_problems(folder, f"{folder}/",
                                       [doc.id for doc in evaluation_bench.documents])
    return dataclasses.replace(evaluation_bench, systems=(name,),
                               results=MappingProxyType(results),
                               warnings=tuple(f"{file}: {message}" for file, message in left_aside))
