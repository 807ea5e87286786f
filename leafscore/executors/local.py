"""This machine's executors: this process (:class:`Serial`), or a pool of its processes
(:class:`LocalPool`, ``fork`` where available, so ``shared`` is inherited, not pickled).

Both follow ``base.survive``: a ``MemoryError`` of ``fn`` costs a retry of its batch, each
item alone; in a pool, a worker that dies (killed, e.g. by the OOM killer) breaks the pool
(``BrokenProcessPool``, every call in flight failed with it), so a new pool is started and
the calls that were in flight are run again, one at a time, until the one that killed its
worker is found; an item that fails alone twice comes back as ``base.Lost``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import count
from typing import Any, TypeVar

from leafscore.executors.base import DIED, MEMORY, Failure, survive

__all__ = ["LocalPool", "Serial"]

R = TypeVar("R")


@dataclass(frozen=True)
class Serial:
    """Every batch in this process, one after another."""

    batch_size: int | None = None
    workers: int = 1

    def map_batches(self, fn: Callable[[Any, Any], R], shared: Any,
                    batches: Iterable[Any]) -> Iterator[R]:
        """``fn(shared, batch)`` of every batch (a sequence), in order, each computed when
        its turn comes. A batch on which ``fn`` raises ``MemoryError`` is split, each item
        run alone, and an item that raises it again is a ``base.Lost`` in its result;
        every other error of ``fn`` is raised as it is."""
        return survive(_InProcess(fn, shared), batches, window=1)


class _InProcess:
    """``base.Backend`` of this process: a call runs as it is submitted."""

    def __init__(self, fn: Callable[[Any, Any], Any], shared: Any) -> None:
        self.fn, self.shared = fn, shared
        self.handles = count()
        self.done: deque[tuple[int, Any, BaseException | None]] = deque()

    def submit(self, items: list[Any]) -> int:
        handle = next(self.handles)
        try:
            self.done.append((handle, self.fn(self.shared, items), None))
        except MemoryError:
            # a fresh error: the one raised holds the frames (and the memory) of the call
            self.done.append((handle, None, MemoryError()))
        return handle

    def next_done(self) -> tuple[int, Any, BaseException | None]:
        return self.done.popleft()

    @staticmethod
    def failure(error: BaseException) -> Failure | None:
        return Failure(MEMORY, True) if isinstance(error, MemoryError) else None


_SHARED: Any = None


def _set_shared(shared: Any) -> None:
    """The pool's initializer: ``shared`` for every call of this worker process."""
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
        """``fn(shared, batch)`` of every batch (a sequence), in order, ``2 x workers`` in
        flight; a lost worker or a ``MemoryError`` costs a retry (``base.survive``), an
        item that fails alone twice is a ``base.Lost`` in its result. Every other error of
        ``fn`` is raised as it is."""
        backend = _Pool(self.workers, fn, shared)
        try:
            yield from survive(backend, batches, window=2 * self.workers)
        finally:
            backend.close()


class _Pool:
    """``base.Backend`` of a process pool, started again when a worker dies."""

    def __init__(self, workers: int, fn: Callable[[Any, Any], Any], shared: Any) -> None:
        import multiprocessing  # loaded for a pool only: 6 ms of every start-up

        methods = multiprocessing.get_all_start_methods()
        self.context = multiprocessing.get_context("fork" if "fork" in methods else None)
        self.workers, self.fn, self.shared = workers, fn, shared
        self.pool: Any = None
        self.futures: dict[Any, Any] = {}  # in flight, in submission order -> its pool

    def _live(self) -> Any:
        from concurrent.futures import ProcessPoolExecutor

        if self.pool is None:
            self.pool = ProcessPoolExecutor(self.workers, mp_context=self.context,
                                            initializer=_set_shared, initargs=(self.shared,))
        return self.pool

    def _restart(self, broken: Any) -> None:
        """Drop the pool ``broken`` if it is the current one (its workers are gone)."""
        if broken is not None and broken is self.pool:
            self.pool = None
            broken.shutdown(wait=True, cancel_futures=True)

    def submit(self, items: list[Any]) -> Any:
        from concurrent.futures.process import BrokenProcessPool

        try:
            future = self._live().submit(_call, self.fn, items)
        except BrokenProcessPool:  # broken since the last call: a new pool
            self._restart(self.pool)
            future = self._live().submit(_call, self.fn, items)
        self.futures[future] = self.pool
        return future

    def next_done(self) -> tuple[Any, Any, BaseException | None]:
        from concurrent.futures import FIRST_COMPLETED, wait
        from concurrent.futures.process import BrokenProcessPool

        done, _ = wait(self.futures, return_when=FIRST_COMPLETED)
        future = next(f for f in self.futures if f in done)  # the first submitted
        pool = self.futures.pop(future)
        error = future.exception()
        if error is None:
            return future, future.result(), None
        if isinstance(error, BrokenProcessPool):
            self._restart(pool)
        return future, None, error

    @staticmethod
    def failure(error: BaseException) -> Failure | None:
        """A broken pool names no call (every call in flight failed with it); a
        ``MemoryError`` names its own."""
        from concurrent.futures.process import BrokenProcessPool

        if isinstance(error, BrokenProcessPool):
            return Failure(DIED, False)
        return Failure(MEMORY, True) if isinstance(error, MemoryError) else None

    def close(self) -> None:
        """Stop the pool: calls not started are cancelled, running ones waited for."""
        if self.pool is not None:
            pool, self.pool = self.pool, None
            pool.shutdown(wait=True, cancel_futures=True)
