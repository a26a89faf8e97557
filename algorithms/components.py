"""Connected components (weakly connected for directed graphs).

Method: every rank builds a spanning forest of its own arcs with union-find (roots are the
smallest id of their tree) and keeps only (vertex, root) pairs of its non-root vertices; forests
are merged up a binomial tree of ranks (log2 P supersteps, each merge is again union-find over
the two pair lists); the root rank names each component by its member with the smallest
canonical id and sends every owner the labels of its vertices. Work is O(m alpha(n)); unlike
label propagation the number of supersteps does not grow with the diameter, so road networks
cost the same few supersteps as social graphs.

Output encoding: ``component`` is, for every vertex, the label of the member of its component
with the smallest canonical id (the sorted position of the user's labels) — one representative
per component, the same on every layout.
"""

from __future__ import annotations

import math

import numpy as np

from dgraph import kernels
from dgraph.block import split_by_owner


def _representatives(v, root, key):
    """For pairs (v, root) covering all non-root members, the smallest-key member of each tree."""
    if key.size == 0:
        return v, root  # roots already are the smallest placed (= canonical) id
    members = np.concatenate([v, np.unique(root)])
    trees = np.concatenate([root, np.unique(root)])
    order = np.lexsort((key[members], trees))
    members, trees = members[order], trees[order]
    first = np.ones(trees.size, dtype=bool)
    first[1:] = trees[1:] != trees[:-1]
    rep_of_tree = dict(zip(trees[first].tolist(), members[first].tolist()))
    rep = np.fromiter((rep_of_tree[t] for t in trees), dtype=np.int64, count=trees.size)
    keep = rep != members
    return members[keep], rep[keep]


def components_kernel(ctx, bounds, key):
    key = np.empty(0, np.int64) if key is None else key
    n, P = int(bounds[-1]), ctx.nranks
    scratch = np.arange(n, dtype=np.int64)
    pairs = {}
    for r in ctx.ranks:
        out = ctx.blocks[r][0]
        a = np.repeat(np.arange(out.lo, out.hi, dtype=np.int64), out.degree())
        pairs[r] = kernels.spanning_forest(a, out.indices, scratch)
    for level in range(math.ceil(math.log2(P)) if P > 1 else 0):
        step = 1 << level
        send = {}
        for r in ctx.ranks:
            if r % (2 * step) == step:
                send[r] = {r - step: list(pairs.pop(r))}
        got = ctx.alltoall(send)
        for r in ctx.ranks:
            if r % (2 * step) == 0 and r in pairs:
                v = np.concatenate([pairs[r][0]] + [a[0] for _, a in got[r]])
                root = np.concatenate([pairs[r][1]] + [a[1] for _, a in got[r]])
                pairs[r] = kernels.spanning_forest(v, root, scratch)
    send = {}
    if 0 in ctx.ranks:
        v, rep = _representatives(*pairs[0], key)
        send[0] = {d: [pv, pr] for d, (pv, pr, _) in enumerate(split_by_owner(v, rep, None, bounds)) if pv.size}
    got = ctx.alltoall(send)
    out = {}
    for r in ctx.ranks:
        lo, hi = int(bounds[r]), int(bounds[r + 1])
        comp = np.arange(lo, hi, dtype=np.int64)
        for _, (v, rep) in got[r]:
            comp[v - lo] = rep
        out[r] = {"component": comp}
    return out


def connected_components(graph):
    """Connected components; weakly connected components of a directed graph.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``vertex`` and ``component`` (the label of the component's representative:
        its member with the smallest sorted label).

    Notes
    -----
    ``ceil(log2 P) + 1`` supersteps; the merge moves at most one (vertex, root) pair of 16 bytes
    per vertex per tree level, and the root rank holds O(n) pairs at the end.

    Examples
    --------
    >>> import dgraph
    >>> g = dgraph.datasets.load("karate")
    >>> cc = dgraph.algorithms.connected_components(g).compute()
    >>> cc.component.nunique()
    1
    """
    results, _ = graph.run(components_kernel, name="wcc")
    return graph.to_frame(results, label_columns=("component",))


weakly_connected_components = connected_components
