"""This process and one forked helper (:class:`Beside`): a second processor put to work on
a run without a pool's costs; the CLI's default where ``fork`` and two processors are.

A pool (``LocalPool``) leaves this process waiting while its workers score, and pays for
starting them and for every batch and cell pickled; on a run of a few hundred documents
that costs about what it saves. ``Beside`` scores the first :data:`FORK_AFTER` batches
here, then forks one helper, which inherits what they prepared (documents compiled and
read, memos) and every import, so only batches and their cells are pickled. From then on
the helper is handed the oldest waiting batch whenever it is idle, and a second to hold
behind it while this process has two more of its own; this process scores the others
:data:`CHUNK` items at a time, handing the helper its next batch between chunks. So the
helper seldom waits for this process (reading and folding results), nor this one, at the
end, for more than the helper's batch or two. A thread of the helper takes its calls off
the pipe as they come, so neither process waits on a full pipe. Results come back in
batch order (``base.survive``), and calls end in submission order, so the output, and
the error a run stops at, are those of this process alone.

Once a call has failed, the helper takes every call it can (``survive``'s retries run
alone, so it is idle): a batch that killed a process or ran out of memory is not retried
here. A helper that dies fails the call it was scoring (``base.DIED``, naming it) and
the one waiting behind it (not named: retried alone); a new helper is forked for the
next call that needs one.
"""

from __future__ import annotations

import gc
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import chain, count
from typing import Any, TypeVar

from leafscore.executors.base import DIED, MEMORY, Failure, survive

__all__ = ["CHUNK", "FORK_AFTER", "PER_WORKER", "QUEUED", "WINDOW", "Beside", "HelperLost",
           "can_fork", "start_child", "stop_child"]

R = TypeVar("R")

#: Batches this process scores before it forks the helper, which inherits the documents
#: they prepared and the memos they filled. Measured on DocuBench (300 pairs, medians of
#: 15 alternating whole runs), with four batches per process: a helper forked at once
#: took 1.07x the wall time of one forked after two batches; after one, the same within
#: the noise. With eight per process (:data:`PER_WORKER`: batches of 19 pairs), after
#: one and after two were again the same (1.009x, 15 runs).
FORK_AFTER: int = 2

#: Batches per process of a run too small to fill batches of ``runner.MAX_BATCH``
#: (a pool's four, doubled): the process that finishes first waits for the other's last
#: batch, so the batches at the end should be short. Measured on DocuBench (300 pairs):
#: with four, this process waited 27 ms of 354 for the helper's last batch of 34 pairs,
#: with eight the two ended 3 ms apart; medians of 15 alternating whole runs, four
#: took 1.03x the wall time of eight, twelve the same as eight (1.01x).
PER_WORKER: int = 8

#: Calls the helper holds at most: the one it scores and one waiting behind it.
QUEUED: int = 2

#: Items this process scores between two looks at the helper. Handed a batch only when
#: this process had finished one of its own, the helper was idle 38% of a 10,000-pair
#: run (batches of 100 pairs, some documents of 2,000 rows): 12.3 s, against 11.1 s for
#: a pool of two; fed between chunks and holding a second batch, 10.8 s.
CHUNK: int = 4

#: Batches drawn and not yet yielded (``base.survive``): the helper's, this process's,
#: and slack for a heavy batch of the helper's holding the order while this one goes on.
WINDOW: int = 8


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
    free, :data:`WINDOW` batches in flight; ``workers`` is 2, the processes scoring.
    Needs ``fork`` (:func:`can_fork`); ``executors.make_executor`` chooses it only then.
    ``fork_after``: batches scored here before the helper is forked; ``per_worker``:
    batches per process of a small run (``runner.batch_size``)."""

    batch_size: int | None = None
    workers: int = 2
    fork_after: int = FORK_AFTER
    per_worker: int = PER_WORKER

    def map_batches(self, fn: Callable[[Any, Any], R], shared: Any,
                    batches: Iterable[Any]) -> Iterator[R]:
        """``fn(shared, batch)`` of every batch (a sequence), in order. A helper lost
        while scoring, or a ``MemoryError`` of ``fn``, costs a retry (``base.survive``);
        an item that fails alone twice is a ``base.Lost`` in its result. Every other error
        of ``fn`` is raised as it is (the helper's sent back pickled, or, if it cannot
        be, a ``RuntimeError`` naming it)."""
        backend = _Beside(fn, shared, self.fork_after)
        try:
            yield from survive(backend, batches, window=WINDOW)
        finally:
            backend.close()


class HelperLost(RuntimeError):
    """The helper process ended (killed, e.g. by the OOM killer) while it scored a call
    (``scoring``), or before it came to a call queued behind that one."""

    def __init__(self, scoring: bool) -> None:
        super().__init__("the helper process ended " + ("while scoring this call" if scoring
                                                        else "before it scored this call"))
        self.scoring = scoring


class _Beside:
    """``base.Backend`` of this process and its helper. A call submitted waits in
    ``pending``; the helper is handed the oldest whenever it is idle, and this process
    scores the next ones itself, :data:`CHUNK` items at a time, feeding the helper between
    chunks. Calls are numbered in submission order and end in that order
    (``next_done``)."""

    def __init__(self, fn: Callable[[Any, Any], Any], shared: Any, fork_after: int) -> None:
        self.fn, self.shared, self.fork_after = fn, shared, fork_after
        self.handles = count()
        self.pending: deque[tuple[int, list[Any]]] = deque()  # submitted, not started
        self.done: dict[int, tuple[Any, BaseException | None]] = {}
        self.helper: Any = None  # (process, connection) while one lives
        self.queued: deque[int] = deque()  # the helper's calls, oldest (its current) first
        self.scored_here = 0  # calls this process has scored (the helper waits for some)
        self.failed = False  # a call failed: from now on the helper is used from the start
        self.frozen = False  # gc.freeze() holds: undone by close()
        self.unforkable = False  # a fork failed: this process scores the rest alone

    def submit(self, items: list[Any]) -> int:
        handle = next(self.handles)
        self.pending.append((handle, items))
        self._feed()
        return handle

    def next_done(self) -> tuple[int, Any, BaseException | None]:
        while True:
            self._collect(block=False)
            # the oldest call in flight: done, the helper's, or not started
            first = min(chain(self.done, self.queued, (h for h, _ in self.pending)))
            if first in self.done:
                break
            self._feed()
            if self.pending:
                self._score_here(*self.pending.popleft())
            elif self.queued:  # nothing left to score here: wait for the helper
                self._collect(block=True)
        value, error = self.done.pop(first)
        self.failed = self.failed or error is not None
        return first, value, error

    @staticmethod
    def failure(error: BaseException) -> Failure | None:
        """A lost helper names the call it was scoring, not one queued behind it (retried
        alone); a ``MemoryError`` names its call."""
        if isinstance(error, HelperLost):
            return Failure(DIED, error.scoring)
        return Failure(MEMORY, True) if isinstance(error, MemoryError) else None

    def _score_here(self, handle: int, items: list[Any]) -> None:
        """Score a call in this process, :data:`CHUNK` items at a time (``fn`` maps items
        one by one), taking the helper's answer and handing it the next call between
        chunks."""
        values: list[Any] = []
        try:
            for start in range(0, len(items), CHUNK):
                values.extend(self.fn(self.shared, items[start:start + CHUNK]))
                self._collect(block=False)
                self._feed()
            self.done[handle] = (values, None)
        except MemoryError:
            # a fresh error: the one raised holds the frames (and the memory) of the call
            self.done[handle] = (None, MemoryError())
        except Exception as error:  # raised when its turn comes: the helper's may be first
            self.done[handle] = (None, error)
        self.scored_here += 1

    def _feed(self) -> None:
        """Hand the oldest pending calls to the helper (forked now if none lives, once
        this process has scored ``fork_after`` calls or a call has failed): one when it is
        idle, and a second to wait behind it while this process has two more of its own
        to score (so that the helper does not wait for this one to come back from reading
        and folding, and this one does not wait at the end for the helper's queue). Left
        pending when no helper can be had."""
        while self.pending and not self.unforkable \
                and (self.scored_here >= self.fork_after or self.failed) \
                and (not self.queued or (len(self.queued) < QUEUED and len(self.pending) > 2)):
            if self.helper is None and not self._start():
                return
            handle, items = self.pending[0]
            try:
                self.helper[1].send((handle, items))
            except (OSError, ValueError):  # it died: its calls failed, this one pending
                self._lost()
                return
            self.pending.popleft()
            self.queued.append(handle)

    def _start(self) -> bool:
        if not self.frozen and gc.get_freeze_count() == 0:  # none frozen by another
            # Objects made so far go to the collector's permanent generation while the
            # helper lives: neither process's collections scan them, so the helper's do
            # not copy the pages they share (the gc.freeze recipe for fork). Measured on
            # DocuBench: 0.278 s -> 0.271 s, median wall of 15 whole runs.
            gc.freeze()
            self.frozen = True
        self.helper = start_child(_serve, (self.fn, self.shared))
        if self.helper is None:  # no process to be had: this one scores
            self.unforkable = True
            return False
        return True

    def _collect(self, *, block: bool) -> None:
        """Take the helper's answers that are ready (with ``block``, the oldest call's
        once it is)."""
        while self.queued and (block or self.helper[1].poll()):
            block = False
            try:
                kind, value = self.helper[1].recv()
            except (EOFError, OSError):  # it died: while scoring its oldest call
                self._lost()
                return
            # queued until now: interrupted while waiting (Ctrl-C), close() kills it
            handle = self.queued.popleft()
            self.done[handle] = (value, None) if kind == "done" else (None, value)

    def _lost(self) -> None:
        """The helper died: its oldest call failed while being scored, the others before."""
        for i, handle in enumerate(self.queued):
            self.done[handle] = (None, HelperLost(scoring=i == 0))
        self.queued.clear()
        self._stop()

    def _stop(self) -> None:
        process, connection = self.helper
        self.helper = None
        stop_child(process, connection)

    def close(self) -> None:
        """Let the helper go: told to stop when idle, killed when it is still scoring (a
        run that failed or was interrupted)."""
        if self.frozen:
            gc.unfreeze()
            self.frozen = False
        if self.helper is None:
            return
        if not self.queued:
            try:
                self.helper[1].send(None)
                self.helper[0].join(timeout=5)
            except (OSError, ValueError):
                pass
        self.queued.clear()
        self._stop()


def start_child(target: Callable[..., Any], args: tuple = (), *, duplex: bool = True,
                ) -> tuple[Any, Any] | None:
    """Fork a daemonic child (``multiprocessing.Process``) that runs ``target(*args,
    end)``, ``end`` its end of a new pipe (both ways, or the child's to write when not
    ``duplex``). The child ignores Ctrl-C: it is the parent's to handle (its exit stops
    every daemonic child), not a traceback of the child's. Returns (the process, this
    end), or None when no process is to be had (``OSError``: EAGAIN, ENOMEM). The
    child's end is closed here either way, so that its exit is this end's EOF. The
    helper's, and the label checks', start (:func:`stop_child` their end)."""
    import multiprocessing  # loaded when used: 6 ms of every start-up

    context = multiprocessing.get_context("fork")
    here, there = context.Pipe(duplex=duplex)
    process = context.Process(target=_child, args=(target, *args, there), daemon=True)
    try:
        process.start()
    except OSError:
        here.close()
        return None
    finally:
        there.close()
    return process, here


def _child(target: Callable[..., Any], *args: Any) -> None:
    """A child of :func:`start_child`: Ctrl-C ignored, then ``target(*args)``."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    target(*args)


def stop_child(process: Any, connection: Any) -> None:
    """End a forked child (``multiprocessing.Process``) and close this end of its pipe:
    killed if it still runs, then reaped. The helper's and the label checks' end."""
    connection.close()
    if process.is_alive():
        process.kill()
    process.join()


def _serve(fn: Callable[[Any, Any], Any], shared: Any, connection: Any) -> None:
    """The helper: ``fn(shared, items)`` of every ``(handle, items)`` received, in order,
    answered ``("done", result)`` or ``("error", exception)``, until ``None`` or the
    pipe's end. A thread takes the calls off the pipe as they come: the parent, sending
    the next call while this one answers the last, never waits on a full pipe. Ctrl-C
    is left to the parent (:func:`start_child`)."""
    import queue
    import threading

    calls: queue.SimpleQueue[Any] = queue.SimpleQueue()

    def receive() -> None:
        while True:
            try:
                call = connection.recv()
            except (EOFError, OSError):
                call = None
            calls.put(call)
            if call is None:
                return

    threading.Thread(target=receive, daemon=True).start()
    while True:
        call = calls.get()
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
