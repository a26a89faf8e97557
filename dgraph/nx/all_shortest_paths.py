"""networkx's questions about every shortest path, not one: each node's predecessors on all of
them (``predecessor``), every shortest path between two nodes or from one, and Johnson's all
pairs with negative weights. The predecessors are the arcs a search's distances make tight
(a tail's distance plus the arc's weight gives its head's), found by joining the arcs with the
distances on the workers; the paths are networkx's own enumeration over them."""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .bellman_ford import is_negative, negative_loop, search, tight_arcs, unbounded, weight_column
from .implement import bfs, implements
from .paths import all_pairs, lengths

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
    from . import functions
    from .bellman_ford import bellman_ford_predecessor_and_distance

    if weight is None:
        return predecessor.__wrapped__(G, source)
    if method == "dijkstra":
        return functions.dijkstra_predecessor_and_distance.__wrapped__(G, source, weight=weight)[0]
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


def johnson_pairs(G: Graph, weight: Any) -> dict[Hashable, tuple[dict, dict]] | None:
    """source -> (lengths, paths) for every node: one batched ``shortest_paths`` run, on arcs
    reweighted by Bellman-Ford potentials where a weight is negative; None where the graph has
    a negative cycle."""
    if negative_loop(G, weight):
        return None
    if not is_negative(G, weight):
        return all_pairs(G, weight)
    found, negative = search(G, None, weight)
    if negative:
        return None
    h = dict(zip(found["vertex"].tolist(), found["distance"].astype(np.float64).tolist()))
    pairs = all_pairs(_reweighted(G, found), weight)
    return {u: ({v: d - h[u] + h[v] for v, d in dist.items()}, paths) for u, (dist, paths) in pairs.items()}


def _reweighted(G, found):
    """``G`` with each arc's weight w + h(u) - h(v) for potentials h (distances from a search
    from every node at 0): no longer negative, and the same shortest paths (a path's weight
    changes by h(source) - h(target) alone). Rounding may leave -1e-16: clipped at 0. Only
    directed graphs get here: on an undirected one a negative edge is a negative cycle."""
    graph = G.graph_
    column = weight_column(G, G.weight)
    potential = pd.DataFrame(
        {"vertex": [G.vertex(v) for v in found["vertex"]], "h": found["distance"].to_numpy(np.float64)}
    )
    arcs = graph.edges()
    arcs = arcs.merge(potential.rename(columns={"vertex": "src", "h": "hu"}), on="src")
    arcs = arcs.merge(potential.rename(columns={"vertex": "dst", "h": "hv"}), on="dst")
    arcs = arcs.assign(**{column: (arcs[column] + arcs["hu"] - arcs["hv"]).clip(lower=0.0)})[["src", "dst", column]]
    vertices = np.arange(len(G)) if G.nodes_ is not None else np.asarray(G.nodes())
    return type(G)(graph._rebuilt(arcs, vertices), G.nodes_, G.weight, None, G._index)
