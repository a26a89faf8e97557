"""The graph networkx hands to the dgraph backend, and conversions to and from networkx.

A ``dgraph.nx.Graph`` (``DiGraph`` when directed) wraps a distributed ``dgraph.Graph``. Made
from a networkx graph, its vertices are numbered 0..n-1 in the networkx graph's node order and
it keeps the node objects to name results with (any hashable node works, tuples included);
made from a DataFrame, the labels are the frame's own. It carries one edge weight at most (the
attribute the call asked for) and no node or graph attributes: an algorithm needs no more.
"""

from __future__ import annotations

import weakref
from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd

from dgraph.dask_internals import fetch
from dgraph.errors import DgraphInputError

CONVERSIONS = {"from_networkx": 0, "to_networkx": 0}  # how many conversions ran, for tests and reports


class Graph:
    """A distributed graph that networkx functions accept and run with the dgraph backend.

    >>> import networkx as nx, pandas as pd, dgraph.nx
    >>> edges = pd.DataFrame({"source": [1, 2, 3], "target": [2, 3, 1]})
    >>> G = dgraph.nx.from_pandas_edgelist(edges)
    >>> G.number_of_nodes(), G.is_directed(), nx.number_connected_components(G)
    (3, False, 1)
    """

    __networkx_backend__ = "dgraph"

    def __init__(self, graph, nodes=None, weight=None, source=None, index=None):
        self.graph_ = graph  # the dgraph.Graph
        self.source_ = source  # a weak reference to the networkx graph it was made from, or None
        self.nodes_ = nodes  # node objects by vertex id, or None when the labels are the nodes
        self._index = index  # node -> vertex id (with nodes_), made when first needed
        self.weight = weight  # the networkx edge attribute held as the graph's weights, or None
        self.graph = {}  # networkx's graph attributes (none are kept)
        self._reversed = None  # the graph with every arc turned round, made when first needed
        self._labels = None  # every vertex's label, in vertex order, when nodes_ is None: asked once
        self.__networkx_cache__ = {}

    def is_directed(self):
        return False

    def is_multigraph(self):
        return False

    def number_of_nodes(self):
        return self.graph_.num_vertices

    def number_of_edges(self):
        return self.graph_.num_edges

    def __len__(self):
        return self.graph_.num_vertices

    def __repr__(self):
        return f"<dgraph.nx.{type(self).__name__} n={self.number_of_nodes()} m={self.number_of_edges()}>"

    # ------------------------------------------------------------------ labels
    def label(self, frame, *columns):
        """``frame`` (pandas) with ``columns`` of vertex labels turned into networkx nodes."""
        if self.nodes_ is None:
            return frame
        out = frame.copy()
        for c in columns:
            values = out[c]
            present = values.notna().to_numpy()
            named = np.full(len(values), None, dtype=object)
            named[present] = self.nodes_[values[present].to_numpy(np.int64)]
            out[c] = named
        return out

    def names(self, labels):
        """networkx's nodes for a list of dgraph labels."""
        if self.nodes_ is None:
            return list(labels)
        return self.nodes_[np.asarray(labels, dtype=np.int64)].tolist()

    @property
    def index(self):
        """node -> vertex id, for a graph made from networkx (``nodes_`` set)."""
        if self._index is None:
            self._index = {v: i for i, v in enumerate(self.nodes_.tolist())}
        return self._index

    def vertex(self, node):
        """The dgraph label of a networkx node (a KeyError-like error when absent)."""
        if self.nodes_ is None:
            return node
        if node not in self.index:
            raise _node_error(node)
        return self.index[node]

    def reversed_(self):
        """This graph with every arc turned round (a directed graph's ancestors are its reversal's
        descendants): built on the cluster from this graph's arcs once, then kept."""
        if self._reversed is None:
            graph = self.graph_
            arcs = graph.edges().rename(columns={"src": "dst", "dst": "src"})
            vertices = np.arange(len(self)) if self.nodes_ is not None else self.nodes()
            reversed_graph = graph._rebuilt(arcs[["src", "dst", *arcs.columns[2:]]], vertices)
            self._reversed = type(self)(reversed_graph, self.nodes_, self.weight, None, self._index)
        return self._reversed

    def nodes(self):
        """Every node (networkx's objects), in vertex order: for a graph made from a frame, asked
        of the cluster once (the graph never changes)."""
        if self.nodes_ is None:
            if self._labels is None:
                self._labels = fetch(self.graph_.client, self.graph_.degrees())["vertex"].tolist()
            return list(self._labels)
        return self.nodes_.tolist()


class DiGraph(Graph):
    """The directed ``dgraph.nx.Graph``."""

    def is_directed(self):
        return True


def _node_error(node):
    import networkx as nx

    return nx.NodeNotFound(f"Source {node} is not in G")


def convert_from_nx(
    G: Any,
    *,
    edge_attrs: dict[str, Any] | None = None,
    node_attrs: dict[str, Any] | None = None,
    preserve_edge_attrs: bool = False,
    preserve_node_attrs: bool = False,
    preserve_graph_attrs: bool = False,
    name: str | None = None,
    graph_name: str | None = None,
) -> Graph:
    """A ``dgraph.nx.Graph`` of a networkx graph: its nodes and edges, and the one edge
    attribute the call needs (``edge_attrs``: {attribute: default}) as weights."""
    import dgraph

    if isinstance(G, Graph):
        return G
    if G.is_multigraph():
        raise NotImplementedError("dgraph keeps one edge per node pair; a multigraph's parallel edges have no place")
    weights = {k: v for k, v in (edge_attrs or {}).items() if k is not None}
    if len(weights) > 1:
        raise NotImplementedError(f"dgraph keeps one edge weight; this call asks for {sorted(weights)}")
    weight, default = next(iter(weights.items())) if weights else (None, None)
    nodes = np.empty(len(G), dtype=object)
    nodes[:] = list(G)
    index = {v: i for i, v in enumerate(nodes.tolist())}
    src, dst, w = [], [], []
    for u, nbrs in G.adjacency():
        iu = index[u]
        for v, data in nbrs.items():
            iv = index[v]
            if not G.is_directed() and iv < iu:
                continue  # an undirected edge once
            src.append(iu)
            dst.append(iv)
            if weight is not None:
                w.append(data.get(weight, default))
    edges = pd.DataFrame({"src": np.asarray(src, dtype=np.int64), "dst": np.asarray(dst, dtype=np.int64)})
    if weight is not None:
        edges[weight] = np.asarray(w, dtype=np.float64)
    CONVERSIONS["from_networkx"] += 1
    graph = dgraph.from_edgelist(
        edges, weight=weight, directed=G.is_directed(), vertices=np.arange(len(nodes)), renumber=False
    )
    return (DiGraph if G.is_directed() else Graph)(graph, nodes, weight, weakref.ref(G), index)


def convert_to_nx(obj: Any, *, name: str | None = None) -> Any:
    """networkx's form of a result: a ``dgraph.nx.Graph`` becomes a networkx graph of its nodes,
    edges and weights; anything else is returned as it is."""
    if not isinstance(obj, Graph):
        return obj
    import networkx as nx

    CONVERSIONS["to_networkx"] += 1
    G = nx.DiGraph() if obj.is_directed() else nx.Graph()
    G.add_nodes_from(obj.nodes())
    edges = obj.label(obj.graph_.edges().compute(), "src", "dst")
    if obj.weight is None:
        G.add_edges_from(zip(edges["src"], edges["dst"]))
    else:
        column = obj.graph_.weight
        G.add_weighted_edges_from(zip(edges["src"], edges["dst"], edges[column].tolist()), weight=obj.weight)
    return G


def from_pandas_edgelist(
    df: Any,
    source: Hashable = "source",
    target: Hashable = "target",
    edge_attr: Any = None,
    create_using: Any = None,
    edge_key: Any = None,
) -> Graph:
    """A ``dgraph.nx.Graph`` straight from an edge list (pandas or dask), as networkx's
    ``from_pandas_edgelist`` reads one, without the graph ever existing in networkx: the
    labels are the frame's own (integers or strings), and ``edge_attr`` may name one numeric
    column, the weight. ``create_using``: ``nx.Graph`` (default) or ``nx.DiGraph`` (a class or
    an empty instance).

    >>> import networkx as nx, pandas as pd, dgraph.nx
    >>> edges = pd.DataFrame({"source": ["a", "b"], "target": ["b", "c"], "w": [1.0, 2.0]})
    >>> G = dgraph.nx.from_pandas_edgelist(edges, edge_attr="w")
    >>> nx.single_source_dijkstra_path_length(G, "a", weight="w")
    {'a': 0.0, 'b': 1.0, 'c': 3.0}
    """
    import dgraph

    directed = _directed(create_using)
    if edge_key is not None:
        raise DgraphInputError("edge_key is for multigraphs, which dgraph does not keep")
    if isinstance(edge_attr, (list, tuple)):
        if len(edge_attr) > 1:
            raise DgraphInputError(f"dgraph keeps one edge weight; edge_attr lists {list(edge_attr)}")
        edge_attr = edge_attr[0] if edge_attr else None
    if edge_attr is True:
        extra = [c for c in df.columns if c not in (source, target)]
        if len(extra) > 1:
            raise DgraphInputError(f"dgraph keeps one edge weight; edge_attr=True would keep {extra}")
        edge_attr = extra[0] if extra else None
    for column in [source, target] + ([edge_attr] if edge_attr else []):
        if column not in df.columns:
            raise DgraphInputError(f"column {column!r} is not in the frame (columns: {list(df.columns)})")
    frame = df[[source, target] + ([edge_attr] if edge_attr else [])].rename(columns={source: "src", target: "dst"})
    graph = dgraph.from_edgelist(frame, weight=edge_attr, directed=directed)
    return (DiGraph if directed else Graph)(graph, None, edge_attr)


def _directed(create_using):
    import networkx as nx

    if create_using is None:
        return False
    kind = create_using if isinstance(create_using, type) else type(create_using)
    if isinstance(create_using, nx.Graph) and len(create_using):
        raise DgraphInputError("create_using must be a graph class or an empty graph")
    if issubclass(kind, nx.MultiGraph):
        raise DgraphInputError("dgraph keeps one edge per node pair: create_using cannot be a multigraph")
    if not issubclass(kind, nx.Graph):
        raise DgraphInputError(f"create_using must be nx.Graph or nx.DiGraph, got {create_using!r}")
    return issubclass(kind, nx.DiGraph)
