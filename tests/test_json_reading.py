"""Reading JSON (``benchmark.load_json`` / ``loads_json``, the package's door to
``scorer.parse_json``): every hostile JSON input ends as a value or one located error
(issue 5)."""

from __future__ import annotations

import codecs
import os
import pickle
import sys

import pytest

import scorer
from leafscore.benchmark import load_json, loads_json
from scorer import InputError, Parsed

#: Longest integer literal accepted, in digits (Python's int-string limit).
MAX_INT_DIGITS: int = sys.get_int_max_str_digits() or 4300


def parse(data: str | bytes, **options) -> Parsed:
    return loads_json(data, source="doc.json", **options)


def refusal(data: str | bytes, **options) -> str:
    with pytest.raises(InputError) as caught:
        parse(data, **options)
    return str(caught.value)


# --- plain JSON -----------------------------------------------------------------------


def test_valid_json_reads_with_no_warning():
    assert parse(b'{"a": [1, 2.5, "x", true, null]}') == Parsed(
        {"a": [1, 2.5, "x", True, None]}, ()
    )


def test_text_and_bytes_read_alike():
    assert parse('{"é": 1}') == parse('{"é": 1}'.encode())


def test_syntax_error_names_line_and_column():
    assert refusal(b'{"a":\n  tru}') == "doc.json:line 2 column 3: Expecting value"


def test_trailing_data_is_an_error():
    assert refusal(b"{} {}") == "doc.json:line 1 column 4: Extra data"


# --- encodings --------------------------------------------------------------------------


def test_invalid_utf8_names_the_byte_offset():
    assert refusal(b'{"a": "\xff"}') == "doc.json:byte 7: invalid UTF-8 (byte 0xff)"


def test_utf8_bom_is_accepted_with_a_warning():
    loaded = parse(codecs.BOM_UTF8 + b'{"a": 1}')
    assert loaded.value == {"a": 1}
    assert loaded.warnings == ("doc.json: starts with a UTF-8 byte-order mark; ignored",)


def test_bom_in_a_str_is_accepted_with_a_warning():
    assert parse('\ufeff[1]').value == [1]


def test_utf16_with_bom_is_decoded_with_a_warning():
    loaded = parse('{"a": "ü"}'.encode("utf-16"))
    assert loaded.value == {"a": "ü"}
    assert loaded.warnings == ("doc.json: decoded as UTF-16 (byte-order mark); use UTF-8",)


def test_utf16_big_endian_with_bom_is_decoded():
    assert parse(codecs.BOM_UTF16_BE + '[1]'.encode("utf-16-be")).value == [1]


def test_utf32_with_bom_is_decoded_not_mistaken_for_utf16():
    assert parse('[1]'.encode("utf-32")).value == [1]


def test_utf16_without_bom_is_refused_with_a_hint():
    assert refusal('{"a": 1}'.encode("utf-16-le")) == (
        "doc.json:byte 1: NUL byte: UTF-16 or UTF-32 without a byte-order mark? Save as UTF-8"
    )


def test_unpaired_surrogate_escape_is_replaced_with_a_warning():
    loaded = parse(b'{"\\udc00k": "a\\ud800"}')
    assert loaded.value == {"\ufffdk": "a\ufffd"}
    assert "2 unpaired surrogate escape(s)" in loaded.warnings[0]


def test_paired_surrogate_escape_reads_as_one_character():
    assert parse(b'"\\ud83d\\ude00"') == Parsed("\U0001f600", ())


# --- empty --------------------------------------------------------------------------------


@pytest.mark.parametrize("data", [b"", b"   \n\t", codecs.BOM_UTF8])
def test_empty_input_is_refused(data):
    assert refusal(data) == "doc.json: is empty, expected a JSON value"


# --- numbers ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data, column, token",
    [
        (b"[NaN]", 2, "NaN"),
        (b'{"x": Infinity}', 7, "Infinity"),
        (b"[1, -Infinity]", 5, "-Infinity"),
    ],
)
def test_non_finite_tokens_are_refused_at_their_position(data, column, token):
    assert refusal(data) == (
        f"doc.json:line 1 column {column}: {token} is not a JSON value "
        "(RFC 8259 allows finite numbers only)"
    )


def test_nan_inside_a_string_is_just_text():
    assert parse(b'["NaN", "Infinity"]').value == ["NaN", "Infinity"]


def test_float_overflow_is_refused():
    assert refusal(b'{"a":\n 1e999999}') == (
        "doc.json:line 2 column 2: number 1e999999 is too large for a float"
    )


def test_float_underflow_reads_as_zero():
    assert parse(b"[1e-999999]").value == [0.0]


def test_integer_longer_than_the_int_string_limit_is_refused_cleanly():
    assert refusal(("[" + "7" * 5000 + "]").encode()) == (
        "doc.json:line 1 column 2: integer with 5,000 digits exceeds the limit of 4,300"
    )


def test_integer_at_the_digit_limit_is_read_exactly():
    literal = "9" * MAX_INT_DIGITS
    assert parse(f"[-{literal}]").value == [-int(literal)]


# --- objects ------------------------------------------------------------------------------


def test_duplicate_keys_keep_the_last_value_with_a_warning_naming_the_key():
    loaded = parse(b'{"total": 1, "total": 2, "n": {"k": 1, "k": 3}}')
    assert loaded.value == {"total": 2, "n": {"k": 3}}
    assert set(loaded.warnings) == {
        "doc.json: duplicate key 'total' in an object; the last value is kept",
        "doc.json: duplicate key 'k' in an object; the last value is kept",
    }


# --- nesting ------------------------------------------------------------------------------


def test_nesting_100000_deep_is_refused_without_recursion_error():
    assert refusal(b"[" * 100_000) == (
        f"doc.json:line 1 column {scorer.MAX_DEPTH + 1}: "
        f"nesting deeper than {scorer.MAX_DEPTH} levels"
    )


def test_nesting_at_the_limit_is_read():
    depth = scorer.MAX_DEPTH
    value = parse("[" * depth + "]" * depth).value
    for _ in range(depth - 1):
        value = value[0]
    assert value == []


def test_nesting_limit_counts_objects_and_arrays_together():
    assert "nesting deeper than 3 levels" in refusal('{"a": [{"b": []}]}', max_depth=3)


def test_brackets_inside_strings_do_not_count_as_nesting():
    text = '["' + "[" * 1000 + '\\"{"]'
    assert parse(text).value == ["[" * 1000 + '"{']


def test_many_shallow_arrays_are_not_deep():
    assert len(parse("[" + ",".join(["[1]"] * 5000) + "]").value) == 5000


# --- markdown fences ---------------------------------------------------------------------


def test_fenced_json_is_unwrapped_when_asked_with_a_warning():
    loaded = parse('```json\n{"a": 1}\n```\n', unwrap_fences=True)
    assert loaded == Parsed(
        {"a": 1}, ("doc.json: unwrapped a markdown code fence around the JSON",)
    )


def test_fence_without_language_is_unwrapped():
    assert parse("```\n[1]\n```", unwrap_fences=True).value == [1]


def test_fenced_json_is_invalid_unless_unwrapping_is_asked():
    assert refusal('```json\n{"a": 1}\n```') == "doc.json:line 1 column 1: Expecting value"


def test_error_inside_a_fence_names_the_line_of_the_whole_text():
    assert refusal('```json\n{"a":\n  tru}\n```', unwrap_fences=True) == (
        "doc.json:line 3 column 3: Expecting value"
    )


# --- files ----------------------------------------------------------------------------------


def test_load_json_reads_a_file(tmp_path):
    (tmp_path / "a.json").write_bytes(b'{"a": 1}')
    assert load_json(tmp_path / "a.json") == Parsed({"a": 1}, ())


def test_load_json_names_the_file_as_given(tmp_path):
    (tmp_path / "a.json").write_bytes(b"[1,]")
    with pytest.raises(InputError) as caught:
        load_json(tmp_path / "a.json")
    assert str(caught.value) == f"{tmp_path / 'a.json'}:line 1 column 4: Expecting value"


def test_missing_file_is_refused(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        load_json(tmp_path / "absent.json")


def test_directory_where_a_file_should_be_is_refused(tmp_path):
    (tmp_path / "d.json").mkdir()
    with pytest.raises(InputError) as caught:
        load_json(tmp_path / "d.json")
    assert str(caught.value) == f"{tmp_path / 'd.json'}: is a directory, expected a JSON file"


def test_fifo_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "p.json")
    with pytest.raises(InputError, match="is not a regular file"):
        load_json(tmp_path / "p.json")


def test_a_socket_where_a_file_should_be_is_refused(tmp_path):
    import socket

    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(tmp_path / "s.json"))
        with pytest.raises(InputError, match="is not a regular file"):
            load_json(tmp_path / "s.json")


def test_a_file_read_in_short_pieces_is_read_whole(tmp_path, monkeypatch):
    (tmp_path / "a.json").write_bytes(b'{"a": [1, 2, 3]}')
    real = os.read
    monkeypatch.setattr(os, "read", lambda fd, n: real(fd, min(n, 3)))
    assert load_json(tmp_path / "a.json").value == {"a": [1, 2, 3]}


def test_a_file_longer_than_its_size_when_opened_is_read_up_to_the_limit(tmp_path,
                                                                          monkeypatch):
    (tmp_path / "a.json").write_bytes(b"[1, 2, 3]")
    real = os.fstat
    monkeypatch.setattr(os, "fstat", lambda fd: os.stat_result(
        (*real(fd)[:6], 2, *real(fd)[7:])))  # it had 2 bytes when looked at
    assert load_json(tmp_path / "a.json").value == [1, 2, 3]
    with pytest.raises(InputError, match="larger than the limit of 4 bytes"):
        load_json(tmp_path / "a.json", max_bytes=4)


def test_default_size_limit_is_64_mib():
    assert scorer.MAX_FILE_BYTES == 64 * 2**20


def test_file_over_the_size_limit_is_refused_before_reading(tmp_path):
    big = tmp_path / "big.json"
    with open(big, "wb") as handle:  # sparse: 200 MB on paper, nothing on disk
        handle.truncate(200_000_000)
    with pytest.raises(InputError) as caught:
        load_json(big)
    assert str(caught.value) == (
        f"{big}: file is 200,000,000 bytes, larger than the limit of 67,108,864 bytes (64 MiB)"
    )


def test_size_limit_can_be_lowered(tmp_path):
    (tmp_path / "a.json").write_bytes(b"[1, 2, 3]")
    with pytest.raises(InputError, match="larger than the limit of 4 bytes"):
        load_json(tmp_path / "a.json", max_bytes=4)


def test_file_with_fence_is_unwrapped_when_asked(tmp_path):
    (tmp_path / "a.json").write_text("```json\n[1]\n```")
    assert load_json(tmp_path / "a.json", unwrap_fences=True).value == [1]


# --- the error type ---------------------------------------------------------------------------


def test_error_without_position_reads_file_colon_reason():
    assert str(InputError("a.json", "", "is empty")) == "a.json: is empty"


def test_error_survives_pickling_for_worker_processes():
    error = InputError("a.json", "line 1 column 2", "Expecting value")
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.file, copy.pointer, copy.reason, str(copy)) == (
        "a.json",
        "line 1 column 2",
        "Expecting value",
        "a.json:line 1 column 2: Expecting value",
    )


def test_error_is_a_value_error():
    assert issubclass(InputError, ValueError)
