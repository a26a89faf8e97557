"""The cuda engine in numba's CUDA simulator: every device twin against the numba engine on the
parity cases, and BFS, SSSP, PageRank, components, triangles and label propagation end to end on
the cluster with the device engine selected (against networkx, or the numba engine for labels),
with the graph uploaded once."""

import copy
import os
import subprocess
import sys

import networkx as nx
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from graphs import er_edges, grid_edges, kron_edges, nx_graph
from test_kernel_parity import CASES, _equal

import dgraph
from dgraph import algorithms as alg
from dgraph import kernels
from dgraph.partitioners import OneD, TwoD

pytestmark = pytest.mark.cudasim

with kernels.using("cuda"):  # registers the device twins
    DEVICE = sorted(name for name, k in kernels.KERNELS.items() if "cuda" in k.impls)


def test_the_device_engine_covers_the_edge_map_pagerank_components_and_label_counts():
    assert {"frontier_arcs", "first_in_frontier", "push_merge", "merge_by_id", "spmv", "pagerank_step"} <= set(DEVICE)
    assert {"power_iterations", "block_forest", "afforest_rows", "spanning_forest"} <= set(DEVICE)
    assert {"label_mode", "relax_local"} <= set(DEVICE)
    assert "oriented_triangles" in DEVICE


# the arcs a search scans depend on its method (Dijkstra on the host, Bellman-Ford rounds on the
# device): its distances, predecessors and changed flags must agree
METHOD_COUNTS = {"relax_local": lambda scanned, args: args}


@pytest.mark.slow
@pytest.mark.parametrize("name", DEVICE)
def test_device_twins_give_the_numba_results(name):
    make, normalise = CASES[name]
    normalise = METHOD_COUNTS.get(name, normalise)
    kernel = kernels.KERNELS[name]
    for i, args in enumerate(make()):
        outcomes = {}
        for engine in ("numba", "cuda"):
            mine = copy.deepcopy(args)
            with kernels.using(engine):
                result = kernel.impls[engine](*mine)
            outcomes[engine] = normalise(result, mine) if normalise else (result, mine)
        _equal(outcomes["numba"], outcomes["cuda"], f"{name} case {i}")


def _run(engine, call):
    kernels.set_engine(engine)
    try:
        return call()
    finally:
        kernels.set_engine("numba")


GRAPHS = {
    "er": (lambda: er_edges(40, 150, 3), True),
    "kronecker": (lambda: kron_edges(6, seed=4, edge_factor=4), False),
    "grid": (lambda: grid_edges(5, 8), False),
}
# every graph on 1D, and the skewed one on 2D too (the simulator runs each device thread in
# Python: the cases are small, and the layouts' code paths are the host's, tested elsewhere)
CASES_RUN = [(graph, OneD(ranks=2)) for graph in sorted(GRAPHS)] + [("kronecker", TwoD(rows=2, cols=2))]


@pytest.mark.slow
@pytest.mark.parametrize("graph, layout", CASES_RUN, ids=lambda x: x if isinstance(x, str) else x.name)
def test_algorithms_run_on_the_device_engine(client, graph, layout):
    make, directed = GRAPHS[graph]
    edges = make()
    edges["weight"] = np.random.default_rng(5).integers(1, 9, len(edges)).astype(float)
    g = dgraph.from_edgelist(edges, directed=directed, weight="weight", layout=layout)
    G = nx_graph(edges, directed, weight="weight")
    source = int(edges.src.iloc[0])

    bfs = _run("cuda", lambda: alg.bfs(g, source, method="levels").compute())
    assert g.last_stats.info["device_calls"] > 0  # the device twins ran, not their host fallbacks
    want = nx.single_source_shortest_path_length(G, source)
    got = bfs.dropna(subset=["distance"]).set_index("vertex").distance.astype(int).to_dict()
    assert got == want
    pd_host = alg.bfs(g, source, method="levels").compute()
    assert bfs.sort_values("vertex").reset_index(drop=True).equals(pd_host.sort_values("vertex").reset_index(drop=True))

    sssp = _run("cuda", lambda: alg.sssp(g, source, weight="weight", method="relax").compute())
    want = nx.single_source_dijkstra_path_length(G, source)
    got = sssp.dropna(subset=["distance"]).set_index("vertex").distance.to_dict()
    assert got == pytest.approx(want)

    pr = (
        _run("cuda", lambda: alg.pagerank(g, tol=1e-12, max_iter=200, weight=None).compute())
        .set_index("vertex")
        .pagerank
    )
    ref = nx.pagerank(G, tol=1e-12, max_iter=200, weight=None)
    np.testing.assert_allclose(pr.loc[list(ref)].to_numpy(), list(ref.values()), rtol=1e-6)

    if not directed:
        tri = _run("cuda", lambda: alg.triangle_count(g).compute()).set_index("vertex")
        assert tri.iloc[:, 0].to_dict() == nx.triangles(G)
        labels = _run("cuda", lambda: alg.label_propagation(g, max_iter=5).compute())
        pd.testing.assert_frame_equal(labels, alg.label_propagation(g, max_iter=5).compute())

    cc = _run("cuda", lambda: alg.connected_components(g, connection="weak" if directed else None).compute())
    assert g.last_stats.info["device_calls"] > 0
    comps = nx.weakly_connected_components(G) if directed else nx.connected_components(G)
    want = {v: min(c) for c in comps for v in c}
    assert cc.set_index("vertex").component.to_dict() == want


def test_a_graph_goes_to_the_device_once_and_an_iteration_moves_only_what_ranks_read(client):
    edges = kron_edges(7, seed=2, edge_factor=4)
    g = dgraph.from_edgelist(edges, directed=False, layout=OneD(ranks=2))
    first = _run("cuda", lambda: (alg.pagerank(g, max_iter=3, tol=0).compute(), g.last_stats)[1])
    again = _run("cuda", lambda: (alg.pagerank(g, max_iter=6, tol=0).compute(), g.last_stats)[1])
    assert first.info["resident_bytes"] > 0  # the in-blocks' CSR arrays went up
    assert again.info["resident_bytes"] == 0  # and stayed: a second run uploads no graph bytes
    # an iteration uploads each rank's pulled sums (its own vertices) and the changed entries of
    # what its SpMV reads (its space); teleport, out-weights and ranks stay on the device
    spaces = sum(client.gather([client.submit(lambda b: b.space.size, b) for b in g.store.blocks]))
    n = g.num_vertices
    extra = again.info["h2d_bytes"] - (first.info["h2d_bytes"] - first.info["resident_bytes"])
    assert extra / 3 <= 8 * (spaces + n) + 64 * g.nranks


def test_values_that_did_not_change_stay_on_the_device():
    from dgraph.kernels.cuda import device

    rng = np.random.default_rng(3)
    indptr = np.r_[0, np.cumsum(rng.integers(0, 6, 200))]
    indices = rng.integers(0, 200, indptr[-1])
    x, out = rng.random(200), np.empty(200)
    A = sp.csr_matrix((np.ones(indices.size), indices, indptr), shape=(200, 200))
    moved = device.transfers()
    with kernels.using("cuda"):
        kernels.spmv(indptr, indices, None, x, out)  # the arcs and x go up whole
        before = moved.h2d_bytes
        x[[1, 5, 9]] += 1.0
        kernels.spmv(indptr, indices, None, x, out)
        assert moved.h2d_bytes - before == 3 * (8 + 8)  # three positions and their values
        np.testing.assert_allclose(out, A @ x, rtol=1e-12)
        before = moved.h2d_bytes
        kernels.spmv(indptr, indices, None, x, out)
        assert moved.h2d_bytes == before  # nothing changed: nothing crosses


def test_auto_picks_numba_where_there_is_no_gpu():
    kernels.set_engine("auto")
    try:
        with kernels.using(kernels.engine()):
            assert kernels.engine() == "numba"  # the simulator is not a GPU
    finally:
        kernels.set_engine("numba")


@pytest.mark.slow
def test_without_a_gpu_or_the_simulator_the_engine_says_what_to_do():
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "0"}
    code = "from dgraph import kernels\nwith kernels.using('cuda'): pass"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode != 0 and "NUMBA_ENABLE_CUDASIM=1" in out.stderr


def test_the_command_line_runs_the_device_engine(client, capsys):
    from dgraph.cli import main

    addr = client.scheduler.address
    assert main(["run", "pagerank", "--dataset", "karate", "--scheduler", addr, "--engine", "cuda", "--verify"]) == 0
    out = capsys.readouterr().out
    assert "device_calls" in out and "resident_bytes" in out
    assert kernels.engine() == "numba"  # the command's engine ends with the command
