"""The ``dgraph`` command: run an algorithm on a file, an embedded dataset or a Kronecker graph.

dgraph run pagerank                       # embedded ca-GrQc on a local cluster
dgraph run bfs --dataset karate --source 1
dgraph run wcc --kronecker 16 --workers 2 --ranks 8 --output cc.parquet
dgraph run louvain --dataset email-Eu-core --undirected --output parts.csv
dgraph run pagerank --dataset rome99 --verify      # a weighted dataset: its weights, --no-weight ignores them
dgraph run sssp --input roads.tsv --weight --source 17
dgraph run sssp --input roads.csv --weight minutes --source 17   # a header's column by name
dgraph run bfs --input edges.tsv --directed --scheduler tcp://host:8786
dgraph run wcc --kronecker 20 --save kron20/       # then: dgraph run pagerank --load kron20/
dgraph partition --kronecker 16 --layout 2d --ranks 64 --measure
dgraph graphalytics --graph ldbc/example-directed --algorithm CDLP --output out.txt
dgraph orchestrate-bench --ranks 2,4,8,16 --tasks-per-rank 100000 --zipf 1.5,2.0,2.5
dgraph graph500 --scale 20 --roots 64 --kernels bfs,sssp
"""

from __future__ import annotations

import argparse
import glob
import math
import os
import sys
import time
from contextlib import contextmanager

from dgraph.algorithms import registry
from dgraph.progress import compiling_note
from dgraph.runtime.driver import TRANSPORTS


def _graph_options(cmd):
    """The options that say which graph to load, where, and how to place it."""
    src = cmd.add_mutually_exclusive_group()
    src.add_argument(
        "--input", metavar="PATH", help="edge list file or glob (csv, tsv, SNAP txt, mtx, gml, parquet, .gz)"
    )
    src.add_argument("--dataset", metavar="NAME", help="embedded dataset (karate, ca-GrQc); the default is ca-GrQc")
    src.add_argument("--kronecker", metavar="SCALE", type=int, help="Graph 500 Kronecker graph of 2**SCALE vertices")
    src.add_argument(
        "--load", metavar="PATH", help="a graph saved with --save (or Graph.save): read onto the workers, not built"
    )
    way = cmd.add_mutually_exclusive_group()
    way.add_argument(
        "--directed",
        action="store_true",
        help="treat the graph as directed (default: the file's or dataset's own; Kronecker graphs are undirected)",
    )
    way.add_argument("--undirected", action="store_true", help="treat the graph as undirected (both arcs of each edge)")
    head = cmd.add_mutually_exclusive_group()
    head.add_argument("--header", action="store_true", default=None, help="--input's first line names its columns")
    head.add_argument(
        "--no-header", dest="header", action="store_false", help="--input has no header (default: detected)"
    )
    weigh = cmd.add_mutually_exclusive_group()
    weigh.add_argument(
        "--weight",
        nargs="?",
        const=True,
        default=False,
        metavar="NAME",
        help="weigh the arcs in every weighted algorithm and in --verify: by --input's third column (by its "
        "column NAME, with a header), or by a weighted dataset's weights (rome99, cal_road: used without --weight too)",
    )
    weigh.add_argument("--no-weight", action="store_true", help="unit weights, even on a weighted dataset")
    cmd.add_argument(
        "--ranks", type=int, help="logical ranks (default: one per worker; one for graphs under 2**25 arcs)"
    )
    cmd.add_argument(
        "--layout",
        help="layout name: 1d (default), 2d, 1.5d or tdorch (2d and 1.5d: a near-square mesh of --ranks); "
        "with --load, the saved graph's (another is refused)",
    )
    cmd.add_argument(
        "--transport",
        default="direct",
        choices=TRANSPORTS,
        help="grouped: aggregate messages between communication domains through their monitors; "
        "pipelined: overlap a superstep's sends with its receives, block by block",
    )
    cmd.add_argument(
        "--domains", help="communication domains: host (default), job (dask-jobqueue jobs) or K contiguous rank groups"
    )
    cmd.add_argument(
        "--save", metavar="PATH", help="save the graph to the directory PATH, which every worker sees (--load reads it)"
    )
    cmd.add_argument("--overwrite", action="store_true", help="let --save replace a graph saved at PATH before")
    _cluster_options(cmd)


def _cluster_options(cmd):
    """Where to run: a local cluster of --workers, or a running scheduler."""
    cmd.add_argument("--workers", type=int, default=2, help="local workers to start (ignored with --scheduler)")
    engines = ("numba", "numpy", "cuda", "auto")
    cmd.add_argument("--engine", choices=engines, help="kernel engine on the workers (default numba; cuda with --gpu)")
    where = cmd.add_mutually_exclusive_group()
    where.add_argument("--gpu", action="store_true", help="one worker per GPU (dask-cuda), running the cuda engine")
    where.add_argument("--scheduler", metavar="ADDR", help="connect to a running dask scheduler")
    where.add_argument("--scheduler-file", metavar="PATH", help="connect to the scheduler that wrote this file")
    tls = cmd.add_argument_group("TLS (a cluster started with dask's Security)")
    tls.add_argument("--tls-ca-file", metavar="PATH", help="the cluster's CA certificate")
    tls.add_argument("--tls-cert", metavar="PATH", help="this client's certificate")
    tls.add_argument("--tls-key", metavar="PATH", help="this client's private key (if not in --tls-cert)")


def _parser():
    p = argparse.ArgumentParser(prog="dgraph", description="Distributed graph analytics on dask.")
    sub = p.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run an algorithm and print a summary")
    run.add_argument("algorithm", choices=registry.cli_names())
    _graph_options(run)
    run.add_argument("--source", help="BFS/SSSP source label (default: the highest-degree vertex)")
    run.add_argument(
        "--output",
        metavar="PATH",
        help="write the result: PATH.csv or PATH.parquet (one file), or DIR/ (partitioned parquet, from the workers)",
    )
    run.add_argument("--top", type=int, default=10, help="rows of the result to print")
    run.add_argument(
        "--verify",
        action="store_true",
        help="check the result with dgraph.algorithms.verify (gathers the graph to this process); exit 1 if invalid",
    )
    part = sub.add_parser("partition", help="place a graph and print the layout's partition report")
    _graph_options(part)
    part.add_argument("--measure", action="store_true", help="also run one dense superstep and show counted traffic")
    ga = sub.add_parser("graphalytics", help="run an LDBC Graphalytics algorithm and write its output file")
    ga.add_argument("--graph", required=True, metavar="DIR/NAME", help="the graph: DIR/NAME.properties, NAME.v, NAME.e")
    ga.add_argument("--algorithm", required=True, type=str.upper, choices=("BFS", "SSSP", "PR", "WCC", "CDLP", "LCC"))
    ga.add_argument("--output", required=True, metavar="FILE")
    ga.add_argument(
        "--ranks", type=int, help="logical ranks (default: one per worker; one for graphs under 2**25 arcs)"
    )
    _cluster_options(ga)
    g5 = sub.add_parser(
        "graph500", help="the Graph 500 benchmark: construction, BFS and SSSP from sampled roots, validated"
    )
    g5.add_argument("--scale", type=int, required=True)
    g5.add_argument("--edgefactor", type=int, default=16)
    g5.add_argument("--roots", type=int, default=64)
    g5.add_argument("--kernels", default="bfs,sssp", help="comma-separated: bfs, sssp")
    g5.add_argument("--seed", type=int, default=1)
    g5.add_argument(
        "--ranks", type=int, help="logical ranks (default: one per worker; one for graphs under 2**25 arcs)"
    )
    g5.add_argument("--layout", default="1d")
    g5.add_argument(
        "--vertex-order",
        default="degree",
        choices=("degree", "labels"),
        help="canonical vertex order built in kernel 1 (default: by degree, hubs first)",
    )
    g5.add_argument("--transport", default="direct", choices=TRANSPORTS)
    g5.add_argument("--domains", help="communication domains: host, job or K contiguous rank groups")
    g5.add_argument(
        "--no-warmup",
        dest="warmup",
        action="store_false",
        help="time every search from a cold start (by default each kernel first searches once, untimed)",
    )
    g5.add_argument("--quiet", action="store_true", help="no per-search progress lines")
    _cluster_options(g5)
    ob = sub.add_parser(
        "orchestrate-bench", help="TD-Orch's Zipf hash-table microbenchmark: every strategy, per-rank words"
    )
    ob.add_argument("--ranks", default="2,4,8,16", help="comma-separated logical rank counts")
    ob.add_argument("--tasks-per-rank", type=int, default=100_000)
    ob.add_argument("--zipf", default="1.5,2.0,2.5", help="comma-separated Zipf exponents")
    ob.add_argument("--strategies", default="push,pull,sort,tdorch")
    ob.add_argument("--fanout", type=int, help="TD-Orch tree fan-out F (default: Theorem 2.1's)")
    ob.add_argument("--chunk", type=int, help="TD-Orch meta-task chunk size C (default 4)")
    ob.add_argument("--repeat", type=int, default=1, help="runs per configuration; the fastest counts")
    _cluster_options(ob)
    return p


def _say(msg):
    print(msg, file=sys.stderr, flush=True)


class _Phase:
    def __init__(self, name, times):
        self.name, self.times = name, times

    def __enter__(self):
        _say(f"  {self.name} ...")
        self.t = time.perf_counter()

    def __exit__(self, *exc):
        self.times[self.name] = time.perf_counter() - self.t
        if exc[0] is None:
            _say(f"  {self.name} done in {self.times[self.name]:.2f} s")


def _directed(args):
    return True if args.directed else False if args.undirected else None


def _load(args):
    import dgraph
    from dgraph.generators import kronecker_graph

    domains = args.domains
    if domains is not None and domains.isdigit():
        domains = int(domains)
    if args.load is not None:
        graph = dgraph.load(args.load, layout=args.layout)
        if (args.transport, domains) != ("direct", None):
            graph = graph.with_transport(args.transport, domains)
        return graph, f"saved graph {args.load}"
    kw = dict(layout=args.layout or "1d", ranks=args.ranks, transport=args.transport, domains=domains)
    if getattr(args, "algorithm", None) == "core":
        kw["self_loops"] = "drop"  # core numbers are undefined with self-loops
    directed = _directed(args)
    if args.kronecker is not None:
        return kronecker_graph(args.kronecker, directed=bool(directed), **kw), f"Kronecker scale {args.kronecker}"
    if args.input:
        weight = None if not args.weight else "weight" if args.input.endswith((".gr", ".gr.gz")) else 2
        weight = args.weight if isinstance(args.weight, str) else weight
        graph = dgraph.read_edgelist(args.input, directed=directed, weight=weight, header=args.header, **kw)
        return graph, args.input
    name = args.dataset or "ca-GrQc"
    if directed is not None:
        kw["directed"] = directed
    return dgraph.datasets.load(name, **kw), f"dataset {name}"


def _save(args, graph, times):
    if args.save is not None:
        with _Phase("save", times):
            graph.save(args.save, overwrite=args.overwrite)
        _say(f"  saved the graph to {args.save}")


def _check(args):
    """Refuse what is wrong with the command line before any cluster starts: a missing file, an
    unknown dataset or layout, options that do not fit the graph or the algorithm."""
    from dgraph import datasets
    from dgraph.errors import DgraphInputError
    from dgraph.layout import LAYOUTS

    for option in ("ranks", "workers", "kronecker"):
        value = getattr(args, option, None)
        if value is not None and value < 1:
            raise DgraphInputError(f"--{option} must be at least 1, got {value}")
    if getattr(args, "top", 0) < 0:
        raise DgraphInputError(f"--top must be 0 or more, got {args.top}")
    if args.layout is not None and args.layout.lower() not in LAYOUTS:
        raise DgraphInputError(f"--layout {args.layout!r} is not a layout; layouts: {', '.join(sorted(LAYOUTS))}")
    if args.domains is not None and not (args.domains in ("host", "job") or args.domains.isdigit()):
        raise DgraphInputError(f"--domains {args.domains!r}: give host, job or a number of rank groups")
    if args.input is None and args.header is not None:
        raise DgraphInputError("--header and --no-header describe an --input file")
    if args.overwrite and args.save is None:
        raise DgraphInputError("--overwrite lets --save replace a saved graph: give --save PATH too")
    directed = _directed(args)
    if args.load is not None:
        built = [f"--{o}" for o in ("ranks", "directed", "undirected") if getattr(args, o)]
        if args.weight is True:  # bare --weight reads a file's third column; --weight NAME picks a saved attribute
            built.append("--weight")
        if built:
            raise DgraphInputError(
                f"{built[0]} says how to build a graph, and --load reads one built already (its ranks, direction and "
                "weight are the saved ones; --no-weight still gives unit weights)"
            )
    elif args.input is not None:
        if "://" not in args.input and not glob.glob(args.input):
            if glob.has_magic(args.input):
                raise DgraphInputError(f"--input {args.input!r}: no file matches it")
            raise DgraphInputError(f"--input {args.input!r} does not exist")
    elif args.kronecker is not None:
        if args.weight:
            raise DgraphInputError("--weight: Kronecker graphs have no weights")
        directed = bool(directed)
    else:
        name = args.dataset or "ca-GrQc"
        if name not in datasets.available():
            names = ", ".join(datasets.available())
            raise DgraphInputError(f"--dataset {name!r} is not an embedded dataset; datasets: {names}")
        known = datasets.properties(name)
        if args.weight and not known["weighted"]:
            weighted = [n for n in datasets.available() if datasets.properties(n)["weighted"]]
            raise DgraphInputError(f"--weight: dataset {name} has no weights; weighted datasets: {', '.join(weighted)}")
        directed = known["directed"] if directed is None else directed
    if getattr(args, "algorithm", None) is None:
        return
    entry = registry.lookup(args.algorithm)
    if args.source is not None and not entry.source:
        sources = ", ".join(a for a in registry.cli_names() if registry.lookup(a).source)
        raise DgraphInputError(f"--source: {args.algorithm} takes no source (only {sources} do)")
    if entry.undirected and directed:
        what = "the Kronecker graph" if args.kronecker is not None else f"dataset {args.dataset or 'ca-GrQc'}"
        how = "drop --directed" if args.directed else "add --undirected"
        raise DgraphInputError(f"{args.algorithm} needs an undirected graph and {what} is directed: {how}")
    if args.output is not None:
        _output_kind(args.output)


def _output_kind(path):
    """How ``--output path`` is written: "csv" or "parquet" (one file), or "directory"
    (partitioned parquet); an error for anything else, or a file whose directory is missing."""
    from dgraph.errors import DgraphInputError

    if path.endswith(("/", os.sep)) or os.path.isdir(path):
        if os.path.isdir(path) and os.listdir(path):
            raise DgraphInputError(f"--output {path!r} is a directory that is not empty: name a new or empty one")
        return "directory"
    kind = {".csv": "csv", ".parquet": "parquet"}.get(os.path.splitext(path)[1].lower())
    if kind is None:
        raise DgraphInputError(
            f"--output {path!r}: name a .csv or .parquet file, or a directory ending in / for partitioned parquet"
        )
    parent = os.path.dirname(path)
    if parent and not os.path.isdir(parent):
        raise DgraphInputError(f"--output {path!r}: there is no directory {parent!r}")
    return kind


def _write(result, frame, path):
    kind = _output_kind(path)
    if kind == "csv":
        frame.to_csv(path, index=False)
    elif kind == "parquet":
        frame.to_parquet(path, index=False)
    else:
        result.to_parquet(path, write_index=False)


def _figure(value):
    """A number as a person reads it: floats to 6 significant digits, integers with separators;
    lists and tuples of them likewise."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float) or type(value).__name__.startswith("float"):
        return f"{float(value):.6g}" if math.isfinite(value) else str(value)
    if isinstance(value, int) or type(value).__name__.startswith(("int", "uint")):
        return f"{int(value):,}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_figure(v) for v in value) + "]"
    return str(value)


def _size(nbytes):
    """Bytes in the unit that keeps them short: 812 B, 12.4 KB, 3.1 MB."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if nbytes >= scale:
            return f"{nbytes / scale:.3g} {unit}"
    return f"{nbytes:,} B"


def _ranks(n):
    return "1 rank" if n == 1 else f"{n:,} ranks"


def _traffic(stats, nranks):
    """The run line: what the ranks exchanged, in words that do not read like a failure."""
    if stats.total_messages == 0:
        ranks = "one rank" if nranks == 1 else _ranks(nranks)
        steps = "" if stats.supersteps == 0 else f", {stats.supersteps:,} supersteps"
        return f"{ranks}{steps}, no messages"
    return (
        f"{_ranks(nranks)}, {stats.supersteps:,} supersteps, {stats.total_messages:,} messages, "
        f"{_size(stats.total_bytes)} moved ({_size(stats.wire_bytes)} over sockets)"
    )


def _source(graph, given):
    if given is None:
        deg = graph.degrees().compute()
        col = "degree" if "degree" in deg else "out_degree"
        return deg["vertex"].iloc[int(deg[col].to_numpy().argmax())]
    label_kind = graph.labels.dtype.kind if graph.labels.index is not None else "i"
    if label_kind not in "iu":
        return given
    try:
        return int(given)
    except ValueError:
        from dgraph.errors import DgraphInputError

        raise DgraphInputError(f"--source {given!r} is not a vertex: this graph's labels are integers") from None


def _security(args):
    """A dask ``Security`` from the --tls-* options, or None."""
    if not (args.tls_ca_file or args.tls_cert or args.tls_key):
        return None
    from distributed.security import Security

    from dgraph.errors import DgraphInputError

    if not (args.tls_ca_file and args.tls_cert):
        raise DgraphInputError("TLS needs --tls-ca-file and --tls-cert (and --tls-key unless the cert holds it)")
    return Security(
        tls_ca_file=args.tls_ca_file,
        tls_client_cert=args.tls_cert,
        tls_client_key=args.tls_key,
        require_encryption=True,
    )


@contextmanager
def _connected(args):
    """A client of ``--scheduler``, or of a local cluster started (and closed) for this command."""
    from distributed import Client, LocalCluster

    from dgraph import kernels
    from dgraph.cluster import connect, gpu_cluster

    engine = args.engine or ("cuda" if args.gpu else None)
    if engine:
        kernels.set_engine(engine)
    try:
        if args.scheduler or args.scheduler_file:
            with connect(args.scheduler, args.scheduler_file, security=_security(args)) as client:
                yield client
            return
        if args.gpu:
            with gpu_cluster() as cluster, Client(cluster) as client:
                _say(f"dgraph: started a GPU cluster of {len(client.scheduler_info()['workers'])} workers")
                yield client
            return
        _say(f"dgraph: starting a local cluster of {args.workers} workers")
        local = LocalCluster(
            n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0"
        )
        with local as cluster, Client(cluster) as client:
            yield client
    finally:
        if engine:
            kernels.set_engine("numba")


def graphalytics(args):
    from dgraph import graphalytics as ga

    with _connected(args) as client:
        t = time.perf_counter()
        result = ga.run(args.graph + ".properties", args.algorithm, ranks=args.ranks, client=client)
        ga.write(result, args.output)
        print(
            f"{args.algorithm} on {args.graph}: {len(result):,} vertices in {time.perf_counter() - t:.2f} s; "
            f"wrote {args.output}"
        )
    return 0


def partition(args):
    import pandas as pd

    _check(args)
    with _connected(args):
        graph, what = _load(args)
        _save(args, graph, {})
        report = graph.layout_report(measure=args.measure)
        print(
            f"graph      {what}: {graph.num_vertices:,} vertices, {graph.num_arcs:,} arcs stored, "
            f"{_ranks(graph.nranks)}, "
            f"layout {graph.layout!r}"
        )
        with pd.option_context("display.width", 200, "display.max_rows", 200):
            print(report.to_string(index=False))
        for k, v in report.attrs["summary"].items():
            print(f"{k:30s} {v}")
    return 0


def graph500(args):
    from dgraph import graph500 as g5
    from dgraph.provenance import header

    domains = int(args.domains) if args.domains and args.domains.isdigit() else args.domains
    print(header(args.command_line) + "\n", flush=True)
    with _connected(args) as client:
        out = g5.run(
            args.scale,
            args.edgefactor,
            args.roots,
            args.kernels.split(","),
            layout=args.layout,
            ranks=args.ranks,
            transport=args.transport,
            domains=domains,
            seed=args.seed,
            client=client,
            vertex_order=args.vertex_order,
            warmup=args.warmup,
            say=None if args.quiet else (lambda m: _say(f"  {m}")),
        )
        print(g5.report(out))
    return 1 if out["failures"] else 0


def orchestrate_bench(args):
    from dgraph.orchestration import bench

    def show(row):
        _say(
            f"  zipf {row['zipf']} ranks {row['ranks']} {row['strategy']}: {row['stage_s']:.3f} s, "
            f"max/mean {row['max/mean']:.2f}"
        )

    with _connected(args) as client:
        rows = bench.zipf_bench(
            ranks=[int(x) for x in args.ranks.split(",")],
            tasks_per_rank=args.tasks_per_rank,
            zipf=[float(x) for x in args.zipf.split(",")],
            strategies=args.strategies.split(","),
            fanout=args.fanout,
            chunk=args.chunk,
            repeat=args.repeat,
            client=client,
            progress=show,
        )
        print(bench.table(rows))
    return 0


def run(args):
    import pandas as pd

    from dgraph import algorithms
    from dgraph.errors import DgraphInputError

    _check(args)
    entry = registry.lookup(args.algorithm)
    times = {}
    with _connected(args):
        note = compiling_note()
        if note:
            _say(f"  {note.strip(' ()')}: some seconds more")
        with _Phase("load and place", times):
            graph, what = _load(args)
        if entry.undirected and graph.directed:
            how = "save it built with --undirected" if args.load else "add --undirected"
            raise DgraphInputError(f"{args.algorithm} needs an undirected graph and {what} is read as directed: {how}")
        _save(args, graph, times)
        # the graph's weight, or the edge attribute --weight names, unless --no-weight: every weighted
        # algorithm and its verifier take the same
        weight = None if args.no_weight else args.weight if isinstance(args.weight, str) else graph.weight
        extra = {}
        with _Phase(args.algorithm, times):
            fn = entry.function
            kwargs = {"weight": weight} if entry.weighted else {}
            if fn is algorithms.betweenness_centrality and graph.num_vertices > 2000:
                # sampled: all sources would take n passes
                kwargs = {"sources": _sample(graph, 64)} if args.verify else {"k": 64, "seed": 0}
            if entry.source:
                extra["source"] = _source(graph, args.source)
                result = fn(graph, extra["source"], **kwargs)
            else:
                result = fn(graph, **kwargs)
            frame = result.compute()
        stats = graph.last_stats
        weighing = f", weights {weight!r}" if entry.weighted and weight is not None else ""
        print(
            f"graph      {what}: {graph.num_vertices:,} vertices, {graph.num_edges:,} edges "
            f"({'directed' if graph.directed else 'undirected'}{weighing}), {_ranks(graph.nranks)}, "
            f"layout {graph.layout!r}"
        )
        for k, v in times.items():
            print(f"time       {k}: {v:.3f} s")
        print(f"run        {_traffic(stats, graph.nranks)}")
        if stats.domain_of is not None:
            split = stats.by_domain()
            print(
                f"domains    {len(set(stats.domain_of.tolist()))} (monitors {stats.monitors.tolist()}), "
                f"transport {graph.transport}: inter-domain messages {int(split['inter_messages'].sum()):,} "
                f"({int(split['inter_bytes'].sum()):,} bytes), "
                f"intra-domain {int(split['intra_messages'].sum()):,} ({int(split['intra_bytes'].sum()):,} bytes)"
            )
        facts = [f"{k} {_figure(v)}" for k, v in stats.info.items()] + [f"{k} {v}" for k, v in extra.items()]
        if facts:  # figures rounded; labels (a source) as they are
            print("facts      " + ", ".join(facts))
        sort = entry.rank_by
        if sort is None:
            column = frame.columns[1]
            sizes = frame.groupby(column).size().sort_values(ascending=False)
            print(f"{column} groups {len(sizes):,}; largest:")
            print(sizes.head(args.top).rename("vertices").to_string())
        else:
            top = frame.sort_values(sort[0], ascending=sort[1]).head(args.top)
            with pd.option_context("display.float_format", _figure):
                print(top.to_string(index=False))
        if args.output:
            _write(result, frame, args.output)
            print(f"wrote      {args.output}")
        if args.verify:
            if "modularity" in stats.info:  # communities: the verifier checks the modularity reported
                kwargs["modularity"] = stats.info["modularity"]
            problems = algorithms.verify(args.algorithm, graph, frame, **extra, **kwargs)
            print("verified   " + ("valid" if not problems else "INVALID"))
            for p in problems:
                print(f"           {p}")
            return 1 if problems else 0
    return 0


def _sample(graph, k):
    """``k`` vertex labels drawn with a fixed seed (betweenness sources a verifier can replay)."""
    import numpy as np

    vertices = graph.degrees()["vertex"].compute().to_numpy()
    return np.random.default_rng(0).choice(vertices, size=min(k, vertices.size), replace=False).tolist()


def main(argv=None):
    import logging

    args = _parser().parse_args(argv)
    args.command_line = ["dgraph", *(sys.argv[1:] if argv is None else argv)]
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("  %(message)s"))
    logger = logging.getLogger("dgraph")
    logger.addHandler(handler)
    logger.setLevel(logging.WARNING if getattr(args, "quiet", False) else logging.INFO)
    from dgraph.errors import DgraphError

    try:
        commands = {
            "graphalytics": graphalytics,
            "partition": partition,
            "run": run,
            "orchestrate-bench": orchestrate_bench,
            "graph500": graph500,
        }
        return commands[args.command](args)
    except (DgraphError, OSError) as exc:  # the user's input or environment: say what, without a traceback
        print(f"dgraph: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("dgraph: interrupted", file=sys.stderr)
        return 130
    finally:
        logger.removeHandler(handler)


if __name__ == "__main__":
    sys.exit(main())
