"""Community detection by Louvain, distributed, and the modularity of a partition.

Method: Louvain (Blondel, Guillaume, Lambiotte, Lefebvre, 2008) as distributed Louvain codes
run it (Vite: Ghosh et al., IPDPS 2018; cuGraph's multi-GPU Louvain). A level is a graph whose
vertices are owned in ranges, as dgraph's vertices are. Local moving sweeps every rank's own
vertices in a seeded order (shuffled runs of consecutive rows, ``community_moves.sweep_order``); a vertex
leaves its community and joins the neighbouring community of largest gain
``k_v,C - resolution tot_C k_v / 2m``, reading its neighbours' communities and those
communities' totals as they stood after the last sweep (fetched from their owners) and its own
rank's moves as they happen. A vertex is swept again only once a neighbour has moved (its own
rank's at once, another rank's by the next sweep): the pruning of Ozaki, Tezuka and Inaba
(2016), which Leiden's queue also makes. After a sweep the totals' changes go to the
communities' owners; sweeps (``community_moves``) repeat until at most ``SETTLED`` of the vertices move in one
(``SETTLED_SPREAD`` while the level spans ranks, where each sweep costs an exchange and the
last moves are made on stale facts anyway; at most ``MAX_SWEEPS``). Two vertices on two ranks
may each move towards the other's community on stale facts and swap again next sweep: two
singletons only ever merge into the smaller id, and after ``FREE_SWEEPS`` sweeps a vertex
that moved in the last sweep and has a neighbour on another rank may move in a seeded random
half of the sweeps only, which ends such cycles. The
communities then become the vertices of the next level: each rank sums its arcs as
(community, community, weight) pairs (``kernels.sum_row_pairs``, linear time) and sends them to
the first community's owner, which sums them again; the non-empty communities are numbered in
rank order. A level of at most ``gather`` vertices (the graph itself, if that small) is placed
on rank 0 alone: there every move sees the ones before it, as in sequential Louvain, and the
small levels that end a run cost no exchanges. Levels repeat while modularity rises by more
than ``threshold``, and the last partition that did is the answer, as networkx's
``louvain_communities`` decides. Then the levels run again from the vertices, starting in the
partition found (``iterations``, 2 by default: igraph's ``n_iterations``).

Weights follow networkx's modularity: a loop counts twice in its vertex's degree, and a level's
loop holds the weight inside its community. The result depends on ``seed`` and the rank count
(each rank sweeps its own vertices), never on timing.

Output encoding: ``community`` is a vertex label of the user's, the smallest member of the
community (the graph's vertex order, as components use).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from dgraph import kernels
from dgraph.block import own_canonical
from dgraph.errors import DgraphInputError
from dgraph.ghosts import Fetch, fetch, placed_ids
from dgraph.kernels import unique
from dgraph.owners import by_owner, index_type
from dgraph.pair_components import pair_components, sorted_pairs
from dgraph.weights import GRAPH_WEIGHT, Weight, weighed

from .community_levels import aggregate, first_level, gathered
from .community_moves import move, space_plan, sweep_order, totals

if TYPE_CHECKING:
    import dask.dataframe as dd

    from dgraph.graph import Graph

GATHER = 1 << 17  # a level this small runs on one rank: no stale moves, and little to share
# Leiden's refined parts are dealt to ranks by hash, so a level of many arcs stays spread
# even when its nodes are few: gathered, one rank would sweep them while the rest idle
GATHER_ARCS = 1 << 19


def louvain_kernel(ctx, *, resolution, threshold, max_level, seed, weighted, gather, iterations, bounds, theta=None):
    """Louvain; with ``theta`` (not None) Leiden: each level's communities are refined before
    aggregation, the next level starts from them, and disconnected communities are split.
    Each iteration after the first starts from the partition the last one found."""
    base = {r: first_level(ctx.blocks[r][0], weighted) for r in ctx.ranks}
    lb = np.asarray(bounds, dtype=np.int64)
    two_m = float(ctx.allreduce({r: [base[r].k.sum()] for r in ctx.ranks})[0])
    run = _Run(
        ctx,
        two_m,
        resolution=resolution,
        threshold=threshold,
        max_level=max_level,
        seed=seed,
        gather=gather,
        theta=theta,
    )
    community = {r: np.arange(lb[r], lb[r + 1], dtype=np.int64) for r in ctx.ranks}  # singletons
    singles = {r: lv.space for r, lv in base.items()}  # each slot's community: itself
    run.qs.append(_modularity(ctx, base, community, singles, lb, two_m=two_m, resolution=resolution))
    for iteration in range(iterations):
        kept = len(run.sweeps)
        community = run.levels(base, lb, community, iteration)
        if len(run.sweeps) == kept:
            break
    ctx.stats.info.update(
        modularity=float(run.qs[-1]),
        levels=len(run.sweeps),
        sweeps=run.sweeps,
        level_modularity=run.qs,
        iterations=iteration + 1,
    )
    if theta is not None:
        ctx.stats.info.update(split_communities=run.split)
    canon = {r: own_canonical(ctx.blocks[r][0], int(bounds[r]), int(bounds[r + 1])) for r in ctx.ranks}
    first = _smallest_member(ctx, community, canon, lb)
    return {r: {"community": p} for r, p in placed_ids(ctx, first, bounds).items()}


class _Run:
    """One Louvain or Leiden call's settings and record: each kept level's modularity (the
    singletons' first) and sweeps."""

    def __init__(self, ctx, two_m, *, resolution, threshold, max_level, seed, gather, theta):
        self.ctx, self.two_m, self.resolution, self.threshold = ctx, two_m, resolution, threshold
        self.max_level, self.seed, self.gather, self.theta = max_level, seed, gather, theta
        self.scale = resolution / two_m if two_m > 0 else 0.0
        self.qs, self.sweeps = [], []
        self.split = 0  # Leiden: how many communities the final cut into connected pieces split

    def levels(self, level, lb, community, iteration):
        """Levels from the vertices' partition ``community`` (vertex ids) until modularity stops
        rising (Leiden: until refinement joins nothing either); the last kept partition."""
        ctx, theta, gather = self.ctx, self.theta, self.gather
        node = {r: np.arange(lb[r], lb[r + 1], dtype=np.int64) for r in ctx.ranks}  # own vertices' nodes
        start = community  # each node's community, an id of the level
        if ctx.nranks > 1 and lb[-1] <= gather:  # the vertices themselves become rank 0's nodes, in order
            level, lb, start = gathered(ctx, level, lb, start)
        q, depth, scattered = self.qs[-1], 0, False  # scattered: some community's nodes span ranks
        while self.two_m > 0 and (self.max_level is None or len(self.sweeps) < self.max_level):
            rngs = {r: np.random.default_rng([self.seed, r, iteration, depth]) for r in ctx.ranks}
            own, tot, count = move(ctx, level, lb, self.scale, rngs, start)
            seen = _seen(ctx, level, own, lb)
            new_q = _modularity(ctx, level, own, seen, lb, two_m=self.two_m, resolution=self.resolution, tot=tot)
            raised = new_q - q > self.threshold
            if not raised and theta is None:
                break
            if not raised:  # Leiden keeps the partition, but refinement may still join a community's nodes
                own, seen, tot = start, _seen(ctx, level, start, lb), totals(ctx, level, start, lb)[0]
            parts = (
                own
                if theta is None
                else _refine(ctx, level, own, seen, tot, lb, scale=self.scale, theta=theta, rngs=rngs)
            )
            if not raised and _count_parts(ctx, parts) == lb[-1] and not scattered:
                break  # (scattered communities are brought together by the next aggregation first)
            q = new_q if raised else q
            self.qs.append(q)
            self.sweeps.append(count)
            depth += 1
            dealt = theta is not None  # refined parts are many: their level is worth spreading
            # a level on one rank keeps the next there too; Louvain's gathers once its parts are few
            to_one = ctx.nranks > 1 and (lb[1] == lb[-1] or (not dealt and _count_parts(ctx, parts) <= gather))
            # Leiden's first parts, the most, stay where refinement made them: their sums travel
            # nowhere, and the next level's refinement joins them on each rank before the
            # aggregation after it deals each community's parts to one rank
            kept = dealt and depth == 1 and ctx.nranks > 1 and not to_one
            level, new_lb, new_id, start = aggregate(ctx, level, own, parts, lb, to_one, dealt=dealt, kept=kept)
            node = fetch(ctx, node, new_id, lb)  # each vertex's node at the next level
            lb = new_lb
            scattered = kept and _scattered(ctx, start, lb)
            if dealt and ctx.nranks > 1 and lb[1] < lb[-1] and _small(ctx, level, lb, gather):
                level, lb, start = gathered(ctx, level, lb, start)
                scattered = False
        if theta is not None and depth:
            start = self.connected(level, start, lb)
        return fetch(ctx, node, start, lb)  # the last kept partition, as ids of the last level

    def connected(self, level, start, lb):
        """Leiden's partition ``start`` of the last level with every community cut into its
        connected pieces. That level's nodes are refined parts, each a connected set of vertices,
        and two nodes share an arc exactly when their vertices share an edge: a community is
        connected among the vertices exactly when it is among its nodes, so the small last level
        answers for the graph."""
        start, self.split = _split_disconnected(self.ctx, level, start, lb)
        if self.split:  # cutting a community in pieces only raises modularity
            seen = _seen(self.ctx, level, start, lb)
            self.qs[-1] = _modularity(self.ctx, level, start, seen, lb, two_m=self.two_m, resolution=self.resolution)
        return start


def _scattered(ctx, start, lb):
    """Whether some community's nodes lie on several ranks: then some node's starting
    community, the community's smallest node, is another rank's."""
    away = {r: [np.count_nonzero((s < lb[r]) | (s >= lb[r + 1]))] for r, s in start.items()}
    return bool(ctx.allreduce(away)[0])


def _count_parts(ctx, parts):
    """How many distinct parts there are (each rank's parts are its own ids)."""
    return int(ctx.allreduce({r: [unique(p).size] for r, p in parts.items()})[0])


def _small(ctx, level, lb, gather):
    """Whether a spread level is small enough to run on one rank: at most ``gather`` nodes and
    ``GATHER_ARCS`` arcs (Leiden deals its refined parts over the ranks, so its levels have many
    nodes for a while; on one rank they would be summed and swept while the rest idle)."""
    arcs = ctx.allreduce({r: [int(lv.indptr[-1])] for r, lv in level.items()})[0]
    return int(lb[-1]) <= gather and int(arcs) <= GATHER_ARCS


def _refine(ctx, level, own, seen, tot, lb, *, scale, theta, rngs):
    """Leiden's refinement of the partition ``own``: each own vertex's refined community, an id
    of the level owned by the same rank (refined communities never cross ranks; aggregation
    brings a community's refined pieces together on one rank, so the next level can join them)."""
    ids, ccol = {}, {}
    for r in ctx.ranks:
        ids[r], ccol[r] = kernels.dense_ranks(seen[r], index_type(seen[r].size))
    totals = Fetch(ctx, ids, lb)(tot)
    parts = {}
    for r, lv in level.items():
        rng = rngs[r]
        ref, _ = kernels.refine_communities(
            lv.indptr,
            lv.cols,
            lv.w,
            lv.first,
            lv.k,
            ccol[r],
            totals[r],
            scale,
            sweep_order(rng, lv.n),
            rng.random(lv.n),
            theta,
        )
        parts[r] = lv.lo + ref
    return parts


def _split_disconnected(ctx, level, community, lb):
    """``community`` (each own vertex's community id) with every community cut into its
    connected pieces, each named by its smallest id, and how many communities were cut. Pieces
    inside a rank come from a forest of the arcs within a community (read row by row), joined
    across ranks by the components of the pairs at the cut (``pair_components``)."""
    seen = _seen(ctx, level, community, lb)
    u, v = {}, {}
    for r, lv in level.items():
        local, a, slots = kernels.community_pieces(lv.indptr, lv.cols, lv.first, community[r], seen[r])
        x = np.flatnonzero(local != np.arange(lv.n))
        root = local[x]
        u[r] = np.concatenate([x, root, a]) + lv.lo
        v[r] = np.concatenate([root + lv.lo, x + lv.lo, lv.space[slots]])
    linked = pair_components(ctx, u, v, lb)
    piece = {}
    for r in ctx.ranks:
        piece[r] = np.arange(lb[r], lb[r + 1], dtype=np.int64)
        piece[r][linked[r][0] - lb[r]] = linked[r][1]
    n = int(lb[-1])
    send = {r: by_owner(lb, *sorted_pairs(community[r], piece[r], n)) for r in ctx.ranks}
    cut = {}
    for r, messages in ctx.alltoall(send).items():  # distinct pieces per community, at its owner
        c, p = (np.concatenate([m[i] for _, m in messages] or [np.empty(0, np.int64)]) for i in range(2))
        c, _ = sorted_pairs(c, p, n)
        cut[r] = [int(np.count_nonzero(np.unique(c, return_counts=True)[1] > 1))]
    return piece, int(ctx.allreduce(cut)[0])


def _seen(ctx, level, own, lb):
    """The community of every slot of each rank's vertex space."""
    return space_plan(ctx, level, lb)(own)


def _modularity(ctx, level, own, seen, lb, *, two_m, resolution, tot=None):
    """Modularity of the level's partition ``own`` (each own vertex's community id; ``seen``:
    the community of each slot of the ranks' spaces; ``tot``, if known: each owner's
    communities' total degrees)."""
    if two_m <= 0:
        return 0.0
    inside = {}
    for r, lv in level.items():
        inside[r] = kernels.inside_weight(lv.indptr, lv.cols, lv.w, own[r], seen[r])
    if tot is None:
        tot = totals(ctx, level, own, lb)[0]
    sums = ctx.allreduce({r: [inside[r], float((tot[r] ** 2).sum())] for r in ctx.ranks})
    return float(sums[0] / two_m - resolution * sums[1] / two_m**2)


def _smallest_member(ctx, member, canon, mb):
    """Each own vertex's community named by its smallest member (canonical ids)."""
    big = np.iinfo(np.int64).max
    send = {}
    for r in ctx.ranks:
        ids, inverse = kernels.dense_ranks(member[r])
        least = np.full(ids.size, big, dtype=np.int64)
        np.minimum.at(least, inverse, canon[r])
        cuts = np.searchsorted(ids, mb)
        send[r] = {d: [ids[a:b] - mb[d], least[a:b]] for d, (a, b) in enumerate(zip(cuts[:-1], cuts[1:])) if b > a}
    got = ctx.alltoall(send)
    smallest = {}
    for r in ctx.ranks:
        smallest[r] = np.full(int(mb[r + 1] - mb[r]), big, dtype=np.int64)
        for _, (at, least) in got[r]:
            np.minimum.at(smallest[r], at, least)
    return fetch(ctx, member, smallest, mb)


def louvain(
    graph: Graph,
    *,
    resolution: float = 1.0,
    threshold: float = 1e-7,
    max_level: int | None = None,
    seed: int | None = None,
    weight: Weight = GRAPH_WEIGHT,
    gather: int = GATHER,
    iterations: int = 2,
) -> dd.DataFrame:
    """Communities by distributed Louvain: a partition of high modularity, in levels.

    Parameters
    ----------
    graph : dgraph.Graph
        Undirected.
    resolution : float
        Above 1, smaller communities; below 1, larger (networkx's ``resolution``).
    threshold : float
        A level is kept only if it raises modularity by more than this.
    max_level : int, optional
        At most this many levels, over all the iterations.
    seed : int, optional
        The seed of each rank's sweep order: the same seed and rank count give the same result.
    weight : str or None, optional
        Left out: the graph's weight, if it was built with one. ``None``: every edge counts 1.
        A name: any numeric edge attribute (``g.edge_attrs``), for this call.
    gather : int
        A level of at most this many vertices (the graph itself, if it is that small) is moved
        to one rank, where each move sees the ones before it: on such a graph the result is the
        same on any rank count of a 1D layout (2D and 1.5D deal the vertices in another order).
        0 keeps every level on all the ranks.
    iterations : int
        Run the levels this many times, each from the partition the last found (its moves can
        then cross the last run's community borders; networkit's PLM refines likewise, and
        igraph's Leiden runs twice); stops early when a run keeps no level. 1 is the Louvain
        of Blondel et al.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``vertex`` and ``community`` (the community's smallest member).
        ``graph.last_stats.info`` holds ``modularity``, ``levels``, ``sweeps`` per level,
        ``level_modularity`` (the singletons' first) and ``iterations`` run.

    References
    ----------
    V. D. Blondel, J.-L. Guillaume, R. Lambiotte, E. Lefebvre, J. Stat. Mech. P10008, 2008;
    S. Ghosh et al., "Distributed Louvain algorithm for graph community detection", IPDPS 2018.

    Examples
    --------
    >>> import dgraph
    >>> g = dgraph.datasets.load("karate")
    >>> parts = dgraph.algorithms.louvain(g, seed=1).compute()
    >>> 3 <= parts.community.nunique() <= 5, round(g.last_stats.info["modularity"], 1)
    (True, 0.4)
    """
    if graph.directed:
        raise DgraphInputError("louvain needs an undirected graph: build it with directed=False")
    return _communities(
        graph,
        "louvain",
        resolution=resolution,
        threshold=threshold,
        max_level=max_level,
        seed=seed,
        weight=weight,
        gather=gather,
        iterations=iterations,
    )


def _communities(graph, name, *, resolution, threshold, max_level, seed, weight, gather, iterations=1, theta=None):
    if not resolution > 0:
        raise DgraphInputError(f"resolution must be positive, got {resolution!r}")
    if max_level is not None and int(max_level) < 1:
        raise DgraphInputError(f"max_level must be at least 1, got {max_level!r}")
    if not int(iterations) >= 1:
        raise DgraphInputError(f"iterations must be at least 1, got {iterations!r}")
    if not int(gather) >= 0:
        raise DgraphInputError(f"gather must be zero or a vertex count, got {gather!r}")
    graph, chosen = weighed(graph, weight, name)
    return graph.run_to_frame(
        louvain_kernel,
        label_columns=("community",),
        name=name,
        resolution=float(resolution),
        threshold=float(threshold),
        max_level=None if max_level is None else int(max_level),
        seed=0 if seed is None else int(seed),
        weighted=chosen is not None,
        gather=int(gather),
        iterations=int(iterations),
        theta=theta,
    )


def leiden(
    graph: Graph,
    *,
    resolution: float = 1.0,
    theta: float = 0.01,
    seed: int | None = None,
    weight: Weight = GRAPH_WEIGHT,
    max_level: int | None = None,
    threshold: float = 1e-7,
    gather: int = GATHER,
    iterations: int = 2,
) -> dd.DataFrame:
    """Communities by distributed Leiden: Louvain with a refinement phase, so every community is
    connected.

    Each level moves vertices as ``louvain`` does, then refines every community: its vertices
    start alone and merge, along arcs and inside their rank, into refined communities that are
    well connected to the community (Traag, Waltman, van Eck 2019); the refined communities
    become the next level's vertices, which start in the communities that hold them. On several
    ranks the first level's refined communities stay on the rank that made them, so the largest
    aggregation sends nothing, and the next level's refinement joins them rank by rank; later
    levels bring each community's refined communities to one rank first. Refined
    communities are connected by construction; a community a later move left disconnected is
    cut into its connected pieces at the end of each iteration (which only raises modularity),
    so no community of the result is disconnected.

    Parameters
    ----------
    graph : dgraph.Graph
        Undirected.
    resolution : float
    theta : float
        The refinement's randomness, in the graph's weight units (igraph's ``beta``): a vertex
        joins refined community C with probability proportional to ``exp(gain_C / theta)``;
        0 takes the best gain.
    seed : int, optional
        The same seed and rank count give the same result.
    weight : str or None, optional
        Left out: the graph's weight, if it was built with one. ``None``: every edge counts 1.
        A name: any numeric edge attribute (``g.edge_attrs``), for this call.
    max_level : int, optional
    threshold : float
        A level is kept only if it raises modularity by more than this.
    gather : int
        As in ``louvain``; a later level is gathered once it has at most ``gather`` nodes and
        ``GATHER_ARCS`` arcs (its refined parts are dealt evenly, so spread it costs less).
    iterations : int
        As in ``louvain``.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``vertex`` and ``community`` (the community's smallest member).
        ``graph.last_stats.info`` holds what ``louvain`` puts there, and ``split_communities``:
        how many communities the final cut into connected pieces split.

    References
    ----------
    V. A. Traag, L. Waltman, N. J. van Eck, "From Louvain to Leiden: guaranteeing well-connected
    communities", Scientific Reports 9, 5233 (2019).

    Examples
    --------
    >>> import dgraph
    >>> g = dgraph.datasets.load("karate")
    >>> parts = dgraph.algorithms.leiden(g, seed=1).compute()
    >>> 3 <= parts.community.nunique() <= 5, round(g.last_stats.info["modularity"], 1)
    (True, 0.4)
    """
    if graph.directed:
        raise DgraphInputError("leiden needs an undirected graph: build it with directed=False")
    if not theta >= 0:
        raise DgraphInputError(f"theta must be zero or positive, got {theta!r}")
    return _communities(
        graph,
        "leiden",
        resolution=resolution,
        threshold=threshold,
        max_level=max_level,
        seed=seed,
        weight=weight,
        gather=gather,
        iterations=iterations,
        theta=float(theta),
    )


def modularity_kernel(ctx, *, weighted, resolution, bounds):
    level = {r: first_level(ctx.blocks[r][0], weighted) for r in ctx.ranks}
    own = {r: np.asarray(ctx.blocks[r][-1], dtype=np.int64) for r in ctx.ranks}  # the rank's communities
    two_m = float(ctx.allreduce({r: [level[r].k.sum()] for r in ctx.ranks})[0])
    lb = np.asarray(bounds, dtype=np.int64)
    ctx.stats.info.update(
        modularity=_modularity(ctx, level, own, _seen(ctx, level, own, lb), lb, two_m=two_m, resolution=resolution)
    )
    return {r: {} for r in ctx.ranks}


def modularity(graph: Graph, communities: Any, *, resolution: float = 1.0, weight: Weight = GRAPH_WEIGHT) -> float:
    """The modularity of a partition of an undirected graph's vertices, as networkx's
    ``community.modularity`` computes it.

    Parameters
    ----------
    graph : dgraph.Graph
    communities : DataFrame, dict or iterable of sets
        A frame of ``vertex`` and one community column (``louvain``'s, ``label_propagation``'s
        or ``connected_components``' result, pandas or dask), a dict vertex -> community, or the
        communities as sets of vertices (networkx's form). Every vertex in exactly one.
    resolution : float
    weight : str or None, optional
        Left out: the graph's weight, if it was built with one. ``None``: every edge counts 1.
        A name: any numeric edge attribute (``g.edge_attrs``), for this call.

    Returns
    -------
    float

    Examples
    --------
    >>> import dgraph
    >>> g = dgraph.datasets.load("karate")
    >>> halves = [set(range(1, 18)), set(range(18, 35))]
    >>> round(dgraph.algorithms.modularity(g, halves), 4)
    0.2433
    """
    if graph.directed:
        raise DgraphInputError("modularity needs an undirected graph: build it with directed=False")
    graph, chosen = weighed(graph, weight, "modularity")
    weighted = chosen is not None
    vertices, labels = _partition(communities)
    if len(vertices) != graph.num_vertices or len(set(vertices)) != len(vertices):
        raise DgraphInputError(
            f"communities must name every one of the graph's {graph.num_vertices} vertices exactly once "
            f"(got {len(vertices)} entries, {len(set(vertices))} distinct)"
        )
    ids = np.asarray(graph.encode_vertices(vertices, "community vertex"), dtype=np.int64)
    codes = pd.factorize(pd.Series(labels))[0].astype(np.int64)
    placed = np.empty(graph.num_vertices, dtype=np.int64)
    placed[ids] = codes  # community numbers 0..K-1 < n: owned as vertex ids are
    _, stats = graph.run(
        modularity_kernel, name="modularity", per_vertex=placed, weighted=weighted, resolution=float(resolution)
    )
    return stats.info["modularity"]


def _partition(communities):
    """(vertices, community labels) from any of ``modularity``'s forms."""
    if hasattr(communities, "compute") and hasattr(communities, "columns"):
        communities = communities.compute()
    if isinstance(communities, pd.DataFrame):
        others = [c for c in communities.columns if c != "vertex"]
        if "vertex" not in communities.columns or len(others) != 1:
            raise DgraphInputError("a communities frame needs a 'vertex' column and one community column")
        return communities["vertex"].tolist(), communities[others[0]].tolist()
    if isinstance(communities, dict):
        return list(communities), list(communities.values())
    vertices, labels = [], []
    for i, group in enumerate(communities):
        vertices.extend(group)
        labels.extend([i] * len(group))
    return vertices, labels
