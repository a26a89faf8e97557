"""A change's input turned into placed ids: edge and vertex frames checked, labels looked up.

Everything here runs on the client over the change alone (its rows, its distinct labels) and
asks the worker holding the label tables once; nothing of the graph's size comes back.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd

from ..attributes import column_values, is_frame
from ..errors import DgraphInputError
from ..labels import check_labels
from .tables import placed_or_missing


def _pandas(df: Any, client: Any, what: str) -> pd.DataFrame:
    """A pandas frame of a change (a dask one computed: a change is small beside its graph)."""
    if isinstance(df, pd.DataFrame):
        return df
    if hasattr(df, "dask") and hasattr(df, "columns"):
        return client.compute(df).result()
    raise DgraphInputError(f"{what} takes a pandas or dask DataFrame, got {type(df).__name__}")


def edge_frame(graph: Any, df: Any, ends: tuple[Hashable, Hashable], *, attributes: bool) -> pd.DataFrame:
    """The change's edges as [src, dst] (labels, checked) and, with ``attributes``, a column per
    edge attribute of the graph (its weight among them), each as the graph keeps it. A missing
    attribute is an error naming it: an added arc without its weight or attribute would hold a
    value no algorithm could use. Other columns are left out, as ``from_edgelist`` does."""
    what = "add_edges" if attributes else "remove_edges"
    df = _pandas(df, graph.client, what)
    source, destination = ends
    for name, column in (("source", source), ("destination", destination)):
        if column not in df.columns:
            raise DgraphInputError(
                f"{what}: the {name} column {column!r} is not in the frame; its columns are {list(df.columns)}"
                + f" (name it with {name}=)"
            )
    out = pd.DataFrame(
        {
            "src": check_labels(df[source].reset_index(drop=True), f"{what} column {source!r}"),
            "dst": check_labels(df[destination].reset_index(drop=True), f"{what} column {destination!r}"),
        }
    )
    for end, column in (("src", source), ("dst", destination)):
        if out[end].isna().any():
            raise DgraphInputError(
                f"{what}: column {column!r} holds a null vertex label; drop those rows first, for example "
                f"df.dropna(subset=[{column!r}])"
            )
    if not attributes:
        return out
    dtypes = graph.store.root.edge_dtypes
    missing = [name for name in dtypes if name not in df.columns]
    if missing:
        raise DgraphInputError(
            f"add_edges: the frame lacks the graph's edge attributes {missing} (every added edge carries each of "
            f"{list(dtypes)}); add the columns, with NaN or None where a value is unknown"
        )
    for name, dtype in dtypes.items():
        try:
            out[name] = df[name].reset_index(drop=True).astype(dtype)
        except (TypeError, ValueError) as exc:
            raise DgraphInputError(
                f"add_edges: column {name!r} ({df[name].dtype}) does not convert to the graph's {dtype} ({exc})"
            ) from None
    return out


def vertex_labels(graph: Any, vertices: Any, vertex_column: Hashable, what: str) -> tuple[pd.Index, Any]:
    """(the distinct labels of ``vertices``, a frame of their attributes or None): labels as a
    list, array, Series or Index, or a frame whose ``vertex_column`` holds them (its other
    columns must be attributes the graph keeps)."""
    frame = None
    if is_frame(vertices):
        frame = _pandas(vertices, graph.client, what)
        if vertex_column not in frame.columns:
            raise DgraphInputError(
                f"{what}: the frame has no column {vertex_column!r} of vertex labels; its columns are "
                f"{list(frame.columns)}: name it with vertex_column="
            )
        unknown = [c for c in frame.columns if c != vertex_column and c not in graph.vertex_attrs]
        if unknown:
            raise DgraphInputError(
                f"{what}: columns {unknown} are not vertex attributes of this graph (it keeps "
                f"{list(graph.vertex_attrs)}); an update adds vertices, not attributes: build the graph with them"
            )
        labels = frame[vertex_column]
        frame = frame.drop_duplicates(vertex_column).set_index(vertex_column)
    elif isinstance(vertices, (str, bytes)) or not hasattr(vertices, "__iter__"):
        raise DgraphInputError(f"{what} takes a list (or array, Series) of vertex labels, or a frame of them")
    else:
        labels = pd.Series(vertices.to_numpy() if isinstance(vertices, pd.Index) else list(vertices))
    labels = check_labels(pd.Series(labels).reset_index(drop=True), f"{what} labels")
    if labels.isna().any():
        raise DgraphInputError(f"{what}: a vertex label is null; drop it first")
    return pd.Index(pd.unique(labels)), frame


def same_kind(graph: Any, labels: pd.Index, what: str) -> None:
    """Refuse labels of another kind than the graph's (numbers against strings): they could
    never be its vertices, and added they would mix label types."""
    have = graph.codec.labels.dtype
    numeric = pd.api.types.is_numeric_dtype(have)
    if len(labels) and pd.api.types.is_numeric_dtype(labels.dtype) != numeric:
        raise DgraphInputError(
            f"{what}: labels such as {labels[0]!r} are {labels.dtype}, but this graph's labels are {have}; "
            "give them in the graph's type (for example .astype(str))"
        )
    if len(labels) and pd.api.types.is_float_dtype(labels.dtype):
        raise DgraphInputError(f"{what}: vertex labels are floating point; use integer or string labels")


def placed(graph: Any, labels: pd.Index) -> np.ndarray:
    """The placed id of each label (-1: not a vertex of the graph), asked of the worker holding
    the label tables (one task)."""
    codec = graph.codec
    tables = codec.labels.sorted, codec.table()
    if tables == (None, None):
        return placed_or_missing(None, None, codec.labels.n, labels)
    return graph.client.submit(placed_or_missing, *tables, codec.labels.n, labels, pure=False).result()


def new_labels(labels: pd.Index) -> pd.Index:
    """Labels new to a graph in the order they take ids: sorted (as a build numbers them), or as
    given where they do not sort."""
    try:
        return labels.sort_values()
    except TypeError:
        return labels


def arc_columns(frame: pd.DataFrame, graph: Any) -> tuple[np.ndarray | None, dict | None]:
    """(weights, {attribute: per-arc column}) of a change's edges, as the blocks keep them."""
    root = graph.store.root
    weights = None if root.weight is None else frame[root.weight].to_numpy(dtype=np.float64, na_value=np.nan)
    names = [name for name in root.edge_dtypes if name != root.weight]
    if not names:
        return weights, None
    return weights, {name: column_values(frame[name]) for name in names}
