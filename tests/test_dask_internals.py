"""The behaviour dgraph relies on in dask's non-public API (``dgraph.dask_internals``), pinned.

CI runs this module on the oldest dask the project supports as well as the newest.
"""

import inspect
import pickle

import dask
import numpy as np
import pandas as pd

from dgraph import dask_internals as di
from dgraph.cluster import workers


def _store(key, value, dask_worker=None):
    return di.store_on_worker(dask_worker, key, value, "dgraph-test-store")


def test_values_stored_by_a_worker_become_futures_without_a_task(client):
    first, second = workers(client)
    parts = [pd.DataFrame({"vertex": [i, i + 10], "value": [0.5 * i, 1.0]}) for i in range(2)]
    keys = [("dgraph-test-held", i) for i in range(2)]
    sizes = [client.run(_store, k, p, workers=[w])[w] for k, p, w in zip(keys, parts, (first, second))]
    assert all(isinstance(n, int) and n > 0 for n in sizes)
    assert client.sync(di.adopt_futures, client, {}) == []
    futures = client.sync(di.adopt_futures, client, {k: (w, n) for k, w, n in zip(keys, (first, second), sizes)})
    assert [f.key for f in futures] == keys and all(f.status == "finished" for f in futures)
    assert client.who_has(futures) == {keys[0]: (first,), keys[1]: (second,)}
    pd.testing.assert_frame_equal(futures[1].result(), parts[1])

    frame = di.held_frame("dgraph-test-held", futures, parts[0].iloc[:0])
    assert frame.npartitions == 2
    pd.testing.assert_frame_equal(frame.compute(), pd.concat(parts))
    # joined on the client as dask joins the parts on a worker; derived frames compute as dask's
    (by_dask,) = dask.compute(frame)
    pd.testing.assert_frame_equal(frame.compute(), by_dask)
    pd.testing.assert_frame_equal(frame[frame.value > 0.2].compute(), by_dask[by_dask.value > 0.2])
    # fetched as the held parts, no graph goes to the scheduler; anything derived from them is computed there
    graphs, update = [], client.cluster.scheduler.stream_handlers["update-graph"]

    async def counted(*args, **kwargs):  # the scheduler's own handler, counted
        graphs.append(1)
        done = update(*args, **kwargs)
        return await done if inspect.isawaitable(done) else done

    client.cluster.scheduler.stream_handlers["update-graph"] = counted
    try:
        pd.testing.assert_frame_equal(di.fetch(client, frame), by_dask)
        assert graphs == []
        pd.testing.assert_frame_equal(di.fetch(client, frame[frame.value > 0.2]), by_dask[by_dask.value > 0.2])
        assert graphs == [1]
    finally:
        client.cluster.scheduler.stream_handlers["update-graph"] = update
    # the expression and the collection pickle by reference, as the scheduler reads them
    assert pickle.loads(pickle.dumps(type(frame.expr))) is type(frame.expr)
    assert pickle.loads(pickle.dumps(type(frame))) is type(frame)
    frame["twice"] = frame.value * 2  # changed in place: no longer the held parts alone
    pd.testing.assert_frame_equal(frame.compute(), by_dask.assign(twice=by_dask.value * 2))
    del frame
    for f in futures:
        f.release()


def test_a_direct_held_frame_comes_from_its_workers_unless_the_client_says_otherwise(client):
    import functools

    first, second = workers(client)
    parts = [pd.DataFrame({"vertex": [i], "value": [2.0 * i]}) for i in range(2)]
    keys = [("dgraph-test-direct", i) for i in range(2)]
    sizes = [client.run(_store, k, p, workers=[w])[w] for k, p, w in zip(keys, parts, (first, second))]
    futures = client.sync(di.adopt_futures, client, {k: (w, n) for k, w, n in zip(keys, (first, second), sizes)})
    frame = di.held_frame("dgraph-test-direct", futures, parts[0].iloc[:0], direct=True)
    relayed_frame = di.held_frame("dgraph-test-direct", futures, parts[0].iloc[:0])
    scheduler = client.cluster.scheduler
    relayed, asked, gather, who_has = [], [], scheduler.handlers["gather"], scheduler.handlers["who_has"]

    @functools.wraps(gather)
    def counted(*args, **kwargs):  # the scheduler's own handlers, counted
        relayed.append(kwargs.get("keys"))
        return gather(*args, **kwargs)

    @functools.wraps(who_has)
    def counted_who_has(*args, **kwargs):
        asked.append(kwargs.get("keys"))
        return who_has(*args, **kwargs)

    scheduler.handlers["gather"], scheduler.handlers["who_has"] = counted, counted_who_has
    try:
        pd.testing.assert_frame_equal(frame.compute(), pd.concat(parts))
        assert relayed == [] and asked == []  # straight from the workers that stored them
        di._HOLDERS[futures[1]] = first  # a holder that no longer has its part: the scheduler knows where it is
        pd.testing.assert_frame_equal(frame.compute(), pd.concat(parts))
        assert relayed == [] and len(asked) == 1
        pd.testing.assert_frame_equal(relayed_frame.compute(), pd.concat(parts))
        assert len(relayed) == 1  # not direct: through the scheduler
        client.direct_to_workers = False  # as Client(direct_to_workers=False) says
        pd.testing.assert_frame_equal(frame.compute(), pd.concat(parts))
        assert len(relayed) == 2  # through the scheduler, as asked
    finally:
        scheduler.handlers["gather"], scheduler.handlers["who_has"] = gather, who_has
        client.direct_to_workers = None
        for f in futures:
            f.release()


def test_a_worker_fetches_a_value_another_holds(client):
    first, second = workers(client)
    [future] = client.scatter([{"x": 1}], workers=[first])

    async def fetch(key, holder, dask_worker=None):
        found = await di.fetch_from_worker(dask_worker, key, holder)
        try:
            await di.fetch_from_worker(dask_worker, "dgraph-test-no-such-key", holder)
        except KeyError:
            return found, "missing"
        return found, "found?"

    assert client.run(fetch, future.key, first, workers=[second])[second] == ({"x": 1}, "missing")


def test_settled_reports_status_and_error_without_the_result(client):
    def boom():
        raise ValueError("boom")

    ok, bad = client.submit(lambda: 1, pure=False), client.submit(boom, pure=False)

    async def both():
        return await di.settled(ok), await di.settled(bad)

    (s1, e1), (s2, e2) = client.sync(both)
    assert (s1, e1) == ("finished", None)
    assert s2 == "error" and isinstance(e2, ValueError) and "boom" in str(e2)


def _add_echo(dask_worker=None):
    def echo(obj=None, key=None):
        return {"type": type(obj).__name__, "key": repr(di.as_key(key))}

    dask_worker.handlers["dgraph_test_echo"] = echo


def test_a_handler_gets_objects_unpickled_by_dask_and_keys_back_as_tuples(client):
    first = workers(client)[0]
    client.run(_add_echo, workers=[first])

    async def ask():
        comm = await client.rpc.connect(first)
        try:
            # the socket under the comm, for the keepalive dgraph sets on a run's calls
            assert di.comm_socket(comm).getpeername()[1] == int(first.rsplit(":", 1)[1])
            return await di.call_on_comm(comm, "dgraph_test_echo", obj=di.to_pickle(np.arange(3)), key=("k", 1))
        finally:
            client.rpc.reuse(first, comm)

    assert client.sync(ask) == {"type": "ndarray", "key": "('k', 1)"}
    assert client.sync(client.rpc(first).identity)["type"] == "Worker"


def test_wait_for_uses_the_futures_own_client(client):
    futures = [client.submit(lambda x: x + 1, i, pure=False) for i in range(3)]
    di.wait_for(futures)
    assert all(f.status == "finished" for f in futures)
    di.wait_for([])


def _memory(dask_worker=None):
    return di.worker_memory(dask_worker)


def test_a_workers_memory_is_read_as_its_memory_manager_sees_it(client):
    held = client.scatter(np.ones(1 << 20), broadcast=False)  # 8 MiB in one worker's memory
    holder = client.who_has([held])[held.key][0]
    readings = client.run(_memory)
    limits = {w: info["memory_limit"] for w, info in client.scheduler_info()["workers"].items()}
    for address, (limit, pause, process, spillable) in readings.items():
        assert limit == limits[address] > 0
        assert pause == dask.config.get("distributed.worker.memory.pause")
        assert process > 64 << 20  # (a worker with numpy loaded)
        assert spillable >= (8 << 20 if address == holder else 0)
    del held


def _twice(x):
    return 2 * x


def test_a_removed_worker_leaves_the_scheduler_and_what_it_held_is_computed_again(client):
    from distributed import Worker

    async def start():
        return await Worker(client.scheduler.address, nthreads=1, host="127.0.0.1")

    extra = client.sync(start)
    try:
        held = client.submit(_twice, 21, workers=[extra.address], allow_other_workers=True, pure=False)
        assert held.result() == 42 and client.who_has([held])[held.key] == (extra.address,)
        assert client.sync(di.remove_worker, client, extra.address, "dgraph-test") == "OK"
        assert extra.address not in workers(client)
        assert held.result() == 42  # computed again on a worker that remains
        assert extra.address not in client.who_has([held])[held.key]
    finally:
        client.sync(extra.close)
