"""networkx's edge betweenness on dgraph (``dgraph.algorithms.edge_betweenness_centrality``):
hop counts or weighted paths, every source or networkx's sample of ``k``."""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

from dgraph import algorithms as alg
from dgraph.dask_internals import fetch

from .implement import implements, weighted

if TYPE_CHECKING:
    from .graphs import Graph


@implements(
    "weight: an edge attribute name (Dijkstra from every source, paths of exactly equal length counted "
    "alike); with k, the same sample networkx draws with the same seed."
)
def edge_betweenness_centrality(
    G: Graph, k: int | None = None, normalized: bool = True, weight: str | None = None, seed: Any = None
) -> dict[tuple[Hashable, Hashable], float]:
    sources = None
    if k is not None:  # the sample networkx draws with the same seed
        sources = [G.vertex(v) for v in seed.sample(G.nodes(), k)]
    graph = G.graph_
    chosen = graph.weight if weighted(G, weight) else None
    found = alg.edge_betweenness_centrality(graph, sources=sources, normalized=normalized, weight=chosen)
    found = fetch(graph.client, found).sort_values(["src", "dst"], kind="stable")
    if G.nodes_ is not None and not G.is_directed():  # networkx names an edge from its end first in node order
        swap = found["src"] > found["dst"]
        found.loc[swap, ["src", "dst"]] = found.loc[swap, ["dst", "src"]].to_numpy()
    named = G.label(found, "src", "dst")
    return dict(zip(zip(named["src"].tolist(), named["dst"].tolist()), named["betweenness"].tolist()))
