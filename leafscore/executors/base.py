"""What every executor is and shares: the protocol the runner calls, the one error, and
the bounded in-order window of futures.

An executor maps one function over batches and yields the results in batch order,
whatever order they finish in, so what a run folds is the same for every executor::

    executor.map_batches(fn, shared, batches) -> iterator of fn(shared, batch), in order

``shared`` (the documents and settings every batch needs) is handed to each worker
once, not with every batch. At most ``window`` batches are in flight at a time, and a
batch that finishes early waits, as its future, for the ones before it: a run holds
O(window x batch) results, never all of them.

A lost worker costs a retry, never the run (:func:`survive`, the one rule every executor
follows). Batches are sequences and ``fn`` maps items one by one
(``fn(shared, batch[i:j]) == fn(shared, batch)[i:j]``), so a batch can be split:

* a call that fails because its worker died (killed, e.g. by the OOM killer) or because
  ``fn`` raised ``MemoryError`` is run again **alone**, with nothing else in flight, so
  that a second failure names it;
* a batch of several items that fails alone (or whose failure names it) is split, each
  item run alone;
* an item that fails so a second time is given up: it comes back as :class:`Lost`
  (``reason`` :data:`DIED`, :data:`MEMORY` or :data:`CANCELLED`) in its place in the
  batch's result, and the run goes on; what to make of it is the caller's choice.

Every other error ``fn`` raises is raised as it is.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from itertools import islice
from typing import Any, NamedTuple, Protocol, TypeVar

__all__ = ["CANCELLED", "DIED", "MEMORY", "Backend", "Executor", "ExecutorError", "Failure",
           "Future", "Lost", "in_order", "survive"]

R = TypeVar("R")


class ExecutorError(RuntimeError):
    """The executor cannot run the batches: a scheduler that cannot be reached, Dask not
    installed, workers lost more often than Dask retries, or workers running other
    scoring code than this process. One line; the CLI exits 2."""


class Executor(Protocol):
    """What the runner needs of an executor. Two attributes are optional hints, read by
    ``runner.batch_size`` where an executor has them (so an executor of a user's own
    needs neither): ``per_worker``, batches per process of a small run (default 4;
    ``Beside``: 8, so that its two processes end together) and ``max_batch``, the most
    pairs in a batch (default ``runner.MAX_BATCH``; ``DaskExecutor``: its own)."""

    #: Processes scoring at once (sizes the batches and the window).
    workers: int
    #: Pairs per batch; ``None`` lets the runner choose.
    batch_size: int | None

    def map_batches(self, fn: Callable[[Any, Any], R], shared: Any,
                    batches: Iterable[Any]) -> Iterator[R]:
        """``fn(shared, batch)`` of every batch, in batch order."""
        ...


class Future(Protocol):
    """A submitted call (``concurrent.futures.Future`` or ``distributed.Future``)."""

    def result(self) -> Any: ...


def in_order(submit: Callable[[Any], Future], batches: Iterable[Any],
             window: int) -> Iterator[Any]:
    """Results of ``submit(batch)`` for every batch, in batch order, with at most
    ``window`` (>= 1) batches submitted and not yet yielded.

    Batches are drawn from ``batches`` lazily; a batch finished before its turn stays in
    its future until then. Raises what a future raises, when its turn comes; raises
    ``ValueError`` when ``window < 1``.
    """
    if window < 1:
        raise ValueError(f"window={window} must be at least 1")
    pending: deque[Future] = deque()
    source = iter(batches)
    pending.extend(submit(batch) for batch in islice(source, window))
    while pending:
        result = pending.popleft().result()
        pending.extend(submit(batch) for batch in islice(source, 1))
        yield result


# ------------------------------------------------------------------------------------
# Surviving lost workers
# ------------------------------------------------------------------------------------

#: Why an item was given up (:attr:`Lost.reason`): its worker died each time it ran it
#: alone (killed: the OOM killer, a signal, a crash) ...
DIED: str = "died"
#: ... ``fn`` raised ``MemoryError`` on it alone, twice ...
MEMORY: str = "memory"
#: ... or the cluster dropped its task more than :data:`RESUBMITS` times (Dask: lost
#: dependencies, a scheduler restart).
CANCELLED: str = "cancelled"

#: Times a task the cluster cancelled (not attributable to its items) is submitted again
#: before its items are given up.
RESUBMITS: int = 3


class Lost(NamedTuple):
    """An item of a batch that no worker could map: the ``item`` as given, and the
    ``reason`` (:data:`DIED`, :data:`MEMORY` or :data:`CANCELLED`). Takes the item's place
    in its batch's result."""

    item: Any
    reason: str


class Failure(NamedTuple):
    """What a failed call says: its ``kind`` (:data:`DIED`, :data:`MEMORY` or
    :data:`CANCELLED`), and whether it ``names`` its own call even when others were in
    flight (a ``MemoryError`` does; a broken process pool, which fails every call in
    flight, does not)."""

    kind: str
    names: bool


class Backend(Protocol):
    """What :func:`survive` needs of an executor: calls submitted, completions one at a
    time, and which errors mean a lost worker."""

    def submit(self, items: list[Any]) -> Any:
        """Start ``fn(shared, items)``; returns a hashable handle of the call."""
        ...

    def next_done(self) -> tuple[Any, Any, BaseException | None]:
        """Wait for a submitted call to end: ``(handle, result, None)`` or
        ``(handle, None, error)``. Called only while calls are in flight."""
        ...

    def failure(self, error: BaseException) -> Failure | None:
        """The :class:`Failure` when ``error`` means a lost worker, a ``MemoryError`` or a
        call the cluster dropped; ``None`` for an error of ``fn`` itself (raised as it
        is)."""
        ...


@dataclass(frozen=True)
class _Task:
    """One call: ``items`` of batch ``number`` from position ``start``; ``tries`` failed
    runs before this one; ``alone``: a retry (run with nothing else in flight);
    ``cancels``: times the cluster dropped it."""

    number: int
    start: int
    items: list[Any]
    tries: int = 0
    alone: bool = False
    cancels: int = 0


def survive(backend: Backend, batches: Iterable[Any], window: int) -> Iterator[list[Any]]:
    """The result (a list, one entry per item) of every batch of ``batches`` (sequences),
    in batch order, with at most ``window`` (>= 1) batches drawn and not yet yielded.

    A call that fails with a lost worker is retried as the module says; an item given up
    is a :class:`Lost` in its place. Retries run one at a time, with nothing else in
    flight; new batches wait for them. Raises what ``fn`` raises otherwise, and
    ``ValueError`` when ``window < 1``.
    """
    if window < 1:
        raise ValueError(f"window={window} must be at least 1")
    source = enumerate(batches)
    exhausted = False
    drawn = yielded = 0
    parts: dict[int, dict[int, list[Any]]] = {}
    left: dict[int, int] = {}
    ready: dict[int, list[Any]] = {}
    retries: deque[_Task] = deque()
    inflight: dict[Any, _Task] = {}

    def submit(task: _Task) -> None:
        inflight[backend.submit(task.items)] = task

    def record(task: _Task, values: list[Any]) -> None:
        parts[task.number][task.start] = values
        left[task.number] -= len(task.items)
        if not left[task.number]:
            done = parts.pop(task.number)
            del left[task.number]
            ready[task.number] = [value for start in sorted(done) for value in done[start]]

    def failed(task: _Task, failure: Failure) -> None:
        if failure.kind == CANCELLED:  # dropped by the cluster, not for its items
            if task.cancels < RESUBMITS:
                retries.append(replace(task, cancels=task.cancels + 1, alone=True))
            else:
                record(task, [Lost(item, CANCELLED) for item in task.items])
        elif not (failure.names or task.alone):  # perhaps another call's: again, alone
            retries.append(replace(task, tries=task.tries + 1, alone=True))
        elif len(task.items) > 1:
            retries.extend(_Task(task.number, task.start + i, [item], task.tries + 1, True)
                           for i, item in enumerate(task.items))
        elif task.tries == 0:
            retries.append(replace(task, tries=1, alone=True))
        else:
            record(task, [Lost(task.items[0], failure.kind)])

    def draw() -> bool:
        """Submit the next batch; False when there is none. (A function, so that no local
        of the loop keeps a batch's items alive once it is yielded.)"""
        nonlocal drawn
        drawn_batch = next(source, None)
        if drawn_batch is None:
            return False
        number, batch = drawn_batch
        items = list(batch)
        drawn += 1
        parts[number], left[number] = {}, len(items)
        if items:
            submit(_Task(number, 0, items))
        else:
            record(_Task(number, 0, items), [])
        return True

    def settle() -> None:
        """Wait for one call in flight and record its result, or its failure."""
        handle, value, error = backend.next_done()
        task = inflight.pop(handle)
        if error is None:
            record(task, value)
            return
        failure = backend.failure(error)
        if failure is None:
            raise error
        failed(task, failure)

    while True:
        if retries:
            if not inflight:  # a retry runs alone: the next one when it is done
                submit(retries.popleft())
        else:
            while not exhausted and drawn - yielded < window:
                exhausted = not draw()
        while yielded in ready:
            yield ready.pop(yielded)
            yielded += 1
        if not inflight:  # every batch drawn is yielded, unless retries wait
            if exhausted and not retries:
                return
            continue
        settle()
