"""Single-source shortest paths over non-negative weights.

Method: delta-stepping (Meyer and Sanders, 2003) on DistEdgeMap. Vertices whose distance
improved wait in a pending set; a round relaxes the out-arcs of every pending vertex below the
current threshold (edge_map with ``f = dist[u] + w`` and a min merge that keeps the winning
tail), and when no vertex is below it the threshold moves to the bucket of the closest pending
vertex. Whether anything was relaxed and the closest pending distance ride in the relaxation's
own superstep. With delta >= the largest weight this is Bellman-Ford by rounds; with small delta
it approaches Dijkstra; the default (mean weight x 2) keeps road networks work-efficient.

Output encoding: ``distance`` (Float64, null when unreachable) and ``predecessor`` (the tail of
the last arc of a shortest path, in the user's labels; null for the source and unreachable
vertices; ties broken towards the smallest label).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dgraph.block import block_arcs
from dgraph.edgemap import EdgeMap
from dgraph.errors import DgraphInputError


def sssp_kernel(ctx, source, delta, bounds, key, layout):
    edge_map = EdgeMap(ctx, bounds, key, layout=layout)
    st = {}
    for r in ctx.ranks:
        lo, size = edge_map.lo(r), edge_map.size(r)
        st[r] = {"dist": np.full(size, np.inf), "pred": np.full(size, -1, np.int64), "pending": np.zeros(size, dtype=bool)}
        if lo <= source < lo + size:
            st[r]["dist"][source - lo] = 0.0
            st[r]["pending"][source - lo] = True
    threshold, rounds = delta, 0
    while True:
        frontier, values, total = {}, {}, {}
        for r in ctx.ranks:
            s = st[r]
            active = np.flatnonzero(s["pending"] & (s["dist"] < threshold))
            s["pending"][active] = False
            frontier[r], values[r] = active, s["dist"][active]
            waiting = s["dist"][s["pending"]]
            total[r] = np.array([-1.0 if active.size else 0.0, waiting.min() if waiting.size else np.inf])
        merged, (any_active, closest) = edge_map(frontier, values, lambda u, v, w, d: d + w, "min", total, "min")
        rounds += 1
        for r in ctx.ranks:
            s = st[r]
            ids, dist, tails = merged[r]
            better = dist < s["dist"][ids]
            s["dist"][ids[better]] = dist[better]
            s["pred"][ids[better]] = tails[better]
            s["pending"][ids[better]] = True
        if any_active == 0:  # nothing below the threshold anywhere: move to the next bucket
            if not np.isfinite(closest):
                break
            threshold = (np.floor(closest / delta) + 1) * delta
    ctx.stats.info.update(rounds=rounds, edges_examined=edge_map.edges_examined)
    return {r: {"distance": st[r]["dist"], "predecessor": st[r]["pred"]} for r in ctx.ranks}


def _weight_facts(block):
    w = block_arcs(block)[2]
    return (float(w.min()) if w is not None and w.size else 0.0, float(w.sum()) if w is not None else 0.0, block.narcs)


def sssp(graph, source, weight=None, delta=None):
    """Shortest-path distances and predecessors from ``source``.

    Parameters
    ----------
    graph : dgraph.Graph
    source : label
    weight : str, optional
        The graph's weight column; without it (or on an unweighted graph) every arc costs 1.
        Weights must be non-negative (0 is allowed).
    delta : float, optional
        Bucket width of delta-stepping (default: twice the mean arc weight).

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

    Examples
    --------
    >>> import pandas as pd, dgraph
    >>> e = pd.DataFrame({"src": [0, 0, 1], "dst": [1, 2, 2], "w": [1.0, 5.0, 1.5]})
    >>> g = dgraph.from_edgelist(e, weight="w")
    >>> dgraph.algorithms.sssp(g, 0, weight="w").compute().distance.tolist()
    [0.0, 1.0, 2.5]
    """
    if weight is not None and weight != graph.weight:
        raise DgraphInputError(
            f"weight={weight!r} but the graph was built with weight={graph.weight!r}; rebuild it with "
            f"from_edgelist(..., weight={weight!r}) or call sssp without weight for unit weights"
        )
    if weight is None and graph.weight is not None:
        raise DgraphInputError(
            f"the graph has weights {graph.weight!r}: pass weight={graph.weight!r} to use them "
            "(or build it without weight= for unit-cost shortest paths)"
        )
    facts = graph.client.gather([graph.client.submit(_weight_facts, b, pure=False) for b in graph._blocks])
    lowest = min(f[0] for f in facts)
    if lowest < 0 or np.isnan(lowest):
        raise DgraphInputError(f"sssp needs non-negative weights; column {weight!r} holds {lowest}")
    if delta is None:
        arcs = sum(f[2] for f in facts)
        delta = 2.0 * (sum(f[1] for f in facts) / arcs if weight and arcs else 1.0)
    if not (isinstance(delta, (int, float)) and delta > 0):
        raise DgraphInputError(f"delta must be a positive number, got {delta!r}")
    src = int(graph.encode_vertices([source], "SSSP source")[0])
    results, _ = graph.run(sssp_kernel, name="sssp", placement="layout", source=src, delta=float(delta))
    frame = graph.to_frame(results, label_columns=("predecessor",), nullable=("predecessor",))
    return frame.map_partitions(_nullable_distance, meta=frame._meta.assign(distance=pd.Series([], dtype="Float64")))


def _nullable_distance(part):
    return part.assign(distance=part["distance"].astype("Float64").mask(~np.isfinite(part["distance"])))
