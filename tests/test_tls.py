"""dgraph on a cluster whose comms use TLS: the peer channels use it too, and every algorithm runs."""

import pandas as pd
import pytest
from distributed import Client, LocalCluster
from distributed.security import Security
from graphs import er_edges, kron_edges

import dgraph
from dgraph import algorithms as alg
from dgraph.cluster import workers


@pytest.fixture(scope="module")
def tls_client():
    security = Security.temporary()
    with LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address="127.0.0.1:0",
        security=security,
        host="127.0.0.1",
    ) as cluster:
        with Client(cluster, security=security, set_as_default=False) as c:
            yield c


@pytest.mark.slow  # a TLS cluster of its own and every algorithm; the command line's test keeps TLS quick
def test_every_algorithm_runs_over_tls_channels(tls_client):
    c = tls_client
    assert all(w.startswith("tls://") for w in workers(c))
    e = kron_edges(8, seed=2)
    e = e[e.src != e.dst].assign(w=lambda d: (d.src * 3 + d.dst) % 7 + 1.0)
    und = dgraph.from_edgelist(e, directed=False, weight="w", ranks=2, client=c)
    d = er_edges(120, 500, seed=3)
    dire = dgraph.from_edgelist(d, ranks=2, client=c)
    s, t = int(e.src.iloc[0]), int(d.src.iloc[0])
    few = [int(v) for v in pd.unique(e.src)[:3]]
    runs = [
        ("bfs", und, alg.bfs(und, s), {"source": s}),
        ("sssp", und, alg.sssp(und, s, weight="w"), {"source": s, "weight": "w"}),
        ("wcc", und, alg.connected_components(und), {}),
        ("scc", dire, alg.strongly_connected_components(dire), {}),
        ("pagerank", und, alg.pagerank(und), {}),
        ("cdlp", und, alg.label_propagation(und), {}),
        ("triangles", und, alg.triangle_count(und), {}),
        ("lcc", dire, alg.local_clustering_coefficient(dire), {}),
        ("core", und, alg.core_number(und), {}),
        ("mwm", und, alg.max_weight_matching(und, weight="w"), {"weight": "w"}),
        ("bc", und, alg.betweenness_centrality(und, sources=few), {"sources": few}),
        ("bfs", dire, alg.bfs(dire, t), {"source": t}),
    ]
    for name, g, result, params in runs:
        assert alg.verify(name, g, result, **params) == [], name
    c.compute(alg.bfs(und, s)).result()
    assert und.last_stats.wire_bytes > 0 and und.last_stats.info["channels"] == "tls"


@pytest.mark.slow
def test_the_command_line_joins_a_tls_cluster_with_certificate_files(tls_client, tmp_path, capsys):
    from dgraph.cli import main

    security = tls_client.security
    files = {}
    for name in ("tls_ca_file", "tls_client_cert", "tls_client_key"):
        files[name] = tmp_path / f"{name}.pem"
        files[name].write_text(getattr(security, name))
    addr = tls_client.scheduler.address
    tls = ["--tls-ca-file", str(files["tls_ca_file"]), "--tls-cert", str(files["tls_client_cert"])]
    argv = ["run", "bfs", "--dataset", "karate", "--source", "1", "--verify", "--scheduler", addr]
    assert main(argv + tls + ["--tls-key", str(files["tls_client_key"])]) == 0
    assert "verified   valid" in capsys.readouterr().out
    assert main(argv + tls[:2]) == 2  # a certificate is needed
    assert "--tls-cert" in capsys.readouterr().err
