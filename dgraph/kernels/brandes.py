"""Brandes' betweenness accumulation over a whole graph's CSR, for a batch of sources."""

from __future__ import annotations

import numba
import numpy as np

from .atomics import on_threads
from .engines import threads_for, twins
from .frontier import _arcs_numpy
from .sets import unique

# Arcs scanned per thread (sources times arcs) below which a batch runs on one thread
BRANDES_GRAIN = 1 << 22


@numba.njit(cache=True, nogil=True)
def _brandes_numba(indptr, indices, sources, bc):
    n = indptr.size - 1
    level = np.full(n, -1, np.int64)
    sigma = np.zeros(n)
    delta = np.zeros(n)
    queue = np.empty(n, np.int64)  # vertices in the order reached: level by level
    starts = np.empty(n + 2, np.int64)  # where each level begins in the queue
    scale = np.empty(n + 2)  # the largest stored count of the level above each level
    for s in sources:
        queue[0], level[s], sigma[s] = s, 0, 1.0
        head, tail, depth = 0, 1, 0
        starts[0] = 0
        while head < tail:
            end = tail
            starts[depth + 1] = end
            top = 0.0
            for i in range(head, end):
                top = max(top, sigma[queue[i]])
            scale[depth + 1] = top
            inv = 1.0 / top
            for i in range(head, end):
                v = queue[i]
                share = sigma[v] * inv
                for j in range(indptr[v], indptr[v + 1]):
                    w = indices[j]
                    if level[w] < 0:
                        level[w], sigma[w] = depth + 1, share
                        queue[tail] = w
                        tail += 1
                    elif level[w] == depth + 1:
                        sigma[w] += share
            head = end
            depth += 1
        for d in range(depth - 2, -1, -1):  # dependencies, pulled from the level below
            inv = 1.0 / scale[d + 1]
            for i in range(starts[d], starts[d + 1]):
                v = queue[i]
                acc = 0.0
                for j in range(indptr[v], indptr[v + 1]):
                    w = indices[j]
                    if level[w] == d + 1:
                        acc += (1.0 + delta[w]) / sigma[w]
                delta[v] = sigma[v] * acc * inv
        for i in range(1, tail):
            bc[queue[i]] += delta[queue[i]]
        for i in range(tail):
            v = queue[i]
            level[v], sigma[v], delta[v] = -1, 0.0, 0.0


def _brandes_numpy(indptr, indices, sources, bc):
    n = indptr.size - 1
    for s in sources:
        level, sigma, delta = np.full(n, -1, np.int64), np.zeros(n), np.zeros(n)
        level[s], sigma[s] = 0, 1.0
        levels, scale = [np.array([s], np.int64)], [1.0]
        while True:
            front, d = levels[-1], len(levels) - 1
            top = sigma[front].max()
            pos, heads, _ = _arcs_numpy(indptr, indices, np.empty(0), front)
            fresh = unique(heads[level[heads] < 0])
            if fresh.size == 0:
                break
            level[fresh] = d + 1
            down = level[heads] == d + 1
            np.add.at(sigma, heads[down], sigma[front[pos[down]]] / top)
            levels.append(fresh)
            scale.append(top)
        for d in range(len(levels) - 2, -1, -1):
            front = levels[d]
            pos, heads, _ = _arcs_numpy(indptr, indices, np.empty(0), front)
            down = level[heads] == d + 1
            acc = np.bincount(pos[down], weights=(1.0 + delta[heads[down]]) / sigma[heads[down]], minlength=front.size)
            delta[front] = sigma[front] * acc / scale[d + 1]
        delta[s] = 0.0
        bc += delta


def _brandes_threads(indptr, indices, sources, bc):
    # sources are independent: each thread takes every k-th into a sum of its own, and the sums
    # are added in thread order (the same bits for the same thread count)
    k = min(threads_for(sources.size * indices.size, BRANDES_GRAIN), sources.size)
    if k <= 1:
        _brandes_numba(indptr, indices, sources, bc)
        return
    sums = np.zeros((k, bc.size))
    on_threads(lambda t: _brandes_numba(indptr, indices, sources[t::k], sums[t]), k, name="dgraph-bc")
    for t in range(k):
        bc += sums[t]


def brandes(indptr, indices, sources, bc):
    """Add to ``bc`` the dependencies of every vertex on the shortest paths (by hops) from each
    of ``sources``, over a whole graph's CSR (Brandes' accumulation; the sources' own entries
    get nothing). Path counts are stored divided by the largest count of the level above, and
    the backward pass undoes that per level, so counts beyond 1e308 do not overflow. Both
    engines follow the same levels; sums may differ in the last bits by their order, as they do
    where the numba engine shares the sources among ``kernels.threads()`` threads."""
    _brandes(indptr, indices, np.ascontiguousarray(sources, dtype=np.int64), bc)


_brandes = twins("brandes", numba=_brandes_threads, numpy=_brandes_numpy)


@numba.njit(cache=True, nogil=True)
def _sift_down(key, item, size):
    i = 0
    while True:
        a, b, low = 2 * i + 1, 2 * i + 2, i
        if a < size and key[a] < key[low]:
            low = a
        if b < size and key[b] < key[low]:
            low = b
        if low == i:
            return
        key[i], key[low] = key[low], key[i]
        item[i], item[low] = item[low], item[i]
        i = low


@numba.njit(cache=True, nogil=True)
def _sift_up(key, item, i):
    while i > 0:
        up = (i - 1) // 2
        if key[up] <= key[i]:
            return
        key[i], key[up] = key[up], key[i]
        item[i], item[up] = item[up], item[i]
        i = up


@numba.njit(cache=True, nogil=True)
def _paths_numba(indptr, indices, weights, sources, bc, arc_bc):
    n = indptr.size - 1
    edges = arc_bc.size > 0
    dist = np.full(n, np.inf)
    sigma = np.zeros(n)
    delta = np.zeros(n)
    place = np.full(n, -1, np.int64)  # where each vertex was settled: its position in ``order``
    order = np.empty(n, np.int64)
    key = np.empty(indices.size + 1)  # a binary heap of (distance, vertex), stale entries skipped
    item = np.empty(indices.size + 1, np.int64)
    for s in sources:
        dist[s], sigma[s] = 0.0, 1.0
        key[0], item[0], size, settled = 0.0, s, 1, 0
        while size > 0:
            d, v = key[0], item[0]
            size -= 1
            key[0], item[0] = key[size], item[size]
            _sift_down(key, item, size)
            if place[v] >= 0:
                continue
            place[v] = settled
            order[settled] = v
            settled += 1
            for j in range(indptr[v], indptr[v + 1]):
                w = indices[j]
                if place[w] >= 0:
                    continue
                far = d + weights[j]
                if far < dist[w]:
                    dist[w], sigma[w] = far, sigma[v]
                    key[size], item[size] = far, w
                    _sift_up(key, item, size)
                    size += 1
                elif far == dist[w]:
                    sigma[w] += sigma[v]
        for i in range(settled - 1, -1, -1):  # dependencies, pulled from the vertices settled later
            v = order[i]
            acc = 0.0
            for j in range(indptr[v], indptr[v + 1]):
                w = indices[j]
                if place[w] > i and dist[v] + weights[j] == dist[w]:
                    c = (1.0 + delta[w]) / sigma[w]
                    acc += c
                    if edges:
                        arc_bc[j] += sigma[v] * c
            delta[v] = sigma[v] * acc
        for i in range(1, settled):
            bc[order[i]] += delta[order[i]]
        for i in range(settled):
            v = order[i]
            dist[v], sigma[v], delta[v], place[v] = np.inf, 0.0, 0.0, -1


def _paths_numpy(indptr, indices, weights, sources, bc, arc_bc):
    import heapq

    n = indptr.size - 1
    for s in sources:
        dist, sigma, place, order = np.full(n, np.inf), np.zeros(n), np.full(n, -1, np.int64), []
        dist[s], sigma[s] = 0.0, 1.0
        heap = [(0.0, int(s))]
        while heap:
            d, v = heapq.heappop(heap)
            if place[v] >= 0:
                continue
            place[v] = len(order)
            order.append(v)
            lo, hi = indptr[v], indptr[v + 1]
            for w, far in zip(indices[lo:hi].tolist(), (d + weights[lo:hi]).tolist()):
                if place[w] >= 0:
                    continue
                if far < dist[w]:
                    dist[w], sigma[w] = far, sigma[v]
                    heapq.heappush(heap, (far, w))
                elif far == dist[w]:
                    sigma[w] += sigma[v]
        delta = np.zeros(n)
        for i in range(len(order) - 1, -1, -1):
            v = order[i]
            span = np.arange(indptr[v], indptr[v + 1])
            heads = indices[span]
            tight = (place[heads] > i) & (dist[v] + weights[span] == dist[heads])
            c = (1.0 + delta[heads[tight]]) / sigma[heads[tight]]
            if arc_bc.size:
                arc_bc[span[tight]] += sigma[v] * c
            delta[v] = sigma[v] * c.sum()
        delta[s] = 0.0
        bc += delta


def _paths_threads(indptr, indices, weights, sources, bc, arc_bc):
    # as _brandes_threads: each thread its own sums (of arcs too), added in thread order
    k = min(threads_for(sources.size * indices.size, BRANDES_GRAIN), sources.size)
    if k <= 1:
        _paths_numba(indptr, indices, weights, sources, bc, arc_bc)
        return
    sums, arc_sums = np.zeros((k, bc.size)), np.zeros((k, arc_bc.size))
    on_threads(
        lambda t: _paths_numba(indptr, indices, weights, sources[t::k], sums[t], arc_sums[t]), k, name="dgraph-bc"
    )
    for t in range(k):
        bc += sums[t]
        arc_bc += arc_sums[t]


def brandes_paths(indptr, indices, weights, sources, bc, arc_bc):
    """Brandes' accumulation over weighted shortest paths (Dijkstra's order, as networkx's
    ``_single_source_dijkstra_path_basic``: paths of exactly equal length are counted alike):
    add to ``bc`` each vertex's dependency from every one of ``sources``, and, unless
    ``arc_bc`` is empty, to ``arc_bc[j]`` the dependency carried by arc j (networkx's edge
    betweenness before rescaling). ``weights``: non-negative floats, one per arc. A zero-weight
    arc between two vertices settled at the same distance counts from the one settled first
    only (networkx also adds the later one's paths to the earlier one)."""
    arc_bc = np.zeros(0) if arc_bc is None else arc_bc
    sources = np.ascontiguousarray(sources, dtype=np.int64)
    _paths(indptr, indices, np.ascontiguousarray(weights, dtype=np.float64), sources, bc, arc_bc)


_paths = twins("brandes_paths", numba=_paths_threads, numpy=_paths_numpy)
