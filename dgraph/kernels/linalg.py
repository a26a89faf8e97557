"""Sparse matrix-vector products and PageRank's power iteration over a rank's in-CSR.

The numba loops read ``x`` at unsigned indices: a signed one makes numba test each read for a
negative index to wrap, which costs the gather a quarter of its time (Kronecker 20, a rank's
15.7 M arcs)."""

from __future__ import annotations

import numba
import numpy as np
import scipy.sparse as sp

from .engines import SPMV_GRAIN, threads_for, twins

VERTEX_GRAIN = 1 << 18  # vertices per thread below which a pass over a rank's vertices runs serially


@numba.njit(cache=True)
def _spmv_numba(indptr, indices, weights, x, out):
    for r in range(out.size):
        s = 0.0
        if weights is None:  # known when numba compiles: no test per row
            for e in range(indptr[r], indptr[r + 1]):
                s += x[numba.uint64(indices[e])]
        else:
            for e in range(indptr[r], indptr[r + 1]):
                s += x[numba.uint64(indices[e])] * weights[e]
        out[r] = s


@numba.njit(cache=True, parallel=True)
def _spmv_parallel(indptr, indices, weights, x, out):
    # the serial loop with prange: calling a shared row function from each thread's chunk
    # measured slower on Luxembourg's roads, and a function compiled twice with and
    # without parallel=True would share one entry in numba's cache
    for r in numba.prange(out.size):
        s = 0.0
        if weights is None:
            for e in range(indptr[r], indptr[r + 1]):
                s += x[numba.uint64(indices[e])]
        else:
            for e in range(indptr[r], indptr[r + 1]):
                s += x[numba.uint64(indices[e])] * weights[e]
        out[r] = s


def spmv(indptr, indices, weights, x, out=None):
    """y[r] = sum over row r of x[col] (times the arc weight when weights are given), into
    ``out`` if given (an iteration that reuses it saves a page fault per page in a dask worker)."""
    out = np.empty(indptr.size - 1, dtype=np.float64) if out is None else out
    _spmv(indptr, indices, weights, x, out)
    return out


def _spmv_rows(indptr, indices, weights, x, out):
    (_spmv_parallel if threads_for(indices.size, SPMV_GRAIN) > 1 else _spmv_numba)(indptr, indices, weights, x, out)


def _spmv_scipy(indptr, indices, weights, x, out):
    data = np.ones(indices.size) if weights is None else weights
    out[:] = sp.csr_matrix((data, indices, indptr), shape=(indptr.size - 1, x.size)) @ x


_spmv = twins("spmv", numba=_spmv_rows, numpy=_spmv_scipy)


# ----------------------------------------------------------------------------- segmented SpMV
@numba.njit(cache=True)
def _segment_numba(indptr, indices, weights, cuts):
    nseg = cuts.size - 1
    arcs = np.zeros(nseg + 1, np.int64)  # arcs per segment, then where each segment's start
    runs = np.zeros(nseg + 1, np.int64)  # (segment, row) runs per segment, likewise
    last = np.full(nseg, -1, np.int64)
    for r in range(indptr.size - 1):
        for e in range(indptr[r], indptr[r + 1]):
            g = np.searchsorted(cuts, indices[e], side="right") - 1
            arcs[g + 1] += 1
            if last[g] != r:
                last[g] = r
                runs[g + 1] += 1
    for g in range(nseg):
        arcs[g + 1] += arcs[g]
        runs[g + 1] += runs[g]
    row_of = np.empty(runs[nseg], np.int64)
    rptr = np.empty(runs[nseg] + 1, np.int64)
    sidx = np.empty(indices.size, indices.dtype)
    sw = np.empty(0 if weights is None else indices.size)
    arc_at, run_at = arcs[:nseg].copy(), runs[:nseg].copy()
    last[:] = -1
    for r in range(indptr.size - 1):
        for e in range(indptr[r], indptr[r + 1]):
            g = np.searchsorted(cuts, indices[e], side="right") - 1
            if last[g] != r:
                last[g] = r
                row_of[run_at[g]] = r
                rptr[run_at[g]] = arc_at[g]
                run_at[g] += 1
            sidx[arc_at[g]] = indices[e]
            if weights is not None:
                sw[arc_at[g]] = weights[e]
            arc_at[g] += 1
    rptr[runs[nseg]] = indices.size
    return runs, row_of, rptr, sidx, sw


def _segment_numpy(indptr, indices, weights, cuts):
    nseg = cuts.size - 1
    rows = np.repeat(np.arange(indptr.size - 1, dtype=np.int64), np.diff(indptr))
    seg = np.searchsorted(cuts, indices, side="right").astype(np.int64) - 1
    key = seg * max(indptr.size - 1, 1) + rows
    order = np.argsort(key, kind="stable")  # by (segment, row), arcs in row order
    key = key[order]
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if key.size else np.zeros(0, np.int64)
    first = order[starts]  # each run's first arc
    runs = np.searchsorted(seg[first], np.arange(nseg + 1)).astype(np.int64)
    sw = np.empty(0) if weights is None else weights[order]
    return runs, rows[first], np.r_[starts, indices.size].astype(np.int64), indices[order], sw


_segment = twins("segment_columns", numba=_segment_numba, numpy=_segment_numpy)


def segment_columns(indptr, indices, weights, cuts):
    """A CSR's arcs cut by column into segments, for ``spmv_segments``: segment g holds the
    columns in ``[cuts[g], cuts[g + 1])`` (``cuts`` ascending, from 0 to past the largest
    column). Returns (runs, row_of, rptr, indices, weights), where run k sums arcs
    ``rptr[k]:rptr[k + 1]`` into row ``row_of[k]``, and segment g's runs are
    ``runs[g]:runs[g + 1]``. Each run keeps its row's arc order; ``weights`` is empty when none
    were given.

    >>> import numpy as np
    >>> runs, row_of, rptr, idx, w = segment_columns(np.array([0, 3]), np.array([0, 5, 2]), None, [0, 4, 8])
    >>> runs.tolist(), row_of.tolist(), rptr.tolist(), idx.tolist()
    ([0, 1, 2], [0, 0], [0, 2, 3], [0, 2, 5])
    """
    cuts = np.asarray(cuts, np.int64)
    if cuts.size < 2 or cuts[0] != 0 or (np.diff(cuts) <= 0).any() or (indices.size and indices.max() >= cuts[-1]):
        raise ValueError(f"cuts must rise from 0 to past the largest column, got {cuts.tolist()}")
    return _segment(indptr, indices, weights, cuts)


@numba.njit(cache=True)
def _spmv_segments_numba(runs, row_of, rptr, indices, weights, x, out):
    out[:] = 0.0
    for k in range(row_of.size):
        s = 0.0
        if weights.size == 0:
            for e in range(rptr[k], rptr[k + 1]):
                s += x[numba.uint64(indices[e])]
        else:
            for e in range(rptr[k], rptr[k + 1]):
                s += x[numba.uint64(indices[e])] * weights[e]
        out[row_of[k]] += s


@numba.njit(cache=True, parallel=True)
def _spmv_segments_parallel(runs, row_of, rptr, indices, weights, x, out):
    # the serial loop with prange over each segment's runs, written out for _spmv_parallel's reasons
    out[:] = 0.0
    for g in range(runs.size - 1):  # a segment's runs have distinct rows
        for k in numba.prange(runs[g], runs[g + 1]):
            s = 0.0
            if weights.size == 0:
                for e in range(rptr[k], rptr[k + 1]):
                    s += x[numba.uint64(indices[e])]
            else:
                for e in range(rptr[k], rptr[k + 1]):
                    s += x[numba.uint64(indices[e])] * weights[e]
            out[row_of[k]] += s


def _spmv_segments_rows(runs, row_of, rptr, indices, weights, x, out):
    parallel = threads_for(indices.size, SPMV_GRAIN) > 1
    (_spmv_segments_parallel if parallel else _spmv_segments_numba)(runs, row_of, rptr, indices, weights, x, out)


def _spmv_segments_numpy(runs, row_of, rptr, indices, weights, x, out):
    vals = x[indices].astype(np.float64, copy=False) if weights.size == 0 else x[indices] * weights
    sums = np.add.reduceat(vals, rptr[:-1]) if row_of.size else np.zeros(0)
    out[:] = np.bincount(row_of, weights=sums, minlength=out.size)  # in run order, as numba adds


_spmv_segmented = twins("spmv_segments", numba=_spmv_segments_rows, numpy=_spmv_segments_numpy)


def spmv_segments(segments, x, out):
    """``spmv`` over a CSR cut by ``segment_columns``: the rows' sums, segment after segment, so
    the reads of ``x`` stay within one segment's columns at a time (a cache's worth) where a
    row-order pass reads all of ``x`` at random. Rows sum in their arcs' order within each
    segment."""
    _spmv_segmented(*segments, x, out)
    return out


# ----------------------------------------------------------------------------- hubs-first labels
@numba.njit(cache=True)
def _count_reads_numba(indices, counts):
    for i in indices:
        counts[i] += 1


def _count_reads_numpy(indices, counts):
    counts += np.bincount(indices, minlength=counts.size)


_count_reads = twins("count_reads", numba=_count_reads_numba, numpy=_count_reads_numpy)


def count_reads(indices, counts):
    """Add to ``counts[i]`` the times ``i`` occurs in ``indices`` (int32 or int64), in place:
    one pass, where ``np.bincount`` first copies int32 indices to int64 (about twice the time)."""
    _count_reads(indices, counts)


@numba.njit(cache=True)
def _relabel_numba(labels, indices):
    out = np.empty(indices.size, labels.dtype)
    for e in range(indices.size):
        out[e] = labels[indices[e]]
    return out


def _relabel_numpy(labels, indices):
    return labels[indices]


_relabel = twins("relabel", numba=_relabel_numba, numpy=_relabel_numpy)

# Below this many indices numpy's indexing beats a kernel call, whose dispatch costs a few
# microseconds: an exchange among many ranks on few workers gathers thousands of small
# messages a superstep (64 ranks on 2 workers: about 700 each).
SMALL_GATHER = 512


def relabel(labels, indices):
    """``labels[indices]`` in one pass, without the int64 copy numpy's fancy indexing first
    makes of int32 indices (the gather's cache misses dominate both)."""
    if indices.size < SMALL_GATHER:
        return labels[indices]
    return _relabel(labels, indices)


@numba.njit(cache=True)
def _assign_at_serial(out, indices, values):
    for e in range(indices.size):
        out[indices[e]] = values[e]


@numba.njit(cache=True, parallel=True)
def _assign_at_parallel(out, indices, values):
    for e in numba.prange(indices.size):  # indices are distinct: no two threads write one slot
        out[indices[e]] = values[e]


def _assign_at_numba(out, indices, values):
    (_assign_at_parallel if threads_for(indices.size, VERTEX_GRAIN) > 1 else _assign_at_serial)(out, indices, values)


def _assign_at_numpy(out, indices, values):
    out[indices] = values


_assign_at = twins("assign_at", numba=_assign_at_numba, numpy=_assign_at_numpy)


def assign_at(out, indices, values):
    """``out[indices] = values`` in one pass: ``relabel``'s inverse, with no int64 copy of int32
    indices either. ``indices`` are distinct: threads may write them in any order."""
    if indices.size < SMALL_GATHER:
        out[indices] = values
    else:
        _assign_at(out, indices, values)


# ----------------------------------------------------------------------------- PageRank step
# Reassociation lets the two sums vectorize, with no branch per vertex: where dangling vertices
# lie scattered (a graph in its own labels) the branch mispredicts and costs
# the step several times over. Each vertex's values stay the formula's to the bit (test_kernels checks).
@numba.njit(cache=True, fastmath={"reassoc"})
def _pagerank_step_serial(pulled, pr, p, outw, alpha, dangling_sum, contrib):
    change, dangling = 0.0, 0.0
    for i in range(pr.size):
        new = alpha * (pulled[i] + dangling_sum * p[i]) + (1.0 - alpha) * p[i]
        change += abs(new - pr[i])
        pr[i] = new
        w = outw[i]
        dangling += new if w == 0 else 0.0
        contrib[i] = 0.0 if w == 0 else new / w
    return change, dangling


@numba.njit(cache=True, fastmath={"reassoc"}, parallel=True)
def _pagerank_step_parallel(pulled, pr, p, outw, alpha, dangling_sum, contrib):
    # the serial loop with prange, written out for _spmv_parallel's reasons
    change, dangling = 0.0, 0.0
    for i in numba.prange(pr.size):
        new = alpha * (pulled[i] + dangling_sum * p[i]) + (1.0 - alpha) * p[i]
        change += abs(new - pr[i])
        pr[i] = new
        w = outw[i]
        dangling += new if w == 0 else 0.0
        contrib[i] = 0.0 if w == 0 else new / w
    return change, dangling


def _pagerank_step_numba(pulled, pr, p, outw, alpha, dangling_sum, contrib):
    parallel = threads_for(pr.size, VERTEX_GRAIN) > 1
    step = _pagerank_step_parallel if parallel else _pagerank_step_serial
    return step(pulled, pr, p, outw, alpha, dangling_sum, contrib)


def _pagerank_step_numpy(pulled, pr, p, outw, alpha, dangling_sum, contrib):
    new = alpha * (pulled + dangling_sum * p) + (1.0 - alpha) * p
    change = float(np.abs(new - pr).sum())
    pr[:] = new
    dangling = outw == 0
    np.divide(pr, outw, out=contrib, where=~dangling)
    contrib[dangling] = 0.0
    return change, float(pr[dangling].sum())


_step = twins("pagerank_step", numba=_pagerank_step_numba, numpy=_pagerank_step_numpy)


def pagerank_step(pulled, pr, p, outw, alpha, dangling_sum, contrib):
    """One power-iteration update over a rank's vertices, in place and in one pass (eight
    numpy temporaries per iteration cost more than the SpMV on a road network):
    ``pr = alpha (pulled + dangling_sum p) + (1 - alpha) p``, ``contrib = pr / outw`` (0 where
    ``outw`` is 0). Returns (L1 change of ``pr``, ``pr`` mass on the dangling vertices)."""
    change, dangling = _step(pulled, pr, p, outw, float(alpha), float(dangling_sum), contrib)
    return float(change), float(dangling)


@numba.njit(cache=True)
def _power_iterations(parallel, indptr, indices, weights, pr, p, outw, contrib, alpha, dangling, max_iter, tol_total):
    pulled = np.empty(pr.size)
    updates, change = 0, 0.0
    while updates < max_iter and (updates == 0 or change >= tol_total):
        if parallel:
            _spmv_parallel(indptr, indices, weights, contrib, pulled)
            change, dangling = _pagerank_step_parallel(pulled, pr, p, outw, alpha, dangling, contrib)
        else:
            _spmv_numba(indptr, indices, weights, contrib, pulled)
            change, dangling = _pagerank_step_serial(pulled, pr, p, outw, alpha, dangling, contrib)
        updates += 1
    return updates, change


def power_iterations(indptr, indices, weights, pr, p, outw, contrib, alpha, dangling, max_iter, tol_total):
    """PageRank on a rank that holds every vertex, all iterations in one call: a SpMV of the
    in-CSR over ``contrib``, then ``pagerank_step``, until ``max_iter`` updates or an L1 change
    below ``tol_total`` (the superstep loop's rule, without its per-iteration exchange and Python
    overhead). ``dangling``: the dangling mass of
    ``pr`` on entry. Updates ``pr`` and ``contrib`` in place; returns (updates, last change)."""
    updates, change = _iterate(
        indptr,
        indices,
        weights,
        pr,
        p,
        outw,
        contrib,
        float(alpha),
        float(dangling),
        int(max_iter),
        float(tol_total),
    )
    return int(updates), float(change)


def _iterate_numba(indptr, indices, weights, pr, p, outw, contrib, alpha, dangling, max_iter, tol_total):
    parallel = threads_for(indices.size, SPMV_GRAIN) > 1
    args = (indptr, indices, weights, pr, p, outw, contrib, alpha, dangling, max_iter, tol_total)
    return _power_iterations(parallel, *args)


def _iterate_numpy(indptr, indices, weights, pr, p, outw, contrib, alpha, dangling, max_iter, tol_total):
    updates, change, pulled = 0, 0.0, np.empty(pr.size)
    while updates < max_iter and (updates == 0 or change >= tol_total):
        _spmv_scipy(indptr, indices, weights, contrib, pulled)
        change, dangling = _pagerank_step_numpy(pulled, pr, p, outw, alpha, dangling, contrib)
        updates += 1
    return updates, change


_iterate = twins("power_iterations", numba=_iterate_numba, numpy=_iterate_numpy)
