"""The results explorer: one self-contained HTML page of an ``Evaluation``.

``page_data(evaluation)`` gathers everything the page shows into a JSON-able dict;
``render_page(data)`` turns it into one HTML file that needs no network when viewed
(template, CSS and script are inlined from ``leafscore/explorer/``; the data is embedded
as JSON). The page computes nothing that summary.json already holds: with no filter it
shows the summary's own numbers (aggregates, intervals, ties, coverage, per-field
counts), and only a filtered view re-averages document scores in the browser.

Compaction (DocuBench with every verdict must stay under 2 MB): every text the verdicts
hold (addresses, field paths, raw and canonical values as JSON text) goes once into a
shared string table, and each (system, document) keeps a flat list of integers, seven
per verdict (see :data:`VERDICT_LAYOUT`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

import scorer
from leafscore import leaderboard as leaderboard_mod
from leafscore import render, stats
from leafscore.benchmark import metadata_records

#: Order of the integers kept per verdict: string-table indices, except ``kind`` (an
#: index into ``data["kinds"]``).
VERDICT_LAYOUT: tuple[str, ...] = (
    "address", "field", "kind", "label", "result", "label_canon", "result_canon")
#: One letter per document status in ``data["status"]`` strings.
STATUS_CODES: Mapping[str, str] = {"scored": "s", "parse_failure": "p", "missing": "m"}
#: Name of the filter column derived from each label's size when the metadata has none.
LENGTH_COLUMN = "length"
#: Format of ``page_data``'s dict; the page's script checks it.
DATA_FORMAT = 1

_ASSETS = ("page.html", "explorer.css", "explorer.js")
#: Keys of a metadata record (``sources.json``) read as the document's name; first wins.
NAME_KEYS: tuple[str, ...] = ("name", "title")
#: Longest text of one metadata value the page keeps; a longer one is cut, with ``…``.
SOURCE_TEXT_MAX = 300


def _jsonable(value: Any) -> Any:
    """``value`` with non-finite floats as ``None`` (JSON has no NaN)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _text(value: Any) -> str:
    """A leaf value as compact JSON text (so ``"12"`` and ``12`` stay distinct)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def leaf_count(value: Any) -> int:
    """Scalar leaves of a JSON value (``null`` counts: a label may state an absence).

    >>> leaf_count({"a": 1, "b": [{"c": "x"}, {"c": None}], "d": {}})
    3
    """
    if isinstance(value, dict):
        return sum(leaf_count(v) for v in value.values())
    if isinstance(value, list):
        return sum(leaf_count(v) for v in value)
    return 1


def length_buckets(counts: Sequence[int]) -> list[str]:
    """Each document's size as one of three labels split at the terciles of ``counts``.

    ``counts`` are label leaf counts in document order; the result has one label per
    count, e.g. ``"short (≤ 12 leaves)"``. Fewer distinct sizes give fewer buckets.

    >>> length_buckets([1, 2, 3, 10, 20, 30])
    ['short (≤ 2 leaves)', 'short (≤ 2 leaves)', 'medium (3–10 leaves)', 'medium (3–10 leaves)', 'long (≥ 20 leaves)', 'long (≥ 20 leaves)']
    """  # noqa: E501
    ordered = sorted(counts)
    if not ordered:
        return []
    low = ordered[(len(ordered) - 1) // 3]
    high = ordered[(2 * (len(ordered) - 1)) // 3]
    above_low = [c for c in ordered if c > low]
    above_high = [c for c in ordered if c > high]
    out = []
    for count in counts:
        if count <= low:
            out.append(f"short (≤ {low} leaves)")
        elif count <= high:
            out.append(f"medium ({above_low[0]}–{high} leaves)")
        else:
            out.append(f"long (≥ {above_high[0]} leaves)")
    return out


def _columns(evaluation: Any) -> list[dict[str, Any]]:
    """Filter columns: every metadata column of the run, then the derived ``length``.

    Each is ``{"name", "values": [text...], "docs": [[value index...] per document]}``; a
    list-valued column (tags) gives a document several indices, a missing or null value
    none. Values are ordered as leafscore's breakdowns order them.
    """
    run = evaluation.run
    out = []
    names = list(leaderboard_mod.metadata_columns(run.metadata))
    for name in names:
        groups = leaderboard_mod.breakdown(run, name, ()).groups
        index = {g.value: i for i, g in enumerate(groups)}
        docs = []
        for doc in run.documents:
            values = run.metadata.get(doc, {}).get(name)
            values = values if isinstance(values, list) else [values]
            docs.append(sorted({index[leaderboard_mod._text(v)] for v in values
                                if v is not None}))
        out.append({"name": name, "values": [g.value for g in groups], "docs": docs})
    if LENGTH_COLUMN not in names:
        labels = {d.id: d.label for d in evaluation.benchmark.documents}
        buckets = length_buckets([leaf_count(labels[d]) for d in run.documents])
        order = sorted(set(buckets), key=lambda b: ("short", "medium", "long").index(
            b.split(" ", 1)[0]))
        index = {b: i for i, b in enumerate(order)}
        out.append({"name": LENGTH_COLUMN, "values": order,
                    "docs": [[index[b]] for b in buckets]})
    return out


class _Strings:
    """A string table: each distinct text once, referred to by index."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        found = self.index.get(text)
        if found is None:
            found = self.index[text] = len(self.index)
        return found

    @property
    def table(self) -> list[str]:
        return list(self.index)


def _verdicts(run: Any) -> tuple[list[str], list[list[list[int]]]] | None:
    """Every verdict of ``run`` compacted: (string table, ``[system][document]`` flat int
    lists of :data:`VERDICT_LAYOUT`), verdicts in reading order (``explain``). ``None``
    when the version keeps no verdicts (1.0)."""
    if not run.record.has_verdicts:
        return None
    from leafscore.explain import reading_order

    strings = _Strings()
    kinds = {kind: i for i, kind in enumerate(scorer.VERDICT_KINDS)}
    out = []
    for system in run.systems:
        row = []
        for doc in run.documents:
            flat: list[int] = []
            for v in reading_order(run.cells[(system, doc)].score.verdicts):
                flat += (strings(v.address), strings(v.field), kinds[v.kind],
                         strings(_text(v.label)), strings(_text(v.result)),
                         strings(_text(v.label_canon)), strings(_text(v.result_canon)))
            row.append(flat)
        out.append(row)
    return strings.table, out


def _source_text(value: Any) -> str:
    """One metadata value as the page shows it: text as it is, a list of texts and
    numbers joined by ``, ``, anything else as compact JSON; cut at
    :data:`SOURCE_TEXT_MAX` characters.

    >>> _source_text(["usd", 2, None])
    'usd, 2, null'
    """
    if isinstance(value, str):
        text = value
    elif isinstance(value, list) and all(not isinstance(v, dict | list) for v in value):
        text = ", ".join(v if isinstance(v, str) else _text(v) for v in value)
    else:
        text = _text(value)
    return text if len(text) <= SOURCE_TEXT_MAX else text[:SOURCE_TEXT_MAX - 1] + "…"


def document_sources(evaluation: Any) -> list[dict[str, Any] | None]:
    """Each document's record in the benchmark's metadata file (``sources.json`` or
    ``metadata.json``, as the breakdowns read it), in run order: ``{"name": text or
    None, "fields": [[key, text], ...]}`` with every key but ``doc_id`` in the record's
    order (``_source_text``), the name the first of :data:`NAME_KEYS` that is text;
    ``None`` for a document without a record, and for every document of a benchmark
    without a metadata file (JSONL)."""
    bench = evaluation.benchmark
    if bench.root is None:
        return [None] * len(evaluation.run.documents)
    _, records = metadata_records(bench.root, bench.config)
    out: list[dict[str, Any] | None] = []
    for doc in evaluation.run.documents:
        record = records.get(doc)
        if record is None:
            out.append(None)
            continue
        name = next((record[k] for k in NAME_KEYS if isinstance(record.get(k), str)), None)
        out.append({"name": name, "fields": [[str(k), _source_text(v)]
                                             for k, v in record.items() if k != "doc_id"]})
    return out


def cell_warnings(run: Any) -> list[list[Any]]:
    """What reading each result said (``leafscore explain``'s notes: why a result is a
    parse failure, a byte-order mark...): ``[system index, document index, [lines]]``
    for each cell with a line, others left out."""
    out = []
    for s, system in enumerate(run.systems):
        for d, doc in enumerate(run.documents):
            lines = run.cells[(system, doc)].warnings
            if lines:
                out.append([s, d, list(lines)])
    return out


def board_notes(run: Any, *, resamples: int = stats.DEFAULT_RESAMPLES,
                seed: int = stats.DEFAULT_SEED) -> list[list[Any]]:
    """The lines ``leafscore leaderboard`` prints under its table
    (``render.leaderboard_notes``: the test and its Holm correction, the documents the
    gaps rest on, every row without a decision and why, ``(few)``, the small-sample
    warnings), each as ``[text, is a warning]``."""
    # The notes do not depend on the breakdowns: none is computed.
    board = leaderboard_mod.leaderboard(run, resamples=resamples, seed=seed, columns=())
    warnings = set(board.warnings)
    return [[line, line in warnings] for line in render.leaderboard_notes(board)]


#: Up to this many systems the page holds the paired difference of every ordered pair;
#: above it, of the pairs :func:`pair_scope` names (2 per system: linear, not square).
ALL_PAIRS_UP_TO: int = 30


def pair_scope(order: Sequence[int]) -> list[tuple[int, int]]:
    """The ordered pairs ``(base, head)`` whose paired difference the page holds, given
    the systems' indices in leaderboard order (``order[0]`` the leader).

    Every ordered pair up to :data:`ALL_PAIRS_UP_TO` systems; above it, the pairs
    ``leafscore power`` looks at: the leader with each system and each two adjacent ranks,
    both ways round (at most 4n of them), base-major, then head.

    >>> pair_scope([2, 0, 1])
    [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]
    """
    n = len(order)
    if n <= ALL_PAIRS_UP_TO:
        return [(b, h) for b in range(n) for h in range(n) if b != h]
    leader = order[0]
    kept = {(leader, s) for s in order[1:]}
    kept |= {(order[i], order[i + 1]) for i in range(n - 1)}
    kept |= {(h, b) for b, h in kept}
    return sorted(kept)


def pair_differences(run: Any, *, resamples: int = stats.DEFAULT_RESAMPLES,
                     seed: int = stats.DEFAULT_SEED,
                     confidence: float = stats.DEFAULT_CONFIDENCE,
                     pairs: Sequence[tuple[int, int]] | None = None) -> list[list[Any]]:
    """The paired difference ``head - base`` for the ordered pairs ``pairs`` of systems
    (``(base index, head index)`` into ``run.systems``; default: every ordered pair):
    bootstrap percentile interval and paired sign-flip p-value (``stats.paired_comparison``).

    One ``stats.bootstrap_macro`` call over all systems: its draws depend only on the
    number of documents, ``resamples`` and ``seed``, so each row equals the row that
    ``diff.compare`` draws for the same system, and every entry equals
    ``Evaluation.diff(base, head)`` (``change``) for the same settings; n systems cost
    one bootstrap, not one per pair.

    Returns ``[base index, head index, estimate, low, high, p_value]`` rows (numbers in
    score units, ``None`` where undefined), in the order of ``pairs``.
    """
    systems = run.systems
    if len(systems) < 2 or not run.documents:
        return []
    if pairs is None:
        pairs = [(b, h) for b in range(len(systems)) for h in range(len(systems)) if b != h]
    columns = [run.document_scores(s) for s in systems]
    scores = [run.system_score(s) for s in systems]
    samples = stats.bootstrap_macro(stats.score_matrix(columns), resamples=resamples,
                                    seed=seed)
    out = []
    for b, h in pairs:
        base, head = scores[b], scores[h]
        if base is None or head is None:
            out.append([b, h, None, None, None, None])
            continue
        change = stats.paired_comparison(columns[h], columns[b], samples[h], samples[b],
                                         head - base, confidence=confidence, seed=seed)
        out.append([b, h, *(_jsonable(x) for x in (change.estimate, change.low,
                                                     change.high, change.p_value))])
    return out


def leaderboard_order(systems: Sequence[str], intervals: Mapping[str, Any]) -> list[int]:
    """Indices of ``systems`` by summary.json rank (``intervals[system]["rank"]``), ties
    in run order: the leaderboard's rows."""
    return sorted(range(len(systems)), key=lambda s: (intervals[systems[s]]["rank"], s))


def page_data(evaluation: Any, *, resamples: int = stats.DEFAULT_RESAMPLES,
              seed: int = stats.DEFAULT_SEED,
              summary: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Everything the explorer shows, as a JSON-able dict.

    Parameters
    ----------
    evaluation : leafscore.api.Evaluation
        A scored run (verdicts kept, for the drill-down and filtered field tables).
    resamples, seed
        Bootstrap settings of the intervals and pair differences (as ``report``).
    summary : dict, optional
        ``evaluation.summary(resamples=..., seed=...)`` when the caller has it already.

    Returns
    -------
    dict
        ``format``; ``name``, ``version``, ``signature``, ``mean_rule``; ``systems`` (run
        order) and ``display``; ``documents`` (ids); ``summary`` (summary.json's
        ``aggregates``, ``intervals``, ``coverage``, ``fields``, ``bootstrap``,
        ``breakdowns`` and ``benchmark``, and ``costs`` when the envelopes give any: the
        cost and latency scatters' points and frontier marks; unchanged); ``scores``
        ``[system][document]`` (floats in [0, 1] or ``None``); ``status`` one string per
        system, a letter of :data:`STATUS_CODES` per document; ``columns`` (``_columns``); ``kinds``
        (verdict kind -> [tp, fp, fn]); ``strings`` and ``verdicts`` (``_verdicts``; both
        ``None`` under 1.0); ``pairs`` (``pair_differences`` of the pairs of
        ``pair_scope``: every ordered pair up to :data:`ALL_PAIRS_UP_TO` systems, 2 to 4
        per system above) and ``all_pairs`` (whether that is every ordered pair);
        ``board_notes`` (``board_notes``: the leaderboard's notes as the command line
        prints them), ``small_sample`` (``stats.small_sample_warning`` of the documents,
        or ``None``), ``missing_rule`` (the version's), ``sources``
        (``document_sources``: names and metadata) and ``cell_warnings``
        (``cell_warnings``: what reading each result said).

    Raises
    ------
    ValueError
        If the run has no system or no document, or a bootstrap setting is invalid.
    """
    run = evaluation.run
    if summary is None:
        summary = evaluation.summary(resamples=resamples, seed=seed)
    compact = _verdicts(run)
    record = run.record
    # Said in the version's own words: how a parse failure scores differs by version too
    # (1.0 scores what the envelope kept), so the page claims only the missing rule.
    rule = (f"the macro mean over the shown documents: the mean of their document scores "
            f"(version {run.version}: a missing result is {record.missing_rule})")
    return {
        "format": DATA_FORMAT,
        "name": summary["benchmark"]["name"],
        "version": run.version,
        "signature": summary["signature"],
        "mean_rule": rule,
        "systems": list(run.systems),
        "display": summary["engine_display_names"],
        "documents": list(run.documents),
        "summary": {key: summary[key] for key in (
            "benchmark", "aggregates", "intervals", "coverage", "fields", "bootstrap",
            "breakdowns", "costs") if key in summary},
        "scores": [run.document_scores(s) for s in run.systems],
        "status": ["".join(STATUS_CODES[run.cells[(s, d)].status] for d in run.documents)
                   for s in run.systems],
        "columns": _columns(evaluation),
        "kinds": {kind: list(counts) for kind, counts in scorer.VERDICT_KINDS.items()},
        "strings": None if compact is None else compact[0],
        "verdicts": None if compact is None else compact[1],
        "board_notes": board_notes(run, resamples=resamples, seed=seed),
        "small_sample": stats.small_sample_warning(len(run.documents)),
        "missing_rule": record.missing_rule,
        "sources": document_sources(evaluation),
        "cell_warnings": cell_warnings(run),
        "all_pairs": len(run.systems) <= ALL_PAIRS_UP_TO,
        "pairs": pair_differences(
            run, resamples=resamples, seed=seed,
            confidence=summary["bootstrap"]["confidence"],
            pairs=pair_scope(leaderboard_order(run.systems, summary["intervals"]))),
    }


def embed_json(data: Any) -> str:
    """``data`` as JSON text safe inside ``<script type="application/json">``.

    ``</`` becomes ``<\\/`` (so ``</script>`` in a label cannot close the element) and
    ``<!--`` becomes ``\\u003C!--`` (which would otherwise switch the HTML parser into
    its escaped-script state); both are JSON escapes, so the strings parse unchanged
    (``<`` only ever occurs inside JSON strings). Raises ``ValueError`` for NaN or
    infinity.

    >>> embed_json({"v": "</script><!--"})
    '{"v":"<\\\\/script>\\\\u003C!--"}'
    """
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    # U+2028/9 are valid in JSON and in HTML; escaping them only keeps old tools calm.
    return (text.replace("</", "<\\/").replace("<!--", "\\u003C!--")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _asset(name: str) -> str:
    return (resources.files("leafscore") / "explorer" / name).read_text(encoding="utf-8")


def render_page(data: Mapping[str, Any]) -> str:
    """The explorer page of ``data`` (``page_data``): one HTML document, no remote
    resource. Text from the data reaches the page only through the embedded JSON (read
    by the script with ``textContent``) and the autoescaped title and signature."""
    import jinja2  # loaded only to render a page: 10 ms of every command's start-up

    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined,
                             keep_trailing_newline=True)
    template = env.from_string(_asset("page.html"))
    # CSS and script are this package's own files: inlined as they are (``|safe``).
    return template.render(
        title=data["name"] or "leafscore", signature=data["signature"],
        version=data["version"], css=_asset("explorer.css"), script=_asset("explorer.js"),
        data_json=embed_json(data))
