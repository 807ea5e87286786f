"""Tie-heavy documents: arrays whose items are alike, so that many pairings are optimal.

Engines agree on easy arrays whatever their ties; they may part on arrays where many
assignments reach the same weight, where identical items must be paired first, where a
loose field (tolerant numbers, fuzzy text) makes many pairs candidates. These documents
are built for that:

* a root object with an array ``rows`` of object items (flat, or with a nested object or
  a nested array), ordered or not, sometimes a second array ``tags`` of scalars;
* field values from pools of two to eight values, several of which read alike or are
  equal to Python and not to JSON (``1``, ``1.0``, ``"1"``; ``0.0``, ``-0.0``; numbers read
  from a file in two written forms of one float; ``"a"``, ``"A"``; dates in two spellings);
* label items made from one to four prototypes, so most items have twins;
* results made from the label: items copied, perturbed in one field, dropped, invented
  from the prototypes, duplicated, then shuffled.

:func:`tie_documents` is the hypothesis strategy (up to ~40 items); :func:`document` builds
one document from a ``random.Random``, for seeded cases of any size.
"""

from __future__ import annotations

import copy
import random
from typing import Any

from hypothesis import strategies as st

import scorer

#: Numbers as a file gives them: equal as floats, not as written (``scorer.JSONNumber``).
WRITTEN = tuple(scorer.parse_json("[1.50, 1.500, 0.10000000000000000001, "
                                  "0.1000000000000000000199]", "pool.json").value)
#: kind -> (its schema, a tiny pool of values, several reading alike; None is absent)
FIELDS: dict[str, tuple[dict[str, Any], tuple]] = {
    "text": ({"type": "string"}, ("a", "A", "b", "a.", "", None)),
    "number": ({"type": "number"}, (1, 1.0, "1", 2, "2.00", 0.0, -0.0, WRITTEN[0], None)),
    "tolerant": ({"type": "number", "x-leafscore": {"abs_tol": 1}}, (1, 2, 2.5, 3, "4", None)),
    "relative": ({"type": "number", "x-leafscore": {"rel_tol": 0.1}}, (10, 11, 9.5, 12, None)),
    "fuzzy": ({"type": "string", "x-leafscore": {"compare": "fuzzy", "threshold": 0.6}},
              ("abcd", "abce", "ABCD", "xyz", "ab", None)),
    "date": ({"type": "string", "format": "date"}, ("2024-01-02", "01/02/2024", "soon", None)),
    "boolean": ({"type": "boolean"}, (True, False, "true", None)),
    "exact": ({"x-leafscore": {"compare": "exact"}, "type": "string"},
              ("a", "A", *WRITTEN[2:], None)),
    "any": ({}, (1, "1", True, "x", -0.0, 0.0, *WRITTEN, None)),
}
HASHABLE = ("text", "number", "date", "boolean", "exact", "any")
NAMES = ("p", "q", "r", "s", "odd.name")


def field_kinds(rng: random.Random, count: int, loose: bool) -> list[str]:
    """``count`` field kinds; ``loose`` allows tolerant and fuzzy ones."""
    kinds = sorted(FIELDS) if loose else list(HASHABLE)
    return [rng.choice(kinds) for _ in range(count)]


def item_schema(rng: random.Random, *, loose: bool, nested: bool) -> dict[str, Any]:
    """An object item: 1 to 4 scalar fields, and when ``nested`` one member that is an
    object of scalars or an array (of scalars or of small objects, ordered or not)."""
    names = rng.sample(NAMES, rng.randint(1, 4))
    properties = {name: {**copy.deepcopy(FIELDS[kind][0]), "x-pool": kind}
                  for name, kind in zip(names, field_kinds(rng, len(names), loose), strict=True)}
    if nested:
        shape = rng.choice(["object", "scalars", "objects"])
        if shape == "object":
            inner = {n: {**copy.deepcopy(FIELDS[k][0]), "x-pool": k}
                     for n, k in zip(("u", "v"), field_kinds(rng, 2, loose), strict=True)}
            properties["o"] = {"type": "object", "properties": inner}
        else:
            kind = field_kinds(rng, 1, loose)[0]
            items: dict[str, Any] = {**copy.deepcopy(FIELDS[kind][0]), "x-pool": kind}
            if shape == "objects":
                items = {"type": "object", "properties": {"u": items, "v": {
                    **copy.deepcopy(FIELDS["text"][0]), "x-pool": "text"}}}
            properties["list"] = {"type": "array", "items": items}
            if rng.random() < 0.25:
                properties["list"]["x-leafscore"] = {"ordered": True}
    return {"type": "object", "properties": properties}


def value(schema: dict[str, Any], rng: random.Random) -> Any:
    """A value for ``schema`` (with ``x-pool`` marks) from the tiny pools."""
    if "x-pool" in schema:
        return rng.choice(FIELDS[schema["x-pool"]][1])
    if schema["type"] == "object":
        return {name: value(sub, rng) for name, sub in schema["properties"].items()
                if rng.random() < 0.9}
    return [value(schema["items"], rng) for _ in range(rng.randint(0, 4))]


def perturb(schema: dict[str, Any], item: Any, rng: random.Random) -> Any:
    """``item`` with one member redrawn (or dropped), or the items of a nested array
    shuffled."""
    out = copy.deepcopy(item)
    if not isinstance(out, dict) or "properties" not in schema:
        return value(schema, rng)
    name = rng.choice(sorted(schema["properties"]))
    sub = schema["properties"][name]
    if sub.get("type") == "array" and isinstance(out.get(name), list) and rng.random() < 0.5:
        rng.shuffle(out[name])
    elif rng.random() < 0.2:
        out.pop(name, None)
    else:
        out[name] = value(sub, rng)
    return out


def items(schema: dict[str, Any], rng: random.Random, n: int, m: int) -> tuple[list, list]:
    """``n`` label items from one to four prototypes, and about ``m`` result items made
    from them: copied, perturbed, dropped, invented, duplicated, shuffled."""
    prototypes = [value(schema, rng) for _ in range(rng.randint(1, 4))]
    label = [perturb(schema, p, rng) if rng.random() < 0.4 else copy.deepcopy(p)
             for p in (rng.choice(prototypes) for _ in range(n))]
    result = []
    for item in label:
        roll = rng.random()
        if roll < 0.55:
            result.append(copy.deepcopy(item))
        elif roll < 0.85:
            result.append(perturb(schema, item, rng))
    while len(result) < m:
        source = rng.choice(result + prototypes) if result else rng.choice(prototypes)
        result.append(perturb(schema, source, rng) if rng.random() < 0.5 else
                      copy.deepcopy(source))
    rng.shuffle(result)
    return label, result


def strip_pools(schema: Any) -> Any:
    """``schema`` without the private ``x-pool`` marks."""
    if isinstance(schema, dict):
        return {k: strip_pools(v) for k, v in schema.items() if k != "x-pool"}
    if isinstance(schema, list):
        return [strip_pools(v) for v in schema]
    return schema


def document(rng: random.Random, n: int, m: int | None = None, *, loose: bool = True,
             nested: bool = False, ordered: bool = False,
             tags: bool = False) -> tuple[dict, dict, dict]:
    """(schema, label, result): an array ``rows`` of ``n`` label items and about ``m``
    (default ``n``) result items; ``tags`` adds an array of tolerant numbers."""
    item = item_schema(rng, loose=loose, nested=nested)
    rows: dict[str, Any] = {"type": "array", "items": item}
    if ordered:
        rows["x-leafscore"] = {"ordered": True}
    schema: dict[str, Any] = {"type": "object", "properties": {"rows": rows}}
    label_rows, result_rows = items(item, rng, n, n if m is None else m)
    label: dict[str, Any] = {"rows": label_rows}
    result: dict[str, Any] = {"rows": result_rows}
    if tags:
        kind = rng.choice(["tolerant", "number", "fuzzy", "text"])
        schema["properties"]["tags"] = {"type": "array", "items": {
            **copy.deepcopy(FIELDS[kind][0]), "x-pool": kind}}
        label["tags"], result["tags"] = items(schema["properties"]["tags"]["items"], rng,
                                              rng.randint(0, 12), rng.randint(0, 12))
    return strip_pools(schema), label, result


@st.composite
def tie_documents(draw: st.DrawFn, max_items: int = 40) -> tuple[dict, dict, dict]:
    """(schema, label, result) of :func:`document`, shape and sizes drawn (up to
    ``max_items`` items a side, small sizes more often)."""
    n = draw(st.one_of(st.integers(0, 6), st.integers(0, max_items)))
    m = draw(st.one_of(st.integers(0, 6), st.integers(0, max_items)))
    return document(random.Random(draw(st.integers(0, 2**32 - 1))), n, m,
                    loose=draw(st.booleans()), nested=draw(st.booleans()),
                    ordered=draw(st.integers(0, 5)) == 0, tags=draw(st.booleans()))
