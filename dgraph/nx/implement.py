"""How the backend's implementations register, and the helpers they share: each module of
``dgraph.nx`` that implements networkx functions decorates them with ``implements(note)``, which
counts their calls (``CALLS``) and files them with their notes (``WRITTEN``, ``NOTES``);
``dgraph.nx.functions`` offers those the registry names."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from dgraph import algorithms as alg
from dgraph.dask_internals import fetch

F = TypeVar("F", bound=Callable[..., Any])

CALLS: Counter[str] = Counter()  # function name -> times the backend ran it
WRITTEN: dict[str, Callable[..., Any]] = {}  # function name -> its implementation here
NOTES: dict[str, str] = {}  # function name -> what a user of networkx should know when dgraph runs it


def implements(note: str = "") -> Callable[[F], F]:
    """Register the decorated function as the backend's implementation of networkx's function of
    the same name, with ``note`` for networkx's documentation of it."""

    def register(fn: F) -> F:
        @functools.wraps(fn)
        def counted(*args: Any, **kwargs: Any) -> Any:
            CALLS[fn.__name__] += 1
            return fn(*args, **kwargs)

        WRITTEN[fn.__name__] = counted
        NOTES[fn.__name__] = note
        return counted  # type: ignore[return-value]

    return register


def weighted(G, weight):
    """Whether ``weight`` names the graph's weights (networkx: a missing attribute counts 1)."""
    return weight is not None and weight == G.weight


def frame(G, result, *label_columns):
    """A result (dask) fetched to the client, ``label_columns`` named by networkx's nodes."""
    return G.label(fetch(G.graph_.client, result), *label_columns)


def distinct(G, result, column) -> int:
    """How many distinct values a per-vertex result's ``column`` holds (components, communities),
    counted by a tree of per-partition sets: no shuffle, and on the client when the run brought
    its results back."""
    return int(fetch(G.graph_.client, result[column].nunique(split_out=1)))


def as_dict(G, result, column):
    """node -> ``column`` of a per-vertex result."""
    found = frame(G, result, "vertex")
    return dict(zip(found["vertex"].tolist(), found[column].tolist()))


def groups(G, result, column):
    """The vertices of a result grouped by ``column``, as sets of nodes."""
    found = frame(G, result, "vertex")
    return (set(group) for group in found.groupby(column, sort=False)["vertex"].agg(list))


def bfs(G, source, depth_limit=None):
    """BFS from ``source`` (a node): the reached vertices, nearest first, named by nodes."""
    found = frame(G, alg.bfs(G.graph_, G.vertex(source), depth_limit=depth_limit), "vertex", "predecessor")
    return found[found["distance"].notna()].sort_values("distance", kind="stable")


def node_set(G):
    return set(G.nodes())


def has_node(G, node):
    try:
        return node in G.index if G.nodes_ is not None else node in node_set(G)
    except TypeError:  # an unhashable "node"
        return False


def is_container(nodes):
    return hasattr(nodes, "__iter__") and not isinstance(nodes, (str, bytes, tuple))


def at(G, values, nodes):
    """networkx's convention: a single node gives its value, else a dict over ``nodes``."""
    if nodes is not None and not is_container(nodes):
        return values[nodes]
    if nodes is None:
        return values
    return {v: values[v] for v in nodes}


def degrees(G):
    """The vertices' degrees, indexed by node: [degree] (undirected; a self-loop counts twice),
    or [in_degree, out_degree]."""
    return frame(G, G.graph_.degrees(), "vertex").set_index("vertex")


def loops_per_vertex(G):
    """node -> its self-loops, for the vertices that have any (counted on the workers)."""
    arcs = G.graph_.edges()
    loops = fetch(G.graph_.client, arcs[arcs["src"] == arcs["dst"]]["src"])
    return pd.Series(G.names(loops.to_numpy())).value_counts()


def number_of_loops(G) -> int:
    """The graph's self-loops, as each rank's blocks count them."""
    return int(sum(G.graph_.block_facts(_block_loops)))


def _block_loops(block):
    return int(sum(p.loops for p in block.parts))


def rng_seed(seed):
    """An int from networkx's random state (a ``random.Random``), so a seed gives one answer."""
    return None if seed is None else int(seed.getrandbits(31))


def floats(values) -> list[float]:
    return np.asarray(values, dtype=np.float64).tolist()
