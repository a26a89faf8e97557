"""Counting over neighbourhoods: label modes (CDLP), neighbour sets and the arcs among them (LCC),
oriented triangles, and h-indices (core numbers)."""

from __future__ import annotations

import numba
import numpy as np
import scipy.sparse as sp

from .atomics import fetch_add
from .engines import COUNT_GRAIN, TRIANGLE_GRAIN, row_cuts, threads, threads_for, twins


@numba.njit(cache=True)
def _mode_rows(indptr_a, indices_a, indptr_b, indices_b, labels, out, count, r0, r1):
    # counting into an n-long scratch, O(degree) per vertex: a sort per row costs several times more on roads.
    # Without a second CSR indptr_b is None and numba compiles the rows without its loops
    # (testing for an empty one in every row is measurable on roads).
    for v in range(r0, r1):
        a0, a1 = indptr_a[v], indptr_a[v + 1]
        best, best_count = _tally(indices_a, a0, a1, labels, count, -1, 0)
        if indptr_b is not None:
            best, best_count = _tally(indices_b, indptr_b[v], indptr_b[v + 1], labels, count, best, best_count)
        for i in range(a0, a1):  # loops, not fancy indexing: that allocates per vertex
            count[labels[indices_a[i]]] = 0
        if indptr_b is not None:
            for i in range(indptr_b[v], indptr_b[v + 1]):
                count[labels[indices_b[i]]] = 0
        if best >= 0:  # a row without neighbours keeps its label
            out[v] = best


@numba.njit(cache=True)
def _mode_numba(indptr_a, indices_a, indptr_b, indices_b, labels, own, counts):
    _mode_rows(indptr_a, indices_a, indptr_b, indices_b, labels, own, counts[0], 0, own.size)


@numba.njit(cache=True, parallel=True)
def _mode_parallel(indptr_a, indices_a, indptr_b, indices_b, labels, own, counts, cuts):
    for t in numba.prange(cuts.size - 1):
        _mode_rows(indptr_a, indices_a, indptr_b, indices_b, labels, own, counts[t], cuts[t], cuts[t + 1])


@numba.njit(cache=True, inline="always")
def _tally(indices, s, e, labels, count, best, best_count):
    """Count the labels of ``indices[s:e]`` on top of ``count``; the leader so far, ties to the
    smaller label."""
    for i in range(s, e):
        lab = labels[indices[i]]
        c = count[lab] + 1
        count[lab] = c
        if c > best_count or (c == best_count and lab < best):
            best, best_count = lab, c
    return best, best_count


def _mode_numpy(indptr_a, indices_a, indptr_b, indices_b, labels, own, counts):
    rows = [np.repeat(np.arange(own.size), np.diff(indptr_a))]
    labs = [labels[indices_a]]
    if indptr_b is not None:
        rows.append(np.repeat(np.arange(own.size), np.diff(indptr_b)))
        labs.append(labels[indices_b])
    rows, labs = np.concatenate(rows), np.concatenate(labs)
    if rows.size == 0:
        return
    order = np.lexsort((labs, rows))
    rows, labs = rows[order], labs[order]
    starts = np.flatnonzero(np.r_[True, (rows[1:] != rows[:-1]) | (labs[1:] != labs[:-1])])
    counts = np.diff(np.r_[starts, rows.size])
    r, l = rows[starts], labs[starts]
    pick = np.lexsort((l, -counts, r))
    r, l = r[pick], l[pick]
    first = np.r_[True, r[1:] != r[:-1]]
    own[r[first]] = l[first]


def label_counts(n):
    """The scratch ``label_mode`` counts labels in (labels in [0, n)): one n-long row per thread
    of this thread's kernels. ``label_mode`` leaves it zero, so one serves every round."""
    return np.zeros((threads(), n), np.int32)


def label_mode(a, b, labels, own, counts=None):
    """For every row v of CSR ``a`` (and ``b``, the same rows, or None): the most frequent value
    of ``labels`` over its neighbours in both (a neighbour in both counts twice), ties to the
    smallest, written into ``own[v]`` in place (rows without neighbours keep theirs); returns
    ``own``. Labels lie in [0, labels.size); ``counts``: ``label_counts(labels.size)``, made
    here if not given (allocating it every round costs a page fault per page in a dask worker)."""
    ib, xb = (b.indptr, b.indices) if b is not None else (None, None)
    counts = label_counts(labels.size) if counts is None else counts
    _mode(a.indptr, a.indices, ib, xb, labels, own, counts)
    return own


def _mode_rows_split(indptr_a, indices_a, indptr_b, indices_b, labels, own, counts):
    k = min(counts.shape[0], threads_for(indices_a.size + (0 if indices_b is None else indices_b.size), COUNT_GRAIN))
    if k > 1:
        _mode_parallel(indptr_a, indices_a, indptr_b, indices_b, labels, own, counts, row_cuts(indptr_a, k))
    else:
        _mode_numba(indptr_a, indices_a, indptr_b, indices_b, labels, own, counts)


_mode = twins("label_mode", numba=_mode_rows_split, numpy=_mode_numpy)


@numba.njit(cache=True)
def _sort_in_place(a):
    """Insertion sort for the short rows most vertices have (allocating a sorted copy per row
    costs 5x on roads), numba's quicksort for long ones."""
    if a.size > 64:
        a.sort()
        return
    for i in range(1, a.size):
        x, j = a[i], i - 1
        while j >= 0 and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


@numba.njit(cache=True)
def _neighbour_sets_numba(ptr_a, idx_a, ptr_b, idx_b, lo):
    nloc = ptr_a.size - 1
    total = idx_a.size + idx_b.size
    ptr = np.zeros(nloc + 1, np.int64)
    out = np.empty(total, idx_a.dtype)
    buf = np.empty(0, idx_a.dtype)
    c = 0
    for v in range(nloc):
        da = ptr_a[v + 1] - ptr_a[v]
        db = ptr_b[v + 1] - ptr_b[v] if ptr_b.size else 0
        if buf.size < da + db:
            buf = np.empty(2 * (da + db), idx_a.dtype)
        seg = buf[: da + db]
        seg[:da] = idx_a[ptr_a[v] : ptr_a[v + 1]]
        if db:
            seg[da:] = idx_b[ptr_b[v] : ptr_b[v + 1]]
        _sort_in_place(seg)
        for i in range(seg.size):
            if seg[i] != v + lo and (i == 0 or seg[i] != seg[i - 1]):
                out[c] = seg[i]
                c += 1
        ptr[v + 1] = c
    return ptr, out[:c]


@numba.njit(cache=True)
def _nbr_arcs_rows(nb_ptr, nb_idx, lo, own_ptr, own_idx, g_ids, g_ptr, g_idx, mark, arcs, r0, r1):
    hi = lo + nb_ptr.size - 1
    for v in range(r0, r1):
        s, e = nb_ptr[v], nb_ptr[v + 1]
        if e - s < 2:
            continue
        for i in range(s, e):
            mark[nb_idx[i]] = True
        c = 0
        for i in range(s, e):
            u = nb_idx[i]
            if lo <= u < hi:
                a, b = own_ptr[u - lo], own_ptr[u - lo + 1]
                for j in range(a, b):
                    w = own_idx[j]
                    if w != u and mark[w]:
                        c += 1
            else:
                k = np.searchsorted(g_ids, u)
                if k == g_ids.size or g_ids[k] != u:
                    continue  # its row comes in another batch
                for j in range(g_ptr[k], g_ptr[k + 1]):
                    w = g_idx[j]
                    if w != u and mark[w]:
                        c += 1
        for i in range(s, e):
            mark[nb_idx[i]] = False
        arcs[v] = c


@numba.njit(cache=True)
def _nbr_arcs_numba(nb_ptr, nb_idx, lo, own_ptr, own_idx, g_ids, g_ptr, g_idx, mark):
    arcs = np.zeros(nb_ptr.size - 1, np.int64)
    _nbr_arcs_rows(nb_ptr, nb_idx, lo, own_ptr, own_idx, g_ids, g_ptr, g_idx, mark, arcs, 0, arcs.size)
    return arcs


@numba.njit(cache=True, parallel=True)
def _nbr_arcs_parallel(nb_ptr, nb_idx, lo, own_ptr, own_idx, g_ids, g_ptr, g_idx, mark, cuts):
    arcs = np.zeros(nb_ptr.size - 1, np.int64)
    for t in numba.prange(cuts.size - 1):
        mine = mark if t == 0 else np.zeros(mark.size, np.bool_)
        _nbr_arcs_rows(nb_ptr, nb_idx, lo, own_ptr, own_idx, g_ids, g_ptr, g_idx, mine, arcs, cuts[t], cuts[t + 1])
    return arcs


def _nbr_arcs_numpy(nb_ptr, nb_idx, lo, own_ptr, own_idx, g_ids, g_ptr, g_idx, mark):

    n, nloc = mark.size, nb_ptr.size - 1
    M = sp.csr_matrix((np.ones(nb_idx.size), nb_idx, nb_ptr), shape=(nloc, n))
    rows = np.concatenate([np.repeat(np.arange(lo, lo + nloc), np.diff(own_ptr)), np.repeat(g_ids, np.diff(g_ptr))])
    cols = np.concatenate([own_idx, g_idx])
    keep = rows != cols
    A = sp.csr_matrix((np.ones(int(keep.sum())), (rows[keep], cols[keep])), shape=(n, n))
    return np.asarray((M @ A).multiply(M).sum(axis=1)).ravel().astype(np.int64)


@numba.njit(cache=True)
def _rows_are_sets(indptr, indices, lo):
    for v in range(indptr.size - 1):
        prev = -1
        for i in range(indptr[v], indptr[v + 1]):
            u = indices[i]
            if u <= prev or u == v + lo:
                return False
            prev = u
    return True


def neighbour_sets(a, b, lo):
    """Per row: the sorted distinct neighbours in CSR ``a`` and ``b`` (same rows, or None),
    without the row's own vertex (``lo + row``), in ``a.indices``'s type. ``a``'s own arrays
    when its rows already are that (a simple graph without reordering; a block remembers)."""
    if b is None and (a.rows_are_sets(lo) if hasattr(a, "rows_are_sets") else neighbour_sets_already(a, lo)):
        return a.indptr, a.indices
    empty = np.empty(0, a.indices.dtype)
    pb, ib = (b.indptr, b.indices) if b is not None else (empty, empty)
    return _sets(a.indptr, a.indices, pb, ib, int(lo))


def neighbour_sets_already(a, lo):
    """Whether every row of CSR ``a`` is sorted, without repeats or its own vertex (``lo + row``)."""
    return bool(_rows_are_sets(a.indptr, a.indices, int(lo)))


def _sets_numpy(pa, ia, pb, ib, lo):
    nlocal = pa.size - 1
    rows = np.concatenate(
        [np.repeat(np.arange(nlocal), np.diff(pa))] + ([np.repeat(np.arange(nlocal), np.diff(pb))] if pb.size else [])
    )
    cols = np.concatenate([ia] + ([ib] if pb.size else []))
    keep = cols != rows + lo
    rows, cols = rows[keep], cols[keep]
    order = np.lexsort((cols, rows))
    rows, cols = rows[order], cols[order]
    first = np.r_[True, (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1])] if rows.size else np.empty(0, bool)
    rows, cols = rows[first], cols[first]
    ptr = np.zeros(nlocal + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=nlocal), out=ptr[1:])
    return ptr, cols.astype(ia.dtype, copy=False)


_sets = twins("neighbour_sets", numba=_neighbour_sets_numba, numpy=_sets_numpy)


def neighbourhood_arcs(nb_ptr, nb_idx, lo, own, ghosts, mark):
    """For every owned v: the number of arcs (u, w), u != w, with u and w both in N(v).

    ``nb_ptr/nb_idx``: N(v) per owned row; ``own``: the rank's block (rows lo..); ``ghosts``:
    (ids, indptr, indices) rows of the other vertices of any N(v); ``mark``: n-long False bools.
    Arcs from ghosts missing from ``ghosts`` are not counted (rows fetched in batches: each
    batch's call adds its share; pass ``own`` with empty rows to count only those).
    """
    g_ids, g_ptr, g_idx = ghosts
    return _nbr_arcs(nb_ptr, nb_idx, lo, own.indptr, own.indices, g_ids, g_ptr, g_idx, mark)


def _nbr_arcs_split(nb_ptr, nb_idx, lo, own_ptr, own_idx, g_ids, g_ptr, g_idx, mark):
    k = threads_for(nb_idx.size, COUNT_GRAIN)
    if k > 1:
        return _nbr_arcs_parallel(nb_ptr, nb_idx, lo, own_ptr, own_idx, g_ids, g_ptr, g_idx, mark, row_cuts(nb_ptr, k))
    return _nbr_arcs_numba(nb_ptr, nb_idx, lo, own_ptr, own_idx, g_ids, g_ptr, g_idx, mark)


_nbr_arcs = twins("neighbourhood_arcs", numba=_nbr_arcs_split, numpy=_nbr_arcs_numpy)


@numba.njit(cache=True)
def _up(u, du, gv, dv):
    return du > dv or (du == dv and u > gv)


@numba.njit(cache=True)
def _orient_numba(ptr, idx, degree, lo):
    # two passes, the first counting: the heads sized exactly, never an arc-long array of room
    # (the count reads the arcs once more, a small part of what counting triangles reads)
    nloc = ptr.size - 1
    up_ptr = np.zeros(nloc + 1, np.int64)
    for v in range(nloc):
        gv = v + lo
        dv = degree[gv] if degree is not None else 0
        c = 0
        for j in range(ptr[v], ptr[v + 1]):
            u = idx[j]
            c += _up(u, degree[u] if degree is not None else 0, gv, dv)
        up_ptr[v + 1] = up_ptr[v] + c
    up_idx = np.empty(up_ptr[nloc], idx.dtype)
    c = 0
    for v in range(nloc):
        gv = v + lo
        dv = degree[gv] if degree is not None else 0
        for j in range(ptr[v], ptr[v + 1]):
            u = idx[j]
            if _up(u, degree[u] if degree is not None else 0, gv, dv):
                up_idx[c] = u
                c += 1
    return up_ptr, up_idx


def _orient_numpy(ptr, idx, degree, lo):
    tails = np.repeat(np.arange(lo, lo + ptr.size - 1), np.diff(ptr))
    if degree is None:
        keep = idx > tails
    else:
        keep = (degree[idx] > degree[tails]) | ((degree[idx] == degree[tails]) & (idx > tails))
    return np.r_[0, np.cumsum(np.bincount(tails[keep] - lo, minlength=ptr.size - 1))], idx[keep]


def orient_rows(ptr, idx, degree, lo):
    """The arcs v -> u of rows ``ptr/idx`` (vertices lo..) with (degree[u], u) > (degree[v], v),
    or with ``degree`` None u > v: every edge kept at one end only. Returns (up_ptr, up_idx),
    rows in the same order."""
    return _orient(ptr, idx, degree, int(lo))


_orient = twins("orient_rows", numba=_orient_numba, numpy=_orient_numpy)


@numba.njit(cache=True)
def _oriented_rows(up_ptr, up_idx, lo, own_heads, g_ids, g_ptr, g_idx, mark, tri, r0, r1):
    hi = lo + up_ptr.size - 1
    for v in range(r0, r1):
        s, e = up_ptr[v], up_ptr[v + 1]
        if e - s < 2:
            continue
        for i in range(s, e):
            mark[up_idx[i]] = True
        found = 0
        for i in range(s, e):
            u = up_idx[i]
            if lo <= u < hi:
                if not own_heads:
                    continue
                a, b, row = up_ptr[u - lo], up_ptr[u - lo + 1], up_idx
            else:
                k = np.searchsorted(g_ids, u)
                if k == g_ids.size or g_ids[k] != u:
                    continue  # its row comes in another batch
                a, b, row = g_ptr[k], g_ptr[k + 1], g_idx
            here = 0
            for j in range(a, b):
                w = row[j]
                if mark[w]:
                    here += 1
                    tri[w] += 1
            tri[u] += here
            found += here
        tri[v + lo] += found
        for i in range(s, e):
            mark[up_idx[i]] = False


@numba.njit(cache=True)
def _oriented_numba(up_ptr, up_idx, lo, own_heads, g_ids, g_ptr, g_idx, mark, tri):
    _oriented_rows(up_ptr, up_idx, lo, own_heads, g_ids, g_ptr, g_idx, mark, tri, 0, up_ptr.size - 1)


@numba.njit(cache=True, parallel=True)
def _oriented_parallel(up_ptr, up_idx, lo, own_heads, g_ids, g_ptr, g_idx, mark, tri, cuts):
    k = cuts.size - 1
    extra = np.zeros((k - 1, tri.size), np.int64)  # a tally per further thread: counts land anywhere
    for t in numba.prange(k):
        mine, tally = (mark, tri) if t == 0 else (np.zeros(mark.size, np.bool_), extra[t - 1])
        _oriented_rows(up_ptr, up_idx, lo, own_heads, g_ids, g_ptr, g_idx, mine, tally, cuts[t], cuts[t + 1])
    for i in numba.prange(tri.size):
        for t in range(k - 1):
            tri[i] += extra[t, i]


def _oriented_numpy(up_ptr, up_idx, lo, own_heads, g_ids, g_ptr, g_idx, mark, tri):

    n, nloc = mark.size, up_ptr.size - 1
    M = sp.csr_matrix((np.ones(up_idx.size), up_idx, up_ptr), shape=(nloc, n))
    own_rows, own_cols = np.repeat(np.arange(lo, lo + nloc), np.diff(up_ptr)), up_idx
    if not own_heads:
        own_rows, own_cols = own_rows[:0], own_cols[:0]
    rows = np.concatenate([own_rows, np.repeat(g_ids, np.diff(g_ptr))])
    B = sp.csr_matrix((np.ones(rows.size), (rows, np.concatenate([own_cols, g_idx]))), shape=(n, n))
    closing = (M @ B).multiply(M)  # [v, w]: the u with v -> u -> w, for v -> w
    tri[lo : lo + nloc] += np.asarray(closing.sum(axis=1)).ravel().astype(np.int64)
    tri += np.asarray(closing.sum(axis=0)).ravel().astype(np.int64)
    middle = (B @ M.T).multiply(M.T)  # [u, v]: the w with u -> w, for v -> u and v -> w
    tri += np.asarray(middle.sum(axis=1)).ravel().astype(np.int64)


def oriented_triangles(up_ptr, up_idx, lo, ghosts, mark, tri, own_heads=True):
    """Count each triangle once, at its lowest vertex v in the orientation: v -> u -> w with
    v -> w, over rows oriented from lower to higher (degree, id), and add 1 to ``tri`` (n-long
    int64) at all three of v, u and w. ``up_ptr/up_idx``: the oriented rows of the rank's own
    vertices (lo..); ``ghosts``: (ids, indptr, indices) oriented rows of the other heads;
    ``mark``: n-long False bools. Work is the arcs v -> u times u's out-degree, which the
    orientation bounds by sqrt(2m) (Chiba and Nishizeki; GAP's tc). Only the triangles whose
    middle vertex u has its row here count: ghosts missing from ``ghosts`` and, without
    ``own_heads``, the rank's own vertices are left to another call (rows fetched in batches)."""
    g_ids, g_ptr, g_idx = ghosts
    _oriented(up_ptr, up_idx, int(lo), bool(own_heads), g_ids, g_ptr, g_idx, mark, tri)


def _oriented_split(up_ptr, up_idx, lo, own_heads, g_ids, g_ptr, g_idx, mark, tri):
    k = threads_for(up_idx.size, COUNT_GRAIN)
    if k > 1:
        _oriented_parallel(up_ptr, up_idx, lo, own_heads, g_ids, g_ptr, g_idx, mark, tri, row_cuts(up_ptr, k))
    else:
        _oriented_numba(up_ptr, up_idx, lo, own_heads, g_ids, g_ptr, g_idx, mark, tri)


_oriented = twins("oriented_triangles", numba=_oriented_split, numpy=_oriented_numpy)


@numba.njit(cache=True)
def _ordered_rows(ptr, idx, lo, own_heads, g_ids, g_ptr, g_idx, tri, r0, r1):
    for v in range(r0, r1):
        gv, s, e = v + lo, ptr[v], ptr[v + 1]
        found = 0
        for i in range(s + 1, e):  # the lowest head closes nothing: what closes v -> u comes before u
            u = idx[i]
            if u >= gv:
                break
            if u >= lo:
                if not own_heads:
                    continue
                a, b, row = ptr[u - lo], ptr[u - lo + 1], idx
            else:
                k = np.searchsorted(g_ids, u)
                if k == g_ids.size or g_ids[k] != u:
                    continue  # its row comes in another batch
                a, b, row = g_ptr[k], g_ptr[k + 1], g_idx
            j, here = s, 0
            while j < i and a < b:  # merge v's heads below u with u's
                x, y = idx[j], row[a]
                if y >= u:
                    break
                if x < y:
                    j += 1
                elif y < x:
                    a += 1
                else:
                    fetch_add(tri, x, 1)
                    here += 1
                    j += 1
                    a += 1
            if here:
                fetch_add(tri, u, here)
                found += here
        if found:
            fetch_add(tri, gv, found)


@numba.njit(cache=True)
def _ordered_numba(ptr, idx, lo, own_heads, g_ids, g_ptr, g_idx, tri):
    _ordered_rows(ptr, idx, lo, own_heads, g_ids, g_ptr, g_idx, tri, 0, ptr.size - 1)


@numba.njit(cache=True, parallel=True)
def _ordered_parallel(ptr, idx, lo, own_heads, g_ids, g_ptr, g_idx, tri, cuts):
    for t in numba.prange(cuts.size - 1):  # one tally: counts land anywhere, added atomically
        _ordered_rows(ptr, idx, lo, own_heads, g_ids, g_ptr, g_idx, tri, cuts[t], cuts[t + 1])


@numba.njit(cache=True)
def _squared_lengths(ptr):
    """The sum of the rows' squared lengths in one pass: on a mesh, filling an array of the
    lengths first costs a third of the count itself."""
    total = 0
    for v in range(ptr.size - 1):
        d = ptr[v + 1] - ptr[v]
        total += d * d
    return total


def _ordered_split(ptr, idx, lo, own_heads, g_ids, g_ptr, g_idx, tri):
    k = 1
    if threads() > 1:  # a row's merges take up to its degree steps each, and at least one
        k = threads_for(idx.size, TRIANGLE_GRAIN)
        if k < threads():  # the arcs alone do not give every thread its share: the steps might
            k = threads_for(_squared_lengths(ptr), TRIANGLE_GRAIN)
    if k > 1:
        _ordered_parallel(ptr, idx, lo, own_heads, g_ids, g_ptr, g_idx, tri, row_cuts(ptr, k))
    else:
        _ordered_numba(ptr, idx, lo, own_heads, g_ids, g_ptr, g_idx, tri)


def _below(ids, ptr, idx):
    """Rows ``ids`` (CSR ``ptr/idx``) cut to their entries below the row's own id."""
    keep = idx < np.repeat(ids, np.diff(ptr))
    return np.r_[0, np.cumsum(keep)][ptr], idx[keep]


def _ordered_numpy(ptr, idx, lo, own_heads, g_ids, g_ptr, g_idx, tri):
    # oriented downwards, the marking count's algebra finds each triangle once, at its highest vertex
    down = _below(np.arange(lo, lo + ptr.size - 1), ptr, idx)
    _oriented_numpy(*down, lo, own_heads, g_ids, *_below(g_ids, g_ptr, g_idx), np.zeros(tri.size, bool), tri)


def ordered_triangles(ptr, idx, lo, ghosts, tri, own_heads=True):
    """``oriented_triangles`` by id alone, GAP's way, on rows that need no orienting: ``ptr/idx``
    are the rank's own rows (vertices lo..), each sorted, without repeats or its own vertex;
    ``ghosts`` (ids, indptr, indices) the rows, sorted and holding only vertices of the space,
    of the heads below ``lo``. Each triangle counts once, at its highest vertex v: for every head
    u < v, v's heads below u merge with u's heads below u (a row's lower heads are its prefix, so
    no row is copied, and without marks: on meshes and roads, where rows are short, a third of
    the marking count's time). Batches and ``own_heads`` as in ``oriented_triangles``."""
    g_ids, g_ptr, g_idx = ghosts
    _ordered(ptr, idx, int(lo), bool(own_heads), g_ids, g_ptr, g_idx, tri)


_ordered = twins("ordered_triangles", numba=_ordered_split, numpy=_ordered_numpy)
