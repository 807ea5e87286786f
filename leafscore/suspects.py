"""Suspect labels, as a review queue: label leaves that several systems agree on against the
label, grouped into patterns, then leaves many systems dispute in different values and label
items most systems leave unpaired.

Read from a version-2.x ``Run``'s verdicts (``scorer.Verdict``); nothing is rescored.

- **Per label leaf**: verdicts are grouped by (document, ``address``). An array leaf's
  address carries the index of the *label* item its result item was paired with
  (``lines[3].qty``), so systems that paired different result items with label item 3
  still meet at one address. Result items paired with no label item (``extra_item``,
  address ``lines[r5].qty``) have no label leaf and are left out.
- **Disagreeing**: a system disagrees at an address when its verdict there is
  ``wrong_value``, ``type_error`` or ``hallucinated`` (it gave a value other than the
  label's), unless the label item holding the leaf was paired on one shared leaf only: a
  system's verdict inside an array item (at any depth) on which that system has at most
  one ``correct`` leaf is no evidence, since the pairing itself rests on that leaf.
- **Agreement**: disagreeing systems agree when their canonical values are equal
  (``result_canon``, canonical JSON text), so ``"1,240.00"`` and ``1240`` agree on a number
  field. Where the scorer keeps no canonical value (``hallucinated``: the label leaf is
  empty; ``type_error``: unreadable under the label's comparator) the raw values are
  compared with every JSON number in its shortest plain decimal text (``0`` and ``0.0``
  agree; so does ``"0"``, as text comparison reads it); ``compared`` says which.
- **Suspect**: a value given by at least ``min_agree`` disagreeing systems that differs
  from the label's ``label_canon`` (including a label leaf left empty). Each keeps the
  raw values the systems wrote (``results``) beside the agreed canonical ``value``.
- **Pattern**: suspects with one field path (indices removed, ``tripRows[].nights``), one
  label value and one agreed value form one entry with a count, its documents and
  addresses; entries are ranked by their most agreeing leaf, then count, then place.
- **Disagreement**: a label leaf that no suspect names where at least ``disagree``
  systems disagree, whatever values they give.
- **Unpaired item**: a label array item that at least ``disagree`` scored systems leave
  unpaired (every leaf of it ``missing``); an item inside one already listed is not listed.
- **Defaults**: ``min_agree`` and ``disagree`` are a majority of the systems, and at least
  3 (``max(3, n_systems // 2 + 1)``).
- **Places**: each entry names its document id and address; the explorer page has no
  per-document anchor, so these are what to look up there.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import scorer

#: Verdict kinds that carry a result value at a label leaf and disagree with it.
_DISAGREEING = frozenset({"wrong_value", "type_error", "hallucinated"})


def _written(systems: tuple[str, ...],
             results: tuple[Any, ...]) -> tuple[tuple[Any, tuple[str, ...]], ...]:
    """Distinct raw values, each with the systems that wrote it, in order of first writer."""
    out: dict[str, tuple[Any, list[str]]] = {}
    for system, raw in zip(systems, results, strict=True):
        out.setdefault(_key(raw), (raw, []))[1].append(system)
    return tuple((raw, tuple(names)) for raw, names in out.values())


@dataclass(frozen=True)
class Suspect:
    """One label leaf that ``systems`` agree on against the label.

    ``document`` and ``address`` (``lines[3].qty``) place it; ``field`` is its path
    (``lines[].qty``); ``label``/``label_canon`` the label's raw and canonical values
    (``None`` when the label leaves it empty); ``value`` the agreed canonical value;
    ``results`` one raw result value per agreeing system (as it wrote it), in ``systems``
    order; ``of`` the number of systems with a verdict at this address; ``compared`` is
    ``"canonical"`` or ``"raw"`` (no canonical value kept: see the module).
    """

    document: str
    address: str
    field: str
    label: Any
    label_canon: Any
    value: Any
    systems: tuple[str, ...]
    results: tuple[Any, ...]
    of: int
    compared: str = "canonical"

    @property
    def agree(self) -> int:
        """How many systems agree on ``value``."""
        return len(self.systems)

    @property
    def written(self) -> tuple[tuple[Any, tuple[str, ...]], ...]:
        """``((raw value, systems that wrote it), ...)``: each distinct raw value once."""
        return _written(self.systems, self.results)


@dataclass(frozen=True)
class Pattern:
    """One entry of the review queue: suspects sharing a ``field`` path, label value and
    agreed ``value`` (``leaves``, in document then address order; one leaf for most)."""

    field: str
    label: Any
    label_canon: Any
    value: Any
    compared: str
    leaves: tuple[Suspect, ...]

    @property
    def count(self) -> int:
        """How many label leaves the pattern holds."""
        return len(self.leaves)

    @property
    def agree(self) -> int:
        """The most systems agreeing at one of its leaves."""
        return max(s.agree for s in self.leaves)

    @property
    def documents(self) -> tuple[str, ...]:
        """Its documents, sorted."""
        return tuple(sorted({s.document for s in self.leaves}))

    @property
    def written(self) -> tuple[tuple[Any, tuple[str, ...]], ...]:
        """Each distinct raw value over all its leaves, with every system that wrote it
        (sorted), in order of first appearance."""
        out: dict[str, tuple[Any, set[str]]] = {}
        for leaf in self.leaves:
            for raw, systems in leaf.written:
                out.setdefault(_key(raw), (raw, set()))[1].update(systems)
        return tuple((raw, tuple(sorted(names))) for raw, names in out.values())


@dataclass(frozen=True)
class Disagreement:
    """A label leaf that no suspect names where ``systems`` disagree with the label in
    values of their own: ``results`` raw and ``canons`` canonical (``None`` where the scorer
    keeps none), one per system in ``systems`` order; ``of`` systems have a verdict here."""

    document: str
    address: str
    field: str
    label: Any
    label_canon: Any
    systems: tuple[str, ...]
    results: tuple[Any, ...]
    canons: tuple[Any, ...]
    of: int

    @property
    def disagree(self) -> int:
        """How many systems disagree with the label here."""
        return len(self.systems)


@dataclass(frozen=True)
class Unpaired:
    """A label array item (``item``: ``lines[3]``; ``field``: ``lines[]``) that ``systems``
    leave unpaired, of ``of`` scored systems; ``label`` holds its non-empty leaves as
    ``((address, raw label value), ...)`` in verdict order."""

    document: str
    item: str
    field: str
    label: tuple[tuple[str, Any], ...]
    systems: tuple[str, ...]
    of: int

    @property
    def unpaired(self) -> int:
        """How many systems leave the item unpaired."""
        return len(self.systems)


@dataclass(frozen=True)
class Suspects:
    """The review queue of a run: every suspect at ``min_agree`` (``suspects``, best
    supported first), the same grouped into ``patterns``, the ``disagreements`` and
    ``unpaired`` label items at ``disagree`` systems, with the run's ``signature``;
    ``systems`` is the number of systems compared."""

    min_agree: int
    systems: int
    suspects: tuple[Suspect, ...]
    signature: str
    patterns: tuple[Pattern, ...] = ()
    disagree: int = 0
    disagreements: tuple[Disagreement, ...] = ()
    unpaired: tuple[Unpaired, ...] = ()


def default_min_agree(n_systems: int) -> int:
    """A majority of ``n_systems`` and at least 3.

    >>> [default_min_agree(n) for n in (2, 4, 5, 6, 7)]
    [3, 3, 3, 4, 4]
    """
    return max(3, n_systems // 2 + 1)


def _key(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"),
                      default=str)


def canonical_raw(value: Any) -> Any:
    """A raw JSON value with every number (not a boolean) as its shortest plain decimal
    text, at the scorer's 6 places: ``0.0 -> "0"``, ``[1.50, "a"] -> ["1.5", "a"]``.

    >>> canonical_raw({"n": 0.0, "m": [2, True, "x"]})
    {'n': '0', 'm': ['2', True, 'x']}
    """
    if isinstance(value, dict):
        return {k: canonical_raw(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [canonical_raw(v) for v in value]
    if isinstance(value, int | float) and not isinstance(value, bool):
        number = scorer.canon_number(value)
        return value if number is None else scorer.plain_decimal(number)
    return value


def address_order(address: str) -> list[Any]:
    """Sort key of an address with its indices as numbers: ``rows[2]`` before ``rows[10]``.

    >>> sorted(["rows[10].a", "rows[2].a", "name"], key=address_order)
    ['name', 'rows[2].a', 'rows[10].a']
    """
    return [(1, int(p)) if i % 2 else (0, p) for i, p in enumerate(re.split(r"(\d+)", address))]


def items_of(address: str, field: str) -> tuple[str, ...]:
    """The array items enclosing a leaf, outermost first, read by aligning its ``address``
    with its ``field`` path: ``("a[1].b[2].c", "a[].b[].c") -> ("a[1]", "a[1].b[2]")``.

    >>> items_of("lines[3].qty", "lines[].qty")
    ('lines[3]',)
    """
    out, i, j = [], 0, 0
    while j < len(field) and i < len(address):
        if field.startswith("[]", j) and address.startswith("[", i):
            end = address.find("]", i)
            if end < 0:
                break
            out.append(address[:end + 1])
            i, j = end + 1, j + 2
        else:
            i, j = i + 1, j + 1
    return tuple(out)


def find(run: Any, *, min_agree: int | None = None, disagree: int | None = None) -> Suspects:
    """The review queue of ``run``: suspects, their patterns, disagreements, unpaired items.

    Parameters
    ----------
    run : leafscore.run.Run
        A version-2.x run (its cells hold verdicts).
    min_agree : int, optional
        Systems that must agree on one value other than the label's, from 2 to the
        number of systems; default :func:`default_min_agree`.
    disagree : int, optional
        Systems that must disagree with the label (in any values), or leave a label item
        unpaired, from 2 to the number of systems; default :func:`default_min_agree`.

    Returns
    -------
    Suspects

    Raises
    ------
    ValueError
        If ``min_agree`` or ``disagree`` is below 2 or above the number of systems in
        ``run``, or the run keeps no verdicts (1.0).
    """
    n = len(run.systems)
    for option, wanted in (("--min-agree", min_agree), ("--disagree", disagree)):
        # A count no run of n systems can reach would list nothing and look like a clean
        # benchmark; only a given value is refused (the default of 2 systems is 3).
        if wanted is not None and wanted > n:
            raise ValueError(f"{option} {wanted} is more than the {n} system(s) scored; "
                             f"pass at most {n}")
    min_agree = default_min_agree(n) if min_agree is None else min_agree
    disagree = default_min_agree(n) if disagree is None else disagree
    if min_agree < 2:
        raise ValueError(f"--min-agree {min_agree} must be at least 2")
    if disagree < 2:
        raise ValueError(f"--disagree {disagree} must be at least 2")
    found: list[Suspect] = []
    disputed: list[Disagreement] = []
    unpaired: list[Unpaired] = []
    for document in run.documents:
        places: dict[str, dict[str, Any]] = {}
        counted: dict[str, dict[str, Any]] = {}
        left: dict[str, list[str]] = {}
        leaves: dict[str, tuple[str, list[tuple[str, Any]]]] = {}
        scored = 0
        for system in run.systems:
            cell = run.cells[(system, document)]
            verdicts = getattr(cell.score, "verdicts", None)
            if verdicts is None:
                raise ValueError(f"version {run.version} keeps no per-leaf verdicts; "
                                 "suspects need version 2.0")
            verdicts = [v for v in verdicts if v.kind != "extra_item"]
            weak, unpaired_items = _items(verdicts)
            for verdict in verdicts:
                places.setdefault(verdict.address, {}).setdefault(system, verdict)
                if verdict.kind in _DISAGREEING and not weak & set(
                        items_of(verdict.address, verdict.field)):
                    counted.setdefault(verdict.address, {}).setdefault(system, verdict)
            if cell.status != "scored":
                continue
            scored += 1
            for item, (field, label) in unpaired_items.items():
                left.setdefault(item, []).append(system)
                leaves.setdefault(item, (field, label))
        named = set()
        for address, by_system in counted.items():
            here = _suspects_at(document, address, by_system, len(places[address]),
                                min_agree)
            named.update(s.address for s in here)
            found.extend(here)
        for address, by_system in counted.items():
            if address not in named and len(by_system) >= disagree:
                disputed.append(_disagreement(document, address, by_system,
                                              len(places[address])))
        listed: list[str] = []
        for item in sorted(left, key=address_order):
            if len(left[item]) >= disagree and not any(item.startswith(o) for o in listed):
                listed.append(item)
                unpaired.append(Unpaired(document, item, leaves[item][0],
                                         tuple(leaves[item][1]), tuple(left[item]), scored))
    found.sort(key=lambda s: (-s.agree, s.document, address_order(s.address), _key(s.value)))
    disputed.sort(key=lambda d: (-d.disagree, d.document, address_order(d.address)))
    unpaired.sort(key=lambda u: (-u.unpaired, u.document, address_order(u.item)))
    return Suspects(min_agree, n, tuple(found), run.signature, _patterns(found), disagree,
                    tuple(disputed), tuple(unpaired))


def _items(verdicts: list[Any]) -> tuple[set[str], dict[str, tuple[str, list[tuple[str, Any]]]]]:
    """One system's weak items (at most one ``correct`` leaf) and unpaired label items
    (every leaf ``missing``: item -> (its field path, its (address, label) leaves))."""
    correct: dict[str, int] = {}
    kinds: dict[str, set[str]] = {}
    unpaired: dict[str, tuple[str, list[tuple[str, Any]]]] = {}
    for verdict in verdicts:
        for item in items_of(verdict.address, verdict.field):
            correct[item] = correct.get(item, 0) + (verdict.kind == "correct")
            kinds.setdefault(item, set()).add(verdict.kind)
            if verdict.kind == "missing":
                field = verdict.field[:_item_end(item, verdict.field)]
                unpaired.setdefault(item, (field, []))[1].append(
                    (verdict.address, verdict.label))
    weak = {item for item, n in correct.items() if n <= 1}
    return weak, {item: v for item, v in unpaired.items() if kinds[item] == {"missing"}}


def _item_end(item: str, field: str) -> int:
    """Length of the field path of ``item`` (as many ``[]`` as ``item`` has indices)."""
    depth, at = item.count("["), 0
    for _ in range(depth):
        at = field.index("[]", at) + 2
    return at


def _suspects_at(document: str, address: str, by_system: dict[str, Any], of: int,
                 min_agree: int) -> list[Suspect]:
    """Values at one label leaf given by at least ``min_agree`` disagreeing systems."""
    groups: dict[tuple[str, str], list[tuple[str, Any]]] = {}
    for system, verdict in by_system.items():
        compared = "raw" if verdict.result_canon is None else "canonical"
        groups.setdefault((compared, _key(_value(verdict))), []).append((system, verdict))
    out = []
    for (compared, key), members in groups.items():
        first = members[0][1]
        if len(members) < min_agree or (compared == "canonical"
                                         and key == _key(first.label_canon)):
            continue
        out.append(Suspect(
            document=document, address=address, field=first.field, label=first.label,
            label_canon=first.label_canon, value=_value(first),
            systems=tuple(s for s, _ in members), results=tuple(v.result for _, v in members),
            of=of, compared=compared))
    return out


def _value(verdict: Any) -> Any:
    """What agreement compares: the canonical value, else the raw one with numbers as text."""
    return canonical_raw(verdict.result) if verdict.result_canon is None else verdict.result_canon


def _disagreement(document: str, address: str, by_system: dict[str, Any],
                  of: int) -> Disagreement:
    first = next(iter(by_system.values()))
    return Disagreement(
        document=document, address=address, field=first.field, label=first.label,
        label_canon=first.label_canon, systems=tuple(by_system),
        results=tuple(v.result for v in by_system.values()),
        canons=tuple(v.result_canon for v in by_system.values()), of=of)


def _patterns(found: list[Suspect]) -> tuple[Pattern, ...]:
    """Suspects grouped by field path, label value and agreed value; ranked."""
    groups: dict[tuple[str, ...], list[Suspect]] = {}
    for s in found:
        label = _key(s.label_canon) if s.label_canon is not None else _key(
            canonical_raw(s.label))
        groups.setdefault((s.field, label, s.compared, _key(s.value)), []).append(s)
    out = []
    for members in groups.values():
        members.sort(key=lambda s: (s.document, address_order(s.address)))
        first = members[0]
        out.append(Pattern(first.field, first.label, first.label_canon, first.value,
                           first.compared, tuple(members)))
    out.sort(key=lambda p: (-p.agree, -p.count, p.leaves[0].document,
                            address_order(p.leaves[0].address)))
    return tuple(out)
