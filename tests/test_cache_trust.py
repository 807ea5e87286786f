"""A cache that cannot lie (issue 14 item 4): the key covers everything that decides a
score, entries are signed and checked on read, and warnings name the file being read.

Every test compares a warm run with a cold one: a cache may only ever save time.
"""

from __future__ import annotations

import dataclasses
import json
import os
import stat

import pytest
from cli_helpers import REPO, invoke, make_benchmark, private_cache, write_json
from engines import ENGINES, REFERENCE
from hypothesis import given, settings
from hypothesis import strategies as st

import scorer
from leafscore import cache as cache_module
from leafscore import cells

__all__ = ["private_cache"]

LABEL = {"a": "x", "b": "y"}
HALF_RIGHT = {"a": "x", "b": "z"}  # one leaf correct, one wrong: accuracy 0.5


def run(*args):
    result = invoke(*args)
    assert result.exit_code == 0, result.stderr
    return result


def the_entry(cache_dir):
    """(key, path) of the one cell entry in ``cache_dir``, its run packs dropped so that
    the next run reads this entry (a pack would serve the run whole)."""
    (path,) = cell_entries(cache_dir)
    for pack in (cache_dir / "runs").rglob("*.json"):
        pack.unlink()
    return path.stem, path


#: Cache sub-folders that hold no cell entry: label checks, read memos, run packs.
NOT_CELLS = ("label-checks", "reads", "runs")


def cell_entries(cache_dir):
    """The cell entries of a cache folder (other entries live apart: ``NOT_CELLS``)."""
    return [p for p in cache_dir.rglob("*.json")
            if not p.name.startswith(".") and not set(NOT_CELLS) & set(p.parts)]


def write_signed(cache_dir, key, path, entry_line: bytes, detail_line: bytes = b""):
    """Write an entry signed with the user's own key, NaN and all: what a writer holding
    the key (or a bug) could leave behind, so only the entry checks stand in the way."""
    secret = cache_module.signing_key(cache_dir).secret
    head = cache_module._mac(secret, key, "entry", entry_line) + b" " + (
        cache_module._mac(secret, key, "detail", detail_line) if detail_line else b"-")
    path.write_bytes(head + b"\n" + entry_line + (b"\n" + detail_line if detail_line else b""))


def parts(path):
    head, entry, *detail = path.read_bytes().split(b"\n")
    return head, json.loads(entry), detail


def half_right_bench(tmp_path):
    return make_benchmark(tmp_path / "bench", {"d1": LABEL}, {"s": {"d1": HALF_RIGHT}})


# ----- the key covers the reading mode ---------------------------------------------------

DATA_SCHEMA = {"type": "object", "properties": {"data": {"type": "string"}}}


def folder_run(tmp_path, cache_dir):
    """A folder whose one result file holds ``{"data":"x"}``: the schema declares ``data``,
    so the file is the result itself and scores 1.0."""
    root = tmp_path / "folder"
    write_json(root / "schemas" / "d1.json", DATA_SCHEMA)
    write_json(root / "labels" / "d1.json", {"data": "x"})
    (root / "results" / "pred").mkdir(parents=True, exist_ok=True)
    (root / "results" / "pred" / "d1.json").write_bytes(b'{"data":"x"}')
    return run("score", root, "--format", "json", "--cache-dir", cache_dir)


def jsonl_run(tmp_path, cache_dir):
    """The same document as a JSONL line, which stands for the same bytes."""
    write_json(tmp_path / "schema.json", DATA_SCHEMA)
    (tmp_path / "gold.jsonl").write_text('{"id": "d1", "data": "x"}\n', encoding="utf-8")
    (tmp_path / "pred.jsonl").write_text('{"id": "d1", "data": "x"}\n', encoding="utf-8")
    return run("score", "--gold", tmp_path / "gold.jsonl", "--pred", tmp_path / "pred.jsonl",
               "--schema", tmp_path / "schema.json", "--format", "json",
               "--cache-dir", cache_dir)


def document_score(result):
    return json.loads(result.stdout)["systems"]["pred"]["documents"]["d1"]


def test_a_jsonl_run_after_a_folder_run_on_the_same_bytes_prints_its_cold_output(tmp_path):
    cold = jsonl_run(tmp_path, tmp_path / "cold-cache")
    folder_run(tmp_path, tmp_path / "shared")
    warm = jsonl_run(tmp_path, tmp_path / "shared")
    assert document_score(cold) == 1.0
    assert (warm.stdout, warm.stderr) == (cold.stdout, cold.stderr)


def test_a_folder_run_after_a_jsonl_run_on_the_same_bytes_prints_its_cold_output(tmp_path):
    cold = folder_run(tmp_path, tmp_path / "cold-cache")
    jsonl_run(tmp_path, tmp_path / "shared")
    warm = folder_run(tmp_path, tmp_path / "shared")
    assert document_score(cold) == 1.0
    assert (warm.stdout, warm.stderr) == (cold.stdout, cold.stderr)


def test_the_reading_mode_is_part_of_the_key():
    base = dict(schema_sha256="s", label_sha256="l", result_sha256="r", version="2.0",
                engine="fast", options_sha256="o", code_sha256="c")
    assert cache_module.cache_key(**base, reader="file") != \
        cache_module.cache_key(**base, reader="jsonl-line")


# ----- entries are checked and signed ----------------------------------------------------

TAMPERED = {
    "accuracy 5.0": lambda e: e["score"].update(accuracy=5.0),
    "accuracy NaN": lambda e: e["score"].update(accuracy=float("nan")),
    "negative count": lambda e: e["score"]["counts"].update(correct=-1, wrong_value=3),
    "counts that give another accuracy": lambda e: e["score"]["counts"].update(correct=2),
    "field counts that disagree with the counts":
        lambda e: e["score"]["fields"]["b"].update(fp=0),
    "an unknown status": lambda e: e.update(status="perfect"),
    "a missing status for a result that exists": lambda e: e.update(status="missing"),
    "no score": lambda e: e.update(score=None),
}


@pytest.mark.parametrize("change", TAMPERED.values(), ids=TAMPERED.keys())
def test_an_entry_that_does_not_add_up_is_rescored(tmp_path, change):
    root, cache_dir = half_right_bench(tmp_path), tmp_path / "cache"
    cold = run("score", root, "--format", "json", "--cache-dir", cache_dir)
    key, path = the_entry(cache_dir)
    _, entry, detail = parts(path)
    change(entry)
    write_signed(cache_dir, key, path, json.dumps(entry).encode(), b"\n".join(detail))
    warm = run("score", root, "--format", "json", "--cache-dir", cache_dir)
    assert json.loads(warm.stdout)["systems"]["s"]["documents"] == {"d1": 0.5}
    assert warm.stdout == cold.stdout


def test_an_edited_entry_with_a_stale_signature_is_rescored(tmp_path):
    root, cache_dir = half_right_bench(tmp_path), tmp_path / "cache"
    cold = run("score", root, "--format", "json", "--cache-dir", cache_dir)
    _, path = the_entry(cache_dir)
    path.write_bytes(path.read_bytes().replace(b'"accuracy":0.5', b'"accuracy":1.0'))
    warm = run("score", root, "--format", "json", "--cache-dir", cache_dir)
    assert json.loads(warm.stdout)["systems"]["s"]["documents"] == {"d1": 0.5}
    assert warm.stdout == cold.stdout


def test_an_entry_copied_under_another_key_is_rescored(tmp_path):
    root = make_benchmark(tmp_path / "bench", {"d1": LABEL},
                          {"good": {"d1": LABEL}, "poor": {"d1": HALF_RIGHT}})
    cache_dir = tmp_path / "cache"
    cold = run("score", root, "--format", "json", "--cache-dir", cache_dir)
    entries = {parts(p)[1]["score"]["accuracy"]: p for p in cell_entries(cache_dir)}
    entries[0.5].write_bytes(entries[1.0].read_bytes())  # the perfect entry, signed
    for pack in (cache_dir / "runs").rglob("*.json"):
        pack.unlink()
    warm = run("score", root, "--format", "json", "--cache-dir", cache_dir)
    assert json.loads(warm.stdout)["systems"]["poor"]["documents"] == {"d1": 0.5}
    assert warm.stdout == cold.stdout


def test_a_version_1_0_final_that_its_parts_do_not_give_is_rescored(tmp_path):
    root, cache_dir = half_right_bench(tmp_path), tmp_path / "cache"
    args = ("score", root, "--version", "1.0", "--format", "json", "--cache-dir", cache_dir)
    cold = run(*args)
    key, path = the_entry(cache_dir)
    _, entry, _ = parts(path)
    assert entry["score"] == {"non_array": {"score": 0.5, "total": 2}, "final": 0.5}
    entry["score"]["final"] = 1.0
    write_signed(cache_dir, key, path, json.dumps(entry).encode())
    warm = run(*args)
    assert json.loads(warm.stdout)["systems"]["s"]["documents"] == {"d1": 0.5}
    assert warm.stdout == cold.stdout


def test_verdicts_that_disagree_with_their_counts_are_rescored(tmp_path):
    root, cache_dir = half_right_bench(tmp_path), tmp_path / "cache"
    cold = run("explain", "d1", root, "--system", "s", "--format", "json", "--cache-dir", cache_dir)
    key, path = the_entry(cache_dir)
    _, entry, (detail,) = parts(path)
    verdicts = json.loads(detail)
    for verdict in verdicts:
        verdict["kind"] = "correct"
    write_signed(cache_dir, key, path, json.dumps(entry).encode(), json.dumps(verdicts).encode())
    warm = run("explain", "d1", root, "--system", "s", "--format", "json", "--cache-dir", cache_dir)
    assert warm.stdout == cold.stdout


# ----- one stored form: what the checker accepts, the codec reads back -------------------

SCHEMA = {"type": "object", "properties": {
    "a": {"type": "string"}, "b": {"type": "string"},
    "items": {"type": "array", "items": {"type": "object", "properties": {
        "n": {"type": "number"}}}}}}
TRUTH = {"a": "x", "b": "y", "items": [{"n": 1}, {"n": 2}]}
GUESS = {"a": "x", "b": "z", "items": [{"n": 1}, {"n": 3}, {"n": 4}]}
FILE = "results/s/d1.json"


def sample_cells(engine=REFERENCE):
    """(record, cell) of each kind a cache holds, scored by ``engine``: 2.x (the default,
    2.1) with its verdicts, 2.x folded, 1.0, a parse failure, and 1.0's missing result
    (no score)."""
    v1, v2 = engine.versions["1.0"], engine.versions[scorer.DEFAULT_VERSION]
    scored = cells.Cell("scored", engine.score(GUESS, SCHEMA, TRUTH), (f"{FILE}: a note",))
    failed = cells.Cell("parse_failure", engine.score_parse_failure(SCHEMA, TRUTH),
                        (f"{FILE}: not valid JSON (parse failure)",))
    return [(v2, scored), (v2, cells.folded(scored, verdicts=False)), (v2, failed),
            (v1, cells.Cell("scored", engine.score(GUESS, SCHEMA, TRUTH, version="1.0"))),
            (v1, cells.Cell("missing", None))]


EVERY_CELL = [pytest.param(record, cell, id=f"{engine.name}-{k}")
              for engine in ENGINES for k, (record, cell) in enumerate(sample_cells(engine))]


@pytest.mark.parametrize("record, cell", EVERY_CELL)
def test_a_stored_cell_passes_the_checker_and_decodes_to_itself(record, cell):
    stored = json.loads(json.dumps(cells.encode(cell, FILE)))
    assert stored["warnings"] == [w.removeprefix(FILE) for w in cell.warnings]
    assert cells.problem(stored, record, missing=cell.status == "missing") == ""
    # what a cache holds of a cell: its error kinds folded, verdicts kept as they were
    assert cells.decode(stored, record, FILE) == dataclasses.replace(
        cell, errors=cell.field_errors())


def test_a_warning_naming_another_file_is_never_stored():
    cell = cells.Cell("scored", scorer.score(GUESS, SCHEMA, TRUTH), ("elsewhere: a note",))
    assert cells.encode(cell, FILE) is None


def paths_of(value, path=()):
    """Every place in a JSON value: the key/index path of each member and item."""
    yield path
    if isinstance(value, dict):
        for key, member in value.items():
            yield from paths_of(member, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from paths_of(item, (*path, index))


def replaced(value, path, new):
    """A copy of ``value`` with the member at ``path`` replaced by ``new``."""
    if not path:
        return new
    copy = list(value) if isinstance(value, list) else dict(value)
    copy[path[0]] = replaced(value[path[0]], path[1:], new)
    return copy


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2, 3) | st.sampled_from([0.0, 0.5, 1.0, 2.0])
    | st.floats() | st.sampled_from(["", "correct", "missing", "wrong_value", "2.0", "a"]),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(["tp", "fp", "fn", "a", "correct"]), inner, max_size=3),
    max_leaves=6)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_the_checker_never_raises_and_what_it_accepts_decodes(data):
    record, cell = data.draw(st.sampled_from([p.values for p in EVERY_CELL]))
    stored = json.loads(json.dumps(cells.encode(cell, FILE)))
    for _ in range(data.draw(st.integers(1, 2))):
        place = data.draw(st.sampled_from(list(paths_of(stored))))
        stored = replaced(stored, place, data.draw(JSON_VALUES))
    missing = data.draw(st.booleans())
    if cells.problem(stored, record, missing=missing) == "":
        read = cells.decode(stored, record, FILE)
        assert read.status in cells.STATUSES and (read.status == "missing") == missing
        assert read.score is None or 0 <= read.score.value <= 1


def test_the_signing_key_is_32_private_bytes_made_on_first_use_outside_the_cache(
        tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    run("score", half_right_bench(tmp_path), "--cache-dir", tmp_path / "cache")
    secret = tmp_path / "config" / "leafscore" / "cache.key"
    assert secret.stat().st_size == 32
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600
    assert stat.S_IMODE(secret.parent.stat().st_mode) == 0o700
    assert not list((tmp_path / "cache").rglob("*.key"))


def test_a_key_that_others_can_read_turns_the_cache_off(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    secret = tmp_path / "config" / "leafscore" / "cache.key"
    secret.parent.mkdir(parents=True)
    secret.write_bytes(os.urandom(32))
    secret.chmod(0o644)
    out = run("score", half_right_bench(tmp_path), "--cache-dir", tmp_path / "cache")
    assert not (tmp_path / "cache").exists()
    assert (f"leafscore: the cache key {secret} is not a private 32-byte file of this user; "
            "scoring without the cache") in out.stderr


# ----- warnings name the file being read -------------------------------------------------

FENCED = b'{"status": "ok", "data": "```json\\n{\\"a\\": \\"x\\", \\"b\\": \\"y\\"}\\n```"}'


def test_identical_bytes_from_two_systems_warn_about_each_systems_own_file(tmp_path):
    root = make_benchmark(tmp_path / "bench", {"d1": LABEL},
                          {"first": {"d1": FENCED}, "second": {"d1": FENCED}})
    cache_dir = tmp_path / "cache"
    cold = run("score", root, "--format", "json", "--cache-dir", cache_dir)
    warm = run("score", root, "--format", "json", "--cache-dir", cache_dir)
    assert [line for line in warm.stderr.splitlines() if "warning" in line] == [
        "leafscore: warning: results/first/d1.json: data given as text holding JSON in a "
        "markdown code fence: decoded",
        "leafscore: warning: results/second/d1.json: data given as text holding JSON in a "
        "markdown code fence: decoded",
    ]
    assert (warm.stdout, warm.stderr) == (cold.stdout, cold.stderr)


def test_a_warning_cached_by_one_system_names_the_next_systems_file(tmp_path):
    first = make_benchmark(tmp_path / "one", {"d1": LABEL}, {"first": {"d1": FENCED}})
    second = make_benchmark(tmp_path / "two", {"d1": LABEL}, {"second": {"d1": FENCED}})
    cache_dir = tmp_path / "cache"
    run("score", first, "--cache-dir", cache_dir)
    warm = run("score", second, "--format", "json", "--cache-dir", cache_dir)
    cold = run("score", second, "--format", "json", "--no-cache")
    assert "results/second/d1.json: data given as text" in warm.stderr
    assert "first" not in warm.stderr
    assert (warm.stdout, warm.stderr) == (cold.stdout, cold.stderr)


# ----- the shipped sample ----------------------------------------------------------------

@pytest.mark.parametrize("command", [("score", "--format", "json"), ("leaderboard",)],
                         ids=["score --format json", "leaderboard"])
def test_a_warm_run_on_the_sample_prints_the_bytes_of_a_cold_run(tmp_path, command):
    name, *options = command
    cold = run(name, REPO, *options, "--cache-dir", tmp_path / "cache")
    warm = run(name, REPO, *options, "--cache-dir", tmp_path / "cache")
    fresh = run(name, REPO, *options, "--no-cache")
    assert (warm.stdout, warm.stderr) == (cold.stdout, cold.stderr)
    assert (warm.stdout, warm.stderr) == (fresh.stdout, fresh.stderr)

