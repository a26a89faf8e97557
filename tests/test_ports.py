"""dgraph.channel-ports: every socket dgraph listens on is in the range; a range with no free port
is an error naming the setting. On a cluster of its own, started with the setting."""

import random
import socket

import dask
import psutil
import pytest
from distributed import Client, LocalCluster
from graphs import er_edges

import dgraph
from dgraph import algorithms as alg
from dgraph.errors import DgraphRunError
from dgraph.runtime.ports import channel_ports

WIDTH = 3  # two workers: each a run's listener and a spare, one of them left without a spare


def _free_range():
    """``WIDTH`` consecutive ports free on 127.0.0.1 now (tests in parallel pick different ones)."""
    for _ in range(100):
        first = random.randrange(42000, 48000)
        try:
            for s in [socket.create_server(("127.0.0.1", p)) for p in range(first, first + WIDTH)]:
                s.close()
            return first
        except OSError:
            continue
    raise RuntimeError("no free port range")


@pytest.fixture(scope="module")
def ported():
    first = _free_range()
    with dask.config.set({"dgraph.channel-ports": f"{first}-{first + WIDTH - 1}"}):
        with LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0"
        ) as cluster:
            with Client(cluster, set_as_default=False) as c:
                yield c, range(first, first + WIDTH)


def _dgraph_listeners(dask_worker=None):
    """The ports this worker process listens on, less dask's own."""
    own = {dask_worker.port, getattr(dask_worker.http_server, "port", None)}
    conns = psutil.Process().net_connections(kind="tcp")
    return sorted({c.laddr.port for c in conns if c.status == psutil.CONN_LISTEN} - own)


@pytest.mark.slow  # a cluster of its own, with the setting in its workers
def test_every_listener_is_in_the_range_and_a_full_range_is_an_error_naming_it(ported):
    c, ports = ported
    e = er_edges(100, 400, seed=1)
    g, s = dgraph.from_edgelist(e, ranks=2, client=c), int(e.src.iloc[0])
    assert alg.bfs(g, s).compute().distance.max() > 0
    listening = c.run(_dgraph_listeners)
    assert all(p in ports for found in listening.values() for p in found), listening
    assert sum(map(len, listening.values())) >= 1  # a spare listener waits for the next run
    held = [socket.create_server(("127.0.0.1", p)) for p in ports if p not in sum(listening.values(), [])]
    try:
        # a client that knows no spare listener opens its runs, which needs a free port
        with Client(c.scheduler.address, set_as_default=False) as other:
            h = dgraph.from_edgelist(e, ranks=2, client=other)
            with pytest.raises(DgraphRunError, match=f"every port of dgraph.channel-ports .{ports[0]}-"):
                alg.bfs(h, s).compute()
    finally:
        for sock in held:
            sock.close()
    assert alg.bfs(g, s).compute().distance.max() > 0


def test_a_bad_range_is_an_error_naming_the_setting():
    assert channel_ports("41000") == range(41000, 41001)
    for bad in ("41000-40000", "ports", "0-10", "70000"):
        with pytest.raises(DgraphRunError, match="dgraph.channel-ports"):
            channel_ports(bad)
