"""networkx's link prediction on dgraph: the Jaccard coefficient, Adamic-Adar and resource
allocation indices and preferential attachment of node pairs, computed on the workers
(``dgraph.algorithms.link_prediction``), yielded in the order the pairs were given."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from typing import TYPE_CHECKING, Any

from dgraph import algorithms as alg
from dgraph.dask_internals import fetch

from .implement import has_node, implements

if TYPE_CHECKING:
    from .graphs import Graph

NOTE = (
    "Scored on the workers, each pair at its first node's owner, sorted neighbour lists intersected "
    "(dgraph.algorithms.{name}); without ebunch, "
    "every pair of distinct nodes no edge joins, listed on the client (n^2 / 2 pairs)."
)


def _non_edges(G):
    graph = G.graph_
    arcs = fetch(graph.client, graph.edges()[["src", "dst"]])
    joined = set(zip(G.names(arcs["src"].to_numpy()), G.names(arcs["dst"].to_numpy())))
    nodes = G.nodes()
    return [(u, v) for i, u in enumerate(nodes) for v in nodes[i + 1 :] if (u, v) not in joined]


def _scores(G: Graph, ebunch: Any, method: Callable[..., Any], column: str) -> Iterator[tuple[Hashable, Hashable, Any]]:
    import networkx as nx

    pairs = _non_edges(G) if ebunch is None else list(ebunch)
    for u, v in pairs:
        for node in (u, v):
            if not has_node(G, node):
                raise nx.NodeNotFound(f"Node {node} not in G.")
    if not pairs:
        return iter([])
    found = fetch(G.graph_.client, method(G.graph_, [(G.vertex(u), G.vertex(v)) for u, v in pairs]))
    found = G.label(found, "u", "v")
    score = dict(zip(zip(found["u"].tolist(), found["v"].tolist()), found[column].tolist()))
    return ((u, v, score[(u, v)]) for u, v in pairs)


@implements(NOTE.format(name="jaccard_coefficient"))
def jaccard_coefficient(G: Graph, ebunch: Any = None) -> Iterator[tuple[Hashable, Hashable, float]]:
    return _scores(G, ebunch, alg.jaccard_coefficient, "jaccard_coefficient")


@implements(NOTE.format(name="adamic_adar_index"))
def adamic_adar_index(G: Graph, ebunch: Any = None) -> Iterator[tuple[Hashable, Hashable, float]]:
    return _scores(G, ebunch, alg.adamic_adar_index, "adamic_adar_index")


@implements(NOTE.format(name="resource_allocation_index"))
def resource_allocation_index(G: Graph, ebunch: Any = None) -> Iterator[tuple[Hashable, Hashable, float]]:
    return _scores(G, ebunch, alg.resource_allocation_index, "resource_allocation_index")


@implements(NOTE.format(name="preferential_attachment"))
def preferential_attachment(G: Graph, ebunch: Any = None) -> Iterator[tuple[Hashable, Hashable, int]]:
    return _scores(G, ebunch, alg.preferential_attachment, "preferential_attachment")
