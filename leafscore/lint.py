"""Schema lint: what in a valid JSON Schema is most likely a typo (issue 24, item 2).

A metaschema accepts any unknown keyword, so ``"typ": "number"``, ``"propertes"`` or
``"format": "data"`` pass ``check_schema`` and silently change what the scorer reads (an
untyped leaf, an open map, text instead of a date). :func:`lint_schema` walks every
subschema and names, each with its JSON pointer and, where one is close, a suggestion:

* a keyword that is neither vocabulary of the schema's draft (its metaschema and
  vocabularies, as python-jsonschema knows them) nor an ``x-`` extension;
* a ``format`` that is neither one of the draft's defined formats nor one python-jsonschema
  can check;
* a keyword that cannot apply where it stands: an object keyword (``properties``) under a
  ``type`` without ``"object"``, an array keyword (``items``) under one without
  ``"array"``, a string or number keyword under a type without strings or numbers;
* a JSON Schema ``$`` keyword (``"$ref"``) written as a member of ``properties``, where it
  names a field, not a reference;
* in drafts up to 07, a keyword beside ``"$ref"``, which validation ignores there and
  scoring reads (spec 2.0 §7);
* an ``x-`` extension close to ``x-leafscore``, which scoring does not read.

Findings are :class:`Finding` records; ``leafscore validate`` reports them as warnings
(errors under ``--strict``), ``leafscore plan`` on stderr. Only the suggestions are
written here: what is known comes from python-jsonschema.
"""

from __future__ import annotations

import difflib
import functools
import json
from collections.abc import Iterator
from typing import Any, NamedTuple

import scorer

#: Formats the JSON Schema drafts define (2020-12 Validation §7.3, a superset of the
#: earlier drafts' but draft 3's few), known even where python-jsonschema has no checker.
DEFINED_FORMATS: frozenset[str] = frozenset((
    "date-time", "date", "time", "duration", "email", "idn-email", "hostname",
    "idn-hostname", "ipv4", "ipv6", "uri", "uri-reference", "iri", "iri-reference", "uuid",
    "uri-template", "json-pointer", "relative-json-pointer", "regex"))

#: Keyword -> the instance type it constrains (a keyword under a ``type`` without it is inert).
APPLIES_TO: dict[str, str] = {
    **dict.fromkeys(("properties", "patternProperties", "additionalProperties", "required",
                     "minProperties", "maxProperties", "propertyNames", "dependentRequired",
                     "dependentSchemas", "unevaluatedProperties"), "object"),
    **dict.fromkeys(("items", "prefixItems", "additionalItems", "contains", "minContains",
                     "maxContains", "minItems", "maxItems", "uniqueItems",
                     "unevaluatedItems"), "array"),
    **dict.fromkeys(("minLength", "maxLength", "pattern", "format", "contentEncoding",
                     "contentMediaType", "contentSchema"), "string"),
    **dict.fromkeys(("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                     "multipleOf"), "number"),
}

#: A keyword of another draft -> its counterpart in the drafts that renamed it.
RENAMED: dict[str, str] = {
    "prefixItems": "items", "items": "prefixItems", "additionalItems": "items",
    "$defs": "definitions", "dependentSchemas": "dependencies",
    "dependentRequired": "dependencies", "unevaluatedProperties": "additionalProperties",
    "unevaluatedItems": "additionalItems", "id": "$id", "$id": "id",
    "divisibleBy": "multipleOf"}

#: Containers only ever reached by a ``$ref``'s JSON pointer, which resolves in any draft.
_POINTED = ("$defs", "definitions")

_LEAFSCORE = frozenset(("x-leafscore",))
#: Keywords that may stand beside a ``$ref`` in drafts up to 07, which ignore the others.
_BESIDE_REF_ANYWAY = frozenset(("$ref", "$schema", "$id", "id", "$comment", "title",
                                "description", "examples", "default", "definitions", "$defs"))

# Where subschemas stand: one schema, a list of schemas, or a map of name -> schema.
_ONE = ("additionalProperties", "additionalItems", "unevaluatedItems", "unevaluatedProperties",
        "contains", "propertyNames", "not", "if", "then", "else", "contentSchema")
_LIST = ("allOf", "anyOf", "oneOf", "prefixItems")
_MAP = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas",
        "dependencies")


class Finding(NamedTuple):
    """One lint finding: ``pointer`` (RFC 6901, into the schema) and ``message``, which
    ends with the suggestion when there is one."""

    pointer: str
    message: str


def lint_schema(schema: Any) -> list[Finding]:
    """Every finding in ``schema`` (a valid JSON Schema): a node's own keywords in order,
    then its subschemas' findings, depth first."""
    import jsonschema

    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return list(_walk(schema, "", _Draft.of(cls)))


class _Draft(NamedTuple):
    name: str
    keywords: frozenset[str]
    formats: frozenset[str]
    suggested: frozenset[str]  # what a keyword typo may be: keywords and x-leafscore

    @staticmethod
    @functools.cache
    def of(cls: Any) -> _Draft:
        """The keywords and formats python-jsonschema knows for the draft of ``cls``."""
        digits = cls.__name__.removeprefix("Draft").removesuffix("Validator")
        name = f"{digits[:4]}-{digits[4:]}" if len(digits) == 6 else f"draft-{digits:0>2}"
        keywords = set(cls.VALIDATORS) | _metaschema_keywords(cls.META_SCHEMA)
        formats = set(cls.FORMAT_CHECKER.checkers) | DEFINED_FORMATS
        return _Draft(name, frozenset(keywords), frozenset(formats),
                      frozenset(keywords | {"x-leafscore"}))


def _metaschema_keywords(meta: dict) -> set[str]:
    """The ``properties`` of a metaschema and of every vocabulary metaschema it refers to."""
    from jsonschema_specifications import REGISTRY

    base = meta.get("$id") or meta.get("id") or ""
    resolver = REGISTRY.resolver(base_uri=base)
    out: set[str] = set()
    seen: set[str] = set()
    stack: list[tuple[Any, Any]] = [(meta, resolver)]
    while stack:
        node, here = stack.pop()
        if not isinstance(node, dict):
            continue
        out.update(node.get("properties", {}))
        for member in node.get("allOf", []):
            ref = member.get("$ref") if isinstance(member, dict) else None
            if isinstance(ref, str) and ref not in seen:
                seen.add(ref)
                found = here.lookup(ref)
                stack.append((found.contents, found.resolver))
    return out


def _walk(schema: Any, pointer: str, draft: _Draft) -> Iterator[Finding]:
    if not isinstance(schema, dict):
        return
    types = _declared_types(schema)
    for key, value in schema.items():
        at = pointer + scorer.json_pointer([key])
        if key.startswith("x-"):
            if key != "x-leafscore" and (close := _suggest(key, _LEAFSCORE)):
                yield Finding(at, f"extension {_q(key)} is not \"x-leafscore\", so scoring "
                              f"does not read it{close}")
            continue
        if key not in draft.keywords and key not in _POINTED:
            yield Finding(at, _unknown(key, draft))
            continue
        if "$ref" in schema and key not in _BESIDE_REF_ANYWAY and draft.name.startswith(
                "draft-"):
            yield Finding(at, f"{_q(key)} stands beside \"$ref\", which JSON Schema "
                          f"{draft.name} validation ignores while scoring reads it (spec 2.0 "
                          '§7) (did you mean to put the "$ref" in an "allOf"?)')
        needed = APPLIES_TO.get(key)
        if types is not None and needed is not None and needed not in types and not (
                needed == "number" and "integer" in types):
            shown = _q(types[0]) if len(types) == 1 else json.dumps(types)
            yield Finding(at, f"{_q(key)} applies only to {needed}s and \"type\" here is "
                          f"{shown}, so neither validation nor scoring reads it "
                          f"(did you mean \"type\": {_q(needed)}?)")
        if key == "format" and isinstance(value, str) and value not in draft.formats:
            yield Finding(at, f"unknown format {_q(value)}: not a format of JSON Schema "
                          f"{draft.name} nor one python-jsonschema checks, so the field is "
                          f"read by its type alone{_suggest(value, draft.formats)}")
    for key, value in schema.items():
        at = pointer + scorer.json_pointer([key])
        if key in _ONE or (key == "items" and isinstance(value, dict)):
            yield from _walk(value, at, draft)
        elif key in _LIST or (key == "items" and isinstance(value, list)):
            for i, member in enumerate(value if isinstance(value, list) else ()):
                yield from _walk(member, f"{at}/{i}", draft)
        elif key in _MAP and isinstance(value, dict):
            for name, member in value.items():
                where = at + scorer.json_pointer([name])
                if key == "properties" and name.startswith("$") and name in draft.keywords:
                    yield Finding(where, f"{_q(name)} is a member of \"properties\" here, so "
                                  f"it names a field called {_q(name)}, not the keyword (did "
                                  f"you mean {_q(name)} beside \"properties\", one level up?)")
                yield from _walk(member, where, draft)


def _unknown(key: str, draft: _Draft) -> str:
    """The finding of a keyword the draft does not know: another draft's, or a typo."""
    if other := next((d for d in _all_drafts() if key in d.keywords), None):
        renamed = RENAMED.get(key)
        hint = f" (did you mean {_q(renamed)}?)" if renamed in draft.keywords else ""
        return (f"keyword {_q(key)} belongs to JSON Schema {other.name}, not to the "
                f"{draft.name} this schema is read as, so neither validation nor scoring "
                f"reads it{hint}")
    return (f"unknown keyword {_q(key)}: not JSON Schema {draft.name} vocabulary nor an x- "
            f"extension, so neither validation nor scoring reads it"
            f"{_suggest(key, draft.suggested)}")


@functools.cache
def _all_drafts() -> tuple[_Draft, ...]:
    """Every draft python-jsonschema validates, newest first."""
    import jsonschema

    return tuple(_Draft.of(cls) for cls in (
        jsonschema.Draft202012Validator, jsonschema.Draft201909Validator,
        jsonschema.Draft7Validator, jsonschema.Draft6Validator, jsonschema.Draft4Validator,
        jsonschema.Draft3Validator))


def _declared_types(schema: dict) -> list[str] | None:
    """The node's own ``type`` as a list (None when absent or malformed), ``null`` kept."""
    declared = schema.get("type")
    types = [declared] if isinstance(declared, str) else declared
    if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
        return None
    return types


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


@functools.lru_cache(maxsize=4096)
def _suggest(word: str, known: frozenset[str]) -> str:
    """`` (did you mean "type"?)`` for the closest known word, else ``""``."""
    folded = {k.casefold(): k for k in sorted(known)}
    close = [folded[word.casefold()]] if word.casefold() in folded else \
        difflib.get_close_matches(word, sorted(known), n=1, cutoff=0.75)
    return f" (did you mean {_q(close[0])}?)" if close else ""
