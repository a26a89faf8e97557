"""Device twin of the label counts (CDLP): a thread per row counts its neighbours' labels in a
hash table of its own (twice its degree, open addressing, in one array for all rows), so a row
costs O(degree) as on the host, without an n-long count per thread."""

from __future__ import annotations

import numpy as np
from numba import cuda

from . import device


@cuda.jit(device=True)
def _count(indices, s, e, labels, keys, tally, base, cap, best, best_count):
    for i in range(s, e):
        lab = labels[indices[i]]
        h = lab % cap  # labels are vertex ids: neighbours' often run consecutively, which probe apart
        while keys[base + h] != -1 and keys[base + h] != lab:
            h = h + 1 if h + 1 < cap else 0
        keys[base + h] = lab
        c = tally[base + h] + 1
        tally[base + h] = c
        if c > best_count or (c == best_count and lab < best):
            best, best_count = lab, c
    return best, best_count


@cuda.jit
def _mode(indptr_a, indices_a, indptr_b, indices_b, two, labels, table, keys, tally, out):
    for v in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        base, cap = table[v], table[v + 1] - table[v]
        best, best_count = _count(indices_a, indptr_a[v], indptr_a[v + 1], labels, keys, tally, base, cap, -1, 0)
        if two:
            best, best_count = _count(
                indices_b, indptr_b[v], indptr_b[v + 1], labels, keys, tally, base, cap, best, best_count
            )
        if best >= 0:  # a row without neighbours keeps its label
            out[v] = best


def label_mode(indptr_a, indices_a, indptr_b, indices_b, labels, own, counts):
    two = indptr_b is not None
    degree = np.diff(indptr_a) + (np.diff(indptr_b) if two else 0)
    table = np.zeros(own.size + 1, np.int64)
    np.cumsum(2 * degree, out=table[1:])
    keys = device.full(table[-1], -1, np.int64)
    tally = device.full(table[-1], 0, np.int32)
    d_own = device.upload(own)
    b_ptr, b_idx = (device.resident(indptr_b), device.resident(indices_b)) if two else (d_own, d_own)
    device.launch(
        _mode,
        own.size,
        device.resident(indptr_a),
        device.resident(indices_a),
        b_ptr,
        b_idx,
        two,
        device.mirror(labels),
        device.upload(table),
        keys,
        tally,
        d_own,
    )
    device.download(d_own, own)


@cuda.jit(device=True)
def _lower_bound(ids, s, e, x):
    """The first position in sorted ``ids[s:e]`` not below ``x`` (``e`` if none)."""
    while s < e:
        mid = (s + e) // 2
        if ids[mid] < x:
            s = mid + 1
        else:
            e = mid
    return s


@cuda.jit
def _triangles(tails, up_ptr, up_idx, lo, own_heads, g_ids, g_ptr, g_idx, tri):
    # a thread per oriented arc v -> u: each w of u's row also in v's (sorted) row closes one
    hi = lo + up_ptr.size - 1
    for j in range(cuda.grid(1), up_idx.size, cuda.gridsize(1)):
        v, u = tails[j], up_idx[j]
        s, e = up_ptr[v], up_ptr[v + 1]
        if lo <= u < hi:
            if not own_heads:
                continue
            a, b, row = up_ptr[u - lo], up_ptr[u - lo + 1], up_idx
        else:
            k = _lower_bound(g_ids, 0, g_ids.size, u)
            if k == g_ids.size or g_ids[k] != u:
                continue  # its row comes in another batch
            a, b, row = g_ptr[k], g_ptr[k + 1], g_idx
        for i in range(a, b):
            w = row[i]
            at = _lower_bound(up_idx, s, e, w)
            if at < e and up_idx[at] == w:
                cuda.atomic.add(tri, w, 1)
                cuda.atomic.add(tri, u, 1)
                cuda.atomic.add(tri, v + lo, 1)


def oriented_triangles(up_ptr, up_idx, lo, own_heads, g_ids, g_ptr, g_idx, mark, tri):
    def sorted_rows():  # once per oriented block: membership in a row is a binary search
        tails = np.repeat(np.arange(up_ptr.size - 1, dtype=np.int64), np.diff(up_ptr))
        order = np.lexsort((up_idx, tails))
        return device.upload(tails[order]), device.upload(up_idx[order].astype(np.int64))

    tails, rows = device.scratch(up_idx, "sorted rows", sorted_rows)
    d_tri = device.upload(tri)
    if rows.size:
        device.launch(
            _triangles,
            rows.size,
            tails,
            device.resident(up_ptr),
            rows,
            lo,
            own_heads,
            device.upload(g_ids),
            device.upload(g_ptr),
            device.upload(g_idx),
            d_tri,
        )
    device.download(d_tri, tri)


# kernel name -> device twin (dgraph.kernels.engines adds them to their kernels)
TWINS = {"label_mode": label_mode, "oriented_triangles": oriented_triangles}
