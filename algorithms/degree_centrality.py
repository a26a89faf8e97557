"""What the degrees say of each vertex: degree centrality (networkx's: the degree over n - 1),
the isolated vertices and the self-loops, computed on the workers from ``Graph.degrees`` and
``Graph.edges`` (no run of its own).

Output encoding: ``degree_centrality`` (float64); ``isolates``: the ``vertex`` column alone;
``self_loops``: ``loops`` (int64), for the vertices that have any.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dgraph.errors import DgraphInputError

if TYPE_CHECKING:
    import dask.dataframe as dd

    from dgraph.graph import Graph

DIRECTIONS = ("all", "in", "out")


def _degree(graph, frame, direction):
    if not graph.directed:
        return frame["degree"]
    if direction == "all":
        return frame["in_degree"] + frame["out_degree"]
    return frame[f"{direction}_degree"]


def degree_centrality(graph: Graph, *, direction: str = "all") -> dd.DataFrame:
    """Each vertex's degree over ``n - 1`` (1 for every vertex of a one-vertex graph), as
    networkx's ``degree_centrality``; a self-loop counts twice.

    Parameters
    ----------
    graph : dgraph.Graph
    direction : {"all", "in", "out"}
        Of a directed graph, which arcs count (``"all"``: in and out); an undirected graph
        takes only ``"all"``.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``vertex`` and ``degree_centrality``.

    Examples
    --------
    >>> import dgraph
    >>> g = dgraph.datasets.load("karate")
    >>> dc = dgraph.algorithms.degree_centrality(g).compute().set_index("vertex")
    >>> round(float(dc.degree_centrality[34]), 4)
    0.5152
    """
    if direction not in DIRECTIONS:
        raise DgraphInputError(f"direction must be one of {DIRECTIONS}, got {direction!r}")
    if direction != "all" and not graph.directed:
        raise DgraphInputError(f'direction="{direction}" is for directed graphs; an undirected graph takes "all"')
    frame = graph.degrees()
    n = graph.num_vertices
    scale = 1.0 / (n - 1) if n > 1 else 1.0
    centrality = _degree(graph, frame, direction).astype("float64") * scale
    if n == 1:
        centrality = centrality * 0 + 1.0
    return frame[["vertex"]].assign(degree_centrality=centrality)


def isolates(graph: Graph) -> dd.DataFrame:
    """The vertices without arcs (a vertex with only a self-loop is not isolated).

    Returns
    -------
    dask.dataframe.DataFrame
        Column ``vertex``: one row per isolated vertex.

    Examples
    --------
    >>> import pandas as pd, dgraph
    >>> g = dgraph.from_edgelist(pd.DataFrame({"src": [1], "dst": [2]}), directed=False, vertices=[1, 2, 3])
    >>> dgraph.algorithms.isolates(g).compute().vertex.tolist()
    [3]
    """
    frame = graph.degrees()
    return frame[_degree(graph, frame, "all") == 0][["vertex"]]


def self_loops(graph: Graph) -> dd.DataFrame:
    """The vertices with a self-loop, and how many (one, unless the graph keeps repeated arcs).

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``vertex`` and ``loops``.

    Examples
    --------
    >>> import pandas as pd, dgraph
    >>> g = dgraph.from_edgelist(pd.DataFrame({"src": [1, 2], "dst": [1, 3]}), directed=False)
    >>> dgraph.algorithms.self_loops(g).compute().values.tolist()
    [[1, 1]]
    """
    arcs = graph.edges()
    loops = arcs[arcs["src"] == arcs["dst"]]
    counted = loops.groupby("src").size().rename("loops").reset_index().rename(columns={"src": "vertex"})
    return counted.astype({"loops": "int64"})
