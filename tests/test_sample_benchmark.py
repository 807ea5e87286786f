"""The shipped sample benchmark: consistent files, valid labels, and its intended faults.

The sample (``documents/``, ``schemas/``, ``labels/``, ``results/<system>/``,
``benchmark.toml``, ``sources.json``) is authored for leafscore. Its systems imitate
typical extraction errors, and exactly three result files are broken on purpose:
one missing, one truncated, one ``"status": "failed"``.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import jsonschema
import pytest

REPO = Path(__file__).resolve().parent.parent
IDS = sorted(path.stem for path in (REPO / "labels").glob("*.json"))
SYSTEMS = sorted(path.name for path in (REPO / "results").iterdir() if path.is_dir())

MISSING = ("cobalt", "pay-002")
TRUNCATED = ("beacon", "bst-002")
FAILED = ("drift", "inv-002")
STRONG, WEAK = "atlas", "drift"


def read(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


def schema_of(doc_id: str) -> dict:
    return read(REPO / "schemas" / f"{doc_id}.json")


def label_of(doc_id: str) -> dict:
    return read(REPO / "labels" / f"{doc_id}.json")


def array_key_paths(node, path=()):
    """Key paths of every array-typed schema object, searched as spec 1.0 §2 searches."""
    if isinstance(node, dict):
        kind = node.get("type")
        if kind == "array" or (isinstance(kind, list) and "array" in kind):
            yield path
            return
        for key, value in node.items():
            yield from array_key_paths(value, (*path, key))
    elif isinstance(node, list):
        for value in node:
            yield from array_key_paths(value, path)


def test_the_sample_has_at_least_12_documents_and_4_systems():
    assert len(IDS) >= 12
    assert len(SYSTEMS) >= 4


def test_document_ids_are_short_lowercase_slugs():
    assert all(doc_id.islower() and len(doc_id) <= 12 and "/" not in doc_id for doc_id in IDS)


@pytest.mark.parametrize("folder, suffix", [("schemas", ".json"), ("documents", ".txt")])
def test_every_label_has_a_schema_and_a_document_and_nothing_else(folder, suffix):
    names = sorted(path.name for path in (REPO / folder).iterdir())
    assert names == [doc_id + suffix for doc_id in IDS]


def test_every_result_file_names_a_labelled_document():
    for system in SYSTEMS:
        stems = {path.stem for path in (REPO / "results" / system).glob("*.json")}
        assert stems <= set(IDS), system


def test_sources_json_describes_each_document_once():
    records = read(REPO / "sources.json")
    assert sorted(record["doc_id"] for record in records) == IDS
    assert all({"name", "pages", "lang", "ftype", "tags"} <= record.keys() for record in records)


def test_benchmark_toml_pins_version_2_0_and_names_the_metadata_file():
    config = tomllib.loads((REPO / "benchmark.toml").read_text(encoding="utf-8"))
    assert config["name"] == "leafscore-sample"
    assert config["scoring_version"] == "2.0"
    assert (REPO / config["metadata"]).is_file()
    assert config["options"]["decimal_separator"] == "."


@pytest.mark.parametrize("doc_id", IDS)
def test_every_schema_is_a_valid_json_schema(doc_id):
    schema = schema_of(doc_id)
    jsonschema.validators.validator_for(schema).check_schema(schema)


@pytest.mark.parametrize("doc_id", IDS)
def test_every_label_validates_against_its_schema(doc_id):
    schema = schema_of(doc_id)
    validator = jsonschema.validators.validator_for(schema)(
        schema, format_checker=jsonschema.FormatChecker()
    )
    problems = [f"{e.json_path}: {e.message}" for e in validator.iter_errors(label_of(doc_id))]
    assert problems == []


@pytest.mark.parametrize("doc_id", IDS)
def test_every_array_field_sits_under_a_properties_chain_so_version_1_0_scores_it(doc_id):
    for path in array_key_paths(schema_of(doc_id)):
        assert len(path) % 2 == 0 and all(key == "properties" for key in path[::2]), path


def test_the_sample_uses_ref_nullable_anyof_nested_arrays_and_schema_options():
    text = "".join((REPO / "schemas" / f"{doc_id}.json").read_text() for doc_id in IDS)
    for feature in ('"$ref"', '"$defs"', '"anyOf"', '"enum"', '"boolean"', '"format": "date"',
                    '"abs_tol"', '"fuzzy"', '"ignore"', '"ordered"', '"decimal_separator"'):
        assert feature in text, feature
    assert '"deliveries"' in text and '"contents"' in text  # arrays inside array items


def test_exactly_one_result_file_is_missing():
    absent = [
        (system, doc_id)
        for system in SYSTEMS
        for doc_id in IDS
        if not (REPO / "results" / system / f"{doc_id}.json").exists()
    ]
    assert absent == [MISSING]


def test_exactly_one_result_file_is_truncated_json():
    broken = []
    for system in SYSTEMS:
        for path in sorted((REPO / "results" / system).glob("*.json")):
            try:
                read(path)
            except json.JSONDecodeError:
                broken.append((system, path.stem))
    assert broken == [TRUNCATED]


def test_exactly_one_envelope_reports_a_failed_run_with_null_data():
    failed = []
    for system in SYSTEMS:
        for path in sorted((REPO / "results" / system).glob("*.json")):
            if (system, path.stem) == TRUNCATED:
                continue
            envelope = read(path)
            if envelope["status"] != "ok":
                assert envelope["data"] is None
                failed.append((system, path.stem))
    assert failed == [FAILED]


def test_every_other_envelope_is_ok_with_an_object_data_member():
    for system in SYSTEMS:
        for path in sorted((REPO / "results" / system).glob("*.json")):
            if (system, path.stem) in (TRUNCATED, FAILED):
                continue
            envelope = read(path)
            assert envelope["status"] == "ok" and isinstance(envelope["data"], dict), path
            assert {"cost", "time_sec"} <= envelope.keys(), path


def ok_results(system: str):
    for doc_id in IDS:
        if (system, doc_id) in (MISSING, TRUNCATED, FAILED):
            continue
        yield doc_id, read(REPO / "results" / system / f"{doc_id}.json")["data"]


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_every_sample_document_is_scorable_by_both_versions(engine, version):
    for system in SYSTEMS:
        for doc_id, data in ok_results(system):
            value = engine.score(data, schema_of(doc_id), label_of(doc_id), version=version).value
            assert 0.0 <= value <= 1.0


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_the_strong_system_outscores_the_weak_one_on_every_document(engine, version):
    weak = dict(ok_results(WEAK))
    for doc_id, data in ok_results(STRONG):
        if doc_id in weak:
            schema, label = schema_of(doc_id), label_of(doc_id)
            strong = engine.score(data, schema, label, version=version).value
            assert strong > engine.score(weak[doc_id], schema, label, version=version).value, doc_id
