"""Publication figures of a leaderboard: scores with intervals and tie marks, the
cost/latency frontier, and per-field F1 (``leafscore plot``).

matplotlib is an optional extra (``pip install 'leafscore[plot]'``), imported only
here and only when a figure is drawn (:func:`require`). Output is deterministic: the Agg
backend, the DejaVu Sans font matplotlib ships (SVG keeps text as text), a fixed
``svg.hashsalt``, and no date, creator version or tool version in the SVG, PDF or PNG
metadata; so the same inputs give the same bytes and a figure can be committed and
checked like a summary. Every figure carries the board's signature in a caption line.
"""

from __future__ import annotations

import contextlib
import io
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from leafscore.leaderboard import Leaderboard

__all__ = ["FORMATS", "KINDS", "PlotError", "draw", "require", "save"]

#: Figure kinds of ``leafscore plot --kind``.
KINDS: tuple[str, ...] = ("board", "frontier", "fields")
#: File suffixes written, by format.
FORMATS: tuple[str, ...] = ("svg", "png", "pdf")
#: Resolution of PNG output (dots per inch).
PNG_DPI = 150
#: The style every figure is drawn in (rcParams), fixed for reproducible bytes.
STYLE: dict[str, Any] = {
    "font.family": "DejaVu Sans", "font.size": 9.0, "svg.hashsalt": "leafscore",
    "svg.fonttype": "none", "pdf.fonttype": 42, "axes.spines.top": False,
    "axes.spines.right": False, "figure.dpi": 100.0, "savefig.dpi": PNG_DPI,
    "path.simplify": False,
}
#: Metadata written per format: nothing that changes between runs.
METADATA: dict[str, dict[str, Any]] = {
    "svg": {"Date": None, "Creator": "leafscore"},
    "pdf": {"CreationDate": None, "ModDate": None, "Creator": "leafscore",
            "Producer": "leafscore"},
    "png": {"Software": "leafscore"},
}
FRONTIER_COLOUR = "#0072B2"
POINT_COLOUR = "#333333"
#: Field rows drawn at most in a ``fields`` figure (the worst F1 first).
MAX_FIELDS = 40
#: Intervals between ticks on the cost axis at most: costs per document are small
#: decimals (0.0125) whose labels, at matplotlib's default density, run into each other.
COST_BINS = 5


class PlotError(ValueError):
    """A figure that cannot be drawn from this board (one line saying why)."""


def require() -> Any:
    """``matplotlib`` with the Agg backend; ``ImportError`` naming the extra when absent."""
    try:
        import matplotlib
    except ImportError as exc:
        raise ImportError("leafscore plot needs matplotlib: pip install 'leafscore[plot]'"
                          ) from exc
    matplotlib.use("Agg", force=True)
    return matplotlib


@contextlib.contextmanager
def _style() -> Iterator[Any]:
    matplotlib = require()
    with matplotlib.rc_context(STYLE):
        import matplotlib.pyplot as plt

        yield plt


@dataclass(frozen=True)
class FieldSeries:
    """Per-field F1 of one system: ``f1`` maps field path -> F1 in [0, 1] or None."""

    system: str
    f1: dict[str, float | None]


def draw(board: Leaderboard, kind: str, *, fields: Sequence[FieldSeries] = ()) -> Any:
    """A matplotlib ``Figure`` of ``board``.

    ``kind``: ``"board"`` (each system's score in % with its interval, best first,
    ``≈`` beside a system tied with the leader), ``"frontier"`` (score against mean cost
    per document in USD and against median latency in seconds, intervals as whiskers,
    the frontier joined by a line; needs ``board.costs``), or ``"fields"`` (the F1 in %
    of each field for each of ``fields``, worst first, at most :data:`MAX_FIELDS`).
    Raises :class:`PlotError` for an unknown kind or a figure without data, and
    ``ImportError`` when matplotlib is absent. Close the figure with :func:`save`.
    """
    if kind not in KINDS:
        raise PlotError(f"--kind {kind!r} is not one of {', '.join(KINDS)}")
    with _style() as plt:
        if kind == "board":
            figure = _board(plt, board)
        elif kind == "frontier":
            figure = _frontier(plt, board)
        else:
            figure = _fields(plt, board, fields)
        figure.text(0.01, 0.005, board.signature, fontsize=6.0, color="#555555",
                    ha="left", va="bottom")
    return figure


def save(figure: Any, fmt: str) -> bytes:
    """The bytes of ``figure`` as ``fmt`` (one of :data:`FORMATS`), deterministic; the
    figure is closed. Raises :class:`PlotError` for another format."""
    if fmt not in FORMATS:
        raise PlotError(f"cannot write .{fmt}: the figure's file must end in "
                        f"{', '.join('.' + f for f in FORMATS)}")
    with _style() as plt:
        buffer = io.BytesIO()
        try:
            figure.savefig(buffer, format=fmt, metadata=METADATA[fmt],
                           dpi=PNG_DPI if fmt == "png" else None)
        finally:
            plt.close(figure)
    return buffer.getvalue()


def _board(plt: Any, board: Leaderboard) -> Any:
    rows = [r for r in board.rows if r.score is not None]
    if not rows:
        raise PlotError("no system has a scored document: nothing to plot")
    figure, axes = plt.subplots(figsize=(6.4, 0.45 * len(rows) + 1.4))
    for y, row in enumerate(rows):
        low = row.low if row.low is not None else row.score
        high = row.high if row.high is not None else row.score
        axes.plot([100 * low, 100 * high], [y, y], color=POINT_COLOUR, linewidth=1.5)
        axes.plot([100 * row.score], [y], "o", color=FRONTIER_COLOUR if row.rank == 1
                  else POINT_COLOUR, markersize=5)
        axes.text(100 * high, y, f"  {100 * row.score:.2f}", va="center", fontsize=8)
    names = [f"{r.system} ≈" if r.tie else r.system for r in rows]
    axes.set_yticks(range(len(rows)), names)
    axes.invert_yaxis()
    level = f"{100 * board.confidence:g}%"
    axes.set_xlabel(f"score (%), {level} bootstrap interval")
    axes.set_title(f"Leaderboard ({board.documents} documents, version {board.version}); "
                   "≈ tied with the leader", fontsize=9.0, loc="left")
    figure.subplots_adjust(left=0.25, right=0.92, bottom=0.22 if len(rows) < 4 else 0.15)
    return figure


def _frontier(plt: Any, board: Leaderboard) -> Any:
    costs = board.costs
    if costs is None:
        raise PlotError("no result envelope gives a cost or a latency: no frontier to plot "
                        "(see docs/CLI.md, Cost and latency)")
    from matplotlib import ticker

    scores = {r.system: r for r in board.rows}
    figure, panels = plt.subplots(1, 2, figsize=(9.6, 4.2))
    cost_axis = panels[0].xaxis
    cost_axis.set_major_locator(ticker.MaxNLocator(nbins=COST_BINS, steps=[1, 2, 5, 10]))
    cost_axis.set_major_formatter(ticker.FuncFormatter(plain_decimal))
    for axes, (value, mark, label) in zip(panels, (
            (lambda c: c.cost, lambda c: c.cost_frontier, "mean cost per document (USD)"),
            (lambda c: c.latency_median, lambda c: c.latency_frontier,
             "median latency (s)")), strict=True):
        points = [(value(c), scores[c.system], mark(c)) for c in costs
                  if value(c) is not None and scores[c.system].score is not None]
        axes.set_xlabel(label)
        axes.set_ylabel("score (%)")
        if not points:
            axes.text(0.5, 0.5, "no system reports it", ha="center", va="center",
                      transform=axes.transAxes)
            continue
        for x, row, on in points:
            low = row.low if row.low is not None else row.score
            high = row.high if row.high is not None else row.score
            axes.plot([x, x], [100 * low, 100 * high], color=POINT_COLOUR, linewidth=1.2)
            axes.plot([x], [100 * row.score], "o", markersize=5,
                      color=FRONTIER_COLOUR if on else "white",
                      markeredgecolor=FRONTIER_COLOUR if on else POINT_COLOUR)
            axes.annotate(row.system, (x, 100 * row.score), xytext=(5, 4),
                          textcoords="offset points", fontsize=7.5)
        front = sorted((x, 100 * row.score) for x, row, on in points if on)
        if front:
            axes.plot([x for x, _ in front], [y for _, y in front], linestyle="--",
                      color=FRONTIER_COLOUR, linewidth=1.2)
        axes.set_xlim(left=0.0, right=max(x for x, _, _ in points) * 1.15 or 1.0)
    figure.suptitle("Score against cost and latency; filled and joined: the frontier (no "
                    "other system significantly better at no more cost, or tied and "
                    "cheaper)", fontsize=8.5, x=0.01, ha="left")
    figure.subplots_adjust(left=0.08, right=0.98, bottom=0.2, top=0.88, wspace=0.25)
    return figure


def plain_decimal(value: float, _position: Any = None) -> str:
    """A tick value as plain decimal text, no exponent, offset or trailing zeros (a tick
    label of the cost axis): ``0.005``, ``0.00001``, ``0``.

    >>> [plain_decimal(x) for x in (0.0, 0.005, 0.015000000000000001, 1e-05, 2.5)]
    ['0', '0.005', '0.015', '0.00001', '2.5']
    """
    # Rounded to 12 places first: tick values are multiples of a step, off by float noise.
    text = f"{round(value, 12):.12f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def _fields(plt: Any, board: Leaderboard, series: Sequence[FieldSeries]) -> Any:
    if not series:
        raise PlotError("no system chosen for the fields figure")
    paths = sorted({p for s in series for p in s.f1},
                   key=lambda p: (min((s.f1.get(p) if s.f1.get(p) is not None else 2.0)
                                      for s in series), p))[:MAX_FIELDS]
    if not paths:
        raise PlotError("no scored field: nothing to plot")
    height = 0.8 / len(series)
    figure, axes = plt.subplots(figsize=(6.4, 0.28 * len(paths) * max(1, len(series) / 2)
                                         + 1.6))
    greys = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000"]
    for index, one in enumerate(series):
        ys = [y + (index - (len(series) - 1) / 2) * height for y in range(len(paths))]
        values = [0.0 if one.f1.get(p) is None or math.isnan(one.f1[p]) else
                  100 * one.f1[p] for p in paths]
        axes.barh(ys, values, height=height, color=greys[index % len(greys)],
                  label=one.system)
    axes.set_yticks(range(len(paths)), paths, fontsize=7.0)
    axes.invert_yaxis()
    axes.set_xlim(0, 100)
    axes.set_xlabel("field F1 (%)")
    axes.legend(fontsize=7.5, loc="lower right", frameon=False)
    axes.set_title(f"Per-field F1, worst first ({board.documents} documents)",
                   fontsize=9.0, loc="left")
    figure.subplots_adjust(left=0.38, right=0.97, bottom=0.08 + 0.3 / len(paths))
    return figure
