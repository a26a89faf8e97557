"""Which edge weight a call uses: the graph's own by default, as networkx's Dijkstra does.

Every algorithm that can use edge weights takes ``weight=`` with the same meaning:

- left out (its default, ``GRAPH_WEIGHT``): the graph's weight if it was built with one
  (``from_edgelist(..., weight="w")``), unit weights otherwise;
- ``None``: unit weights, even on a weighted graph;
- a column name: that column, which must be the one the graph was built with.

>>> import pandas as pd, dgraph
>>> g = dgraph.from_edgelist(pd.DataFrame({"src": [0], "dst": [1], "w": [2.5]}), weight="w")
>>> chosen_weight(g, GRAPH_WEIGHT, "sssp"), chosen_weight(g, None, "sssp"), chosen_weight(g, "w", "sssp")
('w', None, 'w')
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Final

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
    ``GRAPH_WEIGHT``, None (unit weights) for None, or ``weight`` itself when it is the graph's."""
    if weight is GRAPH_WEIGHT:
        return graph.weight
    if weight is None:
        return None
    if not isinstance(weight, str):
        raise DgraphInputError(
            f"{algorithm}: weight must be the name of the graph's weight column or None, got {weight!r}"
        )
    if graph.weight is None:
        raise DgraphInputError(
            f"{algorithm}: weight={weight!r} but the graph has no weights; build it with "
            f"from_edgelist(..., weight={weight!r}), or leave weight out for unit weights"
        )
    if weight != graph.weight:
        raise DgraphInputError(
            f"{algorithm}: weight={weight!r} but the graph's weight is {graph.weight!r}; leave weight out "
            f"to use {graph.weight!r}, pass weight=None for unit weights, or rebuild the graph with "
            f"from_edgelist(..., weight={weight!r})"
        )
    return weight
