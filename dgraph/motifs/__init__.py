"""Motif finding: GraphFrames' ``find`` on a dgraph graph, evaluated as joins on the workers.

``pattern.py`` parses the pattern language (errors point at the text), ``plan.py`` orders the
joins, checks boundedness and derives degree pruning, ``arcs.py`` reads the graph's arcs, degree
candidates and labels on the workers, and ``evaluate.py`` joins them with dask.
"""

from __future__ import annotations

import numbers
from typing import Any

import dask.dataframe as dd

from ..errors import DgraphInputError
from .evaluate import matches
from .pattern import Pattern, Term, parse
from .plan import Plan, plan

__all__ = ["Pattern", "Plan", "Term", "find", "parse", "plan"]


def find(graph: Any, pattern: str, *, limit: int | None = None, distinct: bool = False) -> dd.DataFrame:
    """The matches of a motif ``pattern`` in ``graph``, as a dask DataFrame made on the workers.

    The pattern is GraphFrames': terms ``(a)-[e]->(b)`` joined by ``;``. A vertex name used in
    two terms is the same vertex; anonymous vertices ``()`` and edges ``[]`` match anything and
    are not returned; ``(a)-[]->(a)`` is a self-loop; ``!(a)-[]->(b)`` keeps the matches with
    no such arc (its vertices must be named by a positive term). An undirected graph matches
    each edge in both directions, so a match and its mirror are both found; a multigraph's
    repeated arcs each match.

    As in GraphFrames, different names may be matched by the same vertex (``(a)-[]->(b);
    (b)-[]->(c)`` finds ``a == c`` where two arcs go back and forth); ``distinct=True`` keeps
    only matches whose named vertices are all different (and prunes candidates by how many
    different neighbours each name needs).

    Parameters
    ----------
    graph : dgraph.Graph
    pattern : str
        The motif. A bad one is a ``DgraphInputError`` showing the position it found wrong.
    limit : int, optional
        At most this many matches (any of them). A pattern whose parts share no vertex name
        (their cross product) is refused unless ``limit`` is given.
    distinct : bool
        Whether the named vertices of a match must all be different vertices.

    Returns
    -------
    dask.dataframe.DataFrame
        One column per named vertex (the user's labels) and, per named edge ``e``, a column
        ``e.<attribute>`` for each of ``graph.edge_attrs`` (the weight among them), in the
        order the names first appear.

    Notes
    -----
    The terms are dask merges of the graph's arcs in placed ids (each worker's arcs from its
    ranks' blocks), joined one after another on shared names, so each join's rows are the
    partial matches: a pattern through a hub holds its degree squared paths before a closing
    term filters them.

    >>> import pandas as pd, dgraph
    >>> e = pd.DataFrame({"src": ["x", "y", "z", "y"], "dst": ["y", "z", "x", "x"], "w": [1.0, 2.0, 3.0, 4.0]})
    >>> g = dgraph.from_edgelist(e, weight="w")
    >>> g.find("(a)-[e]->(b); (b)-[]->(c); (c)-[]->(a)").compute().sort_values("a").values.tolist()
    [['x', 1.0, 'y', 'z'], ['y', 2.0, 'z', 'x'], ['z', 3.0, 'x', 'y']]
    >>> g.find("(a)-[]->(b); !(b)-[]->(a)").compute().shape[0]
    2
    """
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, numbers.Integral) or limit < 1):
        raise DgraphInputError(f"limit must be a positive integer or None, got {limit!r}")
    limit = None if limit is None else int(limit)
    return matches(graph, plan(parse(pattern), directed=graph.directed, distinct=distinct, limit=limit), limit=limit)
