"""A graph's next version: the parts an update changes, and the ones it shares.

``Graph.add_edges``, ``remove_edges``, ``add_vertices`` and ``remove_vertices`` return a new
Graph; the old one stays as it was. Each update:

- looks up the change's labels where the label tables are, gives new labels the ids after the
  old ones (``Next``: the tables grown, or closed up around removed vertices);
- cuts the changed arcs by the rank that stores each (the layout's own ``arc_ranks``, as a
  build cuts its input) and has each affected rank's worker merge its piece into the rank's
  block (``blocks.changed_block``); every other rank's block is the old graph's, shared;
- changes the in-blocks the same way where the old graph had built them; owner blocks and
  weighed copies are built again when an algorithm asks, as for a new graph.

The layout's plan is kept: new vertices are owned by the last rank (they are the last placed
ids) and are light in 1.5D and TD-Orch; removed vertices leave their ranks' ranges. Once the
arcs changed since the graph was planned pass ``REPLAN_SHARE`` of the arcs it had then (or the
vertices added pass that share of its vertices), the update builds the graph anew from its
edges, with a fresh plan (``UpdateStats.rebuilt``).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd
from distributed import Future

from ..codec import LabelCodec
from ..errors import DgraphInputError
from ..labels import Labels
from ..owners import KEYED_LIMIT
from ..placement import PlacementSpec, with_owned_degrees
from ..runner import Runner
from ..store import BlockStore
from . import tables
from .blocks import BlockChange, changed_block
from .cuts import cut_arcs, cut_removals, piece_sizes

# Past this share of changed arcs (or of added vertices) since the plan, an update rebuilds:
# ranges balanced by degree, 1.5D's classes and TD-Orch's levels are a plan of the graph that
# was, and new vertices all sit on the last rank. A quarter keeps a rank within about 1.25x of
# its planned share while an update's cost stays that of its change.
REPLAN_SHARE = 0.25


@dataclass(frozen=True)
class UpdateStats:
    """What an update did (``Graph.update_stats``).

    ``operation``: the method; ``given``: the edges it was given (rows; distinct edges for a
    removal) or the distinct vertices; ``missing``:
    of those, the ones that were no-ops (a removal of an edge or vertex the graph did not have,
    an added vertex it had); ``arcs_added``/``arcs_removed``: arcs stored more or fewer (an
    undirected edge is two arcs); ``repeated``: added arcs the graph had already, dropped by its
    duplicates policy; ``vertices_added``/``vertices_removed``; ``ranks_rewritten``: layout
    blocks made anew (the others are the old graph's); ``changed_share``: arcs changed since the
    graph was last planned, over its arcs then; ``rebuilt``: the update built the graph anew
    (``REPLAN_SHARE`` passed, or TD-Orch's removal of vertices)."""

    operation: str
    given: int = 0
    missing: int = 0
    arcs_added: int = 0
    arcs_removed: int = 0
    repeated: int = 0
    vertices_added: int = 0
    vertices_removed: int = 0
    ranks_rewritten: int = 0
    changed_share: float = 0.0
    rebuilt: bool = False


@dataclass(frozen=True)
class Lineage:
    """The additions since the last graph whose ids this one keeps and that had no arc this one
    lacks (``exact``: False after a removal or a rebuild): ``start_n`` vertices then, the edges
    added since (pandas frames of labels [src, dst]) and the labels added, in id order. What
    ``connected_components(..., previous=)`` unites."""

    exact: bool
    start_n: int
    edges: tuple = ()
    labels: tuple = ()


@dataclass(frozen=True)
class Next:
    """The tables of the next version: its ``labels``, ``n`` vertices, rank ``bounds``, the
    placed order and its inverse, and the layout plan's ``extra`` (futures or None)."""

    labels: Labels
    n: int
    bounds: np.ndarray
    order: Future | None
    inverse: Future | None
    extra: Future | None


def same(graph: Any) -> Next:
    store, codec = graph.store.root, graph.codec
    return Next(codec.labels, store.n, store.bounds, codec.order, codec.inverse, store.extra)


def grown(graph: Any, added: pd.Index) -> Next:
    """The tables with the labels ``added`` (new to the graph) after the old ones."""
    k = len(added)
    if k == 0:
        return same(graph)
    store, codec, client = graph.store.root, graph.codec, graph.client
    labels, n = codec.labels, store.n
    if codec.order is not None and n + k > KEYED_LIMIT:
        raise DgraphInputError(
            f"layout {store.layout!r} reorders vertices, which dgraph does for up to {KEYED_LIMIT:,} of them; adding "
            f"{k:,} to {n:,} passes that: rebuild the graph with layout='1d' or '2d'"
        )
    ints = pd.api.types.is_integer_dtype(added.dtype)
    identity = labels.index is None and ints and np.array_equal(added.to_numpy(), np.arange(n, n + k))
    index = None if identity else client.submit(tables.appended_labels, labels.index, n, added, pure=False)
    dtype = labels.dtype if labels.index is not None or identity else np.dtype(np.int64)
    bounds = store.bounds.copy()
    bounds[-1] += k

    def more(table: Any, fn: Any, *args: Any) -> Any:
        return None if table is None else client.submit(fn, table, *args, pure=False)

    return Next(
        Labels(n + k, index, dtype),
        n + k,
        bounds,
        more(codec.order, tables.appended_ids, k),
        more(codec.inverse, tables.appended_ids, k),
        more(store.extra, store.layout.grown, n, k),
    )


def shrunk(graph: Any, gone: np.ndarray) -> Next:
    """The tables without the vertices of the placed ids ``gone`` (sorted), ids closed up."""
    store, codec, client = graph.store.root, graph.codec, graph.client
    labels, n = codec.labels, store.n
    if gone.size >= n:
        raise DgraphInputError("remove_vertices would remove every vertex; a graph needs at least one")
    canonical = gone if codec.order is None else client.submit(tables.canonical_of, codec.order, gone, pure=False)
    index = client.submit(tables.kept_labels, labels.index, n, canonical, pure=False)
    order = None if codec.order is None else client.submit(tables.kept_order, codec.order, gone, pure=False)
    inverse = None if order is None else client.submit(tables.inverse_of, order, pure=False)
    extra = None if store.extra is None else client.submit(store.layout.shrunk, store.extra, gone, pure=False)
    bounds = store.bounds - np.searchsorted(gone, store.bounds)
    dtype = labels.dtype if labels.index is not None else np.dtype(np.int64)
    return Next(Labels(n - gone.size, index, dtype), n - gone.size, bounds, order, inverse, extra)


def spec_of(graph: Any, nxt: Next, direction: str = "out") -> PlacementSpec:
    """How the next version's blocks (or in-blocks) are placed."""
    store = graph.store.root
    return PlacementSpec(store.layout, nxt.bounds, nxt.n, direction, store.dedup, store.weighted, store.arc_columns)


def _changed(block: Any, r: int, spec: PlacementSpec, key: Any, extra: Any, cut: dict) -> tuple[Any, dict]:
    """``changed_block`` of rank r from its share of a cut (``{"added": pieces, "removals":
    their requests, "gone": ids}``, each list a piece per rank, or None)."""
    added, removals = cut.get("added"), cut.get("removals")
    change = BlockChange(
        added=None if added is None else added[r],
        removals=None if removals is None else removals[r],
        gone=cut.get("gone"),
    )
    return changed_block(block, r, spec, key, extra, change)


def rewrite(graph: Any, nxt: Next, cut: dict, *, ranks: list[int], reverse: bool = False) -> tuple[list, list]:
    """(blocks, facts): the layout's blocks (in-blocks with ``reverse``) of the next version,
    those of ``ranks`` changed by their share of ``cut`` on their workers, the others shared;
    and what each changed rank reported (``changed_block``'s facts; None for the others)."""
    store, client = graph.store.root, graph.client
    old = store.rblocks if reverse else store.blocks
    where = store.where(old)
    spec = spec_of(graph, nxt, "in" if reverse else "out")
    blocks, facts = list(old), [None] * len(old)
    for r in ranks:
        placed = dict(workers=[where[r]], allow_other_workers=True, pure=False)
        # a cut made here travels as each rank's own piece, not the whole cut with every task
        mine = {k: {r: v[r]} if isinstance(v, list) else v for k, v in cut.items()}
        both = client.submit(_changed, old[r], r, spec, nxt.order, nxt.extra, mine, **placed)
        blocks[r] = client.submit(operator.itemgetter(0), both, **placed)
        facts[r] = client.submit(operator.itemgetter(1), both, pure=False)
    got = client.gather([f for f in facts if f is not None])
    facts = [None if f is None else got.pop(0) for f in facts]
    if not store.layout.owns_rows():  # the degrees of the vertices a rank owns, summed again
        blocks = with_owned_degrees(client, blocks, nxt.bounds, where)
    return blocks, facts


def ranges_changed(graph: Any, nxt: Next) -> list[int]:
    """The ranks whose own vertices or rows the next version's bounds change."""
    store = graph.store.root
    old, new, layout = store.bounds, nxt.bounds, store.layout
    return [
        r
        for r in range(layout.ranks)
        if (old[r], old[r + 1]) != (new[r], new[r + 1]) or layout.row_range(r, old) != layout.row_range(r, new)
    ]


def cut_change(graph: Any, nxt: Next, arcs: dict, *, flipped: bool = False) -> tuple[Any, list[int]]:
    """The change's arcs (``{"rows", "cols", "weights", "attrs"}`` or, for removals, ``{"rows",
    "cols", "asked"}``) cut by the rank storing each (flipped: the in-blocks'): on a worker where
    the layout's plan has tables (a future), else here (a list): (the cut, the ranks with a
    share)."""
    client, layout = graph.client, graph.store.root.layout
    rows, cols = (arcs["cols"], arcs["rows"]) if flipped else (arcs["rows"], arcs["cols"])
    if nxt.extra is None:  # the plan is the bounds: cut here, and each rank's task carries its piece
        attrs = arcs.get("attrs")  # in-blocks keep the arcs' attributes too
        local = dict(bounds=nxt.bounds, layout=layout, extra=None)
        if "asked" in arcs:
            pieces = cut_removals(rows, cols, arcs["asked"], **local)
        else:
            pieces = cut_arcs(rows, cols, arcs["weights"], attrs, **local)
        return pieces, [r for r, size in enumerate(piece_sizes(pieces)) if size]
    plan = dict(bounds=nxt.bounds, layout=layout, extra=nxt.extra)
    if "asked" in arcs:
        cut = client.submit(cut_removals, rows, cols, arcs["asked"], pure=False, **plan)
    else:
        cut = client.submit(cut_arcs, rows, cols, arcs["weights"], arcs["attrs"], pure=False, **plan)
    sizes = client.submit(piece_sizes, cut, pure=False).result()
    return cut, [r for r, size in enumerate(sizes) if size]


def version(graph: Any, nxt: Next, blocks: list, *, rblocks: Any, tables_: tuple, pieces: Any, stats: Any) -> Any:
    """The next Graph: ``blocks`` (and in-blocks, where kept) over ``nxt``'s tables, the vertex
    attribute tables and dtypes ``tables_``, the label pieces kept (``label_pieces``), with ``stats``."""
    old, client = graph.store.root, graph.client
    codec = LabelCodec(client, nxt.labels, order=nxt.order, inverse=nxt.inverse)
    store = BlockStore(
        client,
        old.layout,
        blocks,
        bounds=nxt.bounds,
        n=nxt.n,
        directed=old.directed,
        weighted=old.weighted,
        dedup=old.dedup,
        order=nxt.order,
        extra=nxt.extra,
        weight=old.weight,
        edge_dtypes=old.edge_dtypes,
    )
    if old.directed and rblocks is not None:
        store.rblocks = rblocks
    store.vertex_tables, store.vertex_dtypes = tables_
    if pieces is not None and None not in pieces:
        store.pieces = list(pieces)
    else:
        store.inherited = pieces
    store.policies = old.policies
    store.update_stats = stats
    runner = Runner(store, codec, transport=graph.transport, domains=graph.domains)
    g = type(graph)(codec, store, weight=old.weight, runner=runner, rebuild=graph._rebuild)
    return g if graph.weight in (old.weight, None) else g.with_weight(graph.weight)


def planned(graph: Any) -> tuple[int, int, int, int]:
    """(arcs and vertices when the graph was planned, arcs changed and vertices added since)."""
    store = graph.store.root
    if store.planned is None:
        return sum(a for a, _ in store.counts()), store.n, 0, 0
    return store.planned


def settle(graph: Any, new: Any, stats: UpdateStats, *, lineage: Lineage, vertices_added: int = 0) -> Any:
    """``new`` with its stats, lineage and the changes since its plan; built anew (a fresh
    plan) when those pass ``REPLAN_SHARE``."""
    arcs, n, changed, added = planned(graph)
    changed += stats.arcs_added + stats.arcs_removed
    added += vertices_added
    share = changed / max(arcs, 1)
    stats = replace(stats, changed_share=share)
    if share > REPLAN_SHARE or added > REPLAN_SHARE * max(n, 1):
        return replanned(new, replace(stats, rebuilt=True))
    new.store.planned = (arcs, n, changed, added)
    new.store.lineage = lineage
    new.store.update_stats = stats
    return new


def replanned(graph: Any, stats: UpdateStats) -> Any:
    """``graph`` built anew from its edges and vertices, placed as it is (a fresh plan)."""
    if graph._rebuild is None:
        raise DgraphInputError("this graph was not built by from_edgelist, so an update cannot rebuild it")
    table = graph.vertices().compute()  # every vertex, isolated ones too: one row each
    vertices = table if graph.vertex_attrs else table["vertex"]
    arcs = graph.edges()
    if not graph.directed:
        arcs = arcs[arcs.src <= arcs.dst]
    policies = graph.store.policies
    g = graph._rebuild(
        arcs,
        weight=graph.store.root.weight,
        edge_attrs=[a for a in graph.edge_attrs if a != graph.store.root.weight],
        directed=graph.directed,
        vertices=vertices,
        layout=graph.layout,
        duplicates="drop" if graph.store.dedup else "keep",
        self_loops=policies.get("self_loops", "keep"),
        vertex_order=policies.get("vertex_order", "labels"),
        client=graph.client,
        transport=graph.transport,
        domains=graph.domains,
    )
    g.store.update_stats = stats
    g.store.lineage = Lineage(exact=False, start_n=g.num_vertices)
    return g


def lineage_of(graph: Any) -> Lineage:
    store = graph.store.root
    return store.lineage if store.lineage is not None else Lineage(exact=True, start_n=store.n)


def vertex_tables(graph: Any, nxt: Next, *, rows: pd.DataFrame | None = None, gone: np.ndarray | None = None):
    """(vertex tables, dtypes) of the next version: the last rank's table grown by the vertices
    added (their attributes ``rows``, a frame in id order, or nulls), or every rank's without
    the vertices ``gone`` (sorted placed ids)."""
    store, client = graph.store.root, graph.client
    if store.vertex_tables is None:
        return None, store.vertex_dtypes
    held, where, dtypes = list(store.vertex_tables), store.where(store.vertex_tables), store.vertex_dtypes
    if gone is not None:
        for r in range(len(held)):
            lo, hi = store.bounds[r], store.bounds[r + 1]
            mine = gone[(gone >= lo) & (gone < hi)] - lo
            if mine.size:
                placed = dict(workers=[where[r]], allow_other_workers=True, pure=False)
                held[r] = client.submit(tables.kept_table, held[r], mine, **placed)
        return held, dtypes
    added = nxt.n - store.n
    if added:
        complete = rows is not None and not rows.isna().any().any() and set(dtypes) <= set(rows.columns)
        dtypes = dtypes if complete else tables.dtypes_with_nulls(dtypes)
        placed = dict(workers=[where[-1]], allow_other_workers=True, pure=False)
        held[-1] = client.submit(tables.grown_table, held[-1], added, rows, dtypes, **placed)
        if dtypes != store.vertex_dtypes:  # the other ranks' columns take the nullable types too
            for r in range(len(held) - 1):
                placed = dict(workers=[where[r]], allow_other_workers=True, pure=False)
                held[r] = client.submit(tables.grown_table, held[r], 0, None, dtypes, **placed)
    return held, dtypes


def label_pieces(graph: Any, nxt: Next) -> list | None:
    """The old graph's label pieces for the ranks whose own vertices keep their ids (None for
    the others, made when a result first needs them)."""
    store = graph.store.root
    held = store.pieces or store.inherited
    if held is None or nxt.labels.index is None:
        return None
    old = store.bounds
    return [p if (old[r], old[r + 1]) == (nxt.bounds[r], nxt.bounds[r + 1]) else None for r, p in enumerate(held)]


def facts_sum(facts: list, name: str) -> int:
    return sum(int(f[name]) for f in facts if f is not None)
