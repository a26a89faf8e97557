"""Triangles and the local clustering coefficient.

For every vertex v let N(v) be its distinct neighbours other than itself (in- and
out-neighbours together in a directed graph) and d = |N(v)|. Both quantities come from one
count: the arcs (u, w), u != w, joining two members of N(v).

* ``local_clustering_coefficient``: that count / (d (d - 1)), 0 when d < 2. On an undirected
  graph this is networkx's clustering; on a directed one it is LDBC Graphalytics' LCC (not
  networkx's directed formula).
* ``triangle_count`` (undirected graphs): that count / 2, the triangles through v.

Method: each rank builds N(v) for its vertices, fetches once the out-rows of the vertices of
those sets that other ranks own (two supersteps), and counts with a marker array. Work is
sum over v of the degrees of its neighbours; communication is the rows fetched, which on a
skewed graph split in few ranks approaches the whole graph.
"""

from __future__ import annotations

import numpy as np

from dgraph import kernels
from dgraph.edgemap import fetch_rows
from dgraph.errors import DgraphInputError


def neighbourhood_kernel(ctx, bounds, key):
    n = int(bounds[-1])
    sets, wanted = {}, {}
    for r in ctx.ranks:
        blocks = ctx.blocks[r]
        lo, hi = blocks[0].lo, blocks[0].hi
        sets[r] = kernels.neighbour_sets(blocks[0], blocks[1] if len(blocks) > 1 else None, lo)
        members = np.zeros(n, dtype=bool)
        members[sets[r][1]] = True
        members[lo:hi] = False
        wanted[r] = np.flatnonzero(members)
    ghosts = fetch_rows(ctx, {r: ctx.blocks[r][0] for r in ctx.ranks}, wanted, bounds)
    mark = np.zeros(n, dtype=np.bool_)
    out = {}
    for r in ctx.ranks:
        ptr, idx = sets[r]
        own = ctx.blocks[r][0]
        arcs = kernels.neighbourhood_arcs(ptr, idx, own.lo, own, ghosts[r], mark)
        out[r] = {"arcs": arcs, "degree": np.diff(ptr)}
    return out


def _run(graph):
    results, _ = graph.run(neighbourhood_kernel, reverse=graph.directed, name="neighbourhoods")
    return results


def _lcc(res):
    d = res["degree"].astype(np.float64)
    lcc = np.divide(res["arcs"], d * (d - 1), out=np.zeros_like(d), where=d >= 2)
    return {"lcc": lcc}


def _triangles(res):
    return {"triangles": res["arcs"] // 2}


def local_clustering_coefficient(graph):
    """Local clustering coefficient of every vertex.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``vertex`` and ``lcc`` (float64). Undirected: networkx's ``clustering``;
        directed: LDBC Graphalytics LCC (arcs among the in- and out-neighbours / d (d - 1)).

    Examples
    --------
    >>> import pandas as pd, dgraph
    >>> e = pd.DataFrame({"src": [0, 0, 1, 2], "dst": [1, 2, 2, 3]})
    >>> g = dgraph.from_edgelist(e, directed=False)
    >>> dgraph.algorithms.local_clustering_coefficient(g).compute().lcc.round(3).tolist()
    [1.0, 1.0, 0.333, 0.0]
    """
    parts = [graph.client.submit(_lcc, f, pure=False) for f in _run(graph)]
    return graph.to_frame(parts)


def triangle_count(graph):
    """Triangles through every vertex of an undirected graph.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``vertex`` and ``triangles``; the graph's total is ``triangles.sum() // 3``
        (or ``total_triangles``).

    Examples
    --------
    >>> import pandas as pd, dgraph
    >>> e = pd.DataFrame({"src": [0, 0, 1, 2], "dst": [1, 2, 2, 3]})
    >>> g = dgraph.from_edgelist(e, directed=False)
    >>> dgraph.algorithms.triangle_count(g).compute().triangles.tolist()
    [1, 1, 1, 0]
    """
    if graph.directed:
        raise DgraphInputError(
            "triangle_count needs an undirected graph; build it with directed=False (or use "
            "local_clustering_coefficient, which handles directed graphs)"
        )
    parts = [graph.client.submit(_triangles, f, pure=False) for f in _run(graph)]
    return graph.to_frame(parts)


def total_triangles(graph):
    """The number of triangles of an undirected graph (an int)."""
    return int(triangle_count(graph)["triangles"].sum().compute()) // 3
