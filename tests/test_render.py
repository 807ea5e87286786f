"""Renderings of matrices, leaderboards, fields, diffs and explain views (leafscore.render)."""

from __future__ import annotations

import json

import pytest
from analysis_fakes import SIGNATURE, doc, run_of, v

from leafscore import render
from leafscore.diff import compare
from leafscore.explain import explain
from leafscore.fields import field_table
from leafscore.leaderboard import leaderboard

TWO = run_of(
    {"a": [1.0, 0.5, 0.75], "b": [0.5, 0.5, 0.75]},
    metadata={"d1": {"lang": "en"}, "d2": {"lang": "en"}, "d3": {"lang": "de"}},
)
V1 = run_of({"a": [1.0, None], "b": [0.5, 0.25]}, version="1.0")
LEAVES = run_of({"gpt": [doc(
    v("date", "correct", "2024-01-02", "2024-01-02"),
    v("total", "wrong_value", 5, "5|<b>"),
    v("note", "correct_absence"),
)]})


def test_a_score_prints_as_a_percentage_with_two_decimals():
    assert render.percent(0.972442) == "97.24"


def test_none_prints_as_a_dash_never_as_0_or_1():
    assert (render.percent(None), render.signed(None), render.number(None)) == ("–", "–", "–")


def test_zero_prints_as_zero_not_as_a_dash():
    assert render.percent(0.0) == "0.00"


def test_a_difference_prints_as_signed_points():
    assert render.signed(-0.0125) == "-1.25"


def test_the_markdown_leaderboard_is_exactly_this():
    # 3 documents: b's gap rests on 3 paired documents, too few for any decision.
    assert render.render_leaderboard(leaderboard(TWO), "md") == (
        "|   rank | system   |   score (%) |       95% CI (%) |   gap (points) |       gap 95% CI |"
        "   p (Holm) |   paired | ≈ leader   |   P (%) |   R (%) |   F1 (%) |   scored |"
        "   parse failures |   missing |\n"
        "|-------:|:---------|------------:|-----------------:|---------------:|-----------------:|"
        "-----------:|---------:|:-----------|--------:|--------:|---------:|---------:|"
        "-----------------:|----------:|\n"
        "|      1 | a        |       75.00 | \\[50.00, 100.00] |              – |"
        "                – |          – |          |            |       – |       – |"
        "        – |      3/3 |"
        "                0 |         0 |\n"
        "|      2 | b        |       58.33 |  \\[50.00, 75.00] |         -16.67 |"
        " \\[-50.00, +0.00] |          1 |        3 | –          |       – |       – |"
        "        – |      3/3 |"
        "                0 |         0 |\n"
        "\n"
        "Gap: system minus leader, in points. p: two-sided paired sign-flip permutation test "
        "of the per-document differences on the paired documents (exact over every sign "
        "pattern for 1 comparison(s)), one comparison, no correction needed. ≈: p &gt;= 0.05, "
        "the gap is not significant at 5%; empty: it is; –: no decision (below).\n"
        "\n"
        "Intervals: 95% bootstrap percentile intervals over documents, 1000 resamples, seed "
        "12345 (paired draws for the gap). Gaps rest on 3 paired documents (of 3).\n"
        "\n"
        "– b: no decision: only 3 paired document(s), fewer than 6: no test on so few can "
        "reach 5%.\n"
        "\n"
        "warning: only 3 document(s), fewer than 10: bootstrap intervals are unreliable at "
        "this size (too narrow) and p-values coarse\n"
        "\n"
        "### By lang (score %)\n"
        "\n"
        "| lang   |   docs |     a |     b |\n"
        "|:-------|-------:|------:|------:|\n"
        "| de     |      1 | 75.00 | 75.00 |\n"
        "| en     |      2 | 75.00 | 50.00 |\n"
        "\n"
        f"{SIGNATURE}\n"
    )


@pytest.mark.parametrize("fmt", ["table", "md", "html"])
def test_every_text_leaderboard_ends_with_the_signature_line(fmt):
    text = render.render_leaderboard(leaderboard(TWO), fmt)
    lines = text.rstrip("\n").splitlines()
    if fmt == "html":  # a whole page: the signature is its last paragraph
        assert lines[-3].endswith(f"{SIGNATURE}</code></p>") and lines[-1] == "</html>"
    else:
        assert lines[-1].endswith(SIGNATURE)


def test_the_csv_leaderboard_keeps_unrounded_figures_and_ends_with_the_signature():
    lines = render.render_leaderboard(leaderboard(TWO), "csv").splitlines()
    assert lines[0] == ("rank,system,score,ci_low,ci_high,gap,gap_low,gap_high,p_value,"
                        "p_adjusted,paired,decision,tie_with_leader,near_alpha,precision,"
                        "recall,f1,scored,parse_failures,missing,few_documents")
    assert lines[2] == ("2,b,0.5833333333333334,0.5,0.75,-0.16666666666666663,-0.5,0.0,"
                        "1.0,1.0,3,none,,false,,,,3,0,0,false")
    assert lines[-1] == f"# {SIGNATURE}"


def test_the_json_leaderboard_has_sorted_keys_and_null_for_undefined():
    data = json.loads(render.render_leaderboard(leaderboard(TWO), "json"))
    assert list(data) == sorted(data)
    assert data["rows"][1]["micro"]["f1"] is None
    # Exact sign-flip test: one of the 3 paired documents differs, so both of the
    # 2**1 sign patterns are as extreme as the observed one.
    assert data["rows"][1]["gap"]["p_value"] == 1.0
    assert data["rows"][1]["tie"] is None
    assert data["signature"] == SIGNATURE


def test_the_same_input_renders_the_same_text_twice():
    first = [render.render_leaderboard(leaderboard(TWO), f) for f in render.FORMATS]
    assert first == [render.render_leaderboard(leaderboard(TWO), f) for f in render.FORMATS]


def test_html_escapes_every_value():
    run = run_of({"<script>alert(1)</script>": [1.0], "a&b": [0.5]})
    text = render.render_leaderboard(leaderboard(run), "html")
    assert "<script>" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "a&amp;b" in text


def test_markdown_escapes_pipes_and_tags_in_values():
    run = run_of({"x|<b>": [1.0]})
    text = render.render_leaderboard(leaderboard(run), "md")
    assert "x\\|&lt;b&gt;" in text


def test_control_characters_never_reach_a_terminal():
    run = run_of({"evil\x1b[31m": [1.0]})
    text = render.render_leaderboard(leaderboard(run), "table")
    assert "\x1b" not in text
    assert "evil\\x1b[31m" in text


def test_version_1_0_shows_precision_recall_f1_as_dashes():
    text = render.render_leaderboard(leaderboard(V1), "md")
    assert text.splitlines()[2] == (
        "|      1 | a        |      100.00 | \\[100.00, 100.00] |              – |"
        "                 – |          – |          |            |       – |       – |"
        "        – |      1/2 |                0 |         1 |")


def test_the_matrix_has_one_row_per_document_and_the_mean_row():
    assert render.render_matrix(V1, "md").splitlines()[:7] == [
        "### Document scores (%)",
        "",
        "| document   |      a |     b |",
        "|:-----------|-------:|------:|",
        "| d1         | 100.00 | 50.00 |",
        "| d2         |     –‡ | 25.00 |",
        "| mean       | 100.00 | 37.50 |",
    ]


def test_the_matrix_explains_its_marks():
    assert "‡: missing result (left out of the mean)." in render.render_matrix(V1, "md")


def test_a_parse_failure_is_marked_in_the_matrix():
    run = run_of({"a": [0.0]}, statuses={("a", "d1"): "parse_failure"})
    assert "| d1         | 0.00† |" in render.render_matrix(run, "md")


def test_the_csv_matrix_leaves_an_unscored_document_empty():
    assert render.render_matrix(V1, "csv").splitlines()[:4] == [
        "document,a,b", "d1,1.0,0.5", "d2,,0.25", "mean,1.0,0.375"]


def test_the_json_matrix_gives_each_system_its_score_and_documents():
    data = json.loads(render.render_matrix(V1, "json"))
    assert data["systems"]["a"] == {
        "score": 1.0,
        "documents": {"d1": 1.0, "d2": None},
        "status": {"d1": "scored", "d2": "missing"},
    }


def test_the_fields_table_lists_counts_rates_and_error_kinds():
    text = render.render_fields(field_table(LEAVES, "gpt"), "md", system="gpt",
                                signature=SIGNATURE)
    assert text.splitlines()[4:7] == [
        "| total   |    0 |    1 |    1 |    0.00 |    0.00 |     0.00 | wrong_value 1 |",
        "| date    |    1 |    0 |    0 |  100.00 |  100.00 |   100.00 | –             |",
        "| note    |    0 |    0 |    0 |       – |       – |        – | –             |",
    ]


def test_the_diff_report_states_the_change_its_interval_and_the_decision():
    run = run_of({"base": [0.5, 0.5], "head": [0.5, 0.75]})
    text = render.render_diff(compare(run, "base", run, "head"), "md")
    assert (
        "base 50.00 → head 62.50: change +12.50 points, 95% bootstrap percentile interval "
        "\\[+0.00, +25.00], p = 1 (paired sign-flip test, exact; not significant at 5%), on 2 "
        "documents scored on both sides."
    ) in text
    assert ("warning: only 2 document(s), fewer than 10: bootstrap intervals are unreliable "
            "at this size (too narrow) and p-values coarse") in text
    assert "Regression: no (no drop beyond the tolerance 0 points)." in text
    assert "| d2         |      50.00 |      75.00 |            +25.00 |" in text


def test_the_diff_report_lists_only_fields_whose_f1_changed():
    run = run_of({
        "base": [doc(v("date", "correct"), v("total", "wrong_value"))],
        "head": [doc(v("date", "correct"), v("total", "correct"))],
    })
    lines = render.render_diff(compare(run, "base", run, "head"), "md").splitlines()
    start = lines.index("### Field F1")
    assert lines[start + 2:start + 7] == [
        "| field   |   base F1 (%) |   head F1 (%) |   change (points) |",
        "|:--------|--------------:|--------------:|------------------:|",
        "| total   |          0.00 |        100.00 |           +100.00 |",
        "",
        "1 of 2 fields unchanged.",
    ]


def test_the_csv_diff_lists_the_flipped_documents():
    run = run_of({"base": [0.5, 0.5], "head": [0.5, 0.75]})
    assert render.render_diff(compare(run, "base", run, "head"), "csv").splitlines()[:2] == [
        "document,base,head,change", "d2,0.5,0.75,0.25"]


def test_explain_lists_every_leaf_with_label_result_and_verdict():
    lines = render.render_explain(explain(LEAVES, "gpt", "d1"), "md").splitlines()
    assert lines[0] == "### d1 · gpt · scored · accuracy 50.00%"
    assert lines[4:7] == [
        '| date      | "2024-01-02" | "2024-01-02"   | correct         |',
        '| total     | 5            | "5\\|&lt;b&gt;" | wrong_value     |',
        "| note      | –            | –              | correct_absence |",
    ]


def test_explain_as_json_keeps_raw_and_canonical_values():
    data = json.loads(render.render_explain(explain(LEAVES, "gpt", "d1"), "json"))
    assert data["verdicts"][1] == {
        "address": "total", "field": "total", "verdict": "wrong_value", "label": 5,
        "result": "5|<b>", "label_canon": 5, "result_canon": "5|<b>",
    }


def test_explain_needs_version_2_0():
    with pytest.raises(ValueError, match=r"explain needs per-leaf verdicts"):
        render.render_explain(explain(V1, "a", "d1"), "md")


def test_explain_of_an_unknown_document_is_a_key_error():
    with pytest.raises(KeyError, match="nope"):
        render.render_explain(explain(LEAVES, "gpt", "nope"), "md")


def test_an_unknown_format_is_an_error():
    with pytest.raises(ValueError, match="format='xml' is not one of"):
        render.render_matrix(V1, "xml")


def test_explain_lists_fields_in_schema_order_and_items_by_label_index_unpaired_last():
    from types import SimpleNamespace

    from leafscore.explain import reading_order as _reading_order

    def v(address, field):
        return SimpleNamespace(address=address, field=field)

    scorer_order = [v("no", "no"), v("lines[10].a", "lines[].a"), v("lines[10].b", "lines[].b"),
                    v("lines[r0].a", "lines[].a"), v("lines[2].a", "lines[].a"),
                    v("lines[2].b", "lines[].b"), v("total", "total")]
    shown = [x.address for x in _reading_order(scorer_order)]
    assert shown == ["no", "lines[2].a", "lines[2].b", "lines[10].a", "lines[10].b",
                     "lines[r0].a", "total"]
