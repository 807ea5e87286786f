"""This process and one forked helper (:class:`Beside`): a second processor put to work on
a run without a pool's costs; the CLI's default where ``fork`` and two processors are.

A pool (``LocalPool``) leaves this process waiting while its workers score, and pays for
starting them and for every batch and cell pickled; on a run of a few hundred documents
that costs about what it saves. ``Beside`` scores the first :data:`FORK_AFTER` batches
here, then forks one helper, which inherits what they prepared (documents compiled and
read, memos) and every import, so only batches and their cells are pickled. From then
on the helper is handed a batch whenever it is idle and this process scores the others
meanwhile. Results come back in batch order (``base.survive``), and calls end in
submission order, so the output, and the error a run stops at, are those of this process
alone.

Once a call has failed, the helper takes every call it is idle for (``survive``'s
retries run alone, so it is): a batch that killed a process or ran out of memory is not
retried here. A helper that dies fails its one call (``base.DIED``, naming it); a new one
is forked for the next call that needs it.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import count
from typing import Any, TypeVar

from leafscore.executors.base import DIED, MEMORY, Failure, survive

__all__ = ["FORK_AFTER", "Beside", "HelperLost", "can_fork"]

R = TypeVar("R")

#: Batches this process scores before it forks the helper: with the runner's batches
#: (about eight in a run) two hold every document of a benchmark of a few systems, so
#: the helper prepares none again. Measured on DocuBench (300 pairs, medians of 15
#: alternating whole runs): a helper forked at once took 1.07x the wall time of one
#: forked after two batches; after one batch, the same within the noise.
FORK_AFTER: int = 2


def can_fork() -> bool:
    """Whether this process may fork a helper that shares its memory: the ``fork`` start
    method exists and this process is not a daemonic one (a pool's worker may have no
    child)."""
    import multiprocessing  # loaded when used: 6 ms of every start-up

    return "fork" in multiprocessing.get_all_start_methods() \
        and not multiprocessing.current_process().daemon


@dataclass(frozen=True)
class Beside:
    """Every batch scored by this process or by one helper forked from it, whichever is
    free, two batches in flight per process; ``workers`` is 2, the processes scoring.
    Needs ``fork`` (:func:`can_fork`); ``executors.make_executor`` chooses it only then.
    ``fork_after``: batches scored here before the helper is forked."""

    batch_size: int | None = None
    workers: int = 2
    fork_after: int = FORK_AFTER

    def map_batches(self, fn: Callable[[Any, Any], R], shared: Any,
                    batches: Iterable[Any]) -> Iterator[R]:
        """``fn(shared, batch)`` of every batch (a sequence), in order. A helper lost
        while scoring, or a ``MemoryError`` of ``fn``, costs a retry (``base.survive``);
        an item that fails alone twice is a ``base.Lost`` in its result. Every other error
        of ``fn`` is raised as it is (the helper's sent back pickled, or, if it cannot
        be, a ``RuntimeError`` naming it)."""
        backend = _Beside(fn, shared, self.fork_after)
        try:
            yield from survive(backend, batches, window=2 * self.workers)
        finally:
            backend.close()


class HelperLost(RuntimeError):
    """The helper process ended while it scored a call (killed, e.g. by the OOM killer)."""


class _Beside:
    """``base.Backend`` of this process and its helper. Calls are numbered in submission
    order and end in that order (``next_done``)."""

    def __init__(self, fn: Callable[[Any, Any], Any], shared: Any, fork_after: int) -> None:
        self.fn, self.shared, self.fork_after = fn, shared, fork_after
        self.handles = count()
        self.done: dict[int, tuple[Any, BaseException | None]] = {}
        self.helper: Any = None  # (process, connection) while one lives
        self.busy: int | None = None  # the handle of the helper's call in flight
        self.failed = False  # a call failed: from now on the helper is used from the start
        self.frozen = False  # gc.freeze() holds: undone by close()

    def submit(self, items: list[Any]) -> int:
        handle = next(self.handles)
        self._collect(block=False)
        if self.busy is None and (handle >= self.fork_after or self.failed) \
                and self._send(handle, items):
            return handle
        try:
            self.done[handle] = (self.fn(self.shared, items), None)
        except MemoryError:
            # a fresh error: the one raised holds the frames (and the memory) of the call
            self.done[handle] = (None, MemoryError())
        except Exception as error:  # raised when its turn comes: the helper's may be first
            self.done[handle] = (None, error)
        return handle

    def next_done(self) -> tuple[int, Any, BaseException | None]:
        handle = min(self.done, default=None)
        if self.busy is not None and (handle is None or self.busy < handle):
            handle = self.busy
            self._collect(block=True)
        value, error = self.done.pop(handle)
        self.failed = self.failed or error is not None
        return handle, value, error

    @staticmethod
    def failure(error: BaseException) -> Failure | None:
        """A lost helper names its call (it had only that one); so does a
        ``MemoryError``."""
        if isinstance(error, HelperLost):
            return Failure(DIED, True)
        return Failure(MEMORY, True) if isinstance(error, MemoryError) else None

    def _send(self, handle: int, items: list[Any]) -> bool:
        """Hand ``items`` to the helper (forked now if none lives); False when no helper
        can be had (the caller scores them)."""
        if self.helper is None and not self._start():
            return False
        try:
            self.helper[1].send((handle, items))
        except (OSError, ValueError):  # it died idle: scored here, and a new one next time
            self._stop()
            return False
        self.busy = handle
        return True

    def _start(self) -> bool:
        import multiprocessing

        if not self.frozen:
            # Objects made so far go to the collector's permanent generation while the
            # helper lives: neither process's collections scan them, so the helper's do
            # not copy the pages they share (the gc.freeze recipe for fork). Measured on
            # DocuBench: 0.278 s -> 0.271 s, median wall of 15 whole runs.
            gc.freeze()
            self.frozen = True
        context = multiprocessing.get_context("fork")
        here, there = context.Pipe(duplex=True)
        process = context.Process(target=_serve, args=(self.fn, self.shared, there),
                                  daemon=True)
        try:
            process.start()
        except OSError:  # no process to be had (EAGAIN, ENOMEM): this one scores
            here.close()
            return False
        finally:
            there.close()  # the helper's end only: its exit is then this end's EOF
        self.helper = (process, here)
        return True

    def _collect(self, *, block: bool) -> None:
        """Take the helper's answer to its call in flight, if there is one and it is ready
        (with ``block``, once it is)."""
        if self.busy is None or not (block or self.helper[1].poll()):
            return
        handle, self.busy = self.busy, None
        try:
            kind, value = self.helper[1].recv()
        except (EOFError, OSError):  # it died scoring this call
            self._stop()
            self.done[handle] = (None, HelperLost("the helper process ended while scoring"))
            return
        self.done[handle] = (value, None) if kind == "done" else (None, value)

    def _stop(self) -> None:
        process, connection = self.helper
        self.helper = None
        connection.close()
        if process.is_alive():
            process.kill()
        process.join()

    def close(self) -> None:
        """Let the helper go: told to stop when idle, killed when it is still scoring (a
        run that failed or was interrupted)."""
        if self.frozen:
            gc.unfreeze()
            self.frozen = False
        if self.helper is None:
            return
        if self.busy is None:
            try:
                self.helper[1].send(None)
                self.helper[0].join(timeout=5)
            except (OSError, ValueError):
                pass
        self.busy = None
        self._stop()


def _serve(fn: Callable[[Any, Any], Any], shared: Any, connection: Any) -> None:
    """The helper: ``fn(shared, items)`` of every ``(handle, items)`` received, answered
    ``("done", result)`` or ``("error", exception)``, until ``None`` or the pipe's end."""
    import signal

    # Ctrl-C is the parent's to handle (it stops this daemonic helper), not a traceback
    # of this one's
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            call = connection.recv()
        except (EOFError, OSError):
            return
        if call is None:
            return
        try:
            answer: tuple[str, Any] = ("done", fn(shared, call[1]))
        except MemoryError:
            answer = ("error", MemoryError())
        except Exception as error:  # raised by the parent, as it is
            answer = ("error", error)
        try:
            connection.send(answer)
        except Exception as error:  # an answer that cannot be pickled: its error named
            connection.send(("error", RuntimeError(
                f"{type(answer[1]).__name__}: {answer[1]} (not sent back: {error})")))
