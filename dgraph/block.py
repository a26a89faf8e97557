"""A rank's block: the CSR of the arcs a rank holds, built from the pieces placement sends it."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from . import kernels
from .owners import grouped_by_owner, index_type, keyed, owner_of

INPLACE_CHUNK = 1 << 22  # arcs re-indexed at a time in place (the temporary is this long, not the block)
CONTIGUOUS_CHECK = 1024  # space_slots looks for a whole stretch from this many ids (below, a search is as cheap)


@dataclass
class Block:
    """Arcs of one rank in CSR form.

    Rows are the placed ids ``lo..hi-1`` (row = id - lo): the rank's own vertices in an owner
    block, the layout's row range otherwise (2D: the mesh row's vertices). With ``row_ids`` the
    rows are those placed ids instead and ``lo..hi-1`` their positions in an index (1.5D: the
    heavy vertices by degree, row = heavy index - lo). In an ``"out"`` block a row lists
    out-neighbours, in an ``"in"`` block in-neighbours, sorted by canonical id within a row.
    ``name`` says which subgraph of a layout it holds ("" when only one).

    ``space`` is the rank's vertex space: the sorted placed ids of every vertex the block
    touches (its rows, its arcs' other ends, and the vertices its rank owns), and ``indices``
    are positions in it (int32 below 2**31 of them), not placed ids. So whatever a rank keeps per
    vertex has one slot per vertex of its space (its own plus its ghosts), not one per vertex
    of the graph, and kernels index it with ``indices`` directly; ``space[indices]`` are the
    placed ids. Since ``space`` is sorted, positions order vertices as placed ids do, and the
    rank's own vertices (a contiguous range of placed ids) are a contiguous range of slots.
    ``space_key`` is the canonical id of each slot where the placement reorders vertices (None
    where placed ids are canonical): what ties are broken by, for the vertices the rank reads.
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
    space: np.ndarray | None = None  # see above; None only for a block made by hand with placed ids
    space_key: np.ndarray | None = None

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

    def slots(self, ids):
        """Positions in ``space`` of placed ids that are in it (rows, owned vertices, heads)."""
        return np.searchsorted(self.space, ids)

    def row_slots(self):
        """Position in ``space`` of every row."""
        if self.row_ids is not None:
            return self.slots(self.row_ids)
        return np.arange(self.nlocal, dtype=np.int64) + int(np.searchsorted(self.space, self.lo))

    def columns(self):
        """The placed id of every arc's other end (``space[indices]``)."""
        return self.space[self.indices]

    def degree(self):
        return np.diff(self.indptr)

    def rows_are_sets(self, lo):
        """Whether every row already is its sorted distinct neighbours without the row's own
        vertex (slot ``lo + row``): checked once per ``lo``, as a block does not change."""
        known = self.__dict__.setdefault("_rows_are_sets", {})
        if lo not in known:
            known[lo] = kernels.neighbour_sets_already(self, lo)
        return known[lo]

    def loop_counts(self):
        """Self-loops per row, found a bounded run of rows at a time (a graph without loops,
        as most are, costs nothing)."""
        out = np.zeros(self.nlocal, dtype=np.int64)
        if not self.loops:
            return out
        slots = self.row_slots()
        cuts = np.unique(np.r_[np.searchsorted(self.indptr, np.arange(0, self.narcs, INPLACE_CHUNK)), self.nlocal])
        for a, b in zip(cuts[:-1], cuts[1:]):
            rows = np.repeat(np.arange(a, b), np.diff(self.indptr[a : b + 1]))
            np.add.at(out, rows[slots[rows] == self.indices[self.indptr[a] : self.indptr[b]]], 1)
        return out

    def __post_init__(self):
        if self.space is None:  # made by hand with placed ids: give it its space
            self.space, self.indices = vertex_space(self.n, self.indices, self.rows())


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

    @property
    def space(self):
        """The vertex space every part shares (``share_space``)."""
        return self.parts[0].space

    @property
    def space_key(self):
        return self.parts[0].space_key


def vertex_space(n, indices, *ids, ranges=(), inplace=False):
    """(space, positions): the sorted distinct placed ids of ``indices``, of the arrays ``ids``
    and of the ranges ``(lo, hi)``, and ``indices`` as positions in it (written over ``indices``
    itself with ``inplace`` when their types allow: a block's construction holds its arcs once).
    Marks a table of the graph's ``n`` vertices, so it costs O(n + arcs) once, at construction."""
    seen = np.zeros(n, dtype=bool)
    seen[indices] = True
    for a in ids:
        seen[a] = True
    for lo, hi in ranges:
        seen[lo:hi] = True
    space = np.flatnonzero(seen)
    dtype = index_type(space.size)
    slot = np.cumsum(seen, dtype=dtype)
    slot -= 1
    del seen
    if not (inplace and indices.dtype == dtype):
        return space, slot[indices]
    for a in range(0, indices.size, INPLACE_CHUNK):
        indices[a : a + INPLACE_CHUNK] = slot[indices[a : a + INPLACE_CHUNK]]
    return space, indices


def space_slots(space, ids):
    """(slots, inside): positions of placed ids in a sorted ``space``, and which are in it.
    Ids within a stretch the space holds whole (a rank's own vertices always are one) are
    offsets from its start: no search."""
    if ids.size >= CONTIGUOUS_CHECK and space.size:
        lo, hi = int(ids.min()), int(ids.max())
        a = int(np.searchsorted(space, lo))
        if a + hi - lo < space.size and space[a] == lo and space[a + hi - lo] == hi:
            return ids - (lo - a), np.ones(ids.size, dtype=bool)
    return kernels.positions(space, ids)


def common_space(blocks):
    """``blocks`` (one rank's: out and in) re-indexed into one space, the union of theirs: the
    blocks themselves when they share one already, else copies of their indices."""
    spaces = {id(b.space): b for b in blocks}
    if len(spaces) == 1:
        return list(blocks)
    space = kernels.union(*[b.space for b in spaces.values()])
    space_key = None
    if blocks[0].space_key is not None:
        space_key = np.empty(space.size, blocks[0].space_key.dtype)
        for b in spaces.values():
            space_key[np.searchsorted(space, b.space)] = b.space_key
    return [_into(b, space, space_key) for b in blocks]


def _into(block, space, space_key):
    if isinstance(block, Subgraphs):
        return dataclasses.replace(block, parts=[_into(p, space, space_key) for p in block.parts])
    slots = np.searchsorted(space, block.space).astype(index_type(space.size))
    return dataclasses.replace(block, space=space, space_key=space_key, indices=slots[block.indices])


def share_space(parts, own, key=None):
    """The parts of one rank's Subgraphs re-indexed into one space (the union of theirs and of
    the owned range ``own``), so one array per vertex serves every part (``key``: the graph's
    placed id -> canonical id, None where they are equal)."""
    lo, hi = own
    space = kernels.union(*[p.space for p in parts], np.arange(lo, hi, dtype=np.int64))
    space_key = _space_key(key, space)  # one array the parts share, as they share the space
    return [_into(p, space, space_key) for p in parts]


def _space_key(key, space):
    """The canonical ids of ``space``: int32, as every id of a placement that reorders fits
    (``owners.KEYED_LIMIT``)."""
    return None if key is None else np.asarray(key)[space].astype(np.int32)


def keyed_run(ctx):
    """Whether a run's blocks keep canonical ids (its graph's placement reorders vertices), so
    the ids it compares are keyed (``owners.keyed``)."""
    return any(ctx.blocks[r][0].space_key is not None for r in ctx.ranks)


def keyed_ids(block, slots):
    """The ids of the vertices at ``slots`` of a block's space as ties are broken by: placed ids
    that sort as canonical ids do (``owners.keyed``)."""
    return keyed(block.space[slots], None if block.space_key is None else block.space_key[slots])


def own_canonical(block, lo, hi):
    """Canonical ids of the placed ids lo..hi-1, which the block's rank owns."""
    if block.space_key is None:
        return np.arange(lo, hi, dtype=np.int64)
    first = int(np.searchsorted(block.space, lo))
    return block.space_key[first : first + hi - lo].astype(np.int64)


def block_arcs(block):
    """(rows, cols, weights) of every arc of a block or of all its subgraphs, in placed ids."""
    parts = block.parts
    rows = np.concatenate([np.repeat(p.rows(), p.degree()) for p in parts])
    cols = np.concatenate([p.columns() for p in parts])
    weights = None if parts[0].weights is None else np.concatenate([p.weights for p in parts])
    return rows, cols, weights


def light_arcs(block, delta):
    """A copy of a weighted block (or of each of its subgraphs) with only its arcs lighter than
    ``delta``: delta-stepping's light arcs, so a bucket's rounds do not scan the heavy ones."""
    parts = []
    for p in block.parts:
        ptr, idx, w, loops = kernels.light_rows(p.indptr, p.indices, p.weights, float(delta), p.row_slots())
        parts.append(dataclasses.replace(p, indptr=ptr, indices=idx, weights=w, loops=loops))
    return dataclasses.replace(block, parts=parts) if isinstance(block, Subgraphs) else parts[0]


def split_by_owner(rows, cols, weights, bounds, layout=None, extra=None, narrow=False):
    """Cut arcs into one piece per rank: the owner of ``rows`` (placed ids), or with a layout the
    rank that stores the arc (``layout.arc_ranks``). ``narrow``: the pieces hold the ids as
    int32 when every placed id fits (a graph's construction holds all its pieces at once)."""
    owner = owner_of(rows, bounds) if layout is None else layout.arc_ranks(rows, cols, bounds, extra)
    order = grouped_by_owner(owner, bounds.size - 1)
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


def build_block(rank, lo, hi, n, direction, key, dedup, *pieces, row_ids=None, name="", own=None):
    """Build ``rank``'s CSR from the pieces sent to it (read where they are): row of an arc = its
    placed id minus ``lo``, or with ``row_ids`` its position there (and ``hi = lo + len(row_ids)``).
    ``own``: the (lo, hi) placed ids the rank owns, put in its vertex space with the rows."""
    offset = lo
    if row_ids is not None:  # rows lo..hi-1 of an index (1.5D: heavy vertices by degree)
        hi, offset = lo + row_ids.size, 0
        pieces = [(_position(row_ids, rows), cols, w) for rows, cols, w in pieces]
    indptr, indices, weights = kernels.csr_from_pieces(pieces, hi - lo, offset, key, dedup, index_dtype=index_type(n))
    return csr_block(rank, lo, hi, n, direction, indptr, indices, weights, row_ids, name, own, key)


def csr_block(rank, lo, hi, n, direction, indptr, indices, weights, row_ids=None, name="", own=None, key=None):
    """The Block of a built CSR whose ``indices`` are placed ids (turned into positions in the
    block's vertex space, in place); ``key``: placed id -> canonical id, None where equal."""
    ids = row_ids if row_ids is not None else np.arange(lo, hi, dtype=np.int64)
    ranges = ([own] if own is not None else []) + ([] if row_ids is not None else [(lo, hi)])
    space, indices = vertex_space(n, indices, *([] if row_ids is None else [row_ids]), ranges=ranges, inplace=True)
    rows = np.searchsorted(space, ids)
    loops = kernels.count_loops(indptr, indices, rows)
    space_key = _space_key(key, space)
    return Block(
        rank, lo, hi, n, direction, indptr, indices, weights, loops, row_ids, name, space=space, space_key=space_key
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
