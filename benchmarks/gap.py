"""dgraph's kernels beside GAP's, the native ceiling, on the same edge list in one run.

    python benchmarks/gap.py                     # Kronecker 20, the 1000x1000 grid, luxembourg_osm, cal_road
    python benchmarks/gap.py --inputs kron16,grid300 --repeats 2
    python benchmarks/gap.py --workers 1 --threads 2  # every input on one rank, two threads

GAP (the GAP Benchmark Suite, C++/OpenMP) is built from ``../shared/peers/gapbs`` into a scratch
folder (the benchmark says so and stops when the source or ``make`` is missing). Each input is
made simple and undirected (``peers.simple``), given integer weights uniform in 1..255 (seeded;
GAP's weights are int32), written once as ``.el``/``.wel`` and serialized by GAP's converter, so
GAP's runs load it without parsing. dgraph builds its graph from the same arrays, on a
LocalCluster of 2 workers x 1 thread (``--workers``, ``--threads``) with its defaults; GAP runs
with as many OpenMP threads as the cluster has (``OMP_NUM_THREADS``).

Per input, algorithm by algorithm, GAP and then dgraph run on the same roots (BFS, SSSP and
betweenness from each of ``--roots`` fixed vertices with an edge; connected components (GAP:
Afforest), PageRank (20 iterations, tolerance 0) and triangle counting once): GAP's time is its
best "Trial Time" of ``--repeats`` trials; dgraph's kernel time is its best ``kernel`` phase
and its call time its best whole call until the result is a pandas frame, of as many calls. SSSP gives GAP
its best delta among a sweep (``DELTAS``; the best is reported). The table gives both and their
ratios. A second table gives each BFS in Graph 500's traversed edges per second per core: the
input edges (repeats kept, self-loops left out) with both ends in the root's component, over
the time, over the cores (Kronecker 20 here is ``dgraph graph500 --scale 20``'s graph).
Nothing is asserted: this is a measurement.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers  # noqa: E402  (a sibling script: the inputs and their loaders)

GAP_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "peers", "gapbs")
GAP_KERNELS = ("bfs", "sssp", "cc", "pr", "tc", "bc", "converter")
DELTAS = (1, 2, 8, 32, 128, 512)
PR_ITERS = 20
ALGORITHMS = ("bfs", "sssp", "wcc", "pagerank", "triangles", "bc")


def build_gap(workdir):
    """GAP's binaries' folder, or None (with the reason printed) when it cannot be built here."""
    if not os.path.isdir(GAP_SOURCE):
        print(f"GAP: no source at {os.path.normpath(GAP_SOURCE)}; nothing to compare with")
        return None
    if shutil.which("make") is None or shutil.which("g++") is None:
        print("GAP: make or g++ is missing; nothing to compare with")
        return None
    build = os.path.join(workdir, "gapbs")
    shutil.copytree(GAP_SOURCE, build)
    made = subprocess.run(["make", "-C", build, "-j2", *GAP_KERNELS], capture_output=True, text=True)
    if made.returncode != 0:
        print(f"GAP did not build: {made.stderr.strip()[-400:]}")
        return None
    return build


CORES = 2  # dgraph's cluster's cores, and GAP's threads: set from the arguments


def gap_run(build, kernel, graph, *flags):
    """GAP's trial times (seconds) for one invocation, on as many threads as dgraph has cores."""
    env = dict(os.environ, OMP_NUM_THREADS=str(CORES))
    run = subprocess.run(
        [os.path.join(build, kernel), "-f", graph, *map(str, flags)], capture_output=True, text=True, env=env
    )
    if run.returncode != 0:
        raise RuntimeError(f"GAP {kernel} failed: {run.stderr.strip()[-300:]}")
    return [float(t) for t in re.findall(r"Trial Time:\s+([\d.]+)", run.stdout)]


def write_gap_graph(build, workdir, name, src, dst, w):
    """The input as GAP's serialized graphs: (unweighted .sg, weighted .wsg)."""
    el, wel = os.path.join(workdir, f"{name}.el"), os.path.join(workdir, f"{name}.wel")
    np.savetxt(el, np.c_[src, dst], fmt="%d", delimiter=" ")
    np.savetxt(wel, np.c_[src, dst, w], fmt="%d", delimiter=" ")
    sg, wsg = el[:-3] + ".sg", wel[:-4] + ".wsg"
    conv = os.path.join(build, "converter")
    for args in ([conv, "-f", el, "-s", "-b", sg], [conv, "-f", wel, "-s", "-w", "-b", wsg]):
        subprocess.run(args, check=True, capture_output=True, env=dict(os.environ, OMP_NUM_THREADS="2"))
    return sg, wsg


def dgraph_best(call, repeats):
    """(kernel seconds, call seconds): the best kernel phase and the best whole call of ``repeats``
    calls, as GAP reports its best trial."""
    call()  # warm: numba caches, in-blocks
    kernels, calls = [], []
    for _ in range(repeats):
        t = time.perf_counter()
        g = call()
        calls.append(time.perf_counter() - t)
        kernels.append(g.last_stats.phases.get("kernel", calls[-1]))
    return min(kernels), min(calls)


def component_edges(raw_src, raw_dst, src, dst, n, root):
    """Graph 500's edge count of a search from ``root``: input edges (``raw_*``, repeats kept)
    that are not self-loops and join vertices of the root's component (of the simple ``src``,
    ``dst``)."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    _, label = connected_components(sp.coo_matrix((np.ones(src.size), (src, dst)), shape=(n, n)), directed=False)
    return int(np.count_nonzero((raw_src != raw_dst) & (label[raw_src] == label[root])))


def bench_input(client, build, workdir, name, repeats, nroots, rows, teps):
    import pandas as pd

    import dgraph
    from dgraph import algorithms as A

    title, src, dst, _, n = peers.load_input(name, quick=False)
    title = title.replace(" (weighted)", "")  # every input gets the same integer weights here
    raw = (src, dst)  # Graph 500 counts the input's edges, repeats and all
    src, dst, _ = peers.simple(src, dst, np.zeros(src.size))
    w = np.random.default_rng(7).integers(1, 256, src.size)
    sg, wsg = write_gap_graph(build, workdir, name, src, dst, w)
    edges = pd.DataFrame({"src": src, "dst": dst, "w": w.astype(np.float64)})
    g = dgraph.from_edgelist(edges, directed=False, weight="w", vertices=np.arange(n), renumber=False)
    degree = np.bincount(src, minlength=n) + np.bincount(dst, minlength=n)
    roots = np.random.default_rng(11).choice(np.flatnonzero(degree), nroots, replace=False).tolist()
    print(f"{title}: {n:,} vertices, {src.size:,} edges; roots {roots}", flush=True)

    def ours(make):
        def call():
            make().compute()
            return g

        return dgraph_best(call, repeats)

    def add(algo, gap_seconds, kernel_call, note=""):
        kernel, call = kernel_call
        rows.append((title, algo + note, gap_seconds, kernel, call))
        print(f"  {algo}{note}: GAP {gap_seconds:.4f} s, dgraph kernel {kernel:.4f} s, call {call:.4f} s", flush=True)

    for algo in ALGORITHMS:
        if algo in ("bfs", "sssp", "bc"):
            for root in roots:
                if algo == "bfs":
                    gap = min(gap_run(build, "bfs", sg, "-r", root, "-n", repeats))
                    add("bfs", gap, ours(lambda: A.bfs(g, root)), f" from {root}")
                    teps.append((title, root, component_edges(*raw, src, dst, n, root), *rows[-1][2:]))
                elif algo == "sssp":
                    by_delta = {d: min(gap_run(build, "sssp", wsg, "-r", root, "-d", d, "-n", 1)) for d in DELTAS}
                    delta = min(by_delta, key=by_delta.get)
                    gap = min(gap_run(build, "sssp", wsg, "-r", root, "-d", delta, "-n", repeats))
                    add("sssp", gap, ours(lambda: A.sssp(g, root, weight="w")), f" from {root} (GAP delta {delta})")
                else:
                    gap = min(gap_run(build, "bc", sg, "-r", root, "-i", 1, "-n", repeats))
                    hops = dict(sources=[root], normalized=False, weight=None)  # GAP counts hops
                    kernel_call = ours(lambda: A.betweenness_centrality(g, **hops))
                    add("betweenness, one source", gap, kernel_call, f" {root}")
        elif algo == "wcc":
            add(
                "connected components",
                min(gap_run(build, "cc", sg, "-n", repeats)),
                ours(lambda: A.connected_components(g)),
            )
        elif algo == "pagerank":
            gap = min(gap_run(build, "pr", sg, "-i", PR_ITERS, "-t", 0, "-n", repeats))
            pagerank = ours(lambda: A.pagerank(g, max_iter=PR_ITERS, tol=0, weight=None))  # GAP's is unweighted
            add(f"PageRank, {PR_ITERS} iterations", gap, pagerank)
        else:
            add("triangle count", min(gap_run(build, "tc", sg, "-n", repeats)), ours(lambda: A.triangle_count(g)))


def main(argv=None):
    from distributed import Client, LocalCluster

    from dgraph.provenance import header

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inputs", default="kron20,grid1000,luxembourg_osm,cal_road")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--roots", type=int, default=2)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1, help="threads per worker")
    args = ap.parse_args(argv)
    global CORES
    CORES = args.workers * args.threads
    print(header(None if argv is None else [sys.argv[0], *argv]) + "\n", flush=True)
    rows, teps = [], []
    with tempfile.TemporaryDirectory() as workdir:
        build = build_gap(workdir)
        if build is None:
            return 0
        with (
            LocalCluster(
                n_workers=args.workers,
                threads_per_worker=args.threads,
                host="127.0.0.1",
                dashboard_address="127.0.0.1:0",
            ) as cluster,
            Client(cluster) as client,
        ):
            for name in args.inputs.split(","):
                bench_input(client, build, workdir, name, args.repeats, args.roots, rows, teps)
    print("\n| input | kernel | GAP s | dgraph kernel s | kernel / GAP | dgraph call s | call / GAP |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for title, algo, gap, kernel, call in rows:
        print(f"| {title} | {algo} | {gap:.4f} | {kernel:.4f} | {kernel / gap:.2f} | {call:.4f} | {call / gap:.2f} |")
    print(f"\nBFS in Graph 500 TEPS per core (million; {CORES} cores): the root's component's edges / seconds / cores")
    print("\n| input | root | edges | GAP | dgraph kernel | dgraph call |")
    print("|---|---:|---:|---:|---:|---:|")
    for title, root, edges, gap, kernel, call in teps:
        per_core = [f"{edges / t / CORES / 1e6:.0f}" for t in (gap, kernel, call)]
        print(f"| {title} | {root} | {edges:,} | " + " | ".join(per_core) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
