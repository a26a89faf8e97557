"""Graph algorithms. Each takes a ``dgraph.Graph`` first and returns a dask DataFrame with a
``vertex`` column in the user's labels and named value columns. ``REGISTRY`` lists them
(``registry.py``): an algorithm is its module plus its entry there."""

from .betweenness_centrality import betweenness_centrality
from .bfs import bfs
from .connected_components import connected_components, weakly_connected_components
from .core_number import core_number, k_core
from .label_propagation import label_propagation
from .louvain import leiden, louvain, modularity
from .max_weight_matching import max_weight_matching
from .neighbourhood import ego_graph, k_hop
from .pagerank import pagerank
from .personalized_pagerank import personalized_pagerank
from .pointer_jumping import pointer_jumping
from .random_walks import random_walks
from .registry import REGISTRY, Algorithm, verify
from .sample_neighbors import sample_neighbors
from .shortest_paths import shortest_paths
from .sssp import sssp
from .strongly_connected_components import strongly_connected_components
from .triangles import local_clustering_coefficient, total_triangles, triangle_count

__all__ = [
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
]
