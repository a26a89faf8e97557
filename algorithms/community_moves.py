"""Louvain's local moving on one level spread over ranks (see ``louvain``): sweeps of each rank's
own vertices against the communities and totals the last sweep left, until few vertices move.

A sweep fetches the community of every slot of each rank's space and those communities' totals
and sizes from their owners, moves the rank's vertices in ``kernels.local_moving``, and sends
the totals' changes back to the owners. A vertex is swept again only once a neighbour has moved
(its own rank's wake it at once, another rank's by the next sweep). Damping ends the swaps that
stale facts allow between two ranks: after ``FREE_SWEEPS`` sweeps, a vertex that just moved and
has a neighbour on another rank may move in a seeded random half of the sweeps only.
"""

from __future__ import annotations

import numpy as np

from dgraph import kernels
from dgraph.ghosts import Fetch, add_at_owners
from dgraph.owners import index_type

MAX_SWEEPS = 64  # local-moving sweeps per level: stale totals may keep a few vertices moving
FREE_SWEEPS = 1  # sweeps in which every vertex may move; then a random half of those that may swap
SETTLED = 1e-3  # a level's sweeps end when at most this share of its vertices moved in one
SETTLED_SPREAD = 1e-2  # the same while the level spans ranks: there each sweep costs an exchange
ORDER_RUN, ORDER_RUNS = 256, 1024  # rows swept in a row between jumps, and at least this many runs


def move(ctx, level, lb, scale, rngs, start):
    """Local moving on one level, from the partition ``start`` (each own vertex's community),
    until few vertices move: each own vertex's community (ids of the level), each own
    community's total degree, and the sweeps run."""
    own = {r: start[r].copy() for r in ctx.ranks}
    tot, size = totals(ctx, level, own, lb)
    ids = {}
    full = {r: sweep_order(rngs[r], lv.n) for r, lv in level.items()}
    order = dict(full)
    active = {r: np.ones(lv.n, bool) for r, lv in level.items()}
    spaces = space_plan(ctx, level, lb)
    n = int(lb[-1])
    spread = np.count_nonzero(np.diff(lb)) > 1  # on one rank every move sees the ones before it
    seen, went = None, {}
    for sweep in range(1, MAX_SWEEPS + 1):
        if sweep > FREE_SWEEPS and spread:  # damping: two ranks cannot keep swapping a pair
            for r, o in full.items():  # (only a vertex that just moved, next to another rank's, can be half of one)
                held = level[r].on_edge & went[r]
                swap = np.flatnonzero(held)
                held[swap] = rngs[r].random(swap.size) < 0.5  # held out of this sweep, woken or not
                order[r] = o[~held[o]]
        last, seen = seen, spaces(own)
        if last is not None:
            for r in ctx.ranks:  # another rank's moves wake their neighbours here
                kernels.wake_near(level[r].near, seen[r], last[r], active[r])
        ccol = {}
        for r in ctx.ranks:  # int32 while it fits: the sweep reads it at random
            ids[r], ccol[r] = kernels.dense_ranks(seen[r], index_type(seen[r].size))
        # a community's total and size travel as one complex value: one exchange each way
        view = Fetch(ctx, ids, lb)({r: tot[r] + 1j * size[r] for r in ctx.ranks})
        t_view = {r: view[r].real.copy() for r in ctx.ranks}
        s_view = {r: view[r].imag.astype(np.int32) for r in ctx.ranks}  # counts read at random: int32
        moved, more = {}, {}
        for r, lv in level.items():
            c = ccol[r]
            state = (lv.indptr, lv.cols, lv.w, lv.first, lv.k, c, t_view[r], s_view[r], scale, order[r], active[r])
            moved[r], more[r] = kernels.local_moving(*state), 0
            # a level on one rank: every move is seen at once, so its sweeps need no exchange
            while not spread and moved[r] > SETTLED * n and sweep + more[r] < MAX_SWEEPS:
                moved[r], more[r] = kernels.local_moving(*state), more[r] + 1
            now = ids[r][c[lv.first : lv.first + lv.n]]
            went[r] = now != own[r]
            own[r] = now
        changed, change = {}, {}
        for r in ctx.ranks:  # only the communities the sweep changed travel back
            d_tot, d_size = t_view[r] - view[r].real, s_view[r] - view[r].imag
            at = np.flatnonzero((d_tot != 0) | (d_size != 0))
            changed[r], change[r] = ids[r][at], d_tot[at] + 1j * d_size[at]
        delta = add_at_owners(ctx, changed, change, lb)
        for r in ctx.ranks:
            tot[r] += delta[r].real
            size[r] += delta[r].imag.astype(np.int64)
        moved_all, extra = ctx.allreduce({r: [moved[r], more[r]] for r in ctx.ranks})
        if moved_all <= (SETTLED_SPREAD if spread else SETTLED) * n:
            break
    return own, tot, sweep + int(extra)


def space_plan(ctx, level, lb):
    """The ``Fetch`` of a value for every slot of each rank's space at ``level`` (owner ranges
    ``lb``), planned once per level and kept by its first rank's rows: a level's sweeps,
    modularity and aggregation all read their spaces."""
    first = level[ctx.ranks[0]]
    if first.plan is None:
        first.plan = Fetch(ctx, {r: lv.space for r, lv in level.items()}, lb)
    return first.plan


def sweep_order(rng, n):
    """A seeded order of a rank's ``n`` rows: runs of up to ``ORDER_RUN`` consecutive rows, at
    least ``ORDER_RUNS`` of them (single rows on a small graph), the runs shuffled. A run reads
    its arcs from one stretch of memory, where a row at random would wait on memory for each;
    the many runs' order keeps the sweep free of the labels' order."""
    run = min(ORDER_RUN, max(1, n // ORDER_RUNS))
    runs = rng.permutation(-(-n // run)) * run
    order = (runs[:, None] + np.arange(run)).ravel()
    return order[order < n] if n % run else order


def totals(ctx, level, own, lb):
    """Each own community's total degree and member count, at its owner, for the partition ``own``."""
    ids, both = {}, {}
    for r in ctx.ranks:
        ids[r], at = kernels.dense_ranks(own[r])
        m = ids[r].size
        both[r] = np.bincount(at, weights=level[r].k, minlength=m) + 1j * np.bincount(at, minlength=m)
    both = add_at_owners(ctx, ids, both, lb)  # total and count as one complex value: one exchange
    return {r: b.real.copy() for r, b in both.items()}, {r: b.imag.astype(np.int64) for r, b in both.items()}
