"""Graph: a distributed graph placed on ranks, and ``from_edgelist`` that builds one.

Construction (all dask work, nothing collected on the client but a few counts):
renumber labels to canonical ids -> drop self-loops if asked -> symmetrize if undirected ->
out-degrees -> the layout's plan (placed order, rank bounds) -> every input partition cuts its
arcs by owner rank -> each rank concatenates its pieces and builds its CSR (duplicates dropped
there) -> blocks persisted, rank r on worker floor(r * W / P).
"""

from __future__ import annotations

import operator

import dask
import dask.distributed
import numpy as np
import pandas as pd

from .block import degree_pieces, owner_pieces, reverse_pieces, split_by_owner, with_owned_degree
from .cluster import get_client, workers
from .errors import DgraphInputError
from .labels import Labels, inverse_permutation, lookup
from .partitioners.oned import OneD
from .results import block_edges, edges_frame, part_name, rank_frames, ranks_frame, to_dask
from .runtime import RankResults, launch
from .runtime.launch import ensure_plugin
from .runtime.params import Deferred

DUPLICATES = ("drop", "keep")
SELF_LOOPS = ("keep", "drop")
VERTEX_ORDERS = ("labels", "degree")
# Below this many arcs a graph given no rank count goes on one rank (whose kernels may then use
# the idle workers' cores): measured on the datasets (2 workers), one rank's kernels are faster
# for BFS, SSSP, WCC, CDLP and LCC up to the 1000x1000 grid's 4.0 M arcs (BFS 67 vs 97 ms, WCC 49
# vs 72), PageRank there is slower (223 vs 153 ms), and Kronecker 18's 7.6 M is faster on two.
ONE_RANK_ARCS = 1 << 22


def _degree_count(part, n, both_ends=False):
    src, dst = part["src"].to_numpy(dtype=np.int64), part["dst"].to_numpy(dtype=np.int64)
    for ids in (src, dst):
        if ids.size and (ids.min() < 0 or ids.max() >= n):
            bad = ids[(ids < 0) | (ids >= n)][0]
            raise DgraphInputError(
                f"vertex id {bad} is outside 0..{n - 1}: with renumber=False ids must be the integers 0..n-1 "
                "(n = len(vertices)); use renumber=True for other labels"
            )
    count = np.bincount(src, minlength=n)
    return count + np.bincount(dst, minlength=n) if both_ends else count


def _halved_descending(counts):
    return np.sort(counts)[::-1] // 2


def _tree_sum(arrays):
    while len(arrays) > 1:
        arrays = [dask.delayed(np.add)(a, b) for a, b in zip(arrays[::2], arrays[1::2])] + (
            [arrays[-1]] if len(arrays) % 2 else []
        )
    return arrays[0]


def _split(part, inverse, bounds, weight, layout, extra):
    rows = part["src"].to_numpy(dtype=np.int64)
    cols = part["dst"].to_numpy(dtype=np.int64)
    if inverse is not None:
        rows, cols = inverse[rows], inverse[cols]
    w = part[weight].to_numpy(dtype=np.float64) if weight else None
    return split_by_owner(rows, cols, w, bounds, layout, extra, narrow=True)


def _symmetrize(part):
    back = part[part["src"] != part["dst"]].rename(columns={"src": "dst", "dst": "src"})
    return pd.concat([part, back[part.columns]], ignore_index=True)


def _arc_counts(block):
    return block.narcs, block.loops


def _compose(canonical, inverse):
    """Position -> placed id, from position -> canonical id and canonical -> placed id."""
    if canonical is None or inverse is None:
        return inverse if canonical is None else canonical
    return inverse[canonical]


def _placed_id(sorted_labels, table, label, what, dtype):
    position = lookup(sorted_labels, None, [label], what, dtype)[0]
    return int(position if table is None else table[position])


def _placed_labels(index, order):
    if index is None:
        return order
    return index[order] if order is not None else index


def _pick(ranks, pieces):
    """The pieces of these ranks out of one cut (a list with a piece per rank)."""
    return {r: pieces[r] for r in ranks}


def _with_pieces(fn, r, args, *groups):
    """``fn(*args, *pieces)`` with rank r's piece of every cut, from the groups of its worker."""
    return fn(*args, *[g[r] for g in groups])


def _route(client, cuts, where):
    """For each rank, the futures holding its pieces of every cut: one selection per (cut,
    worker) rather than per (cut, rank), so P ranks cost 2 x cuts x workers tasks, not cuts x P."""
    ranks_of = {}
    for r, w in enumerate(where):
        ranks_of.setdefault(w, []).append(r)
    group = {
        w: [client.submit(_pick, ranks, cut, workers=[w], allow_other_workers=True, pure=False) for cut in cuts]
        for w, ranks in ranks_of.items()
    }
    return [group[where[r]] for r in range(len(where))]


def _build_blocks(client, cuts, layout, bounds, n, direction, order, dedup, where, extra=None):
    """Rank r's block from piece r of every cut, built by ``layout`` (a 1D layout for owner
    blocks) on worker ``where[r]`` (or elsewhere if that worker is gone). Where a rank's rows are
    not its own vertices (2D, 1.5D) the blocks also get the degrees of their owned vertices."""
    blocks = [
        client.submit(
            _with_pieces,
            layout.build,
            r,
            (r, bounds, n, direction, order, dedup, extra),
            *groups,
            workers=[where[r]],
            allow_other_workers=True,
            pure=False,
        )
        for r, groups in enumerate(_route(client, cuts, where))
    ]
    if not layout.owns_rows():
        degrees = [client.submit(degree_pieces, b, bounds, pure=False) for b in blocks]
        blocks = [
            client.submit(
                _with_pieces,
                with_owned_degree,
                r,
                (b, int(bounds[r + 1] - bounds[r])),
                *groups,
                workers=[where[r]],
                allow_other_workers=True,
                pure=False,
            )
            for r, (b, groups) in enumerate(zip(blocks, _route(client, degrees, where)))
        ]
    dask.distributed.wait(blocks)
    return blocks


def _plan_extra(plan):
    return plan[2] if len(plan) > 2 else None


class Graph:
    """A graph placed on the ranks of a dask cluster. Build one with ``dgraph.from_edgelist``.

    Attributes: ``num_vertices``, ``num_edges`` (an undirected edge counted once), ``directed``,
    ``weight`` (the weight column or None), ``layout``, ``nranks``; ``last_stats`` holds the
    ``RunStats`` of the last algorithm run on it.
    """

    def __init__(
        self, client, labels, directed, weight, layout, order, inverse, bounds, blocks, duplicates, extra=None
    ):
        self.client = client
        self.labels = labels
        self.directed = directed
        self.weight = weight
        self.layout = layout
        self.nranks = layout.ranks
        self._order = order  # future: placed id -> canonical id, or None
        self._inverse = inverse
        self.bounds = bounds
        self._extra = extra  # future: what the layout's plan added (1.5D: heavy vertices), or None
        self._blocks = blocks
        self._rblocks = None if directed else blocks
        self._dedup = duplicates == "drop"
        self._placed = None
        self._table = None
        self._owned = {}  # reverse? -> 1D owner blocks
        self._facts = {}  # block_facts: function -> its value per block
        self._weights = None
        self.transport, self.domains = "direct", None
        self.last_stats, self._last_results = None, None
        self._metas = {}  # (result dtypes, columns) -> the empty frame describing such results

    def with_transport(self, transport, domains=None):
        """This graph with another transport (and domains): the same placed blocks, shared.

        >>> import dgraph
        >>> g = dgraph.datasets.load("karate", ranks=4).with_transport("grouped", domains=2)
        >>> int(dgraph.algorithms.bfs(g, 1).compute().distance.max()), len(g.last_stats.crossings) > 0
        (3, True)
        """
        import copy

        from .runtime.driver import TRANSPORTS

        if transport not in TRANSPORTS:
            raise DgraphInputError(f"transport must be one of {TRANSPORTS}, got {transport!r}")
        other = copy.copy(self)
        other.transport, other.domains, other.last_stats, other._last_results = transport, domains, None, None
        return other

    # ------------------------------------------------------------------ facts
    @property
    def num_vertices(self):
        return self.labels.n

    def block_facts(self, fn):
        """``[fn(block) for each of the layout's blocks]``, computed on the workers once per graph
        and function (blocks never change)."""
        if fn not in self._facts:
            self._facts[fn] = self.client.gather([self.client.submit(fn, b, pure=False) for b in self._blocks])
        return self._facts[fn]

    def _block_counts(self):
        return self.block_facts(_arc_counts)

    @property
    def num_arcs(self):
        """Stored arcs: edges for a directed graph, twice the non-loop edges for an undirected one."""
        return sum(a for a, _ in self._block_counts())

    @property
    def num_edges(self):
        arcs = self.num_arcs
        if self.directed:
            return arcs
        loops = sum(l for _, l in self._block_counts())
        return (arcs - loops) // 2 + loops

    def __repr__(self):
        kind = "directed" if self.directed else "undirected"
        return f"<dgraph.Graph {kind} n={self.num_vertices} m={self.num_edges} layout={self.layout!r}>"

    # ------------------------------------------------------------------ placement helpers
    def _placed_labels_future(self):
        if self._placed is None and (self.labels.index is not None or self._order is not None):
            self._placed = self.client.submit(_placed_labels, self.labels.index, self._order)
        return self._placed

    def _where(self, blocks):
        who = self.client.who_has(blocks)
        return [who[b.key][0] for b in blocks]

    def _reverse_blocks(self):
        """In-blocks of the layout (the flipped arcs, placed by the layout), built once."""
        if self._rblocks is None:
            c = self.client
            cuts = [
                c.submit(reverse_pieces, b, self.bounds, self.layout, self._extra, pure=False) for b in self._blocks
            ]
            self._rblocks = _build_blocks(
                c,
                cuts,
                self.layout,
                self.bounds,
                self.num_vertices,
                "in",
                self._order,
                self._dedup,
                self._where(self._blocks),
                self._extra,
            )
        return self._rblocks

    def _owner_blocks(self, reverse=False):
        """1D blocks (rank r holds the out- or in-arcs of its own vertices). The layout's own
        blocks when it is 1D; otherwise rebuilt once from them, for the algorithms that need a
        vertex's whole neighbourhood in one place."""
        if reverse not in self._owned:
            layout_blocks = self._reverse_blocks() if reverse else self._blocks
            if self.layout.owns_rows():
                self._owned[reverse] = layout_blocks
            elif not self.directed and reverse:
                self._owned[reverse] = self._owner_blocks(False)
            else:
                c = self.client
                cuts = [c.submit(owner_pieces, b, self.bounds, pure=False) for b in layout_blocks]
                self._owned[reverse] = _build_blocks(
                    c,
                    cuts,
                    OneD(self.nranks),
                    self.bounds,
                    self.num_vertices,
                    "in" if reverse else "out",
                    self._order,
                    self._dedup,
                    self._where(layout_blocks),
                )
        return self._owned[reverse]

    def encode_vertices(self, values, what="vertex"):
        """Placed ids of user labels (a DgraphInputError names the first unknown label)."""
        labels, table = self.labels, self._lookup_table()
        if labels.sorted is None:
            values = labels.positions(list(values), what)
            if table is None:
                return values
        return self.client.submit(lookup, labels.sorted, table, list(values), what, labels.dtype, pure=False).result()

    def vertex_param(self, label, what="vertex"):
        """The placed id of one user label, as a run's param: the int itself when the client can
        tell (labels 0..n-1 placed in their order), else a ``Deferred`` that each worker looks up
        in the tables it holds, so the run starts without a round trip first (an unknown label
        then fails the run as a DgraphInputError)."""
        labels, table = self.labels, self._lookup_table()
        if labels.sorted is None:
            position = int(labels.positions([label], what)[0])
            if table is None:
                return position
        return Deferred(_placed_id, labels.sorted, table, label, what, labels.dtype)

    def _lookup_table(self):
        """A future of each label position's placed id, or None where that is the position."""
        if self._table is None and (self.labels.canonical is not None or self._inverse is not None):
            self._table = self.client.submit(_compose, self.labels.canonical, self._inverse)
        return self._table

    def placed_ids(self, canonical):
        """Placed ids of canonical ids (the sorted positions of labels)."""
        if self._inverse is not None:
            canonical = self.client.submit(lambda inv, i: inv[i], self._inverse, canonical).result()
        return np.asarray(canonical, dtype=np.int64)

    # ------------------------------------------------------------------ running
    def run(self, kernel, reverse=False, name="run", placement="owner", finish=None, **params):
        """Run ``kernel(ctx, **params)`` on every worker holding ranks (see dgraph.runtime).

        ``ctx.blocks[r]`` is ``(out_block,)``, or ``(out_block, in_block)`` with ``reverse``.
        ``placement="owner"``: 1D owner blocks (a vertex's arcs at its owner, whatever the
        layout); ``"layout"``: the layout's own blocks, and the kernel also gets ``layout=``
        (algorithms on ``EdgeMap`` run this way).
        Returns ``(results, stats)``: a ``RankResults`` of what the kernel returned for each
        rank (``results.gather()`` fetches them) and the run's ``RunStats``. ``finish``: see
        ``dgraph.runtime.launch``.
        """
        if placement == "layout":
            outs, ins = self._blocks, (self._reverse_blocks() if reverse else None)
            params = dict(params, layout=self.layout)
        else:
            outs, ins = self._owner_blocks(), (self._owner_blocks(True) if reverse else None)
        blocks = [[o] for o in outs] if ins is None else [[o, i] for o, i in zip(outs, ins)]
        params = dict(params, bounds=self.bounds, key=self._order)
        results, stats = launch(
            self.client,
            blocks,
            kernel,
            params,
            timeout=_timeout(),
            name=name,
            transport=self.transport,
            domains=self.domains,
            weights=self._monitor_weights(),
            finish=finish,
        )
        self.last_stats, self._last_results = stats, results
        return results, stats

    def _monitor_weights(self):
        """Per rank, the largest degree among its vertices: domain monitors go to the ranks
        holding the heaviest vertices (TuCOMM 6.3). Computed once, only for runs with domains."""
        if self.domains is None and self.transport == "direct":
            return None
        return self._rank_max_degrees()

    def _rank_max_degrees(self):
        """Per rank, the largest degree among its vertices (computed once)."""
        if self._weights is None:
            self._weights = self.client.gather([self.client.submit(_heaviest, b, pure=False) for b in self._blocks])
        return self._weights

    @property
    def max_degree(self):
        """The largest number of arcs at one vertex (out-arcs when directed; loops and repeated
        arcs count)."""
        return max(self._rank_max_degrees(), default=0)

    def run_to_frame(self, kernel, label_columns=(), nullable=(), transform=None, **run_args):
        """``run(kernel, **run_args)`` with its results as a dask DataFrame [vertex, ...], each worker
        making its partition from its ranks' results before it keeps them: no task after the run
        (``to_frame`` describes the columns)."""
        columns = (tuple(label_columns), tuple(nullable), transform)
        labels = self._placed_labels_future()
        results, stats = self.run(kernel, finish=(rank_frames, self.bounds, labels, *columns), **run_args)
        return to_dask(self.client, results.futures, self._frame_meta(stats.result_dtypes, columns))

    def to_frame(self, results, label_columns=(), nullable=(), transform=None):
        """A dask DataFrame [vertex, ...] from a ``RankResults`` of per-rank dicts of arrays
        (``transform(dict) -> dict`` applied first; placed-id columns in ``label_columns``
        decoded; ``nullable`` columns null where negative (integers) or not finite (floats)).
        One partition per run of consecutive ranks on one worker: with ranks placed in blocks,
        one per worker."""
        labels = self._placed_labels_future()
        columns = (tuple(label_columns), tuple(nullable), transform)
        name = part_name("vertices")
        parts = [
            self.client.submit(
                ranks_frame,
                f,
                [(r, int(self.bounds[r]), int(self.bounds[r + 1])) for r in ranks],
                labels,
                *columns,
                key=(name, i),
            )
            for i, (f, ranks) in enumerate(results.runs())
        ]
        dtypes = self.last_stats.result_dtypes if results is self._last_results else None
        return to_dask(self.client, parts, self._frame_meta(dtypes, columns))

    def _frame_meta(self, dtypes, columns):
        """The empty result frame for results of these ``dtypes`` (a run reports them, so no
        round trip fetches one; None when unknown), kept per kind of result (pandas takes ms to
        build one)."""
        if dtypes is None:
            return None
        key = (tuple(dtypes.items()), columns)
        meta = self._metas.get(key)
        if meta is None:
            empty = None if self._placed_labels_future() is None else pd.Index([], dtype=self.labels.dtype)
            meta = ranks_frame({0: {k: np.empty(0, dt) for k, dt in dtypes.items()}}, [(0, 0, 0)], empty, *columns)
            if columns[2] is None:  # a transform may be a fresh closure each call
                self._metas[key] = meta
        return meta

    def layout_report(self, measure=False):
        """Per-rank placement facts and dense-superstep traffic (see ``dgraph.report``)."""
        from .report import layout_report

        return layout_report(self, measure)

    def degrees(self):
        """Dask DataFrame [vertex, degree] (undirected; a self-loop counts twice, as in networkx)
        or [vertex, in_degree, out_degree] (directed), with duplicates dropped per the policy."""
        c = self.client
        if self.directed:
            res = [
                c.submit(lambda r, o, i: {r: {"in_degree": i.degree(), "out_degree": o.degree()}}, r, o, i, pure=False)
                for r, (o, i) in enumerate(zip(self._owner_blocks(), self._owner_blocks(True)))
            ]
        else:
            res = [
                c.submit(lambda r, b: {r: {"degree": b.degree() + b.loop_counts()}}, r, b, pure=False)
                for r, b in enumerate(self._owner_blocks())
            ]
        return self.to_frame(RankResults(c, res, [[r] for r in range(self.nranks)]))

    def edges(self):
        """Dask DataFrame [src, dst(, weight)] of the stored arcs in the user's labels (both arcs of
        an undirected edge); the weight column keeps the name the graph was built with."""
        labels = self._placed_labels_future()
        arrays = [self.client.submit(block_edges, b, pure=False) for b in self._blocks]
        name = part_name("edges")
        parts = [self.client.submit(edges_frame, a, labels, self.weight, key=(name, i)) for i, a in enumerate(arrays)]
        return to_dask(self.client, parts)

    def to_networkx(self):
        """A networkx (Di)Graph of this graph, for small graphs (needs networkx installed); weights
        are stored under the graph's weight name."""
        try:
            import networkx as nx
        except ImportError as exc:
            raise ImportError("to_networkx needs networkx: pip install networkx") from exc
        G = nx.DiGraph() if self.directed else nx.Graph()
        vertices = self.degrees()["vertex"].compute()
        G.add_nodes_from(vertices.tolist())
        e = self.edges().compute()
        if self.weight:
            G.add_weighted_edges_from(
                zip(e["src"].tolist(), e["dst"].tolist(), e[self.weight].tolist()), weight=self.weight
            )
        else:
            G.add_edges_from(zip(e["src"].tolist(), e["dst"].tolist()))
        return G


def _heaviest(block):
    degree = block.owned_degree if block.owned_degree is not None else block.parts[0].degree()
    return int(degree.max()) if degree.size else 0


def _timeout():
    return float(dask.config.get("dgraph.timeout", 600))


def _to_dask(df, what):
    import dask.dataframe as dd

    if isinstance(df, dd.DataFrame):
        return df
    if isinstance(df, pd.DataFrame):
        parts = max(1, min(16, len(df) // 250_000 + 1))
        return dd.from_pandas(df, npartitions=parts)
    raise DgraphInputError(f"{what} must be a pandas or dask DataFrame, got {type(df).__name__}")


def _vertices_series(vertices):
    import dask.dataframe as dd

    if isinstance(vertices, dd.Series):
        return vertices
    if isinstance(vertices, dd.DataFrame):
        raise DgraphInputError(
            "vertices= must be a Series (or list/array) of labels, not a DataFrame; pass df['vertex']"
        )
    s = pd.Series(vertices if not isinstance(vertices, pd.Index) else vertices.to_numpy())
    return dd.from_pandas(s, npartitions=max(1, min(8, len(s) // 1_000_000 + 1)))


def from_edgelist(
    df,
    source="src",
    destination="dst",
    weight=None,
    directed=True,
    vertices=None,
    layout="1d",
    ranks=None,
    duplicates="drop",
    self_loops="keep",
    renumber=True,
    vertex_order="labels",
    client=None,
    transport="direct",
    domains=None,
):
    """Build a distributed graph from an edge list.

    Parameters
    ----------
    df : pandas.DataFrame or dask.dataframe.DataFrame
        One row per edge.
    source, destination : str
        Columns holding the endpoint labels: integers of any size or strings.
    weight : str, optional
        Column of edge weights (float). Without it the graph is unweighted.
    directed : bool
        ``False`` stores both arcs of every edge (a self-loop once).
    vertices : Series, list or array, optional
        All vertex labels, so vertices without edges exist too.
    layout : str or dgraph.partitioners.Layout
        ``"1d"``, ``"2d"``, ``"1.5d"``, ``"tdorch"`` or a layout object such as ``OneD(ranks=8,
        balance="striped")``, ``TwoD(rows=2, cols=4)`` or ``OnePointFiveD(e_threshold=...)``.
    ranks : int, optional
        Logical ranks. May exceed the number of workers. Default: one per worker, or a single
        rank for a graph of fewer than ``ONE_RANK_ARCS`` (2**22) arcs, where exchanging costs
        more than a second core gives. Give ``ranks`` (or a layout with its ranks) to spread
        a small graph anyway.
    duplicates : {"drop", "keep"}
        Repeated arcs are dropped (keeping the smallest weight) or kept as a multigraph.
    self_loops : {"keep", "drop"}
    renumber : bool
        ``False`` declares the labels to be the integers 0..n-1 (n = largest id + 1, or the
        length of ``vertices``) and skips renumbering.
    vertex_order : {"labels", "degree"}
        The canonical order of the vertices: the sorted labels, or by descending degree (ties by
        label). Results are the same vertices in your labels either way; where an algorithm
        breaks ties by canonical id (a BFS parent: the smallest), ``"degree"`` prefers hubs. On
        skewed graphs (social, web, Kronecker) it makes searches faster: every adjacency lists
        its hubs first, so a bottom-up BFS step finds a parent in a row's first arcs (Graph 500
        scale 20: BFS kernel -25 to -30%). Keep ``"labels"`` for roads and meshes whose labels
        carry locality. With ``layout="1d"`` the vertices are then dealt to ranks in turn
        (``OneD(balance="striped")``), so every rank gets its share of hubs.
    transport : {"direct", "grouped"}
        How supersteps move messages: one per rank pair, or TuCOMM's aggregation through one
        monitor per communication domain (see ``dgraph.runtime.grouped``).
    domains : optional
        The communication domains (``dgraph.runtime.domains``: by host by default, an int K for
        K contiguous rank groups, a dict of worker lists, or a function). With domains, run
        stats split traffic into inter- and intra-domain (``g.last_stats.by_domain()``).

    Returns
    -------
    Graph

    Examples
    --------
    >>> import pandas as pd, dgraph
    >>> edges = pd.DataFrame({"src": ["a", "b", "c"], "dst": ["b", "c", "a"]})
    >>> g = dgraph.from_edgelist(edges, directed=False)
    >>> g.num_vertices, g.num_edges
    (3, 3)
    """
    from .partitioners import resolve_layout

    client = client or get_client()
    df = _to_dask(df, "df")
    for what, col in (("source", source), ("destination", destination), ("weight", weight)):
        if col is not None and col not in df.columns:
            raise DgraphInputError(f"{what} column {col!r} is not in the edge list; its columns are {list(df.columns)}")
    if source == destination:
        raise DgraphInputError(f"source and destination are the same column {source!r}")
    if weight is not None and not pd.api.types.is_numeric_dtype(df[weight].dtype):
        raise DgraphInputError(f"weight column {weight!r} has dtype {df[weight].dtype}; weights must be numeric")
    if duplicates not in DUPLICATES:
        raise DgraphInputError(f"duplicates must be one of {DUPLICATES}, got {duplicates!r}")
    if self_loops not in SELF_LOOPS:
        raise DgraphInputError(f"self_loops must be one of {SELF_LOOPS}, got {self_loops!r}")
    if vertex_order not in VERTEX_ORDERS:
        raise DgraphInputError(f"vertex_order must be one of {VERTEX_ORDERS}, got {vertex_order!r}")
    if vertex_order == "degree" and isinstance(layout, str) and layout.lower() == "1d":
        layout = OneD(balance="striped")  # contiguous ranges of a degree order: every hub on rank 0
    ensure_plugin(client)  # before the first task: it also tunes the workers' allocator
    wk = workers(client)
    one_rank_below = ONE_RANK_ARCS if ranks is None and getattr(layout, "ranks", None) is None else 0
    layout = resolve_layout(layout, ranks, len(wk))
    from .runtime.driver import TRANSPORTS

    if transport not in TRANSPORTS:
        raise DgraphInputError(f"transport must be one of {TRANSPORTS}, got {transport!r}")

    edges = df[[source, destination] + ([weight] if weight else [])]
    edges = edges.rename(columns={source: "src", destination: "dst", **({weight: "weight"} if weight else {})})
    if renumber:
        vseries = [_vertices_series(vertices)] if vertices is not None else []
        labels = Labels.build(client, [edges["src"], edges["dst"]] + vseries)
    else:
        n = len(vertices) if vertices is not None else None
        if n is None:
            hi = client.compute(edges[["src", "dst"]].max().max()).result()
            n = 0 if pd.isna(hi) else int(hi) + 1
        labels = Labels.identity(n)
    if labels.n == 0:
        raise DgraphInputError("the edge list is empty and no vertices= were given: a graph needs at least one vertex")
    edges = labels.encode(edges, ["src", "dst"])  # with renumber=False: a null check, ids checked below
    if self_loops == "drop":
        edges = edges[edges["src"] != edges["dst"]]
    if not directed:
        edges = edges.map_partitions(_symmetrize, meta=edges._meta)
    out_degree = None
    if vertex_order == "degree":
        ends = client.compute(_tree_sum([dask.delayed(_degree_count)(p, labels.n, True) for p in edges.to_delayed()]))
        labels = labels.by_degree(client, ends)
        edges = labels.reorder(edges, ["src", "dst"])
        if not directed:  # every arc was counted at both ends: twice the out-degrees, in canonical order
            out_degree = client.submit(_halved_descending, ends)
    g = _place(client, edges, labels, directed, weight, layout, duplicates, wk, one_rank_below, out_degree)
    g.transport, g.domains = transport, domains
    return g


def _place(client, edges, labels, directed, weight, layout, duplicates, wk, one_rank_below=0, out_degree=None):
    parts = edges.to_delayed()
    degree = (
        out_degree
        if out_degree is not None
        else client.compute(_tree_sum([dask.delayed(_degree_count)(p, labels.n) for p in parts]))
    )
    if layout.ranks > 1 and one_rank_below and client.submit(np.sum, degree).result() < one_rank_below:
        layout = layout.with_ranks(1)
    n, P = labels.n, layout.ranks
    plan = client.submit(layout.plan, degree, pure=False)
    order = client.submit(operator.itemgetter(0), plan, pure=False)
    bounds = np.asarray(client.submit(operator.itemgetter(1), plan, pure=False).result(), dtype=np.int64)
    extra = client.submit(_plan_extra, plan, pure=False)
    if client.submit(lambda e: e is None, extra).result():
        extra.release()
        extra = None
    else:
        layout = client.submit(layout.resolve, extra, pure=False).result()
    if client.submit(lambda o: o is None, order).result():
        order.release()
        order = None
    inverse = client.submit(inverse_permutation, order) if order is not None else None
    w = "weight" if weight else None
    cuts = [client.compute(dask.delayed(_split)(p, inverse, bounds, w, layout, extra)) for p in parts]
    where = [wk[r * len(wk) // P] for r in range(P)]
    blocks = _build_blocks(client, cuts, layout, bounds, n, "out", order, duplicates == "drop", where, extra)
    del cuts, degree, plan
    return Graph(client, labels, directed, weight, layout, order, inverse, bounds, blocks, duplicates, extra)
