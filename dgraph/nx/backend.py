"""The networkx backend interface: which functions dgraph runs, and when it can and should
(the notes networkx shows in each function's documentation are in ``_dgraph_nx``)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from . import path_checks
from .functions import IMPLEMENTED
from .graphs import Graph, convert_from_nx, convert_to_nx

SMALL = 50_000  # edges: below this networkx itself is faster than a round trip to a cluster

# function -> {parameter: value dgraph takes} for the parameters it does not have
SUPPORTED_ONLY: dict[str, dict[str, Any]] = {
    "bfs_edges": {"reverse": False, "sort_neighbors": None},
    "bfs_tree": {"reverse": False, "sort_neighbors": None},
    "pagerank": {"nstart": None, "dangling": None},
    "clustering": {"weight": None},
    "average_clustering": {"weight": None},
    "betweenness_centrality": {"endpoints": False},
    "max_weight_matching": {"maxcardinality": False},
    "bfs_predecessors": {"sort_neighbors": None},
    "bfs_successors": {"sort_neighbors": None},
    "hits": {"nstart": None},
    "katz_centrality": {"nstart": None},
    "eigenvector_centrality": {"nstart": None},
    "closeness_centrality": {"distance": None},
    "harmonic_centrality": {"distance": None, "sources": None},
    "eccentricity": {"sp": None, "weight": None},
    "diameter": {"e": None, "weight": None},
    "radius": {"e": None, "weight": None},
    "center": {"e": None, "weight": None},
    "periphery": {"e": None, "weight": None},
    "average_shortest_path_length": {"weight": None},
    "reverse": {"copy": True},
}

# networkx's functions for one kind of graph only (``not_implemented_for``): networkx raises its
# own error for the other kind
UNDIRECTED_ONLY = (
    "connected_components",
    "number_connected_components",
    "is_connected",
    "node_connected_component",
    "jaccard_coefficient",
    "adamic_adar_index",
    "resource_allocation_index",
    "preferential_attachment",
    "minimum_spanning_tree",
    "minimum_spanning_edges",
    "maximum_spanning_tree",
    "maximum_spanning_edges",
    "greedy_color",
    "maximal_independent_set",
    "k_truss",
)
DIRECTED_ONLY = (
    "weakly_connected_components",
    "number_weakly_connected_components",
    "is_weakly_connected",
    "strongly_connected_components",
    "number_strongly_connected_components",
    "is_strongly_connected",
    "in_degree_centrality",
    "out_degree_centrality",
    "reciprocity",
    "overall_reciprocity",
    "is_arborescence",
    "is_branching",
)
# networkx's functions that raise their own error for the null graph (NetworkXPointlessConcept,
# or ValueError from an empty max): can_run leaves them to networkx there
NULL_GRAPH_ERRORS = (
    "is_connected",
    "is_weakly_connected",
    "is_strongly_connected",
    "is_forest",
    "is_tree",
    "is_branching",
    "is_arborescence",
    "eigenvector_centrality",
    "center",
    "average_shortest_path_length",
    "k_core",
    "k_shell",
    "k_crust",
    "lowest_common_ancestor",
    "all_pairs_lowest_common_ancestor",
    "maximal_independent_set",
)
NODES = ("source", "target", "n", "u")  # parameters naming one node: absent, networkx raises its own error
PATH_METHODS = ("dijkstra", "bellman-ford", "unweighted")
DIJKSTRA = ("single_source_dijkstra_path_length", "single_source_dijkstra", "dijkstra_predecessor_and_distance")
BETWEENNESS = ("betweenness_centrality", "edge_betweenness_centrality")


def _bound(name, args, kwargs):
    """The call's arguments by parameter name (defaults included), as networkx binds them."""
    import inspect

    import networkx as nx

    fn = nx.utils.backends._registered_algorithms[name]
    bound = inspect.signature(getattr(fn, "orig_func", fn)).bind_partial(*args, **kwargs)
    bound.apply_defaults()
    return bound.arguments


def _graph_arg(bound):
    for key in ("G", "df"):
        if key in bound:
            return bound[key]
    return None


def can_run(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool | str:
    """True, or why not: networkx then runs the call itself (or says why, without fallback)."""
    bound = _bound(name, args, kwargs)
    for parameter, value in SUPPORTED_ONLY.get(name, {}).items():
        if bound.get(parameter, value) != value:
            return f"dgraph's {name} supports only {parameter}={value!r}"
    weight = bound.get("weight")
    if weight is not None and not isinstance(weight, str):
        return "weight must name an edge attribute (dgraph cannot call a weight function on the workers)"
    G = _graph_arg(bound)
    if name == "from_pandas_edgelist":
        return _can_read_frame(bound)
    if name == "from_scipy_sparse_array":
        return _can_read_matrix(bound)
    if G is None:
        return "no graph"
    if G.is_multigraph():
        return "dgraph keeps one edge per node pair: multigraphs run in networkx"
    if len(G) == 0 and name in NULL_GRAPH_ERRORS:
        return "the null graph: networkx raises its own error"
    if name in ("louvain_communities", "leiden_communities") and G.is_directed():
        return f"dgraph's {name} is for undirected graphs"
    if name == "reverse" and not G.is_directed():
        return "networkx cannot reverse an undirected graph: networkx raises its own error"
    if name in UNDIRECTED_ONLY and G.is_directed():
        return f"networkx's {name} is not implemented for directed graphs: networkx raises its own error"
    if name in DIRECTED_ONLY and not G.is_directed():
        return f"networkx's {name} is not implemented for undirected graphs: networkx raises its own error"
    if name == "hits" and not isinstance(G, Graph) and any("weight" in d for _, _, d in G.edges(data=True)):
        return "networkx's hits weighs edges by their 'weight' attribute, which it does not declare to backends"
    if name == "shortest_path_length":
        why = _path_lengths(G, bound, weight)
        if why:
            return why
    if name == "average_shortest_path_length" and bound.get("method") not in (None, *PATH_METHODS):
        return "an unknown or all-pairs method: networkx runs it (or raises its own error)"
    if name == "pagerank":
        if bound.get("max_iter", 100) < 1:
            return "max_iter below 1: networkx raises its own error"
        personal = bound.get("personalization")
        if personal is not None and not sum(v for k, v in personal.items() if path_checks.in_graph(G, k)):
            return "the personalization puts no weight on any node: networkx raises its own error"
    if name in ("clustering", "average_clustering", "transitivity") and G.is_directed():
        return "networkx's directed clustering counts directed triangles; dgraph's directed LCC is LDBC's"
    if name in ("core_number", "k_core", "k_shell", "k_crust", "k_corona") and _has_loops(G):
        return "the graph has self-loops, which core_number refuses"
    why = _structures(name, G, bound)
    if why:
        return why
    if name == "max_weight_matching" and not _stars(G):
        return "dgraph's matching is a 1/2-approximation; it equals the maximum only on graphs of stars"
    if name in (*DIJKSTRA, *BETWEENNESS):
        if weight is not None and _negative(G, weight):
            return "a negative weight: networkx raises its own error"
    why = path_checks.why_not(name, G, bound, weight)
    if why:
        return why
    for parameter in NODES:
        if bound.get(parameter) is not None and not path_checks.in_graph(G, bound[parameter]):
            return f"the {parameter} is not a node: networkx raises its own error"
    searches = ("bfs_edges", "bfs_tree", "single_source_shortest_path_length")
    if name in searches and not path_checks.in_graph(G, bound["source"]):
        return "the source is not a node: networkx raises its own error"
    if name in ("triangles", "clustering", "average_clustering") and bound.get("nodes") is not None:
        nodes = bound["nodes"]
        if not hasattr(nodes, "__iter__") or isinstance(nodes, (str, bytes, tuple)):
            if not path_checks.in_graph(G, nodes):
                return "the node is not in the graph: networkx raises its own error"
    return True


def _structures(name, G, bound):
    """Why dgraph does not run this spanning tree, colouring or truss call, or None."""
    if name.endswith("spanning_tree") or name.endswith("spanning_edges"):
        if bound.get("algorithm") not in ("boruvka", "kruskal", "prim"):
            return "an unknown algorithm: networkx raises its own error"
    if name == "greedy_color":
        import networkx as nx

        strategy = bound.get("strategy")
        if bound.get("interchange"):
            return "dgraph colours without interchange (networkx swaps colours along Kempe chains; dgraph does not)"
        if callable(strategy):
            return "a strategy function orders the vertices on the client: dgraph colours in its own order"
        if strategy not in nx.algorithms.coloring.greedy_coloring.STRATEGIES:
            return "an unknown strategy: networkx raises its own error"
    if name == "k_truss" and _has_loops(G):
        return "the graph has self-loops: networkx raises its own error"
    return None


def _path_lengths(G, bound, weight):
    """Why dgraph does not run this ``shortest_path_length`` call, or None."""
    if bound.get("method") not in PATH_METHODS:
        return f"method {bound.get('method')!r}: networkx runs it (or raises its own error)"
    if weight is None or bound.get("method") == "unweighted":
        return None
    if bound.get("source") is None:
        return "weighted lengths to one target or between all pairs run in networkx"
    if _negative(G, weight):
        return "a negative weight: networkx runs Bellman-Ford or raises its own error"
    return None


def should_run(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool | str:
    """Whether dgraph is worth it when networkx picks backends by priority: not below ``SMALL``
    edges, where a cluster round trip costs more than networkx's own loop. (An explicit
    ``backend="dgraph"`` always runs dgraph.)"""
    bound = _bound(name, args, kwargs)
    if name == "from_scipy_sparse_array":
        edges = bound["A"].nnz
        return True if edges >= SMALL else f"a matrix of {edges} entries is faster in networkx (dgraph from {SMALL})"
    G = _graph_arg(bound)
    if G is None or isinstance(G, Graph):
        return True
    edges = len(G) if name == "from_pandas_edgelist" else G.number_of_edges()
    if edges < SMALL:
        return f"a graph of {edges} edges is faster in networkx (dgraph from {SMALL})"
    return True


def _can_read_frame(bound):
    if bound.get("edge_key") is not None:
        return "edge_key is for multigraphs"
    attr = bound.get("edge_attr")
    if attr is True or (isinstance(attr, (list, tuple)) and len(attr) > 1):
        return "dgraph keeps one edge attribute (name it in edge_attr)"
    attr = attr[0] if isinstance(attr, (list, tuple)) and attr else attr
    df = bound.get("df")
    wanted = [bound.get("source", "source"), bound.get("target", "target")] + ([attr] if attr else [])
    if attr is not None and attr != [] and not isinstance(attr, str):
        return "edge_attr must name a column by a string"
    if df is None or not hasattr(df, "columns") or any(c not in df.columns for c in wanted):
        return "a column named is not in the frame: networkx raises its own error"
    create = bound.get("create_using")
    if create is not None:
        import networkx as nx

        kind = create if isinstance(create, type) else type(create)
        if issubclass(kind, nx.MultiGraph) or (isinstance(create, nx.Graph) and len(create)):
            return "create_using must be an empty nx.Graph or nx.DiGraph"
    return True


def _can_read_matrix(bound):
    A = bound["A"]
    if len(getattr(A, "shape", ())) != 2 or A.shape[0] != A.shape[1]:
        return "the matrix is not square: networkx raises its own error"
    if not isinstance(bound.get("edge_attribute"), str):
        return "edge_attribute must name the weight by a string"
    create = bound.get("create_using")
    if create is not None:
        import networkx as nx

        kind = create if isinstance(create, type) else type(create)
        if (
            not issubclass(kind, nx.Graph)
            or issubclass(kind, nx.MultiGraph)
            or (isinstance(create, nx.Graph) and len(create))
        ):
            return "create_using must be an empty nx.Graph or nx.DiGraph"
    return True


def _has_loops(G):
    if isinstance(G, Graph):
        return sum(G.graph_.block_facts(_block_loops)) > 0
    import networkx as nx

    return nx.number_of_selfloops(G) > 0


def _block_loops(block):
    return int(sum(p.loops for p in block.parts))


def _negative(G, weight):
    if isinstance(G, Graph):
        return False  # dgraph's own check names the column
    return any(d.get(weight, 1) < 0 for _, _, d in G.edges(data=True))


def _stars(G):
    """Every component a star or an edge: no edge joins two vertices of degree above one."""
    if isinstance(G, Graph) or G.is_directed():
        return False
    degree = dict(G.degree())
    return all(u != v and (degree[u] == 1 or degree[v] == 1) for u, v in G.edges())


def on_start_tests(items: list[Any]) -> None:
    """Mark networkx's tests whose answers dgraph gives differently by design (see ``DIFFERENT``)."""
    import pytest

    from .differences import DIFFERENT

    for item in items:
        reason = DIFFERENT.get(f"{item.path.name}::{item.nodeid.split('::', 1)[-1]}")
        if reason:
            item.add_marker(pytest.mark.xfail(reason=reason, strict=False))


class BackendInterface:
    """What the ``networkx.backends`` entry point loads."""

    convert_from_nx = staticmethod(convert_from_nx)
    convert_to_nx = staticmethod(convert_to_nx)
    can_run = staticmethod(can_run)
    should_run = staticmethod(should_run)
    on_start_tests = staticmethod(on_start_tests)


def _by_name(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` called with every argument by name: networkx passes what a caller gave by name
    positionally as far as the parameters run in order, so an implementation's options may be
    keyword-only."""

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        return fn(**_given(name, args, kwargs))

    return call


def _given(name, args, kwargs):
    """The arguments a call gave (no defaults), by parameter name of networkx's function."""
    import inspect

    import networkx as nx

    fn = nx.utils.backends._registered_algorithms[name]
    signature = inspect.signature(getattr(fn, "orig_func", fn))
    given = dict(signature.bind_partial(*args, **kwargs).arguments)
    for parameter in signature.parameters.values():
        if parameter.kind is parameter.VAR_KEYWORD:
            given.update(given.pop(parameter.name, {}))
    return given


for _name, _fn in IMPLEMENTED.items():
    setattr(BackendInterface, _name, staticmethod(_by_name(_name, _fn)))
