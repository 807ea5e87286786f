"""A benchmark folder or JSONL files -> frozen ``Documents`` and raw result bytes.

Folder layout (ROOT)::

    schemas/<id>.json            JSON Schema of document <id> (else a shared one:
                                 benchmark.toml schema / schema_by, scorer.schema_name)
    labels/<id>.json             hand-verified label; the label files define the documents
    results/<system>/<id>.json   result envelope {"status": "ok", "data": {...}, ...}
    benchmark.toml               optional, see leafscore.config
    metadata.json | sources.json optional, a list of records with "doc_id"

Results are raw bytes until scored (``read_result``), so a warm cache never parses
them; a folder's are read when a run reaches them (``FolderResults``), not up front.
Every JSON value is read by ``scorer.py``'s one reader (``load_json``, ``loads_json``).
Nothing here writes, and nothing from the folder is executed or imported.
"""

from __future__ import annotations

import codecs
import hashlib
import os
import re
import stat
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import scorer
from leafscore import files
from leafscore.cache import Cache, code_digest
from leafscore.canonical import canonical_bytes, canonical_json
from leafscore.config import DEFAULT_BREAKDOWNS, DEFAULT_METADATA_FILES, BenchmarkConfig
from leafscore.fence import fence_span
from scorer import InputError


def sha256(data: bytes) -> str:
    """Hex sha256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def content_digest(value: Any) -> str:
    """Hex sha256 of a parsed JSON value's canonical form (``canonical.canonical_json``):
    line endings, indentation and key order leave it unchanged; any change of content,
    a number's written form included, changes it."""
    return sha256(canonical_json(value))


class _Unparsed:
    """The bytes of a JSON file that parsed before (the read memo holds their digest and
    warnings: ``load_folder``), parsed when first used: a rerun whose every cell is
    cached needs a document's digests, not its value. One object may serve several
    documents with equal content; it is parsed once."""

    __slots__ = ("data", "source", "value")

    def __init__(self, data: bytes, source: str) -> None:
        self.data: bytes | None = data
        self.source, self.value = source, None

    def parsed(self) -> Any:
        data = self.data  # read once: another thread may parse it meanwhile
        if data is not None:
            self.value = scorer.parse_json(data, self.source).value
            self.data = None  # after the value is set, so a reader seeing None finds it
        return self.value


class _ParsedOnUse:
    """``Document.schema``/``.label``: holds a value or an :class:`_Unparsed`, gives the
    value. A data descriptor, so the dataclass's own ``__init__``, ``__eq__``, ``repr``
    and ``dataclasses.replace`` all go through it; pickling copies what it holds."""

    def __init__(self, name: str) -> None:
        self.slot = f"_{name}_held"

    def __get__(self, document: Any, owner: type | None = None) -> Any:
        if document is None:
            return self
        held = document.__dict__[self.slot]
        return held.parsed() if held.__class__ is _Unparsed else held

    def __set__(self, document: Any, value: Any) -> None:
        document.__dict__[self.slot] = value


@dataclass(frozen=True)
class Document:
    """One labelled document: its id, parsed schema and label, and their sources.

    ``schema_file``/``label_file`` are names for messages (``"schemas/a.json"``, or
    ``"gold.jsonl:3"`` in JSONL mode); ``schema_sha256``/``label_sha256`` are hex digests
    of the canonical JSON of the values (``content_digest``). A folder's schema and
    label may be parsed only when first read (``_Unparsed``); the value is the same.

    ``schema_file`` is the schema the document is scored with, as resolved by
    ``scorer.schema_name``; ``schema_source`` says why: ``"own"`` (``schemas/<id>.json``,
    or JSONL's one ``--schema`` file), ``"schema"`` (benchmark.toml's ``schema``) or
    ``"schema_by"`` (the metadata column benchmark.toml's ``schema_by`` names).
    """

    id: str
    schema: Any
    label: Any
    schema_file: str
    label_file: str
    schema_sha256: str
    label_sha256: str
    schema_source: str = "own"

    @property
    def shared_schema(self) -> bool:
        """True when the schema is shared (``schema``/``schema_by``), not the document's own."""
        return self.schema_source != "own"

    @property
    def schema_key(self) -> str:
        """The name the signature digests this document's schema under: ``schema_file``
        for its own, else ``<folder>/<id>.json``, the file a copy would be (so a shared
        schema and per-document copies of it give the same signature)."""
        if not self.shared_schema:
            return self.schema_file
        folder = self.schema_file.rpartition("/")[0]
        return f"{folder}/{self.id}.json" if folder else f"{self.id}.json"


# Set after the dataclass is made, so its fields stay plain (no default is read from them).
Document.schema = _ParsedOnUse("schema")  # type: ignore[assignment]
Document.label = _ParsedOnUse("label")  # type: ignore[assignment]


@dataclass(frozen=True)
class RawResult:
    """One system's result for one document, unparsed.

    ``data`` is ``None`` when the result file is absent (``"missing"``); ``problem`` is a
    reason the file could not be read at all (a directory, over the size limit), which
    makes the document a parse failure. ``from_line`` marks a JSONL line (its bytes are
    what the line stands for as a result file; see ``load_jsonl``).
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
    """A result after the reader and its version's envelope rule.

    ``outcome`` is ``scorer.Outcome`` (``status`` ``"scored"``, ``"parse_failure"`` or
    ``"missing"``; the value to score); ``warnings`` are one line each, naming the file.
    """

    outcome: scorer.Outcome
    warnings: tuple[str, ...] = ()

    @property
    def status(self) -> str:
        """``"scored"``, ``"parse_failure"`` or ``"missing"``."""
        return self.outcome.status


# ------------------------------------------------------------------------------------
# Reading JSON: the package's door to scorer.py's one reader
# ------------------------------------------------------------------------------------
# Every file leafscore reads (schemas, labels, results, JSONL lines) goes through
# ``scorer.parse_json`` (here, or ``scorer.read_json_file``): the same rules as ``python
# scorer.py`` (encoding, nesting, NaN/Infinity and overflowing numbers refused, numbers
# kept in their written form, duplicate keys and lone surrogates warned), listed in
# docs/SCORING.md, "Reading files". The two functions below add only the unwrapping of a
# markdown code fence.


def load_json(path: str | os.PathLike[str], *, max_bytes: int = scorer.MAX_FILE_BYTES,
              unwrap_fences: bool = False, max_depth: int = scorer.MAX_DEPTH
              ) -> scorer.Parsed:
    """Read one JSON value from the file at ``path`` (``scorer.read_file_bytes``, then
    :func:`loads_json`).

    ``max_bytes``: the largest file read; ``max_depth``: the deepest nesting accepted;
    ``unwrap_fences``: a markdown code fence around the whole text is removed first, with
    a warning. Returns ``scorer.Parsed``; raises ``scorer.InputError`` naming the path as
    given, the place and why.
    """
    data = scorer.read_file_bytes(path, max_bytes=max_bytes)
    return loads_json(data, source=os.fspath(path), unwrap_fences=unwrap_fences,
                      max_depth=max_depth)


def loads_json(text: str | bytes, *, source: str, unwrap_fences: bool = False,
               max_depth: int = scorer.MAX_DEPTH) -> scorer.Parsed:
    """Parse one JSON value from ``text`` (``scorer.parse_json``).

    ``source`` names the input in errors and warnings (a path, or ``"pred.jsonl:4"``);
    ``unwrap_fences``: remove a markdown code fence around the whole text
    (``scorer.FENCE``'s rule, in linear time: ``fence.fence_span``), with a warning;
    errors then still name lines and columns of the whole text. Returns ``scorer.Parsed``;
    raises ``scorer.InputError``.
    """
    if not unwrap_fences:
        return scorer.parse_json(text, source, max_depth=max_depth)
    warnings: list[str] = []
    if not isinstance(text, str):
        text = scorer.decode_bytes(bytes(text), source, warnings)
    span = fence_span(text)  # scorer.FENCE's body, found in linear time
    if span is not None:  # the fence becomes blanks, so errors name lines of the whole text
        start, end = span
        text = _blank(text[:start]) + text[start:end] + _blank(text[end:])
        warnings.append(f"{source}: unwrapped a markdown code fence around the JSON")
    parsed = scorer.parse_json(text, source, max_depth=max_depth)
    return scorer.Parsed(parsed.value, (*warnings, *parsed.warnings), parsed.written_numbers)


def _blank(text: str) -> str:
    """``text`` with every character but line ends turned into a space."""
    return "".join(c if c in "\r\n" else " " for c in text)


# ------------------------------------------------------------------------------------
# Reading one result
# ------------------------------------------------------------------------------------


def read_result(raw: RawResult, record: scorer.ScoringVersion, schema: Any) -> ResultRead:
    """A raw result through the one reader (``scorer.parse_json``) and the version's
    envelope rule (``record.envelope``), exactly as ``python scorer.py`` reads a result
    file; never raises. ``schema`` is the document's schema (the envelope rule asks
    whether it declares a root ``data`` member).
    """
    if raw.data is None and not raw.problem:
        return ResultRead(scorer.Outcome("missing", {}))
    warnings: list[str] = []
    if raw.problem:
        warnings.append(f"{raw.file}: {raw.problem} (parse failure)")
        value: Any = scorer.UNREADABLE
    else:
        try:
            parsed = loads_json(raw.data, source=raw.file)
        except InputError as exc:
            warnings.append(f"{exc} (parse failure)")
            value = scorer.UNREADABLE
        else:
            warnings.extend(parsed.warnings)
            value = parsed.value
    outcome = record.envelope(value, schema)
    if outcome.note and not (value is scorer.UNREADABLE and warnings):  # said once
        failed = " (parse failure)" if outcome.status == "parse_failure" else ""
        warnings.append(f"{raw.file}: {outcome.note}{failed}")
    return ResultRead(outcome, tuple(warnings))


# ------------------------------------------------------------------------------------
# Folder mode
# ------------------------------------------------------------------------------------


def _child(root: Path, rel: str) -> str | Path:
    """``ROOT/rel`` for a file whose folder was checked with ``files.safe_child``.

    Only the file itself can then lead outside ROOT, so only a symlink is resolved and
    checked again (a full check per file took 1.9 s of a 5.7 s warm run on 14,000 files).
    """
    path = os.path.join(root, rel)
    return files.safe_child(root, rel) if os.path.islink(path) else path


#: Bumped when the read memo's layout changes; part of its key.
READ_MEMO_FORMAT = "1"


def _memo_key(root: Path) -> str:
    """Cache key of a folder's read memo: one entry per folder (so two benchmarks never
    overwrite each other's) and per reading code (``code_digest``: scorer.py's reader
    and this module)."""
    parts = ("read-memo", READ_MEMO_FORMAT, code_digest(), os.fspath(Path(root).resolve()))
    return sha256("\x1f".join(parts).encode())


def _memo(found: Any) -> dict[str, tuple[str, list[str]]]:
    """The read memo of a cache entry: sha256 of a file's bytes -> (content digest,
    warnings without the file name); anything else in the entry is left out."""
    entry = found[0] if found else None
    if not isinstance(entry, dict):
        return {}
    return {raw: (value[0], value[1]) for raw, value in entry.items()
            if isinstance(value, list) and len(value) == 2 and isinstance(value[0], str)
            and isinstance(value[1], list) and all(isinstance(n, str) for n in value[1])}


def _read_document_file(root: Path, rel: str, warnings: list[str],
                        memo: Mapping[str, tuple[str, list[str]]],
                        used: dict[str, tuple[str, list[str]]]) -> tuple[Any, str]:
    """The value (or :class:`_Unparsed` bytes) and content digest of the schema or label
    ``ROOT/rel`` (its folder checked); its read warnings appended to ``warnings``.

    ``memo`` maps the sha256 of bytes read before to their content digest and warnings
    (each without its leading ``"<rel>: "``): the bytes are read and hashed every time,
    and only bytes already known to parse are left unparsed, so a broken file is always
    an ``InputError`` here, naming the place. ``used`` gathers the memo of this read
    (a file whose warnings do not start with its name is left out of it).
    """
    data = scorer.read_file_bytes(_child(root, rel), source=rel)
    raw = sha256(data)
    prefix = f"{rel}: "
    known = memo.get(raw)
    if known is not None:
        value: Any = _Unparsed(data, rel)
        digest, notes = known
        warnings.extend(prefix + note for note in notes)
    else:
        parsed = scorer.parse_json(data, rel)
        value, digest = parsed.value, sha256(canonical_bytes(parsed))
        warnings.extend(parsed.warnings)
        if not all(w.startswith(prefix) for w in parsed.warnings):
            return value, digest
        notes = [w[len(prefix):] for w in parsed.warnings]
    used[raw] = (digest, notes)
    return value, digest


def list_ids(root: Path, folder: str) -> list[str]:
    """Sorted stems of ``ROOT/folder/*.json``, hidden files skipped (``scorer.
    document_ids``); ids are validated by ``files.check_name``.

    Raises ``InputError`` when the folder is missing or an id is not a valid name.
    """
    base = Path(root) / folder
    if not base.is_dir():
        raise InputError(f"{folder}/", "", f"folder is missing in the benchmark folder "
                         f"{_shown_root(root)} (expected schemas/, labels/ and "
                         "results/<system>/ there)")
    files.safe_child(root, folder)
    ids = scorer.document_ids(base)
    for doc_id in ids:
        files.check_name("document id", doc_id, source=f"{folder}/{doc_id}.json")
    return ids


def label_ids(root: Path) -> list[str]:
    """:func:`list_ids` of ``labels/``: the documents. Raises ``InputError`` when there is
    none. Every entry point checks ``labels/`` here first, then ``results/``
    (:func:`list_systems`), as ``python scorer.py`` does, so all name the same folder."""
    ids = list_ids(root, "labels")
    if not ids:
        raise InputError("labels/", "", "no label files (labels/<id>.json)")
    return ids


def _shown_root(root: Path) -> str:
    """ROOT for a message: as given, and where that is when it is relative."""
    given = os.fspath(root)
    if Path(root).is_absolute():
        return given
    return f"{given} ({Path(root).resolve()})"


def list_systems(root: Path) -> list[str]:
    """Sorted names of the system folders under ``ROOT/results`` (``scorer.system_names``:
    hidden ones skipped), each checked as a name and as a path inside ROOT.

    Raises ``InputError`` when there is none: an empty or missing ``results/`` is an
    error in every command, as in ``python scorer.py``.
    """
    try:
        names = scorer.system_names(Path(root) / "results")
    except InputError:
        raise InputError("results/", "", "no system folders to score in the benchmark "
                         f"folder {_shown_root(root)} (expected results/<system>/<id>.json "
                         "there)") from None
    for name in names:
        files.check_name("system name", name, source=f"results/{name}/")
        files.safe_child(root, f"results/{name}")
    return names


def result_folder_problems(root: Path, systems: Iterable[str],
                           ids: Iterable[str]) -> list[tuple[str, str]]:
    """``(file, message)`` of what a scoring run leaves aside in ``results/``, each one
    warning of ``score`` and ``validate``: a file beside the system folders
    (``scorer.stray_files``; ``summary.json`` and ``summary.csv`` aside), a file in a system
    folder that names no labelled document (a misnamed result, ignored), and a system folder
    holding no result of any document (every document a missing result)."""
    ids = list(ids)
    found = scorer.stray_files(Path(root))  # python scorer.py's too
    return found + [problem for system in systems for problem in result_files_problems(
        Path(root) / "results" / system, f"results/{system}/", ids)]


def result_files_problems(folder: Path, shown: str, ids: Iterable[str],
                          ) -> list[tuple[str, str]]:
    """:func:`result_folder_problems` of one folder of result files (a system's, or one
    given as ``diff --head FOLDER``), its files named ``shown`` + file name."""
    wanted = {f"{doc_id}.json" for doc_id in ids}
    with os.scandir(folder) as entries:
        names = sorted(e.name for e in entries if not scorer.is_hidden(e.name))
    found = [(f"{shown}{name}", "not a result of a labelled document: ignored")
             for name in names if name not in wanted]
    if not any(name in wanted for name in names):
        found.append((shown, f"no result of any of the {len(wanted)} labelled document(s): "
                      "every one is a missing result"))
    return found


def raw_result(root: Path, system: str, doc_id: str, max_bytes: int) -> RawResult:
    """The bytes of ``results/<system>/<doc_id>.json`` (its folder already checked), or
    why not (:func:`read_raw`)."""
    return read_raw(root, f"results/{system}/{doc_id}.json", max_bytes)


def read_raw(root: Path, rel: str, max_bytes: int, *, shown: str | None = None) -> RawResult:
    """The bytes of the result file ``root/rel``, or why not; named ``shown`` (default
    ``rel``) in messages.

    One ``lstat`` decides: absent -> missing. A symlink leading outside ``root``, a file
    that is not regular or is over ``max_bytes`` (``scorer.read_file_bytes``, the reader's
    own checks and words) -> a problem: the document's parse failure, as in ``python
    scorer.py``; the run goes on.
    """
    shown = rel if shown is None else shown
    name = os.path.join(root, rel)
    try:
        if stat.S_ISLNK(os.lstat(name).st_mode):
            name = str(files.safe_child(root, rel))
        return RawResult(shown, scorer.read_file_bytes(name, source=shown, max_bytes=max_bytes))
    except FileNotFoundError:
        return RawResult(shown, None)
    except InputError as exc:
        return RawResult(shown, None, problem=exc.reason)


class FolderResults(Mapping[tuple[str, str], RawResult]):
    """``(system, doc_id)`` -> the :class:`RawResult` of ``results/<system>/<doc_id>.json``
    (:func:`raw_result`), read from the folder each time it is asked for and never kept:
    a run reads each result once, a batch at a time (``runner.score_benchmark``), so a
    corpus whose result files do not fit in memory can be scored. Keys are every system
    x document pair, systems first, in order; a missing or unreadable file is read as
    such, as when read up front."""

    def __init__(self, root: Path, systems: tuple[str, ...], ids: tuple[str, ...],
                 max_bytes: int) -> None:
        self.root, self.systems, self.ids, self.max_bytes = root, systems, ids, max_bytes
        self._known = (frozenset(systems), frozenset(ids))

    def __getitem__(self, key: tuple[str, str]) -> RawResult:
        if not (isinstance(key, tuple) and len(key) == 2 and key[0] in self._known[0]
                and key[1] in self._known[1]):
            raise KeyError(key)
        return raw_result(self.root, key[0], key[1], self.max_bytes)

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return ((s, d) for s in self.systems for d in self.ids)

    def __len__(self) -> int:
        return len(self.systems) * len(self.ids)

    def only(self, systems: Iterable[str] | None = None,
             ids: Iterable[str] | None = None) -> FolderResults:
        """The pairs of ``systems`` and ``ids`` (default: all of them), still unread."""
        keep_s = self.systems if systems is None else set(systems)
        keep_d = self.ids if ids is None else set(ids)
        return FolderResults(self.root, tuple(s for s in self.systems if s in keep_s),
                             tuple(d for d in self.ids if d in keep_d), self.max_bytes)


def only_results(results: Mapping[tuple[str, str], RawResult], *,
                 systems: Iterable[str] | None = None,
                 ids: Iterable[str] | None = None) -> Mapping[tuple[str, str], RawResult]:
    """The results of ``systems`` and ``ids`` (default: all), without reading any that
    are still unread (:class:`FolderResults`)."""
    if isinstance(results, FolderResults):
        return results.only(systems, ids)
    keep_s = None if systems is None else set(systems)
    keep_d = None if ids is None else set(ids)
    return MappingProxyType({k: results[k] for k in results
                             if (keep_s is None or k[0] in keep_s)
                             and (keep_d is None or k[1] in keep_d)})


def schema_source(doc_id: str, name: str, config: BenchmarkConfig) -> str:
    """Why document ``doc_id`` is scored with schema file ``name`` (``scorer.schema_name``'s
    answer), as ``Document.schema_source`` says it: ``"own"``, ``"schema"`` or
    ``"schema_by"``."""
    if name == f"{doc_id}.json":
        return "own"
    return "schema" if config.schema is not None else "schema_by"


def metadata_records(
    root: Path | None, config: BenchmarkConfig
) -> tuple[str | None, dict[str, dict[str, Any]]]:
    """(file, doc_id -> its whole record) of the benchmark's metadata file, every key
    kept (names, pages, licences: the explorer shows them); ``(None, {})`` when there is
    none.

    The file is ``config.metadata`` (relative to ``root``: the benchmark folder, or the
    folder of a JSONL benchmark's ``--config``), else the first of
    ``metadata.json``/``sources.json`` present in ``root``. Raises ``InputError`` when
    the file the config names is missing, or is not a list of objects with ``doc_id``
    (``scorer.metadata_records``, the one rule).
    """
    rel = config.metadata
    if rel is None and root is not None:
        rel = next((n for n in DEFAULT_METADATA_FILES if (Path(root) / n).is_file()), None)
    if rel is None:
        return None, {}
    if root is None:
        raise InputError(rel, "", "a metadata file is read from the folder of the "
                         "benchmark.toml that names it (--config)")
    path = files.safe_child(root, rel)
    if not os.path.lexists(path):
        raise InputError(rel, "", "metadata file is missing (named by the config's "
                         f"`metadata`; looked in {Path(root).resolve()})")
    value = scorer.read_json_file(path, source=rel).value
    return rel, {d: rec for d, (_, rec) in scorer.metadata_records(value, rel).items()}


def load_metadata(
    root: Path | None, config: BenchmarkConfig, ids: tuple[str, ...], *,
    extra: Mapping[str, Mapping[str, Any]] | None = None,
) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """doc_id -> breakdown columns, and warnings.

    The file is ``config.metadata`` (relative to ``root``: the benchmark folder, or the
    folder of a JSONL benchmark's ``--config``), else the first of
    ``metadata.json``/``sources.json`` present in ``root``. ``extra``: doc_id -> more
    columns of a document (a JSONL gold line's members beside its ``label``), over the
    file's. Columns are ``config.breakdowns``, else those of ``DEFAULT_BREAKDOWNS``
    found. Raises ``InputError`` when the file is missing (named by the config), or is
    not a list of objects with ``doc_id``.
    """
    rel, records = metadata_records(root, config)
    for doc_id, more in (extra or {}).items():
        records[doc_id] = {**records.get(doc_id, {}), **more}
    if not records:
        return {}, []
    columns = config.breakdowns
    if columns is None:
        present = {k for rec in records.values() for k in rec}
        columns = tuple(c for c in DEFAULT_BREAKDOWNS if c in present)
    warnings = [] if rel is None else [
        f"{rel}: no record for document {d}" for d in ids if d not in records]
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
    cache: Cache | None = None,
    results: bool = True,
) -> Benchmark:
    """Read a benchmark folder.

    ``results`` False: a folder without system folders under ``results/`` is read too
    (no systems), as ``leafscore plan`` reads a benchmark before any system has run.

    ``systems`` restricts to those systems (each must exist). ``cache``: where the read
    memo of schemas and labels is kept (``_read_document_file``; default: none). Raises
    ``InputError`` for a missing folder, an unreadable schema or label, a label without
    a schema, an unknown system, or a path escaping ROOT.
    """
    root = Path(root)
    if not root.is_dir():
        raise InputError(str(root), "", "not a folder (a benchmark is a folder holding "
                         "labels/, schemas/ and results/)" if root.exists() else
                         "benchmark folder does not exist")
    limit = scorer.MAX_FILE_BYTES if max_bytes is None else max_bytes
    ids = label_ids(root)
    try:
        found = list_systems(root)
    except InputError:
        if results or systems:
            raise
        found = []
    if systems:
        unknown = [s for s in systems if s not in found]
        if unknown:
            raise InputError(f"results/{unknown[0]}/", "", f"no such system (found: {found})")
        found = sorted(set(systems))
    warnings: list[str] = []
    schema_ids = set(list_ids(root, "schemas"))
    docs = []
    # One parsed schema per content: corpora often give every document the same schema.
    schemas: dict[str, Any] = {}
    store = (cache or Cache(None)).part("reads")
    memo_key = _memo_key(root) if store.directory is not None else ""
    memo = _memo(store.get(memo_key)) if memo_key else {}
    used: dict[str, tuple[str, list[str]]] = {}
    names = scorer.folder_schemas(root, ids, schema=config.schema, schema_by=config.schema_by,
                                  metadata=config.metadata)  # the one rule: scorer.schema_name
    shared: dict[str, tuple[Any, str]] = {}  # a shared schema file is read once
    for doc_id in ids:
        rel = f"schemas/{names[doc_id]}"
        if rel not in shared:
            schema, schema_digest = _read_document_file(root, rel, warnings, memo, used)
            shared[rel] = (schemas.setdefault(schema_digest, schema), schema_digest)
        schema, schema_digest = shared[rel]
        label, label_digest = _read_document_file(root, f"labels/{doc_id}.json", warnings,
                                                  memo, used)
        source = schema_source(doc_id, names[doc_id], config)
        docs.append(
            Document(
                doc_id, schema, label, rel, f"labels/{doc_id}.json",
                schema_digest, label_digest, source,
            )
        )
    if memo_key and used != memo:
        store.put(memo_key, {raw: [digest, notes] for raw, (digest, notes) in used.items()})
    in_use = {name[:-5] for name in names.values()}
    warnings += [f"schemas/{s}.json: no label; not scored"
                 for s in sorted(schema_ids - set(ids) - in_use)]
    results = FolderResults(root, tuple(found), tuple(ids), limit)
    warnings += [f"{file}: {message}" for file, message in
                 result_folder_problems(root, found, ids)]
    metadata, meta_warnings = load_metadata(root, config, tuple(ids))
    return Benchmark(
        root, config, tuple(docs), tuple(found), results,
        MappingProxyType(metadata), tuple(warnings + meta_warnings),
    )


# ------------------------------------------------------------------------------------
# JSONL mode
# ------------------------------------------------------------------------------------

_ID_PATTERN = r'"{key}"\s*:\s*"((?:[^"\\]|\\.)*)"'


def _id_of(line: str, key: str) -> str | None:
    """The id of a line that may not parse: its ``"key": "..."`` member read textually."""
    match = re.search(_ID_PATTERN.format(key=re.escape(key)), line)
    return match.group(1) if match else None


def load_jsonl(
    gold: Path, preds: Mapping[str, Path], schema: Path, *, id_key: str = "id",
    config: BenchmarkConfig | None = None, max_bytes: int = scorer.MAX_FILE_BYTES,
    metadata_root: Path | None = None,
) -> Benchmark:
    """Gold and prediction JSONL files, one schema for all, as a benchmark.

    ``preds`` maps a system name to its prediction file (one file per system). Gold line:
    an object with ``id_key`` (a string or number); the label is its ``"label"`` member
    when present, else the line without ``id_key``. Prediction line: an object with
    ``id_key``, read by the one reader and then as a result file would be (``_as_file``;
    the envelope rule of the version decides, so the same result scores the same in a
    folder and in JSONL). A prediction line that does not parse is that document's parse
    failure: its id is read from the text, else it is matched to the gold document on the
    same line number. Ids are never used as paths. ``config`` supplies the version pin,
    options, metadata file and breakdowns (default: none); ``metadata_root`` is the
    folder its ``metadata`` file is named in (the config file's). A gold line with a
    ``"label"`` member gives its other members (but the id) as its document's metadata,
    over the metadata file's (:func:`load_metadata`).

    Every file is read as a result file is (:func:`jsonl_lines`): UTF-8, or UTF-16/32
    with a byte-order mark; at most ``max_bytes`` bytes (default 64 MiB, a result file's
    limit), and so is each line. A prediction line holding invalid bytes, or longer than
    that, is that document's parse failure (the warning names the line and the byte); a
    prediction file that cannot be read at all (too large, not a regular file) makes
    each of its documents a parse failure.

    Raises ``InputError`` for an unreadable schema or gold file, a gold file without a
    line (empty or blank), a gold line holding invalid bytes (naming the file, line and
    byte) or too long, a gold line without a usable id, a repeated gold id, or a bad
    system name.
    """
    if not preds:
        raise InputError("--pred", "", "no prediction file (give --pred SYSTEM=PATH)")
    config = config or BenchmarkConfig()
    shared = _JSONLSchemas(Path(schema), config)
    docs: dict[str, Document] = {}
    order: list[str] = []
    warnings: list[str] = []
    line_metadata: dict[str, dict[str, Any]] = {}
    lines, read_warnings = jsonl_lines(gold, max_bytes=max_bytes)
    if not lines:  # the gold lines are the documents, as a folder's label files
        raise InputError(str(gold), "", "no gold lines (each line a JSON object with its id)")
    warnings.extend(read_warnings)
    for line in lines:
        n = line.number
        where = f"{Path(gold).name}:{n}"
        if line.text is None:
            assert line.problem is not None
            place = f"line {n}, {line.problem.pointer}" if line.problem.pointer else f"line {n}"
            raise InputError(str(gold), place, line.problem.reason)
        try:
            loaded = loads_json(line.text, source=where)
        except InputError as exc:
            raise InputError(str(gold), f"line {n}", exc.reason) from None
        value = loaded.value
        warnings.extend(loaded.warnings)
        doc_id = _line_id(value, id_key)
        if doc_id is None:
            raise InputError(str(gold), f"line {n}", f"no string or integer {id_key!r} member")
        if doc_id in docs:
            raise InputError(str(gold), f"line {n}", f"id {doc_id!r} repeats an earlier line")
        schema_file, schema_value, schema_digest, source = shared.of(doc_id, value, where)
        label = value["label"] if "label" in value else _without(value, id_key)
        if config.schema_by is not None and "label" not in value:  # metadata, not label
            label = _without(label, config.schema_by)
        if "label" in value:
            line_metadata[doc_id] = {k: v for k, v in value.items() if k not in (id_key, "label")}
        docs[doc_id] = Document(
            doc_id, schema_value, label, schema_file, where, schema_digest,
            content_digest(label), source,
        )
        order.append(doc_id)
    results: dict[tuple[str, str], RawResult] = {}
    for system in sorted(preds):
        files.check_name("system name", system, source="--pred")
        found = _predictions(Path(preds[system]), id_key, docs, order, warnings, max_bytes)
        results.update({(system, doc_id): raw for doc_id, raw in found.items()})
    ids = sorted(docs)
    config = config or BenchmarkConfig()
    # only the file the config names: no metadata.json is looked for beside a --config
    metadata, meta_warnings = load_metadata(metadata_root if config.metadata else None,
                                            config, tuple(ids), extra=line_metadata)
    return Benchmark(
        None, config, tuple(docs[d] for d in ids), tuple(sorted(preds)),
        MappingProxyType(results), MappingProxyType(metadata), tuple(warnings + meta_warnings),
    )


class _JSONLSchemas:
    """The schema of each gold line: JSONL's one ``--schema`` file, or, when ``--schema``
    is a folder, the file ``scorer.schema_name`` picks in it (the line's own
    ``<id>.json``, else the config's ``schema_by`` member of the gold line, else its
    ``schema``), each file read once."""

    def __init__(self, schema: Path, config: BenchmarkConfig) -> None:
        self.path, self.config = schema, config
        self.folder = schema.is_dir()
        self.read: dict[str, tuple[Any, str]] = {}
        if not self.folder and (config.schema is not None or config.schema_by is not None):
            key = "schema" if config.schema is not None else "schema_by"
            raise InputError(str(schema), "", f"the config's {key} needs --schema to be a "
                             "folder of schemas, not one file")
        self.names = frozenset(scorer.document_ids(schema)) if self.folder else frozenset()
        if not self.folder:  # read up front, as a bad schema is an error even with no line
            value = load_json(schema).value
            self.read[schema.name] = (value, content_digest(value))

    def of(self, doc_id: str, line: dict, where: str) -> tuple[str, Any, str, str]:
        """(file shown, value, content digest, ``Document.schema_source``) of a gold line."""
        if not self.folder:
            path, shown, source = self.path, self.path.name, "own"
        else:
            file, _, number = where.rpartition(":")
            name = scorer.schema_name(
                doc_id, self.names, self.config.schema, self.config.schema_by, line,
                (file, f"line {number}"), folder=self.path.name, label_file=where)
            path, shown = self.path / name, f"{self.path.name}/{name}"
            source = schema_source(doc_id, name, self.config)
        if shown not in self.read:
            value = load_json(path).value
            self.read[shown] = (value, content_digest(value))
        value, digest = self.read[shown]
        return shown, value, digest, source


def _predictions(pred: Path, id_key: str, docs: Mapping[str, Document], order: list[str],
                 warnings: list[str], max_bytes: int) -> dict[str, RawResult]:
    """doc_id -> the raw result of one prediction file (missing ones included)."""
    try:
        lines, read_warnings = jsonl_lines(pred, max_bytes=max_bytes)
    except InputError as exc:  # the whole file, as an unreadable result file would be
        return {doc_id: RawResult(pred.name, None, exc.reason) for doc_id in docs}
    warnings.extend(read_warnings)
    # Lines that name their id are placed first, so a line matched only by its position
    # (no readable id) can never take the place of a line that names that id.
    named: list[tuple[str, str, RawResult]] = []
    by_position: list[tuple[str, str, RawResult]] = []
    for entry in lines:
        n, line = entry.number, entry.text
        where = f"{pred.name}:{n}"
        if line is None:  # refused unread: invalid bytes, or too long
            assert entry.problem is not None
            place = entry.problem.pointer
            raw = RawResult(where, None, f"{place}: {entry.problem.reason}" if place
                            else entry.problem.reason, True)
            doc_id = _id_of(entry.shown, id_key)
            if doc_id is not None and "\ufffd" in doc_id:  # the bad bytes are in the id
                doc_id = None
            _place(raw, doc_id, n, where, id_key, order, named, by_position, warnings)
            continue
        try:
            parsed = scorer.parse_json(line, where)
        except InputError:
            value = None
        else:
            value = parsed.value
            warnings.extend(parsed.warnings)
        doc_id = _line_id(value, id_key)
        if doc_id is not None:
            raw = RawResult(where, canonical_json(_as_file(value, id_key)), "", True)
            named.append((where, doc_id, raw))
            continue
        raw = RawResult(where, line.encode("utf-8", "surrogatepass"), "", True)
        _place(raw, _id_of(line, id_key), n, where, id_key, order, named, by_position,
               warnings)
    results: dict[str, RawResult] = {}
    for where, doc_id, raw in named:
        if doc_id not in docs:
            warnings.append(f"{where}: id {doc_id!r} is not in the gold file; ignored")
        elif doc_id in results:
            warnings.append(f"{where}: id {doc_id!r} repeats an earlier line; ignored")
        else:
            results[doc_id] = raw
    for where, doc_id, raw in by_position:
        if doc_id in results:
            warnings.append(f"{where}: no readable {id_key!r}; gold line's id {doc_id!r} "
                            "has its own prediction line, so this line is ignored")
        else:
            warnings.append(f"{where}: no readable {id_key!r}; matched to gold line "
                            f"{where.rsplit(':', 1)[1]} ({doc_id!r})")
            results[doc_id] = raw
    for doc_id in docs:
        results.setdefault(doc_id, RawResult(pred.name, None))
    return results


#: Byte-order marks and the codec each names, longest first (UTF-32-LE's mark starts
#: with UTF-16-LE's), as ``scorer.decode_bytes`` reads them (tests/test_jsonl_reading.py
#: checks that the two agree). Used only to find the lines of a JSONL file that does not
#: decode as a whole; what a file's bytes mean is decided by ``scorer.decode_bytes``.
_MARKS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


@dataclass(frozen=True)
class Line:
    """One non-blank line of a JSONL file (:func:`jsonl_lines`).

    ``number`` counts from 1; ``text`` is the line without its line end, or ``None`` when
    the line was refused, and then ``problem`` says why, naming ``<file>:<number>`` and
    the byte (invalid bytes) or the size (over the limit), and ``shown`` is the line
    with its bad bytes replaced by U+FFFD (only to find its id; never scored).
    """

    number: int
    text: str | None
    problem: InputError | None = None
    shown: str = ""


def jsonl_lines(path: str | os.PathLike[str], *, max_bytes: int = scorer.MAX_FILE_BYTES,
                max_line_bytes: int | None = None) -> tuple[list[Line], list[str]]:
    """The non-blank lines of a JSONL file, decoded as a result file is, and warnings.

    The file is read by ``scorer.read_file_bytes`` (a regular file of at most
    ``max_bytes`` bytes, refused unread otherwise) and decoded as a whole by
    ``scorer.decode_bytes``: UTF-8, or UTF-16/32 (or UTF-8) with a byte-order mark,
    warned once. When some bytes do not decode (warned once, with the reader's reason),
    each line is decoded alone in the file's encoding, and a line holding a bad byte is
    refused: its :class:`Line` has a ``problem`` naming the line and the byte, counted
    from the line's start and from the file's. The other lines are read. A line longer
    than ``max_line_bytes`` (default ``max_bytes``; counted in UTF-8) is refused
    unparsed. Lines end at ``\n`` only (a ``\r`` before it is dropped): JSON strings may
    hold a raw U+2028, U+2029 or U+0085, where ``str.splitlines`` would cut a line.

    Raises
    ------
    InputError
        Naming ``path`` as given: no such file, a folder, a FIFO or another file that is
        not regular, or a file over ``max_bytes``.
    """
    limit = max_bytes if max_line_bytes is None else max_line_bytes
    name = Path(path).name
    data = scorer.read_file_bytes(path, max_bytes=max_bytes)
    warnings: list[str] = []
    try:
        text = scorer.decode_bytes(data, name, warnings)
    except InputError as whole:  # said once (a NUL may mean UTF-16 without a mark)
        warnings.append(f"{whole}; each line is read alone")
        return _lines_one_by_one(data, name, limit, warnings), warnings
    lines = []
    for number, line in enumerate(text.split("\n"), 1):
        line = line.removesuffix("\r")
        if line.strip():
            lines.append(_sized(Line(number, line), name, limit))
    return lines, warnings


def _too_long(name: str, number: int, size: int, limit: int, shown: str) -> Line:
    """A line refused unparsed for its size."""
    return Line(number, None, InputError(
        f"{name}:{number}", "", f"line is {size:,} bytes, larger than the limit of "
        f"{limit:,} bytes ({limit / 2**20:g} MiB) of one result file; not read"), shown[:200])


def _sized(line: Line, name: str, limit: int) -> Line:
    """``line``, or ``line`` refused when its text is longer than ``limit`` in UTF-8."""
    text = line.text
    if text is None or len(text) * 4 <= limit:  # a character is at most 4 UTF-8 bytes
        return line
    size = len(text.encode("utf-8", "surrogatepass"))
    return line if size <= limit else _too_long(name, line.number, size, limit, text)


def _lines_one_by_one(data: bytes, name: str, limit: int, warnings: list[str]) -> list[Line]:
    """The lines of a file whose bytes do not all decode, each decoded alone in the
    encoding the file's byte-order mark names (UTF-8 without one); a line holding a bad
    byte is refused, naming it."""
    mark, codec = next(((m, c) for m, c in _MARKS if data.startswith(m)), (b"", "utf-8"))
    if mark:
        scorer.decode_bytes(mark, name, warnings)  # the file's one byte-order mark warning
    label = codec[:6].upper()  # UTF-8, UTF-16, UTF-32
    newline = "\n".encode(codec)
    width = len(newline)
    lines: list[Line] = []
    start, number = len(mark), 0
    while True:
        end = data.find(newline, start)
        while end >= 0 and (end - start) % width:  # those bytes straddle two code units
            end = data.find(newline, end + 1)
        stop = len(data) if end < 0 else end
        number += 1
        raw = data[start:stop]
        if len(raw) > limit:
            lines.append(_too_long(name, number, len(raw), limit,
                                   raw[:800].decode(codec, "replace")))
        else:
            try:
                text = raw.decode(codec).removesuffix("\r")
            except UnicodeDecodeError as exc:
                where = f"byte {exc.start} (byte {start + exc.start} of the file)"
                reason = f"invalid {label} (byte 0x{raw[exc.start:exc.start + 1].hex()})"
                lines.append(Line(number, None, InputError(f"{name}:{number}", where, reason),
                                  raw.decode(codec, "replace")))
            else:
                if text.strip():
                    lines.append(_sized(Line(number, text), name, limit))
        if end < 0:
            return lines
        start = end + width


def _place(raw: RawResult, doc_id: str | None, n: int, where: str, id_key: str,
           order: list[str], named: list[tuple[str, str, RawResult]],
           by_position: list[tuple[str, str, RawResult]], warnings: list[str]) -> None:
    """File a line that does not parse: under the id read from its text, else under the
    gold line of the same number, else nowhere (with a warning)."""
    if doc_id is not None:
        named.append((where, doc_id, raw))
    elif n <= len(order):
        by_position.append((where, order[n - 1], raw))
    else:
        warnings.append(f"{where}: no readable {id_key!r} and no gold line {n}; ignored")


def _line_id(value: Any, key: str) -> str | None:
    if not isinstance(value, dict):
        return None
    v = value.get(key)
    if isinstance(v, bool) or not isinstance(v, str | int):
        return None
    return str(v)


def _without(value: dict, key: str) -> dict:
    return {k: v for k, v in value.items() if k != key}


def _as_file(value: dict, key: str) -> Any:
    """What a prediction line stands for as a result file (then read by the one envelope
    rule, ``scorer.VERSIONS[v].envelope``): a line naming its result in ``prediction``
    or ``output`` is an envelope of it (its ``status``, default ``"ok"``, kept); any
    other line, without its id, is the file's content (an envelope when it has
    ``status``, or ``data`` undeclared by the schema)."""
    for member in ("prediction", "output"):
        if member in value:
            return {"status": value.get("status", "ok"), "data": value[member]}
    return _without(value, key)
