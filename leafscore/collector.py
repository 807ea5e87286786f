"""Python's cyclic garbage collector paused around work that makes no cycles.

Its own module, apart from the fast engine that uses it most, so that reading a cached
run (``leafscore.runner``) needs neither the engine nor numpy.
"""

from __future__ import annotations

import gc


class CollectorPaused:
    """Python's cyclic garbage collector off for a ``with`` block (a speed choice only): a
    walk allocates a tuple per verdict and per value read, and reading a run pack builds
    some 10^5 containers; none forms a cycle, yet they would trigger full collections
    over every live object again and again. Turned back on after, unless it was off
    before."""

    def __enter__(self) -> None:
        self.enabled = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self.enabled:
            gc.enable()
