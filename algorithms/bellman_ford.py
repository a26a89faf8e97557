"""Single-source shortest paths where weights may be negative, and negative cycles found.

Method: synchronous Bellman-Ford on the edge map. Round k offers ``dist[u] + w`` along the
out-arcs of every vertex whose distance fell in round k - 1 (a min merge that keeps the winning
tail, the smallest canonical id on ties); a head takes an offer only when it is strictly
smaller, and then its predecessor is that tail. Without a negative cycle every distance is final
after n - 1 rounds (a shortest path has at most n - 1 arcs), so a vertex whose distance still
falls in round n proves a negative cycle reachable from the source. At that point the
predecessors themselves hold a cycle: a vertex set in round k points to one that fell in round
k - 1 and was last set in round k - 1 or later, so walking back n + 1 steps from a vertex set in
round n meets a repeated vertex before any vertex never set; and every cycle of predecessors
made by strict improvements weighs less than zero (Cherkassky and Goldberg, 1999).

Output encoding: ``distance`` (Float64, null when unreachable) and ``predecessor`` (the tail of
the arc that last lowered the vertex's distance, in the user's labels; null for the source and
unreachable vertices). Rounds are synchronous and offers merge by (distance, tail), so the
predecessors are the same on every layout. Without negative weights they may differ from
``sssp``'s where paths tie: this keeps the first tail to reach a distance, in rounds.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING

import numpy as np

from dgraph import kernels
from dgraph.edgemap import EdgeMap, add_weight
from dgraph.errors import DgraphInputError
from dgraph.weights import GRAPH_WEIGHT, Weight, weighed

from .verify import weighted_search

if TYPE_CHECKING:
    import dask.dataframe as dd

    from dgraph.graph import Graph


def _one_more(src, dst, w, value):
    """``f`` for unit weights on a weighted graph: every arc costs 1."""
    return value + 1.0


def _offered(r, heads, values):
    return [heads.size]


def bellman_ford_kernel(ctx, *, source, unit, bounds, layout):
    """``source``: a placed id, or -1 to start from every vertex at distance 0 (a virtual
    source joined to all: any negative cycle of the graph is then reachable)."""
    em = EdgeMap(ctx, bounds, layout=layout)
    dist = {r: np.full(em.size(r), np.inf) for r in ctx.ranks}
    pred = {r: np.full(em.size(r), -1, np.int64) for r in ctx.ranks}
    frontier = {}
    for r in ctx.ranks:
        if source < 0:
            frontier[r] = np.arange(em.size(r), dtype=np.int64)
        else:
            mine = em.lo(r) <= source < em.lo(r) + em.size(r)
            frontier[r] = np.array([source - em.lo(r)] if mine else [], dtype=np.int64)
        dist[r][frontier[r]] = 0.0
    ctx.hold("bellman-ford dist, pred", dist, pred)
    limit = em.n  # a distance falling in round n proves a negative cycle (see the module docstring)
    rounds, negative = 0, False
    while True:
        if rounds == limit:  # one reduction, only here: did round n still lower a distance?
            negative = bool(ctx.allreduce({r: [frontier[r].size] for r in ctx.ranks})[0])
            break
        values = {r: dist[r][frontier[r]] for r in ctx.ranks}
        # the heads offered ride in the round's own superstep: none anywhere ends the search
        # (a round whose offers lowered nothing is followed by one that offers nothing)
        found, offers = em(frontier, values, _one_more if unit else add_weight, "min", direction="push", total=_offered)
        if not offers[0]:
            break
        rounds += 1
        for r in ctx.ranks:
            ids, offered, tails = found[r]
            better = offered < dist[r][ids]
            ids = ids[better]
            dist[r][ids] = offered[better]
            pred[r][ids] = tails[better]
            frontier[r] = np.sort(ids)
    ctx.stats.info.update(rounds=rounds, negative_cycle=negative, edges_examined=em.edges_examined)
    return {r: {"distance": dist[r], "predecessor": em.placed(pred[r])} for r in ctx.ranks}


def bellman_ford_search(
    graph: Graph, source: Hashable | None, *, weight: Weight = GRAPH_WEIGHT
) -> tuple[dd.DataFrame, bool]:
    """``bellman_ford``'s frame and whether the search found a negative cycle, without raising:
    then the frame's predecessors hold one (see the module docstring). ``source=None`` starts
    from every vertex at distance 0, so any negative cycle of the graph is found."""
    graph, weight = weighed(graph, weight, "bellman_ford")
    src = -1 if source is None else graph.vertex_param(source, "Bellman-Ford source")
    frame, stats = graph.runner.run_to_frame(
        bellman_ford_kernel,
        label_columns=("predecessor",),
        nullable=("distance", "predecessor"),
        name="bellman_ford",
        placement="layout",
        source=src,
        unit=weight is None and graph.weight is not None,
    )
    return frame, bool(stats.info.get("negative_cycle", False))


def bellman_ford(graph: Graph, source: Hashable, *, weight: Weight = GRAPH_WEIGHT) -> dd.DataFrame:
    """Shortest-path distances and predecessors from ``source``, with weights of any sign.

    Parameters
    ----------
    graph : dgraph.Graph
    source : label
    weight : str or None, optional
        Left out: the graph's weight, if it was built with one. ``None``: every arc costs 1. A
        name: any numeric edge attribute (``g.edge_attrs``), for this call. Negative weights are
        allowed (on an undirected graph a negative edge is a negative cycle: u, v, u).

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``vertex``, ``distance`` (Float64, null when unreachable) and ``predecessor``
        (the tail of the arc that last lowered the distance; null for the source and the
        unreachable).

    Raises
    ------
    DgraphInputError
        When a negative cycle is reachable from ``source``: its distances have no least value.

    Notes
    -----
    One superstep per round (plus one that offers nothing), at most n rounds; a round pushes
    along the out-arcs of the vertices whose distance fell in the last one. For non-negative weights ``sssp`` is faster.
    ``graph.last_stats.info`` reports ``rounds``.

    Examples
    --------
    >>> import pandas as pd, dgraph
    >>> e = pd.DataFrame({"src": [0, 0, 1], "dst": [1, 2, 2], "w": [4.0, 3.0, -2.0]})
    >>> g = dgraph.from_edgelist(e, weight="w", directed=True)
    >>> found = dgraph.algorithms.bellman_ford(g, 0).compute()
    >>> found.distance.tolist(), found.predecessor.tolist()
    ([0.0, 4.0, 2.0], [<NA>, 0, 1])
    """
    frame, negative = bellman_ford_search(graph, source, weight=weight)
    if negative:
        raise DgraphInputError(
            f"bellman_ford: a negative cycle is reachable from source {source!r}, so its shortest paths have no "
            "length; check the weights' signs (on an undirected graph every negative edge is such a cycle), or "
            "run from a source that cannot reach it"
        )
    return frame


def check_bellman_ford(snap, frame, *, source, weight=None, **_):
    """The violations of ``bellman_ford``'s guarantees, with weights of any sign: the source at
    0 without a predecessor; no arc leaving a reached vertex reaches an unreached one or could
    lower its head's distance (a negative self-loop included); each other reached vertex's
    predecessor arc exists and gives its distance exactly; predecessors lead to the source."""
    root, reach, parent, w = weighted_search(snap, frame, source, weight)
    if (parent == -2).any():
        return ["a predecessor is not a vertex of the graph"]
    src, dst = snap.src, snap.dst
    reached = np.isfinite(reach)
    errors = []
    if reach[root] != 0 or parent[root] != -1:
        errors.append(f"the source {snap.labels[root]!r} is not at distance 0 without a predecessor")
    live = reached[src]
    if (~reached[dst[live]]).any():
        errors.append("an arc leads from a reached vertex to an unreached one")
    both = live & reached[dst]
    tolerance = 1e-9 * max(1.0, float(np.abs(reach[reached]).max(initial=0.0)))
    if (reach[src[both]] + w[both] < reach[dst[both]] - tolerance).any():
        errors.append("an arc could lower its head's distance (or a negative cycle is reachable)")
    tree = both & (src != dst) & (parent[dst] == src) & (np.abs(reach[src] + w - reach[dst]) <= tolerance)
    found = np.zeros(reach.size, dtype=bool)
    found[dst[tree]] = True
    others = reached & (np.arange(reach.size) != root)
    if not found[others].all():
        bad = np.flatnonzero(others & ~found)[0]
        errors.append(f"vertex {snap.labels[bad]!r}'s predecessor arc is not an arc giving its distance")
    if (parent[~reached] != -1).any():
        errors.append("an unreached vertex has a predecessor")
    if not errors and kernels.tree_astray(parent, reached, root) >= 0:
        errors.append("following predecessors does not always reach the source")
    return errors
