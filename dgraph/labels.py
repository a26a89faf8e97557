"""Renumbering: the user's vertex labels <-> canonical ids 0..n-1.

Canonical id = position of the label in the sorted distinct labels, so it does not depend on
how the input is partitioned, and integer labels that already are 0..n-1 map to themselves
(then nothing is stored). Distinct labels are found with a distributed ``drop_duplicates``; the
sorted table is built and kept on a worker (it is O(n), edges are O(m)), never on the client.
Edges are encoded partition by partition against it with a hash lookup.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .errors import DgraphInputError


def _sorted_labels(*parts):
    values = pd.concat(parts, ignore_index=True) if parts else pd.Series([], dtype="int64")
    values = values.drop_duplicates()
    try:
        values = values.sort_values(ignore_index=True)
    except TypeError as exc:
        raise DgraphInputError(
            f"vertex labels mix types that cannot be ordered ({exc}); give every label one type, "
            "for example convert them all with .astype(str)"
        ) from None
    return pd.Index(values.to_numpy(), dtype=values.dtype, copy=False)


def _facts(index):
    n = len(index)
    identity = bool(
        pd.api.types.is_integer_dtype(index.dtype) and n > 0 and index[0] == 0 and index[n - 1] == n - 1
    )
    return n, identity


def _encode(part, index, columns):
    out = {}
    for c in columns:
        col = part[c]
        if col.isna().any():
            row = col.index[col.isna()][0]
            raise DgraphInputError(
                f"column {c!r} holds a null vertex id (first at row {row!r}); drop or fill those edges first, "
                "for example df.dropna(subset=[...])"
            )
        if index is None:
            out[c] = col.to_numpy(dtype=np.int64)
        else:
            out[c] = index.get_indexer(col)
    return pd.DataFrame(out, index=part.index).assign(**{c: part[c] for c in part.columns if c not in columns})


class Labels:
    """Canonical ids of one graph's labels: ``index`` is a future of the sorted labels, or None
    when the labels are exactly the integers 0..n-1."""

    def __init__(self, n, index=None, dtype=np.dtype("int64")):
        self.n = n
        self.index = index
        self.dtype = dtype

    @classmethod
    def identity(cls, n):
        return cls(n)

    @classmethod
    def build(cls, client, series):
        """Distinct sorted labels of the given dask Series (edge endpoints and vertices)."""
        import dask
        import dask.dataframe as dd

        series = [s.rename("label") for s in series]
        dtypes = {str(s.dtype) for s in series}
        kinds = {"num" if pd.api.types.is_numeric_dtype(s.dtype) else "str" for s in series}
        if len(kinds) > 1:
            raise DgraphInputError(
                f"vertex label columns have different types {sorted(dtypes)}; give sources, destinations and "
                "vertices one type (for example .astype(str) on each)"
            )
        if any(pd.api.types.is_float_dtype(s.dtype) for s in series):
            raise DgraphInputError(
                f"vertex labels are floating point ({sorted(dtypes)}); use integer or string labels, "
                "for example df.astype({'src': 'int64', 'dst': 'int64'})"
            )
        allv = dd.concat(series) if len(series) > 1 else series[0]
        parts = allv.dropna().drop_duplicates(split_out=max(1, allv.npartitions // 4)).to_delayed()
        index = client.compute(dask.delayed(_sorted_labels)(*parts))
        n, identity = client.submit(_facts, index).result()
        if identity:
            index.release()
            return cls(n)
        return cls(n, index, client.submit(lambda ix: ix.dtype, index).result())

    def encode(self, ddf, columns):
        """Replace the label columns of ``ddf`` by canonical int64 ids (nulls are an error)."""
        meta = ddf._meta.assign(**{c: np.int64(0) for c in columns})
        return ddf.map_partitions(_encode, self.index, list(columns), meta=meta)

    def lookup(self, client, values, what="vertex"):
        """Canonical ids of a few labels given by the user; unknown ones are an error."""
        values = list(values)
        if self.index is None:
            ids = []
            for v in values:
                if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or not 0 <= v < self.n:
                    raise DgraphInputError(f"{what} {v!r} is not a vertex of this graph (labels are 0..{self.n - 1})")
                ids.append(int(v))
            return np.asarray(ids, dtype=np.int64)
        ids = client.submit(_lookup, self.index, values, pure=False).result()
        missing = [v for v, i in zip(values, ids) if i < 0]
        if missing:
            raise DgraphInputError(
                f"{what} {missing[0]!r} is not a vertex of this graph"
                + (f" ({len(missing)} unknown labels)" if len(missing) > 1 else "")
                + "; check the label and its type (labels of this graph are " + str(self.dtype) + ")"
            )
        return ids


def _lookup(index, values):
    try:
        return index.get_indexer(pd.Index(values)).astype(np.int64)
    except (TypeError, ValueError):
        return np.full(len(values), -1, dtype=np.int64)
