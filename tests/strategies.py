"""Hypothesis strategies: JSON Schemas with labels that fit them and results near them.

``triples()`` draws ``(schema, label, result)``: a root object schema built from objects,
arrays (of objects, scalars or arrays), nested arrays, ``$ref`` into ``$defs``, ``anyOf``,
type lists, enums, date formats and ``x-leafscore`` options; a label drawn for it; and a
result made from the label the way extraction systems err (values reworded, changed,
dropped, invented; items reordered, dropped, added). Values come from small pools so
that ties, duplicates and near-misses are common.
"""

from __future__ import annotations

import copy
import random
from typing import Any

from hypothesis import strategies as st

NAMES = ("a", "b", "c", "d", "e")
TEXTS = ("Acme, Inc.", "ACME INC", "A-1", "a 1", "INV-0215", "INV-215", "N/A", "-", "x",
         "Globex", "1/2", "12", "")
NUMBERS = (0, 1, 2, 2.5, -98.2, 98.2, 1240, "1,240.00", "(5)", "7", "n/a", 10**20)
DATES = ("2024-03-31", "03/31/2024", "March 31, 2024", "2024-03-31T00:00:00Z", "2024-04-01",
         "someday")
BOOLEANS = (True, False, "true", "FALSE", 1, "yes")

SCALARS: dict[str, tuple[dict[str, Any], tuple]] = {
    "text": ({"type": "string"}, TEXTS),
    "number": ({"type": "number"}, NUMBERS),
    "integer": ({"type": "integer"}, NUMBERS),
    "nullable_number": ({"type": ["number", "null"]}, NUMBERS),
    "tolerant": ({"type": "number", "x-leafscore": {"abs_tol": 1}}, NUMBERS),
    "boolean": ({"type": "boolean"}, BOOLEANS),
    "date": ({"type": "string", "format": "date"}, DATES),
    "enum": ({"enum": ["A", "B", "C"]}, ("A", "b", "C", "D")),
    "exact_enum": ({"enum": [1, "A", True]}, (1, 1.0, "A", True, "1")),
    "fuzzy": ({"type": "string", "x-leafscore": {"compare": "fuzzy"}}, TEXTS),
    "any_of": ({"anyOf": [{"type": "null"}, {"type": "string"}]}, TEXTS),
    "mix": ({"anyOf": [{"type": "string"}, {"type": "number"}]}, TEXTS[:4] + NUMBERS[:4]),
}


@st.composite
def schemas(draw, *, depth: int = 3, ordered: bool = True) -> dict[str, Any]:
    """A node schema; containers nest at most ``depth`` levels. Each node carries its value
    pool under the private key ``"x-pool"`` (removed by :func:`triples`)."""
    kinds = ["scalar"] + (["object", "array"] if depth > 0 else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "scalar":
        schema, pool = SCALARS[draw(st.sampled_from(sorted(SCALARS)))]
        return {**copy.deepcopy(schema), "x-pool": pool}
    if kind == "object":
        names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=4, unique=True))
        properties = {name: draw(schemas(depth=depth - 1, ordered=ordered)) for name in names}
        return {"type": "object", "properties": properties}
    items = draw(schemas(depth=depth - 1, ordered=ordered))
    array: dict[str, Any] = {"type": "array", "items": items}
    if ordered and draw(st.integers(0, 4)) == 0:
        array["x-leafscore"] = {"ordered": True}
    return array


def values(schema: dict[str, Any], rng: random.Random, depth: int = 0) -> Any:
    """A label value for ``schema`` (with ``x-pool``), from ``rng``; often empty."""
    if "x-pool" in schema:
        return rng.choice(schema["x-pool"] + (None,))
    if schema["type"] == "object":
        return {name: values(sub, rng, depth + 1) for name, sub in schema["properties"].items()
                if rng.random() < 0.85}
    return [values(schema["items"], rng, depth + 1) for _ in range(rng.randint(0, 4))]


def mutate(schema: dict[str, Any], value: Any, rng: random.Random) -> Any:
    """A result near ``value``: leaves kept, redrawn or dropped; items shuffled, dropped,
    duplicated or invented."""
    if "x-pool" in schema:
        roll = rng.random()
        if roll < 0.6:
            return copy.deepcopy(value)
        return None if roll < 0.7 else rng.choice(schema["x-pool"])
    if schema["type"] == "object":
        given = value if isinstance(value, dict) else {}
        out = {}
        for name, sub in schema["properties"].items():
            if name in given or rng.random() < 0.2:
                out[name] = mutate(sub, given.get(name), rng)
        return out
    given = value if isinstance(value, list) else []
    out = [mutate(schema["items"], item, rng) for item in given if rng.random() < 0.9]
    if rng.random() < 0.3:
        out.append(values(schema["items"], rng))
    if out and rng.random() < 0.2:
        out.append(copy.deepcopy(rng.choice(out)))
    if not schema.get("x-leafscore", {}).get("ordered"):
        rng.shuffle(out)
    return out


def strip_pools(schema: Any) -> Any:
    """``schema`` without the private ``x-pool`` keys."""
    if isinstance(schema, dict):
        return {k: strip_pools(v) for k, v in schema.items() if k != "x-pool"}
    if isinstance(schema, list):
        return [strip_pools(v) for v in schema]
    return schema


def with_refs(schema: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Move some property schemas of the root into ``$defs`` behind a ``$ref``."""
    defs = {}
    properties = dict(schema["properties"])
    for position, name in enumerate(sorted(properties)):
        if rng.random() < 0.4:
            defs[f"D{position}"] = properties[name]
            properties[name] = {"$ref": f"#/$defs/D{position}"}
    out = {**schema, "properties": properties}
    return {**out, "$defs": defs} if defs else out


@st.composite
def triples(draw, *, ordered: bool = True) -> tuple[dict, dict, dict]:
    """``(schema, label, result)`` with an object root; the result is always an object."""
    names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=4, unique=True))
    root = {"type": "object",
            "properties": {n: draw(schemas(depth=2, ordered=ordered)) for n in names}}
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    label = values(root, rng)
    result = mutate(root, label, rng)
    return with_refs(strip_pools(root), rng), label, result


def shuffle_arrays(value: Any, rng: random.Random) -> Any:
    """A copy of ``value`` with every array, at every depth, in a random order."""
    if isinstance(value, dict):
        return {k: shuffle_arrays(v, rng) for k, v in value.items()}
    if isinstance(value, list):
        out = [shuffle_arrays(v, rng) for v in value]
        rng.shuffle(out)
        return out
    return value
