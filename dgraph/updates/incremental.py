"""Results carried from an earlier version: components united along the edges added since.

A graph made from another by additions alone (``add_edges``, ``add_vertices``) keeps every id
and every arc of it, so each of its components is a union of the earlier components joined by
the added edges. ``united_components`` unites them: the earlier result's labels of the added
edges' ends (and the added vertices themselves) are the nodes of a graph of the added edges,
whose components (scipy, on the client: nodes are at most twice the edges added) name the
merged components after their member first in the vertex order, as ``connected_components``
does. The earlier frame is relabelled on the workers where its partitions are.
"""

from __future__ import annotations

from typing import Any

import dask.dataframe as dd
import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from ..errors import DgraphInputError
from ..labels import check_labels
from .change import placed
from .versions import lineage_of


def _relabelled(part: pd.DataFrame, mapping: dict) -> pd.DataFrame:
    if not mapping:
        return part
    component = part["component"]
    merged = component.map(mapping)
    return part.assign(component=component.mask(merged.notna(), merged).astype(component.dtype))


def _canonical(order: Any, ids: np.ndarray) -> np.ndarray:
    return ids if order is None else np.asarray(order, np.int64)[ids]


def united_components(graph: Any, previous: Any) -> dd.DataFrame:
    """The components of ``graph`` from ``previous``, the components of an earlier version it
    was made from by additions only (a frame [vertex, component], pandas or dask)."""
    lineage = lineage_of(graph)
    if not lineage.exact:
        raise DgraphInputError(
            "previous= carries components across additions only, and this graph was made by a removal or a rebuild "
            "since (update_stats); call connected_components(graph) without previous="
        )
    if not hasattr(previous, "columns") or not {"vertex", "component"} <= set(previous.columns):
        raise DgraphInputError("previous= takes the frame connected_components returned: columns vertex and component")
    client = graph.client
    edges = pd.concat(lineage.edges, ignore_index=True) if lineage.edges else pd.DataFrame({"src": [], "dst": []})
    added = pd.Index(pd.concat([pd.Series(a) for a in lineage.labels], ignore_index=True)) if lineage.labels else None
    ends = pd.unique(pd.concat([edges.src, edges.dst, pd.Series(added if added is not None else [])]))
    is_dask = isinstance(previous, dd.DataFrame)
    rows = previous[previous.vertex.isin(list(ends))]
    if is_dask:
        known, size = (f.result() for f in client.compute([rows, previous.vertex.size]))
    else:
        known, size = rows, len(previous)
    if not lineage.start_n <= size <= graph.num_vertices:
        raise DgraphInputError(
            f"previous= has {size} vertices; the components of a version this graph was made from by additions have "
            f"{lineage.start_n} to {graph.num_vertices}: pass the result of connected_components on one of them"
        )
    component = dict(zip(known.vertex, known.component))
    fresh = [v for v in ends if v not in component]
    if fresh and (added is None or not pd.Index(fresh).isin(added).all()):
        raise DgraphInputError(
            f"previous= lacks vertex {fresh[0]!r}, which this graph had before its additions: pass the components of "
            "a version this graph was made from by additions only"
        )
    # nodes: earlier components (by their label) and vertices new since previous (by themselves)
    ends_of = [edges.src.map(lambda v: component.get(v, v)), edges.dst.map(lambda v: component.get(v, v))]
    node_labels = pd.concat([*ends_of] + ([pd.Series(fresh)] if fresh else []), ignore_index=True)
    nodes = pd.Index(check_labels(pd.Series(pd.unique(node_labels)), "previous= labels"))
    a, b = nodes.get_indexer(ends_of[0]), nodes.get_indexer(ends_of[1])
    links = sp.coo_matrix((np.ones(a.size), (a, b)), shape=(len(nodes), len(nodes)))
    count, group = connected_components(links, directed=False)
    ids = placed(graph, nodes)
    order = graph.codec.order
    first = ids if order is None else client.submit(_canonical, order, ids, pure=False).result()
    by = np.lexsort((first, group))  # each group's member first in the vertex order leads it
    leads = np.r_[True, group[by][1:] != group[by][:-1]]
    rep = np.empty(count, np.int64)
    rep[group[by][leads]] = by[leads]
    named = nodes[rep[group]]
    alone = set(fresh)  # vertices new since previous: no earlier component is named after them
    mapping = {old: new for old, new in zip(nodes, named) if old != new and old not in alone}
    meta = previous._meta if is_dask else previous.iloc[:0]
    out = previous.map_partitions(_relabelled, mapping, meta=meta) if is_dask else _relabelled(previous, mapping)
    new_vertices = added[~added.isin(known.vertex)] if added is not None else pd.Index([])
    if len(new_vertices):
        where = dict(zip(nodes, named))
        extra = pd.DataFrame({"vertex": new_vertices, "component": [where.get(v, v) for v in new_vertices]})
        extra = extra.astype(meta.dtypes.to_dict())
        out = dd.concat([out, dd.from_pandas(extra, npartitions=1)]) if is_dask else pd.concat([out, extra])
    return out if is_dask else dd.from_pandas(out.reset_index(drop=True), npartitions=1)
