"""Community detection by label propagation, with LDBC Graphalytics CDLP semantics.

Method: synchronous label propagation. Every vertex starts with its own label; in each of
exactly ``max_iter`` rounds every vertex takes the most frequent label among its neighbours in
the previous round, ties to the smallest label, and a vertex without neighbours keeps its label.
In a directed graph in- and out-neighbours are counted separately, so a neighbour linked both
ways counts twice. Labels reach the ranks through the dense gather plan (each rank receives the
labels of the vertices its arcs read), so a round is one superstep.

Output encoding: ``label`` is a vertex label of the user's (initially the vertex itself);
"smallest" is the graph's vertex order: the order of the user's labels (LDBC's rule), or hubs
first for a graph built with ``vertex_order="degree"``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from dgraph import kernels
from dgraph.block import common_space, index_type, own_canonical
from dgraph.checks import integer
from dgraph.ghosts import GhostExchange, placed_ids

if TYPE_CHECKING:
    import dask.dataframe as dd

    from dgraph.graph import Graph


def cdlp_kernel(ctx, *, max_iter, bounds):
    n = int(bounds[-1])
    blocks = {r: common_space(ctx.blocks[r]) for r in ctx.ranks}  # out (and in) in one space
    spaces = {r: blocks[r][0].space for r in ctx.ranks}
    gather = GhostExchange(ctx, blocks, bounds)
    label = index_type(n)  # labels are canonical ids, int32 while they fit: half the bytes held and sent
    own = {r: own_canonical(ctx.blocks[r][0], int(bounds[r]), int(bounds[r + 1])).astype(label) for r in ctx.ranks}
    seen = {r: np.zeros(spaces[r].size, dtype=label) for r in ctx.ranks}  # the labels rank r reads
    counts = {r: kernels.label_counts(spaces[r].size) for r in ctx.ranks}
    ctx.hold("cdlp", own, seen, counts)
    for _ in range(max_iter):
        gather(own, seen)
        for r in ctx.ranks:
            first, size = gather.first[r], own[r].size
            # labels renumbered among the ones rank r reads (in order, so ties still go to the
            # smallest): the counts then need a slot per vertex of its space, not per label
            labels, dense = kernels.dense_ranks(seen[r], label) if size < n else (None, seen[r])
            mine = dense[first : first + size].copy()
            a, b = blocks[r][0], blocks[r][1] if len(blocks[r]) > 1 else None
            kernels.label_mode(a, b, dense, mine, counts[r])
            own[r] = mine if labels is None else labels[mine]
            del labels, dense, mine  # before the next round's labels arrive
    ctx.stats.info.update(iterations=max_iter)
    own = {r: o.astype(np.int64) for r, o in own.items()}
    return {r: {"label": p} for r, p in placed_ids(ctx, own, bounds).items()}


def label_propagation(graph: Graph, *, max_iter: int = 10) -> dd.DataFrame:
    """Communities by synchronous label propagation (LDBC Graphalytics CDLP).

    Parameters
    ----------
    graph : dgraph.Graph
    max_iter : int
        Exactly this many rounds are run (LDBC ``cdlp.max-iterations``); the result is
        deterministic, so it always terminates.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``vertex`` and ``label``.

    Notes
    -----
    One superstep per round moving 4 bytes (8 past 2**31 vertices) per (vertex, rank) pair where
    the rank holds an arc from or to the vertex, and three at the end to name each label's
    vertex without an n-long table. Weights are ignored.

    References
    ----------
    U. N. Raghavan, R. Albert, S. Kumara, Phys. Rev. E 76, 2007; LDBC Graphalytics
    specification, CDLP.

    Examples
    --------
    >>> import pandas as pd, dgraph
    >>> e = pd.DataFrame({"src": [1, 2, 3, 4, 5, 6, 3], "dst": [2, 3, 1, 5, 6, 4, 4]})
    >>> g = dgraph.from_edgelist(e, directed=False)
    >>> r = dgraph.algorithms.label_propagation(g, max_iter=5).compute()
    >>> r.sort_values("vertex").label.tolist()
    [1, 1, 1, 3, 3, 3]
    """
    max_iter = integer(max_iter, "max_iter", minimum=0)
    return graph.run_to_frame(
        cdlp_kernel, label_columns=("label",), reverse=graph.directed, name="cdlp", max_iter=int(max_iter)
    )
