"""Katz centrality by power iteration, as networkx computes it.

Method: from the zero vector, each step sets every vertex to ``alpha`` times the sum of its
in-neighbours' values (weighted by the arcs' weights) plus its ``beta``; it stops when a step
changes the vector by less than ``n * tol`` in L1, and the result is scaled to unit length (L2)
when ``normalized``. A step is one superstep (``adjacency_products``: the product carries the
last step's change); the iteration converges when ``alpha`` is below the reciprocal of the
adjacency matrix's largest eigenvalue.

Output encoding: ``katz_centrality`` (float64).
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from dgraph.checks import integer, number
from dgraph.errors import ConvergenceWarning, DgraphInputError
from dgraph.weights import GRAPH_WEIGHT, Weight, chosen_weight

from .adjacency_products import Products, iterate_in, own_sizes, unit_length

if TYPE_CHECKING:
    import dask.dataframe as dd

    from dgraph.graph import Graph


def katz_kernel(ctx, *, alpha, beta, max_iter, tol, normalized, weighted, bounds):
    n = int(bounds[-1])
    products = Products(ctx, bounds, weighted)
    sizes = own_sizes(bounds, ctx.ranks)
    own_beta = {r: np.asarray(beta[int(bounds[r]) : int(bounds[r + 1])]) if np.ndim(beta) else beta for r in ctx.ranks}
    x = {r: np.zeros(size) for r, size in sizes.items()}
    x, steps, converged = iterate_in(
        ctx,
        products,
        x,
        lambda y, x: {r: alpha * y[r] + own_beta[r] for r in ctx.ranks},
        n=n,
        tol=tol,
        max_iter=max_iter,
    )
    if normalized:
        x = unit_length(ctx, x)
    ctx.stats.info.update(iterations=steps, converged=converged)
    return {r: {"katz_centrality": x[r]} for r in ctx.ranks}


def _by_placed_id(ids, values, n):
    vec = np.zeros(n)
    vec[ids] = values
    return vec


def katz_centrality(
    graph: Graph,
    *,
    alpha: float = 0.1,
    beta: float | Mapping[Hashable, float] = 1.0,
    max_iter: int = 1000,
    tol: float = 1.0e-6,
    normalized: bool = True,
    weight: Weight = GRAPH_WEIGHT,
) -> dd.DataFrame:
    """Katz centrality: ``x = alpha A^T x + beta`` (a vertex is central when many walks, shorter
    ones counting more, reach it).

    Parameters
    ----------
    graph : dgraph.Graph
    alpha : float
        Attenuation; the iteration converges below 1 / (the adjacency's largest eigenvalue).
    beta : float or dict
        Every vertex's own weight: one number, or one per vertex (by label, every vertex).
    max_iter : int
        The most steps.
    tol : float
        Stop when a step changes the vector by less than ``num_vertices * tol`` in L1.
    normalized : bool
        Scale the result to unit L2 norm.
    weight : str or None, optional
        Left out: the graph's weight, if it was built with one. ``None``: every arc counts 1.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``vertex`` and ``katz_centrality``. A ``ConvergenceWarning`` when ``max_iter``
        steps did not converge (``graph.last_stats.info["converged"]``).

    Notes
    -----
    One superstep a step, moving a float64 per (vertex, rank) pair where the rank holds an arc
    from the vertex.

    References
    ----------
    L. Katz, "A new status index derived from sociometric analysis", Psychometrika 18, 1953.

    Examples
    --------
    >>> import dgraph
    >>> g = dgraph.datasets.load("karate")
    >>> kc = dgraph.algorithms.katz_centrality(g, alpha=0.05).compute()
    >>> int(kc.sort_values("katz_centrality").vertex.iloc[-1])
    34
    """
    alpha = number(alpha, "alpha")
    max_iter = integer(max_iter, "max_iter", minimum=0)
    tol = number(tol, "tol", low=0)
    weight = chosen_weight(graph, weight, "katz_centrality")
    if isinstance(beta, Mapping):
        if len(beta) != graph.num_vertices:
            raise DgraphInputError(
                f"beta gives {len(beta)} values: it needs one for each of the {graph.num_vertices} vertices"
            )
        ids = graph.encode_vertices(list(beta), "beta vertex")
        values = np.asarray(list(beta.values()), dtype=np.float64)
        own: Any = graph.client.submit(_by_placed_id, ids, values, graph.num_vertices)
    else:
        own = number(beta, "beta")
    frame, stats = graph.runner.run_to_frame(
        katz_kernel,
        reverse=graph.directed,
        name="katz_centrality",
        alpha=float(alpha),
        beta=own,
        max_iter=max_iter,
        tol=float(tol),
        normalized=bool(normalized),
        weighted=weight is not None,
    )
    if not stats.info.get("converged"):
        warnings.warn(
            f"katz_centrality did not converge to tol={tol} in {max_iter} steps: lower alpha or raise max_iter",
            ConvergenceWarning,
            stacklevel=2,
        )
    return frame
