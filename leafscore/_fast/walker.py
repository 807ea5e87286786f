"""The fast engine's walker: the definition's (``scorer.Walker``), with each canonical
value read once per document, flat arrays read and paired by columns, and candidate
pairs of loose (tolerant or fuzzy) fields found by bisection and ``rapidfuzz.cdist``
instead of trying every pair.

Every override gives what the definition gives, verdict for verdict; which path applies
where is decided in one place, :func:`leafscore._fast.usable_for`.
"""

from __future__ import annotations

import bisect
import collections
import functools
import itertools
from collections.abc import Sequence
from decimal import MAX_EMAX, MIN_EMIN, ROUND_CEILING, ROUND_FLOOR, Decimal, localcontext
from typing import Any

import scorer
from leafscore._fast import flat, lazy, lexi, solve, tuning
from leafscore._fast.numpy_lazy import np

#: Types whose ``==`` is JSON value equality: a memo may key on such a value itself.
_PLAIN = frozenset((str, int, bool, type(None)))


def memo_value(value: Any) -> Any:
    """A scalar as a memo key, equal only for the same JSON value: Python's ``==`` makes
    ``-0.0`` equal ``0.0``, two ``scorer.JSONNumber`` of one float equal whatever their
    written forms, and ``Decimal("1.50")`` equal ``Decimal("1.5")``, yet each is read
    (and shown in a Verdict) as itself."""
    cls = value.__class__
    if cls in _PLAIN:
        return value
    if cls is float:
        return value if value else repr(value)  # only zero is written two ways
    if cls is scorer.JSONNumber:
        return value.text
    return repr(value)


# The canonical text and date of short strings are remembered across documents (a label
# is read once per system; most result values equal label values): pure functions of the
# string, so remembering changes no value; the bounds keep the memory under ~40 MB.
@functools.lru_cache(maxsize=1 << 16)
def _text(value: str, v21: bool) -> str:
    return scorer.canon_text(value, v21)


@functools.lru_cache(maxsize=1 << 14)
def _date(value: str, formats: tuple[str, ...] | None, v21: bool) -> str | None:
    return scorer.canon_date(value, formats, v21)


class FastWalker(scorer.Walker):
    """``scorer.Walker`` with per-document memos and the fast paths. ``document`` is the
    walk's own output list (a flat array appends its rows there as one block)."""

    def __init__(self, comparators: Any, pair: Any, document: list | None = None,
                 readings: bool = False) -> None:
        super().__init__(comparators, pair, readings)
        flat.forget_reads()  # a document's walk starts: reads past the bound dropped
        self.v21 = comparators is scorer.COMPARATORS_2_1
        self.document = document
        self.blocks = False  # whether ``document`` holds a FlatRows block
        # keyed by the value's type and memo_value: equal keys, the same JSON value
        self.memo: dict[tuple, Any] = {}  # (tag, leaf id, JSON type, value) -> key
        self.reads: dict[tuple, scorer.Read] = {}  # (leaf id, JSON type, value) -> read
        # An array inside items is walked once to weigh a candidate pair, again inside
        # the walk of the pair that holds it, and again for its verdicts: its counts and
        # pairs are remembered by the identity of its two read lists (held, so that an
        # identity is never reused while remembered).
        self.tallies: dict[tuple, tuple] = {}  # (node id, list ids) -> (lists, counts)
        self.paired: dict[tuple, tuple] = {}  # (item id, list ids) -> (lists, pairs)
        # (leaf id, signature member) -> {JSON type: {value: read}}: flat.walk_flat's reads
        self.column_reads: dict[tuple, dict] = {}
        self.signed: dict[int, tuple] = {}  # id of a leaf's read -> (read, signature)
        self.named: dict[int, tuple] = {}  # id of an object node -> (node, its members)
        self.paths: dict[tuple, tuple] = {}  # (object node id, path) -> (node, members)
        # array node id -> its flat arrays read since their columns were last asked:
        # read by columns together when one is asked (flat.FlatItems.columns)
        self.unread: dict[int, list] = {}

    # -- reading, each distinct value once -------------------------------------------

    def text_key(self, value: str) -> str:
        """``canon_text`` of a string, remembered."""
        return _text(value, self.v21) if len(value) <= tuning.TUNING.memo_text else \
            scorer.canon_text(value, self.v21)

    def key(self, leaf: scorer.Leaf, tag: str, value: Any) -> Any:
        if isinstance(value, dict | list):
            return super().key(leaf, tag, value)
        cls = value.__class__
        memo = (tag, id(leaf), cls, value if cls in _PLAIN else memo_value(value))
        found = self.memo.get(memo, self)
        if found is self:
            short = value.__class__ is str and len(value) <= tuning.TUNING.memo_text
            if short and tag in ("text", "fuzzy"):
                found = _text(value, self.v21)
            elif short and tag == "date" and (leaf.options.date_formats is None
                                              or leaf.options.date_formats.__class__ is tuple):
                iso = _date(value, leaf.options.date_formats, self.v21)
                found = iso if iso is not None else "~" + self.text_key(value)
            else:
                found = super().key(leaf, tag, value)
            self.memo[memo] = found
        return found

    def read_leaf(self, leaf: scorer.Leaf, value: Any) -> scorer.Read:
        if isinstance(value, dict | list):
            return super().read_leaf(leaf, value)
        cls = value.__class__
        memo = (id(leaf), cls, value if cls in _PLAIN else memo_value(value))
        found = self.reads.get(memo)
        if found is None:
            if cls is str and leaf.compare != "mix":
                # Walker.read_leaf of a string at a leaf of one kind, without its type
                # tests, its keys by :meth:`key` (remembered, where the definition calls
                # the comparator); a string unreadable so is read as text
                if not value.strip():
                    found = scorer.Read(value, None, None)
                elif (key := self.key(leaf, leaf.compare, value)) is not None:
                    found = scorer.Read(value, leaf.compare, key)
                else:
                    found = scorer.Read(value, "text", self.key(leaf, "text", value))
            else:
                found = super().read_leaf(leaf, value)
            self.reads[memo] = found
        return found

    def read(self, node: Any, value: Any, depth: int = 0, label: bool = False,
             ) -> scorer.Read:
        """The definition's read; an unordered array of flat objects keeps its items raw
        (:class:`~leafscore._fast.flat.FlatItems`), to be read by columns, unless it is a
        label's holding alternative readings (2.1), which only the definition reads."""
        if node.__class__ is scorer.Leaf and value is not None and value.__class__ is not dict:
            return self.read_leaf(node, value)  # Walker.read's own step for such a leaf
        if isinstance(node, scorer.ArrayNode) and isinstance(value, list) and \
                usable(node, self, depth) == "flat" and not (
                    label and self.readings and _holds_readings(value)):
            tag = None if scorer.is_empty(value) else "[]"
            items = flat.FlatItems(self, node, value)
            self.unread.setdefault(id(node), []).append(items)
            return scorer.Read(value, tag, items)
        return super().read(node, value, depth, label)

    def signature(self, node: Any, read: scorer.Read) -> str | None:
        """The definition's signature, with a leaf read's (one object per distinct value,
        :meth:`read_leaf`) made once and a closed object's quoted member names once."""
        tag = read.tag
        if tag is None or node is scorer.IGNORED:
            return None
        cls = node.__class__
        if cls is scorer.Leaf and tag != "anyOf":
            found = self.signed.get(id(read))
            if found is None or found[0] is not read:
                found = self.signed[id(read)] = (read, super().signature(node, read))
            return found[1]
        if tag == "[]" and read.key.__class__ is flat.FlatItems:  # unordered: sorted
            parts = sorted("{" + text[1:] for text in read.key.columns()[2] if text)
            return "[" + ",".join(parts) + "]" if parts else None
        if tag != "{}" or cls is not scorer.ObjectNode or node.properties is None or \
                node.patterns:
            return super().signature(node, read)
        named = self.named.get(id(node))
        if named is None:
            named = self.named[id(node)] = (node, [(f"{scorer._quote(name)}=", name, child)
                                                    for name, child in node.properties.items()])
        members, empty = read.key, scorer.EMPTY
        parts = [prefix + sig for prefix, name, child in named[1]
                 if (sig := self.signature(child, members.get(name, empty)))]
        return "{" + ",".join(parts) + "}" if parts else None

    def keys(self, node: Any, read: scorer.Read, path: str,
             tags: dict[str, set[str]] | None = None) -> list[tuple[str, str, Any, Any]]:
        """The definition's keys, the same multiset (a flat array's listed field by
        field, from its columns: :meth:`flat_keys`; every caller counts or sets them),
        with each closed object's member paths joined once per (node, path)."""
        out: list[tuple[str, str, Any, Any]] = []
        stack = [(node, read, path)]
        empty, ignored, leaf_class = scorer.EMPTY, scorer.IGNORED, scorer.Leaf
        while stack:
            node, read, path = stack.pop()
            tag = read.tag
            if node is ignored or tag is None:
                continue
            used = None if tags is None else tags.get(path, ())
            if tag == "{}" or tag == "[]":
                if used and "json" in used:  # against a label of the wrong kind here
                    out.append((path, "json", scorer.canon_exact(read.raw), scorer._JSON_LEAF))
                if tag == "[]":
                    below = f"{path}[]"
                    if read.key.__class__ is flat.FlatItems and \
                            (tags is None or "json" not in tags.get(below, ())):
                        out += self.flat_keys(read.key, below, tags)
                        continue
                    stack += [(node.items, v, below) for _, v, _ in read.key]
                else:
                    members = read.key
                    stack += [(child, members.get(name, empty), at)
                              for name, child, at in self.member_paths(node, members, path)]
                continue
            leaf, own = (node, tag) if node.__class__ is leaf_class else (scorer._JSON_LEAF,
                                                                          "json")
            if tag == "anyOf":  # a label's readings: a key each
                out += [(path, r.tag, r.key, leaf) for r in read.key if r.tag is not None]
            elif used is None:
                out.append((path, own, read.key, leaf))
            else:
                out += [(path, t, key, leaf) for t in used if (key := read.key if t == own
                        else self.key(leaf, t, read.raw)) is not None]
        return out

    def flat_keys(self, items: flat.FlatItems, path: str, tags: dict[str, set[str]] | None,
                  ) -> list[tuple[str, str, Any, Any]]:
        """:meth:`keys` of a flat array's items at ``path``, from its columns (the same
        keys, a field at a time; no item is read as an object)."""
        _, values, _, reads = items.columns()
        out: list[tuple[str, str, Any, Any]] = []
        memo = (id(items.node), path)
        found = self.paths.get(memo)
        if found is None or found[0] is not items.node:  # each field's leaf and path, once
            found = self.paths[memo] = (items.node, [
                (leaf, scorer.join(path, name))
                for name, leaf in flat.flat_fields(items.node.items, self)])
        for (leaf, at), column, got in zip(found[1], values, reads, strict=True):
            used = None if tags is None else tags.get(at, ())
            if used is None:
                out += [(at, read[0], read[1], leaf) for read in got if read[0] is not None]
                continue
            if len(used) == 1:  # one tag at this path (the usual case): no list per value
                (t,) = used
                out += [(at, t, keyed, leaf) for raw, (own, key, _) in
                        zip(column, got, strict=True) if own is not None and
                        (keyed := key if t == own else self.key(leaf, t, raw)) is not None]
                continue
            for raw, (own, key, _) in zip(column, got, strict=True):
                if own is not None:
                    out += [(at, t, keyed, leaf) for t in used if (keyed := key if t == own
                            else self.key(leaf, t, raw)) is not None]
        return out

    def stated(self, node: Any, read: scorer.Read) -> int:
        """``len(self.keys(node, read, ""))`` without making the keys: the non-empty
        leaves below (a label's readings: each non-empty one)."""
        count, stack = 0, [(node, read)]
        empty, ignored = scorer.EMPTY, scorer.IGNORED
        while stack:
            node, read = stack.pop()
            tag = read.tag
            if node is ignored or tag is None:
                continue
            if tag == "[]" and read.key.__class__ is flat.FlatItems:
                count += sum(got[0] is not None for reads in read.key.columns()[3]
                             for got in reads)
            elif tag == "[]":
                stack += [(node.items, v) for _, v, _ in read.key]
            elif tag == "{}":
                members = read.key
                stack += [(child, members.get(name, empty))
                          for name, child, _ in self.member_paths(node, members, "")]
            elif tag == "anyOf":
                count += sum(r.tag is not None for r in read.key)
            else:
                count += 1
        return count

    def member_paths(self, node: scorer.ObjectNode, members: dict, path: str) -> list[tuple]:
        """(name, child node, path) of each member scored (``Walker.members``); a closed
        object's, remembered per (node, path)."""
        if node.properties is None or node.patterns:
            return [(name, child, scorer.join(path, name))
                    for name, child in self.members(node, members)]
        memo = (id(node), path)
        found = self.paths.get(memo)
        if found is None or found[0] is not node:
            found = self.paths[memo] = (node, [(name, child, scorer.join(path, name))
                                               for name, child in node.properties.items()])
        return found[1]

    # -- arrays ----------------------------------------------------------------------

    def walk_array(self, node: scorer.ArrayNode, left: Any, right: Any, address: str,
                   field: str, out: list, depth: int) -> None:
        """The definition's walk of an array; a tally of the same two lists counted once
        (counts depend on nothing else: addresses and field paths only name verdicts)."""
        if out.__class__ is not scorer.Tally:
            self._walk_array(node, left, right, address, field, out, depth)
            return
        memo = (id(node), id(left), id(right))
        found = self.tallies.get(memo)
        if found is None:
            counts = scorer.Tally()
            self._walk_array(node, left, right, address, field, counts, depth)
            found = tuning.remember(self.tallies, memo, (left, right, counts))
        out[0] += found[2][0]
        out[1] += found[2][1]
        out[2] += found[2][2]

    def _walk_array(self, node: scorer.ArrayNode, left: Any, right: Any, address: str,
                    field: str, out: list, depth: int) -> None:
        fields = None
        if (isinstance(left, flat.FlatItems) and (isinstance(right, flat.FlatItems) or
                                                  not right)) or \
                (isinstance(right, flat.FlatItems) and not left):
            fields = flat.flat_fields(node.items, self)
        if fields is None:
            super().walk_array(node, left, right, address, field, out, depth)
            return
        if flat.walk_flat(self, fields, left if isinstance(left, flat.FlatItems) else [],
                          right if isinstance(right, flat.FlatItems) else [], address, field,
                          out, self.document):
            self.blocks = True

    def pair(self, item: Any, left: list, right: list, address: str, field: str,
             depth: int) -> list[tuple[int, int]]:
        """Version 2.0's pairs (``scorer.pair_2_0``, step for step), the assignment's
        weights found per group of alike result items (:meth:`grouped_edges`) and solved
        by scipy's compiled solvers on the very edges the definition gives them. The
        pairs of two lists are found once (a pure function of the two reads)."""
        memo = (id(item), id(left), id(right))
        found = self.paired.get(memo)
        if found is None:
            pairs = self._pair(item, left, right, address, field, depth)
            found = tuning.remember(self.paired, memo, (left, right, pairs))
        return found[2]

    def _pair(self, item: Any, left: list, right: list, address: str, field: str,
              depth: int) -> list[tuple[int, int]]:
        if self.rule is scorer.pair_2_1:
            return self.pair_2_1(item, left, right, field, depth)
        if self.rule is not scorer.pair_2_0:
            return super().pair(item, left, right, address, field, depth)
        order_left = sorted(range(len(left)), key=lambda k: left[k][2] or "")
        order_right = sorted(range(len(right)), key=lambda k: right[k][2] or "")
        pairs: list[tuple[int, int]] = []
        rest_right = order_right
        if self.hashable(item):
            waiting: dict[str, list[int]] = {}
            for k in reversed(order_left):
                waiting.setdefault(left[k][2] or "", []).append(k)
            rest_right = []
            for k in order_right:
                bucket = waiting.get(right[k][2] or "")
                if bucket and right[k][2]:
                    pairs.append((bucket.pop(), k))
                else:
                    rest_right.append(k)
        taken = {k for k, _ in pairs}
        rest_left = [k for k in order_left if k not in taken]
        if rest_left and rest_right:
            sub_left, sub_right = [left[k] for k in rest_left], [right[k] for k in rest_right]
            chosen = lazy.pair_2_0(self, item, sub_left, sub_right, field, depth) \
                if lazy.pairable(self, item, depth) else None
            if chosen is None:
                graph = self.grouped_edges(item, sub_left, sub_right, field, depth)
                chosen = [] if graph is None else \
                    solve.assign_csr_2_0(len(rest_left), len(rest_right), graph)
            pairs += [(rest_left[r], rest_right[c]) for r, c in chosen]
        return pairs

    def pair_2_1(self, item: Any, left: list, right: list, field: str, depth: int,
                 ) -> list[tuple[int, int]]:
        """Version 2.1's pairs (``scorer.pair_2_1``): the same canonical order, criteria
        and rule, with items alike in canonical order weighed once per group and the
        choice made on group flows (:mod:`~leafscore._fast.lexi`)."""
        groups_left, groups_right = canonical_groups(left), canonical_groups(right)
        if lazy.pairable(self, item, depth):
            chosen = lazy.pair_2_1(self, item, left, right, groups_left, groups_right, field,
                                   depth)
            if chosen is not None:
                return chosen
        found = self.weighed(item, [left[g[0]] for g in groups_left],
                             [right[g[0]] for g in groups_right], field, depth, True)
        if not found:
            return []
        return solve_2_1(groups_left, groups_right, found, min(len(left), len(right)), np) \
            or super().pair(item, left, right, "", field, depth)

    def weighed(self, item: Any, left: list, right: list, field: str, depth: int,
                presence: bool = False) -> dict[tuple[int, int], list[int]]:
        """{(row, column): [correct, both sides, one side]} of every pair of ``left`` x
        ``right`` worth a correct leaf, as ``Walker.weights`` counts them.

        Result items with equal :meth:`group_key` (what a pair weight can see of them:
        their keys under every tag a label uses at each path; with ``presence``, also
        which other leaves they state) weigh the same against every label item, so each
        (label item, group) is walked once and its counts given to every member.
        Candidates are (label item, group) pairs sharing a key under a hashable
        comparator, or holding loose values within reach (:meth:`near`)."""
        label_keys, tags, members = self.result_groups(item, left, right, presence)
        holding: dict[tuple, list[int]] = {}
        loose: dict[tuple[str, str], tuple[scorer.Leaf, list, list]] = {}
        for g, columns in enumerate(members):
            for path, tag, key, leaf in set(self.keys(item, right[columns[0]][1], "", tags)):
                if self.comparators[tag].hashable(leaf.options):
                    holding.setdefault((path, tag, key, leaf), []).append(g)
                else:
                    loose.setdefault((path, tag), (leaf, [], []))[2].append((g, key))
        candidates: set[tuple[int, int]] = set()
        for r, keys in enumerate(label_keys):
            for path, tag, key, leaf in keys:
                if self.comparators[tag].hashable(leaf.options):
                    candidates.update((r, g) for g in holding.get((path, tag, key, leaf), ()))
                elif (path, tag) in loose:
                    loose[path, tag][1].append((r, key))
        for (_, tag), (leaf, label_values, group_values) in loose.items():
            candidates |= self.near(leaf, tag, label_values, group_values)
        found = {}
        for r, g in sorted(candidates):
            counts = scorer.Tally()
            self.walk(item, left[r][1], right[members[g][0]][1], "", field, counts, depth + 1)
            if counts[0]:  # no pair worth 0 correct leaves is made
                found.update(((r, c), counts) for c in members[g])
        return found

    def result_groups(self, item: Any, left: Sequence, right: Sequence, presence: bool,
                      ) -> tuple[list[list[tuple]], dict[str, set[str]], list[list[int]]]:
        """(each label item's keys (``Walker.keys``), {path: the tags label leaves use
        there}, the positions of ``right`` grouped by :meth:`group_key`, in order of first
        member; each alone when no two signatures are equal); an item no label leaf can
        see is in no group or alone in one (worth 0 to every row either way)."""
        label_keys = [self.keys(item, read, "") for _, read, _ in left]
        tags: dict[str, set[str]] = {}
        for path, tag, _, _ in (k for keys in label_keys for k in keys):
            tags.setdefault(path, set()).add(tag)
        signatures = [sig for _, _, sig in right]
        if None not in signatures and len(set(signatures)) == len(right):
            # no two alike in content: groups of one (finer than group_key's, so each
            # still weighs alike against every label item), without a group key made
            return label_keys, tags, [[c] for c in range(len(right))]
        used = {path: tuple(sorted(found)) for path, found in tags.items()}
        groups: dict[Any, list[int]] = {}
        for c, (_, read, _) in enumerate(right):
            if (key := self.group_key(item, read, "", used, presence)) is not None:
                groups.setdefault(key, []).append(c)
        return label_keys, tags, list(groups.values())

    def grouped_edges(self, item: Any, left: list, right: list, field: str, depth: int,
                      ) -> list | None:
        """The edges ``Walker.weights`` and ``pair_2_0`` give the solver, in CSR layout
        with dummy slots (``solve.assign_csr_2_0``), None when there are none: the counts
        of :meth:`weighed`, as ``correct * ceiling + both``."""
        found = self.weighed(item, left, right, field, depth)
        if not found:
            return None
        most = max(len(self.keys(item, read, "")) for _, read, _ in left)
        ceiling = most * min(len(left), len(right)) + 1
        keys = sorted(found)
        row = np.array([r for r, _ in keys], np.int64)
        indptr = np.zeros(len(left) + 1, np.int64)
        np.cumsum(np.bincount(row, minlength=len(left)) + 1, out=indptr[1:])
        slots = np.ones(len(keys) + len(left), bool)
        slots[indptr[1:] - 1] = False
        indices = np.zeros(len(slots), np.int32)
        indices[slots] = [c for _, c in keys]
        weights = [found[k][0] * ceiling + found[k][1] for k in keys]
        data = np.zeros(len(slots), solve.weight_type(max(weights)))
        data[slots] = weights
        return [indptr, indices, data]

    def group_key(self, node: Any, read: scorer.Read, path: str,
                  used: dict[str, tuple[str, ...]], presence: bool = False) -> Any:
        """What a pair weight can see of a result read, as a hashable: its keys under every
        tag a label uses at each path (``used``), in its structure (inner unordered arrays
        as multisets); with ``presence`` (2.1, whose weights count one-sided leaves) a
        leaf no label uses counts as stated. None when no label leaf can see it."""
        if node is scorer.IGNORED or read.tag is None:
            return None
        tags = used.get(path)
        if read.tag not in ("{}", "[]"):  # a leaf, or a value read as one exact-JSON leaf
            if not tags:
                return "stated" if presence else None
            leaf, own = (node, read.tag) if isinstance(node, scorer.Leaf) else \
                (scorer._JSON_LEAF, "json")
            return tuple((t, read.key if t == own else self.key(leaf, t, read.raw))
                         for t in tags)
        parts: list[Any] = [("json", scorer.canon_exact(read.raw))] \
            if tags and "json" in tags else []
        if read.tag == "[]":
            inner = [self.group_key(node.items, v, f"{path}[]", used, presence)
                     for _, v, _ in read.key]
            parts.append(tuple(inner) if node.ordered else
                         frozenset(collections.Counter(k for k in inner if k is not None).items()))
        else:
            parts += [(name, key) for name, child in self.members(node, read.key)
                      if (key := self.group_key(child, read.key.get(name, scorer.EMPTY),
                                                scorer.join(path, name), used, presence))
                      is not None]
        return tuple(parts) if any(parts) else None

    def near(self, leaf: scorer.Leaf, tag: str, label_values: list, result_values: list,
             ) -> set[tuple[int, int]]:
        """(row, column) of every label and result value equal under a loose comparator."""
        if tag == "fuzzy":
            found = _fuzzy_pairs(leaf.options.threshold, label_values, result_values)
            if found is not None:
                return found
            self.exact = False  # over the budget: equal texts only, and the document says so
            groups: dict[Any, list[int]] = {}
            for c, key in result_values:
                groups.setdefault(key, []).append(c)
            return {(r, c) for r, key in label_values for c in groups.get(key, ())}
        return _tolerant_pairs(leaf, label_values, result_values)


def canonical_groups(items: Sequence) -> list[list[int]]:
    """Positions of kept items (``scorer.Item``) in 2.1's canonical order (signature, raw
    JSON, position; ``scorer.pair_2_1``), cut into runs of alike items (equal signature
    and raw JSON, every value written alike: ``lexi.runs``). Raw JSON is written only
    where a signature repeats: elsewhere the signature alone decides."""
    signatures = [item[2] or "" for item in items]
    repeats = collections.Counter(signatures)
    texts = [scorer.raw_text(item[1].raw) if repeats[sig] > 1 else ""
             for item, sig in zip(items, signatures, strict=True)]
    return lexi.runs(signatures, texts, lambda k: items[k][1].raw)


def solve_2_1(groups_left: list[list[int]], groups_right: list[list[int]],
              found: dict[tuple[int, int], Any], size: int, np: Any,
              ) -> list[tuple[int, int]] | None:
    """Item pairs of 2.1's choice over group counts ``found`` {(label group, result
    group): (correct, both sides, one side)}, each criterion given a base above the
    total of the next over ``size`` pairs (as ``scorer.pair_2_1``). None when the
    weights would not fit 62 bits (the definition's integers then decide)."""
    both_base = max(b for _, b, _ in found.values()) * size + 1
    one_base = max(o for _, _, o in found.values()) * size + 1
    keys = sorted(found)
    weights = [(hits * both_base + both) * one_base - one
               for hits, both, one in map(found.__getitem__, keys)]
    if max(weights) >= 2**62:
        return None
    rows = np.array([r for r, _ in keys], np.int64)
    cols = np.array([c for _, c in keys], np.int64)
    if sum(map(len, groups_left)) * sum(map(len, groups_right)) <= \
            tuning.TUNING.lexi_small_units:  # plain Python, as a small flat array is
        return flat.assign_items(groups_left, groups_right, rows, cols, weights)
    flows = lexi.assign([len(g) for g in groups_left], [len(g) for g in groups_right],
                        rows, cols, np.array(weights, np.int64))
    return lexi.expand(groups_left, groups_right, flows)


def _holds_readings(items: list) -> bool:
    """Whether a flat array's raw items hold a value ``{"$anyOf": ...}`` (a dict at a
    scalar field, which the column path cannot read as readings)."""
    dicts = items if all(map(dict.__instancecheck__, items)) else \
        [item for item in items if isinstance(item, dict)]
    # every value's type, collected in C (a generator step per value: 2x the time,
    # about 1% of a 10,000-row document's first scoring)
    return dict in set(map(type, itertools.chain.from_iterable(map(dict.values, dicts))))


def usable(node: Any, walker: scorer.Walker, depth: int) -> str | None:
    """Which fast path reads and pairs an array node (None: the definition's way):
    ``"flat"`` (read and paired by columns) or ``"lazy"`` (paired by bounds,
    :func:`lazy.pairable`; :meth:`FastWalker.pair` asks the same). The one dispatch
    rule, exported as ``leafscore._fast.usable_for``."""
    if not isinstance(node, scorer.ArrayNode) or node.ordered or depth >= walker.MAX_DEPTH:
        return None
    if flat.flat_fields(node.items, walker) is not None:
        return "flat"
    return "lazy" if lazy.pairable(walker, node.items, depth) else None


def _tolerant_pairs(leaf: scorer.Leaf, label_values: list, result_values: list,
                    ) -> set[tuple[int, int]]:
    """(row, column) of every label and result number within tolerance of each other.

    ``|a - b| <= max(abs_tol, rel_tol * max(|a|, |b|))`` (spec 2.0 §7) implies
    ``|a - b| <= max(abs_tol, rel_tol * |a| / (1 - rel_tol))`` for ``rel_tol < 1``, so the
    result values within that reach of ``a`` are found by bisection in the sorted values
    (rounded outward) and each is checked with ``scorer.numbers_equal``: the work is the
    sort plus the pairs in range."""
    ordered = sorted(result_values, key=lambda cv: cv[1])
    values = [v for _, v in ordered]
    found: set[tuple[int, int]] = set()
    absolute, relative = Decimal(repr(leaf.options.abs_tol)), Decimal(repr(leaf.options.rel_tol))
    for r, a in label_values:
        with localcontext() as context:
            context.prec, context.Emax, context.Emin = 60, MAX_EMAX, MIN_EMIN
            if relative >= 1:
                low, high = 0, len(values)
            else:
                context.rounding = ROUND_CEILING
                reach = max(absolute, relative * abs(a) / (1 - relative))
                high = bisect.bisect_right(values, a + reach)
                context.rounding = ROUND_FLOOR
                low = bisect.bisect_left(values, a - reach)
        found.update((r, c) for c, b in ordered[low:high]
                     if scorer.numbers_equal(a, b, leaf.options))
    return found


def _fuzzy_pairs(threshold: float, label_values: list, result_values: list,
                 ) -> set[tuple[int, int]] | None:
    """(row, column) of every label and result text at least ``threshold`` similar, by
    ``rapidfuzz.process.cdist`` over the distinct texts (the same Indel similarity as
    ``scorer.fuzzy_similarity``, in C), in slices of bounded memory. None when the
    distinct texts would need more than ``tuning.TUNING.fuzzy_budget`` similarities (a
    safety budget: the caller then takes equal texts only and says it is not exact)."""
    from rapidfuzz import process
    from rapidfuzz.distance import Indel

    label_texts = sorted({text for _, text in label_values})
    result_texts = sorted({text for _, text in result_values})
    if len(label_texts) * len(result_texts) > tuning.TUNING.fuzzy_budget:
        return None
    slice_rows = max(1, 1_000_000 // max(1, len(result_texts)))
    close: dict[str, list[str]] = {}
    for start in range(0, len(label_texts), slice_rows):
        rows = label_texts[start:start + slice_rows]
        similar = process.cdist(rows, result_texts, scorer=Indel.normalized_similarity,
                                dtype=np.float64)
        for i, j in zip(*np.nonzero(similar >= threshold), strict=True):
            close.setdefault(rows[i], []).append(result_texts[j])
    columns_of: dict[str, list[int]] = {}
    for c, text in result_values:
        columns_of.setdefault(text, []).append(c)
    return {(r, c) for r, text in label_values for other in close.get(text, ())
            for c in columns_of[other]}
