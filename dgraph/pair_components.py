"""Connected components of a graph given as pairs spread over the ranks, without gathering it.

Each rank holds pairs ``(u, v)`` of placed ids whose ``u`` it owns. The components are found by
FastSV (Zhang, Azad and Hu, SIAM PP 2020): every vertex keeps a pointer ``f`` to a smaller or
equal id; each round reads grandparents ``f[f[u]]`` from their owners, hooks each vertex and its
parent to the smallest grandparent across its pairs, and shortcuts. Pointers only shrink, and
the rounds stop when none moved, which leaves every component a star around its smallest id.
Rounds grow with the log of the components' depth, not with their diameter, and a rank holds
one pointer per vertex it owns plus its pairs: no array over the whole graph, no root rank.
"""

from __future__ import annotations

import numpy as np

from .ghosts import Fetch, fetch
from .owners import by_owner


def _both_ways(ctx, u, v, bounds):
    """Each rank's pairs with their reverses added (sent to the owner of the far end), without
    repeats, sorted by the owned end."""
    got = ctx.alltoall({r: by_owner(bounds, v[r], u[r]) for r in ctx.ranks})
    out = {}
    for r in ctx.ranks:
        uu = np.concatenate([u[r]] + [m[0] for _, m in got[r]])
        vv = np.concatenate([v[r]] + [m[1] for _, m in got[r]])
        order = np.lexsort((vv, uu))
        uu, vv = uu[order], vv[order]
        keep = np.ones(uu.size, dtype=bool)
        keep[1:] = (uu[1:] != uu[:-1]) | (vv[1:] != vv[:-1])
        out[r] = uu[keep], vv[keep]
    return out


def pair_components(ctx, u, v, bounds):
    """For every rank r, ``(nodes, root)``: the ids it owns that appear in any rank's pairs
    (sorted) and the smallest id of each one's component. ``u[r]``/``v[r]``: rank r's pairs,
    ``u[r]`` owned by r, in placed ids. Adds ``pair_rounds`` to the run's stats."""
    bounds = np.asarray(bounds, dtype=np.int64)
    pairs = _both_ways(ctx, u, v, bounds)
    far_end = Fetch(ctx, {r: pairs[r][1] for r in ctx.ranks}, bounds)
    nodes, starts, f = {}, {}, {}
    for r in ctx.ranks:
        near = pairs[r][0]
        first = np.ones(near.size, dtype=bool)
        first[1:] = near[1:] != near[:-1]
        starts[r] = np.flatnonzero(first)  # each node's run of pairs
        nodes[r] = near[starts[r]]
        f[r] = np.arange(bounds[r], bounds[r + 1], dtype=np.int64)  # parent of every owned id (only nodes move)
    ctx.hold("pair components", f)
    rounds, moved = 0, True
    while moved:
        parent = {r: f[r][nodes[r] - bounds[r]] for r in ctx.ranks}
        grand = fetch(ctx, parent, f, bounds)
        for r in ctx.ranks:  # f now holds grandparents, read by the nodes' pairs
            f[r][nodes[r] - bounds[r]] = grand[r]
        far = far_end(f)
        hook = {}
        for r in ctx.ranks:
            lowest = grand[r]  # the smallest grandparent over the node and its pairs
            if far[r].size:
                lowest = np.minimum(lowest, np.minimum.reduceat(far[r], starts[r]))
            f[r][nodes[r] - bounds[r]] = lowest  # aggressive hooking and shortcutting
            hook[r] = by_owner(bounds, parent[r], lowest)  # stochastic hooking: the parent too
        for r, messages in ctx.alltoall(hook).items():
            for _, (ids, values) in messages:
                np.minimum.at(f[r], ids - bounds[r], values)
        changed = {r: [int(np.count_nonzero(f[r][nodes[r] - bounds[r]] != parent[r]))] for r in ctx.ranks}
        moved = bool(ctx.allreduce(changed)[0])
        rounds += 1
    ctx.stats.info.update(pair_rounds=rounds)
    ctx.stats.release_vertex_state("pair components")
    return {r: (nodes[r], f[r][nodes[r] - bounds[r]]) for r in ctx.ranks}
