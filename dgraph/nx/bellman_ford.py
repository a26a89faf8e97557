"""networkx's Bellman-Ford family, from ``dgraph.algorithms.bellman_ford``: weights of any sign,
``NetworkXUnbounded`` where a negative cycle is reachable from the source (and, as networkx, for
any negative self-loop), the cycle itself read from the search's predecessors on the client (a
cycle of predecessors made by strict improvements is a negative cycle). Paths are walks back
along the predecessors; among paths of equal length dgraph keeps the first tail to reach the
distance (in synchronous rounds, the first in the node order on ties), networkx the first it
relaxed."""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from dgraph.algorithms.bellman_ford import bellman_ford_search
from dgraph.dask_internals import fetch
from dgraph.joins import merge

from .implement import frame, implements, weighted
from .paths import all_pairs, lengths, reached, tree_paths

if TYPE_CHECKING:
    from .graphs import Graph

_NOTE = "weight: an edge attribute name (weights of any sign). "
_TIES = "Among paths of equal length dgraph keeps the first tail to reach the distance, in rounds, the first in the node order on ties (networkx: the first it relaxed)."  # noqa: E501


def weight_column(G, weight):
    return G.graph_.weight if weighted(G, weight) else None


def negative_loop(G, weight) -> bool:
    """Whether a self-loop weighs less than zero (networkx checks every one, reachable or not)."""
    if not weighted(G, weight):
        return False
    graph = G.graph_
    arcs = graph.edges()
    bad = arcs[(arcs["src"] == arcs["dst"]) & (arcs[graph.weight] < 0)]
    return int(fetch(graph.client, bad.shape[0])) > 0


def unbounded():
    import networkx as nx

    return nx.NetworkXUnbounded("Negative cycle detected.")


def search(G, source, weight, cycle=False):
    """The search from ``source`` (None: from every node at 0), fetched and named, the reached
    only; and whether it found a negative cycle (``cycle``: whose predecessors then hold one)."""
    found, negative = bellman_ford_search(
        G.graph_, None if source is None else G.vertex(source), weight=weight_column(G, weight), cycle=cycle
    )
    found = frame(G, found, "vertex", "predecessor")
    return found[found["distance"].notna()], negative


def bellman_ford_paths(G: Graph, source: Hashable, weight: Any) -> tuple[dict, dict]:
    """(lengths, paths) from ``source``; ``NetworkXUnbounded`` on a negative cycle."""
    if negative_loop(G, weight):
        raise unbounded()
    found, negative = search(G, source, weight)
    if negative:
        raise unbounded()
    return lengths(G, found, weight), tree_paths(*reached(found))


@implements(_NOTE + _TIES)
def single_source_bellman_ford(
    G: Graph, source: Hashable, target: Hashable = None, weight: Any = "weight"
) -> tuple[Any, Any]:
    import networkx as nx

    if source == target:
        return 0, [source]
    dist, paths = bellman_ford_paths(G, source, weight)
    if target is None:
        return dist, paths
    if target not in dist:
        raise nx.NetworkXNoPath(f"Node {target} not reachable from {source}")
    return dist[target], paths[target]


@implements(_NOTE + _TIES)
def single_source_bellman_ford_path(G: Graph, source: Hashable, weight: Any = "weight") -> dict[Hashable, list]:
    return bellman_ford_paths(G, source, weight)[1]


@implements(_NOTE)
def single_source_bellman_ford_path_length(G: Graph, source: Hashable, weight: Any = "weight") -> dict[Hashable, Any]:
    return bellman_ford_paths(G, source, weight)[0]


@implements(_NOTE + _TIES)
def bellman_ford_path(G: Graph, source: Hashable, target: Hashable, weight: Any = "weight") -> list[Hashable]:
    return single_source_bellman_ford.__wrapped__(G, source, target, weight)[1]  # type: ignore[attr-defined]


@implements(_NOTE)
def bellman_ford_path_length(G: Graph, source: Hashable, target: Hashable, weight: Any = "weight") -> Any:
    import networkx as nx

    if source == target:
        return 0
    dist = bellman_ford_paths(G, source, weight)[0]
    if target not in dist:
        raise nx.NetworkXNoPath(f"node {target} not reachable from {source}")
    return dist[target]


def tight_arcs(G, found, weight):
    """Every arc on a shortest path (its tail's distance plus its weight gives its head's):
    joined with the distances on the workers; (tails, heads) named, in the order of ``found``."""
    graph = G.graph_
    dist = pd.DataFrame({"vertex": [G.vertex(v) for v in found["vertex"]], "distance": found["distance"].to_numpy()})
    arcs = graph.edges()
    arcs = arcs.assign(cost=arcs[graph.weight] if weighted(G, weight) else 1.0)[["src", "dst", "cost"]]
    arcs = arcs.merge(dist.rename(columns={"vertex": "src", "distance": "near"}), on="src")
    arcs = arcs.merge(dist.rename(columns={"vertex": "dst", "distance": "far"}), on="dst")
    tight = fetch(graph.client, arcs[(arcs["near"] + arcs["cost"] == arcs["far"]) & (arcs["src"] != arcs["dst"])])
    rank = pd.Series(np.arange(len(dist)), index=dist["vertex"].to_numpy())
    tight = tight.iloc[np.argsort(rank[tight["src"].to_numpy()].to_numpy(), kind="stable")]
    return G.label(tight, "src", "dst")


@implements(_NOTE + "Every predecessor on a shortest path, in the order of their distances; heuristic is not needed.")
def bellman_ford_predecessor_and_distance(
    G: Graph, source: Hashable, target: Hashable = None, weight: Any = "weight", heuristic: bool = False
) -> tuple[dict[Hashable, list], dict[Hashable, Any]]:
    if negative_loop(G, weight):
        raise unbounded()
    if len(G) == 1:
        return {source: []}, {source: 0}
    found, negative = search(G, source, weight)
    if negative:
        raise unbounded()
    found = found.sort_values("distance", kind="stable")
    dist = lengths(G, found, weight)
    pred: dict[Hashable, list] = {v: [] for v in dist}
    tight = tight_arcs(G, found, weight)
    for tail, head in zip(tight["src"].tolist(), tight["dst"].tolist()):
        pred[head].append(tail)
    pred[source] = []
    return pred, dist


@implements(_NOTE + "One predecessor per node, as dgraph's Bellman-Ford chooses it. " + _TIES)
def goldberg_radzik(G: Graph, source: Hashable, weight: Any = "weight") -> tuple[dict, dict]:
    if negative_loop(G, weight):
        raise unbounded()
    found, negative = search(G, source, weight)
    if negative:
        raise unbounded()
    vertices, preds = reached(found)
    return dict(zip(vertices, preds)), lengths(G, found, weight)


def is_negative(G, weight) -> bool:
    if not weighted(G, weight):
        return False
    graph = G.graph_
    arcs = graph.edges()
    return int(fetch(graph.client, (arcs[graph.weight] < 0).sum())) > 0


def _each_source(G, weight, part):
    """Each node's answer: all from one batched run (Johnson's reweighting where a weight is
    negative, ``johnson_pairs``); where a negative cycle lies, one search per
    source in turn, so the sources before one reaching it answer, as in networkx."""
    pairs = johnson_pairs(G, weight)
    if pairs is not None:
        yield from ((v, found[part]) for v, found in pairs.items())
        return
    yield from ((v, bellman_ford_paths(G, v, weight)[part]) for v in G.nodes())


@implements(_NOTE + "Every source's search in one run (negative weights: Johnson's reweighting). " + _TIES)
def all_pairs_bellman_ford_path(G: Graph, weight: Any = "weight") -> Iterator[tuple[Hashable, dict]]:
    return _each_source(G, weight, 1)


@implements(_NOTE + "Every source's search in one run (negative weights: Johnson's reweighting).")
def all_pairs_bellman_ford_path_length(G: Graph, weight: Any = "weight") -> Iterator[tuple[Hashable, dict]]:
    return _each_source(G, weight, 0)


@implements(_NOTE + "One search from every node at once (distance 0 each), as from networkx's added node.")
def negative_edge_cycle(G: Graph, weight: Any = "weight", heuristic: bool = True) -> bool:
    if G.number_of_edges() == 0:
        return False
    return search(G, None, weight)[1]


def _cycle_of(parent: dict) -> list | None:
    """A cycle of a functional graph (node -> parent, None at roots), along the arcs (parent
    first), closed (its first node last too); None when it has none."""
    state: dict[Any, int] = {}  # 1: on the current walk, 2: done
    for start in parent:
        walk = []
        v = start
        while v is not None and v not in state:
            state[v] = 1
            walk.append(v)
            v = parent.get(v)
        if v is not None and state.get(v) == 1:
            cycle = walk[walk.index(v) :]  # child -> parent order
            cycle = cycle[::-1]
            return cycle + [cycle[0]]
        for u in walk:
            state[u] = 2
    return None


@implements(
    _NOTE + "The cycle read from the predecessors of a search from the source, starting at the source where it lies on "
    "the cycle, else at its node first in the node order (networkx: where its search noticed it)."
)
def find_negative_cycle(G: Graph, source: Hashable, weight: Any = "weight") -> list[Hashable]:
    import networkx as nx

    found, negative = search(G, source, weight, cycle=True)
    if not negative:
        raise nx.NetworkXError("No negative cycles detected.")
    cycle = _cycle_of(dict(zip(*reached(found))))
    if cycle is None:  # the predecessors hold one whenever a distance falls in round n
        raise nx.NetworkXUnbounded("negative cycle detected but not identified")
    order = {v: i for i, v in enumerate(G.nodes())}
    order[source] = -1  # from the source where it lies on the cycle, else from its node first in the node order
    first = min(range(len(cycle) - 1), key=lambda i: order[cycle[i]])
    return cycle[first:-1] + cycle[:first] + [cycle[first]]


@implements("Counted on the workers; edge: looked up among the arcs.")
def is_negatively_weighted(G: Graph, edge: Any = None, weight: str = "weight") -> bool:
    import networkx as nx

    graph = G.graph_
    if edge is None:
        return is_negative(G, weight)
    u, v = (G.vertex(x) if x in set(G.nodes()) else None for x in edge[:2])
    arcs = graph.edges()
    found = (
        fetch(graph.client, arcs[(arcs["src"] == u) & (arcs["dst"] == v)]) if u is not None and v is not None else []
    )
    if not len(found) and not G.is_directed() and u is not None and v is not None:
        found = fetch(graph.client, arcs[(arcs["src"] == v) & (arcs["dst"] == u)])
    if not len(found):
        raise nx.NetworkXError(f"Edge {edge!r} does not exist.")
    return weighted(G, weight) and bool(found[graph.weight].iloc[0] < 0)


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
    arcs = merge(arcs, potential.rename(columns={"vertex": "src", "h": "hu"}), on="src")
    arcs = merge(arcs, potential.rename(columns={"vertex": "dst", "h": "hv"}), on="dst")
    arcs = arcs.assign(**{column: (arcs[column] + arcs["hu"] - arcs["hv"]).clip(lower=0.0)})[["src", "dst", column]]
    vertices = np.arange(len(G)) if G.nodes_ is not None else np.asarray(G.nodes())
    return type(G)(graph._rebuilt(arcs, vertices), G.nodes_, G.weight, None, G._index)
