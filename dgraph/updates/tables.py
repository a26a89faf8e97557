"""The tables of an updated graph, made on the workers that hold the old ones.

New labels take the ids after the old ones (no old id changes): the label index is the old one
with the new labels appended, and it is also what labels are looked up in (a pandas Index
finds labels by hashing, sorted or not), so an updated graph's ``Labels`` have no separate
sorted table. The placed order gains the new ids as themselves (they are placed after every
other, on the last rank). Removing vertices takes them out of every table and moves the ids
above them down, keeping the order of the others.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..attributes import nullable
from ..labels import inverse_permutation
from ..owners import index_type


def placed_or_missing(sorted_labels: Any, table: Any, n: int, values: pd.Index) -> np.ndarray:
    """The placed id of each label of ``values`` in a graph of ``n`` vertices whose labels are
    looked up in ``sorted_labels`` (None: the labels are 0..n-1), through ``table`` (position
    -> placed id, None: the same); -1 for a label the graph does not have."""
    if sorted_labels is None:
        if not pd.api.types.is_integer_dtype(values.dtype):
            return np.full(len(values), -1, np.int64)
        ids = values.to_numpy(dtype=np.int64)
        positions = np.where((ids >= 0) & (ids < n), ids, -1)
    else:
        try:
            positions = sorted_labels.get_indexer(values).astype(np.int64)
        except (TypeError, ValueError):  # labels of another type: none of them is the graph's
            positions = np.full(len(values), -1, np.int64)
    if table is None:
        return positions
    known = positions >= 0
    out = np.full(positions.size, -1, np.int64)
    out[known] = np.asarray(table)[positions[known]]
    return out


def appended_labels(index: Any, n: int, labels: pd.Index) -> pd.Index:
    """The labels by canonical id (``index``; None: 0..n-1) with ``labels`` after them."""
    old = pd.Index(np.arange(n, dtype=np.int64)) if index is None else index
    return old.append(pd.Index(labels, dtype=old.dtype)) if len(labels) else old


def appended_ids(order: np.ndarray, added: int) -> np.ndarray:
    """A permutation of n ids (placed -> canonical, or its inverse) with the ids n..n+added-1
    appended as themselves."""
    n = order.size
    out = np.empty(n + added, index_type(n + added))
    out[:n] = order
    out[n:] = np.arange(n, n + added)
    return out


def kept_labels(index: Any, n: int, gone_canonical: np.ndarray) -> pd.Index:
    """The labels by canonical id without those of the canonical ids ``gone_canonical``."""
    old = pd.Index(np.arange(n, dtype=np.int64)) if index is None else index
    return old.delete(gone_canonical)


def kept_order(order: np.ndarray, gone: np.ndarray) -> np.ndarray:
    """placed -> canonical without the placed ids ``gone`` (sorted), both numberings closed up."""
    kept = np.delete(np.asarray(order, np.int64), gone)
    gone_canonical = np.sort(np.asarray(order, np.int64)[gone])
    return (kept - np.searchsorted(gone_canonical, kept)).astype(index_type(kept.size))


def canonical_of(order: Any, placed: np.ndarray) -> np.ndarray:
    """The canonical ids of placed ids (``order`` None: the same), sorted."""
    placed = np.asarray(placed, np.int64)
    return np.sort(placed if order is None else np.asarray(order, np.int64)[placed])


def inverse_of(order: np.ndarray) -> np.ndarray:
    return inverse_permutation(order)


def grown_table(table: pd.DataFrame, added: int, rows: pd.DataFrame | None, dtypes: dict) -> pd.DataFrame:
    """A rank's vertex table with ``added`` vertices after its own, their attributes ``rows``
    (a frame of ``added`` rows, columns among the table's; None: all null), in ``dtypes``."""
    new = pd.DataFrame(index=pd.RangeIndex(added)) if rows is None else rows.reset_index(drop=True)
    new = new.reindex(columns=list(table.columns))
    table = table.astype(dtypes, copy=False)
    new = new.astype(dtypes)
    return pd.concat([table, new], ignore_index=True)


def kept_table(table: pd.DataFrame, gone: np.ndarray) -> pd.DataFrame:
    """A rank's vertex table without the rows ``gone`` (positions)."""
    return table.drop(index=table.index[gone]).reset_index(drop=True)


def dtypes_with_nulls(dtypes: dict) -> dict:
    """Vertex attribute dtypes once some vertex has no value (``attributes.nullable``)."""
    return {name: nullable(dtype) for name, dtype in dtypes.items()}
