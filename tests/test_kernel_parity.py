"""Every registered kernel, every engine: the same results on the same inputs.

``CASES`` gives each kernel of ``dgraph.kernels.KERNELS`` its inputs (a list of argument tuples,
as the kernel's twins take them) and, where the twins may order a result differently or leave
scratch arrays with different garbage, what to compare. A kernel registered without a case, or
without an implementation for every CPU engine, fails ``test_every_kernel_has_a_twin_and_a_case``.
"""

import copy
from types import SimpleNamespace

import numpy as np
import pytest

from dgraph import kernels
from dgraph.kernels.csr import build_csr

CPU_ENGINES = ("numba", "numpy")
N, LO, HI = 300, 80, 220  # a rank owns placed ids LO..HI-1 of N


def _graph(seed=1, n=N, m=2400, symmetric=True):
    """A skewed simple graph's CSR (a few hubs, isolated vertices, no self-loops when symmetric)."""
    rng = np.random.default_rng(seed)
    tails = np.minimum(rng.zipf(1.7, m) - 1, n - 1)
    heads = rng.integers(0, n, m)
    if symmetric:
        keep = tails != heads
        tails, heads = np.r_[tails[keep], heads[keep]], np.r_[heads[keep], tails[keep]]
    w = rng.integers(1, 20, tails.size).astype(np.float64)
    return build_csr(tails, heads, n, weights=w)


def _rows(indptr, indices, weights, lo, hi):
    """Rows lo..hi-1 of a CSR as their own CSR (local rows, placed ids)."""
    ptr = indptr[lo : hi + 1] - indptr[lo]
    s = slice(indptr[lo], indptr[hi])
    return ptr, indices[s].copy(), None if weights is None else weights[s].copy()


def _ghost_rows(indptr, indices, ids):
    counts = np.diff(indptr)[ids]
    return (
        ids.astype(np.int64),
        np.r_[0, np.cumsum(counts)].astype(np.int64),
        np.concatenate([indices[indptr[v] : indptr[v + 1]] for v in ids]).astype(np.int64),
    )


def _key(seed=2):
    return np.random.default_rng(seed).permutation(N).astype(np.int64)


def _scratch(dtype):
    """The merges' scratch: best values of ``dtype``, best tails, and the n-long marks."""
    return np.zeros(N, dtype), np.zeros(N, np.int64), np.zeros(N, bool)


def _csr_cases():
    rng = np.random.default_rng(3)
    out = []
    for weighted in (True, False):
        pieces = []
        for size in (500, 0, 300):
            rows, cols = rng.integers(10, 40, size), rng.integers(0, 60, size)
            w = rng.integers(1, 5, size).astype(np.float64) if weighted else np.empty(0)
            pieces.append((rows, cols, w))
        for dedup, order in ((True, True), (False, True), (False, False)):
            out.append((pieces, weighted, 30, 10, _key()[:60] % 60, dedup, order, np.dtype(np.int32)))
    return out


def _mark_removed_cases():
    """Removals asked of a CSR sorted by key (with repeats), some of arcs it lacks."""
    rng = np.random.default_rng(41)
    out = []
    for keyed in (False, True):
        key = _key()[:N] if keyed else np.empty(0, np.int64)
        rows, cols = rng.integers(0, 40, 600), rng.integers(0, N, 600)
        indptr, indices, _ = build_csr(rows, cols, 40, key=key if keyed else None, dedup=False)
        asked = rng.integers(0, indices.size, 50)
        req_rows = np.repeat(np.arange(40), np.diff(indptr))[asked]
        heads = indices[asked].astype(np.int64)
        req_keys = key[heads] if keyed else heads
        req_rows = np.r_[req_rows, [3, -1, 39]].astype(np.int64)
        req_keys = np.r_[req_keys, [N + 5, 0, N + 7]].astype(np.int64)
        out.append((indptr, indices, key, req_rows, req_keys, np.zeros(indices.size, bool)))
    return out


def _merge_rows_cases():
    """Rows merged with added arcs: weighted or not, keyed or not, with dedup or not, old rows
    dropped and slots remapped (-1: a removed vertex)."""
    rng = np.random.default_rng(43)
    out = []
    for weighted in (True, False):
        for keyed in (False, True):
            for dedup in (True, False):
                key = rng.permutation(80).astype(np.int64) if keyed else np.empty(0, np.int64)
                rows, cols = rng.integers(0, 30, 300), rng.integers(0, 60, 300)
                w = rng.integers(1, 9, 300).astype(np.float64) if weighted else None
                slot_map = np.where(rng.random(60) < 0.1, -1, np.sort(rng.choice(80, 60, replace=False)))
                order_key = None if not keyed else key[np.maximum(slot_map, 0)]
                indptr, indices, ow = build_csr(rows, cols, 30, weights=w, key=order_key, dedup=dedup)
                old_row = np.r_[np.arange(30), [-1, -1]].astype(np.int64)
                old_row[5] = -1
                arows, acols = np.sort(rng.integers(0, 32, 90)), rng.integers(0, 80, 90)
                aw = rng.integers(1, 9, 90).astype(np.float64) if weighted else np.empty(0)
                k = key[acols] if keyed else acols
                order = np.lexsort((aw, k, arows)) if weighted else np.lexsort((k, arows))
                aptr = np.r_[0, np.cumsum(np.bincount(arows, minlength=32))].astype(np.int64)
                dropped = rng.random(indices.size) < 0.1
                out.append(
                    (
                        indptr,
                        indices,
                        ow if weighted else np.empty(0),
                        old_row,
                        slot_map.astype(np.int64),
                        dropped,
                        key,
                        aptr,
                        acols[order],
                        aw[order] if weighted else aw,
                        dedup,
                    )
                )
    return out


def _take_cases():
    indptr, indices, _ = _graph(31)
    space = np.sort(np.random.default_rng(31).choice(10 * N, N, replace=False)).astype(np.int64)
    rows = np.array([0, 5, 5, 17, N - 1, 3], np.int64)  # repeated, unsorted, empty rows among them
    return [
        (indptr, indices, r, space, np.empty(int((indptr[r + 1] - indptr[r]).sum()), dtype))
        for r in (rows, rows[:0])
        for dtype in (np.int32, np.int64)
    ]


def _frontier_cases():
    indptr, indices, w = _graph()
    rng = np.random.default_rng(4)
    frontier = np.sort(rng.choice(N, 40, replace=False)).astype(np.int64)
    return [(indptr, indices, w, frontier), (indptr, indices, np.empty(0), frontier[:0])]


def _first_cases():
    indptr, indices, w = _graph()
    rng = np.random.default_rng(5)
    rows = np.sort(rng.choice(N, 120, replace=False)).astype(np.int64)
    return [(indptr, indices, w, rows, rng.random(N) < 0.1), (indptr, indices, np.empty(0), rows, np.zeros(N, bool))]


def _pull_cases():
    indptr, indices, w = _graph()
    rng = np.random.default_rng(36)
    rows = np.sort(rng.choice(N, 150, replace=False)).astype(np.int64)
    front = rng.random(N) < 0.3
    fval = rng.integers(0, 4, N) / 4  # few values, sums exact in any order: rows tie often
    key = rng.permutation(N).astype(np.int64)  # ties broken by a key that is not the slot order
    none = np.empty(0, np.int64)
    return [
        (indptr, indices, np.floor(w), rows, front, fval, key, False, True),  # min of value + weight
        (indptr, indices, np.empty(0), rows, front, fval, none, False, True),  # unweighted: + 1
        (indptr, indices, w, rows, front, fval, key, True, False),  # sum of the values
        (indptr, indices, np.empty(0), rows, front, fval, none, True, False),
        (indptr, indices, w, rows[:0], front, fval, key, False, True),
    ]


def _settle_cases():
    rng = np.random.default_rng(6)
    nloc = HI - LO
    level = np.where(rng.random(nloc) < 0.3, 2, -1).astype(np.int64)
    ids = np.unique(rng.integers(0, nloc, 60)).astype(np.int64)
    return [(ids, rng.integers(0, N, ids.size).astype(np.int64), 3, level, np.full(nloc, -1), np.zeros(N, bool), LO)]


def _push_cases():
    indptr, indices, w = _graph()
    rng = np.random.default_rng(7)
    rows = np.sort(rng.choice(N, 50, replace=False)).astype(np.int64)
    tails = rows[::-1].copy()
    skip = rng.random(N) < 0.2
    out = []
    for mode in (0, 1, 2, 3):  # min, max, sum, first; few values, so tails tie often
        for dtype, weights, add in ((np.float64, w, True), (np.int64, np.empty(0), False)):
            values = rng.integers(0, 3, rows.size).astype(dtype)
            arcs = (indptr, indices, weights, rows, values, tails, skip)
            out.append((*arcs, mode, add, *_scratch(dtype), np.empty(0, np.float32), -np.inf, np.inf))
    # a min push with a floor: offers above it dropped (ties kept), the floor lowered to the rest
    # (+inf, whole numbers the integer offers tie with, or values no float64 offer equals)
    u, k = rng.random(N), rng.integers(0, 4, N)
    floor = np.where(u < 0.3, np.inf, np.where(u < 0.6, k, k + 0.1)).astype(np.float32)
    for dtype, weights, add in ((np.float64, w, True), (np.int64, np.empty(0), False)):
        values = rng.integers(0, 3, rows.size).astype(dtype)
        arcs = (indptr, indices, weights, rows, values, tails, skip)
        out.append((*arcs, 0, add, *_scratch(dtype), floor.copy(), -np.inf, np.inf))
    # the arcs of one weight window (unweighted arcs weigh 1: all in, or all out)
    for weights, window in ((w, (2.0, 4.0)), (np.empty(0), (0.0, 1.0)), (np.empty(0), (1.0, 2.0))):
        values = rng.integers(0, 3, rows.size).astype(np.float64)
        arcs = (indptr, indices, weights, rows, values, tails, skip)
        out.append((*arcs, 0, True, *_scratch(np.float64), np.empty(0, np.float32), *window))
    return out


def _merge_cases():
    rng = np.random.default_rng(8)
    ids = rng.integers(0, N, 500).astype(np.int64)
    tails = rng.integers(0, N, 500).astype(np.int64)
    out = []
    for mode in (0, 1, 2, 3):  # min, max, sum, first
        for dtype in (np.float64, np.int64):
            out.append((ids, rng.integers(0, 4, 500).astype(dtype), tails, mode, *_scratch(dtype)))
    return out


def _spmv_cases():
    indptr, indices, w = _graph()
    x = np.random.default_rng(9).random(N)
    narrow = x.astype(np.float32)  # PageRank's contributions on coarse runs: summed in float64
    return [
        (indptr, indices, w, x, np.empty(N)),
        (indptr, indices, None, x, np.empty(N)),
        (indptr, indices, None, narrow, np.empty(N)),
    ]


def _segment_cases():
    indptr, indices, w = _graph()
    empty = (np.zeros(1, np.int64), indices[:0], None)
    narrow = indices.astype(np.int32)
    return [
        (indptr, indices, w, np.arange(0, N + 64, 64)),
        (indptr, narrow, None, np.r_[0, 7, N]),
        (indptr, indices, None, np.r_[0, N]),
        (*empty, np.r_[0, 8]),
    ]


def _spmv_segments_cases():
    x = np.random.default_rng(9).random(N)
    cases = [(*kernels.segment_columns(*case), x, np.full(case[0].size - 1, np.nan)) for case in _segment_cases()]
    return cases + [(*cases[1][:5], x.astype(np.float32), np.full(N, np.nan))]


def _reads_cases():
    indices = _graph()[1]
    zeros = np.zeros(N, np.int64)
    return [(indices, zeros), (indices.astype(np.int32), np.arange(N)), (indices[:0], zeros.copy())]


def _assign_cases():
    rng = np.random.default_rng(5)
    at = rng.permutation(N)[: N // 2]  # distinct
    return [
        (np.zeros(N), at, rng.random(at.size)),
        (np.zeros(N, np.int32), at.astype(np.int32), rng.integers(0, 9, at.size).astype(np.int32)),
        (np.zeros(N), at[:0], np.zeros(0)),
    ]


def _relabel_cases():
    indices = _graph()[1]
    labels = np.random.default_rng(4).permutation(N)
    return [(labels, indices), (labels.astype(np.int32), indices.astype(np.int32)), (labels, indices[:0])]


def _pagerank_inputs(seed=10):
    indptr, indices, _ = _graph(seed)
    outw = np.diff(indptr).astype(np.float64)
    pr = np.full(N, 1 / N)
    contrib = np.divide(pr, outw, out=np.zeros(N), where=outw > 0)
    return indptr, indices, pr, np.full(N, 1 / N), outw, contrib, float(pr[outw == 0].sum())


def _step_cases():
    indptr, indices, pr, p, outw, contrib, dangling = _pagerank_inputs()
    pulled = np.random.default_rng(11).random(N) / N
    narrow = contrib.astype(np.float32)  # contributions as PageRank sends them on coarse runs
    return [(pulled, pr, p, outw, 0.85, dangling, contrib), (pulled, pr.copy(), p, outw, 0.85, dangling, narrow)]


def _iterate_cases():
    indptr, indices, pr, p, outw, contrib, dangling = _pagerank_inputs()
    return [
        (indptr, indices, None, pr, p, outw, contrib, 0.85, dangling, 30, 0.0),
        (indptr, indices, None, pr, p, outw, contrib, 0.85, dangling, 100, 1e-6),
        (indptr, indices, None, pr.copy(), p, outw, contrib.astype(np.float32), 0.85, dangling, 30, 0.0),
    ]


def _forest_cases():
    rng = np.random.default_rng(12)
    a, b = np.sort(rng.integers(0, N, 400)).astype(np.int64), rng.integers(0, N, 400).astype(np.int64)
    return [(a, b, np.arange(N, dtype=np.int64), 0, 0)]


def _block(ptr, idx, lo, hi, space_key=None):
    return SimpleNamespace(indptr=ptr, indices=idx, lo=lo, hi=hi, degree=lambda: np.diff(ptr), space_key=space_key)


def _block_forest_cases():
    indptr, indices, _ = _graph(13)
    ptr, idx, _ = _rows(indptr, indices, None, LO, HI)
    whole = _block(indptr, indices, 0, N)
    return [
        ([_block(ptr, idx, LO, HI)], np.arange(N, dtype=np.int64)),
        ([_block(ptr, idx, LO, HI), _block(ptr, idx[::-1].copy(), LO, HI)], np.arange(N, dtype=np.int64)),
        ([whole], np.arange(N, dtype=np.int64)),
        ([_block(ptr, idx, LO, HI)], np.arange(N, dtype=np.int32)),  # WCC's slots while they fit
    ]


HUBS = 150  # a rank owning the hubs (placed ids 0..HUBS-1): most of its rows skip


def _afforest_cases():
    out = []
    for m in (300, 2400):  # sparse: rows in and out of the largest tree; dense: most rows in it
        indptr, indices, _ = _graph(17, m=m)
        for lo, hi, dtype in ((LO, HI, np.int64), (0, HUBS, np.int64), (0, N, np.int32)):  # (0, N): no arc leaves
            out.append((_block(*_rows(indptr, indices, None, lo, hi)[:2], lo, hi), np.arange(N, dtype=dtype)))
        # heads not in slot order (a canonical order of their own): the first neighbours are scanned for
        ptr, idx, _ = _rows(indptr, indices, None, LO, HI)
        backwards = np.concatenate([idx[a:b][::-1] for a, b in zip(ptr[:-1], ptr[1:])])
        out.append((_block(ptr, backwards, LO, HI, space_key=np.arange(N)[::-1]), np.arange(N, dtype=np.int64)))
    return out


def _afforest_closure(skipped, args):
    """What ``afforest_rows`` leaves its caller: the components that the forest in ``parent`` and
    the skipped rows' arcs make together (scipy labels them by smallest member, so equal
    partitions compare equal), and whether the skipped rows share one tree."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    block, parent = args
    indptr, indices, lo, hi = block.indptr, block.indices, block.lo, block.hi
    rows = np.arange(lo, hi)[skipped]
    tails = np.repeat(rows, np.diff(indptr)[skipped])
    heads = np.concatenate([indices[indptr[r - lo] : indptr[r - lo + 1]] for r in rows] or [np.empty(0, np.int64)])
    a, b = np.r_[np.arange(parent.size), tails], np.r_[parent, heads]
    _, label = connected_components(coo_matrix((np.ones(a.size), (a, b)), shape=(N, N)), directed=False)
    roots = {_root(parent, r) for r in rows}
    return label, len(roots) <= 1


def _root(parent, x):
    while parent[x] != x:
        x = parent[x]
    return x


def _flatten_cases():
    """Forests whose pointers go to smaller ids: Afforest's over a whole range, and a path."""
    indptr, indices, _ = _graph(21, m=300)
    out = []
    for dtype in (np.int64, np.int32):
        parent = np.arange(N, dtype=dtype)
        kernels.KERNELS["afforest_rows"].impls["numba"](_block(indptr, indices, 0, N), parent)
        out.append((parent,))
    out.append((np.maximum(np.arange(N) - 1, 0),))  # every vertex's root N - 1 steps away at most
    return out


def _bridges_cases():
    rng = np.random.default_rng(18)
    indptr, indices, _ = _graph(19, m=500)
    ptr, idx, _ = _rows(indptr, indices, None, 0, HUBS)
    cuts = np.array([0, HUBS, 200, 250, N])  # ranks 1, 2, 3 after this one's rows
    out = []
    for dtype in (np.int64, np.int32):
        parent = np.arange(N, dtype=dtype)
        skipped = kernels.KERNELS["afforest_rows"].impls["numba"](_block(ptr, idx, 0, HUBS), parent)
        far = (rng.random(N) < 0.5).astype(np.uint8)
        far[:HUBS] = 0
        out += [(ptr, idx, 0, HUBS, parent, skipped, f, cuts) for f in (far, np.zeros(N, np.uint8))]
    return out


def _interface_cases():
    indptr, indices, _ = _graph(14, m=300)
    ptr, idx, _ = _rows(indptr, indices, None, LO, HI)
    with kernels.using("numpy"):
        v, root = kernels.block_forest([_block(ptr, idx, LO, HI)], np.arange(N, dtype=np.int64))
    out = []
    for slot in (np.int64, np.int32):
        scratch = (np.zeros(N, np.uint8), np.zeros(N, np.uint8), np.full(N, -1, slot), np.full(N, -1, slot))
        forest = (v.astype(slot), root.astype(slot))  # the members come back in the forest's type
        out += [(*forest, LO, HI, key, *copy.deepcopy(scratch)) for key in (_key(), np.empty(0, np.int64))]
    return out


def _mode_cases():
    indptr, indices, _ = _graph(15)
    ptr, idx, _ = _rows(indptr, indices, None, LO, HI)
    labels = np.random.default_rng(16).integers(0, 25, N).astype(np.int64)  # few labels: many ties
    counts = np.zeros((1, N), np.int32)
    return [
        (ptr, idx, None, None, labels, labels[LO:HI].copy(), counts),
        (ptr, idx, ptr, idx[::-1].copy(), labels, labels[LO:HI].copy(), counts.copy()),
    ]


def _sets_cases():
    indptr, indices, _ = _graph(17)
    ptr, idx, _ = _rows(indptr, indices, None, LO, HI)
    empty = np.empty(0, np.int64)
    loops = np.r_[idx, np.arange(LO, HI)]  # self-loops and repeats to drop
    lptr = np.r_[ptr[:-1], ptr[-1]] + np.arange(ptr.size)
    lidx = np.empty(loops.size, np.int64)
    for r in range(HI - LO):
        lidx[lptr[r] : lptr[r + 1]] = np.r_[idx[ptr[r] : ptr[r + 1]], LO + r]
    return [(ptr, idx, empty, empty, LO), (ptr, idx, ptr, idx[::-1].copy(), LO), (lptr, lidx, empty, empty, LO)]


def _neighbourhood_inputs(seed):
    indptr, indices, _ = _graph(seed)
    ptr, idx, _ = _rows(indptr, indices, None, LO, HI)
    ghost_ids = np.r_[0:LO, HI:N].astype(np.int64)
    return indptr, indices, ptr, idx, ghost_ids


def _nbr_arcs_cases():
    indptr, indices, ptr, idx, ghost_ids = _neighbourhood_inputs(18)
    some = ghost_ids[::3]  # one batch of the ghosts' rows, beside empty own rows
    return [
        (ptr, idx.astype(np.int64), LO, ptr, idx, *_ghost_rows(indptr, indices, ghost_ids), np.zeros(N, bool)),
        (
            ptr,
            idx.astype(np.int64),
            LO,
            np.zeros_like(ptr),
            idx[:0],
            *_ghost_rows(indptr, indices, some),
            np.zeros(N, bool),
        ),
    ]


def _orient_cases():
    indptr, indices, ptr, idx, _ = _neighbourhood_inputs(19)
    return [(ptr, idx, np.diff(indptr), LO), (indptr, indices, np.diff(indptr), 0), (ptr, idx, None, LO)]


def _oriented_cases():
    indptr, indices, ptr, idx, ghost_ids = _neighbourhood_inputs(20)
    degree = np.diff(indptr)
    with kernels.using("numpy"):
        up_all = kernels.orient_rows(indptr, indices, degree, 0)
        up_ptr, up_idx = kernels.orient_rows(ptr, idx, degree, LO)
    ghosts = _ghost_rows(up_all[0], up_all[1], ghost_ids)
    some = _ghost_rows(up_all[0], up_all[1], ghost_ids[1::3])  # one batch, without the own rows
    return [
        (up_ptr, up_idx, LO, True, *ghosts, np.zeros(N, bool), np.zeros(N, np.int64)),
        (up_ptr, up_idx, LO, False, *some, np.zeros(N, bool), np.zeros(N, np.int64)),
    ]


def _ordered_cases():
    indptr, indices, _ = _graph(21)
    with kernels.using("numpy"):  # sorted rows without repeats
        indptr, indices = kernels.neighbour_sets(SimpleNamespace(indptr=indptr, indices=indices), None, 0)
    lo = 40  # by id, a triangle counts at its highest vertex: the hubs (low ids) are ghosts below
    ptr, idx, _ = _rows(indptr, indices, None, lo, N)
    ghost_ids = np.arange(lo, dtype=np.int64)
    ghosts = _ghost_rows(indptr, indices, ghost_ids)
    some = _ghost_rows(indptr, indices, ghost_ids[1::3])
    return [
        (ptr, idx, lo, True, *ghosts, np.zeros(N, np.int64)),
        (ptr, idx, lo, False, *some, np.zeros(N, np.int64)),
    ]


def _moving_cases():
    indptr, indices, w = _graph(31)
    rng = np.random.default_rng(32)
    k = np.bincount(np.repeat(np.arange(N), np.diff(indptr)), weights=w, minlength=N)
    out = []
    # singletons (the first sweep); a coarse start with some rows standing still; the rows in
    # slots 5.. of a space with ghosts on both sides, a tenth of the arcs reaching them
    ghosts = np.r_[0:5, N + 5 : N + 10]
    spread = indices + 5
    far = rng.random(spread.size) < 0.1
    spread[far] = rng.choice(ghosts, np.count_nonzero(far))
    # (the spread case in int32, as levels keep their slots while they fit)
    for ncomm, first, cols in ((N, 0, indices), (12, 0, indices), (9, 5, spread)):
        ints = np.int32 if first else np.int64
        slots = N + 2 * first
        comm = np.arange(slots) if ncomm == N else rng.integers(0, ncomm, slots)
        ids, ccol = np.unique(comm, return_inverse=True)
        own = ccol[first : first + N]
        tot = np.bincount(own, weights=k, minlength=ids.size) + np.bincount(ccol, minlength=ids.size)
        size = np.bincount(ccol, minlength=ids.size).astype(np.int64)
        order = rng.permutation(N)
        active = np.ones(N, bool) if ncomm == N else rng.random(N) < 0.7
        out.append(
            (
                indptr,
                cols.astype(ints),
                w,
                first,
                k,
                ccol.astype(ints),
                tot,
                size,
                1.0 / k.sum(),
                order,
                active,
                np.full(ids.size, np.nan),
                np.empty(ids.size, np.int64),
            )
        )
    return out


def _sum_rows_cases():
    """Pieces as CSRs over the same rows: none, an empty one, one with few repeats or many, and
    three (one empty) with pairs repeated across them; ids int32 and int64."""
    rng = np.random.default_rng(35)

    def piece(m, na, nb, ids):
        a = np.sort(rng.integers(0, na, m))
        start = np.zeros(na + 1, dtype=np.int64)
        np.cumsum(np.bincount(a, minlength=na), out=start[1:])
        return start, rng.integers(0, nb, m).astype(ids), rng.random(m)

    i32, i64 = np.empty(0, np.int32), np.empty(0, np.int64)
    out = [((), (), (), 3, 4, i32), ((np.zeros(4, np.int64),), (np.empty(0, np.int64),), (np.empty(0),), 3, 4, i64)]
    for m, na, nb in ((500, 20, 30), (2000, 7, 5)):  # few repeats; most pairs repeated
        out.append(tuple(zip(piece(m, na, nb, np.int64))) + (na, nb, i64))
        pieces = [piece(q, na, nb, np.int32) for q in (m // 2, 0, m // 3)]
        out.append((*(tuple(p[i] for p in pieces) for i in range(3)), na, nb, i32))
    return out


def _level_cases():
    """A level's CSR with self-loops, its arcs' other ends as slots, groups of rows and slots."""
    indptr, indices, w = _graph(36, symmetric=False)
    rng = np.random.default_rng(37)
    indices = indices.copy()
    indices[rng.random(indices.size) < 0.05] = 3  # loops on row 3, heads 3 elsewhere
    return indptr, indices.astype(np.int64), w, rng


def _level_weights_cases():
    indptr, heads, w, _ = _level_cases()
    return [(indptr, heads, np.arange(N), w), (indptr, heads.astype(np.int32), np.arange(N) + 1, w)]


def _inside_weight_cases():
    indptr, cols, w, rng = _level_cases()
    return [(indptr, cols, w, rng.integers(0, g, N), rng.integers(0, g, N)) for g in (1, 4, 50)]


def _sum_row_pairs_cases():
    indptr, cols, w, rng = _level_cases()
    return [
        (indptr, cols, w, rng.integers(0, na, N), rng.integers(0, nb, N), na, nb, np.empty(0, ids))
        for (na, nb), ids in (((6, 9), np.int32), ((40, 3), np.int64))
    ]


def _pieces_cases():
    """A rank's rows (slots = placed ids, with loops and ghosts) and the whole graph, in coarse
    and fine communities: pieces joined inside the rows, arcs leaving them listed."""
    indptr, indices, _ = _graph(38)
    rng = np.random.default_rng(39)
    out = []
    for ncomm in (2, 9):
        comm = rng.integers(0, ncomm, N)
        ptr, idx, _ = _rows(indptr, indices, None, LO, HI)
        out.append((ptr, idx.astype(np.int64), LO, comm[LO:HI], comm))
        out.append((indptr, indices.astype(np.int64), 0, comm, comm))
    return out


def _ghost_cases():
    """A rank's rows (slots = placed ids: ghosts on both sides, some slots no arc reaches) and
    the whole graph (no ghost at all)."""
    indptr, indices, _ = _graph(40)
    ptr, idx, _ = _rows(indptr, indices, None, LO, HI)
    return [(ptr, idx.astype(np.int64), LO, N), (indptr, indices.astype(np.int64), 0, N)]


def _wake_cases():
    """Rows next to ghosts woken where some ghosts' values changed, none, or all; some rows
    awake already."""
    indptr, indices, _ = _graph(41)
    ptr, idx, _ = _rows(indptr, indices, None, LO, HI)
    near = kernels.ghost_rows(ptr, idx.astype(np.int64), LO, N)
    rng = np.random.default_rng(42)
    last = rng.integers(0, 5, N)
    out = []
    for changed in (rng.random(N) < 0.3, np.zeros(N, bool), np.ones(N, bool)):
        seen = np.where(changed, last + 1, last)
        out.append((*near, seen, last, rng.random(HI - LO) < 0.2))
    return out


def _refine_cases():
    indptr, indices, w = _graph(33)
    rng = np.random.default_rng(34)
    k = np.bincount(np.repeat(np.arange(N), np.diff(indptr)), weights=w, minlength=N)
    out = []
    for ncomm, first, theta in ((4, 0, 0.0), (3, 0, 0.5), (5, 2, 0.01)):
        # the rows are slots first..first+N-1 of a space that has ``first`` ghosts before them
        ints = np.int32 if first else np.int64  # (with ghosts in int32, as levels keep their slots)
        ccol = rng.integers(0, ncomm, N + first)
        tot = np.bincount(ccol[first:], weights=k, minlength=ncomm) + 1.0
        n = N
        out.append(
            (
                indptr,
                indices.astype(ints) + first,
                w,
                first,
                k,
                ccol.astype(ints),
                tot,
                0.5 / k.sum(),
                rng.permutation(N),
                rng.random(N),
                theta,
                (np.arange(n, dtype=np.int64), k.copy(), np.zeros(n), np.ones(n, np.int64)),
                np.zeros(n),
                np.zeros(n),
                np.zeros(n, bool),
                np.empty(n, np.int64),
            )
        )
    return out


def _heaviest_cases():
    indptr, indices, w = _graph(25)
    ptr, idx, wt = _rows(indptr, indices, w, LO, HI)
    matched = np.random.default_rng(26).random(N) < 0.3
    return [
        (ptr, idx, wt, LO, matched[LO:HI], matched, _key()),
        (ptr, idx, np.empty(0), LO, matched[LO:HI], matched, np.empty(0, np.int64)),
    ]


def _light_cases():
    indptr, indices, w = _graph(27)
    ids = np.arange(N, dtype=np.int64)
    return [(indptr, indices, w, delta, ids) for delta in (0.0, 5.0, np.inf)]


def _improve_cases():
    rng = np.random.default_rng(28)
    nloc = HI - LO
    ids = np.unique(rng.integers(0, nloc, 80)).astype(np.int64)
    d = rng.integers(1, 6, ids.size).astype(np.float64)
    dist = np.where(rng.random(nloc) < 0.5, rng.integers(1, 6, nloc), np.inf)
    pred = np.where(np.isfinite(dist), rng.integers(0, N, nloc), -1).astype(np.int64)
    pending = rng.random(nloc) < 0.2
    tails = rng.integers(0, N, ids.size).astype(np.int64)
    return [(ids, d, tails, dist, pred, pending, ties) for ties in (False, True)]


def _take_below_cases():
    rng = np.random.default_rng(31)
    dist = np.where(rng.random(N) < 0.8, rng.integers(0, 9, N).astype(float), np.inf)
    queue = rng.permutation(N)[: N // 2].astype(np.int64)
    pending = np.zeros(N, dtype=bool)
    pending[queue] = True
    # some below, none below, all below (nothing left: no closest)
    return [(queue, dist, t, pending) for t in (4.0, 0.0, np.inf)]


def _leaving_cases():
    indptr, indices, _ = _graph(29)
    ptr, idx, _ = _rows(indptr, indices, None, LO, HI)
    return [(ptr, idx, LO, HI)]


def _relax_cases():
    indptr, indices, w = _graph(30)
    ptr, idx, wt = _rows(indptr, indices, w, LO, HI)
    out = []
    # a heap; buckets of the default width; buckets as wide as the largest weight, in the
    # fewest slots (most vertices wait again, the seeds join as the search comes near them)
    queues = [None, kernels.bucket_queue(wt), (float(wt.max()), 3, 2 * float(wt.max()))]
    for weights, buckets in [(wt, q) for q in queues] + [(np.empty(0), None)]:
        dist = np.full(HI - LO, np.inf)
        seeds = np.array([0, 17, 60], np.int64)
        dist[seeds] = [0.0, 3.0, 1.0]
        for key in (_key()[: HI - LO], np.empty(0, np.int64)):  # rows' canonical ids: keyed tails, or none
            out.append(
                (
                    ptr,
                    idx,
                    weights,
                    LO,
                    HI,
                    LO + 5,  # row u is placed id LO + 5 + u: tails are reported by that
                    dist.copy(),
                    np.full(HI - LO, -1),
                    seeds,
                    np.inf,
                    np.zeros(HI - LO, bool),
                    key,
                    True,
                    buckets,
                    None,  # no weighted arcs: the search on several threads alone reads them
                    np.zeros(2, np.int64),  # the rounds and threads of a search on threads
                )
            )
        out.append(
            (
                ptr,
                idx,
                weights,
                LO,
                HI,
                LO,
                dist.copy(),
                np.full(HI - LO, -1),
                seeds,
                4.0,  # a bound: seeds and vertices beyond it wait, never expanded
                np.zeros(HI - LO, bool),
                np.empty(0, np.int64),
                True,
                buckets,
                None,
                np.zeros(2, np.int64),
            )
        )
    return out


def _brandes_cases():
    indptr, indices, _ = _graph(31, symmetric=False)
    return [(indptr, indices.astype(np.int32), np.array([0, 5, 99, 250], np.int64), np.zeros(N))]


def _brandes_paths_cases():
    """Random weights (every path length distinct), then small whole weights (many ties)."""
    indptr, indices, _ = _graph(36, symmetric=False)
    sources = np.array([0, 5, 99, 250], np.int64)
    rng = np.random.default_rng(37)
    w, ties = rng.random(indices.size), rng.integers(1, 4, indices.size).astype(np.float64)
    return [
        (indptr, indices.astype(np.int32), w, sources, np.zeros(N), np.zeros(indices.size)),
        (indptr, indices.astype(np.int32), ties, sources, np.zeros(N), np.zeros(indices.size)),
        (indptr, indices.astype(np.int32), ties, sources, np.zeros(N), np.zeros(0)),
    ]


def _tree_many_cases():
    """Three searches held side by side, levels and distances, as Graph 500 validates them."""
    indptr, indices, w = _graph(34)
    src, dst = np.repeat(np.arange(N), np.diff(indptr)), indices.astype(np.int64)
    rng = np.random.default_rng(35)
    level = rng.integers(-1, 5, (N, 3))
    parent = np.where(level > 0, rng.integers(0, N, (N, 3)), -1)
    levels = np.stack([level, parent], axis=2).astype(np.int32)
    dists = np.stack([np.where(level >= 0, level * 3.0, np.inf), parent], axis=2)
    return [
        (src, dst, np.empty(0), levels, False, 0.0, np.zeros((3, N), bool)),
        (src, dst, w, dists, True, 1e-9, np.zeros((3, N), bool)),
    ]


def _tree_cases():
    """A BFS and a weighted search over the same arcs, valid and broken, directed or not, cut at a
    level or not."""
    indptr, indices, w = _graph(32)
    src, dst = np.repeat(np.arange(N), np.diff(indptr)), indices.astype(np.int64)
    rng = np.random.default_rng(33)
    level = rng.integers(-1, 5, N).astype(np.float64)
    dist = np.where(level >= 0, level * 3.0, np.inf)
    parent = np.where(level > 0, rng.integers(0, N, N), -1)
    out = []
    for directed in (True, False):
        for limit in (np.inf, 2.0):
            out.append((src, dst, np.empty(0), level, parent, False, directed, limit, 0.0, np.zeros(N, bool)))
            out.append((src, dst, w, dist, parent, True, directed, limit, 1e-9, np.zeros(N, bool)))
    return out


def _astray_cases():
    """A valid tree, then with a cycle, a reached vertex under an unreached parent, a parent
    out of range, another root, and a root not reached."""
    rng = np.random.default_rng(34)
    parent = np.concatenate([[0], rng.integers(0, np.arange(1, N))])  # each vertex under an earlier one
    reached = np.ones(N, bool)
    cycle = parent.copy()
    cycle[[5, 9]] = [9, 5]
    unreached = reached.copy()
    unreached[parent[N - 1]] = False
    outside = parent.copy()
    outside[7] = -1
    rootless = reached.copy()
    rootless[0] = False
    return [(parent, reached, 0), (cycle, reached, 0), (parent, unreached, 0), (outside, reached, 0)] + [
        (parent, reached, 3),
        (parent, rootless, 0),
    ]


def _onefived_cases(ranked):
    """Random arcs among classes L, H, E on meshes 2 x 2 and 2 x 3 (one rank owning nothing),
    ids int64 and int32."""
    rng = np.random.default_rng(36)
    src, dst, classes = rng.integers(0, N, 5000), rng.integers(0, N, 5000), rng.integers(0, 3, N).astype(np.int8)
    meshes = [(np.array([0, 10, 20, 30, N]), 2), (np.array([0, 7, 7, 19, 40, 41, N]), 3)]
    out = []
    for ids in (np.int64, np.int32):
        s, d = src.astype(ids), dst.astype(ids)
        out += [(s, d, classes, bounds, cols) for bounds, cols in meshes] if ranked else [(s, d, classes)]
    return out


def _pairs(*arrays):
    """Parallel arrays as rows sorted lexicographically: results whose order is not specified."""
    order = np.lexsort(arrays[::-1])
    return tuple(a[order] for a in arrays)


def _greedy_pass_cases():
    """A first pass (ghosts partly coloured), a later one (some ghosts changed, the rows after
    them marked), a rank holding every vertex, and a row with a self-loop."""
    rng = np.random.default_rng(50)
    indptr, indices, _ = _graph(51)
    ptr, idx, _ = _rows(indptr, indices, None, LO, HI)
    pos = rng.permutation(N).astype(np.int64)
    order = np.argsort(pos[LO:HI]).astype(np.int64)
    colour = np.where(rng.random(N) < 0.7, rng.integers(0, 9, N), -1).astype(np.int64)
    colour[LO:HI] = -1
    first = (ptr, idx, LO, pos, order, colour, np.ones(HI - LO, bool))
    later = copy.deepcopy(first)
    kernels.KERNELS["greedy_pass"].impls["numpy"](*later)
    ghosts = np.r_[0:LO, HI:N]
    moved = rng.choice(ghosts, 40, replace=False)
    later[5][moved] = rng.integers(0, 9, moved.size)
    rows = np.repeat(np.arange(HI - LO), np.diff(ptr))
    woken = np.isin(idx, moved) & (pos[idx] < pos[rows + LO])
    later[6][rows[woken]] = True
    whole = (indptr, indices, 0, pos, np.argsort(pos).astype(np.int64), np.full(N, -1, np.int64), np.ones(N, bool))
    lptr, lidx = ptr.copy(), idx.copy()
    lidx[lptr[3]] = LO + 3  # row 3 beside itself
    looped = (lptr, lidx, LO, pos, order, colour.copy(), np.ones(HI - LO, bool))
    return [first, later, whole, looped]


def _local_forest_cases():
    """A rank's rows with tied weights, keyed and not, with NaN weights, and a rank holding
    every vertex. Both arcs of an edge weigh the same, as an undirected graph's do."""
    indptr, indices, _ = _graph(52)
    tails = np.repeat(np.arange(N), np.diff(indptr))
    w = ((np.minimum(tails, indices) * 31 + np.maximum(tails, indices) * 17) % 19 + 1).astype(np.float64)
    ptr, idx, wt = _rows(indptr, indices, w, LO, HI)
    plain = np.arange(N, dtype=np.int64)
    holes = wt.copy()
    holes[::7] = np.nan
    return [
        (ptr, idx, wt, plain, LO),
        (ptr, idx, -wt, _key(), LO),
        (ptr, idx, holes, plain, LO),
        (indptr, indices, w, _key(), 0),
        (ptr, idx, np.ones(idx.size), _key(), LO),
    ]


def _lightest_leaving_cases():
    rng = np.random.default_rng(53)
    indptr, indices, w = _graph(54)
    ptr, idx, wt = _rows(indptr, indices, w, LO, HI)
    rows = np.repeat(np.arange(HI - LO, dtype=np.int64), np.diff(ptr))
    comp_space = rng.integers(0, 30, N).astype(np.int64)
    comp = comp_space[LO:HI].copy()
    ids, group = np.unique(comp, return_inverse=True)
    heads = idx.astype(np.int64)
    return [
        (rows, heads, wt, np.arange(N, dtype=np.int64), LO, comp, comp_space, group, ids.size),
        (rows, heads, np.ones(wt.size), _key(), LO, comp, comp_space, group, ids.size),
        (rows[:0], heads[:0], wt[:0], _key(), LO, comp, comp_space, group, ids.size),
    ]


# name -> (cases, normalise(result, args after the call) -> what must be equal)
def _fill_cases():
    rng = np.random.default_rng(4)
    rows, cols = rng.integers(10, 40, 800), rng.integers(0, 60, 800)
    end = np.cumsum(np.bincount(rows - 10, minlength=30))
    out = []
    for w in (rng.random(800), np.empty(0)):
        fill = np.r_[0, end[:-1]]
        out.append((rows, cols, w, 10, fill, end, np.full(800, -1), np.zeros(800 if w.size else 0)))
    # full rows: the arc that finds no room makes it False
    out.append((rows, cols, np.empty(0), 10, np.r_[0, end[:-1]], end - 1, np.full(800, -1), np.empty(0)))
    return out


def _order_cases():
    out = []
    for rows, cols, w, _, fill, end, idx, _w in _fill_cases()[:2]:
        indptr = np.r_[0, end]
        for key, dedup in ((None, True), (_key()[:60] % 60, False)):
            k = np.empty(0, np.int64) if key is None else key
            out.append((indptr, np.sort(cols).astype(np.int32), np.sort(w) if w.size else w, k, dedup))
    # rows short (insertion), middling (numba's sort) and long (numpy's), with repeats and ties
    rng = np.random.default_rng(5)
    indptr = np.r_[0, np.cumsum([0, 1, 5, 16, 17, 100, 255, 256, 700, 3000, 2, 40])]
    cols = rng.integers(0, N, indptr[-1])
    w = rng.integers(0, 4, indptr[-1]).astype(np.float64)
    for key in (np.empty(0, np.int64), _key(), _key() % 40):
        for dedup in (True, False):
            out.append((indptr, cols.astype(np.int32), w, key, dedup))
            out.append((indptr, cols, np.empty(0), key, dedup))
        out.append((np.array([0, 0, 1]), np.array([7], np.int32), np.empty(0), key, True))  # one arc alone
    return out


def _slots_cases():
    rows, _, _, offset, fill, *_ = _fill_cases()[0]
    return [(rows, offset, fill), (np.r_[rows[:50], 3, 99, rows[50:90]], offset, fill)]  # out of range: -1


def _positions_cases():
    rng = np.random.default_rng(33)
    sparse = np.flatnonzero(rng.random(5000) < 0.3) + 70  # ids in and out of it, below and above
    dense = np.arange(40, 1000)
    asked = rng.integers(-5, 5200, 20000)
    return [
        (sparse, asked),
        (sparse.astype(np.int32), asked.astype(np.int32)),
        (dense, asked),
        (np.array([7]), np.array([6, 7, 8, 70])),  # one word, ids on both sides
        (sparse, asked[:0]),
    ]


def _dense_ranks_cases():
    rng = np.random.default_rng(34)
    spread = rng.integers(-50, 4000, 3000)  # negative and positive, repeats, gaps
    wide = rng.integers(0, 1 << 40, 50)  # sorted, not marked
    cases = [spread, spread.astype(np.int32), np.array([9, 9, 9]), wide, spread[:0]]
    return [(v, np.empty(v.size, dtype)) for v in cases for dtype in (np.int64, np.int32)]


def _pack_ids_cases():
    rng = np.random.default_rng(36)
    return [
        (rng.integers(0, 1000, 300), 1000),
        (rng.integers(0, 13, 40).astype(np.int32), 13),  # repeats, a last byte only partly used
        (np.array([8, 0, 7], np.int64), 9),
        (np.empty(0, np.int64), 0),
    ]


def _set_bits_cases():
    rng = np.random.default_rng(35)
    cases = []
    for size, density in ((1000, 0.01), (1003, 0.5), (64, 1.0), (9, 0.0), (0, 0.0)):
        bits = rng.random(size) < density
        cases.append((np.packbits(bits), size))
    cases.append((np.packbits(np.ones(16, bool)), 13))  # bits past size in the last byte
    return cases


def _kronecker_cases():
    from dgraph.kernels.generate import _seed_key, scrambler

    thresholds = np.array([0.76, 0.75, 0.79]) * float(1 << 32)
    return [
        (scale, _seed_key(seed), first, count, thresholds.astype(np.uint64), scrambler(scale, seed), bool(weighted))
        for scale, seed, first, count, weighted in [(0, 1, 0, 10, 0), (7, 2, 5, 3000, 1), (33, 3, 1 << 40, 500, 0)]
    ]


def _keyed_at_cases():
    rng = np.random.default_rng(12)
    space = np.sort(rng.choice(4 * N, N, replace=False)).astype(np.int64)
    key = rng.permutation(N).astype(np.int32)
    return [(space, key, rng.integers(0, N, 700)), (space, key, np.zeros(0, np.int64))]


def _unkey_cases():
    """Keyed ids with -1s among them, ids up to the 32 bits' top, and none."""
    rng = np.random.default_rng(13)
    placed = rng.integers(0, 1 << 32, 900)
    ids = (rng.integers(0, 1 << 31, 900) << 32) | placed
    ids[rng.random(900) < 0.2] = -1
    return [(ids,), (np.zeros(0, np.int64),)]


def _rows_arcs_cases():
    indptr, _, _ = _graph(14)
    rng = np.random.default_rng(15)
    return [(indptr, rng.integers(0, N, 600)), (indptr, np.arange(N)), (indptr, np.zeros(0, np.int64))]


def _mark_bits_cases():
    rng = np.random.default_rng(16)
    space = np.sort(rng.choice(np.arange(300, 300 + 4 * N), N, replace=False)).astype(np.int64)
    bits = rng.random(4 * N) < 0.3
    flags = rng.random(N) < 0.5
    return [(flags, space, 300, bits, True), (flags, space, 300, bits, False), (flags[:0], space[:0], 300, bits, True)]


def _levels_cases():
    """Searches from a hub (bottom-up levels among them), keyed and not, a directed graph with a
    depth limit, and an isolated source."""
    indptr, indices, _ = _graph(37)
    key = _key(38)
    rows = np.repeat(np.arange(N), np.diff(indptr))
    order = np.lexsort((key[indices], rows))  # rows sorted by canonical id
    kptr, kidx = indptr, indices[order]
    dptr, didx, _ = _graph(39, symmetric=False)
    rptr, ridx, _ = build_csr(didx, np.repeat(np.arange(N), np.diff(dptr)), N)
    sptr, sidx, _ = _graph(40, m=200)  # sparse: some vertices without arcs
    hub, isolated = int(np.argmax(np.diff(indptr))), int(np.flatnonzero(np.diff(sptr) == 0)[0])
    none = np.empty(0, np.int64)
    cases = [(indptr, indices, indptr, indices, none, hub, -1), (kptr, kidx, kptr, kidx, key, hub, -1)]
    cases.append((dptr, didx, rptr, ridx, none, int(np.argmax(np.diff(dptr))), 2))
    cases.append((sptr, sidx, sptr, sidx, none, isolated, -1))
    return [(*csrs, key, np.full(N, -1), np.full(N, -1), source, limit, 15, 18) for *csrs, key, source, limit in cases]


def _overlap_cases():
    """Pairs on a skewed graph (hubs with leaves: searched, not merged), own rows LO..HI-1 and
    the rest fetched, rows sorted by slot and by a key, a self-loop, repeats, u == v."""
    indptr, indices, _ = _graph(43)
    key = _key(44)
    rng = np.random.default_rng(45)
    out = []
    for keyed in (False, True):
        rows = np.repeat(np.arange(N), np.diff(indptr))
        heads = np.r_[indices, [LO, LO + 1, LO + 1]]  # a self-loop at LO, a repeat in LO + 1's row
        rows = np.r_[rows, [LO, LO + 1, LO + 1]]
        order = np.lexsort((key[heads] if keyed else heads, rows))
        rows, heads = rows[order], heads[order]
        ptr = np.r_[0, np.cumsum(np.bincount(rows, minlength=N))]
        own = (ptr[LO : HI + 1] - ptr[LO], heads[ptr[LO] : ptr[HI]].astype(np.int32))
        far_ids = np.r_[np.arange(LO), np.arange(HI, N)]
        fptr, fidx = _ghost_rows(ptr, heads, far_ids)[1:]
        u = rng.integers(LO, HI, 600)
        v = np.r_[u[:10], rng.integers(0, N, 590)]
        vrow = np.where((v >= LO) & (v < HI), v - LO, -1 - np.searchsorted(far_ids, v))
        weight = 1 / np.log(np.maximum(np.diff(ptr), 2))
        k = key if keyed else np.empty(0, np.int64)
        for w in (weight, np.empty(0)):
            tallies = (np.zeros(u.size, np.int64), np.zeros(u.size, np.int64), np.zeros(u.size))
            out.append((*own, fptr, fidx.astype(np.int32), k, u - LO, vrow, u, v, w, *tallies))
    return out


def _signed_cases():
    """Rank-local Bellman-Ford with negative weights (no negative cycle) over a whole graph and
    over rows LO..HI-1 (heads outside skipped), keyed tails and not, from a hub and from all;
    and a negative cycle."""
    indptr, indices, _ = _graph(47)
    rng = np.random.default_rng(48)
    p = rng.integers(0, 20, N) / 4
    rows = np.repeat(np.arange(N), np.diff(indptr))
    w = rng.integers(0, 8, indices.size) / 4 + p[rows] - p[indices]
    out = []
    for lo, hi in ((0, N), (LO, HI)):
        ptr, idx, wt = _rows(indptr, indices, w, lo, hi)
        size = hi - lo
        hub = int(np.argmax(np.diff(ptr)))
        for keys in (np.arange(lo, hi), (_key(49)[lo:hi] << 32) | np.arange(lo, hi)):
            for seeds in (np.array([hub]), np.arange(size)):
                dist = np.full(size, np.inf)
                dist[seeds] = 0.0
                labels = (dist, np.zeros(size, np.int64), np.full(size, -1, np.int64))
                out.append((ptr, idx, wt, lo, *labels, keys, seeds, N, np.zeros(size, bool)))
    *head, weights, first, dist, hops, pred, keys, seeds, limit, changed = copy.deepcopy(out[0])
    out.append((*head, weights - 1.0, first, dist, hops, pred, keys, seeds, limit, changed))  # negative cycles
    return out


def _signed_outcome(result, args):
    """The labels, unless a negative cycle stopped the pass half done (then only that)."""
    return (result[1],) if result[1] else (result[1], args[4:7], args[10])


def _prefix_cases():
    indptr, _, w = _graph()
    rng = np.random.default_rng(4)
    long = np.r_[0, 3, 3, 700, 701].astype(np.int64)  # an empty row and one longer than LONG_ROW
    return [(indptr, w, np.empty(w.size)), (long, rng.random(701), np.empty(701))]


def _search_rows_cases():
    indptr, indices, w = _graph()
    rng = np.random.default_rng(5)
    rows = rng.integers(0, N, 400)
    starts, ends = indptr[rows], indptr[rows + 1]
    prefix = np.concatenate([np.cumsum(w[a:b]) for a, b in zip(indptr[:-1], indptr[1:])])
    heads = rng.integers(0, N, rows.size)
    keyed = np.argsort(_key())  # rows sorted by a key: positions of the sorted keys
    kidx = np.concatenate([np.sort(_key()[indices[a:b]]) for a, b in zip(indptr[:-1], indptr[1:])])
    sums = prefix[np.maximum(ends - 1, 0)] * rng.random(rows.size)
    none = np.empty(0, np.int64)
    out = np.empty(rows.size, np.int64)
    return [
        (starts, ends, indices, none, heads.astype(indices.dtype), False, out.copy()),
        (starts, ends, prefix, none, sums, True, out.copy()),
        (starts, ends, keyed[kidx], _key(), heads, False, out.copy()),
    ]


def _peel_cases():
    indptr, indices, _ = _graph(41)
    ptr, idx, _ = _rows(indptr, indices, None, LO, HI)
    rows = np.repeat(np.arange(HI - LO), np.diff(ptr))
    ghost = (idx < LO) | (idx >= HI)
    gptr, grows, _ = build_csr(idx[ghost], rows[ghost], N, order=False)
    rng = np.random.default_rng(42)
    values = rng.integers(0, 14, N).astype(np.int64)
    values[rng.choice(N, 5)] = np.iinfo(np.int64).max  # ghosts not heard from yet
    values[LO:HI] = np.diff(ptr)
    bounded = values.copy()
    bounded[LO:HI] = rng.integers(0, 9, HI - LO)
    whole = np.diff(indptr).astype(np.int64)
    none = np.zeros(N + 1, np.int64)
    narrow, wide = np.empty(0, np.int32), np.empty(0, np.int64)
    return [
        (ptr, idx, LO, values, gptr, grows, narrow),
        (ptr, idx, LO, bounded, gptr, grows, wide),
        (indptr, indices, 0, whole, none, np.zeros(0, np.int64), narrow),
    ]


def _settle_cores_cases():
    # rows out of their fixpoint: every row, or the readers of ghosts lowered after a peel
    ptr, idx, lo, values, gptr, grows, narrow = _peel_cases()[0]
    rows = np.arange(ptr.size - 1, dtype=np.int64)
    settled = values.copy()
    settled[lo : lo + rows.size] = kernels.peel_cores(SimpleNamespace(indptr=ptr, indices=idx), lo, values, gptr, grows)
    lowered = settled.copy()
    ghosts = np.flatnonzero(np.diff(gptr) > 0)[::3]
    lowered[ghosts] = np.minimum(lowered[ghosts], 2)
    readers = np.unique(np.concatenate([grows[gptr[g] : gptr[g + 1]] for g in ghosts])).astype(np.int64)
    return [(*_peel_cases()[1][:7], rows), (ptr, idx, lo, lowered, gptr, grows, narrow, readers)]


CASES = {
    "csr_from_pieces": (_csr_cases, None),
    "count_loops": (lambda: [(*_graph()[:2], np.arange(N, dtype=np.int64))], None),
    "frontier_arcs": (_frontier_cases, None),
    "first_in_frontier": (_first_cases, None),
    "pull_merge": (_pull_cases, None),
    "settle_level": (_settle_cases, None),
    # best and btail are scratch whose content between calls is unspecified; seen must be clear,
    # and the floor as it was (push_merge lowers it after any engine)
    "push_merge": (_push_cases, lambda r, a: (r, a[-4], a[-3])),
    "merge_by_id": (_merge_cases, lambda r, a: (r, a[-1])),
    "spmv": (_spmv_cases, None),
    "segment_columns": (_segment_cases, None),
    "spmv_segments": (_spmv_segments_cases, None),
    "count_reads": (_reads_cases, None),
    "relabel": (_relabel_cases, None),
    "assign_at": (_assign_cases, None),
    "pagerank_step": (_step_cases, None),
    "power_iterations": (_iterate_cases, None),
    "spanning_forest": (_forest_cases, lambda r, a: (_pairs(*r), a)),
    "block_forest": (_block_forest_cases, lambda r, a: (_pairs(r[0], r[1]), a[1])),
    # the twins skip different rows (numpy none): what they leave unjoined must join the same
    "afforest_rows": (_afforest_cases, _afforest_closure),
    "flatten_forest": (_flatten_cases, None),
    "afforest_bridges": (_bridges_cases, lambda r, a: (_pairs(r[0], r[1]), r[2], a[4])),
    "component_interface": (
        _interface_cases,
        lambda r, a: (
            _pairs(*r[0]),
            _pairs(*r[1]),
            _pairs(*r[2]),
            a[5:],
            [x.dtype for group in r for x in group],
        ),
    ),
    "label_mode": (_mode_cases, None),
    "neighbour_sets": (_sets_cases, None),
    "neighbourhood_arcs": (_nbr_arcs_cases, None),
    "orient_rows": (_orient_cases, None),
    "oriented_triangles": (_oriented_cases, None),
    "ordered_triangles": (_ordered_cases, None),
    # the scratch (last two) is left NaN by numba and unused by numpy
    "local_moving": (_moving_cases, lambda r, a: (r, a[5], a[6], a[7], a[10])),
    # the state (refined ids, totals, weights out, sizes) compared; the scratch after it is not
    "refine_communities": (_refine_cases, lambda r, a: (r, a[11])),
    "sum_rows": (_sum_rows_cases, None),
    "level_weights": (_level_weights_cases, None),
    "inside_weight": (_inside_weight_cases, None),
    "sum_row_pairs": (_sum_row_pairs_cases, None),
    "community_pieces": (_pieces_cases, None),
    "ghost_rows": (_ghost_cases, None),
    "wake_near": (_wake_cases, lambda r, a: (r, a[4])),
    "heaviest_free_neighbour": (_heaviest_cases, None),
    "light_rows": (_light_cases, None),
    "improve": (_improve_cases, None),
    "take_below": (_take_below_cases, None),
    "rows_leaving": (_leaving_cases, None),
    "relax_local": (_relax_cases, None),
    # the twins run levels in different directions: the levels and parents must agree
    "bfs_levels": (_levels_cases, lambda r, a: (r[0], a[5], a[6])),
    "brandes": (_brandes_cases, None),
    "brandes_paths": (_brandes_paths_cases, None),
    "search_tree_rules": (_tree_cases, None),
    "search_tree_rules_many": (_tree_many_cases, None),
    "tree_astray": (_astray_cases, None),
    "kronecker_edges": (_kronecker_cases, None),
    "positions": (_positions_cases, None),
    "onefived_ranks": (lambda: _onefived_cases(True), None),
    "onefived_subgraphs": (lambda: _onefived_cases(False), None),
    "dense_ranks": (_dense_ranks_cases, None),
    "keyed_at": (_keyed_at_cases, None),
    "unkey": (_unkey_cases, None),
    "rows_arcs": (_rows_arcs_cases, None),
    "mark_bits": (_mark_bits_cases, None),
    "set_bits": (_set_bits_cases, None),
    "pack_ids": (_pack_ids_cases, None),
    # after an arc found no room the arrays hold whatever was written before it
    "fill_rows": (_fill_cases, lambda r, a: (r, a) if r else r),
    # past the arcs kept, the arrays hold whatever each engine left there
    "order_rows": (_order_cases, lambda r, a: (r, a[1][: r[1]], a[2][: r[1]] if a[2].size else a[2])),
    "row_order": (_order_cases, None),
    "fill_slots": (_slots_cases, None),
    "take_rows": (_take_cases, lambda r, a: a[-1]),
    "row_prefix": (_prefix_cases, lambda r, a: a[-1]),
    "search_rows": (_search_rows_cases, lambda r, a: a[-1]),
    "mark_removed": (_mark_removed_cases, None),
    "merge_rows": (_merge_rows_cases, None),
    "pair_overlaps": (_overlap_cases, None),
    "relax_signed": (_signed_cases, _signed_outcome),
    "greedy_pass": (_greedy_pass_cases, None),
    # each forest edge once, in whatever order the twins find them
    "local_forest": (_local_forest_cases, lambda r, a: (r[0], _pairs(*r[1]), r[2])),
    "lightest_leaving": (_lightest_leaving_cases, None),
    "peel_cores": (_peel_cases, None),
    "settle_cores": (_settle_cores_cases, None),
}


def _equal(x, y, where):
    if isinstance(x, SimpleNamespace):
        return
    if isinstance(x, (tuple, list)):
        assert isinstance(y, (tuple, list)) and len(x) == len(y), where
        for i, (a, b) in enumerate(zip(x, y)):
            _equal(a, b, f"{where}[{i}]")
        return
    if x is None or isinstance(x, (str, bool, np.dtype)):
        assert x == y, where
        return
    x, y = np.asarray(x), np.asarray(y)
    if x.dtype.kind == "f" or y.dtype.kind == "f":
        np.testing.assert_allclose(x, y, rtol=1e-9, atol=1e-12, err_msg=where)
    else:
        np.testing.assert_array_equal(x, y, err_msg=where)


def test_every_kernel_has_a_twin_and_a_case():
    assert set(kernels.KERNELS) == set(CASES), "each registered kernel needs a case here, and each case a kernel"
    for name, kernel in kernels.KERNELS.items():
        assert set(CPU_ENGINES) <= set(kernel.impls), f"{name} lacks an engine: {sorted(kernel.impls)}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_engines_agree(name):
    make, normalise = CASES[name]
    kernel = kernels.KERNELS[name]
    for i, args in enumerate(make()):
        outcomes = {}
        for engine in CPU_ENGINES:
            mine = copy.deepcopy(args)
            with kernels.using(engine):
                result = kernel.impls[engine](*mine)
            outcomes[engine] = normalise(result, mine) if normalise else (result, mine)
        _equal(outcomes["numba"], outcomes["numpy"], f"{name} case {i}")
