// leafscore explorer: plain JavaScript, no framework, no network.
// Data text reaches the page only through textContent and setAttribute, never innerHTML.
(function () {
  "use strict";

  // Every name in the data (systems, document ids, fields, result keys) may be any text,
  // "__proto__", "constructor" or "toString" too: each JSON object becomes a
  // null-prototype object (no inherited member to find, no prototype to reach), and the
  // tables the page builds are Maps or null-prototype objects (dict()).
  function dict() {
    return Object.create(null);
  }
  function bare(value) {
    if (value === null || typeof value !== "object") return value;
    if (Array.isArray(value)) return value.map(bare);
    const out = dict();
    // On a null-prototype object, "__proto__" is an own key like any other.
    for (const k of Object.keys(value)) out[k] = bare(value[k]);
    return out;
  }
  const PARSED = JSON.parse(document.getElementById("data").textContent);
  // The objects keyed by names: summary.json's (systems, fields, breakdown values) and
  // the display names. The rest is arrays of numbers and texts, and keys of this script.
  const DATA = Object.assign(dict(), PARSED, { summary: bare(PARSED.summary),
    display: bare(PARSED.display), kinds: bare(PARSED.kinds) });
  if (DATA.format !== 1) {
    throw new Error("leafscore explorer: unknown data format " + DATA.format);
  }
  const SYSTEMS = DATA.systems;
  const DOCS = DATA.documents;
  const SUMMARY = DATA.summary;
  const KIND_NAMES = Object.keys(DATA.kinds);
  const ERROR_KINDS = KIND_NAMES.filter((k) => k !== "correct" && k !== "correct_absence");
  const KIND_MARK = {
    correct: "✓", correct_absence: "✓", wrong_value: "✗", type_error: "✗",
    missing: "∅", hallucinated: "+", extra_item: "+", parse_failure: "!",
  };
  // Okabe–Ito colours: distinguishable under the common colour-vision deficiencies.
  const KIND_COLOUR = {
    wrong_value: "#D55E00", type_error: "#CC79A7", missing: "#E69F00",
    hallucinated: "#0072B2", extra_item: "#56B4E9", parse_failure: "#000000",
  };
  const STATUS_TEXT = { s: "scored", p: "parse failure", m: "no result file" };
  // A parse failure or a missing result is marked in the heat map (a mark, a pattern and
  // these words), never shown as if it were a real score of 0.
  const STATUS_MARK = { p: "!", m: "∅" };
  // Heat-map steps (upper bounds, score in [0, 1]); the last step is exactly 1.
  const STEPS = [0.5, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0];
  const STEP_TEXT = ["< 50", "50–70", "70–80", "80–90", "90–95", "95–99", "99–<100", "100"];
  const UNPAIRED = /\[r\d+\]/;
  // Verdicts whose canonical values the scorer leaves unset: nothing was compared.
  const NOT_COMPARED = new Set(["missing", "hallucinated", "extra_item", "parse_failure"]);
  const LAYOUT = 7; // integers per verdict: address, field, kind, label, result, canons
  // What reading each result said, by system * documents + document.
  const CELL_WARNINGS = new Map((DATA.cell_warnings || []).map(
    ([s, d, lines]) => [s * DATA.documents.length + d, lines]));

  const state = {
    filters: DATA.columns.map(() => -1),
    heatSort: { key: "doc", dir: 1 },
    fieldSystem: 0,
    drillDoc: 0,
    drillSystem: 0,
    errorsOnly: false,
    base: 0,
    head: 0,
  };

  // ---------------------------------------------------------------- helpers

  function el(tag, props, children) {
    const node = document.createElement(tag);
    if (props) {
      for (const [key, value] of Object.entries(props)) {
        if (value === undefined || value === null) continue;
        if (key === "text") node.textContent = value;
        else if (key === "class") node.className = value;
        else if (key === "style") node.setAttribute("style", value);
        else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
        else node.setAttribute(key, value);
      }
    }
    for (const child of children || []) {
      if (child === null || child === undefined) continue;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }

  // User text (values, names, ids) in its own direction: a Hebrew or Arabic value keeps
  // its place among the page's left-to-right words (<bdi> isolates it, dir auto).
  function bdi(text) {
    return el("bdi", { text: text });
  }

  // A document's record in sources.json (or metadata.json): {name, fields} or null.
  function sourceOf(d) {
    return DATA.sources ? DATA.sources[d] : null;
  }

  // The id, and the name in parentheses when sources.json gives one (the heat map's
  // readout on focus, where a tooltip is not seen).
  function docName(d) {
    const source = sourceOf(d);
    return source && source.name ? DOCS[d] + " (" + source.name + ")" : DOCS[d];
  }

  function docTitle(d) {
    const source = sourceOf(d);
    if (!source) return DOCS[d];
    const lines = [source.name ? DOCS[d] + " — " + source.name : DOCS[d]];
    for (const [key, text] of source.fields) lines.push(key + ": " + text);
    return lines.join("\n");
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
    return node;
  }

  function pct(value) {
    return value === null || value === undefined ? "–" : (100 * value).toFixed(2);
  }

  function signedPts(value) {
    if (value === null || value === undefined) return "–";
    const text = (100 * value).toFixed(2);
    return value >= 0 && !text.startsWith("-") ? "+" + text : text;
  }

  function name(index) {
    const sys = SYSTEMS[index];
    const shown = DATA.display[sys];
    return shown && shown !== sys ? shown + " (" + sys + ")" : sys;
  }

  // Shewchuk's exact summation (Python's math.fsum recipe): the filtered means use the
  // same summation as leafscore's 1.0 mean, not a float sum that drifts with order.
  function fsum(values) {
    const partials = [];
    for (let x of values) {
      let i = 0;
      for (let y of partials) {
        if (Math.abs(x) < Math.abs(y)) { const t = x; x = y; y = t; }
        const hi = x + y;
        const lo = y - (hi - x);
        if (lo) partials[i++] = lo;
        x = hi;
      }
      partials.length = i;
      partials.push(x);
    }
    let total = 0;
    for (let i = partials.length - 1; i >= 0; i--) total += partials[i];
    return total;
  }

  function mean(values) {
    return values.length ? fsum(values) / values.length : null;
  }

  function step(score) {
    if (score === null) return "sx";
    let k = 0;
    while (k < STEPS.length && score >= STEPS[k]) k++;
    return "s" + Math.min(k, 7);
  }

  function select(node, options, value, onChange) {
    clear(node);
    options.forEach(([val, label]) => node.appendChild(el("option", { value: String(val), text: label, dir: "auto" })));
    node.value = String(value);
    node.onchange = () => onChange(Number(node.value));
  }

  // ---------------------------------------------------------------- filters

  function filtered() {
    return state.filters.some((v) => v >= 0);
  }

  function shownDocs() {
    const out = [];
    for (let d = 0; d < DOCS.length; d++) {
      let keep = true;
      state.filters.forEach((value, c) => {
        if (value >= 0 && !DATA.columns[c].docs[d].includes(value)) keep = false;
      });
      if (keep) out.push(d);
    }
    return out;
  }

  function buildFilters() {
    const box = document.getElementById("filter-controls");
    DATA.columns.forEach((column, c) => {
      const counts = column.values.map(() => 0);
      column.docs.forEach((values) => values.forEach((v) => counts[v]++));
      const node = el("select", { id: "filter-" + c, "data-column": column.name });
      const options = [[-1, "All (" + DOCS.length + ")"]];
      column.values.forEach((value, v) => options.push([v, value + " (" + counts[v] + ")"]));
      select(node, options, -1, (v) => { state.filters[c] = v; renderAll(); });
      box.appendChild(el("label", {}, [bdi(column.name), node]));
    });
    document.getElementById("clear-filters").addEventListener("click", () => {
      state.filters = state.filters.map(() => -1);
      DATA.columns.forEach((_, c) => { document.getElementById("filter-" + c).value = "-1"; });
      renderAll();
    });
  }

  // ---------------------------------------------------------------- leaderboard

  // Rows of the leaderboard: summary.json's own numbers when nothing is filtered, else
  // the macro mean over the shown documents (no interval: that needs the bootstrap).
  function boardRows(docs) {
    return SYSTEMS.map((sys, s) => {
      const status = DATA.status[s];
      const cover = { scored: 0, parse_failures: 0, missing: 0, documents: docs.length };
      for (const d of docs) {
        const code = status[d];
        if (code === "s") cover.scored++;
        else if (code === "p") cover.parse_failures++;
        else cover.missing++;
      }
      if (!filtered()) {
        const iv = SUMMARY.intervals[sys];
        return { s, score: SUMMARY.aggregates[sys], low: iv.low, high: iv.high,
          rank: iv.rank, tie: iv.tie_with_leader, cover: SUMMARY.coverage[sys],
          gap: iv.gap === undefined ? null : iv.gap, p: iv.p_holm,
          paired: iv.paired_documents, decision: iv.decision || null,
          reason: iv.reason || "", near: iv.near_alpha === true, few: iv.few_documents === true };
      }
      const values = [];
      for (const d of docs) if (DATA.scores[s][d] !== null) values.push(DATA.scores[s][d]);
      return { s, score: mean(values), low: null, high: null, rank: 0, tie: null, cover,
        gap: null, p: null, paired: null, decision: null, reason: "", near: false, few: false };
    }).sort((a, b) => {
      if (!filtered()) return a.rank - b.rank;
      if ((a.score === null) !== (b.score === null)) return a.score === null ? 1 : -1;
      if (a.score !== b.score) return b.score - a.score;
      return SYSTEMS[a.s] < SYSTEMS[b.s] ? -1 : 1;
    }).map((row, i) => Object.assign(row, { rank: row.rank || i + 1 }));
  }

  function scale(rows) {
    let low = 1;
    for (const r of rows) {
      for (const v of [r.low, r.score]) if (v !== null && v < low) low = v;
    }
    low = Math.max(0, Math.floor((low - 0.02) * 20) / 20);
    return { low, high: 1 };
  }

  function bar(row, axis) {
    const at = (v) => (100 * (v - axis.low) / (axis.high - axis.low)).toFixed(2) + "%";
    const box = el("div", { class: "bar", role: "img",
      "aria-label": row.low === null ? "score " + pct(row.score) + "%"
        : "score " + pct(row.score) + "%, interval " + pct(row.low) + " to " + pct(row.high) });
    if (row.low !== null) {
      box.appendChild(el("div", { class: "range",
        style: "left:" + at(row.low) + ";width:calc(" + at(row.high) + " - " + at(row.low) + ")" }));
    }
    if (row.score !== null) box.appendChild(el("div", { class: "point", style: "left:" + at(row.score) }));
    return box;
  }

  function renderBoard(docs) {
    const rows = boardRows(docs);
    const axis = scale(rows);
    const table = clear(document.getElementById("board"));
    const conf = Math.round(100 * SUMMARY.bootstrap.confidence);
    table.appendChild(el("thead", {}, [el("tr", {}, [
      el("th", { class: "num", text: "Rank", scope: "col" }),
      el("th", { text: "System", scope: "col" }),
      el("th", { class: "num", text: "Score (%)", scope: "col" }),
      el("th", { class: "num", text: conf + "% interval", scope: "col" }),
      el("th", { class: "bar-cell", scope: "col" }, [
        el("span", { text: "Score and interval" }),
        el("div", { class: "axis", "aria-hidden": "true" }, [
          el("span", { text: pct(axis.low) }), el("span", { text: pct(axis.high) })])]),
      el("th", { class: "num", text: "Gap (points)", scope: "col" }),
      el("th", { class: "num", text: "p (Holm)", scope: "col" }),
      el("th", { class: "num", text: "Paired", scope: "col" }),
      el("th", { text: "Tie with leader", scope: "col" }),
      el("th", { class: "num", text: "Scored", scope: "col" }),
      el("th", { class: "num", text: "Parse failures", scope: "col" }),
      el("th", { class: "num", text: "Missing", scope: "col" }),
    ])]));
    const body = el("tbody");
    for (const row of rows) {
      // The command line's marks: ≈ a tie, – no decision, * near alpha (boardNotes).
      const tie = (row.decision === "none" ? "– no decision" : row.tie === null ? "–"
        : row.rank === 1 && !row.tie ? "leader" : row.tie ? "≈ tie" : "behind")
        + (row.near ? " *" : "");
      // data-label names each cell where a phone shows the rows as cards (CSS).
      body.appendChild(el("tr", { "data-system": SYSTEMS[row.s] }, [
        el("td", { class: "num rank", text: String(row.rank), "data-label": "Rank" }),
        el("th", { scope: "row" }, [bdi(name(row.s))]),
        el("td", { class: "num score", text: pct(row.score), "data-label": "Score (%)" }),
        el("td", { class: "num", text: row.low === null ? "–" : "[" + pct(row.low) + ", " + pct(row.high) + "]",
          "data-label": conf + "% interval" }),
        el("td", { class: "bar-cell", "data-label": "Scale " + pct(axis.low) + "–" + pct(axis.high) }, [bar(row, axis)]),
        el("td", { class: "num", text: row.gap === null ? "–" : (row.gap < 0 ? "" : "+")
          + (100 * row.gap).toFixed(2), "data-label": "Gap (points)" }),
        el("td", { class: "num", text: row.p === null || row.p === undefined ? "–"
          : Number(row.p).toPrecision(3), "data-label": "p (Holm)" }),
        el("td", { class: "num", text: row.rank === 1 || row.paired === null ? "–"
          : String(row.paired), "data-label": "Paired" }),
        el("td", { class: row.tie ? "tie" : "", text: tie, title: row.reason,
          "data-label": "Tie with leader" }),
        el("td", { class: "num", text: row.cover.scored + " / " + row.cover.documents
          + (row.few ? " (few)" : ""), "data-label": "Scored" }),
        el("td", { class: "num", text: String(row.cover.parse_failures), "data-label": "Parse failures" }),
        el("td", { class: "num", text: String(row.cover.missing), "data-label": "Missing" }),
      ]));
    }
    table.appendChild(body);
    document.getElementById("board-note").textContent = filtered()
      ? "Filtered: scores are re-averaged over the " + docs.length + " shown documents; "
        + "intervals and ties are computed for all documents only, so they are hidden."
      : "Unfiltered: every number is summary.json's. “≈ tie”: the difference to the leader "
        + "is not significant at 5% (paired sign-flip permutation test, Holm-adjusted; "
        + "p and paired documents shown); intervals are bootstrap percentile intervals ("
        + SUMMARY.bootstrap.resamples + " resamples, seed " + SUMMARY.bootstrap.seed
        + "). “– no decision”: the test cannot decide (the reason is below).";
    renderBoardNotes();
  }

  // The lines `leafscore leaderboard` prints under its table, word for word (the test
  // and its Holm correction, no-decision reasons, (few), small-sample warnings): they are
  // about every document, so a filter keeps them and says so.
  function renderBoardNotes() {
    const box = clear(document.getElementById("board-notes"));
    if (!DATA.board_notes || !DATA.board_notes.length) return;
    box.appendChild(el("p", { class: "note" }, [(filtered() ? "For all " + DOCS.length
      + " documents (not the filter), a" : "A") + "s ", el("code", { text: "leafscore leaderboard" }),
    " says under its table:"]));
    const list = el("ul", { class: "cli-notes" });
    for (const [line, warning] of DATA.board_notes) {
      list.appendChild(el("li", { class: warning ? "warn" : "", "data-warning": warning ? "1" : null,
        text: line }));
    }
    box.appendChild(list);
  }

  // ---------------------------------------------------------------- heat map

  function heatOrder(docs) {
    const { key, dir } = state.heatSort;
    const value = (d) => {
      if (key === "doc") return null;
      if (key === "mean") {
        const vals = [];
        SYSTEMS.forEach((_, s) => { if (DATA.scores[s][d] !== null) vals.push(DATA.scores[s][d]); });
        return mean(vals);
      }
      return DATA.scores[key][d];
    };
    const keyed = docs.map((d) => [d, value(d)]);
    keyed.sort((a, b) => {
      if (key !== "doc") {
        if ((a[1] === null) !== (b[1] === null)) return a[1] === null ? 1 : -1;
        if (a[1] !== b[1]) return dir * (a[1] - b[1]);
      }
      return dir * (a[0] - b[0]);
    });
    return keyed.map((pair) => pair[0]);
  }

  function sortButton(label, key, aria) {
    const active = state.heatSort.key === key;
    const arrow = active ? (state.heatSort.dir > 0 ? " ▲" : " ▼") : "";
    return el("button", { type: "button", "aria-label": "Sort by " + aria,
      onclick: () => {
        state.heatSort = { key, dir: active ? -state.heatSort.dir : 1 };
        renderHeat(shownDocs());
        const again = document.querySelector("#heat th[data-key='" + String(key) + "'] button");
        if (again) again.focus();
      } }, [bdi(label), arrow]);
  }

  function renderHeat(docs) {
    const table = clear(document.getElementById("heat"));
    const head = el("tr", {}, [el("th", { class: "doc", scope: "col", "data-key": "doc",
      "aria-sort": ariaSort("doc") }, [sortButton("Document", "doc", "document id")])]);
    SYSTEMS.forEach((sys, s) => head.appendChild(el("th", { scope: "col", "data-key": String(s),
      "aria-sort": ariaSort(s) }, [sortButton(sys, s, "score of " + sys)])));
    head.appendChild(el("th", { scope: "col", "data-key": "mean", "aria-sort": ariaSort("mean") },
      [sortButton("Mean", "mean", "mean over systems")]));
    table.appendChild(el("thead", {}, [head]));
    const body = document.createElement("tbody");
    const order = heatOrder(docs);
    const frag = document.createDocumentFragment();
    order.forEach((d, r) => {
      const tr = document.createElement("tr");
      const th = el("th", { class: "doc", scope: "row", title: docTitle(d) }, [bdi(DOCS[d])]);
      tr.appendChild(th);
      const vals = [];
      SYSTEMS.forEach((sys, s) => {
        const score = DATA.scores[s][d];
        if (score !== null) vals.push(score);
        const td = document.createElement("td");
        const status = DATA.status[s][d];
        td.className = step(score);
        td.textContent = score === null ? "–" : (100 * score).toFixed(0);
        if (status !== "s") markStatus(td, status);
        const label = docName(d) + " × " + sys + ": " + (score === null ? "not scored" : pct(score) + "%")
          + " (" + STATUS_TEXT[status] + ")";
        td.title = label;
        td.setAttribute("aria-label", label);
        td.tabIndex = r === 0 && s === 0 ? 0 : -1;
        td.dataset.d = d;
        td.dataset.s = s;
        tr.appendChild(td);
      });
      const avg = mean(vals);
      tr.appendChild(el("td", { class: step(avg), text: avg === null ? "–" : (100 * avg).toFixed(0),
        title: DOCS[d] + ": mean over systems " + pct(avg) + "%" }));
      frag.appendChild(tr);
    });
    body.appendChild(frag);
    table.appendChild(body);
  }

  // A parse failure or a missing result: its mark before the score, a pattern in place
  // of the colour step, and data-status for the tests and the legend.
  function markStatus(td, status) {
    td.className = "st-" + status;
    td.textContent = STATUS_MARK[status] + " " + td.textContent;
    td.dataset.status = STATUS_TEXT[status];
  }

  function ariaSort(key) {
    if (state.heatSort.key !== key) return "none";
    return state.heatSort.dir > 0 ? "ascending" : "descending";
  }

  function heatKeys(event) {
    const cell = event.target.closest("td[data-s]");
    if (!cell) return;
    const row = cell.parentElement;
    const s = Number(cell.dataset.s);
    let next = null;
    if (event.key === "ArrowRight") next = row.querySelector("td[data-s='" + (s + 1) + "']");
    else if (event.key === "ArrowLeft") next = row.querySelector("td[data-s='" + (s - 1) + "']");
    else if (event.key === "ArrowDown" && row.nextElementSibling) next = row.nextElementSibling.querySelector("td[data-s='" + s + "']");
    else if (event.key === "ArrowUp" && row.previousElementSibling) next = row.previousElementSibling.querySelector("td[data-s='" + s + "']");
    else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      openDrill(Number(cell.dataset.d), s);
      return;
    } else return;
    event.preventDefault();
    if (next) {
      cell.tabIndex = -1;
      next.tabIndex = 0;
      next.focus();
    }
  }

  function heatFocus(event) {
    const cell = event.target.closest("td[data-s]");
    if (cell) document.getElementById("heat-focus").textContent = cell.getAttribute("aria-label");
  }

  function buildHeat() {
    const legend = document.getElementById("heat-legend");
    STEP_TEXT.forEach((text, k) => legend.appendChild(el("span", { class: "s" + k, text: text + "%" })));
    legend.appendChild(el("span", { class: "sx", text: "– not scored" }));
    const marks = document.getElementById("heat-status-legend");
    marks.appendChild(el("span", { class: "st-p", text: STATUS_MARK.p + " parse failure: the result "
      + "file could not be read" }));
    marks.appendChild(el("span", { class: "st-m", text: STATUS_MARK.m + " no result file: "
      + "a missing result is " + DATA.missing_rule }));
    const table = document.getElementById("heat");
    table.addEventListener("keydown", heatKeys);
    table.addEventListener("focusin", heatFocus);
    table.addEventListener("mouseover", heatFocus);
    table.addEventListener("click", (event) => {
      const cell = event.target.closest("td[data-s]");
      if (cell) openDrill(Number(cell.dataset.d), Number(cell.dataset.s));
    });
  }

  // ---------------------------------------------------------------- fields

  // Field path -> {tp, fp, fn, f1, errors} of every system: summary.json's when nothing
  // is filtered, else summed from the verdicts of the shown documents.
  function fieldTables(docs) {
    if (!filtered()) {
      return SYSTEMS.map((sys) => SUMMARY.fields[sys] || dict());
    }
    return SYSTEMS.map((sys, s) => {
      const out = dict();
      for (const d of docs) {
        const flat = DATA.verdicts[s][d];
        for (let i = 0; i < flat.length; i += LAYOUT) {
          const field = DATA.strings[flat[i + 1]];
          const kind = KIND_NAMES[flat[i + 2]];
          const row = out[field] || (out[field] = { tp: 0, fp: 0, fn: 0, errors: dict() });
          const [tp, fp, fn] = DATA.kinds[kind];
          row.tp += tp; row.fp += fp; row.fn += fn;
          if (ERROR_KINDS.includes(kind)) row.errors[kind] = (row.errors[kind] || 0) + 1;
        }
      }
      for (const row of Object.values(out)) {
        const den = 2 * row.tp + row.fp + row.fn;
        row.f1 = den ? 2 * row.tp / den : null;
      }
      return out;
    });
  }

  function kindBar(errors) {
    const total = Object.values(errors).reduce((a, b) => a + b, 0);
    const box = el("div", {}, []);
    if (!total) {
      box.appendChild(el("span", { class: "kind-text", text: "no errors" }));
      return box;
    }
    const stripe = el("div", { class: "kinds", "aria-hidden": "true" });
    const words = [];
    for (const kind of ERROR_KINDS) {
      const n = errors[kind] || 0;
      if (!n) continue;
      const share = 100 * n / total;
      stripe.appendChild(el("span", { style: "width:" + share.toFixed(2) + "%;background:" + KIND_COLOUR[kind],
        title: kind + " " + n }));
      words.push(kind + " " + n + " (" + share.toFixed(0) + "%)");
    }
    box.appendChild(stripe);
    box.appendChild(el("div", { class: "kind-text", text: words.join(" · ") }));
    return box;
  }

  // [label leaves, result leaves] of one field of one system, as text: TP + FN (a label
  // leaf with a value is either found or not) and TP + FP (a result leaf is right or not).
  function leafCounts(row) {
    if (!row) return ["0", "0"];
    return [String(row.tp + row.fn), String(row.tp + row.fp)];
  }

  function renderFields(docs) {
    const note = document.getElementById("fields-note");
    const table = clear(document.getElementById("field-table"));
    if (!DATA.verdicts) {
      note.textContent = "Version " + DATA.version + " keeps no per-field counts; score with "
        + "--version 2.0 to see fields.";
      return;
    }
    const tables = fieldTables(docs);
    const chosen = tables[state.fieldSystem];
    const paths = new Set();
    tables.forEach((t) => Object.keys(t).forEach((p) => paths.add(p)));
    const errorsOf = (p) => (chosen[p] ? Object.values(chosen[p].errors).reduce((a, b) => a + b, 0) : 0);
    const f1Of = (p) => (chosen[p] ? chosen[p].f1 : null);
    const order = Array.from(paths).sort((a, b) => {
      const fa = f1Of(a), fb = f1Of(b);
      if ((fa === null) !== (fb === null)) return fa === null ? 1 : -1;
      if (fa !== fb) return fa - fb;
      if (errorsOf(a) !== errorsOf(b)) return errorsOf(b) - errorsOf(a);
      return a < b ? -1 : a > b ? 1 : 0;
    });
    note.textContent = "F1 (%) of every field, worst first for " + SYSTEMS[state.fieldSystem]
      + ", with its leaf counts (label leaves: TP + FN; result leaves: TP + FP, as "
      + "`leafscore fields` counts them) and the share of each error kind of that system. "
      + paths.size + " fields. " + (filtered()
        ? "Filtered: counted over the " + docs.length + " shown documents."
        : "Unfiltered: summary.json's per-field counts.");
    const head = el("tr", {}, [el("th", { scope: "col", text: "Field" })]);
    SYSTEMS.forEach((sys) => head.appendChild(el("th", { class: "num", scope: "col" }, [bdi(sys)])));
    const chosenName = SYSTEMS[state.fieldSystem];
    head.appendChild(el("th", { class: "num", scope: "col", "data-count": "label",
      title: "TP + FN of " + chosenName + ": the label's leaves with a value on this field" },
    ["Label leaves"]));
    head.appendChild(el("th", { class: "num", scope: "col", "data-count": "result",
      title: "TP + FP: the leaves of " + chosenName + "'s results on this field" },
    ["Result leaves of ", bdi(chosenName)]));
    head.appendChild(el("th", { scope: "col" }, ["Errors of ", bdi(chosenName)]));
    table.appendChild(el("thead", {}, [head]));
    const body = el("tbody");
    for (const path of order) {
      const tr = el("tr", { "data-field": path }, [el("th", { scope: "row" }, [bdi(path)])]);
      tables.forEach((t) => {
        const f1 = t[path] ? t[path].f1 : null;
        tr.appendChild(el("td", { class: "num " + step(f1), text: pct(f1) }));
      });
      const counts = leafCounts(chosen[path]);
      tr.appendChild(el("td", { class: "num", "data-count": "label", text: counts[0] }));
      tr.appendChild(el("td", { class: "num", "data-count": "result", text: counts[1] }));
      tr.appendChild(el("td", {}, [kindBar(chosen[path] ? chosen[path].errors : dict())]));
      body.appendChild(tr);
    }
    table.appendChild(body);
  }

  function buildFields() {
    select(document.getElementById("field-system"), SYSTEMS.map((sys, s) => [s, name(s)]),
      state.fieldSystem, (s) => { state.fieldSystem = s; renderFields(shownDocs()); });
    const legend = document.getElementById("kind-legend");
    ERROR_KINDS.forEach((kind) => legend.appendChild(el("span", {}, [
      el("span", { style: "background:" + KIND_COLOUR[kind] + ";border:0;padding:0 6px;margin-right:4px", "aria-hidden": "true" }),
      kind])));
  }

  // ---------------------------------------------------------------- drill-down

  function verdictRows(flat, unpaired) {
    const body = el("tbody");
    for (let i = 0; i < flat.length; i += LAYOUT) {
      const address = DATA.strings[flat[i]];
      if (UNPAIRED.test(address) !== unpaired) continue;
      const kind = KIND_NAMES[flat[i + 2]];
      if (state.errorsOnly && !ERROR_KINDS.includes(kind)) continue;
      body.appendChild(el("tr", { class: "k-" + kind, "data-kind": kind }, [
        el("td", { class: "value addr" }, [bdi(address)]),
        kind === "extra_item"
          ? el("td", { class: "value none", text: "– (extra item)", "data-label": "Label" })
          : el("td", { class: "value", "data-label": "Label" }, [bdi(DATA.strings[flat[i + 3]])]),
        el("td", { class: "value", "data-label": "Result" }, [bdi(DATA.strings[flat[i + 4]])]),
        el("td", { class: "kind", text: KIND_MARK[kind] + " " + kind }),
        canonCell(kind, DATA.strings[flat[i + 5]], DATA.strings[flat[i + 6]]),
      ]));
    }
    return body;
  }

  // The canonical values, each in its own <bdi> so that "label → result" keeps that order
  // whatever the values' script; an extra item (a result item paired with no label item)
  // is said to be one, and a leaf the scorer never compared shows no "null → null".
  function canonCell(kind, label, result) {
    const td = el("td", { class: "value canon", "data-label": "Canonical" });
    if (kind === "extra_item") {
      td.appendChild(el("span", { class: "none", text: "extra item: no label item to compare" }));
    } else if (label === "null" && result === "null" && NOT_COMPARED.has(kind)) {
      td.appendChild(el("span", { class: "none", text: "– (not compared)" }));
    } else {
      td.appendChild(bdi(label));
      td.appendChild(document.createTextNode(" → "));
      td.appendChild(bdi(result));
    }
    return td;
  }

  function verdictTable(flat, unpaired, caption) {
    const body = verdictRows(flat, unpaired);
    if (!body.firstChild) return null;
    return el("div", { class: "scroll" }, [el("table", { class: "verdicts" }, [
      el("caption", { text: caption }),
      el("thead", {}, [el("tr", {}, ["Leaf", "Label", "Result", "Verdict", "Canonical (label → result)"]
        .map((h) => el("th", { scope: "col", text: h })))]),
      body])]);
  }

  function renderDrill(docs) {
    const docSelect = document.getElementById("drill-doc");
    const options = docs.map((d) => [d, DOCS[d]]);
    if (!docs.includes(state.drillDoc) && docs.length) state.drillDoc = docs[0];
    select(docSelect, options.length ? options : [[-1, "(no document shown)"]], state.drillDoc,
      (d) => { state.drillDoc = d; renderDrill(shownDocs()); });
    const head = document.getElementById("drill-head");
    const out = clear(document.getElementById("drill-body"));
    if (!docs.length) { head.textContent = "No document matches the filters."; return; }
    const d = state.drillDoc, s = state.drillSystem;
    const status = DATA.status[s][d];
    clear(head).appendChild(bdi(DOCS[d]));
    head.appendChild(document.createTextNode(" × "));
    head.appendChild(bdi(SYSTEMS[s]));
    const score = DATA.scores[s][d];
    head.appendChild(document.createTextNode(": " + (score === null ? "not scored" : pct(score) + "%")
      + " (" + STATUS_TEXT[status] + ")"));
    drillSource(out, d);
    drillStatus(out, s, d, status);
    if (!DATA.verdicts) {
      out.appendChild(el("p", { class: "note", id: "no-verdicts",
        text: "Version " + DATA.version + " keeps no per-leaf verdicts, so there is nothing to "
          + "drill into: score with --version 2.0 to see every leaf." }));
      return;
    }
    const flat = DATA.verdicts[s][d];
    const counts = dict();
    for (let i = 2; i < flat.length; i += LAYOUT) counts[KIND_NAMES[flat[i]]] = (counts[KIND_NAMES[flat[i]]] || 0) + 1;
    const legend = el("div", { class: "legend" });
    KIND_NAMES.forEach((kind) => {
      if (counts[kind]) legend.appendChild(el("span", { class: "k-" + kind, text: KIND_MARK[kind] + " " + kind + ": " + counts[kind] }));
    });
    out.appendChild(legend);
    const paired = verdictTable(flat, false, "Label leaves, side by side with the result");
    const apart = verdictTable(flat, true, "Result items paired with no label item");
    if (paired) out.appendChild(paired);
    if (apart) out.appendChild(apart);
    if (!paired && !apart) {
      out.appendChild(el("p", { class: "note", text: state.errorsOnly ? "No error in this document."
        : "No scored leaf in this document." }));
    }
  }

  // The document's name and metadata from sources.json, when the benchmark has them.
  function drillSource(out, d) {
    const source = sourceOf(d);
    if (!source) return;
    const box = el("div", { id: "drill-source", class: "source" });
    if (source.name) box.appendChild(el("p", { class: "doc-name" }, [bdi(source.name)]));
    const list = el("dl", {});
    for (const [key, text] of source.fields) {
      if (text === source.name && (key === "name" || key === "title")) continue; // said above
      list.appendChild(el("div", {}, [el("dt", {}, [bdi(key), ":"]), el("dd", {}, [bdi(text)])]));
    }
    box.appendChild(list);
    out.appendChild(box);
  }

  // What reading the result said, as `leafscore explain` notes it under its table: why
  // a parse failure could not be read, that a missing result has no file.
  function drillStatus(out, s, d, status) {
    const lines = CELL_WARNINGS.get(s * DOCS.length + d) || [];
    if (status === "p") {
      out.appendChild(el("p", { id: "drill-status", class: "status-note st-p" }, [
        el("strong", { text: STATUS_MARK.p + " Parse failure" }),
        // 2.x: each label leaf is a parse_failure verdict; 1.0 keeps no verdicts.
        ": the result could not be read" + (DATA.verdicts
          ? ", so every label leaf counts as a parse failure." : ".")]));
    } else if (status === "m") {
      out.appendChild(el("p", { id: "drill-status", class: "status-note st-m" }, [
        el("strong", { text: STATUS_MARK.m + " No result file" }),
        ": " + SYSTEMS[s] + " has no result for this document; under version " + DATA.version
          + " a missing result is " + DATA.missing_rule + "."]));
    }
    if (lines.length) {
      const list = el("ul", { id: "drill-warnings", class: "cli-notes" });
      lines.forEach((line) => list.appendChild(el("li", { text: line })));
      out.appendChild(list);
    }
  }

  function openDrill(d, s) {
    state.drillDoc = d;
    state.drillSystem = s;
    document.getElementById("drill-system").value = String(s);
    renderDrill(shownDocs());
    const target = document.getElementById("drill-doc");
    target.scrollIntoView({ block: "start" });
    target.focus();
  }

  function buildDrill() {
    select(document.getElementById("drill-system"), SYSTEMS.map((sys, s) => [s, name(s)]),
      state.drillSystem, (s) => { state.drillSystem = s; renderDrill(shownDocs()); });
    const only = document.getElementById("drill-errors");
    only.addEventListener("change", () => { state.errorsOnly = only.checked; renderDrill(shownDocs()); });
  }

  // ---------------------------------------------------------------- A/B

  // The pairs the page holds, by base * systems + head: one look-up, not a scan.
  const PAIRS = new Map(DATA.pairs.map((p) => [p[0] * SYSTEMS.length + p[1], p]));

  function pairOf(b, h) {
    return PAIRS.get(b * SYSTEMS.length + h) || null;
  }

  function renderAB(docs) {
    const out = clear(document.getElementById("ab-result"));
    const flips = clear(document.getElementById("ab-flips"));
    const b = state.base, h = state.head;
    if (b === h) {
      out.appendChild(el("p", { class: "note", text: "Pick two different systems." }));
      return;
    }
    const pair = pairOf(b, h);
    const conf = Math.round(100 * SUMMARY.bootstrap.confidence);
    if (pair && pair[2] !== null) {
      const [, , est, low, high, p] = pair;
      // The paired sign-flip test decides, as on the command line (`leafscore diff`): one
      // comparison at 5%, and no decision on fewer than 6 documents (no test can reach 5%).
      const few = DOCS.length < 6;
      const significant = !few && p !== null && p < 0.05;
      const better = significant && est > 0, worse = significant && est < 0;
      out.appendChild(el("p", { id: "ab-line", class: "readout" }, [
        el("strong", {}, [bdi(SYSTEMS[h]), " − ", bdi(SYSTEMS[b]), ": " + signedPts(est) + " points"]),
        " (" + conf + "% paired interval [" + signedPts(low) + ", " + signedPts(high) + "], p = "
          + (p === null ? "–" : p.toPrecision(2)) + ", all " + DOCS.length + " documents) — ",
        el("span", { class: better ? "good" : worse ? "bad" : "", text: better ? SYSTEMS[h] + " is better"
          : worse ? SYSTEMS[h] + " is worse" : few ? "no decision: fewer than 6 documents"
          : "no significant difference" })]));
      const lim = Math.max(0.005, Math.abs(low || 0), Math.abs(high || 0), Math.abs(est)) * 1.15;
      const at = (v) => (50 + 50 * v / lim).toFixed(2) + "%";
      const box = el("div", { class: "bar", role: "img", "aria-label": "difference " + signedPts(est)
        + " points, interval " + signedPts(low) + " to " + signedPts(high) }, [
        el("div", { class: "zero", style: "left:50%" }),
        low === null ? null : el("div", { class: "range", style: "left:" + at(low) + ";width:calc(" + at(high) + " - " + at(low) + ")" }),
        el("div", { class: "point", style: "left:" + at(est) })]);
      out.appendChild(box);
      out.appendChild(el("div", { class: "axis", "aria-hidden": "true" }, [
        el("span", { text: signedPts(-lim) }), el("span", { text: "0" }), el("span", { text: signedPts(lim) })]));
      // `leafscore diff`'s small-sample line, for the benchmark's documents.
      if (DATA.small_sample) out.appendChild(el("p", { id: "ab-small", class: "note warn", text: DATA.small_sample }));
    } else if (pair) {
      out.appendChild(el("p", { class: "readout", text: "No difference: a side has no scored document." }));
    } else {
      // Above a few dozen systems the page holds the leader's pairs and adjacent ranks'
      // only (every pair would make it grow with the square of the systems).
      out.appendChild(el("p", { id: "ab-line", class: "readout" }, [
        el("strong", {}, [bdi(SYSTEMS[h]), " − ", bdi(SYSTEMS[b]), ": " + signedPts(
          SUMMARY.aggregates[SYSTEMS[h]] === null || SUMMARY.aggregates[SYSTEMS[b]] === null ? null
            : SUMMARY.aggregates[SYSTEMS[h]] - SUMMARY.aggregates[SYSTEMS[b]]) + " points"]),
        " (no paired interval in this page: with " + SYSTEMS.length + " systems it holds those of "
          + "the leader with each system and of adjacent ranks only; `leafscore diff --base "
          + SYSTEMS[b] + " --head " + SYSTEMS[h] + "` gives this one)"]));
    }
    if (filtered()) {
      const pairs = docs.filter((d) => DATA.scores[b][d] !== null && DATA.scores[h][d] !== null);
      const diff = mean(pairs.map((d) => DATA.scores[h][d])) - mean(pairs.map((d) => DATA.scores[b][d]));
      out.appendChild(el("p", { class: "note", text: "Over the " + docs.length + " shown documents: "
        + (pairs.length ? signedPts(diff) + " points (means of the documents both score; no interval under a filter)" : "–") }));
    }
    // Flipped documents, as `leafscore diff` lists them: score moved, biggest drop first.
    const rows = [];
    for (const d of docs) {
      const before = DATA.scores[b][d], after = DATA.scores[h][d];
      if (before === null && after === null) continue;
      if (before === null || after === null || after !== before) rows.push([d, before, after]);
    }
    const change = (r) => (r[1] === null || r[2] === null ? null : r[2] - r[1]);
    rows.sort((x, y) => {
      const cx = change(x), cy = change(y);
      if ((cx === null) !== (cy === null)) return cx === null ? 1 : -1;
      if (cx !== cy) return cx - cy;
      return DOCS[x[0]] < DOCS[y[0]] ? -1 : 1;
    });
    const worse = rows.filter((r) => change(r) !== null && change(r) < 0).length;
    const better = rows.filter((r) => change(r) !== null && change(r) > 0).length;
    flips.appendChild(el("caption", { text: rows.length + " flipped documents (of " + docs.length
      + " shown): " + better + " better, " + worse + " worse for " + SYSTEMS[h] }));
    flips.appendChild(el("thead", {}, [el("tr", {}, [
      el("th", { scope: "col", text: "Document" }), el("th", { class: "num", scope: "col" }, [bdi(SYSTEMS[b]), " (%)"]),
      el("th", { class: "num", scope: "col" }, [bdi(SYSTEMS[h]), " (%)"]), el("th", { class: "num", scope: "col", text: "Change (points)" })])]));
    const body = el("tbody");
    for (const r of rows) {
      const c = change(r);
      body.appendChild(el("tr", {}, [
        el("td", {}, [el("button", { type: "button", "aria-label": "Drill into " + DOCS[r[0]] + " for " + SYSTEMS[h],
          title: docTitle(r[0]), onclick: () => openDrill(r[0], h) }, [bdi(DOCS[r[0]])])]),
        el("td", { class: "num", text: pct(r[1]) }), el("td", { class: "num", text: pct(r[2]) }),
        el("td", { class: "num " + (c === null ? "" : c < 0 ? "bad" : "good"), text: signedPts(c) })]));
    }
    flips.appendChild(body);
  }

  function buildAB() {
    const board = boardRows(DOCS.map((_, d) => d));
    state.head = board[0].s;
    state.base = board.length > 1 ? board[1].s : board[0].s;
    const options = SYSTEMS.map((sys, s) => [s, name(s)]);
    const base = document.getElementById("ab-base"), head = document.getElementById("ab-head");
    select(base, options, state.base, (s) => { state.base = s; renderAB(shownDocs()); });
    select(head, options, state.head, (s) => { state.head = s; renderAB(shownDocs()); });
    document.getElementById("ab-swap").addEventListener("click", () => {
      [state.base, state.head] = [state.head, state.base];
      base.value = String(state.base);
      head.value = String(state.head);
      renderAB(shownDocs());
    });
  }

  // ---------------------------------------------------------------- cost and latency

  // Score (with its interval) against mean cost per document and against median
  // latency, as summary.json's "costs" gives them; the frontier (no other system
  // significantly better at no more cost, or tied and cheaper) drawn as a line. Each
  // point is a link to its system's Fields view. Built only when the data has costs.
  const SVG_NS = "http://www.w3.org/2000/svg";

  function svg(tag, attrs, children) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value);
    }
    for (const child of children || []) if (child) node.appendChild(child);
    return node;
  }

  function ticks(low, high, count) {
    const span = high - low || 1;
    const raw = span / count;
    const mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const unit = [1, 2, 5, 10].map((m) => m * mag).find((u) => span / u <= count) || 10 * mag;
    const out = [];
    for (let v = Math.ceil(low / unit) * unit; v <= high + unit * 1e-9; v += unit) out.push(v);
    return { values: out, digits: Math.max(0, -Math.floor(Math.log10(unit))) };
  }

  function openSystem(s) {
    state.fieldSystem = s;
    document.getElementById("field-system").value = String(s);
    renderFields(shownDocs());
  }

  function scatter(kind, title, unit, value, onFrontier) {
    const W = 560, H = 320, L = 60, R = 20, T = 16, B = 46;
    const pts = [];
    SYSTEMS.forEach((sys, s) => {
      const c = SUMMARY.costs[sys], iv = SUMMARY.intervals[sys];
      const x = c ? value(c) : null, y = SUMMARY.aggregates[sys];
      if (x !== null && x !== undefined && y !== null) {
        pts.push({ s, x, y, low: iv.low === null ? y : iv.low, high: iv.high === null ? y : iv.high,
          on: onFrontier(c) === true });
      }
    });
    const missing = SYSTEMS.filter((sys) => {
      const c = SUMMARY.costs[sys];
      return !(c && value(c) !== null && value(c) !== undefined);
    });
    const figure = el("figure", { class: "scatter", id: "scatter-" + kind });
    figure.appendChild(el("figcaption", { text: title }));
    if (!pts.length) {
      figure.appendChild(el("p", { class: "note", text: "No system reports it." }));
      return figure;
    }
    const xMax = Math.max(...pts.map((p) => p.x)) * 1.1 || 1;
    const yLow = Math.min(...pts.map((p) => p.low)), yHigh = Math.max(...pts.map((p) => p.high));
    const pad = Math.max(0.005, (yHigh - yLow) * 0.08);
    const y0 = Math.max(0, yLow - pad), y1 = Math.min(1, yHigh + pad);
    const X = (v) => L + (W - L - R) * v / xMax;
    const Y = (v) => T + (H - T - B) * (1 - (v - y0) / ((y1 - y0) || 1));
    const chart = svg("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H,
      role: "group", "aria-label": title, class: "scatter-svg" });
    chart.appendChild(svg("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, class: "axis-line" }));
    chart.appendChild(svg("line", { x1: L, y1: T, x2: L, y2: H - B, class: "axis-line" }));
    const xt = ticks(0, xMax, 5), yt = ticks(100 * y0, 100 * y1, 5);
    for (const v of xt.values) {
      chart.appendChild(svg("text", { x: X(v), y: H - B + 16, "text-anchor": "middle",
        class: "tick", text: v.toFixed(xt.digits) }));
    }
    for (const v of yt.values) {
      chart.appendChild(svg("text", { x: L - 6, y: Y(v / 100) + 4, "text-anchor": "end",
        class: "tick", text: v.toFixed(yt.digits) }));
    }
    chart.appendChild(svg("text", { x: (L + W - R) / 2, y: H - 8, "text-anchor": "middle",
      class: "axis-title", text: unit }));
    chart.appendChild(svg("text", { x: 14, y: (T + H - B) / 2, "text-anchor": "middle",
      transform: "rotate(-90 14 " + (T + H - B) / 2 + ")", class: "axis-title",
      text: "score (%)" }));
    const front = pts.filter((p) => p.on).sort((a, b) => a.x - b.x || a.y - b.y);
    if (front.length) {
      chart.appendChild(svg("polyline", { class: "frontier",
        points: front.map((p) => X(p.x).toFixed(1) + "," + Y(p.y).toFixed(1)).join(" ") }));
    }
    const conf = Math.round(100 * SUMMARY.bootstrap.confidence);
    for (const p of pts) {
      const label = name(p.s) + ": score " + pct(p.y) + "% [" + pct(p.low) + ", "
        + pct(p.high) + "], " + unit + " " + p.x.toPrecision(4)
        + (p.on ? ", on the frontier" : "");
      const link = svg("a", { href: "#fields", class: "point-link", "data-system": SYSTEMS[p.s],
        "data-frontier": p.on ? "yes" : "no", "aria-label": label,
        onclick: () => openSystem(p.s) }, [
        svg("title", { text: label + " (" + conf + "% interval). Open its fields." }),
        svg("line", { x1: X(p.x), x2: X(p.x), y1: Y(p.low), y2: Y(p.high), class: "whisker" }),
        svg("circle", { cx: X(p.x), cy: Y(p.y), r: 5,
          class: p.on ? "dot on-frontier" : "dot" }),
        svg("text", { x: X(p.x) + 8, y: Y(p.y) - 6, class: "dot-label", text: name(p.s) }),
      ]);
      chart.appendChild(link);
    }
    figure.appendChild(chart);
    if (missing.length) {
      figure.appendChild(el("p", { class: "note",
        text: "Not placed (no value): " + missing.join(", ") + "." }));
    }
    return figure;
  }

  function buildCosts() {
    if (!SUMMARY.costs) return;
    const board = document.getElementById("leaderboard");
    const section = el("section", { id: "costs", "aria-labelledby": "costs-h" }, [
      el("h2", { id: "costs-h", text: "Cost and latency" }),
      el("p", { class: "note", text: "Score (all documents, with its interval) against "
        + "the mean cost per document and the median latency, as summary.json gives them. "
        + "The line joins the frontier: no other system is significantly better in score "
        + "at no more cost (latency), or tied in score and strictly cheaper (faster). "
        + "Choose a point to open its system's fields." }),
      el("div", { class: "scatters" }, [
        scatter("cost", "Score against cost", "cost per document (USD)",
          (c) => c.cost, (c) => c.cost_frontier),
        scatter("latency", "Score against latency", "median latency (s)",
          (c) => c.latency_median, (c) => c.latency_frontier),
      ]),
    ]);
    board.parentNode.insertBefore(section, board.nextSibling);
    const nav = document.querySelector("header nav");
    nav.insertBefore(el("a", { href: "#costs", text: "Cost and latency" }), nav.children[1]);
  }

  // ---------------------------------------------------------------- all views

  function renderAll() {
    const docs = shownDocs();
    document.getElementById("doc-count").textContent = docs.length === DOCS.length
      ? "Showing all " + DOCS.length + " documents."
      : "Showing " + docs.length + " of " + DOCS.length + " documents.";
    renderBoard(docs);
    renderHeat(docs);
    renderFields(docs);
    renderDrill(docs);
    renderAB(docs);
  }

  document.getElementById("mean-rule").textContent = "Score: " + DATA.mean_rule + ".";
  const leader = boardRows(DOCS.map((_, d) => d))[0].s;
  state.fieldSystem = leader;
  state.drillSystem = leader;
  // Open the drill-down on the leader's worst document: the first place worth a look.
  DATA.scores[leader].forEach((v, d) => {
    const now = DATA.scores[leader][state.drillDoc];
    if (v !== null && (now === null || v < now)) state.drillDoc = d;
  });
  buildFilters();
  buildHeat();
  buildFields();
  buildDrill();
  buildAB();
  buildCosts();
  renderAll();
  window.__rendered = true;
  window.__renderMs = performance.now();
}());
