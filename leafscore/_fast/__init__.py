"""The fast engine: the definition in ``scorer.py``, run faster, verdict for verdict.

Its modules (and numpy with them) are loaded by the first document it prepares, so a
run read from the cache never loads them.

``scorer.py`` states every scoring version plainly; this package runs the same rules
with the speed kept apart from them (STYLE.md §6, after CPython's ``heapq``/``_heapq`` and
RapidFuzz's ``*_py``/``*_cpp``):

* :mod:`~leafscore._fast.walker`: ``FastWalker`` extends ``scorer.Walker``: canonical
  values remembered per document (and short strings across documents), loose fields'
  candidates by bisection and ``rapidfuzz.cdist``;
* :mod:`~leafscore._fast.flat`: arrays of flat objects read and paired by columns;
* :mod:`~leafscore._fast.lazy`: other unordered arrays paired by bounds on each pair's
  counts, walking only the pairs a best assignment may use;
* :mod:`~leafscore._fast.solve`: version 2.0's solvers, compiled (scipy's own);
* :mod:`~leafscore._fast.rows`: verdicts made only when read;
* :mod:`~leafscore._fast.v1`: version 1.0's greedy pairing replayed in sparse or dense form;
* :mod:`~leafscore._fast.envelope`: version 2.x's envelope rule with a text ``data``'s
  code fence found in linear time (:mod:`leafscore.fence`);
* :mod:`~leafscore._fast.tuning`: every speed choice in one record; ``tuned(...)`` forces
  them (the tests run each both ways).

:func:`usable_for` is the one place that decides where a fast path applies. ``VERSIONS``
holds one record per scoring version, the definition's own with each document prepared
by this engine; :func:`score` is ``scorer.score`` on it. Tests run every scoring test on
both engines and compare them verdict row by verdict row (tests/test_two_engines.py);
``--engine reference`` (or ``LEAFSCORE_ENGINE=reference``) runs the definition instead.
"""

from __future__ import annotations

import dataclasses
import os
import pickle
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import scorer
from leafscore._fast import tuning
from leafscore._fast.envelope import linear_fence
from leafscore._fast.tuning import Tuning, tuned
from leafscore.canonical import json_text
from leafscore.collector import CollectorPaused

__all__ = ["VERSIONS", "CollectorPaused", "Tuning", "compile_schema", "score", "score_file",
           "score_parse_failure", "tuned", "usable_for"]


def usable_for(node: Any, depth: int = 0) -> str | None:
    """Which fast path reads and pairs the array ``node`` at data ``depth``: ``"flat"``
    (columns, :mod:`~leafscore._fast.flat`) for an unordered array of objects whose 1 to
    62 fields all compare by key equality; ``"lazy"`` (paired by bounds on each pair's
    counts, :mod:`~leafscore._fast.lazy`) for another unordered array whose leaves all
    compare by key equality; else None (the definition's walk, with the walker's memos
    and loose-field candidates)."""
    from leafscore._fast.walker import FastWalker, usable
    return usable(node, FastWalker(scorer.COMPARATORS, scorer.pair_2_0), depth)


# Compiled roots by (pickled schema, options, version rules), each with its schema text's
# length: equal pickles unpickle to equal values (types, written numbers and key order
# included), so equal nodes (never changed once built); pickle runs in C, some 7x faster
# than the schema's text. Scoring many systems on one schema compiles it once per
# process. Bounded by the texts' total size: a run goes system by system over every
# document, so this must hold every distinct schema of a corpus.
_COMPILED: dict[tuple[bytes, scorer.Options, bool], tuple[Any, int]] = {}
_COMPILED_TEXT = [0]


def compile_schema(schema: Any, *, options: scorer.Options | None = None,
                   file: str = "", v21: bool = False) -> Any:
    """``scorer.compile_schema``, remembered per schema value, options and version rules."""
    options = options or scorer.Options()
    try:
        key = (pickle.dumps(schema, 5), options, v21)
    except Exception:  # any value pickle refuses: compiled as it is
        return scorer.compile_schema(schema, options=options, file=file, v21=v21)
    found = _COMPILED.get(key)
    if found is not None:
        return found[0]
    try:  # JSON data only (only such a value was ever stored under a key)
        size = len(json_text(schema))
    except (TypeError, ValueError):  # not JSON data: compiled as it is
        return scorer.compile_schema(schema, options=options, file=file, v21=v21)
    node = scorer.compile_schema(schema, options=options, file=file, v21=v21)
    _COMPILED[key] = (node, size)
    _COMPILED_TEXT[0] += size
    while _COMPILED_TEXT[0] > tuning.TUNING.compiled_text_max and len(_COMPILED) > 1:
        _COMPILED_TEXT[0] -= _COMPILED.pop(next(iter(_COMPILED)))[1]
    return node


@dataclass(frozen=True)
class Document(scorer.Document):
    """``scorer.Document`` prepared and scored by the fast engine."""

    @classmethod
    def prepare(cls, version: str, walker: Any, schema: Any, label: Any,
                options: scorer.Options, file: str, label_file: str = "") -> Document:
        root = compile_schema(schema, options=options, file=file, v21=version != "2.0")
        with CollectorPaused():
            return cls(version, walker, root, label, walker.read(root, label, label=True),
                       file, label_file)

    def score(self, result: Any) -> scorer.DocScore:
        if isinstance(self.root, scorer.ObjectNode):
            if not isinstance(self.label, dict):
                raise scorer.ScoringError(self.label_file or self.file, "", "the label must "
                                          f"be a JSON object, not {scorer._kind(self.label)}")
            if not isinstance(result, dict):
                return self.parse_failure(result)
        from leafscore._fast import rows
        from leafscore._fast.walker import FastWalker
        out: list = []
        walker = FastWalker(self.walker.comparators, self.walker.rule, out,
                            self.walker.readings)
        from leafscore._fast.flat import forget_reads
        with CollectorPaused():
            try:
                walker.walk(self.root, self.label_read, walker.read(self.root, result), "", "",
                            out)
                return rows.summed(out, self.version, walker.exact)
            finally:
                forget_reads()  # past the bound: a large document's reads not kept

    def value(self, result: Any) -> float:
        """``scorer.Document.value``, walked by a walker of its own, as :meth:`score` is:
        a walker's per-document memos hold the result's reads, so none outlives its
        result (the preparing walker serves every result of the label)."""
        return scorer.Document.value(self._fresh(), result)

    def parse_failure(self, data: Any = None) -> scorer.DocScore:
        """``scorer.Document.parse_failure``, walked by a walker of its own."""
        return scorer.Document.parse_failure(self._fresh(), data)

    def _fresh(self) -> Document:
        from leafscore._fast.walker import FastWalker
        return dataclasses.replace(self, walker=FastWalker(
            self.walker.comparators, self.walker.rule, None, self.walker.readings))


def _document_2_0(schema: Any, label: Any, options: scorer.Options, file: str,
                  label_file: str = "") -> Document:
    from leafscore._fast.walker import FastWalker  # numpy with it: loaded by the first document
    return Document.prepare("2.0", FastWalker(scorer.COMPARATORS, scorer.pair_2_0), schema,
                            label, options, file, label_file)


def _document_2_1(schema: Any, label: Any, options: scorer.Options, file: str,
                  label_file: str = "") -> Document:
    from leafscore._fast.walker import FastWalker  # numpy with it: loaded by the first document
    return Document.prepare("2.1", FastWalker(scorer.COMPARATORS_2_1, scorer.pair_2_1,
                                              readings=True), schema, label, options, file,
                            label_file)


@dataclass(frozen=True)
class DocumentV1(scorer.DocumentV1):
    """``scorer.DocumentV1`` with each array's greedy pairing replayed fast (:mod:`v1`)."""

    def score(self, result: Any) -> scorer.DocScoreV1:
        from leafscore._fast import v1
        if self.problem is not None:
            raise self.problem
        try:
            result = scorer._v1_normalize(scorer._v1_strip(result), "result")
        except (scorer.ScoringError, RecursionError):
            result = {}
        return self.final({name: v1.array_score(scorer._v1_items(self.label, path),
                                                scorer._v1_items(result, path))
                           for name, path in self.arrays.items()}, result)


def _document_1_0(schema: Any, label: Any, options: scorer.Options, file: str,
                  label_file: str = "") -> DocumentV1:
    prepared = scorer.DocumentV1.prepare(schema, label, file)
    return DocumentV1(**{f.name: getattr(prepared, f.name)
                         for f in dataclasses.fields(prepared)})


#: Scoring version -> its record, each document prepared by this engine.
VERSIONS: dict[str, scorer.ScoringVersion] = {
    "1.0": dataclasses.replace(scorer.VERSIONS["1.0"], document=_document_1_0),
    "2.0": dataclasses.replace(scorer.VERSIONS["2.0"], document=_document_2_0,
                               envelope=linear_fence(scorer.VERSIONS["2.0"].envelope)),
    "2.1": dataclasses.replace(scorer.VERSIONS["2.1"], document=_document_2_1,
                               envelope=linear_fence(scorer.VERSIONS["2.1"].envelope)),
}


def score(result: Any, schema: Any, label: Any, *, version: str = scorer.DEFAULT_VERSION,
          options: scorer.Options | Mapping[str, Any] | None = None,
          file: str = "") -> scorer.DocumentScore:
    """``scorer.score`` run by the fast engine: the same arguments, return type and
    errors, the same verdicts row for row (see ``scorer.score``)."""
    record = VERSIONS[scorer.scoring_version(version).name]
    return record.document(schema, label, scorer._as_options(options), file).score(result)


def score_parse_failure(schema: Any, label: Any, *, version: str = scorer.DEFAULT_VERSION,
                        options: scorer.Options | Mapping[str, Any] | None = None,
                        file: str = "") -> scorer.DocumentScore:
    """``scorer.score_parse_failure`` run by the fast engine."""
    record = VERSIONS[scorer.scoring_version(version).name]
    return record.document(schema, label, scorer._as_options(options), file).parse_failure()


def score_file(result: str | os.PathLike[str], schema: str | os.PathLike[str],
               label: str | os.PathLike[str], *, version: str = scorer.DEFAULT_VERSION,
               options: scorer.Options | Mapping[str, Any] | None = None,
               ) -> scorer.DocumentScore:
    """``scorer.score_file`` run by the fast engine: the same reader and envelope rule."""
    record = VERSIONS[scorer.scoring_version(version).name]
    schema_value = scorer.read_json_file(schema).value
    label_value = scorer.read_json_file(label).value
    return record.score_outcome(scorer.read_outcome(Path(result), schema_value, record),
                                schema_value, label_value, scorer._as_options(options),
                                str(schema))
