"""Changing a CSR in place of rebuilding it: arcs removed by request, sorted arcs merged in.

A graph's update (``dgraph.changes``) rewrites a rank's block from the block it had and the
arcs that changed: ``mark_removed`` finds the arcs a removal names by a binary search in their
row (rows are sorted by key), and ``merge_rows`` merges each row with its added arcs (sorted
the same way), dropping arcs to removed vertices and, with ``dedup``, repeats (the lightest
stays, the old arc among equals): one linear pass, no sort of the rank's arcs.
"""

from __future__ import annotations

import numba
import numpy as np

from .engines import twins


@numba.njit(cache=True)
def _mark_numba(indptr, indices, slot_key, rows, keys, dropped):
    found = np.zeros(rows.size, dtype=np.bool_)
    for q in range(rows.size):
        r = rows[q]
        if r < 0:
            continue
        lo, hi = indptr[r], indptr[r + 1]
        want = keys[q]
        while lo < hi:  # the first arc of the row whose key is not below the one asked for
            mid = (lo + hi) // 2
            k = np.int64(indices[mid]) if slot_key.size == 0 else np.int64(slot_key[indices[mid]])
            if k < want:
                lo = mid + 1
            else:
                hi = mid
        p = lo
        while p < indptr[r + 1]:
            k = np.int64(indices[p]) if slot_key.size == 0 else np.int64(slot_key[indices[p]])
            if k != want:
                break
            dropped[p] = True
            found[q] = True
            p += 1
    return found


def _mark_numpy(indptr, indices, slot_key, rows, keys, dropped):
    nrows = indptr.size - 1
    arc_rows = np.repeat(np.arange(nrows, dtype=np.int64), np.diff(indptr))
    arc_keys = indices.astype(np.int64) if slot_key.size == 0 else slot_key[indices].astype(np.int64)
    wide = int(max(arc_keys.max(initial=-1), keys.max(initial=-1))) + 1
    composite = arc_rows * wide + arc_keys  # ascending: rows in order, each sorted by key
    asked = rows >= 0
    want = rows[asked] * wide + keys[asked]
    first, end = np.searchsorted(composite, want, "left"), np.searchsorted(composite, want, "right")
    found = np.zeros(rows.size, dtype=bool)
    found[np.flatnonzero(asked)] = end > first
    cover = np.zeros(indices.size + 1, np.int64)
    np.add.at(cover, first, 1)
    np.add.at(cover, end, -1)
    dropped |= np.cumsum(cover[:-1]) > 0
    return found


_mark = twins("mark_removed", numba=_mark_numba, numpy=_mark_numpy)


def mark_removed(indptr, indices, slot_key, rows, keys, dropped):
    """Mark in ``dropped`` (a bool per arc) the arcs of row ``rows[q]`` whose head has key
    ``keys[q]`` (every repeat of it), for each request q; rows are sorted by key, the key of an
    arc being ``slot_key[indices]`` (its slot where ``slot_key`` is empty). A row of -1 asks for
    nothing. Returns whether each request found an arc.

    >>> dropped = np.zeros(4, bool)
    >>> mark_removed(np.array([0, 3, 4]), np.array([1, 2, 2, 0]), np.empty(0, np.int64),
    ...              np.array([0, 1, -1]), np.array([2, 5, 0]), dropped).tolist(), dropped.tolist()
    ([True, False, False], [False, True, True, False])
    """
    k = np.empty(0, np.int64) if slot_key is None else np.ascontiguousarray(slot_key, dtype=np.int64)
    return _mark(indptr, indices, k, np.asarray(rows, np.int64), np.asarray(keys, np.int64), dropped)


@numba.njit(cache=True)
def _merge_numba(old_ptr, old_idx, old_w, old_row, slot_map, dropped, key, add_ptr, add_idx, add_w, dedup):
    nrows = add_ptr.size - 1
    weighted = add_w.size > 0 or old_w.size > 0
    cap = old_idx.size + add_idx.size
    new_ptr = np.zeros(nrows + 1, np.int64)
    new_idx = np.empty(cap, np.int64)
    src = np.empty(cap, np.int64)
    out = 0
    for r in range(nrows):
        o = old_row[r]
        i = old_ptr[o] if o >= 0 else 0
        ie = old_ptr[o + 1] if o >= 0 else 0
        j, je = add_ptr[r], add_ptr[r + 1]
        have, last = False, np.int64(0)
        while True:
            while i < ie and ((dropped.size > 0 and dropped[i]) or (slot_map.size > 0 and slot_map[old_idx[i]] < 0)):
                i += 1
            if i >= ie and j >= je:
                break
            si, ki, sj, kj = np.int64(0), np.int64(0), np.int64(0), np.int64(0)
            if i < ie:
                si = np.int64(slot_map[old_idx[i]]) if slot_map.size > 0 else np.int64(old_idx[i])
                ki = np.int64(key[si]) if key.size > 0 else si
            if j < je:
                sj = np.int64(add_idx[j])
                kj = np.int64(key[sj]) if key.size > 0 else sj
            if i < ie and j < je:
                old_first = ki < kj or (ki == kj and (not weighted or old_w[i] <= add_w[j]))
            else:
                old_first = i < ie
            if old_first:
                s, k, p = si, ki, np.int64(i)
                i += 1
            else:
                s, k, p = sj, kj, np.int64(-(j + 1))
                j += 1
            if dedup and have and k == last:
                continue
            new_idx[out] = s
            src[out] = p
            out += 1
            have, last = True, k
        new_ptr[r + 1] = out
    return new_ptr, new_idx[:out].copy(), src[:out].copy()


def _merge_numpy(old_ptr, old_idx, old_w, old_row, slot_map, dropped, key, add_ptr, add_idx, add_w, dedup):
    nrows = add_ptr.size - 1
    new_of_old = np.full(old_ptr.size - 1, -1, np.int64)
    has = old_row >= 0
    new_of_old[old_row[has]] = np.flatnonzero(has)
    rows_old = np.repeat(new_of_old, np.diff(old_ptr))
    slots_old = old_idx.astype(np.int64) if slot_map.size == 0 else slot_map[old_idx].astype(np.int64)
    keep = (rows_old >= 0) & (slots_old >= 0)
    if dropped.size:
        keep &= ~dropped
    positions = np.flatnonzero(keep)
    rows = np.concatenate([rows_old[keep], np.repeat(np.arange(nrows, dtype=np.int64), np.diff(add_ptr))])
    slots = np.concatenate([slots_old[keep], add_idx.astype(np.int64)])
    src = np.concatenate([positions, -(np.arange(add_idx.size, dtype=np.int64) + 1)])
    keys = slots if key.size == 0 else key[slots].astype(np.int64)
    late = np.r_[np.zeros(positions.size, np.int64), np.ones(add_idx.size, np.int64)]
    if add_w.size or old_w.size:
        w = np.concatenate([old_w[positions], add_w])
        order = np.lexsort((late, w, keys, rows))
    else:
        order = np.lexsort((late, keys, rows))
    rows, slots, keys, src = rows[order], slots[order], keys[order], src[order]
    if dedup and rows.size:
        first = np.r_[True, (rows[1:] != rows[:-1]) | (keys[1:] != keys[:-1])]
        rows, slots, src = rows[first], slots[first], src[first]
    new_ptr = np.zeros(nrows + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=nrows), out=new_ptr[1:])
    return new_ptr, slots, src


_merge = twins("merge_rows", numba=_merge_numba, numpy=_merge_numpy)


def merge_rows(old, old_row, slot_map, dropped, key, added, dedup):
    """A CSR's rows merged with added arcs: ``old`` and ``added`` are (indptr, indices,
    weights or None); ``added`` has the new CSR's rows (its indices are slots of the new space,
    each row sorted by (key, weight)), ``old_row[r]`` is the old row that new row r continues
    (-1: none), ``slot_map`` the new slot of each old slot (-1: a removed vertex, whose arcs go;
    empty: the same), ``dropped`` the old arcs removed (empty: none), ``key`` the key of each
    new slot that rows are sorted by (empty: the slot). Returns (indptr, indices as int64, the
    source of each arc: its old position, or -(j + 1) for added arc j), so the caller carries
    weights and attributes along.

    >>> ptr, idx, src = merge_rows((np.array([0, 2]), np.array([1, 3]), None), np.array([0]),
    ...                            np.empty(0, np.int64), np.empty(0, bool), np.empty(0, np.int64),
    ...                            (np.array([0, 2]), np.array([2, 3]), None), True)
    >>> ptr.tolist(), idx.tolist(), src.tolist()
    ([0, 3], [1, 2, 3], [0, -1, 1])
    """
    (old_ptr, old_idx, old_w), (add_ptr, add_idx, add_w) = old, added
    weighted = old_w is not None
    old_w = np.asarray(old_w, np.float64) if weighted else np.empty(0)
    add_w = np.asarray(add_w, np.float64) if weighted else np.empty(0)
    k = np.empty(0, np.int64) if key is None else np.ascontiguousarray(key, dtype=np.int64)
    return _merge(
        old_ptr,
        old_idx,
        old_w,
        np.asarray(old_row, np.int64),
        np.asarray(slot_map, np.int64),
        np.asarray(dropped, bool),
        k,
        np.asarray(add_ptr, np.int64),
        add_idx,
        add_w,
        bool(dedup),
    )
