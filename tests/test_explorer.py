"""The results explorer (issue 11): page data, the CLI, and the page in headless Chromium.

Browser tests drive Debian's ``/usr/bin/chromium`` through Playwright (its own browser
download is unreachable); they skip when either is absent, and ``.ci/run`` installs both.
Screenshots go to ``tests/artifacts/`` (git-ignored); ``LEAFSCORE_EXPLORER_PNG=1`` also
rewrites ``docs/explorer.png``, the README's picture.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tomllib
from pathlib import Path

import pytest
from cli_helpers import invoke, private_cache  # noqa: F401 (fixture)
from cli_helpers import make_benchmark as make_envelope_benchmark
from explorer_bench import make_benchmark

import leafscore
from leafscore import explore, render

REPO = Path(__file__).resolve().parent.parent
ARTIFACTS = REPO / "tests" / "artifacts"
CHROMIUM = "/usr/bin/chromium"
HOSTILE = "</script><script>alert(1)</script>"


# ------------------------------------------------------------------------------------
# Page data and HTML, no browser
# ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sample():
    """The repository's sample benchmark, scored once (verdicts kept)."""
    return leafscore.evaluate(REPO, cache=False)


def test_page_data_carries_summary_numbers_unchanged(sample):
    data = explore.page_data(sample)
    summary = sample.summary()
    assert data["signature"] == summary["signature"]
    for key in ("aggregates", "intervals", "coverage", "fields", "breakdowns"):
        assert data["summary"][key] == summary[key]
    assert data["scores"] == [sample.run.document_scores(s) for s in sample.systems]
    # Every verdict is kept: the flat lists hold seven integers per verdict.
    kept = sum(len(flat) for row in data["verdicts"] for flat in row)
    assert kept == 7 * sum(1 for _ in sample.verdicts())


def test_pair_differences_equal_evaluation_diff_for_every_ordered_pair(sample):
    pairs = explore.pair_differences(sample.run)
    systems = sample.systems
    assert len(pairs) == len(systems) * (len(systems) - 1)
    for base, head, estimate, low, high, p_value in pairs:
        change = sample.diff(systems[base], systems[head]).change
        assert (estimate, low, high, p_value) == (change.estimate, change.low, change.high,
                                                   change.p_value)


def test_embedded_json_cannot_close_the_script_and_parses_back():
    value = {"label": HOSTILE + "<!-- -->", "line": "a\u2028b"}
    text = explore.embed_json(value)
    assert "</" not in text and "<!--" not in text
    assert json.loads(text) == value


def test_page_needs_no_network_and_carries_the_signature(sample):
    page = explore.render_page(explore.page_data(sample))
    assert page.startswith("<!doctype html>")
    # The SVG namespace of the cost scatters is a name (createElementNS), never fetched.
    named = page.replace('const SVG_NS = "http://www.w3.org/2000/svg";', "")
    assert re.search(r"<(link|img|iframe)\b|\bsrc=|@import|url\(|https?://", named) is None
    assert "default-src 'none'" in page  # a Content-Security-Policy forbids any fetch
    assert sample.summary()["signature"] in page


def test_template_script_and_style_are_package_data():
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["leafscore"]
    shipped = {p.name for p in (REPO / "leafscore" / "explorer").iterdir()}
    assert shipped == {"page.html", "explorer.js", "explorer.css"}
    assert all(any(Path("explorer", name).match(p) for p in patterns) for name in shipped)
    assert "jinja2>=3.1" in config["project"]["dependencies"]


def test_report_html_writes_the_page_beside_the_summary(tmp_path):
    result = invoke("report", REPO, "--out", tmp_path, "--html", tmp_path / "explorer.html")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.split() == [str(tmp_path / n) for n in
                                     ("summary.json", "summary.csv", "explorer.html")]
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["signature"] in (tmp_path / "explorer.html").read_text()


def test_explore_reads_jsonl_too(tmp_path):
    jsonl = REPO / "examples" / "jsonl"
    out = tmp_path / "page.html"
    result = invoke("explore", "--gold", jsonl / "gold.jsonl", "--schema",
                    jsonl / "schema.json", "--pred", f"atlas={jsonl / 'atlas.jsonl'}",
                    "--pred", f"drift={jsonl / 'drift.jsonl'}", "--out", out)
    assert result.exit_code == 0, result.stderr
    assert '"systems":["atlas","drift"]' in out.read_text()


def test_explore_refuses_to_write_into_the_inputs(tmp_path):
    root = shutil.copytree(REPO / "results", tmp_path / "copy" / "results").parent
    shutil.copytree(REPO / "labels", root / "labels")
    shutil.copytree(REPO / "schemas", root / "schemas")
    result = invoke("explore", root, "--out", root / "labels" / "page.html")
    assert result.exit_code == 2
    assert not (root / "labels" / "page.html").exists()


# ------------------------------------------------------------------------------------
# The page in a browser
# ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser():
    # CI sets LEAFSCORE_REQUIRE_BROWSER=1: there a missing browser fails, never skips.
    required = os.environ.get("LEAFSCORE_REQUIRE_BROWSER") == "1"
    try:
        from playwright import sync_api
    except ImportError:
        if required:
            pytest.fail("playwright is not installed and LEAFSCORE_REQUIRE_BROWSER=1")
        pytest.skip("playwright is not installed (pip install playwright)")
    if not Path(CHROMIUM).exists():
        if required:
            pytest.fail(f"{CHROMIUM} is absent and LEAFSCORE_REQUIRE_BROWSER=1")
        pytest.skip(f"{CHROMIUM} is absent (apt-get install chromium)")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM,
                                              args=["--no-sandbox"])
        yield launched
        launched.close()


class Page:
    """A page opened from ``file://`` with its console errors, page errors and dialogs."""

    def __init__(self, browser, path: Path, width: int = 1280):
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.page = browser.new_page(viewport={"width": width, "height": 900})
        self.page.on("console", lambda m: self.errors.append(m.text)
                     if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", self._dialog)
        self.page.goto(path.resolve().as_uri())
        self.page.wait_for_function("window.__rendered === true", timeout=20_000)

    def _dialog(self, dialog) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def text(self, selector: str) -> str:
        return self.page.locator(selector).inner_text()

    def board(self) -> list[tuple[str, str, str]]:
        """(system, score, interval) of each leaderboard row, top to bottom."""
        rows = self.page.locator("#board tbody tr")
        return [(rows.nth(i).get_attribute("data-system"),
                 rows.nth(i).locator("td.score").inner_text(),
                 rows.nth(i).locator("td").nth(2).inner_text())
                for i in range(rows.count())]

    def close(self) -> None:
        assert self.errors == [], self.errors
        assert self.dialogs == [], self.dialogs
        self.page.close()


def _explore(root: Path, out: Path, *args: str) -> Path:
    result = invoke("explore", root, "--out", out, *args)
    assert result.exit_code == 0, result.stderr
    return out


@pytest.fixture(scope="module")
def sample_page(tmp_path_factory):
    out = tmp_path_factory.mktemp("explorer") / "sample.html"
    return _explore(REPO, out, "--no-cache")


def _expected_board(summary) -> list[tuple[str, str, str]]:
    order = sorted(summary["intervals"], key=lambda s: summary["intervals"][s]["rank"])
    return [(s, render.percent(summary["aggregates"][s]),
             render.bracket(summary["intervals"][s]["low"], summary["intervals"][s]["high"],
                            render.percent)) for s in order]


def test_leaderboard_order_values_and_signature_equal_summary(browser, sample_page, sample):
    summary = sample.summary()
    page = Page(browser, sample_page)
    assert page.board() == _expected_board(summary)
    assert page.text("#signature") == summary["signature"]
    ties = [s for s, iv in summary["intervals"].items() if iv["tie_with_leader"]]
    shown = page.page.locator("#board tbody tr", has_text="≈ tie")
    assert sorted(shown.nth(i).get_attribute("data-system") for i in range(shown.count())) \
        == sorted(ties)
    page.close()


def test_filter_updates_count_and_scores_equal_the_breakdown(browser, sample_page, sample):
    summary = sample.summary()
    group = summary["breakdowns"]["ftype"][0]
    page = Page(browser, sample_page)
    column = page.page.locator("select[data-column='ftype']")
    column.select_option(label=f"{group['value']} ({group['doc_count']})")
    total = len(sample.documents)
    assert page.text("#doc-count") == f"Showing {group['doc_count']} of {total} documents."
    scores = {system: score for system, score, _ in page.board()}
    assert scores == {s: render.percent(group[s]) for s in sample.systems}
    assert page.page.locator("#heat tbody tr").count() == group["doc_count"]
    page.page.locator("#clear-filters").click()
    assert page.board() == _expected_board(summary)
    page.close()


def test_drill_down_shows_a_wrong_value_leaf_with_its_text(browser, sample_page, sample):
    wrong = next(r for r in sample.verdicts() if r.kind == "wrong_value")
    page = Page(browser, sample_page)
    page.page.select_option("#drill-doc", label=wrong.document)
    page.page.select_option("#drill-system", label=wrong.system)
    row = page.page.locator("#drill-body tr[data-kind='wrong_value']",
                            has_text=wrong.address).first
    assert row.is_visible()
    cells = row.locator("td")
    assert cells.nth(3).inner_text() == "✗ wrong_value"  # text, not colour alone
    assert cells.nth(1).inner_text() == wrong.label
    assert cells.nth(2).inner_text() == wrong.result
    page.page.check("#drill-errors")  # errors only: every correct leaf is hidden
    kinds = page.page.locator("#drill-body tr[data-kind]")
    shown = {kinds.nth(i).get_attribute("data-kind") for i in range(kinds.count())}
    assert "wrong_value" in shown and not shown & {"correct", "correct_absence"}
    page.close()


def test_ab_view_shows_the_paired_interval_and_flipped_documents(browser, sample_page, sample):
    base, head = "cobalt", "beacon"
    change = sample.diff(base, head)
    page = Page(browser, sample_page)
    page.page.select_option("#ab-base", label=base)
    page.page.select_option("#ab-head", label=head)
    line = page.text("#ab-line")
    assert f"{render.signed(change.change.estimate)} points" in line
    assert f"[{render.signed(change.change.low)}, {render.signed(change.change.high)}]" in line
    flipped = page.page.locator("#ab-flips tbody tr")
    assert flipped.count() == len(change.flipped)
    assert [flipped.nth(i).locator("button").inner_text() for i in range(flipped.count())] \
        == [f.document for f in change.flipped]
    page.close()


def test_keyboard_moves_through_the_heat_map_and_opens_the_drill_down(browser, sample_page,
                                                                        sample):
    page = Page(browser, sample_page)
    first = page.page.locator("#heat td[data-s='0']").first
    first.focus()
    page.page.keyboard.press("ArrowRight")
    page.page.keyboard.press("ArrowDown")
    focused = page.page.evaluate("[document.activeElement.dataset.s, "
                                 "document.activeElement.getAttribute('aria-label')]")
    assert focused[0] == "1" and sample.systems[1] in focused[1]
    assert page.text("#heat-focus") == focused[1]  # the value is read out on focus
    page.page.keyboard.press("Enter")
    assert page.page.input_value("#drill-system") == "1"
    assert page.page.evaluate("document.activeElement.id") == "drill-doc"
    page.close()


def test_heat_map_sorts_by_a_system_worst_first_then_best_first(browser, sample_page, sample):
    system = sample.systems[-1]
    scores = sample.document_scores(system)
    page = Page(browser, sample_page)
    button = page.page.get_by_role("button", name=f"Sort by score of {system}")
    button.click()
    rows = page.page.locator("#heat tbody th")
    shown = [rows.nth(i).inner_text() for i in range(rows.count())]
    assert shown == sorted(scores, key=lambda d: (scores[d], d))
    page.page.get_by_role("button", name=f"Sort by score of {system}").click()
    assert page.page.locator("#heat tbody th").first.inner_text() \
        == max(scores, key=lambda d: (scores[d], d))
    page.close()


def test_screenshots_at_desktop_and_phone_width(browser, sample_page):
    ARTIFACTS.mkdir(exist_ok=True)
    for width in (1280, 390):
        page = Page(browser, sample_page, width=width)
        # Nothing may be wider than the phone's screen: wide tables scroll in their box.
        overflow = page.page.evaluate("document.documentElement.scrollWidth")
        assert overflow <= width
        page.page.screenshot(path=str(ARTIFACTS / f"explorer-{width}.png"), full_page=True)
        if width == 1280 and os.environ.get("LEAFSCORE_EXPLORER_PNG") == "1":
            page.page.screenshot(path=str(REPO / "docs" / "explorer.png"))
        page.close()
    assert (REPO / "docs" / "explorer.png").stat().st_size < 300_000


def test_hostile_text_is_shown_as_text_and_never_runs(browser, tmp_path):
    root = make_benchmark(tmp_path / "bench", documents=6, systems=2, hostile=HOSTILE)
    out = _explore(root, tmp_path / "page.html", "--no-cache")
    page = Page(browser, out)
    page.page.select_option("#drill-doc", label="doc-0000")
    cell = page.page.locator("#drill-body td", has_text=HOSTILE).first
    assert cell.is_visible()
    assert cell.inner_text() == json.dumps(HOSTILE)
    assert page.page.locator("select[data-column='tags'] option", has_text=HOSTILE).count() == 1
    assert page.page.locator("body script").count() == 2  # the data and the page's own
    page.close()  # asserts that no dialog fired and nothing was logged as an error


def test_thousand_documents_by_ten_systems_render_every_cell(browser, tmp_path):
    root = make_benchmark(tmp_path / "bench", documents=1000, systems=10)
    out = _explore(root, tmp_path / "page.html", "--no-cache", "--workers", "2")
    size = out.stat().st_size
    assert size < 25_000_000
    page = Page(browser, out)
    elapsed = page.page.evaluate("window.__renderMs")  # ms since navigation start
    print(f"1000 x 10: {size:,} bytes, rendered in {elapsed:.0f} ms")  # timed, not asserted
    assert page.page.locator("#heat tbody td[data-s]").count() == 10_000
    page.close()


def test_docubench_explorer_under_1_0_and_2_0(browser, shared, tmp_path):
    published = json.loads((shared / "docubench/results/summary.json").read_text())
    assert round(100 * published["aggregates"]["docupipe_high"], 2) == 97.24
    for version in ("1.0", "2.0"):
        out = _explore(shared / "docubench", tmp_path / f"docubench-{version}.html",
                       "--version", version, "--no-cache")
        size = out.stat().st_size
        print(f"DocuBench {version}: {size:,} bytes")
        assert size < 2_000_000
        page = Page(browser, out)
        summary = leafscore.evaluate(shared / "docubench", version=version,
                                     cache=False).summary()
        assert page.board() == _expected_board(summary)
        if version == "1.0":
            assert dict((s, v) for s, v, _ in page.board())["docupipe_high"] == "97.24"
            assert "keeps no per-leaf verdicts" in page.text("#no-verdicts")
        else:
            assert page.page.locator("#drill-body tr[data-kind]").count() > 0
        page.close()


# ------------------------------------------------------------------------------------
# Names that are members of JavaScript objects (issue 22): systems, document ids, schema
# fields and open-map result keys named ``__proto__``, ``constructor``, ``toString`` and
# ``valueOf``. Every view renders them as names, and the page never changes a built-in
# (it keeps names in Maps and null-prototype objects).
# ------------------------------------------------------------------------------------

MEMBER_NAMES = ["__proto__", "constructor", "toString", "valueOf"]
MEMBER_SCHEMA = {"type": "object", "properties": {
    **{name: {"type": "string"} for name in MEMBER_NAMES},
    "extra": {"type": "object", "additionalProperties": {"type": "string"}},  # an open map
}}


def _member_names_benchmark(root: Path) -> Path:
    """Systems and documents named :data:`MEMBER_NAMES`; system ``MEMBER_NAMES[i]`` gets
    the fields ``MEMBER_NAMES[:i + 1]`` right and the rest wrong, and the open-map key
    ``MEMBER_NAMES[i]`` wrong: system scores 4/8, 5/8, 6/8, 7/8 on every document."""
    names = MEMBER_NAMES
    labels = {doc: {**{n: f"{n} of {doc}" for n in names}, "extra": dict.fromkeys(names, "x")}
              for doc in names}
    results = {system: {doc: {**{n: f"{n} of {doc}" if k <= i else "wrong"
                                 for k, n in enumerate(names)},
                              "extra": {n: "y" if k == i else "x" for k, n in enumerate(names)}}
                        for doc in names}
               for i, system in enumerate(names)}
    return make_envelope_benchmark(root, labels, results, schema=MEMBER_SCHEMA,
                          config='scoring_version = "2.1"\n')


@pytest.fixture(scope="module")
def member_page(tmp_path_factory):
    folder = tmp_path_factory.mktemp("member-names")
    root = _member_names_benchmark(folder / "bench")
    return _explore(root, folder / "page.html", "--no-cache")


def _rows(page: Page, selector: str) -> list[list[str]]:
    """The text of every cell (th and td) of each row of ``selector``."""
    rows = page.page.locator(selector)
    return [[cell.inner_text() for cell in rows.nth(i).locator("th, td").all()]
            for i in range(rows.count())]


def _filter_every_document(page: Page) -> None:
    """Select the one ``length`` bucket: a filtered view, counted from the verdicts in the
    browser (where names were once keys of plain objects)."""
    page.page.select_option("select[data-column='length']", index=1)
    assert page.text("#board-note").startswith("Filtered: scores are re-averaged over the 4 "
                                               "shown documents")


def test_the_leaderboard_lists_systems_named_like_object_members(browser, member_page):
    page = Page(browser, member_page)
    assert page.board() == [("valueOf", "87.50", "[87.50, 87.50]"),
                            ("toString", "75.00", "[75.00, 75.00]"),
                            ("constructor", "62.50", "[62.50, 62.50]"),
                            ("__proto__", "50.00", "[50.00, 50.00]")]
    page.close()  # asserts that nothing was logged as an error


def test_the_heat_map_shows_documents_named_like_object_members(browser, member_page):
    page = Page(browser, member_page)
    assert _rows(page, "#heat tbody tr") == [
        [doc, "50", "63", "75", "88", "69"] for doc in MEMBER_NAMES]
    page.close()


#: The Fields view for system ``toString``, worst first: its two wrong fields (F1 0, one
#: error each, by name), then the rest by name; a column per system in run order.
MEMBER_TOSTRING_FIELDS = [
    ["extra.toString", "100.00", "100.00", "0.00", "100.00"],
    ["valueOf", "0.00", "0.00", "0.00", "100.00"],
    ["__proto__", "100.00", "100.00", "100.00", "100.00"],
    ["constructor", "0.00", "100.00", "100.00", "100.00"],
    ["extra.__proto__", "0.00", "100.00", "100.00", "100.00"],
    ["extra.constructor", "100.00", "0.00", "100.00", "100.00"],
    ["extra.valueOf", "100.00", "100.00", "100.00", "0.00"],
    ["toString", "0.00", "0.00", "100.00", "100.00"],
]


def _fields_of_tostring(page: Page) -> list[list[str]]:
    page.page.select_option("#field-system", label="toString")
    return [row[:5] for row in _rows(page, "#field-table tbody tr")]


def test_fields_named_like_object_members_have_their_rows_unfiltered(browser, member_page):
    page = Page(browser, member_page)
    assert _fields_of_tostring(page) == MEMBER_TOSTRING_FIELDS
    page.close()


def test_fields_named_like_object_members_are_counted_in_a_filtered_view(browser,
                                                                          member_page):
    page = Page(browser, member_page)
    _filter_every_document(page)
    assert _fields_of_tostring(page) == MEMBER_TOSTRING_FIELDS
    page.close()


def test_the_drill_down_shows_the_leaves_of_fields_named_like_object_members(browser,
                                                                             member_page):
    page = Page(browser, member_page)
    page.page.select_option("#drill-doc", label="constructor")
    page.page.select_option("#drill-system", label="toString")
    assert page.text("#drill-head") == "constructor × toString: 75.00% (scored)"
    leaves = [row[:4] for row in _rows(page, "#drill-body table.verdicts tbody tr")]
    assert [(leaf, kind) for leaf, _, _, kind in leaves] == [
        ("__proto__", "✓ correct"), ("constructor", "✓ correct"),
        ("toString", "✓ correct"), ("valueOf", "✗ wrong_value"),
        ("extra.__proto__", "✓ correct"), ("extra.constructor", "✓ correct"),
        ("extra.toString", "✗ wrong_value"), ("extra.valueOf", "✓ correct")]
    assert leaves[0][1:3] == ['"__proto__ of constructor"', '"__proto__ of constructor"']
    page.close()


def test_the_ab_view_compares_systems_named_like_object_members(browser, member_page):
    page = Page(browser, member_page)
    page.page.select_option("#ab-base", label="__proto__")
    page.page.select_option("#ab-head", label="constructor")
    # 4 documents, each +12.50: the exact sign-flip p is 2 / 2**4, and 4 < 6 documents
    # can support no decision (issue 23).
    assert page.text("#ab-line") == (
        "constructor − __proto__: +12.50 points (95% paired interval [+12.50, +12.50], "
        "p = 0.13, all 4 documents) — no decision: fewer than 6 documents")
    assert page.page.locator("#ab-flips tbody tr").count() == 4
    page.close()


def test_no_view_changes_object_prototype(browser, member_page):
    page = Page(browser, member_page)
    before = page.page.evaluate("() => Object.getOwnPropertyNames(Object.prototype).sort()")
    _filter_every_document(page)  # every view rendered again, from the verdicts
    page.page.select_option("#field-system", label="__proto__")
    page.page.select_option("#drill-doc", label="__proto__")
    page.page.select_option("#drill-system", label="__proto__")
    page.page.select_option("#ab-base", label="__proto__")
    after = page.page.evaluate("() => Object.getOwnPropertyNames(Object.prototype).sort()")
    blank = browser.new_page()
    fresh = blank.evaluate("() => Object.getOwnPropertyNames(Object.prototype).sort()")
    blank.close()
    assert before == after == fresh
    assert page.page.evaluate("() => Object.getPrototypeOf({}) === Object.prototype "
                              "&& ({}).tp === undefined && ({}).errors === undefined") is True
    page.close()


# ------------------------------------------------------------------------------------
# Growth with the number of systems (issue 22): counts and bytes, never wall time (that is
# benchmarks/bench_explore.py's)
# ------------------------------------------------------------------------------------


def test_the_pairs_are_every_ordered_pair_up_to_the_limit():
    order = list(range(explore.ALL_PAIRS_UP_TO))[::-1]
    assert len(explore.pair_scope(order)) == 30 * 29


def test_above_the_limit_the_pairs_are_the_leaders_and_adjacent_ranks_both_ways(monkeypatch):
    monkeypatch.setattr(explore, "ALL_PAIRS_UP_TO", 3)
    # leaderboard: 3 (the leader), 1, 0, 2, 4
    assert explore.pair_scope([3, 1, 0, 2, 4]) == [
        (0, 1), (0, 2), (0, 3), (1, 0), (1, 3), (2, 0), (2, 3), (2, 4),
        (3, 0), (3, 1), (3, 2), (3, 4), (4, 2), (4, 3)]


def _page_of(tmp_path: Path, systems: int) -> tuple[int, dict]:
    """(bytes, embedded data) of the page of ``systems`` one-document systems."""
    root = make_benchmark(tmp_path / f"bench-{systems}", documents=1, systems=systems)
    page = _explore(root, tmp_path / f"page-{systems}.html", "--no-cache")
    text = page.read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="data">(.*?)</script>', text,
                      re.DOTALL)
    return len(text.encode()), json.loads(found[1])


def test_600_one_document_systems_make_a_page_under_3_mb_of_4_pairs_per_system(tmp_path):
    size, data = _page_of(tmp_path, 600)
    assert size < 3_000_000
    assert len(data["systems"]) == 600 and data["all_pairs"] is False
    # leader with each of 599 others and 599 adjacent ranks (one shared), both ways
    assert len(data["pairs"]) == 2 * (599 + 598)


def test_the_page_grows_linearly_with_the_systems(tmp_path):
    small, _ = _page_of(tmp_path, 100)
    large, _ = _page_of(tmp_path, 400)
    # 4 x the systems: at most 4 x the bytes beyond the page's fixed part (script, style)
    fixed, _ = _page_of(tmp_path, 1)
    assert large - fixed <= 4.2 * (small - fixed)


# ------------------------------------------------------------------------------------
# Cost and latency (issue 25): score against cost and against latency, the frontier
# drawn, each point a link to its system's fields.
# ------------------------------------------------------------------------------------


def _points(page: Page, kind: str) -> dict[str, str]:
    """system -> "yes"/"no" (on the frontier) of each point of one scatter."""
    links = page.page.locator(f"#scatter-{kind} a.point-link")
    return {links.nth(i).get_attribute("data-system"): links.nth(i).get_attribute(
        "data-frontier") for i in range(links.count())}


def test_cost_scatters_place_every_system_with_a_value_and_mark_the_summary_frontier(
        browser, sample_page, sample):
    costs = sample.summary()["costs"]
    page = Page(browser, sample_page)
    for kind, member in (("cost", "cost_frontier"), ("latency", "latency_frontier")):
        assert _points(page, kind) == {s: "yes" if c[member] else "no"
                                       for s, c in costs.items()}
        assert page.page.locator(f"#scatter-{kind} polyline.frontier").count() == 1
    assert page.page.locator("header nav a[href='#costs']").count() == 1
    page.close()


def test_a_scatter_point_opens_its_system_fields(browser, sample_page, sample):
    page = Page(browser, sample_page)
    page.page.locator("#scatter-cost a.point-link[data-system='cobalt'] circle").click()
    assert page.page.evaluate("location.hash") == "#fields"
    assert page.page.locator("#field-system").input_value() == str(
        sample.systems.index("cobalt"))
    page.close()


def test_docubench_scatters_place_three_costs_and_six_latencies(browser, shared, tmp_path):
    out = _explore(shared / "docubench", tmp_path / "docubench.html", "--no-cache")
    page = Page(browser, out)
    assert _points(page, "cost") == {"docupipe_high": "yes", "docupipe_standard": "yes",
                                     "extend": "no"}
    assert sorted(_points(page, "latency")) == ["claude", "docupipe_high",
                                                "docupipe_standard", "extend", "gemini",
                                                "gpt"]
    assert "Not placed (no value): claude, gemini, gpt." in page.text("#scatter-cost")
    page.close()


def test_a_benchmark_without_costs_has_no_cost_view(browser, tmp_path):
    root = make_envelope_benchmark(tmp_path / "b", {"a": {"a": "x"}, "b": {"a": "y"}},
                                   {"s": {"a": {"a": "x"}, "b": {"a": "z"}}})
    out = _explore(root, tmp_path / "page.html", "--no-cache")
    assert '"costs":' not in out.read_text()  # not in the embedded data
    page = Page(browser, out)
    assert page.page.locator("#costs").count() == 0
    page.close()
