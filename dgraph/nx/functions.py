"""networkx functions run by dgraph: each takes networkx's arguments, runs dgraph's algorithm on
the cluster and returns what networkx returns (dicts, generators, sets, graphs), keyed by the
caller's own nodes. ``CALLS`` counts how often each one really ran.

Which networkx functions the backend runs is the registry's word (each entry's ``networkx``
names, ``dgraph.algorithms.REGISTRY``), plus the graph constructors (``CONSTRUCTORS``): every
one of them has an implementation here, registered with ``implements(note)``, whose note
networkx shows in the function's documentation (``_dgraph_nx``, generated from ``NOTES`` by
``python -m dgraph.nx.info``)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from dgraph import algorithms as alg
from dgraph.algorithms.registry import networkx_names
from dgraph.dask_internals import fetch

from ..joins import merge
from . import (  # noqa: F401  (they register theirs)
    all_shortest_paths,
    bellman_ford,
    betweenness,
    bipartite,
    centrality,
    conversions,
    dense,
    distance_measures,
    link_prediction,
    measures,
    reachability,
    structures,
)
from . import paths as _paths
from . import shortest_path as _shortest_path  # noqa: F401  (registers its functions)
from .implement import CALLS, NOTES, WRITTEN, implements
from .implement import as_dict as _dict
from .implement import at as _at
from .implement import bfs as _bfs
from .implement import distinct as _distinct
from .implement import frame as _frame
from .implement import groups as _groups
from .implement import is_container as _is_container
from .implement import loops_per_vertex as _loops_per_vertex
from .implement import node_set as _node_set
from .implement import rng_seed as _seed
from .implement import weighted as _weighted

if TYPE_CHECKING:
    import networkx as nx

    from .graphs import Graph

__all__ = ["CALLS", "CONSTRUCTORS", "IMPLEMENTED", "NOTES", "WRITTEN", "implements"]

# networkx functions that build, convert or read a whole graph: not algorithms
CONSTRUCTORS = ("from_pandas_edgelist", "from_scipy_sparse_array", "complement", "reverse", "to_dict_of_lists")


# --------------------------------------------------------------------------- traversal
@implements(
    "The tree's parents are the first in the node order among those one level closer (networkx takes the "
    "first found), so the edges may differ where a vertex has several; edges come level by level. Runs "
    "with reverse=False and without sort_neighbors."
)
def bfs_edges(
    G: Graph,
    source: Hashable,
    reverse: bool = False,
    depth_limit: int | None = None,
    sort_neighbors: Any = None,
) -> Iterator[tuple[Hashable, Hashable]]:
    found = _bfs(G, source, depth_limit)
    tree = found[found["predecessor"].notna()]
    return iter(list(zip(tree["predecessor"].tolist(), tree["vertex"].tolist())))


@implements("As bfs_edges.")
def bfs_tree(
    G: Graph, source: Hashable, reverse: bool = False, depth_limit: int | None = None, sort_neighbors: Any = None
) -> nx.DiGraph:
    import networkx as nx

    found = _bfs(G, source, depth_limit)
    T = nx.DiGraph()
    T.add_node(source)
    tree = found[found["predecessor"].notna()]
    T.add_edges_from(zip(tree["predecessor"].tolist(), tree["vertex"].tolist()))
    return T


@implements()
def single_source_shortest_path_length(G: Graph, source: Hashable, cutoff: int | None = None) -> dict[Hashable, int]:
    found = _bfs(G, source, cutoff)
    return dict(zip(found["vertex"].tolist(), found["distance"].astype(np.int64).tolist()))


# --------------------------------------------------------------------------- shortest paths
def _distances(G, source, cutoff, weight):
    """SSSP's reached vertices (in dgraph's labels), nearest first, within ``cutoff``."""
    graph = G.graph_
    found = alg.sssp(graph, G.vertex(source), weight=graph.weight if _weighted(G, weight) else None)
    frame = fetch(graph.client, found)
    frame = frame[frame["distance"].notna()]
    if cutoff is not None:
        frame = frame[frame["distance"] <= cutoff]
    return frame.sort_values("distance", kind="stable")


def _as_dict(G, frame, weight):
    named = G.label(frame, "vertex")
    values = named["distance"].astype(np.float64).tolist()
    if not _weighted(G, weight):  # unit weights: networkx counts hops as ints
        values = [int(d) for d in values]
    return dict(zip(named["vertex"].tolist(), values))


@implements("weight: an edge attribute name (not a function).")
def single_source_dijkstra_path_length(
    G: Graph, source: Hashable, cutoff: float | None = None, weight: str | None = "weight"
) -> dict[Hashable, float]:
    return _as_dict(G, _distances(G, source, cutoff, weight), weight)


@implements(
    "Among paths of equal length, each vertex's predecessor is the first in the node order among the "
    "strictly closer ones, as dgraph.algorithms.sssp picks it; networkx's may be another."
)
def single_source_dijkstra(
    G: Graph, source: Hashable, target: Hashable = None, cutoff: float | None = None, weight: str | None = "weight"
) -> tuple[Any, Any]:
    import networkx as nx

    frame = _distances(G, source, cutoff, weight)
    dist = _as_dict(G, frame, weight)
    found = _paths.tree_paths(*_paths.reached(frame))  # in dgraph's labels
    paths = dict(zip(G.names(list(found)), (G.names(path) for path in found.values())))
    if target is None:
        return dist, paths
    if target not in dist:
        raise nx.NetworkXNoPath(f"No path to {target}.")
    return dist[target], paths[target]


@implements("Every predecessor, listed nearest first.")
def dijkstra_predecessor_and_distance(
    G: Graph, source: Hashable, cutoff: float | None = None, weight: str | None = "weight"
) -> tuple[dict[Hashable, list[Hashable]], dict[Hashable, float]]:
    """Every predecessor on a shortest path, as networkx lists them (nearest first): each arc
    whose tail's distance plus its weight gives the head's, found on the workers by joining the
    arcs with the distances."""
    graph = G.graph_
    frame = _distances(G, source, cutoff, weight)
    dist = frame[["vertex", "distance"]]
    arcs = graph.edges()
    arcs = arcs.assign(cost=arcs[graph.weight] if _weighted(G, weight) else 1.0)[["src", "dst", "cost"]]
    arcs = merge(arcs, dist.rename(columns={"vertex": "src", "distance": "near"}), on="src")
    arcs = merge(arcs, dist.rename(columns={"vertex": "dst", "distance": "far"}), on="dst")
    tight = arcs[(arcs["near"] + arcs["cost"] == arcs["far"]) & (arcs["src"] != arcs["dst"])]
    tails = fetch(graph.client, tight[["src", "dst"]])
    rank = pd.Series(np.arange(len(frame)), index=frame["vertex"].to_numpy())
    tails = G.label(tails.iloc[np.argsort(rank[tails["src"].to_numpy()].to_numpy(), kind="stable")], "src", "dst")
    distances = _as_dict(G, frame, weight)
    pred: dict[Hashable, list[Hashable]] = {v: [] for v in distances}
    for tail, head in zip(tails["src"].tolist(), tails["dst"].tolist()):
        pred[head].append(tail)
    pred[source] = []
    return pred, distances


# --------------------------------------------------------------------------- link analysis
@implements("Without nstart and dangling; results agree with networkx's within tol.")
def pagerank(
    G: Graph,
    alpha: float = 0.85,
    *,
    personalization: dict[Hashable, float] | None = None,
    max_iter: int = 100,
    tol: float = 1e-06,
    nstart: Any = None,
    weight: str | None = "weight",
    dangling: Any = None,
) -> dict[Hashable, float]:
    import warnings

    import networkx as nx

    from dgraph.errors import ConvergenceWarning

    if len(G) == 0:
        return {}
    if personalization is not None:  # networkx leaves out keys that are not nodes
        nodes = _node_set(G)
        personalization = {G.vertex(v): p for v, p in personalization.items() if v in nodes}
    graph = G.graph_
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        found = alg.pagerank(
            graph,
            alpha=alpha,
            max_iter=max_iter,
            tol=tol,
            personalization=personalization,
            weight=graph.weight if _weighted(G, weight) else None,
        )
        converged = graph.last_stats.info.get("converged", True)
        ranks = _dict(G, found, "pagerank")
    if not converged:
        raise nx.PowerIterationFailedConvergence(max_iter)
    return ranks


# --------------------------------------------------------------------------- components
@implements()
def connected_components(G: Graph) -> Iterator[set[Hashable]]:
    return _groups(G, alg.connected_components(G.graph_), "component")


@implements()
def number_connected_components(G: Graph) -> int:
    return _distinct(G, alg.connected_components(G.graph_), "component")


@implements()
def weakly_connected_components(G: Graph) -> Iterator[set[Hashable]]:
    return _groups(G, alg.weakly_connected_components(G.graph_), "component")


@implements()
def strongly_connected_components(G: Graph) -> Iterator[set[Hashable]]:
    return _groups(G, alg.strongly_connected_components(G.graph_), "component")


# --------------------------------------------------------------------------- clustering


@implements()
def triangles(G: Graph, nodes: Any = None) -> Any:
    if nodes is not None and not _is_container(nodes) and nodes not in _node_set(G):
        import networkx as nx

        raise nx.NetworkXError(f"The node {nodes} is not in the graph.")
    return _at(G, _dict(G, alg.triangle_count(G.graph_), "triangles"), nodes)


@implements()
def transitivity(G: Graph) -> float:
    counts = _frame(G, alg.triangle_count(G.graph_), "vertex").set_index("vertex")["triangles"]
    degree = _frame(G, G.graph_.degrees(), "vertex").set_index("vertex")["degree"]
    loops = _loops_per_vertex(G)
    d = (degree - 2 * loops.reindex(degree.index, fill_value=0)).to_numpy(np.int64)  # networkx drops loops here
    pairs = int((d * (d - 1)).sum())
    total = int(counts.sum()) * 2
    return 0 if total == 0 else total / pairs


@implements("Undirected graphs, unweighted (weight=None).")
def clustering(G: Graph, nodes: Any = None, weight: str | None = None) -> Any:
    return _at(G, _dict(G, alg.local_clustering_coefficient(G.graph_), "lcc"), nodes)


@implements("Undirected graphs, unweighted (weight=None).")
def average_clustering(G: Graph, nodes: Any = None, weight: str | None = None, count_zeros: bool = True) -> float:
    uncounted = clustering.__wrapped__  # type: ignore[attr-defined]  # functools.wraps keeps it
    values = uncounted(G, nodes if nodes is None or _is_container(nodes) else [nodes])
    c = list(values.values())
    if not count_zeros:
        c = [v for v in c if abs(v) > 0]
    if not c:
        raise ZeroDivisionError("average_clustering of no nodes")
    return sum(c) / len(c)


# --------------------------------------------------------------------------- centrality
@implements(
    "endpoints=False; weight: an edge attribute name (Dijkstra from every source, paths of exactly equal "
    "length counted alike); with k, the same sample networkx draws with the same seed."
)
def betweenness_centrality(
    G: Graph,
    k: int | None = None,
    normalized: bool = True,
    weight: str | None = None,
    endpoints: bool = False,
    seed: Any = None,
) -> dict[Hashable, float]:
    sources = None
    if k is not None:  # the sample networkx draws with the same seed
        sample = seed.sample(G.nodes(), k)
        sources = [G.vertex(v) for v in sample]
    graph = G.graph_
    weight = graph.weight if _weighted(G, weight) else None
    found = alg.betweenness_centrality(graph, sources=sources, normalized=normalized, weight=weight)
    return _dict(G, found, "betweenness")


# --------------------------------------------------------------------------- cores, matching
@implements("Graphs without self-loops (networkx refuses them too).")
def core_number(G: Graph) -> dict[Hashable, int]:
    return _dict(G, alg.core_number(G.graph_), "core")


CORE_NOTE = "Returns the subgraph's nodes and edges (with the call's weight), not the input's other attributes."


@implements(CORE_NOTE)
def k_core(G: Graph, k: int | None = None, core_number: dict[Hashable, int] | None = None) -> nx.Graph:
    return _core_subgraph(G, lambda cores, k: cores["core"] >= k, k, core_number)


@implements(CORE_NOTE)
def k_shell(G: Graph, k: int | None = None, core_number: dict[Hashable, int] | None = None) -> nx.Graph:
    return _core_subgraph(G, lambda cores, k: cores["core"] == k, k, core_number)


@implements(CORE_NOTE)
def k_crust(G: Graph, k: int | None = None, core_number: dict[Hashable, int] | None = None) -> nx.Graph:
    return _core_subgraph(G, lambda cores, k: cores["core"] <= k, k, core_number, below=1)


@implements(CORE_NOTE + " As networkx, the neighbours counted in the k-core are G[v]: a directed graph's successors.")
def k_corona(G: Graph, k: int, core_number: dict[Hashable, int] | None = None) -> nx.Graph:
    return _core_subgraph(G, lambda cores, k: _in_corona(G, cores, k), k, core_number)


def _in_corona(G, cores, k):
    """Which of ``cores``' vertices are in the k-corona: core number k and exactly k neighbours
    (out-neighbours where directed) of core number at least k, counted on the workers."""
    graph = G.graph_
    shell = cores.loc[cores["core"] == k, "vertex"].tolist()
    inner = cores.loc[cores["core"] >= k, "vertex"].tolist()
    arcs = graph.edges()[["src", "dst"]]
    arcs = arcs[arcs["src"].isin(shell) & arcs["dst"].isin(inner)]
    counts = fetch(graph.client, arcs.groupby("src").size())
    return (cores["core"] == k) & (cores["vertex"].map(counts).fillna(0) == k)


def _core_subgraph(G, keeps, k, core_number, below=0):
    """The subgraph of the vertices that ``keeps(cores, k)`` (a mask over the frame [vertex,
    core]; k by default the largest core number less ``below``, as networkx's): core numbers
    from dgraph; the subgraph cut from the caller's networkx graph when there is one (every
    attribute kept, as networkx returns it), else the nodes and the arcs between them (with the
    graph's weight), filtered on the workers."""
    import networkx as nx

    graph = G.graph_
    if core_number is not None:  # the caller's core numbers, by node
        cores = pd.DataFrame({"vertex": [G.vertex(v) for v in core_number], "core": list(core_number.values())})
    else:
        cores = fetch(graph.client, alg.core_number(graph))
    if k is None:
        k = int(cores["core"].max()) - below if len(cores) else 0
    keep = cores.loc[keeps(cores, k), "vertex"].tolist()
    source = G.source_() if G.source_ is not None else None
    if source is not None:
        return source.subgraph(G.names(keep)).copy()
    arcs = graph.edges()
    arcs = arcs[arcs["src"].isin(keep) & arcs["dst"].isin(keep)]
    if not G.is_directed():
        arcs = arcs[arcs["src"] <= arcs["dst"]]
    edges = G.label(fetch(graph.client, arcs), "src", "dst")
    out = nx.DiGraph() if G.is_directed() else nx.Graph()
    out.add_nodes_from(G.names(keep))
    if G.weight is None:
        out.add_edges_from(zip(edges["src"], edges["dst"]))
    else:
        out.add_weighted_edges_from(zip(edges["src"], edges["dst"], edges[graph.weight].tolist()), weight=G.weight)
    return out


@implements(
    "Only where dgraph's locally dominant matching is the maximum one: every component a star (one "
    "centre) and maxcardinality=False; can_run declines other graphs."
)
def max_weight_matching(
    G: Graph, maxcardinality: bool = False, weight: str | None = "weight"
) -> set[tuple[Hashable, Hashable]]:
    graph = G.graph_
    found = alg.max_weight_matching(graph, weight=graph.weight if _weighted(G, weight) else None)
    frame = _frame(G, found, "vertex", "mate")
    pairs = frame[frame["mate"].notna()]
    order = {v: i for i, v in enumerate(G.nodes())}
    return {
        (u, v) if order[u] < order[v] else (v, u)
        for u, v in zip(pairs["vertex"].tolist(), pairs["mate"].tolist())
        if order[u] < order[v]
    }


# --------------------------------------------------------------------------- communities


def _communities(method, G, weight, seed, **params):
    graph = G.graph_
    weight = graph.weight if _weighted(G, weight) else None
    return list(_groups(G, method(graph, seed=_seed(seed), weight=weight, **params), "community"))


@implements(
    "Distributed Louvain: a different partition than networkx's for a seed, of comparable modularity (see"
    " the dgraph benchmarks)."
)
def louvain_communities(
    G: Graph,
    weight: str | None = "weight",
    resolution: float = 1,
    threshold: float = 1e-07,
    max_level: int | None = None,
    seed: Any = None,
) -> list[set[Hashable]]:
    return _communities(alg.louvain, G, weight, seed, resolution=resolution, threshold=threshold, max_level=max_level)


@implements("Distributed Leiden: every community connected.")
def leiden_communities(
    G: Graph, weight: str | None = "weight", resolution: float = 1, max_level: int | None = None, seed: Any = None
) -> list[set[Hashable]]:
    return _communities(alg.leiden, G, weight, seed, resolution=resolution, max_level=max_level)


# --------------------------------------------------------------------------- construction
@implements(
    "Builds a dgraph.nx.Graph on the cluster (also from a dask DataFrame); one edge attribute at most, no multigraphs."
)
def from_pandas_edgelist(
    df: Any,
    source: Hashable = "source",
    target: Hashable = "target",
    edge_attr: Any = None,
    create_using: Any = None,
    edge_key: Any = None,
) -> Graph:
    from .graphs import from_pandas_edgelist as build

    return build(df, source, target, edge_attr, create_using, edge_key)


def _offered() -> dict[str, Callable[..., Any]]:
    names = (*networkx_names(), *CONSTRUCTORS)
    missing = [name for name in names if name not in WRITTEN]
    if missing:
        raise RuntimeError(
            f"dgraph.algorithms.REGISTRY names networkx functions dgraph.nx does not implement: {missing}"
        )
    return {name: WRITTEN[name] for name in names}


IMPLEMENTED = _offered()  # function name -> the implementation: the registry's networkx names and the constructors
