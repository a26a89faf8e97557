"""networkx's questions about every shortest path, not one: each node's predecessors on all of
them (``predecessor``), every shortest path between two nodes or from one, and Johnson's all
pairs with negative weights. The predecessors are the arcs a search's distances make tight
(a tail's distance plus the arc's weight gives its head's), found by joining the arcs with the
distances on the workers; the paths are networkx's own enumeration over them."""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from typing import TYPE_CHECKING, Any

from .bellman_ford import bellman_ford_predecessor_and_distance, johnson_pairs, tight_arcs, unbounded
from .implement import WRITTEN, bfs, implements
from .paths import lengths

if TYPE_CHECKING:
    from .graphs import Graph

_ORDER = "Each node's predecessors in the order of their distances, the node order within one (networkx: as found)."


def _predecessors(G, found, weight):
    """node -> its predecessors on shortest paths (``found``: the search, nearest first)."""
    pred: dict[Hashable, list] = {v: [] for v in found["vertex"].tolist()}
    tight = tight_arcs(G, found, weight)
    for tail, head in zip(tight["src"].tolist(), tight["dst"].tolist()):
        pred[head].append(tail)
    return pred


@implements("A breadth-first search, then the arcs one level apart, found on the workers. " + _ORDER)
def predecessor(
    G: Graph, source: Hashable, target: Hashable = None, cutoff: int | None = None, return_seen: Any = None
) -> Any:
    found = bfs(G, source, cutoff if cutoff else None)  # networkx reads cutoff=0 as none
    pred = _predecessors(G, found, None)
    pred[source] = []
    seen = lengths(G, found, None)
    if target is not None:
        if target not in pred:
            return ([], -1) if return_seen else []
        return (pred[target], seen[target]) if return_seen else pred[target]
    return (pred, seen) if return_seen else pred


def _pred(G, source, weight, method):
    if weight is None:
        return predecessor.__wrapped__(G, source)
    if method == "dijkstra":  # dgraph.nx.functions' (the registry of implementations: no import cycle)
        return WRITTEN["dijkstra_predecessor_and_distance"].__wrapped__(G, source, weight=weight)[0]
    return bellman_ford_predecessor_and_distance.__wrapped__(G, source, weight=weight)[0]


def _build(sources, target, pred):
    from networkx.algorithms.shortest_paths.generic import _build_paths_from_predecessors

    return _build_paths_from_predecessors(sources, target, pred)


@implements("Every path networkx enumerates over dgraph's predecessors (weights: Dijkstra's or Bellman-Ford's).")
def all_shortest_paths(
    G: Graph, source: Hashable, target: Hashable, weight: Any = None, method: str = "dijkstra"
) -> Iterator[list[Hashable]]:
    if method not in ("dijkstra", "bellman-ford"):
        raise ValueError(f"method not supported: {method}")
    return _build({source}, target, _pred(G, source, weight, method))


@implements("As all_shortest_paths.")
def single_source_all_shortest_paths(
    G: Graph, source: Hashable, weight: Any = None, method: str = "dijkstra"
) -> Iterator[tuple[Hashable, list[list[Hashable]]]]:
    if method not in ("dijkstra", "bellman-ford"):
        raise ValueError(f"method not supported: {method}")
    pred = _pred(G, source, weight, method)
    return iter([(n, list(_build({source}, n, pred))) for n in pred])


@implements("As all_shortest_paths, one search per node.")
def all_pairs_all_shortest_paths(
    G: Graph, weight: Any = None, method: str = "dijkstra"
) -> Iterator[tuple[Hashable, dict[Hashable, list]]]:
    one = single_source_all_shortest_paths.__wrapped__  # type: ignore[attr-defined]
    return ((n, dict(one(G, n, weight=weight, method=method))) for n in G.nodes())


@implements(
    "Johnson's method on the cluster: potentials from one Bellman-Ford search from every node at once, the "
    "arcs reweighted to non-negative weights on the workers, then every source's search in one run "
    "(dgraph.algorithms.shortest_paths). Among paths of equal length each vertex's predecessor is the first "
    "in the node order."
)
def johnson(G: Graph, weight: Any = "weight") -> dict[Hashable, dict[Hashable, list]]:
    pairs = johnson_pairs(G, weight)
    if pairs is None:
        raise unbounded()
    return {v: paths for v, (_, paths) in pairs.items()}
