"""Batches scored on a dask.distributed cluster: the only module that imports Dask.

``DaskExecutor(scheduler="tcp://HOST:PORT")`` uses an existing cluster (its workers
must have the same leafscore and scorer.py installed: the runner refuses scores made by
other code); ``DaskExecutor(workers=N)`` starts a ``LocalCluster`` of ``N`` single-thread
worker processes on this machine for the run and stops it after.

``shared`` (documents, version, options) is scattered once to every worker
(``broadcast=True``); each batch is one task (``pure=False``: never deduplicated by
content) of at most :data:`MAX_BATCH` pairs, sent and returned as one pickled blob
(``_pickled_call``); at most :data:`WINDOW_PER_THREAD` x cluster threads batches are
in flight or waiting; results are fetched as they complete and yielded in batch order
(``_in_order``). A worker that dies mid-run is survived: Dask reruns its batches elsewhere (up to
``distributed.scheduler.allowed-failures`` times per batch), and the nanny of a
``LocalCluster`` restarts it. Nothing here touches the cache: workers return cells, the
client reads and writes the cache.
"""

from __future__ import annotations

import itertools
import logging
import pickle
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import CancelledError
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any, TypeVar

import dask.config
from distributed import Client, LocalCluster, as_completed
from distributed.scheduler import KilledWorker

from leafscore.executors.base import ExecutorError

R = TypeVar("R")

#: Seconds to wait for a scheduler before giving up (one clear error, not a hang).
CONNECT_TIMEOUT: float = 5.0

#: Most pairs per Dask batch (the local pool's is ``runner.MAX_BATCH``).
MAX_BATCH: int = 500

#: Batches in flight or waiting per worker thread: a batch done early waits for the ones
#: before it, so a thread is kept busy only while later batches are still to be done.
WINDOW_PER_THREAD: int = 8

#: Imported by each worker of a ``LocalCluster`` as it starts, not by its first batch: the
#: module of ``runner.score_batch`` (with the scoring code it imports), and the accelerated
#: engine, which ``versions.table`` loads only when it is chosen.
PRELOAD: tuple[str, ...] = ("leafscore.runner", "leafscore._fast")


@dataclass(frozen=True)
class DaskExecutor:
    """Score batches on the Dask cluster at ``scheduler``, else on a ``LocalCluster`` of
    ``workers`` processes (``processes=True``, one thread each, no dashboard)."""

    scheduler: str | None = None
    workers: int = 1
    batch_size: int | None = None
    connect_timeout: float = CONNECT_TIMEOUT
    #: Most pairs per batch when the runner chooses: a Dask task costs milliseconds of
    #: scheduler and client time (a pool's task much less), so its batches are larger.
    max_batch: int = MAX_BATCH

    def map_batches(self, fn: Callable[[Any, Any], R], shared: Any,
                    batches: Iterable[Any]) -> Iterator[R]:
        """``fn(shared, batch)`` of every batch, in batch order.

        Raises :class:`~leafscore.executors.base.ExecutorError` when the scheduler cannot be
        reached within ``connect_timeout`` seconds or a batch killed its workers more
        often than Dask retries; what ``fn`` raises is raised as it is.
        """
        with ExitStack() as stack:
            client = stack.enter_context(self._client())
            [remote] = client.scatter([shared], broadcast=True, hash=False)
            threads = sum(client.nthreads().values())
            try:
                yield from _in_order(client, fn, remote, batches,
                                     window=max(4, WINDOW_PER_THREAD * threads))
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
        cluster = local_cluster(self.workers)
        try:
            client = Client(cluster, set_as_default=False)
        except BaseException:
            cluster.close()
            raise
        return _OwningClient(client, cluster)


#: Times a batch whose task was lost with its worker (cancelled, or killed more often
#: than Dask's own retries) is submitted again before the run stops.
RESUBMITS: int = 3


def _in_order(client: Client, fn: Callable[[Any, Any], R], remote: Any,
              batches: Iterable[Any], *, window: int) -> Iterator[R]:
    """``fn(remote, batch)`` of every batch, yielded in batch order.

    Results are fetched as they complete (no round trip per result when its turn comes),
    held until every earlier batch is yielded, and at most ``window`` batches are
    submitted and not yet yielded. A batch lost with its worker is submitted again (up to
    :data:`RESUBMITS` times); what ``fn`` raises is raised as it is.
    """
    source = enumerate(batches)
    done = as_completed([], loop=client.loop, with_results=True, raise_errors=False)
    sent: dict[str, tuple[int, Any, int]] = {}
    ready: dict[int, R] = {}
    submitted = yielded = 0

    def submit(number: int, blob: bytes, tries: int) -> None:
        future = client.submit(_pickled_call, fn, remote, blob, pure=False)
        sent[future.key] = (number, blob, tries)
        done.add(future)

    def top_up() -> None:
        nonlocal submitted
        for number, batch in itertools.islice(source, window - (submitted - yielded)):
            submit(number, pickle.dumps(batch, protocol=pickle.HIGHEST_PROTOCOL), 0)
            submitted += 1

    top_up()
    for future, result in done:
        number, batch, tries = sent.pop(future.key)
        if future.status != "finished":
            error = result if isinstance(result, BaseException) else result[1]
            if not isinstance(error, CancelledError | KilledWorker) or tries >= RESUBMITS:
                raise error
            submit(number, batch, tries + 1)
            continue
        ready[number] = result
        while yielded in ready:
            yield pickle.loads(ready.pop(yielded))
            yielded += 1
        top_up()


def _pickled_call(fn: Callable[[Any, Any], R], shared: Any, blob: bytes) -> bytes:
    """``fn(shared, batch)`` of a pickled batch, pickled. Dask moves bytes as they are,
    where it would walk a batch's items one by one (the client as it submits, the
    scheduler as it unpacks the task) and serialize the result again in each process on
    its way to the client."""
    return pickle.dumps(fn(shared, pickle.loads(blob)), protocol=pickle.HIGHEST_PROTOCOL)


def local_cluster(workers: int) -> LocalCluster:
    """A ``LocalCluster`` of ``workers`` single-thread worker processes, no dashboard,
    quiet logs, no statistical profiler in the workers (it samples every thread every
    10 ms: time taken from scoring, on the scoring core), and the scoring code imported
    as each worker starts (:data:`PRELOAD`; half a second each, else paid by the run)."""
    with dask.config.set({"distributed.worker.profile.enabled": False}):
        return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                            dashboard_address=None, silence_logs=logging.ERROR,
                            preload=list(PRELOAD))


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
