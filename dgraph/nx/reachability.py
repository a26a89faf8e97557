"""networkx's questions of reachability, answered from dgraph's searches and components: is a
graph connected, how many components, which nodes a search reaches (``descendants``,
``ancestors``, ``bfs_layers``), path lengths from one node, to one node, or between all pairs, and
whether a graph is a tree or a forest (its edges against its components)."""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from dgraph import algorithms as alg
from dgraph.dask_internals import fetch

from .implement import bfs, degrees, distinct, frame, implements, weighted
from .implement import has_node as _has

if TYPE_CHECKING:
    from .graphs import Graph


def _count(G, found):
    return distinct(G, found, "component")


def _components(G):
    graph = G.graph_
    return alg.weakly_connected_components(graph) if graph.directed else alg.connected_components(graph)


# --------------------------------------------------------------------------- components
@implements()
def is_connected(G: Graph) -> bool:
    return _count(G, alg.connected_components(G.graph_)) == 1


@implements()
def node_connected_component(G: Graph, n: Hashable) -> set[Hashable]:
    found = alg.connected_components(G.graph_)
    mine = fetch(G.graph_.client, found[found["vertex"] == G.vertex(n)]["component"])
    members = fetch(G.graph_.client, found[found["component"] == mine.iloc[0]]["vertex"])
    return set(G.names(members.to_numpy()))


@implements()
def number_weakly_connected_components(G: Graph) -> int:
    return _count(G, alg.weakly_connected_components(G.graph_))


@implements()
def is_weakly_connected(G: Graph) -> bool:
    return _count(G, alg.weakly_connected_components(G.graph_)) == 1


@implements()
def number_strongly_connected_components(G: Graph) -> int:
    return _count(G, alg.strongly_connected_components(G.graph_))


@implements()
def is_strongly_connected(G: Graph) -> bool:
    return _count(G, alg.strongly_connected_components(G.graph_)) == 1


@implements(
    "A forest has one edge fewer than nodes in each (weak) component: the edges counted against the components."
)
def is_forest(G: Graph) -> bool:
    return G.number_of_edges() == len(G) - _count(G, _components(G))


@implements("As is_forest, with one component.")
def is_tree(G: Graph) -> bool:
    return G.number_of_edges() == len(G) - 1 and _count(G, _components(G)) == 1


def _at_most_one_in(G):
    return int(degrees(G)["in_degree"].max()) <= 1


@implements("A forest whose in-degrees are at most one.")
def is_branching(G: Graph) -> bool:
    return _at_most_one_in(G) and is_forest.__wrapped__(G)  # type: ignore[attr-defined]


@implements("A tree whose in-degrees are at most one.")
def is_arborescence(G: Graph) -> bool:
    return _at_most_one_in(G) and is_tree.__wrapped__(G)  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- searches
@implements()
def has_path(G: Graph, source: Hashable, target: Hashable) -> bool:
    found = alg.bfs(G.graph_, G.vertex(source))
    hit = fetch(G.graph_.client, found[found["vertex"] == G.vertex(target)]["distance"])
    return bool(hit.notna().any())


@implements()
def descendants(G: Graph, source: Hashable) -> set[Hashable]:
    return set(bfs(G, source)["vertex"].tolist()) - {source}


def _reversed_bfs(G, target, cutoff=None):
    """The nodes that reach ``target``, nearest first: BFS on the reversed graph (built once per
    graph and kept) where arcs have a direction."""
    if not G.is_directed():
        return bfs(G, target, cutoff)
    R = G.reversed_()
    found = frame(R, alg.bfs(R.graph_, R.vertex(target), depth_limit=cutoff), "vertex", "predecessor")
    return found[found["distance"].notna()].sort_values("distance", kind="stable")


@implements("Directed graphs: a search of the reversed graph (built once, kept).")
def ancestors(G: Graph, source: Hashable) -> set[Hashable]:
    return set(_reversed_bfs(G, source)["vertex"].tolist()) - {source}


@implements()
def descendants_at_distance(G: Graph, source: Hashable, distance: int) -> set[Hashable]:
    if distance < 0:
        return set()
    found = bfs(G, source, distance)
    return set(found.loc[found["distance"] == distance, "vertex"].tolist())


def _layers(found):
    return (group["vertex"].tolist() for _, group in found.groupby("distance", sort=True))


@implements(
    "Each layer's nodes in the graph's node order (networkx lists them as found). Several sources: every "
    "source's search in one run (dgraph.algorithms.k_hop), each node in the layer of its nearest source."
)
def bfs_layers(G: Graph, sources: Any) -> Iterator[list[Hashable]]:
    import networkx as nx

    if _has(G, sources):
        sources = [sources]
    sources = list(dict.fromkeys(sources))
    for s in sources:
        if not _has(G, s):
            raise nx.NetworkXError(f"The node {s} is not in the graph.")
    if len(sources) == 1:
        return _layers(bfs(G, sources[0]))
    graph = G.graph_
    near = alg.k_hop(graph, [G.vertex(s) for s in sources], len(G))
    nearest = fetch(graph.client, near.groupby("vertex")["hops"].min()).rename("distance").reset_index()
    return _layers(G.label(nearest.sort_values(["distance", "vertex"], kind="stable"), "vertex"))


@implements("As bfs_edges (a vertex's parent is the first in the node order one level closer).")
def bfs_predecessors(
    G: Graph, source: Hashable, depth_limit: int | None = None, sort_neighbors: Any = None
) -> Iterator[tuple[Hashable, Hashable]]:
    found = bfs(G, source, depth_limit)
    tree = found[found["predecessor"].notna()]
    return iter(list(zip(tree["vertex"].tolist(), tree["predecessor"].tolist())))


@implements("As bfs_edges; each parent once, its children in the node order.")
def bfs_successors(
    G: Graph, source: Hashable, depth_limit: int | None = None, sort_neighbors: Any = None
) -> Iterator[tuple[Hashable, list[Hashable]]]:
    found = bfs(G, source, depth_limit)
    tree = found[found["predecessor"].notna()]
    children: dict[Hashable, list[Hashable]] = {source: []}  # networkx yields the source even without children
    for child, parent in zip(tree["vertex"].tolist(), tree["predecessor"].tolist()):
        children.setdefault(parent, []).append(child)
    return iter(list(children.items()))


# --------------------------------------------------------------------------- path lengths
def _hops(found) -> dict[Hashable, int]:
    return dict(zip(found["vertex"].tolist(), found["distance"].astype(np.int64).tolist()))


@implements("Directed graphs: a search of the reversed graph (built once, kept).")
def single_target_shortest_path_length(G: Graph, target: Hashable, cutoff: int | None = None) -> dict[Hashable, int]:
    return _hops(_reversed_bfs(G, target, cutoff))


def _weighted_from(G, source, weight):
    graph = G.graph_
    found = alg.sssp(graph, G.vertex(source), weight=graph.weight if weighted(G, weight) else None)
    found = G.label(fetch(graph.client, found), "vertex")
    found = found[found["distance"].notna()].sort_values("distance", kind="stable")
    return dict(zip(found["vertex"].tolist(), found["distance"].astype(np.float64).tolist()))


def _all_pairs(G, cutoff=None) -> Iterator[tuple[Hashable, dict[Hashable, int]]]:
    graph = G.graph_
    nodes = G.nodes()
    if not nodes:
        return iter([])
    ids = [G.vertex(v) for v in nodes]
    found = alg.k_hop(graph, ids, len(G) if cutoff is None else cutoff)
    pairs = G.label(fetch(graph.client, found), "seed", "vertex").sort_values(["seed", "hops"], kind="stable")
    by_seed = {
        s: dict(zip(g["vertex"].tolist(), g["hops"].astype(np.int64).tolist()))
        for s, g in pairs.groupby("seed", sort=False)
    }
    return iter([(v, by_seed.get(v, {v: 0})) for v in nodes])


@implements(
    "Every source's search in one run (dgraph.algorithms.k_hop, 64 sources a word); n x n pairs come to "
    "the client, as networkx's answer holds them."
)
def all_pairs_shortest_path_length(
    G: Graph, cutoff: int | None = None
) -> Iterator[tuple[Hashable, dict[Hashable, int]]]:
    return _all_pairs(G, cutoff)


@implements(
    "weight: an edge attribute name, non-negative weights (method 'dijkstra', or 'bellman-ford' and "
    "'unweighted' where they give the same lengths). Without a source: to the target by a search of the "
    "reversed graph; without either: all pairs, unweighted."
)
def shortest_path_length(
    G: Graph,
    source: Hashable = None,
    target: Hashable = None,
    weight: str | None = None,
    method: str = "dijkstra",
) -> Any:
    import networkx as nx

    use_weight = weighted(G, weight) and method != "unweighted"
    if source is None and target is None:
        return _all_pairs(G)
    if source is None:
        return _hops(_reversed_bfs(G, target))
    lengths = _weighted_from(G, source, weight) if use_weight else _hops(bfs(G, source))
    if target is None:
        return lengths
    if target not in lengths:
        raise nx.NetworkXNoPath(f"Target {target} cannot be reached from given sources")
    return lengths[target]
