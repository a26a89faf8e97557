"""The functions the dgraph backend runs, with what a user of networkx should know: written by
``python -m dgraph.nx.info`` from ``dgraph.algorithms.REGISTRY`` and ``dgraph.nx``'s notes."""

NOTES = {
    "bfs_edges": (
        "The tree's parents are the first in the node order among those one level closer (networkx takes "
        "the first found), so the edges may differ where a vertex has several; edges come level by level."
        " Runs with reverse=False and without sort_neighbors."
    ),
    "bfs_tree": "As bfs_edges.",
    "bfs_predecessors": "As bfs_edges (a vertex's parent is the first in the node order one level closer).",
    "bfs_successors": "As bfs_edges; each parent once, its children in the node order.",
    "bfs_layers": (
        "Each layer's nodes in the graph's node order (networkx lists them as found). Several sources: "
        "every source's search in one run (dgraph.algorithms.k_hop), each node in the layer of its "
        "nearest source."
    ),
    "single_source_shortest_path_length": "",
    "single_target_shortest_path_length": "Directed graphs: a search of the reversed graph (built once, kept).",
    "shortest_path_length": (
        "weight: an edge attribute name, non-negative weights (method 'dijkstra', or 'bellman-ford' and "
        "'unweighted' where they give the same lengths). Without a source: to the target by a search of "
        "the reversed graph; without either: all pairs, unweighted."
    ),
    "has_path": "",
    "descendants": "",
    "ancestors": "Directed graphs: a search of the reversed graph (built once, kept).",
    "descendants_at_distance": "",
    "single_source_shortest_path": (
        "Among paths of equal length each vertex's predecessor is the first in the node order (networkx: "
        "the first found)."
    ),
    "single_target_shortest_path": (
        "Directed graphs: a search of the reversed graph (built once, kept). Among paths of equal length "
        "each vertex's predecessor is the first in the node order (networkx: the first found)."
    ),
    "bidirectional_shortest_path": (
        "A breadth-first search from the source. Among paths of equal length each vertex's predecessor is"
        " the first in the node order (networkx: the first found)."
    ),
    "shortest_path": (
        "method 'dijkstra' (non-negative weights) or 'bellman-ford' (any weights); without a source, to "
        "the target by a search of the reversed graph. Among paths of equal length each vertex's "
        "predecessor is the first in the node order (networkx: the first found)."
    ),
    "generic_bfs_edges": (
        "The default neighbors only (successors); each node's parent is the first in the node order one "
        "level closer (networkx: the first found), edges level by level."
    ),
    "lowest_common_ancestor": "As all_pairs_lowest_common_ancestor.",
    "all_pairs_lowest_common_ancestor": (
        "Ancestors from multi-source searches of the reversed graph; of the common ones, the one with the"
        " most ancestors, which no other common one descends from (where several are lowest, networkx may"
        " pick another)."
    ),
    "predecessor": (
        "A breadth-first search, then the arcs one level apart, found on the workers. Each node's "
        "predecessors in the order of their distances, the node order within one (networkx: as found)."
    ),
    "all_shortest_paths": (
        "Every path networkx enumerates over dgraph's predecessors (weights: Dijkstra's or Bellman-Ford's)."
    ),
    "single_source_all_shortest_paths": "As all_shortest_paths.",
    "all_pairs_all_shortest_paths": "As all_shortest_paths, one search per node.",
    "single_source_dijkstra_path_length": "weight: an edge attribute name (not a function).",
    "single_source_dijkstra": (
        "Among paths of equal length, each vertex's predecessor is the first in the node order among the "
        "strictly closer ones, as dgraph.algorithms.sssp picks it; networkx's may be another."
    ),
    "dijkstra_predecessor_and_distance": "Every predecessor, listed nearest first.",
    "single_source_dijkstra_path": (
        "weight: an edge attribute name, non-negative weights. Among paths of equal length each vertex's "
        "predecessor is the first in the node order (networkx: the first found)."
    ),
    "dijkstra_path": (
        "weight: an edge attribute name, non-negative weights. Among paths of equal length each vertex's "
        "predecessor is the first in the node order (networkx: the first found)."
    ),
    "dijkstra_path_length": "weight: an edge attribute name, non-negative weights.",
    "bidirectional_dijkstra": (
        "One search from the source (dgraph.algorithms.sssp). Among paths of equal length each vertex's "
        "predecessor is the first in the node order (networkx: the first found)."
    ),
    "pagerank": "Without nstart and dangling; results agree with networkx's within tol.",
    "connected_components": "",
    "number_connected_components": "",
    "is_connected": "",
    "node_connected_component": "",
    "is_forest": (
        "A forest has one edge fewer than nodes in each (weak) component: the edges counted against the components."
    ),
    "is_tree": "As is_forest, with one component.",
    "weakly_connected_components": "",
    "number_weakly_connected_components": "",
    "is_weakly_connected": "",
    "is_branching": "A forest whose in-degrees are at most one.",
    "is_arborescence": "A tree whose in-degrees are at most one.",
    "strongly_connected_components": "",
    "number_strongly_connected_components": "",
    "is_strongly_connected": "",
    "clustering": "Undirected graphs, unweighted (weight=None).",
    "average_clustering": "Undirected graphs, unweighted (weight=None).",
    "triangles": "",
    "transitivity": "",
    "core_number": "Graphs without self-loops (networkx refuses them too).",
    "k_core": "Returns the subgraph's nodes and edges (with the call's weight), not the input's other attributes.",
    "k_shell": "Returns the subgraph's nodes and edges (with the call's weight), not the input's other attributes.",
    "k_crust": "Returns the subgraph's nodes and edges (with the call's weight), not the input's other attributes.",
    "k_corona": (
        "Returns the subgraph's nodes and edges (with the call's weight), not the input's other "
        "attributes. As networkx, the neighbours counted in the k-core are G[v]: a directed graph's "
        "successors."
    ),
    "betweenness_centrality": (
        "endpoints=False; weight: an edge attribute name (Dijkstra from every source, paths of exactly "
        "equal length counted alike); with k, the same sample networkx draws with the same seed."
    ),
    "max_weight_matching": (
        "Only where dgraph's locally dominant matching is the maximum one: every component a star (one "
        "centre) and maxcardinality=False; can_run declines other graphs."
    ),
    "louvain_communities": (
        "Distributed Louvain: a different partition than networkx's for a seed, of comparable modularity "
        "(see the dgraph benchmarks)."
    ),
    "leiden_communities": "Distributed Leiden: every community connected.",
    "all_pairs_shortest_path": (
        "Every source's search in one run (dgraph.algorithms.shortest_paths). Among paths of equal length"
        " each vertex's predecessor is the first in the node order (networkx: the first found)."
    ),
    "multi_source_dijkstra": (
        "All sources' searches in one run (dgraph.algorithms.shortest_paths). Among paths of equal length"
        " each vertex's predecessor is the first in the node order (networkx: the first found)."
    ),
    "multi_source_dijkstra_path": "As multi_source_dijkstra.",
    "multi_source_dijkstra_path_length": "As multi_source_dijkstra.",
    "all_pairs_dijkstra": (
        "Every source's search in one run (dgraph.algorithms.shortest_paths); n x n pairs come to the "
        "client. Among paths of equal length each vertex's predecessor is the first in the node order "
        "(networkx: the first found)."
    ),
    "all_pairs_dijkstra_path": (
        "Every source's search in one run (dgraph.algorithms.shortest_paths); n x n pairs come to the "
        "client. Among paths of equal length each vertex's predecessor is the first in the node order "
        "(networkx: the first found)."
    ),
    "all_pairs_dijkstra_path_length": (
        "Every source's search in one run (dgraph.algorithms.shortest_paths); n x n pairs come to the client. "
    ),
    "floyd_warshall": (
        "Every source's search in one run (dgraph.algorithms.shortest_paths). Negative weights: can_run "
        "leaves a networkx graph to networkx; on a dgraph graph the arcs are reweighted as Johnson's "
        "method does, and a negative cycle raises NetworkXUnbounded (networkx returns distances that mean"
        " nothing)."
    ),
    "floyd_warshall_predecessor_and_distance": (
        "Every source's search in one run (dgraph.algorithms.shortest_paths). Negative weights: can_run "
        "leaves a networkx graph to networkx; on a dgraph graph the arcs are reweighted as Johnson's "
        "method does, and a negative cycle raises NetworkXUnbounded (networkx returns distances that mean"
        " nothing). Among paths of equal length each vertex's predecessor is the first in the node order."
    ),
    "floyd_warshall_numpy": (
        "Every source's search in one run (dgraph.algorithms.shortest_paths). Negative weights: can_run "
        "leaves a networkx graph to networkx; on a dgraph graph the arcs are reweighted as Johnson's "
        "method does, and a negative cycle raises NetworkXUnbounded (networkx returns distances that mean"
        " nothing)."
    ),
    "all_pairs_shortest_path_length": (
        "Every source's search in one run (dgraph.algorithms.k_hop, 64 sources a word); n x n pairs come "
        "to the client, as networkx's answer holds them."
    ),
    "ego_graph": (
        "The nodes within radius from a search of dgraph (distance: the graph's weight, by SSSP); the "
        "subgraph is cut from the caller's networkx graph, every attribute kept, or built from the arcs "
        "between them."
    ),
    "degree_centrality": "",
    "in_degree_centrality": "",
    "out_degree_centrality": "",
    "isolates": "The isolated nodes in the graph's node order.",
    "is_isolate": "",
    "number_of_isolates": "",
    "number_of_selfloops": "",
    "reciprocity": "",
    "overall_reciprocity": "",
    "hits": (
        "Kleinberg's power iteration (networkx's method before 3.0), stopping when the hubs change by "
        "less than tol in L1; networkx 3 computes the same leading singular vectors with ARPACK, so "
        "answers agree to about tol where those vectors are unique. Without nstart."
    ),
    "katz_centrality": "Without nstart; results agree with networkx's within tol.",
    "eigenvector_centrality": "Without nstart; results agree with networkx's within tol.",
    "closeness_centrality": (
        "Hop distances (distance=None), exact: a search from every node, 64 to a machine word "
        "(dgraph.algorithms.closeness_centrality); with u, one search (of the reversed graph when "
        "directed)."
    ),
    "harmonic_centrality": (
        "Hop distances (distance=None) from every node (sources=None), exact: a search from every node, "
        "64 to a machine word (dgraph.algorithms.harmonic_centrality)."
    ),
    "eccentricity": (
        "Hops (weight=None), exact: a search from every node, 64 to a machine word "
        "(dgraph.algorithms.eccentricity). Without sp."
    ),
    "diameter": (
        "Hops (weight=None), exact: a search from every node, 64 to a machine word "
        "(dgraph.algorithms.eccentricity). Without e (networkx reads a given e itself); usebounds changes"
        " nothing."
    ),
    "radius": (
        "Hops (weight=None), exact: a search from every node, 64 to a machine word "
        "(dgraph.algorithms.eccentricity). Without e (networkx reads a given e itself); usebounds changes"
        " nothing."
    ),
    "center": (
        "Hops (weight=None), exact: a search from every node, 64 to a machine word "
        "(dgraph.algorithms.eccentricity). Without e (networkx reads a given e itself); usebounds changes"
        " nothing. The nodes in the graph's node order."
    ),
    "periphery": (
        "Hops (weight=None), exact: a search from every node, 64 to a machine word "
        "(dgraph.algorithms.eccentricity). Without e (networkx reads a given e itself); usebounds changes"
        " nothing. The nodes in the graph's node order."
    ),
    "average_shortest_path_length": (
        "Hops (weight=None), exact: a search from every node, 64 to a machine word (dgraph.algorithms.eccentricity)."
    ),
    "jaccard_coefficient": (
        "Scored on the workers, each pair at its first node's owner, sorted neighbour lists intersected "
        "(dgraph.algorithms.jaccard_coefficient); without ebunch, every pair of distinct nodes no edge "
        "joins, listed on the client (n^2 / 2 pairs)."
    ),
    "adamic_adar_index": (
        "Scored on the workers, each pair at its first node's owner, sorted neighbour lists intersected "
        "(dgraph.algorithms.adamic_adar_index); without ebunch, every pair of distinct nodes no edge "
        "joins, listed on the client (n^2 / 2 pairs)."
    ),
    "resource_allocation_index": (
        "Scored on the workers, each pair at its first node's owner, sorted neighbour lists intersected "
        "(dgraph.algorithms.resource_allocation_index); without ebunch, every pair of distinct nodes no "
        "edge joins, listed on the client (n^2 / 2 pairs)."
    ),
    "preferential_attachment": (
        "Scored on the workers, each pair at its first node's owner, sorted neighbour lists intersected "
        "(dgraph.algorithms.preferential_attachment); without ebunch, every pair of distinct nodes no "
        "edge joins, listed on the client (n^2 / 2 pairs)."
    ),
    "minimum_spanning_tree": (
        "Runs distributed Boruvka whichever algorithm is asked: the forest is networkx's where weights "
        "are distinct; among equal weights dgraph breaks ties by the ends' order in the graph's nodes, so"
        " it may pick other edges of the same total weight. Edges come in order of weight."
    ),
    "minimum_spanning_edges": (
        "Runs distributed Boruvka whichever algorithm is asked: the forest is networkx's where weights "
        "are distinct; among equal weights dgraph breaks ties by the ends' order in the graph's nodes, so"
        " it may pick other edges of the same total weight. Edges come in order of weight."
    ),
    "maximum_spanning_tree": (
        "Runs distributed Boruvka whichever algorithm is asked: the forest is networkx's where weights "
        "are distinct; among equal weights dgraph breaks ties by the ends' order in the graph's nodes, so"
        " it may pick other edges of the same total weight. Edges come in order of weight."
    ),
    "maximum_spanning_edges": (
        "Runs distributed Boruvka whichever algorithm is asked: the forest is networkx's where weights "
        "are distinct; among equal weights dgraph breaks ties by the ends' order in the graph's nodes, so"
        " it may pick other edges of the same total weight. Edges come in order of weight."
    ),
    "greedy_color": (
        "The greedy colouring in a largest-degree-first order (self-loops left out of degrees), vertices "
        "of equal degree in an order of random draws from a fixed seed, whatever strategy is named: "
        "networkx's largest_first colouring up to the order of ties, not another strategy's. Computed by "
        "speculative passes on the ranks that end in the sequential colouring, the same on every layout. "
        "Runs without interchange and with the named strategies only."
    ),
    "maximal_independent_set": (
        "Luby's rounds of random priorities drawn from the seed: a maximal independent set, another than "
        "networkx's for the same seed. The nodes given come first, then the others in the node order."
    ),
    "k_truss": (
        "The truss's edges found on the workers; the subgraph cut from the caller's graph (every attribute kept)."
    ),
    "bellman_ford_path": (
        "weight: an edge attribute name (weights of any sign). Among paths of equal length dgraph keeps "
        "the first tail to reach the distance, in rounds, the first in the node order on ties (networkx: "
        "the first it relaxed)."
    ),
    "bellman_ford_path_length": "weight: an edge attribute name (weights of any sign). ",
    "single_source_bellman_ford": (
        "weight: an edge attribute name (weights of any sign). Among paths of equal length dgraph keeps "
        "the first tail to reach the distance, in rounds, the first in the node order on ties (networkx: "
        "the first it relaxed)."
    ),
    "single_source_bellman_ford_path": (
        "weight: an edge attribute name (weights of any sign). Among paths of equal length dgraph keeps "
        "the first tail to reach the distance, in rounds, the first in the node order on ties (networkx: "
        "the first it relaxed)."
    ),
    "single_source_bellman_ford_path_length": "weight: an edge attribute name (weights of any sign). ",
    "bellman_ford_predecessor_and_distance": (
        "weight: an edge attribute name (weights of any sign). Every predecessor on a shortest path, in "
        "the order of their distances; heuristic is not needed."
    ),
    "all_pairs_bellman_ford_path": (
        "weight: an edge attribute name (weights of any sign). Every source's search in one run (negative"
        " weights: Johnson's reweighting). Among paths of equal length dgraph keeps the first tail to "
        "reach the distance, in rounds, the first in the node order on ties (networkx: the first it "
        "relaxed)."
    ),
    "all_pairs_bellman_ford_path_length": (
        "weight: an edge attribute name (weights of any sign). Every source's search in one run (negative"
        " weights: Johnson's reweighting)."
    ),
    "negative_edge_cycle": (
        "weight: an edge attribute name (weights of any sign). One search from every node at once "
        "(distance 0 each), as from networkx's added node."
    ),
    "find_negative_cycle": (
        "weight: an edge attribute name (weights of any sign). The cycle read from the predecessors of a "
        "search from the source, starting at the source where it lies on the cycle, else at its node "
        "first in the node order (networkx: where its search noticed it)."
    ),
    "is_negatively_weighted": "Counted on the workers; edge: looked up among the arcs.",
    "goldberg_radzik": (
        "weight: an edge attribute name (weights of any sign). One predecessor per node, as dgraph's "
        "Bellman-Ford chooses it. Among paths of equal length dgraph keeps the first tail to reach the "
        "distance, in rounds, the first in the node order on ties (networkx: the first it relaxed)."
    ),
    "johnson": (
        "Johnson's method on the cluster: potentials from one Bellman-Ford search from every node at "
        "once, the arcs reweighted to non-negative weights on the workers, then every source's search in "
        "one run (dgraph.algorithms.shortest_paths). Among paths of equal length each vertex's "
        "predecessor is the first in the node order."
    ),
    "edge_betweenness_centrality": (
        "weight: an edge attribute name (Dijkstra from every source, paths of exactly equal length "
        "counted alike); with k, the same sample networkx draws with the same seed."
    ),
    "is_bipartite": (
        "One connected-components run on the bipartite double cover (2n nodes, 2m edges), built on the cluster."
    ),
    "from_pandas_edgelist": (
        "Builds a dgraph.nx.Graph on the cluster (also from a dask DataFrame); one edge attribute at "
        "most, no multigraphs."
    ),
    "from_scipy_sparse_array": (
        "Builds a dgraph.nx.Graph on the cluster, nodes 0..n-1, the entries as weights (float64); an "
        "undirected graph keeps the last entry of each pair in the matrix's order, as networkx does. No "
        "multigraphs."
    ),
    "complement": (
        "The pairs are found on the client from the graph's arcs (n(n - 1) pairs: the complement of a "
        "large sparse graph is dense), and the complement is built on the cluster."
    ),
    "reverse": "copy=True only: a new graph, built on the cluster from the arcs turned round (kept for later calls).",
    "to_dict_of_lists": (
        "Each node's neighbours in the graph's node order (networkx lists them in the order they were added)."
    ),
}
