"""Breadth-first search: hop distance and a BFS-tree predecessor for every vertex.

Method: level-synchronous, direction-optimizing BFS (Beamer, Asanovic, Patterson, SC 2012) on
DistEdgeMap (TDO-GP Algorithm 2: a vertex takes the round number the first time an arc from the
frontier reaches it). Each level is one ``edge_map`` with the ``"first"`` merge: top-down levels
push (vertex, parent) offers to the owners, pre-merged at the sender; bottom-up levels pull,
every unvisited vertex scanning its in-neighbours and stopping at the first in the frontier.
Switching follows Beamer's rule (top-down -> bottom-up when the frontier's out-arcs exceed
1/alpha of the unexplored arcs and the frontier grows, back when it falls below n/beta vertices
and shrinks). The frontier's size and out-degree sum are reduced before a level only when a
switch is possible: a top-down level whose offers (times the largest degree) are too few to
trigger one skips that reduction, and the exact figures ride with the next level (one superstep
per level on high-diameter graphs); a bottom-up level carries none (its frontier's were just
reduced), and the graph's arc count and largest degree come with the call. Arcs into vertices
this worker knows are visited (its own, and every frontier it saw) are skipped (TDO-GP's
filter_dst: ``skip_dst``). A search still going after 16 thin levels on a layout whose ranks
own most arcs' both ends (roads and grids in 1D) finishes by rank-local relaxation
(``dgraph.relax``): rounds then follow partition crossings instead of levels, and equal offers
from smaller tails keep the parent rule. On a single rank the whole search is one call
(``kernels.bfs_levels``, GAP's loop: levels switch direction by the same rule, with no step
between them: on Kronecker 20 the whole search takes a fraction of one pass of the closure,
whose top-down reads every arc).

Output encoding: ``distance`` (Int64, hops from the source, null when unreachable) and
``predecessor`` (the parent in the BFS tree in the user's labels, null for the source and for
unreachable vertices). The parent chosen is the in-neighbour on the previous level with the
smallest canonical id (the graph's vertex order: by label, or hubs first with
``vertex_order="degree"``), whichever direction a level ran in, so results are identical on
every layout and rank count.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from dgraph import kernels
from dgraph.checks import integer
from dgraph.edgemap import EdgeMap
from dgraph.errors import DgraphInputError
from dgraph.relax import BUCKET_ARCS, LOCAL_SHARE, local_share, shortest_paths

if TYPE_CHECKING:
    import dask.dataframe as dd

    from dgraph.graph import Graph

ALPHA, BETA = 15, 18
LOCAL_PULL_SHARE = 0.05  # such a subgraph pulls once 5% of its sources are active
RELAX_AFTER = 16  # levels before a search whose frontier stays thin may finish by local relaxation
METHODS = ("auto", "levels", "relax")


def bfs_kernel(ctx, *, source, depth_limit, sub_iterations, method, share, arcs, max_degree, bounds, layout):
    em = EdgeMap(ctx, bounds, layout=layout)
    n = em.n
    level = {r: np.full(em.size(r), -1, np.int64) for r in ctx.ranks}
    parent = {r: np.full(em.size(r), -1, np.int64) for r in ctx.ranks}
    frontier = {r: np.empty(0, np.int64) for r in ctx.ranks}
    for r in ctx.ranks:
        if em.lo(r) <= source < em.lo(r) + em.size(r):
            level[r][source - em.lo(r)] = 0
            frontier[r] = np.array([source - em.lo(r)])
    visited = em.marks()  # what each rank knows to be visited, over its vertex spaces
    for r in ctx.ranks:
        visited.mark(r, [np.array([source])])
    ctx.hold("bfs level, parent", level, parent)
    if sub_iterations:
        return _by_subgraph(ctx, em, depth_limit, _Search(level, parent, visited), frontier)
    if method == "auto" and _whole(em):  # one rank holds every vertex and arc: one call
        depth, scanned, pulls = kernels.bfs_levels(
            *_csr(em.out_block(0)), *_csr(em.in_block(0)), source, level[0], parent[0], em.own_key(0),
            depth_limit, ALPHA, BETA,
        )  # fmt: skip
        ctx.stats.info.update(levels=depth, edges_examined=scanned, bottom_up_levels=pulls)
        return {0: {"distance": level[0], "predecessor": em.placed(parent[0])}}
    relax = method == "relax"
    stats = lambda r: [frontier[r].size, em.out_arcs(r, frontier[r])]  # noqa: E731
    # the source alone cannot trigger a switch unless its degree might: then its stats are reduced
    mode, depth, explored, prev_nf, modes = "push", 0, 0, 0, []
    skip = max_degree <= (arcs - max_degree) / ALPHA
    while not relax and (depth_limit is None or depth < depth_limit):
        if method == "auto" and depth >= RELAX_AFTER and mode == "push":
            share = local_share(ctx, em, share)
            if share >= LOCAL_SHARE:  # many levels, a thin frontier, ranks own most arcs' both ends
                relax = True
                break
        now = {r: stats(r) for r in ctx.ranks}  # this frontier's stats ride along with the level
        if not skip:
            nf, mf = (int(x) for x in ctx.allreduce(now))
            if nf == 0:
                break
            if mode == "push" and mf > (arcs - explored) / ALPHA and nf >= prev_nf:
                mode = "pull"  # a large, growing frontier: bottom-up checks fewer arcs
            elif mode == "pull" and nf < n / BETA and nf < prev_nf:
                mode = "push"  # a small, shrinking frontier: back to top-down
        depth += 1
        modes.append(mode)
        # a pulled level carries no figures: its frontier's were reduced to choose it, and
        # the next frontier's will be (the reduction is skipped only after a push)
        pushed = mode == "push"
        ride = (lambda r, heads, _: [heads.size, *now[r]]) if pushed else None
        merged, totals = em(frontier, None, None, "first", skip_dst=visited, direction=mode, total=ride)
        if pushed:
            sent, nf, mf = totals
        explored, prev_nf = explored + mf, nf
        frontier = _settle(ctx, em, merged, depth, _Search(level, parent, visited))
        # a pushed level reaching few heads cannot trigger a switch: skip reducing the next
        # frontier's stats (they ride with the next level instead); none reached ends the search
        skip = False
        if pushed:
            bound = int(sent) * max_degree
            skip = bound <= (arcs - explored - bound) / ALPHA
            if sent == 0:
                break
    if relax:
        ctx.stats.info.update(relaxed_from_level=depth)
        depth = _relax_rest(ctx, em, depth_limit, level, parent, frontier)
    ctx.stats.info.update(levels=depth, edges_examined=em.edges_examined, bottom_up_levels=modes.count("pull"))
    return {r: {"distance": level[r], "predecessor": em.placed(parent[r])} for r in ctx.ranks}


def _whole(em):
    """Whether the run is one rank whose blocks are each one CSR over every vertex."""
    whole = lambda b: len(b.parts) == 1 and b.row_ids is None and b.lo == 0 and b.space.size == b.hi == em.n  # noqa: E731
    return em.ctx.nranks == 1 and whole(em.out_block(0)) and whole(em.in_block(0))


def _csr(block):
    return block.indptr, block.indices


def _relax_rest(ctx, em, depth_limit, level, parent, frontier):
    """Finish the search by rank-local relaxation (dgraph.relax) from the current frontier,
    choosing parents by the levels' rule. Returns the deepest level."""
    dist = {r: np.where(level[r] >= 0, level[r], np.inf) for r in ctx.ranks}
    pending = {r: np.zeros(em.size(r), dtype=bool) for r in ctx.ranks}
    for r in ctx.ranks:
        pending[r][frontier[r]] = True
    limit = np.inf if depth_limit is None else float(depth_limit)
    # unit weights: equal offers from smaller tails take over, which keeps the levels' parent rule
    rounds, scanned = shortest_paths(
        ctx, em, dist, parent, pending, BUCKET_ARCS, weighted=False, limit=limit, ties=True
    )
    deepest = 0
    for r in ctx.ranks:
        reached = np.isfinite(dist[r])
        level[r] = np.where(reached, dist[r], -1).astype(np.int64)
        deepest = max(deepest, int(level[r].max(initial=0)))
    em.edges_examined += scanned
    ctx.stats.info.update(relax_rounds=rounds, local_arcs_examined=scanned)
    return int(ctx.allreduce({r: [deepest] for r in ctx.ranks}, "max")[0])


class _Search(NamedTuple):
    """What a search writes as it settles levels: each rank's levels and parents over its
    vertex space, and what each rank knows to be visited (``EdgeMap.marks``)."""

    level: dict
    parent: dict
    visited: Any


def _settle(ctx, em, merged, depth, search):
    """Write back a level's merged offers: heads not yet reached take the level and the offered
    parent, and become known as visited; returns them per rank (the next frontier)."""
    level, parent, visited = search
    em.mark_seen(visited)
    settled = {}
    for r in ctx.ranks:
        space = em.out_block(r).space
        first = int(np.searchsorted(space, em.lo(r)))  # the slot of the rank's first own vertex
        flags = visited.of(r, space)
        settled[r] = kernels.settle_level(merged[r][0], merged[r][2], depth, level[r], parent[r], flags, first)
        if len(em.spaces(r)) > 1:  # the in-block's space too
            visited.mark_own(r, settled[r])
    return settled


def _by_subgraph(ctx, em, depth_limit, search, frontier):
    """Sunway's sub-iteration direction optimization (section 4.2) on a 1.5D layout: each level
    runs the six subgraphs in turn, higher degrees first, each choosing its own direction from
    the latest counts and skipping heads an earlier subgraph of the level already reached."""
    level, visited = search.level, search.visited
    schedule = em.layout.subgraph_schedule()
    classes = em.classes
    own = {r: np.arange(em.lo(r), em.lo(r) + em.size(r)) for r in ctx.ranks}
    size = ctx.allreduce({r: np.bincount(classes[own[r]], minlength=3) for r in ctx.ranks})
    names = [sg.name for sg in schedule]
    arcs = dict(zip(names, ctx.allreduce({r: [p.narcs for p in em.out_block(r).parts] for r in ctx.ranks})))
    readers = {"all": ctx.nranks, "column": em.layout.cols, "none": 0}
    depth, modes = 0, []
    while depth_limit is None or depth < depth_limit:
        fclass = {r: classes[frontier[r] + em.lo(r)] for r in ctx.ranks}
        active = ctx.allreduce({r: np.bincount(fclass[r], minlength=3) for r in ctx.ranks})
        if active.sum() == 0:
            break
        depth += 1
        found = {r: [] for r in ctx.ranks}
        for sg in schedule:
            name, src, dst = sg.name, list(sg.sources), list(sg.heads)
            if active[src].sum() == 0:
                continue
            left = ctx.allreduce({r: np.bincount(classes[own[r][level[r] < 0]], minlength=3) for r in ctx.ranks})
            share = active[src].sum() / max(size[src].sum(), 1)
            if sg.node_local:  # early exit makes pulls cheap where arcs stay on the rank
                pull = share > LOCAL_PULL_SHARE
            else:  # remote arcs: Sunway compares the active share of sources with the unvisited
                # share of heads; pulls stop early, so as in Beamer's rule they get a factor alpha.
                # A pull also ships the sources' bitmap to every reader: not when offers cost less.
                offers = 16 * active[src].sum() * arcs[name] / max(size[src].sum(), 1)
                bitmaps = readers[sg.pull_readers] * size[src].sum() / 8
                pull = share > left[dst].sum() / max(size[dst].sum(), 1) / ALPHA and bitmaps < offers
            mode = "pull" if pull else "push"
            modes.append(f"{name}:{mode}")
            sub = {r: frontier[r][np.isin(fclass[r], src)] for r in ctx.ranks}
            merged, _ = em(sub, None, None, "first", skip_dst=visited, direction=mode, subgraph=name)
            for r, ids in _settle(ctx, em, merged, depth, search).items():
                found[r].append(ids)
        frontier = {r: np.sort(np.concatenate(found[r])) for r in ctx.ranks}
    ctx.stats.info.update(levels=depth, edges_examined=em.edges_examined, sub_iterations=modes)
    return {r: {"distance": level[r], "predecessor": em.placed(search.parent[r])} for r in ctx.ranks}


def bfs(
    graph: Graph,
    source: Hashable,
    *,
    depth_limit: int | None = None,
    sub_iterations: bool = False,
    method: str = "auto",
) -> dd.DataFrame:
    """Breadth-first search from ``source``.

    Parameters
    ----------
    graph : dgraph.Graph
    source : label
        The start vertex, in the graph's own labels.
    depth_limit : int, optional
        Visit only vertices at most this many hops away.
    sub_iterations : bool
        On a 1.5D layout, choose the direction per subgraph within each level (Sunway 4.2).
        Distances are the same; the predecessor is then a valid BFS parent (it passes the Graph
        500 rules) but not necessarily the smallest-label one, since a head reached by an
        earlier subgraph is not offered again.
    method : {"auto", "levels", "relax"}
        ``"levels"``: one superstep per level throughout. ``"relax"``: rank-local relaxation
        from the start (``dgraph.relax``: supersteps follow partition crossings, not levels).
        ``"auto"``: levels, switching to relaxation once a search is 16 levels deep with a thin
        (top-down) frontier, as on road networks and grids, where ranks own both ends of at
        least three quarters of the arcs (1D layouts of graphs numbered with locality; not 2D);
        on a graph held by one rank, the same levels and rule in one kernel call. All three give
        the same answer.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``vertex``, ``distance`` (Int64, null when unreachable) and ``predecessor``
        (parent in the BFS tree, null for the source and unreachable vertices).

    Notes
    -----
    Supersteps per level: one reduction of the frontier's size plus the edge map's (1D: one;
    2D: a gather along the mesh row or column and a reduction to the owners). Bytes moved: 16
    per offered (vertex, parent) pair top-down (less as a bitmap when dense), the frontier as ids
    or a bitmap bottom-up. The run's counters are in ``graph.last_stats``.

    References
    ----------
    S. Beamer, K. Asanovic, D. Patterson, "Direction-optimizing breadth-first search", SC 2012.
    Y. Zhao et al., "TD-Orch ... TDO-GP", Algorithm 2.

    Examples
    --------
    >>> import dgraph
    >>> g = dgraph.datasets.load("karate")
    >>> r = dgraph.algorithms.bfs(g, 1).compute()
    >>> int(r.distance.max())
    3
    """
    if depth_limit is not None:
        depth_limit = integer(depth_limit, "depth_limit", minimum=0)
    if method not in METHODS:
        raise DgraphInputError(f"method must be one of {METHODS}, got {method!r}")
    if sub_iterations and method == "relax":
        raise DgraphInputError("sub_iterations=True runs level by level: use method='auto' or 'levels' with it")
    if sub_iterations and graph.layout.subgraph_schedule() is None:
        raise DgraphInputError(
            f"sub_iterations=True needs a layout with subgraphs (layout='1.5d'), not {graph.layout!r}"
        )
    src = graph.vertex_param(source, "BFS source")
    return graph.run_to_frame(
        bfs_kernel,
        label_columns=("predecessor",),
        nullable=("distance", "predecessor"),
        reverse=True,
        name="bfs",
        placement="layout",
        source=src,
        depth_limit=depth_limit,
        sub_iterations=bool(sub_iterations),
        method=method,
        share=graph.local_share,
        arcs=graph.num_arcs,
        max_degree=graph.max_degree,
    )
