"""Graph algorithms. Each takes a ``dgraph.Graph`` first and returns a dask DataFrame with a
``vertex`` column in the user's labels and named value columns. ``REGISTRY`` lists them
(``registry.py``): an algorithm is its module plus its entry there."""

from .bellman_ford import bellman_ford
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
from .louvain import leiden, louvain, modularity
from .max_weight_matching import max_weight_matching
from .maximal_independent_set import maximal_independent_set
from .minimum_spanning_tree import minimum_spanning_tree
from .neighbourhood import ego_graph, k_hop
from .pagerank import pagerank
from .personalized_pagerank import personalized_pagerank
from .pointer_jumping import pointer_jumping
from .random_walks import random_walks
from .reciprocity import reciprocity
from .registry import REGISTRY, Algorithm, verify
from .sample_neighbors import sample_neighbors
from .shortest_paths import shortest_paths
from .sssp import sssp
from .strongly_connected_components import strongly_connected_components
from .triangles import local_clustering_coefficient, total_triangles, triangle_count

__all__ = [
    "self_loops",
    "resource_allocation_index",
    "reciprocity",
    "preferential_attachment",
    "katz_centrality",
    "jaccard_coefficient",
    "isolates",
    "hits",
    "harmonic_centrality",
    "eigenvector_centrality",
    "eccentricity",
    "degree_centrality",
    "closeness_centrality",
    "adamic_adar_index",
    "REGISTRY",
    "Algorithm",
    "betweenness_centrality",
    "bfs",
    "connected_components",
    "core_number",
    "ego_graph",
    "k_core",
    "k_hop",
    "label_propagation",
    "leiden",
    "local_clustering_coefficient",
    "louvain",
    "max_weight_matching",
    "modularity",
    "pointer_jumping",
    "random_walks",
    "sample_neighbors",
    "strongly_connected_components",
    "total_triangles",
    "triangle_count",
    "pagerank",
    "personalized_pagerank",
    "shortest_paths",
    "sssp",
    "verify",
    "weakly_connected_components",
    "minimum_spanning_tree",
    "greedy_color",
    "maximal_independent_set",
    "k_truss",
    "bellman_ford",
    "edge_betweenness_centrality",
    "bipartite",
    "diameter",
    "jaccard_top_k",
]
