"""Issue 22, untrusted submissions round 3: JSONL read as result files are, and the code
fence found in linear time.

A JSONL line stands for a result file, so its bytes are decoded by the reader's rule
(UTF-8, or UTF-16/32 with a byte-order mark), a line holding invalid bytes is that
document's parse failure naming the line and the byte, and files and lines have a result
file's size limit. Bounded cases that would hang if the bug came back run in a child
process under a generous kill timeout; none asserts a wall time.
"""

from __future__ import annotations

import codecs
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import FLAT, invoke, private_cache, write_json
from hypothesis import given, settings
from hypothesis import strategies as st

import scorer
from leafscore import api, benchmark, fence
from leafscore._fast import VERSIONS as FAST_VERSIONS
from leafscore.benchmark import jsonl_lines, load_jsonl

__all__ = ["private_cache"]

REPO = Path(__file__).resolve().parent.parent
NAME = {"type": "object", "properties": {"name": {"type": "string"}}}
#: A child process that outlives this is a hang, not a slow machine.
KILL_AFTER = 120


def write_jsonl(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def score_jsonl(tmp_path: Path, gold: bytes, pred: bytes, *extra: str):
    write_json(tmp_path / "schema.json", NAME)
    return invoke("score", "--gold", write_jsonl(tmp_path / "gold.jsonl", gold),
                  "--pred", write_jsonl(tmp_path / "pred.jsonl", pred),
                  "--schema", tmp_path / "schema.json", "--format", "json", "--no-cache",
                  *extra)


def system_of(result) -> dict:
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)["systems"]["pred"]


GOLD_BETA = b'{"id": "a", "name": "Beta"}\n'


# ------------------------------------------------------------------------------------
# Decoding: the reader's rule, line by line
# ------------------------------------------------------------------------------------


def test_a_latin_1_prediction_beta_e9_is_a_parse_failure_not_100(tmp_path):
    result = score_jsonl(tmp_path, GOLD_BETA, b'{"id": "a", "name": "Beta\xe9"}\n')
    system = system_of(result)
    assert system["status"] == {"a": "parse_failure"}
    assert system["documents"] == {"a": 0.0}
    assert ("pred.jsonl:1: byte 25 (byte 25 of the file): invalid UTF-8 (byte 0xe9) "
            "(parse failure)") in result.stderr


def test_a_prediction_be_ff_t_fe_a_is_a_parse_failure_not_100(tmp_path):
    result = score_jsonl(tmp_path, GOLD_BETA, b'{"id": "a", "name": "Be\xfft\xfea"}\n')
    system = system_of(result)
    assert system["status"] == {"a": "parse_failure"}
    assert "pred.jsonl:1: byte 23 (byte 23 of the file): invalid UTF-8 (byte 0xff)" in \
        result.stderr


def test_the_same_bytes_as_a_result_file_are_a_parse_failure_too(tmp_path):
    write_json(tmp_path / "schema.json", NAME)
    (tmp_path / "result.json").write_bytes(b'{"name": "Beta\xe9"}')
    outcome = scorer.read_outcome(tmp_path / "result.json", NAME, scorer.VERSIONS["2.1"])
    assert outcome.status == "parse_failure"
    assert "invalid UTF-8 (byte 0xe9)" in outcome.note


def test_a_line_with_invalid_bytes_costs_only_its_own_document(tmp_path):
    gold = b"".join(b'{"id": "d%d", "name": "x"}\n' % i for i in (1, 2, 3))
    pred = b'{"id": "d1", "name": "x"}\n{"id": "d2", "name": "x\xe9"}\n{"id": "d3", "name": "x"}\n'
    result = score_jsonl(tmp_path, gold, pred)
    system = system_of(result)
    assert system["documents"] == {"d1": 1.0, "d2": 0.0, "d3": 1.0}
    assert system["status"]["d2"] == "parse_failure"
    assert "pred.jsonl:2: byte 23 (byte 49 of the file): invalid UTF-8" in result.stderr


def test_a_line_whose_id_holds_the_bad_byte_is_matched_by_line_number(tmp_path):
    gold = b'{"id": "d1", "name": "x"}\n{"id": "d2", "name": "y"}\n'
    pred = b'{"id": "d1", "name": "x"}\n{"id": "d\xe92", "name": "y"}\n'
    result = score_jsonl(tmp_path, gold, pred)
    assert system_of(result)["status"]["d2"] == "parse_failure"
    assert "matched to gold line 2" in result.stderr


@pytest.mark.parametrize("codec, label", [
    ("utf-16", "UTF-16"), ("utf-16-be", "UTF-16"), ("utf-32", "UTF-32"),
    ("utf-32-be", "UTF-32"), ("utf-8-sig", "UTF-8")])
def test_a_jsonl_file_with_a_byte_order_mark_is_decoded_as_a_result_file_is(tmp_path, codec,
                                                                            label):
    text = '{"id": "a", "name": "Beta"}\n{"id": "b", "name": "Gämma"}\n'
    mark = {"utf-16-be": codecs.BOM_UTF16_BE, "utf-32-be": codecs.BOM_UTF32_BE}.get(codec, b"")
    pred = mark + text.encode(codec)
    result = score_jsonl(tmp_path, text.encode("utf-8"), pred)
    assert system_of(result)["documents"] == {"a": 1.0, "b": 1.0}
    assert "pred.jsonl: " in result.stderr and label in result.stderr


def test_a_utf_16_file_with_one_bad_code_unit_refuses_only_that_line(tmp_path):
    lines = ['{"id": "a", "name": "x"}', '{"id": "b", "name": "y"}', '{"id": "c", "name": "z"}']
    body = [line.encode("utf-16-le") for line in lines]
    body[1] = body[1].replace("y".encode("utf-16-le"), b"\x00\xd8")  # a lone high surrogate
    newline = "\n".encode("utf-16-le")
    pred = codecs.BOM_UTF16_LE + newline.join(body) + newline
    result = score_jsonl(tmp_path, "\n".join(lines).encode() + b"\n", pred)
    system = system_of(result)
    assert system["documents"] == {"a": 1.0, "b": 0.0, "c": 1.0}
    assert system["status"]["b"] == "parse_failure"
    assert re.search(r"pred\.jsonl:2: byte \d+ \(byte \d+ of the file\): invalid UTF-16",
                     result.stderr)


def test_the_splitters_byte_order_marks_are_the_readers():
    for mark, codec in benchmark._MARKS:
        warnings: list[str] = []
        text = scorer.decode_bytes(mark + 'x\n"é"'.encode(codec), "f", warnings)
        assert text == 'x\n"é"', codec
        assert len(warnings) == 1, codec


def test_a_gold_line_with_invalid_bytes_exits_2_naming_the_file_line_and_byte(tmp_path):
    gold = b'{"id": "a", "name": "Beta"}\n{"id": "b", "name": "Beta\xe9"}\n'
    result = score_jsonl(tmp_path, gold, GOLD_BETA)
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        f"leafscore: error: {tmp_path / 'gold.jsonl'}:line 2, byte 25 (byte 53 of the file): "
        "invalid UTF-8 (byte 0xe9)"]


def test_a_gold_file_over_the_size_limit_exits_2_naming_it(tmp_path):
    gold = tmp_path / "gold.jsonl"
    gold.write_bytes(GOLD_BETA * 40)
    with pytest.raises(scorer.InputError, match="larger than the limit of 500 bytes") as caught:
        load_jsonl(gold, {"p": gold}, _schema(tmp_path), max_bytes=500)
    assert caught.value.file == str(gold)


def _schema(tmp_path: Path) -> Path:
    write_json(tmp_path / "schema.json", NAME)
    return tmp_path / "schema.json"


# ------------------------------------------------------------------------------------
# Size limits: a file, and a line, as large as one result file at most
# ------------------------------------------------------------------------------------


def test_a_line_longer_than_the_line_limit_is_refused_unparsed_and_the_rest_read(tmp_path):
    path = write_jsonl(tmp_path / "p.jsonl", b'{"id": "a"}\n{"id": "b", "x": "' + b"y" * 500
                       + b'"}\n{"id": "c"}\n')
    lines, _ = jsonl_lines(path, max_bytes=10_000, max_line_bytes=100)
    assert [line.number for line in lines] == [1, 2, 3]
    assert lines[0].text == '{"id": "a"}' and lines[2].text == '{"id": "c"}'
    assert lines[1].text is None
    assert str(lines[1].problem) == ("p.jsonl:2: line is 520 bytes, larger than the limit of "
                                     "100 bytes (9.53674e-05 MiB) of one result file; not read")


def test_a_line_over_the_limit_in_a_file_with_bad_bytes_is_refused_too(tmp_path):
    path = write_jsonl(tmp_path / "p.jsonl", b'{"id": "a", "x": "\xe9"}\n{"id": "b", "x": "'
                       + b"y" * 500 + b'"}\n')
    lines, _ = jsonl_lines(path, max_bytes=10_000, max_line_bytes=100)
    assert "invalid UTF-8" in str(lines[0].problem)
    assert "line is 520 bytes, larger than the limit of 100 bytes" in str(lines[1].problem)


def test_a_prediction_file_over_the_size_limit_makes_each_document_a_parse_failure(tmp_path):
    gold = write_jsonl(tmp_path / "gold.jsonl", b'{"id": "a", "name": "x"}\n'
                       b'{"id": "b", "name": "y"}\n')
    pred = write_jsonl(tmp_path / "pred.jsonl", b'{"id": "a", "name": "x"}\n' * 30)
    bench = load_jsonl(gold, {"p": pred}, _schema(tmp_path), max_bytes=500)
    run = api.evaluate_benchmark(bench, cache=False).run
    assert {doc: run.cells[("p", doc)].status for doc in ("a", "b")} == {
        "a": "parse_failure", "b": "parse_failure"}
    assert "larger than the limit of 500 bytes" in run.cells[("p", "a")].warnings[0]


_PEAK = """
def peak_mib():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0
"""


def run_child(code: str) -> dict:
    """Run ``code`` in a fresh interpreter (killed after KILL_AFTER s); it sets ``out``,
    printed as JSON with the child's peak resident memory added."""
    wrapper = (f"import json, sys\nsys.path.insert(0, {str(REPO)!r})\n{_PEAK}\nout = {{}}\n"
               f"{code}\nout['peak_mib'] = peak_mib()\nprint(json.dumps(out))\n")
    done = subprocess.run([sys.executable, "-c", wrapper], capture_output=True, text=True,
                          timeout=KILL_AFTER, check=True)
    assert "Traceback" not in done.stderr, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmHWM from /proc")
def test_a_103_mb_one_line_prediction_is_refused_unread_as_a_result_file_is(tmp_path):
    pred = tmp_path / "pred.jsonl"
    with pred.open("wb") as out:
        out.write(b'{"id": "a", "name": "Beta", "pad": "')
        for _ in range(103):
            out.write(b"y" * 1_000_000)
        out.write(b'"}\n')
    write_jsonl(tmp_path / "gold.jsonl", GOLD_BETA)
    _schema(tmp_path)
    out = run_child(f"""
from leafscore import api
folder = {str(tmp_path)!r}
run = api.evaluate_jsonl(folder + "/gold.jsonl", {{"p": folder + "/pred.jsonl"}},
                         folder + "/schema.json", cache=False).run
out["status"] = run.cells[("p", "a")].status
out["warnings"] = list(run.cells[("p", "a")].warnings)
""")
    assert pred.stat().st_size > scorer.MAX_FILE_BYTES
    assert out["status"] == "parse_failure"
    assert out["warnings"] == [f"pred.jsonl: file is {pred.stat().st_size:,} bytes, larger "
                               "than the limit of 67,108,864 bytes (64 MiB) (parse failure)"]
    assert out["peak_mib"] < 300  # not read: the file alone is 98 MiB


# ------------------------------------------------------------------------------------
# Inputs that are not regular files, and the config
# ------------------------------------------------------------------------------------


def run_cli(*args: str | Path) -> subprocess.CompletedProcess:
    """``leafscore ARGS`` in a child process, killed after KILL_AFTER s (a FIFO opened for
    reading would wait for a writer for ever)."""
    return subprocess.run([sys.executable, "-m", "leafscore", *map(str, args)],
                          capture_output=True, text=True, timeout=KILL_AFTER, cwd=REPO)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_given_as_pred_is_reported_as_not_a_regular_file_without_waiting(tmp_path):
    os.mkfifo(tmp_path / "pred.jsonl")
    write_jsonl(tmp_path / "gold.jsonl", GOLD_BETA)
    done = run_cli("score", "--gold", tmp_path / "gold.jsonl", "--pred", tmp_path / "pred.jsonl",
                   "--schema", _schema(tmp_path), "--no-cache")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == (
        f"leafscore: error: {tmp_path / 'pred.jsonl'}: is a FIFO, not a regular file")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_given_as_config_is_refused_without_waiting(tmp_path):
    os.mkfifo(tmp_path / "benchmark.toml")
    write_jsonl(tmp_path / "gold.jsonl", GOLD_BETA)
    done = run_cli("score", "--gold", tmp_path / "gold.jsonl", "--pred", tmp_path / "gold.jsonl",
                   "--schema", _schema(tmp_path), "--config", tmp_path / "benchmark.toml",
                   "--no-cache")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == (
        f"leafscore: error: {tmp_path / 'benchmark.toml'}: is a FIFO, not a regular file")


def test_a_folder_given_as_pred_is_reported_as_a_folder(tmp_path):
    (tmp_path / "preds").mkdir()
    write_jsonl(tmp_path / "gold.jsonl", GOLD_BETA)
    result = invoke("score", "--gold", tmp_path / "gold.jsonl", "--pred", tmp_path / "preds",
                    "--schema", _schema(tmp_path), "--no-cache")
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"leafscore: error: {tmp_path / 'preds'}: is a folder, not a regular file")


def test_a_config_that_is_not_utf_8_exits_2_naming_the_byte(tmp_path):
    (tmp_path / "benchmark.toml").write_bytes(b'name = "\xff"\n')
    write_jsonl(tmp_path / "gold.jsonl", GOLD_BETA)
    result = invoke("score", "--gold", tmp_path / "gold.jsonl", "--pred",
                    tmp_path / "gold.jsonl", "--schema", _schema(tmp_path), "--config",
                    tmp_path / "benchmark.toml", "--no-cache")
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"leafscore: error: {tmp_path / 'benchmark.toml'}:byte 8: not UTF-8 text")


# ------------------------------------------------------------------------------------
# The markdown code fence, in linear time
# ------------------------------------------------------------------------------------


def test_a_fence_followed_by_300000_blanks_in_a_jsonl_prediction_is_read_in_linear_time(
        tmp_path):
    write_jsonl(tmp_path / "gold.jsonl", GOLD_BETA)
    fenced = {"id": "a", "prediction": '```json\n{"name": "Beta"}\n```' + " " * 300_000}
    blanks = {"id": "a", "prediction": "```\n" + " " * 300_000}
    write_jsonl(tmp_path / "fenced.jsonl", json.dumps(fenced).encode() + b"\n")
    write_jsonl(tmp_path / "blanks.jsonl", json.dumps(blanks).encode() + b"\n")
    done = run_cli("score", "--gold", tmp_path / "gold.jsonl", "--schema", _schema(tmp_path),
                   "--pred", f"fenced={tmp_path / 'fenced.jsonl'}",
                   "--pred", f"blanks={tmp_path / 'blanks.jsonl'}",
                   "--format", "json", "--no-cache")
    assert done.returncode == 0, done.stderr
    systems = json.loads(done.stdout)["systems"]
    assert systems["fenced"]["documents"] == {"a": 1.0}
    assert systems["blanks"]["status"] == {"a": "parse_failure"}
    assert "fenced.jsonl:1: data given as text holding JSON in a markdown code fence: decoded" \
        in done.stderr


def test_loads_json_unwraps_a_fence_followed_by_300000_blanks_in_linear_time():
    out = run_child("""
from leafscore.benchmark import loads_json
text = '```json\\n{"a": 1}\\n```' + " " * 300_000
out["value"] = loads_json(text, source="x", unwrap_fences=True).value
out["spans"] = [list(__import__("leafscore.fence").fence.fence_span("```\\n" + " " * n) or [])
                for n in (1_000_000, 3_000_000)]
""")
    assert out["value"] == {"a": 1}
    assert out["spans"] == [[], []]


_FENCE_PIECES = st.sampled_from([
    " ", "\t", "\r", "\n", "\r\n", "`", "```", "json", "json5", "jsonc", "JSON", "x", "{}",
    '{"a": 1}', "\u3000", "\x0b", "\x1c", "\x85", "5", "c"])


@settings(max_examples=3000, deadline=None)
@given(st.lists(_FENCE_PIECES, max_size=14).map("".join))
def test_fence_span_finds_the_body_scorer_fence_finds(text):
    match = scorer.FENCE.fullmatch(text)
    assert fence.fence_span(text) == (match.span("body") if match else None)
    assert fence.unwrap_fence(text) == scorer.unwrap_fence(text)


def test_str_isspace_is_the_whitespace_of_res_backslash_s():
    space = re.compile(r"\s")
    assert all(bool(space.fullmatch(chr(c))) == chr(c).isspace() for c in range(0x110000))


_DATA = st.one_of(
    st.lists(_FENCE_PIECES, max_size=10).map("".join),
    st.sampled_from(['```json\n{"a": 1}\n```', "```\n[1]\n```", '"x"', "null", "[]", "3",
                     "true", '{"a": {"b": [1, 2.50]}}', "  {}  ", "{", ""]),
    st.none(), st.integers(), st.lists(st.integers(), max_size=2),
    st.dictionaries(st.sampled_from(["a", "b"]), st.integers(), max_size=2))


@settings(max_examples=2000, deadline=None)
@given(status=st.sampled_from([None, "ok", "failed", 1]), data=_DATA,
       declared=st.booleans(), version=st.sampled_from(["2.0", "2.1"]))
def test_the_fast_envelope_gives_the_definitions_outcome(status, data, declared, version):
    value = {"data": data} if status is None else {"status": status, "data": data}
    schema = {"type": "object", "properties": {"data": {}} if declared else {}}
    definition = scorer.VERSIONS[version].envelope(value, schema)
    assert FAST_VERSIONS[version].envelope(value, schema) == definition


@pytest.mark.parametrize("value", [scorer.UNREADABLE, [], "text", 3, {"a": 1}, {"status": "ok"}])
def test_the_fast_envelope_leaves_values_without_text_data_to_the_definition(value):
    schema = {"type": "object"}
    assert FAST_VERSIONS["2.1"].envelope(value, schema) == \
        scorer.VERSIONS["2.1"].envelope(value, schema)


def test_the_fast_envelope_pickles_for_worker_processes():
    import pickle

    record = FAST_VERSIONS["2.1"]
    copy = pickle.loads(pickle.dumps(record))
    value = {"status": "ok", "data": '```json\n{"a": 1}\n```'}
    assert copy.envelope(value, FLAT) == record.envelope(value, FLAT)
