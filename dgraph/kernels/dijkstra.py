"""Rank-local shortest paths on one thread: Dijkstra with a 4-ary heap or a ring of buckets, a
FIFO where every arc costs 1, Bellman-Ford rounds as the numpy twin; the rows whose arcs leave a
rank (``rows_leaving``) and the bucket ring's shape (``bucket_queue``). ``paths.relax_local``
chooses among them and the searches on several threads (``delta_threads``)."""

from __future__ import annotations

import numba
import numpy as np

from .engines import twins
from .frontier import _arcs_numpy


@numba.njit(cache=True, inline="always")
def _heap_up(hd, hv, pos, j):
    """Move entry j of the 4-ary min-heap (distance ``hd``, vertex ``hv``; ``pos``: each
    vertex's slot) up to its place."""
    d, v = hd[j], hv[j]
    while j > 0:
        p = (j - 1) >> 2
        if hd[p] <= d:
            break
        hd[j], hv[j] = hd[p], hv[p]
        pos[hv[j]] = j
        j = p
    hd[j], hv[j], pos[v] = d, v, j


@numba.njit(cache=True, inline="always")
def _heap_down(hd, hv, pos, size):
    """Refill the root of a heap that just lost it with its last entry (at ``size``)."""
    d, v, j = hd[size], hv[size], 0
    while True:
        c = 4 * j + 1
        if c >= size:
            break
        best, bd = c, hd[c]
        for k in range(c + 1, min(c + 4, size)):
            if hd[k] < bd:
                best, bd = k, hd[k]
        if bd >= d:
            break
        hd[j], hv[j] = bd, hv[best]
        pos[hv[j]] = j
        j = best
    hd[j], hv[j], pos[v] = d, v, j


@numba.njit(cache=True)
def _relax_numba(indptr, indices, weights, lo, hi, base, dist, pred, seeds, bound, changed, key, ties):
    # Dijkstra with an indexed 4-ary heap: an improvement moves the vertex's entry up instead of
    # adding one, so the heap holds each vertex once (social graphs improve a vertex many times)
    n = hi - lo
    pos = np.full(n, -1, np.int64)
    hd = np.empty(n, np.float64)
    hv = np.empty(n, np.int64)
    size = 0
    for s in seeds:
        if dist[s] < bound and pos[s] < 0:
            hd[size], hv[size] = dist[s], s
            _heap_up(hd, hv, pos, size)
            size += 1
    expanded = 0
    while size:
        u, d = hv[0], hd[0]
        pos[u] = -1
        size -= 1
        if size:
            _heap_down(hd, hv, pos, size)
        expanded += indptr[u + 1] - indptr[u]
        t = (key[u] << 32) | (u + base) if key.size else u + base
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            if v < lo or v >= hi:
                continue
            v -= lo
            nd = d + (weights[e] if weights.size else 1.0)
            if ties and nd == dist[v]:  # an equal offer: the smaller canonical tail wins
                if pred[v] >= 0 and t < pred[v]:
                    pred[v] = t
            elif nd < dist[v]:
                dist[v] = nd
                pred[v] = t
                changed[v] = True
                if nd < bound:
                    j = pos[v]
                    if j < 0:
                        j = size
                        size += 1
                    hd[j], hv[j] = nd, v
                    _heap_up(hd, hv, pos, j)
    return expanded


@numba.njit(cache=True)
def _relax_buckets_numba(indptr, indices, weights, lo, hi, base, dist, pred, seeds, bound, changed, key, ties, buckets):
    # Dijkstra's order to within a bucket width (Dial's buckets): a vertex waits in the bucket of
    # floor(dist / width), a circular array of ``slots`` lists (doubly linked through nxt and
    # prv, so an improvement moves it in O(1)); a pop takes any vertex of the lowest bucket. A
    # vertex improved after its pop waits again, so the distances are the heap's (Meyer and
    # Sanders: with width below the lightest arc none is). Every waiting vertex is less than
    # the largest weight above the bucket being emptied, so slots > largest / width + 1 never
    # wrap onto one still waiting; seeds, sorted, join when their bucket is that close. The offer
    # step repeats _relax_numba's, for the reason _relax_unit_numba gives.
    width, slots, _ = buckets
    inv = 1.0 / width
    n = hi - lo
    nxt = np.full(n, -1, np.int32)
    prv = np.full(n, -1, np.int32)
    at = np.full(n, -1, np.int32)  # the slot a vertex waits in; -1: not waiting
    head = np.full(slots, -1, np.int32)
    seeds = seeds[dist[seeds] < bound]
    sd = dist[seeds]
    order = np.argsort(sd, kind="mergesort")
    seeds, sd = seeds[order], sd[order]
    waiting, i, expanded = 0, 0, 0
    c = int(sd[0] * inv) if seeds.size else 0  # the bucket being emptied
    while True:
        while i < seeds.size and int(sd[i] * inv) < c + slots - 1:
            s = seeds[i]
            i += 1
            if at[s] < 0 and dist[s] == sd[i - 1]:  # else improved since: it waits or was expanded
                j = int(sd[i - 1] * inv) % slots
                nxt[s], prv[s], at[s] = head[j], -1, j
                if head[j] >= 0:
                    prv[head[j]] = s
                head[j] = s
                waiting += 1
        if waiting == 0:
            if i == seeds.size:
                return expanded
            c = int(sd[i] * inv)
            continue
        j = c % slots
        u = head[j]
        if u < 0:
            c += 1
            continue
        head[j] = nxt[u]
        if nxt[u] >= 0:
            prv[nxt[u]] = -1
        at[u] = -1
        waiting -= 1
        d = dist[u]
        expanded += indptr[u + 1] - indptr[u]
        t = (key[u] << 32) | (u + base) if key.size else u + base
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            if v < lo or v >= hi:
                continue
            v -= lo
            nd = d + weights[e]
            if ties and nd == dist[v]:  # an equal offer: the smaller canonical tail wins
                if pred[v] >= 0 and t < pred[v]:
                    pred[v] = t
            elif nd < dist[v]:
                dist[v] = nd
                pred[v] = t
                changed[v] = True
                if nd < bound:
                    k = int(nd * inv) % slots
                    if at[v] == k:
                        continue
                    if at[v] >= 0:  # waiting in a later bucket: unlinked from it
                        if prv[v] >= 0:
                            nxt[prv[v]] = nxt[v]
                        else:
                            head[at[v]] = nxt[v]
                        if nxt[v] >= 0:
                            prv[nxt[v]] = prv[v]
                    else:
                        waiting += 1
                    nxt[v], prv[v], at[v] = head[k], -1, k
                    if head[k] >= 0:
                        prv[head[k]] = v
                    head[k] = v


@numba.njit(cache=True)
def _relax_unit_numba(indptr, indices, lo, hi, base, dist, pred, seeds, bound, changed, key, ties):
    # Every arc costs 1: Dijkstra's order is a FIFO queue merged with the seeds sorted by
    # distance (both nondecreasing), O(n + m) with no heap. A vertex improved from a vertex at
    # distance d gets d + 1, which nothing popped later can beat, so it is queued at most once.
    # The offer step repeats _relax_numba's on purpose: as a shared inlined njit helper it made
    # both kernels several times slower.
    seeds = seeds[dist[seeds] < bound]
    sd = dist[seeds]
    order = np.argsort(sd, kind="mergesort")
    seeds, sd = seeds[order], sd[order]
    queue = np.empty(hi - lo, np.int64)
    head, tail, i, expanded = 0, 0, 0, 0
    while i < seeds.size or head < tail:
        if head == tail or (i < seeds.size and sd[i] <= dist[queue[head]]):
            u, d = seeds[i], sd[i]
            i += 1
            if d > dist[u]:
                continue  # improved since: its queue entry expands it
        else:
            u = queue[head]
            d = dist[u]
            head += 1
        expanded += indptr[u + 1] - indptr[u]
        nd = d + 1.0
        t = (key[u] << 32) | (u + base) if key.size else u + base
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            if v < lo or v >= hi:
                continue
            v -= lo
            if ties and nd == dist[v]:  # an equal offer: the smaller canonical tail wins
                if pred[v] >= 0 and t < pred[v]:
                    pred[v] = t
            elif nd < dist[v]:
                dist[v] = nd
                pred[v] = t
                changed[v] = True
                if nd < bound:
                    queue[tail] = v
                    tail += 1
    return expanded


def _relax_numpy(
    indptr, indices, weights, lo, hi, base, dist, pred, seeds, bound, changed, key, ties, buckets, arcs, counts
):
    # Bellman-Ford by rounds over the local arcs (any ``buckets``, ``arcs`` and ``counts`` aside):
    # Dijkstra's distances
    front, expanded = seeds[dist[seeds] < bound], 0
    while front.size:
        pos, dst, w = _arcs_numpy(indptr, indices, weights, front)
        expanded += dst.size
        inside = np.flatnonzero((dst >= lo) & (dst < hi))
        pos, dst = pos[inside], dst[inside] - lo
        nd = dist[front[pos]] + (w[inside] if weights.size else 1.0)
        tails = front[pos] + base
        if key.size:
            tails |= key[front[pos]] << 32
        order = np.lexsort((tails, nd, dst))
        tails, dst, nd = tails[order], dst[order], nd[order]
        best = np.r_[True, dst[1:] != dst[:-1]] if dst.size else np.zeros(0, bool)
        tails, dst, nd = tails[best], dst[best], nd[best]
        if ties:
            tied = np.flatnonzero((nd == dist[dst]) & (pred[dst] >= 0))
            tied = tied[tails[tied] < pred[dst[tied]]]
            pred[dst[tied]] = tails[tied]
        better = nd < dist[dst]
        tails, dst, nd = tails[better], dst[better], nd[better]
        dist[dst], pred[dst], changed[dst] = nd, tails, True
        front = dst[nd < bound]
    return expanded


@numba.njit(cache=True)
def _leaving_numba(indptr, indices, lo, hi):
    out = np.zeros(indptr.size - 1, np.bool_)
    for u in range(indptr.size - 1):
        for e in range(indptr[u], indptr[u + 1]):
            if indices[e] < lo or indices[e] >= hi:
                out[u] = True
                break
    return out


def rows_leaving(indptr, indices, lo, hi):
    """Which rows have an arc whose head lies outside [lo, hi)."""
    return _leaving(indptr, indices, int(lo), int(hi))


def _leaving_numpy(indptr, indices, lo, hi):
    leaving = np.r_[0, np.cumsum((indices < lo) | (indices >= hi))]
    return leaving[indptr[1:]] > leaving[indptr[:-1]]


_leaving = twins("rows_leaving", numba=_leaving_numba, numpy=_leaving_numpy)


def bucket_queue(weights, mean_largest=None, lightest=None):
    """``relax_local``'s ``buckets`` for these arc weights: (width, slots, delta), a width of an
    eighth of the mean weight (few vertices wait twice, so the search scans barely more arcs
    than Dijkstra's without a heap), at least 1/4096 of the largest (a bounded ring of slots);
    None where a heap serves better (no weights, or none above 0). ``delta``: the bucket width of
    the search on several threads, two mean weights (on roads wider buckets mean fewer
    barriers; on a grid the time barely moves from a quarter of the mean to two).
    ``mean_largest``: the mean and the largest weight where they are known (a graph's serve any
    subset of its arcs: the largest bounds theirs), which saves reading every weight twice.
    ``lightest``: the least weight, given where a vertex has more than ``HUB_ARCS`` arcs: the
    width is then at most that, so that no vertex waits twice (Meyer and Sanders) and no hub's
    arcs are read twice, and delta at most two of it (a skewed graph's hubs would otherwise
    scan their arcs again and again). benchmarks/results/gap.md has the searches' times."""
    if weights is None or weights.size == 0:
        return None
    mean, largest = (float(weights.mean()), float(weights.max())) if mean_largest is None else mean_largest
    least = np.inf if lightest is None else float(lightest)
    width = max(min(float(mean) / 8, least), float(largest) / 4096)
    if not (width > 0 and np.isfinite(largest)):
        return None
    delta = max(min(2 * float(mean), 2 * least), width)
    return width, int(largest / width) + 3, delta  # one slot more than needed: rounding at bucket edges


# Arcs above which a vertex is a hub, whose arcs a bucket queue should read once (``bucket_queue``)
HUB_ARCS = 64
