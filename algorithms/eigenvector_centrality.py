"""Eigenvector centrality by power iteration, as networkx computes it.

Method: networkx's iteration on ``A + I`` (the identity keeps it from oscillating on bipartite
graphs): from the uniform vector, each step adds to every vertex the values of its
in-neighbours (weighted by the arcs' weights), then scales the vector to unit length (L2); it
stops when a step changes the vector by less than ``n * tol`` in L1. A step is two supersteps:
the product (``adjacency_products``, carrying the last step's change) and the norm.

Output encoding: ``eigenvector_centrality`` (float64, unit L2 norm).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np

from dgraph.checks import integer, number
from dgraph.errors import ConvergenceWarning
from dgraph.weights import GRAPH_WEIGHT, Weight, chosen_weight

from .adjacency_products import Products, iterate_in, own_sizes, unit_length

if TYPE_CHECKING:
    import dask.dataframe as dd

    from dgraph.graph import Graph


def eigenvector_kernel(ctx, *, max_iter, tol, weighted, bounds):
    n = int(bounds[-1])
    products = Products(ctx, bounds, weighted)
    x = {r: np.full(size, 1.0 / max(n, 1)) for r, size in own_sizes(bounds, ctx.ranks).items()}
    x, steps, converged = iterate_in(
        ctx,
        products,
        x,
        lambda y, x: unit_length(ctx, {r: y[r] + x[r] for r in ctx.ranks}),
        n=n,
        tol=tol,
        max_iter=max_iter,
    )
    ctx.stats.info.update(iterations=steps, converged=converged)
    return {r: {"eigenvector_centrality": x[r]} for r in ctx.ranks}


def eigenvector_centrality(
    graph: Graph, *, max_iter: int = 100, tol: float = 1.0e-6, weight: Weight = GRAPH_WEIGHT
) -> dd.DataFrame:
    """Eigenvector centrality: each vertex's share of the leading eigenvector of the adjacency
    matrix (by in-arcs: a vertex is central when central vertices point to it).

    Parameters
    ----------
    graph : dgraph.Graph
    max_iter : int
        The most power-iteration steps.
    tol : float
        Stop when a step changes the vector by less than ``num_vertices * tol`` in L1.
    weight : str or None, optional
        Left out: the graph's weight, if it was built with one. ``None``: every arc counts 1.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``vertex`` and ``eigenvector_centrality`` (unit L2 norm).

    A ``ConvergenceWarning`` when ``max_iter`` steps did not converge (networkx raises
    PowerIterationFailedConvergence; ``graph.last_stats.info["converged"]`` says which).

    Notes
    -----
    Two supersteps a step: the product moves a float64 per (vertex, rank) pair where the rank
    holds an arc from the vertex; the norm is an all-reduce of one number.

    Examples
    --------
    >>> import dgraph
    >>> g = dgraph.datasets.load("karate")
    >>> ec = dgraph.algorithms.eigenvector_centrality(g).compute()
    >>> int(ec.sort_values("eigenvector_centrality").vertex.iloc[-1])
    34
    """
    max_iter = integer(max_iter, "max_iter", minimum=0)
    tol = number(tol, "tol", low=0)
    weight = chosen_weight(graph, weight, "eigenvector_centrality")
    frame, stats = graph.runner.run_to_frame(
        eigenvector_kernel,
        reverse=graph.directed,
        name="eigenvector_centrality",
        max_iter=max_iter,
        tol=float(tol),
        weighted=weight is not None,
    )
    if not stats.info.get("converged"):
        warnings.warn(
            f"eigenvector_centrality did not converge to tol={tol} in {max_iter} steps: raise max_iter or tol",
            ConvergenceWarning,
            stacklevel=2,
        )
    return frame
