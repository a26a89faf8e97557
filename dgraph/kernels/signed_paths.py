"""Shortest paths inside one rank with weights of any sign (Bellman-Ford's rank-local pass).

A vertex's label is (distance, hops, tail): the length of the best walk found to it, its arc
count, and the keyed id of the tail it came from. An offer along arc (u, v) is (dist[u] + w,
hops[u] + 1, key of u), and a label falls when an offer is lexicographically smaller in
(distance, hops); an offer equal in both with a smaller tail only changes the tail. The labels'
fixpoint is therefore unique (whatever order offers come in): the least distance, the fewest
arcs among the walks of that length, and the smallest tail among the arcs giving both, which is
what synchronous Bellman-Ford rounds keep. A label is always the result of a walk of exactly
``hops`` arcs along which each vertex's label fell strictly when the walk passed it, so a label
of ``limit`` (the graph's vertex count) or more hops repeats a vertex whose label fell along the
cycle between: that cycle weighs less than zero. The pass stops there and says so.

numba: a FIFO of vertices whose label fell (Bellman-Ford-Moore, each vertex queued once at a
time); numpy: synchronous rounds over the rank's arcs from the vertices that fell.
"""

from __future__ import annotations

import numba
import numpy as np

from .engines import twins
from .frontier import _arcs_numpy


@numba.njit(cache=True)
def _signed_numba(indptr, indices, weights, first, dist, hops, pred, keys, seeds, limit, changed):
    n = dist.size
    queue = np.empty(n, np.int64)
    queued = np.zeros(n, np.bool_)
    head, count, scanned = 0, 0, 0
    for s in seeds:
        if not queued[s]:
            queued[s] = True
            queue[(head + count) % n] = s
            count += 1
    while count:
        u = queue[head]
        head = (head + 1) % n
        count -= 1
        queued[u] = False
        du, hu, t = dist[u], hops[u] + 1, keys[u]
        scanned += indptr[u + 1] - indptr[u]
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e] - first
            if v < 0 or v >= n:
                continue  # another rank's vertex: offered through the exchange
            nd = du + (weights[e] if weights.size else 1.0)
            if nd < dist[v] or (nd == dist[v] and hu < hops[v]):
                dist[v], hops[v], pred[v] = nd, hu, t
                changed[v] = True
                if hu >= limit:
                    return scanned, True
                if not queued[v]:
                    queued[v] = True
                    queue[(head + count) % n] = v
                    count += 1
            elif nd == dist[v] and hu == hops[v] and t < pred[v]:
                pred[v] = t
    return scanned, False


def _signed_numpy(indptr, indices, weights, first, dist, hops, pred, keys, seeds, limit, changed):
    n, scanned = dist.size, 0
    frontier = np.unique(seeds)
    while frontier.size:
        at, slots, w = _arcs_numpy(indptr, indices, weights, frontier)
        scanned += slots.size
        tails = frontier[at]
        heads = slots.astype(np.int64) - first
        own = (heads >= 0) & (heads < n)
        tails, heads = tails[own], heads[own]
        d = dist[tails] + (w[own] if weights.size else 1.0)
        h, t = hops[tails] + 1, keys[tails]
        order = np.lexsort((t, h, d, heads))  # each head's least offer first
        heads, d, h, t = heads[order], d[order], h[order], t[order]
        best = np.r_[True, heads[1:] != heads[:-1]] if heads.size else np.empty(0, bool)
        heads, d, h, t = heads[best], d[best], h[best], t[best]
        falls = (d < dist[heads]) | ((d == dist[heads]) & (h < hops[heads]))
        ties = ~falls & (d == dist[heads]) & (h == hops[heads]) & (t < pred[heads])
        pred[heads[ties]] = t[ties]
        frontier = heads[falls]
        dist[frontier], hops[frontier], pred[frontier] = d[falls], h[falls], t[falls]
        changed[frontier] = True
        if frontier.size and h[falls].max() >= limit:
            return scanned, True
    return scanned, False


_signed = twins("relax_signed", numba=_signed_numba, numpy=_signed_numpy)


def relax_signed(own, first, labels, keys, seeds, limit, changed):
    """Close a rank's labels under its arcs between its own vertices, from ``seeds`` (local ids
    whose labels are set): ``own`` is (indptr, indices, weights) over its own rows, heads as
    slots, own vertices from slot ``first`` (weights empty: every arc costs 1); ``labels`` is
    (dist, hops, pred) over its own vertices, updated in place, with ``changed`` set where a
    label fell; ``keys`` the keyed id of each own vertex as a tail. Returns (arcs scanned,
    whether a label reached ``limit`` hops: a negative cycle, the labels then half done).

    >>> ptr, idx, w = np.array([0, 1, 2, 2]), np.array([1, 2]), np.array([4.0, -3.0])
    >>> dist, hops, pred = np.array([0.0, np.inf, np.inf]), np.zeros(3, np.int64), np.full(3, -1)
    >>> relax_signed((ptr, idx, w), 0, (dist, hops, pred), np.arange(3), [0], 3, np.zeros(3, bool))
    (2, False)
    >>> dist.tolist(), hops.tolist(), pred.tolist()
    ([0.0, 4.0, 1.0], [0, 1, 2], [-1, 0, 1])
    """
    indptr, indices, weights = own
    dist, hops, pred = labels
    w = np.empty(0) if weights is None else np.asarray(weights, np.float64)
    seeds = np.ascontiguousarray(seeds, dtype=np.int64)
    scanned, negative = _signed(indptr, indices, w, int(first), dist, hops, pred, keys, seeds, int(limit), changed)
    return int(scanned), bool(negative)
