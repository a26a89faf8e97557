"""Weak-scaling memory: what each worker holds for a graph, and how much more an algorithm needs.

    python benchmarks/memory.py              # a 3000 x 3000 grid and Kronecker scale 22, 8 workers
    python benchmarks/memory.py --quick      # a 1000 x 1000 grid and Kronecker scale 18

Each graph is built on a LocalCluster of 8 single-thread workers, laid out on 8 ranks in 1D and
on a 2 x 4 mesh in 2D, one rank per worker. For every worker the table gives its share (owned
vertices, arcs, the bytes of its rank's block: CSR, weights and vertex space) and its resident
memory after construction; then, for BFS and SSSP (from a vertex of largest degree), WCC,
PageRank (20 iterations), CDLP (10 rounds) and triangles, the growth of its peak resident memory
during a call (its result persisted: each worker keeps its part) over its resident memory just
before, beside the vertex-state bytes the run counted (``RunStats.worker_vertex_state``). Before
every measurement each worker returns its freed heap memory (malloc_trim), so memory reused from
the heap is not hidden, and resets its peak (writing 5 to /proc/self/clear_refs). Each algorithm
is called once before it is measured, so compiling kernels and blocks built once per graph (the
owner blocks WCC, CDLP and triangles read on 2D) are not counted. Rows show the worker that grew
most; "growth / target" compares it with the design target, 2 x the worker's block bytes + 64 MiB.
Nothing is asserted: this is a measurement.
"""

from __future__ import annotations

import argparse
import ctypes
import sys
import time

MiB = 2**20
ALGORITHMS = ("bfs", "sssp", "wcc", "pagerank", "cdlp", "triangles")


def _reset_peak():
    """Return freed heap memory to the system, then start the peak over from what remains."""
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def _memory():
    """(current, peak) resident bytes of this process."""
    fields = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                fields[key] = int(value.split()[0]) * 1024
    return fields["VmRSS"], fields["VmHWM"]


def _block_facts(block):
    """(owned vertices, arcs, bytes) of one rank's block."""
    parts = block.parts
    arrays = [a for p in parts for a in (p.indptr, p.indices, p.weights) if a is not None]
    nbytes = sum(a.nbytes for a in arrays) + block.space.nbytes
    nbytes += 0 if block.space_key is None else block.space_key.nbytes
    degree = block.owned_degree if block.owned_degree is not None else parts[0].degree()
    return int(degree.size), int(block.narcs), int(nbytes)


def _calls(g, alg, source):
    return {
        "bfs": lambda: alg.bfs(g, source),
        "sssp": lambda: alg.sssp(g, source),
        "wcc": lambda: alg.connected_components(g),
        "pagerank": lambda: alg.pagerank(g, max_iter=20, tol=0),
        "cdlp": lambda: alg.label_propagation(g, max_iter=10),
        "triangles": lambda: alg.triangle_count(g),
    }


def main(argv=None):
    from distributed import Client, LocalCluster, wait

    import dgraph
    from dgraph import algorithms as alg
    from dgraph.generators import grid_2d, kronecker
    from dgraph.partitioners import OneD, TwoD
    from dgraph.provenance import header

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--algorithms", default=",".join(ALGORITHMS))
    args = ap.parse_args(argv)
    print(header(None if argv is None else [sys.argv[0], *argv]) + "\n", flush=True)
    side, scale = (1000, 18) if args.quick else (3000, 22)
    inputs = [(f"grid {side} x {side}", lambda: grid_2d(side, side)), (f"Kronecker {scale}", lambda: kronecker(scale))]
    layouts = [("1d, 8 ranks", lambda: OneD(ranks=8)), ("2d, 2 x 4", lambda: TwoD(rows=2, cols=4))]
    with (
        # no memory limit: a worker growing past an eighth of the machine is measured, not restarted
        LocalCluster(
            n_workers=8, threads_per_worker=1, memory_limit=0, host="127.0.0.1", dashboard_address="127.0.0.1:0"
        ) as cluster,
        Client(cluster) as client,
    ):
        print(
            "| graph | layout | call | worker | owned vertices | arcs | block MiB | RSS after build MiB "
            "| growth MiB | vertex state MiB | growth / target | B per owned vertex | B per arc |"
        )
        print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for gname, make in inputs:
            for lname, layout in layouts:
                edges, n = make()
                t = time.perf_counter()
                g = dgraph.from_edgelist(edges, directed=False, vertices=None, renumber=False, layout=layout())
                wait(g.store.blocks)
                built = time.perf_counter() - t
                holder = client.who_has(g.store.blocks)
                where = [holder[b.key][0] for b in g.store.blocks]
                facts = dict(
                    zip(where, client.gather([client.submit(_block_facts, b, pure=False) for b in g.store.blocks]))
                )
                client.run(_reset_peak)
                after = {w: rss for w, (rss, _) in client.run(_memory).items()}
                degrees = g.degrees().compute()
                source = int(degrees.sort_values("degree").vertex.iloc[-1])  # in the giant component
                for name in args.algorithms.split(","):
                    call = _calls(g, alg, source)[name]
                    wait(call().persist())  # compiles its kernels, builds what the graph keeps for it
                    client.run(_reset_peak)
                    before = {w: rss for w, (rss, _) in client.run(_memory).items()}
                    t = time.perf_counter()
                    result = call().persist()  # each worker keeps its part (compute would gather all on one)
                    wait(result)
                    seconds = time.perf_counter() - t
                    peaks = {w: peak for w, (_, peak) in client.run(_memory).items()}
                    held = g.last_stats.worker_vertex_state
                    del result
                    grow = {w: peaks[w] - before[w] for w in facts}
                    w = max(grow, key=grow.get)
                    owned, arcs, nbytes = facts[w]
                    target = 2 * nbytes + 64 * MiB
                    state = held.get(w, 0)
                    print(
                        f"| {gname} | {lname} | {name} ({seconds:.1f} s) | {where.index(w)} | {owned:,} | {arcs:,} "
                        f"| {nbytes / MiB:.0f} | {after[w] / MiB:.0f} | {grow[w] / MiB:.0f} | {state / MiB:.0f} "
                        f"| {grow[w] / target:.2f} | {grow[w] / max(owned, 1):.1f} | {grow[w] / max(arcs, 1):.2f} |",
                        flush=True,
                    )
                print(f"| {gname} | {lname} | (built in {built:.0f} s) | | | | | | | | | | |", flush=True)
                del g
                client.run(_reset_peak)


if __name__ == "__main__":
    main()
