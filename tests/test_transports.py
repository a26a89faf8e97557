"""The grouped (TuCOMM) transport: the same answers as direct everywhere, fewer inter-domain
messages, and domains from every kind of spec."""

import dask
import numpy as np
import pandas as pd
import pytest
from graphs import kron_edges

import dgraph
from dgraph import algorithms as alg
from dgraph.errors import DgraphInputError
from dgraph.partitioners import OneD, OnePointFiveD, TDOrch, TwoD
from dgraph.runtime.domains import Domains, rank_paths


def _everything(g, source):
    out = {
        "bfs": alg.bfs(g, source),
        "sssp": alg.sssp(g, source),
        "pagerank": alg.pagerank(g, tol=0, max_iter=15),
        "bc": alg.betweenness_centrality(g, k=3, seed=1),
        "wcc": alg.connected_components(g, connection="weak"),
        "cdlp": alg.label_propagation(g, max_iter=4),
        "lcc": alg.local_clustering_coefficient(g),
        "triangles": alg.triangle_count(g),
        "core": alg.core_number(g),
        "mwm": alg.max_weight_matching(g, weight=None),
        "louvain": alg.louvain(g, seed=1),  # its totals travel as complex128
    }
    return {k: v.compute().sort_values("vertex").reset_index(drop=True) for k, v in out.items()}


def _same(got, direct, how, atol=0.0):
    """Every algorithm's frame as the direct transport's: integers equal, floats to 1e-12."""
    for name, frame in got.items():
        floats = [c for c in frame.columns if str(frame[c].dtype) in ("float64", "Float64")]
        ints = [c for c in frame.columns if c not in floats]
        pd.testing.assert_frame_equal(frame[ints], direct[name][ints], obj=f"{name}, {how}")
        for c in floats:
            np.testing.assert_allclose(frame[c].astype(float), direct[name][c].astype(float), rtol=1e-12, atol=atol)


@pytest.mark.slow
@pytest.mark.parametrize(
    "layout",
    [
        OneD(ranks=8),
        TwoD(rows=2, cols=4),
        OnePointFiveD(rows=2, cols=4, e_threshold=20, h_threshold=6),
        TDOrch(ranks=8, chunk=2),
    ],
    ids=repr,
)
def test_grouped_gives_the_same_answers_as_direct_on_every_layout(client, layout):
    edges = kron_edges(8, seed=3)
    edges = edges[edges.src != edges.dst]
    g = dgraph.from_edgelist(edges, directed=False, layout=layout)
    source = int(edges.src.iloc[0])
    direct = _everything(g, source)
    for domains in (1, 2, 4) if isinstance(layout, OneD) else (2, 4):  # 1: every message stays inside
        grouped = g.with_transport("grouped", domains=domains)
        assert grouped.store.blocks is g.store.blocks  # the same placed blocks
        got = _everything(grouped, source)
        _same(got, direct, f"{domains} domains", atol=1e-15)


@pytest.mark.parametrize("layout", [OneD(ranks=4), TwoD(rows=2, cols=2)], ids=repr)
def test_pipelined_gives_the_same_answers_as_direct(client, layout):
    edges = kron_edges(8, seed=6)
    edges = edges[edges.src != edges.dst]
    g = dgraph.from_edgelist(edges, directed=False, layout=layout)
    source = int(edges.src.iloc[0])
    direct = _everything(g, source)
    piped = g.with_transport("pipelined")
    for block in (256, None):  # many blocks a message, and the model's choice
        with dask.config.set({"dgraph.pipeline-block-bytes": block}):
            got = _everything(piped, source)
        _same(got, direct, f"blocks of {block}")
    bfs = alg.bfs(piped, source, method="levels").compute()
    info = piped.last_stats.info
    assert info["pipeline_blocks"] >= 1 and info["pipeline_block_bytes"] > 0 and len(bfs) == g.num_vertices


def test_directed_scc_and_one_rank_domains(client):
    edges = kron_edges(8, seed=5)
    g = dgraph.from_edgelist(edges, directed=True, ranks=5)
    direct = alg.strongly_connected_components(g).compute().sort_values("vertex").reset_index(drop=True)
    h = g.with_transport("grouped", domains=4)  # ranks 0-1 in one domain, then one rank each
    got = alg.strongly_connected_components(h).compute().sort_values("vertex").reset_index(drop=True)
    pd.testing.assert_frame_equal(got, direct)
    assert h.last_stats.domain_of.tolist() == [0, 0, 1, 2, 3]


def test_grouped_cuts_inter_domain_messages_and_monitors_hold_heavy_vertices(client):
    """16 ranks in 4 domains: a PageRank superstep crosses domains once per domain pair."""
    g = dgraph.generators.kronecker_graph(11, ranks=16)
    runs = {}
    for transport in ("direct", "grouped"):
        h = g.with_transport(transport, domains=4)
        alg.pagerank(h, tol=0, max_iter=5).compute()
        runs[transport] = h.last_stats
    d, gr = (np.array(runs[t].crossings).sum(axis=0) for t in ("direct", "grouped"))
    assert gr[0] * 4 <= d[0]  # inter-domain messages: at least the domain size fewer
    assert gr[1] <= 1.2 * d[1]  # inter-domain bytes: about the same
    assert runs["grouped"].supersteps == runs["direct"].supersteps
    split = runs["grouped"].by_domain()
    assert split["inter_messages"].sum() == gr[0] and split["intra_bytes"].sum() == gr[3]
    heaviest = g.with_transport("grouped", domains=4).runner.monitor_weights()
    for dom in range(4):
        members = np.flatnonzero(runs["grouped"].domain_of == dom)
        assert runs["grouped"].monitors[dom] == members[np.argmax(np.asarray(heaviest)[members])]


def test_orchestrate_over_grouped_domains(client):
    rng = np.random.default_rng(2)
    tasks = pd.DataFrame({"address": rng.integers(0, 300, 4000), "x": rng.random(4000)})
    data = pd.DataFrame({"v": rng.random(300)}, index=pd.RangeIndex(300, name="address"))
    f = lambda t, d: t.x.to_numpy() * d.v.to_numpy()  # noqa: E731
    wb = lambda d, m: d.assign(v=d.v + m)  # noqa: E731
    for strategy in ("push", "sort", "tdorch"):
        ref = dgraph.orchestrate(tasks, data, f, write_back=wb, strategy=strategy, ranks=8)
        got = dgraph.orchestrate(
            tasks, data, f, write_back=wb, strategy=strategy, ranks=8, transport="grouped", domains=2
        )
        np.testing.assert_allclose(got[0].compute().result, ref[0].compute().result)
        np.testing.assert_allclose(got[1].compute().sort_index().v, ref[1].compute().sort_index().v, rtol=1e-12)


def test_nested_domains_route_up_across_and_down():
    paths = [(f"rack{r // 4}", f"node{r // 2}") for r in range(8)]
    D = Domains(paths, weights=[0, 5, 0, 0, 1, 0, 0, 9])
    assert D.monitor[0].tolist() == [1, 2, 4, 7] and D.monitor[1].tolist() == [
        1,
        7,
    ]  # heaviest; racks from node monitors
    for s in range(8):
        for t in range(8):
            at, route = s, [s]
            while at != t:
                at = int(D.next_hop([at], [t])[0])
                route.append(at)
                assert len(route) <= D.rounds() + 1
            racks = [paths[r][0] for r in route]
            assert sum(a != b for a, b in zip(racks, racks[1:])) == (
                paths[s][0] != paths[t][0]
            )  # crosses racks once at most
    assert D.next_hop([3], [6]).tolist() == [2]  # up to its node's monitor first


def test_domain_specs(client):
    client.wait_for_workers(2, timeout=60)  # a test before may have killed one; its nanny restarts it
    addrs = sorted(client.scheduler_info(n_workers=-1)["workers"])
    info = client.scheduler_info(n_workers=-1)["workers"]
    where = [0, 0, 1, 1]
    assert rank_paths(None, where, addrs, info) == [("127.0.0.1",)] * 4  # one host: one domain
    assert rank_paths(2, where, addrs, info) == [("group0",), ("group0",), ("group1",), ("group1",)]
    nested = {"rack": {"a": [addrs[0]], "b": [info[addrs[1]]["name"]]}}
    assert rank_paths(nested, where, addrs, info) == [("rack", "a")] * 2 + [("rack", "b")] * 2
    assert rank_paths(lambda a, i: ("x", a), where, addrs, info)[2] == ("x", addrs[1])
    with pytest.raises(DgraphInputError, match="is in no domain"):
        rank_paths({"a": [addrs[0]]}, where, addrs, info)
    with pytest.raises(DgraphInputError, match="between 1 and the rank count"):
        rank_paths(9, where, addrs, info)
    with pytest.raises(DgraphInputError, match="transport must be one of"):
        dgraph.datasets.load("karate").with_transport("carrier-pigeon")


def test_hpc_cluster_renders_a_job_script_and_connect_checks_its_input(tmp_path):
    from dgraph.cluster import connect, hpc_cluster

    local = dict(interface="lo", scheduler_options={"dashboard_address": "127.0.0.1:0"})  # its scheduler: loopback
    cluster = hpc_cluster(
        "slurm", cores=8, memory="32GB", walltime="00:30:00", queue="normal", account="graphs", **local
    )
    try:
        script = cluster.job_script()
    finally:
        cluster.close()
    assert "#SBATCH -p normal" in script and "#SBATCH -A graphs" in script and "#SBATCH -t 00:30:00" in script
    assert "--nworkers 8" in script and "--nthreads 1" in script  # one thread per worker process
    pbs = hpc_cluster("pbs", cores=4, memory="8GB", **local)
    try:
        assert "#PBS" in pbs.job_script() and "--nworkers 4" in pbs.job_script()
    finally:
        pbs.close()
    with pytest.raises(DgraphInputError, match="system must be one of"):
        hpc_cluster("condor")
    with pytest.raises(DgraphInputError, match="does not exist"):
        connect(scheduler_file=str(tmp_path / "nope.json"))
    with pytest.raises(DgraphInputError, match="exactly one"):
        connect()


def test_connect_by_scheduler_file(tmp_path):
    from distributed import LocalCluster

    from dgraph.cluster import connect

    path = str(tmp_path / "scheduler.json")
    with LocalCluster(
        n_workers=1,
        threads_per_worker=1,
        processes=False,
        dashboard_address="127.0.0.1:0",
        scheduler_kwargs={"scheduler_file": path},
    ):
        with connect(scheduler_file=path) as c:
            assert len(c.scheduler_info(n_workers=-1)["workers"]) == 1


def test_flush_threshold_splits_monitor_messages_not_answers(client):
    import dask

    g = dgraph.generators.kronecker_graph(10, ranks=8).with_transport("grouped", domains=2)
    alg.pagerank(g, tol=0, max_iter=3).compute()
    big = np.array(g.last_stats.crossings).sum(axis=0)
    ref = alg.pagerank(g, tol=0, max_iter=3).compute().sort_values("vertex").pagerank.to_numpy()
    with dask.config.set({"dgraph.flush-bytes": 256}):
        got = alg.pagerank(g, tol=0, max_iter=3).compute().sort_values("vertex").pagerank.to_numpy()
    small = np.array(g.last_stats.crossings).sum(axis=0)
    np.testing.assert_allclose(got, ref, rtol=1e-12)
    assert small[0] > big[0] and small[1] == big[1]  # more, smaller inter-domain messages; the same bytes
