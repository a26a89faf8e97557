"""A level of Louvain's and Leiden's (see ``louvain``): a graph whose rows are owned in ranges,
as dgraph's vertices are, and the next level made from a partition of it into parts. Each part
becomes a node placed at its community's home (the community's owner; rank 0; a rank drawn
from the community's id by a hash; or, for Leiden's parts, which never cross ranks, where it
is), numbered there in order of (community, part); the level's arcs, summed by pair of nodes
on each rank (``kernels.sum_row_pairs``), travel to the nodes' homes as rows and are summed
again there (``kernels.sum_rows``), unless the parts stayed where they were."""

from __future__ import annotations

import functools

import numpy as np

from dgraph import kernels
from dgraph.block import vertex_space
from dgraph.ghosts import fetch
from dgraph.kernels import unique
from dgraph.owners import by_owner, grouped_by_owner, index_type

from .community_moves import space_plan


class Level:
    """A rank's rows of one level's graph: ids lo..hi-1, the other ends of their arcs (ids of
    this level) as slots of the rank's vertex space (int32 while they fit: the sweeps read them
    at random), the arcs' weights (a loop doubled), and the rows' weighted degrees. Read row by
    row: no array the size of the arcs is made from it."""

    def __init__(self, lo, hi, indptr, w, space, cols, *, k):
        self.lo, self.hi, self.indptr, self.w = int(lo), int(hi), indptr, w
        self.space, self.cols, self.k = space, cols, k
        self.first = int(np.searchsorted(space, lo))
        self.plan = None  # the first rank's: the level's Fetch of every slot (community_moves.space_plan)

    @property
    def n(self):
        return self.hi - self.lo

    @functools.cached_property
    def near(self):
        """The rows next to each ghost slot (``kernels.ghost_rows``), found once per level."""
        return kernels.ghost_rows(self.indptr, self.cols, self.first, self.space.size)

    @functools.cached_property
    def on_edge(self):
        """Whether each row has a ghost neighbour: only such a row can swap with another rank's."""
        edge = np.zeros(self.n, bool)
        edge[self.near[1]] = True
        return edge


def first_level(block, weighted):
    """A rank's block as the first level's rows, its arcs weighted 1 unless ``weighted``."""
    lo, hi, space = block.lo, block.hi, block.space
    w = block.weights if weighted and block.weights is not None else np.ones(block.indices.size)
    first = int(np.searchsorted(space, lo))
    if first + hi - lo <= space.size and (hi == lo or space[first + hi - lo - 1] == hi - 1):  # own rows in it
        w, k = kernels.level_weights(block.indptr, block.indices, np.arange(first, first + hi - lo), w)
        return Level(lo, hi, block.indptr, w, space, block.indices.astype(index_type(space.size), copy=False), k=k)
    space, cols = vertex_space(block.n, space[block.indices], ranges=[(lo, hi)])
    w, k = kernels.level_weights(block.indptr, space[cols], np.arange(lo, hi), w)
    return Level(lo, hi, block.indptr, w, space, cols, k=k)


def gathered(ctx, level, lb, start):
    """``level`` moved onto rank 0 with its ids unchanged (its rows in order), its owner ranges
    there, and each node's starting community (``start``) where the node now lives."""
    ident = {r: np.arange(lb[r], lb[r + 1], dtype=np.int64) for r in ctx.ranks}
    level, on_one, _, _ = aggregate(ctx, level, ident, ident, lb, to_one=True)
    start = fetch(ctx, {r: np.arange(on_one[r], on_one[r + 1], dtype=np.int64) for r in ctx.ranks}, start, lb)
    return level, on_one, start


def aggregate(ctx, level, own, parts, lb, to_one=False, *, dealt=False, kept=False):
    """The next level, whose nodes are the parts (``parts``: each own vertex's part, an id of
    the level; with Louvain the communities themselves): its rows on each rank, its owner
    ranges, each own vertex's node, and each node's starting community (the smallest node of
    its community). Every part is placed at its community's owner (``to_one``: at rank 0;
    ``dealt``: at a rank drawn from the community's id by a hash; ``kept``: where it is, which
    Leiden's parts, never crossing ranks, allow), numbered there in order of (community, part),
    so a community's nodes on a rank are consecutive."""
    if kept:
        new_id, nb, start = _number_in_place(ctx, own, parts, lb)
    else:
        new_id, nb, start = _number_at_homes(ctx, own, parts, lb, to_one=to_one, dealt=dealt)
    ends = space_plan(ctx, level, lb)(new_id)  # the node of every slot
    total = int(nb[-1])
    new = {}
    if kept:  # each rank's sums are its rows already: nothing travels
        for r, lv in level.items():
            rows = int(nb[r + 1] - nb[r])
            summed = kernels.sum_row_pairs(lv.indptr, lv.cols, lv.w, new_id[r] - nb[r], ends[r], rows, total)
            new[r] = _rows(nb, r, total, summed)
        return new, nb, new_id, start
    send = {}
    for r, lv in level.items():  # each home's rows of the sums: a CSR over its nodes
        at, cv, w, _ = kernels.sum_row_pairs(lv.indptr, lv.cols, lv.w, new_id[r], ends[r], total, total)
        send[r] = {
            d: [at[a : b + 1] - at[a], cv[at[a] : at[b]], w[at[a] : at[b]]]
            for d, (a, b) in enumerate(zip(nb[:-1], nb[1:]))
            if at[b] > at[a]
        }
    got = ctx.alltoall(send)
    for r in ctx.ranks:
        parts_in = [m for _, m in sorted(got[r], key=lambda x: x[0])]  # in rank order: sums the same every run
        summed = kernels.sum_rows(parts_in, int(nb[r + 1] - nb[r]), total)
        del parts_in
        new[r] = _rows(nb, r, total, summed)
    return new, nb, new_id, start


def _rows(nb, r, total, summed):
    """Rank r's rows of a level of ``total`` nodes owned in ranges ``nb``, from its arcs summed
    by pair (``summed``: a CSR from 0 and each row's weight, as ``kernels.sum_rows`` gives)."""
    indptr, cv, w, k = summed
    space, cols = vertex_space(total, cv, ranges=[(nb[r], nb[r + 1])])
    return Level(nb[r], nb[r + 1], indptr, w, space, cols, k=k)


def _number_in_place(ctx, own, parts, lb):
    """``_number_at_homes`` for parts that stay on their ranks: each rank numbers its own in
    order of (community, part), and a community's nodes on several ranks start in the smallest
    of them, found at the community's owner."""
    n = int(lb[-1])
    order = {}
    for r in ctx.ranks:
        distinct, at, community = _parts(own[r], parts[r])
        sort = np.lexsort((distinct, community))
        order[r] = (sort, at, community[sort])
    nb = _ranges(ctx, {r: o[0].size for r, o in order.items()})
    send, groups = {}, {}
    for r in ctx.ranks:
        sort, _, community = order[r]
        groups[r] = first = _heads(community)
        send[r] = by_owner(lb, community[first], nb[r] + first)  # each community's smallest node here
    got = ctx.alltoall(send)
    reply = {}
    for r in ctx.ranks:
        least = np.full(int(lb[r + 1] - lb[r]), n, dtype=np.int64)
        for _, (c, node) in got[r]:  # a message's communities are distinct
            least[c - lb[r]] = np.minimum(least[c - lb[r]], node)
        reply[r] = {src: [least[c - lb[r]]] for src, (c, _) in got[r]}
    answers = ctx.alltoall(reply)
    new_id, start = {}, {}
    for r in ctx.ranks:
        sort, at, community = order[r]
        first = groups[r]
        # the groups ascend by community, so the owners' answers in rank order follow them
        smallest = np.concatenate([a for _, (a,) in sorted(answers[r], key=lambda m: m[0])] or [first])
        start[r] = np.repeat(smallest, np.diff(np.r_[first, community.size]))
        node = np.empty(sort.size, np.int64)
        node[sort] = nb[r] + np.arange(sort.size)
        new_id[r] = node[at]
    return new_id, nb, start


def _homes(community, lb, nranks, dealt):
    """The rank each community's parts are placed on: its owner, or (``dealt``) one drawn from
    its id by Fibonacci hashing, since a level's communities are named by their smallest ids
    and so are owned by few ranks."""
    if not dealt:
        return np.searchsorted(lb, community, side="right") - 1
    mixed = community.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    return ((mixed >> np.uint64(32)) % np.uint64(nranks)).astype(np.int64)


def _number_at_homes(ctx, own, parts, lb, *, to_one, dealt):
    """Each own vertex's node, the nodes' owner ranges, and each own node's starting community:
    the parts numbered at their communities' homes (``to_one``: rank 0). A part lies inside one
    community (Louvain's parts are the communities), so each distinct part is one key."""
    n = int(lb[-1])
    send, keys = {}, {}
    for r in ctx.ranks:
        distinct, at, community = _parts(own[r], parts[r])
        key = community.astype(np.uint64) * np.uint64(n) + distinct.astype(np.uint64)
        sort = np.argsort(key)
        mine = key[sort]
        home = np.zeros(mine.size, np.int64) if to_one else _homes(community[sort], lb, ctx.nranks, dealt)
        order = grouped_by_owner(home, ctx.nranks)  # each home's keys, still sorted
        cuts = np.searchsorted(home[order], np.arange(ctx.nranks + 1))
        send[r] = {d: [mine[order[a:b]]] for d, (a, b) in enumerate(zip(cuts[:-1], cuts[1:])) if b > a}
        keys[r] = (sort[order], cuts, at)
    got = ctx.alltoall(send)
    held = {}
    for r in ctx.ranks:  # at each community's home: its parts, sorted by (community, part)
        held[r] = unique(np.concatenate([m[-1] for _, m in got[r]] or [np.empty(0, np.uint64)]))
    nb = _ranges(ctx, {r: h.size for r, h in held.items()})
    start, reply = {}, {}
    for r in ctx.ranks:
        community = (held[r] // np.uint64(n)).astype(np.int64)
        starts = _heads(community)
        start[r] = nb[r] + np.repeat(starts, np.diff(np.r_[starts, community.size]))
        reply[r] = {src: [nb[r] + np.searchsorted(held[r], m[-1])] for src, m in got[r]}
    answers = ctx.alltoall(reply)
    new_id = {}
    for r in ctx.ranks:
        sent, cuts, at = keys[r]
        node = np.empty(sent.size, dtype=np.int64)  # the node of each of the rank's distinct parts
        for d, (answer,) in answers[r]:
            node[sent[cuts[d] : cuts[d + 1]]] = answer
        new_id[r] = node[at]
    return new_id, nb, start


def _parts(own, parts):
    """A rank's distinct parts (sorted), each vertex's part as a rank among them, and each
    part's community (a part lies inside one)."""
    distinct, at = kernels.dense_ranks(parts)
    community = np.empty(distinct.size, np.int64)
    community[at] = own
    return distinct, at, community


def _ranges(ctx, counts):
    """The owner ranges of nodes numbered rank by rank, ``counts[r]`` on rank r."""
    nb = np.zeros(ctx.nranks + 1, dtype=np.int64)
    got = ctx.allgather({r: [np.array([c])] for r, c in counts.items()})
    nb[1:] = np.cumsum([int(c[0][0]) for c in got])
    return nb


def _heads(community):
    """Where each run of equal communities starts in ``community`` (sorted)."""
    head = np.ones(community.size, dtype=bool)
    head[1:] = community[1:] != community[:-1]
    return np.flatnonzero(head)
