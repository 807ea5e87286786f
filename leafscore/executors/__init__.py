"""Where batches of documents are scored: this process, a local process pool, or Dask.

Every executor follows one protocol (``base``: :class:`Executor`, its one error
:class:`ExecutorError`, and :func:`in_order`, the bounded window that yields results in
batch order), so what a run folds is the same for every executor. Executors:

* :class:`Serial`: this process (``workers=1``); :class:`Beside`: this process and one
  forked helper (``workers=None``, the CLI's default, on two or more processors where
  ``fork`` is); :class:`LocalPool`: ``workers`` processes of this machine (``local``).
* ``leafscore.executors.dask.DaskExecutor``: an existing dask.distributed cluster
  (``scheduler="tcp://HOST:PORT"``) or a ``LocalCluster`` of ``workers`` processes. Dask
  is an optional extra (``pip install "leafscore[dask]"``), imported only by
  :func:`make_executor` when asked for.

:func:`make_executor` chooses one by name (``--executor``).
"""

from __future__ import annotations

import os

from leafscore.executors.base import Executor, ExecutorError, Future, in_order
from leafscore.executors.beside import Beside, can_fork
from leafscore.executors.local import LocalPool, Serial

__all__ = ["EXECUTORS", "Beside", "Executor", "ExecutorError", "Future", "LocalPool",
           "Serial", "can_fork", "forks_help", "in_order", "make_executor", "processors"]

#: Executor names accepted by :func:`make_executor` (and ``--executor``).
EXECUTORS: tuple[str, ...] = ("local", "dask")


def processors() -> int:
    """Processors this process may run on (its affinity where the system tells it)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def forks_help(processors_: int | None = None) -> bool:
    """Whether a forked child can work while this process does: at least 2
    ``processors_`` (default: :func:`processors`) and ``fork`` available
    (:func:`beside.can_fork`). The one test of the helper, the early label checks and
    the label checks forked by a run."""
    return (processors() if processors_ is None else processors_) >= 2 and can_fork()


def make_executor(name: str = "local", *, workers: int | None = 1,
                  scheduler: str | None = None, batch_size: int | None = None) -> Executor:
    """The executor called ``name`` (one of :data:`EXECUTORS`).

    ``local``: :class:`Serial` for one worker, :class:`LocalPool` for more; ``workers=None``
    (chosen for the machine): :class:`Beside` (this process and one forked helper) where
    :func:`forks_help`, else :class:`Serial`. ``dask``: the cluster at ``scheduler`` (``tcp://HOST:PORT``),
    else a ``LocalCluster`` of ``workers`` processes on this machine (one for ``None``).

    Raises ``ValueError`` for an unknown name, ``workers < 1``, or a ``scheduler`` with
    the local executor; :class:`ExecutorError` when Dask is asked for and not installed.
    """
    if workers is None and name == "local":
        return Beside(batch_size) if forks_help() else Serial(batch_size)
    workers = 1 if workers is None else workers
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
            from leafscore.executors.dask import DaskExecutor
        except ImportError as exc:
            raise ExecutorError(f"the dask executor needs Dask ({exc.name} is not "
                                "installed): pip install 'leafscore[dask]'") from None
        return DaskExecutor(scheduler=scheduler, workers=workers, batch_size=batch_size)
    raise ValueError(f"executor {name!r} is not one of {', '.join(EXECUTORS)}")
