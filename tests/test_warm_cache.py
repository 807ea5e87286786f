"""A warm rerun of an unchanged benchmark reads one run pack, one read memo and one
label-check entry, and parses no file (issue 15 item 4: warm at least 30x cold).

Each layer may only save time: every test compares the warm output with a cold one, and
every damaged, edited or foreign entry is a miss that falls back to the per-cell cache.
"""

from __future__ import annotations

import dataclasses
import json
import pickle
import subprocess
import sys

import pytest
from cli_helpers import invoke, make_benchmark, private_cache, write_json  # noqa: F401

import leafscore
import scorer
from leafscore import api, benchmark, cells, executors, runner, runpack, validate
from leafscore import cache as cache_module

V2 = scorer.VERSIONS[scorer.DEFAULT_VERSION]  # what evaluate scores by default (2.1)

LABEL = {"a": "x", "b": "y"}
HALF_RIGHT = {"a": "x", "b": "z"}  # accuracy 0.5


def run(*args):
    result = invoke(*args)
    assert result.exit_code == 0, result.stderr
    return result


def bench(root):
    """3 documents x 2 systems: one missing result, one that is not JSON."""
    labels = {"d1": LABEL, "d2": {"a": "p", "b": "q"}, "d3": {"a": "r", "b": "s"}}
    results = {"good": dict(labels),
               "poor": {"d1": HALF_RIGHT, "d2": None, "d3": b"{broken"}}
    return make_benchmark(root, labels, results)


def result_files(systems=("good", "poor"), docs=("d1", "d2", "d3")):
    """The result files of :func:`bench`'s pairs, in pair order."""
    return [f"results/{system}/{doc}.json" for system in systems for doc in docs]


def packs(cache_dir):
    return sorted((cache_dir / "runs").rglob("*.json"))


def cell_entries(cache_dir):
    return [p for p in cache_dir.rglob("*.json")
            if not {"runs", "reads", "label-checks"} & set(p.parts)]


def resign(cache_dir, path, change):
    """Apply ``change`` to the JSON entry at ``path`` and sign it again with the user's own
    key: what a writer holding the key (or a bug) could leave, so only the reader's
    checks stand in the way."""
    line = path.read_bytes().split(b"\n")[1]
    entry = json.loads(line)
    change(entry)
    line = json.dumps(entry).encode()
    folder = path.parent.parent
    secret = cache_module.signing_key(folder).secret
    path.write_bytes(cache_module._mac(secret, path.stem, "entry", line) + b" -\n" + line)


# ----- the run pack -------------------------------------------------------------------

def test_a_warm_rerun_is_served_by_its_run_pack_alone(tmp_path):
    root, cache_dir = bench(tmp_path / "b"), tmp_path / "cache"
    cold = run("score", root, "--format", "json", "--cache-dir", cache_dir)
    assert len(packs(cache_dir)) == 1
    for entry in cell_entries(cache_dir):
        entry.unlink()  # only the pack is left to serve the cells
    warm = run("score", root, "--format", "json", "--cache-dir", cache_dir)
    assert warm.stdout == cold.stdout
    assert warm.stderr == cold.stderr
    assert json.loads(warm.stdout)["systems"]["poor"]["documents"] == {
        "d1": 0.5, "d2": 0.0, "d3": 0.0}


def test_a_warm_rerun_loads_neither_the_engine_nor_numpy(tmp_path):
    """What a warm run imports is most of its time: the engine and numpy are loaded by
    the first document scored or statistic computed, and a cached ``score`` needs none."""
    root, cache_dir = bench(tmp_path / "b"), tmp_path / "cache"
    run("score", root, "--format", "json", "--cache-dir", cache_dir)
    probe = ("import contextlib, io, sys\n"
             "from leafscore.cli import main\n"
             "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
             f"    main(['score', {str(root)!r}, '--format', 'json', '--cache-dir', "
             f"{str(cache_dir)!r}])\n"
             "print(sorted(m for m in ('numpy', 'scipy', 'leafscore._fast.walker', "
             "'jsonschema') if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, cwd=tmp_path)
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_a_warm_rerun_scores_nothing_and_parses_no_file(tmp_path, monkeypatch):
    root, cache_dir = bench(tmp_path / "b"), tmp_path / "cache"
    cold = leafscore.evaluate(root, cache_dir=cache_dir, keep_verdicts=False)
    calls = {"parse": 0, "score": 0}
    real_parse, real_score = scorer.parse_json, runner.score_cell

    def parse(*args, **kwargs):
        calls["parse"] += 1
        return real_parse(*args, **kwargs)

    def score(*args, **kwargs):
        calls["score"] += 1
        return real_score(*args, **kwargs)

    monkeypatch.setattr(scorer, "parse_json", parse)
    monkeypatch.setattr(runner, "score_cell", score)
    warm = leafscore.evaluate(root, cache_dir=cache_dir, keep_verdicts=False)
    assert calls == {"parse": 0, "score": 0}
    assert warm.summary() == cold.summary()
    assert warm.warnings == cold.warnings


def test_an_edited_result_misses_the_pack_and_rescores_that_result_only(tmp_path, monkeypatch):
    root, cache_dir = bench(tmp_path / "b"), tmp_path / "cache"
    leafscore.evaluate(root, cache_dir=cache_dir, keep_verdicts=False)
    # bytes no other result has (equal bytes would share the other's cached cell)
    write_json(root / "results" / "poor" / "d1.json", {"status": "ok", "data": {"a": "x"}})
    scored = []
    real = runner.score_cell
    monkeypatch.setattr(runner, "score_cell",
                        lambda doc, raw, *rest: scored.append(raw.file) or real(doc, raw, *rest))
    warm = leafscore.evaluate(root, cache_dir=cache_dir, keep_verdicts=False,
                              executor=executors.Serial())
    assert scored == ["results/poor/d1.json"]
    assert warm.document_scores("poor") == {"d1": 0.5, "d2": 0.0, "d3": 0.0}
    assert warm.summary() == leafscore.evaluate(root, cache=False).summary()
    assert len(packs(cache_dir)) == 2  # one per state of the folder


def test_a_result_that_goes_missing_misses_the_pack(tmp_path):
    root, cache_dir = bench(tmp_path / "b"), tmp_path / "cache"
    run("score", root, "--format", "json", "--cache-dir", cache_dir)
    (root / "results" / "good" / "d2.json").unlink()
    warm = run("score", root, "--format", "json", "--cache-dir", cache_dir)
    cold = run("score", root, "--format", "json", "--no-cache")
    assert warm.stdout == cold.stdout
    assert json.loads(warm.stdout)["systems"]["good"]["documents"]["d2"] == 0.0


TAMPERED = {
    "an accuracy its counts do not give": lambda e: e["value"].__setitem__(0, 0.25),
    "a missing status for a result that exists": lambda e: e["status"].__setitem__(0, "missing"),
    "a negative part index": lambda e: e["count"].__setitem__(0, -1),
    "a part index out of range": lambda e: e["path"].__setitem__(0, 99),
    "another version": lambda e: e.update(version="1.0"),
    "a cell left out": lambda e: [e[column].pop() for column in runpack.COLUMNS],
    "a column of another length": lambda e: e["exact"].pop(),
    "an exact flag that is not a boolean": lambda e: e["exact"].__setitem__(0, 1),
    "a negative count": lambda e: e["counts"][0].__setitem__(0, -1),
    "field paths out of order": lambda e: e["paths"].__setitem__(0, ["b", "a"]),
    "a warning that is not text": lambda e: e["warnings"].__setitem__(0, [1]),
    "an error count of a kind that is no error":
        lambda e: e["errors"].append(["a", [["correct", 1]]]) or
        e["error"][0].append(len(e["errors"]) - 1),
    "not a pack": lambda e: e.clear(),
}


@pytest.mark.parametrize("change", TAMPERED.values(), ids=TAMPERED.keys())
def test_a_pack_that_does_not_fit_is_a_miss(tmp_path, change):
    root, cache_dir = bench(tmp_path / "b"), tmp_path / "cache"
    cold = run("score", root, "--format", "json", "--cache-dir", cache_dir)
    (pack,) = packs(cache_dir)
    resign(cache_dir, pack, change)
    assert runpack.decode(json.loads(pack.read_bytes().split(b"\n")[1]), V2, result_files(),
                          [False, False, False, False, True, False]) is None
    warm = run("score", root, "--format", "json", "--cache-dir", cache_dir)
    assert warm.stdout == cold.stdout


def test_a_pack_edited_without_the_key_is_a_miss(tmp_path):
    root, cache_dir = bench(tmp_path / "b"), tmp_path / "cache"
    cold = run("score", root, "--format", "json", "--cache-dir", cache_dir)
    (pack,) = packs(cache_dir)
    pack.write_bytes(pack.read_bytes().replace(b"0.5,", b"1.0,"))
    warm = run("score", root, "--format", "json", "--cache-dir", cache_dir)
    assert warm.stdout == cold.stdout


def test_version_1_0_and_runs_that_keep_verdicts_write_no_pack(tmp_path):
    root, cache_dir = bench(tmp_path / "b"), tmp_path / "cache"
    run("score", root, "--version", "1.0", "--cache-dir", cache_dir)
    run("explain", "d1", root, "--system", "poor", "--cache-dir", cache_dir)
    assert packs(cache_dir) == []


def test_a_pack_holds_the_cells_it_was_made_from(tmp_path):
    cold = leafscore.evaluate(bench(tmp_path / "b"), cache=False, keep_verdicts=False)
    pairs = sorted(cold.run.cells)
    made = [cold.run.cells[pair] for pair in pairs]
    assert any(cell.warnings for cell in made)  # put back with their file's name
    files = result_files()
    entry = runpack.encode([cells.encode(cell, file)
                            for cell, file in zip(made, files, strict=True)], V2)
    read = runpack.decode(json.loads(json.dumps(entry)), V2, files,
                          [cell.status == "missing" for cell in made])
    assert read == made


def test_a_pack_is_made_of_the_cells_stored_forms_and_read_with_their_rules(tmp_path):
    cold = leafscore.evaluate(bench(tmp_path / "b"), cache=False, keep_verdicts=False)
    made = [cold.run.cells[pair] for pair in sorted(cold.run.cells)]
    stored = [json.loads(json.dumps(cells.encode(cell, file)))
              for cell, file in zip(made, result_files(), strict=True)]
    assert [cells.problem(form, V2, missing=cell.status == "missing")
            for form, cell in zip(stored, made, strict=True)] == [""] * len(made)
    assert [cells.decode(form, V2, file) for form, file
            in zip(stored, result_files(), strict=True)] == made
    assert runpack.encode(stored, V2) == runpack.encode(
        [cells.encode(cell, file) for cell, file in zip(made, result_files(), strict=True)],
        V2)


def test_only_cells_of_the_runs_version_without_verdicts_are_packed(tmp_path):
    run_ = leafscore.evaluate(bench(tmp_path / "b"), cache=False, keep_verdicts=True)
    cell = run_.run.cells[("poor", "d1")]
    file = "results/poor/d1.json"
    assert runpack.encode([cells.encode(cell, file)], V2) is None  # verdicts kept
    folded = cells.encode(cells.folded(cell, verdicts=False), file)
    assert runpack.encode([folded], V2) is not None
    assert runpack.encode([folded], dataclasses.replace(V2, name="2.0")) is None
    assert runpack.encode([None], V2) is None  # a cell that cannot be stored


# ----- the read memo of schemas and labels -------------------------------------------

def test_a_label_read_from_the_memo_equals_one_parsed_now(tmp_path):
    root, cache_dir = bench(tmp_path / "b"), tmp_path / "cache"
    api.load(root, cache_dir=cache_dir, cache=True)
    memo = api.load(root, cache_dir=cache_dir, cache=True)
    fresh = api.load(root)
    assert isinstance(memo.documents[0].__dict__["_label_held"], benchmark._Unparsed)
    assert memo.documents == fresh.documents
    assert pickle.loads(pickle.dumps(memo.documents)) == fresh.documents
    assert dataclasses.replace(memo.documents[0], id="x").label == LABEL
    assert memo.digests == fresh.digests


def test_read_warnings_of_a_memoized_label_are_said_again(tmp_path):
    root, cache_dir = bench(tmp_path / "b"), tmp_path / "cache"
    (root / "labels" / "d1.json").write_bytes(b'{"a": "w", "a": "x", "b": "y"}')
    cold = run("score", root, "--format", "json", "--cache-dir", cache_dir)
    warm = run("score", root, "--format", "json", "--cache-dir", cache_dir)
    assert "labels/d1.json: duplicate key 'a' in an object; the last value is kept" \
        in cold.stderr
    assert warm.stderr == cold.stderr
    assert warm.stdout == cold.stdout


def test_a_label_broken_after_a_warm_run_is_an_error_naming_it(tmp_path):
    root, cache_dir = bench(tmp_path / "b"), tmp_path / "cache"
    run("score", root, "--cache-dir", cache_dir)
    run("score", root, "--cache-dir", cache_dir)
    (root / "labels" / "d2.json").write_bytes(b'{"a": "p",')
    broken = invoke("score", root, "--cache-dir", cache_dir)
    assert broken.exit_code == 2
    assert "labels/d2.json" in broken.stderr


def test_an_edited_label_is_read_again(tmp_path):
    root, cache_dir = bench(tmp_path / "b"), tmp_path / "cache"
    run("score", root, "--format", "json", "--cache-dir", cache_dir)
    write_json(root / "labels" / "d1.json", HALF_RIGHT)
    warm = run("score", root, "--format", "json", "--cache-dir", cache_dir)
    cold = run("score", root, "--format", "json", "--no-cache")
    assert warm.stdout == cold.stdout
    assert json.loads(warm.stdout)["systems"]["poor"]["documents"]["d1"] == 1.0


def test_a_memo_entry_that_is_not_a_memo_is_ignored(tmp_path):
    root, cache_dir = bench(tmp_path / "b"), tmp_path / "cache"
    cold = run("score", root, "--format", "json", "--cache-dir", cache_dir)
    (memo,) = (cache_dir / "reads").rglob("*.json")
    resign(cache_dir, memo, lambda e: e.update({k: [1, 2] for k in list(e)}))
    warm = run("score", root, "--format", "json", "--cache-dir", cache_dir)
    assert warm.stdout == cold.stdout


# ----- the label checks of a whole benchmark --------------------------------------------

def test_label_checks_of_a_warm_run_are_read_whole(tmp_path, monkeypatch):
    root, cache_dir = bench(tmp_path / "b"), tmp_path / "cache"
    write_json(root / "labels" / "d3.json", {"a": 7, "b": "s"})  # violates the schema
    cold = leafscore.evaluate(root, cache_dir=cache_dir, keep_verdicts=False)
    checked = []
    monkeypatch.setattr(validate, "_checked_label", lambda *a: checked.append(a) or None)
    warm = leafscore.evaluate(root, cache_dir=cache_dir, keep_verdicts=False)
    assert checked == []
    assert warm.warnings == cold.warnings
    assert warm.warnings[0].startswith("labels/d3.json: violates its schema (1 problem(s)")


def test_reading_a_pack_leaves_the_cycle_collector_as_it_found_it(tmp_path):
    import gc

    root, cache_dir = bench(tmp_path / "b"), tmp_path / "cache"
    leafscore.evaluate(root, cache_dir=cache_dir, keep_verdicts=False)
    assert gc.isenabled()
    leafscore.evaluate(root, cache_dir=cache_dir, keep_verdicts=False)
    assert gc.isenabled()
    gc.disable()
    try:
        leafscore.evaluate(root, cache_dir=cache_dir, keep_verdicts=False)
        assert not gc.isenabled()
    finally:
        gc.enable()


# ----- label checks made while the batches are scored ------------------------------------

def test_calls_alongside_a_run_are_spread_over_its_cells_in_order(tmp_path):
    root = bench(tmp_path / "b")  # 6 cells
    folded, made = [], []
    runner.score_benchmark(
        api.load(root), record=V2, engine="fast", options=scorer.Options(), verdicts=False,
        progress=lambda done, total: folded.append(done),
        alongside=[lambda n=n: made.append((n, folded[-1])) for n in range(3)])
    assert made == [(0, 0), (1, 2), (2, 4)]  # one call every 2 cells, the first at once


def test_every_call_alongside_is_made_when_the_run_comes_from_its_pack(tmp_path):
    root, cache_dir = bench(tmp_path / "b"), tmp_path / "cache"
    leafscore.evaluate(root, cache_dir=cache_dir, keep_verdicts=False, engine="fast")
    made = []
    runner.score_benchmark(api.load(root), record=V2, engine="fast", options=scorer.Options(),
                           verdicts=False, cache=cache_module.Cache(cache_dir),
                           alongside=[lambda: made.append(1)] * 4)
    assert made == [1, 1, 1, 1]


def test_label_warnings_are_the_same_whoever_scores(tmp_path):
    root = bench(tmp_path / "b")
    write_json(root / "labels" / "d3.json", {"a": 7, "b": "s"})  # violates the schema
    serial = leafscore.evaluate(root, cache=False, keep_verdicts=False)
    pool = leafscore.evaluate(root, cache=False, keep_verdicts=False, workers=2)
    assert pool.warnings == serial.warnings
    assert [w for w in serial.warnings if "violate" in w] == [
        "labels/d3.json: violates its schema (1 problem(s); first at #/a: 7 is not of "
        "type 'string' (schema schemas/d3.json#/properties/a/type)); scored as it is",
        "1 label(s) violate their schema; run `leafscore validate`"]
    assert serial.warnings[-1] == ("results/poor/d3.json:line 1 column 2: Expecting property "
                                   "name enclosed in double quotes (parse failure)")
