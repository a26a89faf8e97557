"""Scores of candidate edges from the neighbourhoods of their ends (networkx's link prediction):
Jaccard coefficient, Adamic-Adar index, resource allocation index and preferential attachment,
for given pairs of vertices of an undirected graph.

Method: one run over the 1D owner blocks. The client looks the pairs' labels up once and deals
each pair to the owner of its first end u, beside that rank's block. Each rank fetches the rows
N(v) of the distinct second ends other ranks own (``ghosts.fetch_rows``: two supersteps, none on
one rank) and intersects N(u) with N(v) for every pair in a kernel (``kernels.pair_overlaps``:
sorted rows merged, or the shorter searched in the longer where one is a hub's), which gives
|N(u) & N(v)|, the common neighbours other than u and v, and the sum over those of a weight of
each: 1 / log(degree) or 1 / degree, from the degrees of the vertices the rank's arcs reach
(``ghosts.GhostExchange``, two supersteps; a common neighbour of u is always one). Preferential
attachment reads no rows: u's degree is the rank's, v's comes from its owner
(``ghosts.fetch``). As networkx counts them, a common neighbour is neither end of the pair, the
union of two neighbourhoods includes the ends themselves where they are neighbours, and a
degree counts a self-loop twice; a neighbour repeated (``duplicates="keep"``) counts once in
the sets. Work is the sum over pairs of the shorter row (times a logarithm) or of both rows;
a rank holds its pairs and the rows of their remote second ends.

Output encoding: columns ``u``, ``v`` (the pair, in the user's labels) and the score, named
after the function (float64; ``preferential_attachment``: int64): one row per pair given, in
the order given within each owner of u.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import dask.dataframe as dd
import numpy as np
import pandas as pd

from dgraph import kernels
from dgraph.block import space_slots
from dgraph.checks import integer
from dgraph.dask_internals import fetch as fetch_frame
from dgraph.errors import DgraphInputError
from dgraph.ghosts import GhostExchange, fetch, fetch_rows

if TYPE_CHECKING:
    from dgraph.graph import Graph

Pairs = Any  # an iterable of (u, v) pairs, or a pandas or dask DataFrame with columns u and v
BY_COMMON_DEGREE = {  # the weight each common neighbour adds, from its degree
    "adamic_adar_index": lambda d: 1 / np.log(d),
    "resource_allocation_index": lambda d: 1 / d,
}


def _placed_pairs(graph, pairs, what):
    """The pairs' ends as placed ids (two int64 arrays); an unknown label raises."""
    if graph.directed:
        raise DgraphInputError(f"{what} is for undirected graphs (networkx's is not implemented for directed ones)")
    if isinstance(pairs, (pd.DataFrame, dd.DataFrame)):
        if not {"u", "v"} <= set(pairs.columns):
            raise DgraphInputError(f"the pairs frame needs columns 'u' and 'v', it has {list(pairs.columns)}")
        frame = pairs[["u", "v"]]
        if isinstance(frame, dd.DataFrame):  # the pairs are looked up and dealt from the client
            frame = fetch_frame(graph.client, frame)
    else:
        frame = pd.DataFrame(list(pairs), columns=["u", "v"])
    if not len(frame):
        return np.empty(0, np.int64), np.empty(0, np.int64)
    labels = pd.unique(frame.to_numpy().ravel())
    ids = np.asarray(graph.encode_vertices(labels.tolist(), "pair's vertex"), dtype=np.int64)
    index = pd.Index(labels)
    return ids[index.get_indexer(frame["u"])], ids[index.get_indexer(frame["v"])]


def _score(graph, pairs, name):
    """The run scoring ``pairs`` by ``name``: each pair dealt to the owner of its u."""
    u, v = _placed_pairs(graph, pairs, name)
    store = graph.store
    rank = np.searchsorted(store.bounds, u, side="right") - 1
    order = np.argsort(rank, kind="stable")
    cuts = np.searchsorted(rank[order], np.arange(graph.nranks + 1))
    pieces = [np.stack([u[order[a:b]], v[order[a:b]]]) for a, b in zip(cuts[:-1], cuts[1:])]
    where = store.where(store.owner())
    beside = [graph.client.scatter(p, workers=[w], hash=False) for p, w in zip(pieces, where)]
    return graph.run_to_rows(link_kernel, label_columns=("u", "v"), name=name, beside=beside, score=name)


def _degrees(block):
    """The degrees of a rank's own vertices (a self-loop twice, as networkx counts it)."""
    return block.degree() + block.loop_counts()


def _distinct_lengths(indptr, indices):
    """Each row's distinct entries (rows sorted, so a repeat follows its first)."""
    new = np.ones(indices.size, dtype=bool)
    np.not_equal(indices[1:], indices[:-1], out=new[1:])
    new[indptr[:-1][indptr[:-1] < indptr[1:]]] = True
    seen = np.zeros(indices.size + 1, np.int64)
    np.cumsum(new, out=seen[1:])
    return seen[indptr[1:]] - seen[indptr[:-1]]


def _far_rows(space, ghosts):
    """Fetched rows (placed ids) as slots of the rank's space, those outside it dropped (no
    common neighbour lies there), and each row's distinct length before."""
    ids, ptr, idx = ghosts
    sizes = _distinct_lengths(ptr, idx)
    slots, inside = space_slots(space, idx.astype(np.int64))
    kept = np.zeros(idx.size + 1, np.int64)
    np.cumsum(inside, out=kept[1:])
    return ids, (kept[ptr], slots[inside]), sizes


def link_kernel(ctx, *, score, bounds):
    blocks = {r: ctx.blocks[r][0] for r in ctx.ranks}
    pairs = {r: ctx.blocks[r][1] for r in ctx.ranks}
    lo = {r: int(bounds[r]) for r in ctx.ranks}
    degree = {r: _degrees(blocks[r]) for r in ctx.ranks}
    if score == "preferential_attachment":
        far = fetch(ctx, {r: pairs[r][1] for r in ctx.ranks}, degree, bounds)
        return {r: {"u": u, "v": v, score: degree[r][u - lo[r]] * far[r]} for r, (u, v) in pairs.items()}
    weight = {r: np.empty(0) for r in ctx.ranks}
    if score in BY_COMMON_DEGREE:
        around = {r: np.zeros(b.space.size, np.int64) for r, b in blocks.items()}
        GhostExchange(ctx, {r: [b] for r, b in blocks.items()}, bounds)(degree, around)
        with np.errstate(divide="ignore"):  # a leaf beside u paired with itself: 1 / log(1), where networkx raises
            weight = {r: BY_COMMON_DEGREE[score](around[r].astype(np.float64)) for r in ctx.ranks}
    remote = {r: kernels.unique(v[(v < lo[r]) | (v >= bounds[r + 1])]) for r, (u, v) in pairs.items()}
    ghosts = fetch_rows(ctx, blocks, remote, bounds)
    out = {}
    for r, (u, v) in pairs.items():
        b, hi = blocks[r], int(bounds[r + 1])
        ids, far, far_sizes = _far_rows(b.space, ghosts.pop(r))
        mine = (v >= lo[r]) & (v < hi)
        vrow = np.where(mine, v - lo[r], -1 - np.searchsorted(ids, v))
        first = int(np.searchsorted(b.space, lo[r]))
        vslot, inside = space_slots(b.space, v)
        key = b.space_key if b.space_key is not None else np.empty(0, np.int64)
        found = (u - lo[r], vrow, u - lo[r] + first, np.where(inside, vslot, -1))
        meet, common, total = kernels.pair_overlaps((b.indptr, b.indices), far, key, found, weight[r])
        if score in BY_COMMON_DEGREE:
            out[r] = {"u": u, "v": v, score: total}
            continue
        sizes = _distinct_lengths(b.indptr, b.indices)
        nv = np.empty(v.size, np.int64)
        nv[mine], nv[~mine] = sizes[vrow[mine]], far_sizes[-1 - vrow[~mine]]
        union = sizes[u - lo[r]] + nv - meet
        with np.errstate(invalid="ignore", divide="ignore"):
            out[r] = {"u": u, "v": v, score: np.where(union > 0, common / np.maximum(union, 1), 0.0)}
    return out


def jaccard_coefficient(graph: Graph, pairs: Pairs) -> dd.DataFrame:
    """The Jaccard coefficient of each pair: its common neighbours over the union of its
    neighbourhoods (0 where both are empty).

    Parameters
    ----------
    graph : dgraph.Graph
        Undirected.
    pairs : iterable of (u, v), or a pandas or dask DataFrame with columns ``u`` and ``v``
        Labels of the graph's vertices (an unknown one raises ``DgraphInputError``).

    Notes
    -----
    One run: two supersteps fetch the rows of the second ends other ranks own (none on one
    rank); see the module's docstring.

    Examples
    --------
    >>> import pandas as pd, dgraph
    >>> g = dgraph.from_edgelist(pd.DataFrame({"src": [0, 0, 1, 2], "dst": [1, 2, 2, 3]}), directed=False)
    >>> dgraph.algorithms.jaccard_coefficient(g, [(0, 3)]).compute().values.tolist()
    [[0.0, 3.0, 0.5]]
    """
    return _score(graph, pairs, "jaccard_coefficient")


def adamic_adar_index(graph: Graph, pairs: Pairs) -> dd.DataFrame:
    """The Adamic-Adar index of each pair: the sum over its common neighbours of 1 / log(degree).

    Examples
    --------
    >>> import pandas as pd, dgraph
    >>> g = dgraph.from_edgelist(pd.DataFrame({"src": [0, 0, 1, 2], "dst": [1, 2, 2, 3]}), directed=False)
    >>> round(float(dgraph.algorithms.adamic_adar_index(g, [(0, 3)]).compute().adamic_adar_index[0]), 4)
    0.9102
    """
    return _score(graph, pairs, "adamic_adar_index")


def resource_allocation_index(graph: Graph, pairs: Pairs) -> dd.DataFrame:
    """The resource allocation index of each pair: the sum over its common neighbours of 1 / degree.

    Examples
    --------
    >>> import pandas as pd, dgraph
    >>> g = dgraph.from_edgelist(pd.DataFrame({"src": [0, 0, 1, 2], "dst": [1, 2, 2, 3]}), directed=False)
    >>> float(dgraph.algorithms.resource_allocation_index(g, [(0, 3)]).compute().resource_allocation_index[0])
    0.3333333333333333
    """
    return _score(graph, pairs, "resource_allocation_index")


def preferential_attachment(graph: Graph, pairs: Pairs) -> dd.DataFrame:
    """The preferential attachment score of each pair: the product of its ends' degrees.

    Examples
    --------
    >>> import pandas as pd, dgraph
    >>> g = dgraph.from_edgelist(pd.DataFrame({"src": [0, 0, 1, 2], "dst": [1, 2, 2, 3]}), directed=False)
    >>> dgraph.algorithms.preferential_attachment(g, [(0, 3)]).compute().values.tolist()
    [[0, 3, 2]]
    """
    return _score(graph, pairs, "preferential_attachment")


def _best(frame: pd.DataFrame, k: int, by_vertex: bool) -> pd.DataFrame:
    """The ``k`` highest-scoring rows (of each ``u`` when ``by_vertex``), ties to the smaller ``v``
    (then ``u``): the same rows whatever the partitions."""
    frame = frame.sort_values(["jaccard_coefficient", "u", "v"], ascending=[False, True, True], kind="stable")
    return (frame.groupby("u", sort=False).head(k) if by_vertex else frame.head(k)).reset_index(drop=True)


def jaccard_top_k(graph: Graph, k: int = 10, *, per_vertex: bool = True) -> dd.DataFrame:
    """The most similar pairs of vertices by Jaccard coefficient, among all pairs: each vertex's
    ``k`` best partners (``per_vertex``), or the ``k`` best pairs of the graph, each pair once.

    Only pairs with a common neighbour score above 0, so the candidates are the two-hop pairs:
    each vertex's neighbourhood joined with itself on the workers (one row per (pair, common
    neighbour): the sum over vertices of their degree squared), counted per pair, scored as
    ``jaccard_coefficient`` scores (same conventions), then cut to the best ``k`` per vertex
    after a shuffle by ``u`` (or per partition, then over those). Ties go to the smaller
    partner's label.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``u``, ``v`` and ``jaccard_coefficient`` (float64); with ``per_vertex``, up to
        ``k`` rows per vertex ``u`` that has a two-hop partner, else ``k`` rows with u < v.

    Examples
    --------
    >>> import pandas as pd, dgraph
    >>> g = dgraph.from_edgelist(pd.DataFrame({"src": [0, 0, 1, 2], "dst": [1, 2, 2, 3]}), directed=False)
    >>> dgraph.algorithms.jaccard_top_k(g, 1, per_vertex=False).compute().values.tolist()
    [[0.0, 3.0, 0.5]]
    """
    if graph.directed:
        raise DgraphInputError("jaccard_top_k is for undirected graphs (networkx's jaccard_coefficient is too)")
    k = integer(k, "k", minimum=1)
    arcs = graph.edges()[["src", "dst"]]
    around = arcs.rename(columns={"src": "w", "dst": "u"})
    pairs = around.merge(around.rename(columns={"u": "v"}), on="w")
    pairs = pairs[pairs["u"] != pairs["v"]]
    if not per_vertex:
        pairs = pairs[pairs["u"] < pairs["v"]]
    pairs = pairs.assign(common=((pairs["w"] != pairs["u"]) & (pairs["w"] != pairs["v"])).astype("int64"), meet=1)
    counts = pairs.groupby(["u", "v"])[["common", "meet"]].sum().reset_index()
    sizes = arcs.groupby("src").size().rename("size").reset_index()
    out = counts.merge(sizes.rename(columns={"src": "u", "size": "nu"}), on="u")
    out = out.merge(sizes.rename(columns={"src": "v", "size": "nv"}), on="v")
    score = (out["common"] / (out["nu"] + out["nv"] - out["meet"])).astype("float64")
    scored = out[["u", "v"]].assign(jaccard_coefficient=score)
    scored = scored[scored["jaccard_coefficient"] > 0]
    meta = scored._meta
    if per_vertex:
        return scored.shuffle("u").map_partitions(_best, k, True, meta=meta)
    best = scored.map_partitions(_best, k, False, meta=meta)
    return best.repartition(npartitions=1).map_partitions(_best, k, False, meta=meta)
