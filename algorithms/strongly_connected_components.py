"""Strongly connected components of a directed graph.

Method: trimming plus forward-backward colouring (Orzan 2004; Slota, Rajamanickam, Madduri,
"BFS and coloring-based parallel algorithms for strongly connected components", IPDPS 2014),
all on DistEdgeMap. Each iteration first removes the vertices with no remaining in- or out-arc
(each is a component of its own), then propagates the smallest vertex id forward (edge_map, min
merge) until nothing changes; the vertex whose id is its colour is the root of its colour class,
and a backward search from every root along in-arcs, restricted to its colour (max merge: every
offer a vertex gets is at most its colour), collects exactly the root's component, of which the
root is the smallest member. Components found are removed and the rest is coloured again.

Output encoding: ``component`` is the label of the component's first member in the graph's
vertex order (the smallest label; hubs first on a graph built with ``vertex_order="degree"``),
the rule ``connected_components`` follows too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from dgraph.block import own_canonical
from dgraph.edgemap import EdgeMap
from dgraph.errors import DgraphInputError
from dgraph.ghosts import placed_ids

if TYPE_CHECKING:
    import dask.dataframe as dd

    from dgraph.graph import Graph


def _propagate(ctx, edge_map, merge, frontier, value, accept):
    """Push ``value`` from the frontier until no owner accepts anything new; ``accept(r, ids,
    merged)`` updates rank r and returns the local ids that changed."""
    while True:
        merged, size = edge_map(
            frontier,
            {r: value[r][frontier[r]] for r in ctx.ranks},
            None,
            merge,
            total={r: [frontier[r].size] for r in ctx.ranks},
        )
        if size[0] == 0:
            return
        frontier = {r: accept(r, *merged[r][:2]) for r in ctx.ranks}


def scc_kernel(ctx, *, bounds, layout):
    forward = EdgeMap(ctx, bounds, block=0, layout=layout)
    backward = EdgeMap(ctx, bounds, block=1, layout=layout)
    n = int(bounds[-1])
    own = {r: own_canonical(ctx.blocks[r][0], int(bounds[r]), int(bounds[r + 1])) for r in ctx.ranks}
    active = {r: np.ones(own[r].size, dtype=bool) for r in ctx.ranks}
    comp = {r: np.full(own[r].size, -1, np.int64) for r in ctx.ranks}
    iterations = 0
    while True:
        # trim: an active vertex without an active in-arc or out-arc is a component by itself
        alive = {r: np.flatnonzero(active[r]) for r in ctx.ranks}
        linked = {}
        for edge_map in (forward, backward):
            merged, _ = edge_map(alive, {r: np.ones(alive[r].size) for r in ctx.ranks}, None, "sum")
            for r in ctx.ranks:
                reached = np.zeros(own[r].size, dtype=bool)
                reached[merged[r][0]] = True
                linked[r] = reached if edge_map is forward else linked[r] & reached
        for r in ctx.ranks:
            alone = active[r] & ~linked[r]
            comp[r][alone] = own[r][alone]
            active[r] &= linked[r]
        if int(ctx.allreduce({r: [int(active[r].sum())] for r in ctx.ranks})[0]) == 0:
            break
        iterations += 1
        # colour: the smallest id that reaches a vertex
        color = {r: np.where(active[r], own[r], n) for r in ctx.ranks}

        def brighter(r, ids, c):
            up = active[r][ids] & (c < color[r][ids])
            color[r][ids[up]] = c[up]
            return ids[up]

        _propagate(ctx, forward, "min", {r: np.flatnonzero(active[r]) for r in ctx.ranks}, color, brighter)
        # collect: from each root, backwards within its colour
        found = {r: active[r] & (color[r] == own[r]) for r in ctx.ranks}

        def same_colour(r, ids, c):
            hit = active[r][ids] & ~found[r][ids] & (c == color[r][ids])
            found[r][ids[hit]] = True
            return ids[hit]

        _propagate(ctx, backward, "max", {r: np.flatnonzero(found[r]) for r in ctx.ranks}, color, same_colour)
        for r in ctx.ranks:
            comp[r][found[r]] = color[r][found[r]]
            active[r] &= ~found[r]
    ctx.stats.info.update(iterations=iterations, edges_examined=forward.edges_examined + backward.edges_examined)
    return {r: {"component": p} for r, p in placed_ids(ctx, comp, bounds).items()}


def strongly_connected_components(graph: Graph) -> dd.DataFrame:
    """Strongly connected components of a directed graph.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``vertex`` and ``component`` (the label of the component's first member in the
        graph's vertex order, as in ``connected_components``).

    Examples
    --------
    >>> import pandas as pd, dgraph
    >>> e = pd.DataFrame({"src": [1, 2, 3, 3, 4], "dst": [2, 3, 1, 4, 5]})
    >>> g = dgraph.from_edgelist(e)
    >>> dgraph.algorithms.strongly_connected_components(g).compute().component.tolist()
    [1, 1, 1, 4, 5]
    """
    if not graph.directed:
        raise DgraphInputError(
            "strongly_connected_components needs a directed graph; for undirected graphs use connected_components"
        )
    return graph.run_to_frame(scc_kernel, label_columns=("component",), reverse=True, name="scc", placement="layout")
