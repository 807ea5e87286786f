"""Output of a run: ``results/summary.json``/``.csv``, the README block, and ``verify``
(rebuild the summary, compare with the committed one).

``summary.json`` keeps the keys of DocuBench's summary (``benchmark``,
``engine_display_names``, ``aggregates``, ``breakdowns``, ``per_doc``) and adds
``version``, ``signature``, ``sha256`` (every schema and label), ``results_sha256``,
``scorer_sha256``, ``intervals``, ``coverage`` and ``fields`` (per-field counts, version
2.0), then ``power``, ``suspects`` (2.0; ``null`` under 1.0), ``error_shares`` and
``schema_validity``. It holds no timestamp, so the same inputs give the same bytes.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

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
) -> dict[str, Any]:
    """The summary of a run as a JSON-able dict (key order fixed).

    ``results_sha256`` maps ``results/<system>/<id>.json`` -> sha256 hex of each result
    file present; ``resamples``/``seed`` set the bootstrap of ``intervals`` and of the
    power check; ``validity`` is ``validity.schema_validity`` of the run's benchmark.
    """
    board = leaderboard_mod.leaderboard(run, resamples=resamples, seed=seed)
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


def _changed(old: Mapping[str, str], new: Mapping[str, str]) -> list[str]:
    out = []
    for path in sorted(old.keys() | new.keys()):
        if path not in new:
            out.append(f"{path} removed")
        elif path not in old:
            out.append(f"{path} added")
        elif old[path] != new[path]:
            out.append(f"{path} edited")
    return out


def _differences(old: Any, new: Any, path: str = "") -> list[str]:
    """Paths where two JSON values differ; floats equal within ``VERIFY_TOLERANCE``."""
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
        return [] if math.isclose(old, new, rel_tol=0, abs_tol=VERIFY_TOLERANCE) else [path]
    return [] if old == new else [path or "/"]


def _under(digests: Mapping[str, str], folder: str) -> dict[str, str]:
    return {p: h for p, h in digests.items() if p.startswith(f"{folder}/")}


def drift(committed: Mapping[str, Any], fresh: Mapping[str, Any]) -> list[str]:
    """Reasons the fresh summary differs from the committed one; empty when it reproduces.

    Says which inputs changed (labels, schemas, results, scorer, scoring version) and
    lists the first differing places when the numbers moved.
    """
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
        shown = ", ".join(places[:8]) + (f" (+{len(places) - 8} more)" if len(places) > 8 else "")
        reasons.append(f"differs at {shown}")
    return reasons


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
