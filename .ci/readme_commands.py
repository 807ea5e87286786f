"""Run every command of README.md's ``sh`` blocks in the repository root, as a new user
would after the quick start: each through bash, with the venv's ``bin`` first on PATH.

The README's two commands (the quick start and the test command, each making the venv,
which ``.ci/run`` runs itself as written) are left out, and comments; any other install
line (an extra, such as ``.[plot]``) runs as the README says. Exit 1 at the first
command that fails, naming it. The point is what comes after: ``.ci/run`` runs the test
suite once these commands have left their files in the sample (issue 24: the suite must
be hermetic).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LEFT_OUT = ("python3 -m venv",)  # the README's two commands: .ci/run runs them itself


def commands(readme: Path) -> list[str]:
    """The lines of the ```sh blocks, backslash continuations joined, comments dropped."""
    out, inside, pending = [], False, ""
    for line in readme.read_text(encoding="utf-8").splitlines():
        if line.strip() == "```sh":
            inside = True
        elif inside and line.strip() == "```":
            inside = False
        elif inside:
            if line.endswith("\\"):
                pending += line[:-1]
                continue
            command, pending = (pending + line).split("#", 1)[0].strip(), ""
            if command and not any(part in command for part in LEFT_OUT):
                out.append(command)
    return out


def main() -> int:
    venv_bin = REPO / ".venv" / "bin"
    env = {**os.environ, "PATH": f"{venv_bin}{os.pathsep}{os.environ.get('PATH', '')}",
           "VIRTUAL_ENV": str(REPO / ".venv")}
    for command in commands(REPO / "README.md"):
        print(f"$ {command}", flush=True)
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", command],
                              cwd=REPO, env=env, stdout=subprocess.DEVNULL, check=False)
        if done.returncode != 0:
            print(f"README command failed with exit {done.returncode}: {command}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
