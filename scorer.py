"""leafscore scorer: the whole metric in one file.

A system reads a document and returns JSON for a JSON Schema; this file scores that
JSON (the *result*, or prediction) against a hand-verified *label*, leaf by leaf.

Scoring versions (a change in any score is a new version; old versions stay frozen):

* **2.0** (default) -- leafscore's own metric, ``shared/spec/scoring-2.0.md``: typed
  canonical values, optimal order-free array matching, one verdict per leaf.
* **1.0** -- DocuBench 0.1.0 exactly, ``shared/spec/scoring-1.0.md``, faults included:
  greedy pairing, ``\\W``-stripped text, arrays keyed by their top-level member.

The model, in five bullets:

* the schema picks the scored leaves (field paths such as ``lines[].qty``);
* each leaf value is reduced to one canonical value per type (text, number, date, ...);
* array items are paired order-independently before their leaves are compared;
* every scored leaf gets one verdict (correct, wrong_value, missing, ...);
* the document score is the share of correct verdicts; systems are macro averages.

Usage::

    >>> import scorer
    >>> scorer.score({"total": "1,240.00"}, {"type": "object",
    ...     "properties": {"total": {"type": "number"}}}, {"total": 1240}).value
    1.0
    $ python scorer.py                          # score the benchmark in the current folder
    $ python scorer.py RESULT SCHEMA LABEL      # one document, as JSON

The file reads top to bottom: vocabulary and types; canonical values; schema walk; one
leaf; arrays; document (version 2.0); version 1.0, frozen; entry point; folder + CLI.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

# =====================================================================================
# 2. Vocabulary and types
# =====================================================================================

#: The scoring versions this file implements, oldest first.
SCORING_VERSIONS: tuple[str, ...] = ("1.0", "2.0")
#: The version ``score()`` uses when none is given.
DEFAULT_VERSION = "2.0"


class ScoringError(ValueError):
    """A schema or label the metric cannot score. Never raised for a bad result.

    ``file`` names the input (may be ``""`` when scoring in memory), ``pointer`` is an
    RFC 6901 JSON pointer into the schema (``/properties/rows/anyOf/0``) and ``reason``
    says what is wrong. Every field is in ``.args`` so the error pickles across worker
    processes.
    """

    def __init__(self, file: str, pointer: str, reason: str) -> None:
        super().__init__(file, pointer, reason)
        self.file, self.pointer, self.reason = file, pointer, reason

    def __str__(self) -> str:
        return f"{self.file}#{self.pointer}: {self.reason}"


# =====================================================================================
# 3-7. Version 2.0: canonical values, schema walk, one leaf, arrays, document
# =====================================================================================
# <<v2.0 sections: owned by the version-2.0 work>>


# =====================================================================================
# 8. Version 1.0: DocuBench 0.1.0, frozen
# =====================================================================================
# Every rule below is spec 1.0 (shared/spec/scoring-1.0.md), odd ones included; the
# section numbers in comments are that page's. Nothing here is shared with version 2.0,
# so a fix to 2.0 can never move a 1.0 number.

_V1_SPACE = re.compile(r"\s+")
# Standard `re`, not `regex`: DocuBench's \W is the stdlib's (spec 1.0 §1.3).
_V1_NONWORD = re.compile(r"\W")


@dataclass(frozen=True)
class DocScoreV1:
    """A version-1.0 document score, shaped as spec 1.0 §5.

    ``value`` is ``final``, a float in [0, 1]. ``arrays`` maps each array name (its
    top-level member) to ``(score, total)`` with ``total`` the float weight of spec §3;
    ``non_array`` is ``(score, counted)`` or None when the schema has no non-array part.
    """

    value: float
    arrays: dict[str, tuple[float, float]] | None = None
    non_array: tuple[float, int] | None = None
    version: str = "1.0"

    def to_dict(self) -> dict[str, Any]:
        """The reference's output: ``{"arrays"?, "non_array"?, "final"}``."""
        out: dict[str, Any] = {}
        if self.arrays is not None:
            out["arrays"] = {k: {"score": s, "total": t} for k, (s, t) in self.arrays.items()}
        if self.non_array is not None:
            out["non_array"] = {"score": self.non_array[0], "total": self.non_array[1]}
        out["final"] = self.value
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> DocScoreV1:
        """Inverse of :meth:`to_dict` (for caches)."""
        arrays = d.get("arrays")
        non = d.get("non_array")
        return cls(
            value=d["final"],
            arrays=None if arrays is None
            else {k: (v["score"], v["total"]) for k, v in arrays.items()},
            non_array=None if non is None else (non["score"], non["total"]),
        )


# -- 1. pre-processing ------------------------------------------------------------------

def _v1_is_empty(value: Any) -> bool:
    # Spec 1.0 §1: empty is null, "", [] or {} -- never 0 or false.
    return value is None or (isinstance(value, (str, list, dict)) and len(value) == 0)


def _v1_strip(value: Any) -> Any:
    """§1.1: drop object members whose stripped value is "", [] or {}; arrays keep all."""
    if isinstance(value, dict):
        out = {}
        for key, member in value.items():
            member = _v1_strip(member)
            if not (isinstance(member, (str, list, dict)) and len(member) == 0):
                out[key] = member
        return out
    if isinstance(value, list):
        return [_v1_strip(element) for element in value]
    return value


def _v1_normalize(value: Any, where: str) -> Any:
    """§1.2-1.3: numbers to round(float, 6); strings squeezed, lower-cased, \\W deleted."""
    if isinstance(value, dict):
        return {key: _v1_normalize(member, where) for key, member in value.items()}
    if isinstance(value, list):
        return [_v1_normalize(element, where) for element in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        try:
            return round(float(value), 6)
        except OverflowError:
            raise ScoringError(where, "", f"number {str(value)[:20]}... is too large "
                               "for a float; version 2.0 reads it exactly") from None
    if isinstance(value, str):
        return _V1_NONWORD.sub("", _V1_SPACE.sub("", value).lower())
    return value


def _v1_preprocess(value: Any, where: str) -> Any:
    return _v1_normalize(_v1_strip(value), where)


# -- 2. array fields of the schema -------------------------------------------------------

def _v1_is_array_schema(node: Any) -> bool:
    if not isinstance(node, dict):
        return False
    kind = node.get("type")
    return kind == "array" or (isinstance(kind, list) and "array" in kind)


def _v1_pointer(tokens: list[Any]) -> str:
    return "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in tokens)


def _v1_array_fields(schema: Any, file: str) -> dict[str, tuple[str, ...]]:
    """§2: array name -> data path, in order of first discovery; the later one wins.

    Raises ScoringError (§7) at the first array field that is not under a chain of
    ``properties``, even when other array fields are scorable.
    """
    fields: dict[str, tuple[str, ...]] = {}
    # Depth-first, document order; an explicit stack keeps deep schemas off the C stack.
    stack: list[tuple[Any, list[Any]]] = [(schema, [])]
    while stack:
        node, tokens = stack.pop()
        if isinstance(node, dict):
            if _v1_is_array_schema(node):
                keys = [t for t in tokens if isinstance(t, str)]
                scorable = (len(keys) >= 2 and len(keys) % 2 == 0
                            and all(k == "properties" for k in keys[0::2])
                            and len(keys) == len(tokens))
                if not scorable:
                    raise ScoringError(file, _v1_pointer(tokens), (
                        "version 1.0 has no answer for an array field here (DocuBench "
                        "only scores arrays under a chain of 'properties'); "
                        "version 2.0 scores it"))
                data_path = tuple(keys[1::2])
                fields[data_path[0]] = data_path
                continue
            children = [(v, [*tokens, k]) for k, v in node.items()]
        elif isinstance(node, list):
            children = [(v, [*tokens, i]) for i, v in enumerate(node)]
        else:
            continue
        stack.extend(reversed(children))
    return fields


def _v1_items(value: Any, data_path: tuple[str, ...]) -> list[Any]:
    for key in data_path:
        if not isinstance(value, dict) or key not in value:
            return []
        value = value[key]
    return value if isinstance(value, list) else []


# -- 3. scoring one array field ----------------------------------------------------------

def _v1_flatten(item: Any) -> dict[str, Any]:
    """§3: an object item -> {dotted key: leaf}; arrays as sorted-key JSON text."""
    if not isinstance(item, dict):
        return {"_val": item}
    leaves: dict[str, Any] = {}

    def walk(obj: dict[str, Any], prefix: str) -> None:
        for key, member in obj.items():
            name = prefix + key
            if isinstance(member, dict):
                walk(member, name + ".")
            elif isinstance(member, list):
                leaves[name] = json.dumps(member, sort_keys=True)
            else:
                leaves[name] = member  # a colliding key: the later one wins

    walk(item, "")
    return leaves


class _V1Unequal:
    """A hashable stand-in for NaN: equal to nothing, itself included (spec §7)."""

    __slots__ = ()


def _v1_hashable(value: Any) -> Any:
    # Maps a leaf to a hashable key with the same == as Python's on the original:
    # hash(1) == hash(1.0) == hash(True), and lists/dicts compare element-wise.
    if isinstance(value, float) and math.isnan(value):
        return _V1Unequal()
    if isinstance(value, list):
        return ("list", tuple(_v1_hashable(v) for v in value))
    if isinstance(value, dict):
        return ("dict", frozenset((k, _v1_hashable(v)) for k, v in value.items()))
    return value


def _v1_array_score(label_items: list[Any], result_items: list[Any]) -> tuple[float, float]:
    """§3: (score, weight) of one array field, with DocuBench's greedy pairing.

    The reference sorts all n_label x n_result pairs; this computes the same walk without
    materialising them: only pairs with a positive similarity can change the running sum,
    so they are found through shared leaf values, grouped by similarity (highest first)
    and, inside a group, taken in (label, result) index order -- the reference's stable
    order. Additions happen in the reference's order, so the sum is bit-identical.
    """
    n_label, n_result = len(label_items), len(result_items)
    if n_label == 0 and n_result == 0:
        return 1.0, 0.0
    label_leaves = [_v1_flatten(item) for item in label_items]
    result_leaves = [_v1_flatten(item) for item in result_items]
    counts = [sum(1 for v in leaves.values() if not _v1_is_empty(v)) for leaves in label_leaves]
    f = sum(max(1, c) for c in counts) / n_label if n_label else 1.0
    weight = max(n_label, n_result) * f
    if n_label == 0 or n_result == 0:
        return 0.0, weight

    total = _v1_greedy_sum(label_leaves, result_leaves)
    return total / max(n_label, n_result), weight


def _v1_greedy_sum(label_leaves: list[dict[str, Any]],
                   result_leaves: list[dict[str, Any]]) -> float:
    n_label, n_result = len(label_leaves), len(result_leaves)
    keys = sorted({k for leaves in (*label_leaves, *result_leaves) for k in leaves})
    # codes[:, k]: equal non-empty values share a code; empty is -1 (label) / -2 (result),
    # so empty never equals anything; every NaN gets a code of its own.
    values: dict[Any, int] = {}

    def encode(leaves_list: list[dict[str, Any]], empty: int) -> np.ndarray:
        out = np.full((len(leaves_list), len(keys)), empty, dtype=np.int64)
        for row, leaves in enumerate(leaves_list):
            for k, key in enumerate(keys):
                value = leaves.get(key)
                if not _v1_is_empty(value):
                    out[row, k] = values.setdefault((key, _v1_hashable(value)), len(values))
        return out

    label_codes, result_codes = encode(label_leaves, -1), encode(result_leaves, -2)
    label_ne, result_ne = label_codes >= 0, result_codes >= 0
    a, b = label_ne.sum(axis=1), result_ne.sum(axis=1)
    # Every similarity is equal/kept with 0 <= equal <= kept <= len(keys): rank the
    # distinct values once (highest first), then store a rank per pair, not a float.
    n_keys = len(keys)
    fractions = {}
    for kept in range(n_keys + 1):
        for equal in range(kept + 1):
            fractions[(equal, kept)] = equal / kept if kept else 1.0
    distinct = sorted(set(fractions.values()), reverse=True)
    rank_of = {value: r for r, value in enumerate(distinct)}
    lut = np.zeros((n_keys + 1, n_keys + 1), dtype=np.int64)
    for (equal, kept), value in fractions.items():
        lut[equal, kept] = rank_of[value]
    rank_dtype = np.uint8 if len(distinct) < 256 else np.uint16
    ranks = np.empty((n_label, n_result), dtype=rank_dtype)
    label_ne_f, result_ne_f = label_ne.astype(np.float32), result_ne.astype(np.float32).T
    chunk = max(1, 4_000_000 // max(1, n_result))
    for lo in range(0, n_label, chunk):
        hi = min(n_label, lo + chunk)
        equal = np.zeros((hi - lo, n_result), dtype=np.int64 if n_keys > 255 else np.uint8)
        for k in range(n_keys):
            equal += label_codes[lo:hi, k, None] == result_codes[None, :, k]
        both = (label_ne_f[lo:hi] @ result_ne_f).astype(np.int64)
        kept = a[lo:hi, None] + b[None, :] - both
        ranks[lo:hi] = lut[equal, kept]

    # DocuBench walks all pairs sorted by similarity (stable: label index, then result
    # index) and takes a pair when both items are free. Walk the same order group by
    # group; only free rows and columns can take anything, and 0.0 adds nothing.
    row_free = np.ones(n_label, dtype=bool)
    col_free = np.ones(n_result, dtype=bool)
    total = 0.0
    for rank, value in enumerate(distinct):
        if value == 0.0:
            break
        rows, cols = np.flatnonzero(row_free), np.flatnonzero(col_free)
        if not len(rows) or not len(cols):
            break
        hits = ranks[np.ix_(rows, cols)] == rank
        for r in np.flatnonzero(hits.any(axis=1)).tolist():
            candidates = cols[hits[r]]
            candidates = candidates[col_free[candidates]]
            if len(candidates):
                col_free[candidates[0]] = False
                row_free[rows[r]] = False
                total += value  # one addition per pair, in the reference's order
    return total


# -- 4. non-array fields ------------------------------------------------------------------

_V1_GONE = object()


def _v1_prune(node: Any) -> Any:
    """§4: the schema without array subschemas, empty members and propertyless objects."""
    if isinstance(node, dict):
        if _v1_is_array_schema(node):
            return _V1_GONE
        out = {}
        for key, member in node.items():
            member = _v1_prune(member)
            if member is _V1_GONE or (isinstance(member, (list, dict)) and not member):
                continue
            out[key] = member
        kind = out.get("type")
        is_object = kind == "object" or (isinstance(kind, list) and "object" in kind)
        if is_object and not out.get("properties"):
            return _V1_GONE
        return out
    if isinstance(node, list):
        out_list = []
        for element in node:
            element = _v1_prune(element)
            if element is _V1_GONE or (isinstance(element, (list, dict)) and not element):
                continue
            out_list.append(element)
        return out_list
    return node


def _v1_non_array(pruned: dict[str, Any], result: Any, label: Any) -> tuple[float, int]:
    correct = counted = 0
    stack = [(pruned, result, label)]
    while stack:
        node, res, lab = stack.pop()
        props = node.get("properties") if isinstance(node, dict) else None
        if isinstance(node, dict) and node.get("type") == "object" and props:
            children = []
            for key, child in props.items():
                r = res.get(key) if isinstance(res, dict) else None
                g = lab.get(key) if isinstance(lab, dict) else None
                children.append((child, r, g))
            stack.extend(reversed(children))
            continue
        if _v1_is_empty(res) and _v1_is_empty(lab):
            continue
        counted += 1
        if res == lab:
            correct += 1
    return (correct / counted if counted else 1.0), counted


# -- 5. document score -------------------------------------------------------------------

def score_v1(result: Any, schema: Any, label: Any, *, file: str = "") -> DocScoreV1:
    """Score one document with version 1.0 (DocuBench 0.1.0), exactly.

    Parameters
    ----------
    result, label : any JSON value
        The system's output (an envelope's ``data``) and the hand-verified label.
    schema : JSON object
        The document's JSON Schema.
    file : str
        Names the schema in errors.

    Returns
    -------
    DocScoreV1
        ``value`` (``final``) in [0, 1], and the sub-scores of spec 1.0 §5.

    Raises
    ------
    ScoringError
        Where the reference has no answer (spec 1.0 §7): no scorable field, an array
        field outside a chain of ``properties``, a label number too large for a float.
    """
    arrays = _v1_array_fields(schema, file)
    pruned = _v1_prune(schema)
    has_non_array = isinstance(pruned, dict) and bool(pruned.get("properties"))
    if not arrays and not has_non_array:
        raise ScoringError(file, "", "version 1.0 has no answer for a schema with no "
                           "scorable field (DocuBench raises); version 2.0 scores it")
    label = _v1_preprocess(label, "label")
    try:
        result = _v1_preprocess(result, "result")
    except (ScoringError, RecursionError):
        # The reference crashes here; a prediction is never an error, so an unreadable
        # result counts as no result, as a non-object envelope does (spec 1.0 §6).
        result = {}

    array_scores: dict[str, tuple[float, float]] = {}
    for name, data_path in arrays.items():
        array_scores[name] = _v1_array_score(_v1_items(label, data_path),
                                             _v1_items(result, data_path))
    non_array = _v1_non_array(pruned, result, label) if has_non_array else None

    if not arrays:
        return DocScoreV1(value=non_array[0], non_array=non_array)
    weighted = total = 0.0
    for s, w in array_scores.values():
        total += w
        weighted += s * w
    if non_array is not None:
        total += non_array[1]
        weighted += non_array[0] * non_array[1]
    final = weighted / total if total else 1.0
    return DocScoreV1(value=final, arrays=array_scores, non_array=non_array)


# =====================================================================================
# 9. Entry point
# =====================================================================================
# <<entry section: owned by the version-2.0 work>>


# =====================================================================================
# 10. Folder + CLI
# =====================================================================================
# `python scorer.py` is the minimal runner: one document, or a benchmark folder laid out
# as schemas/<id>.json, labels/<id>.json, results/<system>/<id>.json. The `leafscore`
# command (the package) adds validation, caching, workers, intervals and reports.

_USAGE = """python scorer.py [ROOT] [--version V] [--format table|json|md]
       python scorer.py RESULT.json SCHEMA.json LABEL.json [--version V] [--details]"""


class InputFileError(Exception):
    """A label, schema or folder that cannot be read: one line, exit code 2."""


def _read_json(path: Path, what: str) -> Any:
    """Read a label or schema file; InputFileError naming the file and place otherwise."""
    if path.is_symlink() and not path.resolve().is_relative_to(path.parent.resolve().parent):
        raise InputFileError(f"{path}: {what} is a symlink leading outside the benchmark")
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputFileError(f"{path}: {what} file is missing") from None
    except OSError as exc:
        raise InputFileError(f"{path}: cannot read {what}: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputFileError(f"{path}: byte {exc.start}: {what} is not UTF-8") from None

    def refuse_constant(token: str) -> Any:
        raise ValueError(f"{token} is not JSON")

    try:
        return json.loads(text, parse_constant=refuse_constant)
    except json.JSONDecodeError as exc:
        raise InputFileError(
            f"{path}: line {exc.lineno} column {exc.colno}: {what} is not valid JSON: {exc.msg}"
        ) from None
    except (ValueError, RecursionError) as exc:
        reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        raise InputFileError(f"{path}: {what} is not usable JSON: {reason}") from None


def _read_result(path: Path, root: Path) -> tuple[str, Any]:
    """A result envelope -> ("ok", data) | ("missing", None) | ("parse_failure", reason).

    An envelope is a JSON object whose ``data`` member holds the result; ``status``
    ``"failed"`` marks a run that produced nothing. Version 1.0 reads any object's
    ``data`` (``{}`` when absent or unreadable, as DocuBench does); see ``_result_value``.
    """
    if not path.exists() and not path.is_symlink():
        return "missing", None
    if not path.resolve().is_relative_to(root.resolve()):
        return "parse_failure", "symlink leading outside the benchmark (refused)"
    try:
        envelope = json.loads(path.read_bytes().decode("utf-8-sig"))
    except (OSError, ValueError, RecursionError) as exc:
        return "parse_failure", f"unreadable JSON ({type(exc).__name__})"
    return "ok", envelope


def _result_value(state: str, envelope: Any, version: str) -> tuple[str, Any]:
    """Apply each version's envelope rules: ("scored" | "parse_failure", data)."""
    if version == "1.0":  # spec 1.0 §6: an object gives its data member, anything else {}
        if state == "ok" and isinstance(envelope, dict):
            return "scored", envelope.get("data", {})
        return "scored", {}
    if state != "ok" or not isinstance(envelope, dict):
        return "parse_failure", None
    if envelope.get("status") == "failed":
        return "parse_failure", None
    data = envelope.get("data")
    if not isinstance(data, (dict, list)):
        return "parse_failure", None
    return "scored", data


def score_folder(root: Path, version: str) -> dict[str, Any]:
    """Score every document of every system in a benchmark folder.

    Returns ``{"version": V, "systems": {system: {"score": float | None, "documents":
    {id: float | None}}}}``: documents are the label ids in sorted order; a system's
    score is ``statistics.mean`` of its document scores (bit-identical with DocuBench's
    published aggregates). Under 1.0 a missing result file is left out of the mean
    (``None``); under 2.0 it is scored as an empty result and an unusable one as a
    parse failure (spec 2.0 §6).

    Raises InputFileError for a missing folder, label or schema, and ScoringError where
    the version has no answer for a schema.
    """
    labels_dir, schemas_dir, results_dir = root / "labels", root / "schemas", root / "results"
    if not labels_dir.is_dir():
        raise InputFileError(f"{root}: no labels/ folder here (expected schemas/, labels/ "
                             "and results/<system>/)")
    ids = sorted(p.name[:-5] for p in labels_dir.iterdir() if p.name.endswith(".json"))
    systems = sorted(p.name for p in results_dir.iterdir() if p.is_dir()) \
        if results_dir.is_dir() else []
    out: dict[str, Any] = {"version": version, "systems": {}}
    docs = []
    for doc_id in ids:
        schema_path = schemas_dir / f"{doc_id}.json"
        docs.append((doc_id, schema_path, _read_json(schema_path, "schema"),
                     _read_json(labels_dir / f"{doc_id}.json", "label")))
    for system in systems:
        values: dict[str, float | None] = {}
        for doc_id, schema_path, schema, label in docs:
            state, envelope = _read_result(results_dir / system / f"{doc_id}.json", root)
            if state == "missing" and version == "1.0":
                values[doc_id] = None
                continue
            kind, data = _result_value(state, envelope, version)
            if state == "missing":
                kind, data = "scored", {}
            if kind == "parse_failure":
                doc = score_parse_failure(schema, label, version=version, file=str(schema_path))
            else:
                doc = score(data, schema, label, version=version, file=str(schema_path))
            values[doc_id] = doc.value
        scored = [v for v in values.values() if v is not None]
        out["systems"][system] = {"score": statistics.mean(scored) if scored else None,
                                  "documents": values}
    return out


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.2f}"


def render_folder(scores: dict[str, Any], fmt: str) -> str:
    """Render ``score_folder`` output as ``json``, ``table`` or ``md`` (a leaderboard)."""
    from tabulate import tabulate

    systems = scores["systems"]
    if fmt == "json":
        return json.dumps(scores, indent=2)
    header = f"leafscore scoring version {scores['version']}"
    if fmt == "md":
        ranked = sorted(systems.items(), key=lambda kv: (kv[1]["score"] is None,
                                                         -(kv[1]["score"] or 0.0), kv[0]))
        rows = [(rank, name, _percent(entry["score"]))
                for rank, (name, entry) in enumerate(ranked, start=1)]
        table = tabulate(rows, headers=["rank", "system", "score (%)"], tablefmt="github",
                         disable_numparse=True)
        return f"{table}\n\n_{header}; score = macro average of document scores._"
    names = list(systems)
    ids = list(next(iter(systems.values()))["documents"]) if systems else []
    rows = [[doc_id, *(_fraction(systems[s]["documents"][doc_id]) for s in names)]
            for doc_id in ids]
    rows.append(["score (macro)", *(_fraction(systems[s]["score"]) for s in names)])
    return f"{header}\n" + tabulate(rows, headers=["document", *names], tablefmt="simple",
                                    disable_numparse=True)


def _fraction(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"


def _score_one(paths: list[str], version: str, details: bool, fmt: str) -> str:
    result_path, schema_path, label_path = (Path(p) for p in paths)
    schema = _read_json(schema_path, "schema")
    label = _read_json(label_path, "label")
    state, envelope = _read_result(result_path, result_path.parent)
    if state == "missing":
        raise InputFileError(f"{result_path}: result file is missing")
    # A file holding an envelope (an object with "data" and "status") is unwrapped;
    # anything else is the result itself.
    if state == "ok" and isinstance(envelope, dict) and "data" in envelope \
            and "status" in envelope:
        state_kind, data = _result_value(state, envelope, version)
    elif state == "ok":
        state_kind, data = "scored", envelope
    else:
        state_kind, data = _result_value(state, envelope, version)
    if state_kind == "parse_failure":
        doc = score_parse_failure(schema, label, version=version, file=str(schema_path))
    else:
        doc = score(data, schema, label, version=version, file=str(schema_path))
    if version == "1.0":
        return json.dumps(doc.to_dict(), indent=2)
    if details and fmt == "table":
        from tabulate import tabulate

        rows = [(v.address, json.dumps(v.label), json.dumps(v.result), v.kind)
                for v in doc.verdicts]
        return (f"leafscore scoring version {doc.version}: accuracy {doc.value:.6f}\n"
                + tabulate(rows, headers=["leaf", "label", "result", "verdict"],
                           disable_numparse=True))
    return json.dumps(doc.to_dict(verdicts=details), indent=2, ensure_ascii=False)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2, no usage dump
        self.exit(2, f"scorer.py: {message}\n")


def main(argv: list[str] | None = None) -> int:
    """Command line of ``python scorer.py``; returns the exit code (0 ok, 2 bad input)."""
    parser = _Parser(prog="scorer.py", usage=_USAGE,
                     description="Score extraction results against labels, leaf by leaf.")
    parser.add_argument("paths", nargs="*", help="ROOT (default .) or RESULT SCHEMA LABEL")
    parser.add_argument("--version", default=DEFAULT_VERSION,
                        help=f"scoring version, one of {', '.join(SCORING_VERSIONS)} "
                             f"(default {DEFAULT_VERSION})")
    parser.add_argument("--format", choices=("table", "json", "md"), default=None)
    parser.add_argument("--details", action="store_true",
                        help="one document: print every leaf's verdict (version 2.0)")
    args = parser.parse_args(argv)
    if args.version not in SCORING_VERSIONS:
        quoted = ", ".join(repr(v) for v in SCORING_VERSIONS)
        parser.error(f"version {args.version!r} is not one of {quoted}")
    try:
        if len(args.paths) == 3:
            print(_score_one(args.paths, args.version, args.details, args.format or "json"))
        elif len(args.paths) <= 1:
            root = Path(args.paths[0] if args.paths else ".")
            if not root.is_dir():
                raise InputFileError(f"{root}: no such benchmark folder")
            print(render_folder(score_folder(root, args.version), args.format or "table"))
        else:
            parser.error("give ROOT, or RESULT SCHEMA LABEL")
    except (InputFileError, ScoringError) as exc:
        print(f"scorer.py: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
