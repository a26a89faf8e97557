"""Louvain's local moving on one rank: each own vertex, in a given order, leaves its community and
joins the neighbouring community with the largest modularity gain (staying on ties)."""

from __future__ import annotations

import numba
import numpy as np

from .engines import twins

TIE = 1e-12  # gains closer than this are equal: the move must win by more


@numba.njit(cache=True)
def _moving_numba(indptr, cols, w, first, k, ccol, tot, size, scale, order, kin, seen, touched):
    moved = 0
    for v in order:
        sv = first + v
        co = ccol[sv]
        kv = k[v]
        nt = 0
        for e in range(indptr[v], indptr[v + 1]):
            s = cols[e]
            if s == sv:
                continue  # a loop stays with its vertex wherever it goes
            c = ccol[s]
            if not seen[c]:
                seen[c] = True
                touched[nt] = c
                nt += 1
            kin[c] += w[e]
        tot[co] -= kv
        size[co] -= 1
        best, best_gain = co, kin[co] - tot[co] * kv * scale
        for i in range(nt):
            c = touched[i]
            if c == co or (size[co] == 0 and size[c] == 1 and c > co):
                continue  # two singletons join the smaller: they cannot swap into each other
            gain = kin[c] - tot[c] * kv * scale
            if gain > best_gain + TIE or (gain > best_gain - TIE and best != co and c < best):
                best, best_gain = c, gain
        tot[best] += kv
        size[best] += 1
        if best != co:
            ccol[sv] = best
            moved += 1
        for i in range(nt):
            kin[touched[i]] = 0.0
            seen[touched[i]] = False
    return moved


def _moving_numpy(indptr, cols, w, first, k, ccol, tot, size, scale, order, kin, seen, touched):
    # the sweep is sequential by nature (each move changes the next vertex's gains): a loop over
    # vertices, each row's community weights summed by numpy
    moved = 0
    for v in order:
        sv = first + int(v)
        co = int(ccol[sv])
        kv = k[v]
        row = slice(indptr[v], indptr[v + 1])
        keep = cols[row] != sv
        comms, weights = ccol[cols[row][keep]], w[row][keep]
        ids, inverse = np.unique(comms, return_inverse=True)
        sums = np.bincount(inverse, weights=weights, minlength=ids.size)
        tot[co] -= kv
        size[co] -= 1
        own = np.flatnonzero(ids == co)
        best, best_gain = co, (sums[own[0]] if own.size else 0.0) - tot[co] * kv * scale
        for c, kc in zip(ids.tolist(), sums.tolist()):
            if c == co or (size[co] == 0 and size[c] == 1 and c > co):
                continue
            gain = kc - tot[c] * kv * scale
            if gain > best_gain + TIE or (gain > best_gain - TIE and best != co and c < best):
                best, best_gain = c, gain
        tot[best] += kv
        size[best] += 1
        if best != co:
            ccol[sv] = best
            moved += 1
    return moved


_moving = twins("local_moving", numba=_moving_numba, numpy=_moving_numpy)


def local_moving(indptr, cols, w, first, k, ccol, tot, size, scale, order):
    """One sweep of Louvain's local moving over a rank's rows, in ``order`` (local row ids).

    Row v is the vertex in slot ``first + v`` of the rank's space; ``cols`` are the arcs' other
    ends as slots, ``w`` their weights (a loop doubled); ``k`` the rows' weighted degrees.
    ``ccol`` gives each slot's community as an index into ``tot`` and ``size`` (the total degree
    and member count of each community the rank sees, in ascending community id), all three
    updated in place as vertices move. A vertex moves to the community C maximising
    ``k_v,C - tot_C k_v scale`` (``scale`` = resolution / 2m) when that beats staying by more
    than ``TIE``; ties go to the smaller community, and a singleton joins another singleton only
    if that one's id is smaller. Returns how many vertices moved.

    >>> indptr, cols = np.array([0, 1, 2, 2]), np.array([1, 0])
    >>> ccol, tot, size = np.array([0, 1, 2]), np.array([1.0, 1.0, 0.0]), np.array([1, 1, 1])
    >>> local_moving(indptr, cols, np.ones(2), 0, np.array([1.0, 1.0, 0.0]), ccol, tot, size, 0.5,
    ...              np.arange(3))
    1
    >>> ccol.tolist(), tot.tolist(), size.tolist()
    ([0, 0, 2], [2.0, 0.0, 0.0], [2, 0, 1])
    """
    n = tot.size
    return int(
        _moving(
            indptr,
            np.ascontiguousarray(cols, dtype=np.int64),
            np.ascontiguousarray(w, dtype=np.float64),
            int(first),
            k,
            ccol,
            tot,
            size,
            float(scale),
            np.ascontiguousarray(order, dtype=np.int64),
            np.zeros(n),
            np.zeros(n, np.bool_),
            np.empty(n, np.int64),
        )
    )
