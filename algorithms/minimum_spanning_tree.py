"""Minimum spanning forest of an undirected graph by Boruvka's algorithm, first on each rank
alone, then across ranks.

The order: edges are totally ordered by (weight, smaller end, larger end), ends compared by
canonical id, so every set of vertices has one lightest edge leaving it, and the forest is the
one minimum spanning forest of that order, on every layout. Correctness rests on the cut
property alone: for any set S of vertices, the lightest edge leaving S is in the forest.

Local rounds (``kernels.local_forest``, no communication): a rank holds every arc of its own
vertices (the owner blocks). It runs Boruvka's rounds over components made of its own vertices,
kept in a union-find: each component finds its lightest leaving arc over all its members' arcs,
those to ghosts included. Since those rows hold every edge leaving the component, that arc is
the lightest edge leaving it in the whole graph, so it is in the forest (the cut property, for
S = the component), wherever its other end is. Where the other end is the rank's own vertex
the two components are joined; where it is a ghost the component waits. Rounds end when no
component joins another. Every edge taken is a forest edge, and no edge is dropped by a
rank-local test: only arcs inside a component (a cycle of lighter forest edges closes them,
which rules them out) are left behind. (Kruskal's forest of the rank's own subgraph would not
do: an edge the rank sees as the lightest across its own part may be the heaviest of a cycle
through other ranks.) On one rank this is the whole forest.

Rounds across ranks: every vertex carries its component's name (a vertex of the component, at
first the union-find's root). Each round the ranks read their ghosts' components (one superstep
of the gather plan), every rank finds, for each component its vertices belong to, the lightest
arc leaving it (``kernels.lightest_leaving``: one pass over the arcs still leaving their
component, which also drops the others for good) and sends it to the name's owner, which keeps
the lightest of those (one superstep). The picks form a forest of components whose only cycles
are pairs that picked the same edge; the smaller name of a pair stays a root, every other root
points at the component it picked and records its edge. Pointer jumping (three supersteps a jump,
ceil(log2 depth) + 1 jumps) takes every root to its new root, and each vertex reads its new
component from its old root's owner (two supersteps). A round at least halves the components.

The end on one rank: once at most ``GATHER_ARCS`` arcs are left between components (counted
after the local rounds and after each scan; on a road graph often right after the local
rounds), every rank sends them to
rank 0, which takes the minimum spanning forest of the graph whose vertices are the components
(one superstep). The edges taken so far are all in the forest, so the rest of it is the forest of
the graph with them contracted, under the same order of edges.

Output encoding: one row per forest edge, ``src`` and ``dst`` (the end of smaller canonical id
first) and ``weight`` (float64; 1.0 with unit weights).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from dgraph import kernels
from dgraph.block import keyed_ids
from dgraph.errors import DgraphInputError
from dgraph.ghosts import GhostExchange, fetch
from dgraph.owners import by_owner
from dgraph.weights import GRAPH_WEIGHT, Weight, weighed

if TYPE_CHECKING:
    import dask.dataframe as dd

    from dgraph.graph import Graph

NAN_WEIGHT = "a NaN weight"
# Arcs left between components, over all ranks, at or below which rank 0 finishes the forest
# alone: a round across ranks costs at least six supersteps and its pointer jumps three each
# (a road graph over 4 hashed ranks: 9 rounds and 32 jumps), where sending rank 0 half a million
# arcs (32 MB) costs one
GATHER_ARCS = 1 << 19


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


def _edges(block, lo, hi, order, maximum):
    """Forest edges found on a rank, ends as slots (the smaller key first): (src, dst, weight)
    in placed ids."""
    space = block.space.astype(np.int64)
    return space[lo], space[hi], -order if maximum else order


def _local(ctx, blocks, bounds, weights, *, maximum):
    """Every rank's share of the forest that its own rows decide (``kernels.local_forest``):
    returns (picked, comp, arcs, key, first), the edges per rank, each own vertex's component
    (a placed id the rank owns), the arcs still leaving their component as (rows, head slots,
    orders), each slot's keyed id and where the rank's own slots start."""
    picked, comp, arcs, key, first = {}, {}, {}, {}, {}
    for r in ctx.ranks:
        b = blocks[r]
        first[r] = int(np.searchsorted(b.space, b.lo))
        key[r] = keyed_ids(b, np.arange(b.space.size))
        order = -weights.pop(r) if maximum else weights.pop(r)
        local, (lo, hi, o), (at, rows) = kernels.local_forest(b.indptr, b.indices, order, key[r], first[r])
        picked[r] = [_edges(b, lo, hi, o, maximum)]
        comp[r] = bounds[r] + local
        arcs[r] = (rows, b.indices[at].astype(np.int64), order[at])
    return picked, comp, arcs, key, first


def _candidates(block, arcs, comp, comp_space, key, first, *, maximum):
    """Each component's lightest arc leaving it among a rank's arcs, as columns for the owner of
    the component's name: (component, order, smaller key, larger key, the other end's
    component, src, dst, weight); and the arcs that still leave their component."""
    rows, heads, order = arcs
    ids, group = kernels.dense_ranks(comp)
    best, kept = kernels.lightest_leaving(rows, heads, order, key, first, comp, comp_space, group, ids.size)
    has = best >= 0
    at = best[has]
    tail, head = rows[at] + first, heads[at]
    swap = key[tail] > key[head]
    lo, hi = np.where(swap, head, tail), np.where(swap, tail, head)
    src, dst, w = _edges(block, lo, hi, order[at], maximum)
    columns = (ids[has], order[at], key[lo], key[hi], comp_space[head], src, dst, w)
    return columns, (rows[kept], heads[kept], order[kept])


def _finish_at_one_rank(ctx, blocks, arcs, picked, *, comps, ends, maximum):
    """The rest of the forest, found by rank 0 (one superstep): every rank sends it the arcs
    between different components, and rank 0 takes the minimum spanning forest of the graph of
    components they make, under the same order of edges (``kernels.local_forest`` on that graph,
    each edge weighing its place in the order). The edges taken so far are all in the forest, so
    the forest is they and the forest of the graph with them contracted. ``comps``: each rank's
    (components of its rows, of its slots); ``ends``: (keyed ids of its slots, its first own slot)."""
    (comp, comp_space), (key, first) = comps, ends
    send = {}
    for r in ctx.ranks:
        rows, heads, order = arcs[r]
        tail = rows + first[r]
        apart = comp[r][rows] != comp_space[r][heads]
        tail, head, order = tail[apart], heads[apart], order[apart]
        swap = key[r][tail] > key[r][head]
        lo, hi = np.where(swap, head, tail), np.where(swap, tail, head)
        columns = (comp[r][rows[apart]], comp_space[r][head], order, key[r][lo], key[r][hi])
        send[r] = {0: [*columns, *_edges(blocks[r], lo, hi, order, maximum)]}
    got = ctx.alltoall(send)
    if 0 not in ctx.ranks:
        return
    cu, cv, order, lo, hi, src, dst, w = (np.concatenate(c) for c in zip(*(m for _, m in got[0])))
    ranked = np.lexsort((hi, lo, order))
    place = np.empty(order.size, np.float64)  # distinct, exact in a float64: no ties left
    place[ranked] = np.arange(order.size)
    ids, both = kernels.dense_ranks(np.concatenate([cu, cv]))
    a, b = both[: cu.size], both[cu.size :]
    # parallel arcs between two components: the lightest stays, the others close a cycle with it
    indptr, indices, weights = kernels.build_csr(np.r_[a, b], np.r_[b, a], ids.size, weights=np.r_[place, place])
    _, (_, _, taken), _ = kernels.local_forest(indptr, indices, weights, np.arange(ids.size, dtype=np.int64), 0)
    at = ranked[taken.astype(np.int64)]  # back from places to the arcs sent
    picked[0].append((src[at], dst[at], w[at]))


def spanning_forest_kernel(ctx, *, bounds, weighted, maximum, ignore_nan, gather_arcs=GATHER_ARCS):
    bounds = np.asarray(bounds, dtype=np.int64)
    blocks = {r: ctx.blocks[r][0] for r in ctx.ranks}
    weights, nan = {}, {}
    for r in ctx.ranks:
        b = blocks[r]
        weights[r] = b.weights.astype(np.float64) if weighted and b.weights is not None else np.ones(b.indices.size)
        nan[r] = [int(np.isnan(weights[r]).sum())]
    if int(ctx.allreduce(nan)[0]) and not ignore_nan:
        ctx.stats.info.update(problem=NAN_WEIGHT)
        return _rows(ctx, {r: [] for r in ctx.ranks})
    picked, comp, arcs, key, first = _local(ctx, blocks, bounds, weights, maximum=maximum)
    local = {r: [picked[r][0][0].size] for r in ctx.ranks}  # summed in the first superstep
    gather = GhostExchange(ctx, {r: [blocks[r]] for r in ctx.ranks}, bounds)
    own = {r: np.arange(bounds[r], bounds[r + 1], dtype=np.int64) for r in ctx.ranks}
    comp_space = {r: np.empty(blocks[r].space.size, np.int64) for r in ctx.ranks}
    ctx.hold("spanning forest", comp, comp_space, key)
    rounds, jumps, local_edges = 0, 0, None
    while True:
        left = {r: [local[r][0] if local_edges is None else 0, arcs[r][0].size] for r in ctx.ranks}
        totals = gather(comp, comp_space, total=left)
        local_edges = int(totals[0]) if local_edges is None else local_edges
        if int(totals[1]) <= gather_arcs:
            if int(totals[1]):
                _finish_at_one_rank(
                    ctx, blocks, arcs, picked, comps=(comp, comp_space), ends=(key, first), maximum=maximum
                )
            break
        send, chosen = {}, {}
        for r in ctx.ranks:
            columns, arcs[r] = _candidates(
                blocks[r], arcs[r], comp[r], comp_space[r], key[r], first[r], maximum=maximum
            )
            send[r] = by_owner(bounds, *columns)
        # the arcs left after the scan are exactly those between components: where few, rank 0
        # finishes with them instead of this round's picks
        got, left_after = ctx.alltoall(send, total={r: [arcs[r][0].size] for r in ctx.ranks})
        del send
        if int(left_after[0]) <= gather_arcs:
            if int(left_after[0]):
                _finish_at_one_rank(
                    ctx, blocks, arcs, picked, comps=(comp, comp_space), ends=(key, first), maximum=maximum
                )
            break
        for r in ctx.ranks:
            parts = [np.concatenate(cols) for cols in zip(*(m for _, m in got[r]))] if got[r] else None
            if parts is None:
                chosen[r] = [np.empty(0, np.int64)] * 2 + [np.empty(0, np.int64)] * 2 + [np.empty(0)]
                continue
            c, order, lo, hi, target, src, dst, w = parts
            best = _first_of_groups(hi, lo, order, c)
            chosen[r] = [c[best], target[best], src[best], dst[best], w[best]]
        rounds += 1  # arcs left between components: some component picked one
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
    ctx.stats.info.update(local_edges=local_edges, rounds=rounds, jumps=jumps)
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
    One pass of Boruvka's rounds on each rank over its own rows, with no communication; then at
    most log2(c) + 1 rounds across ranks, c the components left (none on one rank), each of
    six supersteps plus three per pointer jump, until few enough arcs are left for rank 0 to
    finish alone (one superstep).

    References
    ----------
    O. Boruvka, 1926; S. Chung, A. Condon, "Parallel implementation of Boruvka's minimum
    spanning tree algorithm", IPPS 1996; P. Sanders, M. Schimek, "Engineering massively
    parallel MST algorithms", IPDPS 2023 (contracting each rank's own edges first).

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
