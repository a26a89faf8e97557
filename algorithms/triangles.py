"""Triangles and the local clustering coefficient.

For every vertex v let N(v) be its distinct neighbours other than itself (in- and
out-neighbours together in a directed graph) and d = |N(v)|. Both quantities come from one
count: the arcs (u, w), u != w, joining two members of N(v).

* ``local_clustering_coefficient``: that count / (d (d - 1)), 0 when d < 2. On an undirected
  graph this is networkx's clustering; on a directed one it is LDBC Graphalytics' LCC (not
  networkx's directed formula).
* ``triangle_count`` (undirected graphs): that count / 2, the triangles through v.

Method, undirected graphs: every edge is oriented from its lower end to its higher one, so each
triangle v -> u -> w (with v -> w) is found once, at v, and counted at all three vertices. With
a vertex of degree above ``ORIENT_ABOVE`` the order is (degree, id) and the degrees come in one
ghost exchange: work is the sum over oriented arcs v -> u of u's out-degree, at most sqrt(2m)
each, so a hub's long row is never scanned once per neighbour. Without hubs (roads, meshes) the
order is the id alone, which needs no exchange and bounds the same sum by the largest degree.
By degree, each rank orients its vertices' rows, fetches the oriented rows of the heads other
ranks own (two supersteps), counts into a tally over its vertex space (its own vertices and the
ghosts it reads) and sends the tallies to the owners (one superstep); v's heads are marked and
u's row scanned against the marks, in labels that put the rank's hubs first so that the marks
and tallies most rows end in share cache lines. By id, as GAP counts, nothing is oriented: a
triangle counts at its highest vertex, where a row's lower heads are its prefix, and merging v's
heads below u with u's heads below u finds it (``kernels.ordered_triangles``); a rank fetches
only the rows of the ghosts below its range, cut by their owners to their lower heads.

Directed graphs: each rank builds N(v) for its vertices, fetches once the out-rows of the
vertices of those sets that other ranks own (two supersteps), and counts the arcs among N(v)
with a marker array. Work is the sum over v of the degrees of its neighbours.

Either way the ghosts' rows, which on a skewed graph approach the whole graph, are fetched in
batches of about ``ROW_BATCH_ARCS`` arcs (sized by the ghosts' degrees), each counted and freed
before the next: a rank holds its own rows, its marks and tallies, and one batch.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np

from dgraph import kernels
from dgraph.block import common_space, index_type, space_slots
from dgraph.errors import DgraphInputError
from dgraph.ghosts import GhostExchange, add_at_owners, fetch, fetch_rows
from dgraph.kernels import unique

if TYPE_CHECKING:
    import dask.dataframe as dd

    from dgraph.graph import Graph

ORIENT_ABOVE = 64  # largest degree at which edges are oriented by id alone (undirected)
ROW_BATCH_ARCS = 1 << 21  # arcs of fetched rows a rank holds at once: ghost rows come in batches


def _batches(ctx, wanted, sizes, batch_arcs):
    """Each rank's ``wanted`` ids (sorted) cut into consecutive batches whose rows hold about
    ``batch_arcs`` arcs (``sizes``: each row's length, or a bound on it); every rank gets
    the same number of batches (at least one; some empty), as each batch's fetch is a
    collective step."""
    first = {r: (np.cumsum(sizes[r]) - sizes[r]) // batch_arcs for r in ctx.ranks}
    count = int(ctx.allreduce({r: [first[r][-1] + 1 if first[r].size else 1] for r in ctx.ranks}, "max")[0])
    for k in range(count):  # at least one, which counts the rows a rank holds itself
        yield {
            r: wanted[r][np.searchsorted(first[r], k) : np.searchsorted(first[r], k, side="right")] for r in ctx.ranks
        }


def _in_space(space, ghosts, dtype):
    """Fetched rows (placed ids) in a rank's space: the row ids (all in it) and their entries
    (of ``dtype``, the rank's own rows' type), those outside it as the extra slot
    ``space.size`` (never marked, never counted)."""
    ids, ptr, idx = ghosts
    if not ids.size:  # none fetched (one rank): on a small graph these passes outlast its count
        return ids, ptr, idx.astype(dtype, copy=False)
    slots, inside = space_slots(space, idx)
    slots[~inside] = space.size
    return np.searchsorted(space, ids), ptr, slots.astype(dtype, copy=False)


def neighbourhood_kernel(ctx, *, bounds, batch_arcs=ROW_BATCH_ARCS):
    sets, wanted, views, first = {}, {}, {}, {}
    for r in ctx.ranks:
        views[r] = common_space(ctx.blocks[r])  # out (and in) blocks in one space
        space, lo, hi = views[r][0].space, int(bounds[r]), int(bounds[r + 1])
        first[r] = int(np.searchsorted(space, lo))
        a, b = views[r][0], views[r][1] if len(views[r]) > 1 else None
        sets[r] = kernels.neighbour_sets(a, b, first[r])
        members = np.zeros(space.size, dtype=bool)
        members[sets[r][1]] = True
        members[first[r] : first[r] + hi - lo] = False
        wanted[r] = space[members]
    rows = {r: ctx.blocks[r][0] for r in ctx.ranks}
    lengths = fetch(ctx, wanted, {r: np.diff(rows[r].indptr) for r in ctx.ranks}, bounds)
    arcs, mark = {}, {}
    for r in ctx.ranks:
        arcs[r] = np.zeros(sets[r][0].size - 1, np.int64)
        mark[r] = np.zeros(views[r][0].space.size + 1, dtype=np.bool_)
    ctx.hold("neighbourhood marks", mark)
    for i, batch in enumerate(_batches(ctx, wanted, lengths, batch_arcs)):
        ghosts = fetch_rows(ctx, rows, batch, bounds)
        for r in ctx.ranks:
            own = views[r][0]
            if i:  # the rank's own rows count once, with the first batch
                own = SimpleNamespace(indptr=np.zeros_like(own.indptr), indices=own.indices[:0])
            ptr, idx = sets[r]
            arcs[r] += kernels.neighbourhood_arcs(
                ptr, idx, first[r], own, _in_space(views[r][0].space, ghosts[r], idx.dtype), mark[r]
            )
        del ghosts  # before the next batch comes
    return {r: {"arcs": arcs[r], "degree": np.diff(sets[r][0])} for r in ctx.ranks}


def oriented_kernel(ctx, *, bounds, batch_arcs=ROW_BATCH_ARCS, max_degree=None, degrees=False):
    """``max_degree``: orient by id alone, which bounds an oriented row by it; None: by (degree, id).
    Returns the triangles at each vertex, with its degree too where ``degrees`` (for the LCC)."""
    blocks = {r: ctx.blocks[r][0] for r in ctx.ranks}
    spaces = {r: blocks[r].space for r in ctx.ranks}
    with ctx.phase("orient"):
        first = {r: int(np.searchsorted(spaces[r], bounds[r])) for r in ctx.ranks}
        sets = {r: kernels.neighbour_sets(blocks[r], None, first[r]) for r in ctx.ranks}
        degree = {r: None for r in ctx.ranks}
        if max_degree is None:
            degree = {r: np.zeros(spaces[r].size, np.int64) for r in ctx.ranks}  # of every vertex a rank reads
            GhostExchange(ctx, {r: [blocks[r]] for r in ctx.ranks}, bounds)(
                {r: np.diff(sets[r][0]) for r in ctx.ranks}, degree
            )
        # by degree, counting runs in labels that put the hubs first (own rows relabelled once,
        # each batch of ghost rows as it comes); by id, the slots are the labels and the rows
        # need no orienting: a triangle counts at its highest vertex, from rows' lower heads
        serve, rows, new, wanted, sizes = {}, {}, {}, {}, {}
        for r in ctx.ranks:
            size = int(bounds[r + 1] - bounds[r])
            if degree[r] is None:
                ptr, heads = rows[r] = sets[r]
                lower = heads[heads < first[r]] if first[r] else heads[:0]  # ghosts below the rank's range
                wanted[r], new[r] = spaces[r][unique(lower)], None
                sizes[r] = np.full(wanted[r].size, max_degree)  # bound row lengths
            else:
                ptr, heads = kernels.orient_rows(*sets[r], degree[r], first[r])  # slots order as placed ids
                outside = heads[(heads < first[r]) | (heads >= first[r] + size)]
                wanted[r], new[r] = spaces[r][unique(outside)], _hubs_first(degree[r], first[r], size)
                rows[r] = _relabelled(np.arange(first[r], first[r] + size), ptr, heads, new[r])[1:]
                sizes[r] = degree[r][np.searchsorted(spaces[r], wanted[r])]
            sets[r] = np.diff(sets[r][0]) if degrees else None  # read again only as the LCC's degrees
            serve[r] = SimpleNamespace(lo=int(bounds[r]), indptr=ptr, indices=heads, space=spaces[r])
    with ctx.phase("count"):
        # by id, rows sorted in the orientation's order are merged; by degree, marked
        tri = {r: np.zeros(spaces[r].size + 1, dtype=np.int64) for r in ctx.ranks}
        mark = {r: None if new[r] is None else np.zeros(spaces[r].size + 1, dtype=np.bool_) for r in ctx.ranks}
        ctx.hold("triangles", tri, *([] if max_degree is not None else [mark, degree, new]))
        for i, batch in enumerate(_batches(ctx, wanted, sizes, batch_arcs)):
            ghosts = fetch_rows(ctx, serve, batch, bounds, below=max_degree is not None)
            for r in ctx.ranks:
                g = _in_space(spaces[r], ghosts[r], serve[r].indices.dtype)
                if new[r] is None:
                    kernels.ordered_triangles(*rows[r], first[r], _inside(*g, spaces[r].size), tri[r], own_heads=i == 0)
                else:
                    g = _relabelled(*g, new[r])
                    kernels.oriented_triangles(*rows[r], first[r], g, mark[r], tri[r], own_heads=i == 0)
                del g
            del ghosts  # before the next batch comes
    with ctx.phase("reduce"):
        at = {r: slice(-1) if new[r] is None else new[r][:-1] for r in ctx.ranks}  # each slot's label
        found = add_at_owners(ctx, spaces, {r: tri[r][at[r]] for r in ctx.ranks}, bounds)
    return {r: {"triangles": found[r], **({"degree": sets[r]} if degrees else {})} for r in ctx.ranks}


def _inside(ids, ptr, idx, size):
    """Rows without their entries outside the space (slot ``size``): sorted rows stay sorted."""
    if not idx.size:
        return ids, ptr, idx
    inside = idx < size
    return ids, np.r_[0, np.cumsum(inside)][ptr], idx[inside]


def _hubs_first(degree, first, size):
    """A label for every slot of a rank's vertex space, and the extra slot's own: the ghosts
    below the rank's ``size`` vertices (from slot ``first``), those vertices and the ghosts above
    each keep their range of labels, in descending degree (ties by slot). Oriented rows end in
    vertices of higher degree, so the marks and tallies they touch then share cache lines (GAP
    relabels by degree for the same reason)."""
    new = np.empty(degree.size + 1, index_type(degree.size + 1))
    for a, b in ((0, first), (first, first + size), (first + size, degree.size)):
        new[a + np.argsort(-degree[a:b], kind="stable")] = np.arange(a, b)
    new[-1] = degree.size
    return new


def _relabelled(ids, ptr, idx, new):
    """Rows ``ids`` (slots; CSR ``ptr/idx``) in labels ``new``: (their labels ascending, indptr,
    entries), each row's entries sorted, which walks the marks in order."""
    labels = new[ids]
    order = np.argsort(labels)
    lengths, entries = kernels.take_rows(ptr, idx, order, new, dtype=new.dtype)  # no per-entry positions
    out = np.zeros(ids.size + 1, np.int64)
    np.cumsum(lengths, out=out[1:])
    kernels.order_rows(out, entries, np.empty(0), dedup=False)
    return labels[order], out, entries


def _frame(graph, transform=None):
    """The kernel's counts per vertex (``transform``: None for the triangles, ``_lcc``)."""
    if graph.directed:
        kernel, params = neighbourhood_kernel, {}
    else:
        # by id alone while no row is long: no degree exchange, and a row bounds its heads' work
        hubs = graph.max_degree > ORIENT_ABOVE
        kernel, params = oriented_kernel, {"max_degree": None if hubs else graph.max_degree}
        params["degrees"] = transform is _lcc
    return graph.run_to_frame(
        kernel, transform=transform, reverse=graph.directed, name="neighbourhoods", batch_arcs=ROW_BATCH_ARCS, **params
    )


def _lcc(res):
    d = res["degree"].astype(np.float64)
    arcs = res["arcs"] if "arcs" in res else 2 * res["triangles"]  # directed: arcs among N(v)
    lcc = np.divide(arcs, d * (d - 1), out=np.zeros_like(d), where=d >= 2)
    return {"lcc": lcc}


def local_clustering_coefficient(graph: Graph) -> dd.DataFrame:
    """Local clustering coefficient of every vertex.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``vertex`` and ``lcc`` (float64). Undirected: networkx's ``clustering``;
        directed: LDBC Graphalytics LCC (arcs among the in- and out-neighbours / d (d - 1)).

    Examples
    --------
    >>> import pandas as pd, dgraph
    >>> e = pd.DataFrame({"src": [0, 0, 1, 2], "dst": [1, 2, 2, 3]})
    >>> g = dgraph.from_edgelist(e, directed=False)
    >>> dgraph.algorithms.local_clustering_coefficient(g).compute().lcc.round(3).tolist()
    [1.0, 1.0, 0.333, 0.0]
    """
    return _frame(graph, _lcc)


def triangle_count(graph: Graph) -> dd.DataFrame:
    """Triangles through every vertex of an undirected graph.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``vertex`` and ``triangles``; the graph's total is ``triangles.sum() // 3``
        (or ``total_triangles``).

    Examples
    --------
    >>> import pandas as pd, dgraph
    >>> e = pd.DataFrame({"src": [0, 0, 1, 2], "dst": [1, 2, 2, 3]})
    >>> g = dgraph.from_edgelist(e, directed=False)
    >>> dgraph.algorithms.triangle_count(g).compute().triangles.tolist()
    [1, 1, 1, 0]
    """
    if graph.directed:
        raise DgraphInputError(
            "triangle_count needs an undirected graph; build it with directed=False (or use "
            "local_clustering_coefficient, which handles directed graphs)"
        )
    return _frame(graph)


def total_triangles(graph: Graph) -> int:
    """The number of triangles of an undirected graph (an int)."""
    return int(graph.client.compute(triangle_count(graph)["triangles"].sum()).result()) // 3
