"""Shortest paths themselves, from many sources at once, to chosen targets or to every vertex.

Method: one batched search per group of sources. Every rank keeps, for the vertices it owns,
a distance per source of the group; a round offers ``distance + weight`` along every arc of the
(vertex, source) pairs that improved in the last round (Bellman-Ford with a frontier: on unit
weights each round is one BFS level). Offers are reduced per (head, source) before they travel.
Predecessors are then chosen in one more pass as ``sssp`` chooses them: the strictly closer
tail first in the graph's vertex order, and along zero-weight ties breadth first, so the trees
are the ones ``sssp`` and ``bfs`` build. Paths are then read backwards: a query starts at its
target's owner and walks the predecessors, moving to another rank only when the next vertex is
owned there (one superstep per move), and the vertices it met travel to its target's owner
once at the end.

Memory per rank: about 17 bytes per owned vertex per source of a group; groups are sized to keep
that under ``GROUP_BYTES``.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from dgraph import kernels
from dgraph.block import keyed_ids, keyed_run
from dgraph.errors import DgraphInputError
from dgraph.kernels import unique
from dgraph.owners import by_owner, placed_of
from dgraph.weights import GRAPH_WEIGHT, Weight, weighed

from .neighbourhood import seed_ids
from .sssp import _weight_facts

if TYPE_CHECKING:
    import dask.dataframe as dd

    from dgraph.graph import Graph

GROUP_BYTES = 256 << 20  # per rank, for one group's distances, predecessors and frontier
LAST = np.iinfo(np.int64).max


def _best(head, src, d, pred):
    """One offer per (head, source): the smallest distance, then the predecessor first in the
    vertex order (keyed ids, ``owners.keyed``; -1, none, last); sorted by head."""
    order = np.lexsort((np.where(pred < 0, LAST, pred), d, src, head))
    head, src, d, pred = head[order], src[order], d[order], pred[order]
    first = np.ones(head.size, dtype=bool)
    first[1:] = (head[1:] != head[:-1]) | (src[1:] != src[:-1])
    return head[first], src[first], d[first], pred[first]


def _offers(blk, lo, dist, frontier, weighted, strict=False):
    """(head, source, distance, tail) along the arcs of the pairs in ``frontier``; with
    ``strict`` only those whose tail is strictly closer than the distance offered."""
    rows, src = np.nonzero(frontier)
    at, slots, cost = kernels.frontier_arcs(blk.indptr, blk.indices, blk.weights if weighted else None, rows)
    near = dist[rows, src][at]
    tails = keyed_ids(blk, int(np.searchsorted(blk.space, lo)) + rows[at])  # own rows: a run of slots
    offers = blk.space[slots].astype(np.int64), src[at], near + cost, tails
    if strict:  # a zero weight, or one the sum absorbs, ties the tail with its head
        keep = near < offers[2]
        offers = tuple(x[keep] for x in offers)
    return offers


def _exchange(ctx, offers, bounds):
    """Each rank's offers, the best per (head, source), at the heads' owners: (owned row,
    source, distance, tail), again the best per pair."""
    send = {}
    for r in ctx.ranks:
        head, src, d, tail = _best(*offers[r])
        cuts = np.searchsorted(head, bounds)
        spans = enumerate(zip(cuts[:-1], cuts[1:]))
        send[r] = {o: [head[a:b] - bounds[o], src[a:b], d[a:b], tail[a:b]] for o, (a, b) in spans if b > a}
    got = {}
    for r, messages in ctx.alltoall(send).items():
        cols = [np.concatenate([m[i] for _, m in messages]) if messages else np.empty(0) for i in range(4)]
        got[r] = _best(*(c.astype(t) for c, t in zip(cols, (np.int64, np.int64, np.float64, np.int64))))
    return got


def _sources(batch, lo, hi):
    """(row, column) of the group's sources that a rank owning ``lo..hi-1`` holds."""
    mine = np.flatnonzero((batch >= lo) & (batch < hi))
    return batch[mine] - lo, mine


def _search(ctx, batch, weighted, bounds):
    """The group's distances at every rank (owned vertices x sources), and the rounds run."""
    dist, frontier = {}, {}
    for r in ctx.ranks:
        lo, hi = int(bounds[r]), int(bounds[r + 1])
        dist[r] = np.full((hi - lo, batch.size), np.inf)
        frontier[r] = np.zeros((hi - lo, batch.size), dtype=bool)
        sources = _sources(batch, lo, hi)
        dist[r][sources] = 0.0
        frontier[r][sources] = True
    ctx.hold("shortest path distances of a group", dist, frontier)
    rounds = 0
    while ctx.allreduce({r: [int(frontier[r].sum())] for r in ctx.ranks})[0]:
        rounds += 1
        offers = {r: _offers(ctx.blocks[r][0], int(bounds[r]), dist[r], frontier[r], weighted) for r in ctx.ranks}
        for r, (at, src, d, _) in _exchange(ctx, offers, bounds).items():
            closer = d < dist[r][at, src]
            dist[r][at[closer], src[closer]] = d[closer]
            frontier[r][:] = False
            frontier[r][at[closer], src[closer]] = True
    return dist, rounds


def _tree(ctx, dist, batch, weighted, bounds):
    """Each reached pair's predecessor, as ``relax.shortest_path_tree`` picks it: the tail first
    in the vertex order among the strictly closer tails that give its distance; pairs reached
    only along zero-weight ties at their own distance take theirs by a breadth-first pass over
    those ties, so every tree is a tree."""
    pred, unset, frontier = {}, {}, {}
    for r in ctx.ranks:
        pred[r] = np.full(dist[r].shape, -1, dtype=np.int64)
        frontier[r] = np.isfinite(dist[r])
        unset[r] = frontier[r].copy()
        unset[r][_sources(batch, int(bounds[r]), int(bounds[r + 1]))] = False
    strict, before = True, None
    while True:
        offers = {
            r: _offers(ctx.blocks[r][0], int(bounds[r]), dist[r], frontier[r], weighted, strict) for r in ctx.ranks
        }
        for r, (at, src, d, tail) in _exchange(ctx, offers, bounds).items():
            ok = unset[r][at, src] & (d == dist[r][at, src])
            pred[r][at[ok], src[ok]] = tail[ok]
            unset[r][at[ok], src[ok]] = False
            if strict:  # the ties spread from every pair already set
                frontier[r] = np.isfinite(dist[r]) & ~unset[r]
            else:
                frontier[r] = np.zeros(dist[r].shape, dtype=bool)
                frontier[r][at[ok], src[ok]] = True
        strict = False
        left = ctx.allreduce({r: [int(unset[r].sum())] for r in ctx.ranks})[0]
        if not left:
            return {r: placed_of(p) for r, p in pred.items()} if keyed_run(ctx) else pred
        if left == before:
            raise RuntimeError(f"{left} pairs have a distance but no tail reaching it: a search bug")
        before = left


def _walk(ctx, start, pred, bounds):
    """Walk every query's predecessors: ``start[r]`` = (query, source column, target) of the
    queries whose target rank r owns. Returns, at each rank, (query, step, vertex) of the
    vertices its queries met, and the most moves between ranks any query made."""
    met = {r: [] for r in ctx.ranks}
    tokens = {r: (np.full(start[r][0].size, r), *start[r], np.zeros(start[r][0].size, np.int64)) for r in ctx.ranks}
    moves = 0
    while True:
        send = {}
        for r in ctx.ranks:
            home, query, col, cur, step = tokens[r]
            lo, hi = int(bounds[r]), int(bounds[r + 1])
            leaving = []
            while cur.size:  # follow predecessors while they stay on this rank
                met[r].append((home, query, step, cur))
                p = pred[r][cur - lo, col]
                go = p >= 0
                home, query, col, cur, step = home[go], query[go], col[go], p[go], step[go] + 1
                here = (cur >= lo) & (cur < hi)
                leaving.append((home[~here], query[~here], col[~here], cur[~here], step[~here]))
                home, query, col, cur, step = home[here], query[here], col[here], cur[here], step[here]
            home, query, col, cur, step = (
                (np.concatenate(c) for c in zip(*leaving)) if leaving else [np.empty(0, np.int64)] * 5
            )
            send[r] = by_owner(bounds, cur, home, query, col, step)
        if not ctx.allreduce({r: [sum(m[0].size for m in send[r].values())] for r in ctx.ranks})[0]:
            break
        moves += 1
        for r, messages in ctx.alltoall(send).items():
            cur, home, query, col, step = (
                np.concatenate([m[i] for _, m in messages]).astype(np.int64) if messages else np.empty(0, np.int64)
                for i in range(5)
            )
            tokens[r] = home, query, col, cur, step
    send = {}
    for r in ctx.ranks:  # the vertices met, to their query's home
        home, query, step, vertex = (np.concatenate(c) for c in zip(*met[r])) if met[r] else [np.empty(0, np.int64)] * 4
        send[r] = {h: [query[home == h], step[home == h], vertex[home == h]] for h in np.unique(home).tolist()}
    got = ctx.alltoall(send)
    return {
        r: tuple(np.concatenate([m[i] for _, m in got[r]]) if got[r] else np.empty(0, np.int64) for i in range(3))
        for r in ctx.ranks
    }, moves


def paths_kernel(ctx, *, sources, targets, group, weighted, bounds):
    rows = {r: [] for r in ctx.ranks}
    rounds = moves = 0
    for g0 in range(0, sources.size, group):
        batch = sources[g0 : g0 + group]
        dist, searched = _search(ctx, batch, weighted, bounds)
        pred = _tree(ctx, dist, batch, weighted, bounds)
        rounds += searched
        start, asked = {}, {}
        for r in ctx.ranks:
            lo, hi = int(bounds[r]), int(bounds[r + 1])
            if targets is None:  # every vertex each source reached
                vertex, col = np.nonzero(np.isfinite(dist[r]))
                vertex = vertex + lo
            else:
                mine = targets[(targets >= lo) & (targets < hi)]
                vertex, col = np.repeat(mine, batch.size), np.tile(np.arange(batch.size), mine.size)
            asked[r] = (col, vertex, dist[r][vertex - lo, col])
            reached = np.isfinite(asked[r][2])
            start[r] = (np.flatnonzero(reached), col[reached], vertex[reached])
        met, walked = _walk(ctx, start, pred, bounds)
        moves = max(moves, walked)
        for r in ctx.ranks:
            col, vertex, d = asked[r]
            query, step, on_path = met[r]
            order = np.lexsort((-step, query))  # each query's vertices, source first
            query, on_path = query[order], on_path[order]
            starts = np.searchsorted(query, np.arange(col.size))
            lengths = np.where(np.isfinite(d), np.bincount(query, minlength=col.size), -1)
            rows[r].append((batch[col], vertex, d, on_path, starts, lengths))
    ctx.stats.info.update(rounds=rounds, walk_supersteps=moves)
    out = {}
    for r in ctx.ranks:
        source, target, d, flat, _, lengths = (np.concatenate([x[i] for x in rows[r]]) for i in range(6))
        base = np.cumsum([0] + [x[3].size for x in rows[r]])[:-1]
        starts = np.concatenate([x[4] + b for x, b in zip(rows[r], base)])
        out[r] = {
            "source": source,
            "target": target,
            "distance": d if weighted else np.where(np.isfinite(d), d, -1).astype(np.int64),
            "path": (flat, starts, lengths),
        }
    return out


def shortest_paths(
    graph: Graph,
    sources: Hashable | Iterable[Hashable],
    targets: Hashable | Iterable[Hashable] | None = None,
    *,
    weight: Weight = GRAPH_WEIGHT,
) -> dd.DataFrame:
    """Shortest paths from each source to each target (or to every vertex it reaches), with
    their lengths, all sources in one run.

    Parameters
    ----------
    graph : dgraph.Graph
    sources : label or iterable of labels
        Repeats count once.
    targets : label or iterable of labels, optional
        Every (source, target) pair gets a row; None: every vertex each source reaches.
    weight : str or None, optional
        Left out: the graph's weight, if it was built with one (non-negative weights).
        ``None``: hops. A name: any numeric edge attribute (``g.edge_attrs``), for this call.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``source``, ``target``, ``distance`` (Int64 hops, or Float64 with weights;
        null when the target is unreachable) and ``path``: the labels from source to target as
        a Python list (None when unreachable). Among paths of equal length, each vertex's
        predecessor is the one first in the graph's vertex order, as in ``bfs`` and ``sssp``.
        ``graph.last_stats.info`` holds the search's ``rounds`` and ``walk_supersteps``.

    Examples
    --------
    >>> import dgraph
    >>> g = dgraph.datasets.load("karate")
    >>> found = dgraph.algorithms.shortest_paths(g, [1, 34], targets=[16, 12]).compute()
    >>> found = found.sort_values(["source", "target"])
    >>> list(zip(found.source.tolist(), found.target.tolist(), found.path.tolist()))
    [(1, 12, [1, 12]), (1, 16, [1, 3, 33, 16]), (34, 12, [34, 9, 1, 12]), (34, 16, [34, 16])]
    """
    graph, weight = weighed(graph, weight, "shortest_paths")
    weighted = weight is not None
    if weighted:
        lowest = min(f[0] for f in graph.block_facts(_weight_facts))
        if lowest < 0 or np.isnan(lowest):
            raise DgraphInputError(f"shortest_paths needs non-negative weights; column {weight!r} holds {lowest}")
    ids = seed_ids(graph, sources, "source")
    wanted = None if targets is None else unique(seed_ids(graph, targets, "target"))
    largest = int(np.diff(graph.bounds).max())
    group = int(max(1, min(ids.size, GROUP_BYTES // (17 * max(largest, 1)))))
    found = graph.run_to_rows(
        paths_kernel,
        label_columns=("source", "target"),
        nullable=("distance",),
        list_columns=("path",),
        name="shortest_paths",
        sources=ids,
        targets=wanted,
        group=group,
        weighted=weighted,
    )
    empty = pd.DataFrame({c: pd.Series(dtype=t) for c, t in found.dtypes.items()})
    return found.map_partitions(_as_lists, meta=_as_lists(empty))


def _as_lists(part):
    """A partition with its paths as Python lists of labels (None where unreachable), as the
    frame is documented, rather than the arrow list column the run builds."""
    missing = part["path"].isna().to_numpy()
    lists = [None if gone else path for path, gone in zip(part["path"].tolist(), missing)]
    paths = pd.Series(lists, index=part.index, dtype=object, name="path")
    return part.assign(path=paths)
