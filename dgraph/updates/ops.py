"""The four updates of a Graph, each a new Graph (``Graph.add_edges`` and the others call these).

Policies apply as at construction: an undirected edge is both arcs (a self-loop one), a graph
built with ``self_loops="drop"`` drops added loops, and with ``duplicates="drop"`` an added arc
the graph has already keeps the lighter of the two (the old one among equals). A removal names
edges by their ends and takes every arc between them (both arcs of an undirected edge, every
repeat of a multigraph's); one that is not there is a no-op, counted in ``update_stats``.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd

from ..errors import DgraphInputError
from . import change, versions
from .versions import Lineage, UpdateStats


def _both_arcs(rows: np.ndarray, cols: np.ndarray, directed: bool, *columns: Any) -> tuple:
    """(rows, cols, *columns) with each undirected edge's reverse arc (a self-loop's once)."""
    if directed:
        return (rows, cols, *columns)
    back = rows != cols

    def twice(column: Any) -> Any:
        if column is None:
            return None
        if isinstance(column, dict):
            return {k: np.concatenate([v, v[back]]) for k, v in column.items()}
        return np.concatenate([column, column[back]])

    return (np.concatenate([rows, cols[back]]), np.concatenate([cols, rows[back]]), *map(twice, columns))


def _ids(graph: Any, frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, pd.Index, np.ndarray]:
    """(src ids, dst ids, the distinct labels, their placed ids; -1 for labels the graph lacks)."""
    labels = pd.Index(pd.unique(pd.concat([frame.src, frame.dst], ignore_index=True)))
    change.same_kind(graph, labels, "the edges' labels")
    placed = change.placed(graph, labels)
    return labels.get_indexer(frame.src), labels.get_indexer(frame.dst), labels, placed


def add_edges(graph: Any, df: Any, *, source: Hashable = "src", destination: Hashable = "dst") -> Any:
    """``Graph.add_edges``: see there."""
    store = graph.store.root
    frame = change.edge_frame(graph, df, (source, destination), attributes=True)
    if store.policies.get("self_loops") == "drop":
        frame = frame[frame.src != frame.dst].reset_index(drop=True)
    src, dst, labels, placed = _ids(graph, frame)
    added = change.new_labels(labels[placed < 0])
    nxt = versions.grown(graph, added)
    ids = placed.copy()
    ids[placed < 0] = store.n + added.get_indexer(labels[placed < 0])
    weights, attrs = change.arc_columns(frame, graph)
    rows, cols, weights, attrs = _both_arcs(ids[src], ids[dst], graph.directed, weights, attrs)
    arcs = {"rows": rows, "cols": cols, "weights": weights, "attrs": attrs}
    cut, ranks = versions.cut_change(graph, nxt, arcs)
    ranks = sorted(set(ranks) | set(versions.ranges_changed(graph, nxt)))
    blocks, facts = versions.rewrite(graph, nxt, {"added": cut}, ranks=ranks)
    rblocks = None
    if graph.directed and store.rblocks is not None:  # in-blocks built already: changed alike
        rcut, rranks = versions.cut_change(graph, nxt, arcs, flipped=True)
        rranks = sorted(set(rranks) | set(versions.ranges_changed(graph, nxt)))
        rblocks, _ = versions.rewrite(graph, nxt, {"added": rcut}, ranks=rranks, reverse=True)
    gained = versions.facts_sum(facts, "after") - versions.facts_sum(facts, "before")
    stats = UpdateStats(
        "add_edges",
        given=len(frame),
        arcs_added=gained,
        repeated=int(rows.size) - gained,
        vertices_added=len(added),
        ranks_rewritten=len(ranks),
    )
    new = versions.version(
        graph,
        nxt,
        blocks,
        rblocks=rblocks,
        tables_=versions.vertex_tables(graph, nxt),
        pieces=versions.label_pieces(graph, nxt),
        stats=stats,
    )
    lineage = versions.lineage_of(graph)
    lineage = Lineage(
        lineage.exact,
        lineage.start_n,
        lineage.edges + (frame[["src", "dst"]],),
        lineage.labels + ((added,) if len(added) else ()),
    )
    return versions.settle(graph, new, stats, lineage=lineage, vertices_added=len(added))


def remove_edges(graph: Any, df: Any, *, source: Hashable = "src", destination: Hashable = "dst") -> Any:
    """``Graph.remove_edges``: see there."""
    store = graph.store.root
    frame = change.edge_frame(graph, df, (source, destination), attributes=False)
    src, dst, _, placed = _ids(graph, frame)
    u, v = placed[src], placed[dst]
    if not graph.directed:  # an edge named either way round is the same edge
        both = (u >= 0) & (v >= 0)
        u, v = np.where(both, np.minimum(u, v), u), np.where(both, np.maximum(u, v), v)
    pairs = pd.DataFrame({"u": u, "v": v})
    pairs = pairs.drop_duplicates(ignore_index=True)
    known = pairs[(pairs.u >= 0) & (pairs.v >= 0)]
    asked = known.index.to_numpy(np.int64)
    rows, cols, asked = _both_arcs(known.u.to_numpy(np.int64), known.v.to_numpy(np.int64), graph.directed, asked)
    nxt = versions.same(graph)
    arcs = {"rows": rows, "cols": cols, "asked": asked}
    cut, ranks = versions.cut_change(graph, nxt, arcs)
    blocks, facts = versions.rewrite(graph, nxt, {"removals": cut}, ranks=ranks)
    rblocks = None
    if graph.directed and store.rblocks is not None:
        rcut, rranks = versions.cut_change(graph, nxt, arcs, flipped=True)
        rblocks, _ = versions.rewrite(graph, nxt, {"removals": rcut}, ranks=rranks, reverse=True)
    found = set()
    for f in facts:
        if f is not None:
            found.update(f["found"].tolist())
    removed = versions.facts_sum(facts, "before") - versions.facts_sum(facts, "after")
    stats = UpdateStats(
        "remove_edges",
        given=len(pairs),
        missing=len(pairs) - len(found),
        arcs_removed=removed,
        ranks_rewritten=len(ranks),
    )
    new = versions.version(
        graph,
        nxt,
        blocks,
        rblocks=rblocks,
        tables_=(store.vertex_tables, store.vertex_dtypes),
        pieces=versions.label_pieces(graph, nxt),
        stats=stats,
    )
    return versions.settle(graph, new, stats, lineage=Lineage(exact=False, start_n=nxt.n))


def add_vertices(graph: Any, vertices: Any, *, vertex_column: Hashable = "vertex") -> Any:
    """``Graph.add_vertices``: see there."""
    labels, frame = change.vertex_labels(graph, vertices, vertex_column, "add_vertices")
    change.same_kind(graph, labels, "add_vertices")
    placed = change.placed(graph, labels)
    added = change.new_labels(labels[placed < 0])
    nxt = versions.grown(graph, added)
    ranks = versions.ranges_changed(graph, nxt)
    blocks, _ = versions.rewrite(graph, nxt, {}, ranks=ranks)
    store = graph.store.root
    rblocks = None
    if graph.directed and store.rblocks is not None:
        rblocks, _ = versions.rewrite(graph, nxt, {}, ranks=ranks, reverse=True)
    rows = None if frame is None else frame.reindex(added).reset_index(drop=True)
    stats = UpdateStats(
        "add_vertices",
        given=len(labels),
        missing=len(labels) - len(added),
        vertices_added=len(added),
        ranks_rewritten=len(ranks),
    )
    new = versions.version(
        graph,
        nxt,
        blocks,
        rblocks=rblocks,
        tables_=versions.vertex_tables(graph, nxt, rows=rows),
        pieces=versions.label_pieces(graph, nxt),
        stats=stats,
    )
    lineage = versions.lineage_of(graph)
    lineage = Lineage(lineage.exact, lineage.start_n, lineage.edges, lineage.labels + ((added,) if len(added) else ()))
    return versions.settle(graph, new, stats, lineage=lineage, vertices_added=len(added))


def remove_vertices(graph: Any, vertices: Any) -> Any:
    """``Graph.remove_vertices``: see there."""
    labels, _ = change.vertex_labels(graph, vertices, "vertex", "remove_vertices")
    placed = change.placed(graph, labels) if len(labels) else np.empty(0, np.int64)
    gone = np.unique(placed[placed >= 0])
    store = graph.store.root
    stats = UpdateStats("remove_vertices", given=len(labels), missing=len(labels) - gone.size)
    if gone.size == 0:
        return versions.settle(graph, versions.version(
            graph,
            versions.same(graph),
            list(store.blocks),
            rblocks=store.rblocks if graph.directed else None,
            tables_=(store.vertex_tables, store.vertex_dtypes),
            pieces=store.pieces,
            stats=stats,
        ), stats, lineage=versions.lineage_of(graph))  # fmt: skip
    if store.layout.hashes_arcs:  # renumbering would move arcs: built anew without them
        return _rebuilt_without(graph, labels[placed >= 0], stats)
    nxt = versions.shrunk(graph, gone)
    ranks = list(range(store.layout.ranks))
    blocks, facts = versions.rewrite(graph, nxt, {"gone": gone}, ranks=ranks)
    rblocks = None
    if graph.directed and store.rblocks is not None:
        rblocks, _ = versions.rewrite(graph, nxt, {"gone": gone}, ranks=ranks, reverse=True)
    removed = versions.facts_sum(facts, "before") - versions.facts_sum(facts, "after")
    stats = UpdateStats(
        "remove_vertices",
        given=len(labels),
        missing=len(labels) - gone.size,
        arcs_removed=removed,
        vertices_removed=int(gone.size),
        ranks_rewritten=len(ranks),
    )
    new = versions.version(
        graph,
        nxt,
        blocks,
        rblocks=rblocks,
        tables_=versions.vertex_tables(graph, nxt, gone=gone),
        pieces=None,
        stats=stats,
    )
    return versions.settle(graph, new, stats, lineage=Lineage(exact=False, start_n=nxt.n))


def _rebuilt_without(graph: Any, labels: pd.Index, stats: UpdateStats) -> Any:
    """``graph`` built anew without the vertices ``labels`` and their arcs (for layouts whose
    arcs' places depend on ids: ``Layout.hashes_arcs``)."""
    if graph._rebuild is None:
        raise DgraphInputError("this graph was not built by from_edgelist, so remove_vertices cannot rebuild it")
    gone = labels.tolist()
    arcs = graph.edges()
    arcs = arcs[~arcs.src.isin(gone) & ~arcs.dst.isin(gone)]
    table = graph.vertices()
    kept = table[~table.vertex.isin(gone)]
    before = graph.num_arcs
    new = graph._rebuilt(arcs, vertices=kept.vertex.compute().tolist())
    stats = UpdateStats(
        "remove_vertices",
        given=stats.given,
        missing=stats.missing,
        arcs_removed=before - new.num_arcs,
        vertices_removed=len(gone),
        ranks_rewritten=graph.nranks,
        rebuilt=True,
    )
    new.store.update_stats = stats
    new.store.lineage = Lineage(exact=False, start_n=new.num_vertices)
    return new
