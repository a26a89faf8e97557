"""dgraph.algorithms.verify: every algorithm's real results pass, and a broken result is caught."""

import pandas as pd
import pytest
from graphs import er_edges, grid_edges, kron_edges

import dgraph
from dgraph import algorithms as alg
from dgraph.errors import DgraphInputError
from dgraph.partitioners import OneD, OnePointFiveD, TwoD

LAYOUTS = [OneD(1), OneD(3, balance="striped"), TwoD(rows=2, cols=2), OnePointFiveD(rows=2, cols=2)]


def _undirected():
    e = kron_edges(8, seed=3)
    e = e[e.src != e.dst]
    return e.assign(w=(e.src * 7 + e.dst * 3) % 5 + 1.0)


def _directed():
    e = er_edges(150, 600, seed=4)
    return e.assign(w=(e.src + e.dst) % 4 + 1.0)


@pytest.fixture(scope="module", params=LAYOUTS, ids=repr)
def graphs(request, client):
    und = dgraph.from_edgelist(_undirected(), directed=False, weight="w", layout=request.param)
    dire = dgraph.from_edgelist(_directed(), directed=True, weight="w", layout=request.param)
    grid = dgraph.from_edgelist(grid_edges(12, 15), directed=False, layout=request.param, vertex_order="degree")
    return und, dire, grid


def _runs(und, dire, grid):
    s_und, s_dir = int(_undirected().src.iloc[0]), int(_directed().src.iloc[0])
    few = [int(v) for v in pd.unique(_undirected().src)[:3]]
    weighted = {"alpha": 0.7, "tol": 1e-9, "weight": "w"}
    return [
        ("bfs", und, alg.bfs(und, s_und), {"source": s_und}),
        ("bfs", dire, alg.bfs(dire, s_dir, depth_limit=2), {"source": s_dir, "depth_limit": 2}),
        ("bfs", grid, alg.bfs(grid, 0), {"source": 0}),
        ("sssp", und, alg.sssp(und, s_und, weight="w"), {"source": s_und, "weight": "w"}),
        ("sssp", dire, alg.sssp(dire, s_dir, weight="w"), {"source": s_dir, "weight": "w"}),
        ("sssp", grid, alg.sssp(grid, 5), {"source": 5}),
        ("wcc", und, alg.connected_components(und), {}),
        ("wcc", dire, alg.weakly_connected_components(dire), {}),
        ("wcc", grid, alg.connected_components(grid), {}),
        ("scc", dire, alg.strongly_connected_components(dire), {}),
        ("pagerank", und, alg.pagerank(und), {}),
        ("pagerank", dire, alg.pagerank(dire, **weighted), weighted),
        ("cdlp", und, alg.label_propagation(und, max_iter=5), {"max_iter": 5}),
        ("cdlp", dire, alg.label_propagation(dire), {}),
        ("cdlp", grid, alg.label_propagation(grid, max_iter=3), {"max_iter": 3}),
        ("triangles", und, alg.triangle_count(und), {}),
        ("lcc", und, alg.local_clustering_coefficient(und), {}),
        ("lcc", dire, alg.local_clustering_coefficient(dire), {}),
        ("core", und, alg.core_number(und), {}),
        ("core", grid, alg.core_number(grid), {}),
        ("mwm", und, alg.max_weight_matching(und, weight="w"), {"weight": "w"}),
        ("mwm", grid, alg.max_weight_matching(grid, weight=None), {"weight": None}),
        ("bc", und, alg.betweenness_centrality(und, sources=few), {"sources": few}),
        ("bc", dire, alg.betweenness_centrality(dire, normalized=False), {"normalized": False}),
    ]


@pytest.mark.slow
def test_real_results_pass(graphs):
    und, dire, grid = graphs
    for name, g, result, params in _runs(und, dire, grid):
        assert alg.verify(name, g, result, **params) == [], (name, g.directed, params)


def _tamper(name, frame):
    """A copy of a valid result broken in the way that matters for ``name``."""
    f = frame.copy()
    col = {
        "bfs": "distance",
        "sssp": "distance",
        "wcc": "component",
        "scc": "component",
        "pagerank": "pagerank",
        "cdlp": "label",
        "triangles": "triangles",
        "lcc": "lcc",
        "core": "core",
        "mwm": "mate",
        "bc": "betweenness",
    }[name]
    if name in ("wcc", "scc", "cdlp"):
        other = f["vertex"][f["vertex"] != f.loc[0, col]].iloc[0]  # any vertex but the one it names
        f.loc[0, col] = other
    elif name in ("bfs", "sssp"):
        i = int(f[col].fillna(0).to_numpy().argmax())  # the farthest vertex: nothing depends on it
        f.loc[i, col] = f.loc[i, col] + 1
    elif name == "mwm":
        i = int(f[col].notna().to_numpy().argmax())
        f.loc[i, col] = pd.NA  # its mate still names it: not mutual
    elif name == "pagerank":
        f.loc[0, col], f.loc[1, col] = f.loc[1, col] + 1e-3, f.loc[0, col] - 1e-3
    else:
        i = int(f[col].to_numpy().argmax())
        f.loc[i, col] = f.loc[i, col] + 1
    return f


@pytest.mark.slow
def test_broken_results_are_caught(graphs):
    und, dire, grid = graphs
    for name, g, result, params in _runs(und, dire, grid):
        frame = result.compute().sort_values("vertex").reset_index(drop=True)
        problems = alg.verify(name, g, _tamper(name, frame), **params)
        assert problems and all(isinstance(p, str) for p in problems), (name, params)


def test_missing_and_repeated_vertices_are_named(client):
    g = dgraph.from_edgelist(pd.DataFrame({"src": ["a", "b"], "dst": ["b", "c"]}))
    r = alg.bfs(g, "a").compute()
    assert "missing" in alg.verify("bfs", g, r.iloc[:2], source="a")[0]
    assert "more than once" in alg.verify("bfs", g, pd.concat([r, r.iloc[:1]]), source="a")[0]
    assert "not in the graph" in alg.verify("bfs", g, r.assign(vertex=["a", "b", "zz"]), source="a")[0]


def test_bad_verifier_requests_are_input_errors(client):
    g = dgraph.from_edgelist(pd.DataFrame({"src": [0, 1], "dst": [1, 2]}), directed=False)
    r = alg.bfs(g, 0)
    with pytest.raises(DgraphInputError, match="no verifier named 'bsf'"):
        alg.verify("bsf", g, r, source=0)
    with pytest.raises(DgraphInputError, match="source 9 is not a vertex"):
        alg.verify("bfs", g, r, source=9)
    with pytest.raises(DgraphInputError, match="pass sources="):
        alg.verify("bc", g, alg.betweenness_centrality(g, k=2, seed=1), k=2)
    with pytest.raises(DgraphInputError, match="unexpected keyword"):
        alg.verify("wcc", g, alg.connected_components(g), source=0)
