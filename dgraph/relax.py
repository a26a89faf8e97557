"""Rank-local relaxation: shortest paths that cross the partition, not the diameter, in supersteps.

A level-synchronous search pays one superstep per level, and a road network has a thousand of
them. Here every round each rank first closes its own vertices under the arcs it holds between
them (a Dijkstra from the vertices that improved, ``kernels.relax_local``), and only then pushes
the improved vertices' arcs through the edge map, merged with ``min`` at the heads' owners: the
block-centric idea of Blogel (Yan et al., VLDB 2014) on DistEdgeMap. Rounds follow how often a
shortest path leaves a rank, so a 1D layout of a spatially numbered road network needs a few
dozen instead of a thousand. Distances are label-correcting: a vertex reached first by a detour
inside its rank improves again when a shorter path arrives from outside. Delta-stepping's
buckets bound that waste: a round expands only vertices below the current threshold, and the
default bucket is wide (``BUCKET_ARCS`` mean arc weights), since rounds, not arcs, are dear.

Any layout works, since only arcs whose two ends one rank owns are relaxed locally (in 2D that
is the mesh diagonal); the rest travel through the layout's own plans. The answer is the same
on every layout: distances are the least fixpoint, and each vertex's predecessor follows the
edge map's rule (the smallest canonical id among the tails that give its distance) whatever
order rounds found them in: kept up as equal offers arrive (``ties``) where every arc adds to
every distance, else chosen by ``shortest_path_tree`` once at the end.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import kernels
from .block import INPLACE_CHUNK, block_arcs, index_type, kept, light_arcs, owner_rows
from .edgemap import add_weight, pull_pays

LOCAL_SHARE = 0.75  # relaxation pays where ranks own both ends of most arcs (roads: 0.98)
# Default bucket width, in mean arc weights. Measured on Luxembourg's roads (2-16 ranks): one
# unbounded bucket re-closes 3-10 arcs per arc; 256 arcs per bucket cuts that to 1.6-3 at
# twice the rounds (42-106), and takes no longer.
BUCKET_ARCS = 256
# How a round's facts reduce over the ranks: whether any rank expanded, the closest pending
# distance, the least offer; then, for a bucket that ends in the round, its heavy arcs and the
# arcs still open (``_HeavyRound``)
_ROUND_OPS = ("min", "min", "min", "sum", "sum")


def local_share(ctx, em, known=None):
    """The share of all arcs whose tail and head one rank owns (one reduction): nearly all in a
    1D layout of a spatially numbered graph, few in 2D, where such arcs sit on the mesh diagonal.
    ``known``: the graph's from an earlier run (``Graph.local_share``), else counted and left in
    the run's info for the graph to keep."""
    if known is not None:
        return known
    counts = {}
    for r in ctx.ranks:
        lo, hi = em.lo(r), em.lo(r) + em.size(r)
        block = em.out_block(r)
        counts[r] = [sum(_own_arcs(p, lo, hi) for p in block.parts), block.narcs]
    own, arcs = ctx.allreduce(counts)
    share = ctx.stats.info["local_share"] = own / max(arcs, 1)
    return share


def _own_arcs(part, lo, hi):
    """How many arcs of a CSR part have both ends in [lo, hi), counted in slots a bounded run of
    arcs at a time: a 2D block's arcs listed as placed ids would be 24 bytes an arc."""
    first, last = np.searchsorted(part.space, [lo, hi])  # own vertices are a run of slots
    if part.row_ids is None:  # contiguous rows: the own ones are one run of arcs
        a, b = part.indptr[np.clip([lo - part.lo, hi - part.lo], 0, part.nlocal)]
        return sum(
            int(np.count_nonzero((cols >= first) & (cols < last)))
            for cols in (part.indices[s : min(s + INPLACE_CHUNK, b)] for s in range(a, b, INPLACE_CHUNK))
        )
    own_row = (part.row_ids >= lo) & (part.row_ids < hi)
    count = 0
    for s in range(0, part.narcs, INPLACE_CHUNK):
        cols = part.indices[s : s + INPLACE_CHUNK]
        heads = np.flatnonzero((cols >= first) & (cols < last)) + s
        count += int(np.count_nonzero(own_row[np.searchsorted(part.indptr, heads, side="right") - 1]))
    return count


class OwnArcs(NamedTuple):
    """A rank's arcs between its own vertices, for its local closures (``local_arcs``)."""

    csr: kernels.LocalCSR
    packed: np.ndarray | None  # kernels.weighted_arcs of them, where the search runs on threads
    boundary: np.ndarray  # which own vertices have arcs elsewhere
    first: int  # the index of the rank's first vertex in csr.indices


def local_arcs(em, r, weighted):
    """``OwnArcs`` (csr, packed, boundary, first) over rank r's own vertices: the arcs it
    holds whose tail and head it owns, those arcs with their weights as one array where the
    search runs on numba's threads and the weights are whole numbers (``kernels.weighted_arcs``,
    kept with the block; else None), which of its vertices have arcs elsewhere (the only ones
    whose arcs the edge map must still push after a local closure; all of them unless the rank
    holds every arc of its vertices), and the index of its first vertex in ``indices``. A 1D
    owner block is used as it is (the kernel skips heads outside its own slots)."""
    lo, hi = em.lo(r), em.lo(r) + em.size(r)
    block = em.out_block(r)
    if owner_rows(block, lo, hi):
        first = int(block.slots(lo))
        w = block.weights if weighted else None
        threaded = kernels.engine() == "numba" and kernels.threads_for(block.narcs, kernels.DELTA_GRAIN) > 1
        arcs = None
        if w is not None and threaded:
            arcs = kept(block, "weighted arcs", lambda: kernels.weighted_arcs(block.indices, block.weights))
        if lo == 0 and hi == em.n:  # the rank holds every vertex: no arc leaves (and no pass over them)
            return OwnArcs(kernels.LocalCSR(block.indptr, block.indices, w), arcs, np.zeros(hi, dtype=bool), first)
        boundary = kernels.rows_leaving(block.indptr, block.indices, first, first + hi - lo)
        return OwnArcs(kernels.LocalCSR(block.indptr, block.indices, w), arcs, boundary, first)
    rows, cols, w = block_arcs(block)
    keep = (rows >= lo) & (rows < hi) & (cols >= lo) & (cols < hi)
    w = w[keep] if weighted and w is not None else None
    csr = kernels.build_csr(
        rows[keep] - lo, cols[keep], hi - lo, weights=w, dedup=False, order=False, index_dtype=index_type(em.n)
    )
    return OwnArcs(kernels.LocalCSR(*csr), None, np.ones(hi - lo, dtype=bool), lo)


def shortest_paths(
    ctx,
    em,
    dist,
    pred,
    pending,
    delta,
    *,
    weighted,
    limit=np.inf,
    local=True,
    ties=False,
    split=False,
    pull=False,
    mean_largest=None,
    lightest=None,
):
    """Relax until no distance improves. Per rank: ``dist`` (float64, inf when unreached),
    ``pred`` (tails as the edge map returns them, -1 for none) and ``pending`` (bool: improved, arcs not yet relaxed),
    all over the rank's own vertices and updated in place. ``delta``: bucket width (inf: one
    bucket); ``limit``: vertices this far away are reached but not expanded. ``local=False``
    skips the rank-local Dijkstra: plain delta-stepping. ``ties``: an offer equal to a
    distance takes over the predecessor when its tail has the smaller canonical id, so
    predecessors end by the edge map's rule with no ``shortest_path_tree`` pass; only where no
    arc can leave a distance unchanged (``ties_are_safe``), or predecessors could cycle.
    ``split`` (weighted, without local closures, finite delta): rounds push light arcs only, and
    a bucket's heavy arcs go once when it is done. ``pull`` (with ``split``, on symmetric blocks
    whose rows are their ranks' own vertices: an undirected graph in 1D): those heavy arcs go
    the other way when that scans fewer, every vertex not yet final taking the least offer of its
    arcs from the bucket (Chakaravarthy et al., IPDPS 2014). ``mean_largest``: the graph's mean
    and largest weight, which size the local closures' bucket queues (None: measured on each
    rank's local arcs); ``lightest``: their least weight where vertices have many arcs
    (``kernels.bucket_queue``). Returns the number of rounds (one superstep each) and of arcs the local
    closures scanned."""
    arcs = {r: local_arcs(em, r, weighted) for r in ctx.ranks} if local else None
    queues = (
        {r: kernels.bucket_queue(arcs[r].csr.weights, mean_largest, lightest) for r in ctx.ranks} if local else None
    )
    if local and ctx.nranks == 1:  # nothing arrives from another rank: one Dijkstra is all
        (r,) = ctx.ranks
        csr, packed, _, first = arcs[r]
        counts = np.zeros(2, np.int64)
        scanned = kernels.relax_local(
            csr,
            first,
            first + em.size(r),
            dist[r],
            pred[r],
            np.flatnonzero(pending[r]),
            limit,
            pending[r],
            em.own_key(r),
            ties,
            base=em.lo(r),
            buckets=queues[r],
            arcs=packed,
            counts=counts,
        )
        if counts[1]:  # delta-stepping on threads: its rounds (GAP's iterations) and threads
            ctx.stats.info.update(buckets=int(counts[0]), search_threads=int(counts[1]))
        return 0, scanned
    f = add_weight if weighted else _add_one
    threshold, rounds, scanned = min(delta, limit), 0, 0
    queue = {r: np.flatnonzero(pending[r]) for r in ctx.ranks}  # the pending ids: rounds cost O(pending), not O(n)
    # Meyer and Sanders' split: within a bucket only the light arcs (lighter than delta) can
    # improve it again, so its rounds push only those (from a copy of them: rounds expand a
    # vertex again and again), and the heavy ones go once per vertex, from its final distance,
    # when the bucket is done (along the whole rows, the light arcs skipped: once, so a scan
    # costs less than a copy). (Local closures run their own Dijkstra.)
    split = split and weighted and not local and np.isfinite(delta)
    light = {r: light_arcs(em.out_block(r), delta) for r in ctx.ranks} if split else None
    settled, busy = {r: [] for r in ctx.ranks}, False  # the vertices a bucket expanded, each once
    expanded = {r: np.zeros(em.size(r), dtype=bool) for r in ctx.ranks} if split else None
    heavy = _HeavyRound(ctx, em, light) if split and pull else None
    while True:
        frontier, values, total = {}, {}, {}
        for r in ctx.ranks:
            lo, d, wait = em.lo(r), dist[r], pending[r]
            if local:
                seeds = queue[r][d[queue[r]] < threshold]
                csr, packed, boundary, first = arcs[r]
                scanned += kernels.relax_local(
                    csr,
                    first,
                    first + em.size(r),
                    d,
                    pred[r],
                    seeds,
                    threshold,
                    wait,
                    em.own_key(r),
                    ties,
                    lo,
                    queues[r],
                    packed,
                )
                queue[r] = np.flatnonzero(wait)  # the closure improved (and queued) more
            active, queue[r], nearest = kernels.take_below(queue[r], d, threshold, wait)
            if local:  # the closure relaxed their local arcs: push only the ones with others
                active = active[boundary[active]]
            if split:
                settled[r].append(active[~expanded[r][active]])
                expanded[r][settled[r][-1]] = True
                if heavy is not None:
                    heavy.add(r, settled[r][-1])
            frontier[r], values[r] = active, d[active]
            total[r] = np.array([-1.0 if active.size else 0.0, nearest])

        def ride(r, heads, offers):  # the round's facts, and the pull decision's should the bucket end
            return [*total[r], offers.min() if offers.size else np.inf, *(heavy.facts(r) if heavy else (0, 0))]

        merged, (any_active, closest, lowest, pushed, pulled) = em(
            frontier,
            values,
            f,
            "min",
            total=ride,
            total_op=_ROUND_OPS,
            direction="push",
            arcs=light,
            falling=f is add_weight,
        )
        rounds += 1
        _improve(ctx, merged, dist, pred, pending, queue, ties=ties)
        # a bucket is done when a round finds nothing in it to expand, or as soon as a round that
        # expanded offered nothing below the threshold: what it improved waits for a later bucket
        # (a superstep saved per bucket)
        if split and (busy if any_active == 0 else lowest >= threshold):  # its heavy arcs, then the next bucket
            frontier = {r: np.sort(np.concatenate(settled[r])) for r in ctx.ranks}
            values = {r: dist[r][frontier[r]] for r in ctx.ranks}
            _count(ctx, "buckets")
            if heavy is not None and heavy.pulls(frontier, pushed, pulled):
                merged, _ = em(frontier, values, f, "min", direction="pull", skip_dst=heavy.final)
                _count(ctx, "heavy_arcs_pulled", pulled)
            else:
                _count(ctx, "heavy_pushes")
                if heavy is not None:
                    _count(ctx, "heavy_arcs_pushed", pushed)
                merged, _ = em(
                    frontier, values, f, "min", direction="push", window=(delta, np.inf), falling=f is add_weight
                )
            rounds += 1
            _improve(ctx, merged, dist, pred, pending, queue, ties=ties)
            settled, busy = {r: [] for r in ctx.ranks}, False
            threshold = min(threshold + delta, limit)  # a round that finds it empty says where to go next
            continue
        busy = split and any_active != 0
        if any_active == 0:  # nothing below the threshold anywhere: open the next bucket
            if not closest < limit:
                return rounds, scanned
            threshold = min((np.floor(closest / delta) + 1) * delta, limit) if np.isfinite(delta) else limit


class _HeavyRound:
    """Which way a finished bucket's heavy arcs go: pushed from the bucket's vertices, or pulled
    by every vertex not yet final along all its arcs, whichever costs less (``edgemap.pull_pays``,
    from sums over the ranks that ride in the bucket's last round). On a small-world graph the
    first buckets hold the hubs, whose heavy arcs are most of the graph's, while the vertices
    still open hold few (Kronecker 20 from a hub's neighbour: 27.6 M heavy arcs pushed in all
    against 8.1 M scanned the cheaper way)."""

    def __init__(self, ctx, em, light):
        self.ctx, self.em = ctx, em
        self.light = {r: np.diff(light[r].indptr) for r in ctx.ranks}
        self.open = {r: em.out_arcs(r) for r in ctx.ranks}  # arcs of vertices not yet final
        self.bucket = {r: [0, 0] for r in ctx.ranks}  # arcs and heavy arcs of the bucket's vertices so far
        self.final = em.marks()  # what a pull skips: vertices whose distance is final

    def add(self, r, settled):
        """Count rank r's vertices the bucket just expanded for the first time."""
        arcs = self.em.out_arcs(r, settled)
        self.bucket[r][0] += arcs
        self.bucket[r][1] += arcs - int(self.light[r][settled].sum())

    def facts(self, r):
        """Rank r's share of the decision should its bucket end now: heavy arcs it would push,
        and arcs of its vertices still open, which a pull would scan."""
        arcs, heavy = self.bucket[r]
        return heavy, self.open[r] - arcs

    def pulls(self, bucket, pushed, pulled):
        """Mark the finished ``bucket`` final; whether its heavy arcs are cheaper to pull, from
        ``facts`` summed over the ranks."""
        for r in self.ctx.ranks:
            self.final.mark_own(r, bucket[r])
            self.open[r] -= self.bucket[r][0]
            self.bucket[r] = [0, 0]
        if not pull_pays(pushed, pulled):
            return False
        _count(self.ctx, "heavy_pulls")
        return True


def _count(ctx, name, by=1):
    """Add ``by`` to the run's ``name`` in its info (the profile of a split search: buckets,
    heavy pushes and pulls, and the heavy arcs each moved)."""
    ctx.stats.info[name] = ctx.stats.info.get(name, 0) + int(by)


def _improve(ctx, merged, dist, pred, pending, queue, *, ties):
    for r in ctx.ranks:
        queued = kernels.improve(*merged[r], dist[r], pred[r], pending[r], ties)
        queue[r] = np.concatenate([queue[r], queued]) if queued.size else queue[r]


def ties_are_safe(lowest, total):
    """Whether every arc adds to every distance: the lightest arc is positive and even the
    longest possible path (all weights summed) does not absorb it in float64."""
    return lowest > 0 and total * 2.0**-50 < lowest  # a margin over 2**-53 for rounding


def shortest_path_tree(ctx, em, dist, pred, source):
    """Set each reached vertex's predecessor to the tail with the smallest canonical id among
    its in-arcs that give its distance from a strictly closer tail (one superstep). Vertices
    reached only along zero-weight ties at their own distance then take theirs by a
    breadth-first pass over those ties from the vertices already set (a superstep each), so
    ``pred`` is a tree and the same on every layout. ``source``: its placed id."""
    frontier = {r: np.flatnonzero(np.isfinite(dist[r])) for r in ctx.ranks}
    merged, _ = em(frontier, {r: dist[r][frontier[r]] for r in ctx.ranks}, _closer, "min", direction="push")
    unset = {}
    for r in ctx.ranks:
        ids, d, tails = merged[r]
        hit = d == dist[r][ids]
        pred[r][ids[hit]] = tails[hit]
        unset[r] = np.isfinite(dist[r])
        unset[r][ids[hit]] = False
        if em.lo(r) <= source < em.lo(r) + em.size(r):
            unset[r][source - em.lo(r)] = False
    frontier = {r: np.flatnonzero(np.isfinite(dist[r]) & ~unset[r]) for r in ctx.ranks}
    left, before = int(ctx.allreduce({r: [np.count_nonzero(unset[r])] for r in ctx.ranks})[0]), None
    while left:
        if left == before:
            raise RuntimeError(f"{left} vertices have a distance but no tail reaching it: a relaxation bug")
        merged, _ = em(frontier, {r: dist[r][frontier[r]] for r in ctx.ranks}, _tied, "min", direction="push")
        for r in ctx.ranks:
            ids, d, tails = merged[r]
            ok = unset[r][ids] & (d == dist[r][ids])
            ids = ids[ok]
            pred[r][ids], unset[r][ids], frontier[r] = tails[ok], False, ids
        left, before = int(ctx.allreduce({r: [np.count_nonzero(unset[r])] for r in ctx.ranks})[0]), left


def _add_one(u, v, w, d):
    return d + 1.0


def _tied(u, v, w, d):
    return np.where(d + w == d, d, np.inf)


def _closer(u, v, w, d):
    nd = d + w
    return np.where(nd > d, nd, np.inf)  # a zero (or absorbed) weight offers no strictly closer tail
