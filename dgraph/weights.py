"""Which edge weight a call uses: the graph's own by default, as networkx's Dijkstra does.

Every algorithm that can use edge weights takes ``weight=`` with the same meaning:

- left out (its default, ``GRAPH_WEIGHT``): the graph's weight if it was built with one
  (``from_edgelist(..., weight="w")``), unit weights otherwise;
- ``None``: unit weights, even on a weighted graph;
- a name: that numeric edge attribute, chosen for this call: the graph's weight or any column
  kept with ``edge_attrs=``. The call sees the blocks with that column as their weights (made
  on the workers the first time and kept, ``Graph.with_weight``), so nothing is rebuilt.

>>> import pandas as pd, dgraph
>>> e = pd.DataFrame({"src": [0], "dst": [1], "w": [2.5], "t": [4]})
>>> g = dgraph.from_edgelist(e, weight="w", edge_attrs=["t"])
>>> chosen_weight(g, GRAPH_WEIGHT, "sssp"), chosen_weight(g, None, "sssp"), chosen_weight(g, "t", "sssp")
('w', None, 't')
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Final

from .attributes import numeric_names
from .errors import DgraphInputError

if TYPE_CHECKING:
    from .graph import Graph


class GraphWeight(enum.Enum):
    """The type of ``GRAPH_WEIGHT``, the default of every ``weight=`` parameter."""

    GRAPH_WEIGHT = "the graph's weight"

    def __repr__(self) -> str:
        return "dgraph.GRAPH_WEIGHT"


GRAPH_WEIGHT: Final = GraphWeight.GRAPH_WEIGHT
"""``weight=GRAPH_WEIGHT`` (the default): the graph's own weight, or unit weights when it has none."""

Weight = str | None | GraphWeight
"""What ``weight=`` takes: a column name, ``None`` (unit weights) or ``GRAPH_WEIGHT``."""


def chosen_weight(graph: Graph, weight: Weight, algorithm: str) -> str | None:
    """The weight column ``algorithm`` uses on ``graph`` for ``weight=``: the graph's weight for
    ``GRAPH_WEIGHT``, None (unit weights) for None, or ``weight`` itself when it names a numeric
    edge attribute of the graph."""
    if weight is GRAPH_WEIGHT:
        return graph.weight
    if weight is None:
        return None
    numeric = numeric_names(graph.store.edge_dtypes)
    if weight == graph.weight or weight in numeric:
        return weight
    kept = f"its numeric edge attributes are {numeric}" if numeric else "it has no numeric edge attributes"
    if not isinstance(weight, str):
        raise DgraphInputError(
            f"{algorithm}: weight must be the name of an edge attribute or None, got {weight!r}; {kept}"
        )
    if weight in graph.store.edge_dtypes:
        raise DgraphInputError(
            f"{algorithm}: edge attribute {weight!r} has dtype {graph.store.edge_dtypes[weight]}, which cannot weigh "
            f"arcs; {kept}"
        )
    raise DgraphInputError(
        f"{algorithm}: weight={weight!r} is not an edge attribute of this graph ({kept}); keep the column with "
        f"from_edgelist(..., edge_attrs=[{weight!r}]), or leave weight out for the graph's weight"
    )


def weighed(graph: Graph, weight: Weight, algorithm: str) -> tuple[Graph, str | None]:
    """``(graph, name)``: the weight ``algorithm`` uses (``chosen_weight``), and the graph seen
    with it as its weights (``Graph.with_weight``) when that is another edge attribute than the
    graph's own weight."""
    name = chosen_weight(graph, weight, algorithm)
    return (graph if name is None or name == graph.weight else graph.with_weight(name)), name
