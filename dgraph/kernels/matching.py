"""Matching: each free vertex's heaviest free neighbour, by an order both ends of an edge agree on."""

from __future__ import annotations

import numba
import numpy as np

from .engines import twins


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
            if not w > 0:
                continue  # networkx's rule: a matching never takes a non-positive edge
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
    if weights.size:
        ok &= weights > 0
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
    ordered by (weight, larger key, smaller key) so both ends agree; -1 if none. Arcs of weight
    0 or less are never taken. Without ``weighted`` (or weights) every arc weighs 1."""
    w = np.empty(0) if block.weights is None or not weighted else block.weights
    k = np.empty(0, np.int64) if key is None else key
    return _heaviest(block.indptr, block.indices, w, block.lo, matched[block.lo : block.hi], matched, k)


_heaviest = twins("heaviest_free_neighbour", numba=_heaviest_numba, numpy=_heaviest_numpy)
