"""leafscore scorer: the whole metric in one file.

A system reads a document and returns JSON for a JSON Schema; this file scores that
JSON (the *result*, or prediction) against a hand-verified *label*, leaf by leaf.

Scoring versions (a change in any score is a new version; old versions stay frozen):

* **2.0** (default) -- leafscore's own metric, ``shared/spec/scoring-2.0.md``: typed
  canonical values, optimal order-free array matching, one verdict per leaf.
* **1.0** -- DocuBench 0.1.0 exactly, ``shared/spec/scoring-1.0.md``, faults included:
  greedy pairing, ``\\W``-stripped text, arrays keyed by their top-level member.

The model, in five bullets:

* the schema picks the scored leaves (field paths such as ``lines[].qty``);
* each leaf value is reduced to one canonical value per type (text, number, date, ...);
* array items are paired order-independently before their leaves are compared;
* every scored leaf gets one verdict (correct, wrong_value, missing, ...);
* the document score is the share of correct verdicts; systems are macro averages.

Usage::

    >>> import scorer
    >>> scorer.score({"total": "1,240.00"}, {"type": "object",
    ...     "properties": {"total": {"type": "number"}}}, {"total": 1240}).value
    1.0
    $ python scorer.py                          # score the benchmark in the current folder
    $ python scorer.py RESULT SCHEMA LABEL      # one document, as JSON

The file reads top to bottom: vocabulary and types; canonical values; schema walk; one
leaf; arrays; document (version 2.0); version 1.0, frozen; entry point; folder + CLI.
"""

from __future__ import annotations

# =====================================================================================
# 2. Vocabulary and types
# =====================================================================================

#: The scoring versions this file implements, oldest first.
SCORING_VERSIONS: tuple[str, ...] = ("1.0", "2.0")
#: The version ``score()`` uses when none is given.
DEFAULT_VERSION = "2.0"


class ScoringError(ValueError):
    """A schema or label the metric cannot score. Never raised for a bad result.

    ``file`` names the input (may be ``""`` when scoring in memory), ``pointer`` is an
    RFC 6901 JSON pointer into the schema (``/properties/rows/anyOf/0``) and ``reason``
    says what is wrong. Every field is in ``.args`` so the error pickles across worker
    processes.
    """

    def __init__(self, file: str, pointer: str, reason: str) -> None:
        super().__init__(file, pointer, reason)
        self.file, self.pointer, self.reason = file, pointer, reason

    def __str__(self) -> str:
        return f"{self.file}#{self.pointer}: {self.reason}"


# =====================================================================================
# 3-7. Version 2.0: canonical values, schema walk, one leaf, arrays, document
# =====================================================================================
# <<v2.0 sections: owned by the version-2.0 work>>


# =====================================================================================
# 8. Version 1.0: DocuBench 0.1.0, frozen
# =====================================================================================
# <<v1.0 section>>


# =====================================================================================
# 9. Entry point
# =====================================================================================
# <<entry section: owned by the version-2.0 work>>


# =====================================================================================
# 10. Folder + CLI
# =====================================================================================
# <<cli section>>
