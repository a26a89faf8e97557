"""Why the backend does not run a call of a path function (``backend.can_run`` asks): what
dgraph does not do, or where networkx raises its own error. None: dgraph runs it."""

from __future__ import annotations

from typing import Any

# the functions that need non-negative weights (networkx's Dijkstra)
DIJKSTRA = (
    "single_source_dijkstra_path",
    "dijkstra_path",
    "dijkstra_path_length",
    "bidirectional_dijkstra",
    "multi_source_dijkstra",
    "multi_source_dijkstra_path",
    "multi_source_dijkstra_path_length",
    "all_pairs_dijkstra",
    "all_pairs_dijkstra_path",
    "all_pairs_dijkstra_path_length",
)
MULTI_SOURCE = ("multi_source_dijkstra", "multi_source_dijkstra_path", "multi_source_dijkstra_path_length")
DENSE = ("floyd_warshall", "floyd_warshall_predecessor_and_distance", "floyd_warshall_numpy")
LCA = ("lowest_common_ancestor", "all_pairs_lowest_common_ancestor")


def why_not(name: str, G: Any, bound: dict[str, Any], weight: Any) -> str | None:
    """The reason dgraph declines this call of ``name`` (arguments ``bound`` by name), or None."""
    from .graphs import Graph

    if name in ("all_shortest_paths", "single_source_all_shortest_paths", "all_pairs_all_shortest_paths"):
        method = bound.get("method")
        if method not in ("dijkstra", "bellman-ford"):
            return f"method {method!r}: networkx raises its own error"
        if weight is not None and method == "dijkstra" and _negative(G, weight):
            return "a negative weight: networkx's Dijkstra runs it (or raises its own error)"
    if name == "shortest_path":
        method = bound.get("method")
        if method not in ("dijkstra", "bellman-ford"):
            return f"method {method!r}: networkx raises its own error"
        if weight is not None and method == "dijkstra" and _negative(G, weight):
            return "a negative weight: networkx's Dijkstra runs it (or raises its own error)"
    if name in DIJKSTRA and weight is not None and _negative(G, weight):
        return "a negative weight: networkx's Dijkstra runs it (or raises its own error)"
    if name in MULTI_SOURCE:
        sources = bound.get("sources")
        if not isinstance(sources, (list, tuple, set, frozenset, dict)):
            return "sources must be a collection of nodes (an iterator would be used up by the check)"
        if not sources or any(not in_graph(G, s) for s in sources):
            return "no sources, or a source that is not a node: networkx raises its own error"
    if name in DENSE and weight is not None and _negative(G, weight):
        return "a negative weight: networkx's Floyd-Warshall runs it (a negative cycle is no error there)"
    if name == "generic_bfs_edges" and bound.get("neighbors") is not None:
        return "dgraph's generic_bfs_edges follows the graph's own neighbors (neighbors=None)"
    if name == "ego_graph":
        if bound.get("undirected") and G.is_directed():
            return "undirected=True on a directed graph runs in networkx"
        distance = bound.get("distance")
        if distance is not None and not (isinstance(G, Graph) and G.weight == distance):
            return "distance= needs the attribute as the graph's weight: networkx runs it"
    if name in LCA:
        if not G.is_directed():
            return f"networkx's {name} is not implemented for undirected graphs: networkx raises its own error"
        for node in (bound.get("node1"), bound.get("node2")):
            if node is not None and not in_graph(G, node):
                return "a node is not in the graph: networkx raises its own error"
    return None


def in_graph(G, node) -> bool:
    """Whether ``node`` is a node of ``G`` (a ``dgraph.nx.Graph`` or a networkx graph)."""
    from .graphs import Graph

    if isinstance(G, Graph):
        return G.nodes_ is None or node in G.index
    try:
        return node in G
    except TypeError:
        return False


def _negative(G, weight):
    from .graphs import Graph

    if isinstance(G, Graph):
        return False  # dgraph's own check names the column
    return any(d.get(weight, 1) < 0 for _, _, d in G.edges(data=True))
