"""A maximal independent set by Luby's algorithm.

Method: each round every undecided vertex draws a priority from the counter-based streams (a
function of the seed, the round and its canonical id, ties broken by that id), so a seed gives
one set on every layout and rank count. The ranks read their ghosts' states (one superstep of
the gather plan); an undecided vertex with a neighbour in the set leaves, and one whose
undecided neighbours all drew less joins. Two neighbours never join together, a vertex leaves
only beside a member, and the rounds end when none is undecided: the set is independent and
maximal, in O(log n) rounds expected. Vertices asked for (``nodes``) are in from the start;
that they are independent is checked first. Self-loops are ignored (except that a vertex asked
for with a self-loop is its own neighbour, as networkx has it).

Output encoding: ``in_set`` (bool).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import TYPE_CHECKING

import numpy as np

from dgraph import streams
from dgraph.errors import DgraphInputError
from dgraph.ghosts import GhostExchange

from .greedy_color import above, canonical_space
from .minimum_spanning_tree import owned_arcs
from .neighbourhood import seed_ids

if TYPE_CHECKING:
    import dask.dataframe as dd

    from dgraph.graph import Graph

UNDECIDED, IN, OUT = 0, 1, 2
NOT_INDEPENDENT = "not independent"


def independent_set_kernel(ctx, *, bounds, seed, nodes):
    blocks = {r: ctx.blocks[r][0] for r in ctx.ranks}
    arcs, state, seen, canonical, clash = {}, {}, {}, {}, {}
    for r in ctx.ranks:
        b = blocks[r]
        first = int(np.searchsorted(b.space, b.lo))
        row, head, row_slot = owned_arcs(b, first)
        state[r] = np.zeros(b.nlocal, np.int8)
        mine = nodes[(nodes >= bounds[r]) & (nodes < bounds[r + 1])] - bounds[r]
        state[r][mine] = IN
        arcs[r] = (row, head, row_slot)
        seen[r] = np.zeros(b.space.size, np.int8)
        canonical[r] = canonical_space(b)
    gather = GhostExchange(ctx, {r: [blocks[r]] for r in ctx.ranks}, bounds)
    ctx.hold("independent set", state, seen)
    gather(state, seen)
    for r in ctx.ranks:  # an asked vertex beside another (itself, with a self-loop)
        row, head, _ = arcs[r]
        clash[r] = [int(((state[r][row] == IN) & (seen[r][head] == IN)).sum())]
        other = arcs[r][2] != head
        arcs[r] = (row[other], head[other], arcs[r][2][other])
    if int(ctx.allreduce(clash)[0]):
        ctx.stats.info.update(problem=NOT_INDEPENDENT)
        return {r: {"in_set": state[r] == IN} for r in ctx.ranks}
    rounds, left = 0, {r: [1] for r in ctx.ranks}
    while int(gather(state, seen, total=left)[0]):
        for r in ctx.ranks:
            row, head, row_slot = arcs[r]
            s = state[r]
            beside = np.zeros(s.size, dtype=bool)
            beside[row[seen[r][head] == IN]] = True
            s[(s == UNDECIDED) & beside] = OUT
            priority = streams.words(seed, rounds, canonical[r])
            open_ = seen[r][head] == UNDECIDED
            lower = np.zeros(s.size, dtype=bool)  # an undecided neighbour drew more
            lower[row[open_ & above(priority, canonical[r], head, row_slot)]] = True
            s[(s == UNDECIDED) & ~lower] = IN
            still = s[row] == UNDECIDED  # the arcs of decided vertices are done
            arcs[r] = (row[still], head[still], row_slot[still])
            left[r] = [int((s == UNDECIDED).sum())]
        rounds += 1
    ctx.stats.info.update(rounds=rounds)
    return {r: {"in_set": state[r] == IN} for r in ctx.ranks}


def maximal_independent_set(
    graph: Graph, nodes: Iterable[Hashable] | None = None, *, seed: int | None = None
) -> dd.DataFrame:
    """A maximal independent set of an undirected graph (Luby's randomized rounds).

    Parameters
    ----------
    graph : dgraph.Graph
        Undirected.
    nodes : iterable of labels, optional
        Vertices the set must contain; a ``DgraphInputError`` if two are neighbours.
    seed : int, optional
        The priorities' seed: one seed gives one set on every layout. None: a fresh one.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``vertex`` and ``in_set`` (bool): no two members are neighbours, and every other
        vertex has a neighbour in the set.

    References
    ----------
    M. Luby, "A simple parallel algorithm for the maximal independent set problem", SIAM J.
    Comput. 15(4), 1986.

    Examples
    --------
    >>> import pandas as pd, dgraph
    >>> e = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3]})
    >>> g = dgraph.from_edgelist(e, directed=False)
    >>> dgraph.algorithms.maximal_independent_set(g, [1], seed=1).compute().in_set.tolist()
    [False, True, False, True]
    """
    if graph.directed:
        raise DgraphInputError("maximal_independent_set needs an undirected graph; build it with directed=False")
    nodes = [] if nodes is None else list(nodes)
    ids = seed_ids(graph, nodes, "node") if nodes else np.empty(0, np.int64)
    frame, stats = graph.runner.run_to_frame(
        independent_set_kernel, name="maximal_independent_set", seed=streams.fresh_seed(seed), nodes=ids
    )
    if stats.info.get("problem") == NOT_INDEPENDENT:
        raise DgraphInputError(
            "the nodes given are not independent: two of them are neighbours (or one has a self-loop)"
        )
    return frame
