"""A rank's block: the CSR of the arcs a rank holds, built from the pieces placement sends it."""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from dask.sizeof import sizeof

from . import kernels
from .owners import grouped_by_owner, index_type, keyed, owner_of

INPLACE_CHUNK = 1 << 22  # arcs re-indexed at a time in place (the temporary is this long, not the block)
CHUNK_ARCS = 1 << 22  # arcs of a block cut at a time when it is placed anew
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

    ``attrs`` are the block's named per-arc columns (edge attributes other than the weight), in
    arc order like ``indices`` and ``weights``; None when the graph has none.
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
    attrs: dict[str, np.ndarray] | None = None

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
        """The vertex space every part shares (``BlockBuilder.finish`` makes one)."""
        return self.parts[0].space

    @property
    def space_key(self):
        return self.parts[0].space_key


@sizeof.register(Block)
@sizeof.register(Subgraphs)
def _block_bytes(block):
    """The bytes of a block's arrays, each once (a rank's subgraphs share their vertex space):
    what dask's memory manager weighs a block by, so that it counts blocks as the data they are
    and, past its target, spills them to disk like any other result."""
    arrays = {}
    for part in [block, *block.parts] if isinstance(block, Subgraphs) else [block]:
        for f in dataclasses.fields(part):
            value = getattr(part, f.name)
            if isinstance(value, np.ndarray):
                arrays[id(value)] = value.nbytes
        for value in (getattr(part, "attrs", None) or {}).values():
            arrays[id(value)] = sizeof(value)  # an object column: its strings too
    light = block.__dict__.get("_light")  # (light_arcs' copy, kept with the block)
    kept = [a for p in block.parts for v in p.__dict__.get("_kept", {}).values() for a in _arrays(v)]
    return sum(arrays.values()) + (_block_bytes(light[1]) if light else 0) + sum(a.nbytes for a in kept)


def _arrays(kept_value):
    return () if kept_value is None else kept_value if isinstance(kept_value, tuple) else (kept_value,)


def vertex_space(n, indices, *ids, ranges=(), inplace=False, dtype=None):
    """(space, positions): the sorted distinct placed ids of ``indices``, of the arrays ``ids``
    and of the ranges ``(lo, hi)``, and ``indices`` as positions in it (written over ``indices``
    itself with ``inplace`` when their types allow: a block's construction holds its arcs once),
    of type ``dtype`` (left out: int32 while they fit).
    Marks a table of the graph's ``n`` vertices, so it costs O(n + arcs) once, at construction."""
    space, slot = _marked_space(n, [indices, *ids], ranges, dtype)
    return space, _positions(slot, indices, inplace, index_type(n) if dtype is None else dtype)


def _marked_space(n, arrays, ranges, dtype=None):
    """(space, slot): the sorted distinct placed ids of ``arrays`` and ``ranges``, and the
    position in it of each of the ``n`` placed ids (meaningful for those in it); slot None
    when a range holds every placed id (a rank that owns them all): each id is its position."""
    if any(lo <= 0 and n <= hi for lo, hi in ranges):
        return np.arange(n, dtype=np.intp), None
    seen = np.zeros(n, dtype=bool)
    for a in arrays:
        seen[a] = True
    for lo, hi in ranges:
        seen[lo:hi] = True
    space = np.flatnonzero(seen)
    slot = np.cumsum(seen, dtype=index_type(space.size) if dtype is None else dtype)
    slot -= 1
    return space, slot


def _positions(slot, indices, inplace, width):
    if slot is None:  # every id is its own position
        return indices.astype(width, copy=not inplace)
    if not (inplace and indices.dtype == slot.dtype):
        return slot[indices]
    for a in range(0, indices.size, INPLACE_CHUNK):
        indices[a : a + INPLACE_CHUNK] = slot[indices[a : a + INPLACE_CHUNK]]
    return indices


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


def space_key_of(key, space):
    """The canonical ids of ``space``: int32, as every id of a placement that reorders fits
    (``owners.KEYED_LIMIT``)."""
    return None if key is None else np.asarray(key)[space].astype(np.int32)


def owner_rows(block, lo, hi):
    """Whether a block is one CSR whose rows are exactly the placed ids [lo, hi): a rank's own
    vertices, in a 1D owner block."""
    parts = block.parts
    return len(parts) == 1 and parts[0].row_ids is None and (parts[0].lo, parts[0].hi) == (lo, hi)


def keyed_run(ctx):
    """Whether a run's blocks keep canonical ids (its graph's placement reorders vertices), so
    the ids it compares are keyed (``owners.keyed``)."""
    return any(ctx.blocks[r][0].space_key is not None for r in ctx.ranks)


def keyed_ids(block, slots):
    """The ids of the vertices at ``slots`` of a block's space as ties are broken by: placed ids
    that sort as canonical ids do (``owners.keyed``)."""
    if block.space_key is None:
        return keyed(block.space[slots], None)
    return kernels.keyed_at(block.space, block.space_key, slots)


def own_canonical(block, lo, hi):
    """Canonical ids of the placed ids lo..hi-1, which the block's rank owns."""
    if block.space_key is None:
        return np.arange(lo, hi, dtype=np.int64)
    first = int(np.searchsorted(block.space, lo))
    return block.space_key[first : first + hi - lo].astype(np.int64)


def block_arcs(block, chunk=None):
    """(rows, cols, weights) of every arc of a block or of all its subgraphs, in placed ids;
    with ``chunk`` (one of ``block_chunks``), of that chunk's rows only."""
    if chunk is not None:
        i, a, b = chunk
        p = block.parts[i]
        lo, hi = p.indptr[a], p.indptr[b]
        rows = np.repeat(p.rows()[a:b], np.diff(p.indptr[a : b + 1]))
        return rows, p.space[p.indices[lo:hi]], None if p.weights is None else p.weights[lo:hi]
    parts = block.parts
    rows = np.concatenate([np.repeat(p.rows(), p.degree()) for p in parts])
    cols = np.concatenate([p.columns() for p in parts])
    weights = None if parts[0].weights is None else np.concatenate([p.weights for p in parts])
    return rows, cols, weights


def block_attrs(block, chunk=None):
    """The per-arc columns (``Block.attrs``) of a block or of all its subgraphs, in
    ``block_arcs``' order; with ``chunk``, of that chunk's rows only. Empty without columns."""
    parts = block.parts
    if parts[0].attrs is None:
        return {}
    if chunk is not None:
        i, a, b = chunk
        p = parts[i]
        lo, hi = p.indptr[a], p.indptr[b]
        return {name: column[lo:hi] for name, column in p.attrs.items()}
    return {name: np.concatenate([p.attrs[name] for p in parts]) for name in parts[0].attrs}


def weighted_by(block, name):
    """The block (each of its subgraphs) with its per-arc column ``name`` as its weights: how a
    call weighs arcs by an edge attribute (float64, as weights are; the other arrays shared)."""
    parts = [dataclasses.replace(p, weights=as_weights(p.attrs[name])) for p in block.parts]
    return dataclasses.replace(block, parts=parts) if isinstance(block, Subgraphs) else parts[0]


def as_weights(column):
    """A numeric per-arc column as float64 weights (a null, in a nullable column, as NaN)."""
    if column.dtype != object:
        return column.astype(np.float64)
    return pd.array(column).to_numpy(dtype=np.float64, na_value=np.nan)


def block_chunks(block, arcs=CHUNK_ARCS):
    """A block's rows in chunks of about ``arcs`` arcs (a row is never split): (part index,
    first row, end row, arcs) of each; the first three are a chunk for ``block_arcs``."""
    out = []
    for i, p in enumerate(block.parts):
        cuts = np.unique(np.r_[np.searchsorted(p.indptr, np.arange(0, p.narcs, arcs), side="right") - 1, p.nlocal])
        out += [(i, int(a), int(b), int(p.indptr[b] - p.indptr[a])) for a, b in zip(cuts[:-1], cuts[1:])]
    return out


def light_arcs(block, delta):
    """A copy of a weighted block (or of each of its subgraphs) with only its arcs lighter than
    ``delta``: delta-stepping's light arcs, so a bucket's rounds do not scan the heavy ones. The
    block keeps the copy of the last ``delta`` asked for: a search from another source reuses it
    instead of a pass over every arc (Kronecker 20 on 2 ranks: a tenth of a search's time)."""
    kept = block.__dict__.get("_light")
    if kept is not None and kept[0] == delta:
        return kept[1]
    parts = []
    for p in block.parts:
        csr = kernels.LocalCSR(p.indptr, p.indices, p.weights)
        ptr, idx, w, loops = kernels.light_rows(csr, float(delta), p.row_slots())
        parts.append(dataclasses.replace(p, indptr=ptr, indices=idx, weights=w, loops=loops, attrs=None))
    light = dataclasses.replace(block, parts=parts) if isinstance(block, Subgraphs) else parts[0]
    block.__dict__["_light"] = (delta, light)
    return light


def kept(block, name, make):
    """``make()`` (an array, a tuple of arrays, or None), made once per block and kept with it
    under ``name``: what runs derive from a block alone and would otherwise derive again on every
    call. Counted in the block's dask weight."""
    store = block.__dict__.setdefault("_kept", {})
    if name not in store:
        store[name] = make()
    return store[name]


def has_kept(block, name):
    """Whether the block keeps ``name`` already (``kept`` would make nothing)."""
    return name in block.__dict__.get("_kept", {})


def slots_read(block):
    """The slots of a block's space that its arcs read, sorted, as ``index_type`` of the space:
    a pass that marks every arc, kept with the block, from which each exchange planned over its
    ghosts starts (``ghosts.GhostExchange``), instead of a pass over the arcs for every plan."""

    def marked():
        read = np.zeros(block.space.size, dtype=bool)
        read[block.indices] = True
        return np.flatnonzero(read).astype(index_type(block.space.size), copy=False)

    return kept(block, "slots read", marked)


def split_by_owner(rows, cols, weights, bounds, *, layout=None, extra=None, narrow=False, attrs=None):
    """Cut arcs into one piece per rank: the owner of ``rows`` (placed ids), or with a layout the
    rank that stores the arc (``layout.arc_ranks``). ``narrow``: the pieces hold the ids as
    int32 when every placed id fits (a graph's construction holds all its pieces at once). A
    piece is (rows, cols, weights or None), and with ``attrs`` (named per-arc columns) their
    columns too: (rows, cols, weights or None, {name: column})."""
    if narrow and bounds[-1] <= np.iinfo(np.int32).max:
        rows, cols = rows.astype(np.int32, copy=False), cols.astype(np.int32, copy=False)
    if bounds.size == 2:  # one rank holds every arc, in the order given
        return [(rows, cols, weights) if attrs is None else (rows, cols, weights, dict(attrs))]
    owner = owner_of(rows, bounds) if layout is None else layout.arc_ranks(rows, cols, bounds, extra)
    order = grouped_by_owner(owner, bounds.size - 1)
    cuts = np.searchsorted(owner[order], np.arange(bounds.size), side="left")
    rows, cols = rows[order], cols[order]
    weights = weights[order] if weights is not None else None
    pieces = [(rows[a:b], cols[a:b], None if weights is None else weights[a:b]) for a, b in zip(cuts[:-1], cuts[1:])]
    if attrs is None:
        return pieces
    attrs = {name: column[order] for name, column in attrs.items()}
    spans = zip(cuts[:-1], cuts[1:])
    return [(*p, {name: column[a:b] for name, column in attrs.items()}) for p, (a, b) in zip(pieces, spans)]


class BlockBuilder:
    """A rank's block built from the arcs placed on it (placed ids), in two passes over them:
    ``count`` each piece's arcs per row (or set ``counts`` from a degree pass), ``allocate``,
    ``fill`` each piece (every arc straight to its slot), ``finish``. A rank so holds its CSRs
    and the pieces in hand, never its arcs twice; ``build`` does it all for pieces in hand.

    ``csrs`` are the block's CSRs as ``(name, lo, hi, row_ids)`` (see Block): one, or a layout's
    subgraphs, then ``which(rows, cols)`` says each arc's CSR and ``heavy``, ``n_extreme`` are
    the layout's (see Subgraphs). ``own``: the (lo, hi) placed ids the rank owns, which its
    vertex space holds whatever its arcs. A piece is (rows, cols, weights or None) or, for a
    block with per-arc columns (``allocate``'s ``attrs``), (rows, cols, weights or None,
    {name: column}); the columns follow their arcs through the fill, the sort and the dedup.
    """

    def __init__(self, rank, n, csrs, own, *, which=None, heavy=None, n_extreme=0):
        self.rank, self.n, self.own, self.which = rank, n, own, which
        self.heavy, self.n_extreme = heavy, n_extreme
        self.csrs = [_CsrRows(*c) for c in csrs]
        self.lock = threading.Lock()  # a worker with several threads may add two pieces at once

    def _shares(self, rows, cols, weights=None, attrs=None, counting=False):
        """(CSR, rows, cols, weights, attrs) of the arcs of a piece each CSR holds (all but rows
        left out when ``counting``)."""
        if self.which is None:
            return [(self.csrs[0], rows, cols, weights, attrs)]
        which = self.which(rows, cols)
        order = grouped_by_owner(which, len(self.csrs))
        cuts = np.searchsorted(which[order], np.arange(len(self.csrs) + 1))
        rows = rows[order]
        if counting:
            return [(csr, rows[i:j], None, None, None) for csr, i, j in zip(self.csrs, cuts, cuts[1:])]
        cols, weights = cols[order], None if weights is None else weights[order]
        attrs = None if attrs is None else {k: v[order] for k, v in attrs.items()}
        return [
            (
                csr,
                rows[i:j],
                cols[i:j],
                None if weights is None else weights[i:j],
                None if attrs is None else {k: v[i:j] for k, v in attrs.items()},
            )
            for csr, i, j in zip(self.csrs, cuts, cuts[1:])
        ]

    def count(self, rows, cols, weights=None, attrs=None):
        for csr, rows, _, _, _ in self._shares(rows, cols, counting=True):
            at, offset = csr.at(rows)
            at = at - offset if offset else at
            with self.lock:
                kernels.count_reads(at, csr.counts)

    def nbytes(self, weighted, keyed, attrs=()):
        """(held, scratch): the bytes the counted block takes once allocated, and the most
        ``finish`` takes beside it for a moment (marks and slots of the n placed ids, and with
        ``keyed`` the canonical ids as int64 for sorting rows). ``attrs``: as ``allocate``'s."""
        rows = sum(csr.counts.size for csr in self.csrs)
        arcs = sum(int(csr.counts.sum()) for csr in self.csrs)
        per_arc = np.dtype(index_type(self.n)).itemsize + (8 if weighted else 0)
        per_arc += sum(np.dtype(dtype).itemsize for _, dtype in attrs)
        held = 16 * (rows + len(self.csrs)) + per_arc * arcs  # indptr and cursors; indices, weights
        return held, self.n * (1 + 4 + 8 + (8 if keyed else 0))  # seen, slot, space; key

    def allocate(self, weighted, attrs=()):
        """Room for the counted arcs, their weights when ``weighted``, and a column of each of
        ``attrs`` ((name, numpy dtype) pairs) per arc."""
        for csr in self.csrs:
            csr.allocate(weighted, index_type(self.n), attrs)

    def fill(self, rows, cols, weights=None, attrs=None):
        """Write the arcs to their rows' next free slots; False when one found no room (more
        arcs than were counted)."""
        ok = True
        for csr, rows, cols, weights, attrs in self._shares(rows, cols, weights, attrs):
            at, offset = csr.at(rows)
            w = np.empty(0) if weights is None else weights
            with self.lock:
                slots = kernels.fill_slots(at, offset, csr.fill) if csr.attrs else None
                ok &= kernels.fill_rows(at, cols, w, offset, csr.fill, csr.indptr[1:], csr.indices, csr.weights)
                if ok and slots is not None:
                    for name, column in csr.attrs.items():
                        column[slots] = attrs[name]
        return ok

    def full(self):
        """Whether every counted slot was filled."""
        return all(np.array_equal(csr.fill, csr.indptr[1:]) for csr in self.csrs)

    def finish(self, direction, key, dedup):
        """The Block (or Subgraphs): rows sorted by canonical id (``key``: placed id -> canonical
        id, None where equal), repeats dropped with ``dedup``, and every CSR's indices turned,
        in place, into positions of one vertex space they share."""
        for csr in self.csrs:
            csr.order(key, dedup)
        rows = [csr.row_ids for csr in self.csrs if csr.row_ids is not None]
        ranges = [self.own] + [(csr.lo, csr.hi) for csr in self.csrs if csr.row_ids is None]
        space, slot = _marked_space(self.n, [csr.indices for csr in self.csrs] + rows, ranges)
        space_key = space_key_of(key, space)
        parts = []
        for csr in self.csrs:
            indices = _positions(slot, csr.indices, True, index_type(self.n))
            ids = csr.row_ids if csr.row_ids is not None else np.arange(csr.lo, csr.hi, dtype=np.int64)
            loops = kernels.count_loops(csr.indptr, indices, np.searchsorted(space, ids))
            weights = csr.weights if csr.weighted else None
            parts.append(
                Block(self.rank, csr.lo, csr.hi, self.n, direction, csr.indptr, indices, weights, loops,
                      csr.row_ids, csr.name, space=space, space_key=space_key, attrs=csr.attrs or None)
            )  # fmt: skip
        if self.which is None:
            return parts[0]
        return Subgraphs(self.rank, parts, self.heavy, self.n_extreme)

    def build(self, pieces, direction, key, dedup, attrs=()):
        """The block of ``pieces`` in hand (``attrs``: as ``allocate``'s)."""
        for piece in pieces:
            self.count(*piece)
        self.allocate(bool(pieces) and pieces[0][2] is not None, attrs)
        for piece in pieces:
            self.fill(*piece)
        return self.finish(direction, key, dedup)


class _CsrRows:
    """One CSR of a BlockBuilder: its rows' arc counts, then its arrays and each row's cursor."""

    def __init__(self, name, lo, hi, row_ids):
        self.name, self.lo, self.row_ids = name, lo, row_ids
        self.hi = hi if row_ids is None else lo + row_ids.size
        if row_ids is not None:  # rows are positions in row_ids: found by a search of them sorted
            self.sorter = np.argsort(row_ids, kind="stable")
            self.sorted_ids = row_ids[self.sorter]
        self.counts = np.zeros(self.hi - self.lo, np.int64)

    def at(self, rows):
        """(row numbers + offset, offset) of arcs from the placed ids ``rows``."""
        if self.row_ids is None:
            return rows, self.lo
        return self.sorter[kernels.positions(self.sorted_ids, rows)[0]], 0

    def allocate(self, weighted, index_dtype, attrs=()):
        self.indptr = np.zeros(self.counts.size + 1, np.int64)
        np.cumsum(self.counts, out=self.indptr[1:])
        del self.counts
        m = int(self.indptr[-1])
        self.indices = np.empty(m, index_dtype)
        self.weighted = weighted
        self.weights = np.empty(m if weighted else 0)
        self.attrs = {name: np.empty(m, dtype) for name, dtype in attrs}
        self.fill = self.indptr[:-1].copy()

    def order(self, key, dedup):
        """Rows sorted by canonical id, repeats dropped with ``dedup`` (their room given back:
        a realloc, not a copy)."""
        if self.attrs:
            return self._order_carrying(key, dedup)
        self.indptr, kept = kernels.order_rows(self.indptr, self.indices, self.weights, key, dedup)
        del self.fill
        if kept < self.indices.size:
            self.indices.resize(kept, refcheck=False)
            if self.weighted:
                self.weights.resize(kept, refcheck=False)

    def _order_carrying(self, key, dedup):
        """``order`` through one permutation (``kernels.row_order``: the order ``order_rows``
        gives) that the per-arc columns follow too."""
        self.indptr, perm = kernels.row_order(self.indptr, self.indices, self.weights, key, dedup)
        self.indices = self.indices[perm]
        if self.weighted:
            self.weights = self.weights[perm]
        self.attrs = {name: column[perm] for name, column in self.attrs.items()}
        del self.fill


def reverse_pieces(block, chunk, bounds, layout=None, extra=None):
    """The arcs of a chunk of a block's rows (``block_chunks``), flipped and cut by the rank
    that stores the flipped arc."""
    rows, cols, w = block_arcs(block, chunk)
    attrs = block_attrs(block, chunk) or None  # in-blocks keep the arcs' attributes, for vertex programs
    return split_by_owner(cols, rows, w, bounds, layout=layout, extra=extra, narrow=True, attrs=attrs)


def degree_pieces(block, bounds, loops=False):
    """Each row's arc count (self-loops alone with ``loops``) in a block, cut by the row's
    owner: one (local ids, counts) per rank."""
    ids = np.concatenate([p.rows() for p in block.parts])
    counts = np.concatenate([p.loop_counts() if loops else p.degree() for p in block.parts])
    ids, counts = ids[counts > 0], counts[counts > 0]
    order = np.argsort(ids, kind="stable")
    ids, counts = ids[order], counts[order]
    cuts = np.searchsorted(ids, bounds)
    return [(ids[a:b] - bounds[r], counts[a:b]) for r, (a, b) in enumerate(zip(cuts[:-1], cuts[1:]))]


def owned_sum(size, *pieces):
    """The counts of ``pieces`` (``degree_pieces``' for one rank, from every block) summed per
    vertex the rank owns."""
    total = np.zeros(size, np.int64)
    for ids, counts in pieces:
        np.add.at(total, ids, counts)
    return total


def with_owned_degree(block, degree):
    """A copy of a layout block that also knows the whole degree of each vertex its rank owns
    (summed over the blocks that hold their arcs), so algorithms need not reduce it every run."""
    return dataclasses.replace(block, owned_degree=degree)


def owner_pieces(block, chunk, bounds):
    """The arcs of a chunk of a layout block's rows cut by the owner of their row (to build 1D
    owner blocks)."""
    return split_by_owner(*block_arcs(block, chunk), bounds, narrow=True)
