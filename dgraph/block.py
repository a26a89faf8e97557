"""A rank's block: the CSR of the arcs a rank holds, built from the pieces placement sends it."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from . import kernels
from .owners import owner_of


@dataclass
class Block:
    """Arcs of one rank in CSR form.

    Rows are the placed ids ``lo..hi-1`` (row = id - lo): the rank's own vertices in an owner
    block, the layout's row range otherwise (2D: the mesh row's vertices). With ``row_ids`` the
    rows are those placed ids instead and ``lo..hi-1`` their positions in an index (1.5D: the
    heavy vertices by degree, row = heavy index - lo). ``indices`` are placed ids of the other
    endpoint (int32 when the graph has fewer than 2**31 vertices), sorted by canonical id within
    a row. In an ``"out"`` block a row lists out-neighbours, in an ``"in"`` block in-neighbours.
    ``name`` says which subgraph of a layout it holds ("" when only one).
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
    row_ids: np.ndarray | None = None
    name: str = ""
    owned_degree: np.ndarray | None = None  # degree of each vertex the rank owns, when rows aren't those

    @property
    def nlocal(self):
        return self.hi - self.lo

    @property
    def narcs(self):
        return int(self.indices.size)

    @property
    def parts(self):
        return [self]

    def rows(self):
        """Placed id of every row."""
        return self.row_ids if self.row_ids is not None else np.arange(self.lo, self.hi, dtype=np.int64)

    def degree(self):
        return np.diff(self.indptr)

    def loop_counts(self):
        rows = np.repeat(np.arange(self.nlocal, dtype=np.int64) + self.lo, self.degree())
        return np.bincount(rows[rows == self.indices] - self.lo, minlength=self.nlocal)


@dataclass
class Subgraphs:
    """A rank's arcs kept as several CSRs, one per subgraph of a layout (1.5D: EH2EH, E2L, H2L,
    L2E, L2H, L2L), with the layout's heavy vertices (placed ids, by degree; the first
    ``n_extreme`` are E)."""

    rank: int
    parts: list
    heavy: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    n_extreme: int = 0
    owned_degree: np.ndarray | None = None

    @property
    def narcs(self):
        return sum(p.narcs for p in self.parts)

    @property
    def loops(self):
        return sum(p.loops for p in self.parts)


def block_arcs(block):
    """(rows, cols, weights) of every arc of a block or of all its subgraphs."""
    parts = block.parts
    rows = np.concatenate([np.repeat(p.rows(), p.degree()) for p in parts])
    cols = np.concatenate([p.indices for p in parts])
    weights = None if parts[0].weights is None else np.concatenate([p.weights for p in parts])
    return rows, cols, weights


def weight_classes(block, delta):
    """(light, heavy): copies of a weighted block (or of each of its subgraphs) with only its arcs
    lighter than ``delta``, and with the others: delta-stepping's two kinds of arc, so a push
    along one kind does not scan the other."""
    halves = []
    for p in block.parts:
        ids = p.rows()
        light, heavy = kernels.split_rows(p.indptr, p.indices, p.weights, float(delta), ids)
        halves.append(
            tuple(
                dataclasses.replace(p, indptr=ptr, indices=idx, weights=w, loops=loops)
                for ptr, idx, w, loops in (light, heavy)
            )
        )
    if isinstance(block, Subgraphs):
        return tuple(dataclasses.replace(block, parts=[h[i] for h in halves]) for i in (0, 1))
    return halves[0]


def split_by_owner(rows, cols, weights, bounds, layout=None, extra=None, narrow=False):
    """Cut arcs into one piece per rank: the owner of ``rows`` (placed ids), or with a layout the
    rank that stores the arc (``layout.arc_ranks``). ``narrow``: the pieces hold the ids as
    int32 when every placed id fits (a graph's construction holds all its pieces at once)."""
    owner = owner_of(rows, bounds) if layout is None else layout.arc_ranks(rows, cols, bounds, extra)
    order = np.argsort(owner, kind="stable")
    cuts = np.searchsorted(owner[order], np.arange(bounds.size), side="left")
    if narrow and bounds[-1] <= np.iinfo(np.int32).max:
        rows, cols = rows.astype(np.int32), cols.astype(np.int32)
    rows, cols = rows[order], cols[order]
    weights = weights[order] if weights is not None else None
    return [(rows[a:b], cols[a:b], None if weights is None else weights[a:b]) for a, b in zip(cuts[:-1], cuts[1:])]


def concat_pieces(pieces):
    rows = np.concatenate([p[0] for p in pieces]) if pieces else np.empty(0, np.int64)
    cols = np.concatenate([p[1] for p in pieces]) if pieces else np.empty(0, np.int64)
    weighted = bool(pieces) and pieces[0][2] is not None
    return rows, cols, (np.concatenate([p[2] for p in pieces]) if weighted else None)


def build_block(rank, lo, hi, n, direction, key, dedup, *pieces, row_ids=None, name=""):
    """Build ``rank``'s CSR from the pieces sent to it (read where they are): row of an arc = its
    placed id minus ``lo``, or with ``row_ids`` its position there (and ``hi = lo + len(row_ids)``)."""
    offset = lo
    if row_ids is not None:  # rows lo..hi-1 of an index (1.5D: heavy vertices by degree)
        hi, offset = lo + row_ids.size, 0
        pieces = [(_position(row_ids, rows), cols, w) for rows, cols, w in pieces]
    # int32 indices when they fit: half the bytes per arc, resident and scanned
    dtype = np.int32 if n <= np.iinfo(np.int32).max else np.int64
    indptr, indices, weights = kernels.csr_from_pieces(pieces, hi - lo, offset, key, dedup, index_dtype=dtype)
    ids = row_ids if row_ids is not None else np.arange(lo, hi, dtype=np.int64)
    return Block(
        rank, lo, hi, n, direction, indptr, indices, weights, kernels.count_loops(indptr, indices, ids), row_ids, name
    )


def _position(row_ids, rows):
    order = np.argsort(row_ids)
    return order[np.searchsorted(row_ids[order], rows)]


def reverse_pieces(block, bounds, layout=None, extra=None):
    """The arcs of a block, flipped and cut by the rank that stores the flipped arc."""
    rows, cols, w = block_arcs(block)
    return split_by_owner(cols, rows, w, bounds, layout, extra, narrow=True)


def degree_pieces(block, bounds):
    """Each row's arc count in a block, cut by the row's owner: one (local ids, counts) per rank."""
    ids = np.concatenate([p.rows() for p in block.parts])
    counts = np.concatenate([p.degree() for p in block.parts])
    ids, counts = ids[counts > 0], counts[counts > 0]
    order = np.argsort(ids, kind="stable")
    ids, counts = ids[order], counts[order]
    cuts = np.searchsorted(ids, bounds)
    return [(ids[a:b] - bounds[r], counts[a:b]) for r, (a, b) in enumerate(zip(cuts[:-1], cuts[1:]))]


def with_owned_degree(block, size, *pieces):
    """A copy of a layout block that also knows the whole degree of each vertex its rank owns
    (summed over the blocks that hold its arcs), so algorithms need not reduce it every run."""
    degree = np.zeros(size, np.int64)
    for ids, counts in pieces:
        np.add.at(degree, ids, counts)
    return dataclasses.replace(block, owned_degree=degree)


def owner_pieces(block, bounds):
    """The arcs of a layout block cut by the owner of their row (to build 1D owner blocks)."""
    return split_by_owner(*block_arcs(block), bounds, narrow=True)
