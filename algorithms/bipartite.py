"""Which vertices lie in bipartite components: by the components of the bipartite double cover.

Method: a component is bipartite (two-colourable, no odd cycle) exactly where, in the graph's
bipartite double cover (each vertex v twice, (v, 0) and (v, 1); each edge {u, v} twice,
{(u, 0), (v, 1)} and {(u, 1), (v, 0)}), the two copies of its vertices fall in different
components: a walk from (v, 0) to (v, 1) is a closed walk of odd length through v. So one
``connected_components`` run on a graph of 2n vertices and 2m edges, built from this graph's
arcs on the workers, answers for every component at once, where a BFS 2-colouring takes a
search (and a superstep per level) per component. Arcs count both ways (a directed graph's
weak components); a self-loop is an odd cycle.

Output encoding: ``bipartite`` (bool): whether the vertex's component is bipartite.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from .connected_components import connected_components

if TYPE_CHECKING:
    import dask.dataframe as dd

    from dgraph.graph import Graph


def _copy(labels: pd.Series, side: int) -> pd.Series:
    """A vertex's label in the double cover: 2v + side for integers, the side's digit before the
    label otherwise (both one-to-one)."""
    if pd.api.types.is_integer_dtype(labels.dtype):
        return labels * 2 + side
    return str(side) + labels.astype(str)


def _covered(arcs: pd.DataFrame) -> pd.DataFrame:
    return pd.concat(
        [
            pd.DataFrame({"src": _copy(arcs["src"], 0), "dst": _copy(arcs["dst"], 1)}),
            pd.DataFrame({"src": _copy(arcs["src"], 1), "dst": _copy(arcs["dst"], 0)}),
        ],
        ignore_index=True,
    )


def _both(vertices: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({"vertex": pd.concat([_copy(vertices["vertex"], 0), _copy(vertices["vertex"], 1)])})


def _pairs(found: pd.DataFrame, integers: bool) -> pd.DataFrame:
    """[vertex, side, component] of the double cover's components, by the original labels."""
    labels = found["vertex"]
    if integers:
        vertex, side = labels // 2, labels % 2
    else:
        vertex, side = labels.str[1:], labels.str[0].astype(int)
    return pd.DataFrame(
        {"vertex": vertex.to_numpy(), "side": side.to_numpy(), "component": found["component"].to_numpy()}
    )


def bipartite(graph: Graph) -> dd.DataFrame:
    """Whether each vertex's component is bipartite (can be coloured with two colours so that no
    edge joins two of one colour); a directed graph's weak components, as networkx's
    ``is_bipartite`` reads them. The graph is bipartite where every vertex's is.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``vertex`` and ``bipartite`` (bool).

    Notes
    -----
    One ``connected_components`` run on the bipartite double cover (2n vertices, 2m edges),
    built on the workers from this graph's arcs.

    Examples
    --------
    >>> import pandas as pd, dgraph
    >>> square = dgraph.from_edgelist(pd.DataFrame({"src": [0, 1, 2, 3], "dst": [1, 2, 3, 0]}), directed=False)
    >>> bool(dgraph.algorithms.bipartite(square).compute().bipartite.all())
    True
    >>> triangle = dgraph.from_edgelist(pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 0]}), directed=False)
    >>> bool(dgraph.algorithms.bipartite(triangle).compute().bipartite.any())
    False
    """
    from dgraph.build import from_edgelist

    arcs = graph.edges()[["src", "dst"]]
    vertices = graph.degrees()[["vertex"]]
    integers = pd.api.types.is_integer_dtype(vertices["vertex"].dtype)
    cover_arcs = arcs.map_partitions(_covered, meta=_covered(arcs._meta))
    cover_vertices = vertices.map_partitions(_both, meta=_both(vertices._meta))
    cover = from_edgelist(cover_arcs, directed=False, vertices=cover_vertices, layout=graph.layout, client=graph.client)
    found = connected_components(cover)
    pairs = found.map_partitions(_pairs, integers, meta=_pairs(found._meta, integers))
    zero = pairs[pairs["side"] == 0][["vertex", "component"]]
    one = pairs[pairs["side"] == 1][["vertex", "component"]].rename(columns={"component": "other"})
    both = zero.merge(one, on="vertex")
    return both[["vertex"]].assign(bipartite=both["component"] != both["other"])
