"""The registry of algorithms: the one list of them.

Each algorithm is a module of this package plus one ``Algorithm`` entry here: its function, its
verifier, whether ``dgraph run`` offers it and the networkx functions the backend serves with it.
The command line's choices, ``verify``'s names, the networkx backend's functions (and the table
``_dgraph_nx`` shows networkx, generated from them) all read this registry.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from dgraph.errors import DgraphInputError

from . import verify as checks
from .bellman_ford import bellman_ford, check_bellman_ford
from .betweenness_centrality import betweenness_centrality
from .bfs import bfs
from .bipartite import bipartite
from .connected_components import connected_components, weakly_connected_components
from .core_number import core_number, k_core
from .degree_centrality import degree_centrality, isolates, self_loops
from .distance_measures import closeness_centrality, diameter, eccentricity, harmonic_centrality
from .edge_betweenness_centrality import edge_betweenness_centrality
from .eigenvector_centrality import eigenvector_centrality
from .greedy_color import greedy_color
from .hits import hits
from .k_truss import k_truss
from .katz_centrality import katz_centrality
from .label_propagation import label_propagation
from .link_prediction import (
    adamic_adar_index,
    jaccard_coefficient,
    jaccard_top_k,
    preferential_attachment,
    resource_allocation_index,
)
from .louvain import leiden, louvain
from .max_weight_matching import max_weight_matching
from .maximal_independent_set import maximal_independent_set
from .minimum_spanning_tree import minimum_spanning_tree
from .neighbourhood import ego_graph, k_hop
from .pagerank import pagerank
from .personalized_pagerank import personalized_pagerank
from .pointer_jumping import pointer_jumping
from .random_walks import random_walks
from .reciprocity import reciprocity
from .sample_neighbors import sample_neighbors
from .shortest_paths import shortest_paths
from .sssp import sssp
from .strongly_connected_components import strongly_connected_components
from .triangles import local_clustering_coefficient, total_triangles, triangle_count

if TYPE_CHECKING:
    import dask.dataframe as dd
    import pandas as pd

    from dgraph.graph import Graph


@dataclass(frozen=True)
class Algorithm:
    """One algorithm: its function in ``dgraph.algorithms`` and what serves it elsewhere."""

    function: Callable[..., Any]
    alias: str | None = None  # a short name (``dgraph run``'s and ``verify``'s), as LDBC's and GAP's
    verifier: Callable[..., list[str]] | None = None  # (snapshot, sorted result frame, **params) -> violations
    cli: bool = False  # offered by ``dgraph run``
    networkx: tuple[str, ...] = ()  # the networkx functions the backend (dgraph.nx) runs with it
    # how ``dgraph run`` calls it and shows its result
    source: bool = False  # takes a source vertex after the graph
    weighted: bool = False  # takes weight= (default: the graph's weight; None: unit weights)
    undirected: bool = False  # needs an undirected graph
    rank_by: tuple[str, bool] | None = None  # print the top rows by (column, ascending); None: group sizes

    @property
    def name(self) -> str:
        """The function's name in ``dgraph.algorithms``."""
        return self.function.__name__

    @property
    def short(self) -> str:
        """The name ``dgraph run`` and ``verify`` use: the alias, or the function's name."""
        return self.alias or self.name


_ENTRIES = (
    Algorithm(
        bfs,
        "bfs",
        checks.check_bfs,
        cli=True,
        networkx=(
            "bfs_edges",
            "bfs_tree",
            "bfs_predecessors",
            "bfs_successors",
            "bfs_layers",
            "single_source_shortest_path_length",
            "single_target_shortest_path_length",
            "shortest_path_length",
            "has_path",
            "descendants",
            "ancestors",
            "descendants_at_distance",
            "single_source_shortest_path",
            "single_target_shortest_path",
            "bidirectional_shortest_path",
            "shortest_path",
            "generic_bfs_edges",
            "lowest_common_ancestor",
            "all_pairs_lowest_common_ancestor",
            "predecessor",
            "all_shortest_paths",
            "single_source_all_shortest_paths",
            "all_pairs_all_shortest_paths",
        ),
        source=True,
        rank_by=("distance", True),
    ),
    Algorithm(
        sssp,
        "sssp",
        checks.check_sssp,
        cli=True,
        networkx=(
            "single_source_dijkstra_path_length",
            "single_source_dijkstra",
            "dijkstra_predecessor_and_distance",
            "single_source_dijkstra_path",
            "dijkstra_path",
            "dijkstra_path_length",
            "bidirectional_dijkstra",
        ),
        source=True,
        weighted=True,
        rank_by=("distance", True),
    ),
    Algorithm(
        pagerank,
        "pagerank",
        checks.check_pagerank,
        cli=True,
        networkx=("pagerank",),
        weighted=True,
        rank_by=("pagerank", False),
    ),
    Algorithm(personalized_pagerank, weighted=True),
    Algorithm(
        connected_components,
        networkx=(
            "connected_components",
            "number_connected_components",
            "is_connected",
            "node_connected_component",
            "is_forest",
            "is_tree",
        ),
    ),
    Algorithm(
        weakly_connected_components,
        "wcc",
        checks.check_wcc,
        cli=True,
        networkx=(
            "weakly_connected_components",
            "number_weakly_connected_components",
            "is_weakly_connected",
            "is_branching",
            "is_arborescence",
        ),
    ),
    Algorithm(
        strongly_connected_components,
        "scc",
        checks.check_scc,
        cli=True,
        networkx=("strongly_connected_components", "number_strongly_connected_components", "is_strongly_connected"),
    ),
    Algorithm(label_propagation, "cdlp", checks.check_cdlp, cli=True),
    Algorithm(
        local_clustering_coefficient,
        "lcc",
        checks.check_lcc,
        cli=True,
        networkx=("clustering", "average_clustering"),
        rank_by=("lcc", False),
    ),
    Algorithm(
        triangle_count,
        "triangles",
        checks.check_triangles,
        cli=True,
        networkx=("triangles", "transitivity"),
        undirected=True,
        rank_by=("triangles", False),
    ),
    Algorithm(total_triangles),
    Algorithm(
        core_number,
        "core",
        checks.check_core,
        cli=True,
        networkx=("core_number",),
        rank_by=("core", False),
    ),
    Algorithm(k_core, networkx=("k_core", "k_shell", "k_crust", "k_corona")),
    Algorithm(
        betweenness_centrality,
        "bc",
        checks.check_bc,
        cli=True,
        networkx=("betweenness_centrality",),
        weighted=True,
        rank_by=("betweenness", False),
    ),
    Algorithm(
        max_weight_matching,
        "mwm",
        checks.check_mwm,
        cli=True,
        networkx=("max_weight_matching",),
        weighted=True,
        undirected=True,
    ),
    Algorithm(
        louvain,
        "louvain",
        checks.check_louvain,
        cli=True,
        networkx=("louvain_communities",),
        weighted=True,
        undirected=True,
    ),
    Algorithm(
        leiden,
        "leiden",
        checks.check_leiden,
        cli=True,
        networkx=("leiden_communities",),
        weighted=True,
        undirected=True,
    ),
    Algorithm(
        shortest_paths,
        networkx=(
            "all_pairs_shortest_path",
            "multi_source_dijkstra",
            "multi_source_dijkstra_path",
            "multi_source_dijkstra_path_length",
            "all_pairs_dijkstra",
            "all_pairs_dijkstra_path",
            "all_pairs_dijkstra_path_length",
            "floyd_warshall",
            "floyd_warshall_predecessor_and_distance",
            "floyd_warshall_numpy",
        ),
        weighted=True,
    ),
    Algorithm(k_hop, networkx=("all_pairs_shortest_path_length",)),
    Algorithm(ego_graph, networkx=("ego_graph",)),
    Algorithm(pointer_jumping),
    Algorithm(random_walks, weighted=True),
    Algorithm(sample_neighbors),
    Algorithm(degree_centrality, networkx=("degree_centrality", "in_degree_centrality", "out_degree_centrality")),
    Algorithm(isolates, networkx=("isolates", "is_isolate", "number_of_isolates")),
    Algorithm(self_loops, networkx=("number_of_selfloops",)),
    Algorithm(reciprocity, networkx=("reciprocity", "overall_reciprocity")),
    Algorithm(hits, networkx=("hits",)),
    Algorithm(katz_centrality, networkx=("katz_centrality",), weighted=True),
    Algorithm(
        eigenvector_centrality,
        networkx=("eigenvector_centrality",),
        weighted=True,
    ),
    Algorithm(closeness_centrality, networkx=("closeness_centrality",)),
    Algorithm(harmonic_centrality, networkx=("harmonic_centrality",)),
    Algorithm(
        eccentricity,
        networkx=("eccentricity", "diameter", "radius", "center", "periphery", "average_shortest_path_length"),
    ),
    Algorithm(jaccard_coefficient, networkx=("jaccard_coefficient",), undirected=True),
    Algorithm(adamic_adar_index, networkx=("adamic_adar_index",), undirected=True),
    Algorithm(resource_allocation_index, networkx=("resource_allocation_index",), undirected=True),
    Algorithm(preferential_attachment, networkx=("preferential_attachment",), undirected=True),
    Algorithm(
        minimum_spanning_tree,
        networkx=("minimum_spanning_tree", "minimum_spanning_edges", "maximum_spanning_tree", "maximum_spanning_edges"),
        weighted=True,
        undirected=True,
    ),
    Algorithm(greedy_color, "color", checks.check_coloring, networkx=("greedy_color",), undirected=True),
    Algorithm(maximal_independent_set, "mis", checks.check_mis, networkx=("maximal_independent_set",), undirected=True),
    Algorithm(k_truss, networkx=("k_truss",), undirected=True),
    Algorithm(
        bellman_ford,
        verifier=check_bellman_ford,
        networkx=(
            "bellman_ford_path",
            "bellman_ford_path_length",
            "single_source_bellman_ford",
            "single_source_bellman_ford_path",
            "single_source_bellman_ford_path_length",
            "bellman_ford_predecessor_and_distance",
            "all_pairs_bellman_ford_path",
            "all_pairs_bellman_ford_path_length",
            "negative_edge_cycle",
            "find_negative_cycle",
            "is_negatively_weighted",
            "goldberg_radzik",
            "johnson",
        ),
        source=True,
        weighted=True,
    ),
    Algorithm(edge_betweenness_centrality, networkx=("edge_betweenness_centrality",), weighted=True),
    Algorithm(bipartite, networkx=("is_bipartite",)),
    Algorithm(diameter, undirected=True),
    Algorithm(jaccard_top_k, undirected=True),
)

REGISTRY: Mapping[str, Algorithm] = MappingProxyType({a.name: a for a in _ENTRIES})
"""Function name -> its ``Algorithm``."""

_BY_SHORT = {a.short: a for a in _ENTRIES}
NOT_ALGORITHMS = ("modularity", "verify")  # in dgraph.algorithms.__all__: a measure and the verifiers


def lookup(name: str) -> Algorithm:
    """The entry named ``name``: a function's name or a short name (``"wcc"``)."""
    found = REGISTRY.get(name) or _BY_SHORT.get(name)
    if found is None:
        raise DgraphInputError(f"no algorithm named {name!r}; algorithms: {', '.join(sorted(REGISTRY))}")
    return found


def cli_names() -> list[str]:
    """The algorithms ``dgraph run`` offers, by short name."""
    return sorted(a.short for a in _ENTRIES if a.cli)


def verifier_names() -> list[str]:
    """The names ``verify`` takes for the algorithms that have a verifier (short names)."""
    return [a.short for a in _ENTRIES if a.verifier is not None]


def networkx_names() -> dict[str, str]:
    """networkx function -> the name of the algorithm that serves it."""
    return {fn: a.name for a in _ENTRIES for fn in a.networkx}


def verify(name: str, graph: Graph, result: dd.DataFrame | pd.DataFrame, **params: Any) -> list[str]:
    """The violations of ``result`` (a dask or pandas DataFrame an algorithm returned for
    ``graph``) of the guarantees of algorithm ``name`` (its short name, such as ``"wcc"``, or
    its function's name); an empty list when it is valid. See ``dgraph.algorithms.verify`` (the
    module) for what each verifier checks.

    ``params``: what the algorithm was called with where the check needs it (bfs: ``source``,
    ``depth_limit``; sssp: ``source``, ``weight``; pagerank: ``alpha``, ``tol``,
    ``personalization``, ``weight``; cdlp: ``max_iter``; bc: ``sources``, ``normalized``; mwm:
    ``weight``; louvain and leiden: ``modularity``, ``resolution``, ``weight``). ``weight`` means
    what it means to the algorithms: left out, the graph's weight; None, unit weights.
    """
    entry = REGISTRY.get(name) or _BY_SHORT.get(name)
    if entry is None or entry.verifier is None:
        raise DgraphInputError(f"no verifier named {name!r}; verifiers: {', '.join(verifier_names())}")
    return checks.check(entry.verifier, name, graph, result, **params)
