"""Checks of a benchmark folder, yielding every problem found as a ``Problem`` record.

What is checked (issue 4, item 1):

* ids agree across ``schemas/``, ``labels/`` and ``results/<system>/``;
* each schema is a valid JSON Schema (the metaschema of its ``$schema`` draft, 2020-12
  when absent; python-jsonschema's ``check_schema`` rules);
* each label is valid against its schema: every violation, with the label file and the
  JSON pointer of the value at fault;
* result envelopes are well-formed (JSON objects with a ``data`` member);
* ``benchmark.toml`` and the metadata file read cleanly.

Errors make ``leafscore validate`` exit 1; warnings are listed apart and never change the
exit code. Errors are faults of the benchmark itself (schemas, labels, ids, config,
metadata, unsafe paths). A result is a system's output, and every bad one has a defined
outcome when scored (a parse failure, or a missing result), so result problems (not
JSON, not an object, no ``data``, ``"status": "failed"``, missing) are warnings.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import referencing.exceptions

from leafscore import files, jsonio
from leafscore.benchmark import list_ids, list_systems, load_metadata
from leafscore.config import BenchmarkConfig, load_config
from leafscore.errors import InputError

LEVELS: tuple[str, ...] = ("error", "warning")


@dataclass(frozen=True)
class Problem:
    """One finding: ``level`` is ``"error"`` or ``"warning"``; ``file`` is relative to
    ROOT; ``pointer`` is an RFC 6901 JSON pointer (``""`` for the whole file, or a text
    position such as ``"line 3 column 5"``); ``message`` says what is wrong."""

    level: str
    file: str
    pointer: str
    message: str

    def __str__(self) -> str:
        if not self.pointer:
            place = self.file
        elif self.pointer.startswith("/"):
            place = f"{self.file}#{self.pointer}"
        else:
            place = f"{self.file}:{self.pointer}"
        return f"{self.level}: {place}: {self.message}"


def json_pointer(path: Iterable[Any]) -> str:
    """RFC 6901 pointer of a key/index sequence: ``("a", 0, "b/c")`` -> ``/a/0/b~1c``."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def _error(file: str, pointer: str, message: str) -> Problem:
    return Problem("error", file, pointer, message)


def _warning(file: str, pointer: str, message: str) -> Problem:
    return Problem("warning", file, pointer, message)


def _from_input_error(exc: InputError | jsonio.JSONInputError, file: str) -> Problem:
    pointer = exc.pointer if isinstance(exc, InputError) else exc.position
    return _error(file, pointer, exc.reason)


def _load(root: Path, rel: str, *, result: bool = False) -> tuple[Any, list[Problem]]:
    """A JSON file's value (``None`` on failure) and the problems met reading it.

    A path escaping ROOT is an error; unreadable content is an error, or for a
    ``result`` a warning saying it is scored as a parse failure.
    """
    try:
        path = files.safe_child(root, rel)
    except InputError as exc:
        return None, [_from_input_error(exc, rel)]
    try:
        loaded = jsonio.load_json(path)
    except jsonio.JSONInputError as exc:
        if result:
            return None, [_warning(rel, exc.position, f"{exc.reason} (scored as a parse failure)")]
        return None, [_from_input_error(exc, rel)]
    return loaded.value, [_warning(rel, "", _strip_source(w, path)) for w in loaded.warnings]


def _strip_source(warning: str, path: Path) -> str:
    prefix = f"{path}: "
    return warning[len(prefix):] if warning.startswith(prefix) else warning


def check_schema(schema: Any, file: str) -> Iterator[Problem]:
    """Every metaschema violation of ``schema`` (pointer into the schema)."""
    if not isinstance(schema, dict | bool):
        kind = type(schema).__name__
        yield _error(file, "", f"a JSON Schema is an object or a boolean, not {kind}")
        return
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    meta = cls(cls.META_SCHEMA)
    for err in sorted(meta.iter_errors(schema), key=lambda e: list(map(str, e.absolute_path))):
        yield _error(file, json_pointer(err.absolute_path), f"invalid schema: {err.message}")


def _path_key(path: Iterable[Any]) -> tuple[tuple[int, int | str], ...]:
    """Sort key of a key/index path: indexes in numeric order, before keys."""
    return tuple((0, p) if isinstance(p, int) else (1, str(p)) for p in path)


def check_label(label: Any, schema: Any, label_file: str, schema_file: str) -> Iterator[Problem]:
    """Every violation of ``schema`` by ``label`` (pointer into the label).

    A ``null`` where the schema's type does not allow it is read as absent (spec 2.0
    §3: empty and absent are the same), so these are summed up in one warning per file
    instead of one error each.
    """
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
    try:
        errors = sorted(validator.iter_errors(label), key=lambda e: (
            _path_key(e.absolute_path), _path_key(e.absolute_schema_path)))
    except referencing.exceptions.Unresolvable as exc:
        yield _error(schema_file, "", f"unresolvable $ref: {exc}")
        return
    nulls = [e for e in errors if e.validator == "type" and e.instance is None]
    for err in errors:
        if err.validator == "type" and err.instance is None:
            continue
        where = json_pointer(err.absolute_schema_path)
        yield _error(label_file, json_pointer(err.absolute_path),
                     f"{err.message} (schema {schema_file}#{where})")
    if nulls:
        first = json_pointer(nulls[0].absolute_path)
        yield _warning(label_file, first, f"{len(nulls)} null value(s) where the schema's "
                       "type has no null (first here); read as absent")


def check_envelope(value: Any, file: str) -> Iterator[Problem]:
    """Problems of one result envelope: not an object, no ``data``, odd ``status``."""
    if not isinstance(value, dict):
        kind = type(value).__name__
        yield _warning(file, "", f"result envelope is a JSON {kind}, not an object "
                       "(scored as a parse failure)")
        return
    status = value.get("status")
    if status == "failed":
        yield _warning(file, "/status", "status is 'failed': scored as a parse failure")
    elif status not in (None, "ok"):
        yield _warning(file, "/status", f"status {status!r} is neither 'ok' nor 'failed'")
    if "data" not in value and status != "failed":
        yield _warning(file, "", "result envelope has no 'data' member (scored as {})")
    elif isinstance(value.get("data"), str):
        yield _warning(file, "/data", "data is a string; it is decoded as JSON when scored")


def validate_folder(root: Path) -> list[Problem]:
    """Every problem of the benchmark at ``root``, errors and warnings, in file order.

    Raises ``InputError`` only when ``root`` is not a folder.
    """
    root = Path(root)
    if not root.is_dir():
        raise InputError(str(root), "", "benchmark folder does not exist")
    problems: list[Problem] = []
    config = BenchmarkConfig()
    try:
        config = load_config(root)
    except InputError as exc:
        problems.append(_error("benchmark.toml", exc.pointer, exc.reason))
    ids: dict[str, list[str]] = {}
    for folder in ("schemas", "labels"):
        try:
            ids[folder] = list_ids(root, folder)
        except InputError as exc:
            problems.append(_error(exc.file, exc.pointer, exc.reason))
            ids[folder] = []
    labels, schemas = ids["labels"], set(ids["schemas"])
    if not labels and (root / "labels").is_dir():
        problems.append(_error("labels/", "", "no label files (labels/<id>.json)"))
    for doc_id in labels:
        problems += _check_document(root, doc_id, doc_id in schemas)
    for doc_id in sorted(schemas - set(labels)):
        problems.append(_warning(f"schemas/{doc_id}.json", "", "no label: not scored"))
    problems += _check_results(root, labels)
    try:
        _, meta_warnings = load_metadata(root, config, tuple(labels))
    except InputError as exc:
        problems.append(_error(exc.file, exc.pointer, exc.reason))
    else:
        problems += [_warning(w.split(": ", 1)[0], "", w.split(": ", 1)[1]) for w in meta_warnings]
    return problems


def _check_document(root: Path, doc_id: str, has_schema: bool) -> list[Problem]:
    label_file, schema_file = f"labels/{doc_id}.json", f"schemas/{doc_id}.json"
    if not has_schema:
        return [_error(label_file, "", f"no schema {schema_file}")]
    schema, problems = _load(root, schema_file)
    label, label_problems = _load(root, label_file)
    problems += label_problems
    if schema is None:
        return problems
    schema_problems = list(check_schema(schema, schema_file))
    problems += schema_problems
    if label is not None and not schema_problems:
        problems += check_label(label, schema, label_file, schema_file)
    return problems


def _check_results(root: Path, labels: list[str]) -> list[Problem]:
    problems: list[Problem] = []
    try:
        systems = list_systems(root)
    except InputError as exc:
        return [_error(exc.file, exc.pointer, exc.reason)]
    known = set(labels)
    for system in systems:
        folder = root / "results" / system
        names = sorted(p.name for p in folder.iterdir())
        for name in names:
            stem = name[: -len(".json")] if name.endswith(".json") else None
            if stem not in known:
                problems.append(_warning(f"results/{system}/{name}", "",
                                         "not a result of a labelled document: ignored"))
        for doc_id in labels:
            rel = f"results/{system}/{doc_id}.json"
            if not (folder / f"{doc_id}.json").exists() and not (
                folder / f"{doc_id}.json"
            ).is_symlink():
                problems.append(_warning(rel, "", "missing result (shown in coverage)"))
                continue
            value, found = _load(root, rel, result=True)
            problems += found
            if value is not None:
                problems += check_envelope(value, rel)
    return problems
