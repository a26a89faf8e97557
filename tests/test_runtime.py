"""The BSP runtime: collectives, failure semantics, cleanup, channel security."""

import io
import os
import platform
import select
import signal
import socket
import sys
import threading
import time

import cloudpickle
import dask
import numpy as np
import pandas as pd
import pytest
from conftest import wait_until
from distributed import Future, get_task_stream
from graphs import grid_edges

import dgraph
from dgraph.algorithms import bfs
from dgraph.cluster import workers
from dgraph.generators import grid_graph
from dgraph.partitioners import OneD, TwoD
from dgraph.runtime.channels import (
    HANDSHAKE_WITHIN,
    HELLO,
    SMALL_ARRAY,
    PeerLost,
    _FrameReader,
    connect_mesh,
    encode,
    silent_peers,
)
from dgraph.runtime.launch import client_state
from dgraph.runtime.plugin import PLUGIN_NAME

cloudpickle.register_pickle_by_value(sys.modules[__name__])


def collectives_kernel(ctx, bounds):
    P = ctx.nranks
    out = {}
    # alltoall: rank s sends [s, d] to every d
    got = ctx.alltoall({s: {d: [np.array([s, d], np.int64)] for d in range(P)} for s in ctx.ranks})
    red = ctx.allreduce({r: np.array([r, 1], np.int64) for r in ctx.ranks}, "sum")
    mx = ctx.allreduce({r: np.array([float(r)]) for r in ctx.ranks}, "max")
    mixed = ctx.allreduce({r: np.array([r + 1.0, r + 1.0, r]) for r in ctx.ranks}, ("min", "sum", "max"))
    _, riding = ctx.alltoall({r: {} for r in ctx.ranks}, total={r: [r, 1] for r in ctx.ranks}, op=("max", "sum"))
    gat = ctx.allgather({r: [np.arange(r, dtype=np.float32)] for r in ctx.ranks})
    ctx.barrier()
    for r in ctx.ranks:
        out[r] = {
            "alltoall": [(s, a[0].tolist()) for s, a in got[r]],
            "sum": red.tolist(),
            "max": mx.tolist(),
            "mixed": mixed.tolist() + riding.tolist(),
            "gather": [g[0].tolist() for g in gat],
        }
    return out


def fetch_kernel(ctx, bounds, dense, call):
    """A ``ghosts.Fetch`` of every other vertex (dense) or of the first and last (sparse), in
    reverse and with repeats; values are ten times the id."""
    from dgraph.ghosts import Fetch

    n = int(bounds[-1])
    ids = np.arange(0, n, 2) if dense else np.array([0, n - 1])
    wanted = {r: np.r_[ids[::-1], ids[:3]] for r in ctx.ranks}
    plan = Fetch(ctx, wanted, bounds)
    if not call:
        return {r: {} for r in ctx.ranks}
    got = plan({r: np.arange(bounds[r], bounds[r + 1]) * 10 for r in ctx.ranks})
    return {r: {"wanted": wanted[r], "got": got[r]} for r in ctx.ranks}


@pytest.mark.parametrize("dense", [True, False], ids=["dense", "sparse"])
def test_fetch_asks_owners_on_other_workers_for_dense_ids_by_bitmap(client, dense):
    g = grid_graph(20, 20, ranks=3)
    results, _ = g.run(fetch_kernel, dense=dense, call=True)
    for res in results.gather():
        np.testing.assert_array_equal(res["got"], res["wanted"] * 10)
    results, stats = g.run(fetch_kernel, dense=dense, call=False)  # the plan alone: the requests' bytes
    worker = {r: i for i, ranks in enumerate(results.ranks) for r in ranks}
    assert len(set(worker.values())) == 2
    bounds = np.asarray(g.bounds)
    for r in range(3):
        for d in range(3):
            asked = np.arange(0, 400, 2) if dense else np.array([0, 399])
            count = np.count_nonzero((asked >= bounds[d]) & (asked < bounds[d + 1]))
            bitmap = dense and worker[r] != worker[d]  # listed where nothing moves, or ids are few
            want = -(-int(bounds[d + 1] - bounds[d]) // 8) if bitmap else count * 8
            assert stats.bytes[r, d] == (0 if r == d else want), (r, d, dense)


@pytest.mark.parametrize("ranks", [1, 3, 8])
def test_collectives(client, ranks):
    g = grid_graph(4, 5, ranks=ranks)
    futures, stats = g.run(collectives_kernel)
    P = ranks
    for r, res in enumerate(futures.gather()):
        assert res["alltoall"] == [(s, [s, r]) for s in range(P)]
        assert res["sum"] == [P * (P - 1) // 2, P]
        assert res["max"] == [P - 1.0]
        assert res["mixed"] == [1.0, P * (P + 1) / 2, P - 1.0, P - 1, P]  # an op per element
        assert res["gather"] == [list(range(d)) for d in range(P)]
    assert stats.supersteps == 7
    # per logical rank pair: one alltoall message each (not to self), plus allgather pieces
    assert stats.messages[0, P - 1] >= (1 if P > 1 else 0)
    assert stats.bytes.trace() == 0


def test_runs_share_each_host_s_cores_among_their_drivers_and_workers_reuse_freed_memory(client):
    from dgraph.runtime.launch import _driver_threads, ensure_plugin
    from dgraph.runtime.plugin import MMAP_THRESHOLD

    ensure_plugin(client)
    addrs = workers(client)
    assert len(addrs) == 2  # the suite's cluster: two single-thread workers on this host
    state = client_state(client)
    assert _driver_threads(client, state, addrs[:1]) == [2] and _driver_threads(client, state, addrs) == [1, 1]
    if not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc":
        pytest.skip("the allocator is tuned on glibc only")
    tuned = client.run(lambda dask_worker: dask_worker.plugins[PLUGIN_NAME].malloc_tuned)
    assert all(tuned.values()), tuned

    def mappings_for_a_new_array():  # glibc's count of chunks it mmapped, around one allocation
        import ctypes

        class MallInfo2(ctypes.Structure):
            _fields_ = [
                (f, ctypes.c_size_t)
                for f in (
                    "arena",
                    "ordblks",
                    "smblks",
                    "hblks",
                    "hblkhd",
                    "usmblks",
                    "fsmblks",
                    "uordblks",
                    "fordblks",
                    "keepcost",
                )
            ]

        libc = ctypes.CDLL("libc.so.6")
        if not hasattr(libc, "mallinfo2"):  # glibc before 2.33
            return None
        libc.mallinfo2.restype = MallInfo2
        before = libc.mallinfo2().hblks
        held = np.empty(MMAP_THRESHOLD // 16, np.uint8)  # 2 MiB: its own mapping under dask's setting
        return libc.mallinfo2().hblks - before + 0 * held.size

    def faults_of_temporaries_past_a_full_heap():  # page faults of the same arrays made thrice
        import resource
        import threading

        faults = []

        def driver():  # a thread of its own: its own arena, of 64 MiB heaps
            kept = [np.ones(1 << 20) for _ in range(7)]  # 56 MiB kept: the first heap nearly full
            for _ in range(3):
                before = resource.getrusage(resource.RUSAGE_THREAD).ru_minflt
                held = [np.ones(1 << 19) for _ in range(2)]  # 8 MiB more: a second heap
                faults.append(resource.getrusage(resource.RUSAGE_THREAD).ru_minflt - before)
                del held
            del kept

        thread = threading.Thread(target=driver)
        thread.start()
        thread.join()
        return faults

    # the second heap is kept when its arrays are freed, so the same arrays fault in once at
    # most (never, where the thread's arena already held such a heap); compared with the first
    # round, as huge pages would make every count smaller
    for faults in client.run(faults_of_temporaries_past_a_full_heap).values():
        assert max(faults[1:]) <= faults[0] // 10, faults
    counts = set(client.run(mappings_for_a_new_array).values())
    if counts == {None}:
        pytest.skip("glibc before 2.33 has no mallinfo2 to count mappings with")
    assert counts == {0}


def failing_kernel(ctx, bounds, bad_rank):
    for step in range(50):
        for r in ctx.ranks:
            if r == bad_rank and step == 3:
                raise ZeroDivisionError("boom on purpose")
        ctx.allreduce({r: np.ones(1) for r in ctx.ranks})
    return {r: {} for r in ctx.ranks}


@pytest.mark.parametrize("dispatch", ["auto", "tasks"])
def test_kernel_error_names_rank_and_superstep_and_next_run_works(client, dispatch):
    g = grid_graph(6, 6, ranks=4)
    with (
        dask.config.set({"dgraph.dispatch": dispatch}),
        pytest.raises(
            dgraph.DgraphRunError,
            match=r"rank 2 \(ranks 2..3 on worker tcp://.*\) failed at superstep 3: ZeroDivisionError: boom",
        ),
    ):
        g.run(failing_kernel, bad_rank=2)
    assert bfs(g, 0).compute().distance.max() == 10


def slow_kernel(ctx, bounds, steps, started=None):
    for step in range(steps):
        ctx.allreduce({r: np.ones(1) for r in ctx.ranks})
        if step == 5 and started:
            open(started, "w").close()  # the run is under way on every rank
        time.sleep(0.01)  # a long run: supersteps paced so that the kill comes mid-run
    return {r: {} for r in ctx.ranks}


def test_killed_worker_ends_run_and_retry_succeeds(client, tmp_path):
    g = grid_graph(30, 30, ranks=4)
    pids = client.run(os.getpid)
    victim = workers(client)[1]
    started = str(tmp_path / "started")
    outcome = {}

    def go():
        t = time.monotonic()
        try:
            g.run(slow_kernel, steps=3000, started=started)
        except Exception as exc:  # noqa: BLE001
            outcome["error"] = exc
        outcome["seconds"] = time.monotonic() - t

    th = threading.Thread(target=go)
    th.start()
    wait_until(lambda: os.path.exists(started), 60, "the run to get under way")
    killed_at = time.monotonic()
    os.kill(pids[victim], signal.SIGKILL)
    # liveness, not speed: the run ends (the client's grace is 5 s) rather than waiting for a
    # peer that will never answer; how soon depends on the host's load
    th.join(30)
    assert not th.is_alive(), f"the run hung: not over {time.monotonic() - killed_at:.0f} s after a worker was killed"
    err = outcome.get("error")
    assert isinstance(err, dgraph.DgraphRunError), err
    msg = str(err)
    assert "superstep" in msg and "rank" in msg and victim in msg, msg
    # the nanny restarts the worker; the same client and graph work again (lost blocks recomputed)
    client.wait_for_workers(2, timeout=30)
    r = bfs(g, 0).compute()
    assert r.distance.max() == 58
    assert victim not in client_state(client).spares  # its spare listener went with it


def wait_for_file(path, limit=60):
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if os.path.exists(path):
            return True
        time.sleep(0.05)
    return False


def waiting_kernel(ctx, bounds, path):
    seen = wait_for_file(path)
    ctx.barrier()
    return {r: {"seen": seen} for r in ctx.ranks}


def test_workers_stay_usable_during_a_run(client, tmp_path):
    """With one thread per worker, a run in progress must leave the worker able to run tasks:
    the kernel waits for a file that only a task submitted during the run creates."""
    g = grid_graph(10, 10, ranks=2)
    flag = str(tmp_path / "task-ran")
    result = {}
    th = threading.Thread(target=lambda: result.update(out=g.run(waiting_kernel, path=flag)))
    th.start()
    for w in workers(client):
        client.submit(lambda p: open(p, "w").close(), flag, workers=[w], pure=False).result()
    th.join(90)
    futures, _ = result["out"]
    assert all(r["seen"] for r in futures.gather()), "a driver held the worker's only thread"


@pytest.mark.parametrize("layout", [OneD(ranks=4), TwoD(rows=2, cols=2)], ids=repr)
def test_runs_go_to_workers_directly_or_through_tasks_with_equal_results(client, layout):
    g = grid_graph(12, 12, layout=layout)
    # 2D: the canonical order rides as a future in the kernel's params, held by one worker
    assert isinstance(g.store.order, Future) == isinstance(layout, TwoD)
    direct = bfs(g, 5).compute().sort_values("vertex", ignore_index=True)
    assert g.last_stats.dispatch == "direct"
    with dask.config.set({"dgraph.dispatch": "tasks"}):
        tasks = bfs(g, 5).compute().sort_values("vertex", ignore_index=True)
        assert g.last_stats.dispatch == "tasks"
    pd.testing.assert_frame_equal(direct, tasks)
    assert direct.distance.max() == 6 + 11 and direct.predecessor.isna().sum() == 1


@pytest.mark.parametrize("dispatch", ["auto", "tasks"])
def test_a_source_label_is_looked_up_by_the_workers_in_the_run(client, dispatch):
    # string labels, placed in another order (2D): the label -> placed id tables stay on the
    # workers, and the search starts with no lookup task before it (a round trip per call)
    e = pd.DataFrame({"src": [f"v{i}" for i in range(40)], "dst": [f"v{(i * 7 + 1) % 40}" for i in range(40)]})
    g = dgraph.from_edgelist(e, directed=False, layout=TwoD(rows=2, cols=2))
    with dask.config.set({"dgraph.dispatch": dispatch}):
        with get_task_stream(client) as stream:
            r = bfs(g, "v3").compute().set_index("vertex")
        assert r.distance.loc["v3"] == 0 and g.last_stats.dispatch == ("direct" if dispatch == "auto" else "tasks")
        assert not [t for t in stream.data if "lookup" in str(t["key"])]
        with pytest.raises(dgraph.DgraphInputError, match="BFS source 'v40' is not a vertex of this graph"):
            bfs(g, "v40")
    assert bfs(g, "v0").compute().set_index("vertex").distance.loc["v1"] == 1  # the next run works


def test_a_run_whose_blocks_moved_goes_through_tasks_then_direct_again(client):
    g = grid_graph(12, 12, ranks=4)
    expected = bfs(g, 0).compute().sort_values("vertex", ignore_index=True)
    a, b = workers(client)
    known = client_state(client).holders
    for blocks, holders in known.items():  # remember every block on the other worker
        known[blocks] = [b if h == a else a for h in holders]
    got = bfs(g, 0).compute().sort_values("vertex", ignore_index=True)
    assert g.last_stats.dispatch == "tasks"
    pd.testing.assert_frame_equal(got, expected)
    bfs(g, 0)
    assert g.last_stats.dispatch == "direct"


def _drop_replica(key, worker, dask_scheduler=None):
    dask_scheduler.request_remove_replicas(worker, [key], stimulus_id="test-drop-replica")


def test_a_run_fetches_a_param_from_wherever_the_scheduler_keeps_it_now(client):
    """The scheduler's memory manager drops extra replicas, not always the one the client
    remembers: the run's workers then ask the scheduler, and the run still goes direct."""
    e = pd.DataFrame({"src": [f"v{i}" for i in range(60)], "dst": [f"v{(i * 7 + 1) % 60}" for i in range(60)]})
    g = dgraph.from_edgelist(e, directed=False, ranks=2, vertex_order="degree")
    expected = bfs(g, "v3").compute().sort_values("vertex", ignore_index=True)
    labels = g.store.order  # every run's kernel gets it (placed ids -> canonical ids, for ties)
    holder = client.who_has([labels])[labels.key][0]
    client.replicate([labels])
    client.run_on_scheduler(_drop_replica, labels.key, holder)
    others = [w for w in workers(client) if w != holder]
    wait_until(lambda: list(client.who_has([labels])[labels.key]) == others, 10, "the replica to be dropped")
    got = bfs(g, "v3").compute().sort_values("vertex", ignore_index=True)
    assert g.last_stats.dispatch == "direct"
    pd.testing.assert_frame_equal(got, expected)


def spare_tokens(client):
    return client.run(lambda dask_worker: dask_worker.plugins[PLUGIN_NAME].spare[0])


def test_runs_start_in_one_message_and_open_first_when_a_spare_listener_was_taken(client):
    """Once the client knows every worker's spare listener, one message opens and drives a run
    there; a spare that another client's run took makes the run open, then drive."""
    g = grid_graph(8, 8, ranks=2)
    expected = bfs(g, 0).compute().sort_values("vertex", ignore_index=True)
    before = spare_tokens(client)
    assert {w: t for w, (_, t) in client_state(client).spares.items()} == before
    got = bfs(g, 0).compute().sort_values("vertex", ignore_index=True)
    after = spare_tokens(client)
    assert all(after[w] != before[w] for w in after)  # each worker's run took its spare listener
    pd.testing.assert_frame_equal(got, expected)
    client_state(client).spares = {w: (port, "taken") for w, (port, _) in client_state(client).spares.items()}
    got = bfs(g, 0).compute().sort_values("vertex", ignore_index=True)
    assert g.last_stats.dispatch == "direct" and spare_tokens(client) == after  # opened on a listener of its own
    pd.testing.assert_frame_equal(got, expected)
    assert {w: t for w, (_, t) in client_state(client).spares.items()} == after  # the replies named the spares again


@pytest.mark.slow
def test_a_run_whose_remembered_holder_is_gone_goes_through_tasks(client):
    """A worker that left between runs: the client cannot open the run there, and the run goes
    through the scheduler (the client keeps calling live workers directly afterwards)."""
    g = grid_graph(8, 8, ranks=2)
    expected = bfs(g, 0).compute().sort_values("vertex", ignore_index=True)
    known = client_state(client).holders
    for blocks, holders in known.items():
        known[blocks] = ["tcp://127.0.0.1:9" if h == holders[0] else h for h in holders]  # nothing listens there
    got = bfs(g, 0).compute().sort_values("vertex", ignore_index=True)
    assert g.last_stats.dispatch == "tasks" and client_state(client).direct
    pd.testing.assert_frame_equal(got, expected)


def test_a_kernel_that_cannot_be_pickled_fails_the_call_and_leaves_no_run(client):
    g = grid_graph(6, 6, ranks=2)
    lock = threading.Lock()

    def kernel(ctx, bounds):
        with lock:
            return {r: {} for r in ctx.ranks}

    with pytest.raises(Exception, match="pickle"):
        g.run(kernel)
    # (the autouse fixture checks that no run is left open on any worker)
    assert bfs(g, 0).compute().distance.max() == 10


def test_driving_an_unknown_run_says_why(client):
    w = workers(client)[0]
    reply = client.sync(client.rpc(w).dgraph_drive, run_id="nope", spec=b"", key="x")
    assert reply["status"] == "error" and "not open" in reply["message"]


def lonely_failure(ctx, bounds, bad_rank):
    """No collective: the worker without ``bad_rank`` finishes and stores its results."""
    if bad_rank in ctx.ranks:
        raise ValueError("boom")
    return {r: {"x": np.arange(3)} for r in ctx.ranks}


def run_results_held(client):
    return [
        k
        for held in client.run(lambda dask_worker: list(dask_worker.data)).values()
        for k in held
        if isinstance(k, tuple) and str(k[0]).startswith("dgraph-lonely")
    ]


def test_results_of_a_failed_direct_run_are_released(client):
    """A worker that finished a run that failed elsewhere has stored its results: the client
    registers them with the scheduler and releases them, so no worker keeps them."""
    g = grid_graph(6, 6, ranks=2)
    with pytest.raises(dgraph.DgraphRunError, match="ValueError: boom"):
        g.run(lonely_failure, bad_rank=1, name="lonely")
    # the release reaches the worker through the scheduler's stream
    wait_until(lambda: not run_results_held(client), 5, "the failed run's results to be released")
    results, _ = g.run(lonely_failure, bad_rank=-1, name="lonely")
    assert [r["x"].tolist() for r in results.gather()] == [[0, 1, 2]] * 2
    assert sorted(run_results_held(client)) == sorted(f.key for f in results.futures)  # one per worker
    assert all(client.who_has(results.futures).values())  # and the scheduler knows where


def test_stale_and_unknown_runs_get_error_replies(client):
    w = workers(client)
    replies = client.sync(
        client.scheduler.broadcast, msg={"op": "dgraph_fail", "run_id": "nope", "reason": "x"}, workers=w
    )
    assert all(r["status"] == "error" and "unknown run" in r["message"] for r in replies.values())
    replies = client.sync(client.scheduler.broadcast, msg={"op": "dgraph_close", "run_id": "nope"}, workers=w)
    assert all(r["status"] == "error" for r in replies.values())


def test_channel_rejects_wrong_secret_and_foreign_runs():
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    wake_r, wake_w = socket.socketpair()
    run_id, secret = b"r" * 16, b"s" * 32
    intruders = []
    for rid, key in ((run_id, b"x" * 32), (b"o" * 16, secret)):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(HELLO.pack(rid, key, 0))
        intruders.append(s)
    with pytest.raises(PeerLost, match="did not connect"):
        connect_mesh(1, [("127.0.0.1", port), ("127.0.0.1", port)], listener, run_id, secret, wake_r, timeout=1)
    for s in intruders:
        s.settimeout(2)
        assert s.recv(1) == b""  # dropped
        s.close()
    listener.close()
    wake_r.close()
    wake_w.close()


def test_idle_and_garbage_connections_do_not_stall_a_handshake():
    """Connections that send nothing, part of a hello or garbage are read side by side with the
    real peer's: the mesh opens as soon as the peer has said who it is."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    wake_r, wake_w = socket.socketpair()
    run_id, secret = b"r" * 16, b"s" * 32
    junk = []
    for i in range(16):
        s = socket.create_connection(("127.0.0.1", port))
        if i % 3 == 1:
            s.sendall(b"0123456789")  # a partial handshake, then silence
        elif i % 3 == 2:
            s.sendall(os.urandom(HELLO.size))
        junk.append(s)
    peer = socket.create_connection(("127.0.0.1", port))
    peer.sendall(HELLO.pack(run_id, secret, 0))
    started = time.monotonic()
    mesh = connect_mesh(1, [("127.0.0.1", port), ("127.0.0.1", port)], listener, run_id, secret, wake_r, timeout=60)
    assert time.monotonic() - started < HANDSHAKE_WITHIN  # no connection waited out another's handshake
    assert set(mesh.sockets) == {0}
    mesh.close()
    for s in junk + [peer]:
        s.close()
    listener.close()
    wake_r.close()
    wake_w.close()


def test_a_peer_late_to_connect_is_knocked_on_and_waited_for_while_its_host_answers():
    """A driver that starts late is no silent host: its host answers a knock on its listener (or
    refuses it, from a closed port: up either way), so its peers keep waiting for it."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    closed = socket.create_server(("127.0.0.1", 0))
    closed_port = closed.getsockname()[1]
    closed.close()
    assert silent_peers([("127.0.0.1", port), ("127.0.0.1", closed_port)], [0, 1], 1.0) == []
    wake_r, wake_w = socket.socketpair()
    run_id, secret = b"r" * 16, b"s" * 32
    late = []

    def connect_late():
        time.sleep(1.5)  # three knocks, half a second apart
        late.append(socket.create_connection(("127.0.0.1", port)))
        late[0].sendall(HELLO.pack(run_id, secret, 0))

    thread = threading.Thread(target=connect_late)
    thread.start()
    addresses = [("127.0.0.1", port), ("127.0.0.1", port)]
    mesh = connect_mesh(1, addresses, listener, run_id, secret, wake_r, timeout=30, peer_timeout=0.5)
    thread.join()
    assert set(mesh.sockets) == {0}
    mesh.close()
    for s in (*late, listener, wake_r, wake_w):
        s.close()


def test_a_run_starts_with_idle_connections_on_every_worker_s_spare_listener(client):
    g = grid_graph(8, 8, ranks=2)
    expected = bfs(g, 0).compute().sort_values("vertex", ignore_index=True)
    junk = []
    for worker, (port, _) in client_state(client).spares.items():
        host = worker.split("://")[1].rsplit(":", 1)[0]
        for i in range(16):
            s = socket.create_connection((host, port))
            if i % 2:
                s.sendall(b"garbage!!")
            junk.append(s)
    got = bfs(g, 0).compute().sort_values("vertex", ignore_index=True)
    assert g.last_stats.dispatch == "direct" and g.last_stats.phases["connect"] < HANDSHAKE_WITHIN
    pd.testing.assert_frame_equal(got, expected)
    for s in junk:
        s.close()


def test_frames_roundtrip_and_reject_objects():
    a, b = socket.socketpair()
    big = np.arange(SMALL_ARRAY // 8 + 3, dtype=np.int64)  # read straight into its array, between small ones
    arrays = [np.arange(5, dtype=np.int64), np.array([], dtype=np.float64), np.array([True, False]), big]
    arrays += [np.arange(3, dtype=np.int16), big[::-1].astype(np.float64)]
    bufs, size = encode(7, [(1, 2, arrays), (3, 0, [])])
    assert sum(len(bytes(x)) for x in bufs) == size
    threading.Thread(target=a.sendall, args=(b"".join(bytes(x) for x in bufs),), daemon=True).start()
    b.setblocking(False)
    reader = _FrameReader(7)
    while not reader.done:
        assert select.select([b], [], [], 5)[0], "the frame did not arrive"
        assert reader.feed(b)
    (s1, d1, got), (s3, d3, none) = reader.entries
    assert (s1, d1, s3, d3, none) == (1, 2, 3, 0, [])
    for x, y in zip(arrays, got):
        np.testing.assert_array_equal(x, y)
        assert x.dtype == y.dtype
    with pytest.raises(TypeError):
        encode(1, [(0, 0, [np.array(["a"], dtype=object)])])
    bad = _FrameReader(8)
    a.sendall(b"".join(bytes(x) for x in encode(7, [(1, 2, arrays[:3])])[0]))
    assert select.select([b], [], [], 5)[0], "the frame did not arrive"
    with pytest.raises(ValueError, match="superstep 7 while in superstep 8"):
        bad.feed(b)
    a.close()
    b.close()


def test_long_runs_show_a_status_line(client, caplog, capsys):
    g = grid_graph(6, 6, ranks=2)
    with dask.config.set({"dgraph.progress": True, "dgraph.progress-after": 0}):
        g.run(slow_kernel, steps=60)  # sixty sleeps: long enough for the line
    err = capsys.readouterr().err
    assert "dgraph run: superstep" in err
    assert err.split("\r")[-1].startswith(f"dgraph run: done, {g.last_stats.supersteps} supersteps in ")


def test_a_long_construction_shows_its_stage(client, capsys):
    edges = grid_edges(300, 300)
    with dask.config.set({"dgraph.progress": True, "dgraph.progress-after": 0}):
        g = dgraph.from_edgelist(edges, directed=False, ranks=2)
    err = capsys.readouterr().err
    assert "dgraph from_edgelist: " in err and g.num_vertices == 90_000
    assert err.split("\r")[-1].startswith("dgraph from_edgelist: done, in ")


def test_status_line_is_quiet_when_not_interactive_and_logs_instead(client, capsys, caplog):
    g = grid_graph(6, 6, ranks=2)
    with dask.config.set({"dgraph.progress-after": 0}), caplog.at_level("INFO", logger="dgraph"):
        g.run(slow_kernel, steps=30)
    assert capsys.readouterr().err == ""  # pytest's stderr is not a terminal
    assert any("dgraph run: superstep" in r.getMessage() for r in caplog.records)


def test_a_long_job_logs_a_line_per_stage_or_minute_and_updates_its_line_each_second(caplog):
    from dgraph.progress import LOG_EVERY, Progress, Stages

    line = Progress("from_edgelist", show=False)  # a batch job: the log is the record
    with caplog.at_level("INFO", logger="dgraph"):
        for t in range(0, int(2 * LOG_EVERY) + 1):
            line.status("degrees", float(t))
        line.status("placing arcs", 2 * LOG_EVERY + 1)
        for step in range(50):
            line.update(step, 2 * LOG_EVERY + 2)
    said = [r.getMessage() for r in caplog.records]
    assert [m.split(" after")[0] for m in said] == ["dgraph from_edgelist: degrees"] * 3 + [
        "dgraph from_edgelist: placing arcs",
        "dgraph from_edgelist: superstep 0",
    ]
    out = io.StringIO()
    with Stages("from_edgelist", show=True, stream=out, after=0):
        time.sleep(2.5)
    assert 2 <= out.getvalue().count("\r") <= 4  # one update a second, then "done"


@pytest.mark.slow  # a fresh process that starts a cluster of its own
def test_a_script_that_exits_with_results_alive_logs_no_lost_data(tmp_path):
    """The README's quickstart as a script that never closes its client: dgraph's results are data
    the workers hold for the client, and the cluster must not stop under them at exit."""
    script = tmp_path / "quickstart.py"
    script.write_text(
        "import pandas as pd\n"
        "from distributed import Client\n"
        "import dgraph\n"
        "from dgraph.algorithms import bfs, connected_components\n"
        "if __name__ == '__main__':\n"
        "    client = Client(n_workers=2, threads_per_worker=1, dashboard_address='127.0.0.1:0')\n"
        "    edges = pd.DataFrame({'src': ['ann', 'bob', 'cat'], 'dst': ['bob', 'cat', 'ann']})\n"
        "    g = dgraph.from_edgelist(edges, directed=False)\n"
        "    kept = [bfs(g, 'ann'), connected_components(g)]\n"
        "    print(kept[0].compute().distance.max())\n"
    )
    import subprocess

    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1"
    # neither lost results nor a late message; a worker whose heartbeat meets the scheduler
    # already gone logs one ERROR too (distributed's own shutdown race, whatever ran before)
    errors = [line for line in done.stderr.splitlines() if "ERROR" in line and "during heartbeat" not in line]
    assert not errors, done.stderr
