"""networkx's measures read off the degrees and the arcs: degree centrality, isolates,
self-loops and reciprocity (``dgraph.algorithms.degree_centrality``, ``isolates``,
``self_loops`` and ``reciprocity``: computed on the workers, each node's answer to the client)."""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from typing import TYPE_CHECKING, Any

from dgraph import algorithms as alg
from dgraph.dask_internals import fetch

from .implement import as_dict, at, frame, implements, number_of_loops

if TYPE_CHECKING:
    from .graphs import Graph


def _centrality(G, direction):
    return as_dict(G, alg.degree_centrality(G.graph_, direction=direction), "degree_centrality")


@implements()
def degree_centrality(G: Graph) -> dict[Hashable, float]:
    return _centrality(G, "all")


@implements()
def in_degree_centrality(G: Graph) -> dict[Hashable, float]:
    return _centrality(G, "in")


@implements()
def out_degree_centrality(G: Graph) -> dict[Hashable, float]:
    return _centrality(G, "out")


def _isolated(G):
    return frame(G, alg.isolates(G.graph_), "vertex")["vertex"].tolist()


@implements("The isolated nodes in the graph's node order.")
def isolates(G: Graph) -> Iterator[Hashable]:
    return iter(_isolated(G))


@implements()
def is_isolate(G: Graph, n: Hashable) -> bool:
    degree = fetch(G.graph_.client, G.graph_.degrees())
    row = degree[degree["vertex"] == G.vertex(n)]
    return int(row.drop(columns="vertex").to_numpy().sum()) == 0


@implements()
def number_of_isolates(G: Graph) -> int:
    return len(_isolated(G))


@implements()
def number_of_selfloops(G: Graph) -> int:
    return number_of_loops(G)


@implements()
def reciprocity(G: Graph, nodes: Any = None) -> Any:
    import networkx as nx

    if nodes is None:
        return overall_reciprocity(G)  # as networkx does, so it counts as run
    values = {
        v: (None if r != r else r)  # NaN: an isolated node, which networkx leaves undefined (None)
        for v, r in as_dict(G, alg.reciprocity(G.graph_), "reciprocity").items()
    }
    found = at(G, values, nodes)
    if found is None:
        raise nx.NetworkXError("Not defined for isolated nodes.")
    return found


@implements()
def overall_reciprocity(G: Graph) -> float:
    import networkx as nx

    arcs = G.number_of_edges()
    if arcs == 0:
        raise nx.NetworkXError("Not defined for empty graphs")
    mutual = int(fetch(G.graph_.client, alg.reciprocity(G.graph_)["mutual"].sum()))
    return (mutual - number_of_loops(G)) / arcs
