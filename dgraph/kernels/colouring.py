"""Greedy colouring: one pass over a rank's vertices in a priority order, each vertex taking the
smallest colour that none of its neighbours before it in the order has. Where the rank holds
every neighbour the pass is the sequential greedy colouring; ghosts' colours are those of the
last exchange, so a pass may have to be repeated for the vertices below a ghost that changed."""

from __future__ import annotations

import numba
import numpy as np

from .engines import twins


@numba.njit(cache=True)
def _greedy_pass_numba(indptr, indices, first, pos, order, colour, dirty):
    nrows = indptr.size - 1
    bound = 2  # a colour is at most its vertex's degree, and the marks reach every colour read
    for s in range(colour.size):
        bound = max(bound, colour[s] + 2)
    for v in range(nrows):
        bound = max(bound, indptr[v + 1] - indptr[v] + 2)
    mark = np.full(bound, -1, np.int64)  # mark[c] == i: colour c is taken before the i-th vertex
    changed = np.zeros(nrows, np.bool_)
    for i in range(order.size):
        v = order[i]
        if not dirty[v]:
            continue
        dirty[v] = False
        at = first + v
        before = pos[at]
        for j in range(indptr[v], indptr[v + 1]):
            w = indices[j]
            if pos[w] < before and colour[w] >= 0:
                mark[colour[w]] = i
        c = 0
        while mark[c] == i:
            c += 1
        if c == colour[at]:
            continue
        colour[at] = c
        changed[v] = True
        for j in range(indptr[v], indptr[v + 1]):  # the rank's own vertices after it look again
            w = indices[j]
            if pos[w] > before and first <= w < first + nrows:
                dirty[w - first] = True
    return changed


def smallest_free(rows, colours, nrows):
    """For each of ``nrows`` rows, the smallest colour not among the ``colours`` paired with it
    in ``rows`` (any order, repeats allowed)."""
    free = np.zeros(nrows, np.int64)
    if not rows.size:
        return free
    span = np.int64(colours.max()) + 2
    pairs = np.unique(rows * span + colours)
    row, colour = pairs // span, pairs % span
    start = np.searchsorted(row, row)
    k = np.arange(row.size) - start  # the rank of each colour among its row's (sorted, distinct)
    none = np.iinfo(np.int64).max
    free[:] = none
    np.minimum.at(free, row, np.where(colour != k, k, none))
    counts = np.bincount(row, minlength=nrows)
    return np.where(free == none, counts, free)


def _greedy_pass_numpy(indptr, indices, first, pos, order, colour, dirty):
    """Every vertex coloured again (a vertex the marks leave out would get its colour again), in
    rounds of the vertices whose own neighbours before them are all coloured: never two
    neighbours in one round, so each round takes its colours at once."""
    nrows = indptr.size - 1
    rows = np.repeat(np.arange(nrows, dtype=np.int64), np.diff(indptr))
    heads = indices.astype(np.int64)
    up = pos[heads] < pos[rows + first]
    rows, heads = rows[up], heads[up]
    own = (heads >= first) & (heads < first + nrows)
    old = colour[first : first + nrows].copy()
    colour[first : first + nrows] = -1
    done = np.zeros(nrows, bool)
    while not done.all():
        waiting = np.zeros(nrows, bool)
        waiting[rows[own & (colour[heads] < 0)]] = True
        ready = ~done & ~waiting
        near = ready[rows] & (colour[heads] >= 0)
        colour[first : first + nrows][ready] = smallest_free(rows[near], colour[heads[near]], nrows)[ready]
        done |= ready
        left = ~done[rows]
        rows, heads, own = rows[left], heads[left], own[left]
    dirty[:] = False
    return colour[first : first + nrows] != old


_greedy_pass = twins("greedy_pass", numba=_greedy_pass_numba, numpy=_greedy_pass_numpy)


def greedy_pass(indptr, indices, first, pos, order, colour, dirty):
    """Colour a rank's vertices again where ``dirty`` marks them, in the priority order.

    ``indptr``/``indices``: the rank's rows (its own vertices) and their heads as slots of its
    vertex space, whose own vertices are the slots from ``first``; ``pos``: each slot's place in
    the priority order (smaller first, distinct); ``order``: the rows in that order; ``colour``:
    each slot's colour (-1: none yet; ghosts' as last exchanged), the rows' rewritten in place;
    ``dirty`` (bool per row): the rows whose neighbours before them changed colour since the row
    was last coloured (all, the first time). A row takes the smallest colour none of its
    neighbours before it has, and marks its own neighbours after it dirty when its colour
    changes; every mark is cleared by the end. Self-loops are not neighbours. Returns which rows
    changed colour. A row left unmarked keeps a colour it would take again.
    """
    return _greedy_pass(indptr, indices, int(first), pos, order, colour, dirty)
