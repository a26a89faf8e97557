"""Per-rank result arrays -> dask DataFrames in the user's vertex labels."""

from __future__ import annotations

import uuid

import numpy as np
import pandas as pd
import pyarrow as pa

from .dask_internals import held_frame


def decode(ids, labels, nullable):
    """Placed ids -> labels (``labels`` in placed order, or None for ids that are their own
    labels); with ``nullable``, negative ids become nulls of the labels' nullable dtype."""
    ids = np.asarray(ids, dtype=np.int64)
    if labels is None:
        return masked(ids, ids < 0) if nullable else ids
    vals = pd.Series(labels.take(np.maximum(ids, 0)), copy=False)  # labels: an Index or an array
    if not nullable:
        return vals.array  # the labels' own dtype (string labels stay strings, not objects)
    if vals.dtype.kind in "iu":
        return masked(vals.to_numpy(), ids < 0)
    return vals.mask(ids < 0).array


def masked(values, mask):
    """``values`` as a pandas nullable array (Int64, UInt64 or Float64), null where ``mask``;
    built from the arrays themselves (``Series.astype(...).mask(...)`` costs several passes)."""
    values = np.asarray(values)
    if values.dtype.kind == "f":
        return pd.arrays.FloatingArray(values.astype(np.float64, copy=False), mask)
    return pd.arrays.IntegerArray(values.astype(np.uint64 if values.dtype.kind == "u" else np.int64, copy=False), mask)


def rank_frame(result, lo, hi, labels, label_columns, nullable):
    """One rank's ``{column: array}`` as a pandas frame with a leading ``vertex`` column.

    Columns in ``label_columns`` hold placed ids and are decoded to labels; columns in
    ``nullable`` get a nullable dtype with nulls for negative integers and non-finite floats.
    """
    # a rank's vertices are a run of placed ids: a slice of the labels (a copy), not a gather
    cols = {"vertex": np.arange(lo, hi) if labels is None else pd.Series(labels[lo:hi], copy=True).array}
    for name, values in result.items():
        cols[name] = _column(name, values, labels, label_columns, nullable)
    return pd.DataFrame(cols, copy=False)


def _column(name, values, labels, label_columns, nullable):
    """A result column as its frame holds it: placed ids decoded to labels, and nulls where
    ``nullable`` says (negative integers, non-finite floats)."""
    if name in label_columns:
        return decode(values, labels, name in nullable)
    if name in nullable:
        values = np.asarray(values)
        return masked(values, ~np.isfinite(values) if values.dtype.kind == "f" else values < 0)
    return values


def ranks_frame(held, spans, labels, label_columns, nullable, transform=None):
    """The frames of the ranks in ``spans`` (``(rank, lo, hi)``, in rank order) from ``held``
    (``{rank: {column: array}}``), each through ``transform`` first, as one pandas frame."""
    frames = [
        rank_frame(transform(held[r]) if transform else held[r], lo, hi, labels, label_columns, nullable)
        for r, lo, hi in spans
    ]
    return frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)


def rank_frames(held, bounds, labels, label_columns, nullable, transform=None):
    """One worker's ``{rank: {column: array}}`` as its partition of a result frame, its ranks in
    order (``bounds``: each rank's first placed id)."""
    spans = [(r, int(bounds[r]), int(bounds[r + 1])) for r in sorted(held)]
    return ranks_frame(held, spans, labels, label_columns, nullable, transform)


def rows_frames(held, labels, label_columns, nullable=(), list_columns=()):
    """One worker's ``{rank: {column: array}}`` of free-standing rows (no vertex column implied),
    its ranks in order, as its partition of a result frame. ``label_columns`` hold placed ids
    (negative: null); ``nullable`` columns are null where negative (integers) or not finite
    (floats); each of ``list_columns`` is (flat placed ids, starts, lengths), the rows' spans of
    ids in order, and becomes a list of labels per row (null where the length is -1), as an
    arrow list column (dask keeps it; an object column of lists would become strings)."""
    frames = []
    for r in sorted(held):
        cols = {}
        for name, values in held[r].items():
            if name in list_columns:
                flat, starts, lengths = values
                offsets = pa.array(np.r_[starts, flat.size].astype(np.int64), type=pa.int64())
                items = pa.array(decode(flat, labels, False))
                lists = pa.LargeListArray.from_arrays(offsets, items, mask=pa.array(lengths < 0))
                cols[name] = pd.Series(lists, dtype=pd.ArrowDtype(lists.type), copy=False).array
            else:
                cols[name] = _column(name, values, labels, label_columns, nullable)
        frames.append(pd.DataFrame(cols))
    return frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)


def block_edges(block):
    from .block import block_arcs

    src, dst, w = block_arcs(block)
    return {"src": src, "dst": dst, **({"weight": w} if w is not None else {})}


def edges_frame(arrays, labels, weight=None):
    """The arcs in user labels; the ``weight`` array is named ``weight`` (the graph's weight column)."""
    return pd.DataFrame(
        {
            (weight if k == "weight" else k): (decode(v, labels, False) if k in ("src", "dst") else v)
            for k, v in arrays.items()
        }
    )


def part_name(prefix):
    """A fresh name for the keys ``(name, i)`` of one result frame's partitions (see ``to_dask``)."""
    return f"{prefix}-{uuid.uuid4().hex}"


def to_dask(client, parts, meta=None):
    """A dask DataFrame whose partitions are the pandas frames held by the futures ``parts``, which
    were submitted under the keys ``(name, 0), (name, 1), ...`` (``part_name``); ``meta``: their
    empty frame, fetched from the first part when not given.

    The frame's keys are the futures' own, so computing it runs no task of its own (with
    ``dd.from_delayed`` every compute would run an alias task per partition first: a scheduler
    round trip, ~15 ms, on every result)."""
    name = parts[0].key[0] if parts and isinstance(parts[0].key, tuple) else None
    if name is None or [p.key for p in parts] != [(name, i) for i in range(len(parts))]:
        raise ValueError(
            f"to_dask needs futures under the keys (name, 0..{len(parts) - 1}), got "
            f"{[p.key for p in parts][:3]}; submit them with key=(part_name(...), i)"
        )
    if meta is None:
        meta = client.submit(_empty_like, parts[0], pure=False).result()
    return held_frame(name, parts, meta)


def _empty_like(frame):
    return frame.iloc[:0]
