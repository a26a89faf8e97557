"""Scores of candidate edges from the neighbourhoods of their ends (networkx's link prediction):
Jaccard coefficient, Adamic-Adar index, resource allocation index and preferential attachment,
for given pairs of vertices of an undirected graph.

Method: dask joins on the workers, no run of its own: the pairs meet the arcs at their first
end, the arcs at the second end keep the rows whose third vertex is a neighbour of both (one
row per (pair, common neighbour)), and the degrees join where a score needs them. As networkx
counts them, a common neighbour is neither end of the pair, the union of two neighbourhoods
includes the ends themselves where they are neighbours, and a degree counts a self-loop twice.
The work is the sum over pairs of their first end's degree.

Output encoding: columns ``u``, ``v`` (the pair, in the user's labels) and the score, named
after the function (float64; ``preferential_attachment``: int64).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import dask.dataframe as dd
import numpy as np
import pandas as pd

from dgraph.checks import integer
from dgraph.errors import DgraphInputError
from dgraph.joins import merge

if TYPE_CHECKING:
    from dgraph.graph import Graph

Pairs = Any  # an iterable of (u, v) pairs, or a pandas or dask DataFrame with columns u and v


def _pairs(graph, pairs, what):
    if graph.directed:
        raise DgraphInputError(f"{what} is for undirected graphs (networkx's is not implemented for directed ones)")
    if isinstance(pairs, (pd.DataFrame, dd.DataFrame)):
        if not {"u", "v"} <= set(pairs.columns):
            raise DgraphInputError(f"the pairs frame needs columns 'u' and 'v', it has {list(pairs.columns)}")
        frame = pairs[["u", "v"]]
    else:
        frame = pd.DataFrame(list(pairs), columns=["u", "v"])
    if isinstance(frame, pd.DataFrame):
        graph.encode_vertices(pd.unique(frame[["u", "v"]].to_numpy().ravel()).tolist(), "pair's vertex")
        frame = dd.from_pandas(frame, npartitions=max(1, min(graph.nranks, len(frame) // 10_000 + 1)))
    arcs = graph.edges()
    return frame.astype({"u": arcs["src"].dtype, "v": arcs["src"].dtype}), arcs[["src", "dst"]]


def _shared(pairs, arcs):
    """(u, v, w) for every vertex w that is a neighbour of both u and v."""
    first = merge(pairs, arcs.rename(columns={"src": "u", "dst": "w"}), on="u")
    return merge(first, arcs.rename(columns={"src": "v", "dst": "w"}), on=["v", "w"])


def _per_pair(pairs, values, name):
    summed = values.groupby(["u", "v"])[name].sum().reset_index()
    out = merge(pairs, summed, on=["u", "v"], how="left")
    return out.assign(**{name: out[name].fillna(0).astype("float64")})


def _degrees(graph):
    return graph.degrees()[["vertex", "degree"]]


def jaccard_coefficient(graph: Graph, pairs: Pairs) -> dd.DataFrame:
    """The Jaccard coefficient of each pair: its common neighbours over the union of its
    neighbourhoods (0 where both are empty).

    Examples
    --------
    >>> import pandas as pd, dgraph
    >>> g = dgraph.from_edgelist(pd.DataFrame({"src": [0, 0, 1, 2], "dst": [1, 2, 2, 3]}), directed=False)
    >>> dgraph.algorithms.jaccard_coefficient(g, [(0, 3)]).compute().values.tolist()
    [[0.0, 3.0, 0.5]]
    """
    pairs, arcs = _pairs(graph, pairs, "jaccard_coefficient")
    both = _shared(pairs, arcs)
    both = both.assign(common=((both["w"] != both["u"]) & (both["w"] != both["v"])).astype("int64"), meet=1)
    counts = both.groupby(["u", "v"])[["common", "meet"]].sum().reset_index()
    sizes = arcs.groupby("src").size().rename("size").reset_index()
    out = merge(pairs, counts, on=["u", "v"], how="left").fillna({"common": 0, "meet": 0})
    out = merge(out, sizes.rename(columns={"src": "u", "size": "nu"}), on="u", how="left")
    out = merge(out, sizes.rename(columns={"src": "v", "size": "nv"}), on="v", how="left").fillna({"nu": 0, "nv": 0})
    union = out["nu"] + out["nv"] - out["meet"]
    score = (out["common"] / union.where(union > 0)).fillna(0.0).astype("float64")
    return out[["u", "v"]].assign(jaccard_coefficient=score)


def _by_common_degree(graph, pairs, name, score):
    pairs, arcs = _pairs(graph, pairs, name)
    both = _shared(pairs, arcs)
    both = both[(both["w"] != both["u"]) & (both["w"] != both["v"])]
    both = merge(both, _degrees(graph).rename(columns={"vertex": "w"}), on="w")
    both = both.assign(**{name: score(both["degree"].astype("float64"))})
    return _per_pair(pairs, both, name)


def adamic_adar_index(graph: Graph, pairs: Pairs) -> dd.DataFrame:
    """The Adamic-Adar index of each pair: the sum over its common neighbours of 1 / log(degree).

    Examples
    --------
    >>> import pandas as pd, dgraph
    >>> g = dgraph.from_edgelist(pd.DataFrame({"src": [0, 0, 1, 2], "dst": [1, 2, 2, 3]}), directed=False)
    >>> round(float(dgraph.algorithms.adamic_adar_index(g, [(0, 3)]).compute().adamic_adar_index[0]), 4)
    0.9102
    """
    return _by_common_degree(graph, pairs, "adamic_adar_index", lambda d: 1 / np.log(d))


def resource_allocation_index(graph: Graph, pairs: Pairs) -> dd.DataFrame:
    """The resource allocation index of each pair: the sum over its common neighbours of 1 / degree.

    Examples
    --------
    >>> import pandas as pd, dgraph
    >>> g = dgraph.from_edgelist(pd.DataFrame({"src": [0, 0, 1, 2], "dst": [1, 2, 2, 3]}), directed=False)
    >>> float(dgraph.algorithms.resource_allocation_index(g, [(0, 3)]).compute().resource_allocation_index[0])
    0.3333333333333333
    """
    return _by_common_degree(graph, pairs, "resource_allocation_index", lambda d: 1 / d)


def preferential_attachment(graph: Graph, pairs: Pairs) -> dd.DataFrame:
    """The preferential attachment score of each pair: the product of its ends' degrees.

    Examples
    --------
    >>> import pandas as pd, dgraph
    >>> g = dgraph.from_edgelist(pd.DataFrame({"src": [0, 0, 1, 2], "dst": [1, 2, 2, 3]}), directed=False)
    >>> dgraph.algorithms.preferential_attachment(g, [(0, 3)]).compute().values.tolist()
    [[0, 3, 2]]
    """
    pairs, _ = _pairs(graph, pairs, "preferential_attachment")
    degree = _degrees(graph)
    out = merge(pairs, degree.rename(columns={"vertex": "u", "degree": "du"}), on="u")
    out = merge(out, degree.rename(columns={"vertex": "v", "degree": "dv"}), on="v")
    return out[["u", "v"]].assign(preferential_attachment=(out["du"] * out["dv"]).astype("int64"))


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
