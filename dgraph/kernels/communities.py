"""Louvain's local moving on one rank (each own vertex, in a given order, leaves its community and
joins the neighbouring community with the largest modularity gain, staying on ties), Leiden's
refinement (vertices merged, inside their communities, into connected refined communities), and
what both read of a level row by row (degrees, weight inside communities, pieces, ghosts'
rows); the sums that make the next level are in ``level_sums``."""

from __future__ import annotations

import numba
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from .csr import _ints
from .engines import twins
from .frontier import _arcs_numpy
from .unionfind import _find

TIE = 1e-12  # gains closer than this are equal: the move must win by more


@numba.njit(cache=True)
def _moving_numba(indptr, cols, w, first, k, ccol, tot, size, scale, order, active, kin, touched):
    # kin is NaN for a community no arc of the row has reached yet: one array read per arc, no
    # flags beside it (touched holds a row's arcs at most, whatever the weights)
    moved = 0
    for v in order:
        if not active[v]:
            continue
        active[v] = False
        sv = first + v
        co = ccol[sv]
        kv = k[v]
        nt = 0
        for e in range(indptr[v], indptr[v + 1]):
            s = cols[e]
            if s == sv:
                continue  # a loop stays with its vertex wherever it goes
            c = ccol[s]
            x = kin[c]
            if x != x:
                touched[nt] = c
                nt += 1
                kin[c] = w[e]
            else:
                kin[c] = x + w[e]
        tot[co] -= kv
        size[co] -= 1
        k_own = kin[co] if kin[co] == kin[co] else 0.0
        best, best_gain = co, k_own - tot[co] * kv * scale
        for i in range(nt):
            c = touched[i]
            if c == co or (size[co] == 0 and size[c] == 1 and c > co):
                continue  # two singletons join the smaller: they cannot swap into each other
            gain = kin[c] - tot[c] * kv * scale
            if gain > best_gain + TIE or (gain > best_gain - TIE and best != co and c < best):
                best, best_gain = c, gain
        tot[best] += kv
        size[best] += 1
        if best != co:
            ccol[sv] = best
            moved += 1
            for e in range(indptr[v], indptr[v + 1]):
                u = cols[e] - first
                if 0 <= u < active.size and u != v:
                    active[u] = True
        for i in range(nt):
            kin[touched[i]] = np.nan
    return moved


def _moving_numpy(indptr, cols, w, first, k, ccol, tot, size, scale, order, active, kin, touched):
    # the sweep is sequential by nature (each move changes the next vertex's gains): a loop over
    # vertices, each row's community weights summed by numpy
    moved = 0
    for v in order:
        if not active[v]:
            continue
        active[v] = False
        sv = first + int(v)
        co = int(ccol[sv])
        kv = k[v]
        row = slice(indptr[v], indptr[v + 1])
        keep = cols[row] != sv
        comms, weights = ccol[cols[row][keep]], w[row][keep]
        ids, inverse = np.unique(comms, return_inverse=True)
        sums = np.bincount(inverse, weights=weights, minlength=ids.size)
        tot[co] -= kv
        size[co] -= 1
        own = np.flatnonzero(ids == co)
        best, best_gain = co, (sums[own[0]] if own.size else 0.0) - tot[co] * kv * scale
        for c, kc in zip(ids.tolist(), sums.tolist()):
            if c == co or (size[co] == 0 and size[c] == 1 and c > co):
                continue
            gain = kc - tot[c] * kv * scale
            if gain > best_gain + TIE or (gain > best_gain - TIE and best != co and c < best):
                best, best_gain = c, gain
        tot[best] += kv
        size[best] += 1
        if best != co:
            ccol[sv] = best
            moved += 1
            near = cols[row] - first
            near = near[(near >= 0) & (near < active.size) & (near != v)]
            active[near] = True
    return moved


_moving = twins("local_moving", numba=_moving_numba, numpy=_moving_numpy)


def local_moving(indptr, cols, w, first, k, ccol, tot, size, scale, order, active):
    """One sweep of Louvain's local moving over a rank's rows, in ``order`` (local row ids), of
    the rows set in ``active``.

    Row v is the vertex in slot ``first + v`` of the rank's space; ``cols`` are the arcs' other
    ends as slots, ``w`` their weights (a loop doubled); ``k`` the rows' weighted degrees.
    ``ccol`` gives each slot's community as an index into ``tot`` and ``size`` (the total degree
    and member count of each community the rank sees, in ascending community id), all three
    updated in place as vertices move. A vertex moves to the community C maximising
    ``k_v,C - tot_C k_v scale`` (``scale`` = resolution / 2m) when that beats staying by more
    than ``TIE``; ties go to the smaller community, and a singleton joins another singleton only
    if that one's id is smaller. A row's flag in ``active`` is cleared when it is swept and set
    again when one of its neighbours moves (the pruning of Ozaki et al. 2016 and of Leiden's queue:
    a row whose neighbourhood stood still keeps its best community), in place. Returns how many
    vertices moved.

    >>> indptr, cols = np.array([0, 1, 2, 2]), np.array([1, 0])
    >>> ccol, tot, size = np.array([0, 1, 2]), np.array([1.0, 1.0, 0.0]), np.array([1, 1, 1])
    >>> active = np.ones(3, bool)
    >>> local_moving(indptr, cols, np.ones(2), 0, np.array([1.0, 1.0, 0.0]), ccol, tot, size, 0.5,
    ...              np.arange(3), active)
    1
    >>> ccol.tolist(), tot.tolist(), size.tolist(), active.tolist()
    ([0, 0, 2], [2.0, 0.0, 0.0], [2, 0, 1], [True, False, False])
    """
    degree = int(np.diff(indptr).max()) if indptr.size > 1 else 0
    return int(
        _moving(
            indptr,
            _ints(cols),
            np.ascontiguousarray(w, dtype=np.float64),
            int(first),
            k,
            ccol,
            tot,
            size,
            float(scale),
            np.ascontiguousarray(order, dtype=np.int64),
            active,
            np.full(tot.size, np.nan),
            np.empty(max(tot.size, degree), np.int64),
        )
    )


@numba.njit(cache=True)
def _refine_numba(indptr, cols, w, first, k, ccol, tot, scale, order, u, theta, state, kin, gains, seen, touched):
    ref, rtot, rext, rsize = state
    n = indptr.size - 1
    for v in range(n):  # each singleton's weight to the rest of its community, ghosts included
        sv = first + v
        for e in range(indptr[v], indptr[v + 1]):
            if cols[e] != sv and ccol[cols[e]] == ccol[sv]:
                rext[v] += w[e]
    merged = 0
    for v in order:
        if ref[v] != v or rsize[v] != 1:
            continue  # only a vertex still alone moves
        sv = first + v
        cv = ccol[sv]
        kv = k[v]
        whole = tot[cv]
        if rext[v] < kv * (whole - kv) * scale - TIE:
            continue  # not well connected to its community
        nt = 0
        for e in range(indptr[v], indptr[v + 1]):
            x = cols[e] - first
            if x == v or x < 0 or x >= n or ccol[cols[e]] != cv:
                continue  # refined communities grow inside the rank and the community
            c = ref[x]
            if not seen[c]:
                seen[c] = True
                touched[nt] = c
                nt += 1
            kin[c] += w[e]
        best, top = -1, 0.0
        for i in range(nt):  # candidates: well connected, gain not negative (-inf otherwise)
            c = touched[i]
            gains[i] = -np.inf
            if rext[c] >= rtot[c] * (whole - rtot[c]) * scale - TIE:
                gain = kin[c] - kv * rtot[c] * scale
                if gain >= -TIE:
                    gains[i] = gain
                if gain > top + TIE or (gain > top - TIE and best >= 0 and c < best):
                    best, top = c, gain
        if best >= 0 and theta > 0:  # a draw weighted by exp(gain / theta), staying alone at gain 0
            stay = np.exp(-top / theta)
            total = stay
            for i in range(nt):  # each candidate's weight, -1 for none
                weight = np.exp((gains[i] - top) / theta)
                total += weight
                gains[i] = weight if gains[i] > -np.inf else -1.0
            pick = u[v] * total - stay
            best = -1
            for i in range(nt):
                if pick < 0:
                    break
                if gains[i] >= 0:
                    best = touched[i]
                    pick -= gains[i]
        if best >= 0:
            ref[v] = best
            rsize[best] += 1
            rsize[v] = 0
            rtot[best] += kv
            rext[best] += rext[v] - 2.0 * kin[best]
            merged += 1
        for i in range(nt):
            kin[touched[i]] = 0.0
            seen[touched[i]] = False
    return merged


def _refine_numpy(indptr, cols, w, first, k, ccol, tot, scale, order, u, theta, state, kin, gains, seen, touched):
    # sequential by nature, as local moving: a loop over vertices, each row summed by numpy
    ref, rtot, rext, rsize = state
    n = indptr.size - 1
    rows = np.repeat(np.arange(n), np.diff(indptr))
    same = (cols != first + rows) & (ccol[cols] == ccol[first + rows])
    rext += np.bincount(rows[same], weights=w[same], minlength=n)
    merged = 0
    for v in order.tolist():
        if ref[v] != v or rsize[v] != 1:
            continue
        sv, kv = first + v, k[v]
        whole = tot[ccol[sv]]
        if rext[v] < kv * (whole - kv) * scale - TIE:
            continue
        row = slice(indptr[v], indptr[v + 1])
        x = cols[row] - first
        keep = (x != v) & (x >= 0) & (x < n)
        keep[keep] = ccol[cols[row][keep]] == ccol[sv]
        ids, at, inverse = np.unique(ref[x[keep]], return_index=True, return_inverse=True)
        sums = np.bincount(inverse, weights=w[row][keep], minlength=ids.size)
        walk = np.argsort(at, kind="stable")  # in order of first appearance, as numba meets them
        c, kc = ids[walk], sums[walk]
        well = rext[c] >= rtot[c] * (whole - rtot[c]) * scale - TIE
        gain = kc - kv * rtot[c] * scale
        best, top = -1, 0.0
        for ci, gi in zip(c[well].tolist(), gain[well].tolist()):
            if gi > top + TIE or (gi > top - TIE and best >= 0 and ci < best):
                best, top = ci, gi
        if best >= 0 and theta > 0:
            open_ = well & (gain >= -TIE)
            weights = np.exp(np.where(open_, (gain - top) / theta, -np.inf))
            pick = u[v] * (np.exp(-top / theta) + weights.sum()) - np.exp(-top / theta)
            best = -1
            for ci, wi, oi in zip(c.tolist(), weights.tolist(), open_.tolist()):
                if pick < 0:
                    break
                if oi:
                    best = ci
                    pick -= wi
        if best >= 0:
            ref[v] = best
            rsize[best] += 1
            rsize[v] = 0
            rtot[best] += kv
            rext[best] += rext[v] - 2.0 * kc[c == best][0]
            merged += 1
    return merged


_refine = twins("refine_communities", numba=_refine_numba, numpy=_refine_numpy)


def refine_communities(indptr, cols, w, first, k, ccol, tot, scale, order, u, theta):
    """Leiden's refinement over a rank's rows: within each community, vertices start alone and a
    vertex still alone and well connected to its community (its weight to the rest at least
    ``k_v (tot_S - k_v) scale``) joins a refined community of its own rank and community that is
    well connected too, chosen among those whose gain ``k_v,C - k_v tot_C scale`` is not
    negative with probability proportional to ``exp(gain / theta)`` (staying alone: gain 0),
    drawn with ``u[v]`` in [0, 1); ``theta`` 0 takes the best gain (ties: the smaller id).
    Refined communities therefore only grow along arcs: each is connected.

    Rows, slots, ``ccol`` and ``tot`` are as in ``local_moving`` (``tot`` of the communities
    being refined). Returns (``ref``, merged): each row's refined community as a row id, and
    how many vertices joined one.

    >>> indptr, cols = np.array([0, 1, 3, 4]), np.array([1, 0, 2, 1])
    >>> ref, merged = refine_communities(indptr, cols, np.ones(4), 0, np.array([1.0, 2.0, 1.0]),
    ...                                  np.zeros(3, np.int64), np.array([4.0]), 0.125, np.arange(3),
    ...                                  np.zeros(3), 0.0)
    >>> ref.tolist(), merged
    ([1, 1, 1], 2)
    """
    n = indptr.size - 1
    m = max(n, 1)
    ref = np.arange(n, dtype=np.int64)
    merged = _refine(
        indptr,
        _ints(cols),
        np.ascontiguousarray(w, dtype=np.float64),
        int(first),
        np.ascontiguousarray(k, dtype=np.float64),
        _ints(ccol),
        np.ascontiguousarray(tot, dtype=np.float64),
        float(scale),
        np.ascontiguousarray(order, dtype=np.int64),
        np.ascontiguousarray(u, dtype=np.float64),
        float(theta),
        (ref, np.array(k, dtype=np.float64), np.zeros(n), np.ones(n, np.int64)),
        np.zeros(m),
        np.zeros(m),
        np.zeros(m, np.bool_),
        np.empty(m, np.int64),
    )
    return ref, int(merged)


# A level's arcs are read row by row through its CSR: on the first level, per-arc temporaries
# (each arc's row, its ends' communities) would be the size of the graph, fresh pages each call.


@numba.njit(cache=True)
def _level_weights_numba(indptr, heads, ids, w):
    out = w.copy()
    k = np.zeros(indptr.size - 1)
    for v in range(indptr.size - 1):
        s = 0.0
        for e in range(indptr[v], indptr[v + 1]):
            if heads[e] == ids[v]:
                out[e] = 2.0 * w[e]
            s += out[e]
        k[v] = s
    return out, k


def _level_weights_numpy(indptr, heads, ids, w):
    rows = np.repeat(np.arange(indptr.size - 1), np.diff(indptr))
    out = np.where(heads == ids[rows], 2.0 * w, w)
    return out, np.bincount(rows, weights=out, minlength=indptr.size - 1)


_level_weights = twins("level_weights", numba=_level_weights_numba, numpy=_level_weights_numpy)


def level_weights(indptr, heads, ids, w):
    """The arcs' weights with each self-loop's doubled (row v's arcs whose head is ``ids[v]``:
    networkx's modularity counts a loop twice in its vertex's degree), and each row's weighted
    degree, summed in arc order.

    >>> w, k = level_weights(np.array([0, 2, 3]), np.array([5, 6, 6]), np.array([5, 6]), np.ones(3))
    >>> w.tolist(), k.tolist()
    ([2.0, 1.0, 2.0], [3.0, 2.0])
    """
    return _level_weights(indptr, heads, np.asarray(ids), np.ascontiguousarray(w, dtype=np.float64))


@numba.njit(cache=True)
def _inside_weight_numba(indptr, cols, w, own, seen):
    total = 0.0
    for v in range(indptr.size - 1):
        c = own[v]
        for e in range(indptr[v], indptr[v + 1]):
            if seen[cols[e]] == c:
                total += w[e]
    return total


def _inside_weight_numpy(indptr, cols, w, own, seen):
    rows = np.repeat(np.arange(indptr.size - 1), np.diff(indptr))
    inside = own[rows] == seen[cols]
    total = 0.0
    for x in w[inside].tolist():  # in arc order, as the numba twin adds them
        total += x
    return total


_inside_weight = twins("inside_weight", numba=_inside_weight_numba, numpy=_inside_weight_numpy)


def inside_weight(indptr, cols, w, own, seen):
    """The weight of the arcs inside communities: row v's arcs whose other end (a slot of
    ``seen``, each slot's community) is in v's community ``own[v]``, summed in arc order.

    >>> inside_weight(np.array([0, 2, 3]), np.array([0, 1, 0]), np.ones(3), np.array([7, 8]), np.array([7, 7]))
    2.0
    """
    return float(_inside_weight(indptr, cols, w, own, seen))


@numba.njit(cache=True)
def _community_pieces_numba(indptr, cols, first, own, seen):
    n = indptr.size - 1
    piece = np.arange(n)
    out = 0
    for v in range(n):
        for e in range(indptr[v], indptr[v + 1]):
            s = cols[e]
            if seen[s] != own[v]:
                continue
            b = s - first
            if b < 0 or b >= n:
                out += 1
            elif b < v:  # its twin (b, v) is a row of this rank too: one of the two suffices
                x, y = _find(piece, v), _find(piece, b)
                if x < y:
                    piece[y] = x
                elif y < x:
                    piece[x] = y
    for v in range(n):  # every pointer goes to a smaller row: the ones below v know their roots
        piece[v] = piece[piece[v]]
    rows, slots = np.empty(out, np.int64), np.empty(out, np.int64)
    k = 0
    for v in range(n):
        for e in range(indptr[v], indptr[v + 1]):
            b = cols[e] - first
            if (b < 0 or b >= n) and seen[cols[e]] == own[v]:
                rows[k], slots[k] = v, cols[e]
                k += 1
    return piece, rows, slots


def _community_pieces_numpy(indptr, cols, first, own, seen):
    n = indptr.size - 1
    rows = np.repeat(np.arange(n), np.diff(indptr))
    inside = seen[cols] == own[rows]
    a, s = rows[inside], cols[inside]
    local = (s - first >= 0) & (s - first < n)
    g = sp.coo_matrix((np.ones(int(local.sum())), (a[local], s[local] - first)), shape=(n, n))
    _, comp = connected_components(g, directed=False)
    least = np.full(n, n, dtype=np.int64)
    np.minimum.at(least, comp, np.arange(n))
    return least[comp], a[~local].astype(np.int64), s[~local].astype(np.int64)


_community_pieces = twins("community_pieces", numba=_community_pieces_numba, numpy=_community_pieces_numpy)


def community_pieces(indptr, cols, first, own, seen):
    """The connected pieces of a rank's rows' communities, read row by row through the CSR:
    each row's piece among the rank's rows (its smallest row joined to it by arcs inside its
    community, ``own[v]``, the rows' community; ``seen``, every slot's), and the arcs inside a
    community that leave the rank's rows, as (row, slot). Rows and slots as in
    ``local_moving``; every arc between two of the rows comes with its twin.

    >>> piece, rows, slots = community_pieces(np.array([0, 2, 4, 5]), np.array([0, 2, 1, 3, 2]), 1,
    ...                                       np.array([7, 7, 8]), np.array([7, 7, 7, 8]))
    >>> piece.tolist(), rows.tolist(), slots.tolist()
    ([0, 0, 2], [0], [0])
    """
    return _community_pieces(
        np.ascontiguousarray(indptr, dtype=np.int64),
        _ints(cols),
        int(first),
        np.ascontiguousarray(own, dtype=np.int64),
        np.ascontiguousarray(seen, dtype=np.int64),
    )


@numba.njit(cache=True)
def _ghost_rows_numba(indptr, cols, first, slots):
    n = indptr.size - 1
    start = np.zeros(slots + 1, dtype=np.int64)
    for e in range(cols.size):
        if cols[e] < first or cols[e] >= first + n:
            start[cols[e] + 1] += 1
    for s in range(slots):
        start[s + 1] += start[s]
    at = start[:-1].copy()
    rows = np.empty(start[-1], dtype=np.int64)
    for v in range(n):
        for e in range(indptr[v], indptr[v + 1]):
            s = cols[e]
            if s < first or s >= first + n:
                rows[at[s]] = v
                at[s] += 1
    return start, rows


def _ghost_rows_numpy(indptr, cols, first, slots):
    n = indptr.size - 1
    row = np.repeat(np.arange(n), np.diff(indptr))
    far = (cols < first) | (cols >= first + n)
    order = np.argsort(cols[far], kind="stable")
    start = np.zeros(slots + 1, dtype=np.int64)
    np.cumsum(np.bincount(cols[far], minlength=slots), out=start[1:])
    return start, row[far][order]


_ghost_rows = twins("ghost_rows", numba=_ghost_rows_numba, numpy=_ghost_rows_numpy)


@numba.njit(cache=True)
def _wake_near_numba(start, rows, seen, last, active):
    woken = 0
    for s in range(seen.size):
        if seen[s] != last[s]:
            for j in range(start[s], start[s + 1]):
                active[rows[j]] = True
            woken += start[s + 1] - start[s]
    return woken


def _wake_near_numpy(start, rows, seen, last, active):
    _, woken, _ = _arcs_numpy(start, rows, np.empty(0), np.flatnonzero(seen != last))  # the changed slots' rows
    active[woken] = True
    return woken.size


_wake_near = twins("wake_near", numba=_wake_near_numba, numpy=_wake_near_numpy)


def wake_near(near, seen, last, active):
    """Set ``active`` for the rows next to each slot whose value changed from ``last`` to
    ``seen`` (``near``: ``ghost_rows``' CSR over the slots), in place, in one pass over the slots;
    returns how many arcs woke a row.

    >>> active = np.zeros(2, bool)
    >>> wake_near((np.array([0, 0, 2, 3]), np.array([0, 1, 1])), np.array([5, 6, 7]), np.array([5, 9, 7]), active)
    2
    >>> active.tolist()
    [True, True]
    """
    start, rows = near
    return int(_wake_near(start, rows, seen, last, active))


def ghost_rows(indptr, cols, first, slots):
    """The rows next to each slot outside a rank's own rows (a ghost), as a CSR over the
    ``slots`` slots of its space: (start, rows), rows ascending within a slot, none for own
    slots. Rows and slots as in ``local_moving``; one pass to count and one to place, with no
    array the size of the arcs but the output.

    >>> start, rows = ghost_rows(np.array([0, 2, 3]), np.array([0, 3, 0]), 1, 4)
    >>> start.tolist(), rows.tolist()
    ([0, 2, 2, 2, 3], [0, 1, 0])
    """
    return _ghost_rows(np.ascontiguousarray(indptr, dtype=np.int64), _ints(cols), int(first), int(slots))
