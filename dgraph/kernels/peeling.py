"""Core numbers settled on a rank: Batagelj and Zaversnik's bucket peel, generalised to values
that are only upper bounds and to neighbours (ghosts) whose values are fixed.

``peel_cores`` gives, for a rank's own vertices, the greatest solution y <= x (x: their current
values, upper bounds of their core numbers) of y_v = min(x_v, h-index of the values of v's
neighbours), the ghosts' values held fixed: the fixpoint the h-index iteration (Montresor et
al., 2013) reaches from x when only the own vertices move, in one O(arcs + ghost arcs + vertices)
pass instead of a round per step. Level by level (k = 0, 1, ...), a vertex leaves with value k
once its bound or its count of neighbours still in (own ones not yet peeled, ghosts above k) is
at most k; a ghost leaves at its value. A bound then acts like the degree in the classic peel,
which is the case x = degree without ghosts (V. Batagelj, M. Zaversnik, "An O(m) algorithm for
cores decomposition of networks", 2003). ``settle_cores`` reaches the same fixpoint from values
already settled but for a few rows (the readers of ghosts that moved), by a worklist of h-index
steps, so that later supersteps cost what changes rather than a peel each.
"""

from __future__ import annotations

import numba
import numpy as np

from .engines import twins


@numba.njit(cache=True, inline="always")
def _lower(c, k, first, left, est, pos, order, start):
    """Vertex slot ``c`` lost a neighbour while level ``k`` peels: one bucket down if it was
    above ``k`` and its count no longer covers its bucket."""
    e = est[c]
    if e <= k:  # peeled already, or peeling at this level: its count no longer matters
        return
    u = c - first
    left[u] -= 1
    if left[u] < e:
        # the classic move: swap c with the first of its bucket, which then starts one later
        p, q = pos[c], start[e]
        w = order[q]
        order[p], order[q] = w, c
        pos[c], pos[w] = q, p
        start[e] += 1
        est[c] = e - 1


@numba.njit(cache=True)
def _peel_numba(indptr, indices, first, values, gptr, grows, like):
    n = indptr.size - 1
    size = values.size
    top = 0
    for u in range(n):
        top = max(top, min(values[first + u], indptr[u + 1] - indptr[u]))
    # a ghost above every own bound peels after all of them: the same as no bound at all
    est = np.empty(size, like.dtype)
    for s in range(size):
        est[s] = min(values[s], top)
    left = np.empty(n, like.dtype)  # arcs to neighbours still in
    for u in range(n):
        left[u] = indptr[u + 1] - indptr[u]
        est[first + u] = min(est[first + u], left[u])
    start = np.zeros(top + 2, np.int64)  # where each bucket's unpeeled slots begin in ``order``
    for s in range(size):
        start[est[s] + 1] += 1
    for k in range(1, top + 2):
        start[k] += start[k - 1]
    fill = start.copy()
    order = np.empty(size, like.dtype)
    pos = np.empty(size, like.dtype)
    for s in range(size):
        p = fill[est[s]]
        fill[est[s]] += 1
        order[p], pos[s] = s, p
    for i in range(size):
        s = order[i]
        k = est[s]
        if first <= s < first + n:
            u = s - first
            for j in range(indptr[u], indptr[u + 1]):
                c = indices[j]
                if first <= c < first + n:
                    _lower(c, k, first, left, est, pos, order, start)
        else:
            for j in range(gptr[s], gptr[s + 1]):
                _lower(first + grows[j], k, first, left, est, pos, order, start)
    return est[first : first + n].astype(np.int64)


@numba.njit(cache=True)
def _settle_numba(indptr, indices, first, values, gptr, grows, like, rows):
    n = indptr.size - 1
    cur = values.copy()
    top = 0
    for u in range(n):
        top = max(top, cur[first + u])
    count = np.zeros(top + 2, np.int64)
    queue = np.empty(max(n, 1), np.int64)  # a ring: each row in it at most once
    queued = np.zeros(n, np.bool_)
    head, size = 0, 0
    for v in rows:
        if not queued[v]:
            queued[v] = True
            queue[(head + size) % n] = v
            size += 1
    budget = indptr[n] - indptr[0] + n  # a whole peel's work: past it, the peel finishes
    while size:
        v = queue[head]
        head, size = (head + 1) % n, size - 1
        queued[v] = False
        cap, s, e = cur[first + v], indptr[v], indptr[v + 1]
        budget -= e - s + 1
        for j in range(s, e):
            count[min(cur[indices[j]], cap)] += 1
        h, above = cap, 0
        while h > 0:
            above += count[h]
            if above >= h:
                break
            h -= 1
        for j in range(s, e):
            count[min(cur[indices[j]], cap)] = 0
        if h < cap:
            cur[first + v] = h
            for j in range(s, e):  # the neighbours v counted for and no longer does
                c = indices[j] - first
                if 0 <= c < n and h < cur[first + c] <= cap and not queued[c]:
                    queued[c] = True
                    queue[(head + size) % n] = c
                    size += 1
        if budget < 0:
            return _peel_numba(indptr, indices, first, cur, gptr, grows, like)
    return cur[first : first + n].copy()


def _settle_numpy(indptr, indices, first, values, gptr, grows, like, rows):
    return _peel_numpy(indptr, indices, first, values, gptr, grows, like)


def _peel_numpy(indptr, indices, first, values, gptr, grows, like):
    # level by level, whole-rank passes: a vertex leaves at level k once its bound or its count
    # of neighbours still in (own ones not yet out, ghosts above k) is at most k
    n = indptr.size - 1
    degree = np.diff(indptr)
    bound = np.minimum(values[first : first + n], degree).astype(np.int64)
    rows = np.repeat(np.arange(n), degree)
    cols = np.asarray(indices, dtype=np.int64)
    own = (cols >= first) & (cols < first + n)
    own_col = np.where(own, cols - first, 0)
    out, inside, k = bound.copy(), np.ones(n, dtype=bool), 0
    while inside.any():
        while True:
            counts = np.where(own, inside[own_col], values[cols] > k)
            still = np.bincount(rows, weights=counts, minlength=n)
            leave = inside & (np.minimum(bound, still) <= k)
            if not leave.any():
                break
            out[leave], inside[leave] = k, False
        k += 1
    return out


def peel_cores(block, first, values, ghost_ptr, ghost_rows):
    """The own vertices' settled values (int64, one per row of ``block``): the greatest y <= x
    with y_v = min(x_v, h-index of v's neighbours' values), where ``values`` (int64 over the
    block's space) holds x at the own slots ``first:first + block.nlocal`` and the ghosts' fixed
    values elsewhere. ``ghost_ptr``/``ghost_rows``: a CSR over the space listing, for each ghost
    slot, the local rows that read it (once per arc); empty rows at the own slots. (The numba
    twin keeps its arrays in int32 where they fit, named by ``like``'s dtype.)"""
    return _peel(block.indptr, block.indices, int(first), values, ghost_ptr, ghost_rows, _like(block, values))


def _like(block, values):
    """An empty array of the dtype of the peel's own arrays: int32 (half the cache) where fit."""
    largest = max(values.size, int(np.diff(block.indptr).max(initial=0)))
    return np.empty(0, np.int32 if largest < 2**31 else np.int64)


_peel = twins("peel_cores", numba=_peel_numba, numpy=_peel_numpy)


def settle_cores(block, first, values, ghost_ptr, ghost_rows, rows):
    """``peel_cores``' answer where only ``rows`` (local rows) may be out of their fixpoint (the
    readers of ghosts that moved since the values were settled): the h-index of those rows and,
    as they drop, of the neighbours they counted for, until none drops; work follows what
    changes. Past a whole peel's work, the peel finishes from the values reached (still bounds)."""
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    like = _like(block, values)
    return _settle(block.indptr, block.indices, int(first), values, ghost_ptr, ghost_rows, like, rows)


_settle = twins("settle_cores", numba=_settle_numba, numpy=_settle_numpy)
