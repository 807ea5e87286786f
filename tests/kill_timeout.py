"""A generous kill timeout for bounded work, in place of a wall-time assertion.

Timings belong in ``benchmarks/``: a test that asserts ``seconds < 5`` turns red on a
loaded machine. A test of bounded work instead stops the work if it runs past a limit
many times what it needs (quadratic work on the test's input takes minutes, linear work
a second), so a regression still fails and load does not.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator

import pytest

#: Seconds allowed to work that takes about one second on an idle machine.
GENEROUS = 60


@contextlib.contextmanager
def killed_after(seconds: int = GENEROUS) -> Iterator[None]:
    """Fail the running test if the block takes longer than ``seconds`` (SIGALRM; the
    main thread on POSIX). A C call in progress is interrupted when it returns."""
    def stop(signum, frame):
        pytest.fail(f"still running after the {seconds} s kill timeout", pytrace=False)

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
