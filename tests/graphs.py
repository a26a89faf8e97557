"""Test graphs and networkx references."""

from collections import Counter

import networkx as nx
import numpy as np
import pandas as pd

from dgraph.generators import BLOCK, _grid_part, _kron_block
from dgraph.partitioners import OneD, OnePointFiveD, TwoD

# the layouts most algorithm tests run on: one rank, ranges, stripes, hashes, 2D meshes, 1.5D
LAYOUTS = [
    OneD(ranks=1),
    OneD(ranks=3),
    OneD(ranks=8),
    OneD(ranks=3, balance="striped"),
    OneD(ranks=4, balance="hashed"),
    TwoD(rows=2, cols=3),
    TwoD(rows=4, cols=4),
    OnePointFiveD(rows=2, cols=3, e_threshold=12, h_threshold=5),
]
# one layout of each kind, each over several ranks (ranges, hashes, a 2D mesh, 1.5D): the matrices
# of algorithms whose rank-level code is the shared edge map and ghost exchanges
EACH_KIND = [LAYOUTS[1], LAYOUTS[4], LAYOUTS[5], LAYOUTS[7]]


def er_edges(n, m, seed):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"src": rng.integers(0, n, m), "dst": rng.integers(0, n, m)})


def kron_edges(scale, seed=1, edge_factor=8):
    m = edge_factor << scale
    return pd.concat(
        [_kron_block(scale, m, seed, k, a=0.57, b=0.19, c=0.19) for k in range(-(-m // BLOCK))], ignore_index=True
    )


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


# ----------------------------------------------------------------------------- LDBC references
def ldbc_cdlp(G, rounds):
    """LDBC CDLP, written from the specification."""
    label = {v: v for v in G.nodes()}
    for _ in range(rounds):
        new = {}
        for v in G.nodes():
            if G.is_directed():
                seen = [label[u] for u in G.successors(v)] + [label[u] for u in G.predecessors(v)]
            else:
                seen = [label[u] for u in G.neighbors(v)]
            if not seen:
                new[v] = label[v]
                continue
            counts = Counter(seen)
            top = max(counts.values())
            new[v] = min(lab for lab, c in counts.items() if c == top)
        label = new
    return label


def ldbc_lcc(G):
    """LDBC LCC: arcs among the in- and out-neighbours (counted once) / (d (d - 1))."""
    out = {}
    for v in G.nodes():
        nbrs = (set(G.successors(v)) | set(G.predecessors(v))) - {v} if G.is_directed() else set(G.neighbors(v)) - {v}
        d = len(nbrs)
        succ = G.successors if G.is_directed() else G.neighbors
        arcs = sum(1 for u in nbrs for w in succ(u) if w in nbrs and w != u)
        out[v] = arcs / (d * (d - 1)) if d >= 2 else 0.0
    return out


def ldbc_pagerank(G, d, iterations):
    """LDBC PR: exactly ``iterations`` synchronous iterations from 1/|V|."""
    n = G.number_of_nodes()
    pr = {v: 1.0 / n for v in G.nodes()}
    out = G.successors if G.is_directed() else G.neighbors
    inn = G.predecessors if G.is_directed() else G.neighbors
    deg = {v: len(list(out(v))) for v in G.nodes()}
    for _ in range(iterations):
        dangling = sum(pr[v] for v in G.nodes() if deg[v] == 0)
        pr = {v: (1 - d) / n + d * sum(pr[u] / deg[u] for u in inn(v)) + d / n * dangling for v in G.nodes()}
    return pr
