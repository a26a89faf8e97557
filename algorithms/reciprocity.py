"""Reciprocity of a directed graph's vertices: the share of a vertex's arcs, in and out, whose
reverse arc is there too (networkx's ``reciprocity``), computed on the workers by joining the
arcs with themselves turned round (a dask merge: no run of its own).

Output encoding: ``mutual`` (int64, the out-arcs whose reverse is there; a self-loop is its own
reverse) and ``reciprocity`` = 2 mutual / (in-degree + out-degree) (float64, null for an
isolated vertex).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dgraph.errors import DgraphInputError
from dgraph.joins import merge

if TYPE_CHECKING:
    import dask.dataframe as dd

    from dgraph.graph import Graph


def reciprocity(graph: Graph) -> dd.DataFrame:
    """Each vertex's reciprocity: twice its arcs that go both ways over its in- plus
    out-degree.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``vertex``, ``mutual`` and ``reciprocity`` (null where the vertex has no arcs).
        The whole graph's reciprocity (networkx's ``overall_reciprocity``) is the sum of
        ``mutual`` without the self-loops over the number of arcs.

    Notes
    -----
    One shuffle of the arcs (the merge) and one of the per-vertex counts.

    Examples
    --------
    >>> import pandas as pd, dgraph
    >>> g = dgraph.from_edgelist(pd.DataFrame({"src": [1, 2, 2], "dst": [2, 1, 3]}))
    >>> r = dgraph.algorithms.reciprocity(g).compute().set_index("vertex").sort_index()
    >>> r.reciprocity.round(3).tolist()
    [1.0, 0.667, 0.0]
    """
    if not graph.directed:
        raise DgraphInputError("reciprocity is for directed graphs: every edge of an undirected graph goes both ways")
    arcs = graph.edges()[["src", "dst"]]
    turned = arcs.rename(columns={"src": "dst", "dst": "src"})
    both = merge(arcs, turned, on=["src", "dst"], how="inner")
    mutual = both.groupby("src").size().rename("mutual")
    frame = graph.degrees()
    frame = merge(frame, mutual.to_frame(), left_on="vertex", right_index=True, how="left")
    frame = frame.assign(mutual=frame["mutual"].fillna(0).astype("int64"))
    total = frame["in_degree"] + frame["out_degree"]
    frame = frame.assign(reciprocity=(2 * frame["mutual"] / total.where(total > 0)).astype("float64"))
    return frame[["vertex", "mutual", "reciprocity"]]
