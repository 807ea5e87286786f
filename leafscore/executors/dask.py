"""Batches scored on a dask.distributed cluster: the only module that imports Dask.

``DaskExecutor(scheduler="tcp://HOST:PORT")`` uses an existing cluster (its workers
must have the same leafscore and scorer.py installed: the runner refuses scores made by
other code); ``DaskExecutor(workers=N)`` starts a ``LocalCluster`` of ``N`` single-thread
worker processes on this machine for the run and stops it after.

``shared`` (documents, version, options) is scattered once to every worker
(``broadcast=True``); each batch is one task (``pure=False``: never deduplicated by
content) of at most :data:`MAX_BATCH` pairs, sent and returned as one pickled blob
(``_pickled_call``); at most :data:`WINDOW_PER_THREAD` x cluster threads batches are
in flight or waiting; results are fetched as they complete and yielded in batch order.
A worker that dies mid-run costs at most its batch's retry (``base.survive``): Dask itself
reruns the tasks of a lost worker elsewhere (up to ``distributed.scheduler.allowed-failures``
times), and the nanny of a ``LocalCluster`` restarts it; a task Dask gives up on
(``KilledWorker``) or whose ``fn`` raised ``MemoryError`` is retried, each document alone;
a task dropped because every worker holding ``shared`` died (``FutureCancelledError``: lost
dependencies) is submitted again with ``shared`` scattered again. Nothing here touches the
cache: workers return cells, the client reads and writes the cache.
"""

from __future__ import annotations

import logging
import pickle
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import CancelledError
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any, TypeVar

import dask.config
from distributed import Client, LocalCluster, as_completed
from distributed.scheduler import KilledWorker

from leafscore.executors.base import CANCELLED, DIED, MEMORY, ExecutorError, Failure, survive

R = TypeVar("R")

#: Seconds to wait for a scheduler before giving up (one clear error, not a hang).
CONNECT_TIMEOUT: float = 5.0

#: Most pairs per Dask batch (the local pool's is ``runner.MAX_BATCH``).
MAX_BATCH: int = 500

#: Batches in flight or waiting per worker thread: a batch done early waits for the ones
#: before it, so a thread is kept busy only while later batches are still to be done.
WINDOW_PER_THREAD: int = 8

#: How long a ``LocalCluster`` started for a run waits for a lost worker's nanny to bring
#: it back before closing that nanny for good (Dask's default, 15 s, gives up on a worker
#: killed again while it restarts: a run whose documents kill workers then loses them all).
LOST_WORKER_TIMEOUT: str = "1h"

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
        """``fn(shared, batch)`` of every batch (a sequence), in batch order; a lost worker
        or a ``MemoryError`` costs a retry, an item that fails alone twice is a
        ``base.Lost`` in its result (``base.survive``).

        Raises :class:`~leafscore.executors.base.ExecutorError` when the scheduler cannot be
        reached within ``connect_timeout`` seconds, or when no worker is left to scatter
        ``shared`` to again within :data:`WORKER_WAIT` seconds; what ``fn`` raises
        otherwise is raised as it is.
        """
        with ExitStack() as stack:
            if not self.scheduler:  # while it runs, a LocalCluster keeps restarting workers
                stack.enter_context(dask.config.set(
                    {"distributed.deploy.lost-worker-timeout": LOST_WORKER_TIMEOUT}))
            client = stack.enter_context(self._client())
            backend = _Cluster(client, fn, shared)
            threads = sum(client.nthreads().values())
            yield from survive(backend, batches, window=max(4, WINDOW_PER_THREAD * threads))

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


#: Seconds to wait for a worker to scatter the documents to again when every worker that
#: held them died (a ``LocalCluster``'s nanny restarts one in a second or two).
WORKER_WAIT: float = 60.0


class _Cluster:
    """``base.Backend`` of a Dask client: tasks of pickled batches, fetched as they
    complete (``as_completed``: no round trip per result)."""

    def __init__(self, client: Client, fn: Callable[[Any, Any], Any], shared: Any) -> None:
        self.client, self.fn, self.shared = client, fn, shared
        self.remote: Any = None
        self._keep_shared()
        self.done = as_completed([], loop=client.loop, with_results=True, raise_errors=False)

    def submit(self, items: list[Any]) -> str:
        blob = pickle.dumps(items, protocol=pickle.HIGHEST_PROTOCOL)
        future = self.client.submit(_pickled_call, self.fn, self.remote, blob, pure=False)
        self.done.add(future)
        return future.key

    def next_done(self) -> tuple[str, Any, BaseException | None]:
        future, result = next(self.done)
        if isinstance(result, bytes):
            # what ``_pickled_call`` returns (the future may be "lost" by now, its worker
            # dead since the result was fetched)
            return future.key, pickle.loads(result), None
        # a cancelled future gives its CancelledError, an erred one (type, error, traceback)
        error = result if isinstance(result, BaseException) else result[1]
        lost = isinstance(error, CancelledError) and (
            self.remote.status != "finished"
            or getattr(error, "reason", None) == "lost dependencies")
        # After any failure, before a retry is sent: is ``shared`` still held somewhere?
        # (A retry sent with it gone would be cancelled for no fault of its own.)
        self._keep_shared()
        return future.key, None, _SharedLost(str(error)) if lost else error

    def _keep_shared(self) -> None:
        """Scatter ``shared`` to every worker (``broadcast``), unless a worker holds it
        already: at the start, and again when every worker that held it died. Raises
        ``ExecutorError`` when that has not worked within :data:`WORKER_WAIT` seconds (no
        worker joined, or each died as it was sent them)."""
        deadline = time.monotonic() + WORKER_WAIT
        while True:
            try:
                if self.remote is not None:
                    if self.remote.status == "finished" and \
                            self.client.who_has([self.remote]).get(self.remote.key):
                        return
                    self.remote.release()
                    self.remote = None
                self.client.wait_for_workers(1, timeout=max(0.1, deadline - time.monotonic()))
                [self.remote] = self.client.scatter([self.shared], broadcast=True, hash=False)
                return
            except Exception:
                # transient while workers come and go: a timeout, a closed comm, a
                # KeyError of a worker removed mid-scatter (Dask's own)
                if time.monotonic() >= deadline:
                    raise ExecutorError(f"every Dask worker was lost, and none took the "
                                        f"documents within {WORKER_WAIT:g} s") from None
                time.sleep(0.2)

    @staticmethod
    def failure(error: BaseException) -> Failure | None:
        """``KilledWorker`` (Dask gave up a task that was running on workers that died)
        and ``MemoryError`` name their task; the loss of every worker holding ``shared``,
        or a task cancelled otherwise, names none."""
        if isinstance(error, KilledWorker):
            return Failure(DIED, True)
        if isinstance(error, MemoryError):
            return Failure(MEMORY, True)
        if isinstance(error, _SharedLost):
            return Failure(DIED, False)
        return Failure(CANCELLED, False) if isinstance(error, CancelledError) else None


class _SharedLost(Exception):
    """A task cancelled because every worker holding ``shared`` died while it was in
    flight (``shared`` is then scattered again)."""


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
                            dashboard_address=None, silence_logs=logging.CRITICAL,
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
