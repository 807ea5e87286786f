"""Issue 15: the fast paths change no score.

* a schema scored for 50 systems is compiled once (the per-process cache by content);
* ``DocScore.verdicts`` is built lazily, equal to eager building, and survives pickling;
* the solver shortcut (no row or column with two candidates) agrees with scipy;
* ``import scorer`` loads no scipy, rapidfuzz or referencing;
* flat arrays read a column at a time give the general reads, and their rows, made only
  when read, equal rows made at once (same counts, same first-seen tally order).
"""

from __future__ import annotations

import copy
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


def test_fifty_systems_on_one_schema_compile_it_once(monkeypatch):
    calls = _counting_compiles(monkeypatch)
    schema = copy.deepcopy(SCHEMA)
    schema["properties"]["note"] = {"type": "string", "description": "issue 15, unique"}
    rng = random.Random(15)
    label = _document(rng)
    for _ in range(50):  # each system's call passes an equal, separately built schema
        scorer.score(_document(rng), copy.deepcopy(schema), label, version="2.0")
    assert len(calls) == 1


def _counting_compiles(monkeypatch) -> list:
    calls = []
    real = scorer._compile

    def counting(schema, options, file):
        calls.append(file)
        return real(schema, options, file)

    monkeypatch.setattr(scorer, "_compile", counting)
    return calls


def test_two_thousand_schemas_scored_system_after_system_compile_once_each(monkeypatch):
    calls = _counting_compiles(monkeypatch)
    schemas = [{"type": "object", "properties": {f"f{n}": {"type": "string"}}}
               for n in range(2000)]
    for _ in range(3):  # three systems, each over every document in turn
        for n, schema in enumerate(schemas):
            scorer.score({f"f{n}": "x"}, schema, {f"f{n}": "x"}, version="2.0")
    assert len(calls) == 2000


def test_compiled_schemas_are_kept_within_their_text_budget(monkeypatch):
    calls = _counting_compiles(monkeypatch)
    monkeypatch.setattr(scorer, "_COMPILED", {})
    monkeypatch.setattr(scorer, "_COMPILED_TEXT", [0])
    monkeypatch.setattr(scorer, "_COMPILED_TEXT_MAX", 300)
    schemas = [{"type": "object", "properties": {f"f{n:03d}": {"type": "string"}}}
               for n in range(20)]  # 57 bytes of text each: 5 fit in 300
    for schema in schemas + schemas[-5:] + schemas[:1]:
        scorer.compile_schema(schema)
    assert len(calls) == 21  # the last five were still held; the first was dropped
    assert len(scorer._COMPILED) == 5
    assert scorer._COMPILED_TEXT[0] == sum(len(text) for text, _ in scorer._COMPILED) == 285


def test_a_documents_rows_are_tallied_once():
    doc = scorer.score(_document(random.Random(3)), SCHEMA, _document(random.Random(4)),
                       version="2.0")
    rows = doc.__dict__["_verdicts"]
    assert rows.tally() is rows.tally()
    assert rows.tally() == scorer._tally(rows.rows)
    assert doc.verdict_tally() == dict(scorer._tally(rows.rows))


@pytest.mark.parametrize("seed", range(40))
def test_lazy_verdicts_equal_eager_ones(seed):
    rng = random.Random(seed)
    label, result = _document(rng), _document(rng)
    doc = scorer.score(result, SCHEMA, label, version="2.0")
    again = pickle.loads(pickle.dumps(doc))  # before .verdicts was ever read
    eager = scorer.DocScore.from_verdicts(doc.verdicts, exact=doc.exact)
    assert eager == doc == again
    assert (eager.counts, eager.fields, eager.value) == (doc.counts, doc.fields, doc.value)
    assert all(isinstance(v, scorer.Verdict) for v in doc.verdicts)
    assert doc.verdicts is doc.verdicts  # built once
    assert scorer.DocScore.from_dict(doc.to_dict(verdicts=True)) == doc


def _scipy_solve(rows, cols, row, col, weight):
    """The solver without the shortcut (scipy only), for comparison."""
    saved = scorer._forced
    scorer._forced = lambda r, c: False
    try:
        return scorer._solve(rows, cols, row, col, weight)
    finally:
        scorer._forced = saved


@pytest.mark.parametrize("seed", range(30))
def test_the_solver_shortcut_agrees_with_scipy(seed):
    rng = np.random.default_rng(seed)
    rows, cols = (int(x) for x in rng.integers(1, 700, 2))
    k = int(rng.integers(1, min(rows, cols) + 1))
    row = rng.choice(rows, k, replace=False)
    col = rng.choice(cols, k, replace=False)
    weight = rng.integers(1, 4, k)
    assert scorer._forced(row, col)
    assert scorer._solve(rows, cols, row, col, weight) == _scipy_solve(rows, cols, row, col,
                                                                      weight)


def _loaded_after(module: str, libraries: set[str]) -> str:
    """Which of ``libraries`` a fresh interpreter holds after ``import module``."""
    code = (f"import sys, {module}; print(sorted({{m.split('.')[0] for m in sys.modules}} & "
            f"set({sorted(libraries)!r})))")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                          text=True, check=True)
    return done.stdout.strip()


def test_import_loads_no_optional_library():
    assert _loaded_after("scorer", {"scipy", "rapidfuzz", "referencing"}) == "[]"


# ----- issue 15, round 2: the flat-array path and the join-built solver input -----------

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


def _generic(monkeypatch):
    monkeypatch.setattr(scorer, "_flat_fields", lambda item: None)


@pytest.mark.parametrize("at_once", [0, 16])
@pytest.mark.parametrize("seed", range(60))
def test_flat_array_path_equals_the_generic_walk(seed, at_once, monkeypatch):
    monkeypatch.setattr(scorer, "_SAME_AT_ONCE", at_once)  # identical pairs' rows at once
    rng = random.Random(seed)
    label = _flat_document(rng)
    result = _flat_document(rng) if seed % 3 else {"rows": [
        dict(row) if isinstance(row, dict) else row for row in reversed(label["rows"])]}
    fast = scorer.score(result, FLAT_SCHEMA, label, version="2.0")
    rows_fast = fast.__dict__["_verdicts"].rows
    with monkeypatch.context() as patch:
        _generic(patch)
        slow = scorer.score(result, FLAT_SCHEMA, label, version="2.0")
    assert rows_fast == slow.__dict__["_verdicts"].rows  # same rows, same order
    assert fast == slow


@pytest.mark.parametrize("n", [300, 1500])
def test_flat_array_path_equals_the_generic_walk_on_the_bench_document(n, monkeypatch):
    sys.path.insert(0, str(REPO / "benchmarks"))
    from bench_arrays import DEFAULT_SEED, make_flat

    schema, label, result = make_flat(n, DEFAULT_SEED)
    fast = scorer.score(result, schema, label, version="2.0")
    with monkeypatch.context() as patch:
        _generic(patch)
        slow = scorer.score(result, schema, label, version="2.0")
    assert fast.__dict__["_verdicts"].rows == slow.__dict__["_verdicts"].rows


@pytest.mark.parametrize("seed", range(20))
def test_join_slices_change_no_weight(seed, monkeypatch):
    rng = random.Random(seed)
    label = {"rows": [{"sku": rng.choice("abcd"), "qty": rng.randrange(4)} for _ in range(60)]}
    result = {"rows": [{"sku": rng.choice("abcd"), "qty": rng.randrange(4)} for _ in range(60)]}
    schema = {"type": "object", "properties": {"rows": {"type": "array", "items": {
        "type": "object", "properties": {"sku": {"type": "string"},
                                         "qty": {"type": "integer"}}}}}}
    whole = scorer.score(result, schema, label, version="2.0")
    monkeypatch.setattr(scorer, "_JOIN_SLICE", 1 + seed)
    sliced = scorer.score(result, schema, label, version="2.0")
    assert whole.__dict__["_verdicts"].rows == sliced.__dict__["_verdicts"].rows


@pytest.mark.parametrize("seed", range(2))
def test_flat_path_equals_the_generic_walk_on_tied_sparse_problems(seed, monkeypatch):
    """1,200 x 1,200 rows from small vocabularies: many equal weights, the sparse solver
    (about 1,100 x 1,100 items left after identical ones are paired)."""
    rng = random.Random(100 + seed)
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

    label = {"rows": [row() for _ in range(1200)]}
    result = {"rows": [row() for _ in range(1200)]}
    fast = scorer.score(result, schema, label, version="2.0")
    with monkeypatch.context() as patch:
        _generic(patch)
        slow = scorer.score(result, schema, label, version="2.0")
    assert fast.__dict__["_verdicts"].rows == slow.__dict__["_verdicts"].rows


# ----- issue 15, round 3: start-up and cross-document memos --------------------------

def test_the_directly_loaded_assignment_solver_is_scipys(monkeypatch):
    from scipy.optimize import linear_sum_assignment

    rng = np.random.default_rng(3)
    for _ in range(200):  # small integer weights: many ties, so tie-breaking shows too
        matrix = rng.integers(0, 3, tuple(int(x) for x in rng.integers(1, 9, 2))) * 1.0
        mine = scorer._linear_sum_assignment()(matrix, maximize=True)
        theirs = linear_sum_assignment(matrix, maximize=True)
        assert [a.tolist() for a in mine] == [a.tolist() for a in theirs]


def test_scoring_an_assignment_loads_no_scipy_optimize_package():
    code = ("import sys, scorer\n"
            "schema = {'type': 'object', 'properties': {'rows': {'type': 'array', 'items': "
            "{'type': 'object', 'properties': {'a': {'type': 'string'}, 'b': {'type': "
            "'string'}}}}}}\n"
            "label = {'rows': [{'a': 'x', 'b': 'p'}, {'a': 'x', 'b': 'q'}]}\n"
            "result = {'rows': [{'a': 'x', 'b': 's'}, {'a': 'x', 'b': 't'}]}\n"
            "print(scorer.score(result, schema, label).value)\n"
            "print('scipy.optimize' in sys.modules, 'scipy' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                          text=True, check=True)
    assert done.stdout.split() == ["0.5", "False", "True"]  # 2 x 2 candidates: solved


def test_the_assignment_solver_falls_back_to_the_public_import(monkeypatch, tmp_path):
    import scipy
    from scipy.optimize import linear_sum_assignment

    (tmp_path / "optimize").mkdir()  # a scipy layout without the extension module
    monkeypatch.setattr(scipy, "__file__", str(tmp_path / "__init__.py"))
    scorer._linear_sum_assignment.cache_clear()
    try:
        assert scorer._linear_sum_assignment() is linear_sum_assignment
    finally:
        scorer._linear_sum_assignment.cache_clear()


@pytest.mark.parametrize("text", ["  Acme, Inc. ", "ＡＣＭＥ", "-98.2", "1 / 2", "—", "ß",
                                  "x" * 199, "x" * 200 + "!", "\u00e9\u0301" * 40])
def test_remembered_canonical_text_equals_a_fresh_reading(text):
    fresh = scorer._canon_string.__wrapped__(text)
    assert scorer.canon_text(text) == fresh
    assert scorer.canon_text(text) == fresh  # the second call answers from the memo


@pytest.mark.parametrize(("text", "formats", "iso"), [
    ("2024-03-31T00:00:00Z", None, "2024-03-31"),
    (" March 31, 2024 ", None, "2024-03-31"),
    ("31.03.2024", ("%d.%m.%Y",), "2024-03-31"),
    ("31.03.2024", ["%d.%m.%Y"], "2024-03-31"),  # a list is read, just not remembered
    ("31.03.2024", ("%Y",), None),
])
def test_remembered_dates_depend_on_the_formats(text, formats, iso):
    assert scorer.canon_date(text, formats) == iso
    assert scorer.canon_date(text, formats) == iso


def test_schema_text_is_json_dumps_text_when_no_number_keeps_its_written_form():
    import json

    value = {"b": [1, 2.5, -0.0, True, None, "é\u2028\x00"], "a": {"z": "", "y": 10**30}}
    assert scorer.json_text(value) == json.dumps(
        value, ensure_ascii=False, separators=(",", ":")).encode()
    assert scorer.canonical_json(value) == json.dumps(
        value, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()
    kept = scorer.parse_json('{"rate": 157.40, "n": 1E2}', "t.json").value
    assert scorer.json_text(kept) == b'{"rate":157.40,"n":1E2}'


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(), lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=5), inner, max_size=4), max_leaves=20)


@given(_JSON)
def test_canonical_bytes_are_json_dumps_bytes_for_values_without_written_numbers(value):
    import json

    assert scorer.canonical_json(value) == json.dumps(
        value, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode(
        "utf-8", "surrogatepass")


@given(_JSON)
def test_a_parsed_values_canonical_bytes_are_those_of_the_full_walk(value):
    import json

    parsed = scorer.parse_json(json.dumps(value), "v.json")
    assert parsed.written_numbers == 0  # json.dumps writes each float as its repr
    assert parsed.canonical() == scorer.canonical_json(parsed.value)


@pytest.mark.parametrize(("text", "written"), [
    ('{"b": 1.50, "a": [1E2, 0.1, 2.5e-3]}', 3),
    ('{"a": 1.50, "a": 2}', 1),  # counted though the duplicate is dropped: walked in full
    ('["\\ud800", 7.0]', 0),
])
def test_numbers_kept_in_their_written_form_are_counted(text, written):
    parsed = scorer.parse_json(text, "v.json")
    assert parsed.written_numbers == written
    assert parsed.canonical() == scorer.canonical_json(parsed.value)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), [1, {"a": -float("inf")}]])
def test_canonical_bytes_refuse_what_json_cannot_hold(value):
    with pytest.raises(ValueError):
        scorer.canonical_json(value)


@pytest.mark.parametrize("seed", range(20))
def test_error_kinds_from_the_verdict_rows_equal_those_from_the_verdicts(seed):
    from leafscore.fields import error_kinds, error_kinds_of

    rng = random.Random(seed)
    doc = scorer.score(_flat_document(rng), FLAT_SCHEMA, _flat_document(rng), version="2.0")
    from_rows = error_kinds_of(doc)
    assert isinstance(doc.__dict__["_verdicts"], scorer._Rows)  # no Verdict was built
    assert from_rows == error_kinds(doc.verdicts)


def test_a_run_keeping_no_verdicts_never_builds_a_verdict(monkeypatch, tmp_path):
    import leafscore

    monkeypatch.setattr(scorer, "_verdict", lambda row: pytest.fail("a Verdict was built"))
    run = leafscore.evaluate(REPO, version="2.0", cache=False, keep_verdicts=False)
    assert run.leaderboard().rows[0].score > 0.5


def test_the_cli_imports_no_scipy_until_a_command_needs_it():
    assert _loaded_after("leafscore.cli", {"scipy", "rapidfuzz", "pandas", "dask"}) == "[]"


@pytest.mark.parametrize("seed", range(20))
def test_verdicts_written_from_rows_equal_those_written_from_verdicts(seed):
    rng = random.Random(seed)
    doc = scorer.score(_flat_document(rng), FLAT_SCHEMA, _flat_document(rng), version="2.0")
    from_rows = doc.to_dict(verdicts=True)
    assert isinstance(doc.__dict__["_verdicts"], scorer._Rows)  # still not built
    built = scorer.DocScore.from_verdicts(doc.verdicts, exact=doc.exact)
    assert from_rows == built.to_dict(verdicts=True)
    assert [list(v) for v in map(dict.keys, from_rows["verdicts"])][:1] in (
        [], [["address", "field", "kind", "label", "result", "label_canon", "result_canon"]])


# ----- issue 15, round 4: flat arrays read a column at a time, rows made when read -------

def _field_leaf(schema: dict) -> scorer.Leaf:
    root = scorer.compile_schema({"type": "object", "properties": {"f": schema}})
    return root.properties["f"]


_LEAF_SCHEMAS = [{"type": "string"}, {"type": "number"}, {"type": "integer"},
                 {"type": "string", "format": "date"}, {"type": "boolean"}, {},
                 {"type": "number", "x-leafscore": {"decimal_separator": ","}}]


def _general_read(leaf: scorer.Leaf, value) -> tuple:
    """A flat field's read of one value the general way: emptiness, then _label_read."""
    if scorer.is_empty(value):
        return scorer._EMPTY_READ
    if isinstance(value, dict | list):
        text = scorer.canon_exact(value)
        return ("json", text, f',"f"=json:{text}')
    tag, key = scorer._label_read(leaf, value, scorer.canon_under)
    shown = scorer._shown(key)
    return (tag, key, f',"f"={tag}:{shown}')


@pytest.mark.parametrize(("schema", "value", "read"), [
    ({"type": "string"}, "  Bolt Nut ", ("text", "boltnut", ',"f"=text:boltnut')),
    ({"type": "string"}, "Acme, Inc.", ("text", "acmeinc", ',"f"=text:acmeinc')),
    ({"type": "string"}, "   ", scorer._EMPTY_READ),
    ({"type": "number"}, 100.0, ("number", scorer.Decimal("100.0"), ',"f"=number:100')),
    ({"type": "number"}, -0.0, ("number", scorer.Decimal("-0.0"), ',"f"=number:0')),
    ({"type": "number"}, 1234.5, ("number", scorer.Decimal("1234.5"), ',"f"=number:1234.5')),
    ({"type": "number"}, 0.1234567, ("number", scorer.Decimal("0.123457"),
                                     ',"f"=number:0.123457')),
    ({"type": "number"}, 1e20, ("number", scorer.Decimal("1E+20"),
                                ',"f"=number:100000000000000000000')),
    ({"type": "number"}, float("nan"), ("text", "nan", ',"f"=text:nan')),
])
def test_a_flat_read_written_out(schema, value, read):
    leaf = _field_leaf(schema)
    got = scorer._flat_reads(leaf, '"f"=', type(value), [value], scorer.canon_under)
    assert got == [read] == [_general_read(leaf, value)]
    assert [repr(x) for x in got[0]] == [repr(x) for x in read]


_SCALARS = st.one_of(
    st.text(max_size=12), st.text(alphabet=" aAbZ09-.,/", max_size=8),
    st.floats(allow_nan=True, allow_infinity=True), st.floats(-1e6, 1e6).map(lambda x: round(x, 3)),
    st.integers(-10**20, 10**20), st.booleans(),
    st.sampled_from(["2024-01-02", "01/02/2024", "1,5", "1.240,00", "$5", "true", " ", ""]))


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(range(len(_LEAF_SCHEMAS))), st.lists(_SCALARS, max_size=12))
def test_flat_reads_equal_the_general_reading(which, values):
    leaf = _field_leaf(_LEAF_SCHEMAS[which])
    for kind in {type(v) for v in values}:
        same = list(dict.fromkeys(v for v in values if type(v) is kind))
        got = scorer._flat_reads(leaf, '"f"=', kind, same, scorer.canon_under)
        want = [_general_read(leaf, v) for v in same]
        assert [[repr(x) for x in r] for r in got] == [[repr(x) for x in r] for r in want]


def _eager(monkeypatch, result, schema, label):
    """The score with every flat array's rows made at once (no _FlatRows block)."""
    with monkeypatch.context() as patch:
        patch.setattr(scorer._Scorer, "document", None, raising=False)
        real = scorer._Scorer.__init__

        def eager_init(self, document=None):
            real(self)
        patch.setattr(scorer._Scorer, "__init__", eager_init)
        return scorer.score(result, schema, label, version="2.0")


def _same_rows(lazy, eager):
    held = lazy.__dict__["_verdicts"]
    assert isinstance(held, scorer._Rows)
    tally = held.tally()  # counted before any row is made
    rows = held.rows
    assert rows == eager.__dict__["_verdicts"].rows
    assert repr(rows) == repr(eager.__dict__["_verdicts"].rows)  # keys of the same form
    assert list(tally.items()) == list(scorer._tally(rows).items())  # same first-seen order
    assert (lazy.counts, lazy.fields, lazy.value) == (eager.counts, eager.fields, eager.value)


@pytest.mark.parametrize("at_once", [0, 10**9])
@pytest.mark.parametrize("seed", range(40))
def test_flat_rows_made_when_read_equal_rows_made_at_once(seed, at_once, monkeypatch):
    """Also with identical pairs' rows made at once from any count, or never."""
    monkeypatch.setattr(scorer, "_SAME_AT_ONCE", at_once)
    rng = random.Random(seed)
    label, result = _flat_document(rng), _flat_document(rng)
    lazy = scorer.score(result, FLAT_SCHEMA, label, version="2.0")
    assert any(isinstance(row, scorer._FlatRows)
               for row in lazy.__dict__["_verdicts"].held) == bool(
        [r for r in label["rows"] + result["rows"] if isinstance(r, dict) and r])
    assert list(lazy.verdict_tally().items()) == list(
        _eager(monkeypatch, result, FLAT_SCHEMA, label).verdict_tally().items())
    again = pickle.loads(pickle.dumps(lazy))
    _same_rows(lazy, _eager(monkeypatch, result, FLAT_SCHEMA, label))
    assert again == lazy


def _scored_three_ways(monkeypatch, result, schema, label):
    """The default score of a document, checked to hold the rows of the same score made
    at once and of the generic walk (no flat path), in order; returned."""
    lazy = scorer.score(result, schema, label, version="2.0")
    _same_rows(lazy, _eager(monkeypatch, result, schema, label))
    with monkeypatch.context() as patch:
        _generic(patch)
        slow = scorer.score(result, schema, label, version="2.0")
    assert repr(lazy.__dict__["_verdicts"].rows) == repr(slow.__dict__["_verdicts"].rows)
    return lazy


def test_flat_rows_of_identical_items_keep_each_sides_own_key(monkeypatch):
    """Identical by signature, not by value: "1.50" and 1.5 read as one number, "Bolt"
    and "bolt" as one text; each row keeps the key read from its own side."""
    schema = {"type": "object", "properties": {"rows": {"type": "array", "items": {
        "type": "object", "properties": {"a": {"type": "string"}, "n": {"type": "number"},
                                         "d": {"type": "string", "format": "date"}}}}}}
    label = {"rows": [{"a": "Bolt", "n": 1.5, "d": "2024-01-02"}, {"a": "x", "n": None},
                      {"a": "nut", "n": "7"}]}
    result = {"rows": [{"a": "x"}, {"a": "bolt", "n": "1.50", "d": "01/02/2024"},
                       {"a": "NUT", "n": 7.0, "d": ""}]}
    lazy = _scored_three_ways(monkeypatch, result, schema, label)
    assert repr(lazy.__dict__["_verdicts"].rows[1][5:]) == repr((scorer.Decimal("1.5"),
                                                                 scorer.Decimal("1.50")))
    assert [(v.address, v.kind, v.label_canon, v.result_canon) for v in lazy.verdicts] == [
        ("rows[0].a", "correct", "bolt", "bolt"),
        ("rows[0].n", "correct", "1.5", "1.5"),
        ("rows[0].d", "correct", "2024-01-02", "2024-01-02"),
        ("rows[2].a", "correct", "nut", "nut"),  # pairs in signature order
        ("rows[2].n", "correct", "7", "7"),
        ("rows[2].d", "correct_absence", None, None),
        ("rows[1].a", "correct", "x", "x"),
        ("rows[1].n", "correct_absence", None, None),
        ("rows[1].d", "correct_absence", None, None),
    ]


@pytest.mark.parametrize("n", [300, 2000])
def test_flat_rows_made_when_read_on_the_bench_document(n, monkeypatch):
    sys.path.insert(0, str(REPO / "benchmarks"))
    from bench_arrays import DEFAULT_SEED, make_flat

    schema, label, result = make_flat(n, DEFAULT_SEED)
    _scored_three_ways(monkeypatch, result, schema, label)


def test_a_flat_array_inside_array_items_gets_rows_at_once():
    """Only the document's own list holds blocks: item walks read their rows back."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    from bench_arrays import make_nested

    schema, label, result = make_nested(4, 3, 5)
    doc = scorer.score(result, schema, label, version="2.0")
    assert not any(isinstance(row, scorer._FlatRows) for row in doc.__dict__["_verdicts"].held)
    assert doc == scorer.DocScore.from_verdicts(doc.verdicts, exact=doc.exact)


@pytest.mark.parametrize("at_once", [0, 10**9])
@pytest.mark.parametrize("seed", range(15))
def test_pairs_signed_alike_but_not_identical_are_compared_leaf_by_leaf(seed, at_once,
                                                                         monkeypatch):
    """The identical-pair rows are checked, not assumed: with signatures that see only
    each field's tag, unequal items pair as "identical", and every row must still be the
    one compare() gives (rows of identical pairs made at once, or one by one)."""
    rng = random.Random(seed)
    label, result = _flat_document(rng), _flat_document(rng)
    monkeypatch.setattr(scorer, "_PART", lambda read: "" if read[0] is None else "," + read[0])
    monkeypatch.setattr(scorer, "_SAME_AT_ONCE", at_once)
    doc = scorer.score(result, FLAT_SCHEMA, label, version="2.0")
    items = scorer.compile_schema(FLAT_SCHEMA).properties["rows"].items.properties
    leaves = {scorer._join("rows[]", name): leaf for name, leaf in items.items()}
    for row in doc.__dict__["_verdicts"].rows:
        if row[2] in ("missing", "extra_item") and (row[3] is None or row[4] is None):
            continue  # an unpaired item
        assert row == scorer._compare_row(leaves[row[1]], row[3], row[4], row[0], row[1])
