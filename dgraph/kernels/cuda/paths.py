"""Device twin of the shortest paths inside a rank: Bellman-Ford rounds over a compact frontier
(the vertices improved in the last round and closer than the caller's bound, which is a
delta-stepping bucket of ``dgraph.relax``). A round offers along the frontier's arcs with an
atomic min, then picks each improved vertex's predecessor as the smallest tail (keyed ids,
``owners.keyed``) among the offers that reached its new distance (with ``ties``, also among
equal offers to an unimproved vertex against its current one). Every vertex is expanded once
at its final distance, so the final-distance offers, and with ``ties`` the predecessors, are
Dijkstra's."""

from __future__ import annotations

import numpy as np
from numba import cuda

from ..sets import unique
from . import device
from .frontier import INT_MAX, _arcs_on_device


@cuda.jit(device=True)
def _tail(key, u, base):
    """The id of row u as a tail: keyed by its canonical id where placed ids are not."""
    return (key[u] << 32) | (u + base) if key.size else u + base


@cuda.jit(device=True)
def _offer(front, pos, dst, w, j, lo, hi, dist):
    """(head as a local index or -1, offered distance, tail row) of arc j."""
    u = front[pos[j]]
    v = dst[j]
    if v < lo or v >= hi:
        return -1, 0.0, u
    return v - lo, dist[u] + (w[j] if w.size else 1.0), u


@cuda.jit
def _lower(front, pos, dst, w, lo, hi, dist, best, touched, count, flag):
    for j in range(cuda.grid(1), dst.size, cuda.gridsize(1)):
        v, nd, _ = _offer(front, pos, dst, w, j, lo, hi, dist)
        if v >= 0:
            cuda.atomic.min(best, v, nd)
            if cuda.atomic.cas(flag, v, 0, 1) == 0:
                touched[cuda.atomic.add(count, 0, 1)] = v


@cuda.jit(device=True)
def _wins(nd, v, dist, best, pred, ties):
    return nd == best[v] and (nd < dist[v] or (ties and nd == dist[v] and pred[v] >= 0))


@cuda.jit
def _smallest_tail(front, pos, dst, w, lo, hi, base, dist, best, pred, ties, key, tail):
    for j in range(cuda.grid(1), dst.size, cuda.gridsize(1)):
        v, nd, u = _offer(front, pos, dst, w, j, lo, hi, dist)
        if v >= 0 and _wins(nd, v, dist, best, pred, ties):
            cuda.atomic.min(tail, v, _tail(key, u, base))


@cuda.jit
def _settle(touched, dist, best, pred, tail, ties, changed, flag, bound, front, count):
    for i in range(cuda.grid(1), touched.size, cuda.gridsize(1)):
        v = touched[i]
        if best[v] < dist[v]:
            dist[v] = best[v]
            pred[v] = tail[v]
            changed[v] = True
            if best[v] < bound:
                front[cuda.atomic.add(count, 0, 1)] = v
        elif ties and tail[v] != INT_MAX and tail[v] < pred[v]:
            pred[v] = tail[v]
        tail[v] = INT_MAX
        flag[v] = 0


def relax_local(
    indptr, indices, weights, lo, hi, base, dist, pred, seeds, bound, changed, key, ties, buckets, arcs, counts
):
    # rounds of the whole frontier, as numpy's twin: no queue to order, so ``buckets`` is unused,
    # the arcs are read from ``indices`` and ``weights``, so ``arcs`` is unused too, and no
    # threads search, so ``counts`` stays as it is
    n = hi - lo
    seeds = unique(seeds[dist[seeds] < bound])
    d_dist, d_pred, d_changed = device.mirror(dist), device.mirror(pred), device.mirror(changed)
    best = device.copy(d_dist)  # each round's atomic minimum, equal to dist between rounds
    d_key = device.resident(key) if key.size else device.empty(0, np.int64)
    tail = device.full(n, INT_MAX, np.int64)  # per vertex, the smallest tail that won a round
    flag, touched = device.full(n, 0, np.int8), device.empty(n, np.int64)
    front, k, expanded = device.upload(seeds), seeds.size, 0
    while k:
        rows = device.download(front[:k])  # the frontier's offsets are a scan on the host
        pos, dst, w, total = _arcs_on_device(indptr, indices, weights, rows)
        expanded += total
        count = device.full(1, 0, np.int64)
        if total:
            args = (front, pos, dst, w, lo, hi)
            device.launch(_lower, total, *args, d_dist, best, touched, count, flag)
            device.launch(_smallest_tail, total, *args, base, d_dist, best, d_pred, ties, d_key, tail)
        t = int(device.download(count)[0])
        front, count = device.empty(max(t, 1), np.int64), device.full(1, 0, np.int64)
        if t:
            device.launch(
                _settle,
                t,
                touched[:t],
                d_dist,
                best,
                d_pred,
                tail,
                ties,
                d_changed,
                flag,
                bound,
                front,
                count,
            )
        k = int(device.download(count)[0])
    for host, d in ((dist, d_dist), (pred, d_pred), (changed, d_changed)):
        device.download(d, host)
        device.synced(host)
    return expanded


# kernel name -> device twin (dgraph.kernels.engines adds them to their kernels)
TWINS = {"relax_local": relax_local}
