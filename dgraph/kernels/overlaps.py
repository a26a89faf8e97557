"""Pairs of sorted rows intersected: for each pair (u, v) of a rank's link-prediction queries,
how many neighbours N(u) and N(v) share, how many of those are neither u nor v, and the sum of a
per-vertex weight over the latter (Adamic-Adar's 1 / log(degree), resource allocation's
1 / degree).

Rows are sorted by the vertices' canonical ids (``key`` of a slot; the slot itself where
placed ids are canonical), as blocks keep them, and a repeated neighbour (a graph built with
``duplicates="keep"``) counts once. A pair whose rows differ in length by more than ``GALLOP``
times looks each neighbour of the shorter row up in the longer one by binary search (a hub
paired with a leaf costs the leaf's degree times a logarithm, not the hub's degree); others
merge the two rows. Either way the common neighbours are met in ascending key, so the weights
add in the same order on every engine.
"""

from __future__ import annotations

import numba
import numpy as np

from .engines import COUNT_GRAIN, threads_for, twins

GALLOP = 32  # a row this many times longer than the other is searched, not merged
PAIR_STEPS = 32  # merge steps a pair is taken to cost, to decide whether threads pay
CHUNK_ENTRIES = 1 << 22  # row entries the numpy twin expands at once


@numba.njit(cache=True, inline="always")
def _at(key, x):
    return key[x] if key.size else x


@numba.njit(cache=True)
def _pair(a, a0, a1, b, b0, b1, key, us, vs, weight):
    """(shared, common, weight summed over common) of rows a[a0:a1] and b[b0:b1]."""
    if a1 - a0 > b1 - b0:
        a, a0, a1, b, b0, b1 = b, b0, b1, a, a0, a1
    meet, common, total = 0, 0, 0.0
    if b1 - b0 > GALLOP * (a1 - a0):
        lo = b0
        for e in range(a0, a1):
            x = a[e]
            if e > a0 and x == a[e - 1]:
                continue
            kx, hi = _at(key, x), b1
            while lo < hi:  # the first entry of b not below x (rows ascend: lo only grows)
                mid = (lo + hi) >> 1
                if _at(key, b[mid]) < kx:
                    lo = mid + 1
                else:
                    hi = mid
            if lo < b1 and b[lo] == x:
                meet += 1
                if x != us and x != vs:
                    common += 1
                    if weight.size:
                        total += weight[x]
        return meet, common, total
    i, j = a0, b0
    while i < a1 and j < b1:
        x, y = a[i], b[j]
        kx, ky = _at(key, x), _at(key, y)
        if kx < ky:
            i += 1
        elif ky < kx:
            j += 1
        else:
            meet += 1
            if x != us and x != vs:
                common += 1
                if weight.size:
                    total += weight[x]
            while i < a1 and a[i] == x:
                i += 1
            while j < b1 and b[j] == x:
                j += 1
    return meet, common, total


@numba.njit(cache=True)
def _one(i, indptr, indices, far_ptr, far_idx, key, urow, vrow, uslot, vslot, weight, meet, common, total):
    u, v = urow[i], vrow[i]
    if v >= 0:
        b, b0, b1 = indices, indptr[v], indptr[v + 1]
    else:
        b, b0, b1 = far_idx, far_ptr[-1 - v], far_ptr[-v]
    meet[i], common[i], total[i] = _pair(indices, indptr[u], indptr[u + 1], b, b0, b1, key, uslot[i], vslot[i], weight)


@numba.njit(cache=True)
def _overlaps_serial(indptr, indices, far_ptr, far_idx, key, urow, vrow, uslot, vslot, weight, meet, common, total):
    for i in range(urow.size):
        _one(i, indptr, indices, far_ptr, far_idx, key, urow, vrow, uslot, vslot, weight, meet, common, total)


@numba.njit(cache=True, parallel=True)
def _overlaps_parallel(indptr, indices, far_ptr, far_idx, key, urow, vrow, uslot, vslot, weight, meet, common, total):
    for i in numba.prange(urow.size):
        _one(i, indptr, indices, far_ptr, far_idx, key, urow, vrow, uslot, vslot, weight, meet, common, total)


def _overlaps_numba(indptr, indices, far_ptr, far_idx, key, urow, vrow, uslot, vslot, weight, meet, common, total):
    parallel = threads_for(urow.size * PAIR_STEPS, COUNT_GRAIN) > 1
    run = _overlaps_parallel if parallel else _overlaps_serial
    run(indptr, indices, far_ptr, far_idx, key, urow, vrow, uslot, vslot, weight, meet, common, total)


def _entries(ptr, idx, rows):
    """(which of ``rows`` each entry belongs to, the entries) of CSR rows ``rows``, in order."""
    lengths = ptr[rows + 1] - ptr[rows]
    owner = np.repeat(np.arange(rows.size), lengths)
    starts = np.cumsum(lengths) - lengths
    return owner, idx[ptr[rows][owner] + np.arange(owner.size) - starts[owner]]


def _distinct(pair, slots, key, span):
    """Sorted (pair, key) codes without repeats, and the slot of each."""
    slots = slots.astype(np.int64)
    codes = pair * span + (key[slots].astype(np.int64) if key.size else slots)
    codes, first = np.unique(codes, return_index=True)
    return codes, slots[first]


def _overlaps_numpy(indptr, indices, far_ptr, far_idx, key, urow, vrow, uslot, vslot, weight, meet, common, total):
    # both rows of a chunk of pairs expanded to (pair, key) codes, intersected at once
    own, far = vrow >= 0, -1 - vrow
    vlen = np.zeros(vrow.size, np.int64)
    vlen[own] = indptr[vrow[own] + 1] - indptr[vrow[own]]
    vlen[~own] = far_ptr[far[~own] + 1] - far_ptr[far[~own]]
    cost = np.cumsum(indptr[urow + 1] - indptr[urow] + vlen)
    top = key.max(initial=-1) if key.size else max(indices.max(initial=-1), far_idx.max(initial=-1))
    span = np.int64(top) + 1
    start = 0
    while start < urow.size:
        stop = max(start + 1, int(np.searchsorted(cost, (cost[start - 1] if start else 0) + CHUNK_ENTRIES)))
        at = np.arange(start, stop)
        a, slot_a = _distinct(*_entries(indptr, indices, urow[at]), key, span)
        mine = np.flatnonzero(own[at])
        other = np.flatnonzero(~own[at])
        pv, sv = _entries(indptr, indices, vrow[at][mine])
        qv, tv = _entries(far_ptr, far_idx, far[at][other])
        b, _ = _distinct(np.r_[mine[pv], other[qv]], np.r_[sv, tv], key, span)
        _, ia, _ = np.intersect1d(a, b, assume_unique=True, return_indices=True)
        pair, slot = a[ia] // span, slot_a[ia]
        meet[at] = np.bincount(pair, minlength=at.size)
        mid = (slot != uslot[at][pair]) & (slot != vslot[at][pair])
        common[at] = np.bincount(pair[mid], minlength=at.size)
        if weight.size:
            total[at] = np.bincount(pair[mid], weights=weight[slot[mid]], minlength=at.size)
        start = stop


_overlaps = twins("pair_overlaps", numba=_overlaps_numba, numpy=_overlaps_numpy)


def pair_overlaps(own, far, key, pairs, weight):
    """For each pair i: (shared, common, weighted), shared neighbours, those neither end of the
    pair, and ``weight`` (one per slot; empty: none) summed over the latter.

    ``own``: the rank's rows (indptr, indices: slots); ``far``: more rows (indptr, indices:
    slots), fetched from other ranks; ``key``: each slot's canonical id, by which rows are
    sorted (empty: slots are); ``pairs``: (urow, vrow, uslot, vslot): u's row among the own ones,
    v's (>= 0: an own row; -1 - j: far row j) and the slots of u and v (-1: not in the space).

    >>> ptr, idx = np.array([0, 2, 4, 6]), np.array([1, 2, 0, 2, 0, 1])  # a triangle 0, 1, 2
    >>> far = (np.zeros(1, np.int64), np.empty(0, np.int64))
    >>> pairs = (np.array([0]), np.array([1]), np.array([0]), np.array([1]))
    >>> [a.tolist() for a in pair_overlaps((ptr, idx), far, np.empty(0, np.int64), pairs, np.empty(0))]
    [[1], [1], [0.0]]
    """
    urow, vrow, uslot, vslot = (np.ascontiguousarray(a, dtype=np.int64) for a in pairs)
    indptr, indices = own
    far_ptr, far_idx = far
    far_idx = far_idx.astype(indices.dtype, copy=False)
    meet, common = np.zeros(urow.size, np.int64), np.zeros(urow.size, np.int64)
    total = np.zeros(urow.size, np.float64)
    args = (np.asarray(indptr, np.int64), indices, np.asarray(far_ptr, np.int64), far_idx, key)
    _overlaps(*args, urow, vrow, uslot, vslot, np.asarray(weight, np.float64), meet, common, total)
    return meet, common, total
