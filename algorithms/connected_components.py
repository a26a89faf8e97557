"""Connected components (weakly connected for directed graphs).

Method: every rank builds a spanning forest of its own arcs with union-find (out-arcs; in-arcs
too for directed graphs, so every arc between ranks is seen at both ends). On undirected graphs
it is Afforest (Sutton et al., IPDPS 2018) across ranks: each rank links its rows to their first
neighbours, samples its largest tree, and the rows already in it skip all their arcs. An arc
from such a row to another rank's vertex that did not skip is united at that end; arcs between
two ranks' largest trees are redundant once one of them is united, so the ranks exchange which
vertices skipped (a bitmap each) and each joins its largest tree to every other rank's once.
Trees made only of the rank's own vertices are finished there. Of the others (interface trees)
only the vertices at the cut, plus each tree's smallest-label member, are linked to an owned
anchor. A ghost's owner knows what stands for its tree there, so those links become pairs
between such vertices, spread over the ranks; where a cut arc was united at one end only (the
other end skipped it), its pair is sent back to the other end's owner too, so the pairs are
symmetric. Their components FastSV finds without a root rank
(``dgraph.pair_components``: pointers hooked and shortcut, grandparents fetched from their
owners), or, where all ranks' pairs are at most n / ranks, one rank's union-find; each
component is then named by its smallest-label member, chosen at its root's owner.
Communication and each rank's memory follow its share of the cut, not n. Unlike label
propagation the rounds grow with the logarithm of the trees' depth, not with the diameter, so
road networks cost a few rounds as social graphs do. On one rank (no cut) Afforest's forest,
flattened, is the answer.

Output encoding: ``component`` is, for every vertex, the label of the member of its component
with the smallest canonical id (the graph's vertex order: the sorted labels, or hubs first with
``vertex_order="degree"``) — one representative per component, the same on every layout.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import numpy as np

from dgraph import kernels
from dgraph.block import common_space, index_type, keyed_ids, keyed_run, own_canonical
from dgraph.errors import DgraphInputError
from dgraph.ghosts import fetch
from dgraph.kernels import unique
from dgraph.owners import by_owner, placed_of
from dgraph.pair_components import pair_components
from dgraph.runtime.plugin import trim_allocator

from .strongly_connected_components import strongly_connected_components

if TYPE_CHECKING:
    import dask.dataframe as dd

    from dgraph.graph import Graph


def _representatives(v, root, keyed):
    """For pairs (v, root) covering all non-root members (keyed ids, ``owners.keyed``, where
    ``keyed``), the smallest member of each tree."""
    if not keyed:
        return v, root  # roots already are the smallest placed (= canonical) id
    roots = unique(root)
    members = np.concatenate([v, roots])
    trees = np.concatenate([root, roots])
    order = np.lexsort((members, trees))
    members, trees = members[order], trees[order]
    first = np.ones(trees.size, dtype=bool)
    first[1:] = trees[1:] != trees[:-1]
    starts = np.flatnonzero(first)  # trees are contiguous runs, their smallest key first
    rep = np.repeat(members[starts], np.diff(np.r_[starts, trees.size]))
    keep = rep != members
    return members[keep], rep[keep]


def _smallest_members(nodes, anchors, anchor_key, anchor_best, own_key, lo):
    """(key, member) per node: the smallest-key member of its tree here. A node anchors an
    interface tree (``anchors``, sorted, with their tree's smallest-key member's key and id;
    every anchor is a node) or is itself the smallest-key member of a tree without ghosts that
    a cut arc seen only at its other end reaches. ``own_key``: the canonical ids of the rank's
    own vertices from ``lo`` (None: placed ids are canonical)."""
    best_key = nodes.astype(np.int64) if own_key is None else own_key[nodes - lo]
    best = nodes.copy()
    at = np.searchsorted(nodes, anchors)
    best_key[at] = anchor_key
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


def merge_interfaces(ctx, pairs, local, bounds, own_key=None):
    """For every rank, the component of each vertex it owns: the placed id of the smallest-key
    member of its whole component.

    An owned vertex stands for its tree here by its target (an interface tree's anchor, another
    tree's smallest-key member; itself when in no tree). Each ghost x of an interface tree links
    the tree's anchor to x's target, read from x's owner. A cut arc is united at both ends, so
    the owner links back through its own ghost, unless x skipped its arcs there (Afforest's
    largest tree): those ghosts' links are also sent back to the targets' owners. The links,
    symmetric, become pairs whose components (``pair_components``) join the trees across ranks;
    each component's smallest-key member is then found at its root's owner and read back.
    ``own_key[r]``: the canonical ids of rank r's own vertices (None: placed ids are)."""
    node, ids = {}, index_type(int(bounds[-1]))  # placed ids in int32 while they fit
    for r in ctx.ranks:
        owned, target, skipped, giant_target = local.pop(r)
        owned -= owned.dtype.type(bounds[r])  # in place: offsets in the ids' own type
        node[r] = np.arange(bounds[r], bounds[r + 1], dtype=ids)
        node[r][owned] = target
        if skipped is not None:  # a rank's rows are its vertices, in order
            node[r][skipped] = giant_target
        del owned, target, skipped
    smallest, ghosts, u, one_sided = {}, {}, {}, {}
    for r in ctx.ranks:
        (ghosts[r], u[r], one_sided[r]), (anchors, best, best_key) = pairs.pop(r)
        order = np.argsort(anchors)  # each anchor once, with its tree's smallest-key member
        smallest[r] = (anchors[order], best_key[order], best[order])
        del order, anchors, best, best_key
    v = fetch(ctx, ghosts, node, bounds)
    del ghosts
    back = ctx.alltoall({r: by_owner(bounds, v[r][one_sided[r]], u[r][one_sided[r]]) for r in ctx.ranks})
    del one_sided
    for r, messages in back.items():  # at the targets' owners: the links back
        if messages:
            u[r] = np.concatenate([x.astype(ids, copy=False) for x in [u[r]] + [t for _, (t, _) in messages]])
            v[r] = np.concatenate([x.astype(ids, copy=False) for x in [v[r]] + [a for _, (_, a) in messages]])
    del back
    linked = pair_components(ctx, u, v, bounds)  # frees u and v
    send = {}
    for r in ctx.ranks:  # each root's smallest-key member among this rank's nodes, sent to its owner
        nodes, root = linked[r]
        mine = _smallest_members(nodes, *smallest.pop(r), None if own_key is None else own_key[r], int(bounds[r]))
        send[r] = by_owner(bounds, *_smallest_per_root(root, *mine))
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
    del chosen
    comp = {}
    for r in ctx.ranks:
        rep = np.arange(bounds[r], bounds[r + 1], dtype=np.int64)
        rep[linked.pop(r)[0] - bounds[r]] = got.pop(r)
        at = node.pop(r)
        at -= at.dtype.type(bounds[r])  # in place, as above
        comp[r] = rep[at]
        del rep, at
    return comp


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


def _rank_space(ctx, r, bounds):
    """Rank r's blocks in one vertex space, (out,) undirected, (out, in) directed (so every cut
    arc is seen at both ends), with the space and ``cuts``: rank d's vertices are its slots
    cuts[d]..cuts[d+1]-1, so the blocks' rows are the slots cuts[r]..cuts[r+1]-1."""
    blocks = common_space(ctx.blocks[r])
    space = blocks[0].space
    cuts = np.searchsorted(space, bounds)
    return [dataclasses.replace(b, lo=int(cuts[r]), hi=int(cuts[r + 1])) for b in blocks], space, cuts


def _forest(space):
    """An empty union-find forest over a rank's space: slots in int32 while they fit, half the
    bytes the finds walk."""
    return np.arange(space.size, dtype=index_type(space.size))


def _far_skips(ctx, spaces, skipped, bounds):
    """For every rank, per slot of its space, whether the vertex's owner skipped its arcs
    (``afforest_rows``; zero on the rank's own slots). Each rank's skipped rows reach every
    rank as a bitmap (one superstep, n/8 bytes received in all): fewer bytes than asking for
    the ghosts one id each, since on a well-connected graph most vertices are some rank's ghost."""
    bits = ctx.allgather({r: [np.packbits(s, bitorder="little")] for r, s in skipped.items()})
    far = {}
    for r, (_, space, cuts) in spaces.items():
        far[r] = np.zeros(space.size, np.uint8)
        for d, ((bitmap,), a, b) in enumerate(zip(bits, cuts[:-1], cuts[1:])):
            if d != r and b > a:
                at = space[a:b] - bounds[d]
                far[r][a:b] = (bitmap[at >> 3] >> (at & 7).astype(np.uint8)) & 1
    return far


def _local_forests(ctx, bounds, directed):
    """Yield (rank, blocks, space, (vertex, root), far, (skipped, giant)): each rank's spanning
    forest of its arcs, in slots of its space, and per slot whether its owner skipped its arcs
    (None: none can), one rank at a time (each forest's pairs are summarised before the next is
    made). Undirected blocks go through Afforest: the ranks tell each other which rows skipped (a
    bitmap each), and each rank then joins its largest tree to each other rank's once. The rows
    that skipped (bool per row; None: none can) are left out of the pairs: all are in the tree
    rooted at ``giant`` (-1: none)."""
    spaces = {r: _rank_space(ctx, r, bounds) for r in ctx.ranks}
    if directed:
        for r, (blocks, space, _) in spaces.items():
            yield r, blocks, space, kernels.block_forest(blocks, _forest(space)), None, (None, -1)
        return
    parents, skipped = {}, {}
    for r, (blocks, space, _) in spaces.items():
        parents[r] = _forest(space)
        ctx.hold(f"wcc forest {r}", parents[r])
        skipped[r] = kernels.afforest_rows(blocks[0], parents[r])
    far = _far_skips(ctx, spaces, skipped, bounds)
    for r, (blocks, space, cuts) in spaces.items():
        ctx.hold(f"wcc forest {r}", parents[r], far[r])
        v, root, giant = kernels.afforest_bridges(blocks[0], parents.pop(r), skipped[r], far[r], cuts)
        ctx.stats.release_vertex_state(f"wcc forest {r}")
        yield r, blocks, space, (v, root), far.pop(r), (skipped.pop(r), giant)


def _with_skipped(v, root, lo, skipped, giant):
    """The pairs (vertex, root) with the skipped rows (from slot ``lo``) put back, in ``giant``'s tree."""
    if giant < 0:
        return v, root
    rows = (lo + np.flatnonzero(skipped)).astype(v.dtype)
    rows = rows[rows != giant]
    return np.concatenate([v, rows]), np.concatenate([root, np.full(rows.size, giant, root.dtype)])


def _interface_of_rank(ctx, r, blocks, space, forest, *, far, n, skipped, giant):
    """Rank r's forest summarised for the merge (``component_interface``'s groups in placed ids):
    ((ghosts, their anchors and whether their owner skipped them; anchors, their trees'
    smallest-key members and those members' keys), (owned members, their targets, the rows
    that skipped, their target)). The skipped rows, most of a well-connected rank's, stay out
    of the summary: their tree is there through its other members (its root, the smallest
    row, among them), and its smallest-key member is added where it is one of them."""
    a, b = blocks[0].lo, blocks[0].hi
    slot = index_type(space.size)
    scratch = (np.zeros(space.size, np.uint8), np.zeros(space.size, np.uint8))  # flags
    scratch += (np.full(space.size, -1, slot), np.full(space.size, -1, slot))
    ctx.hold(f"wcc rank {r}", *scratch)
    space_key = blocks[0].space_key
    key = np.empty(0, np.int64) if space_key is None else space_key
    v, root = forest
    del forest
    if giant >= 0 and space_key is not None:
        rows = np.flatnonzero(skipped)
        best = a + int(rows[np.argmin(space_key[a + rows])])
        if best != giant:
            v, root = np.append(v, v.dtype.type(best)), np.append(root, root.dtype.type(giant))
    ghosts, trees, owned = kernels.component_interface(v, root, a, b, key, scratch)
    del v, root, scratch
    giant_target = -1
    if giant >= 0:  # the tree's target: its root's, or the root where no other member is listed
        hit = np.flatnonzero(owned[0] == giant)
        giant_target = int(space[owned[1][hit[0]] if hit.size else giant])
    one_sided = np.zeros(ghosts[0].size, bool) if far is None else far[ghosts[0]].view(bool)
    best_key = space_key[trees[1]].astype(np.int64) if space_key is not None else None  # before slots become ids
    ghosts, trees, owned = ([_slots_to_ids(space, slots, n) for slots in group] for group in (ghosts, trees, owned))
    trees.append(trees[1].astype(np.int64) if best_key is None else best_key)
    ctx.stats.release_vertex_state(f"wcc rank {r}")
    return ((*ghosts, one_sided), trees), (*owned, skipped, giant_target)


def components_kernel(ctx, *, directed, bounds):
    n, P = int(bounds[-1]), ctx.nranks
    keyed = keyed_run(ctx)
    if P == 1 and not directed and not keyed:
        # no cut, and a slot is a placed id: Afforest's forest, every pointer at a smaller id and
        # each tree rooted at its smallest, is the answer once every vertex points at its root
        (r,) = ctx.ranks
        blocks, space, _ = _rank_space(ctx, r, bounds)
        parent = _forest(space)
        kernels.afforest_rows(blocks[0], parent)
        ctx.stats.info.update(edges_examined=blocks[0].narcs)
        return {r: {"component": kernels.flatten_forest(parent).astype(np.int64)}}
    if P == 1:  # no cut: the rank's forest is the answer (its space is every vertex)
        ((r, blocks, space, (v, root), _, (skipped, giant)),) = _local_forests(ctx, bounds, directed)
        v, root = _with_skipped(v, root, blocks[0].lo, skipped, giant)
        v, rep = _representatives(keyed_ids(blocks[0], v), keyed_ids(blocks[0], root), keyed)
        comp = np.arange(n, dtype=np.int64)
        comp[placed_of(v) if keyed else v] = placed_of(rep) if keyed else rep
        ctx.stats.info.update(edges_examined=sum(blk.narcs for blk in blocks))
        return {r: {"component": comp}}
    pairs, local, examined = {}, {}, 0
    with ctx.phase("local"):
        for r, blocks, space, forest, far, (skipped, giant) in _local_forests(ctx, bounds, directed):
            pairs[r], local[r] = _interface_of_rank(
                ctx, r, blocks, space, forest, far=far, n=n, skipped=skipped, giant=giant
            )
            examined += sum(blk.narcs for blk in blocks)
            del forest, far
    ctx.stats.info.update(edges_examined=examined)
    # the forests and their scratch (tens of bytes a slot) are freed: give the heap back, or
    # the merge's arrays of other sizes would grow the worker around the holes they leave
    trim_allocator()
    with ctx.phase("merge"):
        own_key = None  # placed ids are canonical unless the run is keyed
        if keyed:
            own_key = {r: own_canonical(ctx.blocks[r][0], int(bounds[r]), int(bounds[r + 1])) for r in ctx.ranks}
        comp = merge_interfaces(ctx, pairs, local, bounds, own_key)
    return {r: {"component": c} for r, c in comp.items()}


def connected_components(graph: Graph, *, connection: str | None = None, previous: Any = None) -> dd.DataFrame:
    """Connected components of an undirected graph; weak or strong ones of a directed graph.

    Parameters
    ----------
    graph : dgraph.Graph
    connection : {"weak", "strong"}
        Required for a directed graph (as in cuGraph): ``"weak"`` ignores the arcs' directions,
        ``"strong"`` is ``strongly_connected_components``. An undirected graph's components are
        both.
    previous : DataFrame, optional
        The result of this function on a version this graph was made from by additions only
        (``add_edges``, ``add_vertices``): its components are then united along the edges
        added since (``dgraph.updates.incremental``), with no run over the graph; the result
        is the one a call without ``previous`` gives. A graph made by a removal or a rebuild
        since refuses it.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``vertex`` and ``component`` (the label of the component's representative:
        its member first in the graph's vertex order: the smallest sorted label, or on a graph
        built with ``vertex_order="degree"`` the member of highest degree; vertices an update
        added come after the others, in the order they were added).

    Notes
    -----
    The ranks exchange one bit per vertex (which skipped their arcs), then the merge moves one
    16-byte pair per ghost of an interface tree (plus one per interface tree) to the ghosts'
    owners once, then five supersteps per FastSV round (``pair_rounds`` in
    ``graph.last_stats.info``); each rank holds only its own pairs. On a well-connected graph
    most cut arcs join two ranks' largest trees and cost no pair.

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
        if previous is not None:
            raise DgraphInputError("previous= carries weak components; strong ones are computed anew (leave it out)")
        return strongly_connected_components(graph)
    if previous is not None:
        from dgraph.updates.incremental import united_components

        return united_components(graph, previous)
    return graph.run_to_frame(
        components_kernel, label_columns=("component",), reverse=graph.directed, name="wcc", directed=graph.directed
    )


def weakly_connected_components(graph: Graph) -> dd.DataFrame:
    """Weakly connected components: ``connected_components(graph, connection="weak")``."""
    return connected_components(graph, connection="weak")
