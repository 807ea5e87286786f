"""``python -m leafscore`` and the ``leafscore`` console script: the CLI as a program."""

import atexit
import gc
import os
import sys
import threading
from typing import NoReturn

from leafscore import early


def run() -> None:
    """Run the CLI (``leafscore.cli.main``) and exit with its code.

    Before the CLI is imported, the label checks' process is forked (``early.start``, on
    two or more processors): it imports jsonschema while this process imports the rest.
    Measured on DocuBench, medians of 21 alternating whole runs: 1.04x and 1.09x faster
    than forking it once the benchmark is read.

    The CLI's exit is :func:`leave`'s: the exit handlers run, the output is flushed, and
    the process ends without tearing the interpreter down. Where that cannot be (a
    thread still working), at exit every object left goes to the collector's permanent
    generation (``gc.freeze``), so the interpreter's last collection does not scan them
    all. Measured on DocuBench: 18 ms -> 7 ms from the end of ``main`` to the end of the
    process with the freeze."""
    atexit.register(gc.freeze)  # registered first, so called last
    early.start()
    from leafscore.cli import main  # imported while the early process imports jsonschema

    try:
        main()
    except SystemExit as done:
        leave(done)


def leave(done: SystemExit) -> NoReturn:
    """End the process as ``raise done`` would, less the interpreter's teardown (every
    module and object freed one by one, which the system does at once): the exit
    handlers (``atexit``: multiprocessing's, which stops the forked children, and every
    ``weakref.finalize``) run, standard output and error are flushed, then
    ``os._exit`` with the code. Every file the program writes is closed before (each
    written in a ``with`` block), so nothing is left in a buffer. Measured on DocuBench,
    ``leafscore score --no-cache``: 0.977x the wall time, median of the ratios of 21
    alternating pairs of runs.

    Raises ``done`` instead, the usual exit, when a thread other than a daemonic one is
    still running (Python waits for it), when the code is not an integer (Python prints
    it), or when the output cannot be flushed (a closed pipe: Python reports it)."""
    code = done.code
    waited = any(not t.daemon for t in threading.enumerate()  # the threads alive
                 if t is not threading.main_thread())
    if waited or not (code is None or isinstance(code, int)):
        raise done
    atexit._run_exitfuncs()  # what the interpreter calls at exit
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        raise done from None
    os._exit(code or 0)


if __name__ == "__main__":
    run()
