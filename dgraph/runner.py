"""Runner: runs kernels over a graph's ranks and turns their results into DataFrames.

A call launches a run (``dgraph.runtime``) over the blocks its placement asks for; each worker
can turn its ranks' results into its partition of the result frame before keeping them
(``run_to_frame``, ``run_to_rows``). A call's ``RunStats`` belong to the thread that made it:
two threads calling on one graph each read their own ``last_stats``.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
from distributed import Future

from .codec import LabelCodec
from .results import FrameColumns, RankLabels, part_name, rank_frames, rows_frames, to_dask, vertex_frames
from .runtime import RankResults, launch
from .runtime.launch import client_state, skip_unreachable
from .runtime.metrics import RunStats
from .store import BlockStore


def _timeout() -> float:
    return float(dask.config.get("dgraph.timeout", 600))


def _each(pieces: list[Future] | None) -> list[list[Future]] | None:
    """Per-rank pieces as a run's ``finish_blocks`` (None: there are none)."""
    return None if pieces is None else [[p] for p in pieces]


def _part_frame(held, ranks, bounds, pieces, nullable, transform):
    labels = RankLabels(None, bounds, pieces=None if pieces is None else dict(zip(ranks, pieces)))
    return vertex_frames(labels, {r: held[r] for r in ranks}, (), nullable, transform)


class Runner:
    """Runs kernels over the ranks of one ``BlockStore`` through one transport.

    ``transport`` is one of ``dgraph.runtime.driver.TRANSPORTS``; ``domains`` the communication
    domains (``dgraph.runtime.domains``) or None. ``last_stats`` is the calling thread's last
    call's ``RunStats``.

    >>> import dgraph
    >>> from dgraph.algorithms import bfs
    >>> g = dgraph.datasets.load("karate")
    >>> _ = bfs(g, 1).compute()
    >>> g.runner.last_stats is g.last_stats, g.last_stats.info["edges_examined"] > 0
    (True, True)
    """

    def __init__(self, store: BlockStore, codec: LabelCodec, *, transport: str = "direct", domains: Any = None) -> None:
        self.store, self.codec, self.transport, self.domains = store, codec, transport, domains
        self._calls = threading.local()  # this thread's last call: .stats, .results (a weakref)
        self._metas: dict[tuple, pd.DataFrame] = {}

    def over(self, store: BlockStore) -> Runner:
        """A runner over another store of the same graph (its blocks weighed otherwise, or its
        own) through this transport, whose calls are this runner's: each thread's last stats
        are the same."""
        if store is self.store:
            return self
        runner = Runner(store, self.codec, transport=self.transport, domains=self.domains)
        runner._calls, runner._metas = self._calls, self._metas
        return runner

    @property
    def last_stats(self) -> RunStats | None:
        return getattr(self._calls, "stats", None)

    def _last_results(self) -> RankResults | None:
        ref = getattr(self._calls, "results", None)
        return ref() if ref is not None else None

    def monitor_weights(self) -> list[int] | None:
        """Per rank, the largest degree among its vertices: domain monitors go to the ranks
        holding the heaviest vertices (TuCOMM 6.3). Only for runs with domains."""
        if self.domains is None and self.transport == "direct":
            return None
        return self.store.max_degrees()

    def run(
        self,
        kernel: Callable,
        *,
        reverse: bool = False,
        name: str = "run",
        placement: str = "owner",
        finish: tuple | None = None,
        finish_blocks: list | None = None,
        per_vertex: np.ndarray | None = None,
        beside: Sequence[Future] | None = None,
        record: bool = True,
        **params: Any,
    ) -> tuple[RankResults, RunStats]:
        """Run ``kernel(ctx, **params)`` on every worker holding ranks (see dgraph.runtime).

        ``ctx.blocks[r]`` is ``(out_block,)``, or ``(out_block, in_block)`` with ``reverse``;
        with ``per_vertex`` (an array over placed ids, on the client) it ends with rank r's
        slice of it, scattered beside the rank's blocks, so no worker holds the whole array;
        with ``beside`` (a future per rank, such as its ``label_pieces``) it ends with rank r's.
        ``placement="owner"``: 1D owner blocks (a vertex's arcs at its owner, whatever the
        layout); ``"layout"``: the layout's own blocks, and the kernel also gets ``layout=``
        (algorithms on ``EdgeMap`` run this way).
        Returns ``(results, stats)``: a ``RankResults`` of what the kernel returned for each
        rank (``results.gather()`` fetches them) and the run's ``RunStats``, which become this
        thread's ``last_stats`` unless ``record`` is False. ``finish`` and ``finish_blocks``:
        see ``dgraph.runtime.launch``.
        """
        store = self.store
        store.check()
        # workers a failed run could not reach are removed first, so the blocks they held are
        # rebuilt on the others and the ranks spread over those
        store.spread(now=bool(skip_unreachable(store.client)))
        if placement == "layout":
            outs, ins = store.blocks, (store.reverse() if reverse else None)
            params = dict(params, layout=store.layout)
        else:
            outs, ins = store.owner(), (store.owner(True) if reverse else None)
        blocks = [[o] for o in outs] if ins is None else [[o, i] for o, i in zip(outs, ins)]
        if per_vertex is not None:
            spans, where = zip(store.bounds[:-1], store.bounds[1:]), store.where(outs)
            for b, (lo, hi), w in zip(blocks, spans, where):
                b.append(store.client.scatter(per_vertex[lo:hi], workers=[w], hash=False))
        if beside is not None:
            blocks = [[*b, f] for b, f in zip(blocks, beside)]
        params = dict(params, bounds=store.bounds)
        results, stats = launch(
            store.client,
            blocks,
            kernel,
            params,
            timeout=_timeout(),
            name=name,
            transport=self.transport,
            domains=self.domains,
            weights=self.monitor_weights(),
            finish=finish,
            finish_blocks=finish_blocks,
        )
        if record:
            # weakly: a result the caller dropped must not stay on the workers until the next run
            self._calls.stats, self._calls.results = stats, weakref.ref(results)
        store.local_share = stats.info.get("local_share", store.local_share)
        return results, stats

    def run_to_frame(
        self,
        kernel: Callable,
        *,
        label_columns: Sequence[str] = (),
        nullable: Sequence[str] = (),
        transform: Callable | None = None,
        **run_args: Any,
    ) -> tuple[dd.DataFrame, RunStats]:
        """``run(kernel, **run_args)`` with its results as a dask DataFrame [vertex, ...], each worker
        making its partition from its ranks' results before it keeps them: no task after the run
        (``results.vertex_frames`` describes the columns). Returns ``(frame, stats)``."""
        columns = (tuple(label_columns), tuple(nullable), transform)
        pieces = self.store.label_pieces(self.codec)
        finish = (rank_frames, self.store.bounds, FrameColumns(*columns))
        results, stats = self.run(kernel, finish=finish, finish_blocks=_each(pieces), **run_args)
        return self._to_dask(results.futures, self._frame_meta(stats.result_dtypes, columns), results.copies), stats

    def run_to_rows(
        self,
        kernel: Callable,
        *,
        label_columns: Sequence[str] = (),
        nullable: Sequence[str] = (),
        list_columns: Sequence[str] = (),
        **run_args: Any,
    ) -> tuple[dd.DataFrame, RunStats]:
        """``run(kernel, **run_args)`` whose ranks return free-standing rows (any number per rank,
        see ``results.rows_frames``), as a dask DataFrame. Returns ``(frame, stats)``."""
        pieces = self.store.label_pieces(self.codec)
        columns = FrameColumns(tuple(label_columns), tuple(nullable), None, tuple(list_columns))
        finish = (rows_frames, self.store.bounds, columns)
        results, stats = self.run(kernel, finish=finish, finish_blocks=_each(pieces), **run_args)
        return self._to_dask(results.futures, copies=results.copies), stats

    def to_frame(
        self, results: RankResults, *, nullable: Sequence[str] = (), transform: Callable | None = None
    ) -> dd.DataFrame:
        """A dask DataFrame [vertex, ...] from a ``RankResults`` of per-rank dicts of arrays, one
        value per vertex (``transform(dict) -> dict`` applied first; ``nullable`` columns null
        where negative (integers) or not finite (floats)). One partition per run of consecutive
        ranks on one worker: with ranks placed in blocks, one per worker. Columns of placed ids
        are decoded by a run's finish instead (``run_to_frame``)."""
        store = self.store
        pieces = store.label_pieces(self.codec)
        name = part_name("vertices")
        parts = [
            store.client.submit(
                _part_frame,
                f,
                ranks,
                store.bounds,
                None if pieces is None else [pieces[r] for r in ranks],
                tuple(nullable),
                transform,
                key=(name, i),
            )
            for i, (f, ranks) in enumerate(results.runs())
        ]
        last = self._last_results()
        stats = self.last_stats
        dtypes = stats.result_dtypes if stats is not None and results is last else None
        return self._to_dask(parts, self._frame_meta(dtypes, ((), tuple(nullable), transform)))

    def _to_dask(self, parts: list, meta: pd.DataFrame | None = None, copies: Any = None) -> dd.DataFrame:
        """``results.to_dask`` of parts a run left on the workers: computed from the ``copies``
        the run brought back (small frames), else straight from the workers while the client's
        runs reach them directly."""
        client = self.store.client
        return to_dask(client, parts, meta, direct=client_state(client).direct, copies=copies)

    def _frame_meta(self, dtypes: dict | None, columns: tuple) -> pd.DataFrame | None:
        """The empty result frame for results of these ``dtypes`` (a run reports them, so no
        round trip fetches one; None when unknown), kept per kind of result (pandas is slow to
        build one)."""
        if dtypes is None:
            return None
        key = (tuple(dtypes.items()), columns)
        meta = self._metas.get(key)
        if meta is None:
            codec = self.codec
            index = None if codec.ids_are_labels else pd.Index([], dtype=codec.labels.dtype)
            empty = RankLabels(None, [0, 0], index)
            meta = vertex_frames(empty, {0: {k: np.empty(0, dt) for k, dt in dtypes.items()}}, *columns)
            if columns[2] is None:  # a transform may be a fresh closure each call
                self._metas[key] = meta
        return meta
