"""Graph: a distributed graph placed on ranks (``dgraph.build.from_edgelist`` makes one).

A Graph holds its rank blocks (futures on the workers), its labels' tables and its layout. It
runs kernels over its ranks (``run``, ``run_to_frame``), derives the owner and reverse blocks an
algorithm asks for, keeps its blocks spread over the live workers, and turns results into
DataFrames in the user's labels.
"""

from __future__ import annotations

import operator
import time
import weakref
from collections import Counter
from typing import NamedTuple

import dask
import numpy as np
import pandas as pd

from .block import Block, block_arcs, own_canonical, owner_pieces, reverse_pieces
from .cluster import workers
from .dask_internals import fetch, wait_for
from .errors import DgraphError, DgraphInputError
from .labels import lookup
from .layout import by_owner
from .placement import PlacementSpec, each_held, owned_counts, ranks_by_worker, rebuild_blocks
from .results import FrameColumns, RankLabels, part_name, rank_frames, rows_frames, to_dask, vertex_frames
from .runtime import RankResults, launch
from .runtime.launch import client_state, lookup_held

SPREAD_EVERY = 5.0  # seconds between looks at whether rank blocks still cover the live workers
SPREAD_WITHIN = 60.0  # seconds moving blocks to a worker may take before they stay where they are
PLACED_REMEMBERED = 1024  # labels a graph remembers the placed ids of (vertex_param)


def _shape(block):
    """A block's arcs, its self-loops and the largest degree among its rank's vertices: the
    facts the first run on a graph asks for, fetched together."""
    degree = block.owned_degree if block.owned_degree is not None else block.parts[0].degree()
    return block.narcs, block.loops, int(degree.max()) if degree.size else 0


def _compose(canonical, inverse):
    """Position -> placed id, from position -> canonical id and canonical -> placed id."""
    if canonical is None or inverse is None:
        return inverse if canonical is None else canonical
    return inverse[canonical]


def _placed_id(sorted_labels, table, label, what, dtype):
    position = lookup(sorted_labels, None, [label], what, dtype)[0]
    return int(position if table is None else table[position])


def _label_piece(index, order, lo, hi):
    """The labels of the placed ids lo..hi-1."""
    return index[lo:hi] if order is None else index[np.asarray(order[lo:hi])]


def _label_pieces(index, order, spans):
    return [_label_piece(index, order, lo, hi) for lo, hi in spans]


class Snapshot(NamedTuple):
    """A graph on the client (``Graph.snapshot``), in placed ids 0..n-1: ``labels[i]`` is the
    user's label of vertex i, ``key[i]`` its position in the graph's vertex order (ties between
    vertices break by it), and the stored arcs ``src[j] -> dst[j]`` (both arcs of an undirected
    edge) with their ``weights`` (None when unweighted)."""

    n: int
    directed: bool
    labels: pd.Index
    key: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    weights: np.ndarray | None


class Graph:
    """A graph placed on the ranks of a dask cluster. Build one with ``dgraph.from_edgelist``.

    Attributes: ``num_vertices``, ``num_edges`` (an undirected edge counted once), ``directed``,
    ``weight`` (the weight column or None), ``layout``, ``nranks``; ``last_stats`` holds the
    ``RunStats`` of the last algorithm run on it.
    """

    builder = None  # dgraph.build.from_edgelist, set there (build imports this module, not the reverse)

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
        self._pieces = None  # per rank: a future of its own vertices' labels (results.RankLabels)
        self._table = None
        self._placed = {}  # (type, label) -> its placed id, as vertex_param looked it up
        self._owned = {}  # reverse? -> 1D owner blocks
        self._facts = {}  # block_facts: function -> its value per block
        self.local_share = None  # the share of arcs whose two ends one rank owns, once a run counted it
        self.transport, self.domains = "direct", None
        self.last_stats, self._last_results = None, None
        self._metas = {}  # (result dtypes, columns) -> the empty frame describing such results
        self._spread_checked = time.monotonic()  # when the blocks' placement was last looked at

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
            self._facts[fn] = self.each_block(fn)
        return self._facts[fn]

    def each_block(self, fn, *args):
        """``[fn(block, *args) for each of the layout's blocks]``, in rank order: computed on the
        workers, one task per worker (not per rank)."""
        return each_held(self.client, fn, self._blocks, self._where(self._blocks), *args)

    def _block_counts(self):
        return [(arcs, loops) for arcs, loops, _ in self.block_facts(_shape)]

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
    def _finish_labels(self):
        """How a result frame names placed ids (``results.RankLabels``): None where placed ids
        are the labels; otherwise each rank keeps the labels of its own vertices with its blocks
        (these pieces, a future per rank) and asks owners for others. Where the labels are the
        canonical ids the blocks know them (``Block.space_key``)."""
        if self.labels.index is None and self._order is None:
            return None
        if self._pieces is None:
            # beside the blocks, and remade wherever dask can when a worker is lost (the next
            # run puts them back beside the blocks: _spread_blocks)
            c, index, loose = self.client, self.labels.index, dict(allow_other_workers=True, pure=False)
            spans = [(int(lo), int(hi)) for lo, hi in zip(self.bounds[:-1], self.bounds[1:])]
            where = self._where(self._blocks)
            if index is None:  # the canonical ids, which the blocks keep
                self._pieces = [
                    c.submit(own_canonical, b, lo, hi, workers=[w], **loose)
                    for b, (lo, hi), w in zip(self._blocks, spans, where)
                ]
            else:  # made where the index is, so only the pieces travel: each worker's in one go
                maker = list(c.who_has([index]).get(index.key, ())) or None
                held = ranks_by_worker(where)
                made = {
                    w: c.submit(_label_pieces, index, self._order, [spans[r] for r in ranks], workers=maker, **loose)
                    for w, ranks in held.items()
                }
                self._pieces = [
                    c.submit(operator.getitem, made[w], held[w].index(r), workers=[w], **loose)
                    for r, w in enumerate(where)
                ]
        return self._pieces

    def _where(self, blocks):
        who = self.client.who_has(blocks)
        return [who[b.key][0] for b in blocks]

    def _reverse_blocks(self):
        """In-blocks of the layout (the flipped arcs, placed by the layout), built once."""
        if self._rblocks is None:
            self._rblocks = rebuild_blocks(
                self.client,
                self._blocks,
                self._where(self._blocks),
                reverse_pieces,
                (self.bounds, self.layout, self._extra),
                PlacementSpec(self.layout, self.bounds, self.num_vertices, "in", self._dedup, self.weight is not None),
                key=self._order,
                extra=self._extra,
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
                self._owned[reverse] = rebuild_blocks(
                    self.client,
                    layout_blocks,
                    self._where(layout_blocks),
                    owner_pieces,
                    (self.bounds,),
                    PlacementSpec(
                        by_owner(self.nranks),
                        self.bounds,
                        self.num_vertices,
                        "in" if reverse else "out",
                        self._dedup,
                        self.weight is not None,
                    ),
                    key=self._order,
                    counts=lambda: self._owned_counts(layout_blocks),  # each row's arcs: its vertex's degree
                )
        return self._owned[reverse]

    def encode_vertices(self, values, what="vertex"):
        """Placed ids of user labels (a DgraphInputError names the first unknown label)."""
        labels, table = self.labels, self._lookup_table()
        if labels.sorted is None:
            values = labels.positions(list(values), what)
            if table is None:
                return values
        placed = lookup_held(self.client, labels.sorted, table, list(values), what, labels.dtype)
        if placed is not None:
            return placed
        return self.client.submit(lookup, labels.sorted, table, list(values), what, labels.dtype, pure=False).result()

    def vertex_param(self, label, what="vertex"):
        """The placed id of one user label, as a run's param: the int itself when the client can
        tell (labels 0..n-1 placed in their order) or can ask the worker holding the label
        tables directly, else a future of it, looked up there by a task; so only the id reaches
        the run's workers, not tables of every vertex (an unknown label fails the call as a
        DgraphInputError before the run starts). Ids asked of the workers are remembered (up to
        ``PLACED_REMEMBERED`` labels): calls from the same source skip that round trip."""
        key = (type(label), label)
        try:
            return self._placed[key]
        except KeyError:
            pass
        except TypeError:  # a label no dict can hold: asked each time
            key = None
        labels, table = self.labels, self._lookup_table()
        if labels.sorted is None:
            position = int(labels.positions([label], what)[0])
            if table is None:
                return position
        placed = lookup_held(self.client, labels.sorted, table, [label], what, labels.dtype)
        if placed is None:
            return self.client.submit(_placed_id, labels.sorted, table, label, what, labels.dtype)
        if key is not None:
            if len(self._placed) >= PLACED_REMEMBERED:
                self._placed.clear()
            self._placed[key] = int(placed[0])
        return int(placed[0])

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
    def run(
        self,
        kernel,
        reverse=False,
        name="run",
        placement="owner",
        finish=None,
        finish_blocks=None,
        per_vertex=None,
        **params,
    ):
        """Run ``kernel(ctx, **params)`` on every worker holding ranks (see dgraph.runtime).

        ``ctx.blocks[r]`` is ``(out_block,)``, or ``(out_block, in_block)`` with ``reverse``;
        with ``per_vertex`` (an array over placed ids, on the client) it ends with rank r's
        slice of it, scattered beside the rank's blocks, so no worker holds the whole array.
        ``placement="owner"``: 1D owner blocks (a vertex's arcs at its owner, whatever the
        layout); ``"layout"``: the layout's own blocks, and the kernel also gets ``layout=``
        (algorithms on ``EdgeMap`` run this way).
        Returns ``(results, stats)``: a ``RankResults`` of what the kernel returned for each
        rank (``results.gather()`` fetches them) and the run's ``RunStats``. ``finish`` and
        ``finish_blocks``: see ``dgraph.runtime.launch``.
        """
        self._check_blocks()
        self._spread_blocks()
        if placement == "layout":
            outs, ins = self._blocks, (self._reverse_blocks() if reverse else None)
            params = dict(params, layout=self.layout)
        else:
            outs, ins = self._owner_blocks(), (self._owner_blocks(True) if reverse else None)
        blocks = [[o] for o in outs] if ins is None else [[o, i] for o, i in zip(outs, ins)]
        if per_vertex is not None:
            spans, where = zip(self.bounds[:-1], self.bounds[1:]), self._where(outs)
            for b, (lo, hi), w in zip(blocks, spans, where):
                b.append(self.client.scatter(per_vertex[lo:hi], workers=[w], hash=False))
        params = dict(params, bounds=self.bounds)
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
            finish_blocks=finish_blocks,
        )
        # weakly: a result the caller dropped must not stay on the workers until the next run
        self.last_stats, self._last_results = stats, weakref.ref(results)
        self.local_share = stats.info.get("local_share", self.local_share)
        return results, stats

    def _block_lists(self):
        """Every list of rank blocks this graph holds (layout, reverse, owner), each once."""
        lists = [self._blocks, self._rblocks, *self._owned.values(), self._pieces]
        return [b for i, b in enumerate(lists) if b is not None and all(b is not c for c in lists[:i])]

    def _check_blocks(self):
        """A graph whose blocks the cluster no longer has (``client.restart()``, a new client) is
        an error that says what to do, not dask's CancelledError."""
        if any(f.status == "cancelled" for blocks in self._block_lists() for f in blocks):
            raise DgraphError(
                "this graph's blocks are gone from the cluster (it restarted, or the client that built the graph "
                "reconnected): build the graph again (dgraph.from_edgelist, read_edgelist, datasets.load)"
            )

    def _spread_blocks(self):
        """Put rank blocks back over all live workers when some worker holds more than its share:
        after a worker is lost its blocks are rebuilt wherever dask finds room (all on the
        survivors, or some on a worker that joined since), and a worker that joins later (a
        restarted nanny, a new job) would otherwise get none. The blocks derived from the
        layout's (reverse, owner) are dropped then, to be rebuilt from the moved ones, since
        their recipes name the blocks they came from. Looked at once every ``SPREAD_EVERY``
        seconds."""
        now = time.monotonic()
        if now - self._spread_checked < SPREAD_EVERY:
            return
        self._spread_checked = now
        live = workers(self.client)
        if len(live) < 2:
            return
        for blocks in (self._blocks, self._pieces):
            if blocks is not None:
                wait_for(blocks)  # blocks lost with a worker are being rebuilt: they land first, then move
        if self._spread(self._blocks, live):  # reverse and owner blocks: rebuilt from the moved ones
            self._rblocks = None if self.directed else self._blocks
            self._owned = {}
        if self._pieces is not None:
            self._spread(self._pieces, live)

    def _spread(self, blocks, live):
        """Move ``blocks`` (in place) so each live worker holds its share; whether any moved."""
        who = self.client.who_has(blocks)
        where = [(who.get(b.key) or [None])[0] for b in blocks]
        targets = [live[r * len(live) // len(blocks)] for r in range(len(blocks))]
        fair = -(-len(blocks) // len(live))  # ranks per worker when spread evenly
        if None in where or max(Counter(where).values()) <= fair:
            return False
        moved = [
            b if w == t else self.client.submit(_same, b, workers=[t], allow_other_workers=False, pure=False)
            for b, w, t in zip(blocks, where, targets)
        ]
        try:
            wait_for(moved, timeout=SPREAD_WITHIN)
        except TimeoutError:  # a target left meanwhile: keep the blocks where they are
            self.client.cancel([m for m, b in zip(moved, blocks) if m is not b])
            return False
        blocks[:] = moved  # in place: every holder of this list (owner blocks of 1D) sees the move
        return True

    def _monitor_weights(self):
        """Per rank, the largest degree among its vertices: domain monitors go to the ranks
        holding the heaviest vertices (TuCOMM 6.3). Computed once, only for runs with domains."""
        if self.domains is None and self.transport == "direct":
            return None
        return self._rank_max_degrees()

    def _rank_max_degrees(self):
        """Per rank, the largest degree among its vertices (computed once)."""
        return [heaviest for _, _, heaviest in self.block_facts(_shape)]

    @property
    def max_degree(self):
        """The largest number of arcs at one vertex (out-arcs when directed; loops and repeated
        arcs count)."""
        return max(self._rank_max_degrees(), default=0)

    def run_to_frame(self, kernel, label_columns=(), nullable=(), transform=None, **run_args):
        """``run(kernel, **run_args)`` with its results as a dask DataFrame [vertex, ...], each worker
        making its partition from its ranks' results before it keeps them: no task after the run
        (``results.vertex_frames`` describes the columns)."""
        columns = (tuple(label_columns), tuple(nullable), transform)
        pieces = self._finish_labels()
        finish = (rank_frames, self.bounds, FrameColumns(*columns))
        results, stats = self.run(kernel, finish=finish, finish_blocks=_each(pieces), **run_args)
        return self._to_dask(results.futures, self._frame_meta(stats.result_dtypes, columns), results.copies)

    def run_to_rows(self, kernel, label_columns=(), nullable=(), list_columns=(), **run_args):
        """``run(kernel, **run_args)`` whose ranks return free-standing rows (any number per rank,
        see ``results.rows_frames``), as a dask DataFrame."""
        pieces = self._finish_labels()
        columns = FrameColumns(tuple(label_columns), tuple(nullable), None, tuple(list_columns))
        finish = (rows_frames, self.bounds, columns)
        results, _ = self.run(kernel, finish=finish, finish_blocks=_each(pieces), **run_args)
        return self._to_dask(results.futures, copies=results.copies)

    def to_frame(self, results, nullable=(), transform=None):
        """A dask DataFrame [vertex, ...] from a ``RankResults`` of per-rank dicts of arrays, one
        value per vertex (``transform(dict) -> dict`` applied first; ``nullable`` columns null
        where negative (integers) or not finite (floats)). One partition per run of consecutive
        ranks on one worker: with ranks placed in blocks, one per worker. Columns of placed ids
        are decoded by a run's finish instead (``run_to_frame``)."""
        pieces = self._finish_labels()
        name = part_name("vertices")
        parts = [
            self.client.submit(
                _part_frame,
                f,
                ranks,
                self.bounds,
                None if pieces is None else [pieces[r] for r in ranks],
                tuple(nullable),
                transform,
                key=(name, i),
            )
            for i, (f, ranks) in enumerate(results.runs())
        ]
        last = self._last_results and self._last_results()
        dtypes = self.last_stats.result_dtypes if results is last else None
        return self._to_dask(parts, self._frame_meta(dtypes, ((), tuple(nullable), transform)))

    def _to_dask(self, parts, meta=None, copies=None):
        """``results.to_dask`` of parts this graph's run left on its workers: computed from the
        ``copies`` the run brought back (small frames), else straight from the workers while
        the client's runs reach them directly."""
        return to_dask(self.client, parts, meta, direct=client_state(self.client).direct, copies=copies)

    def _frame_meta(self, dtypes, columns):
        """The empty result frame for results of these ``dtypes`` (a run reports them, so no
        round trip fetches one; None when unknown), kept per kind of result (pandas takes ms to
        build one)."""
        if dtypes is None:
            return None
        key = (tuple(dtypes.items()), columns)
        meta = self._metas.get(key)
        if meta is None:
            ids_are_labels = self.labels.index is None and self._order is None
            empty = RankLabels(None, [0, 0], None if ids_are_labels else pd.Index([], dtype=self.labels.dtype))
            meta = vertex_frames(empty, {0: {k: np.empty(0, dt) for k, dt in dtypes.items()}}, *columns)
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
            ins, outs = self._owned_counts(self._reverse_blocks()), self._owned_counts(self._blocks)
            res = [
                c.submit(lambda r, i, o: {r: {"in_degree": i, "out_degree": o}}, r, i, o, pure=False)
                for r, (i, o) in enumerate(zip(ins, outs))
            ]
        else:
            arcs, loops = self._owned_counts(self._blocks), self._owned_counts(self._blocks, loops=True)
            res = [
                c.submit(lambda r, a, s: {r: {"degree": a + s}}, r, a, s, pure=False)
                for r, (a, s) in enumerate(zip(arcs, loops))
            ]
        return self.to_frame(RankResults(c, res, [[r] for r in range(self.nranks)]))

    def _owned_counts(self, blocks, loops=False):
        """For each rank, a future of the arcs (self-loops alone with ``loops``) of every vertex
        it owns in ``blocks`` (the layout's, or their reverse): no owner blocks built for it."""
        c = self.client
        if self.layout.owns_rows():
            return [c.submit(Block.loop_counts if loops else Block.degree, b, pure=False) for b in blocks]
        if not loops:  # summed when the blocks were built
            return [c.submit(operator.attrgetter("owned_degree"), b, pure=False) for b in blocks]
        return owned_counts(c, blocks, self.bounds, self._where(blocks), loops=True)

    def edges(self):
        """Dask DataFrame [src, dst(, weight)] of the stored arcs in the user's labels (both arcs of
        an undirected edge); the weight column keeps the name the graph was built with."""
        last = self.last_stats, self._last_results  # a view of the graph: the last algorithm's stats stay
        try:
            return self.run_to_rows(
                _edges_kernel, label_columns=("src", "dst"), name="edges", placement="layout", weight=self.weight
            )
        finally:
            self.last_stats, self._last_results = last

    def subgraph(self, vertices):
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
        vertices = pd.unique(pd.Series(list(vertices)))
        if vertices.size == 0:
            raise DgraphInputError("subgraph needs at least one vertex")
        labels = vertices.tolist()
        self.encode_vertices(labels, "subgraph vertex")  # every label must be a vertex
        arcs = self.edges()
        inside = arcs.src.isin(labels) & arcs.dst.isin(labels)
        return self._rebuilt(arcs[inside], vertices=vertices)

    def edge_subgraph(self, edges):
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
        kept = arcs.merge(pairs.astype({"src": arcs.src.dtype, "dst": arcs.dst.dtype}), on=["src", "dst"], how="inner")
        return self._rebuilt(kept)

    def _rebuilt(self, arcs, vertices=None):
        """A graph of these arcs (a frame of this graph's ``edges()``) placed as this one is."""
        if not self.directed:  # edges() lists both arcs of an edge: one is the edge
            arcs = arcs[arcs.src <= arcs.dst]
        return self.builder(
            arcs,
            weight=self.weight,
            directed=self.directed,
            vertices=vertices,
            layout=self.layout,
            duplicates="drop" if self._dedup else "keep",
            client=self.client,
            transport=self.transport,
            domains=self.domains,
        )

    def snapshot(self):
        """The whole graph gathered to the client as numpy arrays (for verification and small
        analyses): a ``Snapshot`` of placed ids. Memory: about 24 bytes per stored arc."""
        c = self.client
        arcs = c.gather([c.submit(block_arcs, b, pure=False) for b in self._blocks])
        index, n = self.labels.index, self.num_vertices
        placed = self._order if index is None else c.submit(_label_piece, index, self._order, 0, n)
        labels, order = c.gather([placed, self._order])
        n = self.num_vertices
        src = np.concatenate([a[0] for a in arcs]).astype(np.int64)
        dst = np.concatenate([a[1] for a in arcs]).astype(np.int64)
        weights = None if self.weight is None else np.concatenate([a[2] for a in arcs])
        key = np.arange(n, dtype=np.int64) if order is None else np.asarray(order, dtype=np.int64)
        labels = pd.Index(np.arange(n) if labels is None else labels)
        return Snapshot(n, self.directed, labels, key, src, dst, weights)

    def to_networkx(self):
        """A networkx (Di)Graph of this graph, for small graphs (needs networkx installed); weights
        are stored under the graph's weight name."""
        try:
            import networkx as nx
        except ImportError as exc:
            raise ImportError("to_networkx needs networkx: pip install networkx") from exc
        G = nx.DiGraph() if self.directed else nx.Graph()
        vertices = fetch(self.client, self.degrees())["vertex"]
        G.add_nodes_from(vertices.tolist())
        e = fetch(self.client, self.edges())
        if self.weight:
            G.add_weighted_edges_from(
                zip(e["src"].tolist(), e["dst"].tolist(), e[self.weight].tolist()), weight=self.weight
            )
        else:
            G.add_edges_from(zip(e["src"].tolist(), e["dst"].tolist()))
        return G


def _same(block):
    return block


def _each(pieces):
    """Per-rank pieces as a run's ``finish_blocks`` (None: there are none)."""
    return None if pieces is None else [[p] for p in pieces]


def _part_frame(held, ranks, bounds, pieces, nullable, transform):
    labels = RankLabels(None, bounds, pieces=None if pieces is None else dict(zip(ranks, pieces)))
    return vertex_frames(labels, {r: held[r] for r in ranks}, (), nullable, transform)


def _edges_kernel(ctx, weight, bounds, layout):
    out = {}
    for r in ctx.ranks:
        src, dst, w = block_arcs(ctx.blocks[r][0])
        out[r] = {"src": src, "dst": dst, **({weight: w} if weight is not None else {})}
    return out


def _timeout():
    return float(dask.config.get("dgraph.timeout", 600))
