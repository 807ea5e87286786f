"""The label checks' process, started before the program imports its commands.

A scoring run checks its labels in a process of its own (``validate.LabelChecks``),
and most of that process's time on a small benchmark is importing ``jsonschema`` (about
40 of 65 ms on DocuBench). Forked once the benchmark is read, it imports while the run
scores. Forked by the program (``leafscore.__main__``) before it imports the CLI, it
imports while the program still imports its own modules, when the second processor has
nothing else to do.

:func:`start` forks it; :func:`take` hands it to the first run that checks labels, which
sends it the labels to check and the function that checks them (:func:`ask`:
``validate.check_beside``, sent by name, so this module imports nothing of the
package's) and reads their lines back as from a child forked then. Sending costs pickling what a
fork would share: past :data:`MOST_BYTES` the run forks its own child instead. A process
nobody takes (a command that checks no label, a run whose checks are all in the cache)
is stopped at exit, as every daemonic process is.
"""

from __future__ import annotations

import contextlib
import os
import pickle
from typing import Any

#: Most bytes of pickled documents sent to the early process (about 30 ms of pickling
#: here); a benchmark past it forks its own child, which shares them for free.
MOST_BYTES: int = 4 << 20

#: (the process :func:`start` forked, this end of its pipe, the id of the process that
#: forked it) until :func:`take`\ n; a process forked later inherits it, not the child
_STARTED: list[tuple[Any, Any, int]] = []


def start(processors: int | None = None) -> bool:
    """Fork the label checks' process where it can help: ``fork`` available, at least 2
    ``processors`` (default: those this process may run on), none started before.
    Returns whether one runs. A fork that fails starts nothing: the run then forks or
    checks as it would without."""
    from leafscore.executors import forks_help
    from leafscore.executors.beside import start_child

    if _STARTED or not forks_help(processors):
        return False
    started = start_child(_serve)
    if started is None:  # no process to be had
        return False
    _STARTED.append((*started, os.getpid()))
    return True


def take() -> tuple[Any, Any] | None:
    """The process :func:`start` forked and this end of its pipe, once, in the process
    that forked it (a helper or a pool's worker forked since has a copy of neither's
    right to it); else None."""
    if not _STARTED or _STARTED[0][2] != os.getpid():
        return None
    process, connection, _ = _STARTED.pop()
    return process, connection


def ask(connection: Any, check: Any, documents: list, readings: bool,
        most: int | None = None) -> bool:
    """Send the taken process the labels to check: ``documents`` (``benchmark.Document``),
    the version's ``readings`` flag, and ``check``, a module-level function it calls as
    ``check(documents, range(len(documents)), readings, connection)`` to answer
    (``validate.check_beside``: one list of lines, in order, or nothing when it fails).
    Returns False, sending nothing, when the documents pickle to more than ``most`` bytes
    (default :data:`MOST_BYTES`) or the process is gone (its pipe closed); the caller
    then stops it."""
    most = MOST_BYTES if most is None else most
    parts, size = [], 0
    for document in documents:  # one at a time: a large benchmark stops at the bound
        parts.append(pickle.dumps(document, pickle.HIGHEST_PROTOCOL))
        size += len(parts[-1])
        if size > most:
            return False
    try:
        connection.send((check, parts, readings))
    except (OSError, ValueError):
        return False
    return True


def _serve(connection: Any) -> None:
    """The process: a thread takes the labels off the pipe as soon as they come (the
    program never waits on a full pipe), while this one imports the library the checks
    need; then the checks, by the function sent with them. Nothing is sent when an
    import fails or the pipe ends first (the program then checks them). Ctrl-C is left
    to the program (``beside.start_child``)."""
    import threading

    job: list[Any] = []

    def receive() -> None:
        with contextlib.suppress(EOFError, OSError):  # the program ended without asking
            job.append(connection.recv())

    reader = threading.Thread(target=receive, daemon=True)
    reader.start()
    try:
        import jsonschema  # noqa: F401  the checks' imports, made while the program's are
        import referencing  # noqa: F401
    except Exception:
        connection.close()
        return
    reader.join()
    if not job:
        connection.close()
        return
    check, parts, readings = job[0]  # check: unpickled by name, its module imported
    try:
        documents = [pickle.loads(part) for part in parts]
    except Exception:
        connection.close()
        return
    check(documents, range(len(documents)), readings, connection)
