"""LDBC Graphalytics driver: read a benchmark graph by its ``.properties`` file, run one of the
six core algorithms with LDBC semantics, write ``id value`` lines in LDBC's output format.

    dgraph graphalytics --graph DIR/NAME --algorithm BFS --output NAME-BFS

Graph files: ``NAME.v`` (one vertex id per line; ids may be sparse) and ``NAME.e`` (``src dst
[weight]``; an undirected edge once), or the files the properties name. Output: BFS hop counts
with 9223372036854775807 for unreachable vertices, SSSP distances with ``infinity``, floats with
full precision (``repr``), labels as vertex ids.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from .errors import DgraphInputError

ALGORITHMS = ("BFS", "SSSP", "PR", "WCC", "CDLP", "LCC")
UNREACHABLE = 9223372036854775807


def read_properties(path):
    """A Java ``.properties`` file as a dict (``key = value`` lines, ``#`` comments)."""
    if not os.path.exists(path):
        raise DgraphInputError(f"properties file {path!r} does not exist")
    props = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line[0] in "#!":
                continue
            key, sep, value = line.partition("=")
            if not sep:
                key, _, value = line.partition(":")
            props[key.strip()] = value.strip()
    return props


class Benchmark:
    """One LDBC graph: its properties, name and files."""

    def __init__(self, properties_path):
        self.path = properties_path
        self.dir = os.path.dirname(os.path.abspath(properties_path))
        self.props = read_properties(properties_path)
        names = {k.split(".")[1] for k in self.props if k.startswith("graph.") and k.count(".") >= 2}
        base = (
            os.path.basename(properties_path)[: -len(".properties")]
            if properties_path.endswith(".properties")
            else None
        )
        self.name = base if base in names else (names.pop() if len(names) == 1 else None)
        if self.name is None:
            raise DgraphInputError(f"{properties_path!r} names no single graph (found {sorted(names)})")

    def get(self, key, default=None, required=False):
        value = self.props.get(f"graph.{self.name}.{key}", default)
        if value is None and required:
            raise DgraphInputError(f"{self.path!r} has no graph.{self.name}.{key}")
        return value

    def file(self, kind, default):
        return os.path.join(self.dir, self.get(f"{kind}-file", default))

    @property
    def directed(self):
        return str(self.get("directed", "false")).lower() == "true"

    def graph(self, weighted, **graph_kwargs):
        from .build import from_edgelist

        vertices = pd.read_csv(
            self.file("vertex", f"{self.name}.v"), header=None, sep=r"\s+", usecols=[0], dtype="int64"
        )[0]
        names = [n.strip() for n in str(self.get("edge-properties.names", "")).split(",") if n.strip()]
        edge_path = self.file("edge", f"{self.name}.e")
        import dask.dataframe as dd

        cols = ["src", "dst"] + names
        edges = dd.read_csv(edge_path, sep=r"\s+", header=None, names=cols, dtype={"src": "int64", "dst": "int64"})
        weight = None
        if weighted:
            wname = self.get("sssp.weight-property", names[0] if names else None)
            if wname not in names:
                raise DgraphInputError(f"{self.path!r}: SSSP needs a weight property; the edges have {names}")
            weight = wname
            edges = edges[["src", "dst", wname]]
        else:
            edges = edges[["src", "dst"]]
        return from_edgelist(edges, weight=weight, directed=self.directed, vertices=vertices, **graph_kwargs)


def run(properties_path, algorithm, **graph_kwargs):
    """Run one LDBC algorithm on the graph of ``properties_path``; a pandas DataFrame
    [vertex, value] sorted by vertex, values in LDBC semantics (unreachable: BFS
    9223372036854775807, SSSP inf)."""
    from . import algorithms

    algorithm = algorithm.upper()
    if algorithm not in ALGORITHMS:
        raise DgraphInputError(f"algorithm must be one of {ALGORITHMS}, got {algorithm!r}")
    bench = Benchmark(properties_path)
    g = bench.graph(weighted=algorithm == "SSSP", **graph_kwargs)
    key = algorithm.lower()
    if algorithm == "BFS":
        frame = algorithms.bfs(g, int(bench.get("bfs.source-vertex", required=True))).compute()
        value = frame["distance"].fillna(UNREACHABLE).astype("int64")
    elif algorithm == "SSSP":
        frame = algorithms.sssp(g, int(bench.get("sssp.source-vertex", required=True)), weight=g.weight).compute()
        value = frame["distance"].astype("float64").fillna(np.inf)
    elif algorithm == "PR":
        frame = algorithms.pagerank(
            g,
            alpha=float(bench.get("pr.damping-factor", required=True)),
            max_iter=int(bench.get("pr.num-iterations", required=True)),
            tol=0,
        ).compute()
        value = frame["pagerank"]
    elif algorithm == "WCC":
        frame = algorithms.connected_components(g, connection="weak").compute()
        value = frame["component"]
    elif algorithm == "CDLP":
        frame = algorithms.label_propagation(g, max_iter=int(bench.get("cdlp.max-iterations", required=True))).compute()
        value = frame["label"]
    else:
        frame = algorithms.local_clustering_coefficient(g).compute()
        value = frame["lcc"]
    out = pd.DataFrame({"vertex": frame["vertex"].to_numpy(), key: value.to_numpy()})
    return out.sort_values("vertex", ignore_index=True)


def _format(value):
    if isinstance(value, (float, np.floating)):
        return "infinity" if np.isinf(value) else repr(float(value))
    return str(int(value))


def write(result, path):
    """Write a ``run`` result as LDBC ``id value`` lines."""
    col = result.columns[1]
    with open(path, "w") as f:
        for v, x in zip(result["vertex"].tolist(), result[col].tolist()):
            f.write(f"{v} {_format(x)}\n")
