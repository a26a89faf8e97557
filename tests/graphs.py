"""Test graphs and networkx references."""

import networkx as nx
import numpy as np
import pandas as pd

from dgraph.generators import _kron_part, _grid_part


def er_edges(n, m, seed):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"src": rng.integers(0, n, m), "dst": rng.integers(0, n, m)})


def kron_edges(scale, seed=1, edge_factor=8):
    return _kron_part(scale, edge_factor << scale, seed, 0, 0.57, 0.19, 0.19)


def grid_edges(rows, cols):
    return _grid_part(rows, cols, 0, rows)


def nx_graph(edges, directed, vertices=None, weight=None):
    G = nx.DiGraph() if directed else nx.Graph()
    if vertices is not None:
        G.add_nodes_from(vertices)
    if weight:
        for u, v, w in zip(edges["src"], edges["dst"], edges[weight]):
            if G.has_edge(u, v):
                w = min(w, G[u][v]["weight"])
            G.add_edge(u, v, weight=w)
    else:
        G.add_edges_from(zip(edges["src"], edges["dst"]))
    return G
