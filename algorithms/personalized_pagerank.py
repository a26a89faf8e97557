"""Personalized PageRank for many queries in one run.

Method: the power iteration of ``pagerank`` (networkx's semantics: dangling mass spread like
each query's personalization, the L1 change per query below ``n * tol``), on a block of
vectors at once, one column per query. Every rank keeps a row per owned vertex (its rank in
each query), sends each row once per iteration to the ranks whose in-arcs read it (one ghost
exchange, planned once), and multiplies its in-CSR by the gathered rows (a sparse matrix times
a dense block: one pass over the arcs serves every query). A query that has converged keeps its
vector while the others go on. Queries are grouped to keep each rank's rows under
``GROUP_BYTES``. With ``top`` each rank offers its best ``top`` vertices per query and keeps
those that are among the best ``top`` of all ranks' offers.

Output encoding: ``query`` as given, ``vertex`` in the user's labels, ``pagerank`` (float64;
each query's column sums to 1 before ``top`` cuts it).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import scipy.sparse as sp

from dgraph.block import own_canonical
from dgraph.checks import integer, number
from dgraph.errors import ConvergenceWarning, DgraphInputError
from dgraph.ghosts import GhostExchange
from dgraph.weights import GRAPH_WEIGHT, Weight, weighed

from .pagerank import _out_weight

if TYPE_CHECKING:
    import dask.dataframe as dd

    from dgraph.graph import Graph

GROUP_BYTES = 256 << 20  # per rank, for one group's rows (five floats per vertex and query)


def _matrix(block, weighted):
    data = block.weights.astype(np.float64) if weighted else np.ones(block.narcs)
    return sp.csr_matrix((data, block.indices, block.indptr), shape=(block.nlocal, block.space.size))


def ppr_kernel(ctx, *, alpha, max_iter, tol, seeds, query_of, share, groups, top, weighted, bounds):
    n = int(bounds[-1])
    outs = {r: ctx.blocks[r][0] for r in ctx.ranks}
    ins = {r: ctx.blocks[r][-1] for r in ctx.ranks}
    pull = {r: _matrix(ins[r], weighted) for r in ctx.ranks}
    weight_out = {r: _out_weight(outs[r], weighted) for r in ctx.ranks}
    dangling = {r: weight_out[r] == 0 for r in ctx.ranks}
    gather = GhostExchange(ctx, {r: [ins[r]] for r in ctx.ranks}, bounds)
    rows = {r: [] for r in ctx.ranks}
    iterations, unconverged = [], 0
    for q0, q1 in zip(groups[:-1], groups[1:]):
        Q = int(q1 - q0)
        pr, tele, contrib, space = {}, {}, {}, {}
        for r in ctx.ranks:
            lo, hi = int(bounds[r]), int(bounds[r + 1])
            tele[r] = np.zeros((hi - lo, Q))
            mine = (seeds >= lo) & (seeds < hi) & (query_of >= q0) & (query_of < q1)
            np.add.at(tele[r], (seeds[mine] - lo, query_of[mine] - q0), share[mine])
            pr[r] = np.full((hi - lo, Q), 1.0 / n)  # networkx starts from the uniform vector
            contrib[r] = np.zeros((hi - lo, Q))
            space[r] = np.zeros((ins[r].space.size, Q))
        ctx.hold("personalized pagerank rows", pr, tele, contrib, space)
        active = np.ones(Q, dtype=bool)
        for step in range(1, max_iter + 1):
            for r in ctx.ranks:  # dangling rows of contrib stay 0: divide never writes them
                np.divide(pr[r], weight_out[r][:, None], out=contrib[r], where=~dangling[r][:, None])
            sums = {r: pr[r][dangling[r]].sum(axis=0) for r in ctx.ranks}
            total = gather(contrib, space, total={r: list(s) for r, s in sums.items()})
            lost = np.asarray(total, dtype=np.float64)  # each query's dangling mass
            change = {}
            for r in ctx.ranks:
                new = alpha * (pull[r] @ space[r]) + (alpha * lost + (1 - alpha)) * tele[r]
                change[r] = np.abs(new - pr[r]).sum(axis=0)
                pr[r][:, active] = new[:, active]
            err = np.asarray(ctx.allreduce({r: list(c) for r, c in change.items()}), dtype=np.float64)
            active &= ~(err < n * tol)
            if not active.any():
                break
        iterations.append(step)
        unconverged += int(active.sum())
        picked = _top(ctx, pr, top, bounds) if top is not None else None
        for r in ctx.ranks:
            vertex, query = np.nonzero(np.ones_like(pr[r], dtype=bool)) if top is None else picked[r]
            rows[r].append((query + q0, vertex + int(bounds[r]), pr[r][vertex, query]))
    ctx.stats.info.update(iterations=iterations, unconverged=unconverged)
    columns = ("query", "vertex", "pagerank")
    return {r: {c: np.concatenate([part[i] for part in rows[r]]) for i, c in enumerate(columns)} for r in ctx.ranks}


def _top(ctx, pr, top, bounds):
    """Each rank's (vertex row, query) among the best ``top`` of each query over all ranks: the
    highest pagerank, ties first in the graph's vertex order. Each rank offers its own best
    ``top`` per query; every rank sees every offer and keeps its vertices that rank no lower
    than the query's ``top``-th offer."""
    picks, offers = {}, {}
    for r in ctx.ranks:
        lo, hi = int(bounds[r]), int(bounds[r + 1])
        order = own_canonical(ctx.blocks[r][0], lo, hi)
        Q = pr[r].shape[1]
        best = [np.lexsort((order, -pr[r][:, j]))[:top] for j in range(Q)]
        vertex = np.concatenate(best) if best else np.empty(0, np.int64)
        query = np.repeat(np.arange(Q), [b.size for b in best])
        picks[r] = (vertex, query, pr[r][vertex, query], order[vertex])
        offers[r] = [query, picks[r][2], picks[r][3]]
    everyone = ctx.allgather(offers)
    query, value, order = (np.concatenate([o[i] for o in everyone]) for i in range(3))
    ranked = np.lexsort((order, -value, query))
    query, value, order = query[ranked], value[ranked], order[ranked]
    Q = pr[ctx.ranks[0]].shape[1]
    starts = np.searchsorted(query, np.arange(Q))
    last = np.minimum(starts + top, np.searchsorted(query, np.arange(Q), side="right")) - 1
    out = {}
    for r in ctx.ranks:
        vertex, q, v, o = picks[r]
        cut_v, cut_o = value[last[q]], order[last[q]]
        keep = (v > cut_v) | ((v == cut_v) & (o <= cut_o))
        out[r] = (vertex[keep], q[keep])
    return out


def personalized_pagerank(
    graph: Graph,
    seeds: pd.DataFrame,
    *,
    alpha: float = 0.85,
    max_iter: int = 100,
    tol: float = 1e-6,
    top: int | None = None,
    weight: Weight = GRAPH_WEIGHT,
) -> dd.DataFrame:
    """PageRank personalized to each query's seeds, every query in one run.

    Parameters
    ----------
    graph : dgraph.Graph
    seeds : DataFrame
        Rows ``query, seed`` and optionally ``weight``: query q's personalization puts weight
        (default 1) on each of its seeds, normalised per query (networkx's ``personalization``).
        Queries are any labels; a seed repeated in a query adds its weights.
    alpha, max_iter, tol : as ``pagerank`` (each query stops when its own L1 change is below
        ``n * tol``).
    top : int, optional
        Only each query's ``top`` highest vertices (ties: first in the graph's vertex order).
    weight : str or None, optional
        Left out: the graph's weight, if it was built with one. ``None``: every arc counts 1.
        A name: any numeric edge attribute (``g.edge_attrs``), for this call.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``query``, ``vertex`` and ``pagerank``. ``graph.last_stats.info`` holds the
        ``iterations`` of each group of queries and how many queries stopped ``unconverged``
        (a ``ConvergenceWarning`` says so).

    Examples
    --------
    >>> import dgraph, pandas as pd
    >>> g = dgraph.datasets.load("karate")
    >>> asks = pd.DataFrame({"query": ["a", "b", "b"], "seed": [1, 33, 34]})
    >>> best = dgraph.algorithms.personalized_pagerank(g, asks, top=2).compute()
    >>> best.sort_values(["query", "pagerank"], ascending=[True, False]).vertex.tolist()
    [1, 2, 34, 33]
    """
    if not isinstance(seeds, pd.DataFrame) and hasattr(seeds, "compute"):
        seeds = seeds.compute()
    if not isinstance(seeds, pd.DataFrame) or not {"query", "seed"} <= set(seeds.columns):
        raise DgraphInputError("seeds must be a DataFrame with columns 'query' and 'seed' (and optionally 'weight')")
    if seeds.empty:
        raise DgraphInputError("seeds has no rows: give each query at least one seed")
    alpha = number(alpha, "alpha", low=0, high=1)
    max_iter = integer(max_iter, "max_iter", minimum=1)
    tol = number(tol, "tol", low=0)
    top = None if top is None else integer(top, "top", minimum=1)
    graph, weight = weighed(graph, weight, "personalized_pagerank")
    share = seeds["weight"].to_numpy(np.float64) if "weight" in seeds.columns else np.ones(len(seeds))
    if not np.isfinite(share).all() or (share < 0).any():
        raise DgraphInputError("seed weights must be finite and non-negative")
    query_of, queries = pd.factorize(seeds["query"], sort=True)
    totals = np.bincount(query_of, weights=share, minlength=queries.size)
    if (totals <= 0).any():
        raise DgraphInputError(f"queries {list(queries[totals <= 0][:3])} have no positive seed weight")
    ids = np.asarray(graph.encode_vertices(seeds["seed"].tolist(), "seed"), dtype=np.int64)
    per_query = max(1, int(GROUP_BYTES // (40 * max(int(np.diff(graph.bounds).max()), 1))))
    groups = np.r_[np.arange(0, queries.size, per_query), queries.size]
    frame, stats = graph.runner.run_to_rows(
        ppr_kernel,
        label_columns=("vertex",),
        name="personalized_pagerank",
        reverse=graph.directed,
        alpha=alpha,
        max_iter=max_iter,
        tol=tol,
        seeds=ids,
        query_of=query_of.astype(np.int64),
        share=share / totals[query_of],
        groups=groups,
        top=top,
        weighted=weight is not None,
    )
    if stats.info["unconverged"]:
        warnings.warn(
            f"personalized_pagerank: {stats.info['unconverged']} queries did not converge in "
            f"{max_iter} iterations; raise max_iter or tol",
            ConvergenceWarning,
            stacklevel=2,
        )
    return frame.map_partitions(_name_queries, queries, meta=frame._meta.assign(query=queries[:0]))


def _name_queries(part, queries):
    """Query numbers (their sorted order) back to the queries the user gave."""
    return part.assign(query=queries.take(part["query"].to_numpy()))
