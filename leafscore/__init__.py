"""leafscore: leaf-level, schema-guided scoring of document-extraction results.

The metric lives in ``scorer.py`` (the one place where scoring happens); this package
adds whole benchmarks on top of it::

    >>> import leafscore
    >>> "1.0" in leafscore.SCORING_VERSIONS
    True

* ``leafscore.score`` / ``leafscore.score_file``: one document, by the fast engine
  (``leafscore._fast``: ``scorer.score``'s signature, return type and verdicts, faster);
* ``leafscore.evaluate(root)`` / ``leafscore.evaluate_jsonl(gold, preds, schema)``: a
  whole benchmark, as an ``Evaluation`` (``leafscore.api``; docs/API.md);
* the command line is ``leafscore`` (``leafscore.cli``), a thin layer over the API.

Names are resolved on first use, so importing a submodule stays light. No module of the
package imports these names from here: each imports the module that defines it
(``leafscore._version``, ``leafscore._fast``, ``leafscore.api``).
"""

from __future__ import annotations

from typing import Any

from leafscore._version import __version__
from scorer import SCORING_VERSIONS

__all__ = ["SCORING_VERSIONS", "Evaluation", "__version__", "evaluate", "evaluate_benchmark",
           "evaluate_jsonl", "score", "score_file"]

_FROM_SCORER = ("score", "score_file")
_FROM_API = ("Evaluation", "evaluate", "evaluate_benchmark", "evaluate_jsonl")


def __getattr__(name: str) -> Any:
    """Resolve the public names on first use (``_fast`` for one document, ``api`` for
    whole benchmarks)."""
    if name in _FROM_SCORER:
        from leafscore import _fast

        return getattr(_fast, name)
    if name in _FROM_API:
        from leafscore import api

        return getattr(api, name)
    raise AttributeError(f"module 'leafscore' has no attribute {name!r}")
