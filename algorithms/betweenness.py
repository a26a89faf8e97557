"""Betweenness centrality (unweighted), by Brandes' algorithm on DistEdgeMap.

Method: for every source, a level-synchronous forward pass counts shortest paths (edge_map
pushes each frontier vertex's path count along its out-arcs, merged by sum; vertices reached
for the first time take the sum), then a backward pass walks the levels from the deepest up,
pushing (1 + delta(w)) / sigma(w) along in-arcs, merged by sum, into the vertices one level
closer (TDO-GP's BC, Appendix D). Path counts are stored scaled by level (divided by the largest
count of the level above, reduced with the frontier's size in the same superstep), so they do
not overflow where they exceed 1e308 (a 1000 x 1000 grid has about 1e600 corner-to-corner
shortest paths). Scores are rescaled exactly as networkx does.

Output encoding: ``betweenness`` (float64).
"""

from __future__ import annotations

import numpy as np

from dgraph.edgemap import EdgeMap
from dgraph.errors import DgraphInputError


def brandes_kernel(ctx, sources, directed, bounds, key, layout):
    forward = EdgeMap(ctx, bounds, key, block=0, layout=layout)
    backward = EdgeMap(ctx, bounds, key, block=1 if directed else 0, layout=layout)
    nl = {r: forward.size(r) for r in ctx.ranks}
    lo = {r: forward.lo(r) for r in ctx.ranks}
    bc = {r: np.zeros(nl[r]) for r in ctx.ranks}
    for s in sources:
        level = {r: np.full(nl[r], -1, np.int64) for r in ctx.ranks}
        sigma = {r: np.zeros(nl[r]) for r in ctx.ranks}
        frontier = {r: np.empty(0, np.int64) for r in ctx.ranks}
        for r in ctx.ranks:
            if lo[r] <= s < lo[r] + nl[r]:
                level[r][s - lo[r]], sigma[r][s - lo[r]] = 0, 1.0
                frontier[r] = np.array([s - lo[r]])
        # sigma is stored scaled per level (see the module docstring): largest[d] undoes level d's scale
        levels, depth, largest = [frontier], 0, [1.0]
        while True:
            pushed = {r: sigma[r][frontier[r]] for r in ctx.ranks}
            merged, (size, top) = forward(frontier, pushed, _push, "sum", total_op="max",
                                          total={r: [frontier[r].size, pushed[r].max(initial=0.0)] for r in ctx.ranks})
            if size == 0:
                break
            depth += 1
            largest.append(top)  # the pushing level's largest stored count
            frontier = {}
            for r in ctx.ranks:
                ids, paths, _ = merged[r]
                new = level[r][ids] == -1
                ids = ids[new]
                level[r][ids], sigma[r][ids] = depth, paths[new] / top
                frontier[r] = ids
            levels.append(frontier)
        delta = {r: np.zeros(nl[r]) for r in ctx.ranks}
        for d in range(len(levels) - 1, 0, -1):
            at = levels[d]
            merged, _ = backward(at, {r: (1 + delta[r][at[r]]) / sigma[r][at[r]] for r in ctx.ranks}, _push, "sum")
            for r in ctx.ranks:
                ids, share, _ = merged[r]
                up = level[r][ids] == d - 1
                delta[r][ids[up]] += sigma[r][ids[up]] * share[up] / largest[d]
        for r in ctx.ranks:
            if lo[r] <= s < lo[r] + nl[r]:
                delta[r][s - lo[r]] = 0.0
            bc[r] += delta[r]
    ctx.stats.info.update(sources=len(sources), edges_examined=forward.edges_examined + backward.edges_examined)
    return {r: {"betweenness": bc[r]} for r in ctx.ranks}


def _push(u, v, w, x):
    return x


def _scale(n, normalized, directed, sampled):
    """networkx's rescaling of raw Brandes sums."""
    if normalized:
        scale = None if n <= 2 else 1 / ((n - 1) * (n - 2))
    else:
        scale = None if directed else 0.5
    if scale is not None and sampled is not None:
        scale = scale * n / sampled
    return scale


def _rescale(res, scale):
    return {"betweenness": res["betweenness"] * scale} if scale is not None else res


def betweenness_centrality(graph, sources=None, k=None, normalized=True, seed=None):
    """Betweenness centrality of every vertex (shortest paths by hop count).

    Parameters
    ----------
    graph : dgraph.Graph
    sources : list of labels, optional
        Accumulate from these sources only (an estimate, scaled by n / len(sources)).
    k : int, optional
        Accumulate from ``k`` sources sampled uniformly (with ``seed``); ignored with ``sources``.
    normalized : bool
        Divide by (n - 1)(n - 2), as networkx does; otherwise undirected scores are halved.
    seed : int, optional

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``vertex`` and ``betweenness``. With all sources it equals
        ``networkx.betweenness_centrality``.

    Notes
    -----
    Two passes of about diameter supersteps per source; a small graph uses all sources, a big
    one should pass ``k``. Weights are ignored.

    References
    ----------
    U. Brandes, "A faster algorithm for betweenness centrality", J. Math. Sociology 25, 2001.

    Examples
    --------
    >>> import pandas as pd, dgraph
    >>> g = dgraph.from_edgelist(pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3]}), directed=False)
    >>> dgraph.algorithms.betweenness_centrality(g).compute().betweenness.round(4).tolist()
    [0.0, 0.6667, 0.6667, 0.0]
    """
    n = graph.num_vertices
    sampled = None
    if sources is not None:
        ids = graph.encode_vertices(list(sources), "betweenness source")
        sampled = len(ids)
    elif k is not None:
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 0 < k <= n:
            raise DgraphInputError(f"k must be an integer in 1..{n} (the number of vertices), got {k!r}")
        canonical = np.sort(np.random.default_rng(seed).choice(n, size=int(k), replace=False))
        ids = graph.placed_ids(canonical)  # the same vertices whatever the layout
        sampled = int(k)
    else:
        ids = graph.placed_ids(np.arange(n))
    results, _ = graph.run(brandes_kernel, reverse=graph.directed, name="betweenness", placement="layout",
                           sources=[int(s) for s in ids], directed=graph.directed)
    scale = _scale(n, normalized, graph.directed, sampled)
    return graph.to_frame([graph.client.submit(_rescale, f, scale, pure=False) for f in results])
