"""Checks of a benchmark folder, yielding every problem found as a ``Problem`` record.

What is checked (issue 4, item 1):

* ids agree across ``schemas/``, ``labels/`` and ``results/<system>/``;
* each schema is a valid JSON Schema (the metaschema of its ``$schema`` draft, 2020-12
  when absent; python-jsonschema's ``check_schema`` rules);
* each valid schema is linted (:mod:`leafscore.lint`, issue 24): unknown keywords and
  formats, keywords that cannot apply where they stand, each a warning with its pointer
  and a suggestion (an error under ``strict``, ``validate --strict``);
* each label is valid against its schema: every violation, with the label file and the
  JSON pointer of the value at fault;
* result envelopes are well-formed (JSON objects with a ``data`` member);
* ``benchmark.toml`` and the metadata file read cleanly.

Errors make ``leafscore validate`` exit 1; warnings are listed apart and never change the
exit code. Errors are faults of the benchmark itself (schemas, labels, ids, config,
metadata, unsafe paths). A result is a system's output, and every bad one has a defined
outcome when scored (a parse failure, or a missing result), so result problems (not
JSON, not an object, no ``data``, ``"status": "failed"``, missing) are warnings.

A scoring run checks its labels against their schemas too, and warns (``LabelChecks``,
``label_warnings``): each label's outcome is kept in the cache, so a warm rerun validates
nothing again.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import scorer
from leafscore import early, files, versions
from leafscore.benchmark import (
    Benchmark,
    RawResult,
    label_ids,
    list_ids,
    list_systems,
    load_metadata,
    raw_result,
    read_result,
    result_folder_problems,
)
from leafscore.cache import Cache, code_digest
from leafscore.config import BenchmarkConfig, load_config
from scorer import InputError

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


#: RFC 6901 pointer of a key/index sequence (defined once, in scorer.py).
json_pointer = scorer.json_pointer


def _error(file: str, pointer: str, message: str) -> Problem:
    return Problem("error", file, pointer, message)


def _warning(file: str, pointer: str, message: str) -> Problem:
    return Problem("warning", file, pointer, message)


def _from_input_error(exc: InputError, file: str) -> Problem:
    return _error(file, exc.pointer, exc.reason)


#: :func:`_load`'s value for a file it could not read (a file holding ``null`` reads None)
UNREAD: Any = type("Unread", (), {"__slots__": (), "__repr__": lambda self: "UNREAD"})()


def _load(root: Path, rel: str) -> tuple[Any, list[Problem]]:
    """A JSON file's value (:data:`UNREAD` on failure) and the problems met reading it.

    A path escaping ROOT is an error, and so is unreadable content.
    """
    try:
        path = files.safe_child(root, rel)
    except InputError as exc:
        return UNREAD, [_from_input_error(exc, rel)]
    try:
        loaded = scorer.read_json_file(path)
    except InputError as exc:
        return UNREAD, [_from_input_error(exc, rel)]
    return loaded.value, [_warning(rel, "", _strip_source(w, path)) for w in loaded.warnings]


def _strip_source(warning: str, path: Path) -> str:
    prefix = f"{path}: "
    return warning[len(prefix):] if warning.startswith(prefix) else warning


def check_schema(schema: Any, file: str) -> Iterator[Problem]:
    """Every metaschema violation of ``schema`` (pointer into the schema)."""
    if not isinstance(schema, dict | bool):
        yield _error(file, "", "a JSON Schema is an object or a boolean, not "
                     f"{scorer._kind(schema)}")
        return
    import jsonschema  # loaded by the first check: a warm run checks nothing

    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    meta = cls(cls.META_SCHEMA)
    for err in sorted(meta.iter_errors(schema), key=lambda e: list(map(str, e.absolute_path))):
        yield _error(file, json_pointer(err.absolute_path), f"invalid schema: {err.message}")


def check_lint(schema: Any, file: str, strict: bool = False) -> list[Problem]:
    """The schema lint findings of a valid schema (:mod:`leafscore.lint`: unknown keywords
    and formats, keywords that cannot apply where they stand), each a warning naming the
    pointer and the suggestion; errors when ``strict``."""
    from leafscore import lint

    level = "error" if strict else "warning"
    return [Problem(level, file, found.pointer, found.message)
            for found in lint.lint_schema(schema)]


def _path_key(path: Iterable[Any]) -> tuple[tuple[int, int | str], ...]:
    """Sort key of a key/index path: indexes in numeric order, before keys."""
    return tuple((0, p) if isinstance(p, int) else (1, str(p)) for p in path)


def check_label(label: Any, schema: Any, label_file: str, schema_file: str,
                readings: bool = False) -> Iterator[Problem]:
    """Every violation of ``schema`` by ``label`` (pointer into the label).

    A ``null`` where the schema's type does not allow it is read as absent (spec 2.0
    §3: empty and absent are the same), so these are summed up in one warning per file
    instead of one error each. With ``readings`` (version 2.1, spec 2.1 §6) each reading
    of a ``{"$anyOf": [...]}`` value is checked in its place, its faults named at
    ``.../$anyOf/<k>``; a misplaced or malformed one is :func:`check_readings`'s.

    A label that is not a JSON object where its schema describes one is one error, under
    every version (version 1.0 scores it, as DocuBench's scorer does, but it holds no
    field to score), with the words 2.x refuses it with (:func:`check_metric`).
    """
    if not isinstance(label, dict) and _describes_object(schema):
        yield _error(label_file, "", f"the label must be a JSON object, not {scorer._kind(label)}")
        return
    import jsonschema  # loaded by the first check: a warm run checks nothing
    import referencing
    import referencing.exceptions

    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    # An empty registry: $ref resolves inside the schema only, as the scorer resolves it
    # (no network, no file outside ROOT).
    validator = cls(schema, registry=referencing.Registry(), format_checker=cls.FORMAT_CHECKER)
    places = _readings_places(label) if readings else {}
    variants = [label] if not places else [
        _reading(label, places, k) for k in range(max(map(len, places.values())))]
    found: dict[tuple[str, str], Any] = {}
    try:
        for k, variant in enumerate(variants):
            for err in validator.iter_errors(variant):
                path = list(err.absolute_path)
                at = next((p for p in places if tuple(path[:len(p)]) == p), None)
                if at is not None:  # inside one reading: named as the label wrote it
                    path = [*at, "$anyOf", min(k, len(places[at]) - 1), *path[len(at):]]
                where = json_pointer(err.absolute_schema_path)
                key = (json_pointer(path), f"{err.message}#{where}")
                found.setdefault(key, (path, err))
    except referencing.exceptions.Unresolvable as exc:  # its reference, never the schema
        ref = getattr(exc, "ref", "") or "?"
        yield _error(schema_file, "", f"unresolvable $ref to {ref!r}: labels not checked "
                     "against this schema")
        return
    except Exception as exc:  # a keyword jsonschema cannot apply: "pattern": "(", "enum": 5
        kind = "invalid regular expression" if isinstance(exc, re.error) else \
            type(exc).__name__
        yield _error(schema_file, "", f"cannot be applied to a label ({kind}: {exc}): labels "
                     "not checked against this schema")
        return
    errors = sorted(found.values(), key=lambda pe: (_path_key(pe[0]),
                                                    _path_key(pe[1].absolute_schema_path)))
    nulls = [(p, e) for p, e in errors if e.validator == "type" and e.instance is None]
    for path, err in errors:
        if err.validator == "type" and err.instance is None:
            continue
        where = json_pointer(err.absolute_schema_path)
        yield _error(label_file, json_pointer(path),
                     f"{err.message} (schema {schema_file}#{where})")
    if nulls:
        first = json_pointer(nulls[0][0])
        yield _warning(label_file, first, f"{len(nulls)} null value(s) where the schema's "
                       "type has no null (first here); read as absent")


def _describes_object(schema: Any) -> bool:
    """Whether ``schema`` compiles to an object at its root (``scorer.compile_schema``),
    as 2.x requires of a label then; False for a schema it refuses (named elsewhere)."""
    try:
        return isinstance(scorer.compile_schema(schema), scorer.ObjectNode)
    except (scorer.ScoringError, RecursionError):
        return False


def _readings_places(value: Any, path: tuple = ()) -> dict[tuple, list]:
    """Path -> readings of every well-formed ``{"$anyOf": [scalars]}`` in a label."""
    if isinstance(value, dict):
        if scorer.is_readings(value):
            return {path: value["$anyOf"]}
        return {k: v for name, child in value.items()
                for k, v in _readings_places(child, (*path, name)).items()}
    if isinstance(value, list):
        return {k: v for i, child in enumerate(value)
                for k, v in _readings_places(child, (*path, i)).items()}
    return {}


def _reading(value: Any, places: dict[tuple, list], k: int, path: tuple = ()) -> Any:
    """The label with each alternative reading replaced by its ``k``-th (its last when it
    has fewer)."""
    if path in places:
        readings = places[path]
        return readings[min(k, len(readings) - 1)]
    if isinstance(value, dict):
        return {name: _reading(child, places, k, (*path, name)) for name, child in value.items()}
    if isinstance(value, list):
        return [_reading(child, places, k, (*path, i)) for i, child in enumerate(value)]
    return value


def check_readings(label: Any, schema: Any, label_file: str, options: scorer.Options,
                   ) -> Iterator[Problem]:
    """Version 2.1's rule for alternative readings (spec 2.1 §6): ``{"$anyOf": [...]}``
    only at a scalar leaf, alone in its object, holding a non-empty array of scalars;
    anything else is a label error at its pointer. (A schema the metric refuses is
    :func:`check_metric`'s to report.)"""
    try:
        root = scorer.compile_schema(schema, options=options, v21=True)
    except (scorer.ScoringError, RecursionError):
        return
    walker = scorer.Walker(scorer.COMPARATORS_2_1, scorer.pair_2_1, readings=True)
    stack: list[tuple[Any, Any, tuple]] = [(root, label, ())]
    while stack:
        node, value, path = stack.pop()
        if isinstance(value, dict) and "$anyOf" in value:
            fault = _readings_fault(node, value)
            if fault:
                yield _error(label_file, json_pointer(path), fault)
            continue
        if isinstance(value, dict):
            members = dict(walker.members(node, value)) \
                if isinstance(node, scorer.ObjectNode) else {}
            stack += [(members.get(name, scorer.IGNORED), child, (*path, name))
                      for name, child in reversed(value.items())]
        elif isinstance(value, list):
            items = node.items if isinstance(node, scorer.ArrayNode) else scorer.IGNORED
            stack += [(items, child, (*path, i)) for i, child in reversed(list(enumerate(value)))]


def _readings_fault(node: Any, value: dict) -> str:
    """What is wrong with a ``$anyOf`` member where it stands ('' when nothing is)."""
    readings = value["$anyOf"]
    if isinstance(node, scorer.ObjectNode | scorer.ArrayNode):
        kind = "an object" if isinstance(node, scorer.ObjectNode) else "an array"
        return (f"alternative readings stand only at a scalar leaf; the schema has {kind} "
                "here (spec 2.1 §6)")
    if node is scorer.IGNORED:
        return "alternative readings stand only at a scored scalar leaf (spec 2.1 §6)"
    if len(value) != 1:
        return '"$anyOf" must be the only member of alternative readings (spec 2.1 §6)'
    if not isinstance(readings, list) or not readings:
        return '"$anyOf" must hold a non-empty array of readings (spec 2.1 §6)'
    if any(isinstance(r, dict | list) for r in readings):
        return "each alternative reading must be a scalar, not an object or array " \
            "(spec 2.1 §6)"
    return ""


def check_metric(schema: Any, label: Any, schema_file: str, record: scorer.ScoringVersion,
                 options: scorer.Options, label_file: str = "") -> Iterator[Problem]:
    """What the metric itself refuses: the label scored against itself under the pinned
    version raises ``scorer.ScoringError`` exactly where scoring would (an unknown
    ``x-leafscore`` option, an unresolvable ``$ref``, a schema 1.0 has no answer for, a
    label that is not an object), naming the file and the JSON pointer."""
    try:
        record.document(schema, label, options, schema_file, label_file).score(label)
    except scorer.ScoringError as exc:
        yield _error(exc.file or schema_file, exc.pointer, exc.reason)


def check_result(raw: RawResult, record: scorer.ScoringVersion, schema: Any) -> Iterator[Problem]:
    """What ``score`` will do with one result file: the same reader and envelope rule
    (``benchmark.read_result``), each odd thing as a warning; plus an envelope read only
    because its ``data`` member is undeclared (no ``status``)."""
    read = read_result(raw, record, schema)
    for warning in read.warnings:
        place, _, message = warning.removeprefix(raw.file).partition(": ")
        yield _warning(raw.file, place.removeprefix(":"), message)
    if (read.status == "scored" and raw.data is not None and record.has_verdicts
            and b'"status"' not in raw.data):
        try:
            value = scorer.parse_json(raw.data, raw.file).value
        except scorer.InputError:
            return
        if scorer.is_envelope(value, schema):
            yield _warning(raw.file, "/data", "no 'status' member: read as an envelope because "
                           "the schema does not declare 'data' (add \"status\": \"ok\")")


def validate_folder(root: Path, version: str | None = None, *,
                    engine: str | None = None, strict: bool = False) -> list[Problem]:
    """Every problem of the benchmark at ``root``, errors and warnings, in file order.

    Checks with the metric itself, under ``version`` as the engine ``engine`` scores it
    (``versions.resolve``: default the config's pin, else ``scorer.DEFAULT_VERSION``; the
    engine ``versions.choose_engine``'s): each schema compiled and each label scored
    against itself (:func:`check_metric`), each result read by the same reader and
    envelope rule as ``score`` (:func:`check_result`). Raises ``InputError`` (exit 2)
    where every scoring command stops too, in their order: ``root`` is not a folder, its
    ``labels/`` is missing, holds a file that cannot name a document or no label file
    (:func:`label_ids`), or there is no system folder under ``results/``; ``ValueError``
    for an unknown version or engine.
    Schema lint findings (:func:`check_lint`) are warnings, errors when ``strict``.
    """
    root = Path(root)
    if not root.is_dir():
        raise InputError(str(root), "", "benchmark folder does not exist")
    problems: list[Problem] = []
    config = BenchmarkConfig()
    try:
        config = load_config(root)
    except InputError as exc:
        problems.append(_error(scorer.CONFIG_NAME, exc.pointer, exc.reason))
    record = versions.resolve(version, config.scoring_version, engine=engine)
    labels, systems = label_ids(root), list_systems(root)  # the order every command checks
    try:
        schemas = set(list_ids(root, "schemas"))
    except InputError as exc:
        problems.append(_error(exc.file, exc.pointer, exc.reason))
        schemas = set()
    docs: dict[str, Any] = {}
    used, resolve_problems = document_schemas(root, config, labels, schemas)
    problems += resolve_problems
    for doc_id in labels:
        found, schema = _check_document(root, doc_id, used.get(doc_id), record, config.options,
                                        strict)
        problems += found
        docs[doc_id] = schema
    in_use = {name[len("schemas/"):-len(".json")] for name in used.values()}
    for doc_id in sorted(schemas - set(labels) - in_use):
        problems.append(_warning(f"schemas/{doc_id}.json", "", "no label: not scored"))
    problems += _check_results(root, docs, record, systems)
    try:
        _, meta_warnings = load_metadata(root, config, tuple(labels))
    except InputError as exc:
        problems.append(_error(exc.file, exc.pointer, exc.reason))
    else:
        problems += [_warning(w.split(": ", 1)[0], "", w.split(": ", 1)[1]) for w in meta_warnings]
    return list(dict.fromkeys(problems))  # a shared schema's problems are said once


def document_schemas(root: Path, config: BenchmarkConfig, labels: Iterable[str],
                     schemas: Iterable[str]) -> tuple[dict[str, str], list[Problem]]:
    """doc id -> the schema file it is scored with (``"schemas/invoice.json"``, by
    ``scorer.schema_name``, the one rule), and an error for each document it names none
    for. A metadata file that cannot be read is ``load_metadata``'s error to report."""
    source, records, unread = scorer.CONFIG_NAME, {}, False
    if config.schema_by is not None:
        try:
            source, records = scorer.schema_records(root, config.metadata)
        except InputError:
            unread = True
    names: dict[str, str] = {}
    problems: list[Problem] = []
    known = set(schemas)
    for doc_id in labels:
        pointer, found = records.get(doc_id, ("schema_by" if source == scorer.CONFIG_NAME
                                              else "", None))
        try:
            names[doc_id] = "schemas/" + scorer.schema_name(
                doc_id, known, config.schema, config.schema_by, found, (source, pointer))
        except InputError as exc:
            if not unread:
                problems.append(_error(exc.file, exc.pointer, exc.reason))
    return names, problems


def schema_uses(root: Path) -> dict[str, str]:
    """doc id -> the schema file each labelled document of ``root`` is scored with (for
    ``validate``'s listing); documents it names none for (an error) are left out."""
    try:
        config, labels = load_config(root), list_ids(root, "labels")
        return document_schemas(root, config, labels, list_ids(root, "schemas"))[0]
    except InputError:
        return {}


def _check_document(root: Path, doc_id: str, schema_file: str | None,
                    record: scorer.ScoringVersion, options: scorer.Options,
                    strict: bool = False) -> tuple[list[Problem], Any]:
    """The problems of one document's schema (``schema_file``, None when it has none:
    :func:`document_schemas` said so) and label, and its schema (None if unread)."""
    label_file = f"labels/{doc_id}.json"
    if schema_file is None:
        return [], None
    schema, problems = _load(root, schema_file)
    label, label_problems = _load(root, label_file)
    problems += label_problems
    if schema is UNREAD:
        return problems, None
    schema_problems = list(check_schema(schema, schema_file))
    problems += schema_problems
    if not schema_problems:
        problems += check_lint(schema, schema_file, strict)
    if label is not UNREAD and not schema_problems:
        readings = record.reads_readings
        checked = list(check_label(label, schema, label_file, schema_file, readings))
        if readings:
            checked += check_readings(label, schema, label_file, options)
        metric = list(check_metric(schema, label, schema_file, record, options, label_file))
        problems += [p for p in _once(checked, metric) if p not in metric] + metric
    return problems, schema


def _once(checked: list[Problem], metric: list[Problem]) -> list[Problem]:
    """``checked`` without its unresolvable-``$ref`` line when the metric names the
    ``$ref`` at its pointer (one error for one fault)."""
    if not any("$ref" in p.message and "cannot be resolved" in p.message for p in metric):
        return checked
    return [p for p in checked if not p.message.startswith("unresolvable $ref")]


def _check_results(root: Path, docs: dict[str, Any], record: scorer.ScoringVersion,
                   systems: list[str]) -> list[Problem]:
    left_aside = result_folder_problems(root, systems, docs)
    problems = [_warning(file, "", message) for file, message in left_aside
                if not file.startswith(tuple(f"results/{system}/" for system in systems))]
    for system in systems:
        problems += [_warning(file, "", message) for file, message in left_aside
                     if file.startswith(f"results/{system}/")]
        for doc_id, schema in docs.items():
            raw = raw_result(root, system, doc_id, scorer.MAX_FILE_BYTES)
            if raw.data is None and not raw.problem:
                problems.append(_warning(raw.file, "", "missing result: "
                                         f"{record.missing_rule} (shown in coverage)"))
                continue
            problems += check_result(raw, record, schema)
    return problems


# ------------------------------------------------------------------------------------
# The label checks of a scoring run: warnings, kept in the cache
# ------------------------------------------------------------------------------------


def label_warnings(bench: Benchmark, cache: Cache | None = None, *,
                   readings: bool = True) -> list[str]:
    """One line per label that violates its schema, then a count (empty when none); one
    line per schema that cannot check its labels (a keyword jsonschema cannot apply).

    ``cache``: where each label's outcome is kept, keyed by the schema's and label's
    digests, their file names, and the validating code and library versions, so a rerun
    over unchanged labels validates none of them again (a miss validates as usual); the
    outcomes of a whole benchmark are also kept as one entry, so such a rerun reads one
    file. ``readings``: the version reads alternative readings (2.1 on; :func:`check_label`).
    """
    checks = LabelChecks(bench, cache, readings=readings)
    for step in checks.steps:
        step()
    return checks.warnings()


class LabelChecks:
    """The label checks of a benchmark (:func:`label_warnings`), as ``steps`` to call
    (one per label, none when the cache holds the whole benchmark's), so a run can make
    them while its batches are scored elsewhere (``runner.score_benchmark``'s
    ``alongside``), or hand them to a process of their own (:meth:`start_beside`) while
    it scores here; :meth:`warnings` once every step is done. ``readings``: the version
    reads alternative readings in labels (2.1 on)."""

    def __init__(self, bench: Benchmark, cache: Cache | None = None, *,
                 readings: bool = True) -> None:
        self.readings = readings
        # a folder of its own inside the cache, so cell entries and label checks never mix
        self.store = cache.part("label-checks") if cache is not None else Cache(None)
        self.documents = bench.documents
        self.keys: list[str | None] = [_label_check_key(doc, readings)
                                       for doc in bench.documents] \
            if self.store.directory is not None else [None] * len(bench.documents)
        self.whole = _sha256("label-checks", *self.keys) \
            if self.store.directory is not None and self.keys else ""
        found = self.store.get(self.whole) if self.whole else None
        lines = found[0].get("label_checks") if found and isinstance(found[0], dict) else None
        self.beside: tuple[Any, Any, list[int]] | None = None  # (process, pipe, indexes)
        self.left: list[int] = []  # indexes a closed or failed child left unchecked
        self.fresh = False  # whether the whole benchmark's outcomes are to be stored
        if _lines_of(lines, len(self.documents)):
            self.lines, self.steps = lines, []
        else:  # checked here, beside or from each label's own entry: stored whole after
            self.lines, self.fresh = [None] * len(self.documents), True
            self.steps = self._steps(range(len(self.documents)))

    def _steps(self, indexes: Iterable[int]) -> list[Callable[[], None]]:
        """One step per label of ``indexes``: its check, made here when called."""
        return [functools.partial(self._check, i) for i in indexes]

    def _check(self, i: int) -> None:
        self.lines[i] = _checked_label(self.documents[i], self.store, self.keys[i],
                                       self.readings)

    def start_beside(self, processors: int | None = None) -> bool:
        """Hand the checks not yet made to a forked process, which makes them while this
        one scores (``jsonschema``'s import included); :meth:`warnings` takes their lines.
        Started only where that can help: ``fork`` available, ``processors`` (default:
        those this process may run on) at least 2, and checks to make. Returns True when
        ``steps`` has been taken (each label's line to come from the child, or all found
        in the cache), False when they are left to the caller. Not started in a daemonic process
        (a pool's worker may have no child), nor when the fork fails (the checks stay
        ``steps``). The child only checks: the cache is read and written here. A child
        that fails or dies is not trusted: ``warnings`` makes its checks here instead, so
        the lines are the same either way; :meth:`close` stops it early. The child is the
        program's early one (``early.take``) when it started one and the labels are not
        too large to send it (``early.ask``), else forked here."""
        from leafscore.executors import forks_help
        from leafscore.executors.beside import start_child, stop_child

        if not self.steps or not forks_help(processors):
            return False
        pending = []
        for i, key in enumerate(self.keys):
            held = _stored_label_check(self.store, key)
            if held is None:
                pending.append(i)
            else:
                self.lines[i] = held[0]
        self.steps = []
        if not pending:
            return True
        taken = early.take()  # the program's, forked before its imports: sent the labels
        if taken is not None:
            if early.ask(taken[1], check_beside, [self.documents[i] for i in pending],
                         self.readings):
                self.beside = (*taken, pending)
                return True
            stop_child(*taken)  # too much to send, or gone: a child forked now instead
        started = start_child(check_beside, (self.documents, pending, self.readings),
                              duplex=False)
        if started is None:  # no process to be had: checked here after all
            self.steps = self._steps(pending)
            return False
        self.beside = (*started, pending)
        return True

    def close(self) -> None:
        """Stop :meth:`start_beside`'s child if it is still checking and let it go (a run
        that fails before :meth:`warnings`, which would then make its checks here)."""
        if self.beside is None:
            return
        from leafscore.executors.beside import stop_child

        process, receiver, self.left = self.beside
        self.beside = None
        stop_child(process, receiver)

    def _take_beside(self) -> None:
        """The lines of :meth:`start_beside`'s child, each stored in the cache; left to
        be made here (``left``) when it sent none that fits (it failed or died)."""
        if self.beside is None:
            return
        process, receiver, pending = self.beside
        self.beside = None
        try:
            lines = receiver.recv()
        except (EOFError, OSError):  # died before sending
            lines = None
        finally:
            receiver.close()
            process.join()
        if not _lines_of(lines, len(pending)):
            self.left = pending  # made here by warnings, as a closed child's are
            return
        for i, line in zip(pending, lines, strict=True):
            self.lines[i] = line
            if self.keys[i] is not None:
                self.store.put(self.keys[i], {"label_check": line})

    def warnings(self) -> list[str]:
        """One line per label that violates its schema, then a count; the whole
        benchmark's outcomes stored when they were checked here or beside."""
        self._take_beside()
        for i in self.left:
            self._check(i)
        self.left = []
        if self.fresh and self.whole:
            self.store.put(self.whole, {"label_checks": self.lines})
        # a schema that cannot check its labels is one line, whatever their number
        out = list(dict.fromkeys(line for line in self.lines if line is not None))
        violating = sum(": violates its schema (" in line for line in out)
        if violating:
            out.append(f"{violating} label(s) violate their schema; run `leafscore validate`")
        return out


def _lines_of(lines: Any, many: int) -> bool:
    """Whether ``lines`` (from the cache or a child) is a list of ``many`` label-check
    lines, each a string or None."""
    return isinstance(lines, list) and len(lines) == many \
        and all(line is None or isinstance(line, str) for line in lines)


def check_beside(documents: Any, pending: list[int], readings: bool, sender: Any) -> None:
    """The label checks' child (:meth:`LabelChecks.start_beside`'s, or ``early``'s): the
    line of each pending label, sent as one list; nothing is sent when a check fails (the
    parent then checks them). Ctrl-C is left to the parent (``beside.start_child``)."""
    try:
        sender.send([_label_check(documents[i], readings) for i in pending])
    except Exception:  # the parent makes these checks itself, error and all
        pass
    finally:
        sender.close()


def _stored_label_check(store: Cache, key: str | None) -> tuple[str | None] | None:
    """``(line,)`` of one label's check as ``store`` holds it under ``key``, else None."""
    found = store.get(key) if key is not None else None
    line = found[0].get("label_check") if found and isinstance(found[0], dict) else None
    if found and isinstance(found[0], dict) and "label_check" in found[0] \
            and (line is None or isinstance(line, str)):
        return (line,)
    return None


def _checked_label(doc: Any, store: Cache, key: str | None, readings: bool) -> str | None:
    """The warning line of one label (``_label_check``), read from ``store`` under ``key``
    when it holds it, else checked and stored."""
    held = _stored_label_check(store, key)
    if held is not None:
        return held[0]
    line = _label_check(doc, readings)
    if key is not None:
        store.put(key, {"label_check": line})
    return line


def _label_check(doc: Any, readings: bool) -> str | None:
    """The warning line of one label that violates its schema, else ``None``."""
    found = [p for p in check_label(doc.label, doc.schema, doc.label_file, doc.schema_file,
                                    readings) if p.level == "error"]
    if not found:
        return None
    if found[0].file != doc.label_file:  # the schema cannot check it: the schema's fault
        return f"{found[0].file}: {found[0].message}; its labels scored as they are"
    where = f"#{found[0].pointer}" if found[0].pointer else "the root"
    return (f"{doc.label_file}: violates its schema ({len(found)} problem(s); "
            f"first at {where}: {found[0].message}); scored as it is")


def _label_check_key(doc: Any, readings: bool) -> str:
    """Cache key of one label's schema check: everything its warning line depends on."""
    return _sha256("label-check/1", code_digest(), _validator_version(), doc.schema_sha256,
                   doc.label_sha256, doc.schema_file, doc.label_file, str(readings))


def _sha256(*parts: str) -> str:
    """sha256 hex of ``parts`` joined by U+001F, which none of them holds."""
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


@functools.cache
def _validator_version() -> str:
    """The versions of the libraries and the module a label check runs on (this one)."""
    from importlib import metadata

    code = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
    return "|".join([code, *(f"{name}={metadata.version(name)}"
                             for name in ("jsonschema", "referencing"))])


# ------------------------------------------------------------------------------------
# JSONL mode
# ------------------------------------------------------------------------------------


def validate_jsonl(load: Callable[[], Benchmark], *, version: str | None = None,
                   engine: str | None = None, strict: bool = False) -> list[Problem]:
    """Every problem of a JSONL benchmark, errors and warnings, as :func:`validate_folder`
    finds them in a folder. ``load`` reads it (``api.load_jsonl_benchmark`` of the
    ``--gold/--pred/--schema`` files and the optional ``--config``): what stops reading
    (a gold line without an id, an unreadable schema, config or metadata file), an
    ``InputError``, is one error naming the file and line. Then the schema against its
    metaschema (once), every label against the schema and the metric, and every
    prediction as ``score`` reads it. A problem found once per document in the shared
    schema is listed once."""
    try:
        bench = load()
    except InputError as exc:
        return [_from_input_error(exc, exc.file)]
    record = versions.resolve(version, bench.config.scoring_version, engine=engine)
    problems: list[Problem] = []
    for warning in bench.warnings:
        place, _, message = warning.partition(": ")
        problems.append(_warning(place, "", message) if message
                        else _warning("", "", warning))
    for file, schema in {d.schema_file: d.schema for d in bench.documents}.items():
        found = list(check_schema(schema, file))  # each schema file once (a --schema folder)
        problems += found + ([] if found else check_lint(schema, file, strict))
    schema_ok = not any(p.level == "error" for p in problems)
    for doc in bench.documents:
        if schema_ok:
            checked = list(check_label(doc.label, doc.schema, doc.label_file,
                                       doc.schema_file, record.reads_readings))
            if record.reads_readings:
                checked += check_readings(doc.label, doc.schema, doc.label_file,
                                          bench.config.options)
            metric = list(check_metric(doc.schema, doc.label, doc.schema_file, record,
                                       bench.config.options, doc.label_file))
            problems += [p for p in _once(checked, metric) if p not in metric] + metric
    for system in bench.systems:
        for doc in bench.documents:
            raw = bench.results[(system, doc.id)]
            if raw.data is None and not raw.problem:
                problems.append(_warning(raw.file, "", f"no line for document {doc.id!r}: "
                                         f"missing result: {record.missing_rule} "
                                         "(shown in coverage)"))
                continue
            problems += check_result(raw, record, doc.schema)
    return list(dict.fromkeys(problems))
