"""Bellman-Ford's rank-local passes: distances and predecessors identical to synchronous rounds
(the tail first to reach a distance, the smallest on ties), in fewer supersteps where ranks own
both ends of most arcs; negative cycles found by the hop rule whether they lie inside one rank,
across ranks or on one rank alone, and the cycle read off the predecessors is negative."""

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from graphs import er_edges, grid_edges, kron_edges, nx_graph

import dgraph
from dgraph.algorithms import bellman_ford
from dgraph.algorithms.bellman_ford import bellman_ford_kernel, bellman_ford_search, rounds_kernel
from dgraph.errors import DgraphInputError
from dgraph.partitioners import OneD


def _potential(e, seed):
    """Negative weights without a negative cycle: w + p(u) - p(v), quarters (exact sums)."""
    rng = np.random.default_rng(seed)
    p = rng.integers(0, 24, int(max(e.src.max(), e.dst.max())) + 1) / 4
    return e.assign(w=rng.integers(0, 12, len(e)) / 4 + p[e.src.to_numpy()] - p[e.dst.to_numpy()])


def _both(g, source):
    """The rank-local search's frame and the synchronous rounds' frame, with their rounds."""
    columns = dict(label_columns=("predecessor",), nullable=("distance", "predecessor"))
    out = []
    for kernel, options in ((bellman_ford_kernel, {}), (rounds_kernel, {"placement": "layout"})):
        frame, stats = g.runner.run_to_frame(kernel, **columns, **options, source=source, unit=False)
        out.append((frame.compute().sort_values("vertex").reset_index(drop=True), stats.info["rounds"]))
    return out


@pytest.mark.parametrize("kind", ["grid", "random", "kronecker"])
def test_the_same_labels_as_synchronous_rounds(client, kind):
    if kind == "grid":
        e = _potential(grid_edges(12, 15), 1)
    elif kind == "random":
        e = _potential(er_edges(200, 900, seed=2), 3)
    else:
        e = _potential(kron_edges(7, seed=5, edge_factor=4), 4)
    g = dgraph.from_edgelist(e, weight="w", directed=True, layout=OneD(ranks=3))
    for source in (g.vertex_param(int(e.src.iloc[0])), -1):  # -1: every vertex at 0
        (local, rounds), (synchronous, levels) = _both(g, source)
        pd.testing.assert_frame_equal(local, synchronous)
        if kind == "grid" and source >= 0:
            assert rounds < levels / 4  # paths cross between ranks rarely on a grid numbered by rows
    G = nx_graph(e, True, weight="w")
    source = int(e.src.iloc[0])
    found = bellman_ford(g, source).compute().set_index("vertex")
    want = nx.single_source_bellman_ford_path_length(G, source)
    assert found.distance.dropna().to_dict() == want


def _chain(cycle):
    """A path 0 -> 1 -> ... -> 39 (weight 1) with the extra arcs ``cycle`` (src, dst, w)."""
    src, dst, w = list(range(39)), list(range(1, 40)), [1.0] * 39
    for a, b, x in cycle:
        src.append(a), dst.append(b), w.append(x)
    return pd.DataFrame({"src": src, "dst": dst, "w": w})


@pytest.mark.parametrize(
    "where, cycle",
    [
        ("one rank", [(6, 3, -4.0)]),  # 3 -> 4 -> 5 -> 6 -> 3 weighs -1, on rank 0
        ("across ranks", [(30, 8, -23.0)]),  # 8 -> ... -> 30 -> 8 weighs -1, on both ranks
        ("a self-loop", [(25, 25, -0.5)]),
    ],
)
def test_negative_cycles(client, where, cycle):
    e = _chain(cycle)
    G = nx_graph(e, True, weight="w")
    for layout in (OneD(ranks=2), OneD(ranks=1)):
        g = dgraph.from_edgelist(e, weight="w", directed=True, layout=layout)
        if layout.ranks == 2:
            assert 10 < g.store.bounds[1] < 25  # the ranks split the path where the cases expect
        with pytest.raises(DgraphInputError, match="negative cycle"):
            bellman_ford(g, 0)
        beyond = max(max(a, b) for a, b, _ in cycle) + 1  # a source past the cycle: nothing negative reachable
        found = bellman_ford(g, beyond).compute().set_index("vertex").distance.dropna()
        assert found.to_dict() == {v: float(v - beyond) for v in range(beyond, 40)}
        frame, negative = bellman_ford_search(g, None, cycle=True)
        assert negative
        parent = frame.compute().set_index("vertex").predecessor.dropna().astype(int).to_dict()
        v, seen = 0, []
        v = next(iter(parent))
        for _ in range(len(parent) + 1):  # the predecessors hold a cycle: walk into it
            v = parent.get(v, v)
        while v not in seen:
            seen.append(v)
            v = parent[v]
        assert sum(G[parent[x]][x]["weight"] for x in seen) < 0
    assert nx.negative_edge_cycle(G, backend="dgraph")
    found = nx.find_negative_cycle(G, 0, backend="dgraph")
    assert sum(G[a][b]["weight"] for a, b in zip(found, found[1:])) < 0
