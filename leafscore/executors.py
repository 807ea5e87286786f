"""Where batches of documents are scored: this process, a local process pool, or Dask.

An executor maps one function over batches and yields the results in batch order,
whatever order they finish in, so what a run folds is the same for every executor::

    executor.map_batches(fn, shared, batches) -> iterator of fn(shared, batch), in order

``shared`` (the documents and settings every batch needs) is handed to each worker
once, not with every batch. At most ``window`` batches are in flight at a time, and a
batch that finishes early waits, as its future, for the ones before it: a run holds
O(window x batch) results, never all of them. Executors:

* :class:`Serial`: this process (``workers=1``).
* :class:`LocalPool`: ``workers`` processes of this machine (``fork`` where available,
  so ``shared`` is inherited, not pickled).
* ``leafscore.dask_executor.DaskExecutor``: an existing dask.distributed cluster
  (``scheduler="tcp://HOST:PORT"``) or a ``LocalCluster`` of ``workers`` processes. Dask
  is an optional extra (``pip install "leafscore[dask]"``), imported only by
  :func:`make_executor` when asked for.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Any, Protocol, TypeVar

__all__ = ["EXECUTORS", "Executor", "ExecutorError", "LocalPool", "Serial", "in_order",
           "make_executor"]

#: Executor names accepted by :func:`make_executor` (and ``--executor``).
EXECUTORS: tuple[str, ...] = ("local", "dask")

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
    its future until then. Raises what a future raises, when its turn comes.
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


@dataclass(frozen=True)
class Serial:
    """Every batch in this process, one after another."""

    batch_size: int | None = None
    workers: int = 1

    def map_batches(self, fn: Callable[[Any, Any], R], shared: Any,
                    batches: Iterable[Any]) -> Iterator[R]:
        """``fn(shared, batch)`` of every batch, in order."""
        return (fn(shared, batch) for batch in batches)


_SHARED: Any = None


def _set_shared(shared: Any) -> None:
    global _SHARED
    _SHARED = shared


def _call(fn: Callable[[Any, Any], R], batch: Any) -> R:
    return fn(_SHARED, batch)


@dataclass(frozen=True)
class LocalPool:
    """``workers`` processes of this machine (``concurrent.futures``); ``shared`` is set
    once per process by the pool's initializer (inherited under ``fork``)."""

    workers: int
    batch_size: int | None = None

    def map_batches(self, fn: Callable[[Any, Any], R], shared: Any,
                    batches: Iterable[Any]) -> Iterator[R]:
        """``fn(shared, batch)`` of every batch, in order, ``2 x workers`` in flight."""
        import multiprocessing  # loaded for a pool only: 6 ms of every start-up
        from concurrent.futures import ProcessPoolExecutor

        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else None)
        with ProcessPoolExecutor(self.workers, mp_context=context, initializer=_set_shared,
                                 initargs=(shared,)) as pool:
            yield from in_order(lambda batch: pool.submit(_call, fn, batch), batches,
                                window=2 * self.workers)


def make_executor(name: str = "local", *, workers: int = 1, scheduler: str | None = None,
                  batch_size: int | None = None) -> Executor:
    """The executor called ``name`` (one of :data:`EXECUTORS`).

    ``local``: :class:`Serial` for one worker, else :class:`LocalPool`. ``dask``: the
    cluster at ``scheduler`` (``tcp://HOST:PORT``), else a ``LocalCluster`` of
    ``workers`` processes on this machine.

    Raises ``ValueError`` for an unknown name, ``workers < 1``, or a ``scheduler`` with
    the local executor; :class:`ExecutorError` when Dask is asked for and not installed.
    """
    if workers < 1:
        raise ValueError(f"workers={workers} must be at least 1")
    if batch_size is not None and batch_size < 1:
        raise ValueError(f"batch_size={batch_size} must be at least 1")
    if name == "local":
        if scheduler:
            raise ValueError("a scheduler address goes with the dask executor "
                             "(--executor dask --scheduler tcp://HOST:PORT)")
        return Serial(batch_size) if workers == 1 else LocalPool(workers, batch_size)
    if name == "dask":
        try:
            from leafscore.dask_executor import DaskExecutor
        except ImportError as exc:
            raise ExecutorError(f"the dask executor needs Dask ({exc.name} is not "
                                "installed): pip install 'leafscore[dask]'") from None
        return DaskExecutor(scheduler=scheduler, workers=workers, batch_size=batch_size)
    raise ValueError(f"executor {name!r} is not one of {', '.join(EXECUTORS)}")
