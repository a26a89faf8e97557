"""A graph gathered to the client: a ``Snapshot`` of numpy arrays, or a networkx graph.

For verification and small analyses; both hold the whole graph in the client's memory.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pandas as pd

from .block import block_arcs
from .dask_internals import fetch
from .store import label_piece

if TYPE_CHECKING:
    from .graph import Graph


class Snapshot(NamedTuple):
    """A graph on the client (``Graph.snapshot``), in placed ids 0..n-1: ``labels[i]`` is the
    user's label of vertex i, ``key[i]`` its position in the graph's vertex order (ties between
    vertices break by it), and the stored arcs ``src[j] -> dst[j]`` (both arcs of an undirected
    edge) with their ``weights`` (None when unweighted)."""

    n: int
    directed: bool
    labels: pd.Index
    key: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    weights: np.ndarray | None


def snapshot(graph: Graph) -> Snapshot:
    """The whole graph gathered to the client as numpy arrays of placed ids. Memory: about 24
    bytes per stored arc.

    >>> import dgraph
    >>> s = dgraph.datasets.load("karate").snapshot()
    >>> s.n, s.src.size, int(s.labels[0])
    (34, 156, 1)
    """
    c, store, codec = graph.client, graph.store, graph.codec
    arcs = c.gather([c.submit(block_arcs, b, pure=False) for b in store.blocks])
    index, n = codec.labels.index, graph.num_vertices
    placed = codec.order if index is None else c.submit(label_piece, index, codec.order, 0, n)
    labels, order = c.gather([placed, codec.order])
    src = np.concatenate([a[0] for a in arcs]).astype(np.int64)
    dst = np.concatenate([a[1] for a in arcs]).astype(np.int64)
    weights = None if graph.weight is None else np.concatenate([a[2] for a in arcs])
    key = np.arange(n, dtype=np.int64) if order is None else np.asarray(order, dtype=np.int64)
    labels = pd.Index(np.arange(n) if labels is None else labels)
    return Snapshot(n, graph.directed, labels, key, src, dst, weights)


def to_networkx(graph: Graph) -> Any:
    """A networkx (Di)Graph of ``graph`` (needs networkx installed), with every edge attribute on
    its edges (the weight under the graph's weight name) and every vertex attribute on its nodes
    (nulls left out).

    >>> import dgraph
    >>> G = dgraph.datasets.load("karate").to_networkx()
    >>> G.number_of_nodes(), G.number_of_edges()
    (34, 78)
    """
    try:
        import networkx as nx
    except ImportError as exc:
        raise ImportError("to_networkx needs networkx: pip install networkx") from exc
    G = nx.DiGraph() if graph.directed else nx.Graph()
    nodes = fetch(graph.client, graph.vertices())
    names = list(graph.vertex_attrs)
    if names:
        values = nodes[names].astype(object).where(nodes[names].notna(), None).to_numpy()
        G.add_nodes_from(
            (v, {k: x for k, x in zip(names, row) if x is not None}) for v, row in zip(nodes["vertex"].tolist(), values)
        )
    else:
        G.add_nodes_from(nodes["vertex"].tolist())
    e = fetch(graph.client, graph.edges())
    names = list(graph.edge_attrs)
    if names:
        rows = e[names].astype(object).to_numpy()
        G.add_edges_from((s, d, dict(zip(names, row))) for s, d, row in zip(e["src"].tolist(), e["dst"].tolist(), rows))
    else:
        G.add_edges_from(zip(e["src"].tolist(), e["dst"].tolist()))
    return G
