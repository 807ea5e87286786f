"""numpy, imported at its first use instead of with the engine.

Most documents are scored without calling numpy: arrays under the engine's thresholds
(every DocuBench array) take the pure-Python paths, and importing numpy costs about as
much as scoring a few dozen such documents. So the engine's modules bind ``np`` to
numpy's module loaded through the standard library's ``importlib.util.LazyLoader``:
the module object numpy will be, in ``sys.modules``, whose first attribute read runs
numpy's import. Afterwards it is numpy's module itself (the loader swaps its class
back), so ``np.x`` costs what it always did.
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType


def lazy_module(name: str) -> ModuleType:
    """The module ``name``: as imported when it already is, else registered in
    ``sys.modules`` and imported at its first attribute read (``LazyLoader``). Raises
    ``ModuleNotFoundError`` when ``name`` is not installed (found now, not at first use)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


np = lazy_module("numpy")
