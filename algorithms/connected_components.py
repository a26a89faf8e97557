"""Connected components (weakly connected for directed graphs).

Method: every rank builds a spanning forest of its own arcs with union-find (out-arcs; in-arcs
too for directed graphs, so every arc between ranks is seen at both ends); on undirected graphs
with Afforest's sampling (Sutton et al., IPDPS 2018), so the rows already in the largest tree
skip their arcs inside the rank. Trees made only of the rank's own vertices are finished there.
Of the others (interface trees) only the vertices at the cut, plus each tree's smallest-label
member, are linked to an owned anchor. A ghost's owner knows its anchor there, so those pairs
become anchor-to-anchor pairs spread over the ranks, whose components FastSV finds without a
root rank (``dgraph.pair_components``: pointers hooked and shortcut, grandparents fetched from
their owners); each component is then named by its smallest-label member, chosen at its root's
owner. Communication and each rank's memory follow its share of the cut, not n. Unlike label
propagation the rounds grow with the logarithm of the trees' depth, not with the diameter, so
road networks cost a few rounds as social graphs do.

Output encoding: ``component`` is, for every vertex, the label of the member of its component
with the smallest canonical id (the graph's vertex order: the sorted labels, or hubs first with
``vertex_order="degree"``) — one representative per component, the same on every layout.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from dgraph import kernels
from dgraph.block import common_space, index_type
from dgraph.errors import DgraphInputError
from dgraph.ghosts import fetch
from dgraph.kernels import unique
from dgraph.owners import by_owner
from dgraph.pair_components import pair_components
from dgraph.runtime.plugin import trim_allocator

from .strongly_connected_components import strongly_connected_components


def _representatives(v, root, key):
    """For pairs (v, root) covering all non-root members, the smallest-key member of each tree."""
    if key.size == 0:
        return v, root  # roots already are the smallest placed (= canonical) id
    roots = unique(root)
    members = np.concatenate([v, roots])
    trees = np.concatenate([root, roots])
    order = np.lexsort((key[members], trees))
    members, trees = members[order], trees[order]
    first = np.ones(trees.size, dtype=bool)
    first[1:] = trees[1:] != trees[:-1]
    starts = np.flatnonzero(first)  # trees are contiguous runs, their smallest key first
    rep = np.repeat(members[starts], np.diff(np.r_[starts, trees.size]))
    keep = rep != members
    return members[keep], rep[keep]


def _smallest_members(nodes, anchors, anchor_key, anchor_best):
    """(key, member) per node: the smallest-key member of the tree the node anchors here
    (``anchors``, sorted, with their tree's smallest-key member's key and id). Every anchor
    is a node (its tree has a ghost); nodes that anchor nothing get the largest int64 key."""
    at = np.searchsorted(nodes, anchors)
    best_key = np.full(nodes.size, np.iinfo(np.int64).max)
    best_key[at] = anchor_key
    best = nodes.copy()
    best[at] = anchor_best
    return best_key, best


def _smallest_per_root(root, best_key, best):
    """(roots, key, member): per distinct root, sorted, the smallest-key member among ``best``
    (keys are distinct, so one member per root). Merged before they travel: the giant
    component's root would otherwise receive one triple per anchor of every rank."""
    roots, at = kernels.dense_ranks(root, index_type(root.size))
    lowest = np.full(roots.size, np.iinfo(np.int64).max)
    np.minimum.at(lowest, at, best_key)
    member = np.empty(roots.size, best.dtype)
    hit = best_key == lowest[at]
    member[at[hit]] = best[hit]
    return roots, lowest, member


def merge_interfaces(ctx, pairs, local, bounds, key):
    """For every rank, its owned range's representatives: ``rep[r][a - lo]`` is the placed id
    of the smallest-key member of anchor a's whole component (other entries are unused).

    Each rank's pairs link its interface trees' anchors to their ghost members; a ghost's owner
    knows its anchor there, so the pairs become anchor-to-anchor pairs, whose components
    (``pair_components``) join the trees across ranks. They come symmetric: a cut arc (y, x), y
    owned here, x by s, is in both ranks' blocks, so x is a ghost of y's tree here and y one of
    x's tree at s, and each side sends the pair of the two anchors. Each component's
    smallest-key member is then found at its root's owner and read back by every anchor."""
    node, ids = {}, index_type(int(bounds[-1]))  # placed ids in int32 while they fit
    for r in ctx.ranks:  # an owned vertex's anchor, or itself when in no interface tree
        owned, target, interface = local[r]
        node[r] = np.arange(bounds[r], bounds[r + 1], dtype=ids)
        node[r][owned[interface] - bounds[r]] = target[interface]
    smallest, ghosts, u = {}, {}, {}
    for r in ctx.ranks:
        (ghosts[r], u[r]), (anchors, best) = pairs.pop(r)
        order = np.argsort(anchors)  # each anchor once, with its tree's smallest-key member
        anchors, best = anchors[order], best[order]
        smallest[r] = (anchors, best if key.size == 0 else key[best], best)
        del order, anchors, best
    there = fetch(ctx, ghosts, node, bounds)
    del node, ghosts
    linked = pair_components(ctx, u, there, bounds)  # frees u and there
    send = {}
    for r in ctx.ranks:  # each root's smallest-key member among this rank's anchors, sent to its owner
        nodes, root = linked[r]
        send[r] = by_owner(bounds, *_smallest_per_root(root, *_smallest_members(nodes, *smallest.pop(r))))
    chosen = {}
    for r, messages in ctx.alltoall(send).items():
        empty = [np.empty(0, np.int64)]
        root, best_key, best = (np.concatenate([m[i] for _, m in messages] or empty) for i in range(3))
        lowest = np.full(int(bounds[r + 1] - bounds[r]), np.iinfo(np.int64).max)
        np.minimum.at(lowest, root - bounds[r], best_key)
        hit = best_key == lowest[root - bounds[r]]
        chosen[r] = np.arange(bounds[r], bounds[r + 1], dtype=np.int64)
        chosen[r][root[hit] - bounds[r]] = best[hit]
    got = fetch(ctx, {r: linked[r][1] for r in ctx.ranks}, chosen, bounds)
    rep = {}
    for r in ctx.ranks:
        rep[r] = np.arange(bounds[r], bounds[r + 1], dtype=np.int64)
        rep[r][linked[r][0] - bounds[r]] = got[r]
    return rep


def _slots_to_ids(space, slots, n, chunk=1 << 20):
    """``space[slots]`` as placed ids among ``n``, written over the slots a chunk at a time
    where their type holds the ids (on a 2D mesh nearly every slot is in a pair, and a whole
    mapped copy would sit beside them at the local phase's peak); a rank's slots fit int32
    sooner than the graph's ids do."""
    if np.iinfo(slots.dtype).max < n - 1:
        return space[slots]
    for s in range(0, slots.size, chunk):
        slots[s : s + chunk] = space[slots[s : s + chunk]]
    return slots


def _interface_of_rank(ctx, r, bounds, key):
    """Rank r's forest summarised for the merge (``component_interface``'s groups in placed ids):
    ((ghosts and their anchors, anchors and their trees' smallest-key members), (owned members,
    their targets, whether in an interface tree)), and the arcs examined. A
    function of its own so the forest and its scratch (tens of bytes a slot) are freed before
    the merge, whose peak they would add to."""
    # (out,) undirected; (out, in) directed, so every cut arc is seen at both ends; all in
    # one vertex space, where the rank's own vertices are the slots [a, a + hi - lo)
    blocks = common_space(ctx.blocks[r])
    space, lo, hi = blocks[0].space, int(bounds[r]), int(bounds[r + 1])
    a = int(np.searchsorted(space, lo))
    blocks = [dataclasses.replace(b, lo=a, hi=a + hi - lo) for b in blocks]
    slot = index_type(space.size)  # slots in int32 while they fit: half the bytes the finds walk
    parent = np.arange(space.size, dtype=slot)
    scratch = (np.zeros(space.size, np.uint8), np.zeros(space.size, np.uint8))  # flags
    scratch += (np.full(space.size, -1, slot), np.full(space.size, -1, slot))
    ctx.hold(f"wcc rank {r}", parent, *scratch)
    v, root = kernels.block_forest(blocks, parent, symmetric=len(blocks) == 1)
    del parent
    keyed = key[space] if key.size else key
    ghosts, trees, (owned, target, interface) = kernels.component_interface(v, root, a, a + hi - lo, keyed, scratch)
    del v, root, scratch
    n = int(bounds[-1])
    ghosts, trees = ([_slots_to_ids(space, slots, n) for slots in pair] for pair in (ghosts, trees))
    owned, target = (_slots_to_ids(space, slots, n) for slots in (owned, target))
    ctx.stats.release_vertex_state(f"wcc rank {r}")
    return (ghosts, trees), (owned, target, interface), sum(blk.narcs for blk in blocks)


def components_kernel(ctx, bounds, key):
    key = np.empty(0, np.int64) if key is None else key
    n, P = int(bounds[-1]), ctx.nranks
    if P == 1:  # no cut: the rank's forest is the answer (its space is every vertex)
        (r,) = ctx.ranks
        parent = np.arange(n, dtype=index_type(n))
        blocks = ctx.blocks[r]
        v, rep = _representatives(*kernels.block_forest(blocks, parent, symmetric=len(blocks) == 1), key)
        comp = np.arange(n, dtype=np.int64)
        comp[v] = rep
        ctx.stats.info.update(edges_examined=sum(blk.narcs for blk in blocks))
        return {r: {"component": comp}}
    pairs, local, examined = {}, {}, 0
    with ctx.phase("local"):
        for r in ctx.ranks:
            pairs[r], local[r], arcs = _interface_of_rank(ctx, r, bounds, key)
            examined += arcs
    ctx.stats.info.update(edges_examined=examined)
    # the forests and their scratch (tens of bytes a slot) are freed: give the heap back, or
    # the merge's arrays of other sizes would grow the worker around the holes they leave
    trim_allocator()
    with ctx.phase("merge"):
        rep_of = merge_interfaces(ctx, pairs, local, bounds, key)
    out = {}
    for r in ctx.ranks:
        lo, hi = int(bounds[r]), int(bounds[r + 1])
        owned, target, interface = local[r]
        comp = np.arange(lo, hi, dtype=np.int64)
        comp[owned - lo] = np.where(interface, rep_of[r][np.where(interface, target, lo) - lo], target)
        out[r] = {"component": comp}
    return out


def connected_components(graph, connection=None):
    """Connected components of an undirected graph; weak or strong ones of a directed graph.

    Parameters
    ----------
    graph : dgraph.Graph
    connection : {"weak", "strong"}
        Required for a directed graph (as in cuGraph): ``"weak"`` ignores the arcs' directions,
        ``"strong"`` is ``strongly_connected_components``. An undirected graph's components are
        both.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``vertex`` and ``component`` (the label of the component's representative:
        its member first in the graph's vertex order: the smallest sorted label, or on a graph
        built with ``vertex_order="degree"`` the member of highest degree).

    Notes
    -----
    The merge moves one 16-byte pair per vertex at the cut (plus one per interface tree) to
    the ghosts' owners once, then five supersteps per FastSV round (``pair_rounds`` in
    ``graph.last_stats.info``); each rank holds only its own pairs.

    Examples
    --------
    >>> import dgraph
    >>> g = dgraph.datasets.load("karate")
    >>> cc = dgraph.algorithms.connected_components(g).compute()
    >>> cc.component.nunique()
    1
    """
    if connection not in (None, "weak", "strong"):
        raise DgraphInputError(f'connection must be "weak" or "strong", got {connection!r}')
    if graph.directed and connection is None:
        raise DgraphInputError(
            'connected_components of a directed graph needs connection="weak" (ignore directions) or '
            '"strong" (strongly connected components)'
        )
    if graph.directed and connection == "strong":
        return strongly_connected_components(graph)
    return graph.run_to_frame(components_kernel, label_columns=("component",), reverse=graph.directed, name="wcc")


def weakly_connected_components(graph):
    """Weakly connected components: ``connected_components(graph, connection="weak")``."""
    return connected_components(graph, connection="weak")
