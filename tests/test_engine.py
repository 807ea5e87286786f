"""The engine and the scoring version are chosen once, at the door (``leafscore.versions``).

* The engine is ``--engine fast|reference`` on every scoring command, else
  ``$LEAFSCORE_ENGINE``, else ``fast``; the flag wins; an unknown value is one line on
  stderr and exit 2. The API takes ``engine=`` the same way.
* Both engines give the same bytes; the record a run scores with comes from the chosen
  engine's table, and the run says which engine it was (``Run.engine``).
* The cache keys the engine: a run of one engine never reads the cells, or the run
  packs, another wrote; and the code digest covers the accelerated engine's files.
* The version: the one asked for, else the benchmark's pin, else ``scorer.DEFAULT_VERSION``
  (noted on stderr by the CLI), one rule for every command.
"""

from __future__ import annotations

import dataclasses
import json

import pytest
from cli_helpers import REPO, invoke, make_benchmark, private_cache  # noqa: F401 (autouse)

import leafscore
import scorer
from leafscore import _fast, cache, runner, versions
from leafscore.cli import main

ENGINE = versions.ENGINE_VARIABLE
LABEL = {"a": "x", "b": "y"}


@pytest.fixture(autouse=True)
def no_engine_in_the_environment(monkeypatch):
    monkeypatch.delenv(ENGINE, raising=False)


def spied_engines(monkeypatch) -> list[str]:
    """Both engines' tables with records that note which engine scored a document."""
    scored: list[str] = []
    for engine, table in (("fast", _fast.VERSIONS), ("reference", scorer.VERSIONS)):
        for name, record in list(table.items()):
            def document(*args, record=record, engine=engine):
                scored.append(engine)
                return record.document(*args)

            monkeypatch.setitem(table, name, dataclasses.replace(record, document=document))
    return scored


def small(tmp_path):
    return make_benchmark(tmp_path / "bench", {"d1": LABEL, "d2": LABEL},
                          {"s": {"d1": LABEL, "d2": {"a": "x", "b": "z"}}})


def score(*args):
    result = invoke("score", *args, "--format", "json", "--no-cache")
    assert result.exit_code == 0, result.stderr
    return result


# ----- choosing the engine ------------------------------------------------------------

def test_the_default_engine_is_fast(tmp_path, monkeypatch):
    scored = spied_engines(monkeypatch)
    score(small(tmp_path))
    assert set(scored) == {"fast"}


def test_the_engine_flag_chooses_the_engine(tmp_path, monkeypatch):
    scored = spied_engines(monkeypatch)
    score(small(tmp_path), "--engine", "reference")
    assert set(scored) == {"reference"}


def test_the_environment_chooses_the_engine_when_no_flag_does(tmp_path, monkeypatch):
    scored = spied_engines(monkeypatch)
    monkeypatch.setenv(ENGINE, "reference")
    score(small(tmp_path))
    assert set(scored) == {"reference"}


def test_the_flag_wins_over_the_environment(tmp_path, monkeypatch):
    scored = spied_engines(monkeypatch)
    monkeypatch.setenv(ENGINE, "reference")
    score(small(tmp_path), "--engine", "fast")
    assert set(scored) == {"fast"}


def test_an_unknown_engine_flag_is_one_line_and_exit_2(tmp_path):
    result = invoke("score", small(tmp_path), "--engine", "turbo")
    assert result.exit_code == 2
    assert result.stderr == (
        "leafscore: error: engine='turbo' is not one of 'fast', 'reference'\n")
    assert result.stdout == ""


def test_an_unknown_engine_in_the_environment_is_one_line_and_exit_2(tmp_path, monkeypatch):
    monkeypatch.setenv(ENGINE, "turbo")
    result = invoke("score", small(tmp_path))
    assert result.exit_code == 2
    assert result.stderr == (
        "leafscore: error: LEAFSCORE_ENGINE='turbo' is not one of 'fast', 'reference'\n")


def test_an_unknown_engine_is_refused_by_validate_too(tmp_path):
    result = invoke("validate", small(tmp_path), "--engine", "turbo")
    assert result.exit_code == 2
    assert len(result.stderr.splitlines()) == 1


def test_validate_checks_labels_with_the_chosen_engine(tmp_path, monkeypatch):
    scored = spied_engines(monkeypatch)
    assert invoke("validate", small(tmp_path), "--engine", "reference").exit_code == 0
    assert set(scored) == {"reference"}


def test_every_command_with_a_scoring_version_has_an_engine():
    # plan compiles each schema by the definition and scores nothing: no engine to choose
    scoring = [name for name, command in main.commands.items()
               if any("--version" in p.opts for p in command.params) and name != "plan"]
    assert len(scoring) >= 12  # validate, score, leaderboard, report, explore, verify, ...
    for name in scoring:
        options = [opt for p in main.commands[name].params for opt in p.opts]
        assert "--engine" in options, name


# ----- both engines give the same bytes -------------------------------------------------

def test_the_reference_engine_and_the_default_print_the_same_json_on_the_sample():
    fast, reference = score(REPO), score(REPO, "--engine", "reference")
    assert reference.stdout == fast.stdout
    assert reference.stderr == fast.stderr
    assert json.loads(fast.stdout)["systems"]


def test_the_api_takes_the_engine_and_the_run_records_it(monkeypatch):
    fast = leafscore.evaluate(REPO, cache=False)
    reference = leafscore.evaluate(REPO, cache=False, engine="reference")
    assert (fast.run.engine, reference.run.engine) == ("fast", "reference")
    assert fast.run.record is _fast.VERSIONS[fast.version]
    assert reference.run.record is scorer.VERSIONS[reference.version]
    assert fast.summary() == reference.summary()
    monkeypatch.setenv(ENGINE, "reference")
    assert leafscore.evaluate(REPO, cache=False).run.engine == "reference"


def test_the_jsonl_api_takes_the_engine():
    jsonl = leafscore.evaluate_jsonl(
        REPO / "examples/jsonl/gold.jsonl", {"atlas": REPO / "examples/jsonl/atlas.jsonl"},
        REPO / "examples/jsonl/schema.json", cache=False, engine="reference")
    assert jsonl.run.engine == "reference"


def test_an_unknown_engine_is_a_value_error_of_the_api():
    with pytest.raises(ValueError, match=r"engine='turbo' is not one of 'fast', 'reference'"):
        leafscore.evaluate(REPO, cache=False, engine="turbo")


# ----- the cache keys the engine -------------------------------------------------------

def test_the_cache_key_differs_by_engine():
    base = dict(schema_sha256="s", label_sha256="l", result_sha256="r", version="2.0",
                options_sha256="o", code_sha256="c", reader="file")
    assert cache.cache_key(**base, engine="fast") != cache.cache_key(**base, engine="reference")


def test_a_reference_run_never_reads_cells_the_fast_engine_wrote(tmp_path, monkeypatch):
    root, cache_dir = small(tmp_path), tmp_path / "cache"
    for keep_verdicts in (True, False):  # per-cell entries, then a run pack
        leafscore.evaluate(root, cache_dir=cache_dir, keep_verdicts=keep_verdicts)
    scored = []
    real = runner.score_cell
    monkeypatch.setattr(runner, "score_cell",
                        lambda doc, raw, *rest: scored.append(raw.file) or real(doc, raw, *rest))
    for keep_verdicts in (True, False):
        leafscore.evaluate(root, cache_dir=cache_dir, engine="reference",
                           keep_verdicts=keep_verdicts)
    assert scored == ["results/s/d1.json", "results/s/d2.json"]  # once, then from its cache
    leafscore.evaluate(root, cache_dir=cache_dir, keep_verdicts=False)
    assert len(scored) == 2  # each engine's cells stay its own


def test_the_code_digest_covers_every_file_of_the_accelerated_engine(monkeypatch):
    folder = REPO / "leafscore" / "_fast"
    files = cache.engine_files()
    assert files == sorted(folder.rglob("*.py"), key=lambda p: p.as_posix())
    assert folder / "__init__.py" in files
    before = cache.code_digest()
    monkeypatch.setattr(cache, "engine_files", lambda: [*files, REPO / "leafscore" / "run.py"])
    cache.code_digest.cache_clear()
    try:
        assert cache.code_digest() != before  # one more file of the engine: other code
    finally:
        cache.code_digest.cache_clear()


# ----- the version, by one rule ----------------------------------------------------------

def test_the_version_asked_for_wins_then_the_pin_then_the_default():
    noted = []
    assert versions.resolve("1.0", "2.0").name == "1.0"
    assert versions.resolve(None, "1.0").name == "1.0"
    assert versions.resolve(None, None, on_default=noted.append).name == scorer.DEFAULT_VERSION
    assert noted == [scorer.DEFAULT_VERSION]


def test_the_record_comes_from_the_chosen_engines_table(monkeypatch):
    assert versions.resolve("2.0", None, engine="reference") is scorer.VERSIONS["2.0"]
    assert versions.resolve("2.0", None, engine="fast") is _fast.VERSIONS["2.0"]
    monkeypatch.setenv(ENGINE, "reference")
    assert versions.resolve("2.0", None) is scorer.VERSIONS["2.0"]


def test_an_unknown_version_is_refused_in_the_metrics_words():
    with pytest.raises(ValueError, match=r"^version='3\.0' is not one of '1\.0', '2\.0', '2\.1'$"):
        versions.resolve("3.0", None)


def test_the_cli_notes_the_default_version_once(tmp_path):
    result = score(small(tmp_path))
    assert result.stderr == ("leafscore: no scoring_version pinned (benchmark.toml); using "
                             f"the latest, {scorer.DEFAULT_VERSION}\n")
