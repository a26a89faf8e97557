"""A rank's block: the CSR of the arcs a rank holds, built from the pieces placement sends it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import kernels
from .partitioners.base import owner_of


@dataclass
class Block:
    """Arcs of one rank in CSR form.

    Rows are the placed ids ``lo..hi-1`` (row = id - lo): the rank's own vertices in an owner
    block, the layout's row range otherwise (2D: the mesh row's vertices); ``indices`` are
    placed ids of the other endpoint, sorted by canonical id within a row. In an ``"out"`` block
    a row lists out-neighbours, in an ``"in"`` block in-neighbours.
    """

    rank: int
    lo: int
    hi: int
    n: int
    direction: str
    indptr: np.ndarray
    indices: np.ndarray
    weights: np.ndarray | None
    loops: int

    @property
    def nlocal(self):
        return self.hi - self.lo

    @property
    def narcs(self):
        return int(self.indices.size)

    def degree(self):
        return np.diff(self.indptr)

    def loop_counts(self):
        rows = np.repeat(np.arange(self.nlocal, dtype=np.int64) + self.lo, self.degree())
        return np.bincount(rows[rows == self.indices] - self.lo, minlength=self.nlocal)


def split_by_owner(rows, cols, weights, bounds, layout=None):
    """Cut arcs into one piece per rank: the owner of ``rows`` (placed ids), or with a layout the
    rank that stores the arc (``layout.arc_ranks`` of the two owners)."""
    owner = owner_of(rows, bounds)
    if layout is not None:
        owner = layout.arc_ranks(owner, owner_of(cols, bounds))
    order = np.argsort(owner, kind="stable")
    cuts = np.searchsorted(owner[order], np.arange(bounds.size), side="left")
    rows, cols = rows[order], cols[order]
    weights = weights[order] if weights is not None else None
    return [
        (rows[a:b], cols[a:b], None if weights is None else weights[a:b])
        for a, b in zip(cuts[:-1], cuts[1:])
    ]


def build_block(rank, lo, hi, n, direction, key, dedup, *pieces):
    """Concatenate the pieces sent to ``rank`` and build its CSR."""
    rows = np.concatenate([p[0] for p in pieces]) if pieces else np.empty(0, np.int64)
    cols = np.concatenate([p[1] for p in pieces]) if pieces else np.empty(0, np.int64)
    weighted = bool(pieces) and pieces[0][2] is not None
    w = np.concatenate([p[2] for p in pieces]) if weighted else None
    indptr, indices, weights = kernels.build_csr(rows - lo, cols, hi - lo, weights=w, key=key, dedup=dedup)
    rows_back = np.repeat(np.arange(lo, hi, dtype=np.int64), np.diff(indptr))
    loops = int(np.count_nonzero(rows_back == indices))
    return Block(rank, lo, hi, n, direction, indptr, indices, weights, loops)


def block_rows(block):
    """The row (placed id) of every arc of a block."""
    return np.repeat(np.arange(block.lo, block.hi, dtype=np.int64), block.degree())


def reverse_pieces(block, bounds, layout=None):
    """The arcs of a block, flipped and cut by the rank that stores the flipped arc."""
    return split_by_owner(block.indices, block_rows(block), block.weights, bounds, layout)


def owner_pieces(block, bounds):
    """The arcs of a layout block cut by the owner of their row (to build 1D owner blocks)."""
    return split_by_owner(block_rows(block), block.indices, block.weights, bounds)
