"""Shared schemas (issue 24 item 3): a document without ``schemas/<id>.json`` takes
``schemas/<value>.json``, ``<value>`` its metadata column named by benchmark.toml's
``schema_by``, else the file named by ``schema``. One rule (``scorer.schema_name``) for
``python scorer.py``, every ``leafscore`` command, the API and JSONL mode; the signature
digests the schema each document is scored with; the cache keys each cell by that
schema's content.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import invoke, private_cache, write_json

import leafscore
import scorer
from leafscore import api, benchmark, executors, runner, signature
from leafscore.config import load_config

__all__ = ["private_cache"]

INVOICE = {"type": "object", "properties": {"number": {"type": "string"},
                                             "total": {"type": "number"}}}
RECEIPT = {"type": "object", "properties": {"shop": {"type": "string"},
                                             "total": {"type": "number"}}}
LABELS = {"inv-1": {"number": "A-1", "total": 10}, "inv-2": {"number": "A-2", "total": 20},
          "inv-3": {"number": "A-3", "total": 30}, "rct-1": {"shop": "Kiosk", "total": 5},
          "rct-2": {"shop": "Deli", "total": 7}}
DOCTYPE = {"inv-1": "invoice", "inv-2": "invoice", "inv-3": "invoice",
           "rct-1": "receipt", "rct-2": "receipt"}
RESULTS = {
    "good": {**LABELS, "inv-2": {"number": "A-2", "total": 21}},
    "poor": {**LABELS, "inv-1": {"number": "A-1"}, "inv-3": {"number": "X", "total": 30},
             "rct-2": {"shop": "Cafe", "total": 7}},
}
#: Written out by hand: one leaf of two wrong or missing is 0.5.
EXPECTED = {
    "good": {"inv-1": 1.0, "inv-2": 0.5, "inv-3": 1.0, "rct-1": 1.0, "rct-2": 1.0},
    "poor": {"inv-1": 0.5, "inv-2": 1.0, "inv-3": 0.5, "rct-1": 1.0, "rct-2": 0.5},
}
MEANS = {"good": 0.9, "poor": 0.7}


def build(root: Path, layout: str) -> Path:
    """The same five documents, their schemas laid out as ``layout``: ``copies`` (each
    document its own copy), ``schema`` (``schema = "invoice.json"``, the receipts keeping
    their own copies) or ``schema_by`` (``schema_by = "doctype"``, sources.json)."""
    for doc_id, label in LABELS.items():
        write_json(root / "labels" / f"{doc_id}.json", label)
        for system, docs in RESULTS.items():
            write_json(root / "results" / system / f"{doc_id}.json",
                       {"status": "ok", "data": docs[doc_id]})
    config = 'scoring_version = "2.1"\n'
    if layout == "copies":
        for doc_id, kind in DOCTYPE.items():
            write_json(root / "schemas" / f"{doc_id}.json",
                       INVOICE if kind == "invoice" else RECEIPT)
    elif layout == "schema":
        write_json(root / "schemas" / "invoice.json", INVOICE)
        for doc_id in ("rct-1", "rct-2"):  # their own schemas/<id>.json takes precedence
            write_json(root / "schemas" / f"{doc_id}.json", RECEIPT)
        config += 'schema = "invoice.json"\n'
    else:
        write_json(root / "schemas" / "invoice.json", INVOICE)
        write_json(root / "schemas" / "receipt.json", RECEIPT)
        write_json(root / "sources.json", [{"doc_id": d, "doctype": t}
                                           for d, t in DOCTYPE.items()])
        config += 'schema_by = "doctype"\n'
    (root / "benchmark.toml").write_text(config, encoding="utf-8")
    return root


LAYOUTS = ("copies", "schema", "schema_by")


def cli_scores(root: Path) -> dict:
    result = invoke("score", root, "--format", "json", "--no-cache")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def scorer_scores(root: Path, capsys) -> dict:
    capsys.readouterr()
    assert scorer.main([str(root), "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


# ----- the acceptance: the same scores whichever way the schemas are laid out ------------

@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_entry_point_gives_the_written_out_scores(tmp_path, capsys, layout):
    root = build(tmp_path / layout, layout)
    cli, ref = cli_scores(root), scorer_scores(root, capsys)
    api = leafscore.evaluate(root, cache=False)
    for system, expected in EXPECTED.items():
        assert cli["systems"][system]["documents"] == expected
        assert ref["systems"][system]["documents"] == expected
        assert api.document_scores(system) == expected
        assert cli["systems"][system]["score"] == pytest.approx(MEANS[system])
        assert ref["systems"][system]["score"] == pytest.approx(MEANS[system])


def test_shared_and_copied_schemas_print_the_same_bytes_and_signature(tmp_path, capsys):
    outputs = {layout: cli_scores(build(tmp_path / layout, layout)) for layout in LAYOUTS}
    assert outputs["schema"] == outputs["copies"]
    assert outputs["schema_by"] == outputs["copies"]
    refs = {layout: scorer_scores(tmp_path / layout, capsys) for layout in LAYOUTS}
    assert refs["schema"] == refs["schema_by"] == refs["copies"]
    board = {layout: invoke("leaderboard", tmp_path / layout, "--no-cache").stdout
             for layout in LAYOUTS}
    assert board["schema"] == board["schema_by"] == board["copies"]


def test_the_signature_digests_the_schema_each_document_is_scored_with(tmp_path):
    """Each document's own name (schemas/<id>.json) -> the content of the schema it is
    scored with: per-document copies and a shared file give one digest, and moving a
    document to another schema changes it (a set of file names alone would not)."""
    root = build(tmp_path / "b", "schema_by")
    bench = api.load(root)
    rows = {d.id: (d.schema_file, d.schema_source, d.schema_key) for d in bench.documents}
    assert rows == {
        "inv-1": ("schemas/invoice.json", "schema_by", "schemas/inv-1.json"),
        "inv-2": ("schemas/invoice.json", "schema_by", "schemas/inv-2.json"),
        "inv-3": ("schemas/invoice.json", "schema_by", "schemas/inv-3.json"),
        "rct-1": ("schemas/receipt.json", "schema_by", "schemas/rct-1.json"),
        "rct-2": ("schemas/receipt.json", "schema_by", "schemas/rct-2.json")}
    before = leafscore.evaluate(root, cache=False).signature
    records = json.loads((root / "sources.json").read_text())
    records[4]["doctype"] = "invoice"  # rct-2 now scored with the invoice schema
    write_json(root / "sources.json", records)
    after = leafscore.evaluate(root, cache=False)
    assert after.signature != before
    assert after.document_scores("poor")["rct-2"] == 1.0  # its total alone is scored now
    # the digest is the one per-document copies of the same contents give
    copies = build(tmp_path / "copies", "copies")
    write_json(copies / "schemas" / "rct-2.json", INVOICE)
    assert leafscore.evaluate(copies, cache=False).signature == after.signature


def test_the_package_resolves_as_scorer_py_does(tmp_path):
    for layout in LAYOUTS:
        root = build(tmp_path / layout, layout)
        table = scorer.read_config(root)
        names = scorer.folder_schemas(root, scorer.document_ids(root / "labels"),
                                      schema=table.get("schema"),
                                      schema_by=table.get("schema_by"),
                                      metadata=table.get("metadata"))
        bench = benchmark.load_folder(root, load_config(root))
        assert {d.id: d.schema_file for d in bench.documents} == \
            {i: f"schemas/{n}" for i, n in names.items()}


def test_a_shared_schema_is_not_warned_as_a_schema_without_a_label(tmp_path):
    root = build(tmp_path / "b", "schema_by")
    write_json(root / "schemas" / "unused.json", INVOICE)
    result = invoke("score", root, "--no-cache")
    assert result.exit_code == 0
    assert "schemas/unused.json: no label; not scored" in result.stderr
    assert "invoice.json: no label" not in result.stderr
    assert "receipt.json: no label" not in result.stderr


# ----- validate says which schema each document uses ------------------------------------

def test_validate_lists_each_shared_schema_and_its_documents(tmp_path):
    root = build(tmp_path / "b", "schema_by")
    text = invoke("validate", root)
    assert text.exit_code == 0, text.stdout
    assert text.stdout.splitlines() == [
        "schema: schemas/invoice.json is the schema of 3 document(s) without their own",
        "schema: schemas/receipt.json is the schema of 2 document(s) without their own",
        "0 error(s), 0 warning(s)"]
    out = json.loads(invoke("validate", root, "--format", "json").stdout)
    assert out["schemas"] == {"inv-1": "schemas/invoice.json", "inv-2": "schemas/invoice.json",
                              "inv-3": "schemas/invoice.json", "rct-1": "schemas/receipt.json",
                              "rct-2": "schemas/receipt.json"}


def test_validate_checks_each_label_against_its_shared_schema_once_per_fault(tmp_path):
    root = build(tmp_path / "b", "schema")
    write_json(root / "labels" / "inv-2.json", {"number": 2, "total": 20})
    write_json(root / "schemas" / "invoice.json", {**INVOICE, "required": 3})
    out = invoke("validate", root)
    assert out.exit_code == 1
    lines = out.stdout.splitlines()
    assert lines.count("error: schemas/invoice.json#/required: invalid schema: 3 is not of "
                       "type 'array'") == 1
    fixed = {**INVOICE, "required": ["number"]}
    write_json(root / "schemas" / "invoice.json", fixed)
    lines = invoke("validate", root).stdout.splitlines()
    assert "error: labels/inv-2.json#/number: 2 is not of type 'string' (schema " \
           "schemas/invoice.json#/properties/number/type)" in lines


# ----- where the rule has no answer: exit 2, one line naming the file and place ----------

def _refused(root: Path, capsys, line: str) -> None:
    """``leafscore score`` and ``python scorer.py`` exit 2 with ``line``; ``validate``
    fails (exit 1) naming the same place."""
    result = invoke("score", root, "--no-cache")
    assert result.exit_code == 2
    assert result.stderr == f"leafscore: error: {line}\n"
    capsys.readouterr()
    assert scorer.main([str(root)]) == 2
    assert capsys.readouterr().err == f"scorer.py: {line}\n"
    checked = invoke("validate", root)
    assert checked.exit_code == 1
    assert f"error: {line}" in checked.stdout.splitlines()


def _set_doctype(root: Path, doc_id: str, value) -> None:
    records = json.loads((root / "sources.json").read_text())
    for record in records:
        if record["doc_id"] == doc_id:
            if value is KeyError:
                del record["doctype"]
            else:
                record["doctype"] = value
    write_json(root / "sources.json", records)


def test_schema_and_schema_by_together_are_refused(tmp_path, capsys):
    root = build(tmp_path / "b", "schema_by")
    with (root / "benchmark.toml").open("a") as config:
        config.write('schema = "invoice.json"\n')
    line = (f"{root / 'benchmark.toml'}:schema_by: give schema or schema_by, not both (a "
            "document without schemas/<id>.json takes one of them)")
    result = invoke("score", root, "--no-cache")
    assert (result.exit_code, result.stderr) == (2, f"leafscore: error: {line}\n")
    capsys.readouterr()
    assert scorer.main([str(root)]) == 2
    assert capsys.readouterr().err == f"scorer.py: {line}\n"
    assert "error: benchmark.toml:schema_by: give schema or schema_by, not both (a document " \
           "without schemas/<id>.json takes one of them)" in invoke("validate", root).stdout


def test_a_document_without_its_schema_by_column_is_refused(tmp_path, capsys):
    root = build(tmp_path / "b", "schema_by")
    _set_doctype(root, "rct-2", KeyError)
    _refused(root, capsys, "sources.json#/4: document 'rct-2' has no 'doctype', not the name "
             "of a schema (schema_by), and no schemas/rct-2.json")


def test_a_column_that_is_not_a_name_is_refused(tmp_path, capsys):
    root = build(tmp_path / "b", "schema_by")
    _set_doctype(root, "inv-2", 3)
    _refused(root, capsys, "sources.json#/1: document 'inv-2' has 'doctype' is 3, not the name "
             "of a schema (schema_by), and no schemas/inv-2.json")


def test_a_document_without_a_metadata_record_is_refused(tmp_path, capsys):
    root = build(tmp_path / "b", "schema_by")
    write_json(root / "sources.json", [{"doc_id": d, "doctype": t}
                                       for d, t in DOCTYPE.items() if d != "inv-3"])
    _refused(root, capsys, "sources.json: no record of document 'inv-3' to read schema_by = "
             "'doctype' from, and no schemas/inv-3.json")


def test_schema_by_without_a_metadata_file_is_refused(tmp_path, capsys):
    root = build(tmp_path / "b", "schema_by")
    (root / "sources.json").unlink()
    _refused(root, capsys, "benchmark.toml:schema_by: no record of document 'inv-1' to read "
             "schema_by = 'doctype' from, and no schemas/inv-1.json")


def test_a_value_naming_no_schema_file_is_refused(tmp_path, capsys):
    root = build(tmp_path / "b", "schema_by")
    _set_doctype(root, "inv-1", "invoce")
    _refused(root, capsys, "sources.json#/0: document 'inv-1': doctype 'invoce' names "
             "schemas/invoce.json, which does not exist")


@pytest.mark.parametrize("value", ["../invoice", "../../etc/passwd", "sub/invoice",
                                   "..\\invoice", ".hidden", ".."])
def test_a_value_holding_a_path_is_refused_never_followed(tmp_path, capsys, value):
    root = build(tmp_path / "b", "schema_by")
    write_json(root / "invoice.json", INVOICE)  # what ../invoice would reach from schemas/
    (root / "schemas" / "sub").mkdir()
    write_json(root / "schemas" / "sub" / "invoice.json", INVOICE)
    _set_doctype(root, "inv-1", value)
    _refused(root, capsys, f"sources.json#/0: document 'inv-1': doctype {value!r} is a path, "
             "not the name of a file in schemas/ (no '/', '\\' or leading '.')")


def test_schema_naming_no_file_is_refused(tmp_path, capsys):
    root = build(tmp_path / "b", "schema")
    (root / "schemas" / "invoice.json").unlink()
    _refused(root, capsys, "benchmark.toml:schema: names schemas/invoice.json, which does not "
             "exist (document 'inv-1' has no schemas/inv-1.json)")


@pytest.mark.parametrize("value", ["../invoice.json", "sub/invoice.json", "invoice",
                                   ".json", "/etc/passwd.json"])
def test_schema_holding_a_path_or_no_json_name_is_refused(tmp_path, capsys, value):
    root = build(tmp_path / "b", "schema")
    (root / "benchmark.toml").write_text(f'schema = {json.dumps(value)}\n', encoding="utf-8")
    line = (f"{root / 'benchmark.toml'}:schema: must name a .json file in schemas/, no path "
            f"(got {value!r})")
    result = invoke("score", root, "--no-cache")
    assert (result.exit_code, result.stderr) == (2, f"leafscore: error: {line}\n")
    capsys.readouterr()
    assert scorer.main([str(root)]) == 2
    assert capsys.readouterr().err == f"scorer.py: {line}\n"


def test_a_documents_own_schema_wins_over_its_column(tmp_path):
    root = build(tmp_path / "b", "schema_by")
    write_json(root / "schemas" / "rct-2.json", INVOICE)  # its own: scored on its total only
    _set_doctype(root, "rct-2", "nonexistent")  # never read: rct-2 has its own schema
    bench = api.load(root)
    assert [(d.id, d.schema_file, d.schema_source) for d in bench.documents][3:] == [
        ("rct-1", "schemas/receipt.json", "schema_by"), ("rct-2", "schemas/rct-2.json", "own")]
    assert leafscore.evaluate(root, cache=False).document_scores("poor")["rct-2"] == 1.0


# ----- the cache: each cell is keyed by its schema's content -----------------------------

def test_editing_a_shared_schema_rescores_every_document_using_it_and_no_other(tmp_path,
                                                                               monkeypatch):
    root, cache_dir = build(tmp_path / "b", "schema_by"), tmp_path / "cache"
    leafscore.evaluate(root, cache_dir=cache_dir, keep_verdicts=False)
    # the invoices' total is no longer scored: each invoice scores on its number alone
    write_json(root / "schemas" / "invoice.json",
               {"type": "object", "properties": {"number": {"type": "string"}}})
    scored = []
    real = runner.score_cell
    monkeypatch.setattr(runner, "score_cell",
                        lambda doc, raw, *rest: scored.append(raw.file) or real(doc, raw, *rest))
    warm = leafscore.evaluate(root, cache_dir=cache_dir, keep_verdicts=False,
                              executor=executors.Serial())
    assert sorted(scored) == [f"results/{s}/inv-{n}.json" for s in ("good", "poor")
                              for n in (1, 2, 3)]
    assert warm.document_scores("good") == {"inv-1": 1.0, "inv-2": 1.0, "inv-3": 1.0,
                                            "rct-1": 1.0, "rct-2": 1.0}
    assert warm.document_scores("poor") == {"inv-1": 1.0, "inv-2": 1.0, "inv-3": 0.0,
                                            "rct-1": 1.0, "rct-2": 0.5}
    assert warm.summary() == leafscore.evaluate(root, cache=False).summary()


# ----- JSONL mode: schema_by reads the gold line's own member ----------------------------

def _jsonl(tmp_path: Path, with_label_member: bool = False) -> tuple[Path, dict[str, Path]]:
    folder = tmp_path / "jsonl"
    write_json(folder / "schemas" / "invoice.json", INVOICE)
    write_json(folder / "schemas" / "receipt.json", RECEIPT)
    lines = []
    for doc_id, label in LABELS.items():
        line = {"id": doc_id, "doctype": DOCTYPE[doc_id]}
        line.update({"label": label} if with_label_member else label)
        lines.append(json.dumps(line))
    (folder / "gold.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    preds = {}
    for system, docs in RESULTS.items():
        preds[system] = folder / f"{system}.jsonl"
        preds[system].write_text("".join(json.dumps({"id": d, **v}) + "\n"
                                         for d, v in docs.items()), encoding="utf-8")
    (folder / "config.toml").write_text('scoring_version = "2.1"\nschema_by = "doctype"\n',
                                        encoding="utf-8")
    return folder, preds


@pytest.mark.parametrize("with_label_member", [False, True])
def test_jsonl_schema_by_reads_the_gold_lines_member(tmp_path, with_label_member):
    folder, preds = _jsonl(tmp_path, with_label_member)
    args = ["score", "--gold", folder / "gold.jsonl", "--schema", folder / "schemas",
            "--config", folder / "config.toml", "--format", "json", "--no-cache"]
    for system, path in preds.items():
        args += ["--pred", f"{system}={path}"]
    result = invoke(*args)
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    for system, expected in EXPECTED.items():
        assert out["systems"][system]["documents"] == expected
    bench = api.load_jsonl_benchmark(folder / "gold.jsonl", preds, folder / "schemas",
                                           config=folder / "config.toml")
    assert [(d.schema_file, d.label) for d in bench.documents][:1] == [
        ("schemas/invoice.json", {"number": "A-1", "total": 10})]  # doctype is no label leaf
    folder_run = leafscore.evaluate(build(tmp_path / "b", "schema_by"), cache=False)
    schemas_part = [signature.parse_signature(s)["schemas"]
                    for s in (out["signature"], folder_run.signature)]
    assert schemas_part[0] == schemas_part[1]  # the labels part names gold.jsonl's lines


def test_jsonl_schema_by_with_one_schema_file_is_refused(tmp_path):
    folder, preds = _jsonl(tmp_path)
    result = invoke("score", "--gold", folder / "gold.jsonl", "--pred",
                    f"good={preds['good']}", "--schema", folder / "schemas" / "invoice.json",
                    "--config", folder / "config.toml", "--no-cache")
    assert result.exit_code == 2
    assert result.stderr == (f"leafscore: error: {folder / 'schemas' / 'invoice.json'}: the "
                             "config's schema_by needs --schema to be a folder of schemas, "
                             "not one file\n")


def test_jsonl_a_line_naming_no_schema_is_refused_naming_the_line(tmp_path):
    folder, preds = _jsonl(tmp_path)
    gold = folder / "gold.jsonl"
    gold.write_text(gold.read_text().replace('"receipt"', '"../receipt"', 1), encoding="utf-8")
    result = invoke("score", "--gold", gold, "--pred", f"good={preds['good']}", "--schema",
                    folder / "schemas", "--config", folder / "config.toml", "--no-cache")
    assert result.exit_code == 2
    assert result.stderr == ("leafscore: error: gold.jsonl:line 4: document 'rct-1': doctype "
                             "'../receipt' is a path, not the name of a file in schemas/ (no "
                             "'/', '\\' or leading '.')\n")


def test_jsonl_schema_folder_with_schema_and_own_files(tmp_path):
    """``schema = "invoice.json"`` in --config: each receipt keeps its own
    <folder>/<id>.json, every invoice takes the shared file; the same scores."""
    folder, preds = _jsonl(tmp_path)
    (folder / "schemas" / "receipt.json").unlink()
    for doc_id in ("rct-1", "rct-2"):
        write_json(folder / "schemas" / f"{doc_id}.json", RECEIPT)
    (folder / "config.toml").write_text('scoring_version = "2.1"\nschema = "invoice.json"\n',
                                        encoding="utf-8")
    bench = api.load_jsonl_benchmark(folder / "gold.jsonl", preds, folder / "schemas",
                                     config=folder / "config.toml")
    assert [(d.id, d.schema_file, d.schema_source) for d in bench.documents] == [
        ("inv-1", "schemas/invoice.json", "schema"), ("inv-2", "schemas/invoice.json", "schema"),
        ("inv-3", "schemas/invoice.json", "schema"), ("rct-1", "schemas/rct-1.json", "own"),
        ("rct-2", "schemas/rct-2.json", "own")]
    run = leafscore.evaluate_jsonl(folder / "gold.jsonl", preds, folder / "schemas",
                                   config=folder / "config.toml", cache=False)
    # without schema_by the doctype member stays in the label; no schema declares it
    assert {s: run.document_scores(s) for s in EXPECTED} == EXPECTED
