"""Issue 22, untrusted submissions round 3: what strangers' names become in outputs.

Names of systems and documents, and keys of open maps, come from submitters. In markdown
they are text (no link, image, emphasis, code span or autolink); in CSV no control
character reaches a cell raw and no formula hides behind leading blanks; ``--out`` never
replaces an input of the benchmark; and ``explain`` orders an address whose index has
thousands of digits without Python's int-string limit.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import FLAT, invoke, make_benchmark, private_cache, write_json
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from leafscore import hygiene
from leafscore.explain import _index_key, reading_order

__all__ = ["private_cache"]

REPO = Path(__file__).resolve().parent.parent
MARKDOWN = MarkdownIt("commonmark").enable("table")
START, END = "<!-- leafscore:leaderboard:start -->", "<!-- leafscore:leaderboard:end -->"


def bench_with_system(root: Path, system: str) -> Path:
    make_benchmark(root, {"d1": {"a": "x"}}, {system: {"d1": {"a": "x"}}, "plain": {"d1": {}}})
    (root / "README.md").write_text(f"# Board\n\n{START}\nold\n{END}\n", encoding="utf-8")
    return root


def updated_readme_html(root: Path) -> str:
    result = invoke("leaderboard", root, "--update", root / "README.md", "--no-cache")
    assert result.exit_code == 0, result.stderr
    return MARKDOWN.render((root / "README.md").read_text(encoding="utf-8"))


# ------------------------------------------------------------------------------------
# Markdown
# ------------------------------------------------------------------------------------


def test_a_system_named_as_a_markdown_link_reaches_the_readme_as_text(tmp_path):
    page = updated_readme_html(bench_with_system(tmp_path / "b", "[click me](https:evil.example)"))
    assert "<a " not in page
    assert "[click me](https:evil.example)" in page


def test_a_system_named_as_a_markdown_image_reaches_the_readme_as_text(tmp_path):
    page = updated_readme_html(bench_with_system(tmp_path / "b", "![t](https:evil.example?x=1)"))
    assert "<img" not in page
    assert "![t](https:evil.example?x=1)" in page


def test_emphasis_code_and_strikethrough_in_a_system_name_reach_the_readme_as_text(tmp_path):
    name = "*b* _i_ __s__ `c` ~~d~~"
    page = updated_readme_html(bench_with_system(tmp_path / "b", name))
    assert not any(tag in page for tag in ("<em>", "<strong>", "<code>", "<del>", "<s>"))
    assert name in page


def test_a_markdown_score_matrix_shows_a_jsonl_document_id_link_as_text(tmp_path):
    write_json(tmp_path / "schema.json", FLAT)
    line = json.dumps({"id": "[x](https://evil.example)", "a": "x"}) + "\n"
    (tmp_path / "gold.jsonl").write_text(line, encoding="utf-8")
    result = invoke("score", "--gold", tmp_path / "gold.jsonl", "--pred", tmp_path / "gold.jsonl",
                    "--schema", tmp_path / "schema.json", "--format", "md", "--no-cache")
    assert result.exit_code == 0, result.stderr
    page = MARKDOWN.render(result.stdout)
    assert "<a " not in page and "[x](https://evil.example)" in page


@pytest.mark.parametrize("text, escaped", [
    ("www.evil.example", "www\\.evil.example"), ("x@evil.example", "x\\@evil.example"),
    ("https://evil.example", "https\\://evil.example")])
def test_githubs_autolink_triggers_are_escaped(text, escaped):
    assert hygiene.markdown_text(text) == escaped


@pytest.mark.parametrize("note", ["# heading", "> quote", "- item", "+ item", "1. item",
                                  "2) item", "=== rule"])
def test_a_note_starting_like_a_block_opens_none(note):
    page = MARKDOWN.render(hygiene.markdown_text(note, line_start=True))
    assert page == f"<p>{note.replace('>', '&gt;')}</p>\n"


def test_names_without_markdown_syntax_are_written_unchanged():
    for name in ("docupipe_high", "gpt-4.1", "wrong_value (%)", "lines[].qty", "Gämma"):
        assert hygiene.markdown_text(name) == name.replace("[", "\\[")


@given(st.text(alphabet=st.sampled_from(list("[]()!*_`~<>&|\\:@.w#-a1 ")), max_size=24))
def test_no_text_renders_as_anything_but_itself(text):
    page = MARKDOWN.renderInline(hygiene.markdown_text(text))
    assert not any(tag in page for tag in ("<a ", "<img", "<em>", "<strong>", "<code>"))
    shown = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    assert page.strip() == shown.strip()


# ------------------------------------------------------------------------------------
# CSV
# ------------------------------------------------------------------------------------


def jsonl_with_id(tmp_path: Path, doc_id: str) -> list[str]:
    write_json(tmp_path / "schema.json", FLAT)
    (tmp_path / "gold.jsonl").write_text(json.dumps({"id": doc_id, "a": "x"}) + "\n",
                                         encoding="utf-8")
    return ["--gold", str(tmp_path / "gold.jsonl"), "--pred", str(tmp_path / "gold.jsonl"),
            "--schema", str(tmp_path / "schema.json"), "--no-cache"]


def test_a_nul_in_a_jsonl_id_reaches_score_csv_escaped(tmp_path):
    result = invoke("score", *jsonl_with_id(tmp_path, "a\x00b"), "--format", "csv")
    assert result.exit_code == 0, result.stderr
    assert "\x00" not in result.stdout
    assert "a\\u0000b,1.0" in result.stdout


def test_a_nul_in_a_jsonl_id_reaches_summary_csv_escaped(tmp_path):
    result = invoke("report", *jsonl_with_id(tmp_path, "a\x00b"), "--out", tmp_path / "out")
    assert result.exit_code == 0, result.stderr
    text = (tmp_path / "out" / "summary.csv").read_text(encoding="utf-8")
    assert "\x00" not in text and "a\\u0000b," in text


@pytest.mark.parametrize("cell", [" =1+1", "  @SUM(A1)", "\u00a0=HYPERLINK(1)", " -1+cmd"])
def test_a_formula_after_leading_blanks_gets_a_leading_quote(cell):
    assert hygiene.csv_cell(cell) == "'" + cell


@pytest.mark.parametrize("cell, written", [("\tx", "\\u0009x"), ("\rx", "\\u000dx"),
                                           ("\t=1", "\\u0009=1"), ("a\nb", "a\\u000ab")])
def test_a_control_character_in_a_csv_cell_is_written_as_a_json_escape(cell, written):
    assert hygiene.csv_cell(cell) == written


def test_a_csv_cell_holding_json_text_stays_json_of_the_same_value():
    value = "a\x7f\u202eb\x9b"
    cell = hygiene.csv_cell(json.dumps(value, ensure_ascii=False))
    assert json.loads(cell) == value


def test_a_csv_cell_of_200000_digits_is_checked_in_linear_time():
    code = (f"import sys; sys.path.insert(0, {str(REPO)!r})\nfrom leafscore import hygiene\n"
            "print(hygiene.csv_cell('-' + '1' * 200_000 + 'x')[:2])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True)
    assert done.stdout.strip() == "'-"


# ------------------------------------------------------------------------------------
# --out never replaces an input
# ------------------------------------------------------------------------------------


def sample(tmp_path: Path) -> Path:
    root = make_benchmark(tmp_path / "b", {"d1": {"a": "x"}}, {"s": {"d1": {"a": "x"}}},
                          config='name = "t"\n')
    write_json(root / "sources.json", [{"doc_id": "d1", "lang": "en"}])
    (root / "README.md").write_text(f"{START}\n{END}\n", encoding="utf-8")
    return root


@pytest.mark.parametrize("name", ["sources.json", "benchmark.toml", "metadata.json"])
def test_leaderboard_out_refuses_the_benchmarks_own_files(tmp_path, name):
    root = sample(tmp_path)
    before = (root / name).read_bytes() if (root / name).exists() else None
    result = invoke("leaderboard", root, "--out", root / name, "--no-cache")
    assert result.exit_code == 2
    assert result.stderr.strip() == (f"leafscore: error: {root / name}: is the benchmark's "
                                     f"input {name}; refused (outputs never replace an input)")
    assert ((root / name).read_bytes() if (root / name).exists() else None) == before


def test_leaderboard_out_refuses_the_metadata_file_the_config_names(tmp_path):
    root = sample(tmp_path)
    (root / "benchmark.toml").write_text('metadata = "meta/docs.json"\n', encoding="utf-8")
    write_json(root / "meta" / "docs.json", [{"doc_id": "d1", "lang": "en"}])
    result = invoke("leaderboard", root, "--out", root / "meta" / "docs.json", "--no-cache")
    assert result.exit_code == 2
    assert "is the benchmark's input meta/docs.json; refused" in result.stderr


def test_leaderboard_out_refuses_the_readme(tmp_path):
    root = sample(tmp_path)
    before = (root / "README.md").read_bytes()
    result = invoke("leaderboard", root, "--out", root / "README.md", "--no-cache")
    assert result.exit_code == 2
    assert "is the benchmark's README; refused" in result.stderr
    assert (root / "README.md").read_bytes() == before


def test_leaderboard_update_still_rewrites_the_readmes_block(tmp_path):
    root = sample(tmp_path)
    result = invoke("leaderboard", root, "--update", root / "README.md", "--no-cache")
    assert result.exit_code == 0, result.stderr
    assert "| s " in (root / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("option", ["--html", "--verdicts"])
def test_report_refuses_an_extra_output_over_the_config(tmp_path, option):
    root = sample(tmp_path)
    result = invoke("report", root, "--out", tmp_path / "out", option, root / "benchmark.toml",
                    "--no-cache")
    assert result.exit_code == 2
    assert "is the benchmark's input benchmark.toml; refused" in result.stderr
    assert (root / "benchmark.toml").read_text(encoding="utf-8") == 'name = "t"\n'


def test_explore_out_refuses_the_sources_file(tmp_path):
    root = sample(tmp_path)
    result = invoke("explore", root, "--out", root / "sources.json", "--no-cache")
    assert result.exit_code == 2
    assert "is the benchmark's input sources.json; refused" in result.stderr


@pytest.mark.parametrize("which", ["gold.jsonl", "pred.jsonl", "schema.json"])
def test_leaderboard_out_in_jsonl_mode_refuses_each_input_file(tmp_path, which):
    write_json(tmp_path / "schema.json", FLAT)
    for name in ("gold.jsonl", "pred.jsonl"):
        (tmp_path / name).write_text('{"id": "d1", "a": "x"}\n', encoding="utf-8")
    before = (tmp_path / which).read_bytes()
    result = invoke("leaderboard", "--gold", tmp_path / "gold.jsonl", "--pred",
                    tmp_path / "pred.jsonl", "--schema", tmp_path / "schema.json",
                    "--out", tmp_path / which, "--no-cache")
    assert result.exit_code == 2
    assert result.stderr.strip() == (f"leafscore: error: {tmp_path / which}: is the input "
                                     f"{tmp_path / which}; refused (outputs never replace an "
                                     "input)")
    assert (tmp_path / which).read_bytes() == before


# ------------------------------------------------------------------------------------
# explain: indices of any length
# ------------------------------------------------------------------------------------


def test_explain_on_an_open_map_key_shaped_like_a_5000_digit_index_lists_it(tmp_path):
    schema = {"type": "object", "properties": {
        "m": {"type": "object", "additionalProperties": {"type": "string"}}}}
    key = "[" + "1" * 5000 + "]"
    root = make_benchmark(tmp_path / "b", {"d": {"m": {"a": "x"}}},
                          {"s": {"d": {"m": {"a": "x", key: "y", "[2]": "z"}}}}, schema=schema)
    result = invoke("explain", "d", root, "--system", "s", "--format", "json", "--no-cache")
    assert result.exit_code == 0, result.stderr
    addresses = [v["address"] for v in json.loads(result.stdout)["verdicts"]]
    assert sorted(addresses) == sorted(["m.a", f'm["{key}"]', 'm["[2]"]'])


@given(st.lists(st.text(alphabet="0123456789", min_size=1, max_size=40), min_size=1, max_size=8))
def test_long_indices_sort_as_their_numbers(indices):
    assert sorted(indices, key=_index_key) == sorted(indices, key=int)


def test_reading_order_never_converts_an_index_to_int():
    class Verdict:
        def __init__(self, address: str) -> None:
            self.address, self.field = address, "lines[].qty"

    long = "9" * 5000
    ordered = reading_order([Verdict(f"lines[{long}].qty"), Verdict("lines[10].qty"),
                             Verdict("lines[2].qty"), Verdict("lines[r1].qty")])
    assert [v.address for v in ordered] == ["lines[2].qty", "lines[10].qty",
                                            f"lines[{long}].qty", "lines[r1].qty"]
