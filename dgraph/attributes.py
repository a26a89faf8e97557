"""Edge and vertex attributes: the columns a graph keeps on the workers beside its blocks.

Edge attributes are named per-arc columns of each rank's block (``Block.attrs``), in arc order:
they travel through construction as the weight does (cut with their arcs, written to their
arcs' slots, sorted and deduplicated with them; an undirected edge's reverse arc carries the
same values). The graph's weight is an edge attribute too, kept as the block's float64
``weights``. Vertex attributes are a pandas table per rank of the vertices it owns, in placed-id
order, beside the rank's labels (``BlockStore.vertex_tables``). Nothing of either is gathered
to the client: ``Graph.edges`` and ``Graph.vertices`` are made from them on the workers.
"""

from __future__ import annotations

import operator
from collections.abc import Hashable, Sequence
from typing import Any

import dask
import numpy as np
import pandas as pd

from .block import block_arcs, block_attrs
from .errors import DgraphInputError
from .owners import owner_of
from .placement import route

VERTEX = "vertex"  # the id column of a vertex frame, and the first column of Graph.vertices()
PLACED = "_placed"  # a vertex row's placed id while its table is being placed


def storage_dtype(dtype: Any) -> np.dtype:
    """The numpy type a column is kept in per arc: its own for numpy numbers, booleans and
    times, else object (strings, nullable and categorical columns), restored on the way out."""
    if isinstance(dtype, np.dtype) and dtype.kind in "biufcmM":
        return dtype
    return np.dtype(object)


def column_values(series: pd.Series) -> np.ndarray:
    """A column's values as kept (``storage_dtype``)."""
    return series.to_numpy(dtype=storage_dtype(series.dtype))


def restored(values: np.ndarray, dtype: Any) -> Any:
    """Kept values as a column of the user's ``dtype`` again (no copy when they already are)."""
    return pd.Series(values, copy=False).astype(dtype, copy=False).array


def is_numeric(dtype: Any) -> bool:
    """Whether a column can weigh arcs: numbers, not booleans."""
    return pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)


def numeric_names(dtypes: dict) -> list[str]:
    return [name for name, dtype in dtypes.items() if is_numeric(dtype)]


def edge_attr_names(
    columns: Sequence[Hashable],
    edge_attrs: Sequence[str] | str | bool | None,
    ends: tuple[Hashable, Hashable],
    weight: Hashable | None,
) -> list[str]:
    """The edge attribute columns ``edge_attrs`` names (None: none; True: every column but the
    ends and the weight; a name or a list of names), checked against the edge list's
    ``columns``; the weight is left out (it is kept as the weights)."""
    if edge_attrs is None or edge_attrs is False:
        return []
    if edge_attrs is True:
        names = [c for c in columns if c not in ends and c != weight]
    elif isinstance(edge_attrs, str):
        names = [edge_attrs]
    else:
        names = list(edge_attrs)
    for name in names:
        if not isinstance(name, str):
            raise DgraphInputError(f"edge_attrs: attribute names must be strings, got {name!r}")
        if name not in columns:
            raise DgraphInputError(
                f"edge_attrs column {name!r} is not in the edge list; its columns are {list(columns)}"
            )
        if name in ends:
            raise DgraphInputError(f"edge_attrs: {name!r} is the source or destination column, not an attribute")
        if name in ("src", "dst"):
            raise DgraphInputError(
                f"edge_attrs: {name!r} would clash with g.edges()' {name!r} column; rename it, "
                f"for example df.rename(columns={{{name!r}: '{name}_attr'}})"
            )
    if len(set(names)) < len(names):
        raise DgraphInputError(f"edge_attrs names a column twice: {names}")
    return [str(n) for n in names if n != weight]


def is_frame(vertices: Any) -> bool:
    """Whether ``vertices=`` is a DataFrame (pandas or dask) rather than labels."""
    return isinstance(vertices, pd.DataFrame) or (hasattr(vertices, "dask") and hasattr(vertices, "columns"))


def vertex_frame(frame: Any, column: Hashable) -> tuple[Any, Any]:
    """``(frame, its labels)`` of a ``vertices=`` frame: column ``column`` holds the labels and
    the others are vertex attributes (named by strings, none of them ``"vertex"``). A pandas
    frame is checked here: a null or repeated label is an error naming it."""
    if column not in frame.columns:
        raise DgraphInputError(
            f"vertices= frame has no column {column!r} of vertex labels; its columns are {list(frame.columns)}: "
            "name the label column with vertex_column="
        )
    for name in frame.columns:
        if name != column and (not isinstance(name, str) or name == VERTEX):
            raise DgraphInputError(
                f"vertices= frame column {name!r} cannot be a vertex attribute (g.vertices() has a {VERTEX!r} "
                "column and attribute names are strings); rename it"
            )
    if isinstance(frame, pd.DataFrame):
        labels = frame[column]
        if labels.isna().any():
            row = labels.index[labels.isna()][0]
            raise DgraphInputError(
                f"vertices= column {column!r} holds a null vertex id (first at row {row!r}); drop or fill those rows"
            )
        twice = labels[labels.duplicated()]
        if len(twice):
            raise _repeated(twice.iloc[0], column)
    return frame, frame[column]


def _repeated(label: Any, column: Hashable) -> DgraphInputError:
    return DgraphInputError(
        f"vertices= frame holds vertex {label!r} in more than one row; give each vertex one row of attributes, "
        f"for example frame.drop_duplicates({column!r})"
    )


def nullable(dtype: Any) -> Any:
    """The dtype a column takes when some vertices have no row: integers and booleans become
    pandas' nullable types (not floats, which would round large integers)."""
    if isinstance(dtype, np.dtype) and dtype.kind in "iu":
        return pd.api.types.pandas_dtype(("Int" if dtype.kind == "i" else "UInt") + str(8 * dtype.itemsize))
    if isinstance(dtype, np.dtype) and dtype.kind == "b":
        return pd.BooleanDtype()
    return dtype


def place_vertex_tables(store: Any, codec: Any, frame: Any, column: Hashable) -> tuple[list, dict]:
    """Each rank's table of the attributes of the vertices it owns, in placed-id order, on the
    worker holding its block (futures), and the columns' dtypes: the frame (a dask DataFrame)
    is cut by owner where its partitions are and each rank's rows put together there. A
    vertex without a row has nulls (``nullable`` dtypes)."""
    client, bounds = store.client, store.bounds
    names = [c for c in frame.columns if c != column]
    cut = dask.delayed(_cut_by_owner, pure=False)
    cuts = client.compute([cut(p, codec.labels.sorted, codec.table(), column, bounds) for p in frame.to_delayed()])
    where = store.where(store.blocks)
    made = [
        client.submit(
            _rank_table,
            int(bounds[r]),
            int(bounds[r + 1]),
            column,
            names,
            r,
            *groups,
            workers=[where[r]],
            allow_other_workers=True,
            pure=False,
        )
        for r, groups in enumerate(route(client, cuts, where))
    ]
    near = dict(allow_other_workers=True, pure=False)
    tables = [client.submit(operator.itemgetter(0), m, workers=[w], **near) for m, w in zip(made, where)]
    given = client.gather([client.submit(operator.itemgetter(1), m, pure=False) for m in made])  # repeats fail here
    dtypes = frame._meta[names].dtypes.to_dict() if hasattr(frame, "_meta") else frame[names].dtypes.to_dict()
    if sum(given) < store.n:
        dtypes = {name: nullable(dtype) for name, dtype in dtypes.items()}
    return tables, dtypes


def _cut_by_owner(part: pd.DataFrame, sorted_labels: Any, table: Any, column: Hashable, bounds: np.ndarray) -> list:
    """A vertex frame's partition cut into a piece per rank, each row with its placed id."""
    labels = part[column]
    if sorted_labels is None:  # the labels are the ids 0..n-1
        positions = labels.to_numpy(dtype=np.int64)
        outside = (positions < 0) | (positions >= bounds[-1])
        if outside.any():
            raise DgraphInputError(
                f"vertices= frame holds vertex id {positions[outside][0]}, outside 0..{bounds[-1] - 1}: with "
                "renumber=False the ids are the integers 0..n-1 (n = len(vertices)); use renumber=True for other labels"
            )
    else:
        positions = sorted_labels.get_indexer(labels).astype(np.int64)
    placed = positions if table is None else np.asarray(table)[positions]
    owner = owner_of(placed, bounds)
    part = part.assign(**{PLACED: placed})
    return [part[owner == r] for r in range(bounds.size - 1)]


def _rank_table(lo: int, hi: int, column: Hashable, names: list, r: int, *groups: Any) -> tuple[pd.DataFrame, int]:
    """Rank r's vertex table (vertices lo..hi-1, in order) from its pieces of every cut, and
    how many of its vertices had a row."""
    rows = pd.concat([g[r] for g in groups], ignore_index=True)
    twice = rows[PLACED].duplicated()
    if twice.any():
        raise _repeated(rows[column][twice].iloc[0], column)
    table = rows.set_index(PLACED)[names]
    if len(table) < hi - lo:
        table = table.astype({name: nullable(dtype) for name, dtype in table.dtypes.items()})
    return table.reindex(pd.RangeIndex(lo, hi)).reset_index(drop=True), len(rows)


def vertex_columns(r: int, table: pd.DataFrame | None, dtypes: dict) -> dict:
    """Rank r's vertex attributes as a result's columns (``Runner.to_frame``), in ``dtypes``."""
    if table is None:
        return {r: {}}
    return {r: {name: table[name].astype(dtype, copy=False).array for name, dtype in dtypes.items()}}


def edges_kernel(ctx: Any, *, weight: str | None, dtypes: dict, bounds: np.ndarray, layout: Any) -> dict:
    """Each rank's arcs with every edge attribute (``Graph.edges``), in the attributes' dtypes."""
    out = {}
    for r in ctx.ranks:
        block = ctx.blocks[r][0]
        src, dst, w = block_arcs(block)
        columns = block_attrs(block)
        if weight is not None:
            columns[weight] = np.empty(0) if w is None else w
        out[r] = {"src": src, "dst": dst, **{name: restored(columns[name], dt) for name, dt in dtypes.items()}}
    return out
