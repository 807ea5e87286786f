"""Verdicts as data: one flat record per leaf verdict of a run, for SQL, pandas or parquet.

Every record names its system, document and the document's status, then the verdict's
own fields (``scorer.Verdict``). Raw and canonical values are JSON text, so a column has
one type whatever the leaves hold (a label may be a number on one row and text on the
next). The records are what ``leafscore report --verdicts PATH`` writes.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
from collections.abc import Callable, Iterator
from dataclasses import astuple, dataclass, fields
from pathlib import Path
from typing import Any

from leafscore import files, hygiene


@dataclass(frozen=True, slots=True)
class VerdictRecord:
    """One leaf verdict of one (system, document).

    ``system``, ``document``: names; ``status``: the document's ``"scored"``,
    ``"parse_failure"`` or ``"missing"``; ``address`` (``lines[3].qty``), ``field``
    (``lines[].qty``) and ``kind`` (a key of ``scorer.VERDICT_KINDS``) as in
    ``scorer.Verdict``; ``label``, ``result``, ``label_canon``, ``result_canon``: the
    values as compact JSON text (``"null"`` when absent).
    """

    system: str
    document: str
    status: str
    address: str
    field: str
    kind: str
    label: str
    result: str
    label_canon: str
    result_canon: str


#: Column names, in order.
COLUMNS: tuple[str, ...] = tuple(f.name for f in fields(VerdictRecord))


def _text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def records(run: Any) -> Iterator[VerdictRecord]:
    """Every verdict of ``run`` as a :class:`VerdictRecord`: systems in order, documents
    in id order, verdicts in the scorer's order.

    Raises ``ValueError`` when the run's version keeps no verdicts (1.0), or the run was
    scored without keeping them (``keep_verdicts=False``: stream them instead, with
    :func:`writer` as ``on_cell``).
    """
    if not getattr(run, "kept_verdicts", True):
        raise ValueError("this run was scored without keeping its verdicts "
                         "(keep_verdicts=False)")
    for system in run.systems:
        for document in run.documents:
            yield from cell_records(system, document, run.cells[(system, document)],
                                    version=run.version)


def cell_records(system: str, document: str, cell: Any, *,
                 version: str = "") -> Iterator[VerdictRecord]:
    """The :class:`VerdictRecord` of every verdict of one cell, in the scorer's order.
    Raises ``ValueError`` when its score keeps no verdicts (1.0)."""
    verdicts = getattr(cell.score, "verdicts", None)
    if verdicts is None:
        raise ValueError(f"version {version or '1.0'} keeps no per-leaf verdicts")
    for v in verdicts:
        yield VerdictRecord(system, document, cell.status, v.address, v.field, v.kind,
                            _text(v.label), _text(v.result), _text(v.label_canon),
                            _text(v.result_canon))


def to_pandas(run: Any) -> Any:
    """The verdicts of ``run`` as a ``pandas.DataFrame`` with :data:`COLUMNS` (pandas is
    an optional extra: ``pip install leafscore[data]``). Raises ``ImportError`` naming the
    extra when pandas is absent, ``ValueError`` as :func:`records`."""
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("pandas is needed: pip install 'leafscore[data]'") from exc
    return pd.DataFrame.from_records([astuple(r) for r in records(run)], columns=COLUMNS)


def write(run: Any, path: Path) -> Path:
    """Write the verdicts of ``run`` to ``path`` (as :func:`writer`, fed every cell in
    order). Raises as :func:`writer` and :func:`records`."""
    if not getattr(run, "kept_verdicts", True):
        next(records(run))  # raises ValueError: nothing to write
    with writer(path) as add:
        for system in run.systems:
            for document in run.documents:
                add((system, document), run.cells[(system, document)])
    return Path(path)


#: Rows buffered per parquet row group by :func:`writer`.
PARQUET_ROWS: int = 65536


@contextlib.contextmanager
def writer(path: Path) -> Iterator[Callable[[tuple[str, str], Any], None]]:
    """``add((system, document), cell)``, which streams one cell's verdicts to ``path``:
    ``.csv`` (UTF-8, a header row, cells neutralized against formula injection) or
    ``.parquet`` (pyarrow, an optional extra; one row group per :data:`PARQUET_ROWS`
    rows). Records go out as they are added (memory holds at most one row group), and
    the file replaces ``path`` atomically only when the ``with`` block ends normally: an
    error or Ctrl-C leaves no file and no partial one (``files.atomic_writer``).

    Raises ``ValueError`` for another suffix (before anything is written) or a cell
    without verdicts, ``ImportError`` naming the extra when pyarrow is absent.
    """
    suffix = Path(path).suffix.lower()
    if suffix == ".csv":
        with files.atomic_writer(path) as raw:
            text = io.TextIOWrapper(raw, encoding="utf-8", newline="")
            rows = csv.writer(text, lineterminator="\n")
            rows.writerow(COLUMNS)

            def add_csv(pair: tuple[str, str], cell: Any) -> None:
                for record in cell_records(*pair, cell):
                    rows.writerow([hygiene.csv_cell(value) for value in astuple(record)])

            yield add_csv
            text.flush()
            text.detach()
        return
    if suffix != ".parquet":
        raise ValueError(f"{path}: verdicts are written as .csv or .parquet, "
                         f"not {suffix or '(none)'}")
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("pyarrow is needed: pip install 'leafscore[data]'") from exc
    schema = pa.schema([(name, pa.string()) for name in COLUMNS])
    columns: dict[str, list[str]] = {name: [] for name in COLUMNS}
    groups = [0]
    with files.atomic_writer(path) as raw, pq.ParquetWriter(raw, schema) as sink:

        def flush() -> None:
            sink.write_table(pa.table(columns, schema=schema))
            groups[0] += 1
            for values in columns.values():
                values.clear()

        def add_parquet(pair: tuple[str, str], cell: Any) -> None:
            for record in cell_records(*pair, cell):
                for name, value in zip(COLUMNS, astuple(record), strict=True):
                    columns[name].append(value)
            if len(columns["system"]) >= PARQUET_ROWS:
                flush()

        yield add_parquet
        if columns["system"] or not groups[0]:
            flush()
