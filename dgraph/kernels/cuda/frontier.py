"""Device twins of the edge map's steps: a frontier's arcs (a thread per arc, load-balanced by a
search over the frontier's offsets), the bottom-up search (a thread per row, stopping at the
first arc into the frontier, which is read as bits), and the merge of offers per head
(min/max/sum/first, by atomics on a device scratch: the winning value, then the smallest of
its tails, then the first such arc, which is the host engines' rule exactly); and a pull's
min or sum per row (a thread per row, over all its arcs into the frontier)."""

from __future__ import annotations

import numpy as np
from numba import cuda

from . import device

INT_MAX = np.iinfo(np.int64).max


@cuda.jit(device=True)
def _row_of(offsets, j):
    """The i with offsets[i] <= j < offsets[i + 1] (offsets ascending, offsets[0] = 0)."""
    lo, hi = 0, offsets.size - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if offsets[mid] <= j:
            lo = mid
        else:
            hi = mid
    return lo


@cuda.jit
def _expand(indptr, indices, weights, frontier, offsets, pos, dst, w):
    for j in range(cuda.grid(1), dst.size, cuda.gridsize(1)):
        i = _row_of(offsets, j)
        e = indptr[frontier[i]] + j - offsets[i]
        pos[j] = i
        dst[j] = indices[e]
        if weights.size:
            w[j] = weights[e]


def _offsets(indptr, rows):
    offsets = np.zeros(rows.size + 1, np.int64)
    np.cumsum(indptr[rows + 1] - indptr[rows], out=offsets[1:])
    return offsets


def _arcs_on_device(indptr, indices, weights, rows):
    """(pos, dst, w) of ``rows``' arcs, on the device, and their count."""
    offsets = _offsets(indptr, rows)
    total = int(offsets[-1])
    pos, dst = device.empty(total, np.int64), device.empty(total, np.int64)
    w = device.empty(total if weights.size else 0, np.float64)
    d_weights = device.resident(weights) if weights.size else device.empty(0, np.float64)
    if total:
        device.launch(
            _expand,
            total,
            device.resident(indptr),
            device.resident(indices),
            d_weights,
            device.upload(rows),
            device.upload(offsets),
            pos,
            dst,
            w,
        )
    return pos, dst, w, total


def frontier_arcs(indptr, indices, weights, frontier):
    pos, dst, w, _ = _arcs_on_device(indptr, indices, weights, frontier)
    return device.download(pos), device.download(dst), device.download(w) if weights.size else weights


@cuda.jit
def _first(indptr, indices, rows, bits, hit, scanned):
    for i in range(cuda.grid(1), rows.size, cuda.gridsize(1)):
        v = rows[i]
        hit[i] = -1
        count = 0
        for e in range(indptr[v], indptr[v + 1]):
            count += 1
            u = indices[e]
            if (bits[u >> 3] >> (7 - (u & 7))) & 1:
                hit[i] = e
                break
        scanned[i] = count


def first_in_frontier(indptr, indices, weights, rows, front):
    hit, scanned = device.empty(rows.size, np.int64), device.empty(rows.size, np.int64)
    if rows.size:
        device.launch(
            _first,
            rows.size,
            device.resident(indptr),
            device.resident(indices),
            device.upload(rows),
            device.upload(np.packbits(front)),
            hit,
            scanned,
        )
    hit = device.download(hit)
    pos = np.flatnonzero(hit >= 0)
    arcs = hit[pos]
    # the hits' heads and weights, read from the host copies of the block the device holds
    return (
        pos,
        indices[arcs].astype(np.int64),
        weights[arcs] if weights.size else weights,
        int(device.download(scanned).sum()),
    )


@cuda.jit
def _pull(indptr, indices, weights, rows, bits, fval, key, summing, add, merged, tail, scanned):
    for i in range(cuda.grid(1), rows.size, cuda.gridsize(1)):
        v = rows[i]
        b, t, count = 0.0, -1, 0
        for e in range(indptr[v], indptr[v + 1]):
            count += 1
            u = indices[e]
            if (bits[u >> 3] >> (7 - (u & 7))) & 1:
                x = fval[u] + ((weights[e] if weights.size else 1.0) if add else 0.0)
                first = t < 0 or (key[u] < key[t] if key.size else u < t)
                if summing:
                    b += x
                    if first:
                        t = u
                elif t < 0 or x < b or (x == b and first):
                    b, t = x, u
        merged[i], tail[i], scanned[i] = b, t, count


def pull_merge(indptr, indices, weights, rows, front, fval, key, summing, add):
    merged, tail = device.empty(rows.size, np.float64), device.empty(rows.size, np.int64)
    scanned = device.empty(rows.size, np.int64)
    if rows.size:
        device.launch(
            _pull,
            rows.size,
            device.resident(indptr),
            device.resident(indices),
            device.resident(weights) if weights.size else device.empty(0, np.float64),
            device.upload(rows),
            device.upload(np.packbits(front)),
            device.upload(fval),
            device.upload(key) if key.size else device.empty(0, np.int64),
            summing,
            add,
            merged,
            tail,
            scanned,
        )
    tail = device.download(tail)
    pos = np.flatnonzero(tail >= 0)
    return pos, device.download(merged)[pos], tail[pos], int(device.download(scanned).sum())


# ----------------------------------------------------------------------------- merge per head
@cuda.jit
def _merge_start(heads, n, best, ltail, first, seen, found, count, floor):
    # each head offered to: reset its slots once (the first arc to claim it lists it)
    for j in range(cuda.grid(1), n, cuda.gridsize(1)):
        v = heads[j]
        if v >= 0 and cuda.atomic.cas(seen, v, 0, 1) == 0:
            best[v] = floor
            ltail[v] = INT_MAX
            first[v] = INT_MAX
            found[cuda.atomic.add(count, 0, 1)] = v


@cuda.jit
def _merge_values(heads, vals, n, mode, best):
    for j in range(cuda.grid(1), n, cuda.gridsize(1)):
        v = heads[j]
        if v >= 0:
            if mode == 0:
                cuda.atomic.min(best, v, vals[j])
            elif mode == 1:
                cuda.atomic.max(best, v, vals[j])
            elif mode == 2:
                cuda.atomic.add(best, v, vals[j])


@cuda.jit
def _merge_keys(heads, vals, tails, n, mode, best, ltail):
    for j in range(cuda.grid(1), n, cuda.gridsize(1)):
        v = heads[j]
        if v >= 0 and (mode >= 2 or vals[j] == best[v]):
            cuda.atomic.min(ltail, v, tails[j])


@cuda.jit
def _merge_first(heads, vals, tails, n, mode, best, ltail, first):
    for j in range(cuda.grid(1), n, cuda.gridsize(1)):
        v = heads[j]
        if v < 0:
            continue
        if mode == 2 or ((mode == 3 or vals[j] == best[v]) and tails[j] == ltail[v]):
            cuda.atomic.min(first, v, j)


@cuda.jit
def _merge_gather(found, vals, tails, mode, best, first, seen, out_v, out_t):
    # "sum" keeps the first arc's tail (the input order's), the others the winning arc's
    for i in range(cuda.grid(1), found.size, cuda.gridsize(1)):
        v = found[i]
        j = first[v]
        out_v[i] = best[v] if mode == 2 else vals[j]
        out_t[i] = tails[j]
        seen[v] = 0


def _scratch(host_seen, dtype):
    """Per head: best value, smallest tail, first arc, and a claim flag (0 between calls)."""
    n = host_seen.size

    def make():
        return device.empty(n, dtype), device.empty(n, np.int64), device.empty(n, np.int64), device.full(n, 0, np.int64)

    return device.scratch(host_seen, np.dtype(dtype).name, make)


def _merge(heads, vals, tails, n, mode, host_seen, integer):
    """Merge ``n`` offers (device arrays; head -1: no offer) per head; host results by head.
    The device scratch lives beside the rank's host scratch ``host_seen``."""
    dtype = np.int64 if integer else np.float64
    if mode == 0:
        floor = INT_MAX if integer else np.inf
    elif mode == 1:
        floor = np.iinfo(np.int64).min if integer else -np.inf
    else:
        floor = 0
    best, ltail, first, seen = _scratch(host_seen, dtype)
    found, count = device.empty(n, np.int64), device.full(1, 0, np.int64)
    device.launch(_merge_start, n, heads, n, best, ltail, first, seen, found, count, dtype(floor))
    if mode <= 2:
        device.launch(_merge_values, n, heads, vals, n, mode, best)
    if mode != 2:
        device.launch(_merge_keys, n, heads, vals, tails, n, mode, best, ltail)
    device.launch(_merge_first, n, heads, vals, tails, n, mode, best, ltail, first)
    c = int(device.download(count)[0])
    ids = np.sort(device.download(found[:c]))
    out_v, out_t = device.empty(c, dtype), device.empty(c, np.int64)
    if c:
        device.launch(_merge_gather, c, device.upload(ids), vals, tails, mode, best, first, seen, out_v, out_t)
    return ids, device.download(out_v), device.download(out_t)


def merge_by_id(ids, vals, tails, mode, best, btail, seen):
    integer = vals.dtype == np.int64
    return _merge(device.upload(ids), device.upload(vals), device.upload(tails), ids.size, mode, seen, integer)


@cuda.jit
def _offers(pos, dst, w, tvals, tails, skip, add, weighted, floor, wlo, whi, heads, vals, by):
    # an arc's offer: the tail's value (plus the arc's weight, 1 unweighted, with ``add``);
    # heads set in ``skip`` or offered less before (``floor``), and arcs whose weight is outside
    # [wlo, whi), give none (head -1)
    for j in range(cuda.grid(1), dst.size, cuda.gridsize(1)):
        v = dst[j]
        i = pos[j]
        a = w[j] if weighted else 1.0
        x = tvals[i] + a if add else tvals[i]
        out = a < wlo or a >= whi
        heads[j] = -1 if out or (skip.size and skip[v]) or (floor.size and x > floor[v]) else v
        vals[j] = x
        by[j] = tails[i]


def push_merge(indptr, indices, weights, rows, tvals, tails, skip, mode, add, best, btail, seen, floor, wlo, whi):
    pos, dst, w, total = _arcs_on_device(indptr, indices, weights, rows)
    integer = tvals.dtype == np.int64
    heads, vals, by = device.empty(total, np.int64), device.empty(total, tvals.dtype), device.empty(total, np.int64)
    if total:
        d_skip = device.mirror(skip) if skip.size else device.empty(0, np.bool_)  # visited: few change a level
        device.launch(
            _offers,
            total,
            pos,
            dst,
            w,
            device.upload(tvals),
            device.upload(tails),
            d_skip,
            add,
            weights.size > 0,
            device.mirror(floor) if floor.size else device.empty(0, np.float32),  # the floor at the call's start
            wlo,
            whi,
            heads,
            vals,
            by,
        )
    return (*_merge(heads, vals, by, total, mode, seen, integer), total)


# kernel name -> device twin (dgraph.kernels.engines adds them to their kernels)
TWINS = {
    "frontier_arcs": frontier_arcs,
    "first_in_frontier": first_in_frontier,
    "pull_merge": pull_merge,
    "merge_by_id": merge_by_id,
    "push_merge": push_merge,
}
