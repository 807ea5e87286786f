"""The ``leafscore`` command: parse, call one function, map the outcome to an exit code.

Exit codes: 0 ok; 1 a check, verification or gate failed; 2 bad input or usage (one
line on stderr naming the file and place, never a traceback). Data goes to stdout;
progress (a rich bar, on a terminal only), notes and warnings go to stderr.

Commands: ``validate``, ``plan``, ``score`` (folder or JSONL mode), ``leaderboard``, ``report``,
``explore``, ``verify``, ``fields``, ``explain``, ``diff``, ``gate``, ``power``,
``suspects``. See docs/CLI.md.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import functools
import io
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import click

import scorer
from leafscore import api, files, names, versions, warnings_out
from leafscore import render as render_mod
from leafscore import stats as stats_mod
from leafscore._version import __version__
from leafscore.benchmark import Benchmark, only_results
from leafscore.cache import Cache, default_cache_dir
from leafscore.config import DEFAULT_METADATA_FILES, BenchmarkConfig, load_config
from leafscore.executors import EXECUTORS, ExecutorError
from leafscore.hygiene import visible
from leafscore.runner import run_signature
from leafscore.validate import schema_uses, validate_folder, validate_jsonl
from scorer import InputError

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


# ------------------------------------------------------------------------------------
# Plumbing: errors, notes, options
# ------------------------------------------------------------------------------------


class Failed(Exception):
    """Bad input found by the CLI itself; printed as one line, exit 2."""


def _fail(message: str) -> NoReturn:
    raise Failed(message)


def _usage(message: str) -> NoReturn:
    raise click.UsageError(message)


def _note(message: str) -> None:
    click.echo(visible(f"leafscore: {message}"), err=True)


def handles_errors(command: Callable[..., Any]) -> Callable[..., Any]:
    """Turn the documented input errors into one stderr line and exit code 2; and give
    the command ``--warnings grouped|all`` and ``--quiet`` (every command is wrapped
    here), its warnings printed through one ``warnings_out.WarningPrinter`` (``_warn``)
    whose count lines close the command's stderr, before any error line."""

    @functools.wraps(command)
    def wrapper(*args: Any, warnings_mode: str = "grouped", quiet: bool = False,
                **kwargs: Any) -> Any:
        printer = _start_warnings(warnings_mode, quiet)
        try:
            return command(*args, **kwargs)
        except (InputError, Failed, ExecutorError) as exc:
            printer.finish()
            click.echo(visible(f"leafscore: error: {exc}"), err=True)
            raise click.exceptions.Exit(EXIT_USAGE) from None
        except RecursionError:
            printer.finish()
            click.echo("leafscore: error: input nested too deeply to process", err=True)
            raise click.exceptions.Exit(EXIT_USAGE) from None
        except OSError as exc:  # unreadable file or folder (permissions, I/O)
            printer.finish()
            where = exc.filename if exc.filename is not None else "input"
            click.echo(visible(f"leafscore: error: {where}: {exc.strerror or exc}"), err=True)
            raise click.exceptions.Exit(EXIT_USAGE) from None
        finally:
            printer.finish()

    wrapper = click.option(
        "--quiet", "-q", is_flag=True,
        help="Print no warnings and no notes on stderr (errors still; --format json "
             "still carries every warning).")(wrapper)
    return click.option(
        "--warnings", "warnings_mode", type=click.Choice(warnings_out.MODES),
        default="grouped", show_default=True,
        help=f"grouped: the first {warnings_out.SHOWN} warnings of each kind, then one "
             "line with the count of the rest and where they are; all: every one.")(wrapper)


def _start_warnings(mode: str, quiet: bool) -> warnings_out.WarningPrinter:
    """The warning printer of this command line (kept in the click context)."""
    printer = warnings_out.WarningPrinter(
        lambda line: click.echo(visible(f"leafscore: warning: {line}"), err=True),
        mode=mode, quiet=quiet)
    context = click.get_current_context(silent=True)
    if context is not None:
        context.meta["leafscore.warnings"] = printer
    return printer


def _printer() -> warnings_out.WarningPrinter:
    """The command's warning printer (a grouped one outside a command)."""
    context = click.get_current_context(silent=True)
    found = None if context is None else context.meta.get("leafscore.warnings")
    if found is None:
        found = _start_warnings("grouped", False)
    return found


def _warn(text: str, **known: str) -> None:
    """One warning on stderr, through the command's printer (grouped, all or none)."""
    _printer().warn(text, **known)


def _info(message: str) -> None:
    """A note that says what was done or assumed (not why a command failed): left out
    under --quiet."""
    if not _printer().quiet:
        _note(message)


def _json_warnings(fmt: str) -> list[str] | None:
    """Every warning of the command so far (a line each, whatever stderr showed of them),
    for a JSON output's ``"warnings"`` member; None for other formats."""
    return list(_printer().seen) if fmt == "json" else None


def _root_argument(command: Callable[..., Any]) -> Callable[..., Any]:
    return click.argument(
        "root", required=False, default=".", type=click.Path(path_type=Path)
    )(command)


def _engine_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """--engine, for every command that scores (``validate`` scores labels too)."""
    return click.option(
        "--engine", metavar="|".join(versions.ENGINES),
        help=f"Scoring engine: {versions.DEFAULT_ENGINE} or reference (scorer.py's own); "
             f"same scores (default: ${versions.ENGINE_VARIABLE}, else "
             f"{versions.DEFAULT_ENGINE}).")(command)


def _chosen_engine(asked: str | None) -> str:
    """The engine of a command line (``versions.choose_engine``: --engine, else
    $LEAFSCORE_ENGINE, else the default); an unknown one is one line on stderr, exit 2,
    before anything is read."""
    try:
        return versions.choose_engine(asked)
    except ValueError as exc:
        click.echo(visible(f"leafscore: error: {exc}"), err=True)
        raise click.exceptions.Exit(EXIT_USAGE) from None


#: How a scoring command uses the score cache: read and written unless ``--no-cache``
#: (``"on"``), only when asked with ``--cache`` or ``--cache-dir`` (``"off"``: ``report``,
#: whose summary is what others verify), or never (``"never"``: ``verify``, which checks
#: the committed files independently of anything a cache folder holds).
CACHE_MODES: tuple[str, ...] = ("on", "off", "never")


def _scoring_options(command: Callable[..., Any] | None = None, *,
                     cache: str = "on") -> Any:
    """--version, --engine, --workers, --executor, --scheduler, --no-cache, --cache-dir
    (and --cache when ``cache`` is ``"off"``), declared once for every scoring command and
    handed to it as one ``settings: ScoringSettings`` argument. ``cache`` is one of
    :data:`CACHE_MODES`. Used bare (``@_scoring_options``) or with the mode
    (``@_scoring_options(cache="off")``)."""
    if command is None:
        return functools.partial(_scoring_options, cache=cache)
    if cache not in CACHE_MODES:
        raise ValueError(f"cache={cache!r} is not one of {CACHE_MODES}")

    @functools.wraps(command)
    def with_settings(*args: Any, version: str | None, engine: str | None,
                      workers: int | None, executor: str, scheduler: str | None, no_cache: bool,
                      cache_dir: Path | None, use_cache: bool = False, **kwargs: Any) -> Any:
        if scheduler and executor != "dask":
            _usage("--scheduler goes with --executor dask")
        if use_cache and no_cache:
            _usage("--cache and --no-cache contradict each other")
        if cache == "off":
            no_cache = no_cache or not (use_cache or cache_dir is not None)
        elif cache == "never":
            if cache_dir is not None:
                _info(f"`{command.__name__}` rescores without the cache; --cache-dir is "
                      "not used")
            no_cache = True
        settings = ScoringSettings(version, workers, no_cache, cache_dir, executor, scheduler,
                                   _chosen_engine(engine))
        return command(*args, settings=settings, **kwargs)

    cache_help = {
        "on": ("Rescore everything; write no cache.",
               "Cache folder (default $XDG_CACHE_HOME/leafscore)."),
        "off": ("Rescore everything, reading and writing no cache (the default here).",
                "Cache folder to read and write (implies --cache)."),
        "never": ("Accepted for scripts: this command always rescores without the cache.",
                  "Not used: this command always rescores without the cache."),
    }[cache]
    decorators = [
        click.option("--version", "version", type=click.Choice(scorer.SCORING_VERSIONS),
                     help="Scoring version (default: benchmark.toml's pin, else the latest)."),
        _engine_option,
        click.option("--workers", type=click.IntRange(min=1), default=None,
                     help="Worker processes (local pool, or a Dask LocalCluster); output "
                          "is identical for every value. Default: this process and a "
                          "forked helper on 2 or more processors, else this one "
                          "(a LocalCluster of 1)."),
        click.option("--executor", type=click.Choice(EXECUTORS), default="local",
                     show_default=True,
                     help="Where documents are scored: this machine's process pool, or "
                          "Dask (pip install 'leafscore[dask]'); same output."),
        click.option("--scheduler", metavar="tcp://HOST:PORT",
                     help="With --executor dask: an existing dask.distributed scheduler "
                          "(default: a LocalCluster of --workers processes)."),
        *([click.option("--cache", "use_cache", is_flag=True,
                        help="Read and write the score cache (by default this command "
                             "rescores everything).")] if cache == "off" else []),
        click.option("--no-cache", is_flag=True, help=cache_help[0]),
        click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path),
                     help=cache_help[1]),
    ]
    for decorate in reversed(decorators):
        with_settings = decorate(with_settings)
    return with_settings


def _format_option(default: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    return click.option("--format", "fmt", type=click.Choice(render_mod.FORMATS),
                        default=default, show_default=True, help="Output format.")


def _bootstrap_options(command: Callable[..., Any]) -> Callable[..., Any]:
    command = click.option("--seed", type=click.IntRange(min=0), default=stats_mod.DEFAULT_SEED,
                           show_default=True, help="Bootstrap seed.")(command)
    return click.option("--resamples", type=click.IntRange(stats_mod.MIN_RESAMPLES,
                                                           stats_mod.MAX_RESAMPLES),
                        default=stats_mod.DEFAULT_RESAMPLES, show_default=True,
                        help=f"Bootstrap resamples, at least {stats_mod.MIN_RESAMPLES}: "
                             "each end of a 95% interval rests on 2.5% of them.")(command)


def _permutations_option(command: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--permutations", type=click.IntRange(stats_mod.MIN_PERMUTATIONS,
                                                              stats_mod.MAX_PERMUTATIONS),
                        default=stats_mod.DEFAULT_PERMUTATIONS, show_default=True,
                        help="Random sign patterns of the paired sign-flip test (exact "
                             "over every pattern when there are at most this many), at "
                             f"least {stats_mod.MIN_PERMUTATIONS}: below 20 no p-value can "
                             "reach 5%.")(command)


@dataclass(frozen=True)
class ScoringSettings:
    """The scoring options of one command line; ``engine`` is already chosen
    (``versions.choose_engine``)."""

    version: str | None
    workers: int | None  # None: chosen for the machine (executors.make_executor)
    no_cache: bool
    cache_dir: Path | None
    executor: str = "local"
    scheduler: str | None = None
    engine: str = versions.DEFAULT_ENGINE


def resolve_version(settings: ScoringSettings,
                    config: BenchmarkConfig) -> scorer.ScoringVersion:
    """The record of the scoring version (``versions.resolve``): --version, else the
    config's pin (checked when the config was read), else the default, the latest
    (noted on stderr), from the table of the chosen engine."""
    return versions.resolve(settings.version, config.scoring_version, engine=settings.engine,
                            on_default=lambda latest: _info(
                                "no scoring_version pinned (benchmark.toml); using the "
                                f"latest, {latest}"))


def _cache(settings: ScoringSettings) -> Cache:
    """The cache of a command line: none under ``--no-cache``; else ``--cache-dir`` or the
    default folder, unless its signing key is not usable (``Cache.problem``: a read-only
    key folder, a key that is not private, one inside the cache folder ...), which is one
    note on stderr (once per command) and no cache."""
    if settings.no_cache:
        return Cache(None)
    cache = Cache(settings.cache_dir or default_cache_dir())
    problem = cache.problem
    if not problem:
        return cache
    meta = click.get_current_context().meta
    if not meta.get("leafscore.cache-noted"):
        meta["leafscore.cache-noted"] = True
        _note(f"{problem}; scoring without the cache")
    return Cache(None)


@contextlib.contextmanager
def _progress(label: str) -> Iterator[Callable[[int, int], None] | None]:
    """A rich progress bar on stderr when stderr is a terminal, else nothing."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    with Progress(
        "[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
        TimeElapsedColumn(), console=Console(stderr=True), transient=True,
    ) as bar:
        task = bar.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


@dataclass(frozen=True)
class Source:
    """Where a command's benchmark comes from: the folder ``root``, or JSONL files
    (``gold``, ``preds`` system -> file, one ``schema``, the ``id_key`` member, an optional
    ``config``: a benchmark.toml)."""

    root: Path
    gold: Path | None = None
    pred_options: tuple[str, ...] = ()
    schema: Path | None = None
    id_key: str = "id"
    config: Path | None = None
    root_given: bool = False

    @property
    def preds(self) -> tuple[tuple[str, Path], ...]:
        """``--pred`` as (system, path) pairs."""
        return _pred_pairs(self.pred_options)

    def check(self) -> None:
        """Exit 2 (``Failed``) for a mix of modes or an incomplete JSONL set."""
        if self.jsonl:
            if self.gold is None or self.schema is None or not self.pred_options:
                _fail("JSONL mode needs --gold, --schema and at least one --pred")
            if self.root_given:
                _fail("give either ROOT or --gold/--pred/--schema, not both")
        elif self.config is not None:
            _fail("--config goes with JSONL mode; a folder's config is ROOT/benchmark.toml")

    @property
    def jsonl(self) -> bool:
        """True when the benchmark is JSONL files."""
        return self.gold is not None or bool(self.pred_options) or self.schema is not None

    @property
    def folder(self) -> Path | None:
        """ROOT when it is a folder (the place outputs are checked against), else None."""
        return None if self.jsonl or not self.root.is_dir() else self.root


def _pred_pairs(values: tuple[str, ...]) -> tuple[tuple[str, Path], ...]:
    """``--pred SYSTEM=PATH`` (or a bare PATH, named by its file stem) -> pairs."""
    pairs = []
    for value in values:
        name, sep, path = value.partition("=")
        if not sep:
            name, path = Path(value).stem, value
        files.check_name("system name", name, source="--pred")
        pairs.append((name, Path(path)))
    seen = [name for name, _ in pairs]
    if len(set(seen)) != len(seen):
        _fail(f"--pred names a system twice: {', '.join(sorted(seen))}")
    return tuple(pairs)


def _benchmark_source(command: Callable[..., Any]) -> Callable[..., Any]:
    """ROOT, or --gold/--pred/--schema (JSONL), for every command that reads a
    benchmark; handed to it as one ``source: Source`` argument."""

    @functools.wraps(command)
    def with_source(*args: Any, root: Path, gold: Path | None, preds: tuple[str, ...],
                    schema: Path | None, id_key: str, config: Path | None,
                    **kwargs: Any) -> Any:
        explicit = click.get_current_context().get_parameter_source("root") \
            != click.core.ParameterSource.DEFAULT
        source = Source(root, gold, preds, schema, id_key, config, explicit)
        return command(*args, source=source, **kwargs)

    decorators = [
        click.argument("root", required=False, default=".", type=click.Path(path_type=Path)),
        click.option("--gold", type=click.Path(dir_okay=False, path_type=Path),
                     help="JSONL mode: labels, one JSON object per line."),
        click.option("--pred", "preds", multiple=True, metavar="SYSTEM=PATH",
                     help="JSONL mode: one system's predictions, one JSON object per line "
                          "(repeatable; a bare PATH is named by its file stem)."),
        click.option("--schema", type=click.Path(path_type=Path),
                     help="JSONL mode: the JSON Schema of every document, or a folder of "
                          "schemas (--config's schema or schema_by picks one per line)."),
        click.option("--id-key", default="id", show_default=True,
                     help="JSONL mode: the id member."),
        click.option("--config", type=click.Path(dir_okay=False, path_type=Path),
                     help="JSONL mode: a benchmark.toml (version pin, options, breakdowns, "
                          "a metadata file named beside it)."),
    ]
    for decorate in reversed(decorators):
        with_source = decorate(with_source)
    return with_source


def _open(source: Source, settings: ScoringSettings, *, systems: tuple[str, ...] = (),
          needs_verdicts: str = "", verdicts_to: Path | None = None,
          keep_verdicts: bool = False) -> api.Evaluation:
    """Read and score the benchmark of ``source``; warnings to stderr as they come. The
    run keeps no verdicts (tables and summaries read each cell's folded error kinds).

    ``needs_verdicts`` names the command when it needs per-leaf verdicts: the version is
    checked before any scoring. ``verdicts_to``: a file the verdicts are streamed to.
    """
    bench = _bench_of(source, systems, _cache(settings))
    record = resolve_version(settings, bench.config)
    if needs_verdicts and not record.has_verdicts:
        latest = scorer.SCORING_VERSIONS[-1]
        _fail(f"`leafscore {needs_verdicts}` needs per-leaf verdicts, which version "
              f"{record.name} does not keep; pass --version {latest}")
    return _evaluate(bench, settings, record, keep_verdicts, verdicts_to)


def _evaluate(bench: Benchmark, settings: ScoringSettings, record: scorer.ScoringVersion,
              verdicts: bool, verdicts_to: Path | None = None) -> api.Evaluation:
    """Score ``bench`` under ``record`` (resolved by the command: the API, given its
    name, finds the same record), printing warnings as they come."""
    printed = 0

    def early(warnings: Any) -> None:
        nonlocal printed
        for warning in warnings:
            _warn(warning)
            printed += 1

    with _progress("scoring") as progress:
        evaluation = _analysis(lambda: api.evaluate_benchmark(
            bench, version=record.name, engine=settings.engine, workers=settings.workers,
            cache=_cache(settings),
            keep_verdicts=verdicts, progress=progress, before_scoring=early,
            executor=settings.executor, scheduler=settings.scheduler,
            verdicts_to=verdicts_to))
    for warning in evaluation.warnings[printed:]:
        _warn(warning)
    return evaluation


def _say(line: str) -> None:
    """One status line to stdout, as :func:`_emit` writes data (a failed write names
    standard output)."""
    _emit(f"{line}\n")


def _emit(text: str) -> None:
    """Data to stdout, as rendered (a JSON rendering holds the command's warnings). A
    write that fails (a full disk, a closed pipe) names standard output in its error."""
    try:
        click.echo(text, nl=False)
    except OSError as exc:
        if exc.filename is None:
            exc.filename = "standard output"
        raise


def _analysis(call: Callable[[], Any]) -> Any:
    """Call an analysis function; its ``ValueError``/``KeyError`` become exit 2."""
    try:
        return call()
    except KeyError as exc:
        _fail(str(exc.args[0]) if exc.args else str(exc))
    except ValueError as exc:
        if isinstance(exc, InputError):
            raise
        _fail(str(exc))


def _cost_warnings(evaluation: api.Evaluation) -> None:
    """Print, once, the warnings met reading costs and latencies from the envelopes."""
    for warning in evaluation.costs().warnings:
        _note(f"warning: {warning}")


def _warn_small(warning: str | None, fmt: str) -> None:
    """The small-sample warning on stderr for csv output, which has no room for it
    (text formats print it under the table, json holds it as ``warning``)."""
    if warning and fmt == "csv":
        _warn(warning.removeprefix("warning: "))


def _example(*lines: str) -> str:
    """A --help epilog: examples that run on the shipped sample (a test runs each)."""
    return "\b\nExamples (on the sample shipped in the repository):\n" + "\n".join(
        f"  {line}" for line in lines)


# ------------------------------------------------------------------------------------
# Commands
# ------------------------------------------------------------------------------------


class _Group(click.Group):
    """The command group; ``--version`` before a command is a mistake, not a request."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        # `leafscore --version 1.0 score` means a scoring version; the group's --version
        # only prints leafscore's own and exits 0, which would pass a CI step unscored.
        if len(args) > 1 and args[0] == "--version":
            raise click.UsageError("--version before a command prints leafscore's own "
                                   "version; give the scoring version after the command, "
                                   "as in: leafscore score --version 1.0", ctx)
        return super().parse_args(ctx, args)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]},
             epilog=_example("leafscore validate", "leafscore leaderboard --format table"))
@click.version_option(__version__, prog_name="leafscore")
def main() -> None:
    """Score document-extraction results leaf by leaf; build reproducible leaderboards.

    Human-facing output (table, md, html) shows scores in percent, marked "(%)"; machine
    output (json, csv) gives fractions in [0, 1]. Every threshold option takes a
    fraction in [0, 1].
    """


@main.command(epilog=_example(
    "leafscore validate", "leafscore validate --format json",
    "leafscore validate --warnings all",
    "leafscore validate --gold examples/jsonl/gold.jsonl --schema examples/jsonl/schema.json "
    "--pred atlas=examples/jsonl/atlas.jsonl --pred drift=examples/jsonl/drift.jsonl"))
@_benchmark_source
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@click.option("--version", "version", type=click.Choice(scorer.SCORING_VERSIONS),
              help="Scoring version to check under (default: benchmark.toml's pin, else the "
                   "latest).")
@_engine_option
@click.option("--strict", is_flag=True,
              help="Schema lint findings (unknown keywords and formats, keywords that cannot "
                   "apply where they stand) are errors, not warnings: exit 1.")
@handles_errors
def validate(source: Source, fmt: str, version: str | None, engine: str | None,
             strict: bool = False) -> None:
    """Check ROOT (or --gold/--pred/--schema JSONL files) with the metric itself: ids
    agree, schemas are valid and compile under the scoring version, labels obey their
    schemas and score, benchmark.toml is valid, names are safe to show, and each odd
    result file says what `score` will do with it. Errors go to stdout, warnings to
    stderr (grouped: see --warnings), then the count of each. Exit 1 when any error is
    found (warnings never fail); exit 2 where scoring would stop too (no results/).
    Schema lint: a keyword that is neither JSON Schema vocabulary of the schema's draft
    nor an x- extension, an unknown format, a keyword that cannot apply under its type:
    a warning with the pointer and a suggestion (an error with --strict)."""
    chosen = _chosen_engine(engine)
    source.check()
    if source.jsonl:
        problems = validate_jsonl(lambda: api.load_jsonl_benchmark(
            source.gold, dict(source.preds), source.schema,  # type: ignore[arg-type]
            id_key=source.id_key, config=source.config), version=version, engine=chosen,
            strict=strict)
        uses: dict[str, str] = {}
    else:
        problems = validate_folder(source.root, version, engine=chosen, strict=strict) \
            + names.folder_problems(source.root)
        uses = schema_uses(source.root)  # doc id -> the schema file it is scored with
    errors = [p for p in problems if p.level == "error"]
    warnings = [p for p in problems if p.level == "warning"]
    if fmt == "json":
        import json

        listing = [{"level": p.level, "file": p.file, "pointer": p.pointer,
                    "message": p.message} for p in errors + warnings]
        _emit(json.dumps({"errors": len(errors), "warnings": len(warnings),
                          "problems": listing, "schemas": uses},
                         indent=2, ensure_ascii=False) + "\n")
    else:
        shared = collections.Counter(f for d, f in uses.items() if f != f"schemas/{d}.json")
        for file, count in sorted(shared.items()):  # a shared schema: how many use it
            _say(visible(f"schema: {file} is the schema of {count} document(s) "
                         "without their own"))
        for problem in errors:
            _say(visible(str(problem)))
        for problem in warnings:
            _warn(str(problem).removeprefix("warning: "),
                  kind=warnings_out.abstract(problem.message), place=problem.file)
        _printer().finish()  # the count lines before the tally
        _say(f"{len(errors)} error(s), {len(warnings)} warning(s)")
    if errors:
        raise click.exceptions.Exit(EXIT_FAILED)


@main.command(epilog=_example("leafscore plan --document inv-001",
                              "leafscore plan --format json"))
@_benchmark_source
@click.option("--document", "doc_id", help="Only this document's schema.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@click.option("--version", "version", type=click.Choice(scorer.SCORING_VERSIONS),
              help="Scoring version to plan under (default: benchmark.toml's pin, else the "
                   "latest).")
@handles_errors
def plan(source: Source, doc_id: str | None, fmt: str, version: str | None) -> None:
    """The scoring plan: for each field path of each schema (or one document's), how the
    scorer compares it (text, number with its separator and tolerances, date with its
    formats, boolean, exact, fuzzy with its threshold, by JSON kind, ignored; arrays
    ordered or not), where it comes from (the schema pointer: a $ref target, an anyOf
    branch, a patternProperties entry) and every keyword on it the scorer does not act
    on. Read from the scorer's own compiled schema; schema lint findings go to stderr."""
    from leafscore import lint
    from leafscore import plan as plan_mod

    bench = _bench_of(source, results=False)  # a plan needs no system's results yet
    record = versions.resolve(version, bench.config.scoring_version, on_default=lambda latest:
                              _info("no scoring_version pinned (benchmark.toml); using the "
                                    f"latest, {latest}"))
    if not record.has_verdicts:
        _fail(f"`leafscore plan` describes per-leaf verdicts, which version {record.name} "
              f"does not keep; pass --version {scorer.SCORING_VERSIONS[-1]}")
    if doc_id is not None:
        files.check_name("document id", doc_id, source="--document")
        if doc_id not in bench.ids():
            _fail(f"no document {doc_id!r} (labels/{doc_id}.json does not exist)")
    plans: dict[str, tuple[tuple[str, ...], list]] = {}
    for doc in bench.documents:
        if doc_id is not None and doc.id != doc_id:
            continue
        if doc.schema_file in plans:  # JSONL mode: one schema for every document
            ids, rows = plans[doc.schema_file]
            plans[doc.schema_file] = ((*ids, doc.id), rows)
            continue
        plans[doc.schema_file] = ((doc.id,), plan_mod.plan_schema(
            doc.schema, record, options=bench.config.options, file=doc.schema_file))
        if isinstance(doc.schema, dict | bool):
            for found in lint.lint_schema(doc.schema):
                _note(f"warning: {doc.schema_file}#{found.pointer}: {found.message}")
    render = plan_mod.plan_json if fmt == "json" else plan_mod.plan_text
    _emit(render(plans, record.name))


@main.command(epilog=_example(
    "leafscore score", "leafscore score --format json --system atlas",
    "leafscore score --gold examples/jsonl/gold.jsonl --schema examples/jsonl/schema.json "
    "--pred atlas=examples/jsonl/atlas.jsonl"))
@_benchmark_source
@click.option("--system", "systems", multiple=True, help="Score only this system (repeatable).")
@_format_option("table")
@_scoring_options
@handles_errors
def score(source: Source, systems: tuple[str, ...], fmt: str,
          settings: ScoringSettings) -> None:
    """Score every document x system of ROOT (or of --gold/--pred/--schema JSONL files):
    document scores and each system's macro average (% in text, fractions in json/csv)."""
    evaluation = _open(source, settings, systems=systems)
    _emit(render_mod.render_matrix(evaluation.run, fmt, warnings=_json_warnings(fmt)))


@main.command(epilog=_example("leafscore leaderboard", "leafscore leaderboard --format table",
                              "leafscore leaderboard --errors --no-correction",
                              "leafscore leaderboard --update README.md"))
@_benchmark_source
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the leaderboard to this file (atomically) instead of stdout.")
@click.option("--update", type=click.Path(dir_okay=False, path_type=Path),
              help="Rewrite the leaderboard block of this README.")
@click.option("--system", "systems", multiple=True, help="Only these systems (repeatable).")
@click.option("--errors", is_flag=True,
              help="Add a block with each error kind's share of the scored verdicts (2.0) "
                   "and the share of results valid against their schema.")
@click.option("--no-correction", is_flag=True,
              help="Mark ≈ from the raw tests instead of Holm-corrected ones.")
@_format_option("md")
@_bootstrap_options
@_permutations_option
@_scoring_options
@handles_errors
def leaderboard(source: Source, out: Path | None, update: Path | None,
                systems: tuple[str, ...], errors: bool, no_correction: bool, fmt: str,
                resamples: int, seed: int, permutations: int,
                settings: ScoringSettings) -> None:
    """Leaderboard: macro accuracy (%) with a 95% bootstrap percentile interval; the gap
    to the leader with its interval, paired sign-flip p-value (Holm-corrected over the
    comparisons with the leader) and paired documents, and the tie decision they give;
    micro P/R/F1, coverage, breakdowns by metadata, and the signature line; --errors
    adds error shares and schema validity. When result envelopes give a cost, latency or
    tokens: mean cost per document (USD, with its interval), median and p90 latency (s),
    tokens, and the Pareto frontier of score against cost and against latency."""
    if out is not None:  # refused before any scoring; a README only through --update
        _check_output(source, out)
    if update is not None:
        _check_output(source, update, readme=update)
    evaluation = _open(source, settings, systems=systems)
    correction = "none" if no_correction else "holm"
    board = _analysis(lambda: evaluation.leaderboard(resamples=resamples, seed=seed,
                                                     correction=correction, errors=errors,
                                                     permutations=permutations))
    _cost_warnings(evaluation)
    _warn_small(board.warning, fmt)
    text = render_mod.render_leaderboard(board, fmt, warnings=_json_warnings(fmt))
    if update is not None:
        _update_readme(source, update, render_mod.render_leaderboard(board, "md"))
    if out is not None:
        _write_output(source, out, text)
    if update is None and out is None:
        _emit(text)


def _write_output(source: Source, path: Path, text: str, *,
                  readme: Path | None = None) -> None:
    _check_output(source, path, readme=readme)
    path = files.output_target(source.folder, path)
    try:
        files.atomic_write_text(path, text)
    except OSError as exc:
        _fail(f"{path}: cannot write ({exc.strerror or exc})")
    _info(f"wrote {path}")


def _update_readme(source: Source, readme: Path, text: str) -> None:
    from leafscore import report as report_mod
    try:
        old = readme.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        _fail(f"{readme}: cannot read ({exc})")
    try:
        new = report_mod.replace_block(old, text, source=str(readme))
    except ValueError as exc:
        _fail(str(exc))
    if new != old:
        _write_output(source, readme, new, readme=readme)
    else:
        _info(f"{readme} is up to date")


def _writable(folder: Path) -> bool:
    """True when ``folder`` exists, this process may create files in it, and its mode
    has a write bit (a folder marked read-only, ``r-x``, counts as read-only even for
    root, whom ``os.access`` always allows)."""
    try:
        mode = folder.stat().st_mode
    except OSError:
        return False
    return folder.is_dir() and os.access(folder, os.W_OK) and bool(mode & 0o222)


def _foreign_summary(path: Path) -> bool:
    """True when ``path`` holds a summary leafscore did not write (e.g. DocuBench's own)."""
    if not path.exists():
        return False
    try:
        value = scorer.read_json_file(path).value
    except InputError:
        return True
    signature = value.get("signature") if isinstance(value, dict) else None
    return not (isinstance(signature, str) and signature.startswith("leafscore:"))


@main.command(epilog=_example("leafscore report --out /tmp/leafscore-report",
                              "leafscore report --out /tmp/leafscore-report "
                              "--verdicts /tmp/leafscore-report/verdicts.csv"))
@_benchmark_source
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Write summary.json/.csv here instead of ROOT/results (needed for JSONL).")
@click.option("--force", is_flag=True,
              help="Replace a summary.json that leafscore did not write.")
@click.option("--verdicts", "verdicts_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write every leaf verdict to this .csv or .parquet file (2.x).")
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the results explorer (one self-contained HTML page) here.")
@_bootstrap_options
@_scoring_options(cache="off")
@handles_errors
def report(source: Source, out_dir: Path | None, force: bool, verdicts_path: Path | None,
           html_path: Path | None, resamples: int, seed: int,
           settings: ScoringSettings) -> None:
    """Write summary.json and summary.csv (atomically): DocuBench's keys plus version,
    signature, intervals, coverage, per-field counts and digests (fractions in [0, 1]).
    Every document is rescored (the cache is used only with --cache or --cache-dir)."""
    if out_dir is None and source.jsonl:
        _fail("JSONL mode has no results/ folder: pass --out DIR")
    target = out_dir if out_dir is not None else source.root / "results"
    if out_dir is None and not _writable(target):
        _fail(f"{target} is missing or not writable; pass --out DIR to write elsewhere")
    for name in ("summary.json", "summary.csv"):
        _check_output(source, target / name)
    for extra in (verdicts_path, html_path):
        if extra is not None:
            _check_output(source, extra)
    if not force and _foreign_summary(target / "summary.json"):
        _fail(f"{target / 'summary.json'} was not written by leafscore and would be replaced; "
              "pass --out DIR, or --force to replace it")
    if verdicts_path is not None:  # streamed while scoring: its folder must exist first
        try:
            verdicts_path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            _fail(f"{verdicts_path.parent}: cannot create ({exc.strerror or exc})")
    try:
        evaluation = _open(source, settings, verdicts_to=verdicts_path,
                           needs_verdicts="report --verdicts" if verdicts_path else "",
                           keep_verdicts=html_path is not None)  # the page's drill-down
    except ImportError as exc:
        _fail(str(exc))
    _cost_warnings(evaluation)
    try:
        paths = _analysis(lambda: evaluation.report(target, resamples=resamples, seed=seed))
        if verdicts_path is not None:
            paths = (*paths, verdicts_path)
        if html_path is not None:
            paths = (*paths, _write_page(evaluation, html_path, resamples, seed))
    except OSError as exc:
        _fail(f"{target}: cannot write ({exc.strerror or exc}); pass --out DIR")
    for path in paths:
        _say(str(path))


def _check_output(source: Source, path: Path, *, readme: Path | None = None) -> None:
    """Refuse, before any scoring, an output path that is not a regular file to replace
    (``files.output_target``) or that is one of the benchmark's inputs: inside its input
    folders, its config, its metadata files, its README (but ``readme``, the one
    ``--update`` names), or in JSONL mode any of the files read."""
    files.output_target(source.folder, path)
    if source.folder is not None:
        files.check_output_path(source.folder, path, inputs=_folder_inputs(source.folder),
                                readme=readme)
    elif source.jsonl:
        given = [source.gold, source.schema, source.config, *(p for _, p in source.preds),
                 *_jsonl_metadata(source)]
        files.check_not_input(path, [p for p in given if p is not None])


def _jsonl_metadata(source: Source) -> tuple[Path, ...]:
    """The metadata file a JSONL benchmark's --config names (beside the config), if any."""
    if source.config is None or not source.config.is_file():
        return ()
    try:
        from leafscore.config import parse_config

        named = parse_config(source.config.read_bytes().decode("utf-8-sig"),
                             source=str(source.config)).metadata
    except (InputError, UnicodeDecodeError, OSError):  # reported by the command itself
        return ()
    return () if named is None else (source.config.parent / named,)


def _folder_inputs(root: Path) -> tuple[str, ...]:
    """The files at ROOT a benchmark reads besides its folders: ``benchmark.toml``, the
    metadata files it may read (``metadata.json``, ``sources.json``) and the one its
    config names."""
    named: tuple[str, ...] = ()
    try:
        metadata = load_config(root).metadata
    except InputError:  # a broken config is reported by the command itself
        metadata = None
    if metadata:
        named = (metadata,)
    return (scorer.CONFIG_NAME, *DEFAULT_METADATA_FILES, *named)


def _write_page(evaluation: api.Evaluation, path: Path, resamples: int, seed: int) -> Path:
    """Write the explorer page of ``evaluation`` to ``path`` (atomically; its folder is
    created, as ``report --out`` creates its own)."""
    from leafscore import explore as explore_mod
    data = _analysis(lambda: explore_mod.page_data(evaluation, resamples=resamples, seed=seed))
    path.parent.mkdir(parents=True, exist_ok=True)
    files.atomic_write_text(path, explore_mod.render_page(data))
    return path


@main.command(epilog=_example("leafscore explore --out /tmp/leafscore-explorer.html"))
@_benchmark_source
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="The HTML file to write.")
@_bootstrap_options
@_scoring_options
@handles_errors
def explore(source: Source, out: Path, resamples: int, seed: int,
            settings: ScoringSettings) -> None:
    """Write the results explorer: one self-contained HTML page (no network needed to view
    it) with the leaderboard and its intervals, filters by metadata, a documents x systems
    heat map, per-field F1 and error kinds, a leaf-by-leaf drill-down and A/B comparisons.
    Its unfiltered numbers are summary.json's; it carries the signature."""
    _check_output(source, out)
    evaluation = _open(source, settings, keep_verdicts=True)  # the drill-down shows them
    _cost_warnings(evaluation)
    try:
        page = _write_page(evaluation, out, resamples, seed)
    except OSError as exc:
        _fail(f"{out}: cannot write ({exc.strerror or exc})")
    _say(str(page))  # a failed write to stdout names standard output, not the page


@main.command(epilog=_example("leafscore report --out /tmp/leafscore-report && "
                              "leafscore verify --summary /tmp/leafscore-report/summary.json"))
@_benchmark_source
@click.option("--summary", "summary_path", type=click.Path(dir_okay=False, path_type=Path),
              help="The summary to check (default ROOT/results/summary.json; needed for "
                   "JSONL, and for one written with `report --out`); the summary.csv "
                   "beside it is checked too.")
@click.option("--verdicts", "verdicts_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Also check this verdict file, as `report --verdicts` wrote it "
                   "(byte for byte).")
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Also check this explorer page, as `report --html` wrote it "
                   "(byte for byte).")
@_scoring_options(cache="never")
@handles_errors
def verify(source: Source, summary_path: Path | None, verdicts_path: Path | None,
           html_path: Path | None, settings: ScoringSettings) -> None:
    """Rescore the benchmark without the cache and compare with every file `report` wrote:
    summary.json (by content), the summary.csv beside it (by content), and the --verdicts
    and --html files when given (byte for byte). Exit 1 naming each file that drifted;
    exit 2 for a file that cannot be read or that `report` could not have written."""
    from leafscore import explore as explore_mod
    from leafscore import report as report_mod
    if summary_path is not None:
        rel, path = str(summary_path), summary_path
    elif source.jsonl:
        _fail("JSONL mode has no results/ folder: pass --summary FILE")
    else:
        rel = "results/summary.json"
        path = files.safe_child(source.root, rel) if source.root.is_dir() \
            else source.root / rel
    if not path.exists() and not path.is_symlink():
        _fail(f"{path}: no committed summary; run `leafscore report` first")
    committed = report_mod.read_committed_summary(path, rel)  # a FIFO or folder: refused
    csv_rel = str(Path(rel).with_name("summary.csv"))
    csv_path = path.with_name("summary.csv")
    committed_csv = None
    if csv_path.exists() or csv_path.is_symlink():
        with report_mod.open_committed(csv_path, csv_rel) as handle:
            data = handle.read(scorer.MAX_FILE_BYTES + 1)
        if len(data) > scorer.MAX_FILE_BYTES:
            _fail(f"{csv_rel}: larger than the limit of {scorer.MAX_FILE_BYTES:,} bytes")
        committed_csv = report_mod.read_csv_rows(data, csv_rel)
    others = [(str(p), p) for p in (verdicts_path, html_path) if p is not None]
    for name, other in others:  # unreadable: exit 2 before any scoring
        report_mod.open_committed(other, name).close()
    if verdicts_path is not None and verdicts_path.suffix.lower() not in (".csv", ".parquet"):
        _fail(f"{verdicts_path}: `report --verdicts` writes .csv or .parquet, "
              f"not {verdicts_path.suffix or '(none)'}")
    resamples, seed, problem = report_mod.stored_bootstrap(committed.get("signature"))
    if problem:
        _note(f"{rel}: {problem}; recomputing with resamples {resamples} and seed {seed}")
    if settings.version not in (None, committed["version"]):
        _fail(f"--version {settings.version} differs from the summary's version "
              f"{committed['version']}")
    drifted: list[tuple[str, list[str]]] = []
    with tempfile.TemporaryDirectory(prefix="leafscore-verify-") as scratch:
        fresh_verdicts = None if verdicts_path is None \
            else Path(scratch) / f"verdicts{verdicts_path.suffix.lower()}"
        try:
            evaluation = _open(source, dataclasses.replace(settings, version=committed["version"]),
                               verdicts_to=fresh_verdicts, keep_verdicts=html_path is not None,
                               needs_verdicts="verify --verdicts" if verdicts_path else "")
        except ImportError as exc:
            _fail(str(exc))
        fresh = evaluation.summary(resamples=resamples, seed=seed)
        drifted.append((rel, report_mod.drift(committed, fresh)))
        fresh_csv = report_mod.summary_csv(fresh)
        drifted.append((csv_rel, ["missing: `report` writes it beside summary.json"]
                        if committed_csv is None
                        else report_mod.csv_drift(committed_csv, fresh_csv)))
        if fresh_verdicts is not None and verdicts_path is not None:
            with report_mod.open_committed(verdicts_path, str(verdicts_path)) as old, \
                    open(fresh_verdicts, "rb") as new:
                drifted.append((str(verdicts_path), report_mod.bytes_drift(old, new)))
        if html_path is not None:
            data = _analysis(lambda: explore_mod.page_data(evaluation, resamples=resamples,
                                                           seed=seed))
            page = io.BytesIO(explore_mod.render_page(data).encode("utf-8"))
            with report_mod.open_committed(html_path, str(html_path)) as old:
                drifted.append((str(html_path), report_mod.bytes_drift(old, page)))
    failed = [(name, reasons) for name, reasons in drifted if reasons]
    for name, reasons in failed:
        _say(visible(f"verify: DRIFT: {name} does not reproduce"))
        for reason in reasons:
            _say(visible(f"  - {reason}"))
    if failed:
        raise click.exceptions.Exit(EXIT_FAILED)
    checked = ", ".join(name for name, _ in drifted)
    _say(visible(f"verify: OK: every file reproduces: {checked} ({fresh['signature']})"))


@main.command(epilog=_example("leafscore fields --system beacon",
                              "leafscore fields --system cobalt --format json"))
@_benchmark_source
@click.option("--system", required=True, help="The system to analyse.")
@_format_option("table")
@_scoring_options
@handles_errors
def fields(source: Source, system: str, fmt: str, settings: ScoringSettings) -> None:
    """Per-field TP/FP/FN, precision, recall, F1 (%) and error kinds, worst first."""
    evaluation = _open(source, settings, systems=(system,), needs_verdicts="fields")
    rows = _analysis(lambda: evaluation.fields(system))
    _emit(render_mod.render_fields(rows, fmt, system=system, signature=evaluation.signature,
                                   warnings=_json_warnings(fmt)))


@main.command(epilog=_example("leafscore explain inv-001 --system cobalt",
                              "leafscore explain bst-002 --system beacon --format json"))
@click.argument("doc_id")
@_benchmark_source
@click.option("--system", required=True, help="The system whose result to explain.")
@_format_option("table")
@_scoring_options
@handles_errors
def explain(doc_id: str, source: Source, system: str, fmt: str,
            settings: ScoringSettings) -> None:
    """Every leaf of document DOC_ID: label value, result value and verdict."""
    files.check_name("document id", doc_id, source="DOC_ID")
    bench = _analysis(lambda: _bench_of(source, (system,), _cache(settings)))
    if doc_id not in bench.ids():
        _fail(f"no document {doc_id!r} (labels/{doc_id}.json does not exist)")
    single = dataclasses.replace(
        bench, documents=tuple(d for d in bench.documents if d.id == doc_id),
        results=only_results(bench.results, ids=(doc_id,)))
    record = resolve_version(settings, bench.config)
    if not record.has_verdicts:
        _fail(f"`leafscore explain` needs per-leaf verdicts, which version {record.name} "
              f"does not keep; pass --version {scorer.SCORING_VERSIONS[-1]}")
    evaluation = _evaluate(single, settings, record, True)
    explanation = _analysis(lambda: evaluation.explain(doc_id, system))
    # the benchmark's signature, not the one-document run's: the line every other command
    # prints for this benchmark, from which this document's verdicts reproduce too
    whole = run_signature(bench, record, bench.config.options)
    _emit(render_mod.render_explain(dataclasses.replace(explanation, signature=whole), fmt,
                                    warnings=_json_warnings(fmt)))


def _only(bench: Benchmark, systems: tuple[str, ...]) -> Benchmark:
    """``bench`` restricted to ``systems``."""
    return dataclasses.replace(bench, systems=systems,
                               results=only_results(bench.results, systems=systems))


def _side(source: Source, bench: Benchmark, name: str, option: str) -> tuple[Benchmark, str]:
    """A diff side: a system of the benchmark, or a folder of result files read as one."""
    if name in bench.systems:
        return _only(bench, (name,)), name
    if source.jsonl or not Path(name).is_dir():
        _fail(f"{option} {name!r} is neither a system of the benchmark nor a folder")
    label = Path(name).resolve().name or option.lstrip("-")
    return api.with_results(bench, name, label), label


def _bench_of(source: Source, systems: tuple[str, ...] = (),
              cache: Cache | None = None, results: bool = True) -> Benchmark:
    """The benchmark of ``source`` (only ``systems`` when given), read without scoring;
    ``cache`` keeps the read memo of a folder's schemas and labels; ``results`` False: a
    folder with no system folder yet is read too."""
    source.check()
    if not source.jsonl:
        return api.load(source.root, systems, cache=cache or Cache(None), results=results)
    preds = dict(source.preds)
    bare = [p for p in source.pred_options if "=" not in p]
    if len(source.pred_options) == 1 and bare and len(systems) == 1:
        preds = {systems[0]: Path(bare[0])}  # `--pred FILE --system NAME` names FILE
    unknown = sorted(set(systems) - set(preds))
    if unknown:
        _fail(f"--system {unknown[0]!r} is not one of the --pred systems "
              f"({', '.join(sorted(preds))})")
    chosen = {s: preds[s] for s in systems} if systems else preds
    return api.load_jsonl_benchmark(source.gold, chosen, source.schema,  # type: ignore[arg-type]
                                    id_key=source.id_key, config=source.config)


@main.command("diff", epilog=_example(
    "leafscore diff --base cobalt --head beacon",
    "leafscore diff --base beacon --head results/atlas --fail-on-regression"))
@_benchmark_source
@click.option("--base", required=True,
              help="A system of the benchmark, or a folder of result files.")
@click.option("--head", required=True,
              help="A system of the benchmark, or a folder of result files.")
@click.option("--fail-on-regression", is_flag=True,
              help="Exit 1 when head drops below base by more than --tolerance and the "
                   "paired sign-flip test calls the change significant at 5%.")
@click.option("--fail-on-any-drop", is_flag=True,
              help="Exit 1 on any drop beyond --tolerance, significant or not.")
@click.option("--tolerance", type=click.FloatRange(min=0.0, max=1.0), default=0.0,
              show_default=True,
              help="Score drop allowed before a regression: a fraction in [0, 1] "
                   "(0.01 = 1 point).")
@_format_option("md")
@_bootstrap_options
@_permutations_option
@_scoring_options
@handles_errors
def diff_command(source: Source, base: str, head: str, fail_on_regression: bool,
                 fail_on_any_drop: bool, tolerance: float, fmt: str, resamples: int,
                 seed: int, permutations: int, settings: ScoringSettings) -> None:
    """Compare HEAD against BASE: per-field F1, flipped documents, interval of the change."""
    from leafscore import gate as gate_mod
    bench = _analysis(lambda: _bench_of(source, (), _cache(settings)))
    record = resolve_version(settings, bench.config)
    if base in bench.systems and head in bench.systems:
        keep = tuple(sorted({base, head}))
        evaluation = other = _evaluate(_only(bench, keep), settings, record, False)
        base_name, head_name = base, head
    else:
        (base_bench, base_name), (head_bench, head_name) = (
            _side(source, bench, base, "--base"), _side(source, bench, head, "--head"))
        evaluation = _evaluate(base_bench, settings, record, False)
        other = _evaluate(head_bench, settings, record, False)
    result = _analysis(lambda: evaluation.diff(
        base_name, head_name, tolerance=tolerance, resamples=resamples, seed=seed,
        head_evaluation=other, names=(base, head), permutations=permutations))
    _emit(render_mod.render_diff(result, fmt, warnings=_json_warnings(fmt)))
    _warn_small(result.warning, fmt)
    p_value = result.change.p_value
    p_text = "undefined" if p_value is None else f"{p_value:.3g}"
    if fail_on_regression and result.regression:
        _note(f"regression: {head} is below {base} by more than {gate_mod.points(tolerance)}, "
              f"significant (paired sign-flip p = {p_text} < {result.alpha:g})")
        raise click.exceptions.Exit(EXIT_FAILED)
    if fail_on_any_drop and result.drop:
        _note(f"drop: {head} is below {base} by more than {gate_mod.points(tolerance)} "
              f"(paired sign-flip p = {p_text})")
        raise click.exceptions.Exit(EXIT_FAILED)
    if fail_on_regression and result.drop:
        _info(f"no regression: {head} is below {base} by more than "
              f"{gate_mod.points(tolerance)}, but not significantly (paired sign-flip "
              f"p = {p_text} >= {result.alpha:g}); "
              "--fail-on-any-drop fails on it")


@main.command("gate", epilog=_example(
    "leafscore gate --system atlas --min-score 0.95",
    "leafscore gate --system atlas --min-score 0.95 --field-min 'line_items[].amount=0.9'"))
@_benchmark_source
@click.option("--system", required=True, help="The system to gate.")
@click.option("--min-score", type=float,
              help="Minimum macro accuracy: a fraction in [0, 1] (0.95 = 95%).")
@click.option("--field-min", "field_mins", multiple=True, metavar="PATH=X",
              help="Minimum F1 of one field path, a fraction in [0, 1] (repeatable; "
                   "needs version 2.0).")
@click.option("--baseline", "baseline_path", type=click.Path(dir_okay=False, path_type=Path),
              help="A committed summary.json: fail when SYSTEM drops below its score there "
                   "by more than --tolerance and the paired sign-flip test calls the drop "
                   "significant at 5% (the rule of diff --fail-on-regression).")
@click.option("--tolerance", type=click.FloatRange(min=0.0, max=1.0), default=0.0,
              show_default=True,
              help="With --baseline: drop allowed, a fraction in [0, 1] (0.01 = 1 point).")
@_permutations_option
@_scoring_options
@handles_errors
def gate_command(source: Source, system: str, min_score: float | None,
                 field_mins: tuple[str, ...], baseline_path: Path | None, tolerance: float,
                 permutations: int, settings: ScoringSettings) -> None:
    """Exit 1 listing every threshold SYSTEM fails; decided on unrounded values."""
    from leafscore import gate as gate_mod
    if min_score is None and not field_mins and baseline_path is None:
        _fail("give --min-score, --field-min PATH=X and/or --baseline SUMMARY.json")
    wanted = [_analysis(lambda text=text: gate_mod.parse_field_min(text)) for text in field_mins]
    if min_score is not None:
        _analysis(lambda: gate_mod.check_threshold(min_score, name="--min-score"))
    committed = None
    if baseline_path is not None:
        if not baseline_path.is_file():
            _fail(f"--baseline {baseline_path}: no such file")
        committed = scorer.read_json_file(baseline_path, source=str(baseline_path)).value
        version = committed.get("version") if isinstance(committed, dict) else None
        if version not in scorer.SCORING_VERSIONS:
            _fail(f"--baseline {baseline_path}: not a leafscore summary (no known 'version')")
        if settings.version not in (None, version):
            _fail(f"--version {settings.version} differs from the baseline's version {version}")
        settings = dataclasses.replace(settings, version=version)
    evaluation = _open(source, settings, systems=(system,),
                       needs_verdicts="gate --field-min" if wanted else "")
    result = _analysis(lambda: evaluation.gate(system, min_score=min_score, field_min=wanted))
    failures = [f"FAIL {system}: {failure.message}" for failure in result.failures]
    check = None
    if committed is not None:
        check = _analysis(lambda: gate_mod.against_baseline(
            evaluation.run, system, committed, tolerance=tolerance,
            permutations=permutations))
        if check.failed:
            failures.append(f"FAIL {system}: baseline: {check.message}")
    for line in failures:
        _say(visible(line))
    if failures:
        _say(f"gate: {len(failures)} failure(s); {result.signature}")
        raise click.exceptions.Exit(EXIT_FAILED)
    # The pass line names every check applied, so a reader sees what "passes" covered.
    applied = [c.message for c in result.checks]
    if check is not None:
        applied.append(f"baseline: no significant drop beyond {gate_mod.points(tolerance)}")
        _say(visible(f"baseline: {check.message}"))
    shown = f" ({', '.join(applied)})" if applied else ""
    _say(visible(f"gate: {system} passes{shown}; {result.signature}"))


@main.command("power", epilog=_example(
    "leafscore power", "leafscore power --delta 0.05 --format json",
    "leafscore power --sd 0.1 --delta 0.01"))
@_benchmark_source
@click.option("--sd", type=click.FloatRange(min=0.0, max=1.0),
              help="Standard deviation of per-document differences to assume, a fraction "
                   "(default: the median observed over every pair of systems).")
@click.option("--delta", type=click.FloatRange(min=0.0, max=1.0, min_open=True), default=0.01,
              show_default=True,
              help="Difference to detect for the documents-needed figure: a fraction "
                   "(0.01 = 1 point).")
@click.option("--alpha", type=click.FloatRange(0.0, 1.0, min_open=True, max_open=True),
              default=stats_mod.DEFAULT_ALPHA, show_default=True,
              help="Two-sided significance level.")
@click.option("--power", "wanted", type=click.FloatRange(0.0, 1.0, min_open=True,
                                                         max_open=True),
              default=stats_mod.DEFAULT_POWER, show_default=True, help="Wanted power.")
@click.option("--system", "systems", multiple=True, help="Only these systems (repeatable).")
@_format_option("table")
@_bootstrap_options
@_scoring_options
@handles_errors
def power_command(source: Source, sd: float | None, delta: float, alpha: float, wanted: float,
                  systems: tuple[str, ...], fmt: str, resamples: int, seed: int,
                  settings: ScoringSettings) -> None:
    """Minimum detectable difference at the benchmark's size and documents needed for
    --delta, from the paired per-document differences between systems (or --sd): per
    pair (leader vs each, adjacent ranks) and for the benchmark, with a bootstrap check
    of the power at each pair's MDD."""
    evaluation = _open(source, settings, systems=systems)
    analysis = _analysis(lambda: evaluation.power(sd=sd, delta=delta, alpha=alpha,
                                                  power=wanted, resamples=resamples,
                                                  seed=seed))
    _emit(render_mod.render_power(analysis, fmt, warnings=_json_warnings(fmt)))
    _warn_small(stats_mod.small_sample_warning(analysis.documents), fmt)


@main.command("suspects", epilog=_example(
    "leafscore suspects", "leafscore suspects --min-agree 2 --disagree 2 --format json"))
@_benchmark_source
@click.option("--min-agree", type=click.IntRange(min=2),
              help="Systems that must agree on a value other than the label's, at most "
                   "the systems scored (default: a majority of the systems, at least 3).")
@click.option("--disagree", type=click.IntRange(min=2),
              help="Systems that must disagree with a label leaf in any values, or leave a "
                   "label item unpaired, to list it, at most the systems scored (default: "
                   "as --min-agree's).")
@click.option("--system", "systems", multiple=True, help="Only these systems (repeatable).")
@_format_option("table")
@_scoring_options
@handles_errors
def suspects_command(source: Source, min_agree: int | None, disagree: int | None,
                     systems: tuple[str, ...], fmt: str, settings: ScoringSettings) -> None:
    """A review queue of possible label errors (2.x only): label leaves where at least
    --min-agree systems give one canonical value other than the label's, leaves of one
    field path, label value and agreed value grouped into one entry with a count, the raw
    values as written; then leaves at least --disagree systems dispute in other values and
    label items that many leave unpaired. A system's values inside an array item paired on
    one correct leaf only are not counted."""
    evaluation = _open(source, settings, systems=systems, needs_verdicts="suspects",
                       keep_verdicts=True)
    found = _analysis(lambda: evaluation.suspects(min_agree=min_agree, disagree=disagree))
    _emit(render_mod.render_suspects(found, fmt, warnings=_json_warnings(fmt)))


@main.command("plot", epilog=_example(
    "leafscore plot --out /tmp/leafscore-board.svg",
    "leafscore plot --kind frontier --out /tmp/leafscore-frontier.png",
    "leafscore plot --kind fields --system atlas --system cobalt --out /tmp/leafscore-fields.pdf"))
@_benchmark_source
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="The figure to write: .svg, .png or .pdf.")
@click.option("--kind", type=click.Choice(("board", "frontier", "fields")), default="board",
              show_default=True,
              help="board: scores with intervals and tie marks; frontier: score against "
                   "cost and latency; fields: per-field F1 of the chosen systems.")
@click.option("--system", "systems", multiple=True,
              help="fields: the systems to draw (repeatable; default the top three).")
@_bootstrap_options
@_permutations_option
@_scoring_options
@handles_errors
def plot_command(source: Source, out: Path, kind: str, systems: tuple[str, ...],
                 resamples: int, seed: int, permutations: int,
                 settings: ScoringSettings) -> None:
    """Write a publication figure (matplotlib, the optional leafscore[plot] extra): the
    leaderboard with its intervals and tie marks, the Pareto frontier of score against
    cost and latency, or per-field F1. The same inputs give the same bytes (fixed fonts,
    no dates in the metadata); a caption line carries the signature."""
    from leafscore import plot as plot_mod

    try:
        plot_mod.require()
    except ImportError as exc:
        _fail(str(exc))
    fmt = out.suffix.lower().lstrip(".")
    if fmt not in plot_mod.FORMATS:
        _fail(f"{out}: the figure's file must end in .svg, .png or .pdf")
    _check_output(source, out)
    evaluation = _open(source, settings, needs_verdicts="plot --kind fields"
                       if kind == "fields" else "")
    board = _analysis(lambda: evaluation.leaderboard(resamples=resamples, seed=seed,
                                                     permutations=permutations))
    _cost_warnings(evaluation)
    chosen = systems or tuple(r.system for r in board.rows[:3])
    for system in chosen:
        if system not in evaluation.systems:
            _fail(f"--system {system}: no such system (systems: "
                  f"{', '.join(evaluation.systems)})")
    series = () if kind != "fields" else tuple(
        plot_mod.FieldSeries(s, {r.field: r.f1 for r in _analysis(
            lambda s=s: evaluation.fields(s))}) for s in chosen)
    try:
        data = plot_mod.save(plot_mod.draw(board, kind, fields=series), fmt)
    except plot_mod.PlotError as exc:
        _fail(str(exc))
    target = files.output_target(source.folder, out)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        files.atomic_write_bytes(target, data)
    except OSError as exc:
        _fail(f"{out}: cannot write ({exc.strerror or exc})")
    _say(str(target))


if __name__ == "__main__":  # pragma: no cover
    main()
