"""Batches scored on a dask.distributed cluster: the only module that imports Dask.

``DaskExecutor(scheduler="tcp://HOST:PORT")`` uses an existing cluster (its workers
must have the same leafscore and scorer.py installed: the runner refuses scores made by
other code); ``DaskExecutor(workers=N)`` starts a ``LocalCluster`` of ``N`` single-thread
worker processes on this machine for the run and stops it after.

``shared`` (documents, version, options) is scattered once to every worker
(``broadcast=True``); each batch is one task (``pure=False``: never deduplicated by
content); at most ``2 x cluster threads`` batches are in flight, and results are yielded
in batch order (``executors.in_order``). A worker that dies mid-run is survived: Dask
reruns its batches elsewhere (up to ``distributed.scheduler.allowed-failures`` times per
batch), and the nanny of a ``LocalCluster`` restarts it. Nothing here touches the cache:
workers return cells, the client reads and writes the cache.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any, TypeVar

from distributed import Client, LocalCluster
from distributed.scheduler import KilledWorker

from leafscore.executors import ExecutorError, in_order

R = TypeVar("R")

#: Seconds to wait for a scheduler before giving up (one clear error, not a hang).
CONNECT_TIMEOUT: float = 5.0


@dataclass(frozen=True)
class DaskExecutor:
    """Score batches on the Dask cluster at ``scheduler``, else on a ``LocalCluster`` of
    ``workers`` processes (``processes=True``, one thread each, no dashboard)."""

    scheduler: str | None = None
    workers: int = 1
    batch_size: int | None = None
    connect_timeout: float = CONNECT_TIMEOUT

    def map_batches(self, fn: Callable[[Any, Any], R], shared: Any,
                    batches: Iterable[Any]) -> Iterator[R]:
        """``fn(shared, batch)`` of every batch, in batch order.

        Raises :class:`~leafscore.executors.ExecutorError` when the scheduler cannot be
        reached within ``connect_timeout`` seconds or a batch killed its workers more
        often than Dask retries; what ``fn`` raises is raised as it is.
        """
        with ExitStack() as stack:
            client = stack.enter_context(self._client())
            [remote] = client.scatter([shared], broadcast=True, hash=False)
            threads = sum(client.nthreads().values())
            try:
                yield from in_order(
                    lambda batch: client.submit(fn, remote, batch, pure=False),
                    batches, window=max(2, 2 * threads))
            except KilledWorker as exc:
                raise ExecutorError(f"Dask lost the workers of a batch too often: {exc}") \
                    from None

    def _client(self) -> Any:
        """A client of the cluster at ``scheduler``, or of a new ``LocalCluster`` (closed
        with the client)."""
        if self.scheduler:
            try:
                return Client(self.scheduler, timeout=self.connect_timeout,
                              set_as_default=False)
            except (OSError, TimeoutError, ValueError) as exc:
                raise ExecutorError(f"cannot reach the Dask scheduler at {self.scheduler} "
                                    f"within {self.connect_timeout:g} s ({exc})") from None
        cluster = LocalCluster(n_workers=self.workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.ERROR)
        try:
            client = Client(cluster, set_as_default=False)
        except BaseException:
            cluster.close()
            raise
        return _OwningClient(client, cluster)


class _OwningClient:
    """A client that closes its ``LocalCluster`` when it is closed."""

    def __init__(self, client: Client, cluster: LocalCluster) -> None:
        self.client, self.cluster = client, cluster

    def __enter__(self) -> Client:
        return self.client

    def __exit__(self, *exc: object) -> None:
        try:
            self.client.close()
        finally:
            self.cluster.close()
