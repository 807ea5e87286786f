"""The fast engine's speed paths change no score (issue 15, restated for issue 20).

Each path is checked through what ``leafscore._fast`` offers, against the path not
taken (``tuned(...)`` forces each choice) and against the definition (``scorer.py``):

* a schema scored for 50 systems is compiled once (``compile_schema`` remembers nodes by
  schema text, within a text budget);
* ``DocScore.verdicts`` is a ``rows.Verdicts``: counted without being made, made when first
  read, equal to the definition's tuple and pickled as one;
* the solver shortcut (no row or column with two candidates) and the directly loaded
  scipy solver agree with scipy;
* ``import scorer`` loads no optional library; scoring loads no ``scipy.optimize``;
* flat arrays read and paired by columns give the rows of the generic walk;
* remembered canonical texts and dates are fresh readings;
* canonical JSON bytes take a shortcut only where it gives ``json.dumps``'s bytes.
"""

from __future__ import annotations

import collections
import copy
import json
import pickle
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scorer
from leafscore import _fast
from leafscore._fast import rows, solve
from leafscore._fast.walker import FastWalker
from leafscore.canonical import canonical_bytes, canonical_json, json_text
from leafscore.cells import score_from_dict

REPO = Path(__file__).resolve().parent.parent

SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "total": {"type": "number"},
        "rows": {"type": "array", "items": {"type": "object", "properties": {
            "sku": {"type": "string"}, "qty": {"type": "integer"}, "when": {
                "type": "string", "format": "date"}}}},
    },
}


def _document(rng: random.Random) -> dict:
    return {
        "id": rng.choice(["A-1", "a1", "B-2", None]),
        "total": rng.choice([1, 1.0, "1,00", 2.5, None]),
        "rows": [{"sku": rng.choice(["x", "y", "z", ""]), "qty": rng.choice([1, 2, "2", None]),
                  "when": rng.choice(["2024-01-02", "01/02/2024", "soon"])}
                 for _ in range(rng.randrange(0, 8))],
    }


def same(a, b) -> bool:
    """Whether two document scores print alike, verdicts and value types included."""
    return repr(a.to_dict(verdicts=True)) == repr(b.to_dict(verdicts=True))


# ----- the compiled schema is remembered by its text ----------------------------------

def test_fifty_systems_on_one_schema_compile_it_once():
    schema = copy.deepcopy(SCHEMA)
    schema["properties"]["note"] = {"type": "string", "description": "issue 15, unique"}
    first = _fast.compile_schema(schema)
    # each system's call passes an equal, separately built schema
    assert all(_fast.compile_schema(copy.deepcopy(schema)) is first for _ in range(50))


def test_a_schema_of_other_text_or_options_is_compiled_anew():
    schema = {"type": "object", "properties": {"n": {"type": "number"}}}
    first = _fast.compile_schema(schema)
    assert _fast.compile_schema({**schema, "title": "t"}) is not first
    assert _fast.compile_schema(schema, options=scorer.Options(abs_tol=1)) is not first


def test_two_thousand_schemas_scored_system_after_system_stay_compiled():
    schemas = [{"type": "object", "properties": {f"g{n}": {"type": "string"}}}
               for n in range(2000)]
    first = [_fast.compile_schema(schema) for schema in schemas]
    for _ in range(2):  # two more systems, each over every document in turn
        assert all(_fast.compile_schema(copy.deepcopy(schema)) is node
                   for schema, node in zip(schemas, first, strict=True))


def test_compiled_schemas_are_kept_within_their_text_budget():
    schemas = [{"type": "object", "properties": {f"f{n:03d}": {"type": "string"}}}
               for n in range(20)]
    assert {len(json_text(schema)) for schema in schemas} == {57}  # 5 fit in 300 bytes
    with _fast.tuned(compiled_text_max=300):
        nodes = [_fast.compile_schema(schema) for schema in schemas]
        assert [_fast.compile_schema(schema) is node for schema, node in
                zip(schemas[-5:], nodes[-5:], strict=True)] == [True] * 5  # still held
        assert _fast.compile_schema(schemas[0]) is not nodes[0]  # dropped, compiled anew
        assert _fast.compile_schema(schemas[-6]) is not nodes[-6]


# ----- verdicts made when read ---------------------------------------------------------

def test_a_fast_score_holds_its_verdicts_unmade_until_they_are_read():
    doc = _fast.score(_document(random.Random(3)), SCHEMA, _document(random.Random(4)))
    assert isinstance(doc.verdicts, rows.Verdicts)
    assert not doc.verdicts.made
    assert doc.counts["correct"] == 2 and not doc.verdicts.made  # counted, not made
    assert len(doc.verdicts) == 7
    assert doc.verdicts.made


def test_the_verdict_tally_is_counted_from_unmade_rows_in_first_seen_order():
    result, label = _document(random.Random(3)), _document(random.Random(4))
    doc = _fast.score(result, SCHEMA, label)
    tally = rows.verdict_tally(doc)
    assert not doc.verdicts.made
    definition = scorer.score(result, SCHEMA, label)
    assert list(tally.items()) == list(rows.verdict_tally(definition).items())
    assert list(tally.items()) == list(collections.Counter(
        (v.field, v.kind) for v in definition.verdicts).items())


def test_a_scores_tally_is_the_one_its_counts_were_summed_from_and_each_caller_owns_it():
    result, label = _document(random.Random(3)), _document(random.Random(4))
    doc = _fast.score(result, SCHEMA, label)
    assert doc.verdicts._counted is not None  # kept by rows.summed: not counted again
    first = doc.verdicts.tally()
    assert first == rows._tally(doc.verdicts._out)
    first[("x", "correct")] = 99  # a copy: the next caller's is untouched
    assert doc.verdicts.tally() == rows._tally(doc.verdicts._out)
    counted = collections.Counter((v.field, v.kind) for v in doc.verdicts)
    assert list(doc.verdicts.tally().items()) == list(counted.items())  # made, still equal


@pytest.mark.parametrize("seed", range(40))
def test_verdicts_made_when_read_equal_the_definitions(seed):
    rng = random.Random(seed)
    label, result = _document(rng), _document(rng)
    doc = _fast.score(result, SCHEMA, label)
    again = pickle.loads(pickle.dumps(doc))  # before .verdicts was ever read
    assert type(again.verdicts) is tuple
    definition = scorer.score(result, SCHEMA, label)
    assert doc == definition == again
    assert doc.verdicts == definition.verdicts == tuple(doc.verdicts)
    assert all(type(v) is scorer.Verdict for v in doc.verdicts)
    assert doc.verdicts is doc.verdicts  # one sequence, made once
    assert score_from_dict(doc.to_dict(verdicts=True)) == doc


@pytest.mark.parametrize("seed", range(20))
def test_counts_summed_from_rows_equal_counts_summed_from_the_verdicts(seed):
    rng = random.Random(seed)
    doc = _fast.score(_flat_document(rng), FLAT_SCHEMA, _flat_document(rng))
    summed = doc.to_dict()
    built = scorer.DocScore.from_verdicts(doc.verdicts, version=doc.version, exact=doc.exact)
    assert repr(summed) == repr(built.to_dict())
    assert repr(doc.to_dict(verdicts=True)) == repr(built.to_dict(verdicts=True))


@pytest.mark.parametrize("seed", range(20))
def test_error_kinds_from_the_verdict_rows_equal_those_from_the_verdicts(engine, seed):
    from leafscore.fields import error_kinds, error_kinds_of

    rng = random.Random(seed)
    doc = engine.score(_flat_document(rng), FLAT_SCHEMA, _flat_document(rng))
    assert error_kinds_of(doc) == error_kinds(doc.verdicts)


@pytest.mark.parametrize("seed", range(5))
def test_error_kinds_of_a_fast_score_make_no_verdict(seed):
    from leafscore.fields import error_kinds_of

    rng = random.Random(seed)
    doc = _fast.score(_flat_document(rng), FLAT_SCHEMA, _flat_document(rng))
    error_kinds_of(doc)
    assert not doc.verdicts.made


def test_a_cell_kept_without_verdicts_makes_no_verdict():
    # what a run keeping no verdicts does with each document's score (runner, cells)
    from leafscore import cells

    rng = random.Random(6)
    doc = _fast.score(_flat_document(rng), FLAT_SCHEMA, _flat_document(rng))
    kept = cells.folded(cells.Cell("scored", doc, ()), verdicts=False)
    assert kept.score.verdicts == () and kept.errors
    assert not doc.verdicts.made


# ----- the solvers -----------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(30))
def test_the_solver_shortcut_agrees_with_scipy(seed):
    # a matching (no row or column twice) is returned as it is; scipy finds the same
    from scipy.optimize import linear_sum_assignment

    rng = np.random.default_rng(seed)
    n_rows, n_cols = (int(x) for x in rng.integers(1, 400, 2))
    k = int(rng.integers(1, min(n_rows, n_cols) + 1))
    edges = dict(zip(zip(rng.choice(n_rows, k, replace=False).tolist(),
                         rng.choice(n_cols, k, replace=False).tolist(), strict=True),
                     rng.integers(1, 4, k).tolist(), strict=True))
    matrix = np.zeros((n_rows, n_cols))
    for (r, c), w in edges.items():
        matrix[r, c] = w
    theirs = [(int(r), int(c)) for r, c in zip(*linear_sum_assignment(matrix, maximize=True),
                                               strict=True) if matrix[r, c] > 0]
    assert solve.assign_2_0(n_rows, n_cols, edges) == scorer.assign_2_0(
        n_rows, n_cols, edges) == sorted(edges) == theirs


def test_the_directly_loaded_assignment_solver_is_scipys():
    from scipy.optimize import linear_sum_assignment

    rng = np.random.default_rng(3)
    for _ in range(200):  # small integer weights: many ties, so tie-breaking shows too
        matrix = rng.integers(0, 3, tuple(int(x) for x in rng.integers(1, 9, 2))) * 1.0
        mine = solve.linear_sum_assignment()(matrix, maximize=True)
        theirs = linear_sum_assignment(matrix, maximize=True)
        assert [a.tolist() for a in mine] == [a.tolist() for a in theirs]


def test_the_assignment_solver_falls_back_to_the_public_import(monkeypatch, tmp_path):
    import scipy
    from scipy.optimize import linear_sum_assignment

    (tmp_path / "optimize").mkdir()  # a scipy layout without the extension module
    monkeypatch.setattr(scipy, "__file__", str(tmp_path / "__init__.py"))
    solve.linear_sum_assignment.cache_clear()
    try:
        assert solve.linear_sum_assignment() is linear_sum_assignment
    finally:
        solve.linear_sum_assignment.cache_clear()


# ----- what is imported ------------------------------------------------------------------

def _fresh(code: str) -> subprocess.CompletedProcess:
    """``code`` run by a fresh interpreter in the repository (it must exit 0)."""
    return subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                          text=True, check=True)


def _loaded_after(code: str, libraries: set[str]) -> str:
    """Which of ``libraries`` a fresh interpreter holds after running ``code``."""
    code += (f"\nimport sys; print(sorted({{m.split('.')[0] for m in sys.modules}} & "
             f"set({sorted(libraries)!r})))")
    return _fresh(code).stdout.strip().splitlines()[-1]


def test_import_loads_no_optional_library():
    assert _loaded_after("import scorer", {"scipy", "rapidfuzz", "referencing"}) == "[]"


def test_the_cli_imports_no_scipy_until_a_command_needs_it():
    assert _loaded_after("import leafscore.cli",
                         {"scipy", "rapidfuzz", "pandas", "dask"}) == "[]"


_ASSIGNMENT = (
    "schema = {'type': 'object', 'properties': {'rows': {'type': 'array', 'items': "
    "{'type': 'object', 'properties': {'a': {'type': 'string'}, 'b': {'type': "
    "'string'}}}}}}\n"
    "label = {'rows': [{'a': 'x', 'b': 'p'}, {'a': 'x', 'b': 'q'}]}\n"
    "result = {'rows': [{'a': 'x', 'b': 's'}, {'a': 'x', 'b': 't'}]}\n")


def test_the_fast_engine_scores_a_2_0_assignment_without_the_scipy_optimize_package():
    code = ("import sys\nfrom leafscore import _fast\n" + _ASSIGNMENT
            + "print(_fast.score(result, schema, label, version='2.0').value)\n"
              "print('scipy.optimize' in sys.modules, 'scipy' in sys.modules)")
    done = _fresh(code)
    assert done.stdout.split() == ["0.5", "False", "True"]  # 2 x 2 candidates: solved


def test_the_fast_engine_settles_a_small_2_1_array_without_scipy():
    code = ("import sys\nfrom leafscore import _fast\n" + _ASSIGNMENT
            + "print(_fast.score(result, schema, label, version='2.1').value)\n"
              "print('scipy' in sys.modules)")
    done = _fresh(code)
    assert done.stdout.split() == ["0.5", "False"]  # under lexi_small_units: plain Python


def test_a_small_2_1_document_is_scored_without_importing_numpy():
    code = ("import sys\nfrom leafscore import _fast\n" + _ASSIGNMENT
            + "print(_fast.score(result, schema, label, version='2.1').value)\n"
              "print('numpy' in sys.modules)")
    done = _fresh(code)
    assert done.stdout.split() == ["0.5", "False"]  # the engine's np is not loaded yet


def test_the_engines_numpy_is_imported_at_its_first_use():
    code = ("import sys\nfrom leafscore._fast.numpy_lazy import np\n"
            "print('numpy' in sys.modules)\n"
            "print(np.arange(4).sum(), 'numpy' in sys.modules)\n"
            "import numpy\nprint(np.arange is numpy.arange, np.ndarray is numpy.ndarray)")
    done = _fresh(code)
    assert done.stdout.split() == ["False", "6", "True", "True", "True"]


def test_threads_reading_the_engines_numpy_first_all_get_numpy():
    code = ("import threading\nfrom leafscore._fast.numpy_lazy import np\n"
            "found = []\n"
            "def read():\n"
            "    found.append(int(np.zeros(3, np.int64).sum() + np.ones(2).size))\n"
            "threads = [threading.Thread(target=read) for _ in range(8)]\n"
            "[t.start() for t in threads]\n[t.join() for t in threads]\n"
            "print(found)")
    done = _fresh(code)
    assert done.stdout.split("\n")[0] == str([2] * 8)
    assert done.stderr == ""


def test_a_module_not_installed_fails_at_each_read():
    from leafscore._fast.numpy_lazy import Lazy

    missing = Lazy("no_such_module_here")
    for _ in range(2):
        with pytest.raises(ModuleNotFoundError, match="no_such_module_here"):
            missing.zeros  # noqa: B018 - the read is what is tested


def test_the_definition_scores_an_assignment_without_scipy():
    code = ("import sys, scorer\n" + _ASSIGNMENT
            + "print(scorer.score(result, schema, label).value)\n"
              "print('scipy' in sys.modules)")
    done = _fresh(code)
    assert done.stdout.split() == ["0.5", "False"]  # its dense solver is plain Python


# ----- flat arrays, a column at a time -----------------------------------------------------

FLAT_SCHEMA = {
    "type": "object",
    "properties": {"rows": {"type": "array", "items": {"type": "object", "properties": {
        "sku": {"type": "string"}, "qty": {"type": "integer"}, "price": {"type": "number"},
        "ok": {"type": "boolean"}, "when": {"type": "string", "format": "date"},
        "any": {}, "skip": {"type": "string", "x-leafscore": {"compare": "ignore"}},
        "odd.name": {"type": "string"}}}}},
}
_VALUES = ["x", "X ", "y", "", "  ", None, 1, 1.0, "1", "1,0", 2, True, "true", "no",
           "2024-01-02", "01/02/2024", "soon", [], {}, [1], {"a": 1}, {"a": None}, -0.0,
           0.0, "N/A", "\u2014", "-"]


def _flat_document(rng: random.Random) -> dict:
    fields = ["sku", "qty", "price", "ok", "when", "any", "skip", "odd.name", "extra"]
    rows = []
    for _ in range(rng.randrange(0, 40)):
        kind = rng.random()
        if kind < 0.05:
            rows.append(rng.choice([None, "", [], "row", 3, {}]))
            continue
        rows.append({f: rng.choice(_VALUES) for f in fields if rng.random() < 0.8})
    return {"rows": rows}


def test_the_flat_path_applies_to_unordered_arrays_of_key_compared_fields_only():
    root = scorer.compile_schema(FLAT_SCHEMA)
    assert _fast.usable_for(root.properties["rows"], 1) == "flat"
    loose = copy.deepcopy(FLAT_SCHEMA)
    loose["properties"]["rows"]["items"]["properties"]["price"]["x-leafscore"] = {
        "abs_tol": 1}
    assert _fast.usable_for(scorer.compile_schema(loose).properties["rows"], 1) == "flat"
    ordered = copy.deepcopy(FLAT_SCHEMA)
    ordered["properties"]["rows"]["x-leafscore"] = {"ordered": True}
    assert _fast.usable_for(scorer.compile_schema(ordered).properties["rows"], 1) is None
    assert _fast.usable_for(root, 0) is None  # not an array
    with _fast.tuned(flat=False):  # then paired by bounds, as any key-compared items
        assert _fast.usable_for(root.properties["rows"], 1) == "lazy"
    with _fast.tuned(flat_fields_max=6):  # 7 scored fields
        assert _fast.usable_for(root.properties["rows"], 1) == "lazy"
    with _fast.tuned(flat=False, lazy_nested=False):
        assert _fast.usable_for(root.properties["rows"], 1) is None
    with _fast.tuned(flat_fields_max=6, lazy_nested=False):
        assert _fast.usable_for(root.properties["rows"], 1) is None


@pytest.mark.parametrize("at_once", [0, 16, 10**9])
@pytest.mark.parametrize("seed", range(60))
def test_flat_array_path_equals_the_generic_walk(seed, at_once):
    rng = random.Random(seed)
    label = _flat_document(rng)
    result = _flat_document(rng) if seed % 3 else {"rows": [
        dict(row) if isinstance(row, dict) else row for row in reversed(label["rows"])]}
    with _fast.tuned(same_at_once=at_once):  # identical pairs' rows at once, or not
        fast = _fast.score(result, FLAT_SCHEMA, label)
    with _fast.tuned(flat=False):
        slow = _fast.score(result, FLAT_SCHEMA, label)
    assert same(fast, slow)  # same rows, same order, same values


@pytest.mark.parametrize("seed", range(20))
def test_join_slices_change_no_weight(seed):
    rng = random.Random(seed)
    label = {"rows": [{"sku": rng.choice("abcd"), "qty": rng.randrange(4)} for _ in range(60)]}
    result = {"rows": [{"sku": rng.choice("abcd"), "qty": rng.randrange(4)} for _ in range(60)]}
    schema = {"type": "object", "properties": {"rows": {"type": "array", "items": {
        "type": "object", "properties": {"sku": {"type": "string"},
                                         "qty": {"type": "integer"}}}}}}
    whole = _fast.score(result, schema, label)
    with _fast.tuned(join_slice=1 + seed):
        sliced = _fast.score(result, schema, label)
    assert same(whole, sliced)


def test_flat_path_equals_the_generic_walk_and_the_definition_on_a_tied_sparse_problem():
    """600 x 600 rows from small vocabularies: many equal weights, the sparse solver
    (about 590 x 590 items left after identical ones are paired)."""
    rng = random.Random(100)
    schema = {"type": "object", "properties": {"rows": {"type": "array", "items": {
        "type": "object", "properties": {
            "a": {"type": "string"}, "n": {"type": "number",
                                           "x-leafscore": {"decimal_separator": ","}},
            "d": {"type": "string", "format": "date"}, "b": {"type": "boolean"},
            "m": {}, "q": {"type": "integer"}}}}}}

    def row():
        return {"a": rng.choice(["x", "y", "Z", " ", None]), "n": rng.choice([1, "1,5", 2.0, "x"]),
                "d": rng.choice(["2024-01-02", "02.01.2024", "later"]),
                "b": rng.choice([True, "false", "maybe"]), "m": rng.choice([1, "1", True, [1]]),
                "q": rng.randrange(40)}

    label = {"rows": [row() for _ in range(600)]}
    result = {"rows": [row() for _ in range(600)]}
    fast = _fast.score(result, schema, label)
    with _fast.tuned(flat=False):
        slow = _fast.score(result, schema, label)
    assert same(fast, slow)
    assert same(fast, scorer.score(result, schema, label))


def test_flat_rows_of_identical_items_keep_each_sides_own_key(engine):
    """Identical by signature, not by value: "1.50" and 1.5 read as one number, "Bolt"
    and "bolt" as one text; each row keeps the raw value of its own side."""
    schema = {"type": "object", "properties": {"rows": {"type": "array", "items": {
        "type": "object", "properties": {"a": {"type": "string"}, "n": {"type": "number"},
                                         "d": {"type": "string", "format": "date"}}}}}}
    label = {"rows": [{"a": "Bolt", "n": 1.5, "d": "2024-01-02"}, {"a": "x", "n": None},
                      {"a": "nut", "n": "7"}]}
    result = {"rows": [{"a": "x"}, {"a": "bolt", "n": "1.50", "d": "01/02/2024"},
                       {"a": "NUT", "n": 7.0, "d": ""}]}
    doc = engine.score(result, schema, label, version="2.0")
    assert [(v.address, v.kind, v.label, v.result, v.label_canon, v.result_canon)
            for v in doc.verdicts] == [
        ("rows[0].a", "correct", "Bolt", "bolt", "bolt", "bolt"),
        ("rows[0].n", "correct", 1.5, "1.50", "1.5", "1.5"),
        ("rows[0].d", "correct", "2024-01-02", "01/02/2024", "2024-01-02", "2024-01-02"),
        ("rows[2].a", "correct", "nut", "NUT", "nut", "nut"),  # pairs in signature order
        ("rows[2].n", "correct", "7", 7.0, "7", "7"),
        ("rows[2].d", "correct_absence", None, "", None, None),
        ("rows[1].a", "correct", "x", "x", "x", "x"),
        ("rows[1].n", "correct_absence", None, None, None, None),
        ("rows[1].d", "correct_absence", None, None, None, None),
    ]


@pytest.mark.parametrize("forced", [{}, {"same_at_once": 0}, {"same_at_once": 10**9},
                                    {"flat": False}], ids=str)
def test_flat_rows_of_identical_items_are_the_definitions_under_every_choice(forced):
    label = {"rows": [{"a": "Bolt", "n": 1.5}, {"a": "Bolt", "n": "1.50"}] * 10}
    result = {"rows": [{"a": "bolt", "n": "1.5"}, {"a": "BOLT", "n": 1.50}] * 10}
    schema = {"type": "object", "properties": {"rows": {"type": "array", "items": {
        "type": "object", "properties": {"a": {"type": "string"}, "n": {"type": "number"}}}}}}
    with _fast.tuned(**forced):
        doc = _fast.score(result, schema, label)
    assert doc.counts["correct"] == 40
    assert same(doc, scorer.score(result, schema, label))


@pytest.mark.parametrize(("schema", "value", "canon"), [
    ({"type": "string"}, "  Bolt Nut ", "boltnut"),
    ({"type": "string"}, "Acme, Inc.", "acmeinc"),
    ({"type": "number"}, 100.0, "100"),
    ({"type": "number"}, -0.0, "0"),
    ({"type": "number"}, 1234.5, "1234.5"),
    ({"type": "number"}, 0.1234567, "0.123457"),
    ({"type": "number"}, 1e20, "100000000000000000000"),
    ({"type": "number"}, float("nan"), "nan"),  # unreadable as a number: text
    ({"type": "boolean"}, "TRUE", True),
    ({}, [1, {"b": 2, "a": 1}], '[1,{"a":1,"b":2}]'),
])
def test_a_flat_field_reads_each_value_as_the_definition_does(engine, schema, value, canon):
    rows_schema = {"type": "object", "properties": {"rows": {"type": "array", "items": {
        "type": "object", "properties": {"f": schema}}}}}
    doc = engine.score({"rows": [{"f": value}]}, rows_schema, {"rows": [{"f": value}]})
    (verdict,) = doc.verdicts
    assert (verdict.kind, verdict.label_canon, verdict.result_canon) == ("correct", canon, canon)


def test_a_flat_field_holding_only_spaces_states_nothing(engine):
    rows_schema = {"type": "object", "properties": {"rows": {"type": "array", "items": {
        "type": "object", "properties": {"f": {"type": "string"}, "g": {"type": "string"}}}}}}
    doc = engine.score({"rows": [{"f": "   ", "g": "x"}]}, rows_schema,
                       {"rows": [{"f": None, "g": "x"}]})
    assert [v.kind for v in doc.verdicts] == ["correct_absence", "correct"]


_LEAF_SCHEMAS = [{"type": "string"}, {"type": "number"}, {"type": "integer"},
                 {"type": "string", "format": "date"}, {"type": "boolean"}, {},
                 {"type": "number", "x-leafscore": {"decimal_separator": ","}}]
_SCALARS = st.one_of(
    st.text(max_size=12), st.text(alphabet=" aAbZ09-.,/", max_size=8),
    st.floats(allow_nan=True, allow_infinity=True), st.floats(-1e6, 1e6).map(lambda x: round(x, 3)),
    st.integers(-10**20, 10**20), st.booleans(),
    st.sampled_from(["2024-01-02", "01/02/2024", "1,5", "1.240,00", "$5", "true", " ", ""]))


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(range(len(_LEAF_SCHEMAS))), st.lists(_SCALARS, max_size=12),
       st.lists(_SCALARS, max_size=12))
def test_flat_reads_of_any_scalars_give_the_definitions_verdicts(which, label, result):
    schema = {"type": "object", "properties": {"rows": {"type": "array", "items": {
        "type": "object", "properties": {"f": _LEAF_SCHEMAS[which]}}}}}
    label_doc = {"rows": [{"f": v} for v in label]}
    result_doc = {"rows": [{"f": v} for v in result]}
    assert same(_fast.score(result_doc, schema, label_doc),
                scorer.score(result_doc, schema, label_doc))


def test_a_flat_array_inside_array_items_gives_the_definitions_rows():
    """Only the document's own list holds blocks of rows; a flat array inside array
    items gives its rows at once, for the walk of its items to read back."""
    inner = {"type": "array", "items": {"type": "object", "properties": {
        "sku": {"type": "string"}, "qty": {"type": "number"}}}}
    schema = {"type": "object", "properties": {"groups": {"type": "array", "items": {
        "type": "object", "properties": {"name": {"type": "string"}, "rows": inner}}}}}
    rng = random.Random(5)

    def group(k):
        return {"name": f"G{k}", "rows": [{"sku": rng.choice("abc"), "qty": rng.randrange(3)}
                                          for _ in range(rng.randrange(6))]}

    label = {"groups": [group(k) for k in range(8)]}
    result = {"groups": [group(k) for k in reversed(range(8))]}
    doc = _fast.score(result, schema, label)
    assert same(doc, scorer.score(result, schema, label))
    assert doc == scorer.DocScore.from_verdicts(doc.verdicts, version=doc.version,
                                                exact=doc.exact)


# ----- memos across documents ----------------------------------------------------------------

@pytest.mark.parametrize("memo_text", [0, 200])
@pytest.mark.parametrize("text", ["  Acme, Inc. ", "ＡＣＭＥ", "-98.2", "1 / 2", "—", "ß",
                                  "x" * 199, "x" * 200 + "!", "\u00e9\u0301" * 40])
def test_remembered_canonical_text_equals_a_fresh_reading(text, memo_text):
    walker = FastWalker(scorer.COMPARATORS, scorer.pair_2_0)
    with _fast.tuned(memo_text=memo_text):
        assert walker.text_key(text) == scorer.canon_text(text)
        assert walker.text_key(text) == scorer.canon_text(text)  # from the memo, if any


@pytest.mark.parametrize(("text", "formats", "key"), [
    ("2024-03-31T00:00:00Z", None, "2024-03-31"),
    (" March 31, 2024 ", None, "2024-03-31"),
    ("31.03.2024", ("%d.%m.%Y",), "2024-03-31"),
    ("31.03.2024", ["%d.%m.%Y"], "2024-03-31"),  # a list is read, just not remembered
    ("31.03.2024", ("%Y",), "~31.03.2024"),
])
def test_remembered_dates_depend_on_the_formats(text, formats, key):
    leaf = scorer.Leaf("date", scorer.Options(date_formats=formats))
    walker = FastWalker(scorer.COMPARATORS, scorer.pair_2_0)
    for _ in range(2):  # the second reading answers from the memo
        assert walker.key(leaf, "date", text) == key
    assert scorer.Walker(scorer.COMPARATORS, scorer.pair_2_0).key(leaf, "date", text) == key


@pytest.mark.parametrize(("text", "key"), [("2024-03-31", "2024-03-31"),
                                           ("31/03", "~31/03"), ("  ", None)])
def test_a_date_read_in_a_later_document_is_answered_from_the_memo(text, key):
    # a date leaf's read takes its key from the memo across documents, as a text leaf's
    # does (Walker.read_leaf calls the comparator: reading through it re-read every date)
    from leafscore._fast import walker as fast_walker
    leaf = scorer.Leaf("date", scorer.Options())
    fast_walker._date.cache_clear()
    reads = [FastWalker(scorer.COMPARATORS_2_1, scorer.pair_2_1).read_leaf(leaf, text)
             for _ in range(2)]  # one walker a document
    definition = scorer.Walker(scorer.COMPARATORS_2_1, scorer.pair_2_1).read_leaf(leaf, text)
    assert reads == [definition, definition]
    assert definition.key == key
    assert fast_walker._date.cache_info().misses == (1 if key else 0)


@pytest.mark.parametrize("version", ["2.0", "2.1"])
@pytest.mark.parametrize("compare", ["text", "date", "number", "boolean", "fuzzy", "exact"])
@pytest.mark.parametrize("text", ["", "  ", "\u3000", "Acme, Inc.", "C++", "İSTANBUL",
                                  "2024-03-31", " March 31st, 2024 ", "Sept. 5, 2024",
                                  "31/03", "02/2013", "x" * 300, "1,234.50", "R$ 1.234,56",
                                  "〜5", "TRUE", " false "])
def test_the_fast_read_of_a_string_at_a_leaf_of_one_kind_is_the_definitions(
        version, compare, text):
    # FastWalker.read_leaf reads such a string without Walker.read_leaf's type tests,
    # unreadable ones (a number leaf's "x") as text
    table, rule = ((scorer.COMPARATORS, scorer.pair_2_0) if version == "2.0"
                   else (scorer.COMPARATORS_2_1, scorer.pair_2_1))
    leaf = scorer.Leaf(compare, scorer.Options())
    fast = FastWalker(table, rule).read_leaf(leaf, text)
    assert fast == scorer.Walker(table, rule).read_leaf(leaf, text)


@settings(max_examples=300, deadline=None)
@given(values=st.one_of(
    st.lists(st.integers(-10**16, 10**16) | st.sampled_from([0, -1, 10**15 - 1, -10**15]),
             min_size=1, max_size=12, unique=True),
    st.lists(st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(
        [-0.0, 0.0, 1.5, 2.50, 0.1234567, 0.123456, 1e16, 1e-7, 12345678.9, -3.0]),
        min_size=1, max_size=12, unique_by=repr)),
    version=st.sampled_from(["2.0", "2.1"]))
def test_a_flat_number_column_reads_each_value_as_the_definition_does(values, version):
    # flat._reads reads a column of ints or plain floats (at most 6 places) at once, and
    # the rest (an int of 16 digits, 1e-07, nan) one by one: the same reads either way
    from leafscore._fast import flat
    table, rule = ((scorer.COMPARATORS, scorer.pair_2_0) if version == "2.0"
                   else (scorer.COMPARATORS_2_1, scorer.pair_2_1))
    leaf = scorer.Leaf("number", scorer.Options())
    walker = FastWalker(table, rule)
    expected = []
    for v in values:
        read = scorer.Walker(table, rule).read_leaf(leaf, v)
        expected.append((read.tag, read.key, f',"p"={read.tag}:{scorer.shown(read.key)}'))
    got = flat._reads(walker, leaf, '"p"=', type(values[0]), values)
    assert [(tag, str(key), part) for tag, key, part in got] == \
        [(tag, str(key), part) for tag, key, part in expected]


_ITEM_VALUES = st.sampled_from([None, "", " ", "Acme", "ACME", "1", 1, 1.5, 2.50, True,
                                "2024-03-05", {"k": 1}, [1], []])
_FLAT_ITEMS = st.one_of(
    st.fixed_dictionaries({}, optional={"a": _ITEM_VALUES, "b": _ITEM_VALUES,
                                        "c": _ITEM_VALUES, "x": _ITEM_VALUES}),
    st.sampled_from([None, "row", 3, [], {}]))  # not objects, or objects stating nothing


@settings(max_examples=300, deadline=None)
@given(raws=st.lists(st.lists(_FLAT_ITEMS, max_size=6), min_size=1, max_size=6),
       version=st.sampled_from(["2.0", "2.1"]))
def test_flat_arrays_read_together_give_each_arrays_own_columns(raws, version):
    # flat.read_columns_many reads the arrays of one node end to end, then cuts the
    # answer back: each array's kept items, values, signatures and reads as if alone
    from leafscore._fast import flat
    table, rule = ((scorer.COMPARATORS, scorer.pair_2_0) if version == "2.0"
                   else (scorer.COMPARATORS_2_1, scorer.pair_2_1))
    node = scorer.compile_schema({"type": "array", "items": {"type": "object", "properties": {
        "a": {"type": "string"}, "b": {"type": "number"},
        "c": {"type": "string", "format": "date"}}}}, v21=version == "2.1")
    together = flat.read_columns_many(FastWalker(table, rule), node.items, raws)
    alone = [flat.read_columns(FastWalker(table, rule), node.items, raw) for raw in raws]
    assert together == alone


def test_the_flat_arrays_of_one_node_are_read_together_once_one_is_asked(monkeypatch):
    from leafscore._fast import flat
    schema = {"type": "object", "properties": {"groups": {"type": "array", "items": {
        "type": "object", "properties": {"rows": {"type": "array", "items": {
            "type": "object", "properties": {"a": {"type": "string"}}}}}}}}}
    label = {"groups": [{"rows": [{"a": f"g{g}r{r}"} for r in range(3)]} for g in range(4)]}
    result = copy.deepcopy(label)
    result["groups"].reverse()
    calls: list[int] = []
    real = flat.read_columns_many
    monkeypatch.setattr(flat, "read_columns_many", lambda walker, item, raws: (
        calls.append(len(raws)), real(walker, item, raws))[1])
    together = _fast.score(result, schema, label, version="2.1")
    assert calls == [4, 4]  # the label's four row arrays at once, then the result's
    with _fast.tuned(flat_together=False):
        alone = _fast.score(result, schema, label, version="2.1")
    assert calls == [4, 4]
    assert (together.value, together.verdicts) == (alone.value, alone.verdicts)
    assert together.value == 1.0


def test_a_memo_keeps_values_of_equal_value_but_another_type_apart():
    walker = FastWalker(scorer.COMPARATORS, scorer.pair_2_0)
    leaf = scorer.Leaf("mix", scorer.Options())
    reads = [walker.read_leaf(leaf, v) for v in (1, 1.0, True, "1")]
    assert [(r.tag, scorer.shown(r.key)) for r in reads] == [
        ("number", "1"), ("number", "1"), ("boolean", True), ("text", "1")]
    assert [type(r.raw) for r in reads] == [int, float, bool, str]


# ----- canonical JSON bytes --------------------------------------------------------------

def test_schema_text_is_json_dumps_text_when_no_number_keeps_its_written_form():
    value = {"b": [1, 2.5, -0.0, True, None, "é\u2028\x00"], "a": {"z": "", "y": 10**30}}
    assert json_text(value) == json.dumps(
        value, ensure_ascii=False, separators=(",", ":")).encode()
    assert canonical_json(value) == json.dumps(
        value, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()
    kept = scorer.parse_json('{"rate": 157.40, "n": 1E2}', "t.json").value
    assert json_text(kept) == b'{"rate":157.40,"n":1E2}'


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(), lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=5), inner, max_size=4), max_leaves=20)


@given(_JSON)
def test_canonical_bytes_are_json_dumps_bytes_for_values_without_written_numbers(value):
    assert canonical_json(value) == json.dumps(
        value, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode(
        "utf-8", "surrogatepass")


@given(_JSON)
def test_a_parsed_values_canonical_bytes_are_those_of_the_full_walk(value):
    parsed = scorer.parse_json(json.dumps(value), "v.json")
    assert parsed.written_numbers == 0  # json.dumps writes each float as its repr
    assert canonical_bytes(parsed) == canonical_json(parsed.value)


@pytest.mark.parametrize(("text", "written"), [
    ('{"b": 1.50, "a": [1E2, 0.1, 2.5e-3]}', 3),
    ('{"a": 1.50, "a": 2}', 1),  # counted though the duplicate is dropped: walked in full
    ('["\\ud800", 7.0]', 0),
])
def test_numbers_kept_in_their_written_form_are_counted(text, written):
    parsed = scorer.parse_json(text, "v.json")
    assert parsed.written_numbers == written
    assert canonical_bytes(parsed) == canonical_json(parsed.value)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), [1, {"a": -float("inf")}]])
def test_canonical_bytes_refuse_what_json_cannot_hold(value):
    with pytest.raises(ValueError):
        canonical_json(value)


def test_the_verdict_tally_of_a_flat_block_is_its_rows_counted_in_order():
    rng = random.Random(11)
    label, result = _flat_document(rng), _flat_document(rng)
    doc = _fast.score(result, FLAT_SCHEMA, label)
    tally = doc.verdicts.tally()  # counted a field at a time, before any row is made
    assert not doc.verdicts.made
    counted = collections.Counter((v.field, v.kind) for v in doc.verdicts)
    assert list(tally.items()) == list(counted.items())
