"""What every executor is and shares: the protocol the runner calls, the one error, and
the bounded in-order window of futures.

An executor maps one function over batches and yields the results in batch order,
whatever order they finish in, so what a run folds is the same for every executor::

    executor.map_batches(fn, shared, batches) -> iterator of fn(shared, batch), in order

``shared`` (the documents and settings every batch needs) is handed to each worker
once, not with every batch. At most ``window`` batches are in flight at a time, and a
batch that finishes early waits, as its future, for the ones before it: a run holds
O(window x batch) results, never all of them.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import Any, Protocol, TypeVar

__all__ = ["Executor", "ExecutorError", "Future", "in_order"]

R = TypeVar("R")


class ExecutorError(RuntimeError):
    """The executor cannot run the batches: a scheduler that cannot be reached, Dask not
    installed, workers lost more often than Dask retries, or workers running other
    scoring code than this process. One line; the CLI exits 2."""


class Executor(Protocol):
    """What the runner needs of an executor."""

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
