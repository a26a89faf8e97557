"""Neighbour sampling for GNN training: from seed vertices, hop by hop, a few out-arcs of each
vertex reached (GraphSAGE's sampler; cuGraph's ``uniform_neighbor_sample``).

Method: hop k's sources are the distinct vertices the arcs sampled at hop k - 1 reach (hop 0's,
the seeds), each at its owner (1D owner blocks: a vertex's out-arcs at its owner, on every
layout). A source of degree d keeps ``min(fanout, d)`` of its arcs, drawn uniformly without
replacement by Floyd's algorithm (a uniform subset in ``fanout`` draws, not d), or ``fanout``
drawn with replacement; a fan-out of -1 keeps every arc. One exchange per hop sends the ends
reached to their owners, with the count of them riding along.

Every draw is a function of (seed, hop, the source's canonical id, draw) (``dgraph.streams``)
and a row lists its heads by canonical id, so for a seed the sample is the same on every layout
and rank count, and a vertex reached at a hop is sampled the same way whichever seeds reach it.

Output encoding: ``hop`` (0 for the seeds' arcs), ``src`` and ``dst`` (the user's labels), one
row per sampled arc, ``src -> dst``.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from dgraph.checks import integer
from dgraph.errors import DgraphInputError
from dgraph.owners import by_owner
from dgraph.streams import below, fresh_seed, uniforms

from .neighbourhood import seed_ids
from .random_walks import counts, joined

if TYPE_CHECKING:
    import dask.dataframe as dd

    from dgraph.graph import Graph

ALL = -1  # a fan-out that keeps every arc


def _floyd(degree, count, seed, hop, key):
    """``count`` distinct positions below each of ``degree`` (all above ``count``), uniformly:
    Floyd's algorithm, each row's draws a function of (seed, hop, its key, draw)."""
    chosen = np.empty((degree.size, count), np.int64)
    for i in range(count):
        top = degree - count + i  # the draw is uniform in [0, top]; taken already: top itself
        t = below(uniforms(seed, hop, key, i), top + 1)
        chosen[:, i] = np.where((chosen[:, :i] == t[:, None]).any(axis=1), top, t)
    return np.sort(chosen, axis=1).ravel()


def _sample(degree, fanout, replace, seed, hop, key):
    """(source, position in its row) of every arc sampled from rows of ``degree``."""
    source = np.arange(degree.size)
    if fanout == ALL or not replace:
        whole = source if fanout == ALL else source[degree <= fanout]
        at = np.repeat(whole, degree[whole])
        pos = np.arange(at.size) - np.repeat(np.cumsum(degree[whole]) - degree[whole], degree[whole])
        if fanout != ALL:
            big = source[degree > fanout]
            at = np.r_[at, np.repeat(big, fanout)]
            pos = np.r_[pos, _floyd(degree[big], fanout, seed, hop, key[big])]
    else:
        some = source[degree > 0]
        at, draw = np.repeat(some, fanout), np.tile(np.arange(fanout), some.size)
        pos = below(uniforms(seed, hop, key[at], draw), degree[at])
    order = np.lexsort((pos, at))
    return at[order], pos[order]


def sample_kernel(ctx, *, seeds, fanouts, replace, seed, bounds):
    frontier = {r: seeds[(seeds >= bounds[r]) & (seeds < bounds[r + 1])] for r in ctx.ranks}
    rows = {r: [] for r in ctx.ranks}
    hops = 0
    for hop, fanout in enumerate(fanouts):
        send = {}
        for r in ctx.ranks:
            block, lo, src = ctx.blocks[r][0], int(bounds[r]), frontier[r]
            start, end = block.indptr[src - lo].astype(np.int64), block.indptr[src - lo + 1].astype(np.int64)
            first = int(np.searchsorted(block.space, lo))  # the slot of the rank's first own vertex
            key = src if block.space_key is None else block.space_key[first + src - lo]
            at, pos = _sample(end - start, fanout, replace, seed, hop, key)
            dst = block.space[block.indices[start[at] + pos]].astype(np.int64)
            rows[r].append((np.full(at.size, hop, np.int64), src[at], dst))
            send[r] = by_owner(bounds, np.unique(dst))
        hops = hop + 1
        if hop + 1 == len(fanouts):
            break
        got, reached = ctx.alltoall(send, total=counts(send))
        for r in ctx.ranks:
            frontier[r] = np.unique(joined(got[r], 1)[0])
        if int(reached[0]) == 0:
            break
    ctx.stats.info.update(hops=hops, seed=seed)
    out = {}
    for r in ctx.ranks:
        hop, src, dst = (np.concatenate(c) for c in zip(*rows[r]))
        out[r] = {"hop": hop, "src": src, "dst": dst}
    return out


def sample_neighbors(
    graph: Graph,
    seeds: Hashable | Iterable[Hashable],
    fanouts: Sequence[int],
    *,
    replace: bool = False,
    seed: int | None = None,
) -> dd.DataFrame:
    """Sample a few out-arcs of each seed, then of each vertex they reach, hop by hop, for one
    mini-batch of GNN training (GraphSAGE's sampler; DGL's and PyG's neighbour sampling).

    Parameters
    ----------
    graph : dgraph.Graph
    seeds : label or iterable of labels
        The vertices of the mini-batch; repeats count once.
    fanouts : sequence of int
        Arcs sampled per source at each hop: ``fanouts[k]`` at hop k, -1 for all of them. Hop
        0's sources are the seeds; hop k's the distinct vertices hop k - 1's arcs reach (a vertex
        reached at several hops is a source at each).
    replace : bool
        Draw with replacement: ``fanouts[k]`` arcs per source with any arc (repeats possible).
        Without (the default): ``min(fanouts[k], degree)`` distinct arcs.
    seed : int, optional
        The sample is a function of the seed, the graph and the arguments alone: the same on
        every layout and rank count. None: a fresh seed, which ``graph.last_stats.info["seed"]``
        reports.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``hop``, ``src`` and ``dst``: one row per sampled arc ``src -> dst``.

    Notes
    -----
    One superstep per hop but the last, moving each rank's distinct reached ends to their owners
    (8 bytes each). Arcs are sampled uniformly; on a directed graph they leave their sources
    (out-neighbours): to sample in-neighbours, as PyG does for messages flowing along arcs,
    build the graph with ``src`` and ``dst`` swapped. The README shows how to turn the rows
    into a PyTorch Geometric ``edge_index``.

    References
    ----------
    W. L. Hamilton, R. Ying, J. Leskovec, "Inductive representation learning on large graphs",
    NeurIPS 2017. R. W. Floyd and J. Bentley, "Programming pearls: a sample of brilliance", CACM
    30(9), 1987.

    Examples
    --------
    >>> import dgraph
    >>> g = dgraph.datasets.load("karate")
    >>> s = dgraph.algorithms.sample_neighbors(g, [1, 34], [3, 2], seed=5).compute()
    >>> s[s.hop == 0].groupby("src").size().to_dict()
    {1: 3, 34: 3}
    >>> bool((s[s.hop == 1].groupby("src").size() <= 2).all())
    True
    """
    if isinstance(fanouts, (str, bytes)) or not hasattr(fanouts, "__iter__"):
        raise DgraphInputError(f"fanouts must be a sequence of integers (one per hop), got {fanouts!r}")
    fanouts = [integer(f, "each fan-out", minimum=ALL) for f in fanouts]
    if not fanouts or 0 in fanouts:
        raise DgraphInputError(f"fanouts must give each hop a fan-out of at least 1 (or -1: every arc), got {fanouts}")
    if seed is not None:
        seed = integer(seed, "seed", minimum=0, maximum=2**63 - 1)
    return graph.run_to_rows(
        sample_kernel,
        label_columns=("src", "dst"),
        name="sample_neighbors",
        seeds=np.unique(seed_ids(graph, seeds)),
        fanouts=tuple(fanouts),
        replace=bool(replace),
        seed=fresh_seed(seed),
    )
