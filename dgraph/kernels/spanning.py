"""Minimum spanning forests: Boruvka's lightest arc per component, in one scan of the arcs.

Arcs are ordered by (``order``, smaller key of their ends, larger key): a total order of the
edges (``order`` is the weight, or its negative for a maximum forest; keys are the ends' keyed
ids), so every component's lightest arc is one edge and the minimum spanning forest is unique.
"""

from __future__ import annotations

import numba
import numpy as np

from .engines import twins
from .unionfind import _find


@numba.njit(cache=True)
def _lighter(o1, a1, b1, o2, a2, b2):
    """Whether the edge (o1, a1, b1) comes before (o2, a2, b2)."""
    return o1 < o2 or (o1 == o2 and (a1 < a2 or (a1 == a2 and b1 < b2)))


@numba.njit(cache=True)
def _local_forest_numba(indptr, indices, order, key, first):
    nrows = indptr.size - 1
    parent = np.arange(nrows)
    live = np.empty(indices.size, np.int64)  # the arcs that may still leave their component
    tails = np.empty(indices.size, np.int64)
    m = 0
    for v in range(nrows):
        for j in range(indptr[v], indptr[v + 1]):
            if indices[j] != first + v and order[j] == order[j]:  # no self-loop, no NaN
                live[m] = j
                tails[m] = v
                m += 1
    best = np.full(nrows, -1, np.int64)  # per root: its lightest leaving arc's place in live
    bo, blo, bhi = np.empty(nrows), np.empty(nrows, np.int64), np.empty(nrows, np.int64)
    lo_out, hi_out, o_out = np.empty(nrows, np.int64), np.empty(nrows, np.int64), np.empty(nrows)
    k = 0
    while True:
        kept = 0
        for i in range(m):
            j, v = live[i], tails[i]
            ru = _find(parent, v)
            h = indices[j] - first
            if 0 <= h < nrows and _find(parent, h) == ru:
                continue  # inside a component for good
            live[kept], tails[kept] = j, v
            ka, kb = key[first + v], key[indices[j]]
            a, b = min(ka, kb), max(ka, kb)
            if best[ru] < 0 or _lighter(order[j], a, b, bo[ru], blo[ru], bhi[ru]):
                best[ru], bo[ru], blo[ru], bhi[ru] = kept, order[j], a, b
            kept += 1
        m = kept
        hooked = 0
        for r in range(nrows):
            i = best[r]
            if i < 0:
                continue
            best[r] = -1
            j = live[i]
            h = indices[j] - first
            if h < 0 or h >= nrows:
                continue  # its lightest arc leaves the rank: the exchange rounds take it
            x, y = _find(parent, r), _find(parent, h)
            if x == y:
                continue  # the same edge, picked from its other end
            parent[max(x, y)] = min(x, y)
            ends = (first + tails[i], np.int64(indices[j]))
            lo_out[k], hi_out[k] = ends if key[ends[0]] < key[ends[1]] else (ends[1], ends[0])
            o_out[k] = order[j]
            k += 1
            hooked += 1
        if hooked == 0:
            break
    comp = np.empty(nrows, np.int64)
    for v in range(nrows):  # roots are their tree's smallest row: unions keep the smaller
        comp[v] = _find(parent, v)
    return comp, (lo_out[:k], hi_out[:k], o_out[:k]), (live[:m], tails[:m])


def _first_of_groups(group, order, lo, hi):
    """Positions of the lightest arc of each group, groups ascending (a stable sort: of equal
    arcs, the first)."""
    at = np.lexsort((hi, lo, order, group))
    g = group[at]
    head = np.ones(g.size, dtype=bool)
    head[1:] = g[1:] != g[:-1]
    return at[head]


def _local_forest_numpy(indptr, indices, order, key, first):
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    nrows = indptr.size - 1
    tails = np.repeat(np.arange(nrows, dtype=np.int64), np.diff(indptr))
    heads = indices.astype(np.int64)
    live = np.flatnonzero((heads != tails + first) & ~np.isnan(order))
    tails = tails[live]
    comp = np.arange(nrows, dtype=np.int64)
    found = []
    while True:
        h = heads[live] - first
        own = (h >= 0) & (h < nrows)
        other = np.where(own, comp[np.where(own, h, 0)], -1)
        out = ~own | (comp[tails] != other)
        live, tails, own, other = live[out], tails[out], own[out], other[out]
        a, b = tails + first, heads[live]
        ka, kb = key[a], key[b]
        best = _first_of_groups(comp[tails], order[live], np.minimum(ka, kb), np.maximum(ka, kb))
        best = best[own[best]]
        if not best.size:
            break
        swap = ka[best] > kb[best]
        found.append((np.where(swap, b[best], a[best]), np.where(swap, a[best], b[best]), order[live[best]]))
        x, y = comp[tails[best]], other[best]
        _, label = connected_components(sp.coo_matrix((np.ones(x.size), (x, y)), shape=(nrows, nrows)), directed=False)
        roots = np.flatnonzero(comp == np.arange(nrows))
        smallest = np.full(nrows, nrows, np.int64)
        np.minimum.at(smallest, label[roots], roots)
        comp = smallest[label[comp]]
    lo, hi, o = (np.concatenate(c) for c in zip(*found)) if found else (np.empty(0, np.int64),) * 2 + (np.empty(0),)
    keep = np.ones(lo.size, dtype=bool)  # an edge picked from both ends once
    at = np.lexsort((o, hi, lo))
    keep[at[1:]] = (lo[at][1:] != lo[at][:-1]) | (hi[at][1:] != hi[at][:-1]) | (o[at][1:] != o[at][:-1])
    return comp, (lo[keep], hi[keep], o[keep]), (live, tails)


_local_forest = twins("local_forest", numba=_local_forest_numba, numpy=_local_forest_numpy)


def local_forest(indptr, indices, order, key, first):
    """The edges of the minimum spanning forest that a rank can tell from its own rows alone,
    and the components they join.

    ``indptr``/``indices``: the rank's rows (every arc of its own vertices) and their heads as
    slots of its vertex space, whose own vertices are the slots from ``first``; ``order``: each
    arc's weight as compared (NaN: left out); ``key``: each slot's keyed id. Boruvka's rounds
    over the rank's rows, contracted with a union-find: each component of own vertices finds its
    lightest leaving arc over all its arcs (its members' rows hold every one), and takes it where
    the other end is the rank's own. By the cut property that arc is in the minimum spanning
    forest of the whole graph, whatever the other ranks hold; a component whose lightest arc
    leads to a ghost waits for the exchange rounds. The rounds end when no component takes an
    arc. Self-loops are never taken.

    Returns (comp, edges, rest): each row's component, named by its smallest row; the edges taken
    as (slot of the end of smaller key, slot of the other, order), each once; and the arcs still
    leaving their component, as (position in ``indices``, row), in CSR order.
    """
    return _local_forest(indptr, indices, np.ascontiguousarray(order, np.float64), key, int(first))


@numba.njit(cache=True)
def _leaving_numba(tails, heads, order, key, first, comp, comp_space, group, ngroups):
    best = np.full(ngroups, -1, np.int64)
    bo, blo, bhi = np.empty(ngroups), np.empty(ngroups, np.int64), np.empty(ngroups, np.int64)
    kept = np.empty(tails.size, np.int64)
    m = 0
    for i in range(tails.size):
        v, h = tails[i], heads[i]
        if comp_space[h] == comp[v]:
            continue
        kept[m] = i
        m += 1
        ka, kb = key[first + v], key[h]
        a, b = min(ka, kb), max(ka, kb)
        g = group[v]
        if best[g] < 0 or _lighter(order[i], a, b, bo[g], blo[g], bhi[g]):
            best[g], bo[g], blo[g], bhi[g] = i, order[i], a, b
    return best, kept[:m]


def _leaving_numpy(tails, heads, order, key, first, comp, comp_space, group, ngroups):
    kept = np.flatnonzero(comp_space[heads] != comp[tails])
    ka, kb = key[tails[kept] + first], key[heads[kept]]
    at = _first_of_groups(group[tails[kept]], order[kept], np.minimum(ka, kb), np.maximum(ka, kb))
    best = np.full(ngroups, -1, np.int64)
    best[group[tails[kept[at]]]] = kept[at]
    return best, kept


_leaving = twins("lightest_leaving", numba=_leaving_numba, numpy=_leaving_numpy)


def lightest_leaving(tails, heads, order, key, first, comp, comp_space, group, ngroups):
    """One Boruvka scan of a rank's arcs: for each of ``ngroups`` groups of its components, the
    lightest arc leaving its component, and which arcs still leave theirs.

    ``tails`` (rows), ``heads`` (slots of the rank's space), ``order``: the arcs; ``key``: each
    slot's keyed id, the rank's own vertices from slot ``first``; ``comp``: each row's component,
    ``comp_space``: each slot's; ``group``: each row's component as a number below ``ngroups``.
    Returns (best, kept): per group the position of its lightest leaving arc (-1: none), and the
    positions of the arcs whose ends are in different components (the others never leave again).
    """
    return _leaving(tails, heads, order, key, int(first), comp, comp_space, group, int(ngroups))
