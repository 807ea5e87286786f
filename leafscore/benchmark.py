"""A benchmark folder or JSONL files -> frozen ``Documents`` and raw result bytes.

Folder layout (ROOT)::

    schemas/<id>.json            JSON Schema of document <id>
    labels/<id>.json             hand-verified label; the label files define the documents
    results/<system>/<id>.json   result envelope {"status": "ok", "data": {...}, ...}
    benchmark.toml               optional, see leafscore.config
    metadata.json | sources.json optional, a list of records with "doc_id"

Results are kept as raw bytes and their sha256 until scored (``read_result``), so a
warm cache never parses them. Nothing here writes, and nothing from the folder is
executed or imported.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import scorer
from leafscore import files, jsonio
from leafscore.config import DEFAULT_BREAKDOWNS, DEFAULT_METADATA_FILES, BenchmarkConfig
from leafscore.errors import InputError


def sha256(data: bytes) -> str:
    """Hex sha256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class Document:
    """One labelled document: its id, parsed schema and label, and their sources.

    ``schema_file``/``label_file`` are names for messages (``"schemas/a.json"``, or
    ``"gold.jsonl:3"`` in JSONL mode); ``schema_sha256``/``label_sha256`` are hex digests
    of the bytes read (in JSONL mode, of the canonical JSON of the value).
    """

    id: str
    schema: Any
    label: Any
    schema_file: str
    label_file: str
    schema_sha256: str
    label_sha256: str


@dataclass(frozen=True)
class RawResult:
    """One system's result for one document, unparsed.

    ``data`` is ``None`` when the result file is absent (``"missing"``); ``problem`` is a
    reason the file could not be read at all (a directory, over the size limit), which
    makes the document a parse failure. ``from_line`` marks JSONL input, where the line
    is already the result (not an envelope) and text in a code fence is unwrapped.
    """

    file: str
    data: bytes | None
    problem: str = ""
    from_line: bool = False

    @property
    def sha256(self) -> str:
        """Digest of the bytes (or a marker for a missing or unreadable result)."""
        if self.data is None:
            return f"missing:{self.problem}"
        return sha256(self.data)


@dataclass(frozen=True)
class Benchmark:
    """Documents (sorted by id), systems (sorted) and every (system, id) raw result.

    ``digests`` maps relative path -> sha256 for every schema and label;
    ``metadata`` maps doc_id -> breakdown columns (only the chosen columns).
    """

    root: Path | None
    config: BenchmarkConfig
    documents: tuple[Document, ...]
    systems: tuple[str, ...]
    results: Mapping[tuple[str, str], RawResult]
    metadata: Mapping[str, Mapping[str, Any]] = field(
        default_factory=lambda: MappingProxyType({})
    )
    warnings: tuple[str, ...] = ()

    @property
    def digests(self) -> dict[str, str]:
        """Relative path -> sha256 hex of every schema and label."""
        out: dict[str, str] = {}
        for doc in self.documents:
            out[doc.schema_file] = doc.schema_sha256
            out[doc.label_file] = doc.label_sha256
        return out

    def document(self, doc_id: str) -> Document:
        """The document with id ``doc_id``; raises ``KeyError`` when there is none."""
        for doc in self.documents:
            if doc.id == doc_id:
                return doc
        raise KeyError(doc_id)

    def ids(self) -> tuple[str, ...]:
        """Document ids in order."""
        return tuple(d.id for d in self.documents)


@dataclass(frozen=True)
class ResultRead:
    """A result after reading its envelope.

    ``status``: ``"scored"``, ``"parse_failure"`` or ``"missing"``; ``data`` is the value
    to score (``{}`` for a parse failure or missing result); ``warnings`` name the file.
    """

    status: str
    data: Any
    warnings: tuple[str, ...] = ()


# ------------------------------------------------------------------------------------
# Reading one result
# ------------------------------------------------------------------------------------


def read_result(raw: RawResult, version: str) -> ResultRead:
    """Parse a raw result into the value to score under ``version``; never raises.

    Folder mode (an envelope): the file is read with ``jsonio`` (unreadable JSON becomes
    ``scorer.UNREADABLE``), then ``scorer.result_from_envelope`` applies the version's
    envelope rules, the same ones ``python scorer.py`` uses. JSONL mode: the value is the
    result itself; a string value is decoded as JSON (a markdown code fence around it is
    removed, with a warning).
    """
    if raw.data is None and not raw.problem:
        return ResultRead("missing", {})
    warnings: list[str] = []
    if raw.problem:
        warnings.append(f"{raw.file}: {raw.problem}")
        value: Any = scorer.UNREADABLE
    else:
        try:
            loaded = jsonio.loads_json(raw.data, source=raw.file,
                                       unwrap_fences=raw.from_line)
        except (jsonio.JSONInputError, InputError) as exc:
            warnings.append(f"{exc} (scored as a parse failure)")
            value = scorer.UNREADABLE
        else:
            warnings.extend(loaded.warnings)
            value = loaded.value
            if raw.from_line:
                return _decoded_text(value, raw.file, warnings, strict=True)
    if raw.from_line:
        return ResultRead("parse_failure", {}, tuple(warnings))
    status, data, note = scorer.result_from_envelope(value, version)
    if note and not (value is scorer.UNREADABLE and warnings):  # the reason is said once
        warnings.append(f"{raw.file}: {note}" + (" (parse failure)"
                                                 if status == "parse_failure" else ""))
    return ResultRead(status, {} if data is None else data, tuple(warnings))


def _decoded_text(
    value: Any, file: str, warnings: list[str], *, strict: bool = False
) -> ResultRead:
    """A string holding JSON (possibly fenced) decoded, else the value as it is.

    In JSONL mode (``strict``) a value that is not an object after decoding is a parse
    failure; an envelope's ``data`` is scored whatever it holds.
    """
    if not isinstance(value, str):
        if strict and not isinstance(value, dict):
            kind = type(value).__name__
            warnings.append(f"{file}: result is a JSON {kind}, not an object (parse failure)")
            return ResultRead("parse_failure", {}, tuple(warnings))
        return ResultRead("scored", value, tuple(warnings))
    try:
        inner = jsonio.loads_json(value, source=file, unwrap_fences=True)
    except (jsonio.JSONInputError, InputError) as exc:
        warnings.append(f"{exc} (result is text, not JSON: parse failure)")
        return ResultRead("parse_failure", {}, tuple(warnings))
    warnings.extend(inner.warnings)
    warnings.append(f"{file}: result given as text holding JSON; decoded")
    return _decoded_text(inner.value, file, warnings, strict=strict)


# ------------------------------------------------------------------------------------
# Folder mode
# ------------------------------------------------------------------------------------


def _child(root: Path, rel: str) -> Path:
    """``ROOT/rel`` for a file whose folder was checked with ``files.safe_child``.

    Only the file itself can then lead outside ROOT, so only a symlink is resolved and
    checked again (a full check per file took 1.9 s of a 5.7 s warm run on 14,000 files).
    """
    path = Path(root) / rel
    return files.safe_child(root, rel) if path.is_symlink() else path


def _read_json_file(
    root: Path, rel: str, *, folder_checked: bool = True, warnings: list[str] | None = None
) -> tuple[Any, str]:
    """Parsed value and sha256 of ``ROOT/rel``; raises ``InputError`` naming the place.

    With ``folder_checked`` the folder of ``rel`` must have been checked with
    ``files.safe_child``; otherwise the whole path is checked. Read warnings (a BOM, a
    duplicate key) are appended to ``warnings``, each starting with ``rel``.
    """
    path = _child(root, rel) if folder_checked else files.safe_child(root, rel)
    if not path.is_file():
        raise InputError(rel, "", "not a regular file")
    size = path.stat().st_size
    if size > jsonio.DEFAULT_MAX_BYTES:
        raise InputError(rel, "", f"{size} bytes is over the {jsonio.DEFAULT_MAX_BYTES}-byte limit")
    data = path.read_bytes()
    try:
        loaded = jsonio.loads_json(data, source=rel)
    except jsonio.JSONInputError as exc:
        raise InputError(rel, exc.position, exc.reason) from None
    if warnings is not None:
        warnings.extend(loaded.warnings)
    return loaded.value, sha256(data)


def list_ids(root: Path, folder: str) -> list[str]:
    """Sorted stems of ``ROOT/folder/*.json`` (ids are validated by ``files.check_name``).

    Raises ``InputError`` when the folder is missing or an id is not a valid name.
    """
    base = Path(root) / folder
    if not base.is_dir():
        raise InputError(f"{folder}/", "", "folder is missing")
    files.safe_child(root, folder)
    ids = sorted(p.name[: -len(".json")] for p in base.iterdir() if p.name.endswith(".json"))
    for doc_id in ids:
        files.check_name("document id", doc_id, source=f"{folder}/{doc_id}.json")
    return ids


def list_systems(root: Path) -> list[str]:
    """Sorted names of the folders under ``ROOT/results``, hidden ones skipped."""
    base = Path(root) / "results"
    if not base.is_dir():
        return []
    names = []
    for p in base.iterdir():
        # Hidden folders (.ipynb_checkpoints, .git) are tools' leftovers, not systems.
        if p.is_dir() and not p.name.startswith("."):
            files.check_name("system name", p.name, source=f"results/{p.name}/")
            files.safe_child(root, f"results/{p.name}")
            names.append(p.name)
    return sorted(names)


def _raw_result(root: Path, system: str, doc_id: str, max_bytes: int) -> RawResult:
    """The bytes of one result file (its system folder already checked), or why not.

    One ``lstat`` decides: absent -> missing; a symlink -> checked with
    ``files.safe_child`` (``InputError`` when it leads outside ROOT), then followed; not a
    regular file or over ``max_bytes`` -> a problem (the document's parse failure).
    """
    rel = f"results/{system}/{doc_id}.json"
    name = os.path.join(root, rel)
    try:
        info = os.lstat(name)
        if stat.S_ISLNK(info.st_mode):
            name = str(files.safe_child(root, rel))
            info = os.stat(name)
    except FileNotFoundError:
        return RawResult(rel, None)
    if not stat.S_ISREG(info.st_mode):
        return RawResult(rel, None, problem="not a regular file (parse failure)")
    if info.st_size > max_bytes:
        return RawResult(rel, None, problem=(
            f"{info.st_size} bytes is over the {max_bytes}-byte limit (parse failure)"))
    try:
        with open(name, "rb") as handle:
            return RawResult(rel, handle.read())
    except OSError as exc:
        return RawResult(rel, None, problem=f"cannot read: {exc.strerror} (parse failure)")


def load_metadata(
    root: Path, config: BenchmarkConfig, ids: tuple[str, ...]
) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """doc_id -> breakdown columns, and warnings.

    The file is ``config.metadata``, else the first of ``metadata.json``/``sources.json``
    present. Columns are ``config.breakdowns``, else those of ``DEFAULT_BREAKDOWNS``
    found. Raises ``InputError`` when the file is not a list of objects with ``doc_id``.
    """
    rel = config.metadata
    if rel is None:
        rel = next((n for n in DEFAULT_METADATA_FILES if (Path(root) / n).is_file()), None)
        if rel is None:
            return {}, []
    value, _ = _read_json_file(root, rel, folder_checked=False)
    if not isinstance(value, list):
        raise InputError(rel, "", "metadata must be a JSON list of records")
    records: dict[str, dict[str, Any]] = {}
    for i, rec in enumerate(value):
        if not isinstance(rec, dict) or not isinstance(rec.get("doc_id"), str):
            raise InputError(rel, f"/{i}", "record is not an object with a string doc_id")
        records[rec["doc_id"]] = rec
    columns = config.breakdowns
    if columns is None:
        present = {k for rec in records.values() for k in rec}
        columns = tuple(c for c in DEFAULT_BREAKDOWNS if c in present)
    warnings = [f"{rel}: no record for document {d}" for d in ids if d not in records]
    out = {
        d: {c: records[d][c] for c in columns if c in records[d]} for d in ids if d in records
    }
    return out, warnings


def load_folder(
    root: Path,
    config: BenchmarkConfig,
    *,
    systems: tuple[str, ...] = (),
    max_bytes: int | None = None,
) -> Benchmark:
    """Read a benchmark folder.

    ``systems`` restricts to those systems (each must exist). Raises ``InputError`` for
    a missing folder, an unreadable schema or label, a label without a schema, an
    unknown system, or a path escaping ROOT.
    """
    root = Path(root)
    if not root.is_dir():
        raise InputError(str(root), "", "benchmark folder does not exist")
    limit = jsonio.DEFAULT_MAX_BYTES if max_bytes is None else max_bytes
    ids = list_ids(root, "labels")
    if not ids:
        raise InputError("labels/", "", "no label files (labels/<id>.json)")
    warnings: list[str] = []
    schema_ids = set(list_ids(root, "schemas"))
    docs = []
    for doc_id in ids:
        if doc_id not in schema_ids:
            raise InputError(f"labels/{doc_id}.json", "", f"no schema schemas/{doc_id}.json")
        schema, schema_digest = _read_json_file(root, f"schemas/{doc_id}.json",
                                                warnings=warnings)
        label, label_digest = _read_json_file(root, f"labels/{doc_id}.json", warnings=warnings)
        docs.append(
            Document(
                doc_id, schema, label, f"schemas/{doc_id}.json", f"labels/{doc_id}.json",
                schema_digest, label_digest,
            )
        )
    warnings += [f"schemas/{s}.json: no label; not scored" for s in sorted(schema_ids - set(ids))]
    found = list_systems(root)
    if systems:
        unknown = [s for s in systems if s not in found]
        if unknown:
            raise InputError(f"results/{unknown[0]}/", "", f"no such system (found: {found})")
        found = sorted(set(systems))
    results = {
        (s, d): _raw_result(root, s, d, limit) for s in found for d in ids
    }
    metadata, meta_warnings = load_metadata(root, config, tuple(ids))
    return Benchmark(
        root, config, tuple(docs), tuple(found), MappingProxyType(results),
        MappingProxyType(metadata), tuple(warnings + meta_warnings),
    )


# ------------------------------------------------------------------------------------
# JSONL mode
# ------------------------------------------------------------------------------------

_ID_PATTERN = r'"{key}"\s*:\s*"((?:[^"\\]|\\.)*)"'


def _canonical_bytes(value: Any) -> bytes:
    import json

    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()


def _id_of(line: str, key: str) -> str | None:
    """The id of a line that may not parse: its ``"key": "..."`` member read textually."""
    match = re.search(_ID_PATTERN.format(key=re.escape(key)), line)
    return match.group(1) if match else None


def load_jsonl(
    gold: Path, pred: Path, schema: Path, *, id_key: str = "id", system: str = "pred"
) -> Benchmark:
    """Gold and prediction JSONL files, one schema for all, as a one-system benchmark.

    Gold line: an object with ``id_key`` (a string or number); the label is its
    ``"label"`` member when present, else the line without ``id_key``. Prediction line:
    an object with ``id_key``; the result is its ``"data"``, ``"prediction"`` or
    ``"output"`` member when present (in that order), else the line without ``id_key``;
    text holding JSON (in a code fence or not) is decoded with a warning. A prediction
    line that does not parse is that document's parse failure: its id is read from the
    text, else it is matched to the gold document on the same line number. Ids are
    never used as paths. Raises ``InputError`` for an unreadable schema or gold file, a
    gold line without a usable id, or a repeated gold id.
    """
    import json

    schema_file = Path(schema).name
    try:
        schema_value = jsonio.load_json(schema).value
    except jsonio.JSONInputError as exc:
        raise InputError(str(schema), exc.position, exc.reason) from None
    schema_digest = sha256(Path(schema).read_bytes())
    docs: dict[str, Document] = {}
    order: list[str] = []
    warnings: list[str] = []
    for n, line in _lines(gold):
        where = f"{Path(gold).name}:{n}"
        try:
            loaded = jsonio.loads_json(line, source=where)
        except jsonio.JSONInputError as exc:
            raise InputError(str(gold), f"line {n}", exc.reason) from None
        value = loaded.value
        warnings.extend(loaded.warnings)
        doc_id = _line_id(value, id_key)
        if doc_id is None:
            raise InputError(str(gold), f"line {n}", f"no string or integer {id_key!r} member")
        if doc_id in docs:
            raise InputError(str(gold), f"line {n}", f"id {doc_id!r} repeats an earlier line")
        label = value["label"] if "label" in value else _without(value, id_key)
        docs[doc_id] = Document(
            doc_id, schema_value, label, schema_file, where, schema_digest,
            sha256(_canonical_bytes(label)),
        )
        order.append(doc_id)
    # Lines that name their id are placed first, so a line matched only by its position
    # (no readable id) can never take the place of a line that names that id.
    named: list[tuple[str, str | None, RawResult]] = []
    by_position: list[tuple[str, str | None, RawResult]] = []
    for n, line in _lines(pred):
        where = f"{Path(pred).name}:{n}"
        try:
            value = json.loads(line)
        except ValueError:
            value = None
        if isinstance(value, dict) and _line_id(value, id_key) is not None:
            if value.get("status") == "failed":
                raw = RawResult(where, None, "status is 'failed' (parse failure)", True)
            else:
                raw = RawResult(where, _canonical_bytes(_prediction(value, id_key)), "", True)
            named.append((where, _line_id(value, id_key), raw))
            continue
        raw = RawResult(where, line.encode("utf-8", "surrogatepass"), "", True)
        doc_id = _id_of(line, id_key)
        if doc_id is not None:
            named.append((where, doc_id, raw))
        elif n <= len(order):
            by_position.append((where, order[n - 1], raw))
        else:
            warnings.append(f"{where}: no readable {id_key!r} and no gold line {n}; ignored")
    results: dict[tuple[str, str], RawResult] = {}
    for where, doc_id, raw in named:
        if doc_id not in docs:
            warnings.append(f"{where}: id {doc_id!r} is not in the gold file; ignored")
        elif (system, doc_id) in results:
            warnings.append(f"{where}: id {doc_id!r} repeats an earlier line; ignored")
        else:
            results[(system, doc_id)] = raw
    for where, doc_id, raw in by_position:
        if (system, doc_id) in results:
            warnings.append(f"{where}: no readable {id_key!r}; gold line's id {doc_id!r} "
                            "has its own prediction line, so this line is ignored")
        else:
            warnings.append(f"{where}: no readable {id_key!r}; matched to gold line "
                            f"{where.rsplit(':', 1)[1]} ({doc_id!r})")
            results[(system, doc_id)] = raw
    ids = sorted(docs)
    for doc_id in ids:
        results.setdefault((system, doc_id), RawResult(f"{Path(pred).name}", None))
    return Benchmark(
        None, BenchmarkConfig(), tuple(docs[d] for d in ids), (system,),
        MappingProxyType(results), MappingProxyType({}), tuple(warnings),
    )


def _lines(path: Path) -> list[tuple[int, str]]:
    """Non-blank lines of a text file with 1-based numbers (invalid UTF-8 replaced)."""
    text = Path(path).read_bytes().decode("utf-8-sig", errors="replace")
    return [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]


def _line_id(value: Any, key: str) -> str | None:
    if not isinstance(value, dict):
        return None
    v = value.get(key)
    if isinstance(v, bool) or not isinstance(v, str | int):
        return None
    return str(v)


def _without(value: dict, key: str) -> dict:
    return {k: v for k, v in value.items() if k != key}


def _prediction(value: dict, key: str) -> Any:
    for member in ("data", "prediction", "output"):
        if member in value:
            return value[member]
    return _without(value, key)
