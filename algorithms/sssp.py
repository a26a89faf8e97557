"""Single-source shortest paths over non-negative weights.

Method: delta-stepping (Meyer and Sanders, 2003) on DistEdgeMap, with or without rank-local
relaxation (``dgraph.relax``). Vertices whose distance improved wait in a pending set; a round
relaxes the out-arcs of every pending vertex below the current threshold (edge_map with ``f =
dist[u] + w`` and a min merge that keeps the winning tail), and when no vertex is below it the
threshold moves to the bucket of the closest pending vertex. Whether anything was relaxed, the
closest pending distance and the least offer ride in the relaxation's own superstep: a round
whose offers all lie past the threshold ends its bucket at once, without an empty round to
find that out (Kronecker 20 on 2 ranks: 68 supersteps instead of 99, with the heavy arcs'
direction below, whose sums ride in the same round). Within a bucket rounds push
only the light arcs (lighter than delta); each vertex's heavy arcs go once, from its final
distance, when its bucket is done (Meyer and Sanders' split: on Kronecker graphs this expands
1.3x the arcs instead of 4x). On an undirected graph in 1D a bucket's heavy arcs are instead
pulled, where that is cheaper, by the vertices not yet final along their own rows
(Chakaravarthy et al., IPDPS 2014): the first buckets hold the hubs, whose heavy arcs are most
of the graph's, so Kronecker 20 on 2 ranks scans 14 M arcs in all instead of 37 M. Each rank
drops an offer to a head when it offered that head no more before (the edge map's ``falling``
pushes): it cannot lower the distance, so it neither merges nor travels (Kronecker scale 20 on
2 ranks: half the bytes). With delta >= the largest weight this is Bellman-Ford by rounds; with
small delta it approaches Dijkstra; the default (``light_share``: a quarter to one mean weight,
narrower on ranks with more arcs) weighs arcs saved against rounds. With local relaxation each
rank first runs a Dijkstra over the arcs it owns both ends of, with wide buckets (256 mean
weights): rounds then count partition crossings (42 on Luxembourg's roads, 2 ranks, against
1,553).

Output encoding: ``distance`` (Float64, null when unreachable) and ``predecessor`` (the tail of
the last arc of a shortest path, in the user's labels; null for the source and unreachable
vertices; ties broken towards the smallest canonical id: the first in the graph's vertex order).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING

import numpy as np

from dgraph import kernels
from dgraph.block import block_arcs
from dgraph.checks import number
from dgraph.edgemap import EdgeMap
from dgraph.errors import DgraphInputError
from dgraph.relax import BUCKET_ARCS, LOCAL_SHARE, local_share, shortest_path_tree, shortest_paths, ties_are_safe
from dgraph.weights import GRAPH_WEIGHT, Weight, weighed

if TYPE_CHECKING:
    import dask.dataframe as dd

    from dgraph.graph import Graph

METHODS = ("auto", "delta-stepping", "relax")


def sssp_kernel(ctx, *, source, delta, weight_facts, arcs, method, ties, weighted, symmetric, share, bounds, layout):
    """``weight_facts``: the graph's mean and largest weight, and its least where vertices have
    many arcs (else None: ``kernels.bucket_queue``)."""
    mean_weight, largest_weight, lightest_weight = weight_facts
    em = EdgeMap(ctx, bounds, layout=layout)
    if method == "auto":
        method = "relax" if ctx.nranks == 1 or local_share(ctx, em, share) >= LOCAL_SHARE else "delta-stepping"
    relax = method == "relax"
    if delta is None:
        delta = mean_weight * (BUCKET_ARCS if relax else light_share(arcs / ctx.nranks))
    dist = {r: np.full(em.size(r), np.inf) for r in ctx.ranks}
    pred = {r: np.full(em.size(r), -1, np.int64) for r in ctx.ranks}
    pending = {r: np.zeros(em.size(r), dtype=bool) for r in ctx.ranks}
    ctx.hold("sssp dist, pred, pending", dist, pred, pending)
    for r in ctx.ranks:
        if em.lo(r) <= source < em.lo(r) + em.size(r):
            dist[r][source - em.lo(r)], pending[r][source - em.lo(r)] = 0.0, True
    # predecessors by the edge map's tie rule whatever order rounds found them in, so the same on
    # every layout and method: kept up as equal offers arrive where no arc leaves a distance
    # unchanged, else chosen by one pass at the end
    rounds, scanned = shortest_paths(
        ctx,
        em,
        dist,
        pred,
        pending,
        delta,
        weighted=True,
        local=relax,
        ties=ties,
        split=weighted,
        pull=symmetric and em.local_rows,
        mean_largest=(mean_weight, largest_weight),
        lightest=lightest_weight,
    )  # unit weights are all of one kind; pulls read a vertex's arcs in its own row
    if not ties:
        shortest_path_tree(ctx, em, dist, pred, source)
    ctx.stats.info.update(
        method=method, rounds=rounds, local_arcs_examined=scanned, edges_examined=em.edges_examined + scanned
    )
    return {r: {"distance": dist[r], "predecessor": em.placed(pred[r])} for r in ctx.ranks}


def light_share(arcs_per_rank):
    """Delta-stepping's default bucket, in mean weights: one on ranks of up to 2**20 arcs, less on
    bigger ones, down to a quarter from 2**22. A narrower bucket expands fewer vertices before
    their distance is final but takes more rounds, and a round costs about what a million arcs
    do (2 ranks, Kronecker 20: 80 rounds at a quarter, 50 at a half, 36 rounds over 3.5x the
    arcs at one, the quarter the quickest; on Slashdot a half is)."""
    return float(np.clip(2.0**20 / max(arcs_per_rank, 1), 0.25, 1.0))


def _hops(graph, source):
    """``sssp``'s frame for unit arc costs on a graph whose blocks hold weights: BFS levels,
    whose predecessors follow the same tie rule, as float distances."""
    from .bfs import bfs

    found = bfs(graph, source)
    return found.assign(distance=found["distance"].astype("Float64"))


def _weight_facts(block):
    w = block_arcs(block)[2]
    return (
        float(w.min()) if w is not None and w.size else np.inf,
        float(w.sum()) if w is not None else 0.0,
        block.narcs,
        float(w.max()) if w is not None and w.size else 0.0,
    )


def sssp(
    graph: Graph,
    source: Hashable,
    *,
    weight: Weight = GRAPH_WEIGHT,
    delta: float | None = None,
    method: str = "auto",
) -> dd.DataFrame:
    """Shortest-path distances and predecessors from ``source``.

    Parameters
    ----------
    graph : dgraph.Graph
    source : label
    weight : str or None, optional
        Left out: the graph's weight, if it was built with one (as networkx's Dijkstra uses
        ``"weight"``). ``None``: every arc costs 1. A name: any numeric edge attribute
        (``g.edge_attrs``), for this call.
        Weights must be non-negative (0 is allowed).
    delta : float, optional
        Bucket width: a round expands only vertices below the current bucket's end (default:
        ``light_share`` mean arc weights for delta-stepping, 256 for relaxation).
    method : {"auto", "delta-stepping", "relax"}
        ``"delta-stepping"``: every round relaxes the arcs of the pending vertices below the
        threshold, one superstep each. ``"relax"``: each rank first runs a Dijkstra over the
        arcs whose two ends it owns, then exchanges what crosses (``dgraph.relax``; supersteps
        follow partition crossings, not hops, so road networks and grids need a few dozen).
        ``"auto"``: relax where ranks own both ends of at least three quarters of the arcs (1D
        layouts of graphs numbered with locality), delta-stepping otherwise. All give the same
        distances and predecessors.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``vertex``, ``distance`` (Float64, null when unreachable) and ``predecessor``.

    Notes
    -----
    One superstep per round; a round moves 24 bytes per distinct improved head per rank pair.
    ``graph.last_stats.info`` reports rounds and edges examined.

    References
    ----------
    U. Meyer, P. Sanders, "Delta-stepping: a parallelizable shortest path algorithm", J.
    Algorithms 49(1), 2003.
    V. T. Chakaravarthy, F. Checconi, F. Petrini, Y. Sabharwal, "Scalable single source shortest
    path algorithms for massively parallel systems", IPDPS 2014.

    Examples
    --------
    >>> import pandas as pd, dgraph
    >>> e = pd.DataFrame({"src": [0, 0, 1], "dst": [1, 2, 2], "w": [1.0, 5.0, 1.5]})
    >>> g = dgraph.from_edgelist(e, weight="w")
    >>> dgraph.algorithms.sssp(g, 0).compute().distance.tolist()
    [0.0, 1.0, 2.5]
    >>> dgraph.algorithms.sssp(g, 0, weight=None).compute().distance.tolist()
    [0.0, 1.0, 1.0]
    """
    graph, weight = weighed(graph, weight, "sssp")
    if weight is None and graph.weight is not None:  # unit costs on a weighted graph: hops
        return _hops(graph, source)
    facts = graph.block_facts(_weight_facts)
    lowest = min(f[0] for f in facts)
    if lowest < 0 or np.isnan(lowest):
        raise DgraphInputError(f"sssp needs non-negative weights; column {weight!r} holds {lowest}")
    arcs = sum(f[2] for f in facts)
    total = sum(f[1] for f in facts) if weight else float(arcs)
    mean_weight = total / arcs if arcs else 1.0
    largest_weight = max(f[3] for f in facts) if weight else 1.0
    ties = ties_are_safe(lowest if weight else 1.0, total)
    if delta is not None:
        delta = number(delta, "delta", low=0, low_open=True)
    if method not in METHODS:
        raise DgraphInputError(f"method must be one of {METHODS}, got {method!r}")
    src = graph.vertex_param(source, "SSSP source")
    return graph.run_to_frame(
        sssp_kernel,
        label_columns=("predecessor",),
        nullable=("distance", "predecessor"),
        name="sssp",
        placement="layout",
        source=src,
        delta=None if delta is None else float(delta),
        weight_facts=(mean_weight, largest_weight, lowest if weight and graph.max_degree > kernels.HUB_ARCS else None),
        arcs=arcs,
        method=method,
        ties=ties,
        weighted=weight is not None,
        symmetric=not graph.directed,
        share=graph.local_share,
    )
