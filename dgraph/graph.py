"""Graph: the immutable facade over a graph placed on the ranks of a dask cluster.

``dgraph.build.from_edgelist`` makes one. A Graph is three parts and a few facts: its
``codec`` (the user's labels <-> placed ids, ``dgraph.codec``), its ``store`` (the rank blocks
and the blocks derived from them, ``dgraph.store``) and its ``runner`` (runs and result frames,
``dgraph.runner``). ``with_transport`` makes another Graph sharing the codec and the store.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

import dask.dataframe as dd
import numpy as np
import pandas as pd
from distributed import Client, Future

from . import export
from .attributes import edges_kernel, vertex_columns
from .codec import LabelCodec
from .errors import DgraphInputError
from .export import Snapshot
from .joins import merge
from .labels import Labels
from .layout import Layout
from .runner import Runner
from .runtime import RankResults
from .runtime.driver import TRANSPORTS
from .runtime.metrics import RunStats
from .store import BlockStore

__all__ = ["Graph", "Snapshot"]


class Graph:
    """A graph placed on the ranks of a dask cluster. Build one with ``dgraph.from_edgelist``.

    Facts: ``num_vertices``, ``num_edges`` (an undirected edge counted once), ``num_arcs``,
    ``directed``, ``weight`` (the weight column or None), ``edge_attrs`` and ``vertex_attrs``
    (the attributes it keeps), ``layout``, ``nranks``, ``transport``; ``last_stats`` is the
    ``RunStats`` of the calling thread's last algorithm call on it. A Graph never changes:
    ``with_transport``, ``with_weight`` and ``subgraph`` make new ones; ``save`` writes it to a
    directory that ``dgraph.load`` reads back.

    >>> import dgraph
    >>> g = dgraph.datasets.load("karate")
    >>> g
    <dgraph.Graph undirected n=34 m=78 layout=OneD(ranks=1, balance='degree')>
    >>> g.weight = "w"
    Traceback (most recent call last):
        ...
    AttributeError: a dgraph.Graph does not change: build a new one (from_edgelist, subgraph, with_transport)
    """

    __slots__ = ("codec", "store", "runner", "weight", "ground_truth", "_rebuild")
    codec: LabelCodec
    store: BlockStore
    runner: Runner
    weight: str | None
    ground_truth: pd.Series | None  # a dataset's known groups (dgraph.datasets), else None
    _rebuild: Callable[..., Graph] | None

    def __init__(
        self,
        codec: LabelCodec,
        store: BlockStore,
        *,
        weight: str | None,
        runner: Runner | None = None,
        ground_truth: pd.Series | None = None,
        rebuild: Callable[..., Graph] | None = None,
    ) -> None:
        for name, value in (
            ("codec", codec),
            ("store", store),
            ("runner", runner or Runner(store, codec)),
            ("weight", weight),
            ("ground_truth", ground_truth),
            ("_rebuild", rebuild),  # from_edgelist: subgraphs are built as this graph was
        ):
            object.__setattr__(self, name, value)

    def _replace(self, **parts: Any) -> Graph:
        """This graph with some of its constructor's parts replaced (the rest shared)."""
        now = {name: getattr(self, name) for name in ("runner", "ground_truth")}
        return Graph(self.codec, self.store, weight=self.weight, rebuild=self._rebuild, **{**now, **parts})

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(
            "a dgraph.Graph does not change: build a new one (from_edgelist, subgraph, with_transport)"
        )

    def __repr__(self) -> str:
        kind = "directed" if self.directed else "undirected"
        return f"<dgraph.Graph {kind} n={self.num_vertices} m={self.num_edges} layout={self.layout!r}>"

    def with_transport(self, transport: str, domains: Any = None) -> Graph:
        """This graph with another transport (and domains): the same placed blocks, shared.

        >>> import dgraph
        >>> g = dgraph.datasets.load("karate", ranks=4).with_transport("grouped", domains=2)
        >>> int(dgraph.algorithms.bfs(g, 1).compute().distance.max()), len(g.last_stats.crossings) > 0
        (3, True)
        """
        if transport not in TRANSPORTS:
            raise DgraphInputError(f"transport must be one of {TRANSPORTS}, got {transport!r}")
        return self._replace(runner=Runner(self.store, self.codec, transport=transport, domains=domains))

    def with_weight(self, name: str) -> Graph:
        """This graph weighed by its numeric edge attribute ``name`` by default: the same blocks,
        seen with that column as their weights (made on the workers once and kept). Algorithms
        do this themselves for ``weight="name"``.

        >>> import pandas as pd, dgraph
        >>> e = pd.DataFrame({"src": [0, 1], "dst": [1, 2], "w": [1.0, 1.0], "t": [5.0, 0.5]})
        >>> h = dgraph.from_edgelist(e, weight="w", edge_attrs=["t"]).with_weight("t")
        >>> h.weight, dgraph.algorithms.sssp(h, 0).compute().distance.tolist()
        ('t', [0.0, 5.0, 5.5])
        """
        from .weights import chosen_weight

        name = chosen_weight(self, name, "with_weight")  # type: ignore[assignment]
        store = self.store.weighed_by(name)
        return Graph(
            self.codec,
            store,
            weight=name,
            runner=self.runner.over(store),
            ground_truth=self.ground_truth,
            rebuild=self._rebuild,
        )

    # ------------------------------------------------------------------ facts
    @property
    def edge_attrs(self) -> tuple[str, ...]:
        """The edge attributes the graph keeps (its weight among them), as ``edges()`` lists them."""
        return tuple(self.store.edge_dtypes)

    @property
    def vertex_attrs(self) -> tuple[str, ...]:
        """The vertex attributes the graph keeps, as ``vertices()`` lists them."""
        return tuple(self.store.vertex_dtypes)

    @property
    def client(self) -> Client:
        return self.store.client

    @property
    def labels(self) -> Labels:
        return self.codec.labels

    @property
    def directed(self) -> bool:
        return self.store.directed

    @property
    def layout(self) -> Layout:
        return self.store.layout

    @property
    def nranks(self) -> int:
        return self.store.layout.ranks

    @property
    def bounds(self) -> np.ndarray:
        """Rank r owns the placed ids ``bounds[r]:bounds[r+1]``."""
        return self.store.bounds

    @property
    def transport(self) -> str:
        return self.runner.transport

    @property
    def domains(self) -> Any:
        return self.runner.domains

    @property
    def last_stats(self) -> RunStats | None:
        """The ``RunStats`` of this thread's last call on this graph (None before the first)."""
        return self.runner.last_stats

    @property
    def local_share(self) -> float | None:
        """The share of arcs whose two ends one rank owns, once a run counted it."""
        return self.store.local_share

    @property
    def num_vertices(self) -> int:
        return self.codec.labels.n

    @property
    def num_arcs(self) -> int:
        """Stored arcs: edges for a directed graph, twice the non-loop edges for an undirected one."""
        return sum(a for a, _ in self.store.counts())

    @property
    def num_edges(self) -> int:
        counts = self.store.counts()
        arcs = sum(a for a, _ in counts)
        if self.directed:
            return arcs
        loops = sum(lo for _, lo in counts)
        return (arcs - loops) // 2 + loops

    @property
    def max_degree(self) -> int:
        """The largest number of arcs at one vertex (out-arcs when directed; loops and repeated
        arcs count)."""
        return max(self.store.max_degrees(), default=0)

    def block_facts(self, fn: Callable) -> list:
        """``[fn(block) for each of the layout's blocks]``, computed on the workers once per graph
        and function (blocks never change)."""
        return self.store.block_facts(fn)

    def each_block(self, fn: Callable, *args: Any) -> list:
        """``[fn(block, *args) for each of the layout's blocks]``, in rank order, on the workers."""
        return self.store.each_block(fn, *args)

    # ------------------------------------------------------------------ labels
    def encode_vertices(self, values: Iterable, what: str = "vertex") -> np.ndarray:
        """Placed ids of user labels (a DgraphInputError names the first unknown label)."""
        return self.codec.encode(values, what)

    def vertex_param(self, label: Any, what: str = "vertex") -> int | Future:
        """The placed id of one user label, as a run's param (``LabelCodec.vertex_param``)."""
        return self.codec.vertex_param(label, what)

    def placed_ids(self, canonical: Any) -> np.ndarray:
        """Placed ids of canonical ids (the sorted positions of labels)."""
        return self.codec.placed_ids(canonical)

    # ------------------------------------------------------------------ running
    def run(self, kernel: Callable, **options: Any) -> tuple[RankResults, RunStats]:
        """``Runner.run``: run ``kernel(ctx, **params)`` over the ranks; ``(results, stats)``."""
        return self.runner.run(kernel, **options)

    def run_to_frame(self, kernel: Callable, **options: Any) -> dd.DataFrame:
        """``Runner.run_to_frame``'s frame: a run whose results are a dask DataFrame [vertex, ...]
        (an algorithm that reports its run's stats calls ``graph.runner.run_to_frame``)."""
        return self.runner.run_to_frame(kernel, **options)[0]

    def run_to_rows(self, kernel: Callable, **options: Any) -> dd.DataFrame:
        """``Runner.run_to_rows``'s frame: a run whose ranks return free-standing rows."""
        return self.runner.run_to_rows(kernel, **options)[0]

    def to_frame(self, results: RankResults, **options: Any) -> dd.DataFrame:
        """``Runner.to_frame``: per-rank dicts of arrays as a dask DataFrame [vertex, ...]."""
        return self.runner.to_frame(results, **options)

    # ------------------------------------------------------------------ views
    def layout_report(self, measure: bool = False) -> pd.DataFrame:
        """Per-rank placement facts and dense-superstep traffic (see ``dgraph.report``)."""
        from .report import layout_report

        return layout_report(self, measure)

    def degrees(self) -> dd.DataFrame:
        """Dask DataFrame [vertex, degree] (undirected; a self-loop counts twice, as in networkx)
        or [vertex, in_degree, out_degree] (directed), with duplicates dropped per the policy.

        >>> import dgraph
        >>> d = dgraph.datasets.load("karate").degrees().compute()
        >>> int(d.degree.sum()), int(d.set_index("vertex").degree[34])
        (156, 17)
        """
        c, store = self.client, self.store
        if self.directed:
            ins, outs = store.owned_counts(store.reverse()), store.owned_counts(store.blocks)
            res = [c.submit(_in_out_degrees, r, i, o, pure=False) for r, (i, o) in enumerate(zip(ins, outs))]
        else:
            arcs, loops = store.owned_counts(store.blocks), store.owned_counts(store.blocks, loops=True)
            res = [c.submit(_degrees, r, a, s, pure=False) for r, (a, s) in enumerate(zip(arcs, loops))]
        return self.to_frame(RankResults(c, res, [[r] for r in range(self.nranks)]))

    def edges(self) -> dd.DataFrame:
        """Dask DataFrame [src, dst, *edge attributes] of the stored arcs in the user's labels
        (both arcs of an undirected edge), made on the workers from each rank's block and its
        per-arc columns; the weight is among the attributes, under the name the graph was built
        with, and every attribute keeps the dtype it had in the edge list.

        >>> import dgraph
        >>> e = dgraph.datasets.load("karate").edges().compute()
        >>> list(e.columns), len(e)
        (['src', 'dst'], 156)
        """
        root = self.store.root
        return self.runner.over(root).run_to_rows(
            edges_kernel,
            label_columns=("src", "dst"),
            name="edges",
            placement="layout",
            record=False,  # a view of the graph: the last algorithm's stats stay
            weight=root.weight,
            dtypes=root.edge_dtypes,
        )[0]

    def vertices(self) -> dd.DataFrame:
        """Dask DataFrame [vertex, *vertex attributes] of every vertex in the user's labels, made
        on the workers from each rank's table of its own vertices. A vertex the ``vertices=``
        frame had no row for has nulls (integer and boolean columns then have pandas' nullable
        dtypes).

        >>> import pandas as pd, dgraph
        >>> people = pd.DataFrame({"vertex": ["ann", "bob", "cy"], "age": [31, 42, 27]})
        >>> g = dgraph.from_edgelist(pd.DataFrame({"src": ["ann"], "dst": ["bob"]}), vertices=people)
        >>> g.vertices().compute().sort_values("vertex").age.tolist()
        [31, 42, 27]
        """
        c, store = self.client, self.store.root
        tables: list[Any] = [None] * self.nranks if store.vertex_tables is None else store.vertex_tables
        res = [c.submit(vertex_columns, r, t, store.vertex_dtypes, pure=False) for r, t in enumerate(tables)]
        return self.runner.over(store).to_frame(RankResults(c, res, [[r] for r in range(self.nranks)]))

    def find(self, pattern: str, *, limit: int | None = None, distinct: bool = False) -> dd.DataFrame:
        """The matches of a GraphFrames motif ``pattern`` (``dgraph.motifs.find``): a dask
        DataFrame of a column per named vertex and ``e.<attribute>`` per named edge.

        >>> import dgraph
        >>> g = dgraph.datasets.load("karate")
        >>> len(g.find("(a)-[]->(b); (b)-[]->(c); (c)-[]->(a)"))  # each triangle, 6 ways round
        270
        """
        from .motifs import find

        return find(self, pattern, limit=limit, distinct=distinct)

    def subgraph(self, vertices: Iterable) -> Graph:
        """The graph induced by ``vertices`` (labels): those vertices, isolated ones included, and
        every arc between two of them, with the same weights, direction, layout kind, ranks and
        transport (vertices numbered in label order).

        >>> import dgraph
        >>> g = dgraph.datasets.load("karate")
        >>> h = g.subgraph([1, 2, 3, 34])
        >>> h.num_vertices, h.num_edges
        (4, 3)
        """
        if isinstance(vertices, (str, bytes)) or not hasattr(vertices, "__iter__"):
            raise DgraphInputError("subgraph takes a list (or array, or Series) of vertex labels")
        unique = pd.unique(pd.Series(list(vertices)))
        if unique.size == 0:
            raise DgraphInputError("subgraph needs at least one vertex")
        labels = unique.tolist()
        self.encode_vertices(labels, "subgraph vertex")  # every label must be a vertex
        arcs = self.edges()
        inside = arcs.src.isin(labels) & arcs.dst.isin(labels)
        return self._rebuilt(arcs[inside], vertices=unique)

    def edge_subgraph(self, edges: Any) -> Graph:
        """The graph of ``edges`` (a frame with ``src`` and ``dst`` columns, pandas or dask, or
        (src, dst) pairs) that are arcs of this graph, and their endpoints; pairs that are not
        arcs are left out, as networkx's ``edge_subgraph`` does. On an undirected graph a pair
        names its edge in either order.

        >>> import dgraph
        >>> g = dgraph.datasets.load("karate")
        >>> h = g.edge_subgraph([(1, 2), (34, 33), (5, 6)])
        >>> h.num_vertices, h.num_edges
        (4, 2)
        """
        if hasattr(edges, "compute") and not isinstance(edges, pd.DataFrame):
            edges = edges.compute()
        if not isinstance(edges, pd.DataFrame):
            edges = pd.DataFrame(list(edges), columns=["src", "dst"])
        if not {"src", "dst"} <= set(edges.columns):
            raise DgraphInputError("edge_subgraph takes a frame with 'src' and 'dst' columns, or (src, dst) pairs")
        pairs = edges[["src", "dst"]]
        if not self.directed:
            pairs = pd.concat([pairs, pairs.rename(columns={"src": "dst", "dst": "src"})], ignore_index=True)
        pairs = pairs.drop_duplicates()
        arcs = self.edges()
        kept = merge(arcs, pairs.astype({"src": arcs.src.dtype, "dst": arcs.dst.dtype}), on=["src", "dst"], how="inner")
        if not self.vertex_attrs:
            return self._rebuilt(kept)
        kept = self.client.compute(kept).result()  # a frame of the pairs given, on the client already
        return self._rebuilt(kept, vertices=pd.unique(pd.concat([kept.src, kept.dst], ignore_index=True)))

    def _rebuilt(self, arcs: dd.DataFrame, vertices: Sequence | None = None) -> Graph:
        """A graph of these arcs (a frame of this graph's ``edges()``, with every attribute) and
        of ``vertices`` (labels; with their attributes when the graph has some), placed as this
        one is."""
        if self._rebuild is None:
            raise DgraphInputError("this graph was not built by from_edgelist, so it cannot make subgraphs")
        if not self.directed:  # edges() lists both arcs of an edge: one is the edge
            arcs = arcs[arcs.src <= arcs.dst]
        if self.vertex_attrs and vertices is not None:
            table = self.vertices()
            vertices = table[table.vertex.isin(list(vertices))]
        return self._rebuild(
            arcs,
            weight=self.weight,
            edge_attrs=[a for a in self.edge_attrs if a != self.weight],
            directed=self.directed,
            vertices=vertices,
            layout=self.layout,
            duplicates="drop" if self.store.dedup else "keep",
            client=self.client,
            transport=self.transport,
            domains=self.domains,
        )

    # ------------------------------------------------------------------ updates
    @property
    def update_stats(self) -> Any:
        """What the update that made this graph did (``dgraph.updates.UpdateStats``: edges or
        vertices given, no-ops among them, arcs added and removed, ranks rewritten, whether it
        rebuilt); None for a graph that was built or loaded."""
        return self.store.root.update_stats

    def add_edges(self, df: Any, *, source: Hashable = "src", destination: Hashable = "dst") -> Graph:
        """A new graph with the edges of ``df`` (pandas or dask; ``source`` and ``destination``
        columns of labels) added; this one does not change. Labels the graph lacks become new
        vertices, with ids after the old ones (no old id changes). Every edge attribute of the
        graph (its weight among them) must be a column of ``df``; other columns are left out.
        Policies apply as at construction: both arcs of an undirected edge, self-loops dropped
        if the graph dropped them, an arc the graph has kept once (the lighter). Only the ranks
        that store a new arc are rewritten (``dgraph.updates``); ``update_stats`` says what was
        done.

        >>> import pandas as pd, dgraph
        >>> g = dgraph.from_edgelist(pd.DataFrame({"src": ["a", "b"], "dst": ["b", "c"]}), directed=False)
        >>> h = g.add_edges(pd.DataFrame({"src": ["c", "a"], "dst": ["d", "b"]}))
        >>> (g.num_vertices, g.num_edges), (h.num_vertices, h.num_edges), h.update_stats.repeated
        ((3, 2), (4, 3), 2)
        """
        from .updates.ops import add_edges

        return add_edges(self, df, source=source, destination=destination)

    def remove_edges(self, df: Any, *, source: Hashable = "src", destination: Hashable = "dst") -> Graph:
        """A new graph without the edges of ``df`` (a frame of ``source`` and ``destination``
        labels, or (src, dst) pairs): every arc between the two ends (both arcs of an undirected
        edge, named either way round; every repeat of a multigraph's). An edge the graph does
        not have is a no-op, counted in the new graph's ``update_stats.missing``. Vertices stay.

        >>> import pandas as pd, dgraph
        >>> g = dgraph.from_edgelist(pd.DataFrame({"src": [1, 2], "dst": [2, 3]}), directed=False)
        >>> h = g.remove_edges([(3, 2), (1, 3)])
        >>> h.num_edges, h.update_stats.missing
        (1, 1)
        """
        from .updates.ops import remove_edges

        if not hasattr(df, "columns"):
            df = pd.DataFrame(list(df), columns=["src", "dst"])
            source, destination = "src", "dst"
        return remove_edges(self, df, source=source, destination=destination)

    def add_vertices(self, vertices: Any, *, vertex_column: Hashable = "vertex") -> Graph:
        """A new graph with the vertices ``vertices`` (labels, or a frame whose ``vertex_column``
        holds them and whose other columns are among the graph's vertex attributes; a vertex
        without a value has nulls). Labels the graph has already are no-ops, counted in
        ``update_stats.missing``.

        >>> import pandas as pd, dgraph
        >>> g = dgraph.from_edgelist(pd.DataFrame({"src": [0], "dst": [1]}))
        >>> g.add_vertices([1, 2, 3]).num_vertices
        4
        """
        from .updates.ops import add_vertices

        return add_vertices(self, vertices, vertex_column=vertex_column)

    def remove_vertices(self, vertices: Any) -> Graph:
        """A new graph without the vertices ``vertices`` (labels) and their arcs. The ids of the
        others close up (each rank keeps its vertices, in their order); no result names a
        removed vertex. Labels the graph lacks are no-ops, counted in ``update_stats.missing``.

        >>> import pandas as pd, dgraph
        >>> g = dgraph.from_edgelist(pd.DataFrame({"src": ["a", "b"], "dst": ["b", "c"]}), directed=False)
        >>> h = g.remove_vertices(["b"])
        >>> h.num_vertices, h.num_edges, sorted(h.vertices().compute().vertex)
        (2, 0, ['a', 'c'])
        """
        from .updates.ops import remove_vertices

        return remove_vertices(self, vertices)

    def save(self, path: str | os.PathLike, *, overwrite: bool = False) -> None:
        """Write this graph to the directory ``path``, from the workers (``dgraph.persist.save``);
        ``dgraph.load(path)`` reads it back on any cluster without building it again.

        >>> import os, tempfile, dgraph
        >>> with tempfile.TemporaryDirectory() as d:
        ...     dgraph.datasets.load("karate").save(os.path.join(d, "karate"))
        ...     dgraph.load(os.path.join(d, "karate")).num_edges
        78
        """
        from .persist.save import save

        save(self, path, overwrite=overwrite)

    def snapshot(self) -> Snapshot:
        """The whole graph gathered to the client as numpy arrays (``dgraph.export.snapshot``)."""
        return export.snapshot(self)

    def to_networkx(self) -> Any:
        """A networkx (Di)Graph of this graph, for small graphs (``dgraph.export.to_networkx``)."""
        return export.to_networkx(self)


def _degrees(r: int, arcs: np.ndarray, loops: np.ndarray) -> dict:
    return {r: {"degree": arcs + loops}}


def _in_out_degrees(r: int, ins: np.ndarray, outs: np.ndarray) -> dict:
    return {r: {"in_degree": ins, "out_degree": outs}}
