"""This machine's executors: this process (:class:`Serial`), or a pool of its processes
(:class:`LocalPool`, ``fork`` where available, so ``shared`` is inherited, not pickled).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from leafscore.executors.base import in_order

__all__ = ["LocalPool", "Serial"]

R = TypeVar("R")


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
