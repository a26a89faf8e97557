"""Minimum spanning forest of an undirected graph by distributed Boruvka.

Method: every vertex carries the id of its component's root (at first itself). Each round the
ranks read their ghosts' components (one superstep of the gather plan), every rank picks, for
each component its vertices belong to, the lightest arc leaving it and sends it to the root's
owner, which keeps the lightest of those (one superstep). Arcs are totally ordered by (weight,
smaller end, larger end), ends compared by canonical id, so every component's pick is unique and
the forest is the one minimum spanning forest of that order, on every layout. The picks form a
forest of components whose only cycles are pairs that picked the same edge; the smaller root of
a pair stays a root, every other root points at the component it picked and records its edge.
Pointer jumping (two supersteps a jump, ceil(log2 depth) + 1 jumps) takes every root to its new
root, and each vertex reads its new component from its old root's owner (two supersteps). A
round at least halves the components, so there are at most log2(n) + 1 rounds; arcs found
inside a component are dropped for good.

Output encoding: one row per forest edge, ``src`` and ``dst`` (the end of smaller canonical id
first) and ``weight`` (float64; 1.0 with unit weights).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from dgraph.block import keyed_ids
from dgraph.errors import DgraphInputError
from dgraph.ghosts import GhostExchange, fetch
from dgraph.owners import by_owner
from dgraph.weights import GRAPH_WEIGHT, Weight, weighed

if TYPE_CHECKING:
    import dask.dataframe as dd

    from dgraph.graph import Graph

NAN_WEIGHT = "a NaN weight"


def owned_arcs(block, first):
    """(row, head slot, row's slot) of every arc of a rank's owner block (row: local index)."""
    rows = np.repeat(np.arange(block.nlocal, dtype=np.int64), block.degree())
    return rows, block.indices.astype(np.int64), rows + first


def _first_of_groups(*keys):
    """Positions of the least row of each group of ``keys[-1]`` under the order ``keys``
    (``np.lexsort``'s: the last key primary)."""
    order = np.lexsort(keys)
    group = keys[-1][order]
    head = np.ones(group.size, dtype=bool)
    head[1:] = group[1:] != group[:-1]
    return order[head]


def _candidates(arcs, comp, comp_space):
    """The lightest arc leaving each component, among a rank's arcs (dropping those inside)."""
    cu, cv = comp[arcs["row"]], comp_space[arcs["head"]]
    out = cu != cv
    for name in list(arcs):
        arcs[name] = arcs[name][out]
    cu, cv = cu[out], cv[out]
    best = _first_of_groups(arcs["hi"], arcs["lo"], arcs["order"], cu)
    return cu[best], arcs["order"][best], arcs["lo"][best], arcs["hi"][best], cv[best], best


def spanning_forest_kernel(ctx, *, bounds, weighted, maximum, ignore_nan):
    bounds = np.asarray(bounds, dtype=np.int64)
    blocks = {r: ctx.blocks[r][0] for r in ctx.ranks}
    arcs, nan = {}, {}
    for r in ctx.ranks:
        b = blocks[r]
        first = int(np.searchsorted(b.space, b.lo))
        row, head, row_slot = owned_arcs(b, first)
        w = b.weights.astype(np.float64) if weighted and b.weights is not None else np.ones(row.size)
        missing = np.isnan(w)
        nan[r] = [int(missing.sum())]
        keep = (row_slot != head) & ~missing  # a self-loop is never in a forest
        ku, kv = keyed_ids(b, row_slot[keep]), keyed_ids(b, head[keep])
        swap = ku > kv
        u, v = int(b.lo) + row[keep], b.space[head[keep]].astype(np.int64)
        arcs[r] = {
            "row": row[keep],
            "head": head[keep],
            "order": -w[keep] if maximum else w[keep],
            "lo": np.minimum(ku, kv),
            "hi": np.maximum(ku, kv),
            "src": np.where(swap, v, u),
            "dst": np.where(swap, u, v),
            "weight": w[keep],
        }
    picked = {r: [] for r in ctx.ranks}
    if int(ctx.allreduce(nan)[0]) and not ignore_nan:
        ctx.stats.info.update(problem=NAN_WEIGHT)
        return _rows(ctx, picked)
    gather = GhostExchange(ctx, {r: [blocks[r]] for r in ctx.ranks}, bounds)
    own = {r: np.arange(bounds[r], bounds[r + 1], dtype=np.int64) for r in ctx.ranks}
    comp = {r: own[r].copy() for r in ctx.ranks}
    comp_space = {r: np.empty(blocks[r].space.size, np.int64) for r in ctx.ranks}
    ctx.hold("spanning forest", comp, comp_space)
    rounds, jumps = 0, 0
    while True:
        gather(comp, comp_space)
        send, chosen = {}, {}
        for r in ctx.ranks:
            c, order, lo, hi, target, at = _candidates(arcs[r], comp[r], comp_space[r])
            edge = [arcs[r][k][at] for k in ("src", "dst", "weight")]
            send[r] = by_owner(bounds, c, order, lo, hi, target, *edge)
        got = ctx.alltoall(send)
        del send
        for r in ctx.ranks:
            parts = [np.concatenate(cols) for cols in zip(*(m for _, m in got[r]))] if got[r] else None
            if parts is None:
                chosen[r] = [np.empty(0, np.int64)] * 2 + [np.empty(0, np.int64)] * 2 + [np.empty(0)]
                continue
            c, order, lo, hi, target, src, dst, w = parts
            best = _first_of_groups(hi, lo, order, c)
            chosen[r] = [c[best], target[best], src[best], dst[best], w[best]]
        count = int(ctx.allreduce({r: [chosen[r][0].size] for r in ctx.ranks})[0])
        if count == 0:
            break
        rounds += 1
        parent = {}
        for r in ctx.ranks:
            parent[r] = own[r].copy()
            parent[r][chosen[r][0] - bounds[r]] = chosen[r][1]
        back = fetch(ctx, {r: chosen[r][1] for r in ctx.ranks}, parent, bounds)
        for r in ctx.ranks:
            c, target, src, dst, w = chosen[r]
            stays = (back[r] == c) & (c < target)  # a pair that picked one edge: the smaller root stays
            parent[r][c[stays] - bounds[r]] = c[stays]
            hooked = ~stays
            picked[r].append((src[hooked], dst[hooked], w[hooked]))
        moving = {r: np.flatnonzero(parent[r] != own[r]) for r in ctx.ranks}
        for _ in range(int(math.log2(max(int(bounds[-1]), 2))) + 2):  # a depth of n is done by then
            grand = fetch(ctx, {r: parent[r][moving[r]] for r in ctx.ranks}, parent, bounds)
            moved = {r: [int((grand[r] != parent[r][moving[r]]).sum())] for r in ctx.ranks}
            for r in ctx.ranks:
                parent[r][moving[r]] = grand[r]
            jumps += 1
            if not int(ctx.allreduce(moved)[0]):
                break
        comp = fetch(ctx, comp, parent, bounds)
    ctx.stats.info.update(rounds=rounds, jumps=jumps)
    return _rows(ctx, picked)


def _rows(ctx, picked):
    out = {}
    for r in ctx.ranks:
        parts = picked[r] or [(np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0))]
        src, dst, w = (np.concatenate(cols) for cols in zip(*parts))
        out[r] = {"src": src.astype(np.int64), "dst": dst.astype(np.int64), "weight": w.astype(np.float64)}
    return out


def minimum_spanning_tree(
    graph: Graph, *, weight: Weight = GRAPH_WEIGHT, maximum: bool = False, ignore_nan: bool = False
) -> dd.DataFrame:
    """The minimum (or maximum) spanning forest of an undirected graph, by distributed Boruvka.

    Parameters
    ----------
    graph : dgraph.Graph
        Undirected. Self-loops are never in the forest.
    weight : str or None, optional
        Left out: the graph's weight, if it was built with one. ``None``: every edge weighs 1.
        A name: any numeric edge attribute (``g.edge_attrs``), for this call.
    maximum : bool, optional
        The maximum spanning forest instead.
    ignore_nan : bool, optional
        Leave edges of NaN weight out; otherwise they are an error.

    Returns
    -------
    dask.dataframe.DataFrame
        One row per forest edge: ``src``, ``dst`` and ``weight``. Edges are ordered by (weight,
        smaller end, larger end), so the forest is unique and the same on every layout; it
        spans every component (a forest where the graph is disconnected).

    Notes
    -----
    At most log2(n) + 1 rounds, each of three supersteps plus two per pointer jump.

    References
    ----------
    O. Boruvka, 1926; S. Chung, A. Condon, "Parallel implementation of Boruvka's minimum
    spanning tree algorithm", IPPS 1996.

    Examples
    --------
    >>> import pandas as pd, dgraph
    >>> e = pd.DataFrame({"src": [0, 1, 2, 0], "dst": [1, 2, 3, 3], "w": [1.0, 1.0, 1.0, 2.0]})
    >>> g = dgraph.from_edgelist(e, weight="w", directed=False)
    >>> t = dgraph.algorithms.minimum_spanning_tree(g).compute()
    >>> sorted(zip(t.src, t.dst)), float(t.weight.sum())
    ([(0, 1), (1, 2), (2, 3)], 3.0)
    """
    what = "maximum_spanning_tree" if maximum else "minimum_spanning_tree"
    if graph.directed:
        raise DgraphInputError(f"{what} needs an undirected graph; build it with directed=False")
    graph, name = weighed(graph, weight, what)
    frame, stats = graph.runner.run_to_rows(
        spanning_forest_kernel,
        label_columns=("src", "dst"),
        name=what,
        weighted=name is not None,
        maximum=bool(maximum),
        ignore_nan=bool(ignore_nan),
    )
    if stats.info.get("problem") == NAN_WEIGHT:
        raise DgraphInputError(f"{what}: an edge has a NaN weight; pass ignore_nan=True to leave such edges out")
    return frame
