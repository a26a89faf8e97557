"""Edge betweenness centrality, by Brandes' algorithm with the dependencies kept per arc.

Method: as betweenness' replicated method (``betweenness_centrality``): every worker gathers the
whole graph's owner blocks once (one allgather), in rank order, so that the gathered CSR's arcs
stand in the owner blocks' order, and runs Brandes from its share of the sources
(``kernels.brandes_paths``: Dijkstra's order on weights, or on unit weights for hop counts),
adding each arc's share of the dependencies to an array over the arcs. On an undirected graph
an edge's score is its two arcs' (networkx counts the paths through it either way), summed on
each worker before the arcs travel. One reduce-scatter then sums the workers' arrays at the
arcs' owners (rank r holds the arcs of its vertices' rows), which name them. Scores are
rescaled as networkx rescales them (``_rescale`` with every edge an endpoint).

Output encoding: columns ``src``, ``dst`` (the edge, in the user's labels; an undirected edge
once, from its end placed first) and ``betweenness`` (float64).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable
from typing import TYPE_CHECKING

import numpy as np

from dgraph import kernels
from dgraph.checks import integer
from dgraph.ghosts import sum_at_owners
from dgraph.weights import GRAPH_WEIGHT, Weight, weighed

from .betweenness_centrality import ROUND_ARCS, non_negative, whole_graph

if TYPE_CHECKING:
    import dask.dataframe as dd

    from dgraph.graph import Graph


def edge_betweenness_kernel(ctx, *, sources, scale, weighted, directed, bounds):
    n = int(bounds[-1])
    with ctx.phase("replicate"):
        indptr, indices, weights = whole_graph(ctx, n, True, weighted)
    weights = weights if weighted else np.ones(indices.size)
    me, workers = ctx.worker
    mine = np.asarray(sources, dtype=np.int64)[me::workers]
    per_round = max(1, ROUND_ARCS // max(indices.size, 1))
    rounds = math.ceil(math.ceil(len(sources) / workers) / per_round)  # the same on every worker
    bc, arcs = np.zeros(n), np.zeros(indices.size)
    for i in range(rounds):
        with ctx.phase("search"):
            kernels.brandes_paths(indptr, indices, weights, mine[i * per_round : (i + 1) * per_round], bc, arcs)
        ctx.allreduce({r: np.zeros(1) for r in ctx.ranks})  # a superstep per round: progress shows
    tails = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    heads = indices.astype(np.int64)
    if not directed:  # an edge's score is its two arcs'
        arcs = arcs + arcs[_reverse_arcs(tails, heads, n)]
    ctx.stats.info.update(sources=len(sources), method="replicated", edges_examined=mine.size * indices.size)
    scores = sum_at_owners(ctx, arcs, indptr[np.asarray(bounds, np.int64)], dense=True)
    out = {}
    for r in ctx.ranks:
        lo, hi = indptr[bounds[r]], indptr[bounds[r + 1]]
        keep = slice(None) if directed else heads[lo:hi] >= tails[lo:hi]  # an edge once, from its first end
        out[r] = {
            "src": tails[lo:hi][keep],
            "dst": heads[lo:hi][keep],
            "betweenness": scores[r][keep] * scale,
        }
    return out


def _reverse_arcs(tails, heads, n):
    """For every arc (u, v) of a symmetric arc list, the position of (v, u)."""
    keys = tails * n + heads
    order = np.argsort(keys, kind="stable")
    return order[np.searchsorted(keys[order], heads * n + tails)]


def _scale(n, normalized, directed, k):
    """networkx's factor for edge scores (``_rescale`` with endpoints): by the ordered pairs when
    ``normalized``, halved for undirected graphs otherwise; from ``k`` sources, times n / k."""
    if n < 2:
        return 1.0
    sources = n if k is None else k
    if normalized:
        return 1 / (sources * (n - 1))
    return n / (sources * (1 if directed else 2))


def edge_betweenness_centrality(
    graph: Graph,
    *,
    sources: Iterable[Hashable] | None = None,
    k: int | None = None,
    normalized: bool = True,
    seed: int | None = None,
    weight: Weight = GRAPH_WEIGHT,
) -> dd.DataFrame:
    """Betweenness centrality of every edge: the share of shortest paths between ordered pairs
    of vertices that run along it, as ``networkx.edge_betweenness_centrality``.

    Parameters
    ----------
    graph : dgraph.Graph
    sources : list of labels, optional
        Accumulate from these sources only, rescaled by n / (their number), as networkx
        rescales a sample.
    k : int, optional
        Accumulate from ``k`` sources sampled uniformly (with ``seed``); ignored with ``sources``.
    normalized : bool
        Divide by n(n - 1), the ordered pairs, as networkx does; otherwise undirected scores
        are halved (each pair counted once).
    seed : int, optional
    weight : str or None, optional
        Left out: the graph's weight, if it was built with one; ``None``: hop counts (unit
        weights); a name: any numeric edge attribute. Paths of exactly equal length count
        alike. Weights must be non-negative.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``src``, ``dst`` and ``betweenness``: every arc of a directed graph, every edge
        of an undirected one once (from its end placed first; either way round).

    Notes
    -----
    Every worker holds a copy of the graph plus a float per arc (about 48 bytes per arc) and
    does O(m log n) work per source of its share; pass ``k`` on a big graph.

    References
    ----------
    U. Brandes, "On variants of shortest-path betweenness centrality and their generic
    computation", Social Networks 30(2), 2008.

    Examples
    --------
    >>> import pandas as pd, dgraph
    >>> g = dgraph.from_edgelist(pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3]}), directed=False)
    >>> found = dgraph.algorithms.edge_betweenness_centrality(g).compute().sort_values("src")
    >>> found.betweenness.round(4).tolist()
    [0.5, 0.6667, 0.5]
    """
    graph, weight = weighed(graph, weight, "edge_betweenness_centrality")
    if weight is not None:
        non_negative(graph, weight, "edge_betweenness_centrality")
    n = graph.num_vertices
    sampled = None
    if sources is not None:
        placed = graph.encode_vertices(list(sources), "edge betweenness source")
        sampled = len(placed)
    elif k is not None:
        k = integer(k, "k", minimum=1, maximum=max(n, 1))
        canonical = np.sort(np.random.default_rng(seed).choice(n, size=int(k), replace=False))
        placed = graph.placed_ids(canonical)  # the same vertices whatever the layout
        sampled = int(k)
    else:
        placed = graph.placed_ids(np.arange(n))
    return graph.run_to_rows(
        edge_betweenness_kernel,
        label_columns=("src", "dst"),
        name="edge_betweenness",
        sources=[int(s) for s in placed],
        scale=_scale(n, normalized, graph.directed, sampled),
        weighted=weight is not None,
        directed=graph.directed,
    )
