"""`verify` checks every file `report` writes (issue 22 item 3).

summary.json is compared by content, the summary.csv beside it by content (numbers within
``report.VERIFY_TOLERANCE``, text exactly), and the ``--verdicts`` and ``--html`` files
byte for byte; each file that drifted is named (exit 1). A summary.json that `report`
could not have written (a duplicate key, a member of another type) is refused with one
line (exit 2), and no committed file, whatever it holds, makes `verify` raise.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cli_helpers import invoke, make_benchmark, private_cache
from hypothesis import given, settings
from hypothesis import strategies as st

import scorer
from leafscore import report

__all__ = ["private_cache"]

LABELS = {"d1": {"a": "x", "b": "y"}, "d2": {"a": "p", "b": "q"}}
# strong leads on both documents; weak gets one leaf of each: 100.00 against 50.00
RESULTS = {"strong": dict(LABELS), "weak": {"d1": {"a": "x", "b": "-"}, "d2": {"a": "p"}}}


def reported(tmp_path: Path, *extra: str) -> Path:
    """A two-system benchmark whose summary (and ``extra`` outputs) `report` just wrote."""
    root = make_benchmark(tmp_path / "bench", LABELS, RESULTS)
    out = invoke("report", root, "--resamples", "100", *extra)
    assert out.exit_code == 0, out.stderr
    return root


def summary_path(root: Path) -> Path:
    return root / "results" / "summary.json"


def edit_summary(root: Path, change) -> None:
    path = summary_path(root)
    summary = json.loads(path.read_text("utf-8"))
    change(summary)
    path.write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n", "utf-8")


def error_lines(out) -> list[str]:
    return [line for line in out.stderr.splitlines() if "error" in line]


# ----- summary.csv ----------------------------------------------------------------------

def test_verify_checks_the_summary_csv_beside_the_summary(tmp_path):
    out = invoke("verify", reported(tmp_path))
    assert out.exit_code == 0, out.stdout
    assert out.stdout.startswith(
        "verify: OK: every file reproduces: results/summary.json, results/summary.csv (")


def test_a_summary_csv_rewritten_to_the_opposite_ranking_is_drift_naming_it(tmp_path):
    root = reported(tmp_path)
    csv = root / "results" / "summary.csv"
    text = csv.read_text("utf-8")
    assert text.splitlines()[-1] == "AGGREGATE,1.0,0.5"
    csv.write_text(text.replace("AGGREGATE,1.0,0.5", "AGGREGATE,0.5,1.0"), "utf-8")
    out = invoke("verify", root)
    assert out.exit_code == 1
    assert out.stdout.splitlines() == [
        "verify: DRIFT: results/summary.csv does not reproduce",
        "  - differs at row 4 column 2 (strong), row 4 column 3 (weak)",
    ]


def test_a_missing_summary_csv_is_drift_naming_it(tmp_path):
    root = reported(tmp_path)
    (root / "results" / "summary.csv").unlink()
    out = invoke("verify", root)
    assert out.exit_code == 1
    assert out.stdout.splitlines() == [
        "verify: DRIFT: results/summary.csv does not reproduce",
        "  - missing: `report` writes it beside summary.json",
    ]


def test_a_summary_csv_with_an_extra_row_is_drift(tmp_path):
    root = reported(tmp_path)
    with (root / "results" / "summary.csv").open("a", encoding="utf-8") as handle:
        handle.write("d3,0.0,0.0\n")
    out = invoke("verify", root)
    assert out.exit_code == 1
    assert "  - holds 5 rows where `report` writes 4" in out.stdout.splitlines()


def test_a_summary_csv_that_differs_only_in_the_written_form_of_numbers_reproduces(tmp_path):
    root = reported(tmp_path)
    csv = root / "results" / "summary.csv"
    csv.write_text(csv.read_text("utf-8").replace("AGGREGATE,1.0,0.5", 'AGGREGATE,1.00,"5e-1"'),
                   "utf-8")
    assert invoke("verify", root).exit_code == 0


def test_a_summary_csv_that_is_not_utf8_is_refused_with_one_line(tmp_path):
    root = reported(tmp_path)
    (root / "results" / "summary.csv").write_bytes(b"doc_id,strong,weak\n\xff\n")
    out = invoke("verify", root)
    assert out.exit_code == 2
    assert out.stderr.splitlines() == [
        "leafscore: error: results/summary.csv:byte 19: invalid UTF-8"]


def test_a_summary_csv_with_an_unterminated_quote_is_refused_with_one_line(tmp_path):
    root = reported(tmp_path)
    (root / "results" / "summary.csv").write_text('doc_id,strong,weak\n"d1,1.0,0.5\n',
                                                   "utf-8")
    out = invoke("verify", root)
    assert out.exit_code == 2
    assert len(out.stderr.splitlines()) == 1
    assert out.stderr.startswith("leafscore: error: results/summary.csv:line ")


def test_a_fifo_as_summary_csv_is_refused_without_waiting(tmp_path):
    root = reported(tmp_path)
    (root / "results" / "summary.csv").unlink()
    os.mkfifo(root / "results" / "summary.csv")
    out = invoke("verify", root)
    assert out.exit_code == 2
    assert out.stderr.splitlines() == [
        "leafscore: error: results/summary.csv: is not a regular file"]


# ----- summary.json: refused when report could not have written it ---------------------

def test_a_fifo_as_summary_json_is_refused_without_waiting(tmp_path):
    root = reported(tmp_path)
    summary_path(root).unlink()
    os.mkfifo(summary_path(root))
    out = invoke("verify", root)
    assert out.exit_code == 2
    assert out.stderr.splitlines() == [
        "leafscore: error: results/summary.json: is not a regular file, expected a JSON file"]


def test_a_summary_with_a_duplicate_key_is_refused_with_one_line(tmp_path):
    root = reported(tmp_path)
    path = summary_path(root)
    text = path.read_text("utf-8")
    path.write_text(text.replace('"aggregates": {', '"aggregates": {\n    "evil": 0.99,\n'
                                 '    "evil": 0.5,', 1), "utf-8")
    out = invoke("verify", root)
    assert out.exit_code == 2
    assert out.stderr.splitlines() == [
        "leafscore: error: results/summary.json: duplicate key 'evil' in an object; "
        "`report` writes none: refused"]


@pytest.mark.parametrize("member, value, kind", [
    ("sha256", [], "an array where `report` writes an object"),
    ("results_sha256", "x", "a string where `report` writes an object"),
    ("scorer_sha256", {"a": 1}, "an object where `report` writes a string"),
    ("per_doc", None, "null where `report` writes an array"),
], ids=["sha256 []", 'results_sha256 "x"', "scorer_sha256 {}", "per_doc null"])
def test_a_summary_member_of_another_type_is_refused_with_one_line(tmp_path, member, value,
                                                                   kind):
    root = reported(tmp_path)
    edit_summary(root, lambda s: s.update({member: value}))
    out = invoke("verify", root)
    assert out.exit_code == 2
    assert out.stderr.splitlines() == [
        f"leafscore: error: results/summary.json#/{member}: {kind}; refused"]


def test_a_digest_that_is_not_a_string_is_refused_naming_its_file(tmp_path):
    root = reported(tmp_path)
    edit_summary(root, lambda s: s["sha256"].update({"labels/d1.json": 7}))
    out = invoke("verify", root)
    assert out.exit_code == 2
    assert out.stderr.splitlines() == [
        "leafscore: error: results/summary.json#/sha256/labels~1d1.json: a number where "
        "`report` writes a string; refused"]


def test_a_summary_with_a_byte_order_mark_is_refused_with_one_line(tmp_path):
    root = reported(tmp_path)
    path = summary_path(root)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    out = invoke("verify", root)
    assert out.exit_code == 2
    assert out.stderr.splitlines() == [
        "leafscore: error: results/summary.json: read with a warning (starts with a UTF-8 "
        "byte-order mark; ignored); `report` writes no such file: refused"]


# ----- summary.json: drift, never a traceback ------------------------------------------

def test_a_400_digit_integer_in_the_aggregates_is_drift(tmp_path):
    root = reported(tmp_path)
    edit_summary(root, lambda s: s["aggregates"].update(weak=10**400))
    out = invoke("verify", root)
    assert out.exit_code == 1
    assert out.stdout.splitlines() == [
        "verify: DRIFT: results/summary.json does not reproduce",
        "  - the numbers differ although no input changed",
        "  - differs at /aggregates/weak",
    ]


def test_a_boolean_where_a_number_was_written_is_drift(tmp_path):
    root = reported(tmp_path)
    edit_summary(root, lambda s: s["aggregates"].update(strong=True))  # True == 1 in Python
    out = invoke("verify", root)
    assert out.exit_code == 1
    assert "  - differs at /aggregates/strong" in out.stdout.splitlines()


def test_a_reformatted_summary_of_the_same_content_reproduces(tmp_path):
    root = reported(tmp_path)
    edit_summary(root, lambda s: None)  # indent and escapes of json.dumps, same values
    path = summary_path(root)
    path.write_text(json.dumps(json.loads(path.read_text("utf-8"))), "utf-8")
    assert invoke("verify", root).exit_code == 0


@pytest.mark.parametrize("text", ["[]", '"2.1"', "0", "null", '{"aggregates": {}}',
                                  '{"version": "9.9"}', '{"version": 2.1}'],
                         ids=["array", "string", "number", "null", "no version",
                              "unknown version", "version a number"])
def test_a_summary_that_is_not_an_object_with_a_known_version_is_refused(tmp_path, text):
    root = reported(tmp_path)
    summary_path(root).write_text(text, "utf-8")
    out = invoke("verify", root)
    assert out.exit_code == 2
    assert out.stderr.splitlines() == [
        "leafscore: error: results/summary.json: not a leafscore summary (no known 'version')"]


def test_a_per_document_row_that_is_not_an_object_is_refused_naming_it(tmp_path):
    root = reported(tmp_path)
    edit_summary(root, lambda s: s["per_doc"].__setitem__(1, [0.5]))
    out = invoke("verify", root)
    assert out.exit_code == 2
    assert out.stderr.splitlines() == [
        "leafscore: error: results/summary.json#/per_doc/1: an array where `report` writes "
        "an object; refused"]


def test_a_signature_that_is_not_a_string_is_refused(tmp_path):
    root = reported(tmp_path)
    edit_summary(root, lambda s: s.update(signature=["leafscore:2.1"]))
    out = invoke("verify", root)
    assert out.exit_code == 2
    assert out.stderr.splitlines() == [
        "leafscore: error: results/summary.json#/signature: an array where `report` writes "
        "a string; refused"]


def test_a_duplicate_key_deep_inside_the_summary_is_refused(tmp_path):
    root = reported(tmp_path)
    path = summary_path(root)
    text = path.read_text("utf-8")
    assert '"doc_id": "d1",' in text
    path.write_text(text.replace('"doc_id": "d1",', '"doc_id": "d1", "doc_id": "d2",', 1),
                    "utf-8")
    out = invoke("verify", root)
    assert out.exit_code == 2
    assert out.stderr.splitlines() == [
        "leafscore: error: results/summary.json: duplicate key 'doc_id' in an object; "
        "`report` writes none: refused"]


@pytest.mark.parametrize("value", ["1.0", [1.0], {"score": 1.0}, None, False],
                         ids=["string", "array", "object", "null", "false"])
def test_a_score_of_another_type_is_drift_at_its_place(tmp_path, value):
    root = reported(tmp_path)
    edit_summary(root, lambda s: s["aggregates"].update(strong=value))
    out = invoke("verify", root)
    assert out.exit_code == 1
    assert out.stdout.splitlines() == [
        "verify: DRIFT: results/summary.json does not reproduce",
        "  - the numbers differ although no input changed",
        "  - differs at /aggregates/strong",
    ]


def test_an_interval_of_another_shape_is_drift_at_its_place(tmp_path):
    root = reported(tmp_path)
    edit_summary(root, lambda s: s["intervals"].update(weak=[0.4, 0.6]))
    out = invoke("verify", root)
    assert out.exit_code == 1
    assert "  - differs at /intervals/weak" in out.stdout.splitlines()


def test_a_digest_of_another_file_is_drift_saying_which_input_changed(tmp_path):
    root = reported(tmp_path)
    edit_summary(root, lambda s: s["results_sha256"].update(
        {"results/weak/d1.json": "0" * 64}))
    out = invoke("verify", root)
    assert out.exit_code == 1
    assert "  - results changed: results/weak/d1.json edited" in out.stdout.splitlines()


def test_a_400_digit_number_in_the_summary_csv_is_drift(tmp_path):
    root = reported(tmp_path)
    csv = root / "results" / "summary.csv"
    csv.write_text(csv.read_text("utf-8").replace("AGGREGATE,1.0,0.5",
                                                  "AGGREGATE,1.0," + "9" * 400), "utf-8")
    out = invoke("verify", root)
    assert out.exit_code == 1
    assert out.stdout.splitlines() == [
        "verify: DRIFT: results/summary.csv does not reproduce",
        "  - differs at row 4 column 3 (weak)",
    ]


def test_a_summary_csv_row_with_a_cell_too_many_is_drift_naming_the_row(tmp_path):
    root = reported(tmp_path)
    csv = root / "results" / "summary.csv"
    csv.write_text(csv.read_text("utf-8").replace("AGGREGATE,1.0,0.5",
                                                  "AGGREGATE,1.0,0.5,0.0"), "utf-8")
    out = invoke("verify", root)
    assert out.exit_code == 1
    assert "  - differs at row 4 (4 cells, not 3)" in out.stdout.splitlines()


def test_the_api_verify_gives_a_reason_for_a_summary_of_another_shape(tmp_path):
    import leafscore

    root = reported(tmp_path)
    run = leafscore.evaluate(root, cache=False)
    committed = json.loads(summary_path(root).read_text("utf-8"))
    assert run.verify(committed) == []
    assert run.verify([]) == [
        "not as `report` writes it: not a leafscore summary (no known 'version')"]
    assert run.verify({**committed, "sha256": []}) == [
        "not as `report` writes it: /sha256: an array where `report` writes an object"]


def test_a_very_long_key_is_shown_cut_to_one_short_line(tmp_path):
    root = reported(tmp_path)
    edit_summary(root, lambda s: s["aggregates"].update({"k" * 5000: 0.5}))
    out = invoke("verify", root)
    assert out.exit_code == 1
    assert max(len(line) for line in out.stdout.splitlines()) < 200


# ----- the other files report writes ---------------------------------------------------

@pytest.mark.parametrize("name", ["verdicts.csv", "verdicts.parquet"])
def test_verify_checks_the_verdict_file_report_wrote(tmp_path, name):
    verdicts = tmp_path / "out" / name
    root = reported(tmp_path, "--verdicts", str(verdicts))
    out = invoke("verify", root, "--verdicts", verdicts)
    assert out.exit_code == 0, out.stdout
    assert f"results/summary.csv, {verdicts} (" in out.stdout


def test_an_edited_verdict_file_is_drift_naming_it(tmp_path):
    verdicts = tmp_path / "out" / "verdicts.csv"
    root = reported(tmp_path, "--verdicts", str(verdicts))
    verdicts.write_bytes(verdicts.read_bytes().replace(b"wrong_value", b"correct", 1))
    out = invoke("verify", root, "--verdicts", verdicts)
    assert out.exit_code == 1
    assert out.stdout.splitlines()[0] == f"verify: DRIFT: {verdicts} does not reproduce"
    assert out.stdout.splitlines()[1].startswith(
        "  - differs from what `report` writes at byte ")


def test_verify_checks_the_explorer_page_report_wrote(tmp_path):
    page = tmp_path / "out" / "page.html"
    root = reported(tmp_path, "--html", str(page))
    assert invoke("verify", root, "--html", page).exit_code == 0
    page.write_bytes(page.read_bytes() + b"<script>alert(1)</script>")
    out = invoke("verify", root, "--html", page)
    assert out.exit_code == 1
    assert out.stdout.splitlines()[0] == f"verify: DRIFT: {page} does not reproduce"
    assert out.stdout.splitlines()[1].startswith("  - holds more bytes than `report` writes")


def test_a_missing_verdict_file_is_one_line_before_any_scoring(tmp_path):
    root = reported(tmp_path)
    out = invoke("verify", root, "--verdicts", tmp_path / "none.csv")
    assert out.exit_code == 2
    assert out.stderr.splitlines() == [f"leafscore: error: {tmp_path / 'none.csv'}: no such file"]


def test_every_drifted_file_is_named(tmp_path):
    page = tmp_path / "out" / "page.html"
    root = reported(tmp_path, "--html", str(page))
    edit_summary(root, lambda s: s["aggregates"].update(weak=1.0))
    (root / "results" / "summary.csv").write_text("doc_id\n", "utf-8")
    page.write_text("<html></html>", "utf-8")
    out = invoke("verify", root, "--html", page)
    assert out.exit_code == 1
    assert [line for line in out.stdout.splitlines() if line.startswith("verify:")] == [
        "verify: DRIFT: results/summary.json does not reproduce",
        "verify: DRIFT: results/summary.csv does not reproduce",
        f"verify: DRIFT: {page} does not reproduce",
    ]


# ----- no summary.json makes verify raise (hypothesis) ---------------------------------

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
    if not path:
        return new
    copy = list(value) if isinstance(value, list) else dict(value)
    copy[path[0]] = replaced(value[path[0]], path[1:], new)
    return copy


SCALARS = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False,
                                                                 allow_infinity=False)
           | st.sampled_from([10**400, -(10**400), 2**63, 0.5, 1.0, 1, 0, "", "x", "2.1",
                              "1.0", "leafscore:2.1|bs:99999999999|seed:-1", "|" * 50])
           | st.text(max_size=20))
JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(["labels/d1.json", "strong", "weak", "version",
                                       "sha256", "a", ""]) | st.text(max_size=5),
                      inner, max_size=3),
    max_leaves=8)


@st.composite
def committed_texts(draw, summary: dict) -> bytes:
    """The text of a committed summary.json: the real one with places replaced, members
    removed, duplicate keys written in, or any JSON value at all."""
    kind = draw(st.sampled_from(["replace", "remove", "duplicate", "any"]))
    value: object = summary
    if kind == "any":
        return json.dumps(draw(JSON_VALUES)).encode()
    for _ in range(draw(st.integers(1, 3))):
        places = list(paths_of(value))
        members = [p for p in places if len(p) == 1]  # half the time a top-level member
        place = draw(st.sampled_from(members) | st.sampled_from(places) if members
                     else st.sampled_from(places))
        if kind == "remove" and place:
            parent = value
            for step in place[:-1]:
                parent = parent[step]
            if isinstance(parent, dict):
                value = replaced(value, place[:-1], {k: v for k, v in parent.items()
                                                     if k != place[-1]})
                continue
        value = replaced(value, place, draw(JSON_VALUES))
    text = json.dumps(value, indent=2)
    if kind == "duplicate" and text.startswith("{"):
        member = draw(st.sampled_from(['"aggregates": {}', '"version": "2.1"', '"a": 1']))
        text = "{" + member + "," + text[1:]
    return text.encode()


@pytest.fixture(scope="module")
def fuzz_bench(tmp_path_factory):
    root = make_benchmark(tmp_path_factory.mktemp("fuzz") / "bench", LABELS, RESULTS)
    out = invoke("report", root, "--resamples", "100", "--no-cache")
    assert out.exit_code == 0, out.stderr
    return root, json.loads(summary_path(root).read_text("utf-8"))


@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_no_committed_summary_makes_the_checks_raise(fuzz_bench, data):
    """read_committed_summary refuses with an InputError or returns a summary that drift
    compares; nothing else can come out of any bytes."""
    root, fresh = fuzz_bench
    text = data.draw(committed_texts(fresh) | st.binary(max_size=64))
    path = root / "fuzzed.json"
    path.write_bytes(text)
    try:
        committed = report.read_committed_summary(path, "results/summary.json")
    except scorer.InputError as refused:
        assert "\n" not in str(refused)
        return
    finally:
        path.unlink()
    reasons = report.drift(committed, fresh)
    assert all(isinstance(r, str) for r in reasons)
    report.stored_bootstrap(committed.get("signature"))


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_no_committed_summary_makes_verify_raise(fuzz_bench, data):
    """The command end to end: exit 0, 1 (drift, named) or 2 (one line), never a
    traceback (``invoke`` lets any exception through)."""
    root, summary = fuzz_bench
    original = summary_path(root).read_bytes()
    summary_path(root).write_bytes(data.draw(committed_texts(summary)))
    try:
        out = invoke("verify", root)
    finally:
        summary_path(root).write_bytes(original)
    assert out.exit_code in (0, 1, 2)
    if out.exit_code == 2:
        assert len(error_lines(out)) == 1 and out.stderr.splitlines()[-1] == error_lines(out)[0]
    if out.exit_code == 1:
        assert out.stdout.startswith("verify: DRIFT: results/summary.json does not reproduce")


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_no_committed_summary_csv_makes_verify_raise(fuzz_bench, data):
    root, _ = fuzz_bench
    csv = root / "results" / "summary.csv"
    original = csv.read_bytes()
    if data.draw(st.booleans()):
        text = data.draw(st.binary(max_size=80))
    else:
        at = data.draw(st.integers(0, len(original)))
        text = original[:at] + data.draw(st.binary(max_size=6)) + original[at + 1:]
    csv.write_bytes(text)
    try:
        out = invoke("verify", root)
    finally:
        csv.write_bytes(original)
    assert out.exit_code in (0, 1, 2)
    if out.exit_code == 2:
        assert out.stderr.splitlines()[-1].startswith("leafscore: error: results/summary.csv")
    if out.exit_code == 1:
        assert out.stdout.startswith("verify: DRIFT: results/summary.csv does not reproduce")
