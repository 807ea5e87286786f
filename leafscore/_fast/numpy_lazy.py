"""numpy, imported at its first use instead of with the engine.

Most documents are scored without calling numpy: arrays under the engine's thresholds
(every DocuBench array under 2.1) take the pure-Python paths, and importing numpy costs
about as much as scoring a few dozen such documents. So the engine's modules bind ``np``
to a :class:`Lazy` stand-in, whose first attribute read imports numpy. The import is the
import system's own, so it is thread-safe (a second thread waits for the first's import;
the standard library's ``LazyLoader`` is not, before Python 3.12), and a failed import
fails again at the next read, as a plain import would.
"""

from __future__ import annotations

import importlib
from typing import Any


class Lazy:
    """The attributes of the module ``name``, imported at the first one read; each read
    is then kept on this object, so a later read costs a plain attribute lookup. Raises
    what the import raises (``ModuleNotFoundError`` when it is not installed), at each
    read until the import succeeds."""

    def __init__(self, name: str) -> None:
        self._lazy_name = name

    def __getattr__(self, attribute: str) -> Any:
        # only called for attributes not kept yet (and never for _lazy_name, set first)
        value = getattr(importlib.import_module(self._lazy_name), attribute)
        setattr(self, attribute, value)
        return value

    def __repr__(self) -> str:
        return f"<{self._lazy_name}, imported at its first use>"


np: Any = Lazy("numpy")
