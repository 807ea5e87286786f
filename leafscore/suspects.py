"""Suspect labels: label leaves on which several systems agree with each other, not the label.

When independent systems give the same value for a leaf and the label holds another,
the label may be wrong. Read from a version-2.0 ``Run``'s verdicts (``scorer.Verdict``);
nothing is rescored.

- **Per label leaf**: verdicts are grouped by (document, ``address``). An array leaf's
  address carries the index of the *label* item its result item was paired with
  (``lines[3].qty``), so systems that paired different result items with label item 3
  still meet at one address. Result items paired with no label item (``extra_item``,
  address ``lines[r5].qty``) have no label leaf and are left out.
- **Agreement**: a system takes part at an address when its verdict there is
  ``wrong_value``, ``type_error`` or ``hallucinated`` (the metric says it gave a value
  other than the label's). Systems agree when their ``result_canon`` values are equal
  (canonical JSON text), so ``"1,240.00"`` and ``1240`` agree on a number field. Where the
  scorer keeps no canonical value (``hallucinated``: the label leaf is empty, so nothing
  was compared; ``type_error``: the value is unreadable under the label's comparator),
  the raw values must be equal instead (``compared`` says which).
- **Limit**: a label item that no result item is paired with (its leaves ``missing``)
  cannot be compared at all, so a label error that also keeps its item from pairing is
  not found there.
- **Suspect**: a value given by at least ``min_agree`` systems that differs from the
  label's ``label_canon`` (including a label leaf left empty: ``label_canon`` ``None``).
  Ranked by the number of agreeing systems, then document and address.
- **Default** ``min_agree``: a majority of the systems, and at least 3
  (``max(3, n_systems // 2 + 1)``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

#: Verdict kinds that carry a result value at a label leaf and disagree with it.
_DISAGREEING = frozenset({"wrong_value", "type_error", "hallucinated"})


@dataclass(frozen=True)
class Suspect:
    """One label leaf that ``systems`` agree on against the label.

    ``document`` and ``address`` (``lines[3].qty``) place it; ``field`` is its path
    (``lines[].qty``); ``label``/``label_canon`` the label's raw and canonical values
    (``None`` when the label leaves it empty); ``value`` the agreed canonical value;
    ``results`` one raw result value per agreeing system, in ``systems`` order; ``of``
    the number of systems with a verdict at this address; ``compared`` is
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


@dataclass(frozen=True)
class Suspects:
    """Every suspect of a run at ``min_agree``, best supported first, with the run's
    ``signature``; ``systems`` is the number of systems compared."""

    min_agree: int
    systems: int
    suspects: tuple[Suspect, ...]
    signature: str


def default_min_agree(n_systems: int) -> int:
    """A majority of ``n_systems`` and at least 3.

    >>> [default_min_agree(n) for n in (2, 4, 5, 6, 7)]
    [3, 3, 3, 4, 4]
    """
    return max(3, n_systems // 2 + 1)


def _key(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def find(run: Any, *, min_agree: int | None = None) -> Suspects:
    """The suspect label leaves of ``run``.

    Parameters
    ----------
    run : leafscore.run.Run
        A version-2.0 run (its cells hold verdicts).
    min_agree : int, optional
        Systems that must agree, >= 2; default :func:`default_min_agree`.

    Returns
    -------
    Suspects

    Raises
    ------
    ValueError
        If ``min_agree < 2`` or the run keeps no verdicts (version 1.0).
    """
    if min_agree is None:
        min_agree = default_min_agree(len(run.systems))
    if min_agree < 2:
        raise ValueError(f"--min-agree {min_agree} must be at least 2")
    found = []
    for document in run.documents:
        places: dict[str, dict[str, Any]] = {}
        for system in run.systems:
            cell = run.cells[(system, document)]
            verdicts = getattr(cell.score, "verdicts", None)
            if verdicts is None:
                raise ValueError(f"version {run.version} keeps no per-leaf verdicts; "
                                 "suspects need version 2.0")
            for verdict in verdicts:
                if verdict.kind != "extra_item":
                    places.setdefault(verdict.address, {}).setdefault(system, verdict)
        for address, by_system in places.items():
            found.extend(_suspects_at(document, address, by_system, min_agree))
    found.sort(key=lambda s: (-s.agree, s.document, s.address, _key(s.value)))
    return Suspects(min_agree, len(run.systems), tuple(found), run.signature)


def _suspects_at(document: str, address: str, by_system: dict[str, Any],
                 min_agree: int) -> list[Suspect]:
    """Values at one label leaf given by at least ``min_agree`` disagreeing systems."""
    groups: dict[tuple[str, str], list[tuple[str, Any]]] = {}
    for system, verdict in by_system.items():
        if verdict.kind not in _DISAGREEING:
            continue
        compared = "raw" if verdict.result_canon is None else "canonical"
        value = verdict.result if compared == "raw" else verdict.result_canon
        groups.setdefault((compared, _key(value)), []).append((system, verdict))
    out = []
    for (compared, key), members in groups.items():
        first = members[0][1]
        if len(members) < min_agree or (compared == "canonical"
                                         and key == _key(first.label_canon)):
            continue
        out.append(Suspect(
            document=document, address=address, field=first.field, label=first.label,
            label_canon=first.label_canon,
            value=first.result if compared == "raw" else first.result_canon,
            systems=tuple(s for s, _ in members), results=tuple(v.result for _, v in members),
            of=len(by_system), compared=compared))
    return out
