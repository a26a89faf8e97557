"""networkx's Floyd-Warshall answers (every pair's distance, and the last step of a shortest
path), from every source's search in one run of ``dgraph.algorithms.shortest_paths``; with
negative weights on the arcs reweighted as Johnson's method does (``bellman_ford.johnson_pairs``)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

import numpy as np

from .bellman_ford import johnson_pairs, unbounded
from .implement import implements

if TYPE_CHECKING:
    from .graphs import Graph

_NOTE = (
    "Every source's search in one run (dgraph.algorithms.shortest_paths). Negative weights: can_run leaves a "
    "networkx graph to networkx; on a dgraph graph the arcs are reweighted as Johnson's method does, and a "
    "negative cycle raises NetworkXUnbounded (networkx returns distances that mean nothing)."
)


def _pairs(G, weight):
    """source -> (distances, paths), every node a source."""
    pairs = johnson_pairs(G, weight)
    if pairs is None:
        raise unbounded()
    return pairs


@implements(_NOTE + " Among paths of equal length each vertex's predecessor is the first in the node order.")
def floyd_warshall_predecessor_and_distance(G: Graph, weight: Any = "weight") -> tuple[dict, dict]:
    pairs = _pairs(G, weight)
    dist: dict[Hashable, Any] = {}
    pred: dict[Hashable, dict] = {}
    unreached = dict.fromkeys(pairs, float("inf"))  # networkx's loops fill in every pair
    for u, (lengths, paths) in pairs.items():
        dist[u] = defaultdict(lambda: float("inf"), {**unreached, **lengths})
        steps = {v: path[-2] for v, path in paths.items() if len(path) > 1}
        if steps:
            pred[u] = steps
    return pred, dist


@implements(_NOTE)
def floyd_warshall(G: Graph, weight: Any = "weight") -> dict[Hashable, Any]:
    return floyd_warshall_predecessor_and_distance.__wrapped__(G, weight)[1]  # type: ignore[attr-defined]


@implements(_NOTE)
def floyd_warshall_numpy(G: Graph, nodelist: Any = None, weight: Any = "weight") -> np.ndarray:
    import networkx as nx

    nodes = G.nodes()
    if nodelist is not None:
        if not (len(nodelist) == len(nodes) == len(set(nodelist))):
            raise nx.NetworkXError(
                "nodelist must contain every node in G with no repeats."
                "If you wanted a subgraph of G use G.subgraph(nodelist)"
            )
        nodes = list(nodelist)
    at = {v: i for i, v in enumerate(nodes)}
    A = np.full((len(nodes), len(nodes)), np.inf)
    for u, (lengths, _) in _pairs(G, weight).items():
        for v, d in lengths.items():
            A[at[u], at[v]] = d
    return A
