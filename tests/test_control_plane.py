"""The control plane as a stranger on the network sees it: nothing it sends is unpickled, a run
answers only to its secret, and run ids are not handed out."""

import os
import pickle
import sys
import threading
import time

import cloudpickle
import numpy as np
from conftest import wait_until

from dgraph.algorithms import bfs
from dgraph.cluster import workers
from dgraph.generators import grid_graph
from dgraph.runtime.plugin import PLUGIN_NAME

cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers run this module's kernel


class Payload:
    """Unpickling this makes a directory: the proof that something was unpickled."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (os.mkdir, (self.path,))


def waiting_run(ctx, bounds, release):
    """A run that stays open until the file ``release`` exists, then exchanges once."""
    deadline = time.monotonic() + 60
    while not os.path.exists(release) and time.monotonic() < deadline:
        time.sleep(0.01)  # the kernel waits for the test's signal, a file it creates
    total = ctx.allreduce({r: np.ones(1) for r in ctx.ranks})
    return {r: {"total": total} for r in ctx.ranks}


def _open_runs(client):
    return client.run(lambda dask_worker: sorted(dask_worker.plugins[PLUGIN_NAME].runs))


def test_strangers_cannot_unpickle_steer_or_list_runs(client, tmp_path):
    g = grid_graph(6, 6, ranks=2)
    expected = bfs(g, 0).compute().sort_values("vertex", ignore_index=True)
    release, marker = str(tmp_path / "release"), str(tmp_path / "unpickled")
    outcome = {}
    th = threading.Thread(target=lambda: outcome.update(result=g.run(waiting_run, release=release)))
    th.start()
    try:
        wait_until(lambda: all(_open_runs(client).values()), 30, "the run to open on every worker")
        run_id = next(iter(_open_runs(client).values()))[0]  # the test may look; a stranger may not
        payload = pickle.dumps(Payload(marker))
        for w in workers(client):
            rpc = client.rpc(w)
            listed = client.sync(rpc.dgraph_runs)
            assert listed == {"runs": 1, "drivers": 1}, listed  # how many, never which
            calls = [
                rpc.dgraph_open(run_id="a" * 32, secret=b"s" * 32, timeout=10, keys=payload, needs=payload),
                rpc.dgraph_open(run_id=payload, secret=payload, timeout=payload, keys=[], needs=[]),
                rpc.dgraph_start(
                    run_id="b" * 32,
                    secret=b"s" * 32,
                    timeout=10,
                    keys=[],
                    needs=[],
                    spare=payload,
                    spec=payload,
                    key="k",
                ),
                rpc.dgraph_drive(run_id=run_id, secret=b"wrong" * 6 + b"!!", spec=payload, key="k"),
                rpc.dgraph_drive(run_id=run_id, secret=payload, spec=payload, key=payload),
                rpc.dgraph_fail(run_id=run_id, secret=b"x" * 32, reason=payload),
                rpc.dgraph_close(run_id=run_id, secret=payload),
                rpc.dgraph_progress(run_id=run_id, secret=b"x" * 32),
                rpc.dgraph_fail(run_id="c" * 32, secret=b"x" * 32, reason="stop"),
                rpc.dgraph_close(run_id="nope", secret=b"x" * 32),
            ]
            replies = [client.sync(lambda c=c: c) for c in calls]
            assert all(isinstance(r, dict) for r in replies), replies
            assert all(r.get("status") != "OK" for r in replies[:-3] + replies[-2:]), replies
            assert replies[-3] == {"superstep": 0}  # progress of a run it cannot name: nothing
        assert not os.path.exists(marker), "a handler unpickled what it was sent"
        assert all(v == [run_id] for v in _open_runs(client).values())  # the real run is untouched
    finally:
        open(release, "w").close()
        th.join(60)
    results, _ = outcome["result"]
    assert [r["total"].tolist() for r in results.gather()] == [[2.0], [2.0]]
    assert bfs(g, 0).compute().sort_values("vertex", ignore_index=True).equals(expected)


def test_a_run_failed_before_its_open_arrives_does_not_start(client):
    # the client fails a run on every worker as soon as one reports trouble; a worker may get
    # that before the run's open (they travel on different connections): it must then refuse
    # the open, or its driver would wait for peers that never come
    (w, *_) = workers(client)
    rpc = client.rpc(w)
    secret = b"s" * 32
    for ending in (
        rpc.dgraph_fail(run_id="d" * 32, secret=secret, reason="stop"),
        rpc.dgraph_close(run_id="e" * 32, secret=secret),
    ):
        client.sync(lambda c=ending: c)
    for run_id in ("d" * 32, "e" * 32):
        reply = client.sync(rpc.dgraph_open, run_id=run_id, secret=secret, timeout=10, keys=[], needs=[])
        assert reply["status"] == "error" and "ended before it opened" in reply["message"], reply
    # a fail without the run's secret blocks nothing: the run opens (and is closed again)
    client.sync(rpc.dgraph_fail, run_id="f" * 32, secret=b"x" * 32, reason="stop")
    reply = client.sync(rpc.dgraph_open, run_id="f" * 32, secret=secret, timeout=10, keys=[], needs=[])
    assert reply["status"] == "OK", reply
    assert client.sync(rpc.dgraph_close, run_id="f" * 32, secret=secret)["status"] == "OK"
    assert _open_runs(client)[w] == []
