"""`leafscore plan` (issue 24, item 1): how the scorer reads each field path of a schema, from
the scorer's own compiled schema; held to the verdicts scoring gives on DocuBench."""

from __future__ import annotations

import json
from collections import defaultdict

import pytest
from cli_helpers import REPO, invoke, make_benchmark, private_cache

import leafscore
import scorer
from leafscore import api, versions
from leafscore.plan import Row, plan_schema

__all__ = ["private_cache"]

SMALL = {
    "type": "object",
    "required": ["id"],
    "$defs": {"money": {"type": "number", "x-leafscore": {"abs_tol": 0.01}}},
    "properties": {
        "id": {"type": "string", "minLength": 1},
        "total": {"$ref": "#/$defs/money"},
        "due": {"anyOf": [{"type": "string", "format": "date"}, {"type": "null"}],
                "x-leafscore": {"date_formats": ["%d.%m.%Y"]}},
        "paid": {"type": "boolean"},
        "code": {"enum": [1, 2]},
        "note": {"type": "string", "x-leafscore": {"compare": "fuzzy", "threshold": 0.8}},
        "lines": {"type": "array", "x-leafscore": {"ordered": True},
                  "items": {"type": "object", "properties": {"qty": {"type": "integer"}}}},
        "extra": {"type": "object",
                  "patternProperties": {"^x-": {"type": "string", "format": "email"}}},
        "raw": False,
    },
}
SEP = {"decimal_separator": "."}


def test_the_plan_of_a_small_schema_is_pinned_field_by_field():
    assert plan_schema(SMALL) == [
        Row("", "object", unused=("required",)),
        Row("id", "leaf", "text", source="/properties/id", unused=("minLength",)),
        Row("total", "leaf", "number", {**SEP, "abs_tol": 0.01}, source="/properties/total",
            via=("$ref #/$defs/money",)),
        Row("due", "leaf", "date", {"date_formats": ["ISO 8601", "%d.%m.%Y"]},
            source="/properties/due", via=("/properties/due/anyOf/0",)),
        Row("paid", "leaf", "boolean", source="/properties/paid"),
        Row("code", "leaf", "exact", source="/properties/code"),
        Row("note", "leaf", "fuzzy", {"threshold": 0.8}, source="/properties/note"),
        Row("lines", "array", ordered=True, source="/properties/lines"),
        Row("lines[]", "object", source="/properties/lines/items"),
        Row("lines[].qty", "leaf", "number", SEP,
            source="/properties/lines/items/properties/qty"),
        Row("extra", "map", source="/properties/extra"),
        Row("extra.<pattern ^x->", "leaf", "text",
            source="/properties/extra/patternProperties/^x-", unused=("format",)),
        Row("extra.<any member>", "leaf", "mix",
            {"by JSON kind": ["text", "number", "boolean"], **SEP},
            source="/properties/extra/additionalProperties"),
        Row("raw", "ignored", "ignore", source="/properties/raw"),
    ]


def test_version_2_0_reads_no_pattern_properties_and_says_so():
    rows = {row.path: row for row in plan_schema(SMALL, versions.resolve("2.0", None))}
    assert "extra.<pattern ^x->" not in rows
    assert rows["extra"].unused == ("patternProperties",)


def test_benchmark_options_reach_every_leaf_they_apply_to():
    options = scorer.Options(decimal_separator=",", rel_tol=0.001)
    rows = {row.path: row for row in plan_schema(SMALL, options=options)}
    assert rows["lines[].qty"].details == {"decimal_separator": ",", "rel_tol": 0.001}
    assert rows["total"].details == {"decimal_separator": ",", "abs_tol": 0.01,
                                     "rel_tol": 0.001}


def test_a_property_from_a_ref_target_is_sourced_in_the_target():
    schema = {"type": "object", "$defs": {"party": {"type": "object", "properties": {
        "name": {"type": "string"}}}}, "properties": {"vendor": {"$ref": "#/$defs/party"}}}
    assert [(r.path, r.source, r.via) for r in plan_schema(schema)][1:] == [
        ("vendor", "/properties/vendor", ("$ref #/$defs/party",)),
        ("vendor.name", "/$defs/party/properties/name", ())]


def test_a_property_from_an_anyof_branch_is_sourced_in_the_branch():
    schema = {"type": "object", "properties": {"p": {"anyOf": [
        {"type": "object", "properties": {"a": {"type": "string"}}},
        {"type": "object", "properties": {"b": {"type": "number"}}}]}}}
    assert [(r.path, r.compare, r.source, r.via) for r in plan_schema(schema)][1:] == [
        ("p", "", "/properties/p", ("/properties/p/anyOf/0", "/properties/p/anyOf/1")),
        ("p.a", "text", "/properties/p/anyOf/0/properties/a", ()),
        ("p.b", "number", "/properties/p/anyOf/1/properties/b", ())]


def test_a_typo_shows_in_the_plan_as_what_the_scorer_does_with_it():
    schema = {"type": "object", "properties": {"total": {"typ": "number"},
                                               "due": {"type": "string", "format": "data"}}}
    assert [(r.path, r.compare, r.unused) for r in plan_schema(schema)][1:] == [
        ("total", "mix", ("typ",)), ("due", "text", ("format",))]


def test_a_recursive_schema_plans_each_field_once_then_names_the_recursion():
    schema = {"$defs": {"n": {"type": "object", "properties": {
        "v": {"type": "string"}, "kids": {"type": "array", "items": {"$ref": "#/$defs/n"}}}}},
        "$ref": "#/$defs/n"}
    assert [(r.path, r.node) for r in plan_schema(schema)] == [
        ("", "object"), ("v", "leaf"), ("kids", "array"), ("kids[]", "object"),
        ("kids[].v", "leaf"), ("kids[].kids", "recursive")]


def test_a_broken_schema_is_exit_2_with_one_line_naming_file_and_pointer(tmp_path):
    schema = {"type": "object", "properties": {"a": {"$ref": "#/$defs/gone"}}}
    root = make_benchmark(tmp_path, {"d": {"a": "x"}}, {"s": {"d": {}}}, schema=schema)
    result = invoke("plan", root)
    assert result.exit_code == 2
    lines = [line for line in result.stderr.splitlines() if "error" in line]
    assert len(lines) == 1 and result.stdout == ""
    assert lines[0].startswith("leafscore: error: schemas/d.json#/properties/a/$ref: $ref "
                               "'#/$defs/gone' cannot be resolved")


def test_version_1_0_has_no_plan_and_exits_2(tmp_path):
    result = invoke("plan", REPO, "--version", "1.0")
    assert result.exit_code == 2
    assert result.stderr == ("leafscore: error: `leafscore plan` describes per-leaf verdicts, "
                             "which version 1.0 does not keep; pass --version 2.1\n")


def test_json_output_is_sorted_and_lists_one_schema_with_its_document(tmp_path):
    schema = {"type": "object", "properties": {"b": {"type": "number"}, "a": {"type": "string"}}}
    root = make_benchmark(tmp_path, {"d": {}}, {"s": {"d": {}}}, schema=schema)
    result = invoke("plan", root, "--format", "json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == {"version": "2.1", "schemas": {"schemas/d.json": {
        "documents": ["d"], "fields": [
            {"path": "", "node": "object", "compare": "", "details": {}, "ordered": None,
             "source": "", "via": [], "unused": []},
            {"path": "b", "node": "leaf", "compare": "number",
             "details": {"decimal_separator": "."}, "ordered": None,
             "source": "/properties/b", "via": [], "unused": []},
            {"path": "a", "node": "leaf", "compare": "text", "details": {}, "ordered": None,
             "source": "/properties/a", "via": [], "unused": []}]}}}
    assert result.stdout == json.dumps(json.loads(result.stdout), indent=2, sort_keys=True) \
        + "\n"


def test_text_output_is_one_table_row_per_field_path(tmp_path):
    schema = {"type": "object", "properties": {"n": {"type": "number", "minimum": 0}}}
    root = make_benchmark(tmp_path, {"d": {}}, {"s": {"d": {}}}, schema=schema)
    result = invoke("plan", root)
    assert result.stdout == (
        "schemas/d.json (d), version 2.1\n"
        "field       compared as    options              ordered    from           not acted on\n"
        "----------  -------------  -------------------  ---------  -------------  --------------\n"
        "(document)  object                                         #\n"
        "n           number         decimal_separator .             /properties/n  minimum\n")


def test_document_option_plans_only_that_documents_schema():
    result = invoke("plan", REPO, "--document", "inv-001", "--format", "json")
    assert list(json.loads(result.stdout)["schemas"]) == ["schemas/inv-001.json"]


def test_an_unknown_document_is_exit_2():
    result = invoke("plan", REPO, "--document", "nope")
    assert result.exit_code == 2
    assert "no document 'nope'" in result.stderr


def test_the_pinned_version_of_the_benchmark_is_the_default():
    result = invoke("plan", REPO, "--document", "inv-001")
    assert result.stdout.splitlines()[0] == "schemas/inv-001.json (inv-001), version 2.0"


def test_jsonl_mode_plans_its_one_schema_for_every_document():
    jsonl = REPO / "examples" / "jsonl"
    result = invoke("plan", "--gold", jsonl / "gold.jsonl", "--schema", jsonl / "schema.json",
                    "--pred", f"atlas={jsonl / 'atlas.jsonl'}", "--format", "json")
    found = json.loads(result.stdout)["schemas"]
    assert list(found) == ["schema.json"]
    assert found["schema.json"]["documents"] == ["r-001", "r-002", "r-003", "r-004", "r-005"]


def test_lint_findings_are_warned_on_stderr(tmp_path):
    schema = {"type": "object", "properties": {"t": {"typ": "number"}}}
    root = make_benchmark(tmp_path, {"d": {}}, {"s": {"d": {}}}, schema=schema)
    result = invoke("plan", root)
    assert result.exit_code == 0
    assert result.stderr.splitlines() == [
        "leafscore: no scoring_version pinned (benchmark.toml); using the latest, 2.1",
        'leafscore: warning: schemas/d.json#/properties/t/typ: unknown keyword "typ": not JSON '
        "Schema 2020-12 vocabulary nor an x- extension, so neither validation nor scoring "
        'reads it (did you mean "type"?)']


def compiled_rows(node, path="", above=()):
    """(path, node, compare, ordered) of each node of ``scorer.compile_schema``'s tree."""
    if id(node) in above and node is not scorer.IGNORED:
        return [(path, "recursive", "", None)]
    if node is scorer.IGNORED:
        return [(path, "ignored", "ignore", None)]
    if isinstance(node, scorer.Leaf):
        return [(path, "leaf", node.compare, None)]
    above = (*above, id(node))
    if isinstance(node, scorer.ArrayNode):
        return [(path, "array", "", node.ordered),
                *compiled_rows(node.items, f"{path}[]", above)]
    out = [(path, "object" if node.properties is not None else "map", "", None)]
    for name, child in (node.properties or {}).items():
        out += compiled_rows(child, scorer.join(path, name), above)
    for pattern, child in node.patterns:
        out += compiled_rows(child, f"{path}.<pattern {pattern.pattern}>", above)
    if node.properties is None:
        out += compiled_rows(node.values, f"{path}.<any member>", above)
    return out


def test_the_plan_is_the_tree_scorer_compile_schema_builds_for_every_sample_schema():
    bench = api.load(REPO)
    for v21, name in ((False, "2.0"), (True, "2.1")):
        for doc in bench.documents:
            root = scorer.compile_schema(doc.schema, options=bench.config.options, v21=v21)
            planned = plan_schema(doc.schema, versions.resolve(name, None),
                                  options=bench.config.options)
            assert [(r.path, r.node, r.compare, r.ordered) for r in planned] == \
                compiled_rows(root), (doc.id, name)


def test_the_plan_is_the_tree_scorer_compile_schema_builds_for_small_schemas():
    for v21, name in ((False, "2.0"), (True, "2.1")):
        root = scorer.compile_schema(SMALL, v21=v21)
        assert [(r.path, r.node, r.compare, r.ordered) for r in plan_schema(
            SMALL, versions.resolve(name, None))] == compiled_rows(root)


# ----- held to the verdicts of scoring ----------------------------------------------------

#: DocuBench's one array whose items no label or result of its document fills.
NEVER_FILLED = {"OayFbGlG": {"dischargeMedications[].dose", "dischargeMedications[].frequency",
                             "dischargeMedications[].name"}}


@pytest.fixture(scope="module")
def docubench(shared):
    root = shared / "docubench"
    bench = api.load(root)
    verdicts = defaultdict(list)
    for record in leafscore.evaluate(root, version="2.1", cache=False).verdicts():
        verdicts[record.document].append(record)
    plans = {doc.id: plan_schema(doc.schema, options=bench.config.options)
             for doc in bench.documents}
    return bench, plans, verdicts


def test_docubench_plan_lists_every_verdicts_field_path_and_no_other_leaf(docubench):
    bench, plans, verdicts = docubench
    for doc in bench.documents:
        scored = {row.path for row in plans[doc.id] if row.scored}
        leaves = {row.path for row in plans[doc.id] if row.node == "leaf"}
        fields = {record.field for record in verdicts[doc.id]}
        assert fields <= scored, doc.id
        assert leaves - fields == NEVER_FILLED.get(doc.id, set()), doc.id
    assert sum(len(rows) for rows in plans.values()) == 1073


def test_docubench_verdicts_read_each_label_by_the_plans_comparison(docubench):
    bench, plans, verdicts = docubench
    checked = 0
    for doc in bench.documents:
        rows = {row.path: row for row in plans[doc.id]}
        for record in verdicts[doc.id]:
            row, label = rows[record.field], json.loads(record.label)
            if row.node != "leaf" or record.label_canon == "null" or \
                    isinstance(label, dict | list):
                continue
            leaf = scorer.Leaf(row.compare, bench.config.options)
            tag = row.compare
            key = scorer.COMPARATORS_2_1[tag].canon(label, leaf.options)
            if key is None:  # unreadable as its kind: read as text (spec 2.0 §7)
                key = scorer.canon_text(label, True)
            assert json.loads(record.label_canon) == scorer.shown(key), (doc.id, record)
            checked += 1
    assert checked > 10_000


def test_a_benchmark_no_system_has_run_on_yet_has_a_plan(tmp_path):
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    root = make_benchmark(tmp_path, {"d": {"a": "x"}}, {"s": {"d": {}}}, schema=schema)
    for system_folder in (root / "results").iterdir():
        for file in system_folder.iterdir():
            file.unlink()
        system_folder.rmdir()
    (root / "results").rmdir()
    result = invoke("plan", root, "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert [f["path"] for f in json.loads(result.stdout)["schemas"]["schemas/d.json"][
        "fields"]] == ["", "a"]
    assert invoke("score", root).exit_code == 2  # scoring still needs a system's results
