"""Compile dgraph's numba kernels once, before the test processes and their workers start.

On a fresh install numba's cache is empty, so every worker process of every test process (and of
every notebook) compiles the same kernels at the same moment on the same two cores. Compiled
once here, in one process, they are written to numba's cache and every later process loads them.
"""

import glob
import os

import numpy as np
import pandas as pd


def cache_is_cold():
    import dgraph.kernels

    return not glob.glob(os.path.join(os.path.dirname(dgraph.kernels.__file__), "__pycache__", "*.nbi"))


def compile_in_parallel():
    """``compile_kernels`` with its two halves in two processes (numba compiles on one core)."""
    import subprocess
    import sys

    import dgraph

    here = os.path.dirname(os.path.abspath(__file__))
    # the dgraph this process compiles for, not whichever one the second process's path finds first
    # (an editable install of another checkout)
    top = os.path.dirname(os.path.dirname(os.path.abspath(dgraph.__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [top, os.environ.get("PYTHONPATH")])))
    other = subprocess.Popen(
        [sys.executable, "-c", "import warm; warm.compile_kernels(1)"],
        cwd=here,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    compile_kernels(0)
    _, err = other.communicate()
    if other.returncode:
        raise RuntimeError(f"compiling the kernels failed in a second process:\n{err[-4000:]}")


def compile_kernels(half=None):
    """Every algorithm once on small graphs that take each kernel's paths (directed and not,
    weighted, hubs above the triangle orientation threshold and a grid below it, a 1.5D layout's
    subgraphs), on an in-process cluster: the compiling happens here. ``half``: 0 runs every
    algorithm on each graph, 1 the parallel variants and pointer jumping (None: both)."""
    from distributed import Client, LocalCluster
    from graphs import er_edges, grid_edges, kron_edges

    import dgraph
    from dgraph import algorithms as alg
    from dgraph.kernels import counting, linalg, paths, unionfind
    from dgraph.partitioners import OnePointFiveD

    kron = kron_edges(9, seed=1).query("src != dst")
    grid = grid_edges(30, 30).assign(w=lambda e: (e.src * 7 + e.dst * 3) % 5 + 1.0)
    directed = er_edges(300, 1200, seed=2)
    tree = {"src": np.arange(1, 64), "dst": np.arange(1, 64) // 2}
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address="127.0.0.1:0") as cluster,
        Client(cluster, set_as_default=True),
    ):
        cases = [
            (kron, False, None, "1d"),
            (grid, False, "w", "1d"),
            (directed, True, None, "1d"),
            (kron, False, None, OnePointFiveD(rows=2, cols=2, e_threshold=20, h_threshold=6)),
        ]
        for edges, is_directed, weight, layout in cases if half in (None, 0) else ():
            g = dgraph.from_edgelist(edges, directed=is_directed, weight=weight, layout=layout)
            source = int(edges.src.iloc[0])
            runs = [
                alg.bfs(g, source),
                alg.sssp(g, source, weight=weight),
                alg.pagerank(g),
                alg.connected_components(g, connection="weak"),
                alg.label_propagation(g),
                alg.local_clustering_coefficient(g),
                alg.betweenness_centrality(g, k=4, seed=1, method="levels", weight=None),
                alg.betweenness_centrality(g, k=4, seed=1, method="replicated"),
            ]
            runs.append(alg.random_walks(g, [source] * 8, 4, p=0.5, q=2.0, seed=1))
            runs.append(alg.sample_neighbors(g, [source], [3, 2], seed=1))
            if weight:  # the grid's own choice is local relaxation
                runs.append(alg.sssp(g, source, weight=weight, method="delta-stepping"))
            if is_directed:
                runs.append(alg.strongly_connected_components(g))
            else:
                runs += [alg.triangle_count(g), alg.core_number(g), alg.max_weight_matching(g, weight=weight)]
                runs.append(alg.louvain(g, weight=weight))
            for frame in runs:
                frame.compute()
        if half == 0:
            return
        alg.pointer_jumping(dgraph.from_edgelist(pd.DataFrame(tree))).compute()
        # edge attributes: their slots in the fill, their rows' order (kernels.fill_slots, row_order)
        dgraph.from_edgelist(directed.assign(t=1.0), edge_attrs=["t"]).edges().compute()
        # the parallel variants the counting kernels, the SpMV, Afforest and the rank-local SSSP
        # take on a one-rank graph with both workers' threads (in-process workers: lowering the
        # grains in the modules that read them reaches them)
        grains = (
            (linalg, "SPMV_GRAIN"),
            (counting, "COUNT_GRAIN"),
            (counting, "TRIANGLE_GRAIN"),
            (unionfind, "FOREST_GRAIN"),
            (paths, "DELTA_GRAIN"),
        )
        before = {(m, name): getattr(m, name) for m, name in grains}
        for m, name in grains:
            setattr(m, name, 1)
        try:
            for edges, is_directed, weight, _ in cases[:3]:
                g = dgraph.from_edgelist(edges, directed=is_directed, weight=weight)
                source = int(edges.src.iloc[0])
                for frame in (
                    alg.label_propagation(g),
                    alg.local_clustering_coefficient(g),
                    alg.pagerank(g, weight=weight),
                    alg.connected_components(g, connection="weak"),
                    alg.sssp(g, source, weight=weight),
                    *([] if is_directed else [alg.triangle_count(g)]),
                ):
                    frame.compute()
        finally:
            for (m, name), value in before.items():
                setattr(m, name, value)
