"""Rank-local delta-stepping on several threads (GAP's): threads take chunks of a shared
frontier, keep their own bins of the buckets, and meet at barriers; each vertex's distance and
predecessor change together by compare-and-swap, packed in one 8-byte cell where the weights are
whole numbers (``weighted_arcs``), else under a lock. ``paths.relax_local`` runs it where a
rank's arcs are many and its kernels have threads."""

from __future__ import annotations

import numba
import numpy as np
from numba.extending import overload

from .atomics import barrier, fetch_add, load, on_threads, swap_if

MAX_SEED_BUCKETS = 1 << 12  # seeds farther apart run on one thread (a ring that long is slow to scan)
FRONTIER_CHUNK = 64  # frontier vertices a thread takes at a time (GAP's dynamic schedule)
FUSED_BIN = 1000  # a thread empties its copy of the current bucket alone while it is smaller (GAP's)
LOCKED = -2  # a predecessor that holds this is being changed, with its distance, by one thread


@numba.njit(nogil=True, cache=True, inline="always")
def _expand(u, du, first, graph, key, dist, pred, before, bound, inv, slots, bins, ties):
    """Offer ``du`` plus each arc's weight to the heads of row u inside [lo, hi), from u's keyed
    tail (as ``relax_local`` writes them), from arc ``first`` on. A head takes an offer below
    its distance, and the tail for predecessor; an offer equal to its distance gives it the
    smaller tail, where the search lowered it (below ``before``) or, with ``ties``, where it
    holds one. Each head's distance and predecessor change together, under a lock that is its
    predecessor set to ``LOCKED``; reads outside the lock only decide whether to take it. A
    head lowered below ``bound`` joins this thread's bin of its new bucket (again if it was
    there: a copy expanded late is cheaper than a check on every offer, as in GAP). Returns -1,
    or, where a push filled its bin, the arc after that push's (to go on from once the bin has
    grown)."""
    indptr, indices, weights, lo, hi, base = graph
    tail = (key[u] << 32) | (u + base) if key.size else u + base
    for e in range(first, indptr[u + 1]):
        v = indices[e]
        if v < lo or v >= hi:
            continue
        v -= lo
        nd = du + weights[e]
        if nd > dist[v]:
            continue
        if nd == dist[v]:
            held = load(pred, v)
            if held != LOCKED and not tail < held:
                continue
        while True:  # take the lock
            held = load(pred, v)
            if held != LOCKED and swap_if(pred, v, held, LOCKED) == held:
                break
        lowered = nd < dist[v]
        if lowered:
            dist[v], held = nd, tail
        elif nd == dist[v] and tail < held and (dist[v] < before[v] or (ties and held >= 0)):
            held = tail
        swap_if(pred, v, LOCKED, held)  # release: the distance is written before
        if lowered and nd < bound and _push(bins, int(nd * inv) % slots, v):
            return e + 1
    return -1


@numba.njit(nogil=True, cache=True, inline="always")
def _push(bins, j, v):
    """Add v to bin j of a thread's ``bins`` (``_new_bins``); whether that filled the bin."""
    pool, start, room, fill = bins
    pool[start[j] + fill[j]] = v
    fill[j] += 1
    return fill[j] == room[j]


@numba.njit(nogil=True, cache=True, inline="always")
def _bin(bins, j):
    """The vertices in bin j of a thread's ``bins``."""
    return bins[0][bins[1][j] : bins[1][j] + bins[3][j]]


@numba.njit(nogil=True, cache=True, inline="always")
def _row_start(indptr, u, i, at, first):
    """Where an expansion relaxes row u, its i-th vertex, from: arc ``first`` for the vertex ``at``
    it goes on from (``first`` >= 0), else the row's first arc; and the arcs that adds to those
    scanned (a row counts once, whole)."""
    if i == at and first >= 0:
        return first, 0
    return indptr[u], indptr[u + 1] - indptr[u]


@numba.njit(nogil=True, cache=True, inline="always")
def _expand_all(vertices, at, first, cur, graph, key, dist, pred, before, bound, inv, slots, bins, ties, pause):
    """``_expand`` each of ``vertices`` from ``at`` on (vertex ``at`` from arc ``first``, or
    whole where that is negative) whose distance lies in bucket ``cur`` or above (one that
    joined a lower bucket since was expanded there); returns the arcs scanned, and leaves in
    ``pause`` the vertex and arc to go on from once a bin that filled up has more room, or -1
    when it went through all."""
    indptr = graph[0]
    scanned = 0
    for i in range(at, vertices.size):
        u = vertices[i]
        du = dist[u]
        if int(du * inv) < cur:
            continue
        s, new = _row_start(indptr, u, i, at, first)
        scanned += new
        e = _expand(u, du, s, graph, key, dist, pred, before, bound, inv, slots, bins, ties)
        if e >= 0:
            pause[0], pause[1] = i, e
            return scanned
    pause[0] = -1
    return scanned


UNREACHED = (1 << 31) - 1  # a packed distance that stands for infinity (int32's largest)


@numba.njit(nogil=True, cache=True)
def _expand_packed(vertices, at, first, cur, graph, cell, before, bound, inv, slots, bins, ties, pause):
    """``_expand_all`` on packed state: ``cell[v]`` holds v's distance, an integer, in its high
    32 bits and its predecessor (an int32 tail, -1 for none) in its low ones, so one
    compare-and-swap changes both, as GAP's search changes its distance alone: no lock, and
    half the bytes a vertex's distance and predecessor take as float64 and int64. The arcs are
    ``weighted_arcs``'s, each head and weight one read, as GAP's. ``before``: the cells as the
    search found them (with ``ties`` the cells themselves serve: ``_relax_threads``). Returns
    the arcs scanned, or -1 when an offer reaches ``UNREACHED`` (the search must then run on
    floats)."""
    indptr, arcs, lo, hi, base = graph
    scanned = 0
    for i in range(at, vertices.size):
        u = vertices[i]
        du = cell[u] >> 32
        if int(du * inv) < cur:
            continue  # expanded in a lower bucket since
        tail = u + base
        s, new = _row_start(indptr, u, i, at, first)
        scanned += new
        for e in range(s, indptr[u + 1]):
            arc = arcs[e]
            v = arc & 0xFFFFFFFF
            if v < lo or v >= hi:
                continue
            v -= lo
            nd = du + (arc >> 32)
            if nd >= UNREACHED:  # no cell holds it (and it is no infinity to refuse)
                return -1
            while True:  # until the offer is refused or swapped in
                old = cell[v]
                od = old >> 32
                if nd > od:
                    break
                lowered = nd < od
                if not lowered:  # an equal offer: the smaller tail, by relax_local's rule
                    held = (old << 32) >> 32
                    if not (tail < held and (od < before[v] >> 32 or (ties and held >= 0))):
                        break
                if swap_if(cell, v, old, (nd << 32) | tail) == old:
                    if lowered and nd < bound and _push(bins, int(nd * inv) % slots, v):
                        pause[0], pause[1] = i, e + 1
                        return scanned
                    break
    pause[0] = -1
    return scanned


def _expand_any(vertices, at, first, cur, graph, key, state, bound, inv, slots, bins, ties, pause):
    """In a numba kernel: ``_expand_all`` where ``state`` is (dist, pred, before), else
    ``_expand_packed`` on ``state`` (cell, before); chosen as the kernel compiles."""


@overload(_expand_any, jit_options={"nogil": True})
def _expand_any_numba(vertices, at, first, cur, graph, key, state, bound, inv, slots, bins, ties, pause):
    if len(state.types) == 2:
        return lambda vertices, at, first, cur, graph, key, state, bound, inv, slots, bins, ties, pause: _expand_packed(
            vertices, at, first, cur, graph, state[0], state[1], bound, inv, slots, bins, ties, pause
        )
    return lambda vertices, at, first, cur, graph, key, state, bound, inv, slots, bins, ties, pause: _expand_all(
        vertices, at, first, cur, graph, key, state[0], state[1], state[2], bound, inv, slots, bins, ties, pause
    )


BIN_ROOM = 1 << 6  # the room a thread's bin starts with


@numba.njit(nogil=True, cache=True)
def _new_bins(slots):
    """A thread's ring of ``slots`` bins: (pool, start, room, fill), bin j the ``fill[j]``
    vertices from ``pool[start[j]]`` in ``room[j]`` entries. A push is one store, where a bin
    that is an array in a list counts a reference atomically at every access (on two threads
    that search took 7-8 % longer on Kronecker 20 and 10-15 % on the 1000 x 1000 grid). An
    expansion pauses when a push fills its bin, which then grows (``_expand_in_room``)."""
    room = np.full(slots, BIN_ROOM, np.int64)
    return np.empty(2 * slots * BIN_ROOM, np.int32), np.arange(slots) * BIN_ROOM, room, np.zeros(slots, np.int64)


@numba.njit(nogil=True, cache=True)
def _grown(bins):
    """``bins`` with twice the room for each full bin: moved to the pool's free end, or else with
    every bin in a new pool twice their room, each keeping twice its entries' room (or
    ``BIN_ROOM``)."""
    pool, start, room, fill = bins
    full = fill == room
    end = 0
    for k in range(room.size):
        end = max(end, start[k] + room[k])
    if end + 2 * room[full].sum() <= pool.size:
        for k in np.flatnonzero(full):
            pool[end : end + fill[k]] = pool[start[k] : start[k] + fill[k]]
            start[k], room[k] = end, 2 * room[k]
            end += room[k]
        return bins
    want = np.maximum(2 * fill, BIN_ROOM)
    grown, at = np.empty(2 * want.sum(), np.int32), 0
    for k in range(room.size):
        grown[at : at + fill[k]] = pool[start[k] : start[k] + fill[k]]
        start[k], room[k] = at, want[k]
        at += want[k]
    return grown, start, room, fill


@numba.njit(nogil=True, cache=True, inline="always")
def _expand_in_room(vertices, cur, graph, key, state, bound, inv, slots, bins, ties, pause):
    """``_expand_any`` over all of ``vertices``, growing the bin that filled up wherever it
    pauses for one: (the arcs scanned, or -1 as it returns, and the bins)."""
    scanned, at, first = 0, 0, -1
    while True:
        got = _expand_any(vertices, at, first, cur, graph, key, state, bound, inv, slots, bins, ties, pause)
        if got < 0:
            return -1, bins
        scanned += got
        if pause[0] < 0:
            return scanned, bins
        at, first = pause[0], pause[1]
        bins = _grown(bins)


@numba.njit(nogil=True, cache=True)
def _delta_thread(t, k, graph, state, key, ties, bound, inv, slots, first, frontier, shared):
    """One of ``k`` threads of a delta-stepping search (Meyer and Sanders) in GAP's scheme: each
    thread keeps its own bins, a ring of ``slots`` (``_new_bins``), one a bucket; in rounds,
    the threads take chunks of the shared frontier (``FRONTIER_CHUNK`` vertices, so a hub's row
    does not hold up a share fixed in advance), relax their rows (``_expand``: distances and
    predecessors at once, so no pass over the arcs follows) and, while their own copy of the
    current bucket stays under ``FUSED_BIN`` vertices, empty it at once without a barrier
    (GAP's bucket fusion: a road's buckets are small and many); then all take the lowest
    bucket any of them holds (from bucket ``first`` on) into the frontier. The first frontier
    is the seeds. ``shared``: the barrier's state, then the frontier's size, the next chunk's
    start, each thread's lowest bucket, and the rounds so far (thread 0 counts them). Returns
    the arcs it scanned, or -1 if a thread failed or the frontier ran out of room."""
    bins = _new_bins(slots)
    fill = bins[3]
    pause = np.array([-1, -1])
    scanned, cur = 0, first
    while True:
        size = shared[3]
        while True:
            start = fetch_add(shared, 4, FRONTIER_CHUNK)
            if start >= size:
                break
            chunk = frontier[start : min(start + FRONTIER_CHUNK, size)]
            got, bins = _expand_in_room(chunk, cur, graph, key, state, bound, inv, slots, bins, ties, pause)
            if got < 0:
                shared[2] = 1  # the others stop at their next barrier
                return -1
            scanned += got
        j = cur % slots
        while 0 < fill[j] < FUSED_BIN:
            own = _bin(bins, j).copy()
            fill[j] = 0
            got, bins = _expand_in_room(own, cur, graph, key, state, bound, inv, slots, bins, ties, pause)
            if got < 0:
                shared[2] = 1
                return -1
            scanned += got
        mine = -1
        for j in range(slots):
            if fill[(cur + j) % slots]:
                mine = cur + j
                break
        shared[5 + t] = mine
        if not barrier(shared, k):
            return -1
        if t == 0:
            shared[5 + k] += 1
        cur = -1
        for j in range(k):
            if shared[5 + j] >= 0 and (cur < 0 or shared[5 + j] < cur):
                cur = shared[5 + j]
        if cur < 0:
            return scanned
        if t == 0:
            shared[3], shared[4] = 0, 0
        if not barrier(shared, k):
            return -1
        j = cur % slots
        at = fetch_add(shared, 3, fill[j])
        if at + fill[j] > frontier.size:
            shared[2] = 1  # the others stop at their next barrier
            return -1
        frontier[at : at + fill[j]] = _bin(bins, j)
        fill[j] = 0
        if not barrier(shared, k):
            return -1


def _relax_threads(
    indptr, indices, weights, lo, hi, base, dist, pred, seeds, bound, changed, key, ties, buckets, k, arcs, counts
):
    """``relax_local`` on ``k`` threads by delta-stepping, or None where one thread must serve:
    seeds more than ``MAX_SEED_BUCKETS`` buckets apart, more vertices than int32 ids, or a
    bucket's copies out of room in the frontier (``dist`` and ``pred`` are then as they were).
    With ``weighted_arcs`` (``arcs``) it searches on packed cells where they hold the state
    (``_packed``), else (or when a distance outgrows them) on float64 distances. ``counts``
    (int64, two or more) gets the rounds of the search that gave the result, and ``k``."""
    width, slots, delta = buckets
    seeds = seeds[dist[seeds] < bound]
    n = hi - lo
    if seeds.size == 0 or n >= np.iinfo(np.int32).max:
        return None
    inv = 1.0 / delta
    first = int(dist[seeds].min() * inv)
    spread = int(dist[seeds].max() * inv) - first  # seeds expand first, all at once
    if spread > MAX_SEED_BUCKETS:
        return None
    # entries wait at most largest / delta + 2 buckets above the one being emptied, or above
    # the farthest seed's (the serial ring's slots - 2 widths cover the largest weight)
    slots = int(np.ceil((slots - 2) * width / delta)) + 3 + spread
    # a bucket's copies of a vertex are as many as the offers that lowered it inside the bucket:
    # rarely more than one a thread, and where more do not fit the search fails to one thread
    frontier = np.empty(max(k * n, seeds.size), np.int32)
    search = (key, ties, bound, inv, slots, first, frontier, seeds, k, counts)
    cells = _packed(arcs, dist, pred, key, base, n)
    # the cells as found decide equal offers only to a vertex without a predecessor, which with
    # ``ties`` is one no offer has changed (a swap writes a tail): the cells themselves serve
    before = cells if cells is None or ties else cells.copy()
    scanned = None if cells is None else _search((indptr, arcs, lo, hi, base), (cells, before), *search)
    if scanned is not None:
        _unpack(cells, dist, pred, changed)
        return scanned
    # on the floats (or again on them: a packed distance overflowed)
    before, pred_before = dist.copy(), pred.copy()
    scanned = _search((indptr, indices, weights, lo, hi, base), (dist, pred, before), *search)
    if scanned is None:
        dist[:], pred[:] = before, pred_before
        return None
    changed[dist < before] = True
    return scanned


def _search(graph, state, key, ties, bound, inv, slots, first, frontier, seeds, k, counts):
    """``_delta_thread`` on ``k`` threads from ``seeds``: the arcs scanned, or None if one
    failed; ``counts[:2]`` gets its rounds and ``k``."""
    frontier[: seeds.size] = seeds
    shared = np.zeros(6 + k, np.int64)
    shared[3] = seeds.size
    scanned = np.zeros(k, np.int64)

    def search(t):
        scanned[t] = _delta_thread(t, k, graph, state, key, ties, bound, inv, slots, first, frontier, shared)

    on_threads(search, k, shared, "dgraph-relax")
    counts[:2] = shared[5 + k], k
    return None if (scanned < 0).any() else int(scanned.sum())


def _packed(arcs, dist, pred, key, base, n):
    """The cells ``_expand_packed`` searches on (each vertex's distance << 32 | its predecessor),
    or None where they cannot hold the state: no ``weighted_arcs``, keyed tails, tails or
    distances beyond int32, or distances that are not whole numbers."""
    if arcs is None or key.size or base + n >= UNREACHED:
        return None
    cells = np.empty(n, np.int64)
    return cells if _pack(dist, pred, cells) else None


@numba.njit(nogil=True, cache=True)
def _pack(dist, pred, cells):
    """``_packed``'s cells in one pass; False (``cells`` then half written) where a distance or
    predecessor does not fit."""
    for v in range(cells.size):
        d, p = dist[v], pred[v]
        if d == np.inf:
            d = UNREACHED
        elif not (0 <= d < UNREACHED and d == np.floor(d)):
            return False
        if not -1 <= p < UNREACHED:
            return False
        cells[v] = (np.int64(d) << 32) | (p & 0xFFFFFFFF)
    return True


@numba.njit(nogil=True, cache=True)
def _unpack(cells, dist, pred, changed):
    """The searched cells back into ``dist`` and ``pred`` in one pass, flagging in ``changed`` the
    vertices whose distance fell."""
    for v in range(cells.size):
        d = cells[v] >> 32
        if d != UNREACHED and d < dist[v]:
            dist[v] = d
            changed[v] = True
        pred[v] = (cells[v] << 32) >> 32


def weighted_arcs(indices, weights):
    """Each arc as one int64, its weight << 32 | its head, where every weight is a whole number
    from 0 below 2**31 - 1 and every head is below 2**32, else None: ``relax_local`` on several
    threads then reads an arc's head and weight in one stream, as GAP's graphs hold them, and
    keeps each vertex's distance and predecessor in one 8-byte cell that one compare-and-swap
    changes: fewer streams and no lock than heads and weights apart with float64 distances and
    int64 predecessors under a lock."""
    if weights is None or weights.size == 0 or not (weights.min() >= 0 and weights.max() < UNREACHED):
        return None
    if indices.size and (indices.min() < 0 or indices.max() > 0xFFFFFFFF):
        return None
    whole = weights.astype(np.int64)
    if not (whole == weights).all():
        return None
    whole <<= 32
    whole |= indices
    return whole
