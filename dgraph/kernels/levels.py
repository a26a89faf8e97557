"""Breadth-first search inside one rank that holds every vertex: Beamer's direction-optimizing
search in one call, top-down levels from a queue and bottom-up levels over a bitmap of the
frontier, as GAP's BFS runs it, with the edge map's parent rule (the previous level's
in-neighbour of least canonical id)."""

from __future__ import annotations

import numba
import numpy as np

from .atomics import barrier, fetch_add, fetch_or, on_threads
from .engines import threads_for, twins
from .frontier import _arcs_numpy
from .slots import pack_ids, set_bits

# Rows a thread claims at a time in a bottom-up level: small enough that a thread that drew
# the hubs' rows does not leave the other waiting
PULL_CHUNK = 1 << 12
# Arcs per thread below which a bottom-up level runs on one thread
PULL_GRAIN = 1 << 20


@numba.njit(cache=True, nogil=True)
def _push_levels(indptr, indices, key, level, parent, queue, state, limit, arcs, alpha):
    """Top-down levels until the frontier empties, the depth limit, or Beamer's rule asks for a
    bottom-up level (returns True then). The frontier is ``queue[head:tail]`` and each level
    appends the next after it; ``state``: head, tail, depth, arcs explored, the last frontier's
    size, the frontier's out-arcs, arcs scanned."""
    head, tail, depth, explored, prev_nf, mf = state[0], state[1], state[2], state[3], state[4], state[5]
    pull = False
    while tail > head and depth != limit:
        nf = tail - head
        if mf > (arcs - explored) / alpha and nf >= prev_nf:
            pull = True
            break
        depth += 1
        end, next_mf = tail, 0
        for i in range(head, tail):
            u = queue[i]
            t = (key[u] << 32) | u if key.size else u
            for e in range(indptr[u], indptr[u + 1]):
                v = indices[e]
                if level[v] < 0:
                    level[v], parent[v] = depth, t
                    queue[end] = v
                    end += 1
                    next_mf += indptr[v + 1] - indptr[v]
                elif level[v] == depth and t < parent[v]:  # the least canonical tail wins
                    parent[v] = t
        explored += mf
        state[6] += mf
        head, tail, prev_nf, mf = tail, end, nf, next_mf
    state[0], state[1], state[2], state[3], state[4], state[5] = head, tail, depth, explored, prev_nf, mf
    return pull


@numba.njit(cache=True, nogil=True)
def _pull_chunks(indptr, indices, out_indptr, key, level, parent, bits, nbits, depth, rows, counts, chunk, shared, t):
    """A thread's share of a bottom-up level over the unreached ``rows``: chunks of
    ``chunk`` positions drawn from ``shared[0]``, chunk c holding ``counts[c]`` rows. A row
    takes the first in-neighbour set in ``bits`` (the least canonical: rows are sorted so) and
    sets its own bit in ``nbits``; the rows still unreached stay at the front of their chunk.
    The thread's counts go to ``shared[1 + 3t:4 + 3t]``: rows reached, their out-arcs, arcs
    scanned."""
    nf, mf, scanned = 0, 0, 0
    while True:
        c = fetch_add(shared, 0, 1)
        if c >= counts.size:
            break
        lo = c * chunk
        kept = lo
        for i in range(lo, lo + counts[c]):
            v = rows[i]
            if level[v] >= 0:  # reached by a top-down level since the row was listed
                continue
            e, found = indptr[v], -1
            while e < indptr[v + 1]:
                u = indices[e]
                e += 1
                if (bits[u >> 3] >> (7 - (u & 7))) & 1:
                    found = u
                    break
            scanned += e - indptr[v]
            if found < 0:
                rows[kept] = v
                kept += 1
                continue
            level[v] = depth
            parent[v] = (key[found] << 32) | found if key.size else found
            fetch_or(nbits, v >> 3, np.uint8(1 << (7 - (v & 7))))
            nf += 1
            mf += out_indptr[v + 1] - out_indptr[v]
        counts[c] = kept - lo
    shared[1 + 3 * t], shared[2 + 3 * t], shared[3 + 3 * t] = nf, mf, scanned


@numba.njit(cache=True, nogil=True)
def _pull_levels(
    in_indptr,
    in_indices,
    out_indptr,
    key,
    level,
    parent,
    bits,
    rows,
    counts,
    chunk,
    state,
    limit,
    beta,
    shared,
    sync,
    t,
    k,
):
    """Bottom-up levels until Beamer's rule asks for top-down ones (or the frontier empties, or
    the depth limit), run by each of ``k`` threads (``t``: this one) in lockstep; thread 0 keeps
    the books between levels. The frontier is set in ``bits[state[8]]``; ``state`` as in
    ``_push_levels``, and the frontier's size and the bits' half in use at 7 and 8, bottom-up
    levels run at 9, whether to go on at 10."""
    n = level.size
    while True:
        if t == 0:
            nf, prev_nf = state[7], state[4]
            state[10] = nf > 0 and state[2] != limit and not (nf < n / beta and nf < prev_nf)
            if state[10]:
                state[2] += 1
                bits[1 - state[8]] = 0
                shared[:] = 0
        if not barrier(sync, k) or not state[10]:
            return
        cur = state[8]
        front, nxt = bits[cur], bits[1 - cur]
        args = (in_indptr, in_indices, out_indptr, key, level, parent, front, nxt, state[2], rows, counts, chunk)
        _pull_chunks(*args, shared, t)
        if not barrier(sync, k):
            return
        if t == 0:
            reached, out_arcs, scanned = 0, 0, 0
            for i in range(k):
                reached += shared[1 + 3 * i]
                out_arcs += shared[2 + 3 * i]
                scanned += shared[3 + 3 * i]
            state[3] += state[5]
            state[4], state[7], state[5] = state[7], reached, out_arcs
            state[6] += scanned
            state[8], state[9] = 1 - cur, state[9] + 1


def _pull_phase(in_indptr, in_indices, out_indptr, key, level, parent, bits, rows, counts, chunk, state, limit, beta):
    """``_pull_levels`` on as many threads as the arcs are worth."""
    k = threads_for(in_indices.size, PULL_GRAIN)
    shared, sync = np.zeros(1 + 3 * k, np.int64), np.zeros(3, np.int64)
    args = (in_indptr, in_indices, out_indptr, key, level, parent, bits, rows, counts, chunk, state, limit, beta)
    args += (shared, sync)
    on_threads(lambda t: _pull_levels(*args, t, k), k, sync, "dgraph-bfs")


def _unreached_rows(indptr, level):
    """The rows a bottom-up level may reach (unreached, with in-arcs), in chunks of
    ``PULL_CHUNK``: (rows, rows per chunk, the chunk)."""
    rows, chunk = np.flatnonzero((level < 0) & (indptr[1:] > indptr[:-1])), PULL_CHUNK
    counts = np.full(-(-rows.size // chunk), chunk, np.int64)
    if counts.size:
        counts[-1] = rows.size - chunk * (counts.size - 1)
    return rows, counts, chunk


def _levels_numba(out_indptr, out_indices, in_indptr, in_indices, key, level, parent, source, limit, alpha, beta):
    n = level.size
    queue = np.empty(n, np.int64)
    bits = np.zeros((2, (n + 7) // 8), np.uint8)
    level[source] = 0
    queue[0] = source
    # see _push_levels and _pull_levels
    state = np.zeros(11, np.int64)
    state[1], state[5] = 1, out_indptr[source + 1] - out_indptr[source]
    pull_rows = None
    while _push_levels(out_indptr, out_indices, key, level, parent, queue, state, limit, out_indices.size, alpha):
        head, tail = state[0], state[1]
        bits[state[8]] = pack_ids(queue[head:tail], n)
        if pull_rows is None:
            pull_rows = _unreached_rows(in_indptr, level)
        state[7] = tail - head
        _pull_phase(in_indptr, in_indices, out_indptr, key, level, parent, bits, *pull_rows, state, limit, beta)
        front = set_bits(bits[state[8]], n)
        queue[: front.size] = front
        state[0], state[1] = 0, front.size
    return int(state[2]), int(state[6]), int(state[9])


def _levels_numpy(out_indptr, out_indices, in_indptr, in_indices, key, level, parent, source, limit, alpha, beta):
    # top-down levels only: the parents are the same whichever direction a level runs in
    level[source] = 0
    front, depth, scanned = np.array([source], np.int64), 0, 0
    none = np.empty(0)
    while front.size and depth != limit:
        depth += 1
        pos, heads, _ = _arcs_numpy(out_indptr, out_indices, none, front)
        scanned += heads.size
        tails = (key[front] << 32) | front if key.size else front
        new = level[heads] < 0
        heads, tails = heads[new], tails[pos[new]]
        order = np.lexsort((tails, heads))
        heads, tails = heads[order], tails[order]
        first = np.r_[True, heads[1:] != heads[:-1]] if heads.size else np.zeros(0, bool)
        front = heads[first]
        level[front], parent[front] = depth, tails[first]
    return depth, scanned, 0


_levels = twins("bfs_levels", numba=_levels_numba, numpy=_levels_numpy)


def bfs_levels(
    out_indptr, out_indices, in_indptr, in_indices, source, level, parent, key=None, limit=None, alpha=15, beta=18
):
    """Direction-optimizing BFS from ``source`` over a rank's CSRs of every vertex (rows and
    indices both vertex ids; ``in_*`` the reverse arcs, the same arrays on a symmetric graph, and
    each row sorted by canonical id). ``level`` (int64, -1 where unreached) and ``parent`` (-1
    for none) are written in place; parents are the previous level's in-neighbour of least
    canonical id, written as keyed ids (``owners.keyed``) where ``key`` gives the canonical ids,
    else as vertex ids. ``limit``: the deepest level to reach (None: no limit). A level runs
    bottom-up when the frontier's out-arcs exceed the unexplored arcs over ``alpha`` and the
    frontier grows, and top-down again when it shrinks below n / ``beta`` (Beamer et al., SC 2012).
    Returns (levels run, arcs scanned, bottom-up levels).

    >>> import numpy as np
    >>> ptr, idx = np.array([0, 1, 3, 4]), np.array([1, 0, 2, 1])  # the path 0 - 1 - 2
    >>> level, parent = np.full(3, -1), np.full(3, -1)
    >>> bfs_levels(ptr, idx, ptr, idx, 0, level, parent)[0], level.tolist(), parent.tolist()
    (3, [0, 1, 2], [-1, 0, 1])
    """
    k = np.empty(0, np.int64) if key is None else np.asarray(key, np.int64)
    depth = -1 if limit is None else int(limit)
    return _levels(out_indptr, out_indices, in_indptr, in_indices, k, level, parent, int(source), depth, alpha, beta)
