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

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from dgraph.checks import integer
from dgraph.dask_internals import fetch
from dgraph.errors import DgraphInputError
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


def distance_sums_kernel(ctx, *, words, bounds, sources=None):
    n = int(bounds[-1])
    order = np.arange(n) if sources is None else np.asarray(sources, np.int64)  # the searches' sources
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
    for first in range(0, order.size, batch):
        ids = order[first : first + batch]
        width = ids.size
        seen = {r: np.zeros((size[r], words), np.uint64) for r in ctx.ranks}
        for r in ctx.ranks:  # each source's own bit, at its owner
            j = np.flatnonzero((ids >= lo[r]) & (ids < lo[r] + size[r]))
            np.bitwise_or.at(
                seen[r], (ids[j] - lo[r], j // WORD), np.left_shift(np.uint64(1), (j % WORD).astype(np.uint64))
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
            j = np.flatnonzero((ids >= lo[r]) & (ids < lo[r] + size[r]))
            eccentricity[r][ids[j] - lo[r]] = deepest[j]
            reaches[r][ids[j] - lo[r]] = reached_all[j] - 1
    others = {}  # the sources other than each vertex itself
    for r in ctx.ranks:
        others[r] = np.full(size[r], order.size, np.int64)
        others[r][order[(order >= lo[r]) & (order < lo[r] + size[r])] - lo[r]] -= 1
    ctx.stats.info.update(levels=levels, batch=batch)
    return {
        r: {
            "distance_sum": sums[r],
            "reached_from": counts[r],
            "harmonic": harmonic[r],
            "eccentricity": eccentricity[r],
            "reaches": reaches[r],
            "sources": others[r],
        }
        for r in ctx.ranks
    }


def distance_sums(graph: Graph, *, sources: np.ndarray | None = None) -> dd.DataFrame:
    """Every vertex's sums over its hop distances from and to the others (the module's output
    encoding), from a search out of every vertex, or out of ``sources`` (placed ids) only: then
    the sums are over those sources, ``sources`` counts those other than the vertex itself, and
    ``eccentricity`` and ``reaches`` are a source's own (0 elsewhere).

    >>> import dgraph
    >>> g = dgraph.datasets.load("karate")
    >>> found = dgraph.algorithms.distance_measures.distance_sums(g).compute()
    >>> int(found.eccentricity.max()), int(found.eccentricity.min())
    (5, 3)
    """
    n = graph.num_vertices
    arcs = max(graph.num_arcs, n, 1)
    searches = n if sources is None else len(sources)
    words = int(max(1, min(-(-searches // WORD), BATCH_BYTES // (8 * arcs))))
    frame, _ = graph.runner.run_to_frame(
        distance_sums_kernel, reverse=graph.directed, name="distance_sums", words=words, sources=sources
    )
    return frame


def _sample(graph: Graph, k: int | None, seed: int | None) -> np.ndarray | None:
    """``k`` sources drawn uniformly without replacement (by canonical id, so the same on every
    layout), as placed ids in order; None for every vertex."""
    if k is None:
        return None
    n = graph.num_vertices
    k = integer(k, "k", minimum=1, maximum=max(n, 1))
    canonical = np.sort(np.random.default_rng(seed).choice(n, size=int(k), replace=False))
    return np.sort(np.asarray(graph.placed_ids(canonical), np.int64))


def closeness_centrality(
    graph: Graph, *, wf_improved: bool = True, k: int | None = None, seed: int | None = None
) -> dd.DataFrame:
    """Closeness centrality, as networkx's (hop distances *to* each vertex): the number of other
    vertices that reach it over the sum of their distances to it, scaled by the share of the
    graph that reaches it when ``wf_improved`` (Wasserman and Faust); 0 where none reaches it.

    With ``k``, an estimate from ``k`` sources drawn uniformly with ``seed`` (Eppstein and
    Wang): the sums run over the sampled sources other than the vertex, and the share that
    reaches it is the sampled share. Error bound: on a strongly connected graph of diameter D,
    the estimated mean distance to a vertex, (sum over the sample) / (its size), is within
    epsilon D of the true mean with probability at least 1 - 2 exp(-2 k' epsilon^2), k' the
    sampled sources other than the vertex (Hoeffding, for sampling without replacement too):
    k = ln(2 n / delta) / (2 epsilon^2) sources bound every vertex at once with probability
    1 - delta. Closeness is the reciprocal of that mean.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``vertex`` and ``closeness``.

    Notes
    -----
    Exact: a search from every vertex, 64 to a word (see the module); (n / 64 w) x diameter
    supersteps for batches of w words; with ``k``, (k / 64 w) x diameter. Hops only (no weights).

    Examples
    --------
    >>> import dgraph
    >>> g = dgraph.datasets.load("karate")
    >>> cc = dgraph.algorithms.closeness_centrality(g).compute().set_index("vertex")
    >>> round(float(cc.closeness[1]), 4)
    0.569
    """
    n = graph.num_vertices
    found = distance_sums(graph, sources=_sample(graph, k, seed))
    reached = found["reached_from"].astype("float64")
    closeness = (reached / found["distance_sum"].where(found["distance_sum"] > 0)).fillna(0.0)
    if wf_improved:
        if k is None:
            closeness = closeness * (reached / max(n - 1, 1))  # networkx's order of operations, to the last bit
        else:
            closeness = closeness * (reached / found["sources"].where(found["sources"] > 0)).fillna(0.0)
    return found[["vertex"]].assign(closeness=closeness)


def harmonic_centrality(graph: Graph, *, k: int | None = None, seed: int | None = None) -> dd.DataFrame:
    """Harmonic centrality, as networkx's: the sum, over the other vertices that reach a
    vertex, of one over their hop distance to it.

    With ``k``, an estimate from ``k`` sources drawn uniformly with ``seed``: the sum over the
    sampled sources other than the vertex (k' of them), times (n - 1) / k'. Each term lies in
    [0, 1], so the estimate is within epsilon (n - 1) of the true value with probability at
    least 1 - 2 exp(-2 k' epsilon^2) (Hoeffding, for sampling without replacement too).

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
    if k is None:
        return distance_sums(graph)[["vertex", "harmonic"]]
    found = distance_sums(graph, sources=_sample(graph, k, seed))
    scale = (graph.num_vertices - 1) / found["sources"].where(found["sources"] > 0)
    return found[["vertex"]].assign(harmonic=(found["harmonic"] * scale).fillna(0.0))


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


METHODS = ("exact", "ifub")


def _farthest(graph: Graph, source: Any) -> tuple[pd.DataFrame, Any, int]:
    """(a BFS from ``source``: [vertex, distance] of the reached vertices, on the client; the
    farthest vertex, the first in label order among those; its distance)."""
    from .bfs import bfs

    found = fetch(graph.client, bfs(graph, source))
    frame = found[found["distance"].notna()].astype({"distance": np.int64})
    if len(frame) < graph.num_vertices:
        raise DgraphInputError("diameter: the graph is not connected, so its diameter is infinite")
    far = frame[frame["distance"] == frame["distance"].max()].sort_values("vertex", kind="stable")
    return frame, far["vertex"].iloc[0], int(frame["distance"].max())


def _double_sweep(graph: Graph, start: Any) -> tuple[list[pd.DataFrame], Any, int, Any]:
    """A double sweep from ``start``: a search to its farthest vertex a, one from a to its
    farthest b. Returns both searches, b, the length of the path found from a to b (a lower
    bound of the diameter) and the middle of that path along the second search's tree."""
    from_start, a, _ = _farthest(graph, start)
    from_a, b, length = _farthest(graph, a)
    parent = dict(zip(from_a["vertex"].tolist(), from_a["predecessor"].tolist()))
    middle = b
    for _ in range(length - length // 2):
        middle = parent[middle]
    return [from_start, from_a], b, length, middle


def _centre(from_a: pd.DataFrame, from_b: pd.DataFrame, length: int, sweeps: list[pd.DataFrame]) -> Any:
    """Of the middles of the shortest paths from a to b (``length`` apart; their searches), the
    one whose greatest distance from the sweeps' sources (``sweeps``: their searches) is least,
    the first in label order among those. One search tree's path may have its middle far from
    the centre: on a grid, with parents the first in label order, it is an L, its middle a corner."""
    ring = from_a.loc[from_a["distance"] == length // 2, ["vertex"]]
    ring = ring.merge(from_b[["vertex", "distance"]], on="vertex")  # (a merge keeps the ring's order)
    ring = ring.loc[ring["distance"] == length - length // 2, ["vertex"]].reset_index(drop=True)
    worst = np.zeros(len(ring), dtype=np.int64)
    for found in sweeps:
        worst = np.maximum(worst, ring.merge(found[["vertex", "distance"]], on="vertex", how="left")["distance"])
    return ring[worst == worst.min()].sort_values("vertex", kind="stable")["vertex"].iloc[0]


def diameter(graph: Graph, *, method: str = "exact") -> int:
    """The diameter in hops: the greatest eccentricity, of an undirected connected graph.

    Parameters
    ----------
    graph : dgraph.Graph
        Undirected and connected (a ``DgraphInputError`` otherwise).
    method : {"exact", "ifub"}
        ``"exact"``: a search from every vertex (``eccentricity``). ``"ifub"``: Crescenzi et
        al.'s iFUB, also exact: from a central vertex u (a middle of the longest path found by
        a 4-sweep: two double sweeps, the first from the vertex of highest degree, the second
        from the middle of the first's path; of the middles of the shortest paths between its
        ends, the one nearest, at worst, to the sweeps' sources), the vertices are taken by
        level from the deepest up; the eccentricities of a level's vertices (one batched
        multi-source search, 64 to a word) raise the lower bound, and once it exceeds twice the
        level above, no vertex closer to u can do better. On roads and meshes a few levels
        decide it (a 100 x 100 grid: 7 single-source searches).
        ``graph.last_stats.info["searches"]`` says how many single-source searches it took.

    Returns
    -------
    int

    References
    ----------
    P. Crescenzi, R. Grossi, M. Habib, L. Lanzi, A. Marino, "On computing the diameter of
    real-world undirected graphs", Theoretical Computer Science 514, 2013.

    Examples
    --------
    >>> import dgraph
    >>> g = dgraph.datasets.load("karate")
    >>> dgraph.algorithms.diameter(g), dgraph.algorithms.diameter(g, method="ifub")
    (5, 5)
    """
    if method not in METHODS:
        raise DgraphInputError(f"method must be one of {METHODS}, got {method!r}")
    if graph.directed:
        raise DgraphInputError("diameter is for undirected graphs; build the graph with directed=False")
    if graph.num_vertices == 0:
        raise DgraphInputError("diameter of the null graph is not defined")
    n = graph.num_vertices
    if method == "exact":
        found = distance_sums(graph)
        if int(fetch(graph.client, found["reaches"].min())) < n - 1:
            raise DgraphInputError("diameter: the graph is not connected, so its diameter is infinite")
        largest = int(fetch(graph.client, found["eccentricity"].max()))
        _report(graph, n)
        return largest
    degrees = graph.degrees()
    top = int(fetch(graph.client, degrees["degree"].max()))
    hub = fetch(graph.client, degrees[degrees["degree"] == top]["vertex"]).sort_values().iloc[0]
    # the 4-sweep (Crescenzi et al.): a double sweep from the hub, a second from the middle of
    # its path; iFUB starts from a middle of the longer path (the second's on a tie), whose
    # length bounds the diameter from below: with a search from its far end too, the middle
    # of the shortest paths between its ends that is nearest, at worst, to the sweeps' sources
    first, b1, d1, middle = _double_sweep(graph, hub)
    second, b2, d2, _ = _double_sweep(graph, middle)
    from_a, b, lower = (second[1], b2, d2) if d2 >= d1 else (first[1], b1, d1)
    from_b = _farthest(graph, b)[0]
    levels, _, depth = _farthest(graph, _centre(from_a, from_b, lower, [*first, *second, from_b]))
    searches, upper, i = 6, 2 * depth, depth  # the sweeps' five single-source searches, and the centre's
    while upper > lower and i > 0:
        ring = levels.loc[levels["distance"] == i, "vertex"].tolist()
        sources = np.sort(graph.encode_vertices(ring, "vertex"))
        found = distance_sums(graph, sources=sources)
        lower = max(lower, int(fetch(graph.client, found["eccentricity"].max())))
        searches += len(ring)
        if lower > 2 * (i - 1):
            break
        upper, i = 2 * (i - 1), i - 1
    _report(graph, searches)
    return lower


def _report(graph: Graph, searches: int) -> None:
    """How many single-source searches a diameter took, in the stats of its last run."""
    stats = graph.last_stats
    if stats is not None:
        stats.info.update(searches=searches)
