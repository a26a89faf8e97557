"""networkx's ``shortest_path`` in all its forms: one source, one target, both or neither, by
breadth-first search, Dijkstra or Bellman-Ford (``dgraph.nx.paths`` and ``dgraph.nx.bellman_ford``)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

from . import bellman_ford as bf
from .implement import implements
from .paths import TIES, all_pairs, bfs_paths, dijkstra, no_path, single_target_shortest_path

if TYPE_CHECKING:
    from .graphs import Graph


@implements(
    "method 'dijkstra' (non-negative weights) or 'bellman-ford' (any weights); without a source, to the "
    "target by a search of the reversed graph. " + TIES
)
def shortest_path(
    G: Graph, source: Hashable = None, target: Hashable = None, weight: Any = None, method: str = "dijkstra"
) -> Any:
    if method not in ("dijkstra", "bellman-ford"):
        raise ValueError(f"method not supported: {method}")
    method = "unweighted" if weight is None else method
    if source is None and target is None:
        if method == "bellman-ford":
            return bf.all_pairs_bellman_ford_path.__wrapped__(G, weight)  # type: ignore[attr-defined]
        return iter([(v, paths) for v, (_, paths) in all_pairs(G, weight if method == "dijkstra" else None).items()])
    if source is None:
        if method == "unweighted":
            return single_target_shortest_path.__wrapped__(G, target)  # type: ignore[attr-defined]
        R = G.reversed_() if G.is_directed() else G
        if method == "dijkstra":
            paths = dijkstra(R, target, weight)[1]
        else:
            paths = bf.bellman_ford_paths(R, target, weight)[1]
        return {v: path[::-1] for v, path in paths.items()}
    if method == "unweighted":
        paths = bfs_paths(G, source)
    elif method == "dijkstra":
        paths = dijkstra(G, source, weight)[1]
    else:
        paths = bf.bellman_ford_paths(G, source, weight)[1]
    if target is None:
        return paths
    if target not in paths:
        raise no_path(source, target)
    return paths[target]
