"""leafscore: leaf-level, schema-guided scoring of document-extraction results.

Re-exports the metric from ``scorer.py`` (the one place where scoring happens)::

    >>> import leafscore
    >>> "1.0" in leafscore.SCORING_VERSIONS
    True

``leafscore.score`` is ``scorer.score``; the command line is ``leafscore`` (see
``leafscore.cli``).
"""

from __future__ import annotations

from typing import Any

from scorer import SCORING_VERSIONS

__version__ = "0.1.0"
__all__ = ["SCORING_VERSIONS", "__version__", "score"]


def __getattr__(name: str) -> Any:
    """Resolve ``score`` from ``scorer`` on first use, so importing a submodule stays light."""
    if name == "score":
        import scorer

        return scorer.score
    raise AttributeError(f"module 'leafscore' has no attribute {name!r}")
