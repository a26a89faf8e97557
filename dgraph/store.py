"""BlockStore: a graph's rank blocks on the workers, and the blocks derived from them.

It holds the layout's blocks (futures), builds the in-blocks and 1D owner blocks an algorithm
asks for once, keeps beside each rank the labels of its own vertices (for result frames) and
their attributes, makes the blocks weighed by another edge attribute (``weighed_by``), and
spreads the blocks back over the live workers when a worker was lost or joined.
"""

from __future__ import annotations

import operator
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
from distributed import Client, Future

from .attributes import storage_dtype
from .block import Block, own_canonical, owner_pieces, reverse_pieces, weighted_by
from .cluster import holders, workers
from .codec import LabelCodec
from .dask_internals import wait_for
from .errors import DgraphError, DgraphRunError
from .layout import Layout, by_owner
from .placement import PlacementSpec, each_held, owned_counts, ranks_by_worker, rebuild_blocks
from .runtime.launch import where_held

SPREAD_EVERY = 5.0  # seconds between looks at whether rank blocks still cover the live workers
SPREAD_WITHIN = 60.0  # seconds moving blocks to a worker may take before they stay where they are


def shape(block: Block) -> tuple[int, int, int]:
    """A block's arcs, its self-loops and the largest degree among its rank's vertices: the
    facts the first run on a graph asks for, fetched together."""
    degree = block.owned_degree if block.owned_degree is not None else block.parts[0].degree()
    return block.narcs, block.loops, int(degree.max()) if degree.size else 0


def label_piece(index: Any, order: Any, lo: int, hi: int) -> Any:
    """The labels of the placed ids lo..hi-1."""
    return index[lo:hi] if order is None else index[np.asarray(order[lo:hi])]


def _label_pieces(index: Any, order: Any, spans: list[tuple[int, int]]) -> list:
    return [label_piece(index, order, lo, hi) for lo, hi in spans]


def _same(block: Any) -> Any:
    return block


class BlockStore:
    """The blocks of one graph: ``blocks[r]`` is rank r's layout block (a future).

    ``bounds[r]:bounds[r+1]`` are the placed ids rank r owns; ``order`` (placed -> canonical
    id, a future or None) and ``extra`` (what the layout's plan added, or None) are what
    rebuilding blocks needs. Blocks never change, so facts about them are computed once.

    Attributes: ``edge_dtypes`` are the graph's edge attributes and their dtypes, ``weight``
    the one its blocks' weights hold (None: unweighted), the others the blocks' per-arc columns
    (``Block.attrs``); ``vertex_tables`` (a future per rank, or None) hold the attributes of
    each rank's own vertices in placed-id order, of dtypes ``vertex_dtypes``.

    >>> import dgraph
    >>> g = dgraph.datasets.load("karate", ranks=2)
    >>> len(g.store.blocks), sum(arcs for arcs, _ in g.store.counts())
    (2, 156)
    """

    def __init__(
        self,
        client: Client,
        layout: Layout,
        blocks: list[Future],
        *,
        bounds: np.ndarray,
        n: int,
        directed: bool,
        weighted: bool,
        dedup: bool,
        order: Future | None = None,
        extra: Future | None = None,
        weight: str | None = None,
        edge_dtypes: dict[str, Any] | None = None,
    ) -> None:
        self.client, self.layout, self.blocks = client, layout, blocks
        self.bounds, self.n, self.directed, self.weighted, self.dedup = bounds, n, directed, weighted, dedup
        self.order, self.extra = order, extra
        self.rblocks: list[Future] | None = None if directed else blocks
        self.owned: dict[bool, list[Future]] = {}  # reverse? -> 1D owner blocks
        self.pieces: list[Future] | None = None  # per rank: a future of its own vertices' labels
        self.inherited: list[Future | None] | None = None  # an earlier version's pieces that still hold
        self.local_share: float | None = None  # arcs whose two ends one rank owns, once a run counted it
        self._facts: dict[Callable, list] = {}
        self._spread_checked = time.monotonic()  # when the blocks' placement was last looked at
        self.weight = weight
        self.edge_dtypes: dict[str, Any] = edge_dtypes or ({weight: np.dtype(np.float64)} if weight else {})
        self.vertex_tables: list[Future] | None = None
        self.vertex_dtypes: dict[str, Any] = {}
        self.policies: dict[str, str] = {}  # the build's self_loops and vertex_order, which updates follow
        self.update_stats: Any = None  # what the update that made this graph did (dgraph.updates)
        self.lineage: Any = None  # the additions since an earlier version whose ids it keeps
        self.planned: tuple[int, int, int, int] | None = None  # arcs, vertices at the plan; changed since
        self.base: BlockStore | None = None  # the store whose blocks these are, weighed otherwise
        self._views: dict[str, BlockStore] = {}  # edge attribute -> the blocks weighed by it

    # ------------------------------------------------------------------ facts
    def where(self, blocks: list[Future]) -> list[str]:
        """The worker holding each of ``blocks``, as the client last learnt it (blocks rarely move;
        a run finding one moved asks again)."""
        return where_held(self.client, blocks)

    def each_block(self, fn: Callable, *args: Any) -> list:
        """``[fn(block, *args) for each of the layout's blocks]``, in rank order: computed on the
        workers, one task per worker (not per rank)."""
        return each_held(self.client, fn, self.blocks, self.where(self.blocks), *args)

    def block_facts(self, fn: Callable) -> list:
        """``each_block(fn)``, computed once per function (blocks never change)."""
        if fn not in self._facts:
            self._facts[fn] = self.each_block(fn)
        return self._facts[fn]

    def known_facts(self, fn: Callable, values: list) -> None:
        """``block_facts(fn)`` learnt where the blocks were made (``placement.place_small``)."""
        self._facts[fn] = values

    def num_arcs(self) -> int:
        """Stored arcs, the same in the blocks derived from these (reversed, by owner)."""
        return sum(arcs for arcs, _ in self.counts())

    def counts(self) -> list[tuple[int, int]]:
        """Per rank: its stored arcs and its self-loops."""
        return [(arcs, loops) for arcs, loops, _ in self.block_facts(shape)]

    def max_degrees(self) -> list[int]:
        """Per rank, the largest degree among its vertices."""
        return [heaviest for _, _, heaviest in self.block_facts(shape)]

    # ------------------------------------------------------------------ derived blocks
    def reverse(self) -> list[Future]:
        """In-blocks of the layout (the flipped arcs, placed by the layout), built once."""
        if self.rblocks is None:
            self.rblocks = rebuild_blocks(
                self.client,
                self.blocks,
                self.where(self.blocks),
                reverse_pieces,
                (self.bounds, self.layout, self.extra),
                PlacementSpec(self.layout, self.bounds, self.n, "in", self.dedup, self.weighted, self.arc_columns),
                key=self.order,
                extra=self.extra,
                arcs=self.num_arcs(),
            )
        return self.rblocks

    @property
    def arc_columns(self) -> tuple:
        """The per-arc columns of the blocks, in-blocks included, as placement builds them:
        (name, kept dtype) of every edge attribute but the one the graph's own blocks weigh by."""
        root = self.root
        return tuple((name, storage_dtype(dtype)) for name, dtype in root.edge_dtypes.items() if name != root.weight)

    def owner(self, reverse: bool = False) -> list[Future]:
        """1D blocks (rank r holds the out- or in-arcs of its own vertices). The layout's own
        blocks when it is 1D; otherwise rebuilt once from them, for the algorithms that need a
        vertex's whole neighbourhood in one place."""
        if reverse not in self.owned:
            layout_blocks = self.reverse() if reverse else self.blocks
            if self.layout.owns_rows():
                self.owned[reverse] = layout_blocks
            elif not self.directed and reverse:
                self.owned[reverse] = self.owner(False)
            else:
                self.owned[reverse] = rebuild_blocks(
                    self.client,
                    layout_blocks,
                    self.where(layout_blocks),
                    owner_pieces,
                    (self.bounds,),
                    PlacementSpec(
                        by_owner(self.layout.ranks),
                        self.bounds,
                        self.n,
                        "in" if reverse else "out",
                        self.dedup,
                        self.weighted,
                    ),
                    key=self.order,
                    counts=lambda: self.owned_counts(layout_blocks),  # each row's arcs: its vertex's degree
                    arcs=self.num_arcs(),
                )
        return self.owned[reverse]

    def weighed_by(self, name: str) -> BlockStore:
        """A store of this one's blocks weighed by the edge attribute ``name`` (a per-arc column;
        ``block.weighted_by``): made beside each block once and kept, like the reverse and owner
        blocks, which it builds for itself from them. It shares the labels and attributes."""
        if name == self.weight:
            return self
        if self.base is not None:
            return self.base.weighed_by(name)
        view = self._views.get(name)
        if view is None:
            c, where = self.client, self.where(self.blocks)
            blocks = [
                c.submit(weighted_by, b, name, workers=[w], allow_other_workers=True, pure=False)
                for b, w in zip(self.blocks, where)
            ]
            wait_for(blocks)  # where they are is what runs ask first
            view = BlockStore(
                c,
                self.layout,
                blocks,
                bounds=self.bounds,
                n=self.n,
                directed=self.directed,
                weighted=True,
                dedup=self.dedup,
                order=self.order,
                extra=self.extra,
                weight=name,
                edge_dtypes=self.edge_dtypes,
            )
            view.base = self
            view.vertex_tables, view.vertex_dtypes = self.vertex_tables, self.vertex_dtypes
            self._views[name] = view
        return view

    @property
    def root(self) -> BlockStore:
        """The store holding the graph's own blocks (this one, unless it is ``weighed_by``'s)."""
        return self.base or self

    def owned_counts(self, blocks: list[Future], loops: bool = False) -> list[Future]:
        """For each rank, a future of the arcs (self-loops alone with ``loops``) of every vertex
        it owns in ``blocks`` (the layout's, or their reverse): no owner blocks built for it."""
        c = self.client
        if self.layout.owns_rows():
            return [c.submit(Block.loop_counts if loops else Block.degree, b, pure=False) for b in blocks]
        if not loops:  # summed when the blocks were built
            return [c.submit(operator.attrgetter("owned_degree"), b, pure=False) for b in blocks]
        return owned_counts(c, blocks, self.bounds, self.where(blocks), loops=True)

    def label_pieces(self, codec: LabelCodec) -> list[Future] | None:
        """How a result frame names placed ids (``results.RankLabels``): None where placed ids
        are the labels; otherwise each rank keeps the labels of its own vertices with its blocks
        (these pieces, a future per rank) and asks owners for others. Where the labels are the
        canonical ids the blocks know them (``Block.space_key``)."""
        if codec.ids_are_labels:
            return None
        if self.base is not None:
            return self.base.label_pieces(codec)
        if self.pieces is None:
            # beside the blocks, and remade wherever dask can when a worker is lost (the next
            # run puts them back beside the blocks: spread)
            c, index, order = self.client, codec.labels.index, codec.order
            spans = [(int(lo), int(hi)) for lo, hi in zip(self.bounds[:-1], self.bounds[1:])]
            where = self.where(self.blocks)
            pieces = list(self.inherited or [None] * len(spans))  # an update's: the ranks' whose ids stayed
            todo = [r for r, p in enumerate(pieces) if p is None]
            if index is None:  # the canonical ids, which the blocks keep
                for r in todo:
                    lo, hi = spans[r]
                    pieces[r] = c.submit(
                        own_canonical, self.blocks[r], lo, hi, workers=[where[r]], allow_other_workers=True, pure=False
                    )
            else:  # made where the index is, so only the pieces travel: each worker's in one go
                indexed = list(c.who_has([index]).get(index.key, ()))
                # while the index is still being computed nobody holds it: dask places the task
                near = dict(workers=indexed, allow_other_workers=True) if indexed else {}
                held = ranks_by_worker([where[r] for r in todo])
                held = {w: [todo[i] for i in ranks] for w, ranks in held.items()}
                made = {
                    w: c.submit(_label_pieces, index, order, [spans[r] for r in ranks], pure=False, **near)
                    for w, ranks in held.items()
                }
                for w, ranks in held.items():
                    for i, r in enumerate(ranks):
                        pieces[r] = c.submit(
                            operator.getitem, made[w], i, workers=[w], allow_other_workers=True, pure=False
                        )
            self.pieces = pieces  # type: ignore[assignment]  # every rank's made above
        return self.pieces

    # ------------------------------------------------------------------ keeping the blocks
    def block_lists(self) -> list[list[Future]]:
        """Every list of rank blocks this store holds (layout, reverse, owner, label pieces, vertex
        attributes), each once."""
        lists = [self.blocks, self.rblocks, *self.owned.values(), self.pieces, self.vertex_tables]
        return [b for i, b in enumerate(lists) if b is not None and all(b is not c for c in lists[:i])]

    def check(self) -> None:
        """A graph whose blocks the cluster no longer has (``client.restart()``, a new client) is
        an error that says what to do, not dask's CancelledError."""
        if any(f.status == "cancelled" for blocks in self.block_lists() for f in blocks):
            raise DgraphError(
                "this graph's blocks are gone from the cluster (it restarted, the client that built the graph "
                "reconnected, or a worker holding blocks was lost and the data they were built from was scattered "
                "from the client, as a pandas edge list of more than 65,536 edges is, so dask cannot make them "
                "again): build the graph again (dgraph.from_edgelist, read_edgelist, datasets.load); from files or "
                "a dask DataFrame, blocks lost with a worker are rebuilt"
            )

    def spread(self, *, now: bool = False) -> None:
        """Put rank blocks back over all live workers when some worker holds more than its share:
        after a worker is lost its blocks are rebuilt wherever dask finds room (all on the
        survivors, or some on a worker that joined since), and a worker that joins later (a
        restarted nanny, a new job) would otherwise get none. The blocks derived from the
        layout's (reverse, owner) are dropped then, to be rebuilt from the moved ones, since
        their recipes name the blocks they came from. Looked at once every ``SPREAD_EVERY``
        seconds, or ``now`` (workers were just removed)."""
        at = time.monotonic()
        if not now and at - self._spread_checked < SPREAD_EVERY:
            return
        self._spread_checked = at
        live = workers(self.client)
        if len(live) < 2:
            return
        for blocks in (self.blocks, self.pieces, self.vertex_tables):
            if blocks is not None:
                wait_for(blocks)  # blocks lost with a worker are being rebuilt: they land first, then move
        where = holders(self.client, self.blocks)  # blocks lost with a worker are computed again first
        fair = -(-len(where) // len(live))  # ranks per worker when spread evenly
        if max(Counter(where).values()) > fair:
            targets = [live[r * len(live) // len(where)] for r in range(len(where))]
            if self._move(self.blocks, where, targets):  # reverse, owner and weighed blocks: rebuilt from the moved
                self.rblocks = None if self.directed else self.blocks
                self.owned = {}
                self._views = {}
                where = targets
        # label pieces and vertex tables beside their blocks (one lost with a worker was made anywhere)
        for beside in (self.pieces, self.vertex_tables if self.base is None else None):
            if beside is not None:
                try:
                    self._move(beside, holders(self.client, beside), where)
                except DgraphRunError:  # one that cannot be made again: the run that needs it says so
                    pass

    def _move(self, blocks: list[Future], where: list[str], targets: list[str]) -> bool:
        """Move ``blocks`` (in place) from the workers ``where`` to ``targets``; whether they moved."""
        if where == targets:
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
