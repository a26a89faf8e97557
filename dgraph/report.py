"""The partition report: how a layout spread a graph over ranks, and what a superstep will move.

``layout_report(graph)`` gives one row per rank: arcs stored, vertices owned, source rows its
block covers, ghosts (vertices its arcs touch that other ranks own), bytes resident, and the
messages and bytes the rank sends in one dense superstep, predicted from the blocks. The dense
superstep is an edge-map push with every vertex active, a float value each and a sum merge (what
PageRank-like algorithms do every iteration): the frontier is gathered to the ranks whose rows
hold it (2D: the mesh row), and every rank sends each owner the distinct heads it reached with
their sums. ``measure=True`` runs exactly that superstep on the cluster and adds the runtime's
counted messages and bytes beside the prediction.

The summary (``report.attrs["summary"]``) gives max/mean imbalance of arcs and owned vertices,
the predicted dense-superstep totals, and the per-rank peer bound of a sparse superstep.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .edgemap import EdgeMap
from .partitioners.base import owner_of

ARC_BYTES = 8  # one int64 head per arc (plus 8 per weight, counted from the block)


def _block_facts(block, bounds, layout):
    """What one rank's layout block holds, computed where it lives."""
    rank = block.rank
    lo, hi = int(bounds[rank]), int(bounds[rank + 1])
    heads = np.unique(block.indices)
    per_owner = np.bincount(owner_of(heads, bounds), minlength=bounds.size - 1)
    rows = np.arange(block.lo, block.hi)[block.degree() > 0]
    ghosts = np.union1d(rows[(rows < lo) | (rows >= hi)], heads[(heads < lo) | (heads >= hi)]).size
    resident = block.indptr.nbytes + block.indices.nbytes + (block.weights.nbytes if block.weights is not None else 0)
    return {"rank": rank, "arcs": block.narcs, "owned": hi - lo, "rows": block.hi - block.lo, "ghosts": int(ghosts),
            "bytes_resident": int(resident), "heads_per_owner": per_owner}


def _packed(k, size, values):
    """Bytes of an edge-map message of k ids (bitmap when smaller) and ``values`` 8-byte arrays."""
    if k == 0 or size == 0:
        return 8 * values * k
    head = (size + 7) // 8 if k * 64 > size else 8 * k
    return head + 8 * values * k


def _predict(facts, bounds, layout):
    P = bounds.size - 1
    size = np.diff(bounds)
    msgs, nbytes = np.zeros(P, np.int64), np.zeros(P, np.int64)
    for f in facts:
        r = f["rank"]
        for d in layout.push_peers(r):  # gather: all of r's vertices with their values
            if d != r:
                msgs[r] += 1
                nbytes[r] += _packed(int(size[r]), int(size[r]), 1)
        for d, k in enumerate(f["heads_per_owner"]):  # scatter: heads, sums and tails to owners
            if d != r and k:
                msgs[r] += 1
                nbytes[r] += _packed(int(k), int(size[d]), 2)
    return msgs, nbytes


def dense_superstep_kernel(ctx, bounds, key, layout):
    """The superstep the report predicts: push from every vertex, float values, sum merge."""
    em = EdgeMap(ctx, bounds, key, layout=layout)
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
    c = graph.client
    facts = c.gather([c.submit(_block_facts, b, graph.bounds, graph.layout, pure=False) for b in graph._blocks])
    facts.sort(key=lambda f: f["rank"])
    msgs, nbytes = _predict(facts, graph.bounds, graph.layout)
    rep = pd.DataFrame([{k: v for k, v in f.items() if k != "heads_per_owner"} for f in facts])
    rep["dense_messages"], rep["dense_bytes"] = msgs, nbytes
    if measure:
        graph.run(dense_superstep_kernel, placement="layout", name="layout-report")
        stats = graph.last_stats
        rep["measured_messages"] = stats.messages.sum(axis=1)
        rep["measured_bytes"] = stats.bytes.sum(axis=1)
    layout = graph.layout
    rows, cols = (getattr(layout, "rows", 1), getattr(layout, "cols", graph.nranks))
    peers = max(len(set(layout.push_peers(r)) | set(layout.pull_peers(r)) | {r}) - 1 for r in range(graph.nranks))
    rep.attrs["summary"] = {
        "layout": repr(layout),
        "mesh": f"{rows} x {cols}",
        "ranks": graph.nranks,
        "arcs_max_over_mean": _imbalance(rep.arcs),
        "owned_max_over_mean": _imbalance(rep.owned),
        "dense_messages_per_rank_max": int(msgs.max()),
        "dense_bytes_total": int(nbytes.sum()),
        "sparse_peers_per_rank_max": peers if layout.name != "1d" else graph.nranks - 1,
    }
    return rep


def _imbalance(col):
    mean = float(col.mean())
    return round(float(col.max()) / mean, 4) if mean else 1.0
