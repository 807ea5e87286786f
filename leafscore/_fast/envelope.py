"""Version 2.x's envelope rule (``scorer._envelope_v2``) with the code fence of a text
``data`` found in linear time (:func:`leafscore.fence.fence_span`).

The definition finds the fence with ``scorer.FENCE``, whose lazy body makes a fence
followed by many blanks quadratic (100,000 blanks: about 10 s). Here only that search
differs: a value whose ``data`` is not text, an unreadable file, a bare result, or an
envelope whose ``status`` is not ``"ok"`` goes to the definition itself, and a text
``data`` is decoded by the one reader (``scorer.parse_json``) into the outcome the
definition gives; ``tests/test_jsonl_reading.py`` compares the two outcome for outcome.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import scorer
from leafscore.fence import fence_span

__all__ = ["linear_fence"]

Envelope = Callable[[Any, Any], scorer.Outcome]


def linear_fence(definition: Envelope) -> Envelope:
    """The envelope rule ``definition`` (a 2.x record's ``envelope``: a result file's
    parsed value, or ``scorer.UNREADABLE``, and the document's schema -> an Outcome),
    giving the same outcomes in time linear in a text ``data``. The rule returned never
    raises for any JSON value; it pickles (a ``functools.partial`` of module functions),
    so a record holding it can be sent to a worker process."""
    return functools.partial(_envelope, definition)


def _envelope(definition: Envelope, value: Any, schema: Any) -> scorer.Outcome:
    data = value.get("data") if isinstance(value, dict) else None
    if not (isinstance(data, str) and scorer.is_envelope(value, schema)
            and value.get("status", "ok") == "ok"):
        return definition(value, schema)
    span = fence_span(data)
    body = data if span is None else data[span[0]:span[1]]
    try:
        decoded = scorer.parse_json(body, "data").value
    except scorer.InputError:
        return scorer.Outcome("parse_failure", None, "data is text, not JSON")
    if not isinstance(decoded, dict):
        if isinstance(decoded, str):  # the definition names the kind of what it decoded
            return scorer.Outcome("parse_failure", None, "data is a JSON string, not an object")
        return definition({**value, "data": decoded}, schema)
    fenced = " in a markdown code fence" if span is not None else ""
    return scorer.Outcome("scored", decoded, f"data given as text holding JSON{fenced}: decoded")
