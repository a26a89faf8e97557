"""Measures of every vertex's hop distances to all others: closeness and harmonic centrality,
eccentricity (and from it diameter, radius, centre and periphery), all exact.

Method: breadth-first searches from every vertex, run together 64 to a machine word
(multi-source BFS, Then et al., VLDB 2015): each vertex keeps a bit per source of the batch for
"reached" and "in the frontier"; a level gathers the frontier words of the vertices a rank's
in-arcs read (``ghosts.GhostExchange``) and each vertex ORs its in-neighbours' words, minus what
it has seen. A vertex newly reached at level d by k sources adds d k to its distance sum, k to
its count of sources and k / d to its harmonic sum, all on its owner; the level's OR of every
frontier (one bit per source, reduced with the level's gather) says how far each source's
search still goes, which is its eccentricity. A batch of 64 w sources (w words, sized so the
gathered words of a rank's arcs stay near ``BATCH_BYTES``) costs one superstep per level of its
deepest search, so the whole is about (n / 64 w) x diameter supersteps and O(n m / 64) word
operations: meant for the graphs a networkx user hands over, not for billions of vertices.

Output encoding (``distance_sums``): per vertex, ``distance_sum`` and ``reached_from`` (the other
vertices that reach it, and the sum of their distances to it), ``harmonic`` (the sum of their
reciprocals), ``eccentricity`` (its greatest distance to a vertex it reaches) and ``reaches``
(the other vertices it reaches).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from dgraph.ghosts import GhostExchange

if TYPE_CHECKING:
    import dask.dataframe as dd

    from dgraph.graph import Graph

BATCH_BYTES = 64 << 20  # the gathered frontier words of a rank's arcs in one level
WORD = 64


def _bits(words, count):
    """A word array's first ``count`` bits as booleans (bit j of word w is source 64 w + j)."""
    return np.unpackbits(np.ascontiguousarray(words).view(np.uint8), bitorder="little")[:count].astype(bool)


def _pull(block, frontier):
    """Each row's OR of its in-neighbours' frontier words (zero for a row without arcs)."""
    out = np.zeros((block.nlocal, frontier.shape[1]), np.uint64)
    rows = np.flatnonzero(np.diff(block.indptr))
    if rows.size:
        out[rows] = np.bitwise_or.reduceat(frontier[block.indices], block.indptr[rows], axis=0)
    return out


def distance_sums_kernel(ctx, *, words, bounds):
    n = int(bounds[-1])
    batch = words * WORD
    blocks = {r: ctx.blocks[r][-1] for r in ctx.ranks}  # in-arcs: a vertex pulls its in-neighbours' frontiers
    exchange = GhostExchange(ctx, {r: [b] for r, b in blocks.items()}, bounds)
    lo = {r: int(bounds[r]) for r in ctx.ranks}
    size = {r: int(bounds[r + 1]) - lo[r] for r in ctx.ranks}
    sums = {r: np.zeros(size[r]) for r in ctx.ranks}
    counts = {r: np.zeros(size[r], np.int64) for r in ctx.ranks}
    harmonic = {r: np.zeros(size[r]) for r in ctx.ranks}
    eccentricity = {r: np.zeros(size[r], np.int64) for r in ctx.ranks}
    reaches = {r: np.zeros(size[r], np.int64) for r in ctx.ranks}
    read = {r: np.zeros((b.space.size, words), np.uint64) for r, b in blocks.items()}
    ctx.hold("distance sums", sums, counts, harmonic, eccentricity, reaches, read)
    levels = 0
    for first in range(0, n, batch):
        width = min(batch, n - first)
        seen = {r: np.zeros((size[r], words), np.uint64) for r in ctx.ranks}
        for r in ctx.ranks:  # each source's own bit, at its owner
            mine = np.arange(max(first, lo[r]), min(first + width, lo[r] + size[r]))
            j = mine - first
            np.bitwise_or.at(
                seen[r], (mine - lo[r], j // WORD), np.left_shift(np.uint64(1), (j % WORD).astype(np.uint64))
            )
        frontier = {r: s.copy() for r, s in seen.items()}
        deepest = np.zeros(width, np.int64)
        level = 0
        while True:
            active = {r: _bits(np.bitwise_or.reduce(frontier[r], axis=0), width) for r in ctx.ranks}
            going = exchange(frontier, read, total=active, op="any")
            if not going.any():
                break
            deepest[going] = level
            level += 1
            for r in ctx.ranks:
                new = _pull(blocks[r], read[r]) & ~seen[r]
                seen[r] |= new
                frontier[r] = new
                k = np.bitwise_count(new).sum(axis=1, dtype=np.int64)
                sums[r] += level * k
                counts[r] += k
                harmonic[r] += k / level
        levels += level
        reached = {
            r: np.unpackbits(seen[r].view(np.uint8), axis=1, bitorder="little")[:, :width].sum(axis=0, dtype=np.int64)
            for r in ctx.ranks
        }
        reached_all = ctx.allreduce(reached)
        for r in ctx.ranks:
            mine = slice(max(first, lo[r]) - first, min(first + width, lo[r] + size[r]) - first)
            at = slice(max(first, lo[r]) - lo[r], min(first + width, lo[r] + size[r]) - lo[r])
            eccentricity[r][at] = deepest[mine]
            reaches[r][at] = reached_all[mine] - 1
    ctx.stats.info.update(levels=levels, batch=batch)
    return {
        r: {
            "distance_sum": sums[r],
            "reached_from": counts[r],
            "harmonic": harmonic[r],
            "eccentricity": eccentricity[r],
            "reaches": reaches[r],
        }
        for r in ctx.ranks
    }


def distance_sums(graph: Graph) -> dd.DataFrame:
    """Every vertex's sums over its hop distances from and to the others (the module's output
    encoding), from a search out of every vertex.

    >>> import dgraph
    >>> g = dgraph.datasets.load("karate")
    >>> found = dgraph.algorithms.distance_measures.distance_sums(g).compute()
    >>> int(found.eccentricity.max()), int(found.eccentricity.min())
    (5, 3)
    """
    n = graph.num_vertices
    arcs = max(graph.num_arcs, n, 1)
    words = int(max(1, min(-(-n // WORD), BATCH_BYTES // (8 * arcs))))
    frame, _ = graph.runner.run_to_frame(
        distance_sums_kernel, reverse=graph.directed, name="distance_sums", words=words
    )
    return frame


def closeness_centrality(graph: Graph, *, wf_improved: bool = True) -> dd.DataFrame:
    """Closeness centrality, as networkx's (hop distances *to* each vertex): the number of other
    vertices that reach it over the sum of their distances to it, scaled by the share of the
    graph that reaches it when ``wf_improved`` (Wasserman and Faust); 0 where none reaches it.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``vertex`` and ``closeness``.

    Notes
    -----
    Exact: a search from every vertex, 64 to a word (see the module); (n / 64 w) x diameter
    supersteps for batches of w words. Hops only (no weights).

    Examples
    --------
    >>> import dgraph
    >>> g = dgraph.datasets.load("karate")
    >>> cc = dgraph.algorithms.closeness_centrality(g).compute().set_index("vertex")
    >>> round(float(cc.closeness[1]), 4)
    0.569
    """
    n = graph.num_vertices
    found = distance_sums(graph)
    k = found["reached_from"].astype("float64")
    closeness = (k / found["distance_sum"].where(found["distance_sum"] > 0)).fillna(0.0)
    if wf_improved:
        closeness = closeness * (k / max(n - 1, 1))  # networkx's order of operations, to the last bit
    return found[["vertex"]].assign(closeness=closeness)


def harmonic_centrality(graph: Graph) -> dd.DataFrame:
    """Harmonic centrality, as networkx's: the sum, over the other vertices that reach a
    vertex, of one over their hop distance to it.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``vertex`` and ``harmonic``.

    Examples
    --------
    >>> import dgraph
    >>> g = dgraph.datasets.load("karate")
    >>> hc = dgraph.algorithms.harmonic_centrality(g).compute().set_index("vertex")
    >>> round(float(hc.harmonic[34]), 2)
    23.25
    """
    return distance_sums(graph)[["vertex", "harmonic"]]


def eccentricity(graph: Graph) -> dd.DataFrame:
    """Each vertex's eccentricity: its greatest hop distance to another vertex; null where it
    does not reach every vertex (the distance to those is infinite).

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``vertex`` and ``eccentricity`` (Int64). The diameter is its maximum, the radius
        its minimum.

    Examples
    --------
    >>> import dgraph
    >>> g = dgraph.datasets.load("karate")
    >>> ecc = dgraph.algorithms.eccentricity(g).compute()
    >>> int(ecc.eccentricity.max()), int(ecc.eccentricity.min())
    (5, 3)
    """
    n = graph.num_vertices
    found = distance_sums(graph)
    whole = found["eccentricity"].astype("Int64").where(found["reaches"] == n - 1)
    return found[["vertex"]].assign(eccentricity=whole)
