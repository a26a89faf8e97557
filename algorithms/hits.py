"""HITS hubs and authorities by power iteration.

Method: Kleinberg's iteration, as networkx computed it before it turned to ARPACK: from uniform
hubs, each step sets every vertex's authority to the sum of the hubs pointing to it
(``A^T h``), then its hub value to the sum of the authorities it points to (``A a``), and scales
both to a largest value of 1; it stops when the hubs change by less than ``tol`` in L1, and both
vectors are then scaled to sum to 1 when ``normalized``. They are the leading singular vectors
of the adjacency matrix, which networkx 3 finds with ARPACK (``scipy.sparse.linalg.svds``):
where that vector is unique the answers agree to about ``tol``. A step is three supersteps:
the two products (the first carrying the last step's change) and the largest values.

Output encoding: ``hubs`` and ``authorities`` (float64).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np

from dgraph.checks import integer, number
from dgraph.errors import ConvergenceWarning

from .adjacency_products import Products, own_sizes

if TYPE_CHECKING:
    import dask.dataframe as dd

    from dgraph.graph import Graph


def _largest(values):
    return values.max(initial=0.0)


def hits_kernel(ctx, *, max_iter, tol, normalized, bounds):
    n = int(bounds[-1])
    products = Products(ctx, bounds, weighted=False)
    h = {r: np.full(size, 1.0 / max(n, 1)) for r, size in own_sizes(bounds, ctx.ranks).items()}
    a = {r: np.zeros(h[r].size) for r in ctx.ranks}
    change = {r: np.zeros(1) for r in ctx.ranks}
    steps, converged = 0, False
    while True:
        found, total = products("in", h, total=change)
        if steps > 0 and float(total[0]) < tol:
            converged = True
            break
        if steps == max_iter:
            break
        a = found
        hubs, _ = products("out", a)
        top = ctx.allreduce({r: np.array([_largest(hubs[r]), _largest(a[r])]) for r in ctx.ranks}, "max")
        for r in ctx.ranks:
            hubs[r] /= top[0] or 1.0
            a[r] /= top[1] or 1.0
            change[r] = np.array([np.abs(hubs[r] - h[r]).sum()])
        h, steps = hubs, steps + 1
    if normalized:
        sums = ctx.allreduce({r: np.array([h[r].sum(), a[r].sum()]) for r in ctx.ranks})
        h = {r: v / (sums[0] or 1.0) for r, v in h.items()}
        a = {r: v / (sums[1] or 1.0) for r, v in a.items()}
    ctx.stats.info.update(iterations=steps, converged=converged)
    return {r: {"hubs": h[r], "authorities": a[r]} for r in ctx.ranks}


def hits(graph: Graph, *, max_iter: int = 100, tol: float = 1.0e-8, normalized: bool = True) -> dd.DataFrame:
    """HITS hub and authority values: a good hub points to good authorities, a good authority
    is pointed to by good hubs. Weights are not used (as in networkx).

    Parameters
    ----------
    graph : dgraph.Graph
    max_iter : int
        The most steps.
    tol : float
        Stop when the hubs (scaled to a largest value of 1) change by less than this in L1.
    normalized : bool
        Scale hubs and authorities to sum to 1.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``vertex``, ``hubs`` and ``authorities``. A ``ConvergenceWarning`` when
        ``max_iter`` steps did not converge (``graph.last_stats.info["converged"]``).

    Notes
    -----
    Three supersteps a step: two products, each moving a float64 per (vertex, rank) pair where
    the rank holds an arc of the vertex, and an all-reduce of two numbers.

    References
    ----------
    J. Kleinberg, "Authoritative sources in a hyperlinked environment", JACM 46, 1999.

    Examples
    --------
    >>> import pandas as pd, dgraph
    >>> g = dgraph.from_edgelist(pd.DataFrame({"src": [1, 1, 2], "dst": [3, 4, 3]}))
    >>> found = dgraph.algorithms.hits(g).compute().set_index("vertex").sort_index()
    >>> int(found.hubs.idxmax()), int(found.authorities.idxmax())
    (1, 3)
    """
    max_iter = integer(max_iter, "max_iter", minimum=0)
    tol = number(tol, "tol", low=0)
    frame, stats = graph.runner.run_to_frame(
        hits_kernel, reverse=graph.directed, name="hits", max_iter=max_iter, tol=float(tol), normalized=bool(normalized)
    )
    if not stats.info.get("converged"):
        warnings.warn(
            f"hits did not converge to tol={tol} in {max_iter} steps: raise max_iter or tol",
            ConvergenceWarning,
            stacklevel=2,
        )
    return frame
