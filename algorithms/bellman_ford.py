"""Single-source shortest paths where weights may be negative, and negative cycles found.

Method: Bellman-Ford in rank-local passes over the 1D owner blocks (Blogel's block-centric
idea, as ``dgraph.relax`` does for SSSP). A vertex's label is (distance, hops, tail): the
length of the best walk found to it, its arc count and the (canonical) tail it came from;
an offer along an arc is (distance + weight, hops + 1, its tail), and a label falls only when
an offer is smaller in (distance, hops), a tie in both taking the smaller tail. Each round,
every rank first closes its labels under the arcs between its own vertices
(``kernels.relax_signed``: a FIFO queue, Bellman-Ford-Moore), then offers the labels that fell
along its arcs to other ranks' vertices, each head's least offer merged before it travels; the
owners take the offers that lower a label and start the next round from those. A round is one
superstep; the search ends after a round in which no rank offered anything. Rounds follow how
often shortest paths cross between ranks, not their hop count: one pass and one superstep on one
rank. ``kernels.relax_local``, which SSSP's local closures run, is not used: its bucket ring and
its delta-stepping on threads take buckets in ascending order, which a negative arc breaks, its
heap search would never end on a negative cycle inside a rank, and its labels carry no hop
count for the rule below.

The labels' fixpoint is unique whatever order offers arrive in: the least distance, the fewest
arcs among the walks of that length, and the smallest canonical tail among the arcs giving both,
which is the tail synchronous rounds keep (the first to reach the distance, in rounds; the
smallest canonical id on ties), so results are the same on every layout and rank count.

Negative cycles: a label of h hops is the end of a walk of h arcs along which each vertex's
label fell strictly when the walk passed it (a later label of a vertex is smaller than an
earlier one), so a walk that repeats a vertex went round a cycle of negative weight. Hence the
rule: a label reaching n hops (n vertices) proves a negative cycle reachable from the source, and
without one no label ever does (every walk of n arcs repeats a vertex), whether the cycle lies
inside one rank or across ranks. For a cycle to read off the predecessors (``cycle=True`` in
``bellman_ford_search``), the search then runs again in synchronous rounds on the edge map: a
vertex whose distance still falls in round n proves the cycle, and the predecessors then hold
one, since a vertex set in round k points to one that fell in round k - 1 and was last set in
round k - 1 or later, so walking back n + 1 steps from a vertex set in round n meets a repeated
vertex before any vertex never set; and every cycle of predecessors made by strict improvements
weighs less than zero (Cherkassky and Goldberg, 1999).

Output encoding: ``distance`` (Float64, null when unreachable) and ``predecessor`` (the tail of
the arc that gave the vertex its label, in the user's labels; null for the source and
unreachable vertices). Without negative weights they may differ from ``sssp``'s where paths
tie: this keeps the fewest arcs, then the smallest canonical tail.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

import numpy as np

from dgraph import kernels
from dgraph.block import keyed_run, own_canonical
from dgraph.edgemap import EdgeMap, add_weight
from dgraph.errors import DgraphInputError
from dgraph.owners import keyed
from dgraph.weights import GRAPH_WEIGHT, Weight, weighed

from .verify import weighted_search

if TYPE_CHECKING:
    import dask.dataframe as dd

    from dgraph.graph import Graph


def _least(heads, d, h, tails):
    """Each distinct head's least offer in (distance, hops, tail), heads ascending."""
    order = np.lexsort((tails, h, d, heads))
    heads, d, h, tails = heads[order], d[order], h[order], tails[order]
    first = np.r_[True, heads[1:] != heads[:-1]] if heads.size else np.empty(0, bool)
    return heads[first], d[first], h[first], tails[first]


class _Rank:
    """One rank's labels over its own vertices and what its rounds read."""

    def __init__(self, block, lo, hi, unit, keyed_ids):
        self.block, self.lo, self.size = block, lo, hi - lo
        self.first = int(np.searchsorted(block.space, lo))
        self.weights = None if unit else block.weights
        self.dist = np.full(self.size, np.inf)
        self.hops = np.zeros(self.size, np.int64)
        self.pred = np.full(self.size, -1, np.int64)
        self.changed = np.zeros(self.size, dtype=bool)
        self.keys = keyed(np.arange(lo, hi), own_canonical(block, lo, hi) if keyed_ids else None)
        self.leaving = kernels.rows_leaving(block.indptr, block.indices, self.first, self.first + self.size)

    def close(self, seeds, limit):
        labels = (self.dist, self.hops, self.pred)
        own = (self.block.indptr, self.block.indices, self.weights)
        return kernels.relax_signed(own, self.first, labels, self.keys, seeds, limit, self.changed)

    def offers(self, bounds):
        """The least offer to each other rank's vertex from the labels that fell, by owner."""
        active = np.flatnonzero(self.changed & self.leaving)
        self.changed[:] = False
        at, slots, w = kernels.frontier_arcs(self.block.indptr, self.block.indices, self.weights, active)
        out = (slots < self.first) | (slots >= self.first + self.size)
        tails, heads = active[at[out]], self.block.space[slots[out]].astype(np.int64)
        heads, d, h, t = _least(heads, self.dist[tails] + w[out], self.hops[tails] + 1, self.keys[tails])
        cuts = np.searchsorted(heads, bounds)
        spans = enumerate(zip(cuts[:-1], cuts[1:]))
        return {o: [heads[a:b] - bounds[o], d[a:b], h[a:b], t[a:b]] for o, (a, b) in spans if b > a}

    def take(self, messages, limit):
        """Lower labels by the offers received: (the vertices whose label fell, whether one
        reached ``limit`` hops)."""
        if not messages:
            return np.empty(0, np.int64), False
        heads, d, h, t = _least(*(np.concatenate(parts) for parts in zip(*(m for _, m in messages))))
        dist, hops, pred = self.dist[heads], self.hops[heads], self.pred[heads]
        falls = (d < dist) | ((d == dist) & (h < hops))
        ties = ~falls & (d == dist) & (h == hops) & (t < pred)
        self.pred[heads[ties]] = t[ties]
        fell = heads[falls]
        self.dist[fell], self.hops[fell], self.pred[fell] = d[falls], h[falls], t[falls]
        self.changed[fell] = True
        return fell, bool(fell.size and h[falls].max() >= limit)


def bellman_ford_kernel(ctx, *, source, unit, bounds):
    """``source``: a placed id, or -1 to start from every vertex at distance 0 (a virtual
    source joined to all: any negative cycle of the graph is then reachable)."""
    limit = int(bounds[-1])  # a label of n hops proves a negative cycle (see the module docstring)
    ranks, seeds = {}, {}
    for r in ctx.ranks:
        lo, hi = int(bounds[r]), int(bounds[r + 1])
        ranks[r] = rank = _Rank(ctx.blocks[r][0], lo, hi, unit, keyed_run(ctx))
        mine = [source - lo] if lo <= source < hi else []
        seeds[r] = np.arange(hi - lo) if source < 0 else np.array(mine, np.int64)
        rank.dist[seeds[r]], rank.changed[seeds[r]] = 0.0, True
    ctx.hold("bellman-ford labels", *({r: getattr(k, a) for r, k in ranks.items()} for a in ("dist", "hops", "pred")))
    rounds = scanned = 0
    negative = {r: False for r in ctx.ranks}
    while True:
        send, facts = {}, {}
        for r, rank in ranks.items():
            if not negative[r]:
                arcs, negative[r] = rank.close(seeds[r], limit)
                scanned += arcs
            send[r] = {} if negative[r] else rank.offers(bounds)
            facts[r] = np.array([sum(m[0].size for m in send[r].values()), int(negative[r])])
        got, (offered, cycles) = ctx.alltoall(send, total=facts)
        rounds += 1
        if cycles or not offered:
            break
        for r, rank in ranks.items():
            seeds[r], negative[r] = rank.take(got[r], limit)
    ctx.stats.info.update(rounds=rounds, negative_cycle=bool(cycles), local_arcs_examined=scanned)
    placed = kernels.unkey if keyed_run(ctx) else (lambda tails: tails)
    return {r: {"distance": k.dist, "predecessor": placed(k.pred)} for r, k in ranks.items()}


def _one_more(src, dst, w, value):
    """``f`` for unit weights on a weighted graph: every arc costs 1."""
    return value + 1.0


def _offered(r, heads, values):
    return [heads.size]


def rounds_kernel(ctx, *, source, unit, bounds, layout):
    """Synchronous Bellman-Ford on the edge map, one round a superstep, until no distance falls
    or round n (whose falling distances prove a negative cycle that the predecessors then hold:
    see the module docstring). ``source`` as ``bellman_ford_kernel``'s."""
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
    rounds, negative = 0, False
    while True:
        if rounds == em.n:  # one reduction, only here: did round n still lower a distance?
            negative = bool(ctx.allreduce({r: [frontier[r].size] for r in ctx.ranks})[0])
            break
        values = {r: dist[r][frontier[r]] for r in ctx.ranks}
        # the heads offered ride in the round's own superstep: none anywhere ends the search
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
    graph: Graph, source: Hashable | None, *, weight: Weight = GRAPH_WEIGHT, cycle: bool = False
) -> tuple[dd.DataFrame, bool]:
    """``bellman_ford``'s frame and whether the search found a negative cycle, without raising.
    ``source=None`` starts from every vertex at distance 0, so any negative cycle of the graph
    is found. ``cycle``: where there is one, the frame's predecessors hold one (a second search,
    in synchronous rounds: see the module docstring); else they are left as the search stopped."""
    graph, weight = weighed(graph, weight, "bellman_ford")
    src = -1 if source is None else graph.vertex_param(source, "Bellman-Ford source")
    options: dict[str, Any] = dict(label_columns=("predecessor",), nullable=("distance", "predecessor"))
    options.update(name="bellman_ford", source=src, unit=weight is None and graph.weight is not None)
    frame, stats = graph.runner.run_to_frame(bellman_ford_kernel, **options)
    negative = bool(stats.info.get("negative_cycle", False))
    if negative and cycle:
        frame, _ = graph.runner.run_to_frame(rounds_kernel, **options, placement="layout")
    return frame, negative


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
    One superstep per round: a rank-local Bellman-Ford pass over the arcs between a rank's own
    vertices, then the offers along the arcs that leave it (see the module's docstring); on one
    rank, one pass. For non-negative weights ``sssp`` is faster. ``graph.last_stats.info``
    reports ``rounds`` and ``local_arcs_examined``.

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
