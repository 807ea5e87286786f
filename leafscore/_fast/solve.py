"""Version 2.0's assignment, solved by scipy's compiled solvers: the same optimum, ties
broken the same way, as the definition's ``scorer.assign_2_0`` (its dense solver is a
restatement of the one called here; tests/test_two_engines.py holds them equal).

Edges arrive in CSR layout, each row closed by one dummy slot: row ``r`` holds
``indptr[r + 1] - indptr[r] - 1`` edges, columns ascending with positive integer weights,
then its dummy. The arrays are emptied as they are used, so a large graph costs no copy.
"""

from __future__ import annotations

import functools
import importlib.machinery
import importlib.util
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import scorer
from leafscore._fast.numpy_lazy import np


def weight_type(most: int) -> type:
    """int32 for weights (and costs) up to ``most`` when exact in it, else float64."""
    return np.int32 if most < 2**31 - 2 else np.float64


def csr_of(rows: int, edges: Mapping[tuple[int, int], int]) -> list[np.ndarray]:
    """Edges {(row, column): weight} in the layout :func:`assign_csr_2_0` takes."""
    ordered = sorted(edges.items())
    row = np.array([r for (r, _), _ in ordered], np.int64)
    indptr = np.zeros(rows + 1, np.int64)
    np.cumsum(np.bincount(row, minlength=rows) + 1, out=indptr[1:])
    slots = np.ones(len(ordered) + rows, bool)
    slots[indptr[1:] - 1] = False
    indices = np.zeros(len(slots), np.int32)
    indices[slots] = [c for (_, c), _ in ordered]
    data = np.zeros(len(slots), weight_type(max((w for _, w in ordered), default=0)))
    data[slots] = [w for _, w in ordered]
    return [indptr, indices, data]


def assign_2_0(rows: int, cols: int, edges: Mapping[tuple[int, int], int],
               ) -> list[tuple[int, int]]:
    """``scorer.assign_2_0`` of the same edges: (row, column) pairs sorted by row."""
    if not edges:
        return []
    return assign_csr_2_0(rows, cols, csr_of(rows, edges))


def assign_csr_2_0(rows: int, cols: int, graph: list[np.ndarray]) -> list[tuple[int, int]]:
    """``scorer.assign_2_0`` of edges in CSR layout with dummy slots (``graph`` = [indptr,
    indices, data], emptied here): the edges when they form a matching; scipy's
    ``linear_sum_assignment`` on the dense matrix up to ``scorer.DENSE_CELLS_2_0`` cells;
    else ``min_weight_full_bipartite_matching`` on cost ``ceiling - weight`` with one
    dummy column of cost ``ceiling`` per row, last in its row."""
    indptr, indices, data = graph
    graph.clear()
    dummies = indptr[1:] - 1
    counts = np.diff(indptr) - 1
    if not counts.any():
        return []
    real = np.ones(len(data), bool)
    real[dummies] = False
    if bool((counts <= 1).all()) and bool(
            np.bincount(indices[real], minlength=cols).max(initial=0) <= 1):
        row = np.repeat(np.arange(rows), counts)
        return list(zip(row.tolist(), indices[real].tolist(), strict=True))
    if rows * cols <= scorer.DENSE_CELLS_2_0:
        matrix = np.zeros((rows, cols))
        matrix[np.repeat(np.arange(rows), counts), indices[real]] = data[real]
        chosen = zip(*linear_sum_assignment()(matrix, maximize=True), strict=True)
        return [(int(r), int(c)) for r, c in chosen if matrix[r, c] > 0]
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import min_weight_full_bipartite_matching

    del real
    data[dummies] = 0
    ceiling = data.max() + 1
    np.subtract(ceiling, data, out=data)  # the dummies' cost is the ceiling itself
    indices[dummies] = cols + np.arange(rows, dtype=np.int32)
    del dummies
    index = np.int32 if len(data) < 2**31 else np.int64
    matrix = csr_matrix((data, indices, indptr.astype(index)), shape=(rows, cols + rows))
    del data, indices, indptr
    matched_rows, matched_cols = min_weight_full_bipartite_matching(matrix)
    keep = matched_cols < cols
    return list(zip(matched_rows[keep].tolist(), matched_cols[keep].tolist(), strict=True))


@functools.cache
def linear_sum_assignment() -> Callable[..., Any]:
    """``scipy.optimize.linear_sum_assignment``, loaded on first use.

    Importing ``scipy.optimize`` runs its whole package (about 0.3 s here), more than a
    small benchmark takes to score; the function itself lives in the extension module
    ``scipy/optimize/_lsap``, which needs only numpy. So that module is loaded from its
    file (not registered in ``sys.modules``), and used only if it exports the function;
    any other layout falls back to the public import. Same function, same answers."""
    import scipy

    folder = Path(scipy.__file__).parent / "optimize"
    files = [folder / f"_lsap{suffix}" for suffix in importlib.machinery.EXTENSION_SUFFIXES]
    spec = next((importlib.util.spec_from_file_location("scipy.optimize._lsap", path)
                 for path in files if path.is_file()), None)
    if spec is not None and spec.loader is not None:
        try:
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        except ImportError:
            module = None
        found = getattr(module, "linear_sum_assignment", None)
        if callable(found):
            return found
    from scipy.optimize import linear_sum_assignment as public

    return public
