"""The k-truss of an undirected graph: the largest subgraph whose every edge lies on at least
k - 2 of its triangles (Cohen's definition, as networkx's ``k_truss``).

Method: peeling in rounds. Each round every rank fetches the rows its arcs' far ends hold
(``ghosts.fetch_rows``, two supersteps, the rows cut to the arcs still kept; in batches of
about ``ROW_BATCH_ARCS`` arcs as triangles fetches them, each counted and freed before the
next), finds each kept arc's support (the common neighbours of its ends: the shorter row of
the two looked up in the rank's pairs by binary search) and drops the arcs below k - 2. Both
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
from dgraph.ghosts import fetch, fetch_rows
from dgraph.kernels import unique

from .minimum_spanning_tree import owned_arcs
from .triangles import ROW_BATCH_ARCS
from .triangles import _batches as row_batches  # each batch's fetch a collective step, as triangles fetch rows

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


def truss_kernel(ctx, *, bounds, k, batch_arcs=ROW_BATCH_ARCS):
    bounds = np.asarray(bounds, dtype=np.int64)
    arcs, own = {}, {}
    for r in ctx.ranks:
        b = ctx.blocks[r][0]
        first = int(np.searchsorted(b.space, b.lo))
        row, head, row_slot = owned_arcs(b, first)
        keep = row_slot != head
        u, v = int(b.lo) + row[keep], b.space[head[keep]].astype(np.int64)
        first_end = keyed_ids(b, row_slot[keep]) < keyed_ids(b, head[keep])
        arcs[r] = SimpleNamespace(u=u, v=v, head=head[keep], first=first_end, space=b.space)
        own[r] = np.arange(bounds[r], bounds[r + 1], dtype=np.int64)
    # the far ends' first degrees bound their rows in every round: batches are sized by them
    far = {r: _ghosts(arcs[r].v, bounds, r) for r in ctx.ranks}
    degree = fetch(ctx, far, {r: np.bincount(arcs[r].u - bounds[r], minlength=own[r].size) for r in ctx.ranks}, bounds)
    rounds = 0
    while True:
        serve, wanted, sizes, support = {}, {}, {}, {}
        for r in ctx.ranks:
            a = arcs[r]
            indptr, indices = _csr(a.u, a.head, own[r])  # head slots, which fetch_rows reads through the space
            serve[r] = SimpleNamespace(lo=int(bounds[r]), indptr=indptr, indices=indices, space=a.space)
            wanted[r] = _ghosts(a.v, bounds, r)
            sizes[r] = degree[r][np.searchsorted(far[r], wanted[r])]
            support[r] = np.zeros(a.u.size, np.int64)
        for i, batch in enumerate(row_batches(ctx, wanted, sizes, batch_arcs)):
            ghosts = fetch_rows(ctx, serve, batch, bounds)
            for r in ctx.ranks:
                a, s = arcs[r], serve[r]
                ids, ptr, idx = ghosts.pop(r)
                # this batch's arcs: those to its rows, and (with the first) those between own vertices
                at = np.flatnonzero(np.isin(a.v, ids) | ((i == 0) & (a.v >= bounds[r]) & (a.v < bounds[r + 1])))
                all_ids = np.concatenate([own[r], ids])
                rows = np.repeat(all_ids, np.concatenate([np.diff(s.indptr), np.diff(ptr)]))
                heads = np.concatenate([a.space[s.indices].astype(np.int64), idx.astype(np.int64)])
                ordered = np.sort(all_ids)
                indptr, indices = _csr(rows, heads, ordered)
                support[r][at] = supports(a.u[at], a.v[at], ordered, indptr, _sorted_rows(indptr, indices))
            del ghosts  # before the next batch comes
        dropped = {}
        for r in ctx.ranks:
            a, keep = arcs[r], support[r] >= k - 2
            dropped[r] = [int((~keep).sum())]
            arcs[r] = SimpleNamespace(u=a.u[keep], v=a.v[keep], head=a.head[keep], first=a.first[keep], space=a.space)
        rounds += 1
        if not int(ctx.allreduce(dropped)[0]):
            break
    ctx.stats.info.update(rounds=rounds)
    return {r: {"src": arcs[r].u[arcs[r].first], "dst": arcs[r].v[arcs[r].first]} for r in ctx.ranks}


def _ghosts(heads, bounds, r):
    """The distinct heads (sorted) that rank r does not own."""
    far = unique(heads)
    return far[(far < bounds[r]) | (far >= bounds[r + 1])]


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
