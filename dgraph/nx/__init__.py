"""dgraph as a networkx backend: ``nx.pagerank(G, backend="dgraph")`` runs on the dask cluster.

networkx (3.2 and later) dispatches a call to dgraph when asked (``backend="dgraph"``), when
the graph is a ``dgraph.nx.Graph``, or by ``nx.config.backend_priority``. A networkx graph is
converted once (networkx keeps the conversion in the graph's ``__networkx_cache__`` until the
graph changes); a ``dgraph.nx.Graph`` built with ``from_pandas_edgelist`` never exists in
networkx at all. Which functions run, with which parameters, and where answers may differ:
``_dgraph_nx.NOTES`` (also shown in each function's networkx documentation).

>>> import networkx as nx
>>> G = nx.karate_club_graph()
>>> ranks = nx.pagerank(G, backend="dgraph")
>>> max(ranks, key=ranks.get)
33
"""

from .backend import BackendInterface, can_run, should_run
from .functions import CALLS, IMPLEMENTED
from .graphs import CONVERSIONS, DiGraph, Graph, convert_from_nx, convert_to_nx, from_pandas_edgelist

__all__ = [
    "BackendInterface",
    "CALLS",
    "CONVERSIONS",
    "DiGraph",
    "Graph",
    "IMPLEMENTED",
    "can_run",
    "convert_from_nx",
    "convert_to_nx",
    "from_pandas_edgelist",
    "should_run",
]
