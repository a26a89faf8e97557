"""pandas frames as plain arrays for the data plane, and back.

Channels carry only 1-D arrays of plain dtypes (nothing read from a socket is unpickled), so a
frame that travels (task contexts, data rows) is packed column by column: numbers and booleans
as themselves, datetimes as int64, pandas' nullable numbers as values plus a null mask, strings
as arrow-style offsets plus UTF-8 bytes plus a null mask. A mask is empty when nothing is null.
The receiver knows the schema (the column names and dtypes, handed out through dask), so the
arrays alone rebuild the frame with the same dtypes.

>>> import pandas as pd
>>> df = pd.DataFrame({"a": [1, 2], "s": ["x", None], "t": pd.to_datetime(["2020-01-01", "2021-06-30"])})
>>> schema = schema_of(df, "tasks")
>>> back = unpack(pack(df, schema), schema)
>>> back.equals(df)
True
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .errors import DgraphInputError

_PLAIN = "biuf"  # bool, int, uint, float numpy kinds travel as they are


def _kind(dtype):
    if isinstance(dtype, np.dtype):
        if dtype.kind in _PLAIN:
            return "plain"
        if dtype.kind in "mM":
            return "time"
        if dtype == np.dtype(object):
            return "string"
    elif isinstance(dtype, pd.StringDtype):
        return "string"
    elif isinstance(dtype, pd.api.extensions.ExtensionDtype) and getattr(dtype, "numpy_dtype", None) is not None:
        if dtype.numpy_dtype.kind in _PLAIN and not isinstance(dtype, pd.ArrowDtype):
            return "masked"
    elif isinstance(dtype, pd.ArrowDtype) and str(dtype.pyarrow_dtype) in ("string", "large_string"):
        return "string"
    return None


def schema_of(frame, what):
    """``[(column, dtype, kind)]`` of a frame (or a dask frame's meta); a column that cannot
    travel is a ``DgraphInputError`` naming it and the fix."""
    schema = []
    for name, dtype in frame.dtypes.items():
        kind = _kind(dtype)
        if kind is None:
            raise DgraphInputError(
                f"{what} column {name!r} has dtype {dtype}, which dgraph cannot send between ranks; "
                "convert it to numbers, booleans, datetimes or strings (e.g. .astype(str) for a categorical)"
            )
        schema.append((name, dtype, kind))
    return schema


def encode_strings(values):
    values = pd.Series(values, dtype=object)
    nulls = values.isna().to_numpy()
    encoded = [b"" if n else str(v).encode() for v, n in zip(values.tolist(), nulls)]
    lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    raw = np.frombuffer(b"".join(encoded), dtype=np.uint8)
    return [offsets, raw, nulls if nulls.any() else np.zeros(0, dtype=bool)]


def decode_strings(offsets, raw, nulls):
    data = raw.tobytes()
    out = [data[a:b].decode() for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist())]
    if nulls.size:
        for i in np.flatnonzero(nulls).tolist():
            out[i] = None
    return np.asarray(out, dtype=object)


def pack(frame, schema):
    """The arrays of ``frame``'s columns in ``schema`` order (``frame``: a DataFrame, or a dict
    of its columns, which spares building a frame to send one: Series or pandas arrays, or numpy
    arrays for numbers and datetimes)."""
    arrays = []
    for name, dtype, kind in schema:
        col = frame[name]
        if kind == "plain":
            arrays.append(np.ascontiguousarray(np.asarray(col, dtype=dtype)))
        elif kind == "time":
            arrays.append(np.asarray(col, dtype=dtype).view(np.int64))
        elif kind == "masked":
            nulls = np.asarray(pd.isna(col))
            arrays += [
                col.to_numpy(dtype=dtype.numpy_dtype, na_value=0),
                nulls if nulls.any() else np.zeros(0, dtype=bool),
            ]
        else:
            arrays += encode_strings(col.to_numpy(dtype=object))
    return arrays


def unpack(arrays, schema, index=None):
    """The frame ``pack`` made (with ``index`` if given)."""
    cols = unpack_columns(arrays, schema)
    n = len(next(iter(cols.values()))) if cols else (0 if index is None else len(index))
    return pd.DataFrame(cols, index=index if index is not None else pd.RangeIndex(n))


def unpack_columns(arrays, schema):
    """The columns ``pack`` packed, as ``{name: numpy or pandas array}`` (no frame built)."""
    cols, i = {}, 0
    for name, dtype, kind in schema:
        if kind == "plain":
            cols[name], i = arrays[i], i + 1
        elif kind == "time":
            cols[name], i = arrays[i].view(dtype), i + 1
        elif kind == "masked":
            values, nulls = arrays[i], arrays[i + 1]
            cols[name] = pd.array(values, dtype=dtype)
            if nulls.size:
                cols[name][nulls] = pd.NA
            i += 2
        else:
            strings = decode_strings(*arrays[i : i + 3])
            cols[name] = strings if dtype == np.dtype(object) else pd.array(strings, dtype=dtype)
            i += 3
    return cols


def width(schema):
    """How many arrays ``pack`` makes for ``schema``."""
    return sum({"plain": 1, "time": 1, "masked": 2, "string": 3}[kind] for _, _, kind in schema)
