"""The ``leafscore`` command: parse, call one function, map the outcome to an exit code.

Exit codes: 0 ok; 1 a check, verification or gate failed; 2 bad input or usage (one
line on stderr naming the file and place, never a traceback). Data goes to stdout;
progress (a rich bar, on a terminal only), notes and warnings go to stderr.

Commands: ``validate``, ``score`` (folder or JSONL mode), ``leaderboard``, ``report``,
``verify``, ``fields``, ``explain``, ``diff``, ``gate``. See docs/CLI.md.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import click

import scorer
from leafscore import __version__, files, jsonio, names
from leafscore import diff as diff_mod
from leafscore import fields as fields_mod
from leafscore import gate as gate_mod
from leafscore import leaderboard as leaderboard_mod
from leafscore import render as render_mod
from leafscore import report as report_mod
from leafscore import stats as stats_mod
from leafscore.benchmark import Benchmark, load_folder, load_jsonl
from leafscore.cache import Cache, default_cache_dir, scorer_digest
from leafscore.config import BenchmarkConfig, load_config
from leafscore.errors import InputError
from leafscore.hygiene import visible
from leafscore.runner import Run, score_benchmark
from leafscore.validate import check_label, validate_folder

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


# ------------------------------------------------------------------------------------
# Plumbing: errors, notes, options
# ------------------------------------------------------------------------------------


class Failed(Exception):
    """Bad input found by the CLI itself; printed as one line, exit 2."""


def _fail(message: str) -> NoReturn:
    raise Failed(message)


def _note(message: str) -> None:
    click.echo(visible(f"leafscore: {message}"), err=True)


def handles_errors(command: Callable[..., Any]) -> Callable[..., Any]:
    """Turn the documented input errors into one stderr line and exit code 2."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except (InputError, Failed) as exc:
            click.echo(visible(f"leafscore: error: {exc}"), err=True)
            raise click.exceptions.Exit(EXIT_USAGE) from None
        except RecursionError:
            click.echo("leafscore: error: input nested too deeply to process", err=True)
            raise click.exceptions.Exit(EXIT_USAGE) from None
        except OSError as exc:  # unreadable file or folder (permissions, I/O)
            where = exc.filename if exc.filename is not None else "input"
            click.echo(visible(f"leafscore: error: {where}: {exc.strerror or exc}"), err=True)
            raise click.exceptions.Exit(EXIT_USAGE) from None

    return wrapper


def _root_argument(command: Callable[..., Any]) -> Callable[..., Any]:
    return click.argument(
        "root", required=False, default=".", type=click.Path(path_type=Path)
    )(command)


def _scoring_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """--version, --workers, --no-cache, --cache-dir, declared once for every scoring
    command and handed to it as one ``settings: ScoringSettings`` argument."""

    @functools.wraps(command)
    def with_settings(*args: Any, version: str | None, workers: int, no_cache: bool,
                      cache_dir: Path | None, **kwargs: Any) -> Any:
        settings = ScoringSettings(version, workers, no_cache, cache_dir)
        return command(*args, settings=settings, **kwargs)

    decorators = [
        click.option("--version", "version", type=click.Choice(scorer.SCORING_VERSIONS),
                     help="Scoring version (default: benchmark.toml's pin, else the latest)."),
        click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True,
                     help="Worker processes; output is identical for every value."),
        click.option("--no-cache", is_flag=True, help="Rescore everything; write no cache."),
        click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path),
                     help="Cache folder (default $XDG_CACHE_HOME/leafscore)."),
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
    return click.option("--resamples", type=click.IntRange(1, stats_mod.MAX_RESAMPLES),
                        default=stats_mod.DEFAULT_RESAMPLES, show_default=True,
                        help="Bootstrap resamples.")(command)


@dataclass(frozen=True)
class ScoringSettings:
    """The scoring options of one command line."""

    version: str | None
    workers: int
    no_cache: bool
    cache_dir: Path | None


def resolve_version(flag: str | None, config: BenchmarkConfig) -> str:
    """The scoring version: the flag, else the config's pin (checked when the config was
    read), else the latest (noted)."""
    if flag:
        return flag
    if config.scoring_version is not None:
        return config.scoring_version
    latest = scorer.SCORING_VERSIONS[-1]
    _note(f"no scoring_version pinned (benchmark.toml); using the latest, {latest}")
    return latest


def _cache(settings: ScoringSettings) -> Cache:
    if settings.no_cache:
        return Cache(None)
    return Cache(settings.cache_dir or default_cache_dir())


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


def _score(bench: Benchmark, settings: ScoringSettings, *, verdicts: bool = True) -> Run:
    """Score a loaded benchmark with the command line's settings; warnings to stderr.

    ``verdicts=False`` for commands that read no verdicts (faster from a warm cache).
    """
    for warning in bench.warnings:
        _note(f"warning: {warning}")
    for problem in names.check_names(bench.systems, [doc.id for doc in bench.documents]):
        _note(f"warning: {problem}")
    _warn_invalid_labels(bench)
    version = resolve_version(settings.version, bench.config)
    options = bench.config.options
    with _progress("scoring") as progress:
        run = score_benchmark(bench, version=version, options=options,
                              workers=settings.workers, cache=_cache(settings),
                              progress=progress, verdicts=verdicts)
    for cell in run.cells.values():
        for warning in cell.warnings:
            _note(f"warning: {warning}")
    return run


def _warn_invalid_labels(bench: Benchmark) -> None:
    """One warning line per label that violates its schema, and a count: such labels are
    still scored (``validate`` lists every violation)."""
    invalid = 0
    for doc in bench.documents:
        found = [p for p in check_label(doc.label, doc.schema, doc.label_file, doc.schema_file)
                 if p.level == "error"]
        if found:
            invalid += 1
            first = found[0]
            where = f"#{first.pointer}" if first.pointer else ""
            _note(f"warning: {doc.label_file}: violates its schema ({len(found)} problem(s); "
                  f"first at {where or 'the root'}: {first.message}); scored as it is")
    if invalid:
        _note(f"warning: {invalid} label(s) violate their schema; run `leafscore validate`")


def _load(root: Path, systems: tuple[str, ...] = ()) -> Benchmark:
    for system in systems:
        files.check_name("system name", system, source="--system")
    config = load_config(root) if Path(root).is_dir() else BenchmarkConfig()
    return load_folder(root, config, systems=systems)


def _emit(text: str) -> None:
    click.echo(text, nl=False)


def _analysis(call: Callable[[], Any]) -> Any:
    """Call an analysis function; its ``ValueError``/``KeyError`` become exit 2."""
    try:
        return call()
    except KeyError as exc:
        _fail(str(exc.args[0]) if exc.args else str(exc))
    except ValueError as exc:
        _fail(str(exc))


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


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="leafscore")
def main() -> None:
    """Score document-extraction results leaf by leaf; build reproducible leaderboards."""


@main.command()
@_root_argument
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@click.option("--version", "version", type=click.Choice(scorer.SCORING_VERSIONS),
              help="Scoring version to check under (default: benchmark.toml's pin, else the "
                   "latest).")
@handles_errors
def validate(root: Path, fmt: str, version: str | None) -> None:
    """Check ROOT with the metric itself: ids agree, schemas are valid and compile under
    the scoring version, labels obey their schemas and score, benchmark.toml is valid,
    names are safe to show, and each odd result file says what `score` will do with it.
    Exit 1 when any error is found (warnings never fail); exit 2 where scoring would stop
    too (no results/)."""
    problems = validate_folder(root, version) + names.folder_problems(root)
    errors = [p for p in problems if p.level == "error"]
    warnings = [p for p in problems if p.level == "warning"]
    if fmt == "json":
        import json

        listing = [{"level": p.level, "file": p.file, "pointer": p.pointer,
                    "message": p.message} for p in errors + warnings]
        _emit(json.dumps({"errors": len(errors), "warnings": len(warnings),
                          "problems": listing}, indent=2, ensure_ascii=False) + "\n")
    else:
        for problem in errors + warnings:
            click.echo(visible(str(problem)))
        click.echo(f"{len(errors)} error(s), {len(warnings)} warning(s)")
    if errors:
        raise click.exceptions.Exit(EXIT_FAILED)


@main.command()
@_root_argument
@click.option("--system", "systems", multiple=True, help="Score only this system (repeatable).")
@_format_option("table")
@_scoring_options
@click.option("--gold", type=click.Path(dir_okay=False, path_type=Path),
              help="JSONL mode: labels, one JSON object per line.")
@click.option("--pred", "preds", type=click.Path(dir_okay=False, path_type=Path),
              multiple=True,
              help="JSONL mode: predictions, one JSON object per line (one file; --system "
                   "names it, default 'pred').")
@click.option("--schema", type=click.Path(dir_okay=False, path_type=Path),
              help="JSONL mode: the JSON Schema of every document.")
@click.option("--id-key", default="id", show_default=True, help="JSONL mode: the id member.")
@click.pass_context
@handles_errors
def score(ctx: click.Context, root: Path, systems: tuple[str, ...], fmt: str,
          settings: ScoringSettings,
          gold: Path | None, preds: tuple[Path, ...], schema: Path | None,
          id_key: str) -> None:
    """Score every document x system of ROOT (or a --gold/--pred/--schema JSONL set)."""
    if len(preds) > 1:
        _fail("give one --pred file; to compare systems, lay them out as a benchmark folder")
    pred = preds[0] if preds else None
    jsonl = (gold, pred, schema)
    if any(jsonl):
        if not all(jsonl):
            _fail("JSONL mode needs all of --gold, --pred and --schema")
        if ctx.get_parameter_source("root") != click.core.ParameterSource.DEFAULT:
            _fail("give either ROOT or --gold/--pred/--schema, not both")
        for path in jsonl:
            if not path.is_file():  # type: ignore[union-attr]
                _fail(f"{path}: no such file")
        if len(systems) > 1:
            _fail("JSONL mode scores one system: give at most one --system (its name)")
        name = systems[0] if systems else "pred"
        files.check_name("system name", name, source="--system")
        bench = load_jsonl(gold, pred, schema, id_key=id_key,  # type: ignore[arg-type]
                           system=name)
        if settings.version is None:
            settings = dataclasses.replace(settings, version=scorer.SCORING_VERSIONS[-1])
            _note(f"JSONL mode; scoring version {settings.version}")
        run = _score(bench, settings, verdicts=False)
    else:
        run = _score(_load(root, systems), settings, verdicts=False)
    _emit(render_mod.render_matrix(run, fmt))


@main.command()
@_root_argument
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the leaderboard to this file (atomically) instead of stdout.")
@click.option("--update", type=click.Path(dir_okay=False, path_type=Path),
              help="Rewrite the leaderboard block of this README.")
@click.option("--system", "systems", multiple=True, help="Only these systems (repeatable).")
@_format_option("md")
@_bootstrap_options
@_scoring_options
@handles_errors
def leaderboard(root: Path, out: Path | None, update: Path | None, systems: tuple[str, ...],
                fmt: str, resamples: int, seed: int, settings: ScoringSettings) -> None:
    """Markdown leaderboard: macro accuracy with a 95% interval, ties with the leader,
    micro P/R/F1, coverage, breakdowns by metadata, and the signature line."""
    for path in (out, update):  # refused before any scoring
        if path is not None:
            files.output_target(root if Path(root).is_dir() else None, path)
    bench = _load(root, systems)
    run = _score(bench, settings, verdicts=False)
    board = _analysis(lambda: leaderboard_mod.leaderboard(
        run, resamples=resamples, seed=seed, columns=bench.config.breakdowns))
    text = render_mod.render_leaderboard(board, fmt)
    if update is not None:
        _update_readme(root, update, render_mod.render_leaderboard(board, "md"))
    if out is not None:
        _write_output(root, out, text)
    if update is None and out is None:
        _emit(text)


def _write_output(root: Path, path: Path, text: str) -> None:
    path = files.output_target(root if Path(root).is_dir() else None, path)
    if Path(root).is_dir():
        files.check_output_path(root, path)
    try:
        files.atomic_write_text(path, text)
    except OSError as exc:
        _fail(f"{path}: cannot write ({exc.strerror or exc})")
    _note(f"wrote {path}")


def _update_readme(root: Path, readme: Path, text: str) -> None:
    try:
        old = readme.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        _fail(f"{readme}: cannot read ({exc})")
    try:
        new = report_mod.replace_block(old, text, source=str(readme))
    except ValueError as exc:
        _fail(str(exc))
    if new != old:
        _write_output(root, readme, new)
    else:
        _note(f"{readme} is up to date")


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
        value = jsonio.load_json(path).value
    except jsonio.JSONInputError:
        return True
    signature = value.get("signature") if isinstance(value, dict) else None
    return not (isinstance(signature, str) and signature.startswith("leafscore:"))


def _summary(root: Path, run: Run, bench: Benchmark, *, resamples: int, seed: int
             ) -> dict[str, Any]:
    results = {raw.file: raw.sha256 for raw in bench.results.values() if raw.data is not None}
    config = bench.config
    return _analysis(lambda: report_mod.build_summary(
        run,
        name=config.name or Path(root).resolve().name,
        dataset_version=config.version,
        display_names=config.display_names,
        results_sha256=results,
        scorer_sha256=scorer_digest(),
        resamples=resamples,
        seed=seed,
    ))


@main.command()
@_root_argument
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Write summary.json/.csv here instead of ROOT/results.")
@click.option("--force", is_flag=True,
              help="Replace a summary.json that leafscore did not write.")
@_bootstrap_options
@_scoring_options
@handles_errors
def report(root: Path, out_dir: Path | None, force: bool, resamples: int, seed: int,
           settings: ScoringSettings) -> None:
    """Write results/summary.json and results/summary.csv (atomically)."""
    bench = _load(root)
    target = out_dir if out_dir is not None else Path(root) / "results"
    if out_dir is None and not _writable(target):
        _fail(f"{target} is missing or not writable; pass --out DIR to write elsewhere")
    files.check_output_path(root, target / "summary.json")
    for name in ("summary.json", "summary.csv"):
        files.output_target(root, target / name)
    if not force and _foreign_summary(target / "summary.json"):
        _fail(f"{target / 'summary.json'} was not written by leafscore and would be replaced; "
              "pass --out DIR, or --force to replace it")
    run = _score(bench, settings)
    summary = _summary(root, run, bench, resamples=resamples, seed=seed)
    try:
        target.mkdir(parents=True, exist_ok=True)
        paths = report_mod.write_summary(target, summary)
    except OSError as exc:
        _fail(f"{target}: cannot write ({exc.strerror or exc}); pass --out DIR")
    for path in paths:
        click.echo(str(path))


@main.command()
@_root_argument
@click.option("--summary", "summary_path", type=click.Path(dir_okay=False, path_type=Path),
              help="The summary to check (default ROOT/results/summary.json); for one "
                   "written with `report --out`.")
@_scoring_options
@handles_errors
def verify(root: Path, summary_path: Path | None, settings: ScoringSettings) -> None:
    """Rescore ROOT and compare with the committed results/summary.json; exit 1 on drift."""
    if summary_path is not None:
        rel, path = str(summary_path), summary_path
    else:
        rel = "results/summary.json"
        path = files.safe_child(root, rel) if Path(root).is_dir() else Path(root) / rel
    if not path.is_file():
        _fail(f"{path}: no committed summary; run `leafscore report` first")
    try:
        committed = jsonio.load_json(path).value
    except jsonio.JSONInputError as exc:
        raise InputError(rel, exc.position, exc.reason) from None
    if not isinstance(committed, dict) or committed.get("version") not in scorer.SCORING_VERSIONS:
        _fail(f"{rel}: not a leafscore summary (no known 'version')")
    resamples, seed, problem = report_mod.stored_bootstrap(committed.get("signature"))
    if problem:
        _note(f"{rel}: {problem}; recomputing with resamples {resamples} and seed {seed}")
    bench = _load(root)
    if settings.version not in (None, committed["version"]):
        _fail(f"--version {settings.version} differs from the summary's version "
              f"{committed['version']}")
    run = _score(bench, dataclasses.replace(settings, version=committed["version"]))
    fresh = _summary(root, run, bench, resamples=resamples, seed=seed)
    reasons = report_mod.drift(committed, fresh)
    if reasons:
        click.echo(f"verify: DRIFT: {rel} does not reproduce")
        for reason in reasons:
            click.echo(visible(f"  - {reason}"))
        raise click.exceptions.Exit(EXIT_FAILED)
    click.echo(f"verify: OK: {rel} reproduces ({fresh['signature']})")


@main.command()
@_root_argument
@click.option("--system", required=True, help="The system to analyse.")
@_format_option("table")
@_scoring_options
@handles_errors
def fields(root: Path, system: str, fmt: str, settings: ScoringSettings) -> None:
    """Per-field TP/FP/FN, precision, recall, F1 and error categories, worst first."""
    bench = _load(root, (system,))
    _needs_verdicts(bench, settings.version, "fields")
    run = _score(bench, settings)
    rows = _analysis(lambda: fields_mod.field_table(run, system))
    _emit(render_mod.render_fields(rows, fmt, system=system, signature=run.signature))


def _needs_verdicts(bench: Benchmark, flag: str | None, command: str) -> None:
    """Exit 2 before scoring when the run's version keeps no per-leaf verdicts (1.0)."""
    version = flag or bench.config.scoring_version or scorer.SCORING_VERSIONS[-1]
    if not scorer.scoring_version(version).has_verdicts:
        latest = scorer.SCORING_VERSIONS[-1]
        _fail(f"`leafscore {command}` needs per-leaf verdicts, which version {version} "
              f"does not keep; pass --version {latest}")


@main.command()
@click.argument("doc_id")
@_root_argument
@click.option("--system", required=True, help="The system whose result to explain.")
@_format_option("table")
@_scoring_options
@handles_errors
def explain(doc_id: str, root: Path, system: str, fmt: str, settings: ScoringSettings) -> None:
    """Every leaf of document DOC_ID: label value, result value and verdict."""
    files.check_name("document id", doc_id, source="DOC_ID")
    bench = _load(root, (system,))
    if doc_id not in bench.ids():
        _fail(f"no document {doc_id!r} (labels/{doc_id}.json does not exist)")
    single = Benchmark(bench.root, bench.config,
                       tuple(d for d in bench.documents if d.id == doc_id), bench.systems,
                       {k: v for k, v in bench.results.items() if k[1] == doc_id},
                       bench.metadata, bench.warnings)
    _needs_verdicts(bench, settings.version, "explain")
    run = _score(single, settings)
    _emit(_analysis(lambda: render_mod.render_explain(run, system, doc_id, fmt)))


def _side(root: Path, name: str, option: str, bench: Benchmark) -> tuple[Benchmark, str]:
    """A diff side: a system of ROOT, or a folder of result files of the same benchmark."""
    if name in bench.systems:
        return bench, name
    folder = Path(name)
    if not folder.is_dir():
        _fail(f"{option} {name!r} is neither a system of {root}/results nor a folder")
    label = folder.resolve().name or option.lstrip("-")
    results = {}
    for doc in bench.documents:
        rel = folder / f"{doc.id}.json"
        raw = _raw_from_folder(folder, doc.id, rel)
        results[(label, doc.id)] = raw
    side = Benchmark(bench.root, bench.config, bench.documents, (label,), results,
                     bench.metadata, ())
    return side, label


def _raw_from_folder(folder: Path, doc_id: str, shown: Path) -> Any:
    from leafscore.benchmark import RawResult

    path = files.safe_child(folder, f"{doc_id}.json")
    if not path.exists():
        return RawResult(str(shown), None)
    if not path.is_file():
        return RawResult(str(shown), None, problem="not a regular file (parse failure)")
    if path.stat().st_size > jsonio.DEFAULT_MAX_BYTES:
        return RawResult(str(shown), None, problem="over the size limit (parse failure)")
    return RawResult(str(shown), path.read_bytes())


@main.command("diff")
@_root_argument
@click.option("--base", required=True, help="A system of ROOT, or a folder of result files.")
@click.option("--head", required=True, help="A system of ROOT, or a folder of result files.")
@click.option("--fail-on-regression", is_flag=True, help="Exit 1 when head is worse than base.")
@click.option("--tolerance", type=click.FloatRange(min=0.0, max=1.0), default=0.0,
              show_default=True,
              help="Score drop allowed before a regression (fraction in [0, 1]).")
@_format_option("md")
@_bootstrap_options
@_scoring_options
@handles_errors
def diff_command(root: Path, base: str, head: str, fail_on_regression: bool, tolerance: float,
                 fmt: str, resamples: int, seed: int, settings: ScoringSettings) -> None:
    """Compare HEAD against BASE: per-field F1, flipped documents, interval of the change."""
    bench = _load(root)
    base_bench, base_name = _side(root, base, "--base", bench)
    head_bench, head_name = _side(root, head, "--head", bench)
    if base_bench is head_bench:
        keep = tuple(sorted({base_name, head_name}))
        pair = Benchmark(bench.root, bench.config, bench.documents, keep,
                         {k: v for k, v in bench.results.items() if k[0] in keep},
                         bench.metadata, bench.warnings)
        base_run = head_run = _score(pair, settings)
    else:
        base_run, head_run = _score(base_bench, settings), _score(head_bench, settings)
    result = _analysis(lambda: diff_mod.compare(
        base_run, base_name, head_run, head_name, tolerance=tolerance, resamples=resamples,
        seed=seed, names=(base, head)))
    _emit(render_mod.render_diff(result, fmt))
    if fail_on_regression and result.regression:
        _note(f"regression: {head} is below {base} by more than {tolerance!r}")
        raise click.exceptions.Exit(EXIT_FAILED)


@main.command("gate")
@_root_argument
@click.option("--system", required=True, help="The system to gate.")
@click.option("--min-score", type=float, help="Minimum macro accuracy, a fraction in [0, 1].")
@click.option("--field-min", "field_mins", multiple=True, metavar="PATH=X",
              help="Minimum F1 of one field (repeatable; needs version 2.0).")
@_scoring_options
@handles_errors
def gate_command(root: Path, system: str, min_score: float | None, field_mins: tuple[str, ...],
                 settings: ScoringSettings) -> None:
    """Exit 1 listing every threshold SYSTEM fails; decided on unrounded values."""
    if min_score is None and not field_mins:
        _fail("give --min-score and/or --field-min PATH=X")
    wanted = [_analysis(lambda text=text: gate_mod.parse_field_min(text)) for text in field_mins]
    if min_score is not None:
        _analysis(lambda: gate_mod.check_threshold(min_score, name="--min-score"))
    bench = _load(root, (system,))
    if wanted:
        _needs_verdicts(bench, settings.version, "gate --field-min")
    run = _score(bench, settings, verdicts=bool(wanted))
    failures = _analysis(lambda: gate_mod.gate(run, system, min_score=min_score,
                                               field_min=wanted))
    for failure in failures:
        click.echo(visible(f"FAIL {system}: {failure.message}"))
    if failures:
        click.echo(f"gate: {len(failures)} failure(s); {run.signature}")
        raise click.exceptions.Exit(EXIT_FAILED)
    value = run.system_score(system)
    shown = "" if min_score is None or value is None else (
        f" (score {gate_mod.format_against(value, min_score)} >= {min_score!r})")
    click.echo(visible(f"gate: {system} passes{shown}; {run.signature}"))


if __name__ == "__main__":  # pragma: no cover
    main()
