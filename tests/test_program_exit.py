"""How the program ends (``leafscore.__main__.leave``): as Python's own exit would, seen
from outside (exit handlers run, output flushed whole, the exit code kept), and by
Python's own exit where it has more to do (a thread still working, a message for a
code). That the interpreter is not torn down is a matter of time, measured in
``benchmarks/bench_docubench.py``, not asserted here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from cli_helpers import REPO, make_benchmark


def program(tmp_path: Path, before: str, *argv: str) -> subprocess.CompletedProcess:
    """``leafscore ARGV`` run as the console script runs it (``__main__.run``), after
    ``before`` (Python source) in the same process."""
    code = textwrap.dedent(before) + textwrap.dedent(f"""
        import sys
        sys.argv = ["leafscore", *{list(argv)!r}]
        from leafscore.__main__ import run
        run()
        """)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=tmp_path, env=env, timeout=120)


def test_exit_handlers_run_and_the_error_code_is_kept(tmp_path):
    done = program(tmp_path, f"""
        import atexit, pathlib
        atexit.register(pathlib.Path({str(tmp_path / "ran")!r}).write_text, "yes")
        """, "score", str(tmp_path / "absent"))
    assert done.returncode == 2
    assert "benchmark folder does not exist" in done.stderr
    assert (tmp_path / "ran").read_text() == "yes"


def test_an_output_larger_than_a_pipe_holds_is_written_whole(tmp_path):
    labels = {f"d{k:04d}": {"name": f"n{k}", "total": k} for k in range(1500)}
    results = {system: {doc: {"name": f"n{k}", "total": k + (system == "b")}
                        for k, doc in enumerate(labels)} for system in ("a", "b")}
    root = make_benchmark(tmp_path / "bench", labels, results)
    done = program(tmp_path, "", "score", str(root), "--no-cache", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert len(done.stdout) > 100_000  # past a pipe's 64 KiB: the rest flushed at the end
    assert json.loads(done.stdout)["version"] == "2.1"  # parsed whole: nothing cut off
    expected = subprocess.run(
        [sys.executable, "-m", "leafscore", "score", str(root), "--no-cache", "--format",
         "json", "--workers", "1"], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert done.stdout == expected.stdout


def test_a_thread_still_working_is_waited_for(tmp_path):
    done = program(tmp_path, f"""
        import pathlib, threading, time
        def late():
            time.sleep(0.5)
            pathlib.Path({str(tmp_path / "late")!r}).write_text("finished")
        threading.Thread(target=late).start()
        """, "--version")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "late").read_text() == "finished"


def test_a_message_for_a_code_is_printed_as_python_prints_it(tmp_path):
    done = program(tmp_path, """
        import leafscore.cli, sys
        leafscore.cli.main = lambda: sys.exit("stopped: a message")
        """)
    assert done.returncode == 1
    assert done.stderr.strip() == "stopped: a message"



@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("command", [["score", "--no-cache", "--format", "json"],
                                     ["validate"], ["explore", "--out", "{page}"]])
def test_output_that_cannot_be_written_is_an_error_naming_standard_output(tmp_path, command):
    # data; a status line; the path of a page written (the page itself could be)
    root = make_benchmark(tmp_path / "bench", {"d1": {"name": "n", "total": 1}},
                          {"a": {"d1": {"name": "n", "total": 1}}})
    command = [part.format(page=tmp_path / "page.html") for part in command]
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "leafscore", command[0], str(root),
                               *command[1:], "--quiet"], stdout=full,
                              stderr=subprocess.PIPE, text=True, cwd=REPO, timeout=120)
    assert done.returncode == 2
    assert done.stderr == "leafscore: error: standard output: No space left on device\n"
