"""networkx's shortest paths themselves (not only their lengths), from dgraph's searches: a
search's predecessors come to the client and each path is a walk back along them, O(length)
per path (``tree_paths``); many sources at once are ``dgraph.algorithms.shortest_paths``, one
batched run. Among paths of equal length dgraph's predecessor is the tail first in the node
order (networkx's is the first it found), so a path may be another one of the same length.
Also here: ``generic_bfs_edges``, ``ego_graph`` and the lowest common ancestors of a DAG
(ancestors from one multi-source search of the reversed graph)."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from dgraph import algorithms as alg
from dgraph.dask_internals import fetch

from .implement import bfs, distinct, frame, implements, number_of_loops, weighted
from .reachability import _reversed_bfs

if TYPE_CHECKING:
    import networkx as nx

    from .graphs import Graph

TIES = (
    "Among paths of equal length each vertex's predecessor is the first in the node order (networkx: the first found)."
)


def tree_paths(vertices: list[Any], preds: list[Any]) -> dict[Any, list[Any]]:
    """vertex -> its path from the root, for a tree given as each vertex's predecessor (None at
    the root), in any order: each vertex's path is its predecessor's plus itself, made once."""
    parent = dict(zip(vertices, preds))
    paths: dict[Any, list[Any]] = {}
    for v in vertices:
        chain = []
        while v not in paths:
            chain.append(v)
            p = parent[v]
            if p is None:
                break
            v = p
        base = paths[v] if v in paths else []
        for u in reversed(chain):
            base = base + [u]
            paths[u] = base
    return paths


def reached(found):
    """(vertices, predecessors) of a fetched search frame (in nodes), None for the roots."""
    preds = [None if _missing(p) else p for p in found["predecessor"].tolist()]
    return found["vertex"].tolist(), preds


def _missing(p):
    """A null predecessor: None (nodes of a networkx graph) or a DataFrame's NA (the frame's own
    labels); a node may be a tuple, which ``pd.isna`` reads element by element."""
    if p is None:
        return True
    na = pd.isna(p)
    return isinstance(na, (bool, np.bool_)) and bool(na)


def bfs_paths(G, source, cutoff=None):
    return tree_paths(*reached(bfs(G, source, cutoff)))


def sssp_frame(G, source, weight, cutoff=None):
    """SSSP from ``source`` fetched (nodes), the reached within ``cutoff``, nearest first."""
    graph = G.graph_
    searched = alg.sssp(graph, G.vertex(source), weight=graph.weight if weighted(G, weight) else None)
    found = frame(G, searched, "vertex", "predecessor")
    found = found[found["distance"].notna()]
    if cutoff is not None:
        found = found[found["distance"] <= cutoff]
    return found.sort_values("distance", kind="stable")


def lengths(G, found, weight) -> dict[Hashable, Any]:
    """node -> distance: floats with weights, ints for hops (as networkx counts them)."""
    values = found["distance"].astype(np.float64).tolist()
    if not weighted(G, weight):
        values = [int(d) for d in values]
    return dict(zip(found["vertex"].tolist(), values))


def no_path(source, target):
    import networkx as nx

    return nx.NetworkXNoPath(f"No path between {source} and {target}.")


# --------------------------------------------------------------------------- unweighted
@implements(TIES)
def single_source_shortest_path(G: Graph, source: Hashable, cutoff: int | None = None) -> dict[Hashable, list]:
    return bfs_paths(G, source, cutoff)


@implements("Directed graphs: a search of the reversed graph (built once, kept). " + TIES)
def single_target_shortest_path(G: Graph, target: Hashable, cutoff: int | None = None) -> dict[Hashable, list]:
    paths = tree_paths(*reached(_reversed_bfs(G, target, cutoff)))
    return {v: path[::-1] for v, path in paths.items()}


@implements("A breadth-first search from the source. " + TIES)
def bidirectional_shortest_path(G: Graph, source: Hashable, target: Hashable) -> list[Hashable]:
    paths = bfs_paths(G, source)
    if target not in paths:
        raise no_path(source, target)
    return paths[target]


def all_pairs(G, weight, cutoff=None):
    """source -> (lengths, paths) for every node, from one batched run of
    ``dgraph.algorithms.shortest_paths``, nearest first."""
    graph = G.graph_
    nodes = G.nodes()
    if not nodes:  # the null graph: no source to search from
        return {}
    found = alg.shortest_paths(
        graph, [G.vertex(v) for v in nodes], weight=graph.weight if weighted(G, weight) else None
    )
    rows = fetch(graph.client, found)
    rows = rows[rows["distance"].notna()]
    if cutoff is not None:
        rows = rows[rows["distance"] <= cutoff]
    rows = G.label(rows.sort_values(["source", "distance"], kind="stable"), "source", "target")
    out: dict[Any, tuple[dict, dict]] = {v: ({}, {}) for v in nodes}
    cast = float if weighted(G, weight) else int
    for s, t, d, path in zip(rows["source"], rows["target"], rows["distance"].tolist(), rows["path"]):
        out[s][0][t] = cast(d)
        out[s][1][t] = G.names(path)
    return out


@implements("Every source's search in one run (dgraph.algorithms.shortest_paths). " + TIES)
def all_pairs_shortest_path(G: Graph, cutoff: int | None = None) -> Iterator[tuple[Hashable, dict]]:
    return iter([(v, paths) for v, (_, paths) in all_pairs(G, None, cutoff).items()])


# --------------------------------------------------------------------------- Dijkstra
def dijkstra(G, source, weight, cutoff=None):
    found = sssp_frame(G, source, weight, cutoff)
    return lengths(G, found, weight), tree_paths(*reached(found))


@implements("weight: an edge attribute name, non-negative weights. " + TIES)
def single_source_dijkstra_path(
    G: Graph, source: Hashable, cutoff: float | None = None, weight: str | None = "weight"
) -> dict[Hashable, list]:
    return dijkstra(G, source, weight, cutoff)[1]


@implements("weight: an edge attribute name, non-negative weights. " + TIES)
def dijkstra_path(G: Graph, source: Hashable, target: Hashable, weight: str | None = "weight") -> list[Hashable]:
    import networkx as nx

    paths = dijkstra(G, source, weight)[1]
    if target not in paths:
        raise nx.NetworkXNoPath(f"No path to {target}.")
    return paths[target]


@implements("weight: an edge attribute name, non-negative weights.")
def dijkstra_path_length(G: Graph, source: Hashable, target: Hashable, weight: str | None = "weight") -> Any:
    import networkx as nx

    if source == target:
        return 0
    dist = lengths(G, sssp_frame(G, source, weight), weight)
    if target not in dist:
        raise nx.NetworkXNoPath(f"Node {target} not reachable from {source}")
    return dist[target]


@implements("One search from the source (dgraph.algorithms.sssp). " + TIES)
def bidirectional_dijkstra(
    G: Graph, source: Hashable, target: Hashable, weight: str | None = "weight"
) -> tuple[Any, list[Hashable]]:
    if source == target:
        return 0, [source]
    dist, paths = dijkstra(G, source, weight)
    if target not in paths:
        raise no_path(source, target)
    return dist[target], paths[target]


def _multi(G, sources, weight, cutoff):
    """(lengths, paths) from the nearest of ``sources``: every source's search in one run
    (``dgraph.algorithms.shortest_paths``), each target's least distance, ties to the source
    given first."""
    if not sources:
        raise ValueError("sources must not be empty")
    graph = G.graph_
    sources = list(dict.fromkeys(sources))
    found = alg.shortest_paths(
        graph, [G.vertex(s) for s in sources], weight=graph.weight if weighted(G, weight) else None
    )
    rows = G.label(fetch(graph.client, found), "source", "target")
    rows = rows[rows["distance"].notna()]
    if cutoff is not None:
        rows = rows[rows["distance"] <= cutoff]
    order = {s: i for i, s in enumerate(sources)}
    rows = rows.assign(given=[order[s] for s in rows["source"]])
    rows = rows.sort_values(["distance", "given"], kind="stable").drop_duplicates("target")
    cast = float if weighted(G, weight) else int
    dist = {t: cast(d) for t, d in zip(rows["target"], rows["distance"].tolist())}
    paths = {t: G.names(p) for t, p in zip(rows["target"], rows["path"])}
    for s in sources:
        dist[s], paths[s] = 0, [s]
    return dist, paths


@implements("All sources' searches in one run (dgraph.algorithms.shortest_paths). " + TIES)
def multi_source_dijkstra(
    G: Graph, sources: Iterable[Hashable], target: Hashable = None, cutoff: float | None = None, weight: Any = "weight"
) -> tuple[Any, Any]:
    import networkx as nx

    sources = list(sources)
    if target is not None and target in sources:
        return 0, [target]
    dist, paths = _multi(G, sources, weight, cutoff)
    if target is None:
        return dist, paths
    if target not in dist:
        raise nx.NetworkXNoPath(f"No path to {target}.")
    return dist[target], paths[target]


@implements("As multi_source_dijkstra.")
def multi_source_dijkstra_path(
    G: Graph, sources: Iterable[Hashable], cutoff: float | None = None, weight: Any = "weight"
) -> dict[Hashable, list]:
    return _multi(G, list(sources), weight, cutoff)[1]


@implements("As multi_source_dijkstra.")
def multi_source_dijkstra_path_length(
    G: Graph, sources: Iterable[Hashable], cutoff: float | None = None, weight: Any = "weight"
) -> dict[Hashable, Any]:
    return _multi(G, list(sources), weight, cutoff)[0]


_ALL = "Every source's search in one run (dgraph.algorithms.shortest_paths); n x n pairs come to the client. "


@implements(_ALL + TIES)
def all_pairs_dijkstra(
    G: Graph, cutoff: float | None = None, weight: str | None = "weight"
) -> Iterator[tuple[Hashable, tuple[dict, dict]]]:
    return iter(list(all_pairs(G, weight, cutoff).items()))


@implements(_ALL + TIES)
def all_pairs_dijkstra_path(
    G: Graph, cutoff: float | None = None, weight: str | None = "weight"
) -> Iterator[tuple[Hashable, dict]]:
    return iter([(v, paths) for v, (_, paths) in all_pairs(G, weight, cutoff).items()])


@implements(_ALL)
def all_pairs_dijkstra_path_length(
    G: Graph, cutoff: float | None = None, weight: str | None = "weight"
) -> Iterator[tuple[Hashable, dict]]:
    return iter([(v, dist) for v, (dist, _) in all_pairs(G, weight, cutoff).items()])


# --------------------------------------------------------------------------- traversal
@implements(
    "The default neighbors only (successors); each node's parent is the first in the node order one level "
    "closer (networkx: the first found), edges level by level."
)
def generic_bfs_edges(
    G: Graph, source: Hashable, neighbors: Any = None, depth_limit: int | None = None
) -> Iterator[tuple[Hashable, Hashable]]:
    found = bfs(G, source, depth_limit)
    tree = found[found["predecessor"].notna()]
    return iter(list(zip(tree["predecessor"].tolist(), tree["vertex"].tolist())))


@implements(
    "The nodes within radius from a search of dgraph (distance: the graph's weight, by SSSP); the subgraph "
    "is cut from the caller's networkx graph, every attribute kept, or built from the arcs between them."
)
def ego_graph(
    G: Graph, n: Hashable, radius: float = 1, center: bool = True, undirected: bool = False, distance: Any = None
) -> nx.Graph:
    import networkx as nx

    if distance is not None:
        keep = sssp_frame(G, n, distance, radius)["vertex"].tolist()
    else:
        keep = bfs(G, n, int(np.floor(radius)))["vertex"].tolist() if radius >= 0 else []
    source = G.source_() if G.source_ is not None else None
    if source is not None:
        H = source.subgraph(keep).copy()
    else:
        graph = G.graph_
        ids = [G.vertex(v) for v in keep]
        arcs = graph.edges()
        arcs = fetch(graph.client, arcs[arcs["src"].isin(ids) & arcs["dst"].isin(ids)])
        if not G.is_directed():
            arcs = arcs[arcs["src"] <= arcs["dst"]]
        arcs = G.label(arcs, "src", "dst")
        H = nx.DiGraph() if G.is_directed() else nx.Graph()
        H.add_nodes_from(keep)
        if G.weight is None:
            H.add_edges_from(zip(arcs["src"], arcs["dst"]))
        else:
            H.add_weighted_edges_from(zip(arcs["src"], arcs["dst"], arcs[graph.weight].tolist()), weight=G.weight)
    if not center and n in H:
        H.remove_node(n)
    return H


# --------------------------------------------------------------------------- lowest common ancestors
def _is_dag(G):
    found = alg.strongly_connected_components(G.graph_)
    return number_of_loops(G) == 0 and distinct(G, found, "component") == len(G)


def _ancestors(G, nodes):
    """node -> its ancestors and itself, for ``nodes``: one multi-source search of the
    reversed graph."""
    R = G.reversed_()
    graph = R.graph_
    found = alg.k_hop(graph, [R.vertex(v) for v in nodes], len(G))
    rows = R.label(fetch(graph.client, found), "seed", "vertex")
    above: dict[Any, set] = {v: set() for v in nodes}
    for s, v in zip(rows["seed"].tolist(), rows["vertex"].tolist()):
        above[s].add(v)
    return above


def _ancestor_counts(G, nodes, known):
    """node -> how many ancestors it has (itself included), for ``nodes``: from ``known``
    (node -> ancestors) where it holds them, else counted on the workers by one more search."""
    count = {v: len(known[v]) for v in nodes if v in known}
    rest = [v for v in nodes if v not in known]
    if rest:
        R = G.reversed_()
        found = alg.k_hop(R.graph_, [R.vertex(v) for v in rest], len(G))
        sizes = fetch(R.graph_.client, found.groupby("seed").size())
        count.update(zip(R.names(sizes.index.to_numpy()), sizes.tolist()))
    return count


@implements(
    "Ancestors from multi-source searches of the reversed graph; of the common ones, the one with the most "
    "ancestors, which no other common one descends from (where several are lowest, networkx may pick another)."
)
def all_pairs_lowest_common_ancestor(G: Graph, pairs: Any = None) -> Iterator[tuple[tuple, Hashable]]:
    import itertools

    import networkx as nx

    if not _is_dag(G):
        raise nx.NetworkXError("LCA only defined on directed acyclic graphs.")
    nodes = G.nodes()
    if pairs is None:
        pairs = list(itertools.combinations_with_replacement(nodes, 2))
    else:
        pairs = list(dict.fromkeys(pairs))
        nodeset = set(nodes)
        for pair in pairs:
            if set(pair) - nodeset:
                raise nx.NodeNotFound(f"Node(s) {set(pair) - nodeset} from pair {pair} not in G.")
    if not pairs:
        return iter([])
    above = _ancestors(G, list(dict.fromkeys(v for pair in pairs for v in pair)))
    common = {(v, w): above[v] & above[w] for v, w in pairs}
    count = _ancestor_counts(G, list(dict.fromkeys(c for found in common.values() for c in found)), above)
    order = {v: i for i, v in enumerate(nodes)}
    # a proper descendant has every ancestor of its ancestor and that one too: the common
    # ancestor with the most ancestors has no common one below it
    return iter([(pair, max(found, key=lambda c: (count[c], -order[c]))) for pair, found in common.items() if found])


@implements("As all_pairs_lowest_common_ancestor.")
def lowest_common_ancestor(G: Graph, node1: Hashable, node2: Hashable, default: Any = None) -> Any:
    found = list(all_pairs_lowest_common_ancestor.__wrapped__(G, [(node1, node2)]))  # type: ignore[attr-defined]
    return found[0][1] if found else default
