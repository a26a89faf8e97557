"""The edge map's local steps: a frontier's arcs, the bottom-up search, a level's write-back, and
the merge of offers per head (fused with the push on the numba engine's single pass)."""

from __future__ import annotations

import numba
import numpy as np

from .engines import twins

MERGE_CODES = {"min": 0, "max": 1, "sum": 2, "first": 3}


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


@numba.njit(cache=True)
def _count_numba(indptr, rows):
    total = 0
    for u in rows:
        total += indptr[u + 1] - indptr[u]
    return total


def _count_numpy(indptr, rows):
    return int((indptr[rows + 1] - indptr[rows]).sum())


_count = twins("rows_arcs", numba=_count_numba, numpy=_count_numpy)


def rows_arcs(indptr, rows):
    """How many arcs the CSR rows ``rows`` hold together: one pass over the rows, with no
    degree array and no gather.

    >>> rows_arcs(np.array([0, 2, 2, 5]), np.array([0, 2]))
    5
    """
    return int(_count(indptr, np.asarray(rows, dtype=np.int64)))


def _arcs_numpy(indptr, indices, weights, frontier):
    starts, counts = indptr[frontier], indptr[frontier + 1] - indptr[frontier]
    total = int(counts.sum())
    offsets = np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(total)
    return np.repeat(np.arange(frontier.size), counts), indices[offsets], weights[offsets] if weights.size else weights


_arcs = twins("frontier_arcs", numba=_arcs_numba, numpy=_arcs_numpy)


def frontier_arcs(indptr, indices, weights, frontier):
    """The out-arcs of the (local) frontier vertices: (position in frontier, head, weight).

    Unweighted CSRs give weight 1.0 per arc."""
    w = np.empty(0) if weights is None else weights
    pos, dst, wt = _arcs(indptr, indices, w, np.ascontiguousarray(frontier, dtype=np.int64))
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


def _first_bits(indptr, indices, weights, rows, front):
    # tested as bits: an eighth of the bytes, mostly in cache
    return _first_numba(indptr, indices, weights, rows, np.packbits(front))


_first = twins("first_in_frontier", numba=_first_bits, numpy=_first_numpy)


def first_in_frontier(indptr, indices, weights, rows, front):
    """Pull with an early exit (Beamer's bottom-up step): for each local row in ``rows``, its
    first arc (in CSR order) whose other end is set in ``front``. Returns (position in rows,
    that end, weight, arcs scanned)."""
    w = np.empty(0) if weights is None else weights
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    pos, src, wt, scanned = _first(indptr, indices, w, rows, front)
    return pos, src, (wt if weights is not None else np.ones(src.size)), int(scanned)


@numba.njit(cache=True)
def _pull_numba(indptr, indices, weights, rows, front, fval, key, summing, add):
    pos = np.empty(rows.size, np.int64)
    merged = np.empty(rows.size, np.float64)
    tail = np.empty(rows.size, np.int64)
    c, scanned = 0, 0
    for i in range(rows.size):
        v = rows[i]
        b, t = 0.0 if summing else np.inf, -1
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            if front[u]:
                x = fval[u] + ((weights[e] if weights.size else 1.0) if add else 0.0)
                first = t < 0 or (key[u] < key[t] if key.size else u < t)
                if summing:
                    b += x
                    if first:
                        t = u
                elif t < 0 or x < b or (x == b and first):
                    b, t = x, u
        scanned += indptr[v + 1] - indptr[v]
        if t >= 0:
            pos[c], merged[c], tail[c] = i, b, t
            c += 1
    return pos[:c], merged[:c], tail[:c], scanned


def _pull_numpy(indptr, indices, weights, rows, front, fval, key, summing, add):
    pos, src, w = _arcs_numpy(indptr, indices, weights, rows)
    scanned = src.size
    hit = np.flatnonzero(front[src])
    pos, src = pos[hit], src[hit]
    x = fval[src] + ((w[hit] if weights.size else 1.0) if add else 0.0)
    ties = key[src] if key.size else src
    order = np.lexsort((ties, pos) if summing else (ties, x, pos))  # per row: (least value,) least key
    pos, x, src = pos[order], x[order], src[order]
    starts = np.flatnonzero(np.r_[True, pos[1:] != pos[:-1]]) if pos.size else np.zeros(0, np.int64)
    merged = np.add.reduceat(x, starts) if summing and starts.size else x[starts]
    return pos[starts], merged, src[starts], scanned


_pull = twins("pull_merge", numba=_pull_numba, numpy=_pull_numpy)


def pull_merge(indptr, indices, weights, rows, front, fval, merge, add, key=None):
    """The edge map's pull step in one pass, for ``"min"`` or ``"sum"`` merges of float values:
    for each local row in ``rows``, ``fval[u]`` (plus the arc's weight, 1.0 unweighted, with
    ``add``) merged over its arcs from ends ``u`` set in ``front``, and one such ``u``: for
    ``"min"`` the end of the least value, for ``"sum"`` the first end; ties and "first" go to
    the least ``key[u]`` (or ``u`` without ``key``). Returns (position in rows, merged value,
    that end, arcs scanned) for the rows with such an arc.

    >>> ptr, idx, w = np.array([0, 2, 3]), np.array([1, 2, 0]), np.array([1.0, 3.0, 1.0])
    >>> front, fval = np.array([False, True, True]), np.array([5.0, 2.0, 1.0])
    >>> pos, val, end, _ = pull_merge(ptr, idx, w, np.array([0, 1]), front, fval, "min", True)
    >>> pos.tolist(), val.tolist(), end.tolist()
    ([0], [3.0], [1])
    >>> pull_merge(ptr, idx, w, np.array([0, 1]), front, fval, "sum", False)[1].tolist()
    [3.0]
    """
    if merge not in ("min", "sum"):
        raise ValueError(f"a one-pass pull merges by min or sum; merge is {merge!r}")
    w = np.empty(0) if weights is None else weights
    k = np.empty(0, np.int64) if key is None else np.ascontiguousarray(key, dtype=np.int64)
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    fval = np.ascontiguousarray(fval, dtype=np.float64)
    pos, val, end, scanned = _pull(indptr, indices, w, rows, front, fval, k, merge == "sum", bool(add))
    return pos, val, end, int(scanned)


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
    return _settle(np.asarray(ids, np.int64), np.asarray(tails, np.int64), depth, level, parent, visited, lo)


def _settle_numpy(ids, tails, depth, level, parent, visited, lo):
    new = level[ids] == -1
    ids = ids[new]
    level[ids], parent[ids] = depth, tails[new]
    visited[ids + lo] = True
    return ids


_settle = twins("settle_level", numba=_settle_numba, numpy=_settle_numpy)


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
def _push_numba(indptr, indices, weights, rows, tvals, tails, skip, mode, add, best, btail, seen, floor, wlo, whi):
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
            w = weights[e] if weights.size else 1.0
            if w < wlo or w >= whi:
                continue
            x = tvals[i] + w if add else tvals[i]
            if floor.size and x > floor[v]:
                continue  # above an earlier offer to v: it cannot win at the owner
            if not seen[v]:
                seen[v] = True
                best[v] = x
                btail[v] = t
                first[c] = v
                c += 1
                continue
            if mode == 2:
                best[v] += x
                continue
            better = False if mode == 3 else (x < best[v] if mode == 0 else x > best[v])
            if not better and (mode == 3 or x == best[v]):
                better = t < btail[v]
            if better:
                best[v] = x
                btail[v] = t
    return first[:c], total  # heads in first-seen order, still marked: _collect finishes


def _push_bits(indptr, indices, weights, rows, tvals, tails, skip, mode, add, best, btail, seen, floor, wlo, whi):
    heads, examined = _push_numba(
        indptr, indices, weights, rows, tvals, tails, skip, mode, add, best, btail, seen, floor, wlo, whi
    )
    return (*_collect(heads, best, btail, seen), examined)


def _push_numpy(indptr, indices, weights, rows, tvals, tails, skip, mode, add, best, btail, seen, floor, wlo, whi):
    pos, heads, w = _arcs_numpy(indptr, indices, weights, rows)
    examined = heads.size
    w = w if weights.size else np.ones(heads.size)
    keep = (w >= wlo) & (w < whi)
    if skip.size:
        keep &= ~skip[heads]
    pos, heads, w = pos[keep], heads[keep], w[keep]
    vals = tvals[pos] + w if add else tvals[pos]
    if floor.size:
        keep = vals <= floor[heads]
        pos, heads, vals = pos[keep], heads[keep], vals[keep]
    if heads.size == 0:
        return heads, tvals[:0], tails[:0], examined
    return (*_merge_numpy(heads, vals, tails[pos], mode, best, btail, seen), examined)


_push = twins("push_merge", numba=_push_bits, numpy=_push_numpy)


def push_merge(indptr, indices, weights, rows, tvals, tails, skip, merge, add, scratch, floor=None, window=None):
    """The edge map's push step in one pass: for the arcs leaving local ``rows``
    (tails ``tails``, values ``tvals``), offer ``tvals`` (plus the arc's weight, 1.0 when
    unweighted, with ``add``) to each head not set in ``skip`` and merge per head with
    ``"min"``, ``"max"``, ``"sum"`` or ``"first"`` as ``merge_by_id`` does. Returns (sorted
    heads, merged values, winning tails, arcs examined), what frontier_arcs, ``f`` and
    merge_by_id give.

    ``floor`` (float32 per head, a ``"min"`` merge only): the least value offered to each head so
    far, rounded up to a float32; offers above it are dropped, and it is lowered to the merged
    values. Where a head's value only ever falls (shortest paths), an offer above an earlier one
    cannot win at its owner; rounding up keeps every offer that could (ties included).
    ``window`` (low, high): only the arcs whose weight (1.0 unweighted) lies in [low, high) offer;
    the others are still counted as examined."""
    if floor is not None and merge != "min":
        raise ValueError(f"a floor drops offers a min merge would lose; merge is {merge!r}")
    fbest, ibest, btail, seen = scratch
    integer = np.issubdtype(np.asarray(tvals).dtype, np.integer) and not add
    tvals = np.ascontiguousarray(tvals, dtype=np.int64 if integer else np.float64)
    best = fbest if tvals.dtype == np.float64 else ibest
    merged = _push(
        indptr,
        indices,
        np.empty(0) if weights is None else weights,
        np.ascontiguousarray(rows, dtype=np.int64),
        tvals,
        np.ascontiguousarray(tails, dtype=np.int64),
        np.empty(0, np.bool_) if skip is None else skip,
        MERGE_CODES[merge],
        bool(add),
        best,
        btail,
        seen,
        np.empty(0, np.float32) if floor is None else floor,
        *(float(x) for x in (window or (-np.inf, np.inf))),
    )
    if floor is not None:  # the engines drop offers above it; it falls to what passed, rounded up
        up = merged[1].astype(np.float32)
        floor[merged[0]] = np.where(up < merged[1], np.nextafter(up, np.float32(np.inf)), up)
    return merged


# ----------------------------------------------------------------------------- merge by id (edge map)
@numba.njit(cache=True, nogil=True)  # a pipelined exchange merges while its agent thread moves blocks
def _merge_numba(ids, vals, tails, mode, best, btail, seen):
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
                better = tails[i] < btail[v]
            if better:
                best[v] = x
                btail[v] = tails[i]
    return first[:c]  # heads in first-seen order, still marked: _collect finishes


def _merge_numpy(ids, vals, tails, mode, best, btail, seen):
    if mode == 2:
        order = np.argsort(ids, kind="stable")
        ids, vals, tails = ids[order], vals[order], tails[order]
        starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
        return ids[starts], np.add.reduceat(vals, starts), tails[starts]
    order = np.lexsort((tails, ids) if mode == 3 else (tails, vals if mode == 0 else -vals, ids))
    ids, vals, tails = ids[order], vals[order], tails[order]
    first = np.r_[True, ids[1:] != ids[:-1]]
    return ids[first], vals[first], tails[first]


def merge_by_id(ids, vals, tails, merge, scratch):
    """Merge values (float64 or int64) per id: ``"sum"`` adds (in input order; the tail kept is
    the first), ``"min"``/``"max"`` keep the winning value and its tail (ties: the smallest
    tail), ``"first"`` keeps the value of the arc with the smallest tail (the edge map's tails
    sort canonically: ``owners.keyed``).
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
        best,
        btail,
        seen,
    )
    return _merge(*args)


def _merge_collect(ids, vals, tails, mode, best, btail, seen):
    return _collect(_merge_numba(ids, vals, tails, mode, best, btail, seen), best, btail, seen)


_merge = twins("merge_by_id", numba=_merge_collect, numpy=_merge_numpy)
