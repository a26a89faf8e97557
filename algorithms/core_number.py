"""Core numbers (k-cores) of an undirected graph.

Method: each rank settles its own vertices, then the ranks exchange what changed, until no
rank changes a value another reads. Every value is an upper bound of its vertex's core number
(own vertices start at their degree, ghosts not yet heard from above any), and settling lowers a
rank's own values to the fixpoint of the h-index operator (Montresor, De Pellegrini, Miorandi,
2013) with the ghosts' values held fixed, in one bucket peel (Batagelj and Zaversnik's,
generalised to bounds and fixed ghosts: ``kernels.peel_cores``). The operator is monotone and
any asynchronous order of its steps from upper bounds converges to the core numbers, so the
answer is exact on every layout; on one rank it is a single O(m) peel. Only
the values that changed travel (the gather plan's sparse form, once few do); after the first
peel a rank settles from the readers of the ghosts that moved (``kernels.settle_cores``: work
follows what changes, at most a peel's), and a rank whose ghosts did not move does nothing.

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

if TYPE_CHECKING:
    import dask.dataframe as dd

    from dgraph.graph import Graph

UNHEARD = np.iinfo(np.int64).max  # a ghost's bound before its owner's first word: no bound


def _ghost_readers(block, first):
    """For each slot of the block's space, the local rows that read it when it is a ghost (once
    per arc; nothing at the own slots): what a ghost's value reaches in the peel."""
    size, n = block.space.size, block.nlocal
    if size == n:  # no ghosts
        return np.zeros(size + 1, dtype=np.int64), np.zeros(0, dtype=index_type(n))
    rows = np.repeat(np.arange(n, dtype=index_type(n)), block.degree())
    ghost = (block.indices < first) | (block.indices >= first + n)
    ptr, readers, _ = kernels.build_csr(block.indices[ghost], rows[ghost], size, order=False, index_dtype=index_type(n))
    return ptr, readers


def core_kernel(ctx, *, bounds):
    blocks = {r: ctx.blocks[r][0] for r in ctx.ranks}
    if ctx.nranks == 1:  # nothing arrives from another rank: one peel from the degrees is all
        (r,) = ctx.ranks
        b = blocks[r]
        core = kernels.peel_cores(b, 0, b.degree().astype(np.int64), *_ghost_readers(b, 0))
        ctx.stats.info.update(rounds=1)
        return {r: {"core": core}}
    gather = GhostExchange(ctx, {r: [blocks[r]] for r in ctx.ranks}, bounds)
    seen, readers, core = {}, {}, {}
    for r in ctx.ranks:
        b, a = blocks[r], gather.first[r]
        seen[r] = np.full(b.space.size, UNHEARD, dtype=np.int64)  # the values the peel reads, over the space
        seen[r][a : a + b.nlocal] = b.degree()
        readers[r] = _ghost_readers(b, a)
        core[r] = seen[r][a : a + b.nlocal].copy()
    before = {r: seen[r].copy() for r in ctx.ranks}  # each ghost's value at the last peel
    ctx.hold("core numbers", seen, before, *({r: readers[r][i] for r in ctx.ranks} for i in (0, 1)))
    moved, diff, rounds = {r: None for r in ctx.ranks}, None, 0
    while True:
        new_diff, sent = {}, {}
        for r in ctx.ranks:
            b, a, m = blocks[r], gather.first[r], moved[r]
            if diff is not None and not m.size:  # its ghosts did not move: it is settled
                new_diff[r] = np.zeros(core[r].size, dtype=bool)
            else:
                if diff is None:
                    new = kernels.peel_cores(b, a, seen[r], *readers[r])
                else:  # only the readers of the ghosts that moved are off their fixpoint
                    rows = kernels.unique(kernels.frontier_arcs(*readers[r], None, m)[1])
                    new = kernels.settle_cores(b, a, seen[r], *readers[r], rows)
                new_diff[r] = new != core[r]
                core[r] = new
            # what others read of this rank and will find changed: all of it the first time
            news = [offsets.size if diff is None else int(new_diff[r][offsets].sum()) for _, offsets in gather.serve[r]]
            sent[r] = [sum(news)]
        total = gather(core, seen, total=sent, changed=None if diff is None else new_diff)
        diff, rounds = new_diff, rounds + 1
        if not int(total[0]):
            break
        for r in ctx.ranks:
            written = np.concatenate([np.empty(0, dtype=np.int64), *gather.written[r]])
            moved[r] = written[seen[r][written] != before[r][written]]
            before[r][moved[r]] = seen[r][moved[r]]
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
