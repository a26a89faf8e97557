"""Connected components of a graph given as pairs spread over the ranks, without gathering it.

Each rank holds pairs ``(u, v)`` of placed ids whose ``u`` it owns. The components are found by
FastSV (Zhang, Azad and Hu, SIAM PP 2020): every vertex keeps a pointer ``f`` to a smaller or
equal id; each round reads grandparents ``f[f[u]]`` from their owners, hooks each vertex and its
parent to the smallest grandparent across its pairs, and shortcuts. Pointers only shrink, and
the rounds stop when none moved, which leaves every component a star around its smallest id.
Rounds grow with the log of the components' depth, not with their diameter, and a rank holds
one pointer per vertex it owns plus its pairs: no array over the whole graph, no root rank.

Where all ranks' pairs together are no more than a rank's share of the vertices (a cut that
the ranks' own work has shrunk, as connected components leaves it), one rank unites them all
instead: three supersteps (count, gather, answer) in place of five a round, and that rank holds
no more than the vertex state it holds anyway.
"""

from __future__ import annotations

import numpy as np

from . import kernels
from .block import index_type
from .ghosts import Fetch, fetch
from .kernels import unique
from .owners import by_owner

GATHERED = 0  # the rank that unites the pairs when they are few enough to gather


def sorted_pairs(u, v, n):
    """The pairs without repeats, sorted by ``u`` (ids below ``n``)."""
    if n <= 1 << 31:  # one sort, in place, of u * 2**32 + v
        both = u.astype(np.int64)
        both <<= 32
        both |= v
        both = unique(both, inplace=True)
        if np.little_endian:  # each pair's halves read in place as int32 (ids are non-negative)
            halves = both.view(np.int32).reshape(-1, 2)
            return halves[:, 1], halves[:, 0]
        return both >> 32, both & 0xFFFFFFFF
    order = np.lexsort((v, u))
    u, v = u[order], v[order]
    keep = np.ones(u.size, dtype=bool)
    keep[1:] = (u[1:] != u[:-1]) | (v[1:] != v[:-1])
    return u[keep], v[keep]


def pair_components(ctx, u, v, bounds, gather=None):
    """For every rank r, ``(nodes, root)``: the ids it owns that appear in any rank's pairs
    (sorted) and the smallest id of each one's component. ``u[r]``/``v[r]``: rank r's pairs,
    ``u[r]`` owned by r, in placed ids, and symmetric: each pair's reverse is at the owner of its
    ``v`` (repeats are fine). ``u`` and ``v`` are emptied: each rank's pairs are freed once
    sorted, not held through the rounds. Adds ``pair_rounds`` to the run's stats (0 where one
    rank united them all). ``gather``: whether one rank unites them (None: where they are no more
    than n / ranks)."""
    bounds = np.asarray(bounds, dtype=np.int64)
    pairs = {r: sorted_pairs(u.pop(r), v.pop(r), int(bounds[-1])) for r in ctx.ranks}
    if gather is None:
        total = int(ctx.allreduce({r: [pairs[r][0].size] for r in ctx.ranks})[0])
        gather = total <= int(bounds[-1]) // ctx.nranks
    if gather:
        ctx.stats.info.update(pair_rounds=0)
        return _united_at_one_rank(ctx, pairs, bounds)
    nodes, starts, f = {}, {}, {}
    for r in ctx.ranks:
        near = pairs[r][0]
        first = np.ones(near.size, dtype=bool)
        first[1:] = near[1:] != near[:-1]
        starts[r] = np.flatnonzero(first)  # each node's run of pairs
        nodes[r] = near[starts[r]]
        pairs[r] = pairs[r][1]  # the runs stand for the near ends from here on
        # parent of every owned id (only nodes move), in int32 while ids fit: half what the
        # rounds hold and send
        f[r] = np.arange(bounds[r], bounds[r + 1], dtype=index_type(int(bounds[-1])))
        del near, first
    far_end = Fetch(ctx, pairs, bounds)
    del pairs  # the plan holds what the rounds read of the far ends
    ctx.hold("pair components", f)
    rounds, moved = 0, True
    while moved:
        parent = {r: f[r][nodes[r] - bounds[r]] for r in ctx.ranks}
        away = {r: parent[r] != nodes[r] for r in ctx.ranks}  # a root's grandparent is itself
        grand = fetch(ctx, {r: parent[r][away[r]] for r in ctx.ranks}, f, bounds)
        for r in ctx.ranks:  # f now holds grandparents, read by the nodes' pairs
            f[r][nodes[r][away[r]] - bounds[r]] = grand[r]
        far = far_end(f)
        hook = {}
        for r in ctx.ranks:
            here = nodes[r] - bounds[r]
            lowest = f[r][here]  # the smallest grandparent over the node and its pairs
            if far[r].size:
                lowest = np.minimum(lowest, np.minimum.reduceat(far[r], starts[r]))
            f[r][here] = lowest  # aggressive hooking and shortcutting
            lower = lowest < parent[r]
            # stochastic hooking: the parent too, once per parent (as stars form, most nodes
            # of a rank share a few parents, whose owners would receive a hook from each)
            hook[r] = by_owner(bounds, *_least_per_id(parent[r][lower], lowest[lower]))
        del far, grand  # not held beside the next round's
        got = ctx.alltoall(hook)
        del hook
        for r in ctx.ranks:
            _hook(f[r], bounds[r], got.pop(r))
        changed = {r: [int(np.count_nonzero(f[r][nodes[r] - bounds[r]] != parent[r]))] for r in ctx.ranks}
        moved = bool(ctx.allreduce(changed)[0])
        rounds += 1
    ctx.stats.info.update(pair_rounds=rounds)
    ctx.stats.release_vertex_state("pair components")
    return {r: (nodes[r], f[r][nodes[r] - bounds[r]]) for r in ctx.ranks}


def _united_at_one_rank(ctx, pairs, bounds):
    """``pair_components`` by one rank's union-find: each pair goes there once (its reverse is
    at its other end's owner), is united over the ids that occur, and each rank is sent the
    smallest id of its nodes' components where that is not the node itself."""
    nodes, send = {}, {}
    for r in ctx.ranks:
        near, far = pairs.pop(r)
        first = np.ones(near.size, dtype=bool)
        first[1:] = near[1:] != near[:-1]
        nodes[r] = near[first]  # sorted, since the pairs are
        once = near < far
        send[r] = {GATHERED: [near[once], far[once]]}
        del near, far, first, once
    got = ctx.alltoall(send)
    del send
    answer = {r: {} for r in ctx.ranks}
    if GATHERED in got:
        messages = got.pop(GATHERED)
        empty = [np.empty(0, np.int64)]
        a, b = (np.concatenate([m[i] for _, m in messages] or empty) for i in range(2))
        del messages
        ids, at = kernels.dense_ranks(np.concatenate([a, b]), index_type(2 * a.size))
        del a, b
        v, root = kernels.spanning_forest(at[: at.size // 2], at[at.size // 2 :], np.arange(ids.size))
        del at
        answer[GATHERED] = by_owner(bounds, ids[v], ids[root])  # roots: the smallest ids
        del ids, v, root
    back = ctx.alltoall(answer)
    out = {}
    for r in ctx.ranks:
        root = nodes[r].copy()
        for _, (ids, smallest) in back.get(r, []):
            root[np.searchsorted(nodes[r], ids)] = smallest
        out[r] = (nodes[r], root)
    return out


def _least_per_id(ids, values):
    """The distinct ids (sorted) and the smallest of their values."""
    if ids.size == 0:
        return ids, values
    order = np.argsort(ids)
    ids, values = ids[order], values[order]
    first = np.ones(ids.size, dtype=bool)
    first[1:] = ids[1:] != ids[:-1]
    starts = np.flatnonzero(first)
    return ids[starts], np.minimum.reduceat(values, starts)


def _hook(f, lo, messages):
    """Lower the parents ``f`` (ids from ``lo``) to the hooks received, then let them go."""
    for _, (ids, values) in messages:
        np.minimum.at(f, ids - lo, values)
