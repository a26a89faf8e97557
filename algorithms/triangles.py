"""Triangles and the local clustering coefficient.

For every vertex v let N(v) be its distinct neighbours other than itself (in- and
out-neighbours together in a directed graph) and d = |N(v)|. Both quantities come from one
count: the arcs (u, w), u != w, joining two members of N(v).

* ``local_clustering_coefficient``: that count / (d (d - 1)), 0 when d < 2. On an undirected
  graph this is networkx's clustering; on a directed one it is LDBC Graphalytics' LCC (not
  networkx's directed formula).
* ``triangle_count`` (undirected graphs): that count / 2, the triangles through v.

Method, undirected graphs with a vertex of degree above ``ORIENT_ABOVE``: every edge is
oriented from its end of lower (degree, id) to the higher one, so each triangle v -> u -> w
(with v -> w) is found once, at v, and counted at all three vertices. Each rank orients its
vertices' rows (the degrees come in one allgather), fetches the oriented rows of the heads
other ranks own (two supersteps), counts with a marker array into an n-long tally and sends
the tallies to the owners (one superstep). Work is the sum over oriented arcs v -> u of u's
out-degree, at most sqrt(2m) each: a hub's long row is never scanned once per neighbour.

Otherwise (directed graphs; graphs without hubs, like roads and meshes): each rank builds N(v)
for its vertices, fetches once the out-rows of the vertices of those sets that other ranks own
(two supersteps), and counts the arcs among N(v) with a marker array. Work is the sum over v
of the degrees of its neighbours. Either way the rows fetched, on a skewed graph split in few
ranks, approach the whole graph.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from dgraph import kernels
from dgraph.block import placed
from dgraph.errors import DgraphInputError
from dgraph.ghosts import fetch_rows, sum_at_owners

ORIENT_ABOVE = 64  # largest degree at which the plain neighbourhood count is still used (undirected)


def neighbourhood_kernel(ctx, bounds, key):
    n = int(bounds[-1])
    sets, wanted = {}, {}
    # this count keeps arrays over the whole graph (marks, members): the blocks in placed ids
    views = {r: [placed(b) for b in ctx.blocks[r]] for r in ctx.ranks}
    for r in ctx.ranks:
        blocks = views[r]
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
        own = views[r][0]
        arcs = kernels.neighbourhood_arcs(ptr, idx, own.lo, own, ghosts[r], mark)
        out[r] = {"arcs": arcs, "degree": np.diff(ptr)}
    return out


def oriented_kernel(ctx, bounds, key):
    n = int(bounds[-1])
    with ctx.phase("orient"):
        sets = {r: kernels.neighbour_sets(placed(ctx.blocks[r][0]), None, ctx.blocks[r][0].lo) for r in ctx.ranks}
        degree = np.concatenate(
            [d[0] for d in ctx.allgather({r: [np.diff(sets[r][0]).astype(np.int32)] for r in ctx.ranks})]
        )
        up, wanted = {}, {}
        for r in ctx.ranks:
            lo, hi = int(bounds[r]), int(bounds[r + 1])
            ptr, heads = kernels.orient_rows(*sets[r], degree, lo)
            up[r] = SimpleNamespace(lo=lo, indptr=ptr, indices=heads)  # what fetch_rows reads of a block
            wanted[r] = np.unique(heads[(heads < lo) | (heads >= hi)])
    with ctx.phase("fetch"):
        ghosts = fetch_rows(ctx, up, wanted, bounds)
    with ctx.phase("count"):
        mark = np.zeros(n, dtype=np.bool_)
        tri = np.zeros(n, dtype=np.int64)  # the worker's tally: triangles it found, at all their vertices
        for r in ctx.ranks:
            kernels.oriented_triangles(up[r].indptr, up[r].indices, up[r].lo, ghosts[r], mark, tri)
    with ctx.phase("reduce"):
        found = sum_at_owners(ctx, tri, bounds)
    return {r: {"arcs": 2 * found[r], "degree": np.diff(sets[r][0])} for r in ctx.ranks}


def _frame(graph, transform):
    # orienting costs two more supersteps and an n-long tally; it pays where hubs would have
    # their long rows scanned once per neighbour (social graphs), not on roads and meshes
    oriented = not graph.directed and graph.max_degree > ORIENT_ABOVE
    kernel = oriented_kernel if oriented else neighbourhood_kernel
    return graph.run_to_frame(kernel, transform=transform, reverse=graph.directed, name="neighbourhoods")


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
    return _frame(graph, _lcc)


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
    return _frame(graph, _triangles)


def total_triangles(graph):
    """The number of triangles of an undirected graph (an int)."""
    return int(graph.client.compute(triangle_count(graph)["triangles"].sum()).result()) // 3
