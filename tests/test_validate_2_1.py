"""`leafscore validate` under version 2.1: alternative readings in labels (spec 2.1 §6)
and option ranges (spec 2.1 §5), each fault named by file and pointer."""

from __future__ import annotations

import csv
import io
import json

import pytest
from cli_helpers import invoke, make_benchmark, private_cache

__all__ = ["private_cache"]

SCHEMA = {"type": "object", "properties": {
    "code": {"type": "string", "maxLength": 4},
    "qty": {"type": "integer"},
    "party": {"type": "object", "properties": {"name": {"type": "string"}}},
    "lines": {"type": "array", "items": {"type": "string"}}}}


def errors_of(tmp_path, label, schema=SCHEMA, *args) -> list[str]:
    root = make_benchmark(tmp_path, {"d": label}, {"s": {"d": {}}}, schema=schema)
    result = invoke("validate", root, *args)
    return [line for line in result.stdout.splitlines() if line.startswith("error:")]


def test_readings_that_each_fit_the_leaf_are_no_error(tmp_path):
    assert errors_of(tmp_path, {"code": {"$anyOf": ["MOPP", "MCPP"]}}) == []


def test_a_reading_that_breaks_the_leafs_schema_is_named_at_its_index(tmp_path):
    found = errors_of(tmp_path, {"code": {"$anyOf": ["MOPP", "MCPPXX"]}})
    assert len(found) == 1
    assert found[0].startswith("error: labels/d.json#/code/$anyOf/1: 'MCPPXX' is too long")


def test_a_reading_of_the_wrong_type_is_named_at_its_index(tmp_path):
    found = errors_of(tmp_path, {"qty": {"$anyOf": [3, "three"]}})
    assert [line.split(": ")[1] for line in found] == ["labels/d.json#/qty/$anyOf/1"]


@pytest.mark.parametrize(("label", "pointer", "words"), [
    ({"party": {"$anyOf": ["Acme"]}}, "/party", "the schema has an object here"),
    ({"lines": {"$anyOf": ["a"]}}, "/lines", "the schema has an array here"),
    ({"code": {"$anyOf": []}}, "/code", "non-empty array of readings"),
    ({"code": {"$anyOf": "MOPP"}}, "/code", "non-empty array of readings"),
    ({"code": {"$anyOf": [["MOPP"]]}}, "/code", "must be a scalar"),
    ({"code": {"$anyOf": ["MOPP"], "note": "x"}}, "/code", "the only member"),
    ({"lines": [{"$anyOf": [{"a": 1}]}]}, "/lines/0", "must be a scalar")])
def test_misplaced_or_malformed_readings_are_a_label_error_at_their_pointer(tmp_path, label,
                                                                            pointer, words):
    found = [line for line in errors_of(tmp_path, label) if "spec 2.1 §6" in line]
    assert len(found) == 1
    assert found[0].startswith(f"error: labels/d.json#{pointer}: ")
    assert words in found[0]


def test_under_2_0_readings_are_an_ordinary_object_that_breaks_the_schema(tmp_path):
    found = errors_of(tmp_path, {"code": {"$anyOf": ["MOPP", "MCPP"]}}, SCHEMA,
                      "--version", "2.0")
    assert [line.split(": ")[1] for line in found] == ["labels/d.json#/code"]
    assert "spec 2.1" not in found[0]


@pytest.mark.parametrize(("options", "words"), [
    ({"compare": "fuzzy", "threshold": 0}, "threshold=0.0 is outside (0, 1]"),
    ({"abs_tol": -1}, "'abs_tol'=-1.0 is outside"),
    ({"rel_tol": "NaN"}, "rel_tol")])
def test_an_option_out_of_range_is_a_schema_error_at_its_pointer(tmp_path, options, words):
    schema = {"type": "object", "properties": {"code": {"type": "string",
                                                         "x-leafscore": options}}}
    found = errors_of(tmp_path, {"code": "MOPP"}, schema)
    assert len(found) == 1
    assert found[0].startswith("error: schemas/d.json#/properties/code/x-leafscore: ")
    assert words in found[0]


def test_a_scoring_run_under_2_1_does_not_warn_about_well_formed_readings(tmp_path):
    root = make_benchmark(tmp_path, {"d": {"code": {"$anyOf": ["MOPP", "MCPP"]}}},
                          {"s": {"d": {"code": "MCPP"}}}, schema=SCHEMA)
    result = invoke("score", root, "--no-cache")
    assert result.exit_code == 0, result.stderr
    assert "violates its schema" not in result.stderr
    assert "100.00" in result.stdout


# ----- where readings are shown ---------------------------------------------------------

def readings_benchmark(tmp_path):
    return make_benchmark(tmp_path, {"d": {"code": {"$anyOf": ["MOPP", "MCPP"]}, "qty": 2}},
                          {"s": {"d": {"code": "MCPP", "qty": 2}}}, schema=SCHEMA)


def test_explain_shows_the_readings_of_a_leaf_and_the_one_judged(tmp_path):
    result = invoke("explain", "d", readings_benchmark(tmp_path), "--system", "s",
                    "--format", "json", "--no-cache")
    assert result.exit_code == 0, result.stderr
    (row,) = [v for v in json.loads(result.stdout)["verdicts"] if v["address"] == "code"]
    assert row["label"] == {"$anyOf": ["MOPP", "MCPP"]}
    assert (row["verdict"], row["label_canon"], row["result_canon"]) == ("correct", "mcpp", "mcpp")


def test_the_verdict_export_keeps_the_readings_as_the_label_wrote_them(tmp_path):
    root = readings_benchmark(tmp_path)
    out = tmp_path / "out"
    result = invoke("report", root, "--out", out, "--verdicts", out / "verdicts.csv",
                    "--no-cache")
    assert result.exit_code == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO((out / "verdicts.csv").read_text("utf-8"))))
    (row,) = [r for r in rows if r["address"] == "code"]
    assert json.loads(row["label"]) == {"$anyOf": ["MOPP", "MCPP"]}


def test_the_explorer_page_carries_the_readings(tmp_path):
    root = readings_benchmark(tmp_path)
    page = tmp_path / "page.html"
    result = invoke("explore", root, "--out", page, "--no-cache")
    assert result.exit_code == 0, result.stderr
    # the page's data holds each shown value as JSON text, inside a JSON string
    assert '"{\\"$anyOf\\":[\\"MOPP\\",\\"MCPP\\"]}"' in page.read_text("utf-8")
