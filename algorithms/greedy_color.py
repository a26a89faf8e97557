"""A proper vertex colouring: the greedy colouring in a largest-degree-first order, computed by
speculative passes on the ranks (after Gebremedhin and Manne; Bozdag et al.).

The order: larger degree first (self-loops left out; the ghosts' degrees come in one superstep),
then a larger draw from the counter-based streams (``dgraph.streams``: a function of the seed and
the vertex's canonical id), then a larger canonical id. The answer is defined by that order
alone: the sequential greedy colouring, in which each vertex in turn takes the smallest colour
none of its neighbours before it has. So a seed gives one colouring on every layout and rank
count, the one a single process would give.

Method: each rank colours its own vertices in one pass, in the order (a kernel, ``greedy_pass``),
seeing its own vertices' colours as they are taken and its ghosts' colours as last exchanged
(none, the first time): a speculation wherever a neighbour before a vertex is a ghost. Then the
colours that changed travel (one superstep of the gather plan; positions and values where fewer
than half of a rank's boundary changed); a rank whose ghost changed colour colours again, in the
next pass, exactly the vertices after that ghost beside it, and a vertex whose colour changes in a
pass sends the rank's own vertices after it beside it back to work too. The rounds end when no
vertex that another rank reads changed colour: every vertex then has the smallest colour none of
its neighbours before it has, and that condition has one solution (by induction along the
order), the sequential colouring. On one rank that is one pass and one exchange. Across ranks a
vertex's colour is final once the neighbours before it are, so the rounds are at most two more
than the most times a path of falling priorities crosses from rank to rank, and in practice far
fewer, as a speculation is usually right. The longest chains run through the hubs, which come
first: so where the ranks are several, the at most ``HUBS`` vertices of the largest degrees (a
prefix of the order) are coloured first, by one rank from the arcs among them (their colours
depend on nothing else), and sent to every rank (three supersteps; Kronecker 18 over 4 to 16
ranks: 19 to 22 rounds, 92 to 120 without). Adjacent vertices differ (one comes first), and a colour is at most the
number of neighbours before its vertex.

Output encoding: ``color`` (int64, from 0).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from dgraph import kernels, streams
from dgraph.errors import DgraphInputError
from dgraph.ghosts import GhostExchange

if TYPE_CHECKING:
    import dask.dataframe as dd

    from dgraph.graph import Graph


def canonical_space(block):
    """The canonical id of every vertex of a block's space (what streams draw by)."""
    return (block.space if block.space_key is None else block.space_key).astype(np.int64)


def above(priority, canonical, a, b):
    """Whether the vertices at ``a`` come before those at ``b``: higher priority, then higher id."""
    return (priority[a] > priority[b]) | ((priority[a] == priority[b]) & (canonical[a] > canonical[b]))


def priority_positions(degree, canonical, seed):
    """Each slot's place in the priority order (0 first): larger degree first, then the larger
    draw from the seed's stream of its canonical id, then the larger canonical id. The order is
    one total order of every vertex, so any two slots compare alike on every rank."""
    draw = streams.words(seed, canonical)
    order = np.lexsort((canonical, draw, degree))[::-1]
    pos = np.empty(order.size, np.int64)
    pos[order] = np.arange(order.size)
    return pos


def _below_ghosts(block, first, pos):
    """For each ghost slot, the rank's rows after it in the order that it neighbours: a CSR over
    the slots (indptr, rows), the rows a change of that ghost's colour sends back to work."""
    nrows, size = block.nlocal, block.space.size
    if size == nrows:  # no ghosts
        return np.zeros(size + 1, np.int64), np.empty(0, np.int64)
    rows = np.repeat(np.arange(nrows, dtype=np.int64), block.degree())
    heads = block.indices.astype(np.int64)
    ghost = ((heads < first) | (heads >= first + nrows)) & (pos[heads] < pos[rows + first])
    rows, heads = rows[ghost], heads[ghost]
    by_head = np.argsort(heads, kind="stable")
    indptr = np.zeros(size + 1, np.int64)
    np.cumsum(np.bincount(heads, minlength=size), out=indptr[1:])
    return indptr, rows[by_head]


# At most this many vertices, those of the largest degrees, are coloured first by one rank, from
# the arcs among them: they are the order's first vertices, so their colours depend on those arcs
# alone, and on a skewed graph they hold the longest chains of speculations across ranks
# (Kronecker 18 over 4 ranks: 92 rounds without, 19 with)
HUBS = 1024


def _hubs_first(ctx, blocks, degree, spread, *, seed, most):
    """The colours of the order's first vertices where the ranks are several: every vertex of a
    degree of at least the smallest power of two that at most ``most`` vertices reach (a prefix
    of the order, as degree comes first in it). Each rank sends rank 0 its own such vertices and
    their arcs among them, rank 0 colours them in one pass and sends every rank the lot (three
    supersteps). Returns ``(placed ids, colours)`` on every rank, or None (one rank, or no such
    power)."""
    if ctx.nranks == 1:
        return None
    classes = {r: np.bincount(np.log2(np.maximum(degree[r], 1)).astype(np.int64), minlength=64) for r in ctx.ranks}
    reach = np.cumsum(ctx.allreduce(classes)[::-1])[::-1]  # vertices of degree 2**c or more (c > 0)
    fits = np.flatnonzero((reach[1:] <= most) & (reach[1:] > 0)) + 1
    if not fits.size:
        return None
    least = 1 << int(fits[0])
    send = {}
    for r in ctx.ranks:
        b = blocks[r]
        first = int(np.searchsorted(b.space, b.lo))
        rows = np.repeat(np.arange(b.nlocal, dtype=np.int64), b.degree())
        heads = b.indices.astype(np.int64)
        among = (degree[r][rows] >= least) & (spread[r][heads] >= least) & (heads != rows + first)
        hubs = np.flatnonzero(degree[r] >= least)
        canonical = canonical_space(b)[first + hubs]
        placed = b.space.astype(np.int64)
        send[r] = {0: [b.lo + hubs, degree[r][hubs], canonical, b.lo + rows[among], placed[heads[among]]]}
    got = ctx.alltoall(send)
    send = {r: {} for r in ctx.ranks}
    if 0 in ctx.ranks:
        ids, deg, canonical, tails, heads = (np.concatenate(c) for c in zip(*(m for _, m in got[0])))
        at = np.argsort(ids)
        ids, deg, canonical = ids[at], deg[at], canonical[at]
        indptr, indices, _ = kernels.build_csr(np.searchsorted(ids, tails), np.searchsorted(ids, heads), ids.size)
        pos = priority_positions(deg, canonical, seed)
        colour = np.full(ids.size, -1, np.int64)
        kernels.greedy_pass(indptr, indices, 0, pos, np.argsort(pos), colour, np.ones(ids.size, bool))
        send[0] = {d: [ids, colour] for d in range(ctx.nranks)}
    return {r: m[0][1] for r, m in ctx.alltoall(send).items()}


def coloring_kernel(ctx, *, bounds, seed, hubs=HUBS):
    blocks = {r: ctx.blocks[r][0] for r in ctx.ranks}
    gather = GhostExchange(ctx, {r: [blocks[r]] for r in ctx.ranks}, bounds)
    first, degree = {}, {}
    for r in ctx.ranks:
        b = blocks[r]
        first[r] = int(np.searchsorted(b.space, b.lo))
        rows = np.repeat(np.arange(b.nlocal, dtype=np.int64), b.degree())
        loops = np.bincount(rows[b.indices == rows + first[r]], minlength=b.nlocal)
        degree[r] = b.degree().astype(np.int64) - loops  # self-loops are not neighbours
    spread = {r: np.zeros(blocks[r].space.size, np.int64) for r in ctx.ranks}  # of every vertex read
    gather(degree, spread)
    pos, order, below, served, colour, dirty = {}, {}, {}, {}, {}, {}
    for r in ctx.ranks:
        b, a = blocks[r], first[r]
        pos[r] = priority_positions(spread[r], canonical_space(b), seed)
        order[r] = np.argsort(pos[r][a : a + b.nlocal]).astype(np.int64)
        below[r] = (*_below_ghosts(b, a, pos[r]), np.arange(b.nlocal, dtype=np.int64))
        served[r] = np.zeros(b.nlocal, bool)  # the rank's vertices that are ghosts elsewhere
        for _, offsets in gather.serve[r]:
            served[r][offsets] = True
        colour[r] = np.full(b.space.size, -1, np.int64)
        dirty[r] = np.ones(b.nlocal, bool)
    first_colours = _hubs_first(ctx, blocks, degree, spread, seed=seed, most=hubs)
    del spread
    for r in ctx.ranks if first_colours is not None else ():  # final: they never change
        b, (ids, taken) = blocks[r], first_colours[r]
        slots = np.minimum(np.searchsorted(b.space, ids), b.space.size - 1)
        held = b.space[slots] == ids
        colour[r][slots[held]] = taken[held]
        own = ids[(ids >= b.lo) & (ids < b.lo + b.nlocal)]
        dirty[r][own - b.lo] = False
    fresh = {r: np.empty_like(colour[r]) for r in ctx.ranks}
    ctx.hold("colouring", colour, fresh, pos)
    rounds = 0
    while True:
        changed, left, own = {}, {}, {}
        for r in ctx.ranks:
            b, a = blocks[r], first[r]
            changed[r] = kernels.greedy_pass(b.indptr, b.indices, a, pos[r], order[r], colour[r], dirty[r])
            left[r] = [int((changed[r] & served[r]).sum())]
            own[r] = colour[r][a : a + b.nlocal]
        rounds += 1
        # the colours that changed travel (positions and values where fewer than half did); the
        # rounds end when no vertex read elsewhere changed: every pass then saw its ghosts' colours
        if not int(gather(own, fresh, total=left, changed=changed)[0]):
            break
        for r in ctx.ranks:
            slots = np.concatenate(gather.written[r]) if gather.written[r] else np.empty(0, np.int64)
            slots = slots[fresh[r][slots] != colour[r][slots]]
            colour[r][slots] = fresh[r][slots]
            _, woken = kernels.take_rows(*below[r][:2], slots, below[r][2])
            dirty[r][woken] = True
    ctx.stats.info.update(rounds=rounds)
    return {r: {"color": colour[r][first[r] : first[r] + blocks[r].nlocal].copy()} for r in ctx.ranks}


def greedy_color(graph: Graph, *, seed: int | None = None) -> dd.DataFrame:
    """A proper colouring of an undirected graph: the greedy colouring in a largest-degree-first
    order (ties by random draws), computed by speculative passes on the ranks.

    Parameters
    ----------
    graph : dgraph.Graph
        Undirected. Self-loops are ignored.
    seed : int, optional
        The draws that order vertices of equal degree. None: a fresh one.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``vertex`` and ``color`` (0, 1, ...): adjacent vertices differ. For a seed the
        colouring is the same on every layout and rank count: the sequential greedy colouring
        in the order (degree, draw, canonical id), largest first, where each vertex takes the
        smallest colour none of its neighbours before it has, so no colour exceeds the largest
        degree.

    Notes
    -----
    One pass over the arcs and one superstep on one rank; across ranks a round (a pass over the
    vertices whose neighbours before them changed, and one superstep carrying the colours that
    changed) until no vertex another rank reads changes colour.

    References
    ----------
    A. H. Gebremedhin, F. Manne, "Scalable parallel graph coloring algorithms", Concurrency:
    Practice and Experience 12(12), 2000; D. Bozdag, A. H. Gebremedhin, F. Manne, E. G. Boman,
    U. V. Catalyurek, "A framework for scalable greedy coloring on distributed-memory parallel
    computers", J. Parallel Distrib. Comput. 68(4), 2008; D. J. A. Welsh, M. B. Powell, "An upper
    bound for the chromatic number of a graph", Comput. J. 10(1), 1967 (the largest-first order).

    Examples
    --------
    >>> import pandas as pd, dgraph
    >>> e = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 0]})
    >>> g = dgraph.from_edgelist(e, directed=False)
    >>> sorted(dgraph.algorithms.greedy_color(g, seed=1).compute().color.tolist())
    [0, 1, 2]
    """
    if graph.directed:
        raise DgraphInputError("greedy_color needs an undirected graph; build it with directed=False")
    return graph.run_to_frame(coloring_kernel, name="greedy_color", seed=streams.fresh_seed(seed))
