"""Every example in a command's --help runs on the shipped sample and exits 0."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys

import pytest
from cli_helpers import REPO

from leafscore.cli import main

COMMAND = f"{shlex.quote(sys.executable)} -m leafscore"


def examples() -> list[tuple[str, str]]:
    """(command name, example line) for every example of every --help epilog."""
    out = []
    for name, command in sorted({"": main, **main.commands}.items()):
        for line in (command.epilog or "").splitlines():
            if line.startswith("  leafscore"):
                out.append((name or "leafscore", line.strip()))
    return out


def test_every_command_has_examples():
    named = {name for name, _ in examples()}
    assert named == {"leafscore", *main.commands}


@pytest.mark.parametrize(("name", "line"), examples(), ids=[e[1] for e in examples()])
def test_the_help_example_runs_on_the_sample(name, line, tmp_path_factory):
    work = tmp_path_factory.getbasetemp() / "sample-copy"
    if not work.exists():  # one writable copy of the repository's sample for every example
        for part in ("schemas", "labels", "results", "examples", "documents"):
            if (REPO / part).is_dir():
                shutil.copytree(REPO / part, work / part)
        for part in ("benchmark.toml", "sources.json", "README.md", "metadata.json"):
            if (REPO / part).is_file():
                shutil.copy(REPO / part, work / part)
    shell = re.sub(r"(^|&& )leafscore ", lambda m: f"{m.group(1)}{COMMAND} ", line)
    env = {**os.environ, "PYTHONPATH": str(REPO),
           "XDG_CACHE_HOME": str(tmp_path_factory.getbasetemp() / "example-cache")}
    done = subprocess.run(shell, shell=True, cwd=work, env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, f"{line}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
