"""Maximum weight matching, the locally dominant 1/2-approximation (HPCGraph MWM).

Method: rounds of mutual proposals. Every unmatched vertex points at its neighbour on the
heaviest arc to an unmatched vertex (arcs totally ordered by weight, then by their endpoints'
ids, so both ends rank an arc alike); two vertices pointing at each other match. The heaviest
free arc is always mutual, so every round matches at least one pair; the result is the greedy
matching in decreasing arc order, whose weight is at least half the optimum. A round is two
supersteps of the dense gather plan (matched flags, then pointers).

Output encoding: ``mate`` (the label of the matched neighbour, null when unmatched).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import numpy as np

from dgraph import kernels
from dgraph.errors import DgraphInputError
from dgraph.ghosts import GhostExchange
from dgraph.weights import GRAPH_WEIGHT, Weight, weighed

if TYPE_CHECKING:
    import dask.dataframe as dd

    from dgraph.graph import Graph


def matching_kernel(ctx, *, weighted, bounds):
    blocks, spaces, keys = {}, {}, {}
    for r in ctx.ranks:
        b = ctx.blocks[r][0]
        first = int(np.searchsorted(b.space, b.lo))
        blocks[r] = dataclasses.replace(b, lo=first, hi=first + b.nlocal)  # rows and heads as slots
        spaces[r], keys[r] = b.space, np.empty(0, np.int64) if b.space_key is None else b.space_key
    gather = GhostExchange(ctx, {r: [blocks[r]] for r in ctx.ranks}, bounds)
    mate = {r: np.full(blocks[r].nlocal, -1, np.int64) for r in ctx.ranks}
    matched = {r: np.zeros(spaces[r].size, dtype=bool) for r in ctx.ranks}
    pointer = {r: np.full(spaces[r].size, -1, dtype=np.int64) for r in ctx.ranks}
    ctx.hold("matching", mate, matched, pointer)
    rounds = 0
    while True:
        gather({r: mate[r] >= 0 for r in ctx.ranks}, matched)
        # slots compare as placed ids do (a space is sorted), so both ends rank an arc alike
        slot = {r: kernels.heaviest_free_neighbour(blocks[r], matched[r], keys[r], weighted) for r in ctx.ranks}
        best = {r: np.where(slot[r] >= 0, spaces[r][slot[r]], -1) for r in ctx.ranks}
        proposals = gather(best, pointer, total={r: [int((best[r] >= 0).sum())] for r in ctx.ranks})
        if int(proposals[0]) == 0:
            break
        rounds += 1
        for r in ctx.ranks:
            lo = int(bounds[r])
            mine = np.flatnonzero(best[r] >= 0)
            mutual = mine[pointer[r][slot[r][mine]] == mine + lo]
            mate[r][mutual] = best[r][mutual]
    ctx.stats.info.update(rounds=rounds)
    return {r: {"mate": mate[r]} for r in ctx.ranks}


def max_weight_matching(graph: Graph, *, weight: Weight = GRAPH_WEIGHT) -> dd.DataFrame:
    """A matching of at least half the maximum weight (locally dominant, deterministic).

    Parameters
    ----------
    graph : dgraph.Graph
        Undirected.
    weight : str or None, optional
        Left out: the graph's weight, if it was built with one. ``None``: every edge weighs 1
        (a maximal matching). A name: any numeric edge attribute (``g.edge_attrs``), for this call.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``vertex`` and ``mate`` (null when unmatched).

    References
    ----------
    F. Manne, R. H. Bisseling, "A parallel approximation algorithm for the weighted maximum
    matching problem", PPAM 2007; HPCGraph-GPU (MWM).

    Examples
    --------
    >>> import pandas as pd, dgraph
    >>> e = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3], "w": [1.0, 5.0, 1.0]})
    >>> g = dgraph.from_edgelist(e, weight="w", directed=False)
    >>> dgraph.algorithms.max_weight_matching(g).compute().mate.tolist()
    [<NA>, 2, 1, <NA>]
    """
    if graph.directed:
        raise DgraphInputError("max_weight_matching needs an undirected graph; build it with directed=False")
    graph, weight = weighed(graph, weight, "max_weight_matching")
    return graph.run_to_frame(
        matching_kernel, label_columns=("mate",), nullable=("mate",), name="matching", weighted=weight is not None
    )
