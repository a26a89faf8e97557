"""Betweenness centrality, by Brandes' algorithm: two methods (weighted paths: the first).

``"replicated"`` (chosen when the graph fits a worker several times over): every worker gathers
the whole graph once (one allgather; a rank that holds it all reads its own block) and runs
serial Brandes from its share of the sources (``kernels.brandes``, on as many threads as the
run leaves it); one
reduce-scatter sums the workers' dependencies at the vertices' owners. Sources are
independent, so this is the coarse-grained parallelism of Bader and Madduri (ICPP 2006) and of
cuGraph's batched multi-GPU betweenness: no superstep per level, which on a road network (a
thousand levels per source) is what a level-synchronous pass pays. With weights each source's
search is Dijkstra's (``kernels.brandes_paths``), settled vertices in order, dependencies pulled
back along the arcs whose tail's distance plus weight is the head's.

``"levels"`` (the graph is too big to copy, or fewer sources than workers on a small-world
graph): for every source, a level-synchronous forward pass counts shortest paths (edge_map
pushes each frontier vertex's path count along its out-arcs, merged by sum, skipping heads the
rank knows were reached before; vertices reached for the first time take the sum), then a
backward pass walks the levels from the deepest up, pushing (1 + delta(w)) / sigma(w) along
in-arcs, merged by sum, into the vertices one level closer (TDO-GP's BC, Appendix D). On an
undirected graph in 1D a wide level goes whichever way scans fewer arcs: pushed as above, or
pulled by the vertices it would reach along their own rows (forward: those not reached yet;
backward: the level above), which halves the arcs Kronecker 20 scans from one source. Path
counts are stored scaled by level (divided by the largest count of the level above, reduced
with the frontier's size in the same superstep), so they do not overflow where they exceed
1e308 (a 1000 x 1000 grid has about 1e600 corner-to-corner shortest paths). Scores are
rescaled exactly as networkx does.

Output encoding: ``betweenness`` (float64).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from dgraph import kernels
from dgraph.block import block_arcs
from dgraph.checks import integer
from dgraph.edgemap import EdgeMap, pull_is_cheaper
from dgraph.errors import DgraphInputError
from dgraph.ghosts import sum_at_owners
from dgraph.weights import GRAPH_WEIGHT, Weight, weighed

if TYPE_CHECKING:
    import dask.dataframe as dd

    from dgraph.graph import Graph

METHODS = ("auto", "replicated", "levels")
# "auto" copies the graph when a copy (the gathered arc list, then the CSR built from it: about
# 40 bytes per arc at the peak) takes at most this share of the smallest worker's memory limit
REPLICA_SHARE = 0.25
REPLICA_BYTES_PER_ARC, REPLICA_BYTES_PER_VERTEX = 40, 64
# Average degree from which "auto" runs fewer sources than workers level by level: small-world
# graphs take few levels (Kronecker 20, one source on 2 workers: about half the time of the
# replicated method, where one worker searches alone), a road or mesh a thousand (two supersteps each)
LEVELS_DEGREE = 8
PULL_FRONTIER = 64  # see _Direction
ROUND_ARCS = 50_000_000  # arcs a worker scans between two progress reports (one allreduce)


def brandes_kernel(ctx, *, sources, scales, directed, arcs, bounds, layout):
    forward = EdgeMap(ctx, bounds, block=0, layout=layout)
    backward = EdgeMap(ctx, bounds, block=1 if directed else 0, layout=layout)
    nl = {r: forward.size(r) for r in ctx.ranks}
    lo = {r: forward.lo(r) for r in ctx.ranks}
    bc = {r: np.zeros(nl[r]) for r in ctx.ranks}
    # undirected in 1D, a level may go either way: a vertex's arcs, in its own row, are its in-arcs
    way = _Direction(ctx, forward, arcs) if not directed and forward.local_rows else None
    for s in sources:
        visited = forward.marks()  # heads known to be reached earlier: their counts are final
        level = {r: np.full(nl[r], -1, np.int64) for r in ctx.ranks}
        sigma = {r: np.zeros(nl[r]) for r in ctx.ranks}
        frontier = {r: np.empty(0, np.int64) for r in ctx.ranks}
        for r in ctx.ranks:
            if lo[r] <= s < lo[r] + nl[r]:
                level[r][s - lo[r]], sigma[r][s - lo[r]] = 0, 1.0
                frontier[r] = np.array([s - lo[r]])
        # sigma is stored scaled per level (see the module docstring): largest[d] undoes level d's scale
        levels, depth, largest, sizes, widths, coming = [frontier], 0, [1.0], [], [], 1
        unreached = way and way.start()
        level_arcs = way and [way.arcs(frontier)]  # per level, each rank's arcs of its vertices there
        while True:
            pushed = {r: sigma[r][frontier[r]] for r in ctx.ranks}
            direction = way.choose(coming, level_arcs[-1], unreached) if way else "push"
            # the level's share, largest count and arcs, and how many heads a push reached: the
            # next level's size (bounded above) rides along, so a level that grows at once (a
            # Kronecker graph's hubs reach most vertices) may be pulled; a pull gives its own
            count = lambda r, heads, _: [  # noqa: E731
                frontier[r].size,
                pushed[r].max(initial=0.0),
                heads.size,
                level_arcs[-1][r] if way else 0,
            ]
            merged, (size, top, coming, wide) = forward(
                frontier,
                pushed,
                None,
                "sum",
                total_op="max",
                total=count if direction == "push" else {r: count(r, frontier[r], None) for r in ctx.ranks},
                skip_dst=visited,
                direction=direction,
            )
            forward.mark_seen(visited)
            sizes.append(size)  # (levels[d]'s largest share is sizes[d], of its arcs widths[d])
            widths.append(wide)
            if size == 0:
                break
            depth += 1
            largest.append(top)  # the pushing level's largest stored count
            frontier = {}
            for r in ctx.ranks:
                ids, paths, _ = merged[r]
                new = level[r][ids] == -1
                ids = ids[new]
                level[r][ids], sigma[r][ids] = depth, paths[new] / top
                visited.mark_own(r, ids)
                frontier[r] = ids
            if way:
                level_arcs.append(way.reached(frontier, unreached))
            levels.append(frontier)
        delta = {r: np.zeros(nl[r]) for r in ctx.ranks}
        elsewhere = backward.marks()  # own heads not one level closer: nothing to add there
        for d in range(len(levels) - 1, 0, -1):
            at = levels[d]
            for r in ctx.ranks:
                for space in backward.spaces(r):
                    np.not_equal(level[r], d - 1, out=elsewhere.own(r, space))
            values = {r: (1 + delta[r][at[r]]) / sigma[r][at[r]] for r in ctx.ranks}
            direction = "push"
            if way:  # (a level of a few hubs holds many arcs: weighed as a wide one)
                size, wide = max(sizes[d], sizes[d - 1]), max(widths[d], widths[d - 1])
                direction = way.choose(size, level_arcs[d], level_arcs[d - 1], wide)
            merged, _ = backward(at, values, None, "sum", skip_dst=elsewhere, direction=direction)
            for r in ctx.ranks:
                ids, share, _ = merged[r]
                up = level[r][ids] == d - 1
                delta[r][ids[up]] += sigma[r][ids[up]] * share[up] / largest[d]
        for r in ctx.ranks:
            if lo[r] <= s < lo[r] + nl[r]:
                delta[r][s - lo[r]] = 0.0
            bc[r] += delta[r]
    ctx.stats.info.update(
        sources=len(sources), method="levels", edges_examined=forward.edges_examined + backward.edges_examined
    )
    ids = np.asarray(sources, np.int64)
    return {r: _rescale({"betweenness": bc[r]}, r, bounds, ids, scales) for r in ctx.ranks}


class _Direction:
    """Which way a level's counts go: pushed along the arcs of its vertices, or pulled by the
    vertices they would reach along their own arcs (forward: those not reached yet; backward:
    the level above), whichever costs less (``edgemap.pull_is_cheaper``). Decided only
    for frontiers of at least n / (ranks x ``PULL_FRONTIER``) vertices or, where their arcs are
    known, m / (ranks x ``PULL_FRONTIER``) arcs, so that searches with thin levels (roads,
    meshes) pay no superstep for it. On a small-world graph the middle levels hold the hubs:
    pushing them moves most of the graph's arcs, where the vertices left to reach, or the level
    above, hold few."""

    def __init__(self, ctx, em, arcs):
        self.ctx, self.em = ctx, em
        self.least = em.n / (ctx.nranks * PULL_FRONTIER)
        self.least_arcs = arcs / (ctx.nranks * PULL_FRONTIER)

    def start(self):
        """Per rank, the arcs of its vertices not reached yet: all of them."""
        return {r: self.em.out_arcs(r) for r in self.ctx.ranks}

    def arcs(self, level):
        """Per rank, the arcs of its vertices in ``level``."""
        return {r: self.em.out_arcs(r, level[r]) for r in self.ctx.ranks}

    def reached(self, level, unreached):
        """Take a newly reached ``level``'s arcs off ``unreached``; returns them."""
        arcs = self.arcs(level)
        for r in self.ctx.ranks:
            unreached[r] -= arcs[r]
        return arcs

    def choose(self, size, pushed, pulled, wide=0):
        """ "pull" or "push" for a level (``size``: its largest share on a rank; ``wide``: the
        largest share of its arcs, where known) whose push would scan ``pushed[r]`` arcs on each
        rank r and whose pull ``pulled[r]``."""
        if size < self.least and wide < self.least_arcs:
            return "push"
        if not pull_is_cheaper(self.ctx, pushed, pulled):
            return "push"
        self.ctx.stats.info["pulled_levels"] = self.ctx.stats.info.get("pulled_levels", 0) + 1
        return "pull"


def replicated_kernel(ctx, *, sources, scales, bounds, layout, weighted=False):
    n = int(bounds[-1])
    with ctx.phase("replicate"):
        indptr, indices, weights = whole_graph(ctx, n, layout.owns_rows(), weighted)
    me, workers = ctx.worker
    mine = np.asarray(sources, dtype=np.int64)[me::workers]
    per_round = max(1, ROUND_ARCS // max(indices.size, 1))
    rounds = math.ceil(math.ceil(len(sources) / workers) / per_round)  # the same on every worker
    bc = np.zeros(n)
    for i in range(rounds):
        batch = mine[i * per_round : (i + 1) * per_round]
        with ctx.phase("search"):
            if weighted:
                kernels.brandes_paths(indptr, indices, weights, batch, bc, None)
            else:
                kernels.brandes(indptr, indices, batch, bc)
        ctx.allreduce({r: np.zeros(1) for r in ctx.ranks})  # a superstep per round: progress shows
    ctx.stats.info.update(sources=len(sources), method="replicated", edges_examined=mine.size * indices.size)
    scores = sum_at_owners(ctx, bc, bounds, dense=True)
    ids = np.asarray(sources, np.int64)
    return {r: _rescale({"betweenness": scores[r]}, r, bounds, ids, scales) for r in ctx.ranks}


def whole_graph(ctx, n, owns_rows, weighted=False):
    """Every rank's out-arcs, gathered into one CSR of the whole graph (one allgather), with
    their weights when ``weighted`` (else None). Owner blocks are rows in rank order already:
    their degrees and neighbours only need joining, and the arcs keep the blocks' order."""
    small = np.int32 if n < 2**31 else np.int64  # indices are that already; ids go as that
    if ctx.nranks == 1 and owns_rows and ctx.blocks[ctx.ranks[0]][0].space.size == n:
        block = ctx.blocks[ctx.ranks[0]][0]  # the whole graph, its slots the vertex ids: no copy
        return block.indptr, block.indices, block.weights if weighted else None
    pieces = {}
    for r in ctx.ranks:
        block = ctx.blocks[r][0]
        if owns_rows:
            pieces[r] = [np.diff(block.indptr).astype(small), block.columns().astype(small, copy=False)]
            if weighted:
                pieces[r].append(block.weights)
        else:
            rows, cols, weights = block_arcs(block)
            pieces[r] = [rows.astype(small), cols.astype(small)] + ([weights] if weighted else [])
    gathered = [np.concatenate(part) for part in zip(*ctx.allgather(pieces))]
    first, second, weights = gathered[0], gathered[1], (gathered[2] if weighted else None)
    if owns_rows:
        return np.r_[0, np.cumsum(first, dtype=np.int64)], second, weights
    # int32 ids while they fit: half the bytes the searches stream
    return kernels.build_csr(first, second, n, weights, dedup=False, order=False, index_dtype=small)


def _scales(n, normalized, directed, sampled):
    """(the factor for a sampled source, for any other vertex) that turns raw Brandes sums into
    networkx's betweenness (endpoints excluded), as networkx rescales: by the ordered pairs of
    other vertices when ``normalized``, halved for undirected graphs; from ``sampled`` sources
    an estimate, where a source's own sum counts one source fewer (NaN from a single source)."""
    N = n - 1  # a vertex is never its own path's end
    if N < 2:
        return 1.0, 1.0
    correction = 1 if directed else 2
    if sampled is None:
        scale = 1 / (N * (N - 1)) if normalized else 1 / correction
        return scale, scale
    k = sampled
    if normalized:
        return (1 / ((k - 1) * (N - 1)) if k > 1 else np.nan), 1 / (k * (N - 1))
    return (N / ((k - 1) * correction) if k > 1 else np.nan), N / (k * correction)


def _rescale(res, rank, bounds, sources, scales):
    """Rank ``rank``'s raw sums times the factor of each vertex (a sampled source's or not)."""
    lo, hi = int(bounds[rank]), int(bounds[rank + 1])
    factor = np.full(hi - lo, scales[1])
    mine = sources[(sources >= lo) & (sources < hi)] - lo
    factor[mine] = scales[0]
    return {"betweenness": res["betweenness"] * factor}


def _lightest(block):
    w = block_arcs(block)[2]
    return float(w.min()) if w is not None and w.size else np.inf


def non_negative(graph: Graph, weight: str, algorithm: str) -> None:
    """Refuse a weight column holding a negative (or NaN) weight: Dijkstra's order is wrong there."""
    lowest = min(graph.block_facts(_lightest), default=np.inf)
    if lowest < 0 or np.isnan(lowest):
        raise DgraphInputError(f"{algorithm} needs non-negative weights; column {weight!r} holds {lowest}")


def _replica_fits(graph, info):
    """Whether a copy of the whole graph per worker takes at most REPLICA_SHARE of the smallest
    worker memory limit (the machine's memory where workers have none); ``info``: the workers'
    entries of the scheduler's info."""
    from distributed.system import MEMORY_LIMIT

    limit = min((w.get("memory_limit") or MEMORY_LIMIT for w in info), default=MEMORY_LIMIT)
    need = REPLICA_BYTES_PER_ARC * graph.num_arcs + REPLICA_BYTES_PER_VERTEX * graph.num_vertices
    return need <= REPLICA_SHARE * limit


def _few_sources(graph, k, workers):
    """Whether ``k`` sources would leave some of the ``workers`` of the replicated method idle
    (on one rank, the cores they lend its worker: a source is searched on one thread) on a
    graph whose searches take few levels (average degree at least ``LEVELS_DEGREE``): then
    each source runs level by level, where a wide level is pulled, not pushed."""
    return k < workers and graph.num_arcs >= LEVELS_DEGREE * graph.num_vertices


def betweenness_centrality(
    graph: Graph,
    *,
    sources: Iterable[Hashable] | None = None,
    k: int | None = None,
    normalized: bool = True,
    seed: int | None = None,
    weight: Weight = GRAPH_WEIGHT,
    method: str = "auto",
) -> dd.DataFrame:
    """Betweenness centrality of every vertex (shortest paths by hop count, or by weight).

    Parameters
    ----------
    graph : dgraph.Graph
    sources : list of labels, optional
        Accumulate from these sources only: an estimate of the whole, rescaled as networkx
        rescales a sample of ``k`` sources (endpoints excluded): by (n - 1) / k, and by
        (n - 1) / (k - 1) at a source itself (whose sum lacks its own pairs).
    k : int, optional
        Accumulate from ``k`` sources sampled uniformly (with ``seed``); ignored with ``sources``.
    normalized : bool
        Divide by the ordered pairs of other vertices, (n - 1)(n - 2) from every source, as
        networkx does; otherwise undirected scores are halved (each pair counted once).
    seed : int, optional
    weight : str or None, optional
        Left out: the graph's weight, if it was built with one; ``None``: hop counts (unit
        weights); a name: any numeric edge attribute. Weighted paths are found by Dijkstra's
        algorithm from each source on the replicated graph, and paths of exactly equal length
        count alike, as networkx's ``betweenness_centrality(G, weight=...)`` counts them.
        Weights must be non-negative.
    method : {"auto", "replicated", "levels"}
        ``"replicated"``: every worker copies the whole graph and runs Brandes from its share of
        the sources (one exchange in all); ``"levels"``: level-synchronous passes on the layout
        (two supersteps per level per source, memory of the graph's share only, every worker on
        every source); ``"auto"``: levels for fewer sources than workers on a graph of average
        degree at least 8 (few levels), else replicated when the copy takes at most a quarter
        of a worker's memory limit.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``vertex`` and ``betweenness``. With all sources it equals
        ``networkx.betweenness_centrality``.

    Notes
    -----
    Work is O(m) per source either way; a small graph uses all sources, a big one should pass
    ``k``. Both methods give the same scores (to rounding). Weighted scores run replicated
    only (``method="levels"`` counts hops).

    References
    ----------
    U. Brandes, "A faster algorithm for betweenness centrality", J. Math. Sociology 25, 2001.

    Examples
    --------
    >>> import pandas as pd, dgraph
    >>> g = dgraph.from_edgelist(pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3]}), directed=False)
    >>> dgraph.algorithms.betweenness_centrality(g).compute().betweenness.round(4).tolist()
    [0.0, 0.6667, 0.6667, 0.0]
    """
    if method not in METHODS:
        raise DgraphInputError(f"method must be one of {METHODS}, got {method!r}")
    graph, weight = weighed(graph, weight, "betweenness_centrality")
    if weight is not None:
        non_negative(graph, weight, "betweenness_centrality")
        if method == "levels":
            raise DgraphInputError(
                "betweenness_centrality: method='levels' counts hops; weighted paths run replicated "
                "(method='auto' or 'replicated'), or pass weight=None for hop counts"
            )
        method = "replicated"
    n = graph.num_vertices
    sampled = None
    if sources is not None:
        placed = graph.encode_vertices(list(sources), "betweenness source")
        sampled = len(placed)
    elif k is not None:
        k = integer(k, "k", minimum=1, maximum=n)
        canonical = np.sort(np.random.default_rng(seed).choice(n, size=int(k), replace=False))
        placed = graph.placed_ids(canonical)  # the same vertices whatever the layout
        sampled = int(k)
    else:
        placed = graph.placed_ids(np.arange(n))
    ids = [int(s) for s in placed]
    if method == "auto":
        info = list(graph.client.scheduler_info(n_workers=-1)["workers"].values())
        few = _few_sources(graph, len(ids), len(info))
        method = "levels" if few or not _replica_fits(graph, info) else "replicated"
    kernel: Callable[..., Any]
    args: dict[str, Any]
    if method == "replicated":
        kernel, args = replicated_kernel, {"weighted": weight is not None}
    else:
        kernel, args = brandes_kernel, {"reverse": graph.directed, "directed": graph.directed, "arcs": graph.num_arcs}
    scales = _scales(n, normalized, graph.directed, sampled)
    return graph.run_to_frame(kernel, name="betweenness", placement="layout", sources=ids, scales=scales, **args)
