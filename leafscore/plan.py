"""The scoring plan: how the scorer will read a schema, field path by field path (issue 24).

:func:`plan_schema` compiles the schema with the scorer's own compiler, under the version
in force, exactly as scoring does (``scorer.compile_schema``'s two steps, keeping the
compiler so each node's resolved keywords can be read back), then walks the compiled
nodes. One :class:`Row` per field path, in schema order: how it is compared (text,
number with its decimal separator and tolerances, date with its formats, boolean,
exact, fuzzy with its threshold, by JSON kind, ignored; objects, open maps and arrays,
ordered or not), where it comes from (the JSON pointer of its subschema, so a
``$ref`` target, an ``anyOf`` branch or a ``patternProperties`` entry shows in it, and
the ``$ref``/``anyOf``/``oneOf``/``allOf`` steps that resolved it), and every keyword on
it the scorer does not act on (annotations, ``title``/``description``/``$comment``/
``examples``, are left out). Field paths are the verdicts' own (``lines[].qty``);
members matched by a pattern or an open map, whose names come from the data, are shown
as ``parent.<pattern ...>`` and ``parent.<any member>``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import scorer
from leafscore import versions

#: Annotations: no tool acts on them for scoring, so a plan does not list them.
ANNOTATIONS: frozenset[str] = frozenset(("title", "description", "$comment", "examples",
                                         "$schema", "$id", "$defs", "definitions"))
#: What each node kind's compilation reads (``_Compiler.node``/``leaf_compare``).
_READ_BY_ALL = frozenset(("type", "x-leafscore"))
_READ_BY_OBJECT = frozenset(("properties",))
_READ_BY_ARRAY = frozenset(("items",))


@dataclass(frozen=True)
class Row:
    """One field path of the plan: ``path`` (``""`` for the document root), ``node``
    (``leaf``, ``object``, ``map``, ``array``, ``ignored``, ``recursive``), ``compare``
    (the comparison kind, or ``mix``: by the label value's JSON kind), ``details`` (the
    options that comparison uses), ``ordered`` (arrays), ``source`` (JSON pointer of the
    subschema), ``via`` (the steps resolving it) and ``unused`` (keywords not acted on)."""

    path: str
    node: str
    compare: str = ""
    details: Mapping[str, Any] = field(default_factory=dict)
    ordered: bool | None = None
    source: str = ""
    via: tuple[str, ...] = ()
    unused: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The row as JSON (every key, sorted)."""
        return {"path": self.path, "node": self.node, "compare": self.compare,
                "details": dict(sorted(self.details.items())), "ordered": self.ordered,
                "source": self.source, "via": list(self.via), "unused": list(self.unused)}

    @property
    def scored(self) -> bool:
        """Whether scoring may give verdicts at this path (the root and ignored nodes never)."""
        return bool(self.path) and self.node not in ("ignored", "recursive")


def plan_schema(schema: Any, record: scorer.ScoringVersion | None = None, *,
                options: scorer.Options | None = None, file: str = "") -> list[Row]:
    """The plan of ``schema`` under the version ``record`` (2.x; default the latest) and
    benchmark ``options``; ScoringError (naming ``file`` and the pointer) where scoring
    would raise it, ValueError for a version without per-leaf verdicts."""
    record = record or versions.resolve(None, None)
    if not record.has_verdicts:
        raise ValueError(f"version {record.name} keeps no per-leaf verdicts, so no plan")
    # scorer.compile_schema's two lines, keeping the compiler to read each node's keywords
    compiler = scorer._Compiler(schema, file, options or scorer.Options(), record.name != "2.0")
    root = compiler.compile(schema, "", compiler.defaults)
    flats = {id(node): resolved.keywords for resolved, node in compiler.built.values()}
    return list(_Planner(schema, flats, compiler.v21).rows(root, schema, "", "", ()))


class _Planner:
    def __init__(self, schema: Any, flats: dict[int, dict[str, Any]], v21: bool) -> None:
        self.flats, self.v21 = flats, v21
        self.pointers: dict[int, str] = {}  # every object of the schema -> its first pointer
        self.objects: dict[str, Any] = {}  # and back: pointer -> object
        stack = [(schema, "")]
        while stack:
            value, pointer = stack.pop()
            if isinstance(value, dict):
                self.pointers.setdefault(id(value), pointer)
                self.objects[pointer] = value
                stack += [(v, pointer + scorer.json_pointer([k])) for k, v in value.items()]
            elif isinstance(value, list):
                stack += [(v, f"{pointer}/{i}") for i, v in enumerate(value)]

    def rows(self, node: Any, raw: Any, path: str, source: str,
             above: tuple[int, ...]) -> Iterator[Row]:
        via = tuple(self.via(raw))
        if id(node) in above and node is not scorer.IGNORED:
            yield Row(path, "recursive", source=source, via=via)
            return
        flat = self.flats.get(id(node), {})
        if node is scorer.IGNORED:
            yield Row(path, "ignored", "ignore", source=source, via=via)
        elif isinstance(node, scorer.Leaf):
            yield Row(path, "leaf", node.compare, _details(node), None, source, via,
                      self.unused(flat, node))
        elif isinstance(node, scorer.ArrayNode):
            yield Row(path, "array", "", {}, node.ordered, source, via, self.unused(flat, node))
            items = flat.get("items")
            yield from self.rows(node.items, items, f"{path}[]", self.where(items, source,
                                 "/items"), (*above, id(node)))
        else:
            kind = "object" if node.properties is not None else "map"
            yield Row(path, kind, "", {}, None, source, via, self.unused(flat, node))
            declared = flat.get("properties")
            for name, child in (node.properties or {}).items():
                sub = declared.get(name) if isinstance(declared, Mapping) else None
                yield from self.rows(child, sub, scorer.join(path, name), self.where(
                    sub, source, scorer.json_pointer(["properties", name])),
                    (*above, id(node)))
            patterns = flat.get("patternProperties") if self.v21 else None
            for (compiled, child), (text, sub) in zip(node.patterns, (
                    patterns or {}).items(), strict=False):
                yield from self.rows(child, sub, _member(path, f"<pattern {compiled.pattern}>"),
                                     self.where(sub, source, scorer.json_pointer(
                                         ["patternProperties", text])), (*above, id(node)))
            if node.properties is None:
                extra = flat.get("additionalProperties")
                yield from self.rows(node.values, extra, _member(path, "<any member>"), self.where(
                    extra, source, "/additionalProperties"), (*above, id(node)))

    def where(self, sub: Any, parent: str, tail: str) -> str:
        """The pointer of subschema ``sub``: where it stands in the schema, else (a boolean,
        or absent) its place under ``parent``."""
        return self.pointers.get(id(sub), parent + tail) if isinstance(sub, dict) \
            else parent + tail

    def via(self, raw: Any) -> Iterator[str]:
        """The ``$ref``, ``allOf`` and ``anyOf``/``oneOf`` steps resolving ``raw``, in order."""
        seen: set[int] = set()
        stack = [raw]
        while stack:
            value = stack.pop()
            if not isinstance(value, dict) or id(value) in seen:
                continue
            seen.add(id(value))
            ref = value.get("$ref")
            if isinstance(ref, str):
                yield f"$ref {ref}"
            found = []
            for keyword in ("allOf", "anyOf", "oneOf"):
                members = value.get(keyword)
                for i, member in enumerate(members if isinstance(members, list) else ()):
                    if keyword == "allOf" or not _null_branch(member):
                        yield f"{self.pointers.get(id(value), '')}/{keyword}/{i}"
                        found.append(member)
            target = self.objects.get(ref.lstrip("#")) if isinstance(ref, str) else None
            stack += [*reversed(found), *(() if target is None else (target,))]

    def unused(self, flat: Mapping[str, Any], node: Any) -> tuple[str, ...]:
        """The keywords of a resolved node the scorer does not act on, sorted."""
        read = set(_READ_BY_ALL)
        if isinstance(node, scorer.ObjectNode):
            read |= _READ_BY_OBJECT | ({"patternProperties"} if self.v21 else set())
            if node.properties is None:
                read.add("additionalProperties")
        elif isinstance(node, scorer.ArrayNode):
            read |= _READ_BY_ARRAY
        elif isinstance(node, scorer.Leaf):
            if node.dated or (node.compare == "date" and flat.get("format") in (
                    "date", "date-time")):
                read.add("format")
            if not scorer._types(flat) and node.options.compare is None and \
                    node.compare in ("text", "exact"):  # an untyped enum picks its comparison
                read |= {"enum", "const"}
        return tuple(sorted(k for k in flat if k not in read and k not in ANNOTATIONS))


def _member(path: str, placeholder: str) -> str:
    """The field path of members named by the data: ``parent.<any member>``."""
    return f"{path}.{placeholder}" if path else placeholder


def _null_branch(member: Any) -> bool:
    """Whether an ``anyOf``/``oneOf`` branch is only null (the scorer drops it)."""
    if not isinstance(member, dict):
        return False
    declared = member.get("type")
    return declared == "null" or declared == ["null"] or member.get("enum") == [None] or (
        "const" in member and member["const"] is None)


def _details(leaf: scorer.Leaf) -> dict[str, Any]:
    """The options a leaf's comparison uses (those of its possible tags)."""
    options, out = leaf.options, {}
    tags = scorer.possible_tags(leaf)
    if "number" in tags:
        out["decimal_separator"] = options.decimal_separator
        if options.abs_tol:
            out["abs_tol"] = options.abs_tol
        if options.rel_tol:
            out["rel_tol"] = options.rel_tol
    if "date" in tags:
        out["date_formats"] = ["ISO 8601", *(options.date_formats or
                                             scorer.DEFAULT_DATE_FORMATS)]
    if leaf.compare == "fuzzy":
        out["threshold"] = options.threshold
    if leaf.compare == "mix":
        out["by JSON kind"] = [t for t in tags if t != "json"]
    return out


#: A benchmark's plans: schema file -> (ids of the documents it scores, its rows).
Plans = Mapping[str, tuple[tuple[str, ...], list[Row]]]


def plan_json(plans: Plans, version: str) -> str:
    """Stable JSON: ``{"version", "schemas": {file: {"documents": [...], "fields": [...]}}}``,
    keys sorted, fields in schema order."""
    data = {"version": version, "schemas": {
        schema_file: {"documents": list(ids), "fields": [row.to_dict() for row in rows]}
        for schema_file, (ids, rows) in sorted(plans.items())}}
    return json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def plan_text(plans: Plans, version: str) -> str:
    """One table per schema: field, comparison, options, ordered, from, not acted on."""
    from tabulate import tabulate

    out = []
    for schema_file, (ids, rows) in sorted(plans.items()):
        table = [[row.path or "(document)", _NODES.get(row.node, row.compare),
                  _shown(row.details),
                  "" if row.ordered is None else ("yes" if row.ordered else "no"),
                  " ".join((row.source or "#", *(f"<- {v}" for v in row.via))),
                  ", ".join(row.unused)] for row in rows]
        scored = ids[0] if len(ids) == 1 else f"{len(ids)} documents: {', '.join(ids)}"
        out.append(f"{schema_file} ({scored}), version {version}\n" + tabulate(
            table, ["field", "compared as", "options", "ordered", "from", "not acted on"],
            tablefmt="simple", disable_numparse=True))
    return "\n\n".join(out) + "\n"


_NODES = {"object": "object", "map": "open map", "array": "array",
          "recursive": "(recursive: as above)"}
_DEFAULT_DATES = ["ISO 8601", *scorer.DEFAULT_DATE_FORMATS]


def _shown(details: Mapping[str, Any]) -> str:
    """Options as text; the default date formats as ``ISO 8601, defaults``."""
    return "; ".join(
        f"{k} {'ISO 8601, defaults' if v == _DEFAULT_DATES else ' | '.join(map(str, v))}"
        if isinstance(v, list) else f"{k} {v}" for k, v in details.items())
