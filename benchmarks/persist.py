"""Loading a saved graph against building it from pandas, side by side in one run.

    python benchmarks/persist.py [--scales 17,20] [--repeats 2]

For each Kronecker scale the Graph 500 edge list (labels 0..n-1, self-loops and repeats included,
as generated) is held as a pandas DataFrame by the client, as a notebook user holds it, on a
LocalCluster of 2 workers x 1 thread. "build" is ``dgraph.from_edgelist(df, directed=False)``
until every rank's block is in its worker's memory (labels found, repeats dropped, CSR blocks
built); "save" is ``g.save(path)`` to a fresh directory on local disk; "load" is
``dgraph.load(path)`` until every block is in its worker's memory (each worker reads and checks
its ranks' files; the files are in the page cache, as right after a save or on a second load).
Seconds are the best of ``--repeats``; the ratio is load over build. Nothing is asserted: this
is a measurement.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time


def _best(call, repeats):
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - t)
    return best


def _bytes(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(path) for f in files)


def _measure(scale, path, repeats, ranks):
    """(facts, build, save and load seconds, bytes on disk, whether the loaded graph's counts
    are the built one's) of one Kronecker scale."""
    from distributed import wait

    import dgraph
    from dgraph.generators import kronecker

    df = kronecker(scale)[0].compute(scheduler="threads")
    kept = []

    def build():
        kept.clear()  # the previous graph's blocks leave the workers first
        g = dgraph.from_edgelist(df, directed=False, ranks=ranks)
        wait(g.store.blocks)
        kept.append(g)

    def save():
        shutil.rmtree(path, ignore_errors=True)
        kept[0].save(path)

    def load():
        kept[1:] = []
        h = dgraph.load(path)
        wait(h.store.blocks)
        kept.append(h)

    built = _best(build, repeats)
    g = kept[0]
    facts = f"{g.num_vertices:,} vertices, {g.num_edges:,} edges ({len(df):,} rows), {g.layout!r}"
    saved = _best(save, repeats)
    loaded = _best(load, repeats)
    same = (kept[-1].num_vertices, kept[-1].num_edges) == (g.num_vertices, g.num_edges)
    return facts, built, saved, loaded, _bytes(path), same


def main(argv=None):
    from distributed import Client, LocalCluster

    from dgraph.provenance import header

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scales", default="17,20", help="comma-separated Kronecker scales")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--ranks", type=int, help="logical ranks (default: from_edgelist's)")
    args = ap.parse_args(argv)
    print(header(None if argv is None else [sys.argv[0], *argv]) + "\n", flush=True)
    rows = []
    workdir = tempfile.mkdtemp(prefix="dgraph-persist-")
    local = dict(n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address="127.0.0.1:0")
    try:
        with LocalCluster(**local) as cluster, Client(cluster):
            for scale in map(int, args.scales.split(",")):
                path = os.path.join(workdir, f"kron{scale}")
                rows.append((scale, *_measure(scale, path, args.repeats, args.ranks)))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"pandas DataFrame -> ready graph (build), saved directory -> ready graph (load), best of {args.repeats}\n")
    print("| graph | build s | save s | load s | load / build | on disk |")
    print("|---|---:|---:|---:|---:|---:|")
    for scale, facts, built, saved, loaded, nbytes, same in rows:
        check = "" if same else " (loaded graph's counts differ!)"
        print(
            f"| Kronecker {scale}: {facts} | {built:.2f} | {saved:.2f} | {loaded:.3f} | {loaded / built:.3f}{check} "
            f"| {nbytes / 2**20:,.0f} MiB |"
        )


if __name__ == "__main__":
    main()
