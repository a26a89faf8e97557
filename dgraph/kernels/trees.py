"""Search trees: the edge rules a BFS or SSSP result must satisfy (Graph 500's validation)."""

from __future__ import annotations

import numba
import numpy as np

from .engines import twins


@numba.njit(cache=True)
def _rules_numba(u, v, w, reach, parent, weighted, directed, limit, tolerance, found):
    straddle, far, traversed = 0, 0, 0
    for i in range(u.size):
        a, b = u[i], v[i]
        if a == b:
            continue
        ra, rb = reach[a], reach[b]
        in_a, in_b = ra >= 0 and ra < np.inf, rb >= 0 and rb < np.inf  # BFS -1 / SSSP inf: unreached
        if in_a and not in_b:
            straddle += ra < limit
        elif in_b and not in_a and not directed:
            straddle += rb < limit
        if not (in_a and in_b):
            continue
        traversed += 1
        x = w[i] if weighted else 1.0
        # ``found`` is written only at tree edges: a store per edge would miss the cache twice
        if weighted:
            far += rb > ra + x + tolerance or (not directed and ra > rb + x + tolerance)
            if parent[b] == a and abs(rb - ra - x) <= tolerance:
                found[b] = True
            if not directed and parent[a] == b and abs(ra - rb - x) <= tolerance:
                found[a] = True
        else:
            far += rb > ra + 1 or (not directed and ra > rb + 1)
            if parent[b] == a:
                found[b] = True
            if not directed and parent[a] == b:
                found[a] = True
    return straddle, far, traversed


def _rules_numpy(u, v, w, reach, parent, weighted, directed, limit, tolerance, found):
    keep = u != v
    u, v = u[keep], v[keep]
    ru, rv = reach[u], reach[v]
    reached_u, reached_v = (ru >= 0) & (ru < np.inf), (rv >= 0) & (rv < np.inf)
    both = reached_u & reached_v
    straddle = np.count_nonzero(reached_u & ~reached_v & (ru < limit))
    if not directed:
        straddle += np.count_nonzero(reached_v & ~reached_u & (rv < limit))
    x = w[keep] if weighted else 1.0
    with np.errstate(invalid="ignore"):  # inf - inf between unreached ends: masked out by ``both``
        far_v = rv > ru + x + (tolerance if weighted else 0)
        far_u = ru > rv + x + (tolerance if weighted else 0)
        far = np.count_nonzero(both & (far_v | (far_u & (not directed))))
        tree_v = both & (parent[v] == u)
        tree_u = both & (parent[u] == v) & (not directed)
        if weighted:
            tree_v &= np.abs(rv - ru - x) <= tolerance
            tree_u &= np.abs(ru - rv - x) <= tolerance
    found[v[tree_v]] = True
    found[u[tree_u]] = True
    return straddle, far, np.count_nonzero(both)


_rules = twins("search_tree_rules", numba=_rules_numba, numpy=_rules_numpy)


@numba.njit(cache=True)
def _many_numba(u, v, w, held, weighted, tolerance, found):
    k = held.shape[1]
    counts = np.zeros((k, 3), np.int64)
    slack = tolerance if weighted else 0.0
    for i in range(u.size):
        a, b = u[i], v[i]
        if a == b:
            continue
        x = w[i] if weighted else 1.0
        for j in range(k):  # one vertex's searches share a cache line: the misses are per edge
            ra, rb = held[a, j, 0], held[b, j, 0]
            in_a, in_b = ra >= 0 and ra < np.inf, rb >= 0 and rb < np.inf
            if in_a != in_b:
                counts[j, 0] += 1
                continue
            if not in_a:
                continue
            counts[j, 2] += 1
            counts[j, 1] += rb > ra + x + slack or ra > rb + x + slack
            if held[b, j, 1] == a and (not weighted or abs(rb - ra - x) <= tolerance):
                found[j, b] = True
            if held[a, j, 1] == b and (not weighted or abs(ra - rb - x) <= tolerance):
                found[j, a] = True
    return counts


def _many_numpy(u, v, w, held, weighted, tolerance, found):
    counts = np.zeros((held.shape[1], 3), np.int64)
    for j in range(held.shape[1]):
        counts[j] = _rules_numpy(u, v, w, held[:, j, 0], held[:, j, 1], weighted, False, np.inf, tolerance, found[j])
    return counts


_many = twins("search_tree_rules_many", numba=_many_numba, numpy=_many_numpy)


@numba.njit(cache=True)
def _astray_numba(parent, reached, root):
    n = parent.size
    fate = np.zeros(n, np.uint8)  # 0 unknown, 1 on the walk under way, 2 reaches the root, 3 does not
    fate[root] = 2
    for v in range(n):
        if not reached[v] or fate[v] != 0:
            continue
        x, end = v, 3
        while 0 <= x < n:  # up until a vertex whose fate is known (the root's is), or one not reached
            if fate[x] != 0:
                end = fate[x] if fate[x] != 1 else 3  # 1: back on this walk, a cycle
                break
            if not reached[x]:
                break
            fate[x] = 1
            x = parent[x]
        x = v
        while 0 <= x < n and fate[x] == 1:  # the walk shares its end's fate
            fate[x] = end
            x = parent[x]
    for v in range(n):
        if reached[v] and fate[v] == 3:
            return v
    return -1


def _astray_numpy(parent, reached, root):
    n = parent.size
    up = np.where(reached & (parent >= 0) & (parent < n), parent, np.arange(n))
    up[root] = root
    for _ in range(max(1, int(np.ceil(np.log2(max(n, 2)))) + 1)):  # pointer doubling
        up = up[up]
    astray = np.flatnonzero(reached & (up != root))
    return int(astray[0]) if astray.size else -1


_astray = twins("tree_astray", numba=_astray_numba, numpy=_astray_numpy)


def tree_astray(parent, reached, root):
    """The first reached vertex from which following ``parent`` never reaches ``root`` (a
    cycle, or a parent not reached), or -1: each vertex is walked once (numba), where pointer
    doubling reads all n parents log2(n) times.

    >>> tree_astray(np.array([0, 0, 3, 2]), np.ones(4, bool), 0)
    2
    """
    return int(_astray(np.asarray(parent), np.asarray(reached, dtype=bool), int(root)))


def search_tree_rules_many(u, v, w, held, found, tolerance=1e-9):
    """``search_tree_rules`` for several searches of an undirected graph at once, in one pass
    over the edges: ``held[x, j]`` is (reach, parent) of vertex x in search j (one array, so a
    vertex's searches sit side by side and each edge end costs one cache miss for all of them),
    ``found`` is (searches, n) bools. Returns (searches, 3) counts: straddles, far edges, edges
    with both ends reached."""
    weighted = w is not None
    w = np.empty(0) if w is None else np.ascontiguousarray(w, dtype=np.float64)
    return _many(_as(u, np.int32, np.int64), _as(v, np.int32, np.int64), w, held, weighted, float(tolerance), found)


def search_tree_rules(u, v, w, reach, parent, found, directed=False, limit=np.inf, tolerance=1e-9):
    """Check arcs (or edges) ``u[i] -> v[i]`` of weight ``w[i]`` (None: a BFS) against a search
    from one root: ``reach`` is the level (-1 unreached) or the distance (inf unreached) per
    vertex, ``parent`` the tree's parent (-1 none). Self-loops are skipped. Counts a
    *straddle* where the searched set is not closed (an arc from a reached vertex closer than
    ``limit`` to an unreached one; undirected: an edge with one reached end), and a *far* arc
    where a distance could be shortened (levels more than one apart; distances more than the
    weight apart, within ``tolerance``). Sets ``found[x]`` where the arc is x's tree edge (from
    its parent, one level closer or exactly the weight closer). Returns (straddles, fars, arcs
    with both ends reached)."""
    weighted = w is not None
    args = (
        _as(u, np.int32, np.int64),
        _as(v, np.int32, np.int64),
        np.empty(0) if w is None else np.ascontiguousarray(w, dtype=np.float64),
        _as(reach, np.int32, np.int64, np.float64),
        _as(parent, np.int32, np.int64),
        weighted,
        bool(directed),
        float(limit),
        float(tolerance),
        found,
    )
    straddle, far, traversed = _rules(*args)
    return int(straddle), int(far), int(traversed)


def _as(a, *dtypes):
    """``a`` as it is when its type is one of ``dtypes``, strided or not (the searches' n-long
    arrays are read by every partition of the edge list: no copy each time), else as the last
    of them."""
    a = np.asarray(a)
    return a if a.dtype in dtypes else a.astype(dtypes[-1])
