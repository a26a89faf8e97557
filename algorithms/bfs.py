"""Breadth-first search: hop distance and a BFS-tree predecessor for every vertex.

Method: level-synchronous, direction-optimizing BFS (Beamer, Asanovic, Patterson, SC 2012) on
the 1D layout, following TDO-GP's DistEdgeMap (Algorithm 2: a vertex takes the round number the
first time an edge from the frontier reaches it). Top-down levels send one (vertex, parent)
offer per distinct neighbour to the owner, pre-merged at the sender; bottom-up levels share the
frontier as a bitmap (or id list, whichever is smaller) and let every unvisited vertex look for
a parent among its in-neighbours, stopping at the first. Switching follows Beamer's rule
(top-down -> bottom-up when the frontier's out-edges exceed 1/alpha of the unexplored edges,
back when the frontier falls below n/beta vertices).

Output encoding: ``distance`` (Int64, hops from the source, null when unreachable) and
``predecessor`` (the parent in the BFS tree in the user's labels, null for the source and for
unreachable vertices). The parent chosen is the in-neighbour on the previous level with the
smallest canonical id, whichever direction a level ran in, so results are identical on every
layout and rank count.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dgraph import kernels
from dgraph.block import split_by_owner
from dgraph.errors import DgraphInputError

ALPHA, BETA = 15, 18


def _stats(s):
    """Size and out-degree sum of a rank's frontier."""
    return np.array([s["frontier"].size, int(s["deg"][s["frontier"]].sum())], dtype=np.int64)


def _share_frontier(ctx, state, front, bounds):
    """Allgather every rank's frontier (ids or packed bits) and its stats; refill ``front``."""
    pieces = {}
    for r in ctx.ranks:
        s = state[r]
        f = s["frontier"]
        stats = _stats(s)
        if f.size * 64 < s["nl"]:
            pieces[r] = [np.array([0], np.int64), stats, f + s["lo"]]
        else:
            mask = np.zeros(s["nl"], dtype=bool)
            mask[f] = True
            pieces[r] = [np.array([1], np.int64), stats, np.packbits(mask)]
    got = ctx.allgather(pieces)
    front[:] = False
    nf = mf = 0
    for d, (kind, stats, data) in enumerate(got):
        nf += int(stats[0])
        mf += int(stats[1])
        if kind[0] == 0:
            front[data] = True
        else:
            lo, hi = bounds[d], bounds[d + 1]
            front[lo:hi] = np.unpackbits(data, count=hi - lo).view(bool)
    return nf, mf


def _sorted(frontier, lo, key):
    if key.size == 0:
        return np.sort(frontier)
    return frontier[np.argsort(key[frontier + lo], kind="stable")]


def bfs_kernel(ctx, source, depth_limit, bounds, key):
    key = np.empty(0, np.int64) if key is None else key
    n, P = int(bounds[-1]), ctx.nranks
    state = {}
    for r in ctx.ranks:
        out, inn = ctx.blocks[r]
        lo, nl = out.lo, out.nlocal
        s = state[r] = {"lo": lo, "nl": nl, "out": out, "inn": inn, "deg": out.degree()}
        s["level"] = np.full(nl, -1, np.int64)
        s["parent"] = np.full(nl, -1, np.int64)
        s["frontier"] = np.empty(0, np.int64)
        if lo <= source < out.hi:
            s["level"][source - lo] = 0
            s["frontier"] = np.array([source - lo], np.int64)
    total, mf = (int(x) for x in ctx.allreduce({r: [state[r]["out"].narcs, _stats(state[r])[1]] for r in ctx.ranks}))
    maxdeg = int(ctx.allreduce({r: [state[r]["deg"].max(initial=0)] for r in ctx.ranks}, "max")[0])
    nf, explored, known = 1, mf, True  # known: the current frontier's global size and out-degree
    stamp = np.full(n, -1, np.int64)
    front = np.zeros(n, dtype=bool)
    front_ready = False
    mode, depth, scanned, modes, prev_nf = "td", 0, 0, [], 0
    while depth_limit is None or depth < depth_limit:
        if known:
            if nf == 0:
                break
            if mode == "td" and mf > (total - explored) / ALPHA and nf >= prev_nf:
                mode = "bu"  # a large, growing frontier: bottom-up checks fewer edges
            elif mode == "bu" and nf < n / BETA and nf < prev_nf:
                mode = "td"  # a small, shrinking frontier: back to top-down
            prev_nf = nf
        depth += 1
        modes.append(mode)
        if mode == "td":
            send, counts = {}, {}
            for r in ctx.ranks:
                s = state[r]
                v, p, seen = kernels.bfs_top_down(s["out"].indptr, s["out"].indices, s["frontier"], s["lo"], stamp, depth * P + r)
                scanned += seen
                send[r] = {d: [pv, pp] for d, (pv, pp, _) in enumerate(split_by_owner(v, p, None, bounds)) if pv.size}
                counts[r] = [v.size, *(_stats(s) if not known else (0, 0))]
            got, sums = ctx.alltoall(send, total=counts)  # offers, and how many, in one round
            offers = int(sums[0])
            if not known:  # the expanded frontier's stats rode along
                prev_nf, explored = int(sums[1]), explored + int(sums[2])
            for r in ctx.ranks:
                s = state[r]
                cv = np.concatenate([a[0] for _, a in got[r]]) if got[r] else np.empty(0, np.int64)
                cp = np.concatenate([a[1] for _, a in got[r]]) if got[r] else np.empty(0, np.int64)
                nxt = kernels.bfs_apply(cv, cp, s["lo"], s["level"], s["parent"], depth, key)
                s["frontier"] = _sorted(nxt, s["lo"], key)
            front_ready = False
            bound = offers * maxdeg  # the new frontier has at most `offers` vertices
            if offers == 0:
                known, nf, mf = True, 0, 0
            elif bound <= (total - explored - bound) / ALPHA:
                known = False  # too small to switch direction: stay top-down, learn its stats next round
            else:
                nf, mf = (int(x) for x in ctx.allreduce({r: _stats(state[r]) for r in ctx.ranks}))
                explored += mf
                known = True
        else:
            if not front_ready:
                _share_frontier(ctx, state, front, bounds)
            for r in ctx.ranks:
                s = state[r]
                nxt, seen = kernels.bfs_bottom_up(s["inn"].indptr, s["inn"].indices, front, s["level"], s["parent"], depth)
                scanned += seen
                s["frontier"] = nxt  # bottom-up finds vertices in id order; key order only matters top-down
            nf, mf = _share_frontier(ctx, state, front, bounds)
            explored += mf
            known, front_ready = True, True
            if key.size:
                for r in ctx.ranks:
                    state[r]["frontier"] = _sorted(state[r]["frontier"], state[r]["lo"], key)
    ctx.stats.info.update(levels=depth, edges_examined=scanned, bottom_up_levels=modes.count("bu"))
    return {r: {"distance": state[r]["level"], "predecessor": state[r]["parent"]} for r in ctx.ranks}


def bfs(graph, source, depth_limit=None):
    """Breadth-first search from ``source``.

    Parameters
    ----------
    graph : dgraph.Graph
    source : label
        The start vertex, in the graph's own labels.
    depth_limit : int, optional
        Visit only vertices at most this many hops away.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``vertex``, ``distance`` (Int64, null when unreachable) and ``predecessor``
        (parent in the BFS tree, null for the source and unreachable vertices).

    Notes
    -----
    Supersteps: one per level for bottom-up levels, two for top-down ones; bytes moved: 16 per
    offered (vertex, parent) pair top-down, min(8 * |frontier|, n / 8) per rank bottom-up. The
    run's counters are in ``graph.last_stats``.

    References
    ----------
    S. Beamer, K. Asanovic, D. Patterson, "Direction-optimizing breadth-first search", SC 2012.
    Y. Zhao et al., "TD-Orch ... TDO-GP", Algorithm 2.

    Examples
    --------
    >>> import dgraph
    >>> g = dgraph.datasets.load("karate")
    >>> r = dgraph.algorithms.bfs(g, 1).compute()
    >>> int(r.distance.max())
    3
    """
    if depth_limit is not None and (not isinstance(depth_limit, (int, np.integer)) or depth_limit < 0):
        raise DgraphInputError(f"depth_limit must be a non-negative integer or None, got {depth_limit!r}")
    src = int(graph.encode_vertices([source], "BFS source")[0])
    results, _ = graph.run(bfs_kernel, reverse=True, name="bfs", source=src, depth_limit=depth_limit)
    return graph.to_frame(results, label_columns=("predecessor",), nullable=("distance", "predecessor"))


def validate_bfs(edges, result, source):
    """Check a BFS result against the Graph 500 rules; raise AssertionError on the first breach.

    ``edges``: pandas [src, dst] in labels (both arcs for undirected graphs); ``result``: pandas
    output of ``bfs``. Rules: the source has distance 0 and no parent; every reached vertex but
    the source has a parent one level closer joined to it by an arc; every arc joins levels at
    most one apart (into a reached vertex, for directed graphs: from reached to reached or
    unreached); the reached set is closed under arcs.
    """
    dist = result.set_index("vertex")["distance"]
    pred = result.set_index("vertex")["predecessor"]
    assert dist.loc[source] == 0 and pd.isna(pred.loc[source]), "source must have distance 0 and no predecessor"
    reached = dist.dropna()
    others = reached.drop(index=source)
    p = pred.loc[others.index]
    assert p.notna().all(), "a reached vertex has no predecessor"
    assert (dist.loc[p.to_numpy()].to_numpy() == others.to_numpy() - 1).all(), "a predecessor is not one level up"
    arcs = set(zip(edges["src"].tolist(), edges["dst"].tolist()))
    assert all((u, v) in arcs for u, v in zip(p.tolist(), others.index.tolist())), "a tree edge is not an arc"
    du = dist.reindex(edges["src"]).to_numpy()
    dv = dist.reindex(edges["dst"]).to_numpy()
    from_reached = ~pd.isna(du)
    assert (~pd.isna(dv[from_reached])).all(), "an arc leaves the reached set"
    both = from_reached
    assert (dv[both].astype(np.int64) <= du[both].astype(np.int64) + 1).all(), "an arc skips a level"
    return True
