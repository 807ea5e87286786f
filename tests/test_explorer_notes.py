"""The explorer says what the command line says (issue 24, item 7), in headless Chromium.

One test per part of item 7: parse failures and missing results marked as such in the
heat map and the drill-down; the leaderboard's notes (small sample, Holm correction,
``(few)``, no-decision reasons); leaf counts in the Fields table; document names and
metadata from ``sources.json``; text in its own direction (``<bdi>``); extra items shown
as extra. The browser, the page helper and ``LEAFSCORE_REQUIRE_BROWSER`` are
``test_explorer``'s.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import test_explorer
from cli_helpers import make_benchmark
from test_explorer import Page, _explore

import leafscore
from leafscore import explore, render

browser = test_explorer.browser  # the fixture: Chromium, or a skip (or a failure in CI)

SCHEMA = {"type": "object", "properties": {
    "name": {"type": "string"},
    "city": {"type": "string"},
    "lines": {"type": "array", "items": {"type": "object",
                                         "properties": {"desc": {"type": "string"}}}},
}}
HEBREW_NAME = "שלום עולם"
HEBREW_CITY = "תל אביב"
HEBREW_WRONG = "ירושלים"
LABELS = {
    "d1": {"name": HEBREW_NAME, "city": HEBREW_CITY, "lines": [{"desc": "bread"}]},
    "d2": {"name": "Acme", "city": "Lyon", "lines": [{"desc": "bolts"}]},
    "d3": {"name": "Blue", "city": "Oslo", "lines": [{"desc": "paint"}]},
    "d4": {"name": "Cote", "city": "Nice", "lines": [{"desc": "glass"}]},
}
#: ``good`` gets d1's city wrong (Hebrew on both sides) and adds an extra line item to d2;
#: ``broken`` has an unreadable d1, no d2, every value of d3 wrong (a real 0) and d4
#: right; ``sparse`` has d4 only (scored on 1 of 4 documents: ``(few)``).
RESULTS = {
    "good": {**LABELS, "d1": {**LABELS["d1"], "city": HEBREW_WRONG},
             "d2": {**LABELS["d2"], "lines": [{"desc": "bolts"}, {"desc": "surcharge"}]}},
    "broken": {"d1": b"{not json", "d2": None,
               "d3": {"name": "x", "city": "y", "lines": [{"desc": "z"}]}, "d4": LABELS["d4"]},
    "sparse": {"d4": LABELS["d4"]},
}
RUN_SYSTEMS = sorted(RESULTS)  # the run's order: the heat map's columns
SOURCES = [
    {"doc_id": "d1", "n": 1, "name": "Hebrew grocery receipt", "pages": 3, "lang": "he",
     "tags": ["receipt", "rtl"]},
    {"doc_id": "d2", "n": 2, "name": "Acme invoice", "pages": 1, "lang": "fr",
     "tags": ["invoice"]},
    {"doc_id": "d3", "n": 3, "title": "Blue order", "lang": "en", "tags": []},
]  # d4 has no record


@pytest.fixture(scope="module")
def notes_bench(tmp_path_factory) -> Path:
    root = make_benchmark(tmp_path_factory.mktemp("notes") / "bench", LABELS, RESULTS,
                          schema=SCHEMA, config='scoring_version = "2.0"\n')
    (root / "sources.json").write_text(json.dumps(SOURCES, ensure_ascii=False),
                                       encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def notes_eval(notes_bench):
    return leafscore.evaluate(notes_bench, cache=False)


@pytest.fixture(scope="module")
def notes_page(notes_bench, tmp_path_factory) -> Path:
    return _explore(notes_bench, tmp_path_factory.mktemp("notes-page") / "page.html",
                    "--no-cache")


def _drill(page: Page, document: str, system: str) -> None:
    page.page.select_option("#drill-doc", label=document)
    page.page.select_option("#drill-system", label=system)


def _heat_cell(page: Page, document: str, system: str):
    row = page.page.locator("#heat tbody tr", has=page.page.locator(
        "th", has_text=re.compile(f"^{document}$")))
    return row.locator(f"td[data-s='{RUN_SYSTEMS.index(system)}']")


def test_page_data_holds_the_command_lines_words(notes_eval):
    """Without a browser: the page's data holds the leaderboard's notes and each cell's
    reading notes as the command line has them, and one record per document."""
    data = explore.page_data(notes_eval)
    board = notes_eval.leaderboard()
    assert [line for line, _ in data["board_notes"]] == list(render.leaderboard_notes(board))
    assert [line for line, warning in data["board_notes"] if warning] == list(board.warnings)
    assert data["small_sample"] == board.warnings[0]
    assert data["missing_rule"] == "scored as an empty result"
    systems, documents = notes_eval.systems, notes_eval.documents
    assert data["cell_warnings"] == [
        [s, d, list(notes_eval.explain(doc, system).warnings)]
        for s, system in enumerate(systems) for d, doc in enumerate(documents)
        if notes_eval.explain(doc, system).warnings]
    assert [None if r is None else r["name"] for r in data["sources"]] == [
        "Hebrew grocery receipt", "Acme invoice", "Blue order", None]


# ------------------------------------------------------------------------------------
# Parse failures and missing results
# ------------------------------------------------------------------------------------


def test_parse_failures_and_missing_results_are_marked_not_zeros(browser, notes_page,
                                                                  notes_eval):
    statuses = {d: notes_eval.run.cells[("broken", d)].status for d in notes_eval.documents}
    assert statuses == {"d1": "parse_failure", "d2": "missing", "d3": "scored",
                        "d4": "scored"}
    assert notes_eval.document_scores("broken")["d3"] == 0.0  # a real zero
    page = Page(browser, notes_page)
    failure, missing, zero = (_heat_cell(page, d, "broken") for d in ("d1", "d2", "d3"))
    assert failure.inner_text() == "! 0"
    assert failure.get_attribute("data-status") == "parse failure"
    assert failure.get_attribute("aria-label") == (
        "d1 (Hebrew grocery receipt) × broken: 0.00% (parse failure)")
    assert missing.inner_text() == "∅ 0"
    assert missing.get_attribute("data-status") == "no result file"
    assert missing.get_attribute("aria-label") == (
        "d2 (Acme invoice) × broken: 0.00% (no result file)")
    assert zero.inner_text() == "0" and zero.get_attribute("data-status") is None
    assert zero.get_attribute("class") == "s0"
    # A pattern, not a colour step: the three cells do not share a background.
    backgrounds = [c.evaluate("n => getComputedStyle(n).backgroundImage + "
                              "getComputedStyle(n).backgroundColor")
                   for c in (failure, missing, zero)]
    assert len(set(backgrounds)) == 3
    assert page.text("#heat-status-legend").split("\n") == [
        "! parse failure: the result file could not be read",
        "∅ no result file: a missing result is scored as an empty result"]

    _drill(page, "d1", "broken")
    assert page.text("#drill-head") == "d1 × broken: 0.00% (parse failure)"
    assert page.text("#drill-status") == ("! Parse failure: the result could not be read, "
                                          "so every label leaf counts as a parse failure.")
    # The reason, in `leafscore explain`'s words.
    said = notes_eval.explain("d1", "broken").warnings
    assert said and page.text("#drill-warnings").split("\n") == list(said)
    assert "(parse failure)" in said[0]

    _drill(page, "d2", "broken")
    assert page.text("#drill-head") == "d2 × broken: 0.00% (no result file)"
    assert page.text("#drill-status") == (
        "∅ No result file: broken has no result for this document; under version 2.0 a "
        "missing result is scored as an empty result.")
    _drill(page, "d3", "broken")
    assert page.page.locator("#drill-status").count() == 0
    page.close()


def test_under_1_0_a_missing_result_is_marked_and_left_out(browser, notes_bench, tmp_path):
    evaluation = leafscore.evaluate(notes_bench, version="1.0", cache=False)
    assert evaluation.document_scores("broken")["d2"] is None  # left out of the mean
    page = Page(browser, _explore(notes_bench, tmp_path / "page.html", "--version", "1.0",
                                  "--no-cache"))
    missing = _heat_cell(page, "d2", "broken")
    assert missing.inner_text() == "∅ –"
    assert missing.get_attribute("aria-label") == (
        "d2 (Acme invoice) × broken: not scored (no result file)")
    failure = _heat_cell(page, "d1", "broken")
    assert failure.get_attribute("data-status") == "parse failure"
    assert failure.inner_text().startswith("! ")
    assert page.text("#heat-status-legend").split("\n")[1] == (
        "∅ no result file: a missing result is left out of the mean")
    _drill(page, "d1", "broken")
    assert page.text("#drill-status") == "! Parse failure: the result could not be read."
    assert "(parse failure)" in page.text("#drill-warnings")
    _drill(page, "d2", "broken")
    assert page.text("#drill-head") == "d2 × broken: not scored (no result file)"
    assert page.text("#drill-status") == (
        "∅ No result file: broken has no result for this document; under version 1.0 a "
        "missing result is left out of the mean.")
    page.close()


# ------------------------------------------------------------------------------------
# The leaderboard's notes
# ------------------------------------------------------------------------------------


def test_the_leaderboard_notes_are_the_command_lines(browser, notes_page, notes_eval):
    expected = list(render.leaderboard_notes(notes_eval.leaderboard()))
    page = Page(browser, notes_page)
    items = page.page.locator("#board-notes li")
    shown = [items.nth(i).inner_text() for i in range(items.count())]
    assert shown == expected
    # The correction, the no-decision reasons, (few) and the small sample, word for word.
    assert "Holm-adjusted for 2 comparisons with the leader" in shown[0]
    assert ("– broken: no decision: only 4 paired document(s), fewer than 6: no test on so "
            "few can reach 5%.") in shown
    assert ("(few): scored on fewer than half as many documents as the best-covered "
            "system; its score and rank rest on those documents only.") in shown
    small = ("warning: only 4 document(s), fewer than 10: bootstrap intervals are "
             "unreliable at this size (too narrow) and p-values coarse")
    assert shown[-1] == small
    assert page.page.locator("#board-notes li[data-warning='1']").inner_text() == small
    # The rows carry the command line's marks: (few) and the decision.
    sparse = page.page.locator("#board tbody tr[data-system='sparse'] td")
    assert sparse.nth(7).inner_text() == "– no decision"
    assert sparse.nth(8).inner_text() == "1 / 4 (few)"
    # A filter keeps the notes and says they are about every document.
    page.page.select_option("select[data-column='lang']", label="fr (1)")
    assert page.page.locator("#board-notes p").inner_text() == (
        "For all 4 documents (not the filter), as leafscore leaderboard says under its table:")
    assert page.page.locator("#board-notes li").count() == len(expected)
    # The A/B view gives `leafscore diff`'s small-sample line too.
    assert page.text("#ab-small") == small
    page.close()


# ------------------------------------------------------------------------------------
# Leaf counts in the Fields table
# ------------------------------------------------------------------------------------


def _field_counts(page: Page) -> dict[str, tuple[str, str]]:
    rows = page.page.locator("#field-table tbody tr")
    return {rows.nth(i).get_attribute("data-field"): (
        rows.nth(i).locator("td[data-count='label']").inner_text(),
        rows.nth(i).locator("td[data-count='result']").inner_text())
        for i in range(rows.count())}


def test_the_fields_table_gives_label_and_result_leaf_counts(browser, notes_page, notes_eval):
    page = Page(browser, notes_page)
    headers = page.page.locator("#field-table thead th")
    texts = [headers.nth(i).inner_text() for i in range(headers.count())]
    assert texts[-3:] == ["Label leaves", "Result leaves of good", "Errors of good"]
    for system in ("good", "broken"):
        page.page.select_option("#field-system", label=system)
        expected = {r.field: (str(r.counts.tp + r.counts.fn), str(r.counts.tp + r.counts.fp))
                    for r in notes_eval.fields(system)}
        assert _field_counts(page) == expected
    # good: 4 label leaves of lines[].desc, 5 in its results (one extra item)
    page.page.select_option("#field-system", label="good")
    assert _field_counts(page)["lines[].desc"] == ("4", "5")
    # broken: d1 unreadable, d2 missing: 2 of the 4 label names are in its results
    page.page.select_option("#field-system", label="broken")
    assert _field_counts(page)["name"] == ("4", "2")
    # Filtered, counted from the verdicts of the shown documents.
    page.page.select_option("select[data-column='lang']", label="fr (1)")
    page.page.select_option("#field-system", label="good")
    assert _field_counts(page)["lines[].desc"] == ("1", "2")
    page.close()


# ------------------------------------------------------------------------------------
# Names and metadata from sources.json
# ------------------------------------------------------------------------------------


def test_document_names_and_metadata_come_from_sources_json(browser, notes_page,
                                                            notes_eval):
    sources = explore.document_sources(notes_eval)
    assert sources[0] == {"name": "Hebrew grocery receipt", "fields": [
        ["n", "1"], ["name", "Hebrew grocery receipt"], ["pages", "3"], ["lang", "he"],
        ["tags", "receipt, rtl"]]}
    assert sources[2]["name"] == "Blue order" and sources[3] is None
    page = Page(browser, notes_page)
    heads = page.page.locator("#heat tbody th")
    titles = {heads.nth(i).inner_text(): heads.nth(i).get_attribute("title")
              for i in range(heads.count())}
    assert titles == {
        "d1": "d1 — Hebrew grocery receipt\nn: 1\nname: Hebrew grocery receipt\npages: 3\n"
              "lang: he\ntags: receipt, rtl",
        "d2": "d2 — Acme invoice\nn: 2\nname: Acme invoice\npages: 1\nlang: fr\n"
              "tags: invoice",
        "d3": "d3 — Blue order\nn: 3\ntitle: Blue order\nlang: en\ntags: ",
        "d4": "d4"}
    _drill(page, "d1", "good")
    assert page.text("#drill-source .doc-name") == "Hebrew grocery receipt"
    terms = page.page.locator("#drill-source dl > div")
    assert [terms.nth(i).inner_text().replace("\n", " ") for i in range(terms.count())] \
        == ["n: 1", "pages: 3", "lang: he", "tags: receipt, rtl"]
    _drill(page, "d4", "good")  # no record: nothing to show, nothing made up
    assert page.page.locator("#drill-source").count() == 0
    page.close()


def test_a_benchmark_without_sources_json_shows_ids_only(browser, tmp_path):
    root = make_benchmark(tmp_path / "bench", {"a": LABELS["d2"]}, {"s": {"a": LABELS["d2"]}},
                          schema=SCHEMA)
    page = Page(browser, _explore(root, tmp_path / "page.html", "--no-cache"))
    assert page.page.locator("#heat tbody th").get_attribute("title") == "a"
    assert page.page.locator("#drill-source").count() == 0
    page.close()


# ------------------------------------------------------------------------------------
# Text in its own direction
# ------------------------------------------------------------------------------------


def test_hebrew_values_keep_their_order_in_the_canonical_column(browser, notes_page,
                                                                 notes_eval):
    city = next(v for v in notes_eval.explain("d1", "good").verdicts if v.address == "city")
    assert city.kind == "wrong_value"
    canons = [json.dumps(x, ensure_ascii=False) for x in (city.label_canon, city.result_canon)]
    assert all(any("\u0590" <= c <= "\u05ff" for c in x) for x in canons)  # Hebrew both
    page = Page(browser, notes_page)
    _drill(page, "d1", "good")
    row = page.page.locator("#drill-body tr[data-kind='wrong_value']",
                            has_text="city").first
    cells = row.locator("td")
    assert cells.nth(1).inner_text() == json.dumps(HEBREW_CITY, ensure_ascii=False)
    assert cells.nth(2).inner_text() == json.dumps(HEBREW_WRONG, ensure_ascii=False)
    # Every user text of the row is isolated in a <bdi> (direction auto).
    for i in (0, 1, 2):
        assert cells.nth(i).locator("bdi").count() == 1
    canon = cells.nth(4)
    parts = canon.locator("bdi")
    assert parts.count() == 2
    label, result = parts.nth(0), parts.nth(1)
    assert [label.inner_text(), result.inner_text()] == canons
    assert canon.inner_text() == label.inner_text() + " → " + result.inner_text()
    # Drawn as read: the label on the left of the arrow, the result on its right (two
    # right-to-left values around a neutral arrow would otherwise swap places).
    left = [b.evaluate("n => n.getBoundingClientRect().left") for b in (label, result)]
    right = label.evaluate("n => n.getBoundingClientRect().right")
    assert right <= left[1] and left[0] < left[1]
    # Names too: the heat map's document ids, the system columns, the field paths, the
    # drill-down's head.
    for selector in ("#heat tbody th", "#heat thead th button", "#field-table tbody th",
                     "#board tbody th"):
        first = page.page.locator(selector).first
        assert first.locator("bdi").count() == 1, selector
    assert page.page.locator("#drill-head bdi").count() == 2
    page.close()


# ------------------------------------------------------------------------------------
# Extra items
# ------------------------------------------------------------------------------------


def test_extra_items_are_shown_as_extra_with_their_value(browser, notes_page, notes_eval):
    extra = [v for v in notes_eval.explain("d2", "good").verdicts if v.kind == "extra_item"]
    assert [(v.address, v.result) for v in extra] == [("lines[r1].desc", "surcharge")]
    page = Page(browser, notes_page)
    _drill(page, "d2", "good")
    row = page.page.locator("#drill-body tr[data-kind='extra_item']")
    assert row.count() == 1
    assert [c.inner_text() for c in row.locator("td").all()] == [
        "lines[r1].desc", "– (extra item)", '"surcharge"', "+ extra_item",
        "extra item: no label item to compare"]
    assert "null → null" not in page.text("#drill-body")
    page.close()
