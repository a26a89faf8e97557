"""networkx's spectral and distance centralities on dgraph: HITS, Katz and eigenvector
centrality (power iterations, ``dgraph.algorithms.hits``, ``katz_centrality``,
``eigenvector_centrality``), closeness and harmonic centrality (a search from every vertex,
``dgraph.algorithms.distance_measures``). A power iteration that does not converge within
``max_iter`` raises networkx's ``PowerIterationFailedConvergence``, as networkx's does."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any

from dgraph import algorithms as alg
from dgraph.errors import ConvergenceWarning

from .implement import frame, implements, weighted

if TYPE_CHECKING:
    import dask.dataframe as dd

    from .graphs import Graph


def _iterated(G: Graph, run: Callable[[], dd.DataFrame], max_iter: int):
    """The frame of a power iteration ``run()``, fetched and named; networkx's error where it did
    not converge."""
    import networkx as nx

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        found = run()
        converged = G.graph_.last_stats.info.get("converged", True)
        named = frame(G, found, "vertex")
    if not converged:
        raise nx.PowerIterationFailedConvergence(max_iter)
    return named


def _column(named, column):
    return dict(zip(named["vertex"].tolist(), named[column].astype(float).tolist()))


@implements(
    "Kleinberg's power iteration (networkx's method before 3.0), stopping when the hubs change by less "
    "than tol in L1; networkx 3 computes the same leading singular vectors with ARPACK, so answers agree to "
    "about tol where those vectors are unique. Without nstart."
)
def hits(
    G: Graph, max_iter: int = 100, tol: float = 1.0e-8, nstart: Any = None, normalized: bool = True
) -> tuple[dict[Hashable, float], dict[Hashable, float]]:
    import networkx as nx

    if max_iter <= 0:
        raise nx.PowerIterationFailedConvergence(max_iter)
    named = _iterated(G, lambda: alg.hits(G.graph_, max_iter=max_iter, tol=tol, normalized=normalized), max_iter)
    return _column(named, "hubs"), _column(named, "authorities")


@implements("Without nstart; results agree with networkx's within tol.")
def katz_centrality(
    G: Graph,
    alpha: float = 0.1,
    *,
    beta: Any = 1.0,
    max_iter: int = 1000,
    tol: float = 1.0e-6,
    nstart: Any = None,
    normalized: bool = True,
    weight: str | None = None,
) -> dict[Hashable, float]:
    import networkx as nx

    if len(G) == 0:  # networkx's answer for the null graph, whatever beta is
        return {}
    try:
        beta = float(beta)
    except (TypeError, ValueError, AttributeError) as err:
        nodes = set(G.nodes())
        if not hasattr(beta, "keys") or set(beta) != nodes:
            raise nx.NetworkXError("beta dictionary must have a value for every node") from err
        beta = {G.vertex(v): b for v, b in beta.items()}
    graph = G.graph_
    chosen = graph.weight if weighted(G, weight) else None
    named = _iterated(
        G,
        lambda: alg.katz_centrality(
            graph, alpha=alpha, beta=beta, max_iter=max_iter, tol=tol, normalized=normalized, weight=chosen
        ),
        max_iter,
    )
    return _column(named, "katz_centrality")


@implements("Without nstart; results agree with networkx's within tol.")
def eigenvector_centrality(
    G: Graph, max_iter: int = 100, tol: float = 1.0e-6, nstart: Any = None, weight: str | None = None
) -> dict[Hashable, float]:
    graph = G.graph_
    chosen = graph.weight if weighted(G, weight) else None
    named = _iterated(G, lambda: alg.eigenvector_centrality(graph, max_iter=max_iter, tol=tol, weight=chosen), max_iter)
    return _column(named, "eigenvector_centrality")


def _in_node_order(G, values):
    return {v: values[v] for v in G.nodes()}


@implements(
    "Hop distances (distance=None), exact: a search from every node, 64 to a machine word "
    "(dgraph.algorithms.closeness_centrality); with u, one search (of the reversed graph when directed)."
)
def closeness_centrality(G: Graph, u: Hashable = None, distance: Any = None, wf_improved: bool = True) -> Any:
    if u is not None:
        from .reachability import _reversed_bfs

        found = _reversed_bfs(G, u)
        total, reached, n = float(found["distance"].sum()), len(found) - 1, len(G)
        value = 0.0
        if total > 0 and n > 1:
            value = reached / total * (reached / (n - 1) if wf_improved else 1.0)
        return value
    named = frame(G, alg.closeness_centrality(G.graph_, wf_improved=wf_improved), "vertex")
    return _in_node_order(G, _column(named, "closeness"))


@implements(
    "Hop distances (distance=None) from every node (sources=None), exact: a search from every node, 64 "
    "to a machine word (dgraph.algorithms.harmonic_centrality)."
)
def harmonic_centrality(
    G: Graph, nbunch: Any = None, distance: Any = None, sources: Any = None
) -> dict[Hashable, float]:
    named = frame(G, alg.harmonic_centrality(G.graph_), "vertex")
    values = _in_node_order(G, _column(named, "harmonic"))
    if nbunch is None:
        return values
    return {v: values[v] for v in _nodes_of(G, nbunch)}


def _nodes_of(G, nbunch):
    from .implement import has_node, is_container

    if has_node(G, nbunch):
        return {nbunch}
    if not is_container(nbunch):
        return set()
    return {v for v in nbunch if has_node(G, v)}
