"""From an edge list in memory to a ready graph: dgraph beside networkit, scipy and GAP.

    python benchmarks/ingest.py [--scale 20] [--repeats 3]

The input is the Graph 500 Kronecker edge list of ``--scale`` (labels 0..n-1, self-loops and
repeats included, as generated), held as a pandas DataFrame by the client, as a notebook user
holds it. dgraph builds the undirected graph with ``dgraph.from_edgelist(df, directed=False)``
on a LocalCluster of 2 workers x 1 thread, until every rank's block is in its worker's memory
(labels found, repeats dropped, CSR blocks built). The peers get the same arrays, each in its
own process, on the same two cores: networkit's ``GraphFromCoo`` (2 threads), scipy's
``csr_matrix`` of the arcs both ways with duplicates summed, and GAP's builder (``bfs -f g.el
-s -n 0``, OpenMP on 2 threads; built from ``../shared/peers/gapbs`` when it is there): its own
"Build Time" (CSR, repeats kept) and its build with the sort and dedup that follows (the
process's wall time minus its "Read Time" of the file). Then the same with a float weight per
edge: dgraph's weighted graph beside scipy's CSR of the weights. Seconds are the best of ``--repeats``;
the ratio is dgraph's time over the peer's. Nothing is asserted: this is a measurement.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

GAP_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "peers", "gapbs")


def _best(call, repeats):
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - t)
    return best


def _networkit(path, n, repeats, out):
    import networkit as nk

    nk.setNumberOfThreads(2)
    arcs = np.load(path)
    src, dst = arcs[0].astype(np.uint64), arcs[1].astype(np.uint64)
    out.put(_best(lambda: nk.GraphFromCoo((src, dst), n=n, directed=False), repeats))


def _scipy(path, n, repeats, out, weighted=False):
    import scipy.sparse as sp

    arcs = np.load(path)
    values = _weights(arcs.shape[1]) if weighted else np.ones(arcs.shape[1], np.int8)

    def build():
        a = sp.csr_matrix((values, (arcs[0], arcs[1])), shape=(n, n))
        (a + a.T).tocsr().sum_duplicates()

    out.put(_best(build, repeats))


def _scipy_weighted(path, n, repeats, out):
    _scipy(path, n, repeats, out, weighted=True)


def _weights(m):
    """The edges' weights, the same in every process: uniform in [0, 1)."""
    return np.random.default_rng(1).random(m)


def _in_child(fn, *args):
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=fn, args=(*args, q))
    p.start()
    seconds = q.get()
    p.join()
    return seconds


def _gap(arcs, n, repeats, workdir):
    """GAP's (Build Time, build with dedup) in seconds, or None without its source or compiler."""
    if not os.path.isdir(GAP_SOURCE) or shutil.which("make") is None:
        return None
    build = os.path.join(workdir, "gapbs")
    shutil.copytree(GAP_SOURCE, build)
    made = subprocess.run(["make", "-C", build, "bfs"], capture_output=True, text=True)
    if made.returncode != 0:
        print(f"GAP did not build: {made.stderr.strip()[-300:]}", file=sys.stderr)
        return None
    el = os.path.join(workdir, "g.el")
    np.savetxt(el, arcs.T, fmt="%d", delimiter=" ")
    env = dict(os.environ, OMP_NUM_THREADS="2")
    builds, totals = [], []
    for _ in range(repeats):
        t = time.perf_counter()
        run = subprocess.run(
            [os.path.join(build, "bfs"), "-f", el, "-s", "-n", "0"], capture_output=True, text=True, env=env
        )
        wall = time.perf_counter() - t
        read = float(re.search(r"Read Time:\s+([\d.]+)", run.stdout).group(1))
        builds.append(float(re.search(r"Build Time:\s+([\d.]+)", run.stdout).group(1)))
        totals.append(wall - read)
    return min(builds), min(totals)


def main(argv=None):
    from distributed import Client, LocalCluster, wait

    import dgraph
    from dgraph.generators import kronecker
    from dgraph.provenance import header

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    print(header(None if argv is None else [sys.argv[0], *argv]) + "\n", flush=True)
    edges, n = kronecker(args.scale)
    df = edges.compute(scheduler="threads")
    arcs = np.vstack([df["src"].to_numpy(), df["dst"].to_numpy()])
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        path = os.path.join(workdir, "arcs.npy")
        np.save(path, arcs)
        with (
            LocalCluster(
                n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address="127.0.0.1:0"
            ) as cluster,
            Client(cluster),
        ):
            graphs = []

            def build(frame, weight):
                g = dgraph.from_edgelist(frame, weight=weight, directed=False)
                wait(g.store.blocks)
                graphs.append(g)

            ours = _best(lambda: build(df, None), args.repeats)
            g = graphs[-1]
            facts = f"{g.num_vertices:,} vertices, {g.num_edges:,} edges ({len(df):,} rows), {g.layout!r}"
            graphs.clear()
            del g
            weighted = df.assign(w=_weights(len(df)))
            ours_weighted = _best(lambda: build(weighted, "w"), args.repeats)
            graphs.clear()
        rows.append(("networkit GraphFromCoo", _in_child(_networkit, path, n, args.repeats)))
        rows.append(("scipy csr_matrix, both ways, summed", _in_child(_scipy, path, n, args.repeats)))
        scipy_weighted = _in_child(_scipy_weighted, path, n, args.repeats)
        gap = _gap(arcs, n, args.repeats, workdir)
        if gap is not None:
            rows.append(("GAP Build Time (repeats kept)", gap[0]))
            rows.append(("GAP build + sort and dedup", gap[1]))
    print(f"Kronecker scale {args.scale}: {facts}; pandas DataFrame -> ready graph, best of {args.repeats}\n")
    print("| builder | seconds | dgraph / builder |")
    print("|---|---:|---:|")
    print(f"| dgraph from_edgelist (2 workers x 1 thread) | {ours:.2f} | 1.00 |")
    for name, seconds in rows:
        print(f"| {name} | {seconds:.2f} | {ours / seconds:.2f} |")
    print("\nWith a float weight per edge (uniform in [0, 1); repeats keep the lightest in dgraph, scipy sums them)\n")
    print("| builder | seconds | dgraph / builder |")
    print("|---|---:|---:|")
    print(f"| dgraph from_edgelist(weight=...) | {ours_weighted:.2f} | 1.00 |")
    ratio = ours_weighted / scipy_weighted
    print(f"| scipy csr_matrix of the weights, both ways, summed | {scipy_weighted:.2f} | {ratio:.2f} |")
    if gap is None:
        print("\nGAP: not measured (no ../shared/peers/gapbs or no make here)")


if __name__ == "__main__":
    main()
