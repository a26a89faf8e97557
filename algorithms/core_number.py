"""Core numbers (k-cores) of an undirected graph.

Method: the distributed h-index iteration (Montresor, De Pellegrini, Miorandi, 2013; Lu et
al., 2016): every vertex starts at its degree and repeatedly lowers its value to the h-index of
its neighbours' values, which converges to the core number. Neighbour values reach the ranks
through the gather plan (only the values that changed, once few do), only vertices with a
changed neighbour are recomputed (found through the block's transpose, built once per run), and
whether anything changed rides in the same superstep, so a round is one superstep.

Output encoding: ``core`` (int64), as ``networkx.core_number``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from dgraph import kernels
from dgraph.block import index_type
from dgraph.errors import DgraphInputError
from dgraph.ghosts import GhostExchange
from dgraph.kernels import unique

if TYPE_CHECKING:
    import dask.dataframe as dd

    from dgraph.graph import Graph


def core_kernel(ctx, *, bounds):
    blocks = {r: ctx.blocks[r][0] for r in ctx.ranks}
    gather = GhostExchange(ctx, {r: [blocks[r]] for r in ctx.ranks}, bounds)
    core = {r: blocks[r].degree().astype(np.int64) for r in ctx.ranks}
    # who reads whom: for every vertex of the space, the local rows that have it as a neighbour
    readers = {}
    for r in ctx.ranks:
        b = blocks[r]
        rows = np.repeat(np.arange(b.nlocal, dtype=np.int64), b.degree())
        readers[r] = kernels.build_csr(b.indices, rows, b.space.size, order=False, index_dtype=index_type(b.nlocal))[:2]
    # the values each rank reads, over its space, and what they were when last looked at
    seen = {r: np.zeros(blocks[r].space.size, dtype=np.int64) for r in ctx.ranks}
    before = {r: np.full(blocks[r].space.size, -1, dtype=np.int64) for r in ctx.ranks}
    ctx.hold("core numbers", core, seen, before)
    changed, rounds, diff = {r: [1] for r in ctx.ranks}, 0, None
    while int(gather(core, seen, total=changed, changed=diff)[0]):
        new_diff = {}
        for r in ctx.ranks:
            # the values that changed last round: own ones, and ghosts just written with a new value
            first, size = gather.first[r], core[r].size
            own = np.arange(first, first + size) if diff is None else np.flatnonzero(diff[r]) + first
            written = np.concatenate([own, *gather.written[r]])
            moved = written[seen[r][written] != before[r][written]]
            before[r][moved] = seen[r][moved]
            if 16 * moved.size > seen[r].size:  # many changed: one scan of the block beats the transpose
                mask = np.zeros(seen[r].size, dtype=bool)
                mask[moved] = True
                todo = kernels.rows_touching(blocks[r], mask)
            else:
                ptr, rows = readers[r]
                todo = unique(kernels.frontier_arcs(ptr, rows, None, moved)[1])
            new = kernels.h_index(blocks[r], seen[r], core[r], todo)
            new_diff[r] = new != core[r]
            changed[r] = [int(new_diff[r].sum())]
            core[r] = new
        diff = new_diff
        rounds += 1
    ctx.stats.info.update(rounds=rounds)
    return {r: {"core": core[r]} for r in ctx.ranks}


def core_number(graph: Graph) -> dd.DataFrame:
    """The core number of every vertex: the largest k such that it belongs to the k-core.

    On a directed graph, as networkx defines it: a vertex's degree is its in-degree plus its
    out-degree, and every arc counts as an edge (two opposite arcs as two); the arcs are
    rebuilt once as such an undirected graph (duplicates kept), which the same iteration runs on.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``vertex`` and ``core``.

    Examples
    --------
    >>> import pandas as pd, dgraph
    >>> e = pd.DataFrame({"src": [0, 0, 1, 2], "dst": [1, 2, 2, 3]})
    >>> g = dgraph.from_edgelist(e, directed=False)
    >>> dgraph.algorithms.core_number(g).compute().core.tolist()
    [2, 2, 2, 1]
    """
    if sum(loops for _, loops in graph.store.counts()):  # each rank's, known once per graph
        raise DgraphInputError("core numbers are not defined with self-loops; build the graph with self_loops='drop'")
    if graph.directed:
        graph = _every_arc_an_edge(graph)
    return graph.run_to_frame(core_kernel, name="core_number")


def _every_arc_an_edge(graph: Graph) -> Graph:
    """A directed graph's arcs as the edges of an undirected multigraph, placed as it is."""
    from dgraph.build import from_edgelist

    arcs = graph.edges()[["src", "dst"]]
    vertices = graph.degrees()[["vertex"]]  # every vertex, those without arcs too
    return from_edgelist(
        arcs, directed=False, duplicates="keep", vertices=vertices, layout=graph.layout, client=graph.client
    )


def k_core(graph: Graph, k: int | None = None) -> dd.DataFrame:
    """The vertices of the k-core (default: the largest k with a non-empty core), with their
    core numbers: a dask DataFrame [vertex, core]. Directed graphs as ``core_number``."""
    cores = core_number(graph)
    if k is None:
        largest = graph.client.compute(cores["core"].max()).result()
        k = 0 if pd.isna(largest) else int(largest)  # (no vertices: no core)
    return cores[cores["core"] >= k]
