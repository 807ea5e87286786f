"""Publication figures (issue 25; ``leafscore plot``, leafscore.plot): files a test can
open, the same bytes on every run, the signature in a caption line."""

from __future__ import annotations

import builtins
import dataclasses
import io
import itertools
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import invoke, make_benchmark, private_cache  # noqa: F401 (fixture)

REPO = Path(__file__).resolve().parent.parent
SIX = ("claude", "docupipe_high", "docupipe_standard", "extend", "gemini", "gpt")

pytest.importorskip("matplotlib")


def _plot(tmp_path: Path, *args: str | Path) -> Path:
    result = invoke("plot", *args)
    assert result.exit_code == 0, result.stderr
    return Path(result.stdout.strip())


def _svg_text(path: Path) -> str:
    root = ElementTree.parse(path).getroot()
    return " ".join(t.strip() for t in root.itertext() if t.strip())


def test_docubench_board_svg_parses_as_xml_holding_every_system_and_the_signature(
        shared, tmp_path):
    out = _plot(tmp_path, shared / "docubench", "--out", tmp_path / "board.svg", "--no-cache")
    text = _svg_text(out)
    for system in SIX:
        assert system in text
    assert "leafscore:2.1|" in text  # the caption line: the signature


def test_docubench_frontier_png_decodes_at_its_size(shared, tmp_path):
    from matplotlib import image

    out = _plot(tmp_path, shared / "docubench", "--kind", "frontier", "--out",
                tmp_path / "f.png", "--no-cache")
    pixels = image.imread(io.BytesIO(out.read_bytes()), format="png")
    assert pixels.shape[:2] == (630, 1440)  # 9.6 x 4.2 inches at 150 dpi


def _run_twice(tmp_path: Path, root: Path, *args: str) -> tuple[bytes, bytes]:
    """Two runs in two fresh processes (fonts, caches and hash seeds all fresh)."""
    made = []
    for run in ("one", "two"):
        out = tmp_path / run / Path(args[-1]).name
        out.parent.mkdir()
        command = [sys.executable, "-m", "leafscore", "plot", str(root), *args[:-1],
                   str(out), "--no-cache"]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
        made.append(out.read_bytes())
    return made[0], made[1]


@pytest.mark.parametrize("args", [("--out", "board.svg"),
                                  ("--kind", "frontier", "--out", "f.png"),
                                  ("--kind", "frontier", "--out", "f.pdf")])
def test_docubench_figures_are_byte_identical_across_two_runs(shared, tmp_path, args):
    first, second = _run_twice(tmp_path, shared / "docubench", *args)
    assert first == second


def test_svg_and_pdf_metadata_hold_no_date_and_no_version(tmp_path):
    svg = _plot(tmp_path, REPO, "--out", tmp_path / "b.svg", "--no-cache").read_text()
    pdf = _plot(tmp_path, REPO, "--out", tmp_path / "b.pdf", "--no-cache").read_bytes()
    assert "<dc:date>" not in svg and "Matplotlib v" not in svg
    assert b"CreationDate" not in pdf and b"ModDate" not in pdf
    assert b"/Producer (leafscore)" in pdf


def test_fields_figure_names_the_chosen_systems(tmp_path):
    out = _plot(tmp_path, REPO, "--kind", "fields", "--system", "atlas", "--system",
                "drift", "--out", tmp_path / "fields.svg", "--no-cache")
    text = _svg_text(out)
    assert "atlas" in text and "drift" in text and "cobalt" not in text


def test_the_board_figure_marks_ties_with_the_leader(shared, tmp_path):
    out = _plot(tmp_path, shared / "docubench", "--out", tmp_path / "b.svg", "--no-cache")
    text = _svg_text(out)
    assert "docupipe_standard ≈" in text and "gemini ≈" in text and "gpt ≈" not in text


def test_a_frontier_without_costs_is_exit_2_with_one_line(tmp_path):
    root = make_benchmark(tmp_path / "b", {"a": {"a": "x"}}, {"s": {"a": {"a": "x"}}})
    result = invoke("plot", root, "--kind", "frontier", "--out", tmp_path / "f.svg",
                    "--version", "2.1")
    assert result.exit_code == 2
    assert result.stderr.strip().count("\n") == 0
    assert "no result envelope gives a cost or a latency" in result.stderr
    assert not (tmp_path / "f.svg").exists()


def test_an_unknown_suffix_is_exit_2(tmp_path):
    result = invoke("plot", REPO, "--out", tmp_path / "board.jpg")
    assert result.exit_code == 2
    assert "must end in .svg, .png or .pdf" in result.stderr


def test_without_matplotlib_plot_says_to_install_the_extra(tmp_path, monkeypatch):
    real = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError(f"No module named {name!r}")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    result = invoke("plot", REPO, "--out", tmp_path / "b.svg")
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        "leafscore: error: leafscore plot needs matplotlib: pip install 'leafscore[plot]'"]


def test_matplotlib_is_imported_by_the_plot_command_only():
    code = ("import sys, leafscore.cli, leafscore.api; "
            "print('matplotlib' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "False"


def _cost_ticks(scale: float = 1.0) -> list[tuple[str, Any]]:
    """The cost axis's tick labels of the sample's frontier, costs times ``scale``: each
    label's text and its window extent, for the ticks inside the axis."""
    import matplotlib.pyplot as plt

    import leafscore
    from leafscore import plot

    board = leafscore.evaluate(REPO, cache=False).leaderboard()
    board = dataclasses.replace(board, costs=tuple(
        dataclasses.replace(c, cost=c.cost * scale) for c in board.costs))
    figure = plot.draw(board, "frontier")
    try:
        figure.canvas.draw()
        renderer = figure.canvas.get_renderer()
        axes = figure.axes[0]
        low, high = axes.get_xlim()
        return [(t.label1.get_text(), t.label1.get_window_extent(renderer))
                for t in axes.xaxis.get_major_ticks() if low <= t.get_loc() <= high]
    finally:
        plt.close(figure)


def test_the_frontier_cost_axis_reads_as_plain_decimals_a_fifth_of_the_range_apart():
    # It read "0.00000.00250.0050...": nine labels of six places ran into each other.
    assert [text for text, _ in _cost_ticks()] == ["0", "0.005", "0.01", "0.015", "0.02"]


@pytest.mark.parametrize("scale", [1e-4, 0.37, 1.0, 3.1, 1000.0])
def test_no_two_cost_tick_labels_overlap_at_any_scale_of_cost(scale):
    ticks = _cost_ticks(scale)
    assert 3 <= len(ticks) <= 6
    assert all(left.x1 < right.x0 for (_, left), (_, right) in itertools.pairwise(ticks))


def test_a_tick_value_prints_as_plain_decimal_text_without_float_noise():
    from leafscore.plot import plain_decimal

    assert [plain_decimal(x) for x in (0.0, 0.015000000000000001, 1e-05, -0.0)] == [
        "0", "0.015", "0.00001", "0"]
