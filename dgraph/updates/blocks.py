"""A rank's block changed on its worker: the block it had, with arcs added or removed.

A graph's update never rebuilds a block from its arcs: each CSR of the block is merged with
the arcs that change (``kernels.merge_rows``: one pass over the rank's arcs, rows stay sorted,
repeats dropped by the graph's policy), the vertex space grows by the vertices the new arcs
reach, and where vertices are removed every id above them moves down (``Renumbering``) in the
space alone: arcs keep their slots unless a slot itself goes. No labels, no shuffle, no sort of
the rank's arcs.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import kernels
from ..block import Block, Subgraphs, space_key_of
from ..owners import index_type

NO_IDS = np.empty(0, np.int64)


@dataclass(frozen=True)
class Removals:
    """Arcs a removal names on one rank: ``rows`` and ``cols`` (placed ids) and the request each
    answers (``asked``: the index of the edge in the removal's list)."""

    rows: np.ndarray
    cols: np.ndarray
    asked: np.ndarray


@dataclass(frozen=True)
class BlockChange:
    """What changes in one rank's block: ``added`` arcs (a piece: rows, cols, weights or None
    and, with attributes, their columns; placed ids as the new graph numbers them),
    ``removals`` (``Removals``), and ``gone``, the sorted placed ids of removed vertices (in
    the old numbering: every id above one moves down by one)."""

    added: tuple | None = None
    removals: Removals | None = None
    gone: np.ndarray | None = None


def renumbered(ids: np.ndarray, gone: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(new ids, kept): ``ids`` (placed, old numbering) as the graph without the vertices
    ``gone`` numbers them, and which of them are not gone."""
    ids = np.asarray(ids, np.int64)
    if gone is None or gone.size == 0:
        return ids, np.ones(ids.size, bool)
    at = np.searchsorted(gone, ids)
    kept = gone[np.minimum(at, gone.size - 1)] != ids
    return ids - at, kept


def changed_block(block: Any, r: int, spec: Any, key: Any, extra: Any, change: BlockChange) -> tuple[Any, dict]:
    """Rank r's block after ``change``, placed as ``spec`` (the new graph's ``PlacementSpec``;
    ``key`` and ``extra`` its plan's tables) says, and what happened: arcs before and after,
    and which removal requests found their arc (``found``, the requests' ``asked``)."""
    layout, bounds = spec.layout, spec.bounds
    csrs = layout.csrs(r, bounds, extra)
    old_space = block.parts[0].space
    kept_space, kept = renumbered(old_space, change.gone)
    kept_space = kept_space[kept]
    slot_map = np.where(kept, np.cumsum(kept) - 1, -1) if not kept.all() else NO_IDS
    # the vertices the new space needs: its own range, its rows, the heads of added arcs
    ends: list[np.ndarray] = [np.arange(bounds[r], bounds[r + 1], dtype=np.int64)]
    ends += [np.arange(lo, hi, dtype=np.int64) if ids is None else np.asarray(ids, np.int64) for _, lo, hi, ids in csrs]
    added = change.added
    if added is not None:
        ends.append(np.asarray(added[1], np.int64))
    wanted = np.concatenate(ends)
    at = np.minimum(np.searchsorted(kept_space, wanted), max(kept_space.size - 1, 0))
    fresh = wanted[kept_space[at] != wanted] if kept_space.size else wanted
    space = kept_space
    if fresh.size:
        space = kernels.union(kept_space, fresh)
        moved = np.searchsorted(space, kept_space)
        slot_map = moved if slot_map.size == 0 else np.where(slot_map >= 0, moved[np.maximum(slot_map, 0)], -1)
    space_key = space_key_of(key, space)
    which = functools.partial(layout.csr_of, extra=extra) if layout.subgraphs else None
    adds = _shares(added, which, len(csrs))
    removals = _removal_shares(change.removals, which, len(csrs))
    parts, found = [], []
    for part, csr, add, removal in zip(block.parts, csrs, adds, removals):
        new, hits = _changed_part(
            part, csr, add, removal, new_space=(space, space_key, slot_map), gone=change.gone, spec=spec
        )
        parts.append(new)
        found.append(hits)
    facts = {
        "before": block.narcs,
        "after": sum(p.narcs for p in parts),
        "found": np.unique(np.concatenate(found)) if found else NO_IDS,
    }
    if which is None:
        return parts[0], facts
    return Subgraphs(r, parts, extra["heavy"], int(extra["n_extreme"])), facts


def _shares(piece: tuple | None, which: Any, count: int) -> list:
    """A piece of added arcs cut by the CSR of the block that holds each (None: none)."""
    if piece is None or which is None:
        return [piece] + [None] * (count - 1)
    rows, cols, weights, *attrs = piece
    part = which(rows, cols)
    out = []
    for i in range(count):
        mine = part == i
        w = None if weights is None else weights[mine]
        cut = (rows[mine], cols[mine], w) + ((({k: v[mine] for k, v in attrs[0].items()}),) if attrs else ())
        out.append(cut if mine.any() else None)
    return out


def _removal_shares(removals: Removals | None, which: Any, count: int) -> list:
    if removals is None or which is None:
        return [removals] + [None] * (count - 1)
    part = which(removals.rows, removals.cols)
    return [Removals(removals.rows[m], removals.cols[m], removals.asked[m]) for m in (part == i for i in range(count))]


def _row_positions(row_ids: np.ndarray | None, lo: int, hi: int, ids: np.ndarray) -> np.ndarray:
    """The row of each placed id in a CSR of rows lo..hi-1 (or of the rows ``row_ids``); -1
    where it has none."""
    ids = np.asarray(ids, np.int64)
    if row_ids is None:
        return np.where((ids >= lo) & (ids < hi), ids - lo, -1)
    if row_ids.size == 0:
        return np.full(ids.size, -1, np.int64)
    positions, inside = kernels.positions(np.sort(row_ids), ids)
    return np.where(inside, np.argsort(row_ids, kind="stable")[np.minimum(positions, row_ids.size - 1)], -1)


def _changed_part(part: Block, csr: tuple, add: tuple | None, removal: Removals | None, *, new_space, gone, spec):
    """One CSR after its change: (the Block, the requests that found an arc). ``new_space``:
    (space, its canonical ids or None, each old slot's new one or empty: the same)."""
    space, space_key, slot_map = new_space
    name, lo, hi, row_ids = csr
    if row_ids is not None:
        hi = lo + row_ids.size
    nrows = hi - lo
    # which old row each new row continues
    old_ids, kept = renumbered(part.rows(), gone)
    new_rows = _row_positions(row_ids, lo, hi, old_ids)
    old_row = np.full(nrows, -1, np.int64)
    keep = kept & (new_rows >= 0)
    old_row[new_rows[keep]] = np.flatnonzero(keep)
    dropped, found = np.empty(0, bool), NO_IDS
    if removal is not None and removal.rows.size and part.space is not None:
        rows = _row_positions(part.row_ids, part.lo, part.hi, removal.rows)
        slots, inside = kernels.positions(part.space, np.asarray(removal.cols, np.int64))
        rows = np.where(inside, rows, -1)
        keys = slots if part.space_key is None else part.space_key[np.minimum(slots, part.space.size - 1)]
        dropped = np.zeros(part.narcs, bool)
        hits = kernels.mark_removed(part.indptr, part.indices, part.space_key, rows, keys, dropped)
        found = np.asarray(removal.asked)[hits]
    add_ptr, add_idx, add_w, add_attrs = _sorted_adds(
        add, row_ids, (lo, hi), space, space_key, part.weights is not None
    )
    indptr, indices, src = kernels.merge_rows(
        (part.indptr, part.indices, part.weights),
        old_row,
        slot_map,
        dropped,
        space_key,
        (add_ptr, add_idx, add_w),
        spec.dedup,
    )
    take = np.where(src >= 0, src, part.narcs - 1 - src)  # old arcs, then the added ones
    weights = None if part.weights is None else _taken(part.weights, add_w, take, src)
    attrs = None
    if part.attrs is not None:
        attrs = {k: _taken(v, None if add_attrs is None else add_attrs[k], take, src) for k, v in part.attrs.items()}
    indices = indices.astype(index_type(space.size), copy=False)
    row_slots = np.searchsorted(space, np.arange(lo, hi, dtype=np.int64) if row_ids is None else row_ids)
    loops = kernels.count_loops(indptr, indices, row_slots)
    block = Block(part.rank, lo, hi, spec.n, part.direction, indptr, indices, weights, loops, row_ids, name,
                  space=space, space_key=space_key, attrs=attrs)  # fmt: skip
    return block, found


def _taken(old: np.ndarray, added: np.ndarray | None, take: np.ndarray, src: np.ndarray) -> np.ndarray:
    """A per-arc column of the merged CSR from the old arcs' and the added arcs' columns."""
    if added is None or not (src < 0).any():
        return old[take]
    return np.concatenate([old, added])[take]


def _sorted_adds(add: tuple | None, row_ids, span: tuple, space, space_key, weighted: bool) -> tuple:
    """Added arcs as a CSR over the new rows (indices: slots of the new space), each row sorted
    as the block's are: by the head's key, then weight; and their attribute columns in that
    order."""
    lo, hi = span
    if add is None:
        return np.zeros(hi - lo + 1, np.int64), NO_IDS, np.empty(0), None
    rows, cols, weights, *attrs = add
    rows = _row_positions(row_ids, lo, hi, rows)
    slots = np.searchsorted(space, np.asarray(cols, np.int64))
    keys = slots if space_key is None else space_key[slots].astype(np.int64)
    w = np.asarray(weights, np.float64) if weighted else np.zeros(rows.size)
    order = np.lexsort((w, keys, rows))
    indptr = np.zeros(hi - lo + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=hi - lo), out=indptr[1:])
    columns = {k: v[order] for k, v in attrs[0].items()} if attrs else None
    return indptr, slots[order], w[order] if weighted else np.empty(0), columns
