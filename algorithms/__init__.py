"""Graph algorithms. Each takes a ``dgraph.Graph`` first and returns a dask DataFrame with a
``vertex`` column in the user's labels and named value columns."""

from .bfs import bfs, validate_bfs
from .components import connected_components, weakly_connected_components
from .cdlp import label_propagation
from .pagerank import pagerank
from .sssp import sssp

__all__ = ["bfs", "connected_components", "label_propagation", "pagerank", "sssp", "validate_bfs", "weakly_connected_components"]
