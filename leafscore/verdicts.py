"""Verdicts as data: one flat record per leaf verdict of a run, for SQL, pandas or parquet.

Every record names its system, document and the document's status, then the verdict's
own fields (``scorer.Verdict``). Raw and canonical values are JSON text, so a column has
one type whatever the leaves hold (a label may be a number on one row and text on the
next). The records are what ``leafscore report --verdicts PATH`` writes.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
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

    Raises ``ValueError`` when the run's version keeps no verdicts (1.0).
    """
    for system in run.systems:
        for document in run.documents:
            cell = run.cells[(system, document)]
            verdicts = getattr(cell.score, "verdicts", None)
            if verdicts is None:
                raise ValueError(f"version {run.version} keeps no per-leaf verdicts")
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
    """Write the verdicts of ``run`` to ``path``: ``.csv`` (UTF-8, a header row, cells
    neutralized against formula injection) or ``.parquet`` (pyarrow, an optional extra).

    Written atomically. Raises ``ValueError`` for another suffix or a run without
    verdicts, ``ImportError`` naming the extra when pyarrow is absent.
    """
    suffix = Path(path).suffix.lower()
    if suffix == ".csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(COLUMNS)
        for record in records(run):
            writer.writerow([hygiene.csv_cell(cell) for cell in astuple(record)])
        files.atomic_write_text(path, out.getvalue())
        return Path(path)
    if suffix == ".parquet":
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError("pyarrow is needed: pip install 'leafscore[data]'") from exc
        columns: dict[str, list[str]] = {name: [] for name in COLUMNS}
        for record in records(run):
            for name, value in zip(COLUMNS, astuple(record), strict=True):
                columns[name].append(value)
        sink = pa.BufferOutputStream()
        pq.write_table(pa.table(columns), sink)
        files.atomic_write_bytes(path, sink.getvalue().to_pybytes())
        return Path(path)
    raise ValueError(f"{path}: verdicts are written as .csv or .parquet, not {suffix or '(none)'}")
