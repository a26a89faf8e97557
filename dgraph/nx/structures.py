"""networkx's spanning trees, colourings, independent sets and trusses run by dgraph
(``dgraph.algorithms.minimum_spanning_tree``, ``greedy_color``, ``maximal_independent_set`` and
``k_truss``): computed on the workers, the answer built on the client as networkx returns it,
with the caller's node and edge attributes where the call came from a networkx graph."""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterator
from typing import TYPE_CHECKING, Any

from dgraph import algorithms as alg
from dgraph.errors import DgraphInputError

from .implement import frame, has_node, implements, rng_seed

if TYPE_CHECKING:
    import networkx as nx

    from .graphs import Graph

MST_ALGORITHMS = ("boruvka", "kruskal", "prim")
_MST_NOTE = (
    "Runs distributed Boruvka whichever algorithm is asked: the forest is networkx's where weights are "
    "distinct; among equal weights dgraph breaks ties by the ends' order in the graph's nodes, so it may "
    "pick other edges of the same total weight. Edges come in order of weight."
)


def _source(G):
    """The networkx graph the call came from, while it lives, else None."""
    return G.source_() if G.source_ is not None else None


def _weighed(G, weight):
    """(dgraph graph, weight to run with) for networkx's ``weight`` (a missing attribute weighs 1)."""
    graph = G.graph_
    if weight is None:
        return graph, None
    if weight == G.weight:
        return graph, graph.weight
    if weight in graph.edge_attrs:
        return graph, weight
    source = _source(G)
    if source is not None and any(weight in d for _, _, d in source.edges(data=True)):
        # converted without it (networkx keeps every attribute for the tree): converted with it
        # once, kept beside the conversion networkx caches until the graph changes
        from .graphs import convert_from_nx

        key = ("dgraph weighted by", weight)
        if key not in G.__networkx_cache__:
            G.__networkx_cache__[key] = convert_from_nx(source, edge_attrs={weight: 1}).graph_
        return G.__networkx_cache__[key], weight
    return graph, None


def _spanning_edges(G, weight, ignore_nan, maximum):
    """The forest's edges as (u, v, data) in networkx's nodes, in order of weight."""
    graph, name = _weighed(G, weight)
    try:
        found = alg.minimum_spanning_tree(graph, weight=name, maximum=maximum, ignore_nan=ignore_nan)
    except DgraphInputError as e:
        if "NaN" in str(e):
            raise ValueError(f"NaN found as an edge weight. {e}") from e
        raise
    edges = frame(G, found, "src", "dst").sort_values("weight", ascending=not maximum, kind="stable")
    source = _source(G)
    out = []
    for u, v, w in zip(edges["src"].tolist(), edges["dst"].tolist(), edges["weight"].tolist()):
        if source is not None:
            out.append((u, v, source[u][v]))
        else:
            out.append((u, v, {weight: w} if name is not None and weight is not None else {}))
    return out


def _edges(G, weight, ignore_nan, maximum, data):
    """The forest's edges when first asked for: networkx's are a generator, which raises on NaN
    weights only when iterated."""
    for u, v, d in _spanning_edges(G, weight, ignore_nan, maximum):
        yield (u, v, d) if data else (u, v)


@implements(_MST_NOTE)
def minimum_spanning_edges(
    G: Graph,
    algorithm: str = "kruskal",
    weight: str = "weight",
    keys: bool = True,
    data: bool = True,
    ignore_nan: bool = False,
) -> Iterator[Any]:
    return _edges(G, weight, ignore_nan, False, data)


@implements(_MST_NOTE)
def maximum_spanning_edges(
    G: Graph,
    algorithm: str = "kruskal",
    weight: str = "weight",
    keys: bool = True,
    data: bool = True,
    ignore_nan: bool = False,
) -> Iterator[Any]:
    return _edges(G, weight, ignore_nan, True, data)


def _tree(G, weight, ignore_nan, maximum):
    import networkx as nx

    edges = _spanning_edges(G, weight, ignore_nan, maximum)
    source = _source(G)
    T = source.__class__() if source is not None else nx.Graph()
    if source is not None:
        T.graph.update(source.graph)
        T.add_nodes_from(source.nodes.items())
    else:
        T.add_nodes_from(G.nodes())
    T.add_edges_from(edges)
    return T


@implements(_MST_NOTE)
def minimum_spanning_tree(
    G: Graph, weight: str = "weight", algorithm: str = "kruskal", ignore_nan: bool = False
) -> nx.Graph:
    return _tree(G, weight, ignore_nan, False)


@implements(_MST_NOTE)
def maximum_spanning_tree(
    G: Graph, weight: str = "weight", algorithm: str = "kruskal", ignore_nan: bool = False
) -> nx.Graph:
    return _tree(G, weight, ignore_nan, True)


@implements(
    "The greedy colouring in a largest-degree-first order (self-loops left out of degrees), vertices of "
    "equal degree in an order of random draws from a fixed seed, whatever strategy is named: networkx's "
    "largest_first colouring up to the order of ties, not another strategy's. Computed by speculative "
    "passes on the ranks that end in the sequential colouring, the same on every layout. Runs without "
    "interchange and with the named strategies only."
)
def greedy_color(G: Graph, strategy: Any = "largest_first", interchange: bool = False) -> dict[Hashable, int]:
    found = frame(G, alg.greedy_color(G.graph_, seed=0), "vertex")
    return dict(zip(found["vertex"].tolist(), found["color"].tolist()))


@implements(
    "Luby's rounds of random priorities drawn from the seed: a maximal independent set, another than "
    "networkx's for the same seed. The nodes given come first, then the others in the node order."
)
def maximal_independent_set(G: Graph, nodes: Any = None, seed: Any = None) -> list[Hashable]:
    import networkx as nx

    given = list(nodes) if nodes else []
    if not all(has_node(G, v) for v in given):
        raise nx.NetworkXUnfeasible(f"{set(given)} is not a subset of the nodes of G")
    try:
        found = alg.maximal_independent_set(G.graph_, [G.vertex(v) for v in given], seed=rng_seed(seed))
    except DgraphInputError as e:
        raise nx.NetworkXUnfeasible(f"{set(given)} is not an independent set of G") from e
    members = frame(G, found[found["in_set"]], "vertex")["vertex"].tolist()
    first = set(given)
    return list(dict.fromkeys(given)) + [v for v in members if v not in first]


@implements("The truss's edges found on the workers; the subgraph cut from the caller's graph (every attribute kept).")
def k_truss(G: Graph, k: int) -> nx.Graph:
    import networkx as nx

    # supports are integers: at least k - 2 is at least ceil(k) - 2 (networkx takes any number)
    edges = frame(G, alg.k_truss(G.graph_, math.ceil(k)), "src", "dst")
    pairs = list(zip(edges["src"].tolist(), edges["dst"].tolist()))
    source = _source(G)
    if source is not None:
        return source.edge_subgraph(pairs).copy()
    H = nx.Graph()
    H.add_edges_from(pairs)
    return H
