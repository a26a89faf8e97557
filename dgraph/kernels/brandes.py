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
