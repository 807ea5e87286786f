"""Test hook (tests only): make a real worker process die, or run out of memory, on a
chosen result, so that the executors' survival of lost workers is tested on real
processes, not on mocks.

Nothing in ``leafscore`` reads this module. A test installs it in the workers only:

* a local pool: :func:`pool_initializer` wraps the pool's initializer
  (``monkeypatch.setattr(local, "_set_shared", worker_hooks.pool_initializer(...))``);
* Dask: this file as a worker preload (``LocalCluster(preload=[str(PRELOAD)])``, or
  ``leafscore.executors.dask.PRELOAD`` extended with it), which calls :func:`dask_setup`
  in each worker as it starts (a worker restarted by its nanny too).

Installed, it wraps ``leafscore.runner.score_cell`` in that process: a result whose bytes
hold a trigger ``LEAFSCORE-TEST-{KILL|OOM}-{ONCE|ALWAYS}[:MARKER]`` makes the worker
scoring it kill itself with ``SIGKILL`` (what the OOM killer sends), or raise
``MemoryError``; ``ONCE`` only for the first worker that creates the file ``MARKER``
(``O_EXCL``: one worker wins, whatever the process), ``ALWAYS`` every time. The parent
process, which the tests score serially to compare, never has the hook.
"""

from __future__ import annotations

import os
import re
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: This file, for a Dask ``preload``.
PRELOAD = Path(__file__).resolve()

_TRIGGER = re.compile(rb"LEAFSCORE-TEST-(KILL|OOM)-(ONCE|ALWAYS)(?::([^\"\s]+))?")


def trigger(kind: str, when: str, marker: Path | None = None) -> str:
    """The text that, put in a result, fires the hook: ``kind`` ``KILL``/``OOM``,
    ``when`` ``ONCE`` (needs ``marker``) or ``ALWAYS``."""
    return f"LEAFSCORE-TEST-{kind}-{when}" + (f":{marker}" if marker else "")


def _fires(when: bytes, marker: bytes | None) -> bool:
    if when == b"ALWAYS":
        return True
    try:
        os.close(os.open(os.fsdecode(marker), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return False
    return True


def install() -> None:
    """Wrap ``leafscore.runner.score_cell`` of this process (once)."""
    from leafscore import runner

    real = runner.score_cell
    if getattr(real, "hooked", False):
        return

    def score_cell(doc: Any, raw: Any, record: Any, options: Any, prepared: Any = None) -> Any:
        found = _TRIGGER.search(raw.data or b"")
        if found and _fires(found[2], found[3]):
            if found[1] == b"KILL":
                os.kill(os.getpid(), signal.SIGKILL)
            raise MemoryError
        return real(doc, raw, record, options, prepared)

    score_cell.hooked = True  # type: ignore[attr-defined]
    runner.score_cell = score_cell


def pool_initializer(initializer: Callable[[Any], None]) -> Callable[[Any], None]:
    """A local pool's initializer that installs the hook, then runs ``initializer``."""

    def initialize(shared: Any) -> None:
        install()
        initializer(shared)

    return initialize


def dask_setup(worker: Any) -> None:
    """Dask's preload entry point: install the hook in this worker."""
    install()
