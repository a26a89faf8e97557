"""The k-truss of an undirected graph: the largest subgraph whose every edge lies on at least
k - 2 of its triangles (Cohen's definition, as networkx's ``k_truss``).

Method: peeling in rounds. Each round every rank fetches the rows its arcs' far ends hold
(``ghosts.fetch_rows``, two supersteps, the rows cut to the arcs still kept), finds each kept
arc's support (the common neighbours of its ends: the smaller row of the two scanned against
the other, found by a binary search of the rank's pairs) and drops the arcs below k - 2. Both
ends' owners see the same two rows, so an edge is dropped at both in the same round; the rounds
end when none is. Self-loops are never in a truss.

Output encoding: one row per kept edge, ``src`` and ``dst`` (the end of smaller canonical id
first).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np

from dgraph.block import keyed_ids
from dgraph.errors import DgraphInputError
from dgraph.ghosts import fetch_rows
from dgraph.kernels import unique

from .minimum_spanning_tree import owned_arcs

if TYPE_CHECKING:
    import dask.dataframe as dd

    from dgraph.graph import Graph


def _csr(rows, heads, ids):
    """A CSR over the sorted ``ids`` of the arcs ``rows -> heads`` (rows among ids)."""
    at = np.searchsorted(ids, rows)
    order = np.argsort(at, kind="stable")
    indptr = np.zeros(ids.size + 1, np.int64)
    np.cumsum(np.bincount(at, minlength=ids.size), out=indptr[1:])
    return indptr, heads[order]


def supports(u, v, ids, indptr, indices):
    """The common neighbours of each arc's ends ``u``, ``v`` (placed ids), from the rows of the
    CSR over ``ids``: each arc's shorter row is looked up in the set of all pairs."""
    n = np.int64(max(int(ids.max(initial=0)), int(indices.max(initial=0))) + 1)
    pairs = np.repeat(ids, np.diff(indptr)) * n + indices  # sorted: rows ascending, each row's heads too
    iu, iv = np.searchsorted(ids, u), np.searchsorted(ids, v)
    du, dv = indptr[iu + 1] - indptr[iu], indptr[iv + 1] - indptr[iv]
    short = np.where(du <= dv, iu, iv)
    other = np.where(du <= dv, v, u)
    lengths = indptr[short + 1] - indptr[short]
    arc = np.repeat(np.arange(u.size), lengths)
    pos = np.arange(arc.size) - np.repeat(np.cumsum(lengths) - lengths, lengths) + np.repeat(indptr[short], lengths)
    wanted = other[arc] * n + indices[pos]
    found = np.searchsorted(pairs, wanted)
    hit = found < pairs.size
    hit[hit] = pairs[found[hit]] == wanted[hit]
    return np.bincount(arc[hit], minlength=u.size)


def truss_kernel(ctx, *, bounds, k):
    bounds = np.asarray(bounds, dtype=np.int64)
    arcs = {}
    for r in ctx.ranks:
        b = ctx.blocks[r][0]
        first = int(np.searchsorted(b.space, b.lo))
        row, head, row_slot = owned_arcs(b, first)
        keep = row_slot != head
        u, v = int(b.lo) + row[keep], b.space[head[keep]].astype(np.int64)
        first_end = keyed_ids(b, row_slot[keep]) < keyed_ids(b, head[keep])
        arcs[r] = SimpleNamespace(u=u, v=v, head=head[keep], first=first_end, space=b.space)
    rounds = 0
    while True:
        serve, wanted = {}, {}
        for r in ctx.ranks:
            a, own = arcs[r], np.arange(bounds[r], bounds[r + 1], dtype=np.int64)
            indptr, indices = _csr(a.u, a.head, own)  # head slots, which fetch_rows reads through the space
            serve[r] = SimpleNamespace(lo=int(bounds[r]), indptr=indptr, indices=indices, space=a.space)
            far = unique(a.v)
            wanted[r] = far[(far < bounds[r]) | (far >= bounds[r + 1])]
        ghosts = fetch_rows(ctx, serve, wanted, bounds)
        dropped = {}
        for r in ctx.ranks:
            a = arcs[r]
            ids, ptr, idx = ghosts.pop(r)
            own = np.arange(bounds[r], bounds[r + 1], dtype=np.int64)
            all_ids = np.concatenate([own, ids])
            order = np.argsort(all_ids, kind="stable")
            lengths = np.concatenate([np.diff(serve[r].indptr), np.diff(ptr)])
            rows = np.repeat(all_ids, lengths)
            heads = np.concatenate([a.space[serve[r].indices].astype(np.int64), idx.astype(np.int64)])
            indptr, indices = _csr(rows, heads, all_ids[order])
            indices = _sorted_rows(indptr, indices)
            keep = supports(a.u, a.v, all_ids[order], indptr, indices) >= k - 2
            dropped[r] = [int((~keep).sum())]
            arcs[r] = SimpleNamespace(u=a.u[keep], v=a.v[keep], head=a.head[keep], first=a.first[keep], space=a.space)
        rounds += 1
        if not int(ctx.allreduce(dropped)[0]):
            break
    ctx.stats.info.update(rounds=rounds)
    return {r: {"src": arcs[r].u[arcs[r].first], "dst": arcs[r].v[arcs[r].first]} for r in ctx.ranks}


def _sorted_rows(indptr, indices):
    """Each row's entries ascending."""
    row = np.repeat(np.arange(indptr.size - 1), np.diff(indptr))
    return indices[np.lexsort((indices, row))]


def k_truss(graph: Graph, k: int) -> dd.DataFrame:
    """The edges of the k-truss of an undirected graph: the largest subgraph in which every
    edge lies on at least ``k - 2`` triangles (networkx's ``k_truss``).

    Parameters
    ----------
    graph : dgraph.Graph
        Undirected. Self-loops are left out.
    k : int
        The truss's order.

    Returns
    -------
    dask.dataframe.DataFrame
        One row per kept edge: ``src`` and ``dst``. Its vertices are the ends of those edges.

    Notes
    -----
    A round costs two supersteps and, per kept arc, the length of the shorter of its ends' rows.

    References
    ----------
    J. Cohen, "Trusses: cohesive subgraphs for social network analysis", 2005.

    Examples
    --------
    >>> import pandas as pd, dgraph
    >>> e = pd.DataFrame({"src": [0, 0, 1, 2], "dst": [1, 2, 2, 3]})
    >>> g = dgraph.from_edgelist(e, directed=False)
    >>> t = dgraph.algorithms.k_truss(g, 3).compute()
    >>> sorted(zip(t.src, t.dst))
    [(0, 1), (0, 2), (1, 2)]
    """
    if graph.directed:
        raise DgraphInputError("k_truss needs an undirected graph; build it with directed=False")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise DgraphInputError(f"k must be an integer, got {k!r}")
    return graph.run_to_rows(truss_kernel, label_columns=("src", "dst"), name="k_truss", k=int(k))
