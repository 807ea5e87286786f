"""The one input error type, defined in ``scorer.py`` and named here for the package.

``InputError(file, pointer, reason)``: a label, schema, config or result folder leafscore
cannot use, pointing at its place (an RFC 6901 JSON pointer, a TOML key, or a text
position such as ``"line 3 column 5"``). ``scorer.ScoringError`` is its subclass for a
schema or label the metric cannot score. The CLI prints ``str(error)`` on one line and
exits 2.
"""

from __future__ import annotations

import scorer

InputError = scorer.InputError

__all__ = ["InputError"]
