"""Output of a run: ``results/summary.json``/``.csv``, the README block, and ``verify``
(rebuild the summary, compare with the committed one).

``summary.json`` keeps the keys of DocuBench's summary (``benchmark``,
``engine_display_names``, ``aggregates``, ``breakdowns``, ``per_doc``) and adds
``version``, ``signature``, ``sha256`` (every schema and label), ``results_sha256``,
``scorer_sha256``, ``intervals``, ``coverage`` and ``fields`` (per-field counts, version
2.0), then ``power``, ``suspects`` (2.0; ``null`` under 1.0), ``error_shares`` and
``schema_validity``, and ``costs`` (per system: mean cost per document with its interval,
latency median and 90th percentile, tokens, coverage and frontier marks) when any result
envelope gives a cost, a latency or tokens. It holds no timestamp, so the same inputs give
the same bytes.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
import os
import re
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any, BinaryIO

import scorer
from leafscore import fields as fields_mod
from leafscore import files, hygiene, stats
from leafscore import leaderboard as leaderboard_mod
from leafscore import power as power_mod
from leafscore import suspects as suspects_mod
from leafscore._version import __version__
from leafscore.run import Run
from leafscore.signature import parse_signature
from leafscore.stats import DEFAULT_RESAMPLES, DEFAULT_SEED, MAX_RESAMPLES

METRIC = "macro_average_field_accuracy"
README_START = "<!-- leafscore:leaderboard:start -->"
README_END = "<!-- leafscore:leaderboard:end -->"
#: Absolute tolerance when ``verify`` compares numbers (bit noise across platforms).
VERIFY_TOLERANCE = 1e-12
#: Most fields listed per system under ``fields`` in summary.json. An open map (a schema
#: allowing any key) gives one field per key of a result: 65,000 keys made a 13.7 MB
#: summary. Beyond this, the first fields in path order are listed and
#: ``fields_truncated`` gives the number of fields and the counts of the rest.
MAX_SUMMARY_FIELDS = 1000
#: Longest place (a JSON path, a file name from a committed summary) ``verify`` prints in
#: one reason; a longer one is cut with an ellipsis, so a reason stays one short line.
MAX_SHOWN_PLACE = 120
#: Bytes compared at a time when ``verify`` checks a written file byte for byte.
COMPARE_CHUNK = 1 << 20


def _statuses(run: Run, system: str) -> dict[str, int]:
    return dataclasses.asdict(leaderboard_mod.coverage(run, system))


# ------------------------------------------------------------------------------------
# summary.json / summary.csv
# ------------------------------------------------------------------------------------


def _field_rows(run: Run, system: str) -> tuple[Any, ...] | None:
    try:
        return fields_mod.system_fields(run, system)
    except ValueError:
        return None


def _field_counts(rows: tuple[Any, ...] | None) -> dict[str, Any] | None:
    if rows is None:
        return None
    return {
        r.field: {k: v for k, v in r.to_dict().items() if k != "field"}
        for r in rows[:MAX_SUMMARY_FIELDS]
    }


def _truncation(rows: tuple[Any, ...] | None) -> dict[str, Any] | None:
    """What ``fields`` left out of one system, or None when it lists every field."""
    if rows is None or len(rows) <= MAX_SUMMARY_FIELDS:
        return None
    rest = rows[MAX_SUMMARY_FIELDS:]
    return {"fields": len(rows), "listed": MAX_SUMMARY_FIELDS,
            "unlisted": {k: v for k, v in sum((r.counts for r in rest), scorer.FieldCounts())
                         .to_dict().items() if k in ("tp", "fp", "fn")},
            "note": f"only the first {MAX_SUMMARY_FIELDS} fields in path order are listed"}


def stored_bootstrap(signature: Any) -> tuple[int, int, str]:
    """The bootstrap settings ``verify`` uses for a committed summary's signature.

    Parameters
    ----------
    signature : any
        The summary's ``signature`` member (a str when well-formed).

    Returns
    -------
    (resamples, seed, problem)
        The signature's ``bs`` and ``seed`` when both are integers in range (resamples
        in [1, ``stats.MAX_RESAMPLES``], seed >= 0) and ``problem`` is ``""``; else the
        defaults (1000, 12345) and ``problem`` says why, so the run stays bounded and
        verify reports the mismatch instead of crashing.
    """
    try:
        fields = parse_signature(str(signature))
        resamples, seed = int(fields["bs"]), int(fields["seed"])
    except (ValueError, KeyError):  # int() also refuses over 4,300 digits
        return DEFAULT_RESAMPLES, DEFAULT_SEED, "the signature holds no readable bs/seed"
    if not 1 <= resamples <= MAX_RESAMPLES:
        return DEFAULT_RESAMPLES, DEFAULT_SEED, (
            f"bootstrap size bs:{resamples} is outside 1..{MAX_RESAMPLES:,}")
    if seed < 0:
        return DEFAULT_RESAMPLES, DEFAULT_SEED, f"seed:{seed} is negative"
    return resamples, seed, ""


def build_summary(
    run: Run,
    *,
    name: str,
    dataset_version: str,
    display_names: Mapping[str, str],
    results_sha256: Mapping[str, str],
    scorer_sha256: str,
    resamples: int,
    seed: int,
    validity: Any = (),
    costs: Any = None,
) -> dict[str, Any]:
    """The summary of a run as a JSON-able dict (key order fixed).

    ``results_sha256`` maps ``results/<system>/<id>.json`` -> sha256 hex of each result
    file present; ``resamples``/``seed`` set the bootstrap of ``intervals`` and of the
    power check; ``validity`` is ``validity.schema_validity`` of the run's benchmark;
    ``costs`` (``costs.Costs``, optional) adds ``costs`` when it holds any value.
    """
    board = leaderboard_mod.leaderboard(run, resamples=resamples, seed=seed, costs=costs)
    field_rows = {s: _field_rows(run, s) for s in run.systems}
    truncated = {s: t for s, rows in field_rows.items() if (t := _truncation(rows))}
    breakdowns = {}
    for b in board.breakdowns:
        breakdowns[b.column] = [
            {"value": g.value, "doc_count": g.documents, **{s: g.scores[s] for s in run.systems}}
            for g in b.groups
        ]
    per_doc = []
    columns = {s: run.document_scores(s) for s in run.systems}
    for i, doc in enumerate(run.documents):
        per_doc.append({"doc_id": doc, **{s: columns[s][i] for s in run.systems}})
    rows = {r.system: r for r in board.rows}
    intervals = {
        s: {"low": rows[s].low, "high": rows[s].high, "rank": rows[s].rank,
            "tie_with_leader": rows[s].tie,
            "p_value": None if rows[s].gap is None else rows[s].gap.p_value,
            "p_holm": rows[s].p_adjusted, "paired_documents": rows[s].paired,
            "gap": None if rows[s].gap is None else 0.0 - rows[s].gap.estimate,
            "gap_low": None if rows[s].gap is None or rows[s].gap.high is None
            else 0.0 - rows[s].gap.high,
            "gap_high": None if rows[s].gap is None or rows[s].gap.low is None
            else 0.0 - rows[s].gap.low,
            "decision": rows[s].decision, "reason": rows[s].reason,
            "near_alpha": rows[s].near_alpha, "few_documents": rows[s].few_documents}
        for s in run.systems
    }
    return {
        "benchmark": {"name": name, "version": dataset_version,
                      "doc_count": len(run.documents), "metric": METRIC},
        "engine_display_names": {s: display_names.get(s, s) for s in run.systems},
        "aggregates": {s: run.system_score(s) for s in run.systems},
        "breakdowns": breakdowns,
        "per_doc": per_doc,
        "version": run.version,
        "signature": board.signature,
        "tool": f"leafscore {__version__}",
        "bootstrap": {"resamples": resamples, "seed": seed, "confidence": board.confidence},
        "intervals": intervals,
        "coverage": {s: _statuses(run, s) for s in run.systems},
        "fields": {s: _field_counts(rows) for s, rows in field_rows.items()},
        **({"fields_truncated": truncated} if truncated else {}),
        "sha256": dict(sorted(run.digests.items())),
        "results_sha256": dict(sorted(results_sha256.items())),
        "scorer_sha256": scorer_sha256,
        "power": _power(run, resamples, seed),
        "suspects": _suspects(run),
        "error_shares": {s: _error_shares(run, s) for s in run.systems},
        "schema_validity": {v.system: v.to_dict() for v in validity},
        **({} if board.costs is None else {"costs": {
            c.system: {k: v for k, v in dataclasses.asdict(c).items() if k != "system"}
            for c in sorted(board.costs, key=lambda c: c.system)}}),
    }


def _power(run: Run, resamples: int, seed: int) -> dict[str, Any]:
    """``power``: the benchmark's MDD and documents needed for 1 and 0.5 points."""
    analysis = power_mod.analyse(run, resamples=resamples, seed=seed)
    half = (None if analysis.sd is None or analysis.sd <= stats.TIE
            else stats.documents_needed(0.005, analysis.sd))
    return {
        "documents": analysis.documents, "alpha": analysis.alpha, "power": analysis.power,
        "sd": analysis.sd, "sd_source": analysis.sd_source, "mdd": analysis.mdd,
        "sd_all_pairs": analysis.sd_all_pairs, "mdd_all_pairs": analysis.mdd_all_pairs,
        "documents_needed": {"0.01": analysis.needed, "0.005": half},
        "pairs": [dataclasses.asdict(p) for p in analysis.pairs],
    }


def _suspects(run: Run) -> dict[str, Any] | None:
    """``suspects`` at the default agreement; ``None`` under 1.0 (no verdicts)."""
    if not run.record.has_verdicts:
        return None
    found = suspects_mod.find(run)
    return {"min_agree": found.min_agree,
            "leaves": [dict(dataclasses.asdict(s), agree=s.agree) for s in found.suspects]}


def _error_shares(run: Run, system: str) -> dict[str, Any] | None:
    shares = leaderboard_mod.error_shares(run, system)
    if shares.shares is None:
        return None
    return {"verdicts": shares.verdicts, "counts": dict(shares.counts),
            "shares": dict(shares.shares)}


def summary_json(summary: Mapping[str, Any]) -> str:
    """The summary as indented JSON text ending in a newline (deterministic bytes)."""
    return json.dumps(summary, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def summary_csv(summary: Mapping[str, Any]) -> str:
    """``per_doc`` as CSV (``doc_id`` then one column per system), then the ``AGGREGATE``
    row, as DocuBench writes it; floats with ``repr``, an empty cell where not scored.
    Names that a spreadsheet would run as a formula get a leading ``'``
    (:func:`leafscore.hygiene.csv_cell`); numbers are never changed."""
    systems = list(summary["aggregates"])
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["doc_id", *(hygiene.csv_cell(s) for s in systems)])
    for row in summary["per_doc"]:
        cells = ("" if row[s] is None else repr(row[s]) for s in systems)
        writer.writerow([hygiene.csv_cell(row["doc_id"]), *cells])
    aggregates = summary["aggregates"]
    writer.writerow(["AGGREGATE", *("" if aggregates[s] is None else repr(aggregates[s])
                                    for s in systems)])
    return buffer.getvalue()


def write_summary(directory: Path, summary: Mapping[str, Any]) -> tuple[Path, Path]:
    """Write ``summary.json`` and ``summary.csv`` into ``directory``, each atomically.

    Raises ``OSError`` when the folder is not writable.
    """
    directory = Path(directory)
    json_path, csv_path = directory / "summary.json", directory / "summary.csv"
    files.atomic_write_text(json_path, summary_json(summary))
    files.atomic_write_text(csv_path, summary_csv(summary))
    return json_path, csv_path


# ------------------------------------------------------------------------------------
# verify
# ------------------------------------------------------------------------------------


_DIGESTS = {"type": "object", "additionalProperties": {"type": "string"}}
_OBJECT = {"type": "object"}
#: The type of every member ``report`` writes, as a JSON Schema: a committed summary
#: with a member of another type (``"sha256": []``, ``"results_sha256": "x"``) was not
#: written by ``report`` and ``verify`` refuses it (exit 2) instead of comparing it.
#: Values are compared by :func:`drift`; members report does not write show as drift.
SUMMARY_SHAPE: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["version"],
    "properties": {
        "benchmark": _OBJECT, "engine_display_names": _OBJECT, "aggregates": _OBJECT,
        "breakdowns": _OBJECT, "per_doc": {"type": "array", "items": _OBJECT},
        "version": {"enum": list(scorer.SCORING_VERSIONS)},
        "signature": {"type": "string"}, "tool": {"type": "string"},
        "bootstrap": _OBJECT, "intervals": _OBJECT, "coverage": _OBJECT,
        "fields": _OBJECT, "fields_truncated": _OBJECT,
        "sha256": _DIGESTS, "results_sha256": _DIGESTS, "scorer_sha256": {"type": "string"},
        "power": _OBJECT, "suspects": {"type": ["object", "null"]}, "error_shares": _OBJECT,
        "schema_validity": _OBJECT, "costs": _OBJECT,
    },
}


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return {str: "a string", list: "an array", dict: "an object"}.get(type(value), "a value")


def summary_problem(committed: Any) -> tuple[str, str]:
    """Why ``committed`` (a parsed summary.json) is not of the shape ``report`` writes
    (:data:`SUMMARY_SHAPE`): ``(pointer, reason)``, the RFC 6901 pointer of the first
    member of another type and what it is instead; ``("", "")`` when every member has
    its type. Never raises."""
    import jsonschema  # loaded by `verify` alone: every other command starts without it
    checker = jsonschema.Draft202012Validator(SUMMARY_SHAPE)
    error = jsonschema.exceptions.best_match(checker.iter_errors(committed))
    if error is None:
        return "", ""
    pointer = "".join("/" + str(p).replace("~", "~0").replace("/", "~1")
                      for p in error.absolute_path)
    if pointer in ("", "/version"):
        return "", "not a leafscore summary (no known 'version')"
    wanted = error.schema.get("type", "object")
    wanted = " or ".join(wanted) if isinstance(wanted, list) else wanted
    article = "an" if wanted[0] in "aeiou" else "a"
    return _shown(pointer), (f"{_json_kind(error.instance)} where `report` writes "
                             f"{article} {wanted}")


def read_committed_summary(path: str | os.PathLike[str], source: str) -> dict[str, Any]:
    """A committed summary.json, read for ``verify``: the reader's rules
    (``scorer.read_json_file``: size, depth, encoding, numbers), then nothing ``report``
    never writes: no duplicate key, no byte-order mark or UTF-16/32, no unpaired
    surrogate escape (anything the reader would warn about), and every member of the type
    report writes (:func:`summary_problem`).

    Parameters
    ----------
    path : path-like
        The file.
    source : str
        How to name it in errors (``results/summary.json``).

    Returns
    -------
    dict
        The summary, as parsed.

    Raises
    ------
    scorer.InputError
        Naming ``source`` (and the member, for a wrong type) on one line, when the file is
        missing, unreadable, not JSON, or not a summary report writes.
    """
    data = scorer.read_file_bytes(path, source=source)
    parsed = scorer.parse_json(data, source)
    if parsed.warnings:
        key = _duplicate_key(data, source)
        if key is not None:
            raise scorer.InputError(source, "", f"duplicate key {_shown(repr(key))} in an "
                                                "object; `report` writes none: refused")
        said = parsed.warnings[0].removeprefix(f"{source}: ")
        raise scorer.InputError(source, "", f"read with a warning ({said}); `report` writes "
                                            "no such file: refused")
    pointer, problem = summary_problem(parsed.value)
    if problem:
        raise scorer.InputError(source, pointer, problem + ("; refused" if pointer else ""))
    return parsed.value


class _Duplicate(Exception):
    pass


def _duplicate_key(data: bytes, source: str) -> str | None:
    """The first key found twice in one object of ``data`` (which ``scorer.parse_json``
    has read), or ``None``."""

    def members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Duplicate(key)
            seen.add(key)
        return dict(pairs)

    text = scorer.decode_bytes(data, source, []).removeprefix("\ufeff")
    try:
        json.loads(text, object_pairs_hook=members)
    except _Duplicate as found:
        return str(found.args[0])
    except ValueError:  # read by scorer.parse_json already; defensive
        return None
    return None


def _shown(place: str) -> str:
    """``place`` cut to :data:`MAX_SHOWN_PLACE` characters (an ellipsis marks a cut)."""
    return place if len(place) <= MAX_SHOWN_PLACE else place[:MAX_SHOWN_PLACE - 1] + "…"


def _changed(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    out = []
    for path in sorted(old.keys() | new.keys()):
        if path not in new:
            out.append(f"{_shown(path)} removed")
        elif path not in old:
            out.append(f"{_shown(path)} added")
        elif old[path] != new[path]:
            out.append(f"{_shown(path)} edited")
    return out


def _same_number(old: int | float, new: int | float) -> bool:
    """Equal within ``VERIFY_TOLERANCE``; an integer too large for a float is equal to
    nothing but itself."""
    if isinstance(old, int) and isinstance(new, int):
        return old == new
    try:
        return math.isclose(old, new, rel_tol=0, abs_tol=VERIFY_TOLERANCE)
    except OverflowError:  # a 400-digit integer against a float
        return False


def _differences(old: Any, new: Any, path: str = "") -> list[str]:
    """Paths where two JSON values differ; numbers equal within ``VERIFY_TOLERANCE``.
    Recursion follows ``new`` (a summary of bounded depth), so any ``old`` is safe."""
    if isinstance(old, dict) and isinstance(new, dict):
        out = []
        for key in list(old) + [k for k in new if k not in old]:
            if key not in new or key not in old:
                out.append(f"{path}/{key}")
            else:
                out += _differences(old[key], new[key], f"{path}/{key}")
        return out
    if isinstance(old, list) and isinstance(new, list):
        if len(old) != len(new):
            return [path or "/"]
        return [d for i, (a, b) in enumerate(zip(old, new, strict=True))
                for d in _differences(a, b, f"{path}/{i}")]
    numbers = (int, float)
    if (isinstance(old, numbers) and isinstance(new, numbers)
            and not isinstance(old, bool) and not isinstance(new, bool)):
        return [] if _same_number(old, new) else [path]
    if isinstance(old, bool) != isinstance(new, bool):  # True == 1 in Python, not in JSON
        return [path or "/"]
    return [] if old == new else [path or "/"]


def _under(digests: Mapping[str, Any], folder: str) -> dict[str, Any]:
    return {p: h for p, h in digests.items() if p.startswith(f"{folder}/")}


def _places(places: list[str]) -> str:
    shown = ", ".join(_shown(p) for p in places[:8])
    return shown + (f" (+{len(places) - 8} more)" if len(places) > 8 else "")


def drift(committed: Any, fresh: Mapping[str, Any]) -> list[str]:
    """Reasons the fresh summary differs from the committed one; empty when it reproduces.

    Says which inputs changed (labels, schemas, results, scorer, scoring version) and
    lists the first differing places when the numbers moved. ``committed`` may be any
    JSON value: one that is not of the shape report writes (:func:`summary_problem`)
    gives that as its reason. Never raises; each reason is one line.
    """
    pointer, problem = summary_problem(committed)
    if problem:
        return [f"not as `report` writes it: {pointer + ': ' if pointer else ''}{problem}"]
    reasons = []
    old_inputs, new_inputs = committed.get("sha256", {}), fresh.get("sha256", {})
    for kind in ("labels", "schemas"):
        changes = _changed(_under(old_inputs, kind), _under(new_inputs, kind))
        if changes:
            reasons.append(f"{kind} changed: " + ", ".join(changes[:10]))
    changes = _changed(committed.get("results_sha256", {}), fresh.get("results_sha256", {}))
    if changes:
        reasons.append("results changed: " + ", ".join(changes[:10]))
    if committed.get("scorer_sha256") != fresh.get("scorer_sha256"):
        reasons.append("the scorer changed (scorer.py differs from the one that wrote it)")
    if committed.get("version") != fresh.get("version"):
        reasons.append(f"scoring version changed: {committed.get('version')} -> "
                       f"{fresh.get('version')}")
    places = _differences(dict(committed), dict(fresh))
    if places and not reasons:
        reasons.append("the numbers differ although no input changed")
    if places:
        reasons.append(f"differs at {_places(places)}")
    return reasons


# ------------------------------------------------------------------------------------
# verify: the other files report writes
# ------------------------------------------------------------------------------------

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def _same_cell(old: str, new: str) -> bool:
    """Equal text, or two decimal numbers equal within ``VERIFY_TOLERANCE``."""
    if old == new:
        return True
    if not (_NUMBER.fullmatch(old) and _NUMBER.fullmatch(new)):
        return False
    return _same_number(float(old), float(new))  # a huge literal reads as inf: not equal


def read_csv_rows(data: bytes, source: str) -> list[list[str]]:
    """The rows of a committed CSV file's bytes (``summary.csv``), each a list of cells.

    Raises ``scorer.InputError`` naming ``source`` and the place when ``data`` is not
    UTF-8 or not CSV (an unterminated quote, a cell over the csv module's limit of
    131,072 characters).
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise scorer.InputError(source, f"byte {exc.start}", "invalid UTF-8") from None
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        return list(reader)
    except csv.Error as exc:
        raise scorer.InputError(source, f"line {reader.line_num}", f"not CSV: {exc}") from None


def csv_drift(committed: list[list[str]], fresh: str) -> list[str]:
    """Reasons the rows of a committed summary.csv (:func:`read_csv_rows`) differ by
    content from the one the run writes (``fresh``: :func:`summary_csv`): the same rows
    of the same cells, numbers equal within ``VERIFY_TOLERANCE``, text exactly (a formula
    mark ``'`` included). Empty when it reproduces; never raises."""
    new = list(csv.reader(io.StringIO(fresh, newline="")))
    if len(committed) != len(new):
        return [f"holds {len(committed)} rows where `report` writes {len(new)}"]
    header = new[0] if new else []
    places = []
    for i, (was, now) in enumerate(zip(committed, new, strict=True), start=1):
        if len(was) != len(now):
            places.append(f"row {i} ({len(was)} cells, not {len(now)})")
            continue
        places += [f"row {i} column {j}" + (f" ({_shown(header[j - 1])})" if i > 1 else "")
                   for j, (a, b) in enumerate(zip(was, now, strict=True), start=1)
                   if not _same_cell(a, b)]
    return [f"differs at {_places(places)}"] if places else []


def open_committed(path: str | os.PathLike[str], source: str) -> BinaryIO:
    """A committed file opened for reading (binary), after checking it is a regular file
    (a FIFO is opened without waiting, then refused). Raises ``scorer.InputError`` naming
    ``source``: no such file, not a regular file, or unreadable."""
    try:
        fd = os.open(os.fspath(path), os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise scorer.InputError(source, "", "no such file") from None
    except OSError as exc:
        raise scorer.InputError(source, "", f"cannot read: {exc.strerror or exc}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise scorer.InputError(source, "", "is not a regular file")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def bytes_drift(committed: BinaryIO, fresh: BinaryIO) -> list[str]:
    """Reasons a committed file differs from the bytes the run writes (both streams read
    :data:`COMPARE_CHUNK` bytes at a time, so neither is held whole): the first byte that
    differs, or the sizes. Empty when they are the same bytes. Raises ``OSError`` when a
    stream cannot be read."""
    offset = 0
    while True:
        old, new = committed.read(COMPARE_CHUNK), fresh.read(COMPARE_CHUNK)
        while len(old) < len(new):  # a short read of a file that is not at its end
            more = committed.read(len(new) - len(old))
            if not more:
                break
            old += more
        if old != new:
            at = next((i for i, (a, b) in enumerate(zip(old, new, strict=False))
                       if a != b),
                      min(len(old), len(new)))
            if at == min(len(old), len(new)) and len(old) != len(new):
                longer = "more" if len(old) > len(new) else "fewer"
                return [f"holds {longer} bytes than `report` writes (the first "
                        f"{offset + at:,} agree)"]
            return [f"differs from what `report` writes at byte {offset + at:,}"]
        if not new:
            return []
        offset += len(new)


# ------------------------------------------------------------------------------------
# README block
# ------------------------------------------------------------------------------------

_BLOCK = re.compile(re.escape(README_START) + r".*?" + re.escape(README_END), re.DOTALL)


def replace_block(text: str, block: str, *, source: str = "README.md") -> str:
    """``text`` with the part between the start and end markers replaced by ``block``.

    The markers stay; ``block`` is placed between them on its own lines. Raises
    ``ValueError`` naming ``source`` when the markers are absent, repeated, or out of
    order.
    """
    if text.count(README_START) != 1 or text.count(README_END) != 1:
        raise ValueError(f"{source}: needs exactly one {README_START} and one {README_END}")
    if text.index(README_START) > text.index(README_END):
        raise ValueError(f"{source}: {README_END} comes before {README_START}")
    body = f"{README_START}\n{block.strip()}\n{README_END}"
    return _BLOCK.sub(lambda _m: body, text, count=1)
