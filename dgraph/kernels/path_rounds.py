"""Delta-stepping's bookkeeping across ranks: a rank's light arcs (``light_rows``), the merged
offers that improve distances (``improve``) and a round's pick of the pending vertices below
its bucket's threshold (``take_below``)."""

from __future__ import annotations

import numba
import numpy as np

from .engines import twins


@numba.njit(cache=True)
def _light_fill(indptr, indices, weights, delta, ids, lptr, lidx, lw):
    a, loops = 0, 0
    for r in range(indptr.size - 1):
        for e in range(indptr[r], indptr[r + 1]):
            if weights[e] < delta:
                lidx[a], lw[a] = indices[e], weights[e]
                a += 1
                loops += indices[e] == ids[r]
        lptr[r + 1] = a
    return a, loops


def _light_rows_numba(indptr, indices, weights, delta, ids):
    # one pass into room for every arc, of which only the pages the light arcs reach are ever
    # touched; copied out to their size when they fill less than half of it
    lptr = np.zeros(indptr.size, np.int64)
    lidx, lw = np.empty(indices.size, indices.dtype), np.empty(indices.size, weights.dtype)
    nl, loops = _light_fill(indptr, indices, weights, delta, ids, lptr, lidx, lw)
    if 2 * nl < indices.size:
        lidx, lw = lidx[:nl].copy(), lw[:nl].copy()
    return lptr, lidx[:nl], lw[:nl], loops


def light_rows(csr, delta, ids):
    """The arcs of a weighted CSR (a ``LocalCSR``) lighter than ``delta``, rows and their order
    kept: (indptr, indices, weights, self-loops); ``ids``: each row's vertex id."""
    return _light(csr.indptr, csr.indices, csr.weights, delta, ids)


def _light_rows_numpy(indptr, indices, weights, delta, ids):
    rows = np.repeat(np.arange(indptr.size - 1), np.diff(indptr))
    keep = weights < delta
    ptr = np.r_[0, np.cumsum(np.bincount(rows[keep], minlength=indptr.size - 1))].astype(np.int64)
    return ptr, indices[keep], weights[keep], int(np.count_nonzero(indices[keep] == ids[rows[keep]]))


_light = twins("light_rows", numba=_light_rows_numba, numpy=_light_rows_numpy)


@numba.njit(cache=True)
def _improve_numba(ids, d, tails, dist, pred, pending, ties):
    queued = np.empty(ids.size, np.int64)
    c = 0
    for i in range(ids.size):
        v, x, t = ids[i], d[i], tails[i]
        if x < dist[v]:
            dist[v] = x
            pred[v] = t
            if not pending[v]:
                pending[v] = True
                queued[c] = v
                c += 1
        elif ties and x == dist[v] and pred[v] >= 0 and t < pred[v]:
            pred[v] = t
    return queued[:c]


def _improve_numpy(ids, d, tails, dist, pred, pending, ties):
    if ties:
        tied = np.flatnonzero((d == dist[ids]) & (pred[ids] >= 0))
        tied = tied[tails[tied] < pred[ids[tied]]]
        pred[ids[tied]] = tails[tied]
    better = d < dist[ids]
    ids = ids[better]
    dist[ids], pred[ids] = d[better], tails[better]
    queued = ids[~pending[ids]]
    pending[ids] = True
    return queued


_improve = twins("improve", numba=_improve_numba, numpy=_improve_numpy)


def improve(ids, d, tails, dist, pred, pending, ties):
    """Take the merged offers (distinct local ``ids``, distances ``d``, tails) that improve
    ``dist`` (updating ``pred``), or with ``ties`` equal it from a smaller tail (only ``pred``;
    tails are keyed ids, ``owners.keyed``); returns the improved ids that were not ``pending``
    before, now marked pending."""
    return _improve(
        np.ascontiguousarray(ids, dtype=np.int64),
        np.ascontiguousarray(d, dtype=np.float64),
        np.ascontiguousarray(tails, dtype=np.int64),
        dist,
        pred,
        pending,
        bool(ties),
    )


@numba.njit(cache=True)
def _take_below_numba(queue, dist, threshold, pending):
    active = np.empty(queue.size, np.int64)
    rest = np.empty(queue.size, np.int64)
    a, b, closest = 0, 0, np.inf
    for v in queue:
        x = dist[v]
        if x < threshold:
            active[a] = v
            a += 1
            pending[v] = False
        else:
            rest[b] = v
            b += 1
            closest = min(closest, x)
    return active[:a], rest[:b], closest


def _take_below_numpy(queue, dist, threshold, pending):
    d = dist[queue]
    below = d < threshold
    active, rest = queue[below], queue[~below]
    pending[active] = False
    return active, rest, float(d[~below].min()) if rest.size else np.inf


_take_below = twins("take_below", numba=_take_below_numba, numpy=_take_below_numpy)


def take_below(queue, dist, threshold, pending):
    """A round's pick from the pending ids ``queue``: those closer than ``threshold``
    (``active``, their ``pending`` flags cleared) and the rest with the least of their
    distances, in one pass: (active, rest, closest), each in queue order."""
    return _take_below(queue, dist, float(threshold), pending)
