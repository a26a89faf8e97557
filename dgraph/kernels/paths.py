"""Rank-local shortest paths (``relax_local``): which search runs, on one thread
(``dijkstra``: a heap, buckets or a FIFO) or several (``delta_threads``)."""

from __future__ import annotations

import numpy as np

from .delta_threads import _relax_threads
from .dijkstra import _relax_buckets_numba, _relax_numba, _relax_numpy, _relax_unit_numba
from .engines import threads_for, twins

# Arcs per thread below which the rank-local search runs on one thread: two threads meet at a
# barrier three times per bucket, which costs more than a road network's buckets hold (a road of
# a few hundred thousand arcs is faster on one thread, a grid of millions on two; the rows of
# benchmarks/results/gap.md)
DELTA_GRAIN = 1 << 18


def relax_local(
    csr,
    lo,
    hi,
    dist,
    pred,
    seeds,
    bound,
    changed,
    key=None,
    ties=False,
    base=None,
    buckets=None,
    arcs=None,
    counts=None,
):
    """Shortest paths inside one rank: from ``seeds`` (local ids, their ``dist`` already set),
    relax the arcs of ``csr`` (a ``LocalCSR``) whose heads lie in [lo, hi) until nothing
    improves, expanding only vertices closer than ``bound``. Row u is the vertex whose index is
    lo + u and whose placed id is ``base`` + u (``base`` defaults to ``lo``: indices that are
    placed ids).
    Updates ``dist`` (float64), ``pred`` (the improving tail) and ``changed`` (bool) in place;
    returns how many arcs it scanned. ``csr.weights`` None: every arc costs 1. ``key``: the canonical id
    of each row's vertex where placed ids are not (None: they are); tails are then written as
    keyed ids (``owners.keyed``), as the edge map's are. With ``ties`` an offer equal to a
    vertex's distance takes over its predecessor when its tail is smaller; safe only where
    every arc adds to a distance (no zero weights), or predecessors could cycle.
    ``arcs``: the same arcs as ``weighted_arcs`` gives them, which lets the search on several
    threads read each arc's head and weight together and pack each vertex's state in 8 bytes,
    with the same results.
    Both engines give the same distances (the least fixpoint); without ``ties`` a tied
    predecessor may differ. ``buckets``: ``(width, slots, delta)`` for the numba engine to order
    its weighted search by buckets of that width (``bucket_queue``) instead of a heap; with
    ``kernels.threads()`` above 1 and ``DELTA_GRAIN`` arcs a thread, it runs delta-stepping on
    that many threads instead, with buckets ``delta`` wide (seeds whose distances lie more than
    the ring of buckets apart run on one).
    """
    indptr, indices, weights = csr
    w = np.empty(0) if weights is None else weights
    k = np.empty(0, np.int64) if key is None else key
    seeds = np.ascontiguousarray(seeds, dtype=np.int64)
    base = lo if base is None else base
    args = (indptr, indices, w, int(lo), int(hi), int(base), dist, pred, seeds, float(bound), changed, k, bool(ties))
    return int(_relax(*args, buckets, arcs, np.zeros(2, np.int64) if counts is None else counts))


def _relax_heap_or_fifo(
    indptr, indices, weights, lo, hi, base, dist, pred, seeds, bound, changed, key, ties, buckets, arcs, counts
):
    if weights.size == 0:  # unweighted: every arc costs 1
        return _relax_unit_numba(indptr, indices, lo, hi, base, dist, pred, seeds, bound, changed, key, ties)
    if buckets is not None:
        width, slots, delta = buckets
        buckets = (float(width), int(slots), float(delta))
        args = (indptr, indices, weights, lo, hi, base, dist, pred, seeds, bound, changed, key, ties)
        k = threads_for(indices.size, DELTA_GRAIN)
        scanned = _relax_threads(*args, buckets, k, arcs, counts) if k > 1 else None
        return _relax_buckets_numba(*args, buckets) if scanned is None else scanned
    return _relax_numba(indptr, indices, weights, lo, hi, base, dist, pred, seeds, bound, changed, key, ties)


_relax = twins("relax_local", numba=_relax_heap_or_fifo, numpy=_relax_numpy)
