"""Per-rank result arrays -> dask DataFrames in the user's vertex labels."""

from __future__ import annotations

import uuid
from typing import Callable, NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa

from . import kernels
from .dask_internals import held_frame
from .frames import pack, schema_of, unpack_columns
from .ghosts import Fetch


class RankLabels:
    """The user's labels of placed ids where a result frame is made (a run's finish, or a task
    on the worker holding a rank's results). ``pieces[r]``: the labels of rank r's own
    vertices, and any other id's label is fetched from its owner through ``ctx`` (one request
    and one reply superstep for all of a frame's columns), so no worker holds every label; or,
    with no pieces, ``placed``: the labels in placed order (an empty frame's), or None when the
    ids are their own labels."""

    def __init__(self, ctx, bounds, placed=None, pieces=None):
        self.ctx, self.bounds, self.placed, self.pieces = ctx, np.asarray(bounds, dtype=np.int64), placed, pieces

    def own(self, r):
        """The labels of rank r's vertices, a run of placed ids (a copy)."""
        if self.pieces is not None:
            return pd.Series(self.pieces[r], copy=True).array
        lo, hi = int(self.bounds[r]), int(self.bounds[r + 1])
        return np.arange(lo, hi) if self.placed is None else pd.Series(self.placed[lo:hi], copy=True).array

    def lookup(self, wanted):
        """``{r: labels}`` of ``wanted[r]`` (placed ids, any order and repeats; a negative one
        reads any label), in the labels' own dtype; with pieces, collective: every worker of the
        run calls it."""
        if self.pieces is None and self.placed is None:  # ids are their own labels
            return wanted
        wanted = {r: np.maximum(ids, 0) for r, ids in wanted.items()}
        if self.pieces is None:
            return {r: self.placed.take(ids) for r, ids in wanted.items()}
        first = self.pieces[self.ctx.ranks[0]]
        numbers = isinstance(first, np.ndarray) and first.dtype.kind in "iu"
        if self.bounds.size == 2:  # one rank holds every label: read in place, nothing planned or sent
            (r,) = self.ctx.ranks
            return {r: kernels.relabel(first, np.asarray(wanted[r])) if numbers else first.take(wanted[r])}
        plan = Fetch(self.ctx, wanted, self.bounds)
        if numbers:  # gathered in one pass each
            return plan({r: self.pieces[r] for r in self.ctx.ranks})
        sample = pd.Series(first[:0])
        schema = schema_of(sample.to_frame("label"), "vertex label")
        # a column per reply, never a frame: with many ranks the pairs are thousands, and a
        # pandas frame costs a fraction of a millisecond to build
        replies = {
            d: {src: pack({"label": self.pieces[d].take(at)}, schema) for src, at in plan.serve[d]}
            for d in self.ctx.ranks
        }
        got = self.ctx.alltoall(replies)
        out = {}
        for r in self.ctx.ranks:  # the replies come in owner order, as the sorted unique ids
            parts = [unpack_columns(arrays, schema)["label"] for _, arrays in got[r]]
            same = [pd.array(p, dtype=sample.dtype, copy=False) for p in parts]  # the labels' own array type
            values = sample.array._concat_same_type([sample.array, *same])
            out[r] = values if plan.inverse[r] is None else values.take(plan.inverse[r])
        return out


def decoded(labels, results, label_columns, nullable=(), list_columns=()):
    """``{r: {column: values}}``: the ranks' ``results`` (``{r: {column: array}}``) with their
    ``label_columns`` (placed ids, null where negative if also ``nullable``) and the flat ids of
    their ``list_columns`` (see ``rows_frames``) in the user's labels through ``labels`` (a
    ``RankLabels``; one lookup for all), and the other ``nullable`` columns null where negative
    (integers) or not finite (floats)."""
    named = {r: [c for c in res if c in label_columns or c in list_columns] for r, res in results.items()}
    ids = {
        r: [np.asarray(res[c][0] if c in list_columns else res[c], np.int64) for c in named[r]]
        for r, res in results.items()
    }
    if label_columns or list_columns:  # by the columns asked for, the same on every worker: collective
        found = labels.lookup({r: _joined(i) for r, i in ids.items()})
    out = {}
    for r, res in results.items():
        cols, at = {}, 0
        for c, values in res.items():
            if c in named[r]:
                k = ids[r][named[r].index(c)]
                cols[c] = _labelled(k, found[r][at : at + k.size], c in nullable and c not in list_columns)
                at += k.size
                if c in list_columns:
                    cols[c] = _lists(cols[c], *values[1:])
            elif c in nullable:
                values = np.asarray(values)
                cols[c] = masked(values, ~np.isfinite(values) if values.dtype.kind == "f" else values < 0)
            else:
                cols[c] = values
        out[r] = cols
    return out


def _joined(arrays):
    """One int64 array of ``arrays`` (a lone one as it is: the frame may hold it)."""
    if len(arrays) == 1:
        return arrays[0]
    return np.concatenate(arrays) if arrays else np.empty(0, np.int64)


def _labelled(ids, labels, nullable):
    """The labels looked up for ``ids`` (for the negative ones: any), as a frame column: the
    labels' own dtype (string labels stay strings, not objects), or with ``nullable`` null where
    the id is negative."""
    labels = pd.Series(labels, copy=False)
    if not nullable:
        return labels.array
    if labels.dtype.kind in "iu":
        return masked(labels.to_numpy(), ids < 0)
    return labels.mask(ids < 0).array


def _lists(items, starts, lengths):
    """Flat labels with each row's span of them as an arrow list column (null where the length
    is -1; dask keeps an arrow list column, where an object column of lists would become strings)."""
    offsets = pa.array(np.r_[starts, len(items)].astype(np.int64), type=pa.int64())
    lists = pa.LargeListArray.from_arrays(offsets, pa.array(items), mask=pa.array(lengths < 0))
    return pd.Series(lists, dtype=pd.ArrowDtype(lists.type), copy=False).array


def masked(values, mask):
    """``values`` as a pandas nullable array (Int64, UInt64 or Float64), null where ``mask``;
    built from the arrays themselves (``Series.astype(...).mask(...)`` costs several passes)."""
    values = np.asarray(values)
    if values.dtype.kind == "f":
        return pd.arrays.FloatingArray(values.astype(np.float64, copy=False), mask)
    return pd.arrays.IntegerArray(values.astype(np.uint64 if values.dtype.kind == "u" else np.int64, copy=False), mask)


def vertex_frames(labels, results, label_columns=(), nullable=(), transform=None):
    """The ranks' ``{r: {column: array}}``, in rank order, each through ``transform`` first, as
    one pandas frame with a leading ``vertex`` column: a rank's results are one value per vertex
    it owns. Columns in ``label_columns`` hold placed ids and become labels; ``nullable``
    columns get a nullable dtype with nulls for negative integers and non-finite floats."""
    results = {r: transform(results[r]) if transform else results[r] for r in sorted(results)}
    cols = decoded(labels, results, label_columns, nullable)
    frames = [pd.DataFrame({"vertex": labels.own(r), **cols[r]}, copy=False) for r in results]
    return frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)


class FrameColumns(NamedTuple):
    """How a run's finish makes its columns: ``label_columns`` hold placed ids and become
    labels, ``nullable`` ones are null where negative (integers) or not finite (floats),
    ``transform(dict) -> dict`` is applied to each rank's columns first, and each of
    ``list_columns`` (free-standing rows only) becomes a list of labels per row
    (``rows_frames``)."""

    label_columns: tuple = ()
    nullable: tuple = ()
    transform: Callable | None = None
    list_columns: tuple = ()


def rank_frames(ctx, held, pieces, bounds, columns):
    """A run's finish: one worker's ``{rank: {column: array}}`` as its partition of a result
    frame (``vertex_frames``), its columns as ``columns`` (a ``FrameColumns``) says;
    ``pieces[r]`` is ``(rank r's own labels,)`` or empty when the ids are their own labels (see
    ``RankLabels``)."""
    labels = _rank_labels(ctx, bounds, pieces)
    return vertex_frames(labels, held, columns.label_columns, columns.nullable, columns.transform)


def _rank_labels(ctx, bounds, pieces):
    return RankLabels(ctx, bounds, pieces={r: p[0] for r, p in pieces.items()} if any(pieces.values()) else None)


def rows_frames(ctx, held, pieces, bounds, columns):
    """A run's finish: one worker's ``{rank: {column: array}}`` of free-standing rows (no vertex
    column implied), its ranks in order, as its partition of a result frame. Of ``columns`` (a
    ``FrameColumns``): ``label_columns`` hold placed ids (negative: null); ``nullable`` columns
    are null where negative (integers) or not finite (floats); each of ``list_columns`` is (flat
    placed ids, starts, lengths), the rows' spans of ids in order, and becomes a list of labels
    per row (null where the length is -1). ``pieces`` as for ``rank_frames``."""
    labels = _rank_labels(ctx, bounds, pieces)
    held = {r: held[r] for r in sorted(held)}
    cols = decoded(labels, held, columns.label_columns, columns.nullable, columns.list_columns)
    frames = [pd.DataFrame(c) for c in cols.values()]
    return frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)


def part_name(prefix):
    """A fresh name for the keys ``(name, i)`` of one result frame's partitions (see ``to_dask``)."""
    return f"{prefix}-{uuid.uuid4().hex}"


def to_dask(client, parts, meta=None, direct=False, copies=None):
    """A dask DataFrame whose partitions are the pandas frames held by the futures ``parts``, which
    were submitted under the keys ``(name, 0), (name, 1), ...`` (``part_name``); ``meta``: their
    empty frame, taken from the first part when not given; ``direct`` and ``copies``: how its
    ``compute()`` gets the parts (``held_frame``).

    The frame's keys are the futures' own, so computing it runs no task of its own (with
    ``dd.from_delayed`` every compute would run an alias task per partition first: a scheduler
    round trip on every result)."""
    name = parts[0].key[0] if parts and isinstance(parts[0].key, tuple) else None
    if name is None or [p.key for p in parts] != [(name, i) for i in range(len(parts))]:
        raise ValueError(
            f"to_dask needs futures under the keys (name, 0..{len(parts) - 1}), got "
            f"{[p.key for p in parts][:3]}; submit them with key=(part_name(...), i)"
        )
    if meta is None:  # from the first part: its copy when the run brought one back
        meta = _empty_like(copies[0]) if copies else client.submit(_empty_like, parts[0], pure=False).result()
    return held_frame(name, parts, meta, direct, copies)


def _empty_like(frame):
    return frame.iloc[:0]
