"""dgraph: Dask-native distributed graph analytics.

>>> import dgraph
>>> g = dgraph.datasets.load("karate")
>>> dgraph.algorithms.bfs(g, 1).compute().sort_values("vertex").head(3)  # doctest: +SKIP
"""

from . import datasets, kernels
from .errors import ConvergenceWarning, DgraphError, DgraphInputError, DgraphRunError, DgraphWarning
from .graph import Graph, from_edgelist
from .io import from_networkx, read_edgelist

__version__ = "0.1.0"

__all__ = [
    "ConvergenceWarning", "DgraphError", "DgraphInputError", "DgraphRunError", "DgraphWarning", "Graph",
    "datasets", "from_edgelist", "from_networkx", "kernels", "read_edgelist",
]


def __getattr__(name):
    if name in ("algorithms", "partitioners", "generators"):
        import importlib

        return importlib.import_module(f"dgraph.{name}")
    raise AttributeError(f"module 'dgraph' has no attribute {name!r}")
