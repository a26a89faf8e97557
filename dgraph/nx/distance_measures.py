"""networkx's distance measures on dgraph: eccentricity, diameter, radius, centre, periphery
and the average shortest path length, all in hops and exact, from one search out of every
vertex (``dgraph.algorithms.distance_measures``: 64 sources to a machine word)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

from dgraph.algorithms.distance_measures import distance_sums

from .implement import at, frame, implements

if TYPE_CHECKING:
    from .graphs import Graph

NOTE = "Hops (weight=None), exact: a search from every node, 64 to a machine word (dgraph.algorithms.eccentricity)."
FROM_E = NOTE + " Without e (networkx reads a given e itself); usebounds changes nothing."


def _sums(G):
    found = frame(G, distance_sums(G.graph_), "vertex").set_index("vertex")
    return found.loc[G.nodes()]


def _unreachable(G):
    import networkx as nx

    kind = "digraph is not strongly connected" if G.is_directed() else "graph is not connected"
    return nx.NetworkXError(f"Found infinite path length because the {kind}")


def _eccentricities(G, nodes=None):
    found = _sums(G)
    if nodes is not None:
        found = found.loc[nodes]
    if (found["reaches"] < len(G) - 1).any():
        raise _unreachable(G)
    return dict(zip(found.index.tolist(), found["eccentricity"].astype(int).tolist()))


@implements(NOTE + " Without sp.")
def eccentricity(G: Graph, v: Any = None, sp: Any = None, weight: str | None = None) -> Any:
    from .implement import has_node

    if v is not None and has_node(G, v):
        return _eccentricities(G, [v])[v]
    nodes = None if v is None else list(v)
    return at(G, _eccentricities(G, nodes), nodes)


@implements(FROM_E)
def diameter(G: Graph, e: Any = None, usebounds: bool = False, weight: str | None = None) -> int:
    return max(_eccentricities(G).values())


@implements(FROM_E)
def radius(G: Graph, e: Any = None, usebounds: bool = False, weight: str | None = None) -> int:
    return min(_eccentricities(G).values())


@implements(FROM_E + " The nodes in the graph's node order.")
def center(G: Graph, e: Any = None, usebounds: bool = False, weight: str | None = None) -> list[Hashable]:
    found = _eccentricities(G)
    least = min(found.values())
    return [v for v, d in found.items() if d == least]


@implements(FROM_E + " The nodes in the graph's node order.")
def periphery(G: Graph, e: Any = None, usebounds: bool = False, weight: str | None = None) -> list[Hashable]:
    found = _eccentricities(G)
    most = max(found.values())
    return [v for v, d in found.items() if d == most]


@implements(NOTE)
def average_shortest_path_length(G: Graph, weight: str | None = None, method: str | None = None) -> float:
    import networkx as nx

    n = len(G)
    if n == 1:
        return 0
    found = _sums(G)
    if (found["reaches"] < n - 1).any():
        raise nx.NetworkXError(f"Graph is not {'strongly ' if G.is_directed() else ''}connected.")
    return float(found["distance_sum"].sum()) / (n * (n - 1))
