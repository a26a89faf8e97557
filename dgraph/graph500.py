"""The Graph 500 benchmark: Kronecker generation, kernel 1 (construction), BFS and SSSP kernels
from sampled roots, each result validated, and the statistics in the specification's format.

Written from the Graph 500 specification (v3): the Kronecker generator with A, B, C = 0.57,
0.19, 0.19, edge factor 16, scrambled labels and shuffled edges (``dgraph.generators``); 64
search roots drawn uniformly from the vertices with an edge that is not a self-loop; SSSP
weights uniform in [0, 1). TEPS of one search = input edges (self-loops left out) with both
ends in the searched component / the search's time; the summary gives min, quartiles, max,
mean and standard deviation of times, edge counts and TEPS, and the harmonic mean of TEPS with
its standard deviation (the specification's formula: from seconds per edge).

Validation, per search (``validate``): the root is its own tree's root; every reached vertex's
parent is reached, one level closer (SSSP: not farther, and at exactly the edge's weight
closer), and joined to it by an input edge; following parents from any reached vertex ends at
the root (no cycles); every input edge joins two reached or two unreached vertices (the tree
spans the component) whose levels differ by at most one (SSSP: no edge can shorten a distance).
The edge rules run on the workers, partition by partition of the edge list regenerated from
its seed (the list is never held whole): one pass checks as many searches as
``VALIDATE_BYTES`` of them hold.

>>> report = run(8, roots=4, kernels=("bfs",))  # doctest: +SKIP
"""

from __future__ import annotations

import resource
import time

import dask
import numpy as np

from . import kernels
from .algorithms.verify import search_tree
from .block import index_type
from .errors import DgraphInputError

KERNELS = ("bfs", "sssp")
TOLERANCE = 1e-9  # SSSP distances are sums of float64 weights in [0, 1)
VALIDATE_BYTES = 1 << 30  # searches checked per pass over the edge list: this many bytes of them (``_search_bytes``)
PARTITION_EDGES = 1 << 21  # edges per partition: construction holds a few partitions at a time per worker


# ------------------------------------------------------------------------------- validation
def _edge_rules(tally, part, held, n, weighted):
    """``tally`` (None to start one) with the edge rules over one more partition of the input
    edge list, for the searches ``held`` (``_held``): per search, broken rule counts and edges
    traversed, and the vertices whose tree edge some partition so far holds."""
    u, v = part["src"].to_numpy(), part["dst"].to_numpy()
    w = part["weight"].to_numpy(np.float64) if weighted else None
    if tally is None:
        tally = (np.zeros((held.shape[1], 3), np.int64), np.zeros((held.shape[1], n), dtype=bool))
    counts, found = tally
    counts += kernels.search_tree_rules_many(u, v, w, held, found, tolerance=TOLERANCE)
    return tally


def _held_type(n, weighted):
    """How validation holds a search's values: levels and parents as int32 while n allows,
    distances and parents as float64 (parents exact below 2**53)."""
    return np.float64 if weighted else index_type(n)


def _held(searches, weighted):
    """Searches ``(root, reach, parent)`` as the workers hold them: one (n, searches, 2) array,
    so a vertex's values in every search share a cache line (the rules read them at random,
    once per edge end, for all the searches at once)."""
    n = searches[0][1].size
    held = np.empty((n, len(searches), 2), _held_type(n, weighted))
    for j, (_, reach, parent) in enumerate(searches):
        held[:, j, 0], held[:, j, 1] = reach, parent
    return held


def _merge_tallies(a, b):
    a[0][...] += b[0]
    a[1][...] |= b[1]
    return a


def validate_many(searches, edge_parts, client, weighted=False, held=None):
    """``validate`` for several searches ``(root, reach, parent)`` in one pass over the edge
    list: ``edge_parts`` are its partitions, futures or dask Delayed (a list regenerated from
    its seed, partition by partition, is never held whole). Each worker's partitions add to
    one running tally, so the cluster holds a tally per worker, not per partition. ``held``:
    the searches already as ``_held`` makes them (their arrays views into it). Returns
    ``[(errors, traversed)]``."""
    from .build import fold
    from .cluster import workers

    if not searches:
        return []
    held = _held(searches, weighted) if held is None else held
    n = held.shape[0]
    # hash=False: two runs may scatter equal arrays, and one must not release the other's
    shared = client.scatter(held, broadcast=True, hash=False)
    tally = fold(edge_parts, _edge_rules, _merge_tallies, len(workers(client)), shared, n, weighted)
    counts, found = client.compute(tally).result()
    out = []
    for j, (root, reach, parent) in enumerate(searches):
        rules = lambda *_, c=counts[j], f=found[j]: (*c.tolist(), f)  # noqa: E731
        out.append(search_tree(root, reach, np.asarray(parent, np.int64), rules, weighted, tolerance=TOLERANCE))
    return out


def validate(root, reach, parent, edge_parts, client, weighted=False):
    """Check one search against the specification's rules (``dgraph.algorithms.verify``'s search
    tree rules, the edge rules run where the edge list lives); returns ``(errors, edges
    traversed)``, an empty list when valid. ``reach``: levels (-1 unreached) or distances (inf
    unreached), ``parent``: -1 where unreached, both indexed by vertex; ``edge_parts``: the
    input edge list's partitions (futures, or Delayed that regenerate them)."""
    return validate_many([(root, reach, parent)], edge_parts, client, weighted)[0]


# -------------------------------------------------------------------------------- statistics
def statistics(values):
    """min, quartiles, max, mean, stddev (sample) of an array."""
    v = np.asarray(values, dtype=np.float64)
    q = np.quantile(v, [0, 0.25, 0.5, 0.75, 1])
    return {
        "min": q[0],
        "firstquartile": q[1],
        "median": q[2],
        "thirdquartile": q[3],
        "max": q[4],
        "mean": v.mean(),
        "stddev": v.std(ddof=1) if v.size > 1 else 0.0,
    }


def teps_statistics(times, nedges):
    """TEPS quartiles and the harmonic mean with its standard deviation, computed from seconds
    per edge as the specification does."""
    spe = np.asarray(times, dtype=np.float64) / np.asarray(nedges, dtype=np.float64)
    s = statistics(spe)
    out = {
        "min": 1 / s["max"],
        "firstquartile": 1 / s["thirdquartile"],
        "median": 1 / s["median"],
        "thirdquartile": 1 / s["firstquartile"],
        "max": 1 / s["min"],
        "harmonic_mean": 1 / s["mean"],
    }
    out["harmonic_stddev"] = s["stddev"] / (s["mean"] ** 2 * np.sqrt(max(spe.size - 1, 1)))
    return out


# ---------------------------------------------------------------------------------- the run
def _peak_rss(client):
    """Peak resident memory so far (bytes), summed over the workers, and the client's."""
    workers = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
    return int(sum(workers.values())), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _roots(graph, count, seed):
    deg = graph.degrees().compute()
    col = "degree" if "degree" in deg else "out_degree"
    candidates = np.sort(deg.loc[deg[col] > 0, "vertex"].to_numpy(np.int64))
    if candidates.size == 0:
        raise DgraphInputError("the graph has no vertex with an edge: nothing to search from")
    rng = np.random.default_rng([seed, 500])
    return rng.choice(candidates, size=min(count, candidates.size), replace=False)


def _search_bytes(n, weighted):
    """Bytes per vertex of one search as validation holds it (``_held``)."""
    return 2 * np.dtype(_held_type(n, weighted)).itemsize


def _arrays(frame, n, value, weighted, out=None):
    """(reach, parent) indexed by vertex, from a search's result frame (a dask DataFrame, read a
    partition at a time): levels (-1 unreached) or distances (inf), parents (-1), typed as
    validation holds them; written into ``out`` (an (n, 2) array, one search of ``_held``'s)
    when given."""
    out = np.empty((n, 2), _held_type(n, weighted)) if out is None else out
    reach, parent = out[:, 0], out[:, 1]
    reach[:], parent[:] = (np.inf if weighted else -1), -1
    for part in frame.to_delayed():
        part = part.compute()
        vertex = part["vertex"].to_numpy(np.int64)
        reach[vertex] = part[value].to_numpy(dtype=reach.dtype, na_value=np.inf if weighted else -1)
        parent[vertex] = part["predecessor"].to_numpy(dtype=parent.dtype, na_value=-1)
    return reach, parent


def run(
    scale,
    edge_factor=16,
    roots=64,
    kernels=KERNELS,
    layout="1d",
    ranks=None,
    transport="direct",
    domains=None,
    seed=1,
    client=None,
    say=None,
    vertex_order="degree",
):
    """Run the benchmark; returns a dict of everything the report prints (see ``report``).
    ``say(message)`` hears about progress. ``vertex_order``: ``from_edgelist``'s; by degree
    (hubs first, in construction) the searches are faster, and the parents are still reported
    and validated in the generator's labels."""
    from . import algorithms as alg
    from .build import from_edgelist
    from .cluster import get_client, workers

    kernels = tuple(kernels)
    unknown = set(kernels) - set(KERNELS)
    if unknown:
        raise DgraphInputError(f"unknown kernels {sorted(unknown)}; choose from {KERNELS}")
    say = say or (lambda msg: None)
    client = client or get_client()
    out = {"scale": scale, "edgefactor": edge_factor, "workers": len(workers(client)), "memory": {}, "failures": []}
    t = time.perf_counter()
    weighted = "sssp" in kernels
    edges, n = _edge_list(scale, edge_factor, seed, weighted)
    # generated once to time it, then again by each pass of construction: the list is never held
    client.gather(client.compute([dask.delayed(len)(p) for p in edges.to_delayed()]))
    out["graph_generation"] = time.perf_counter() - t
    out["memory"]["generation"] = _peak_rss(client)
    say(f"generated {edge_factor << scale:,} edges in {out['graph_generation']:.2f} s")

    t = time.perf_counter()
    g = from_edgelist(
        edges,
        directed=False,
        weight="weight" if weighted else None,
        vertices=np.arange(n),
        renumber=False,
        vertex_order=vertex_order,
        self_loops="drop",
        layout=layout,
        ranks=ranks,
        transport=transport,
        domains=domains,
        client=client,
    )
    g._reverse_blocks()
    out["construction_time"] = time.perf_counter() - t
    del edges  # validation regenerates the list, a partition at a time
    out["memory"]["construction"] = _peak_rss(client)
    resident = sum(client.gather([client.submit(_resident, b, pure=False) for b in g._blocks]))
    out["bytes_per_directed_edge"] = resident / max(g.num_arcs, 1)
    out["ranks"], out["layout"], out["vertex_order"] = g.nranks, repr(g.layout), vertex_order
    say(
        f"kernel 1 (construction): {out['construction_time']:.2f} s, {g.num_arcs:,} directed edges, "
        f"{out['bytes_per_directed_edge']:.1f} bytes each"
    )

    keys = _roots(g, roots, seed)
    out["nroots"] = int(keys.size)
    for kernel in kernels:
        distances = kernel == "sssp"
        per_pass = max(1, VALIDATE_BYTES // (_search_bytes(n, distances) * n))  # searches per regeneration
        times, nedges, kernel_times, validate_times, batch, held = [], [], [], [], [], None
        for i, root in enumerate(keys.tolist()):
            if held is None:  # the pass's searches side by side, filled as they finish
                held = np.empty((n, min(per_pass, keys.size - i), 2), _held_type(n, distances))
            t = time.perf_counter()
            frame = alg.bfs(g, root) if kernel == "bfs" else alg.sssp(g, root, weight="weight")
            times.append(time.perf_counter() - t)
            kernel_times.append(g.last_stats.phases.get("kernel", times[-1]))
            batch.append((int(root), *_arrays(frame, n, "distance", distances, out=held[:, len(batch)])))
            del frame  # its partitions leave the workers before the next search
            if len(batch) < held.shape[1]:
                continue
            t = time.perf_counter()
            regenerated = _edge_list(scale, edge_factor, seed, weighted)[0].to_delayed()
            checked = validate_many(batch, regenerated, client, weighted=distances, held=held)
            validate_times += [(time.perf_counter() - t) / len(batch)] * len(batch)
            for j, ((root, _, _), (errors, traversed)) in enumerate(zip(batch, checked)):
                done = i + 1 - len(batch) + j
                nedges.append(traversed)
                out["failures"] += [f"{kernel} from root {root}: {e}" for e in errors]
                say(
                    f"{kernel} {done + 1}/{keys.size} from {root}: {times[done]:.3f} s, {traversed:,} edges, "
                    + ("valid" if not errors else f"INVALID: {errors[0]}")
                )
            batch, held = [], None
        out[kernel] = {
            "time": statistics(times),
            "nedge": statistics(nedges),
            "TEPS": teps_statistics(times, nedges),
            "kernel_TEPS": teps_statistics(kernel_times, nedges),
            "validate": statistics(validate_times),
        }
        out["memory"][kernel] = _peak_rss(client)
    return out


def _edge_list(scale, edge_factor, seed, weighted):
    """The Kronecker edge list (a dask DataFrame, nothing computed) and n; ids as int32 when
    they fit: 8 bytes an edge less wherever it is held."""
    from .generators import kronecker

    m = edge_factor << scale
    edges, n = kronecker(scale, edge_factor, seed, npartitions=max(1, m // PARTITION_EDGES), weights=weighted)
    if index_type(n) is np.int32:
        edges = edges.astype({"src": np.int32, "dst": np.int32})
    return edges, n


def _resident(block):
    return sum(
        p.indptr.nbytes + p.indices.nbytes + (p.weights.nbytes if p.weights is not None else 0) for p in block.parts
    )


def report(out):
    """The run in the specification's output format (plus dgraph's memory lines)."""
    lines = [
        f"SCALE: {out['scale']}",
        f"edgefactor: {out['edgefactor']}",
        f"NBFS: {out['nroots']}",
        f"graph_generation: {out['graph_generation']:.6g}",
        f"num_workers: {out['workers']}",
        f"num_ranks: {out['ranks']}",
        f"layout: {out['layout']}",
        f"vertex_order: {out['vertex_order']}",
        f"construction_time: {out['construction_time']:.6g}",
        f"bytes_per_directed_edge: {out['bytes_per_directed_edge']:.4g}",
    ]
    for kernel in KERNELS:
        if kernel not in out:
            continue
        k = out[kernel]
        pre = f"{kernel:<4} "
        lines += [f"{pre}{stat}_time: {v:.6g}" for stat, v in k["time"].items()]
        lines += [f"{pre}{stat}_nedge: {v:.6g}" for stat, v in k["nedge"].items()]
        lines += [f"{pre}{stat}_TEPS: {v:.6g}" for stat, v in k["TEPS"].items()]
        lines += [f"{pre}{stat}_validate: {v:.6g}" for stat, v in k["validate"].items()]
        lines.append(f"{pre}harmonic_mean_TEPS_kernel_only: {k['kernel_TEPS']['harmonic_mean']:.6g}")
    for phase, (workers, client) in out["memory"].items():
        lines.append(f"peak_rss_after_{phase}: workers {workers / 2**30:.2f} GiB, client {client / 2**30:.2f} GiB")
    lines.append(f"validation: {'PASSED' if not out['failures'] else 'FAILED'}")
    lines += [f"  {f}" for f in out["failures"][:20]]
    return "\n".join(lines)
