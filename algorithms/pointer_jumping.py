"""Pointer jumping: the root of every vertex of a forest given by parent pointers.

The graph's arcs are the parent pointers: a vertex's one out-arc points at its parent; a vertex
without an out-arc, or pointing at itself, is a root. Every round replaces each pointer by its
target's pointer (HPCGraph's PJ: values fetched from their owners, two supersteps), so a forest of
depth h takes ceil(log2 h) + 1 rounds. Pointers that form a cycle are an error, not a hang.

Output encoding: ``root``, the label of the vertex's root.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from dgraph.errors import DgraphInputError
from dgraph.ghosts import fetch

if TYPE_CHECKING:
    import dask.dataframe as dd

    from dgraph.graph import Graph


def pointer_jumping_kernel(ctx, *, bounds):
    n = int(bounds[-1])
    parent, orig, extra = {}, {}, {}
    for r in ctx.ranks:
        out = ctx.blocks[r][0]
        deg = out.degree()
        extra[r] = [int((deg > 1).sum())]
        p = np.arange(out.lo, out.hi, dtype=np.int64)
        has = deg == 1
        p[has] = out.space[out.indices[out.indptr[:-1][has]]]
        parent[r], orig[r] = p, p.copy()
    if int(ctx.allreduce(extra)[0]):
        ctx.stats.info.update(problem=TWO_PARENTS)
        return {r: {"root": np.zeros(parent[r].size, np.int64)} for r in ctx.ranks}
    rounds, moved = 0, 1
    while moved and rounds <= math.log2(max(n, 2)) + 2:  # a forest of n vertices is done by then
        grand = fetch(ctx, parent, parent, bounds)
        moved = int(ctx.allreduce({r: [int((grand[r] != parent[r]).sum())] for r in ctx.ranks})[0])
        parent = grand
        rounds += 1
    ctx.stats.info.update(rounds=rounds)
    # settled on itself without being a root: a cycle
    fake = {
        r: [int(((parent[r] == np.arange(bounds[r], bounds[r + 1])) & (orig[r] != parent[r])).sum())] for r in ctx.ranks
    }
    if moved or int(ctx.allreduce(fake)[0]):
        ctx.stats.info.update(problem=CYCLE)
    return {r: {"root": parent[r]} for r in ctx.ranks}


TWO_PARENTS, CYCLE = "two parents", "cycle"


def pointer_jumping(graph: Graph) -> dd.DataFrame:
    """Roots of the forest whose parent pointers are the graph's arcs.

    Parameters
    ----------
    graph : dgraph.Graph
        Directed; every vertex has at most one out-arc (its parent). Roots have none or a
        self-loop.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``vertex`` and ``root``.

    References
    ----------
    G. M. Slota, S. Rajamanickam, K. Madduri et al., HPCGraph (pointer jumping, packet swapping).

    Examples
    --------
    >>> import pandas as pd, dgraph
    >>> e = pd.DataFrame({"src": [2, 3, 4, 6], "dst": [1, 2, 3, 5]})
    >>> g = dgraph.from_edgelist(e, vertices=[1, 2, 3, 4, 5, 6, 7])
    >>> dgraph.algorithms.pointer_jumping(g).compute().root.tolist()
    [1, 1, 1, 1, 5, 5, 7]
    """
    if not graph.directed:
        raise DgraphInputError("pointer_jumping needs a directed graph whose arcs point from child to parent")
    frame, stats = graph.runner.run_to_frame(pointer_jumping_kernel, label_columns=("root",), name="pointer_jumping")
    problem = stats.info.get("problem")
    if problem == TWO_PARENTS:
        raise DgraphInputError("a vertex has more than one out-arc: parent pointers allow one parent per vertex")
    if problem == CYCLE:
        raise DgraphInputError("the parent pointers contain a cycle (other than a self-loop at a root)")
    return frame
