"""The cuda engine on a real GPU: every algorithm with device kernels, run with the cuda engine
and with the numba engine on the same graph, results compared and kernel times side by side.

    python benchmarks/gpu.py [--scale 20] [--ranks 1]

On a machine with CUDA GPUs and the ``gpu`` extra (dask-cuda) it starts one worker per GPU
(``dgraph.cluster.gpu_cluster``) and runs the CPU engine on the same workers, so both engines
read the same blocks. Without a GPU it says so and stops; ``NUMBA_ENABLE_CUDASIM=1 python
benchmarks/gpu.py --scale 8`` checks the script itself in numba's simulator on a LocalCluster
(correctness only: the simulator's times say nothing about a GPU). Printed per algorithm:
whether the results are equal (integers identical, floats within 1e-9 relative), each engine's
kernel seconds (the ``kernel`` phase, best of ``--repeats``), cuda over numba, and the bytes the
cuda run moved each way and kept resident. Nothing is asserted: this is a measurement, and the
first check of the engine on a device.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

CALLS = {
    "bfs": lambda alg, g, s: alg.bfs(g, s, method="levels"),
    "sssp": lambda alg, g, s: alg.sssp(g, s, weight="weight", method="relax"),
    "pagerank": lambda alg, g, s: alg.pagerank(g, max_iter=20, tol=0, weight=None),
    "wcc": lambda alg, g, s: alg.connected_components(g),
    "cdlp": lambda alg, g, s: alg.label_propagation(g, max_iter=10),
    "triangles": lambda alg, g, s: alg.triangle_count(g),
}


def _equal(a, b):
    a, b = a.sort_values("vertex").reset_index(drop=True), b.sort_values("vertex").reset_index(drop=True)
    for col in a.columns:
        x, y = a[col].to_numpy(), b[col].to_numpy()
        if x.dtype.kind == "f":
            if not np.allclose(x, y, rtol=1e-9, atol=0, equal_nan=True):
                return False
        elif not (a[col].isna().equals(b[col].isna()) and (a[col].dropna() == b[col].dropna()).all()):
            return False
    return True


def _timed(kernels, engine, call, g, repeats):
    best, frame, stats = float("inf"), None, None
    for _ in range(repeats):
        kernels.set_engine(engine)
        try:
            frame = call().compute()
        finally:
            kernels.set_engine("numba")
        if g.last_stats.phases.get("kernel", best) < best:
            best, stats = g.last_stats.phases["kernel"], g.last_stats
    return frame, best, stats


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scale", type=int, default=20)
    p.add_argument("--ranks", type=int, default=None, help="ranks (default: one per worker)")
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args(argv)

    from distributed import Client, LocalCluster
    from numba import config, cuda

    import dgraph
    from dgraph import algorithms as alg
    from dgraph import generators, kernels
    from dgraph.provenance import header

    if not cuda.is_available():
        print("no CUDA GPU here; NUMBA_ENABLE_CUDASIM=1 runs this script in numba's simulator (small --scale)")
        return 0
    if config.ENABLE_CUDASIM:
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0")
    else:
        from dgraph.cluster import gpu_cluster

        cluster = gpu_cluster()
    print(header() + "\n")
    with cluster, Client(cluster) as client:
        workers = len(client.scheduler_info()["workers"])
        edges, _ = generators.kronecker(args.scale, seed=1, weights=True)
        g = dgraph.from_edgelist(edges, directed=False, weight="weight", ranks=args.ranks or workers)
        source = int(edges.src.head(1).iloc[0])
        print(
            f"Kronecker scale {args.scale}: {g.num_vertices:,} vertices, {g.num_edges:,} edges, {g.nranks} ranks on "
            f"{workers} workers ({'simulator' if config.ENABLE_CUDASIM else 'GPU'})\n"
        )
        print(
            f"{'algorithm':10s} {'equal':6s} {'numba s':>9s} {'cuda s':>9s} {'cuda/numba':>10s} "
            f"{'h2d MB':>9s} {'d2h MB':>9s} {'resident MB':>11s}"
        )
        for name, call in CALLS.items():
            run = lambda: call(alg, g, source)  # noqa: E731
            host, t_host, _ = _timed(kernels, "numba", run, g, args.repeats)
            dev, t_dev, stats = _timed(kernels, "cuda", run, g, args.repeats)
            info = stats.info
            print(
                f"{name:10s} {str(_equal(host, dev)):6s} {t_host:9.4f} {t_dev:9.4f} {t_dev / t_host:10.2f} "
                f"{info.get('h2d_bytes', 0) / 1e6:9.2f} {info.get('d2h_bytes', 0) / 1e6:9.2f} "
                f"{info.get('resident_bytes', 0) / 1e6:11.2f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
