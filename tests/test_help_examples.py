"""Every ``--help`` ends with an Examples block, and each example runs on the shipped
sample and exits 0.

Each example runs from the root of a writable copy of the sample (``report`` writes
results/summary.*, ``leaderboard --update README.md`` rewrites README.md), with any
``/tmp/...`` path it names moved under pytest's tmp folder; ``&&`` chains run in order.
"""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

import pytest
from cli_helpers import REPO, copy_tree, invoke, private_cache  # noqa: F401 (autouse)

from leafscore.cli import main

HEADER = "Examples (on the sample shipped in the repository):"
HELPS = [(), *((name, ) for name in sorted(main.commands))]


def help_text(command: tuple[str, ...]) -> str:
    result = invoke(*command, "--help")
    assert result.exit_code == 0
    return result.stdout


def examples(command: tuple[str, ...]) -> list[str]:
    """The example lines at the end of ``leafscore COMMAND --help``."""
    text = help_text(command)
    block = text.rstrip("\n").rsplit(HEADER, 1)[1]
    return [line.strip() for line in block.splitlines() if line.strip()]


def label(command: tuple[str, ...]) -> str:
    return " ".join(("leafscore", *command))


@pytest.mark.parametrize("command", HELPS, ids=label)
def test_every_help_ends_with_an_examples_block_of_leafscore_lines(command):
    text = help_text(command)
    assert HEADER in text
    lines = examples(command)
    assert lines, f"{label(command)} --help has no examples"
    for line in lines:
        assert all(part.strip().startswith("leafscore ") or part.strip() == "leafscore"
                   for part in line.split("&&")), line


@pytest.mark.parametrize("command", [c for c in HELPS if c], ids=label)
def test_every_commands_examples_use_that_command(command):
    for line in examples(command):
        assert f"leafscore {command[0]}" in line, line


@pytest.mark.parametrize("command", HELPS, ids=label)
def test_every_help_example_runs_on_a_copy_of_the_sample_and_exits_0(command, tmp_path,
                                                                     monkeypatch):
    for number, line in enumerate(examples(command)):
        work = copy_tree(REPO, tmp_path / f"sample-{number}")
        shutil.copytree(REPO / "examples", work / "examples")
        shutil.copy(REPO / "README.md", work / "README.md")
        monkeypatch.chdir(work)
        scratch = tmp_path / f"tmp-{number}"
        for part in line.split("&&"):
            words = [word.replace("/tmp/", f"{scratch}/") for word in shlex.split(part)]
            result = invoke(*words[1:])
            assert result.exit_code == 0, f"`{part.strip()}`: {result.stderr}"


def test_the_report_examples_write_where_they_say(tmp_path, monkeypatch):
    monkeypatch.chdir(copy_tree(REPO, tmp_path / "sample"))
    for line in examples(("report",)):
        words = [w.replace("/tmp/", f"{tmp_path}/") for w in shlex.split(line)]
        assert invoke(*words[1:]).exit_code == 0
    written = tmp_path / "leafscore-report"
    assert {p.name for p in written.iterdir()} >= {"summary.json", "summary.csv",
                                                   "verdicts.csv"}


def test_the_update_example_leaves_the_readme_of_the_copy_as_committed(tmp_path, monkeypatch):
    work = copy_tree(REPO, tmp_path / "sample")
    shutil.copy(REPO / "README.md", work / "README.md")
    monkeypatch.chdir(work)
    assert "leafscore leaderboard --update README.md" in examples(("leaderboard",))
    assert invoke("leaderboard", "--update", "README.md").exit_code == 0
    assert Path("README.md").read_bytes() == (REPO / "README.md").read_bytes()
