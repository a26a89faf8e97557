"""Local kernels: CSR build, BFS steps, pull SpMV, union-find.

Each kernel has a numba path (the default on CPU) and a vectorized numpy/scipy path; both give
identical results and both are tested. ``set_engine("numpy")`` (or ``DGRAPH_KERNELS=numpy``)
selects the numpy path, which is also the one that runs on cupy arrays.

Conventions: vertex ids are int64 *placed* ids (rank r owns the contiguous range [lo, hi));
``key`` is an optional int64 array giving each placed id its canonical rank, used so that ties
(BFS parents, component representatives) break the same way on every layout.

Threads: a run's driver may give its kernels more than one thread (``using(engine, threads=k)``;
a graph on one rank gets the cores its idle workers would use). The compute-bound numba kernels
(label mode, SpMV, triangle counts) then split their rows into k runs of about equal arcs and run
them in parallel (``*_parallel``, the same row loop as the serial kernel, so the results are
identical); the closures (BFS, Dijkstra, union-find) stay serial.
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager

import numba
import numpy as np

ENGINES = ("numba", "numpy")
_default = os.environ.get("DGRAPH_KERNELS", "numba")
_local = threading.local()


def _check(name):
    if name not in ENGINES:
        from .errors import DgraphInputError

        raise DgraphInputError(f"kernel engine must be one of {ENGINES}, not {name!r}")
    return name


def set_engine(name):
    """Select the kernel implementation for later runs: "numba" (default) or "numpy".

    Runs started from this process pass the choice on to their drivers on the workers.
    """
    global _default
    _default = _check(name)


def engine():
    return getattr(_local, "engine", None) or _default


def threads():
    """Threads this thread's kernels may use (1 unless ``using`` gave more)."""
    return getattr(_local, "threads", 1)


# Arcs of work per thread below which a parallel kernel runs serially: starting numba's threads
# costs tens of microseconds per call in a dask worker, about what a SpMV does on 2**18 arcs and
# the label and triangle counts (5-10x the work per arc) on 2**15 (CDLP on cal_road's 43 K arcs
# measured slower on two threads than on one: 4.9 vs 3.8 ms for 10 rounds).
SPMV_GRAIN = 1 << 18
COUNT_GRAIN = 1 << 15


def threads_for(arcs, grain):
    """Threads worth using on a kernel call over ``arcs`` arcs: at most ``threads()``, at least
    ``grain`` arcs each."""
    return max(1, min(threads(), int(arcs) // grain))


@contextmanager
def using(name, threads=1):
    """Use engine ``name`` in this thread for the duration of the block, and let its parallel
    kernels use up to ``threads`` threads (fewer if the process may not use that many cores, and
    1 if numba's threading layer cannot be entered from several threads at once)."""
    old = getattr(_local, "engine", None), getattr(_local, "threads", 1)
    usable = _usable_threads(threads) if name == "numba" else 1
    before = numba.get_num_threads() if usable > 1 else None
    _local.engine, _local.threads = _check(name), usable
    if usable > 1:
        numba.set_num_threads(usable)  # per calling thread in numba
    try:
        yield
    finally:
        _local.engine, _local.threads = old
        if before is not None:
            numba.set_num_threads(before)


_layer_lock = threading.Lock()
_threadsafe = None


@numba.njit(parallel=True, cache=True)
def _touch_parallel(x):
    for i in numba.prange(x.size):
        x[i] += 1.0


def _usable_threads(wanted):
    """``wanted`` capped by this process's cores and numba's pool; 1 unless numba's threading
    layer is omp or tbb (workqueue aborts when two threads launch at once, as two workers of an
    in-process cluster may). The layer is started once per process, under a lock."""
    global _threadsafe
    wanted = min(
        int(wanted),
        len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1,
        numba.config.NUMBA_NUM_THREADS,
    )
    if wanted <= 1:
        return 1
    with _layer_lock:
        if _threadsafe is None:
            try:
                _touch_parallel(np.zeros(2))
                _threadsafe = numba.threading_layer() in ("omp", "tbb")
            except Exception:  # no layer at all: serial kernels
                _threadsafe = False
    return wanted if _threadsafe else 1


def row_cuts(indptr, k):
    """Row boundaries (k + 1 of them) splitting CSR rows into k runs of about equal arcs."""
    targets = np.arange(k + 1, dtype=indptr.dtype) * indptr[-1] // k  # of indptr's dtype: float ones copy indptr
    cuts = np.searchsorted(indptr, targets).astype(np.int64)
    cuts[-1] = indptr.size - 1
    return cuts


def array_module(x):
    """numpy, or cupy for cupy arrays: kernels follow the arrays they are given."""
    mod = type(x).__module__.split(".")[0]
    if mod == "cupy":
        from .cluster import _require

        return _require("cupy", "gpu", "GPU arrays")
    return np


# ----------------------------------------------------------------------------- CSR build
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


@numba.njit(cache=True)
def _order_rows(indptr, idx, w, key, dedup):
    """Sort each row by (key of neighbour, weight) in place, dropping repeats (the first, the
    lightest, stays) with ``dedup``; returns the new indptr and the arcs kept."""
    nrows = indptr.size - 1
    out = 0
    newptr = np.zeros(nrows + 1, dtype=np.int64)
    for r in range(nrows):
        s, e = indptr[r], indptr[r + 1]
        if e - s > 1:
            k = idx[s:e].astype(np.int64) if key.size == 0 else key[idx[s:e]]  # one type for int32 ids too
            if w.size:
                order = np.argsort(w[s:e], kind="mergesort")
                order = order[np.argsort(k[order], kind="mergesort")]
            else:
                order = np.argsort(k, kind="mergesort")
            seg = idx[s:e][order]
            segw = w[s:e][order] if w.size else w[s:s]
        else:
            seg = idx[s:e].copy()
            segw = w[s:e].copy() if w.size else w[s:s]
        last = -1
        for j in range(seg.size):
            if dedup and j > 0 and seg[j] == last:
                continue
            idx[out] = seg[j]
            if w.size:
                w[out] = segw[j]
            last = seg[j]
            out += 1
        newptr[r + 1] = out
    return newptr, out


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
    if engine() != "numba":
        cat = lambda i, empty: np.concatenate([p[i] for p in pieces]) if pieces else empty  # noqa: E731
        indptr, idx, w = _csr_numpy(
            cat(0, np.empty(0, np.int64)) - offset,
            cat(1, np.empty(0, np.int64)),
            cat(2, np.empty(0)),
            int(nrows),
            k,
            bool(dedup),
            bool(order),
        )
        return indptr, idx.astype(index_dtype, copy=False), (w if weighted else None)
    indptr = np.zeros(int(nrows) + 1, dtype=np.int64)
    for r, _, _ in pieces:
        _count_rows(r, offset, indptr)
    np.cumsum(indptr, out=indptr)
    m = int(indptr[-1])
    idx, w = np.empty(m, dtype=index_dtype), np.empty(m if weighted else 0)
    fill = indptr[:-1].copy()
    for r, c, wt in pieces:
        _fill_rows(r, c, wt, offset, fill, idx, w)
    if order:
        indptr, kept = _order_rows(indptr, idx, w, k, bool(dedup))
        if kept < m:  # repeats dropped: give their room back
            idx, w = idx[:kept].copy(), w[:kept].copy()
    return indptr, idx, (w if weighted else None)


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


def count_loops(indptr, indices, ids):
    """Arcs of a CSR whose head is their row's own id (``ids[row]``): the self-loops."""
    if engine() == "numba":
        return int(_loops_numba(indptr, indices, np.asarray(ids, np.int64)))
    return int(np.count_nonzero(np.repeat(ids, np.diff(indptr)) == indices))


# ----------------------------------------------------------------------------- frontier arcs (edge map)
@numba.njit(cache=True)
def _arcs_numba(indptr, indices, weights, frontier):
    total = 0
    for u in frontier:
        total += indptr[u + 1] - indptr[u]
    pos = np.empty(total, np.int64)
    dst = np.empty(total, np.int64)
    w = np.empty(total if weights.size else 0, np.float64)
    c = 0
    for i in range(frontier.size):
        u = frontier[i]
        for e in range(indptr[u], indptr[u + 1]):
            pos[c] = i
            dst[c] = indices[e]
            if weights.size:
                w[c] = weights[e]
            c += 1
    return pos, dst, w


def _arcs_numpy(indptr, indices, weights, frontier):
    starts, counts = indptr[frontier], indptr[frontier + 1] - indptr[frontier]
    total = int(counts.sum())
    offsets = np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(total)
    return np.repeat(np.arange(frontier.size), counts), indices[offsets], weights[offsets] if weights.size else weights


def frontier_arcs(indptr, indices, weights, frontier):
    """The out-arcs of the (local) frontier vertices: (position in frontier, head, weight).

    Unweighted CSRs give weight 1.0 per arc."""
    w = np.empty(0) if weights is None else weights
    fn = _arcs_numba if engine() == "numba" else _arcs_numpy
    pos, dst, wt = fn(indptr, indices, w, np.ascontiguousarray(frontier, dtype=np.int64))
    return pos, dst, (wt if weights is not None else np.ones(dst.size))


@numba.njit(cache=True)
def _first_numba(indptr, indices, weights, rows, bits):
    pos = np.empty(rows.size, np.int64)
    src = np.empty(rows.size, np.int64)
    w = np.empty(rows.size if weights.size else 0, np.float64)
    c, scanned = 0, 0
    for i in range(rows.size):
        v = rows[i]
        for e in range(indptr[v], indptr[v + 1]):
            scanned += 1
            u = indices[e]
            if (bits[u >> 3] >> (7 - (u & 7))) & 1:
                pos[c] = i
                src[c] = indices[e]
                if weights.size:
                    w[c] = weights[e]
                c += 1
                break
    return pos[:c], src[:c], w[:c] if weights.size else w, scanned


def _first_numpy(indptr, indices, weights, rows, front):
    pos, src, w = _arcs_numpy(indptr, indices, weights, rows)
    hit = np.flatnonzero(front[src])
    keep = hit[np.r_[True, pos[hit][1:] != pos[hit][:-1]]] if hit.size else hit
    # arcs scanned with an early exit: up to the first hit in a row, the whole row otherwise
    counts = indptr[rows + 1] - indptr[rows]
    scanned = counts.copy()
    starts = np.cumsum(counts) - counts
    scanned[pos[keep]] = keep - starts[pos[keep]] + 1
    return pos[keep], src[keep], w[keep] if weights.size else w, int(scanned.sum())


def first_in_frontier(indptr, indices, weights, rows, front):
    """Pull with an early exit (Beamer's bottom-up step): for each local row in ``rows``, its
    first arc (in CSR order) whose other end is set in ``front``. Returns (position in rows,
    that end, weight, arcs scanned)."""
    w = np.empty(0) if weights is None else weights
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    if engine() == "numba":  # tested as bits: an eighth of the bytes, mostly in cache (scale 20: 15% faster)
        pos, src, wt, scanned = _first_numba(indptr, indices, w, rows, np.packbits(front))
    else:
        pos, src, wt, scanned = _first_numpy(indptr, indices, w, rows, front)
    return pos, src, (wt if weights is not None else np.ones(src.size)), int(scanned)


@numba.njit(cache=True)
def _settle_numba(ids, tails, depth, level, parent, visited, lo):
    out = np.empty(ids.size, np.int64)
    c = 0
    for i in range(ids.size):
        v = ids[i]
        if level[v] == -1:
            level[v], parent[v], visited[v + lo] = depth, tails[i], True
            out[c] = v
            c += 1
    return out[:c]


def settle_level(ids, tails, depth, level, parent, visited, lo):
    """A BFS level's write-back on one rank: the heads ``ids`` (local, ascending) not yet reached
    (``level`` -1) take ``depth`` and their tail as parent, and are set in ``visited`` (over
    placed ids; the rank's own start at ``lo``). Returns them: the next frontier.

    >>> level, parent, seen = np.array([0, -1, -1]), np.full(3, -1), np.zeros(5, bool)
    >>> settle_level(np.array([0, 2]), np.array([7, 7]), 1, level, parent, seen, 2).tolist()
    [2]
    >>> level.tolist(), parent.tolist(), seen.tolist()
    ([0, -1, 1], [-1, -1, 7], [False, False, False, False, True])
    """
    ids, tails = np.asarray(ids, np.int64), np.asarray(tails, np.int64)
    if engine() == "numba":
        return _settle_numba(ids, tails, depth, level, parent, visited, lo)
    new = level[ids] == -1
    ids = ids[new]
    level[ids], parent[ids] = depth, tails[new]
    visited[ids + lo] = True
    return ids


# ----------------------------------------------------------------------------- SpMV
@numba.njit(cache=True)
def _spmv_numba(indptr, indices, weights, x, out):
    for r in range(out.size):
        s = 0.0
        if weights is None:  # known when numba compiles: no test per row
            for e in range(indptr[r], indptr[r + 1]):
                s += x[indices[e]]
        else:
            for e in range(indptr[r], indptr[r + 1]):
                s += x[indices[e]] * weights[e]
        out[r] = s


@numba.njit(cache=True, parallel=True)
def _spmv_parallel(indptr, indices, weights, x, out):
    # the serial loop with prange: calling a shared row function from each thread's chunk
    # measured up to 2x slower on Luxembourg's roads, and a function compiled twice with and
    # without parallel=True would share one entry in numba's cache
    for r in numba.prange(out.size):
        s = 0.0
        if weights is None:
            for e in range(indptr[r], indptr[r + 1]):
                s += x[indices[e]]
        else:
            for e in range(indptr[r], indptr[r + 1]):
                s += x[indices[e]] * weights[e]
        out[r] = s


def spmv(indptr, indices, weights, x, out=None):
    """y[r] = sum over row r of x[col] (times the arc weight when weights are given), into
    ``out`` if given (an iteration that reuses it saves a page fault per page in a dask worker)."""
    if engine() != "numba":
        import scipy.sparse as sp

        data = np.ones(indices.size) if weights is None else weights
        y = sp.csr_matrix((data, indices, indptr), shape=(indptr.size - 1, x.size)) @ x
        if out is None:
            return y
        out[:] = y
        return out
    out = np.empty(indptr.size - 1, dtype=np.float64) if out is None else out
    (_spmv_parallel if threads_for(indices.size, SPMV_GRAIN) > 1 else _spmv_numba)(indptr, indices, weights, x, out)
    return out


# ----------------------------------------------------------------------------- PageRank step
@numba.njit(cache=True)
def _pagerank_step_numba(pulled, pr, p, outw, alpha, dangling_sum, contrib):
    change, dangling = 0.0, 0.0
    for i in range(pr.size):
        new = alpha * (pulled[i] + dangling_sum * p[i]) + (1.0 - alpha) * p[i]
        change += abs(new - pr[i])
        pr[i] = new
        if outw[i] == 0:
            dangling += new
            contrib[i] = 0.0
        else:
            contrib[i] = new / outw[i]
    return change, dangling


def _pagerank_step_numpy(pulled, pr, p, outw, alpha, dangling_sum, contrib):
    new = alpha * (pulled + dangling_sum * p) + (1.0 - alpha) * p
    change = float(np.abs(new - pr).sum())
    pr[:] = new
    dangling = outw == 0
    np.divide(pr, outw, out=contrib, where=~dangling)
    contrib[dangling] = 0.0
    return change, float(pr[dangling].sum())


def pagerank_step(pulled, pr, p, outw, alpha, dangling_sum, contrib):
    """One power-iteration update over a rank's vertices, in place and in one pass (eight
    numpy temporaries per iteration cost more than the SpMV on a road network):
    ``pr = alpha (pulled + dangling_sum p) + (1 - alpha) p``, ``contrib = pr / outw`` (0 where
    ``outw`` is 0). Returns (L1 change of ``pr``, ``pr`` mass on the dangling vertices)."""
    fn = _pagerank_step_numba if engine() == "numba" else _pagerank_step_numpy
    change, dangling = fn(pulled, pr, p, outw, float(alpha), float(dangling_sum), contrib)
    return float(change), float(dangling)


@numba.njit(cache=True)
def _power_iterations(parallel, indptr, indices, weights, pr, p, outw, contrib, alpha, dangling, max_iter, tol_total):
    pulled = np.empty(pr.size)
    updates, change = 0, 0.0
    while updates < max_iter and (updates == 0 or change >= tol_total):
        if parallel:
            _spmv_parallel(indptr, indices, weights, contrib, pulled)
        else:
            _spmv_numba(indptr, indices, weights, contrib, pulled)
        change, dangling = _pagerank_step_numba(pulled, pr, p, outw, alpha, dangling, contrib)
        updates += 1
    return updates, change


def power_iterations(indptr, indices, weights, pr, p, outw, contrib, alpha, dangling, max_iter, tol_total):
    """PageRank on a rank that holds every vertex, all iterations in one call: a SpMV of the
    in-CSR over ``contrib``, then ``pagerank_step``, until ``max_iter`` updates or an L1 change
    below ``tol_total`` (the superstep loop's rule, without its per-iteration exchange and Python
    overhead: 0.1-0.3 ms an iteration on the small graphs). ``dangling``: the dangling mass of
    ``pr`` on entry. Updates ``pr`` and ``contrib`` in place; returns (updates, last change)."""
    if engine() != "numba":
        updates, change, pulled = 0, 0.0, np.empty(pr.size)
        while updates < max_iter and (updates == 0 or change >= tol_total):
            change, dangling = pagerank_step(
                spmv(indptr, indices, weights, contrib, pulled), pr, p, outw, alpha, dangling, contrib
            )
            updates += 1
        return updates, change
    parallel = threads_for(indices.size, SPMV_GRAIN) > 1
    updates, change = _power_iterations(
        parallel,
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


# ----------------------------------------------------------------------------- union-find
@numba.njit(cache=True)
def _find(parent, x):
    root = x
    while parent[root] != root:
        root = parent[root]
    while parent[x] != root:
        nxt = parent[x]
        parent[x] = root
        x = nxt
    return root


@numba.njit(cache=True)
def _forest_numba(a, b, parent, lo, hi):
    x = -1
    fresh = True
    for i in range(a.size):
        if i == 0 or a[i] != a[i - 1]:
            fresh = True
        if lo <= b[i] < hi and b[i] < a[i]:
            continue  # its twin (b[i], a[i]) is here too: one of the two suffices
        if fresh:
            x = _find(parent, a[i])  # CSR order: runs of one source keep their root in hand
            fresh = False
        x = _union(parent, x, b[i])
    return _roots(parent, a, b)


@numba.njit(cache=True)
def _union(parent, x, w):
    """Join w's tree and the tree whose root ``x`` is in hand (the smaller id becomes the root);
    returns the root now in hand."""
    y = _find(parent, w)
    if x < y:
        parent[y] = x
    elif y < x:
        parent[x] = y
        x = y
    return x


@numba.njit(cache=True)
def _union_owned(parent, x, w, lo, hi):
    """``_union`` for a rank's rows lo..hi-1, where ``x`` is an owned root: a vertex owned
    elsewhere never becomes a root. By smallest id alone, every head below lo would take over
    its tree's root in turn, and the paths the finds walk would grow on every rank but the first."""
    y = _find(parent, w)
    if y == x:
        return x
    if y < lo or y >= hi or x < y:
        parent[y] = x
        return x
    parent[x] = y
    return y


@numba.njit(cache=True)
def _roots(parent, tails, heads):
    """(vertex, root) for every non-root among the endpoints, each once; parent left as found."""
    for arr in (tails, heads):  # every endpoint points at its root, then emit each non-root once
        for i in range(arr.size):
            _find(parent, arr[i])
    out_v = np.empty(tails.size + heads.size, dtype=np.int64)
    out_r = np.empty(tails.size + heads.size, dtype=np.int64)
    c = 0
    for arr in (tails, heads):
        for i in range(arr.size):
            v = arr[i]
            p = parent[v]
            if p >= 0 and p != v:
                out_v[c] = v
                out_r[c] = p
                c += 1
                parent[v] = -1 - p
    for arr in (tails, heads):  # leave the scratch array as it was found: parent[v] == v
        for i in range(arr.size):
            parent[arr[i]] = arr[i]
    return out_v[:c], out_r[:c]


# Whether a head lies outside the rank's rows is a coin flip per arc when the ranks' ids are dealt
# in turn (vertex_order="degree", striped) and a row lists its heads in canonical order: the
# kernels below test it without a branch (one unsigned compare, added in), which took the ranks'
# forests of WCC on Kronecker scale 20 hubs first from 187 to 92 ms (the call 270 -> 170 ms; the
# labels' order, whose rows see their outside heads in runs, is unchanged).


@numba.njit(cache=True)
def _outside(w, lo, span):
    """Whether head ``w`` is outside lo..lo+span-1, as one unsigned compare (no branch)."""
    return np.uint64(w - lo) >= span


@numba.njit(cache=True)
def _union_rows_numba(indptr, indices, lo, hi, parent, leaves):
    """Union the arcs of a CSR over rows lo..hi-1; mark the rows with arcs leaving the range and
    return those arcs' distinct heads."""
    outside, span = 0, np.uint64(hi - lo)
    for r in range(hi - lo):
        if indptr[r] == indptr[r + 1]:
            continue
        x = _find(parent, lo + r)  # a row keeps its root in hand
        leaving = 0
        for j in range(indptr[r], indptr[r + 1]):
            w = indices[j]
            leaving += _outside(w, lo, span)
            x = _union_owned(parent, x, w, lo, hi)
        outside += leaving
        leaves[r] = leaving > 0
    return _heads_outside(indices, lo, hi, outside, np.zeros(parent.size, np.bool_))


@numba.njit(cache=True)
def _heads_outside(indices, lo, hi, count, seen):
    """The distinct heads outside lo..hi-1 (``count``: how many arcs point there); ``seen`` is
    n-long scratch, all False on entry and on return."""
    if count == 0:
        return np.empty(0, np.int64)
    heads = np.empty(count + 1, np.int64)  # every head is written at c, kept only when new
    span, c = np.uint64(hi - lo), 0
    for j in range(indices.size):
        w = indices[j]
        o = _outside(w, lo, span)
        at = w * o  # heads inside read and leave seen[0] alone: no cache miss for them
        new = o & ~seen[at]
        heads[c] = w
        seen[at] |= new
        c += new
    for i in range(c):
        seen[heads[i]] = False
    return heads[:c]


AFFOREST_LINKS = 2  # neighbours per row linked before the largest tree is sampled (Sutton et al. use 2)
AFFOREST_SAMPLES = 1024


@numba.njit(cache=True)
def _afforest_rows_numba(indptr, indices, lo, hi, parent, leaves, links, samples):
    """``_union_rows_numba`` for a symmetric block, skipping most of the work the way Afforest
    does (Sutton, Ben-Nun, Barak, IPDPS 2018): link every row to its first few neighbours in
    the range, sample which tree is largest, and then let the rows already in that tree skip
    their arcs inside the range (each comes again in the row of its other end, which links it
    unless that row is in the tree too) and only mark their heads outside it, which join the
    tree at the end. Other rows union all their arcs, except those whose twin an earlier row
    outside the tree has united."""
    nrows = hi - lo
    for k in range(links):
        for r in range(nrows):
            j = indptr[r] + k
            if j < indptr[r + 1] and lo <= indices[j] < hi:
                _union_owned(parent, _find(parent, lo + r), indices[j], lo, hi)
    if nrows == 0:
        return np.empty(0, np.int64)
    step = max(nrows // samples, 1)
    sampled = np.empty((nrows + step - 1) // step, np.int64)
    for i in range(sampled.size):
        sampled[i] = _find(parent, lo + i * step)
    sampled.sort()
    giant, most, run = sampled[0], 0, 0
    for i in range(sampled.size):
        run = run + 1 if i > 0 and sampled[i] == sampled[i - 1] else 1
        if run > most:
            giant, most = sampled[i], run
    in_giant = np.zeros(nrows, np.bool_)  # rows that skipped their arcs inside the range
    mark = np.zeros(parent.size, np.bool_)  # heads outside the range of such rows
    outside = 0
    alone = lo == 0 and hi == parent.size  # the range is every vertex: no arc leaves it
    span = np.uint64(nrows)
    for r in range(nrows):
        u = lo + r
        x = _find(parent, u)
        g = _find(parent, giant)
        in_giant[r] = x == g
        if alone and in_giant[r]:
            continue  # nothing of this row to union or to mark
        leaving = 0
        if in_giant[r]:  # most rows: count and mark the heads outside, without a branch per arc
            for j in range(indptr[r], indptr[r + 1]):
                w = indices[j]
                o = _outside(w, lo, span)
                leaving += o
                mark[w * o] |= o  # heads inside touch mark[0], which this leaves as it was
        else:
            for j in range(indptr[r], indptr[r + 1]):
                w = indices[j]
                o = _outside(w, lo, span)
                leaving += o
                if o or w >= u or in_giant[w - lo]:  # else an earlier row outside the tree united the twin
                    x = _union_owned(parent, x, w, lo, hi)
        outside += leaving
        leaves[r] = leaving > 0
    heads = _heads_outside(indices, lo, hi, outside, np.zeros(parent.size, np.bool_))
    g = _find(parent, giant)
    for w in heads:
        if mark[w]:
            g = _union_owned(parent, g, w, lo, hi)
    return heads


def block_forest(blocks, parent, symmetric=False):
    """``spanning_forest`` of the arcs of CSR blocks over one rank's rows (lo..hi-1), read in
    place: the passes after the unions walk the rows and the heads outside them, not both ends
    of every arc. Each tree is rooted at its smallest row (not its smallest id). ``symmetric``:
    every arc inside the range comes with its twin (an undirected out-block). Returns (vertex,
    root, leaving): ``leaving`` lists the rows with an arc to a vertex outside the range."""
    lo, hi = blocks[0].lo, blocks[0].hi
    if engine() == "numpy":
        a = np.concatenate([np.repeat(np.arange(lo, hi, dtype=np.int64), blk.degree()) for blk in blocks])
        b = np.concatenate([blk.indices for blk in blocks]).astype(np.int64)
        out = (b < lo) | (b >= hi)
        v, root = _owned_roots(*_forest_numpy(a, b, parent, *((lo, hi) if symmetric else (0, 0))), lo, hi, parent.size)
        return v, root, np.unique(a[out])
    leaves = np.zeros(hi - lo, np.bool_)
    if symmetric:
        heads = [
            _afforest_rows_numba(
                blocks[0].indptr, blocks[0].indices, lo, hi, parent, leaves, AFFOREST_LINKS, AFFOREST_SAMPLES
            )
        ]
    else:
        heads = [_union_rows_numba(blk.indptr, blk.indices, lo, hi, parent, leaves) for blk in blocks]
    v, root = _roots(parent, np.arange(lo, hi, dtype=np.int64), np.concatenate(heads))
    return v, root, lo + np.flatnonzero(leaves)


def _owned_roots(v, root, lo, hi, n):
    """Re-root each tree of (vertex, root) pairs at its smallest member in lo..hi-1, as the
    numba engine roots them."""
    roots = np.unique(root)
    members, trees = np.concatenate([v, roots]), np.concatenate([root, roots])
    owned = (members >= lo) & (members < hi)
    smallest = np.full(n, n, dtype=np.int64)
    np.minimum.at(smallest, trees[owned], members[owned])
    new = smallest[trees]
    keep = members != new
    return members[keep], new[keep]


def _forest_numpy(a, b, parent, lo, hi):
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    ids = np.concatenate([a, b])
    if ids.size == 0:
        return ids, ids
    order = np.sort(ids)
    keep = np.ones(order.size, dtype=bool)
    keep[1:] = order[1:] != order[:-1]
    verts = order[keep]
    ca, cb = np.searchsorted(verts, a), np.searchsorted(verts, b)
    g = sp.coo_matrix((np.ones(a.size), (ca, cb)), shape=(verts.size, verts.size))
    _, comp = connected_components(g, directed=True, connection="weak")
    root = np.full(comp.max() + 1, np.iinfo(np.int64).max)
    np.minimum.at(root, comp, verts)
    r = root[comp]
    nonroot = r != verts
    return verts[nonroot], r[nonroot]


def spanning_forest(a, b, parent, symmetric=None):
    """Union the arcs (a[i], b[i]); return (vertex, root) for every non-root endpoint.

    Roots are the smallest id of their tree. ``parent`` is an n-long scratch array with
    parent[v] == v, left unchanged on return, so one array serves many calls. With
    ``symmetric=(lo, hi)`` every arc between two vertices of lo..hi-1 is known to come with its
    twin, so only one of the two is united (the result is the same).
    """
    a = np.ascontiguousarray(a, dtype=np.int64)
    b = np.ascontiguousarray(b, dtype=np.int64)
    lo, hi = symmetric if symmetric is not None else (0, 0)
    fn = _forest_numba if engine() == "numba" else _forest_numpy
    return fn(a, b, parent, lo, hi)


# ----------------------------------------------------------------------------- component interfaces
@numba.njit(cache=True)
def _interface_numba(leaving, v, root, lo, hi, key, tflag, vflag, anchor, best):
    keyed = key.size > 0
    for x in leaving:  # owned endpoints of arcs that leave the rank
        vflag[x] |= 1
    m = v.size
    for i in range(2 * m):  # members: every non-root, then every root (repeated)
        x = v[i] if i < m else root[i - m]
        t = root[i] if i < m else x
        if x < lo or x >= hi:
            tflag[t] |= 1
        elif anchor[t] == -1 or x < anchor[t]:
            anchor[t] = x
        if best[t] == -1 or (key[x] < key[best[t]] if keyed else x < best[t]):
            best[t] = x
    out_x = np.empty(2 * m + 1, np.int64)
    out_a = np.empty(2 * m + 1, np.int64)
    own_x = np.empty(2 * m + 1, np.int64)
    own_t = np.empty(2 * m + 1, np.int64)
    own_i = np.empty(2 * m + 1, np.bool_)
    c = 0
    o = 0
    for i in range(2 * m):
        x = v[i] if i < m else root[i - m]
        t = root[i] if i < m else x
        if vflag[x] & 2:
            continue  # a root seen before
        vflag[x] |= 2
        interface = (tflag[t] & 1) != 0
        owned = lo <= x < hi
        if interface:
            if (not owned or vflag[x] & 1) and x != anchor[t]:
                out_x[c] = x
                out_a[c] = anchor[t]
                c += 1
            if not tflag[t] & 2:
                tflag[t] |= 2
                if best[t] != anchor[t]:
                    out_x[c] = best[t]
                    out_a[c] = anchor[t]
                    c += 1
        if owned:
            own_x[o] = x
            own_t[o] = anchor[t] if interface else best[t]
            own_i[o] = interface
            o += 1
    for i in range(2 * m):
        x = v[i] if i < m else root[i - m]
        t = root[i] if i < m else x
        tflag[t] = 0
        anchor[t] = -1
        best[t] = -1
        vflag[x] = 0
    for x in leaving:
        vflag[x] = 0
    return out_x[:c], out_a[:c], own_x[:o], own_t[:o], own_i[:o]


def _interface_numpy(leaving, v, root, lo, hi, key, tflag, vflag, anchor, best):
    roots = np.unique(root)
    members = np.concatenate([v, roots])
    tree = np.concatenate([root, roots])
    ghost = (members < lo) | (members >= hi)
    leaves = np.zeros(vflag.size, dtype=bool)
    leaves[leaving] = True
    order = np.argsort(tree, kind="stable")
    members, tree, ghost = members[order], tree[order], ghost[order]
    starts = np.flatnonzero(np.r_[True, tree[1:] != tree[:-1]])
    sizes = np.diff(np.r_[starts, tree.size])
    interface = np.repeat(np.logical_or.reduceat(ghost, starts), sizes)
    big = np.iinfo(np.int64).max
    anchor_of = np.repeat(np.minimum.reduceat(np.where(ghost, big, members), starts), sizes)
    k = members if key.size == 0 else key[members]
    by_key = np.lexsort((k, tree))
    best_of = np.repeat(members[by_key][starts], sizes)
    send = interface & (ghost | leaves[members]) & (members != anchor_of)
    first = np.zeros(tree.size, dtype=bool)
    first[starts] = True
    send_best = interface & first & (best_of != anchor_of)
    out_x = np.concatenate([members[send], best_of[send_best]])
    out_a = np.concatenate([anchor_of[send], anchor_of[send_best]])
    owned = ~ghost
    return out_x, out_a, members[owned], np.where(interface, anchor_of, best_of)[owned], interface[owned]


def component_interface(leaving, v, root, lo, hi, key, scratch):
    """Summarise a rank's spanning forest (pairs (v, root) of its arcs) for merging; ``leaving``:
    its owned vertices with arcs to vertices owned elsewhere.

    A tree is an *interface* tree when it holds a vertex owned elsewhere. For each interface
    tree: anchor = its smallest owned vertex; pairs (x, anchor) are returned for every member x
    that is owned elsewhere or is an owned endpoint of an arc leaving the rank, and for the
    tree's smallest-key member. For every owned member: its anchor (interface trees: its final
    label is the anchor's) or its tree's smallest-key member (the final label). ``scratch`` is
    four n-long int64 arrays, zero / zero / -1 / -1 on entry and on return.

    Returns (pair_x, pair_anchor, owned_x, owned_target, owned_is_interface), each in no
    particular order (the two engines return the same sets).
    """
    tflag, vflag, anchor, best = scratch
    args = [np.ascontiguousarray(x, dtype=np.int64) for x in (leaving, v, root)]
    fn = _interface_numba if engine() == "numba" else _interface_numpy
    return fn(*args, lo, hi, key, tflag, vflag, anchor, best)


# ----------------------------------------------------------------------------- label mode (CDLP)
@numba.njit(cache=True)
def _mode_rows(indptr_a, indices_a, indptr_b, indices_b, labels, out, count, r0, r1):
    # counting into an n-long scratch, O(degree) per vertex: a sort per row costs 10x on roads.
    # Without a second CSR indptr_b is None and numba compiles the rows without its loops
    # (testing for an empty one in every row cost 30% on roads).
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
    k = min(counts.shape[0], threads_for(a.indices.size + (0 if xb is None else xb.size), COUNT_GRAIN))
    if engine() == "numba" and k > 1:
        _mode_parallel(a.indptr, a.indices, ib, xb, labels, own, counts, row_cuts(a.indptr, k))
    else:
        fn = _mode_numba if engine() == "numba" else _mode_numpy
        fn(a.indptr, a.indices, ib, xb, labels, own, counts)
    return own


# ----------------------------------------------------------------------------- neighbourhood arcs (LCC)
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
    out = np.empty(total, np.int64)
    buf = np.empty(0, np.int64)
    c = 0
    for v in range(nloc):
        da = ptr_a[v + 1] - ptr_a[v]
        db = ptr_b[v + 1] - ptr_b[v] if ptr_b.size else 0
        if buf.size < da + db:
            buf = np.empty(2 * (da + db), np.int64)
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
    import scipy.sparse as sp

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
    without the row's own vertex (``lo + row``). ``a``'s own arrays when its rows already are
    that (a simple graph without reordering): one scan instead of a sorted copy."""
    empty = np.empty(0, np.int64)
    pb, ib = (b.indptr, b.indices) if b is not None else (empty, empty)
    if engine() == "numba" and b is None and _rows_are_sets(a.indptr, a.indices, lo):
        return a.indptr, a.indices.astype(np.int64, copy=False)  # int64 like the sets built below
    if engine() == "numba":
        return _neighbour_sets_numba(a.indptr, a.indices, pb, ib, lo)
    rows = np.concatenate(
        [np.repeat(np.arange(a.nlocal), np.diff(a.indptr))]
        + ([np.repeat(np.arange(a.nlocal), np.diff(pb))] if pb.size else [])
    )
    cols = np.concatenate([a.indices] + ([ib] if pb.size else []))
    keep = cols != rows + lo
    rows, cols = rows[keep], cols[keep]
    order = np.lexsort((cols, rows))
    rows, cols = rows[order], cols[order]
    first = np.r_[True, (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1])] if rows.size else np.empty(0, bool)
    rows, cols = rows[first], cols[first]
    ptr = np.zeros(a.nlocal + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=a.nlocal), out=ptr[1:])
    return ptr, cols


def neighbourhood_arcs(nb_ptr, nb_idx, lo, own, ghosts, mark):
    """For every owned v: the number of arcs (u, w), u != w, with u and w both in N(v).

    ``nb_ptr/nb_idx``: N(v) per owned row; ``own``: the rank's block (rows lo..); ``ghosts``:
    (ids, indptr, indices) rows of the other vertices of any N(v); ``mark``: n-long False bools.
    """
    g_ids, g_ptr, g_idx = ghosts
    k = threads_for(nb_idx.size, COUNT_GRAIN)
    if engine() == "numba" and k > 1:
        return _nbr_arcs_parallel(
            nb_ptr, nb_idx, lo, own.indptr, own.indices, g_ids, g_ptr, g_idx, mark, row_cuts(nb_ptr, k)
        )
    fn = _nbr_arcs_numba if engine() == "numba" else _nbr_arcs_numpy
    return fn(nb_ptr, nb_idx, lo, own.indptr, own.indices, g_ids, g_ptr, g_idx, mark)


@numba.njit(cache=True)
def _orient_numba(ptr, idx, degree, lo):
    nloc = ptr.size - 1
    up_ptr = np.zeros(nloc + 1, np.int64)
    up_idx = np.empty(idx.size, idx.dtype)
    c = 0
    for v in range(nloc):
        dv, gv = degree[v + lo], v + lo
        for j in range(ptr[v], ptr[v + 1]):
            u = idx[j]
            if degree[u] > dv or (degree[u] == dv and u > gv):
                up_idx[c] = u
                c += 1
        up_ptr[v + 1] = c
    return up_ptr, up_idx[:c]


def _orient_numpy(ptr, idx, degree, lo):
    tails = np.repeat(np.arange(lo, lo + ptr.size - 1), np.diff(ptr))
    keep = (degree[idx] > degree[tails]) | ((degree[idx] == degree[tails]) & (idx > tails))
    return np.r_[0, np.cumsum(np.bincount(tails[keep] - lo, minlength=ptr.size - 1))], idx[keep]


def orient_rows(ptr, idx, degree, lo):
    """The arcs v -> u of rows ``ptr/idx`` (vertices lo..) with (degree[u], u) > (degree[v], v):
    every edge kept at one end only. Returns (up_ptr, up_idx), rows in the same order."""
    fn = _orient_numba if engine() == "numba" else _orient_numpy
    return fn(ptr, idx, degree, int(lo))


@numba.njit(cache=True)
def _oriented_rows(up_ptr, up_idx, lo, g_ids, g_ptr, g_idx, mark, tri, r0, r1):
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
                a, b, row = up_ptr[u - lo], up_ptr[u - lo + 1], up_idx
            else:
                k = np.searchsorted(g_ids, u)
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
def _oriented_numba(up_ptr, up_idx, lo, g_ids, g_ptr, g_idx, mark, tri):
    _oriented_rows(up_ptr, up_idx, lo, g_ids, g_ptr, g_idx, mark, tri, 0, up_ptr.size - 1)


@numba.njit(cache=True, parallel=True)
def _oriented_parallel(up_ptr, up_idx, lo, g_ids, g_ptr, g_idx, mark, tri, cuts):
    k = cuts.size - 1
    extra = np.zeros((k - 1, tri.size), np.int64)  # a tally per further thread: counts land anywhere
    for t in numba.prange(k):
        mine, tally = (mark, tri) if t == 0 else (np.zeros(mark.size, np.bool_), extra[t - 1])
        _oriented_rows(up_ptr, up_idx, lo, g_ids, g_ptr, g_idx, mine, tally, cuts[t], cuts[t + 1])
    for i in numba.prange(tri.size):
        for t in range(k - 1):
            tri[i] += extra[t, i]


def _oriented_numpy(up_ptr, up_idx, lo, g_ids, g_ptr, g_idx, mark, tri):
    import scipy.sparse as sp

    n, nloc = mark.size, up_ptr.size - 1
    M = sp.csr_matrix((np.ones(up_idx.size), up_idx, up_ptr), shape=(nloc, n))
    rows = np.concatenate([np.repeat(np.arange(lo, lo + nloc), np.diff(up_ptr)), np.repeat(g_ids, np.diff(g_ptr))])
    B = sp.csr_matrix((np.ones(rows.size), (rows, np.concatenate([up_idx, g_idx]))), shape=(n, n))
    closing = (M @ B).multiply(M)  # [v, w]: the u with v -> u -> w, for v -> w
    tri[lo : lo + nloc] += np.asarray(closing.sum(axis=1)).ravel().astype(np.int64)
    tri += np.asarray(closing.sum(axis=0)).ravel().astype(np.int64)
    middle = (B @ M.T).multiply(M.T)  # [u, v]: the w with u -> w, for v -> u and v -> w
    tri += np.asarray(middle.sum(axis=1)).ravel().astype(np.int64)


def oriented_triangles(up_ptr, up_idx, lo, ghosts, mark, tri):
    """Count each triangle once, at its lowest vertex v in the orientation: v -> u -> w with
    v -> w, over rows oriented from lower to higher (degree, id), and add 1 to ``tri`` (n-long
    int64) at all three of v, u and w. ``up_ptr/up_idx``: the oriented rows of the rank's own
    vertices (lo..); ``ghosts``: (ids, indptr, indices) oriented rows of the other heads;
    ``mark``: n-long False bools. Work is the arcs v -> u times u's out-degree, which the
    orientation bounds by sqrt(2m) (Chiba and Nishizeki; GAP's tc)."""
    g_ids, g_ptr, g_idx = ghosts
    k = threads_for(up_idx.size, COUNT_GRAIN)
    if engine() == "numba" and k > 1:
        _oriented_parallel(up_ptr, up_idx, int(lo), g_ids, g_ptr, g_idx, mark, tri, row_cuts(up_ptr, k))
        return
    fn = _oriented_numba if engine() == "numba" else _oriented_numpy
    fn(up_ptr, up_idx, int(lo), g_ids, g_ptr, g_idx, mark, tri)


# ----------------------------------------------------------------------------- h-index (core numbers)
@numba.njit(cache=True)
def _hindex_numba(indptr, indices, values, own, rows):
    out = own.copy()
    count = np.zeros(1, np.int64)
    for v in rows:
        s, e = indptr[v], indptr[v + 1]
        cap = own[v]
        if count.size < cap + 1:
            count = np.zeros(2 * cap + 2, np.int64)
        for j in range(s, e):
            count[min(values[indices[j]], cap)] += 1
        h, above = cap, 0
        while h > 0:
            above += count[h]
            if above >= h:
                break
            h -= 1
        out[v] = h
        count[: cap + 1] = 0
    return out


def _hindex_numpy(indptr, indices, values, own, rows):
    pos, nbr, _ = _arcs_numpy(indptr, indices, np.empty(0), rows)
    vals = np.minimum(values[nbr], own[rows][pos])
    order = np.lexsort((-vals, pos))
    pos, vals = pos[order], vals[order]
    starts = np.searchsorted(pos, np.arange(rows.size))
    rank = np.arange(pos.size) - starts[pos] + 1
    ok = vals >= rank
    h = np.zeros(rows.size, dtype=np.int64)
    np.maximum.at(h, pos[ok], rank[ok])
    out = own.copy()
    out[rows] = h
    return out


@numba.njit(cache=True)
def _touching_numba(indptr, indices, changed):
    out = np.empty(indptr.size - 1, np.int64)
    c = 0
    for v in range(indptr.size - 1):
        for j in range(indptr[v], indptr[v + 1]):
            if changed[indices[j]]:
                out[c] = v
                c += 1
                break
    return out[:c]


def _touching_numpy(indptr, indices, changed):
    rows = np.repeat(np.arange(indptr.size - 1), np.diff(indptr))
    return np.unique(rows[changed[indices]])


def rows_touching(block, changed):
    """The (sorted) local rows with at least one neighbour marked in ``changed`` (an n-long mask)."""
    fn = _touching_numba if engine() == "numba" else _touching_numpy
    return fn(block.indptr, block.indices, changed)


def h_index(block, values, own, rows):
    """For the given local ``rows``: the largest h such that h neighbours have ``values`` >= h,
    capped at ``own``; other rows keep ``own``."""
    fn = _hindex_numba if engine() == "numba" else _hindex_numpy
    return fn(block.indptr, block.indices, values, own, np.ascontiguousarray(rows, dtype=np.int64))


# ----------------------------------------------------------------------------- matching candidates
@numba.njit(cache=True)
def _heaviest_numba(indptr, indices, weights, lo, matched_local, matched, key):
    nloc = indptr.size - 1
    best = np.full(nloc, -1, np.int64)
    for v in range(nloc):
        if matched_local[v]:
            continue
        gv = v + lo
        kv = key[gv] if key.size else gv
        bw, bhi, blo = -np.inf, -1, -1
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            if u == gv or matched[u]:
                continue
            w = weights[e] if weights.size else 1.0
            ku = key[u] if key.size else u
            hi, lo_ = max(ku, kv), min(ku, kv)
            if w > bw or (w == bw and (hi > bhi or (hi == bhi and lo_ > blo))):
                bw, bhi, blo, best[v] = w, hi, lo_, u
    return best


def _heaviest_numpy(indptr, indices, weights, lo, matched_local, matched, key):
    nloc = indptr.size - 1
    rows = np.repeat(np.arange(nloc), np.diff(indptr))
    u = indices
    ok = ~matched_local[rows] & ~matched[u] & (u != rows + lo)
    rows, u = rows[ok], u[ok]
    w = weights[ok] if weights.size else np.ones(rows.size)
    ku = u if key.size == 0 else key[u]
    kv = rows + lo if key.size == 0 else key[rows + lo]
    order = np.lexsort((-np.minimum(ku, kv), -np.maximum(ku, kv), -w, rows))
    rows, u = rows[order], u[order]
    first = np.r_[True, rows[1:] != rows[:-1]] if rows.size else np.empty(0, bool)
    best = np.full(nloc, -1, np.int64)
    best[rows[first]] = u[first]
    return best


def heaviest_free_neighbour(block, matched, key, weighted=True):
    """Per unmatched owned vertex: its neighbour on the heaviest arc to an unmatched vertex, edges
    ordered by (weight, larger key, smaller key) so both ends agree; -1 if none. Without
    ``weighted`` (or weights) every arc weighs 1."""
    w = np.empty(0) if block.weights is None or not weighted else block.weights
    k = np.empty(0, np.int64) if key is None else key
    fn = _heaviest_numba if engine() == "numba" else _heaviest_numpy
    return fn(block.indptr, block.indices, w, block.lo, matched[block.lo : block.hi], matched, k)


# ----------------------------------------------------------------------------- push and merge (edge map)
def _collect(heads, best, btail, seen):
    """The merged result a numba merge left in the scratch: ``heads`` (distinct, marked in
    ``seen``) ascending, their values and tails; clears the marks. Sorted here by numpy (its
    SIMD sort is 5x numba's) or, when the heads are dense in their span, read off the marks."""
    if heads.size > 64:
        lo, hi = heads.min(), heads.max()
        heads = np.flatnonzero(seen[lo : hi + 1]) + lo if hi - lo < 16 * heads.size else np.sort(heads)
    else:
        heads = np.sort(heads)
    seen[heads] = False
    return heads, best[heads], btail[heads]


@numba.njit(cache=True)
def _push_numba(indptr, indices, weights, rows, tvals, tails, skip, mode, add, key, best, btail, seen):
    keyed = key.size > 0
    total = 0
    for u in rows:
        total += indptr[u + 1] - indptr[u]
    first = np.empty(total, np.int64)
    c = 0
    for i in range(rows.size):
        u, t = rows[i], tails[i]
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            if skip.size and skip[v]:
                continue
            x = tvals[i] + (weights[e] if weights.size else 1.0) if add else tvals[i]
            if not seen[v]:
                seen[v] = True
                best[v] = x
                btail[v] = t
                first[c] = v
                c += 1
                continue
            better = False if mode == 3 else (x < best[v] if mode == 0 else x > best[v])
            if not better and (mode == 3 or x == best[v]):
                b = btail[v]
                better = key[t] < key[b] if keyed else t < b
            if better:
                best[v] = x
                btail[v] = t
    return first[:c], total  # heads in first-seen order, still marked: _collect finishes


def push_merge(indptr, indices, weights, rows, tvals, tails, skip, merge, add, key, scratch):
    """The edge map's push step in one pass (numba only): for the arcs leaving local ``rows``
    (tails ``tails``, values ``tvals``), offer ``tvals`` (plus the arc's weight, 1.0 when
    unweighted, with ``add``) to each head not set in ``skip`` and merge per head with
    ``"min"``, ``"max"`` or ``"first"`` as ``merge_by_id`` does. Returns (sorted heads, merged
    values, winning tails, arcs examined), what frontier_arcs, ``f`` and merge_by_id give."""
    fbest, ibest, btail, seen = scratch
    integer = np.issubdtype(np.asarray(tvals).dtype, np.integer) and not add
    tvals = np.ascontiguousarray(tvals, dtype=np.int64 if integer else np.float64)
    best = fbest if tvals.dtype == np.float64 else ibest
    heads, examined = _push_numba(
        indptr,
        indices,
        np.empty(0) if weights is None else weights,
        np.ascontiguousarray(rows, dtype=np.int64),
        tvals,
        np.ascontiguousarray(tails, dtype=np.int64),
        np.empty(0, np.bool_) if skip is None else skip,
        MERGE_CODES[merge],
        bool(add),
        np.empty(0, np.int64) if key is None or key.size == 0 else key,
        best,
        btail,
        seen,
    )
    return (*_collect(heads, best, btail, seen), examined)


# ----------------------------------------------------------------------------- light and heavy arcs
@numba.njit(cache=True)
def _split_rows_numba(indptr, indices, weights, delta, ids):
    nrows = indptr.size - 1
    lptr = np.zeros(nrows + 1, np.int64)
    for r in range(nrows):
        c = 0
        for e in range(indptr[r], indptr[r + 1]):
            if weights[e] < delta:
                c += 1
        lptr[r + 1] = lptr[r] + c
    hptr = indptr - lptr
    nl = lptr[nrows]
    lidx, lw = np.empty(nl, indices.dtype), np.empty(nl, weights.dtype)
    hidx, hw = np.empty(indices.size - nl, indices.dtype), np.empty(indices.size - nl, weights.dtype)
    lloops, hloops = 0, 0
    for r in range(nrows):
        a, b = lptr[r], hptr[r]
        for e in range(indptr[r], indptr[r + 1]):
            loop = indices[e] == ids[r]
            if weights[e] < delta:
                lidx[a], lw[a] = indices[e], weights[e]
                a += 1
                lloops += loop
            else:
                hidx[b], hw[b] = indices[e], weights[e]
                b += 1
                hloops += loop
    return (lptr, lidx, lw, lloops), (hptr, hidx, hw, hloops)


def split_rows(indptr, indices, weights, delta, ids):
    """A weighted CSR cut in two, keeping rows and their order: (indptr, indices, weights, self-
    loops) of the arcs lighter than ``delta``, and of the rest; ``ids``: each row's vertex id."""
    if engine() == "numba":
        return _split_rows_numba(indptr, indices, weights, delta, ids)
    rows = np.repeat(np.arange(indptr.size - 1), np.diff(indptr))
    out = []
    for keep in (weights < delta, weights >= delta):
        ptr = np.r_[0, np.cumsum(np.bincount(rows[keep], minlength=indptr.size - 1))].astype(np.int64)
        out.append((ptr, indices[keep], weights[keep], int(np.count_nonzero(indices[keep] == ids[rows[keep]]))))
    return tuple(out)


# ----------------------------------------------------------------------------- relaxation bookkeeping
@numba.njit(cache=True)
def _improve_numba(ids, d, tails, dist, pred, pending, key, ties):
    keyed = key.size > 0
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
        elif ties and x == dist[v] and pred[v] >= 0 and (key[t] < key[pred[v]] if keyed else t < pred[v]):
            pred[v] = t
    return queued[:c]


def _improve_numpy(ids, d, tails, dist, pred, pending, key, ties):
    if ties:
        tied = np.flatnonzero((d == dist[ids]) & (pred[ids] >= 0))
        rank = (lambda x: key[x]) if key.size else (lambda x: x)
        tied = tied[rank(tails[tied]) < rank(pred[ids[tied]])]
        pred[ids[tied]] = tails[tied]
    better = d < dist[ids]
    ids = ids[better]
    dist[ids], pred[ids] = d[better], tails[better]
    queued = ids[~pending[ids]]
    pending[ids] = True
    return queued


def improve(ids, d, tails, dist, pred, pending, key, ties):
    """Take the merged offers (distinct local ``ids``, distances ``d``, tails) that improve
    ``dist`` (updating ``pred``), or with ``ties`` equal it from a tail with a smaller key (only
    ``pred``); returns the improved ids that were not ``pending`` before, now marked pending."""
    fn = _improve_numba if engine() == "numba" else _improve_numpy
    return fn(
        np.ascontiguousarray(ids, dtype=np.int64),
        np.ascontiguousarray(d, dtype=np.float64),
        np.ascontiguousarray(tails, dtype=np.int64),
        dist,
        pred,
        pending,
        key,
        bool(ties),
    )


# ----------------------------------------------------------------------------- merge by id (edge map)
MERGE_CODES = {"min": 0, "max": 1, "sum": 2, "first": 3}


@numba.njit(cache=True)
def _merge_numba(ids, vals, tails, mode, key, best, btail, seen):
    keyed = key.size > 0
    first = np.empty(ids.size, np.int64)
    c = 0
    for i in range(ids.size):
        v = ids[i]
        x = vals[i]
        if not seen[v]:
            seen[v] = True
            best[v] = x
            btail[v] = tails[i]
            first[c] = v
            c += 1
        elif mode == 2:
            best[v] += x
        else:
            better = False if mode == 3 else (x < best[v] if mode == 0 else x > best[v])
            if not better and (mode == 3 or x == best[v]):
                t, b = tails[i], btail[v]
                better = key[t] < key[b] if keyed else t < b
            if better:
                best[v] = x
                btail[v] = tails[i]
    return first[:c]  # heads in first-seen order, still marked: _collect finishes


def _merge_numpy(ids, vals, tails, mode, key, best, btail, seen):
    if mode == 2:
        order = np.argsort(ids, kind="stable")
        ids, vals, tails = ids[order], vals[order], tails[order]
        starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
        return ids[starts], np.add.reduceat(vals, starts), tails[starts]
    k = tails if key.size == 0 else key[tails]
    order = np.lexsort((k, ids) if mode == 3 else (k, vals if mode == 0 else -vals, ids))
    ids, vals, tails = ids[order], vals[order], tails[order]
    first = np.r_[True, ids[1:] != ids[:-1]]
    return ids[first], vals[first], tails[first]


def merge_by_id(ids, vals, tails, merge, key, scratch):
    """Merge values (float64 or int64) per id: ``"sum"`` adds (in input order; the tail kept is
    the first), ``"min"``/``"max"`` keep the winning value and its tail (ties: smallest key),
    ``"first"`` keeps the value of the arc whose tail has the smallest key.
    Returns (sorted unique ids, merged values, tails). ``scratch`` = (n floats, n ints, n ints,
    n False bools), left as found."""
    vals = np.asarray(vals)
    vals = vals.astype(np.int64 if np.issubdtype(vals.dtype, np.integer) else np.float64, copy=False)
    if ids.size == 0:
        return ids, vals, tails
    fbest, ibest, btail, seen = scratch
    best = ibest if vals.dtype == np.int64 else fbest
    args = (
        np.ascontiguousarray(ids, dtype=np.int64),
        np.ascontiguousarray(vals),
        np.ascontiguousarray(tails, dtype=np.int64),
        MERGE_CODES[merge],
        np.empty(0, np.int64) if key is None or key.size == 0 else key,
        best,
        btail,
        seen,
    )
    if engine() == "numba":
        return _collect(_merge_numba(*args), best, btail, seen)
    return _merge_numpy(*args)


# ----------------------------------------------------------------------------- local relaxation
@numba.njit(cache=True, inline="always")
def _heap_up(hd, hv, pos, j):
    """Move entry j of the 4-ary min-heap (distance ``hd``, vertex ``hv``; ``pos``: each
    vertex's slot) up to its place."""
    d, v = hd[j], hv[j]
    while j > 0:
        p = (j - 1) >> 2
        if hd[p] <= d:
            break
        hd[j], hv[j] = hd[p], hv[p]
        pos[hv[j]] = j
        j = p
    hd[j], hv[j], pos[v] = d, v, j


@numba.njit(cache=True, inline="always")
def _heap_down(hd, hv, pos, size):
    """Refill the root of a heap that just lost it with its last entry (at ``size``)."""
    d, v, j = hd[size], hv[size], 0
    while True:
        c = 4 * j + 1
        if c >= size:
            break
        best, bd = c, hd[c]
        for k in range(c + 1, min(c + 4, size)):
            if hd[k] < bd:
                best, bd = k, hd[k]
        if bd >= d:
            break
        hd[j], hv[j] = bd, hv[best]
        pos[hv[j]] = j
        j = best
    hd[j], hv[j], pos[v] = d, v, j


@numba.njit(cache=True)
def _relax_numba(indptr, indices, weights, lo, hi, dist, pred, seeds, bound, changed, key, ties):
    # Dijkstra with an indexed 4-ary heap: an improvement moves the vertex's entry up instead of
    # adding one, so the heap holds each vertex once (social graphs improve a vertex many times)
    n = hi - lo
    pos = np.full(n, -1, np.int64)
    hd = np.empty(n, np.float64)
    hv = np.empty(n, np.int64)
    size = 0
    for s in seeds:
        if dist[s] < bound and pos[s] < 0:
            hd[size], hv[size] = dist[s], s
            _heap_up(hd, hv, pos, size)
            size += 1
    expanded = 0
    while size:
        u, d = hv[0], hd[0]
        pos[u] = -1
        size -= 1
        if size:
            _heap_down(hd, hv, pos, size)
        expanded += indptr[u + 1] - indptr[u]
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            if v < lo or v >= hi:
                continue
            v -= lo
            nd = d + (weights[e] if weights.size else 1.0)
            if ties and nd == dist[v]:  # an equal offer: the smaller canonical tail wins
                t, b = u + lo, pred[v]
                if b >= 0 and ((key[t] < key[b]) if key.size else (t < b)):
                    pred[v] = t
            elif nd < dist[v]:
                dist[v] = nd
                pred[v] = u + lo
                changed[v] = True
                if nd < bound:
                    j = pos[v]
                    if j < 0:
                        j = size
                        size += 1
                    hd[j], hv[j] = nd, v
                    _heap_up(hd, hv, pos, j)
    return expanded


@numba.njit(cache=True)
def _relax_unit_numba(indptr, indices, lo, hi, dist, pred, seeds, bound, changed, key, ties):
    # Every arc costs 1: Dijkstra's order is a FIFO queue merged with the seeds sorted by
    # distance (both nondecreasing), O(n + m) with no heap. A vertex improved from a vertex at
    # distance d gets d + 1, which nothing popped later can beat, so it is queued at most once.
    # The offer step repeats _relax_numba's on purpose: shared as an inlined njit helper it made
    # both kernels 3-8x slower (facebook: 0.5 -> 4.2 ms here, 1.1 -> 5.0 ms weighted).
    seeds = seeds[dist[seeds] < bound]
    sd = dist[seeds]
    order = np.argsort(sd, kind="mergesort")
    seeds, sd = seeds[order], sd[order]
    queue = np.empty(hi - lo, np.int64)
    head, tail, i, expanded = 0, 0, 0, 0
    while i < seeds.size or head < tail:
        if head == tail or (i < seeds.size and sd[i] <= dist[queue[head]]):
            u, d = seeds[i], sd[i]
            i += 1
            if d > dist[u]:
                continue  # improved since: its queue entry expands it
        else:
            u = queue[head]
            d = dist[u]
            head += 1
        expanded += indptr[u + 1] - indptr[u]
        nd = d + 1.0
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            if v < lo or v >= hi:
                continue
            v -= lo
            if ties and nd == dist[v]:  # an equal offer: the smaller canonical tail wins
                t, b = u + lo, pred[v]
                if b >= 0 and ((key[t] < key[b]) if key.size else (t < b)):
                    pred[v] = t
            elif nd < dist[v]:
                dist[v] = nd
                pred[v] = u + lo
                changed[v] = True
                if nd < bound:
                    queue[tail] = v
                    tail += 1
    return expanded


def _relax_numpy(indptr, indices, weights, lo, hi, dist, pred, seeds, bound, changed, key, ties):
    # Bellman-Ford by rounds over the local arcs: the same distances as Dijkstra's order
    rank = (lambda x: key[x]) if key.size else (lambda x: x)  # noqa: E731
    front, expanded = seeds[dist[seeds] < bound], 0
    while front.size:
        pos, dst, w = _arcs_numpy(indptr, indices, weights, front)
        expanded += dst.size
        inside = np.flatnonzero((dst >= lo) & (dst < hi))
        pos, dst = pos[inside], dst[inside] - lo
        nd = dist[front[pos]] + (w[inside] if weights.size else 1.0)
        tails = front[pos] + lo
        order = np.lexsort((rank(tails), nd, dst))
        tails, dst, nd = tails[order], dst[order], nd[order]
        best = np.r_[True, dst[1:] != dst[:-1]] if dst.size else np.zeros(0, bool)
        tails, dst, nd = tails[best], dst[best], nd[best]
        if ties:
            tied = np.flatnonzero((nd == dist[dst]) & (pred[dst] >= 0))
            tied = tied[rank(tails[tied]) < rank(pred[dst[tied]])]
            pred[dst[tied]] = tails[tied]
        better = nd < dist[dst]
        tails, dst, nd = tails[better], dst[better], nd[better]
        dist[dst], pred[dst], changed[dst] = nd, tails, True
        front = dst[nd < bound]
    return expanded


@numba.njit(cache=True)
def _leaving_numba(indptr, indices, lo, hi):
    out = np.zeros(indptr.size - 1, np.bool_)
    for u in range(indptr.size - 1):
        for e in range(indptr[u], indptr[u + 1]):
            if indices[e] < lo or indices[e] >= hi:
                out[u] = True
                break
    return out


def rows_leaving(indptr, indices, lo, hi):
    """Which rows have an arc whose head lies outside [lo, hi)."""
    if engine() == "numba":
        return _leaving_numba(indptr, indices, int(lo), int(hi))
    leaving = np.r_[0, np.cumsum((indices < lo) | (indices >= hi))]
    return leaving[indptr[1:]] > leaving[indptr[:-1]]


def relax_local(indptr, indices, weights, lo, hi, dist, pred, seeds, bound, changed, key=None, ties=False):
    """Shortest paths inside one rank: from ``seeds`` (local ids, their ``dist`` already set),
    relax the arcs whose heads lie in [lo, hi) until nothing improves, expanding only vertices
    closer than ``bound``. Rows are local ids (vertex lo + row), ``indices`` placed ids.
    Updates ``dist`` (float64), ``pred`` (placed id of the improving tail) and ``changed``
    (bool) in place; returns how many arcs it scanned. Weights None: every arc costs 1.
    With ``ties`` an offer equal to a vertex's distance takes over its predecessor when its
    tail has the smaller ``key`` (canonical rank per placed id; empty: the id itself); safe
    only where every arc adds to a distance (no zero weights), or predecessors could cycle.
    Both engines give the same distances (the least fixpoint); without ``ties`` a tied
    predecessor may differ.
    """
    w = np.empty(0) if weights is None else weights
    k = np.empty(0, np.int64) if key is None else key
    seeds = np.ascontiguousarray(seeds, dtype=np.int64)
    if engine() != "numba":
        return int(
            _relax_numpy(indptr, indices, w, int(lo), int(hi), dist, pred, seeds, float(bound), changed, k, bool(ties))
        )
    if weights is None:
        return int(
            _relax_unit_numba(
                indptr, indices, int(lo), int(hi), dist, pred, seeds, float(bound), changed, k, bool(ties)
            )
        )
    return int(
        _relax_numba(indptr, indices, w, int(lo), int(hi), dist, pred, seeds, float(bound), changed, k, bool(ties))
    )


# ----------------------------------------------------------------------------- Brandes (whole graph)
@numba.njit(cache=True)
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
            fresh = np.unique(heads[level[heads] < 0])
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


def brandes(indptr, indices, sources, bc):
    """Add to ``bc`` the dependencies of every vertex on the shortest paths (by hops) from each
    of ``sources``, over a whole graph's CSR (Brandes' accumulation; the sources' own entries
    get nothing). Path counts are stored divided by the largest count of the level above, and
    the backward pass undoes that per level, so counts beyond 1e308 do not overflow. Both
    engines follow the same levels; sums may differ in the last bits by their order."""
    fn = _brandes_numba if engine() == "numba" else _brandes_numpy
    fn(indptr, indices, np.ascontiguousarray(sources, dtype=np.int64), bc)
