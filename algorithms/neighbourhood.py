"""Neighbourhoods of many seeds at once: the vertices within k hops of each seed, and the
subgraph they induce (ego graphs).

Method: a multi-source BFS that carries 64 seeds per machine word (MS-BFS: Then et al., VLDB
2015). Every rank keeps two bit rows per vertex it owns, ``seen`` and ``frontier`` (one bit
per seed): a level ORs each frontier row into the rows of its out-neighbours (the words of
one head merged before they travel, so a rank pair moves one row per distinct head), and a
vertex's new bits are those it had not seen. A vertex reached from many seeds in one level
costs one row, not one message per seed. Memory per rank: 16 bytes per owned vertex per 64
seeds, nothing over the whole graph. Ego graphs then read, for each arc leaving a vertex in
some ball, its head's ``seen`` row from the head's owner: the arc is in every ball whose bit is
set at both ends.

Output encoding: ``seed`` and ``vertex`` (``src``/``dst``) are the user's labels; ``hops`` the
BFS distance (0 for the seed itself). Rows come in no particular order.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import TYPE_CHECKING

import numpy as np

from dgraph import kernels
from dgraph.checks import integer
from dgraph.errors import DgraphInputError
from dgraph.ghosts import Fetch

if TYPE_CHECKING:
    import dask.dataframe as dd

    from dgraph.graph import Graph

WORD = 64  # seeds per machine word


def _bits(ids, count):
    """Rows of ``count`` seed bits (uint64 words) with bit i set in row i, for seed indices ``ids``."""
    rows = np.zeros((ids.size, (count + WORD - 1) // WORD), dtype=np.uint64)
    rows[np.arange(ids.size), ids // WORD] = np.uint64(1) << (ids % WORD).astype(np.uint64)
    return rows


def _set_bits(rows):
    """(row, seed index) of every set bit of ``rows``."""
    flags = np.unpackbits(np.ascontiguousarray(rows).view(np.uint8), axis=1, bitorder="little")
    return np.nonzero(flags)


def _balls(ctx, seeds, k, bounds):
    """Multi-source BFS to depth ``k`` over owner out-blocks: each rank's ``seen`` rows (one per
    owned vertex) and its (seed index, vertex, hops) discoveries."""
    S = seeds.size
    width = (S + WORD - 1) // WORD
    seen, frontier, found = {}, {}, {r: [] for r in ctx.ranks}
    for r in ctx.ranks:
        lo, hi = int(bounds[r]), int(bounds[r + 1])
        seen[r] = np.zeros((hi - lo, width), dtype=np.uint64)
        mine = np.flatnonzero((seeds >= lo) & (seeds < hi))
        np.bitwise_or.at(seen[r], seeds[mine] - lo, _bits(mine, S))
        frontier[r] = seen[r].copy()
        found[r].append((mine, seeds[mine], np.zeros(mine.size, np.int64)))
    ctx.hold("k-hop seen and frontier bits", seen, frontier)
    level = 0
    while level < k and ctx.allreduce({r: [int(frontier[r].any(axis=1).sum())] for r in ctx.ranks})[0]:
        level += 1
        send, incoming = {}, {}
        for r in ctx.ranks:
            blk = ctx.blocks[r][0]
            incoming[r] = np.zeros_like(seen[r])
            active = np.flatnonzero(frontier[r].any(axis=1))
            at, slots, _ = kernels.frontier_arcs(blk.indptr, blk.indices, None, active)
            heads = blk.space[slots].astype(np.int64)
            words = frontier[r][active[at]]
            order = np.argsort(heads, kind="stable")
            heads, words = heads[order], words[order]
            first = np.flatnonzero(np.r_[True, heads[1:] != heads[:-1]]) if heads.size else np.empty(0, np.int64)
            heads = heads[first]
            words = np.bitwise_or.reduceat(words, first, axis=0) if first.size else words
            cuts = np.searchsorted(heads, bounds)  # channels carry flat arrays: the words raveled
            spans = enumerate(zip(cuts[:-1], cuts[1:]))
            send[r] = {d: [heads[a:b], words[a:b].ravel()] for d, (a, b) in spans if b > a}
        for r, messages in ctx.alltoall(send).items():
            for _, (ids, words) in messages:
                incoming[r][ids - bounds[r]] |= words.reshape(ids.size, width)  # ids unique per message
        for r in ctx.ranks:
            new = incoming[r] & ~seen[r]
            seen[r] |= new
            frontier[r] = new
            rows, idx = _set_bits(new)
            found[r].append((idx, rows + int(bounds[r]), np.full(rows.size, level, np.int64)))
    ctx.stats.info.update(levels=level)
    return seen, found


def k_hop_kernel(ctx, *, seeds, k, bounds):
    _, found = _balls(ctx, seeds, k, bounds)
    out = {}
    for r in ctx.ranks:
        idx, vertex, hops = (np.concatenate(c) for c in zip(*found[r]))
        out[r] = {"seed": seeds[idx], "vertex": vertex, "hops": hops}
    return out


def ego_kernel(ctx, *, seeds, radius, directed, weighted, bounds):
    seen, _ = _balls(ctx, seeds, radius, bounds)
    heads, tails, weights = {}, {}, {}
    for r in ctx.ranks:
        blk, lo = ctx.blocks[r][0], int(bounds[r])
        rows = np.repeat(np.arange(blk.hi - blk.lo), np.diff(blk.indptr))
        inside = seen[r][rows].any(axis=1)
        tails[r] = rows[inside]
        heads[r] = blk.space[blk.indices[inside]].astype(np.int64)
        if not directed:  # an undirected edge once, from its smaller end
            once = heads[r] >= tails[r] + lo
            tails[r], heads[r], inside[inside] = tails[r][once], heads[r][once], once
        weights[r] = blk.weights[inside] if weighted else None
    read = Fetch(ctx, heads, bounds)  # the heads' seen rows, a word (64 seeds) per call
    width = seen[ctx.ranks[0]].shape[1]
    far = [read({r: np.ascontiguousarray(seen[r][:, j]) for r in ctx.ranks}) for j in range(width)]
    out = {}
    for r in ctx.ranks:
        both = seen[r][tails[r]] & np.stack([f[r] for f in far], axis=1)
        arc, idx = _set_bits(both)
        out[r] = {"seed": seeds[idx], "src": tails[r][arc] + int(bounds[r]), "dst": heads[r][arc]}
        if weighted:
            out[r]["weight"] = weights[r][arc]
    return out


def seed_ids(graph, seeds, what="seed"):
    """The placed ids of ``seeds`` (a label, or an iterable of labels), each once, in the order
    first given."""
    if isinstance(seeds, (str, bytes)) or not hasattr(seeds, "__iter__"):
        seeds = [seeds]
    seeds = list(dict.fromkeys(seeds.tolist() if hasattr(seeds, "tolist") else seeds))
    if not seeds:
        raise DgraphInputError(f"give at least one {what}")
    return np.asarray(graph.encode_vertices(seeds, what), dtype=np.int64)


def k_hop(graph: Graph, seeds: Hashable | Iterable[Hashable], k: int) -> dd.DataFrame:
    """Every vertex within ``k`` hops of each seed (following arcs forward), all seeds in one run.

    Parameters
    ----------
    graph : dgraph.Graph
    seeds : label or iterable of labels
        Repeats count once.
    k : int
        The largest number of hops (0: the seeds themselves).

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``seed``, ``vertex`` and ``hops``: one row per seed and vertex within ``k`` hops
        of it, the seed itself at 0. ``graph.last_stats.info["levels"]`` says how many levels
        ran (fewer than ``k`` when every ball stopped growing).

    Notes
    -----
    One superstep per level; a level moves, per rank pair, 8 bytes plus 8 per 64 seeds for each
    distinct head of the frontier's arcs (see the module's docstring).

    Examples
    --------
    >>> import dgraph
    >>> g = dgraph.datasets.load("karate")
    >>> near = dgraph.algorithms.k_hop(g, [1, 34], 1).compute()
    >>> near.groupby("seed").size().to_dict()
    {1: 17, 34: 18}
    """
    ids = seed_ids(graph, seeds)
    k = integer(k, "k", minimum=0)
    return graph.run_to_rows(k_hop_kernel, label_columns=("seed", "vertex"), name="k_hop", seeds=ids, k=k)


def ego_graph(graph: Graph, seeds: Hashable | Iterable[Hashable], *, radius: int = 1) -> dd.DataFrame:
    """The subgraph each seed's ball of ``radius`` hops induces (networkx's ``ego_graph`` for
    many seeds at once, ``center=True``, distances in hops).

    Parameters
    ----------
    graph : dgraph.Graph
    seeds : label or iterable of labels
    radius : int

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``seed``, ``src``, ``dst`` (and the graph's weight column): every arc with both
        ends in the seed's ball, an undirected edge once. The balls' vertices themselves
        (isolated ones included) are ``k_hop(graph, seeds, radius)``.

    Examples
    --------
    >>> import dgraph
    >>> g = dgraph.datasets.load("karate")
    >>> ego = dgraph.algorithms.ego_graph(g, [1, 34], radius=1).compute()
    >>> ego.groupby("seed").size().to_dict()
    {1: 34, 34: 32}
    """
    ids = seed_ids(graph, seeds)
    frame = graph.run_to_rows(
        ego_kernel,
        label_columns=("seed", "src", "dst"),
        name="ego_graph",
        seeds=ids,
        radius=integer(radius, "radius", minimum=0),
        directed=graph.directed,
        weighted=graph.weight is not None,
    )
    return frame.rename(columns={"weight": graph.weight}) if graph.weight is not None else frame
