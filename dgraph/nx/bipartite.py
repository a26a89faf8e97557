"""networkx's ``is_bipartite`` on dgraph (``dgraph.algorithms.bipartite``: the components of
the bipartite double cover)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dgraph import algorithms as alg
from dgraph.dask_internals import fetch

from .implement import implements

if TYPE_CHECKING:
    from .graphs import Graph


@implements("One connected-components run on the bipartite double cover (2n nodes, 2m edges), built on the cluster.")
def is_bipartite(G: Graph) -> bool:
    found = alg.bipartite(G.graph_)
    return bool(fetch(G.graph_.client, found["bipartite"].all()))
