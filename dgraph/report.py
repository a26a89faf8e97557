"""The partition report: how a layout spread a graph over ranks, and what a superstep will move.

``layout_report(graph)`` gives one row per rank: arcs stored, vertices owned, source rows its
block covers, ghosts (vertices its arcs touch that other ranks own), bytes resident, and the
messages and bytes the rank sends in one dense superstep, predicted from the blocks. The dense
superstep is an edge-map push with every vertex active, a float value each and a sum merge (what
PageRank-like algorithms do every iteration): the frontier is gathered to the ranks whose rows
hold it (2D: the mesh row), and every rank sends each owner the distinct heads it reached with
their sums. ``measure=True`` runs exactly that superstep on the cluster and adds the runtime's
counted messages and bytes beside the prediction.

For layouts with subgraphs (1.5D) the frame also has one ``arcs_<subgraph>`` column each. The
summary (``report.attrs["summary"]``) gives max/mean imbalance of arcs (overall and per
subgraph) and of owned vertices, the predicted dense-superstep totals, and the per-rank peer
bound of a sparse superstep.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .block import block_arcs
from .edgemap import EdgeMap, heavy_index
from .kernels import union, unique
from .owners import owner_of


def _block_facts(block, bounds, layout):
    """What one rank's layout block holds, and whom its dense superstep talks to, computed where
    the block lives."""
    rank = block.rank
    lo, hi = int(bounds[rank]), int(bounds[rank + 1])
    rows, cols, _ = block_arcs(block)
    heads = unique(cols)
    rows = unique(rows)
    classes = heavy_index(block)
    gather = {}  # peer -> (vertices sent, the universe they are numbered in, header bytes)
    for d, cs in layout.push_targets(rank).items():
        k = hi - lo if cs is None else int(np.count_nonzero(np.isin(classes[lo:hi], cs)))
        if cs is None or k:
            gather[d] = (k, hi - lo if cs is None else k, 0 if cs is None else 1)
    facts = {
        "rank": rank,
        "arcs": block.narcs,
        "owned": hi - lo,
        "rows": int(sum(p.nlocal for p in block.parts)),
        "ghosts": int(union(rows[(rows < lo) | (rows >= hi)], heads[(heads < lo) | (heads >= hi)]).size),
        "bytes_resident": int(
            sum(
                p.indptr.nbytes + p.indices.nbytes + (p.weights.nbytes if p.weights is not None else 0)
                for p in block.parts
            )
        ),
        "gather": gather,
        "heads_per_owner": np.bincount(owner_of(heads, bounds), minlength=bounds.size - 1),
    }
    if len(block.parts) > 1:
        facts.update({f"arcs_{p.name}": p.narcs for p in block.parts})
    return facts


def _packed(k, size, values):
    """Bytes of an edge-map message of k ids (bitmap when smaller) and ``values`` 8-byte arrays."""
    if k == 0 or size == 0:
        return 8 * values * k
    head = (size + 7) // 8 if k * 64 > size else 8 * k
    return head + 8 * values * k


def _predict(facts, bounds):
    P = bounds.size - 1
    size = np.diff(bounds)
    msgs, nbytes = np.zeros(P, np.int64), np.zeros(P, np.int64)
    for f in facts:
        r = f["rank"]
        for d, (k, universe, header) in f["gather"].items():  # gather: r's active vertices with their values
            msgs[r] += 1
            nbytes[r] += header + _packed(k, universe, 1)
        for d, k in enumerate(f["heads_per_owner"]):  # scatter: heads, sums and tails to owners
            if d != r and k:
                msgs[r] += 1
                nbytes[r] += _packed(int(k), int(size[d]), 2)
    return msgs, nbytes


def dense_superstep_kernel(ctx, bounds, layout):
    """The superstep the report predicts: push from every vertex, float values, sum merge."""
    em = EdgeMap(ctx, bounds, layout=layout)
    frontier = {r: np.arange(em.size(r)) for r in ctx.ranks}
    em(frontier, {r: np.ones(em.size(r)) for r in ctx.ranks}, None, "sum")
    return {r: {} for r in ctx.ranks}


def layout_report(graph, measure=False):
    """Per-rank placement facts and predicted (and optionally measured) dense-superstep traffic.

    Examples
    --------
    >>> import dgraph
    >>> g = dgraph.generators.kronecker_graph(8, ranks=4, layout="2d")
    >>> rep = g.layout_report()
    >>> int(rep.arcs.sum()) == g.num_arcs, rep.attrs["summary"]["mesh"]
    (True, '2 x 2')
    """
    facts = graph.each_block(_block_facts, graph.bounds, graph.layout)
    facts.sort(key=lambda f: f["rank"])
    msgs, nbytes = _predict(facts, graph.bounds)
    rep = pd.DataFrame([{k: v for k, v in f.items() if k not in ("heads_per_owner", "gather")} for f in facts])
    rep["dense_messages"], rep["dense_bytes"] = msgs, nbytes
    if measure:
        graph.run(dense_superstep_kernel, placement="layout", name="layout-report")
        stats = graph.last_stats
        rep["measured_messages"] = stats.messages.sum(axis=1)
        rep["measured_bytes"] = stats.bytes.sum(axis=1)
    layout = graph.layout
    rows, cols = (getattr(layout, "rows", 1), getattr(layout, "cols", graph.nranks))
    peers = max(len(set(layout.push_peers(r)) | set(layout.pull_peers(r)) | {r}) - 1 for r in range(graph.nranks))
    per_subgraph = {f"{c}_max_over_mean": _imbalance(rep[c]) for c in rep.columns if c.startswith("arcs_")}
    rep.attrs["summary"] = {
        "layout": repr(layout),
        "mesh": f"{rows} x {cols}",
        "ranks": graph.nranks,
        "arcs_max_over_mean": _imbalance(rep.arcs),
        "owned_max_over_mean": _imbalance(rep.owned),
        **per_subgraph,
        "dense_messages_per_rank_max": int(msgs.max()),
        "dense_bytes_total": int(nbytes.sum()),
        "sparse_peers_per_rank_max": peers,
    }
    if graph.store.extra is not None:  # what the plan decided (1.5D: thresholds and classes)
        rep.attrs["summary"].update(graph.client.submit(layout.plan_facts, graph.store.extra, pure=False).result())
    return rep


def _imbalance(col):
    mean = float(col.mean())
    return round(float(col.max()) / mean, 4) if mean else 1.0
