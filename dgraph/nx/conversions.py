"""networkx's conversions and unary operators on dgraph: a graph from a scipy sparse matrix, the
complement, the reverse and the dict of lists. Each builds or reads a graph on the cluster:
none is an algorithm of the registry (``dgraph.nx.functions.CONSTRUCTORS`` names them)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd

from dgraph.dask_internals import fetch

from .graphs import DiGraph, Graph, _directed
from .implement import implements


def _build(G: Graph, edges: pd.DataFrame, nodes: Any, directed: bool) -> Graph:
    """A ``dgraph.nx.Graph`` of these edges (vertex ids of ``G``) over all of ``G``'s vertices,
    named by ``G``'s nodes."""
    import dgraph

    n = len(G)
    graph = dgraph.from_edgelist(
        edges, directed=directed, vertices=np.arange(n), renumber=False, client=G.graph_.client
    )
    return (DiGraph if directed else Graph)(graph, nodes, None, None, None)


def _ids_and_nodes(G: Graph):
    """(every vertex's label, the nodes to name them by): the labels are ids 0..n-1 when the
    graph came from networkx; otherwise its own labels, renumbered here."""
    if G.nodes_ is not None:
        return np.arange(len(G)), G.nodes_
    labels = np.asarray(G.nodes(), dtype=object)
    return np.arange(labels.size), labels


def _arcs(G: Graph, nodes: Any) -> tuple[np.ndarray, np.ndarray]:
    """Every arc as vertex ids 0..n-1 (both arcs of an undirected edge)."""
    arcs = fetch(G.graph_.client, G.graph_.edges()[["src", "dst"]])
    if G.nodes_ is not None:
        return arcs["src"].to_numpy(np.int64), arcs["dst"].to_numpy(np.int64)
    index = pd.Index(nodes)
    return index.get_indexer(arcs["src"]), index.get_indexer(arcs["dst"])


@implements(
    "The pairs are found on the client from the graph's arcs (n(n - 1) pairs: the complement of a large sparse "
    "graph is dense), and the complement is built on the cluster."
)
def complement(G: Graph) -> Graph:
    ids, nodes = _ids_and_nodes(G)
    n = ids.size
    src, dst = _arcs(G, nodes)
    present = np.zeros((n, n), dtype=bool)
    present[src, dst] = True
    np.fill_diagonal(present, True)
    if not G.is_directed():
        present |= present.T
        present |= np.tril(np.ones((n, n), dtype=bool))  # each edge once
    u, v = np.nonzero(~present)
    return _build(G, pd.DataFrame({"src": u, "dst": v}), nodes, G.is_directed())


@implements("copy=True only: a new graph, built on the cluster from the arcs turned round (kept for later calls).")
def reverse(G: Graph, copy: bool = True) -> Graph:
    return G.reversed_()


@implements("Each node's neighbours in the graph's node order (networkx lists them in the order they were added).")
def to_dict_of_lists(G: Graph, nodelist: Any = None) -> dict[Hashable, list[Hashable]]:
    ids, nodes = _ids_and_nodes(G)
    src, dst = _arcs(G, nodes)
    order = np.lexsort((dst, src))
    src, dst = src[order], dst[order]
    cuts = np.searchsorted(src, ids, side="left").tolist() + [src.size]
    names = nodes.tolist() if hasattr(nodes, "tolist") else list(nodes)
    lists = {names[i]: [names[j] for j in dst[cuts[i] : cuts[i + 1]].tolist()] for i in ids.tolist()}
    if nodelist is None:
        return lists
    keep = set(nodelist)
    return {v: [w for w in lists[v] if w in keep] for v in nodelist}


@implements(
    "Builds a dgraph.nx.Graph on the cluster, nodes 0..n-1, the entries as weights (float64); an undirected graph "
    "keeps the last entry of each pair in the matrix's order, as networkx does. No multigraphs."
)
def from_scipy_sparse_array(
    A: Any, parallel_edges: bool = False, create_using: Any = None, edge_attribute: str = "weight"
) -> Graph:
    import dgraph

    directed = _directed(create_using)
    n = A.shape[0]
    coo = A.tocoo()
    edges = pd.DataFrame(
        {"src": coo.row.astype(np.int64), "dst": coo.col.astype(np.int64), edge_attribute: coo.data.astype(np.float64)}
    )
    if not directed:  # (u, v) and (v, u) are one edge: networkx keeps the weight it added last
        ends = np.sort(edges[["src", "dst"]].to_numpy(), axis=1)
        edges = edges.assign(src=ends[:, 0], dst=ends[:, 1]).drop_duplicates(["src", "dst"], keep="last")
    graph = dgraph.from_edgelist(edges, weight=edge_attribute, directed=directed, vertices=np.arange(n), renumber=False)
    return (DiGraph if directed else Graph)(graph, None, edge_attribute)
