"""dgraph across separate hosts: three network namespaces (tests/hosts.py), the scheduler and the
client on the first, two dask workers on each of the others. Results equal one host's, the
grouped transport groups by host, every socket is in a known port range, a silent cut of a
host's link ends the run with an error naming that host, after which the next call is right, and
with the host cut for good the next call leaves its workers out and is right. A cluster of its
own runs over TLS, with certificate files made here."""

import time

import dask
import numpy as np
import pandas as pd
import pytest
from conftest import wait_until
from distributed.comm.addressing import get_address_host
from graphs import kron_edges
from hosts import (
    CHANNEL_PORTS,
    HTTP_PORT,
    WORKER_PORTS,
    Hosts,
    NamespaceCluster,
    certificates,
    tls_options,
    unavailable,
)

import dgraph
from dgraph import algorithms as alg
from dgraph.cluster import workers
from dgraph.errors import DgraphRunError

pytestmark = [pytest.mark.hosts, pytest.mark.slow]  # namespace hosts: a cluster of processes of its own

RANKS = 4
CUT = 3  # the host whose link the partition test cuts (host 2 keeps the other two workers)


# dask's own connections notice a silent host after this long, so the scheduler keeps listing a
# host cut for good (as it does for minutes with its worker TTL) while dgraph's calls go on
DASK_NOTICES = {"DASK_DISTRIBUTED__COMM__TIMEOUTS__TCP": "300s"}
_KEPT = {}  # what the client process keeps between calls (this module is imported there)


def _skip_without_namespaces():
    why = unavailable()
    if why:
        pytest.skip(f"no separate hosts here: {why}")


@pytest.fixture(scope="module")
def hosts():
    _skip_without_namespaces()
    cluster = NamespaceCluster([2, 2], config=DASK_NOTICES)
    try:
        yield cluster
    finally:
        cluster.close()


@pytest.fixture
def tls_hosts(tmp_path):
    """A TLS cluster: the scheduler and the client on host 1, one worker on each of hosts 2 and 3."""
    _skip_without_namespaces()
    files = certificates(str(tmp_path))
    cluster = NamespaceCluster([1, 1], tls=files)
    try:
        yield cluster, files
    finally:
        cluster.close()


def _edges():
    e = kron_edges(8, seed=5)
    e = e[e.src != e.dst]
    return e.assign(w=(e.src * 7 + e.dst) % 5 + 1.0).reset_index(drop=True)


def _sample(client, edges, source):
    """bfs, pagerank, components and sssp on ``RANKS`` ranks, sorted frames; the hosts the ranks
    run on; and what the channels were ("tls", or None for plain TCP)."""
    g = dgraph.from_edgelist(edges, directed=False, weight="w", ranks=RANKS, client=client)
    calls = {
        "bfs": alg.bfs(g, source),
        "pagerank": alg.pagerank(g, tol=1e-10),
        "components": alg.connected_components(g),
        "sssp": alg.sssp(g, source, weight="w"),
    }
    out = {k: f.compute().sort_values("vertex", ignore_index=True) for k, f in calls.items()}
    return out, _hosts_of(client, g), g.last_stats.info.get("channels")


def _hosts_of(client, g):
    """The hosts holding the graph's blocks."""
    who = client.who_has(g.store.blocks)
    return sorted({get_address_host(who[b.key][0]) for b in g.store.blocks})


def _assert_same(across, here):
    for name, frame in here.items():
        got = across[name]
        assert list(got.vertex) == list(frame.vertex), name
        for col in frame.columns.drop("vertex"):
            if frame[col].dtype.kind == "f":
                np.testing.assert_allclose(got[col], frame[col], rtol=1e-9, atol=1e-12, err_msg=name)
            else:
                pd.testing.assert_series_equal(got[col], frame[col], obj=name)


def test_results_across_hosts_equal_one_host(hosts, client):
    e = _edges()
    source = int(e.src.iloc[0])
    across, used, channels = hosts.remote.call(_sample, e, source)
    assert used == [Hosts.address(2), Hosts.address(3)] and channels is None
    here, _, _ = _sample(client, e, source)
    _assert_same(across, here)


def _transports(client, edges):
    """pagerank's ranks and crossing counts, direct (counted by host) and grouped (by host, its
    default), and the number of domains each saw."""
    g = dgraph.from_edgelist(edges, directed=False, ranks=RANKS, client=client)
    out = {}
    for name, h in (("direct", g.with_transport("direct", domains="host")), ("grouped", g.with_transport("grouped"))):
        ranks = alg.pagerank(h, max_iter=10, tol=0).compute().sort_values("vertex", ignore_index=True)
        st = h.last_stats
        out[name] = (ranks, np.array(st.crossings).sum(axis=0), len(set(st.domain_of.tolist())))
    return out


def test_grouped_groups_by_host_and_sends_fewer_messages_between_hosts(hosts):
    runs = hosts.remote.call(_transports, _edges())
    (direct, d, d_domains), (grouped, gr, g_domains) = runs["direct"], runs["grouped"]
    assert d_domains == g_domains == 2  # two worker hosts
    np.testing.assert_allclose(grouped.pagerank, direct.pagerank, rtol=1e-12)
    inter_messages = 0
    assert 0 < gr[inter_messages] < d[inter_messages]


def _in(port, spec):
    low, high = (int(x) for x in spec.replace(":", "-").split("-"))
    return low <= port <= high


def test_every_listening_socket_is_in_a_known_range(hosts):
    hosts.remote.call(_sample, _edges().head(200), 0)  # every worker opened its channels' listeners
    for h in sorted(set(hosts.worker_hosts)):
        ports = hosts.hosts.listening(h)
        channels = [p for p in ports if _in(p, CHANNEL_PORTS)]
        assert channels, f"no dgraph listener in host {h}: {ports}"
        dasks = [p for p in ports if _in(p, WORKER_PORTS) or HTTP_PORT <= p < HTTP_PORT + 2]
        assert sorted(channels + dasks) == ports, f"host {h} listens outside the ranges: {ports}"


def _pagerank(client, edges, max_iter):
    g = dgraph.from_edgelist(edges, directed=False, ranks=RANKS, client=client)
    try:
        return alg.pagerank(g, max_iter=max_iter, tol=0).compute().sort_values("vertex", ignore_index=True)
    except DgraphRunError as err:
        return err


def _open_runs(client):
    replies = client.sync(client.scheduler.broadcast, msg={"op": "dgraph_runs"}, workers=workers(client))
    return {w: r for w, r in replies.items() if r["runs"] or r["drivers"]}


def _exchanging(hosts):
    """Whether a run's channels to the host ``CUT`` are connected."""
    return any(_in(port, CHANNEL_PORTS) for port, _ in hosts.hosts.connected(CUT))


def test_a_silent_cut_ends_the_run_naming_the_host_and_the_next_call_is_right(hosts):
    e = _edges()
    expected = hosts.remote.call(_pagerank, e, 30)
    hosts.remote.send(_pagerank, e, 10**7)  # runs until the cut ends it
    wait_until(lambda: _exchanging(hosts), 60, "the run's channels to connect")
    hosts.hosts.cut(CUT)
    cut_at = time.monotonic()
    try:
        err = hosts.remote.result(timeout=10)  # dgraph.peer-timeout is 5 s
        ended = time.monotonic() - cut_at
    finally:
        hosts.hosts.mend(CUT)
    assert isinstance(err, DgraphRunError), err
    assert f"host {Hosts.address(CUT)} is unreachable" in str(err)
    print(f"silent cut to DgraphRunError: {ended:.1f} s")
    # the ranks on the cut host ended too, and no worker keeps the run
    wait_until(lambda: not hosts.remote.call(_open_runs), 15, "every worker to drop the run")
    got = hosts.remote.call(_pagerank, e, 30)
    assert not isinstance(got, Exception), got
    np.testing.assert_allclose(got.pagerank, expected.pagerank, rtol=1e-12)


def _cut_while_connecting(client, switch, host, edges):
    """pagerank driven by tasks, host ``host``'s link cut as soon as the run is open, so its
    drivers never connect; the DgraphRunError and the seconds from the cut to it."""
    from hosts import cut_link

    from dgraph.runtime import dispatch

    g = dgraph.from_edgelist(edges, directed=False, ranks=RANKS, client=client)
    opening, cut_at = dispatch.broadcast, []

    def broadcast(client, targets, within, check=False, **msg):
        replies = opening(client, targets, within, check, **msg)
        if msg.get("op") == "dgraph_open":
            cut_link(switch, host)
            cut_at.append(time.monotonic())
        return replies

    dispatch.broadcast = broadcast
    try:
        with dask.config.set({"dgraph.dispatch": "tasks"}):
            return alg.pagerank(g, max_iter=30, tol=0).compute()
    except DgraphRunError as err:
        return err, time.monotonic() - cut_at[0]
    finally:
        dispatch.broadcast = opening


def test_a_cut_while_the_channels_connect_ends_the_run_naming_the_host(hosts):
    # host 2 holds the first ranks: the others wait for its drivers to connect, and knock on it
    e = _edges()
    expected = hosts.remote.call(_pagerank, e, 30)
    try:
        got = hosts.remote.call(_cut_while_connecting, hosts.hosts.switch, 2, e, timeout=30)
    finally:
        hosts.hosts.mend(2)
    assert isinstance(got, tuple), got
    err, ended = got
    assert f"host {Hosts.address(2)} is unreachable" in str(err) and "answered no connect" in str(err), err
    print(f"cut while connecting to DgraphRunError: {ended:.1f} s")
    wait_until(lambda: not hosts.remote.call(_open_runs), 15, "every worker to drop the run")
    got = hosts.remote.call(_pagerank, e, 30)
    assert not isinstance(got, Exception), got
    np.testing.assert_allclose(got.pagerank, expected.pagerank, rtol=1e-12)


def _tls_cli(client, argv):
    """``dgraph run`` in the client process: its exit code and what it printed."""
    import contextlib
    import io

    from dgraph.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(argv)
    return code, out.getvalue()


def test_results_across_hosts_over_tls_equal_one_host(tls_hosts, client):
    cluster, files = tls_hosts
    assert cluster.scheduler.startswith("tls://") and all(w.startswith("tls://") for w in cluster.remote.workers)
    e = _edges()
    source = int(e.src.iloc[0])
    across, used, channels = cluster.remote.call(_sample, e, source)
    assert used == [Hosts.address(2), Hosts.address(3)] and channels == "tls"
    here, _, _ = _sample(client, e, source)
    _assert_same(across, here)
    # the command line joins it with the same certificate files
    argv = ["run", "bfs", "--dataset", "karate", "--source", "1", "--ranks", "2", "--verify"]
    code, out = cluster.remote.call(_tls_cli, [*argv, "--scheduler", cluster.scheduler, *tls_options(files)])
    assert code == 0 and "verified   valid" in out, out


def _keep_graph(client, edges):
    """Build the graph the lost-host test reuses, keep it here, and run pagerank on it."""
    _KEPT["graph"] = dgraph.from_edgelist(edges, directed=False, ranks=RANKS, client=client)
    return _pagerank_kept(client, 30)


def _pagerank_kept(client, max_iter, dispatch="auto"):
    """pagerank on the kept graph (or its DgraphRunError), the workers the call skipped and the
    hosts holding the graph's blocks after it."""
    g = _KEPT["graph"]
    try:
        with dask.config.set({"dgraph.dispatch": dispatch}):
            ranks = alg.pagerank(g, max_iter=max_iter, tol=0).compute().sort_values("vertex", ignore_index=True)
    except DgraphRunError as err:
        return err
    return ranks, g.last_stats.skipped, _hosts_of(client, g)


def test_a_host_lost_for_good_is_left_out_and_the_next_call_is_right(hosts):
    """The module's last test: host ``CUT`` stays cut."""
    e = _edges()
    expected, skipped, used = hosts.remote.call(_keep_graph, e)
    assert skipped == [] and used == [Hosts.address(2), Hosts.address(CUT)]
    hosts.remote.send(_pagerank_kept, 10**7, "tasks")  # driven by tasks: the scheduler's way
    wait_until(lambda: _exchanging(hosts), 60, "the run's channels to connect")
    hosts.hosts.cut(CUT)
    cut_at = time.monotonic()
    err = hosts.remote.result(timeout=15)  # dgraph.peer-timeout is 5 s
    ended = time.monotonic() - cut_at
    assert isinstance(err, DgraphRunError), err
    assert f"host {Hosts.address(CUT)} is unreachable" in str(err)
    lost = [w for w in hosts.remote.workers if get_address_host(w) == Hosts.address(CUT)]
    assert set(lost) <= set(hosts.remote.call(workers))  # the scheduler has not noticed
    started = time.monotonic()
    got = hosts.remote.call(_pagerank_kept, 30, timeout=90)
    took = time.monotonic() - started
    print(f"lost host: DgraphRunError {ended:.1f} s after the cut, the next call right {took:.1f} s later")
    assert not isinstance(got, Exception), got
    ranks, skipped, used = got
    assert skipped == lost and used == [Hosts.address(2)]
    np.testing.assert_allclose(ranks.pagerank, expected.pagerank, rtol=1e-12)
    assert not set(lost) & set(hosts.remote.call(workers))  # removed from the scheduler
    # a graph built now goes to the workers that answer
    got = hosts.remote.call(_pagerank, e, 30)
    assert not isinstance(got, Exception), got
    np.testing.assert_allclose(got.pagerank, expected.pagerank, rtol=1e-12)
