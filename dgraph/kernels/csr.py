"""CSR blocks: built from arc pieces where they lie, sorted by a canonical key, self-loops counted."""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from .atomics import on_threads
from .engines import threads_for, twins
from .frontier import _arcs_numpy

ORDER_GRAIN = 1 << 18  # arcs per thread below which rows are sorted serially
CHUNK_BITS = 16  # rows are sorted in runs of up to 2**16 arcs (and rows): one numpy sort each


class LocalCSR(NamedTuple):
    """One rank's arcs as a CSR, for the path kernels: ``indptr`` (a row's arcs start there),
    ``indices`` (each arc's head) and ``weights`` (each arc's, or None: every arc costs 1)."""

    indptr: np.ndarray
    indices: np.ndarray
    weights: np.ndarray | None = None


@numba.njit(cache=True)
def _count_rows(rows, offset, indptr):
    for i in range(rows.size):
        indptr[rows[i] - offset + 1] += 1


@numba.njit(cache=True)
def _fill_rows(rows, cols, weights, offset, fill, idx, w):
    for i in range(rows.size):
        r = rows[i] - offset
        p = fill[r]
        idx[p] = cols[i]
        if weights.size:
            w[p] = weights[i]
        fill[r] = p + 1


@numba.njit(cache=True, nogil=True)
def _packed(indptr, idx, key, r0, r1, kbits, pbits):
    """The arcs of rows r0..r1-1 as int64s that sort as (row, key of neighbour, position): the
    row's offset from r0, above ``kbits`` bits of key, above ``pbits`` bits of the arc's position
    among them (none with ``pbits`` 0)."""
    s0 = indptr[r0]
    out = np.empty(indptr[r1] - s0, np.int64)
    for r in range(r0, r1):
        high = np.int64(r - r0) << (kbits + pbits)
        for e in range(indptr[r], indptr[r + 1]):
            k = np.int64(idx[e]) if key.size == 0 else key[idx[e]]
            out[e - s0] = high | (k << pbits) | (e - s0 if pbits else 0)
    return out


@numba.njit(cache=True, nogil=True)
def _settle(indptr, idx, w, r0, r1, packed, kbits, pbits, dedup, kept):
    """Rows r0..r1-1 put in the order of ``packed`` (``_packed``'s, sorted): arcs moved by
    position (or, without positions, the neighbour read back from the key bits), runs of one
    key by weight, repeats dropped with ``dedup``; ``kept[r]``: the arcs row r keeps."""
    s0, m = indptr[r0], packed.size
    kmask = (np.int64(1) << kbits) - 1
    if pbits:
        pmask = (np.int64(1) << pbits) - 1
        ids = idx[s0 : s0 + m].copy()
        weights = w[s0 : s0 + m].copy()
        for j in range(m):
            at = packed[j] & pmask
            idx[s0 + j] = ids[at]
            if w.size:
                w[s0 + j] = weights[at]
    else:
        for j in range(m):
            idx[s0 + j] = packed[j] & kmask
    for r in range(r0, r1):
        s, e = indptr[r], indptr[r + 1]
        a = s
        while w.size and a < e:
            k, b = (packed[a - s0] >> pbits) & kmask, a + 1
            while b < e and (packed[b - s0] >> pbits) & kmask == k:
                b += 1
            if b - a > 1:
                _lighter_first(idx, w, a, b)
            a = b
        kept[r] = _dedup_row(idx, w, s, e, dedup)


@numba.njit(cache=True, nogil=True)
def _lighter_first(idx, w, s, e):
    """Sort the run ``w[s:e]`` (and ``idx``) by weight, stably: by insertion where short (the
    repeats of one arc are few), else by a stable argsort."""
    if e - s > 16:
        run = np.argsort(w[s:e], kind="mergesort")
        idx[s:e], w[s:e] = idx[s:e][run], w[s:e][run]
        return
    for j in range(s + 1, e):
        c, wc = idx[j], w[j]
        i = j
        while i > s and w[i - 1] > wc:
            idx[i], w[i] = idx[i - 1], w[i - 1]
            i -= 1
        idx[i], w[i] = c, wc


@numba.njit(cache=True, nogil=True)
def _arrange(idx, w, k, order, s):
    """``idx[s:]`` (and ``w``) put in ``order`` (positions from s), then each run of equal keys
    (``k`` in that order) put in order of weight, stably: the row by (key, weight, position)."""
    idx[s : s + order.size] = idx[s : s + order.size][order]
    if w.size == 0:
        return
    w[s : s + order.size] = w[s : s + order.size][order]
    a = 0
    while a < k.size:
        b = a + 1
        while b < k.size and k[b] == k[a]:
            b += 1
        if b - a > 1:
            _lighter_first(idx, w, s + a, s + b)
        a = b


@numba.njit(cache=True, nogil=True)
def _dedup_row(idx, w, s, e, dedup):
    """With ``dedup``, the sorted row ``idx[s:e]`` with its repeats dropped (the first of each
    stays) and the kept arcs moved to its start. Returns how many arcs it keeps."""
    if not dedup or e - s < 2:
        return e - s
    out = s + 1
    for j in range(s + 1, e):
        if idx[j] != idx[out - 1]:
            idx[out] = idx[j]
            if w.size:
                w[out] = w[j]
            out += 1
    return out - s


def _chunks(indptr, most):
    """Row boundaries cutting the rows into runs of consecutive rows, each of at most ``most``
    arcs and ``most`` rows (a longer row alone)."""
    nrows, cuts, r = indptr.size - 1, [0], 0
    reach = np.searchsorted(indptr, indptr[:-1] + most, side="right") - 1  # the farthest end in reach
    while r < nrows:
        r = max(r + 1, min(int(reach[r]), r + most, nrows))
        cuts.append(r)
    return cuts


def _order_chunk(indptr, idx, w, key, dedup, kept, r0, r1, kbits):
    """``_order_rows`` of rows r0..r1-1: one numpy sort of their arcs packed (``_packed``),
    or, where row, key and position do not fit 63 bits, a stable argsort per row."""
    m = int(indptr[r1] - indptr[r0])
    pbits = max(1, (m - 1).bit_length()) if w.size or key.size else 0  # plain ids need no positions
    if kbits >= 0 and (r1 - r0 - 1).bit_length() + kbits + pbits <= 63:
        packed = _packed(indptr, idx, key, r0, r1, kbits, pbits)
        packed.sort()
        _settle(indptr, idx, w, r0, r1, packed, kbits, pbits, dedup, kept)
        return
    for r in range(r0, r1):
        s, e = indptr[r], indptr[r + 1]
        k = idx[s:e].astype(np.int64) if key.size == 0 else key[idx[s:e]]
        order = np.argsort(k, kind="stable")
        _arrange(idx, w, k[order], order, s)
        kept[r] = _dedup_row(idx, w, s, e, dedup)


@numba.njit(cache=True)
def _compact(indptr, idx, w, kept):
    """Rows whose first ``kept[r]`` arcs stay, moved left to close the gaps: the new indptr and
    the arcs kept (serial: a row may land where an earlier one lay)."""
    newptr = np.zeros(kept.size + 1, dtype=np.int64)
    out = 0
    for r in range(kept.size):
        s = indptr[r]
        if out != s:
            for j in range(kept[r]):
                idx[out + j] = idx[s + j]
                if w.size:
                    w[out + j] = w[s + j]
        out += kept[r]
        newptr[r + 1] = out
    return newptr, out


def _order_rows(indptr, idx, w, key, dedup):
    """Sort each row by (key of neighbour, weight) in place, dropping repeats with ``dedup``:
    runs of rows of up to 2**CHUNK_BITS arcs, each sorted by one numpy sort of their arcs packed
    as (row, key, position), weights then following the positions (numpy's SIMD sort is several
    times numba's); the runs spread over the kernel's threads (``threads_for``), then compacted."""
    kept = np.empty(indptr.size - 1, dtype=np.int64)
    ids = key if key.size else idx
    kbits = -1 if ids.size and ids.min() < 0 else int(ids.max() if ids.size else 0).bit_length()
    cuts = _chunks(indptr, 1 << CHUNK_BITS)
    k = max(1, min(threads_for(idx.size, ORDER_GRAIN), len(cuts) - 1))

    def sort(t):
        for c in range(t, len(cuts) - 1, k):
            _order_chunk(indptr, idx, w, key, dedup, kept, cuts[c], cuts[c + 1], kbits)

    on_threads(sort, k, name="dgraph-order-rows")
    return _compact(indptr, idx, w, kept)


def _csr_numpy(rows, cols, weights, nrows, key, dedup, order):
    if not order:
        order = np.argsort(rows, kind="stable")
        indptr = np.zeros(nrows + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=nrows), out=indptr[1:])
        return indptr, cols[order], weights[order].astype(np.float64) if weights.size else weights
    k = cols if key.size == 0 else key[cols]
    order = np.lexsort((weights, k, rows)) if weights.size else np.lexsort((k, rows))
    rows, cols = rows[order], cols[order]
    weights = weights[order] if weights.size else weights
    if dedup and rows.size:
        keep = np.ones(rows.size, dtype=bool)
        keep[1:] = (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1])
        rows, cols = rows[keep], cols[keep]
        weights = weights[keep] if weights.size else weights
    indptr = np.zeros(nrows + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=nrows), out=indptr[1:])
    return indptr, cols, weights.astype(np.float64)


@numba.njit(cache=True)
def _fill_numba(rows, cols, weights, offset, fill, end, idx, w):
    for i in range(rows.size):
        r = rows[i] - offset
        if r < 0 or r >= fill.size or fill[r] >= end[r]:
            return False
        p = fill[r]
        idx[p] = cols[i]
        if weights.size:
            w[p] = weights[i]
        fill[r] = p + 1
    return True


def _fill_numpy(rows, cols, weights, offset, fill, end, idx, w):
    local = rows.astype(np.int64) - offset
    if local.size and (local.min() < 0 or local.max() >= fill.size):
        return False
    order = np.argsort(local, kind="stable")
    local = local[order]
    pos = fill[local] + np.arange(local.size) - np.searchsorted(local, local)
    if (pos >= end[local]).any():
        return False
    idx[pos] = cols[order]
    if weights.size:
        w[pos] = weights[order]
    fill += np.bincount(local, minlength=fill.size)
    return True


_fill = twins("fill_rows", numba=_fill_numba, numpy=_fill_numpy)


def fill_rows(rows, cols, weights, offset, fill, end, idx, w):
    """Put arcs (rows[i] - offset -> cols[i]) into the preallocated CSR ``idx``/``w`` at their
    rows' cursors ``fill`` (advanced), which must stay below ``end`` (the rows' ends). False, with
    some arcs written, when an arc has no room: its row is out of range or already full.

    >>> fill, end, idx = np.array([0, 1]), np.array([1, 3]), np.zeros(3, np.int64)
    >>> fill_rows(np.array([1, 0, 1]), np.array([7, 8, 9]), np.empty(0), 0, fill, end, idx, np.empty(0))
    True
    >>> idx.tolist(), fill_rows(np.array([0]), np.array([5]), np.empty(0), 0, fill, end, idx, np.empty(0))
    ([8, 7, 9], False)
    """
    return bool(_fill(rows, cols, weights, offset, fill, end, idx, w))


def _order_rows_numpy(indptr, idx, w, key, dedup):
    nrows = indptr.size - 1
    rows = np.repeat(np.arange(nrows), np.diff(indptr))
    newptr, cols, weights = _csr_numpy(rows, idx.astype(np.int64), w, nrows, key, dedup, True)
    idx[: cols.size] = cols
    if w.size:
        w[: cols.size] = weights
    return newptr, cols.size


_order = twins("order_rows", numba=_order_rows, numpy=_order_rows_numpy)


def order_rows(indptr, idx, w, key=None, dedup=True):
    """Sort each row of a CSR in place by (``key`` of neighbour, weight), dropping repeats with
    ``dedup`` (the lightest stays); returns the new indptr and the arcs kept, which are
    ``idx[:kept]`` (and ``w[:kept]``; ``w`` an empty array when unweighted).

    >>> idx = np.array([5, 2, 5, 1])
    >>> indptr, kept = order_rows(np.array([0, 3, 4]), idx, np.empty(0))
    >>> indptr.tolist(), idx[:kept].tolist()
    ([0, 2, 3], [2, 5, 1])
    """
    k = np.empty(0, dtype=np.int64) if key is None else np.ascontiguousarray(key, dtype=np.int64)
    newptr, kept = _order(indptr, idx, w, k, bool(dedup))
    return newptr, int(kept)


@numba.njit(cache=True)
def _fill_slots_numba(rows, offset, fill):
    slots = np.empty(rows.size, np.int64)
    for i in range(rows.size):
        r = rows[i] - offset
        if r < 0 or r >= fill.size:
            slots[i] = -1
        else:
            slots[i] = fill[r]
            fill[r] += 1
    for i in range(rows.size):  # the cursors back as they were
        r = rows[i] - offset
        if 0 <= r < fill.size:
            fill[r] -= 1
    return slots


def _fill_slots_numpy(rows, offset, fill):
    local = rows.astype(np.int64) - offset
    slots = np.full(local.size, -1, np.int64)
    inside = np.flatnonzero((local >= 0) & (local < fill.size))
    order = inside[np.argsort(local[inside], kind="stable")]
    grouped = local[order]
    slots[order] = fill[grouped] + np.arange(grouped.size) - np.searchsorted(grouped, grouped)
    return slots


_slots = twins("fill_slots", numba=_fill_slots_numba, numpy=_fill_slots_numpy)


def fill_slots(rows, offset, fill):
    """The slot ``fill_rows`` writes each arc to from the cursors ``fill`` (a row's arcs take
    its next slots in order), -1 for a row out of range; ``fill`` is left as it was. What puts
    an arc's other columns beside it.

    >>> fill_slots(np.array([1, 0, 1, 5]), 0, np.array([0, 1])).tolist()
    [1, 0, 2, -1]
    """
    return _slots(rows, offset, fill)


@numba.njit(cache=True)
def _row_order_numba(indptr, idx, w, key, dedup):
    nrows = indptr.size - 1
    perm = np.empty(idx.size, np.int64)
    newptr = np.zeros(nrows + 1, dtype=np.int64)
    out = 0
    for r in range(nrows):
        s, e = indptr[r], indptr[r + 1]
        if e - s > 1:
            k = idx[s:e].astype(np.int64) if key.size == 0 else key[idx[s:e]]
            if w.size:
                order = np.argsort(w[s:e], kind="mergesort")
                order = order[np.argsort(k[order], kind="mergesort")]
            else:
                order = np.argsort(k, kind="mergesort")
        else:
            order = np.arange(e - s)
        last = -1
        for j in range(order.size):
            c = np.int64(idx[s + order[j]])
            if dedup and j > 0 and c == last:
                continue
            perm[out] = s + order[j]
            last = c
            out += 1
        newptr[r + 1] = out
    return newptr, perm[:out]


def _row_order_numpy(indptr, idx, w, key, dedup):
    nrows = indptr.size - 1
    rows = np.repeat(np.arange(nrows), np.diff(indptr))
    ids = idx.astype(np.int64)
    k = ids if key.size == 0 else key[ids]
    perm = np.lexsort((w, k, rows)) if w.size else np.lexsort((k, rows))
    if dedup and perm.size:
        r, c = rows[perm], ids[perm]
        perm = perm[np.r_[True, (r[1:] != r[:-1]) | (c[1:] != c[:-1])]]
    newptr = np.zeros(nrows + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows[perm], minlength=nrows), out=newptr[1:])
    return newptr, perm


_row_order = twins("row_order", numba=_row_order_numba, numpy=_row_order_numpy)


def row_order(indptr, idx, w, key=None, dedup=True):
    """``order_rows``' order as a permutation, the CSR left as it is: (new indptr, the position
    of each arc kept, in its new order). For arcs with more columns than ``order_rows`` moves.

    >>> indptr, perm = row_order(np.array([0, 3, 4]), np.array([5, 2, 5, 1]), np.empty(0))
    >>> indptr.tolist(), perm.tolist()
    ([0, 2, 3], [1, 0, 3])
    """
    k = np.empty(0, dtype=np.int64) if key is None else np.ascontiguousarray(key, dtype=np.int64)
    return _row_order(indptr, idx, w, k, bool(dedup))


def build_csr(rows, cols, nrows, weights=None, key=None, dedup=True, order=True, index_dtype=np.int64):
    """CSR of the arcs (rows[i] -> cols[i]); rows are local (0..nrows-1), cols any ids (int32 or
    int64 arrays are read as they are; other integers become int64).

    Neighbours are sorted by ``key[col]`` (or col), so adjacency order is canonical on every
    layout. With ``dedup`` repeated arcs are dropped, keeping the smallest weight. With
    ``order=False`` rows keep their arcs in input order and nothing is dropped (a counting sort).
    Returns (indptr, indices as ``index_dtype``, weights-or-None).

    >>> indptr, indices, _ = build_csr(np.array([1, 0, 1, 1]), np.array([5, 3, 2, 5]), 2)
    >>> indptr.tolist(), indices.tolist()
    ([0, 1, 3], [3, 2, 5])
    """
    return csr_from_pieces([(rows, cols, weights)], nrows, 0, key, dedup, order, index_dtype)


def csr_from_pieces(pieces, nrows, offset=0, key=None, dedup=True, order=True, index_dtype=np.int64):
    """``build_csr`` of the arcs of several pieces ``(rows, cols, weights-or-None)``, row of an arc
    = its row id - ``offset``. The numba path reads the pieces where they are, counting then
    filling (no concatenation: a rank's construction then holds its arcs once, plus the CSR)."""
    weighted = bool(pieces) and pieces[0][2] is not None
    k = np.empty(0, dtype=np.int64) if key is None else np.ascontiguousarray(key, dtype=np.int64)
    pieces = [
        (_ints(r), _ints(c), np.empty(0) if w is None else np.ascontiguousarray(w, dtype=np.float64))
        for r, c, w in pieces
    ]
    indptr, idx, w = _csr(pieces, weighted, int(nrows), offset, k, bool(dedup), bool(order), np.dtype(index_dtype))
    return indptr, idx, (w if weighted else None)


def _csr_numba(pieces, weighted, nrows, offset, key, dedup, order, index_dtype):
    """Count, then fill, reading each piece where it lies (no concatenation: a rank's
    construction holds its arcs once, plus the CSR)."""
    indptr = np.zeros(nrows + 1, dtype=np.int64)
    for r, _, _ in pieces:
        _count_rows(r, offset, indptr)
    np.cumsum(indptr, out=indptr)
    m = int(indptr[-1])
    idx, w = np.empty(m, dtype=index_dtype), np.empty(m if weighted else 0)
    fill = indptr[:-1].copy()
    for r, c, wt in pieces:
        _fill_rows(r, c, wt, offset, fill, idx, w)
    if order:
        indptr, kept = _order_rows(indptr, idx, w, key, dedup)
        if kept < m:  # repeats dropped: give their room back
            idx, w = idx[:kept].copy(), w[:kept].copy()
    return indptr, idx, w


def _csr_pieces_numpy(pieces, weighted, nrows, offset, key, dedup, order, index_dtype):
    def cat(i, empty):
        return np.concatenate([p[i] for p in pieces]) if pieces else empty

    rows = cat(0, np.empty(0, np.int64)) - offset
    indptr, idx, w = _csr_numpy(rows, cat(1, np.empty(0, np.int64)), cat(2, np.empty(0)), nrows, key, dedup, order)
    return indptr, idx.astype(index_dtype, copy=False), w


_csr = twins("csr_from_pieces", numba=_csr_numba, numpy=_csr_pieces_numpy)


def _ints(a):
    a = np.asarray(a)
    return np.ascontiguousarray(a if a.dtype in (np.int32, np.int64) else a.astype(np.int64))


@numba.njit(cache=True)
def _loops_numba(indptr, indices, ids):
    loops = 0
    for r in range(ids.size):
        for e in range(indptr[r], indptr[r + 1]):
            loops += indices[e] == ids[r]
    return loops


def _loops_numpy(indptr, indices, ids):
    return np.count_nonzero(np.repeat(ids, np.diff(indptr)) == indices)


_loops = twins("count_loops", numba=_loops_numba, numpy=_loops_numpy)


def count_loops(indptr, indices, ids):
    """Arcs of a CSR whose head is their row's own id (``ids[row]``): the self-loops."""
    return int(_loops(indptr, indices, np.asarray(ids, np.int64)))


@numba.njit(cache=True)
def _take_rows_numba(indptr, indices, rows, space, out):
    c = 0
    for r in rows:
        for e in range(indptr[r], indptr[r + 1]):
            out[c] = space[indices[e]]
            c += 1


def _take_rows_numpy(indptr, indices, rows, space, out):
    out[:] = space[_arcs_numpy(indptr, indices, np.empty(0), rows)[1]]


_take = twins("take_rows", numba=_take_rows_numba, numpy=_take_rows_numpy)


def take_rows(indptr, indices, rows, space, dtype=np.int64):
    """The rows ``rows`` of a CSR, their entries read through ``space`` (a slot's id): (each
    row's length, the entries one row after another, as ``dtype``). One pass, with no per-entry
    positions made first (a rank serving other ranks' rows would hold three such arrays)."""
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    counts = indptr[rows + 1] - indptr[rows]
    out = np.empty(int(counts.sum()), dtype)
    _take(indptr, indices, rows, space, out)
    return counts, out
