"""DistEdgeMap on the 1D layout and its two communication plans.

``EdgeMap`` (scatter, sparse push): apply a function to the out-arcs of a frontier and merge
the results at the owners of their heads (TDO-GP, Figure 6). ``GhostExchange`` (gather, dense
pull): give every rank the current values of all the vertices its arcs read.

An algorithm hands ``edge_map`` a frontier (per rank, the sorted local ids of its active
vertices, with one value each), a vectorized ``f(src, dst, weight, value) -> values`` and a
mergeable operator. Each rank evaluates ``f`` on the out-arcs of its frontier, pre-merges the
results per head (the 1D scatter plan: one bucket per peer, pre-merged at the sender), and every
owner merges what it receives. What to do with the merged values (the paper's write_back) stays
with the algorithm, which owns its vertex arrays.

Merges: ``"min"``, ``"max"``, ``"sum"``. With ``"min"``/``"max"`` the result also carries the
tail of the winning arc (smallest canonical id on ties), so algorithms get paths, not only values.
"""

from __future__ import annotations

import numpy as np

from . import kernels

MERGES = ("min", "max", "sum")


class EdgeMap:
    """The edge map of one run on one worker: its ranks' blocks, the rank bounds, tie keys.
    ``block=1`` pushes along the in-arcs (the reverse graph) of a run started with reverse."""

    def __init__(self, ctx, bounds, key, block=0):
        self.ctx = ctx
        self.bounds = np.asarray(bounds, dtype=np.int64)
        self.key = np.empty(0, np.int64) if key is None else key
        self.block = block  # which of a rank's blocks holds the arcs to push along (1: in-arcs)
        self.edges_examined = 0
        n = int(self.bounds[-1])
        self.scratch = (np.zeros(n), np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, dtype=np.bool_))

    def out_block(self, r):
        return self.ctx.blocks[r][self.block]

    def __call__(self, frontier, values, f, merge, total=None, total_op="sum"):
        """Push ``f`` along the out-arcs of ``frontier`` and merge at the heads' owners.

        ``frontier[r]``: sorted local ids of rank r's active vertices; ``values[r]``: one value
        per active vertex. Returns ``({r: (local ids, merged values, tails)}, totals)``;
        ``totals`` reduces ``total`` (one small array per rank) in the same superstep.
        """
        if merge not in MERGES:
            raise ValueError(f"merge must be one of {MERGES}, got {merge!r}")
        send = {}
        for r in self.ctx.ranks:
            out = self.out_block(r)
            pos, dst, w = kernels.frontier_arcs(out.indptr, out.indices, out.weights, frontier[r])
            self.edges_examined += dst.size
            tails = frontier[r][pos] + out.lo
            vals = np.asarray(f(tails, dst, w, values[r][pos]))
            ids, vals, tails = kernels.merge_by_id(dst, vals, tails, merge, self.key, self.scratch)
            cuts = np.searchsorted(ids, self.bounds)
            send[r] = {
                d: [ids[a:b], vals[a:b], tails[a:b]]
                for d, (a, b) in enumerate(zip(cuts[:-1], cuts[1:]))
                if b > a
            }
        if total is None:
            got, totals = self.ctx.alltoall(send), None
        else:
            got, totals = self.ctx.alltoall(send, total=total, op=total_op)
        merged = {}
        for r in self.ctx.ranks:
            parts = got[r]
            ids = np.concatenate([p[0] for _, p in parts]) if parts else np.empty(0, np.int64)
            vals = np.concatenate([p[1] for _, p in parts]) if parts else np.empty(0)
            tails = np.concatenate([p[2] for _, p in parts]) if parts else np.empty(0, np.int64)
            ids, vals, tails = kernels.merge_by_id(ids, vals, tails, merge, self.key, self.scratch)
            merged[r] = (ids - self.out_block(r).lo, vals, tails)
        return merged, totals


class GhostExchange:
    """The dense gather plan: each rank receives, every superstep, the values of the vertices
    its arcs read that other ranks own, and nothing else (TDO-GP E.1). Planned once per run:
    every rank asks each owner for the ids it needs (one superstep).

    ``blocks[r]`` lists the blocks whose ``indices`` rank r reads.
    """

    def __init__(self, ctx, blocks, bounds):
        self.ctx = ctx
        self.bounds = np.asarray(bounds, dtype=np.int64)
        n = int(self.bounds[-1])
        requests, self.need = {}, {}
        for r in ctx.ranks:
            wanted = np.zeros(n, dtype=bool)
            for b in blocks[r]:
                wanted[b.indices] = True
            lo, hi = self.bounds[r], self.bounds[r + 1]
            wanted[lo:hi] = False
            ids = np.flatnonzero(wanted)
            cuts = np.searchsorted(ids, self.bounds)
            self.need[r] = {d: ids[cuts[d] : cuts[d + 1]] for d in range(len(cuts) - 1) if cuts[d + 1] > cuts[d]}
            requests[r] = {d: [v] for d, v in self.need[r].items()}
        got = ctx.alltoall(requests)
        self.serve = {d: [(src, a[0] - int(self.bounds[d])) for src, a in got[d]] for d in ctx.ranks}

    def __call__(self, values, out, total=None, op="sum", changed=None):
        """Write every rank's ``values[r]`` (one per owned vertex) and the ghosts it needs into
        the worker's n-long array ``out``; reduce ``total`` in the same superstep.

        With ``changed[r]`` (a mask over rank r's vertices) only changed values are sent where
        that is smaller (the sparse form: positions and values); receivers keep the rest.
        """
        send = {}
        for r in self.ctx.ranks:
            out[self.bounds[r] : self.bounds[r + 1]] = values[r]
            send[r] = {}
            for dst, offsets in self.serve[r]:
                if changed is not None:
                    pos = np.flatnonzero(changed[r][offsets])
                    if 2 * pos.size < offsets.size:
                        send[r][dst] = [pos, values[r][offsets[pos]]]
                        continue
                send[r][dst] = [values[r][offsets]]
        if total is None:
            got, totals = self.ctx.alltoall(send), None
        else:
            got, totals = self.ctx.alltoall(send, total=total, op=op)
        self.written = []  # the ghost ids written this superstep
        for r in self.ctx.ranks:
            for src, arrays in got[r]:
                ids = self.need[r][src] if len(arrays) == 1 else self.need[r][src][arrays[0]]
                out[ids] = arrays[-1]
                self.written.append(ids)
        return totals


def fetch_rows(ctx, blocks, wanted, bounds):
    """Rows of other ranks' blocks: ``wanted[r]`` lists (sorted, unique) vertex ids whose row
    of the owner's ``blocks[owner]`` rank r needs. Two supersteps (requests, then rows).

    Returns ``{r: (ids, indptr, indices)}``: a CSR over ``ids`` holding those rows.
    """
    bounds = np.asarray(bounds, dtype=np.int64)
    requests = {}
    for r in ctx.ranks:
        cuts = np.searchsorted(wanted[r], bounds)
        requests[r] = {d: [wanted[r][a:b]] for d, (a, b) in enumerate(zip(cuts[:-1], cuts[1:])) if b > a and d != r}
    asked = ctx.alltoall(requests)
    replies = {}
    for d in ctx.ranks:
        b = blocks[d]
        replies[d] = {}
        for src, (ids,) in asked[d]:
            rows = ids - b.lo
            starts, ends = b.indptr[rows], b.indptr[rows + 1]
            counts = ends - starts
            offsets = np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(int(counts.sum()))
            replies[d][src] = [counts, b.indices[offsets]]
    got = ctx.alltoall(replies)
    out = {}
    for r in ctx.ranks:
        pieces = got[r]  # in source-rank order, as the requested ids are
        ids = np.concatenate([requests[r][s][0] for s, _ in pieces]) if pieces else np.empty(0, np.int64)
        counts = np.concatenate([p[0] for _, p in pieces]) if pieces else np.empty(0, np.int64)
        indices = np.concatenate([p[1] for _, p in pieces]) if pieces else np.empty(0, np.int64)
        indptr = np.zeros(ids.size + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        out[r] = (ids, indptr, indices)
    return out


def fetch(ctx, wanted, values, bounds):
    """Values at arbitrary vertices: ``wanted[r]`` any ids, ``values[r]`` one value per vertex
    rank r owns. Returns ``{r: values aligned with wanted[r]}`` after two supersteps (requests,
    then replies)."""
    bounds = np.asarray(bounds, dtype=np.int64)
    requests, inverse = {}, {}
    for r in ctx.ranks:
        ids, inverse[r] = np.unique(wanted[r], return_inverse=True)
        cuts = np.searchsorted(ids, bounds)
        requests[r] = {d: [ids[a:b]] for d, (a, b) in enumerate(zip(cuts[:-1], cuts[1:])) if b > a}
    asked = ctx.alltoall(requests)
    got = ctx.alltoall({d: {src: [values[d][ids - bounds[d]]] for src, (ids,) in asked[d]} for d in ctx.ranks})
    out = {}
    for r in ctx.ranks:
        parts = [a[0] for _, a in got[r]]  # in owner order, as the sorted unique ids
        vals = np.concatenate(parts) if parts else values[r][:0]
        out[r] = vals[inverse[r]]
    return out
