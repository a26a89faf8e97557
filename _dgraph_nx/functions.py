"""The functions the dgraph backend runs, with what a user of networkx should know: written by
``python -m dgraph.nx.info`` from ``dgraph.algorithms.REGISTRY`` and ``dgraph.nx``'s notes."""

NOTES = {
    "bfs_edges": (
        "The tree's parents are the first in the node order among those one level closer (networkx takes "
        "the first found), so the edges may differ where a vertex has several; edges come level by level."
        " Runs with reverse=False and without sort_neighbors."
    ),
    "bfs_tree": "As bfs_edges.",
    "single_source_shortest_path_length": "",
    "single_source_dijkstra_path_length": "weight: an edge attribute name (not a function).",
    "single_source_dijkstra": (
        "Among paths of equal length, each vertex's predecessor is the first in the node order among the "
        "strictly closer ones, as dgraph.algorithms.sssp picks it; networkx's may be another."
    ),
    "dijkstra_predecessor_and_distance": "Every predecessor, listed nearest first.",
    "pagerank": "Without nstart and dangling; results agree with networkx's within tol.",
    "connected_components": "",
    "number_connected_components": "",
    "weakly_connected_components": "",
    "strongly_connected_components": "",
    "clustering": "Undirected graphs, unweighted (weight=None).",
    "average_clustering": "Undirected graphs, unweighted (weight=None).",
    "triangles": "",
    "transitivity": "",
    "core_number": "Graphs without self-loops (networkx refuses them too).",
    "k_core": "Returns the core's nodes and edges (with the call's weight), not the input's other attributes.",
    "betweenness_centrality": "Unweighted, endpoints=False; with k, the same sample networkx draws with the same seed.",
    "max_weight_matching": (
        "Only where dgraph's locally dominant matching is the maximum one: every component a star (one "
        "centre) and maxcardinality=False; can_run declines other graphs."
    ),
    "louvain_communities": (
        "Distributed Louvain: a different partition than networkx's for a seed, of comparable modularity "
        "(see the dgraph benchmarks)."
    ),
    "leiden_communities": "Distributed Leiden: every community connected.",
    "from_pandas_edgelist": (
        "Builds a dgraph.nx.Graph on the cluster (also from a dask DataFrame); one edge attribute at "
        "most, no multigraphs."
    ),
}
