"""Hypothesis strategies for hostile scoring inputs: schemas, labels and results (issue 5).

A generated case is a :class:`Case`: a JSON Schema built from a small grammar (objects,
arrays, nested arrays, open maps, ``$ref``/``$defs``, ``anyOf``/``oneOf``, type lists,
enums, formats and ``x-leafscore`` options), a label drawn to fit the schema (with the
odd label fault, as real labels have), and a result that is anything at all: a fitting
value, a mutated label, or arbitrary JSON full of values that break naive scorers
(numbers beyond float range, numeric strings like ``"1e999999"``, ``"NaN"``, dashes,
zero-width characters, 10**400).

The schema grammar is kept as a tree of :class:`Node` records so that tests can walk a
value alongside its schema (for example to shuffle only unordered arrays);
:func:`to_schema` renders a tree as JSON Schema, moving the nodes marked ``ref`` into
``$defs``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

# -------------------------------------------------------------------------------------
# Scalars that break naive scorers
# -------------------------------------------------------------------------------------

TRICKY_STRINGS = (
    "", " ", "\u200b", "\u00a0", "N/A", "none", "-", "\u2014", "\u2212", "1,234.50",
    "(1,234.50)", "1.234,50", "$-5", "EUR 12", "12%", "1e999999", "-1e999999", "1e-999999",
    "NaN", "nan", "Infinity", "-inf", "9" * 400, "0x1F", "1_000", "١٢٣", "2024-07-03",
    "03/07/2024", "July 3, 2024", "2024-07-03T00:00:00+02:00", "2024-02-30", "9999-99-99",
    "true", "FALSE", "yes", "1/2", "12", "\u00bd", "Cafe\u0301", "Café", "ＡＢＣ１２３",
    "\ufffd", "\U0001f600", "a\x00b", "Acme, Inc.", "ACME INC", "\ud800",
)

HUGE_NUMBERS = (
    2**53 + 1, -(2**63), 10**30, 10**400, -(10**400), 1e308, -1e308, 5e-324, -0.0, 0.1,
)

finite_floats = st.floats(allow_nan=False, allow_infinity=False)
json_numbers = st.one_of(
    st.integers(-1000, 1000), st.integers(), finite_floats, st.sampled_from(HUGE_NUMBERS)
)
json_strings = st.one_of(st.sampled_from(TRICKY_STRINGS), st.text(max_size=8))
json_scalars = st.one_of(st.none(), st.booleans(), json_numbers, json_strings)

KEYS = ("a", "b", "qty", "date", "rows", "x.y", "", "$ref", "properties", "_val")
json_keys = st.one_of(st.sampled_from(KEYS), st.text(max_size=4))


def json_values(max_leaves: int = 12) -> st.SearchStrategy[Any]:
    """Any JSON value: scalars above, in lists and objects nested a few levels."""
    return st.recursive(
        json_scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4), st.dictionaries(json_keys, inner, max_size=4)
        ),
        max_leaves=max_leaves,
    )


# -------------------------------------------------------------------------------------
# The schema grammar
# -------------------------------------------------------------------------------------

SCALAR_TYPES = ("string", "number", "integer", "boolean")
FORMATS = ("date", "date-time", "email", "uri")
COMPARES = ("exact", "text", "number", "date", "boolean", "fuzzy", "ignore")


@dataclass(frozen=True)
class Node:
    """One schema node of the grammar.

    ``kind`` is ``"scalar"``, ``"object"`` (``children``: property name -> Node),
    ``"map"`` (an open object; ``children`` holds one Node under ``"*"``) or ``"array"``
    (``children`` holds the item Node under ``"[]"``). ``keywords`` are the rendered
    JSON Schema keywords of a scalar (``type``, ``enum``, ``format``); ``nullable`` says
    how null is allowed (``""``: not, ``"list"``: a type list, ``"anyOf"``/``"oneOf"``:
    a wrapper); ``options`` is the ``x-leafscore`` object or None; ``ref`` moves the
    node into ``$defs`` behind a ``$ref``.
    """

    kind: str
    children: dict[str, Node] = field(default_factory=dict)
    keywords: dict[str, Any] = field(default_factory=dict)
    nullable: str = ""
    options: dict[str, Any] | None = None
    ref: bool = False

    def ordered(self, inherited: bool = False) -> bool:
        """Whether this node's arrays compare items by position: its own ``ordered``
        option, else the nearest ancestor's (options are inherited, spec 2.0 §7)."""
        if self.options and "ordered" in self.options:
            return bool(self.options["ordered"])
        return inherited


def _options(kind: str) -> st.SearchStrategy[dict[str, Any] | None]:
    choices: dict[str, st.SearchStrategy[Any]] = {
        "compare": st.sampled_from(COMPARES),
        "abs_tol": st.sampled_from((0, 0.01, 0.5, 1000)),
        "rel_tol": st.sampled_from((0.0, 0.001, 0.5)),
        "threshold": st.sampled_from((0.01, 0.5, 0.9, 1.0)),  # 0 is a 2.1 schema error
        "decimal_separator": st.sampled_from((",", ".")),
        "date_formats": st.lists(
            st.sampled_from(("%d/%m/%Y", "%Y-%m-%d", "%B %d, %Y", "%d.%m.%y")), max_size=2
        ),
    }
    if kind == "array":
        choices["ordered"] = st.booleans()
    return st.one_of(
        st.none(),
        st.fixed_dictionaries({}, optional=choices),
    )


_scalar_keywords = st.one_of(
    st.sampled_from(SCALAR_TYPES).map(lambda t: {"type": t}),
    st.sampled_from(FORMATS).map(lambda f: {"type": "string", "format": f}),
    st.lists(json_scalars, min_size=1, max_size=4).map(lambda e: {"enum": e}),
    st.sampled_from(("string", "number")).map(
        lambda t: {"type": t, "enum": ["A", "b", 1, 2.5, True]}
    ),
    st.lists(st.sampled_from(SCALAR_TYPES), min_size=2, max_size=3, unique=True).map(
        lambda ts: {"type": ts}
    ),
    st.just({}),
)


def _decorate(node_kind: str, base: st.SearchStrategy[Node]) -> st.SearchStrategy[Node]:
    return st.builds(
        lambda node, nullable, options, ref: Node(
            node.kind, node.children, node.keywords, nullable, options, ref
        ),
        base,
        st.sampled_from(("", "", "list", "anyOf", "oneOf")),
        _options(node_kind),
        st.booleans(),
    )


scalar_nodes = _decorate("scalar", st.builds(lambda kw: Node("scalar", keywords=kw),
                                             _scalar_keywords))

_NAMES = st.sampled_from(("a", "b", "qty", "date", "rows", "items", "vendor", "x.y", "é"))


def schema_nodes(max_leaves: int = 8) -> st.SearchStrategy[Node]:
    """Schema trees of up to ``max_leaves`` scalar leaves, nested a few levels."""

    def extend(inner: st.SearchStrategy[Node]) -> st.SearchStrategy[Node]:
        objects = st.dictionaries(_NAMES, inner, min_size=1, max_size=4).map(
            lambda props: Node("object", props)
        )
        arrays = inner.map(lambda item: Node("array", {"[]": item}))
        maps = inner.map(lambda value: Node("map", {"*": value}))
        return st.one_of(
            _decorate("object", objects), _decorate("array", arrays), _decorate("map", maps)
        )

    return st.recursive(scalar_nodes, extend, max_leaves=max_leaves)


def root_nodes(max_leaves: int = 8) -> st.SearchStrategy[Node]:
    """A root object with one to four properties (what benchmarks use)."""
    return st.dictionaries(_NAMES, schema_nodes(max_leaves), min_size=1, max_size=4).map(
        lambda props: Node("object", props)
    )


# -------------------------------------------------------------------------------------
# Rendering a tree as JSON Schema
# -------------------------------------------------------------------------------------


def to_schema(root: Node) -> dict[str, Any]:
    """The JSON Schema of ``root``; nodes marked ``ref`` become ``$defs/D<n>`` entries."""
    defs: dict[str, Any] = {}
    schema = _render(root, defs, top=True)
    if defs:
        schema["$defs"] = defs
    return schema


def _render(node: Node, defs: dict[str, Any], top: bool = False) -> dict[str, Any]:
    if node.kind == "object":
        body: dict[str, Any] = {
            "type": "object",
            "properties": {k: _render(v, defs) for k, v in node.children.items()},
        }
    elif node.kind == "map":
        body = {"type": "object", "additionalProperties": _render(node.children["*"], defs)}
    elif node.kind == "array":
        body = {"type": "array", "items": _render(node.children["[]"], defs)}
    else:
        body = dict(node.keywords)
    if node.options is not None:
        body["x-leafscore"] = dict(node.options)
    if top:
        return body
    if node.nullable == "list" and isinstance(body.get("type"), str):
        body["type"] = [body["type"], "null"]
    elif node.nullable in ("anyOf", "oneOf"):
        options = body.pop("x-leafscore", None)
        body = {node.nullable: [body, {"type": "null"}]}
        if options is not None:
            body["x-leafscore"] = options  # beside the wrapper: overrides the branch
    if node.ref:
        name = f"D{len(defs) + 1}"
        defs[name] = body
        body = {"$ref": f"#/$defs/{name}"}
    return body


# -------------------------------------------------------------------------------------
# Values for a tree
# -------------------------------------------------------------------------------------


def _scalar_values(node: Node) -> st.SearchStrategy[Any]:
    keywords = node.keywords
    if "enum" in keywords:
        fitting = st.sampled_from(keywords["enum"])
    else:
        types = keywords.get("type", [])
        types = [types] if isinstance(types, str) else list(types)
        parts = []
        for kind in types or ["string", "number"]:
            if kind == "string" and keywords.get("format", "").startswith("date"):
                parts.append(st.sampled_from(("2024-07-03", "03/07/2024", "July 3, 2024",
                                              "2024-07-03T10:00:00", "not a date")))
            elif kind == "string":
                parts.append(json_strings)
            elif kind == "number":
                parts.append(st.one_of(json_numbers, st.sampled_from(("1,234.50", "12%"))))
            elif kind == "integer":
                parts.append(st.integers(-(10**6), 10**6))
            elif kind == "boolean":
                parts.append(st.one_of(st.booleans(), st.sampled_from(("TRUE", "false"))))
        fitting = st.one_of(parts)
    return st.one_of(fitting, fitting, fitting, json_scalars)  # label faults now and then


def values(node: Node, *, empty: bool = True) -> st.SearchStrategy[Any]:
    """Values that (mostly) fit ``node``; None and empties now and then when ``empty``."""
    if node.kind == "scalar":
        fitting = _scalar_values(node)
    elif node.kind == "object":  # every member present: absence comes from empties
        fitting = st.fixed_dictionaries({k: values(v) for k, v in node.children.items()})
    elif node.kind == "map":
        fitting = st.dictionaries(json_keys, values(node.children["*"]), min_size=1,
                                  max_size=3)
    else:
        fitting = st.lists(values(node.children["[]"]), min_size=1, max_size=4)
    if not empty:
        return fitting
    return st.one_of(fitting, fitting, fitting, st.sampled_from((None, "", [], {})))


def mutate(node: Node, value: Any, rnd: random.Random) -> Any:
    """A plausible wrong result: ``value`` with members dropped, lists cut or doubled,
    scalars swapped for tricky ones, containers where scalars belong and back."""
    roll = rnd.random()
    if roll < 0.08:
        return rnd.choice((None, "", [], {}, "garbage", 0, [value], {"a": value}))
    if node.kind == "object" and isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if rnd.random() < 0.15:
                continue
            child = node.children.get(key)
            out[key] = mutate(child, item, rnd) if child else item
        if rnd.random() < 0.2:
            out[rnd.choice(KEYS)] = rnd.choice(TRICKY_STRINGS)
        return out
    if node.kind == "map" and isinstance(value, dict):
        return {k: mutate(node.children["*"], v, rnd) for k, v in value.items()}
    if node.kind == "array" and isinstance(value, list):
        items = [mutate(node.children["[]"], v, rnd) for v in value]
        if items and rnd.random() < 0.3:
            items.append(rnd.choice(items))
        if items and rnd.random() < 0.3:
            items.pop(rnd.randrange(len(items)))
        return items
    if node.kind == "scalar" and rnd.random() < 0.4:
        return rnd.choice((*TRICKY_STRINGS, *HUGE_NUMBERS, True, False))
    return value


def shuffle_arrays(node: Node, value: Any, rnd: random.Random,
                   ordered: bool = False) -> Any:
    """``value`` with the items of every unordered schema array shuffled, at any depth
    (``ordered`` as inherited from the ancestors: an array under an ordered one is
    ordered too unless it says otherwise)."""
    ordered = node.ordered(ordered)
    if node.kind == "object" and isinstance(value, dict):
        return {
            k: shuffle_arrays(node.children[k], v, rnd, ordered) if k in node.children else v
            for k, v in value.items()
        }
    if node.kind == "map" and isinstance(value, dict):
        return {k: shuffle_arrays(node.children["*"], v, rnd, ordered) for k, v in value.items()}
    if node.kind == "array" and isinstance(value, list):
        items = [shuffle_arrays(node.children["[]"], v, rnd, ordered) for v in value]
        if not ordered:
            rnd.shuffle(items)
        return items
    return value


# -------------------------------------------------------------------------------------
# Whole cases
# -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """A generated scoring input: the grammar tree, its JSON Schema, a label, a result."""

    tree: Node
    schema: dict[str, Any]
    label: Any
    result: Any


@st.composite
def cases(draw: st.DrawFn, max_leaves: int = 8) -> Case:
    """A schema with a fitting label and a result that is fitting, mutated or arbitrary."""
    tree = draw(root_nodes(max_leaves))
    label = draw(values(tree, empty=False))
    how = draw(st.sampled_from(("fitting", "mutated", "mutated", "arbitrary", "label")))
    if how == "fitting":
        result = draw(values(tree))
    elif how == "mutated":
        result = mutate(tree, label, draw(st.randoms(use_true_random=False)))
    elif how == "arbitrary":  # anything, usually under the schema's own member names
        names = st.sampled_from(sorted(tree.children))
        result = draw(st.one_of(json_values(), st.dictionaries(names, json_values()),
                                st.dictionaries(names, json_values())))
    else:
        result = label
    return Case(tree, to_schema(tree), label, result)


SCHEMA_KEYWORDS = (
    "type", "properties", "items", "additionalProperties", "anyOf", "oneOf", "allOf",
    "$ref", "$defs", "definitions", "enum", "format", "x-leafscore", "required",
)


def hostile_schemas() -> st.SearchStrategy[Any]:
    """Schema-shaped garbage: schema keywords holding values of every wrong kind, broken
    and remote ``$ref``s, ``$ref`` cycles, unknown ``x-leafscore`` options."""
    keyword_values = st.one_of(
        json_values(6),
        st.sampled_from(
            (
                "#/$defs/Missing", "#/$defs/Loop", "https://example.com/s.json", "#", "#/",
                "object", "array", ["object", "null"], {"compare": "bogus"},
                {"threshold": 7}, {"abs_tol": "x"}, {"date_formats": [3]}, {"ordered": "yes"},
            )
        ),
    )
    nodes = st.recursive(
        st.dictionaries(st.sampled_from(SCHEMA_KEYWORDS), keyword_values, max_size=3),
        lambda inner: st.one_of(
            st.fixed_dictionaries(
                {"type": st.just("object"), "properties": st.dictionaries(_NAMES, inner)}
            ),
            st.fixed_dictionaries({"type": st.just("array"), "items": inner}),
            st.fixed_dictionaries({"anyOf": st.lists(inner, max_size=3)}),
            st.fixed_dictionaries({"$ref": st.just("#/$defs/Loop")}),
        ),
        max_leaves=6,
    )
    return st.fixed_dictionaries(
        {"type": st.just("object"), "properties": st.dictionaries(_NAMES, nodes, min_size=1)},
        optional={
            "$defs": st.fixed_dictionaries(
                {"Loop": st.just({"$ref": "#/$defs/Loop"})}, optional={"D1": nodes}
            )
        },
    )


# -------------------------------------------------------------------------------------
# Faulty labels (issue 9: identity holds for every label, valid or not)
# -------------------------------------------------------------------------------------

UNREADABLE = ("n/a", "NaN", "1e999999", "1,2,3", "(5", "--5", "not a date", "yes", "0,456",
              "7.", "$(1,234)", "-")


def faulty_values(node: Node) -> st.SearchStrategy[Any]:
    """Values that break ``node`` anywhere below it: the wrong JSON kind at any node
    (scalars and wrong containers at objects, arrays and maps, containers at leaves),
    unreadable scalars, empties, and fitting values whose members break in turn."""
    if node.kind == "scalar":
        fitting = _scalar_values(node)
    elif node.kind == "object":
        fitting = st.fixed_dictionaries({k: faulty_values(v) for k, v in node.children.items()})
    elif node.kind == "map":
        fitting = st.dictionaries(json_keys, faulty_values(node.children["*"]), max_size=3)
    else:
        fitting = st.lists(faulty_values(node.children["[]"]), max_size=4)
    odd = st.sampled_from((None, "", [], {}, *UNREADABLE))
    return st.one_of(fitting, fitting, json_values(max_leaves=4), odd)


def faulty_labels(tree: Node) -> st.SearchStrategy[dict[str, Any]]:
    """Root labels (objects, as scoring needs) whose members are :func:`faulty_values`."""
    return st.fixed_dictionaries({k: faulty_values(v) for k, v in tree.children.items()})
