"""Every weighted algorithm uses the graph's weight when the call leaves ``weight`` out (as
networkx's Dijkstra does), counts every arc 1 with ``weight=None``, and refuses a column the
graph was not built with; the verifiers and the networkx backend read ``weight`` the same way."""

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import dgraph
import dgraph.nx as dnx
from dgraph import algorithms as alg
from dgraph.errors import DgraphInputError
from dgraph.weights import GRAPH_WEIGHT

EDGES = pd.DataFrame(
    {
        "src": [0, 0, 1, 2, 3, 3, 4, 5, 6, 1],
        "dst": [1, 2, 2, 3, 4, 5, 5, 6, 4, 6],
        "w": [4.0, 1.0, 1.0, 7.0, 2.0, 1.0, 3.0, 0.5, 2.0, 9.0],
    }
)


def _nx(directed):
    G = (nx.DiGraph if directed else nx.Graph)()
    G.add_weighted_edges_from(EDGES.itertuples(index=False), weight="w")
    return G


def _by_vertex(frame, column):
    return frame.set_index("vertex")[column].to_dict()


def test_sssp_and_shortest_paths_use_the_graphs_weight_unless_told_none(client):
    g = dgraph.from_edgelist(EDGES, weight="w", ranks=2)
    G = _nx(True)
    weighted = nx.single_source_dijkstra_path_length(G, 0, weight="w")
    hops = nx.single_source_shortest_path_length(G, 0)
    assert _by_vertex(alg.sssp(g, 0).compute().dropna(subset=["distance"]), "distance") == weighted
    assert alg.sssp(g, 0, weight="w").compute().equals(alg.sssp(g, 0).compute())
    unit = alg.sssp(g, 0, weight=None).compute()
    assert str(unit["distance"].dtype) == "Float64"
    assert _by_vertex(unit.dropna(subset=["distance"]), "distance") == {v: float(d) for v, d in hops.items()}
    assert _by_vertex(unit, "predecessor") == _by_vertex(alg.bfs(g, 0).compute(), "predecessor")
    assert alg.verify("sssp", g, alg.sssp(g, 0), source=0) == []
    assert alg.verify("sssp", g, unit, source=0, weight=None) == []
    paths = alg.shortest_paths(g, [0], targets=[6]).compute()
    assert paths["distance"].tolist() == [weighted[6]] and paths["path"].tolist() == [[0, 2, 3, 5, 6]]
    assert all(type(p) is list for p in paths["path"].to_numpy()) and "[0, 2, 3, 5, 6]" in paths.to_string()
    back = alg.shortest_paths(g, [6], targets=[0]).compute()  # unreachable
    assert back["path"].tolist() == [None] and back["distance"].isna().all()
    hop = alg.shortest_paths(g, [0], targets=[6], weight=None).compute()
    assert hop["distance"].tolist() == [hops[6]] and hop["path"].tolist() == [[0, 1, 6]]
    with pytest.raises(DgraphInputError, match=r"weight='cost' is not an edge attribute .*attributes are \['w'\]"):
        alg.sssp(g, 0, weight="cost")
    unweighted = dgraph.from_edgelist(EDGES[["src", "dst"]])
    with pytest.raises(DgraphInputError, match="weight='w' is not an edge attribute .*no numeric edge attributes"):
        alg.pagerank(unweighted, weight="w")


def test_pagerank_communities_and_matching_use_the_graphs_weight(client):
    g = dgraph.from_edgelist(EDGES, weight="w", directed=False, ranks=2)
    G = _nx(False)
    for weight, nx_weight in ((GRAPH_WEIGHT, "w"), (None, None)):
        kw = {} if weight is GRAPH_WEIGHT else {"weight": weight}
        got = _by_vertex(alg.pagerank(g, tol=1e-10, **kw).compute(), "pagerank")
        want = nx.pagerank(G, tol=1e-12, weight=nx_weight)
        assert max(abs(got[v] - want[v]) for v in want) < 1e-6
        seeds = pd.DataFrame({"query": [0], "seed": [0]})
        ppr = alg.personalized_pagerank(g, seeds, tol=1e-10, **kw).compute()
        want = nx.pagerank(G, personalization={0: 1}, tol=1e-12, weight=nx_weight)
        assert max(abs(v - want[k]) for k, v in _by_vertex(ppr, "pagerank").items()) < 1e-6
        halves = [{0, 1, 2}, {3, 4, 5, 6}]
        assert alg.modularity(g, halves, **kw) == pytest.approx(nx.community.modularity(G, halves, weight=nx_weight))
        parts = alg.louvain(g, seed=1, **kw).compute()
        groups = parts.groupby("community")["vertex"].apply(set).tolist()
        reported = g.last_stats.info["modularity"]
        assert reported == pytest.approx(nx.community.modularity(G, groups, weight=nx_weight))
        assert alg.verify("louvain", g, parts, modularity=reported, **kw) == []
    mates = _by_vertex(alg.max_weight_matching(g).compute(), "mate")
    assert mates[1] == 6 and mates[6] == 1  # the heaviest edge (9) is locally dominant
    assert alg.verify("mwm", g, alg.max_weight_matching(g)) == []
    unit = _by_vertex(alg.max_weight_matching(g, weight=None).compute(), "mate")
    assert unit != mates


def test_the_networkx_backend_reads_weight_as_networkx_does(client):
    G = dnx.from_pandas_edgelist(EDGES.rename(columns={"src": "source", "dst": "target"}), edge_attr="w")
    plain = _nx(False)
    # networkx's default weight="weight" names no attribute here: every edge counts 1
    assert nx.single_source_dijkstra_path_length(G, 0) == nx.single_source_dijkstra_path_length(plain, 0)
    assert nx.single_source_dijkstra_path_length(G, 0, weight="w") == nx.single_source_dijkstra_path_length(
        plain, 0, weight="w"
    )
    got = nx.pagerank(G, weight=None)
    want = nx.pagerank(plain, weight=None)
    assert max(abs(got[v] - want[v]) for v in want) < 1e-5
    assert np.isclose(sum(nx.pagerank(G, weight="w").values()), 1.0)
