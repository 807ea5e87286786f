"""Arrays of flat objects, a field (column) at a time: the fast engine's largest path.

Moved from the 2.0 release's walker (``walk_flat``, ``match_flat``): for an unordered
array whose items are objects of scalar fields that compare by key equality
(:func:`flat_fields`), each distinct value of a field is read once, items are signed from
those reads, identical items are paired by signature and the rest by one assignment over
pair weights counted from shared keys (numpy joins, no pair walked). The rule applied is
the definition's, step for step (``scorer.pair_2_0``): the same signatures and canonical
order, identical pairs first, the same weights and ceiling, the same solver
(:mod:`leafscore._fast.solve`); the verdict rows are the definition's, kept as columns
(:class:`FlatRows`) until someone reads them.
"""

from __future__ import annotations

import bisect
import collections
import itertools
import operator
from collections.abc import Iterator, Sequence
from decimal import Decimal
from typing import Any

import scorer
from leafscore._fast import joins, lexi, slack, solve, tuning
from leafscore._fast.joins import EMPTY_READ, KEY, PART, TAG
from leafscore._fast.numpy_lazy import np

_SAME_KIND = {None: "correct_absence"}  # of a leaf of two identical items, by its tag
_NEVER_EMPTY = frozenset((int, float, bool))


def flat_fields(item: Any, walker: scorer.Walker) -> list[tuple[str, scorer.Leaf]] | None:
    """(name, leaf) of each scored property of an object item node whose properties are
    all leaves (ignored ones left out) and that has no ``patternProperties``, at least 1
    and at most 62 (the weights count present fields in a 64-bit mask); else None.
    ``tuning.TUNING.flat`` False: always None. A loose leaf (tolerant number, fuzzy
    text) finds its candidates by reach (``FastWalker.near``) rather than by key."""
    if not tuning.TUNING.flat or not isinstance(item, scorer.ObjectNode) or \
            item.properties is None or item.patterns:  # pattern members: not columns
        return None
    fields = []
    for name, child in item.properties.items():
        if child is scorer.IGNORED:
            continue
        if not isinstance(child, scorer.Leaf):
            return None
        fields.append((name, child))
    return fields if 0 < len(fields) <= min(62, tuning.TUNING.flat_fields_max) else None


class FlatItems(Sequence):
    """The kept items of a flat array, still as raw values: what the fast walker's read
    of such an array holds as its key. Read item by item (the definition's way) only if
    something other than the column path asks for them (an array nested in an item)."""

    __slots__ = ("_columns", "_items", "node", "raw", "walker")

    def __init__(self, walker: Any, node: scorer.ArrayNode, raw: list) -> None:
        self.walker, self.node, self.raw = walker, node, raw
        self._items: list | None = None
        self._columns: tuple | None = None

    def columns(self, walker: Any = None,
                ) -> tuple[list[int], list[list], list[str], list[list[tuple]]]:
        """(index of each kept item, each field's values over them, each item's flat
        signature, each field's reads): :func:`read_columns`, kept once read by this
        array's own walker. Another ``walker`` (a result's walk reading a label's array
        it has not signed) reads them by this array's walker and keeps them when reads
        are kept across documents (:func:`_caches`: the result's equal values find them
        there, and the label's next result reuses its columns); else it reads them into
        its own per-document reads, where the result's equal values then find them, and
        nothing is kept on the label."""
        if self._columns is not None:
            return self._columns
        if walker is not None and walker is not self.walker and not _reads_shared(walker):
            return read_columns(walker, self.node.items, self.raw)
        # this array and every other of its node read since (the groups of one array of
        # objects, read before their signatures are asked): read by columns at once, the
        # fixed cost of a read paid once, not per array (nested arrays: 2,000 of 5 rows)
        waiting = [items for items in self.walker.unread.pop(id(self.node), ())
                   if items._columns is None and items.node is self.node]
        if len(waiting) > 1 and tuning.TUNING.flat_together and \
                any(items is self for items in waiting):
            for items, columns in zip(waiting, read_columns_many(
                    self.walker, self.node.items, [items.raw for items in waiting]),
                                      strict=True):
                items._columns = columns
            return self._columns
        self._columns = read_columns(self.walker, self.node.items, self.raw)
        return self._columns

    def _read(self) -> list:
        if self._items is None:
            self._items = read_items(self.node.items, self.raw, self.columns())
        return self._items

    def __len__(self) -> int:
        return len(self._read())

    def __bool__(self) -> bool:  # whether any item is kept, without reading them
        item = self.node.items
        return any(scorer.kept(item, v) for v in self.raw)

    def __getitem__(self, k: Any) -> Any:
        return self._read()[k]

    def __iter__(self) -> Iterator:
        return iter(self._read())


def read_columns(walker: Any, item: scorer.ObjectNode, raw: list,
                 ) -> tuple[list[int], list[list], list[str], list[list[tuple]]]:
    """The kept items of a flat array (``raw``, items of node ``item``) by columns: the
    index of each, each field's values over them (:func:`_kept`), each item's flat
    signature and each field's reads (:func:`_read_columns`)."""
    fields = flat_fields(item, walker)
    specs = [(leaf, f"{scorer._quote(name)}=") for name, leaf in fields]
    index, columns = _kept([name for name, _ in fields], raw)
    return index, columns, *_read_columns(walker, specs, _caches(walker, specs), columns)


def read_columns_many(walker: Any, item: scorer.ObjectNode, raws: list[list],
                      ) -> list[tuple[list[int], list[list], list[str], list[list[tuple]]]]:
    """:func:`read_columns` of each of several flat arrays of one node (``raws``), made
    by one read of their items end to end, cut back into arrays: the same answer, as
    every step reads an item or a value on its own."""
    index, values, signatures, reads = read_columns(walker, item, list(
        itertools.chain.from_iterable(raws)))
    out, start, end = [], 0, 0  # the kept items of one array: index[start:stop]
    for raw in raws:
        offset, end = end, end + len(raw)
        stop = bisect.bisect_left(index, end, start)
        out.append(([i - offset for i in index[start:stop]],
                    [column[start:stop] for column in values], signatures[start:stop],
                    [column[start:stop] for column in reads]))
        start = stop
    return out


def read_items(item: scorer.ObjectNode, raw: list, columns: tuple) -> list[scorer.Item]:
    """The kept items of a flat array as the definition reads and signs them
    (``Walker.read``, ``Walker.signature``), from its :func:`read_columns`."""
    index, values, signatures, reads = columns
    empty, read = scorer.EMPTY, scorer.Read
    leaf_reads = [[empty if v is None else read(v, got[0], got[1])
                   for v, got in zip(column, got_column, strict=True)]
                  for column, got_column in zip(values, reads, strict=True)]
    at = {name: b for b, (name, child) in enumerate(
        (name, child) for name, child in item.properties.items() if child is not scorer.IGNORED)}
    members = [(name, at.get(name)) for name in item.properties]
    out = []
    for k, i in enumerate(index):
        value = raw[i]
        # an ignored member reads as Walker.read reads it at IGNORED: raw, no tag
        reads_k = {name: leaf_reads[b][k] if b is not None else
                   empty if (v := value.get(name)) is None else read(v, None, None)
                   for name, b in members}
        text = signatures[k]
        out.append((i, read(value, "{}", reads_k), "{" + text[1:] if text else None))
    return out


class FlatRows:
    """The verdict rows of one flat array as columns: the address of each pair's label
    item (``bases``), the pairs' positions in the value columns; per field its address
    suffix, field path, the kinds of every pair, the label and result value columns, and
    the keys of every pair; then the rows of unpaired items. A row is a tuple of the seven
    Verdict fields with the canonical keys not yet shown (``rows``)."""

    __slots__ = ("at_left", "at_right", "bases", "fields", "unpaired")

    def __init__(self, bases: list[str], at_left: list[int], at_right: list[int],
                 fields: list[tuple], unpaired: list[tuple]) -> None:
        self.bases, self.at_left, self.at_right = bases, at_left, at_right
        self.fields, self.unpaired = fields, unpaired

    def rows(self) -> Iterator[tuple]:
        n = len(self.bases)
        columns = [zip(map(operator.add, self.bases, itertools.repeat(suffix, n)),
                       itertools.repeat(path, n), kinds, map(value.__getitem__, self.at_left),
                       map(other.__getitem__, self.at_right), *keys, strict=True)
                   for suffix, path, kinds, value, other, *keys in self.fields]
        return itertools.chain(itertools.chain.from_iterable(zip(*columns, strict=True)),
                               self.unpaired)

    def tally(self) -> collections.Counter:
        """(field path, kind) -> how many of :meth:`rows`, keys in first-seen order,
        counted a field at a time: a (field, kind) is first seen at the first pair
        holding it, field by field."""
        width = len(self.fields)
        first: dict[tuple[str, str], tuple[int, int]] = {}
        for b, (_, path, kinds, *_) in enumerate(self.fields):
            for kind, many in collections.Counter(kinds).items():
                at, before = first.get((path, kind), (kinds.index(kind) * width + b, 0))
                first[path, kind] = (min(at, kinds.index(kind) * width + b), before + many)
        total = collections.Counter({key: first[key][1] for key in sorted(first, key=first.get)})
        total.update(collections.Counter((row[1], row[2]) for row in self.unpaired))
        return total


def _reads(walker: Any, leaf: scorer.Leaf, member: str, kind: type, values: list,
           ) -> list[tuple]:
    """The read of each of ``values`` (distinct, non-null, all of JSON type ``kind``) at a
    flat field, as the definition reads a value (``Walker.read_leaf``); a result value is
    read the same way, and again under the label's tag only where the tags differ."""
    if kind is str and leaf.compare == "text":
        prefix = f",{member}text:"
        # ASCII letters, digits and spaces: the canon is the lower-cased text without
        # spaces (canon_text's own first case, made here without a call)
        keys = [bare if v.isascii() and (bare := v.strip().lower().replace(" ", "")).isalnum()
                else walker.text_key(v) for v in values]
        return [("text", key, prefix + key) if v.strip() else EMPTY_READ
                for v, key in zip(values, keys, strict=True)]
    if kind in (int, float) and leaf.compare == "number" and values:
        # the cases of the loop below for ints and plain floats, a column at a time in C
        texts = list(map(str if kind is int else repr, values))
        if kind is int:
            plain = min(values) > -10**15 and max(values) < 10**15
        else:
            joined = "".join(texts)
            plain = "e" not in joined and "n" not in joined and max(map(
                operator.sub, map(len, texts), map(str.index, texts, itertools.repeat(".")))) <= 7
        if plain:
            shown = texts if kind is int else list(map(str.rstrip, map(
                str.rstrip, texts, itertools.repeat("0")), itertools.repeat(".")))
            if "-0" in shown:
                shown = ["0" if text == "-0" else text for text in shown]
            return list(zip(itertools.repeat("number"), map(Decimal, texts),
                            map(f",{member}number:".__add__, shown)))
    out = []
    floats = kind is float and leaf.compare == "number"
    ints = kind is int and leaf.compare == "number"
    for v in values:
        if ints and -10**15 < v < 10**15:
            # canon_number of an int is its Decimal (no places to round), and
            # plain_decimal of that its digits
            out.append(("number", Decimal(v), f",{member}number:{v}"))
            continue
        if (not v.strip()) if kind is str else kind not in _NEVER_EMPTY and scorer.is_empty(v):
            out.append(EMPTY_READ)
            continue
        if floats and "e" not in (text := repr(v)) and "n" not in text and \
                len(text) - text.index(".") <= 7:
            # canon_number of a float with at most 6 places is the Decimal of its repr,
            # and plain_decimal of it that repr without trailing zeros
            shown = text.rstrip("0").rstrip(".")
            shown = "0" if shown == "-0" else shown
            out.append(("number", Decimal(text), f",{member}number:{shown}"))
            continue
        read = walker.read_leaf(leaf, v)
        key = read.key
        shown = key if key.__class__ is str else scorer.shown(key)
        out.append((read.tag, key, f",{member}{read.tag}:{shown}"))
    return out


def _column(walker: Any, leaf: scorer.Leaf, member: str, cache: dict[type, dict], kind: type,
            column: list) -> list[tuple]:
    """The reads of ``column``: values of one JSON ``kind`` (and nulls) at a flat field,
    each distinct value read once per document (``cache``: kind -> {value: read})."""
    if issubclass(kind, (dict, list)):  # unhashable: read one by one, as exact JSON
        out = []
        for v in column:
            if v is None or scorer.is_empty(v):
                out.append(EMPTY_READ)
            else:
                text = scorer.canon_exact(v)
                out.append(("json", text, f",{member}json:{text}"))
        return out
    if kind is scorer.JSONNumber:  # equal as floats, read by their written forms: by text
        by_text = cache.setdefault(kind, {})
        out = []
        for v in column:
            if v is None:
                out.append(EMPTY_READ)
                continue
            found = by_text.get(v.text)
            if found is None:
                _READ_COUNT[0] += 1
                found = by_text[v.text] = _reads(walker, leaf, member, kind, [v])[0]
            out.append(found)
        return out
    # any other kind: values equal by == read alike (-0.0 and 0.0, Decimal("1.50") and
    # Decimal("1.5") give equal keys shown alike), and each row shows its own raw value
    known = cache.get(kind)
    if known is None:  # nothing read yet: every distinct value is new
        known = cache[kind] = {None: EMPTY_READ}
        fresh = list(dict.fromkeys(column))
    else:
        got = list(map(known.get, column))
        if None not in got:
            return got
        fresh = list(dict.fromkeys(itertools.compress(column, map(operator.not_, got))))
    if None in fresh:
        fresh.remove(None)
    _READ_COUNT[0] += len(fresh)
    known.update(zip(fresh, _reads(walker, leaf, member, kind, fresh), strict=True))
    return list(map(known.__getitem__, column))


#: (leaf, member, 2.1's rules or 2.0's) -> {JSON type: {value: read}}: flat fields' reads
#: kept across documents (a value's read depends on nothing else), and how many values
#: they hold; emptied between documents once that reaches ``tuning.TUNING.memo_reads``
#: (never during one: its result's values find its label's reads).
_SHARED_READS: dict[tuple, dict[type, dict]] = {}
_READ_COUNT = [0]


def _caches(walker: Any, specs: list[tuple]) -> list[dict[type, dict]]:
    """Each field's reads ({JSON type: {value: read}}), kept across documents by leaf,
    member and version rules (:data:`_SHARED_READS`); with ``memo_reads`` 0, or another
    walker's comparisons than a version's, once per document however many arrays hold
    the field (``FastWalker.column_reads``, keyed by leaf and member)."""
    if not _reads_shared(walker):
        return [walker.column_reads.setdefault((id(leaf), member), {})
                for leaf, member, *_ in specs]
    return [_SHARED_READS.setdefault((leaf, member, walker.v21), {})
            for leaf, member, *_ in specs]


def _reads_shared(walker: Any) -> bool:
    """Whether :func:`_caches` gives ``walker`` the reads kept across documents."""
    return bool(tuning.TUNING.memo_reads) and (walker.comparators is scorer.COMPARATORS or
                                               walker.comparators is scorer.COMPARATORS_2_1)


def forget_reads(full: bool = False) -> None:
    """Empty the reads kept across documents (:data:`_SHARED_READS`), always or (where a
    document's walk starts or ends) only when they hold ``memo_reads`` values or more,
    so that a large document's reads are not held after it."""
    if full or _READ_COUNT[0] >= tuning.TUNING.memo_reads:
        _SHARED_READS.clear()
        _READ_COUNT[0] = 0


def _kept(names: list[str], values: list) -> tuple[list[int], list[list]]:
    """The index of each kept item of ``values`` (a non-empty object) and each field's
    values over those items (columns)."""
    if set(map(type, values)) == {dict}:  # plain dicts: read by dict.get, in C
        items, index, get = values, range(len(values)), dict.get
    else:
        index = [i for i, value in enumerate(values) if isinstance(value, dict)]
        items, get = [values[i] for i in index], _get
    first = list(map(get, items, itertools.repeat(names[0])))
    kinds = set(map(type, first))
    # every item is kept when each states its first field (checked in C); else one by one
    if not (kinds <= _NEVER_EMPTY or (kinds == {str} and all(map(str.strip, first)))):
        keep = [(f.__class__ is str and f.strip()) or f.__class__ in _NEVER_EMPTY
                or not scorer.is_empty(item) for f, item in zip(first, items, strict=True)]
        if not all(keep):  # a first field stating something settles most items
            items = list(itertools.compress(items, keep))
            index = itertools.compress(index, keep)
            first = list(itertools.compress(first, keep))
    columns = [first] + [list(map(get, items, itertools.repeat(name))) for name in names[1:]]
    return list(index), columns


def _read_columns(walker: Any, specs: list[tuple], caches: list[dict[type, dict]],
                  columns: list[list]) -> tuple[list[str], list[list[tuple]]]:
    """Each item's signature ('' when it states nothing) and the read of each value,
    a column at a time."""
    reads = []
    for (leaf, member, *_), cache, column in zip(specs, caches, columns, strict=True):
        kinds = set(map(type, column))
        kinds.discard(type(None))
        if len(kinds) == 1:
            reads.append(_column(walker, leaf, member, cache, *kinds, column))
            continue
        got: list[Any] = [EMPTY_READ] * len(column)  # mixed JSON types
        for kind in kinds:
            at = [k for k, v in enumerate(column) if v.__class__ is kind]
            for k, found in zip(at, _column(walker, leaf, member, cache, kind,
                                            [column[k] for k in at]), strict=True):
                got[k] = found
        reads.append(got)
    # ",<part>,<part>}" orders and equals as the definition's "{<part>,<part>}" (one
    # first character replaced); "}" alone is an item stating nothing, signed ""
    signatures = list(map("".join, zip(*[map(PART, got) for got in reads],
                                       itertools.repeat("}"))))
    if "}" in signatures:
        signatures = ["" if text == "}" else text for text in signatures]
    return signatures, reads


def walk_flat(walker: Any, fields: list[tuple[str, scorer.Leaf]], label: Any, result: Any,
              address: str, field: str, out: list, document: list) -> bool:
    """``Walker.walk_array`` of an unordered array of flat objects given as
    :class:`FlatItems` (or an empty list: no items), with the same verdicts in the same
    order, a field at a time. Appends one :class:`FlatRows` block when ``out`` is the
    ``document``'s own list (rows made when read), else rows. Returns whether a block
    was appended."""
    item_field = f"{field}[]"
    # per field: its leaf, its signature member ("name"=), its address suffix below an
    # item (.name or ["a.b"]) and its field path
    specs = [(leaf, f"{scorer._quote(name)}=", scorer.join("x", name)[1:],
              scorer.join(item_field, name)) for name, leaf in fields]
    none = ([], [[] for _ in fields], [], [[] for _ in fields])  # a side of no kept item
    # (a FlatItems of no kept item reads as none; its raw list is never indexed)
    index_left, values_left, sig_left, reads_left = label.columns(walker) \
        if label.__class__ is FlatItems else none
    index_right, values_right, sig_right, reads_right = result.columns(walker) \
        if result.__class__ is FlatItems else none
    # the pairs of two arrays, found once (a tally, then verdicts, walk them alike); keyed
    # by their reads, one per place in the document (a raw list may be at two places)
    memo = ("flat", id(label), id(result))
    found = walker.paired.get(memo)
    held = label, result
    label = label.raw if label.__class__ is FlatItems else []
    result = result.raw if result.__class__ is FlatItems else []
    if found is None:
        found = tuning.remember(walker.paired, memo, (*held, *_pairs(
            walker, specs, label, result, index_left, index_right, sig_left, sig_right,
            values_right, reads_left, reads_right), []))
    pairs, same, kept_kinds = found[2], found[3], found[4]
    # the kinds of the pairs, found once: a nested pair weighed (a tally), then walked
    # for its rows when chosen, needs them twice
    if not kept_kinds:
        kept_kinds.append(_kinds(walker, specs, pairs, same, values_right, reads_left,
                                 reads_right))
    kinds = kept_kinds[0]
    if isinstance(out, scorer.Tally):  # a candidate pair weighed: its kinds counted
        _tally(out, kinds, pairs, len(index_left), len(index_right), reads_left,
               reads_right)
        return False
    block = _rows(specs, kinds, address, pairs, index_left, index_right, values_left,
                  values_right, reads_left, reads_right)
    return _emit(_in_label_order(block) if walker.rule is scorer.pair_2_1 else block, out,
                 document)


def _pairs(walker: Any, specs: list[tuple], label: list, result: list, index_left: list[int],
           index_right: list[int], sig_left: list[str], sig_right: list[str],
           values_right: list[list], reads_left: list[list], reads_right: list[list],
           ) -> tuple[list[tuple[int, int]], int]:
    """(pairs of kept items by the version's rule, how many lead the list as identical
    or forced pairs): what :func:`walk_flat` walks."""
    def pick(columns: list[list], at: list[int]) -> list[list]:
        return [list(map(column.__getitem__, at)) for column in columns]

    if walker.rule is scorer.pair_2_1:
        if len(index_left) == len(index_right) and "" not in sig_left and \
                sorted(sig_left) == sorted(sig_right):
            # the same items on both sides (a flat item holds no ordered array): the k-th
            # with the k-th in canonical order, unweighed, as pair_2_1's copies rule
            order_left = [k for g in _groups(sig_left, label, index_left) for k in g]
            order_right = [k for g in _groups(sig_right, result, index_right) for k in g]
            pairs = sorted(zip(order_left, order_right, strict=True))
            return pairs, len(pairs)
        small = len(index_left) * len(index_right) <= tuning.TUNING.lexi_small_units
        forced = [] if small else forced_pairs_2_1(walker, specs, sig_left, sig_right,
                                                   reads_left, reads_right)
        rest_left = _without(len(index_left), {k for k, _ in forced})
        rest_right = _without(len(index_right), {k for _, k in forced})
        groups_left = [[rest_left[k] for k in g] for g in _groups(
            [sig_left[k] for k in rest_left], label, [index_left[k] for k in rest_left])]
        groups_right = [[rest_right[k] for k in g] for g in _groups(
            [sig_right[k] for k in rest_right], result, [index_right[k] for k in rest_right])]
        first_left, first_right = [g[0] for g in groups_left], [g[0] for g in groups_right]
        pairs = match_flat_2_1(walker, specs, groups_left, groups_right,
                               pick(reads_left, first_left), pick(reads_right, first_right),
                               pick(values_right, first_right)) \
            if groups_left and groups_right else []
        return forced + pairs, len(forced)
    order_left = sorted(range(len(index_left)), key=sig_left.__getitem__)
    order_right = sorted(range(len(index_right)), key=sig_right.__getitem__)
    pairs: list[tuple[int, int]] = []
    waiting: dict[str, collections.deque[int]] = {}
    hashable = all(walker.hashable(leaf) for leaf, *_ in specs)
    for k in order_left if hashable else ():  # identical items first, if all hash
        waiting.setdefault(sig_left[k], collections.deque()).append(k)
    rest_right = [] if hashable else order_right
    for k in order_right if hashable else ():
        bucket = waiting.get(sig_right[k])
        if bucket and sig_right[k]:
            pairs.append((bucket.popleft(), k))
        else:
            rest_right.append(k)
    same = len(pairs)
    taken = {p[0] for p in pairs}
    rest_left = [k for k in order_left if k not in taken]
    if rest_left and rest_right:
        chosen = match_flat(walker, specs, pick(reads_left, rest_left),
                            pick(reads_right, rest_right), pick(values_right, rest_right))
        pairs += [(rest_left[r], rest_right[c]) for r, c in chosen]
    return pairs, same


def _in_label_order(block: FlatRows) -> FlatRows:
    """The block with its pairs listed by label item (2.1's order), made from pairs given
    forced ones first (whose identical rows are then checked all at once)."""
    order = sorted(range(len(block.at_left)), key=block.at_left.__getitem__)
    if order == list(range(len(order))):
        return block

    def put(column: list) -> list:
        return list(map(column.__getitem__, order))

    fields = [(suffix, path, put(kinds), value, other, put(label_keys), put(result_keys))
              for suffix, path, kinds, value, other, label_keys, result_keys in block.fields]
    return FlatRows(put(block.bases), put(block.at_left), put(block.at_right), fields,
                    block.unpaired)


def _without(n: int, taken: set[int]) -> list[int]:
    return [k for k in range(n) if k not in taken] if taken else list(range(n))


def forced_pairs_2_1(walker: Any, specs: list[tuple], sig_left: list[str],
                     sig_right: list[str], reads_left: list[list], reads_right: list[list],
                     ) -> list[tuple[int, int]]:
    """Pairs of flat items that every best 2.1 assignment makes, so that only the rest
    need solving (``lexi``): a label item and a result item alike (one signature, held by
    no other item of either side) with ``n`` non-empty fields, when no other result
    item shares more than ``a`` of the label item's keys, no other label item more than
    ``b`` of the result item's, and ``a + b < n``.

    Why: the pair is worth ``(n B + n) D`` (spec 2.1 §1's weight), any other pair at the
    label item at most ``(a B + n) D`` and at the result item ``(b B + n) D``; with
    ``B > n`` the pair outweighs both together, so an assignment without it gains by
    taking it (the exchange argument), and the set of best assignments, hence the
    lexicographic choice, is the set with it of the rest's. Applies only where a key
    decides equality: every field hashable and typed, no label fault
    (each label read under its field's own comparison), at most
    ``tuning.TUNING.lexi_forced_fields_max`` fields (the shared counts try every subset
    of fields); otherwise none."""
    fields = len(specs)
    if not tuning.TUNING.lexi_forced or fields > tuning.TUNING.lexi_forced_fields_max or \
            not all(leaf.compare != "mix" and walker.hashable(leaf) for leaf, *_ in specs):
        return []
    # signatures held once on each side, by set operations in C
    at_left = dict(zip(sig_left, range(len(sig_left)), strict=True))
    at_right = dict(zip(sig_right, range(len(sig_right)), strict=True))
    alike = at_left.keys() & at_right.keys()
    alike.discard("")
    for sigs, at in ((sig_left, at_left), (sig_right, at_right)):
        if len(at) < len(sigs):  # some signature repeats
            alike -= {sig for sig, many in collections.Counter(sigs).items() if many > 1}
    if not alike:
        return []
    rows = np.fromiter(map(at_left.__getitem__, alike), np.int64, len(alike))
    cols = np.fromiter(map(at_right.__getitem__, alike), np.int64, len(alike))  # same order
    order = np.argsort(rows)
    rows, cols = rows[order], cols[order]
    ids_left = np.full((fields, len(sig_left)), -1, np.int64)
    ids_right = np.full((fields, len(sig_right)), -1, np.int64)
    for b, (leaf, *_) in enumerate(specs):
        if set(map(TAG, reads_left[b])) - {None, leaf.compare}:
            return []  # a label fault: a key under another comparison
        # equal reads one id (a new read's position), numbered in C by their signature
        # parts: equal reads have equal parts, and reads of equal parts but unequal keys
        # (none known) would only count as shared, raising the bound: safe
        numbers: dict[str, int] = {PART(EMPTY_READ): -1}
        ids_left[b] = np.fromiter(map(numbers.setdefault, map(PART, reads_left[b]),
                                      itertools.count()), np.int64, len(sig_left))
        ids_right[b] = np.fromiter(map(numbers.get, map(PART, reads_right[b]),
                                       itertools.repeat(-2)), np.int64, len(sig_right))
    stated = (ids_left[:, rows] >= 0).sum(axis=0)
    forced = _most_shared(ids_left[:, rows], ids_right) + \
        _most_shared(ids_right[:, cols], ids_left) < stated
    return list(zip(rows[forced].tolist(), cols[forced].tolist(), strict=True))


def _most_shared(mine: np.ndarray, others: np.ndarray) -> np.ndarray:
    """For each column of ``mine`` (a field x item array of key ids, -1 empty), a bound on
    the keys it shares with any column of ``others`` besides the one alike item (which
    shares all of them; a key id below 0 matches nothing): the most found from two up,
    else 1 (a column sharing none counts as sharing one: the bound stays safe).

    Only what could match is compared: a field of a column counts only when its key is
    held by two columns of ``others`` (the alike one and another), and a column of
    ``others`` only when each of its keys in the fields tried is such a key of a column
    still open; neither filter drops a match."""
    fields, n = mine.shape
    most = np.ones(n, np.int64)
    span = int(max(mine.max(initial=0), others.max(initial=0))) + 1
    held = [np.bincount(row[row >= 0], minlength=span) for row in others]
    multi = np.array([(row >= 0) & (count[np.maximum(row, 0)] >= 2)
                      for row, count in zip(mine, held, strict=True)])
    for size in range(2, fields + 1):
        open_ = most == size - 1  # shares size - 1: may share size
        if not open_.any():
            break
        wanted = [np.bincount(row[open_ & many], minlength=span) > 0
                  for row, many in zip(mine, multi, strict=True)]
        rivals = np.array([(row >= 0) & keys[np.maximum(row, 0)]
                           for row, keys in zip(others, wanted, strict=True)])
        for subset in map(list, itertools.combinations(range(fields), size)):
            have = open_ & multi[subset].all(axis=0)
            there = rivals[subset].all(axis=0)
            if not have.any() or not there.any():
                continue
            codes = _codes(np.concatenate((mine[subset][:, have], others[subset][:, there]),
                                          axis=1))
            split = int(have.sum())
            counts = np.bincount(codes[split:], minlength=int(codes.max()) + 1)
            found = np.flatnonzero(have)[counts[codes[:split]] > 1]  # the alike one, another
            most[found] = size
            open_[found] = False
    return most


def _codes(ids: np.ndarray) -> np.ndarray:
    """One small integer per column of key ids (>= 0), equal exactly for equal columns."""
    code = ids[0].copy()
    for row in ids[1:]:
        code = code * (int(row.max()) + 1) + row
        if int(code.max()) >= 2**40:  # renumber before the next product could overflow
            code = np.unique(code, return_inverse=True)[1].reshape(-1)
    return np.unique(code, return_inverse=True)[1].reshape(-1)


def _groups(signatures: list[str], raw: list, index: list[int]) -> list[list[int]]:
    """Kept items in 2.1's canonical order, cut into runs of alike items
    (``lexi.runs``: equal signature and raw JSON, every value written alike); raw JSON
    written only where a signature repeats."""
    repeats = collections.Counter(signatures)
    texts = [scorer.raw_text(raw[i]) if repeats[sig] > 1 else ""
             for sig, i in zip(signatures, index, strict=True)]
    return lexi.runs(signatures, texts, lambda k: raw[index[k]])


def _emit(block: FlatRows, out: list, document: list) -> bool:
    """Hand a flat array's rows on: as the block itself when ``out`` is the document's
    own list (returns True), else as verdicts (a tally never gets here: :func:`_tally`)."""
    if out is document:  # read by nobody before the score: rows made when read
        out.append(block)
        return True
    out.extend(map(verdict_of, block.rows()))  # read back by the walk (unpaired items)
    return False


def verdict_of(row: tuple) -> scorer.Verdict:
    """The Verdict of a row: the canonical keys shown as JSON (``scorer.shown``)."""
    address, field, kind, label, result, label_key, result_key = row
    return scorer.Verdict(address, field, kind, label, result, scorer.shown(label_key),
                          scorer.shown(result_key))


def _kinds(walker: Any, specs: list[tuple], pairs: list[tuple[int, int]], same: int,
           values_right: list[list], reads_left: list[list], reads_right: list[list],
           ) -> list[tuple[list[str], list, list]]:
    """Per field, the verdict kind of each pair's leaf, in pair order, with the label's
    and the result's canonical keys (None where a side states nothing)."""
    at_left = [k for k, _ in pairs]
    at_right = [k for _, k in pairs]
    out = []
    for b, (leaf, *_) in enumerate(specs):
        got = list(map(reads_left[b].__getitem__, at_left))
        seen = list(map(reads_right[b].__getitem__, at_right))
        start, kinds, label_keys, result_keys = 0, [], [], []
        if same >= tuning.TUNING.same_at_once:
            # identical items: every read is equal to its partner's, so each leaf is
            # correct (or a correct absence) with the two reads' own keys; checked, not
            # assumed (equal tags and keys), else compared one by one below
            tags = list(map(TAG, got[:same]))
            label_keys = list(map(KEY, got[:same]))
            result_keys = list(map(KEY, seen[:same]))
            if tags == list(map(TAG, seen[:same])) and label_keys == result_keys:
                start = same
                kinds = list(map(_SAME_KIND.get, tags, itertools.repeat("correct")))
            else:
                label_keys, result_keys = [], []
        for g, r, c in zip(got[start:], seen[start:], at_right[start:], strict=True):
            if g is EMPTY_READ:  # the label states nothing here
                kind = "correct_absence" if r is EMPTY_READ else "hallucinated"
                label_key = result_key = None
            elif r is EMPTY_READ:
                kind, label_key, result_key = "missing", None, None
            else:
                label_key = g[1]
                # the result read under its own tag is its key when the tags agree (the
                # same read object when both sides hold the same value)
                result_key = r[1] if r is g or r[0] == g[0] else \
                    walker.key(leaf, g[0], values_right[b][c])
                # equal keys: Walker.equal's own first test, made without a call
                kind = ("type_error" if result_key is None else
                        "correct" if label_key == result_key or
                        walker.equal(leaf, g[0], label_key, result_key) else "wrong_value")
            kinds.append(kind)
            label_keys.append(label_key)
            result_keys.append(result_key)
        out.append((kinds, label_keys, result_keys))
    return out


def _tally(out: scorer.Tally, kinds: list[tuple[list[str], list, list]],
           pairs: list[tuple[int, int]], n_left: int, n_right: int, reads_left: list[list],
           reads_right: list[list]) -> None:
    """Count into ``out`` what a walk of the rows of :func:`_rows` adds to a
    ``scorer.Tally``, with no row made: each kind (``kinds``: :func:`_kinds` of the
    pairs) counted, then weighed once by ``Tally.add`` itself (the definition's classes
    of kinds), and each stated leaf of an unpaired item one leaf on one side."""
    counts = collections.Counter()
    for field_kinds, _, _ in kinds:
        counts.update(field_kinds)
    unpaired = 0
    for n, reads, paired in ((n_left, reads_left, {k for k, _ in pairs}),
                             (n_right, reads_right, {k for _, k in pairs})):
        for k in range(n):
            if k not in paired:
                unpaired += sum(got[k] is not EMPTY_READ for got in reads)
    if unpaired:  # rows of kind missing or extra_item: either is a leaf on one side
        counts["missing"] += unpaired
    for kind, many in counts.items():
        one = scorer.Tally()
        one.add(kind)
        out[0] += one[0] * many
        out[1] += one[1] * many
        out[2] += one[2] * many


def _rows(specs: list[tuple], kinds: list[tuple[list[str], list, list]], address: str,
          pairs: list[tuple[int, int]], index_left: list[int], index_right: list[int],
          values_left: list[list], values_right: list[list], reads_left: list[list],
          reads_right: list[list]) -> FlatRows:
    """The verdict rows of the pairs (``kinds``: :func:`_kinds` of them) and unpaired
    items, as a :class:`FlatRows` block."""
    at_left = [k for k, _ in pairs]
    at_right = [k for _, k in pairs]
    bases = [f"{address}[{i}]" for i in map(index_left.__getitem__, at_left)]
    columns = [(suffix, path, field_kinds, values_left[b], values_right[b], label_keys,
                result_keys)
               for b, ((_, _, suffix, path), (field_kinds, label_keys, result_keys)) in
               enumerate(zip(specs, kinds, strict=True))]
    paired_left, paired_right = set(at_left), set(at_right)
    unpaired: list[tuple] = []
    for side, index, reads, values, paired, kind in (
            ("", index_left, reads_left, values_left, paired_left, "missing"),
            ("r", index_right, reads_right, values_right, paired_right, "extra_item")):
        for k, i in enumerate(index):
            if k in paired:
                continue
            where = f"{address}[{side}{i}]"
            for (_, _, suffix, path), got, value in zip(specs, reads, values, strict=True):
                if got[k] is not EMPTY_READ:
                    unpaired.append((where + suffix, path, kind,
                                     value[k] if kind == "missing" else None,
                                     None if kind == "missing" else value[k], None, None))
    return FlatRows(bases, at_left, at_right, columns, unpaired)


def match_flat(walker: Any, specs: list[tuple], left: list[list], right: list[list],
               values: list[list]) -> list[tuple[int, int]]:
    """Version 2.0's assignment of flat label items to result items (``scorer.pair_2_0``,
    step 3), given a field at a time: the reads of the label items, of the result items
    (read as a label would be) and the result items' values. A pair's weight is its
    correct leaves (shared (field, tag, key)) times the ceiling, plus its leaves present
    on both sides; the ceiling is one more than the most non-empty fields of a label
    item times the smaller side."""
    found = flat_graph(walker, specs, left, right, values, None)
    return [] if found is None else solve.assign_csr_2_0(len(left[0]), len(right[0]), found[0])


def match_flat_2_1(walker: Any, specs: list[tuple], groups_left: list[list[int]],
                   groups_right: list[list[int]], left: list[list], right: list[list],
                   values: list[list]) -> list[tuple[int, int]]:
    """Version 2.1's pairs of flat items (``scorer.pair_2_1``): the columns of one item
    per group of alike items (``left``, ``right``, ``values`` as for :func:`match_flat`),
    counted as 2.0's are, with the leaves present on one side only from the fields'
    bit masks; the choice made on group flows (``lexi``). Pairs sorted by label item."""
    if len(left[0]) * len(right[0]) * len(specs) <= tuning.TUNING.flat_python_cells:
        return _match_small_2_1(walker, specs, groups_left, groups_right, left, right, values)
    sizes_left, sizes_right = [len(g) for g in groups_left], [len(g) for g in groups_right]
    keyed = None  # the columns' key ids, numbered once for the slack path and the join
    if sum(sizes_left) * sum(sizes_right) > tuning.TUNING.lexi_small_units and \
            tuning.TUNING.slack_wide:
        keyed = slack.key_ids(walker, specs, left, right, values)
        flows = None if keyed is None else slack.assign(keyed, sizes_left, sizes_right)
        if flows is not None:  # wide keys left out, proved slack
            return lexi.expand(groups_left, groups_right, flows)
    found = flat_graph(walker, specs, left, right, values, len(specs) + 1, keyed)
    if found is None:
        return []
    (indptr, indices, data), masks_left, masks_right = found
    rows = len(left[0])
    real = np.ones(len(data), bool)
    real[indptr[1:] - 1] = False
    row = np.repeat(np.arange(rows, dtype=np.int64), np.diff(indptr) - 1)
    col = indices[real].astype(np.int64)
    shared, both = np.divmod(data[real].astype(np.int64), len(specs) + 1)
    one = np.bitwise_count(masks_left[row] ^ masks_right[col]).astype(np.int64)
    size = min(sum(map(len, groups_left)), sum(map(len, groups_right)))
    both_base = int(both.max()) * size + 1
    one_base = int(one.max()) * size + 1
    if (len(specs) * both_base + len(specs)) * one_base >= 2**62:  # cannot happen below
        raise OverflowError("2.1 weights above 62 bits")  # 62 fields x 10**7 items
    weights = (shared * both_base + both) * one_base - one
    if sum(map(len, groups_left)) * sum(map(len, groups_right)) <= \
            tuning.TUNING.lexi_small_units:
        return assign_items(groups_left, groups_right, row, col, weights)
    flows = lexi.assign([len(g) for g in groups_left], [len(g) for g in groups_right],
                        row, col, weights)
    return lexi.expand(groups_left, groups_right, flows)


def _match_small_2_1(walker: Any, specs: list[tuple], groups_left: list[list[int]],
                     groups_right: list[list[int]], left: list[list], right: list[list],
                     values: list[list]) -> list[tuple[int, int]]:
    """:func:`match_flat_2_1` on a small array in plain Python: the same edges and
    weights (:func:`small_graph`), numpy's per-call cost outweighing its speed there."""
    row, col, shared, both, one = small_graph(walker, specs, left, right, values)
    if not row:
        return []
    size = min(sum(map(len, groups_left)), sum(map(len, groups_right)))
    both_base = max(both) * size + 1
    one_base = max(one) * size + 1
    if (len(specs) * both_base + len(specs)) * one_base >= 2**62:  # as match_flat_2_1's
        raise OverflowError("2.1 weights above 62 bits")
    # (shared * both_base + both) * one_base - one, a map of C functions
    weights = list(map(operator.sub, map(operator.mul, map(operator.add, map(
        operator.mul, shared, itertools.repeat(both_base)), both), itertools.repeat(one_base)),
        one))
    if sum(map(len, groups_left)) * sum(map(len, groups_right)) <= \
            tuning.TUNING.lexi_small_units:
        return assign_items(groups_left, groups_right, row, col, weights)
    flows = lexi.assign([len(g) for g in groups_left], [len(g) for g in groups_right],
                        np.array(row, np.int64), np.array(col, np.int64),
                        np.array(weights, np.int64))
    return lexi.expand(groups_left, groups_right, flows)


def small_graph(walker: Any, specs: list[tuple], left: list[list], right: list[list],
                values: list[list]) -> tuple[list[int], ...]:
    """The columns (row, column, shared keys, fields stated on both sides, fields stated on
    one side) of every pair of :func:`flat_graph`'s graph, sorted by row then column: the same
    keys joined (a result read under another tag than the label column's one keyed tag
    re-keyed under each keyed tag, loose tags by reach), counted in dicts."""
    rows, cols = len(left[0]), len(right[0])
    masks_left, masks_right = [0] * rows, [0] * cols
    codes: list[int] = []  # row * cols + column, once per key the pair shares
    loose: list[tuple[scorer.Leaf, str, list, list]] = []  # (leaf, tag, label, result)
    for b, ((leaf, member, _, _), column) in enumerate(zip(specs, left, strict=True)):
        bit = 1 << b
        stated = set(map(TAG, column))
        stated.discard(None)
        near = {tag for tag in stated
                if not walker.comparators[tag].hashable(leaf.options)}
        holders: dict[tuple, list[int]] = {}  # a keyed label read -> row * cols of its rows
        for r, got in enumerate(column):
            if got is not EMPTY_READ:
                masks_left[r] |= bit
                if got[0] not in near:
                    holders.setdefault(got, []).append(r * cols)
        for tag in sorted(near):  # found by reach, not by key
            loose.append((leaf, tag, [(r, got[1]) for r, got in enumerate(column)
                                      if got is not EMPTY_READ and got[0] == tag],
                          [(c, key) for c, got in enumerate(right[b]) if got is not EMPTY_READ
                           and (key := got[1] if got[0] == tag else
                                walker.key(leaf, tag, values[b][c])) is not None]))
        tags = sorted(stated - near)
        only = tags[0] if len(tags) == 1 else None
        for c, read_as in enumerate(right[b]):
            if read_as == EMPTY_READ:
                continue
            masks_right[c] |= bit
            if read_as[0] == only:
                found = holders.get(read_as)
                if found:
                    codes.extend(map(c.__add__, found))
                continue
            for tag in tags:  # read under another tag than the label's: under each
                if tag == read_as[0]:
                    key = read_as
                else:
                    known = walker.key(leaf, tag, values[b][c])
                    key = (tag, known, f",{member}{tag}:{scorer.shown(known)}")
                if key[1] is not None and (found := holders.get(key)):
                    codes.extend(map(c.__add__, found))
    for leaf, tag, label_values, result_values in loose:  # each near pair one more key
        codes.extend(r * cols + c for r, c in walker.near(leaf, tag, label_values,
                                                          result_values))
    # every step below a map of C functions: no Python step per edge
    counts = collections.Counter(codes)
    ordered = sorted(counts)
    row = list(map(operator.floordiv, ordered, itertools.repeat(cols)))
    col = list(map(operator.mod, ordered, itertools.repeat(cols)))
    mine = list(map(masks_left.__getitem__, row))
    theirs = list(map(masks_right.__getitem__, col))
    return (row, col, list(map(counts.__getitem__, ordered)),
            list(map(int.bit_count, map(operator.and_, mine, theirs))),
            list(map(int.bit_count, map(operator.xor, mine, theirs))))


def assign_items(groups_left: list[list[int]], groups_right: list[list[int]],
                 row: np.ndarray | list[int], col: np.ndarray | list[int],
                 weights: np.ndarray | list[int],
                 ) -> list[tuple[int, int]]:
    """The definition's 2.1 choice on the items of these groups, each group's edges given
    to each of its items (items in canonical order are the groups' items in order): the
    definition's best matching and duals (``scorer.best_matching``), then the rule of
    ``scorer.lexicographic_choice`` by one backward search per row (``lexi.choose``).
    Pairs sorted by label item.

    First (``tuning.TUNING.lexi_small_forced``) an edge of two single items that outweighs
    the best other edges of both its items together is taken out with its two items
    (:func:`_outweighing`): every best assignment makes it, so the rest is chosen alone."""
    row, col, weights = _listed(row), _listed(col), list(weights)
    forced: list[tuple[int, int]] = []
    if tuning.TUNING.lexi_small_forced:
        taken = _outweighing(groups_left, groups_right, row, col, weights)
        if taken:
            forced = [(groups_left[g][0], groups_right[h][0]) for g, h in taken]
            gone_left, gone_right = {g for g, _ in taken}, {h for _, h in taken}
            kept_left = [g for g in range(len(groups_left)) if g not in gone_left]
            kept_right = [h for h in range(len(groups_right)) if h not in gone_right]
            new_left = {g: k for k, g in enumerate(kept_left)}  # order kept: same ranks
            new_right = {h: k for k, h in enumerate(kept_right)}
            rest = [(new_left[g], new_right[h], w)
                    for g, h, w in zip(row, col, weights, strict=True)
                    if g in new_left and h in new_right]
            groups_left = [groups_left[g] for g in kept_left]
            groups_right = [groups_right[h] for h in kept_right]
            row, col, weights = ([e[k] for e in rest] for k in range(3))
            if not rest:
                return sorted(forced)
    order_left = [k for group in groups_left for k in group]
    order_right = [k for group in groups_right for k in group]
    if len(order_left) == len(groups_left) and len(order_right) == len(groups_right):
        # one item per group: a group's position is its item's, its edges the items'
        edges = dict(zip(zip(row, col, strict=True), weights, strict=True))
    else:
        at_left = list(itertools.accumulate(map(len, groups_left), initial=0))
        at_right = list(itertools.accumulate(map(len, groups_right), initial=0))
        edges = {(at_left[g] + a, at_right[h] + b): w
                 for g, h, w in zip(row, col, weights, strict=True)
                 for a in range(len(groups_left[g])) for b in range(len(groups_right[h]))}
    tight, u, v, mate_row, mate_col = scorer.best_matching(len(order_left), len(order_right),
                                                           edges)
    lexi.choose(tight, [x == 0 for x in u], [y == 0 for y in v], mate_row, mate_col)
    return sorted([*forced, *((order_left[r], order_right[c])
                              for r, c in enumerate(mate_row) if c >= 0)])


def _outweighing(groups_left: list[list[int]], groups_right: list[list[int]],
                 row: list[int], col: list[int], weights: list[int]) -> list[tuple[int, int]]:
    """The edges (g, h) of a single label item and a single result item whose weight
    exceeds the best other edge at g plus the best other edge at h (0 where none).

    Why every best assignment makes such an edge: one without it pairs g (if at all) by
    an edge no heavier than the best other at g, and h by one no heavier than the best
    other at h; trading those two for (g, h) gains weight. The best assignments are
    then the rest's, with these edges, and the lexicographic choice, row by row in
    canonical order, is the rest's (the items kept in order) with these edges."""
    top_row: dict[int, list[int]] = {}  # group -> its two heaviest edges' weights
    top_col: dict[int, list[int]] = {}
    for g, h, w in zip(row, col, weights, strict=True):
        _keep_top_two(top_row, g, w)
        _keep_top_two(top_col, h, w)
    out = []
    for g, h, w in zip(row, col, weights, strict=True):
        at_row, at_col = top_row[g], top_col[h]
        # the best other edge: the second heaviest when this is the heaviest
        if w == at_row[0] and w == at_col[0] and w > at_row[1] + at_col[1] and \
                len(groups_left[g]) == 1 and len(groups_right[h]) == 1:
            out.append((g, h))
    return out


def _keep_top_two(tops: dict[int, list[int]], group: int, weight: int) -> None:
    """Count ``weight`` into ``tops[group]``, its two heaviest edges' weights (0: none)."""
    best = tops.setdefault(group, [0, 0])
    if weight > best[0]:
        best[0], best[1] = weight, best[0]
    elif weight > best[1]:
        best[1] = weight


def _listed(values: np.ndarray | list[int]) -> list[int]:
    # tested as a list: asking numpy's type would import numpy for the small paths
    return values if isinstance(values, list) else values.tolist()


def flat_graph(walker: Any, specs: list[tuple], left: list[list], right: list[list],
               values: list[list], ceiling: int | None,
               keyed: tuple[np.ndarray, ...] | None = None,
               ) -> tuple[list[np.ndarray], np.ndarray, np.ndarray] | None:
    """The weights of :func:`match_flat` in CSR layout with dummy slots (``correct *
    ceiling + both``; ``ceiling`` None: 2.0's), and each item's bit mask of non-empty
    fields; None when no pair shares a key.

    Keys are numbered (or given: ``keyed``, ``slack.key_ids``' answer for these columns,
    which numbers them alike); result items are listed by key; each label key is joined
    to the result items holding it, label rows a slice at a time, and (row, column) codes
    are counted with ``np.unique`` (sorted), so weights arrive in canonical CSR order."""
    rows, cols = len(left[0]), len(right[0])
    if keyed is not None:
        ids_left, ids_right, masks_left, masks_right = keyed
        label_rows, label_ids = joins.entries(ids_left, rows + 1)
        result_rows, result_ids = joins.entries(ids_right, rows + 1)
        return _joined(rows, cols, label_rows, label_ids, result_rows, result_ids,
                       masks_left, masks_right, ceiling, len(specs), len(specs) * (rows + 1))
    size = 0  # key ids: a field's reads, numbered field after field
    label_rows, label_ids, result_rows, result_ids = [], [], [], []
    masks_left, masks_right = np.zeros(rows, np.uint64), np.zeros(cols, np.uint64)
    loose: list[tuple[scorer.Leaf, str, list, list]] = []  # (leaf, tag, label, result)
    for b, ((leaf, member, _, _), column) in enumerate(zip(specs, left, strict=True)):
        stated = set(map(TAG, column))
        stated.discard(None)
        near = {tag for tag in stated  # loose tags
                if not walker.comparators[tag].hashable(leaf.options)}
        ids, numbers = joins.key_ids(column, near)
        masks_left[np.fromiter(map(operator.is_not, column, itertools.repeat(EMPTY_READ)),
                               bool, rows)] |= np.uint64(1 << b)
        for tag in sorted(near):  # found by reach, not by key
            loose.append((leaf, tag, [(r, got[1]) for r, got in enumerate(column)
                                      if got is not EMPTY_READ and got[0] == tag],
                          [(c, key) for c, got in enumerate(right[b]) if got is not EMPTY_READ
                           and (key := got[1] if got[0] == tag else
                                walker.key(leaf, tag, values[b][c])) is not None]))
        found = np.flatnonzero(ids >= 0)
        label_rows.append(found)
        label_ids.append(ids[found] + size)
        tags = sorted(stated - near)
        column = right[b]
        ids = joins.result_ids(column, numbers, tags[0] if len(tags) == 1 else None)
        masks_right[ids != -2] |= np.uint64(1 << b)
        others = np.flatnonzero(ids == -3)  # read under another tag than the label's
        ids[others] = -1
        found = np.flatnonzero(ids >= 0)
        result_rows.append(found)
        result_ids.append(ids[found] + size)
        extra_rows, extra_ids = [], []
        for c in others.tolist():
            read_as, v = column[c], values[b][c]
            for tag in tags:
                if tag == read_as[0]:
                    key = read_as
                else:
                    known = walker.key(leaf, tag, v)
                    key = (tag, known, f",{member}{tag}:{scorer.shown(known)}")
                number = numbers.get(key) if key[1] is not None else None
                if number is not None:
                    extra_rows.append(c)
                    extra_ids.append(number + size)
        result_rows.append(np.array(extra_rows, np.int64))
        result_ids.append(np.array(extra_ids, np.int64))
        size += rows + 1  # ids of this field are below rows + 1
    for leaf, tag, label_values, result_values in loose:  # each near pair its own key id
        near_pairs = sorted(walker.near(leaf, tag, label_values, result_values))
        ids = np.arange(size, size + len(near_pairs), dtype=np.int64)
        label_rows.append(np.array([r for r, _ in near_pairs], np.int64))
        label_ids.append(ids)
        result_rows.append(np.array([c for _, c in near_pairs], np.int64))
        result_ids.append(ids)
        size += len(near_pairs)
    return _joined(rows, cols, np.concatenate(label_rows), np.concatenate(label_ids),
                   np.concatenate(result_rows), np.concatenate(result_ids), masks_left,
                   masks_right, ceiling, len(specs), size)


def _joined(rows: int, cols: int, label_rows: np.ndarray, label_ids: np.ndarray,
            result_rows: np.ndarray, result_ids: np.ndarray, masks_left: np.ndarray,
            masks_right: np.ndarray, ceiling: int | None, fields: int, size: int,
            ) -> tuple[list[np.ndarray], np.ndarray, np.ndarray] | None:
    """:func:`flat_graph`'s answer from its key entries (label entries in any order:
    sorted here by row, keeping each row's entries in their order)."""
    order = np.argsort(label_rows, kind="stable")
    label_rows, label_ids = label_rows[order], label_ids[order]
    if not len(result_rows):
        return None
    if ceiling is None:
        most = int(np.bitwise_count(masks_left).max(initial=0))
        ceiling = most * min(rows, cols) + 1
    graph = joins.join_counts(rows, cols, label_rows, label_ids, result_rows, result_ids,
                              masks_left, masks_right, ceiling, fields, size)
    if len(graph[1]) == rows:  # dummy slots only
        return None
    return graph, masks_left, masks_right


def _get(item: dict, name: str) -> Any:
    """``item.get(name)``: a member of a dict of any class (dict.get reads plain ones)."""
    return item.get(name)

