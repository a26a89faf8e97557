"""Aggregation's sums, the next level of Louvain's and Leiden's made from a level's arcs: the
arcs summed by (group of the row, group of the other end) on a rank (``sum_row_pairs``), and
such sums received in pieces summed again at their home (``sum_rows``). Both give the next
level's rows as a CSR with each row's weight, its ends' ids in int32 while they fit."""

from __future__ import annotations

import numba
import numpy as np

from ..owners import index_type
from .engines import twins


@numba.njit(cache=True)
def _add_arc(where, first, n, y, weight, ob, ow):
    # an arc to y added to the current row of the output (from ``first``; ``where``: each end's
    # place, if in this row): summed into its end's arc, or a new one; the output's new length
    if where[y] >= first:
        ow[where[y]] += weight
        return n
    where[y] = n
    ob[n], ow[n] = y, weight
    return n + 1


@numba.njit(cache=True)
def _as_rows(start, ob, ow, n):
    # the first n summed arcs, copied when summing freed much of them (pairs of distinct ends
    # are many, and often all kept), and each row's weight, summed in arc order as bincount sums
    if 2 * n <= ob.size:
        ob, ow = ob[:n].copy(), ow[:n].copy()
    k = np.zeros(start.size - 1)
    for x in range(start.size - 1):
        for i in range(start[x], start[x + 1]):
            k[x] += ow[i]
    return start, ob[:n], ow[:n], k


def _sum_rows_numba(starts, bs, ws, na, nb, ids):
    if not bs:  # (numba types no empty tuple): no arcs
        return np.zeros(na + 1, dtype=np.int64), ids[:0].copy(), np.empty(0), np.zeros(na)
    return _summed_rows(starts, bs, ws, na, nb, ids)


@numba.njit(cache=True)
def _summed_rows(starts, bs, ws, na, nb, ids):
    # the pieces' rows read in turn, row by row: no sort, and every write in order
    total = 0
    for p in range(len(bs)):
        total += bs[p].size
    where = np.full(nb, -1, dtype=np.int64)  # b's place in the output, if set in the current row
    out = np.zeros(na + 1, dtype=np.int64)
    ob, ow = np.empty(total, ids.dtype), np.empty(total, np.float64)
    n = 0
    for x in range(na):
        first = n
        for p in range(len(bs)):
            start, b, w = starts[p], bs[p], ws[p]
            for j in range(start[x], start[x + 1]):
                n = _add_arc(where, first, n, b[j], w[j], ob, ow)
        out[x + 1] = n
    return _as_rows(out, ob, ow, n)


def _sum_rows_numpy(starts, bs, ws, na, nb, ids):
    a, b, w = (
        np.concatenate(parts or [np.empty(0, t)])
        for parts, t in (
            ([np.repeat(np.arange(na), np.diff(s)) for s in starts], np.int64),
            (list(bs), np.int64),
            (list(ws), float),
        )
    )
    return _pairs_as_rows(a, b, w, na, nb, ids)


def _pairs_as_rows(a, b, w, na, nb, ids):
    # each distinct (a, b) once, in a row in order of first appearance, as numba meets them
    key = a.astype(np.uint64) * np.uint64(max(nb, 1)) + b.astype(np.uint64)
    pairs, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    sums = np.bincount(inverse.ravel(), weights=w, minlength=pairs.size)
    pa = (pairs // np.uint64(max(nb, 1))).astype(np.int64)
    order = np.lexsort((first, pa))
    pa, pb, sums = pa[order], (pairs % np.uint64(max(nb, 1))).astype(ids.dtype)[order], sums[order]
    start = np.zeros(na + 1, dtype=np.int64)
    np.cumsum(np.bincount(pa, minlength=na), out=start[1:])
    return start, pb, sums, np.bincount(pa, weights=sums, minlength=na)


_sum_rows = twins("sum_rows", numba=_sum_rows_numba, numpy=_sum_rows_numpy)


def sum_rows(pieces, na, nb):
    """Rows of weighted arcs given in pieces, summed: ``pieces`` a list of CSRs (start, b, w)
    over the same ``na`` rows (their other ends b below ``nb``), read in turn, never
    concatenated. Returns a CSR (start, b, w) with each distinct (row, b) once, in a row in
    order of first appearance, its weights summed, and each row's weight ``k`` (its arcs summed
    in order); ids in int32 while ``na`` and ``nb`` fit. Linear time.

    >>> start, b, w, k = sum_rows([(np.array([0, 1, 2]), np.array([2, 2]), np.array([2.0, 1.0])),
    ...                            (np.array([0, 0, 1]), np.array([2]), np.array([3.0]))], 2, 3)
    >>> start.tolist(), b.tolist(), w.tolist(), k.tolist(), b.dtype
    ([0, 1, 2], [2, 2], [2.0, 4.0], [2.0, 4.0], dtype('int32'))
    """
    ids = np.empty(0, index_type(max(na, nb)))
    wide = np.int64 if any(p[1].dtype == np.int64 for p in pieces) else ids.dtype  # one type for all
    return _sum_rows(
        tuple(np.ascontiguousarray(p[0], dtype=np.int64) for p in pieces),
        tuple(np.ascontiguousarray(p[1], dtype=wide) for p in pieces),
        tuple(np.ascontiguousarray(p[2], dtype=np.float64) for p in pieces),
        int(na),
        int(nb),
        ids,
    )


@numba.njit(cache=True)
def _sum_row_pairs_numba(indptr, cols, w, row_group, col_group, na, nb, ids):
    start = np.zeros(na + 1, dtype=np.int64)
    for v in range(row_group.size):
        start[row_group[v] + 1] += 1
    for x in range(na):
        start[x + 1] += start[x]
    at = start[:-1].copy()
    order = np.empty(row_group.size, dtype=np.int64)
    for v in range(row_group.size):  # the rows in a stable counting sort by group
        order[at[row_group[v]]] = v
        at[row_group[v]] += 1
    where = np.full(nb, -1, dtype=np.int64)  # b's place in the output, if set in the current group
    m = cols.size
    out = np.zeros(na + 1, dtype=np.int64)
    ob, ow = np.empty(m, ids.dtype), np.empty(m, np.float64)
    n = 0
    for x in range(na):
        first = n
        for j in range(start[x], start[x + 1]):
            v = order[j]
            for e in range(indptr[v], indptr[v + 1]):
                n = _add_arc(where, first, n, col_group[cols[e]], w[e], ob, ow)
        out[x + 1] = n
    return _as_rows(out, ob, ow, n)


def _sum_row_pairs_numpy(indptr, cols, w, row_group, col_group, na, nb, ids):
    rows = np.repeat(np.arange(indptr.size - 1), np.diff(indptr))
    return _pairs_as_rows(row_group[rows], col_group[cols], w, na, nb, ids)


_sum_row_pairs = twins("sum_row_pairs", numba=_sum_row_pairs_numba, numpy=_sum_row_pairs_numpy)


def sum_row_pairs(indptr, cols, w, row_group, col_group, na, nb):
    """A CSR's arcs summed by (group of the row, group of the other end), as ``sum_rows``
    returns its rows: row v's group is ``row_group[v]`` (below ``na``), an arc's other end (a
    slot) has ``col_group[slot]`` (below ``nb``); read row by row, so no array the size of the
    arcs but the output is made.

    >>> start, b, w, k = sum_row_pairs(np.array([0, 2, 3]), np.array([0, 1, 1]), np.array([1.0, 2.0, 3.0]),
    ...                                np.array([1, 0]), np.array([2, 2]), 2, 3)
    >>> start.tolist(), b.tolist(), w.tolist(), k.tolist()
    ([0, 1, 2], [2, 2], [3.0, 3.0], [3.0, 3.0])
    """
    return _sum_row_pairs(
        indptr,
        cols,
        np.ascontiguousarray(w, dtype=np.float64),
        np.ascontiguousarray(row_group, dtype=np.int64),
        np.ascontiguousarray(col_group, dtype=np.int64),
        int(na),
        int(nb),
        np.empty(0, index_type(max(na, nb))),
    )
