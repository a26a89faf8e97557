"""PageRank by power iteration, with networkx's semantics.

Method: pull-direction iteration on the layout's in-blocks. Every rank turns its vertices' ranks
into contributions (rank / out-degree, or / out-weight) and sends each one only to the ranks that
hold an in-arc from that vertex (a ghost exchange planned once per run, TDO-GP E.1: in 2D, the
mesh column); every rank then sums, over its in-arcs, the contributions of their sources (a
local SpMV on the in-CSR; on a skewed graph in labels that put the most-read sources first, a
cache-sized segment of them at a time), and in 2D the partial sums of a mesh row are added at
the owners.
Mass of dangling vertices is spread like the
personalization vector (uniform by default), exactly as ``networkx.pagerank`` does; iteration
stops when the L1 change is below ``n * tol``, or after ``max_iter`` iterations (``tol=0`` runs
exactly ``max_iter``). The dangling sum and the previous change ride in the same exchange, so an
iteration is one superstep in 1D (two in 2D). On one rank holding every arc nothing is exchanged,
and all iterations run in one local call (``kernels.power_iterations``).

Contributions travel and are gathered as float32 where the tolerance asks for no more accuracy
than that keeps, with ten times room (``_contribution_type``; never with ``tol=0``, which asks for
the iterations themselves); sums, ranks and the change stay float64. The exchange and the gather
then move half the bytes.

Output encoding: ``pagerank`` (float64, sums to 1).
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Mapping
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from dgraph import kernels
from dgraph.block import block_arcs, has_kept, kept
from dgraph.checks import integer, number
from dgraph.errors import ConvergenceWarning, DgraphInputError
from dgraph.ghosts import GhostExchange, reduce_rows
from dgraph.weights import GRAPH_WEIGHT, Weight, weighed

if TYPE_CHECKING:
    import dask.dataframe as dd

    from dgraph.graph import Graph

HUB_READS = 64  # reads of one vertex's contribution above which the SpMV gathers in hubs-first labels
HUBS_AFTER = 5  # iterations before that, in runs allowed at least as many more
SEGMENT = 1 << 16  # the hubs' SpMV segment: the most read sources, 256 KiB of float32 contributions
FLOAT32_ROUNDING = 2.0**-24  # the relative error of rounding a float64 to float32


def pagerank_kernel(
    ctx,
    *,
    alpha,
    max_iter,
    tol,
    personalization,
    weighted,
    bounds,
    layout,
    hub_reads=HUB_READS,
    segment=SEGMENT,
    nstart=None,
):
    n = int(bounds[-1])
    kind = _contribution_type(alpha, tol, n)
    outs = {r: ctx.blocks[r][0] for r in ctx.ranks}
    ins = {r: ctx.blocks[r][1] for r in ctx.ranks}
    partial = {r: [_out_weight(p, weighted) for p in outs[r].parts] for r in ctx.ranks}
    with ctx.phase("plan"):
        out_weight = reduce_rows(ctx, outs, partial, layout, bounds)  # whole out-weights at the owners
    pr, teleport, contrib, sums = {}, {}, {}, {}
    for r in ctx.ranks:
        lo, hi = int(bounds[r]), int(bounds[r + 1])
        teleport[r] = np.full(hi - lo, 1.0 / max(n, 1)) if personalization is None else personalization[lo:hi]
        pr[r] = np.full(hi - lo, 1.0 / max(n, 1)) if nstart is None else nstart[lo:hi].copy()
        contrib[r] = np.zeros(hi - lo, kind)
        dangling = out_weight[r] == 0
        np.divide(pr[r], out_weight[r], out=contrib[r], where=~dangling)
        sums[r] = [pr[r][dangling].sum(), 0.0]  # dangling mass, change
    key = _segments_key(hub_reads, segment, weighted)
    segmented = all(has_kept(p, key) for r in ctx.ranks for p in ins[r].parts)  # an earlier run paid
    whole = ctx.nranks == 1 and len(ins[0].parts) == 1 and ins[0].parts[0].row_ids is None
    if whole and not (segmented or _segments_pay(ins[0], max_iter, hub_reads, segment)):
        # one rank holds every vertex and arc: no exchange, so every iteration runs in one call
        part = ins[0].parts[0]
        with ctx.phase("compute"):
            updates, change = kernels.power_iterations(
                part.indptr,
                part.indices,
                part.weights if weighted else None,
                pr[0],
                teleport[0],
                out_weight[0],
                contrib[0],
                alpha,
                sums[0][0],
                max_iter,
                n * tol,
            )
        ctx.stats.info.update(iterations=updates, converged=bool(change < n * tol))
        return {0: {"pagerank": pr[0]}}
    with ctx.phase("plan"):
        gather = GhostExchange(ctx, {r: ins[r].parts for r in ctx.ranks}, bounds)
    x = {r: np.zeros(ins[r].space.size, kind) for r in ctx.ranks}  # contributions of what rank r reads
    ctx.hold("pagerank", pr, teleport, contrib, out_weight, x)
    # the SpMV reads x in place until a run shows it will be long (relabelling costs a few
    # iterations' gain) or an earlier run kept its segments, then, where hubs are, in labels
    # that put them first
    new = {r: None for r in ctx.ranks}
    reads, relabelled = {r: [p.indices for p in ins[r].parts] for r in ctx.ranks}, x
    row_sums = {r: [np.empty(p.indptr.size - 1) for p in ins[r].parts] for r in ctx.ranks}  # SpMV outputs, reused
    updates, converged = 0, False
    while True:
        with ctx.phase("exchange"):
            total = gather(contrib, x, total=sums)  # ghost values, dangling mass and change
        dangling_sum, err = float(total[0]), float(total[1])
        if updates > 0 and err < n * tol:
            converged = True
            break
        if updates == max_iter:
            break
        if updates == (0 if segmented else HUBS_AFTER) and max_iter - updates >= HUBS_AFTER:
            for r in ctx.ranks:
                new[r], reads[r] = _hubs_first(ins[r].parts, ins[r].space.size, hub_reads, weighted, segment)
            relabelled = {r: x[r] if new[r] is None else np.zeros(x[r].size, kind) for r in ctx.ranks}
            hubs = [a for r in ctx.ranks if new[r] is not None for a in (new[r], relabelled[r])]
            ctx.hold("pagerank", pr, teleport, contrib, out_weight, x, *hubs)
        with ctx.phase("compute"):
            for r in ctx.ranks:
                if new[r] is not None:
                    kernels.assign_at(relabelled[r], new[r], x[r])
            pulled = {
                r: [
                    _pull(p, read, weighted, relabelled[r], out)
                    for p, read, out in zip(ins[r].parts, reads[r], row_sums[r])
                ]
                for r in ctx.ranks
            }
        with ctx.phase("exchange"):
            pulled = reduce_rows(ctx, ins, pulled, layout, bounds)  # 2D: partial sums along the mesh row
        for r in ctx.ranks:
            change, dangling = kernels.pagerank_step(
                pulled[r], pr[r], teleport[r], out_weight[r], alpha, dangling_sum, contrib[r]
            )
            sums[r] = [dangling, change]
        updates += 1
    ctx.stats.info.update(iterations=updates, converged=converged)
    return {r: {"pagerank": pr[r]} for r in ctx.ranks}


def _hubs_first(parts, size, hub_reads, weighted, segment):
    """(labels, reads): when some vertex of a rank's space is read more than ``hub_reads`` times
    by its in-arcs, a label per slot, the most read first (ties by slot), and what each part's
    SpMV reads in those labels; else (None, the parts' indices). The gather then finds the
    hubs' contributions, which most arcs read, in a few cache lines (Kronecker 20: a quarter to
    half of its time). Meshes and roads, whose slots already carry locality, keep them.

    A space wider than ``segment`` slots is read in two segments (``kernels.segment_columns``):
    first the ``segment`` hubs, which most arcs read and whose contributions then stay in the L2
    cache, then the rest in one pass, where a row-order pass misses to the shared cache or memory.
    One pass over the rest beats more segments of ``segment`` slots, each adding into every row
    again. Each row keeps its arcs' order, and a space of one segment gives the same bits as
    the slots' order.
    The labels and segments are kept with the block (a count, a sort and two passes over the
    arcs: one call's cost on Kronecker 20, against a third of each later iteration's)."""
    new = _hub_labels(parts, size, hub_reads)
    if new is None:
        return None, [p.indices for p in parts]
    if size <= segment:
        return new, [kernels.relabel(new, p.indices) for p in parts]

    def segments(p):
        return kernels.segment_columns(
            p.indptr, kernels.relabel(new, p.indices), p.weights if weighted else None, [0, segment, size]
        )

    return new, [kept(p, _segments_key(hub_reads, segment, weighted), lambda p=p: segments(p)) for p in parts]


def _hub_labels(parts, size, hub_reads):
    """``_hubs_first``'s labels (None where no vertex is read more than ``hub_reads`` times), kept
    with the block."""

    def labels():
        reads = np.zeros(size, np.int64)
        for p in parts:
            kernels.count_reads(p.indices, reads)
        if reads.max(initial=0) <= hub_reads:
            return None
        new = np.empty(size, parts[0].indices.dtype)
        new[np.argsort(-reads, kind="stable")] = np.arange(size)
        return new

    return kept(parts[0], ("hubs first", hub_reads), labels)


def _segments_pay(block, max_iter, hub_reads, segment):
    """Whether a rank holding every vertex should iterate by segments (``_hubs_first``), one
    superstep an iteration, rather than in one call over its rows: where its hubs' labels and
    segments will be made (a run long enough, a space wider than a segment, hubs). The gather's
    misses then stay in the cache (Kronecker 20 on one rank: about half the time of one call)."""
    if max_iter < 2 * HUBS_AFTER or block.space.size <= segment:
        return False
    return _hub_labels(block.parts, block.space.size, hub_reads) is not None


def _contribution_type(alpha, tol, n):
    """The type contributions travel and are gathered in: float32 where the most its rounding can
    move the ranks is a tenth of the accuracy the run asks for, float64 otherwise.

    Rounding a contribution to float32 moves it by at most 2**-24 of itself, so a pulled sum
    (of non-negative terms) too, and a rank by at most ``alpha`` times that plus ``alpha`` times
    its sources' own drift. Every rank thus stays within ``alpha / (1 - alpha) * 2**-24`` of
    the float64 iteration's, relatively (3.4e-7 at ``alpha=0.85``), and the ranks, which sum to
    1, within that in L1. The run asks for ``n * tol`` in L1 (it stops when an iteration changes
    less); ``tol=0`` asks for the ``max_iter`` iterations themselves, in float64.

    >>> _contribution_type(0.85, 1e-6, 10**6).__name__, _contribution_type(0.85, 0.0, 10**6).__name__
    ('float32', 'float64')
    """
    if alpha >= 1:
        return np.float64
    drift = FLOAT32_ROUNDING * alpha / (1 - alpha)
    return np.float32 if n * tol >= 10 * drift else np.float64


def _segments_key(hub_reads, segment, weighted):
    return ("hub segments", hub_reads, segment, weighted)


def _pull(part, read, weighted, x, out):
    """A part's SpMV over ``x``: ``read`` is its indices, or its segments (``_hubs_first``)."""
    if isinstance(read, tuple):
        return kernels.spmv_segments(read, x, out)
    return kernels.spmv(part.indptr, read, part.weights if weighted else None, x, out)


def _out_weight(block, weighted):
    """Out-degree (or out-weight) of each row of a block."""
    if not weighted:
        return block.degree().astype(np.float64)
    rows = np.repeat(np.arange(block.nlocal), block.degree())
    return np.bincount(rows, weights=block.weights, minlength=block.nlocal)


def _lightest(block):
    w = block_arcs(block)[2]
    return float(w.min()) if w is not None and w.size else np.inf


def _personalization_vector(labels_ids, values, n):
    vec = np.zeros(n)
    np.add.at(vec, labels_ids, values)
    return vec / vec.sum()


def _by_label(values, column, refusal):
    """``values`` (a mapping or Series of labels, or a DataFrame of ``vertex`` and ``column``) as
    a Series indexed by label; a DataFrame without those columns is refused with ``refusal``."""
    if isinstance(values, pd.DataFrame):
        if not {"vertex", column} <= set(values.columns):
            raise DgraphInputError(refusal)
        return pd.Series(values[column].to_numpy(), index=values["vertex"])
    return pd.Series(values)


def _start_vector(graph, nstart):
    """A future of ``nstart`` (an earlier result or a mapping of labels) as a vector by placed id."""
    from dgraph.updates.change import placed

    if hasattr(nstart, "dask"):
        nstart = nstart.compute()
    chosen = _by_label(
        nstart, "pagerank", "an nstart DataFrame needs columns 'vertex' and 'pagerank' (pagerank's result)"
    )
    vals = chosen.to_numpy(dtype=np.float64)
    ids = placed(graph, pd.Index(chosen.index))
    keep = ids >= 0
    if (vals < 0).any() or not np.isfinite(vals).all() or vals[keep].sum() <= 0:
        raise DgraphInputError("nstart values must be finite, non-negative and not all zero on the graph's vertices")
    return graph.client.submit(_personalization_vector, ids[keep], vals[keep], graph.num_vertices)


def pagerank(
    graph: Graph,
    *,
    alpha: float = 0.85,
    max_iter: int = 100,
    tol: float = 1e-6,
    personalization: Mapping[Hashable, float] | pd.Series | pd.DataFrame | None = None,
    weight: Weight = GRAPH_WEIGHT,
    nstart: Mapping[Hashable, float] | pd.Series | pd.DataFrame | dd.DataFrame | None = None,
) -> dd.DataFrame:
    """PageRank of every vertex.

    Parameters
    ----------
    graph : dgraph.Graph
    alpha : float
        Damping factor, in (0, 1].
    max_iter : int
        Maximum number of power iterations.
    tol : float
        Stop when the L1 change of the vector is below ``num_vertices * tol``; ``0`` runs exactly
        ``max_iter`` iterations.
    personalization : dict, pandas Series or DataFrame [vertex, values], optional
        Teleport (and dangling) distribution over vertices, by label; unlisted vertices get 0.
    weight : str or None, optional
        Left out: the graph's weight, if it was built with one. ``None``: every arc counts 1.
        A name: any numeric edge attribute (``g.edge_attrs``), for this call.
    nstart : dict, Series or DataFrame [vertex, pagerank], optional
        The iteration's starting vector, by label (networkx's ``nstart``): an earlier result,
        for instance on the graph before an update, so that it converges in fewer iterations.
        Unlisted vertices start at 0, labels the graph lacks are left out, and the values are
        scaled to sum to 1. The fixed point is the same; only the iterations to reach it change.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``vertex`` and ``pagerank``.

    Notes
    -----
    One superstep per iteration (plus one to plan the exchange; none on one rank), moving a
    contribution per (vertex, rank) pair where the rank holds an in-arc from the vertex: at most
    n (P - 1) of them, far fewer on graphs with locality such as road networks and grids.
    Contributions are float32 (4 bytes) only where the tolerance allows them: where the accuracy
    the run asks for in L1, ``n * tol``, is at least ten times ``alpha / (1 - alpha) * 2**-24``
    (3.4e-6 at ``alpha=0.85``); each rank is then within ``alpha / (1 - alpha) * 2**-24`` of the
    float64 iteration's, relatively. Tighter runs, and ``tol=0`` (exactly ``max_iter`` float64
    iterations, as LDBC's PageRank), use float64 (8 bytes). A ``ConvergenceWarning`` is
    issued when ``tol > 0`` and the iteration did not converge within ``max_iter``. Results agree with
    ``networkx.pagerank`` to about ``tol``.

    References
    ----------
    L. Page, S. Brin, R. Motwani, T. Winograd, "The PageRank citation ranking", 1999.

    Examples
    --------
    >>> import dgraph
    >>> g = dgraph.datasets.load("karate")
    >>> pr = dgraph.algorithms.pagerank(g).compute()
    >>> round(float(pr.pagerank.sum()), 6)
    1.0
    """
    alpha = number(alpha, "alpha", low=0, high=1, low_open=True)
    max_iter = integer(max_iter, "max_iter", minimum=1)
    tol = number(tol, "tol", low=0)
    graph, weight = weighed(graph, weight, "pagerank")
    if weight is not None:
        lowest = min(graph.block_facts(_lightest))
        if not lowest >= 0:
            raise DgraphInputError(
                f"pagerank needs non-negative weights (a walk's step probabilities); column {weight!r} holds {lowest}"
            )
    pers = None
    if personalization is not None:
        chosen = _by_label(personalization, "values", "a personalization DataFrame needs columns 'vertex' and 'values'")
        vals = chosen.to_numpy(dtype=np.float64)
        if (vals < 0).any() or not np.isfinite(vals).all() or vals.sum() <= 0:
            raise DgraphInputError("personalization values must be finite, non-negative and not all zero")
        ids = graph.encode_vertices(chosen.index.tolist(), "personalization vertex")
        pers = graph.client.submit(_personalization_vector, ids, vals, graph.num_vertices)
    start = None if nstart is None else _start_vector(graph, nstart)
    frame, stats = graph.runner.run_to_frame(
        pagerank_kernel,
        reverse=True,
        name="pagerank",
        placement="layout",
        alpha=float(alpha),
        max_iter=int(max_iter),
        tol=float(tol),
        personalization=pers,
        weighted=weight is not None,
        hub_reads=HUB_READS,
        segment=SEGMENT,
        nstart=start,
    )
    if tol > 0 and not stats.info.get("converged"):
        warnings.warn(
            f"pagerank did not converge to tol={tol} in {max_iter} iterations", ConvergenceWarning, stacklevel=2
        )
    return frame
