"""Drawing arcs from rows: each row's running sum of its weights (for a draw proportional to
weight) and searches within rows (the arc a running sum falls in; whether a row holds a vertex).

A row's running sum starts afresh at the row, added in its arc order, so it is the same bits
whatever rows a rank holds before it: a draw is the same on every rank count.
"""

from __future__ import annotations

import numba
import numpy as np

from .engines import twins

LONG_ROW = 256  # rows longer than this are summed one at a time by the numpy twin


@numba.njit(cache=True)
def _prefix_numba(indptr, weights, out):
    for r in range(indptr.size - 1):
        total = 0.0
        for e in range(indptr[r], indptr[r + 1]):
            total += weights[e]
            out[e] = total


def _prefix_numpy(indptr, weights, out):
    # short rows a column at a time (the same additions, in the same order, as one row's loop)
    deg = np.diff(indptr)
    short = np.flatnonzero((deg > 0) & (deg <= LONG_ROW))
    at = indptr[short].astype(np.int64)
    if short.size:
        out[at] = weights[at]
    for j in range(1, int(deg[short].max(initial=0))):
        live = deg[short] > j
        at, short = at[live], short[live]
        out[at + j] = out[at + j - 1] + weights[at + j]
    for r in np.flatnonzero(deg > LONG_ROW):
        a, b = indptr[r], indptr[r + 1]
        np.cumsum(weights[a:b], out=out[a:b])


_prefix = twins("row_prefix", numba=_prefix_numba, numpy=_prefix_numpy)


def row_prefix(indptr: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Each arc's running sum of its row's weights, from the row's first arc (float64).

    >>> row_prefix(np.array([0, 2, 2, 5]), np.array([1.0, 2.0, 0.5, 0.5, 1.0])).tolist()
    [1.0, 3.0, 0.5, 1.0, 2.0]
    """
    out = np.empty(weights.size, np.float64)
    _prefix(indptr, np.ascontiguousarray(weights, dtype=np.float64), out)
    return out


@numba.njit(cache=True)
def _search_plain(starts, ends, values, targets, right, out):
    for i in range(starts.size):
        lo, hi, t = starts[i], ends[i], targets[i]
        while lo < hi:
            mid = (lo + hi) // 2
            if values[mid] < t or (right and values[mid] == t):
                lo = mid + 1
            else:
                hi = mid
        out[i] = lo


@numba.njit(cache=True)
def _search_keyed(starts, ends, values, keys, targets, right, out):
    for i in range(starts.size):
        lo, hi, t = starts[i], ends[i], targets[i]
        while lo < hi:
            mid = (lo + hi) // 2
            v = keys[values[mid]]
            if v < t or (right and v == t):
                lo = mid + 1
            else:
                hi = mid
        out[i] = lo


def _search_numba(starts, ends, values, keys, targets, right, out):
    if keys.size:
        _search_keyed(starts, ends, values, keys, targets, right, out)
    else:
        _search_plain(starts, ends, values, targets, right, out)


def _search_numpy(starts, ends, values, keys, targets, right, out):
    lo, hi = starts.astype(np.int64), ends.astype(np.int64)
    live = np.flatnonzero(lo < hi)
    while live.size:
        mid = (lo[live] + hi[live]) // 2
        v = keys[values[mid]] if keys.size else values[mid]
        t = targets[live]
        go = (v < t) | (right & (v == t))
        lo[live[go]] = mid[go] + 1
        hi[live[~go]] = mid[~go]
        live = live[lo[live] < hi[live]]
    out[:] = lo


_search = twins("search_rows", numba=_search_numba, numpy=_search_numpy)


def search_rows(
    starts: np.ndarray,
    ends: np.ndarray,
    values: np.ndarray,
    targets: np.ndarray,
    *,
    keys: np.ndarray | None = None,
    right: bool = False,
) -> np.ndarray:
    """For each i, the first position p in ``starts[i]:ends[i]`` whose value is at least
    ``targets[i]`` (``right``: above it), ``ends[i]`` if none: a binary search in each span
    of ``values``, sorted within it. With ``keys`` a position's value is ``keys[values[p]]``
    (a row's heads compared by their canonical ids).

    >>> values = np.array([1.0, 3.0, 4.0, 2.0, 9.0])  # two spans: 0..2 and 3..4
    >>> search_rows(np.array([0, 3]), np.array([3, 5]), values, np.array([3.0, 9.5])).tolist()
    [1, 5]
    """
    out = np.empty(np.size(starts), np.int64)
    none = np.empty(0, np.int64)
    ints = lambda a: np.ascontiguousarray(a, dtype=np.int64)  # noqa: E731
    values = np.ascontiguousarray(values)
    targets = np.ascontiguousarray(targets, dtype=values.dtype if keys is None else np.asarray(keys).dtype)
    _search(ints(starts), ints(ends), values, none if keys is None else ints(keys), targets, bool(right), out)
    return out
