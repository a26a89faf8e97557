"""Dispatch: getting a planned run driven on its workers, and watching it to the end.

Direct (the default): the client tells each worker itself, over dask's comms, to open the run and
drive its ranks (plugin handlers: no scheduler round trip, whose batched streams add their batching
delay each way). A worker keeps a listening socket ready for its next run and names it in its replies, so
once the client knows one for every worker a single message per worker opens and drives the run
(``dgraph_start``). Each worker keeps what its kernel returned in its memory; the client tells
the scheduler of it (as ``client.scatter`` does) and holds the futures.

Tasks (the fallback, or ``dgraph.dispatch="tasks"``): the run is opened through the scheduler
and driven by one driver task per worker, which secedes from the worker's thread pool.

Both wait in ``watch``: on the first error or lost worker the run is failed on every worker,
the others get a few seconds to report, and the root cause is raised.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, NamedTuple

import dask
from distributed.comm import get_address_host

from ..cluster import live_workers, workers
from ..dask_internals import adopt_futures, call_on_comm, comm_socket, settled, to_pickle
from ..errors import DgraphRunError
from ..progress import progress_after
from .channels import keep_alive
from .params import hold
from .plugin import drive_task

PROGRESS_EVERY = 2.0  # seconds between updates of a long run's status line
OPEN_WITHIN = 5.0  # seconds for a worker to answer the client (else an open goes through tasks)
GRACE = 5.0  # seconds the other workers get to report once a run failed
_telling: set = set()  # failures being told to the workers, in the background


class PlannedRun(NamedTuple):
    """A run as ``launch`` planned it, for dispatch: its workers in order, each one's
    ``DriverSpec``, the seconds a rank may wait, the run's name and the status line that shows a
    long run's progress."""

    worker_addrs: list
    specs: list
    timeout: float
    name: str
    line: Any


def run_direct(client, state, planned, keys, needs):
    """Open and drive the ``planned`` run by telling each worker directly (``keys[i]``: the
    blocks worker i must hold; ``needs``: the params' futures, key -> a worker holding it).
    Returns ``(futures, outcomes, "direct")``, or None when the run could not start this way
    (nothing ran)."""
    try:
        opened, outcomes, futures = client.sync(_direct, client, state, planned, keys, needs)
    except DgraphRunError:
        state.holders.clear()  # a worker may have left: ask where blocks are next time
        raise
    if outcomes is None:
        state.holders.clear()  # something moved: ask where blocks and params are next time
        unreachable = [w for w, r in opened.items() if isinstance(r, (OSError, asyncio.TimeoutError))]
        if unreachable and set(unreachable) <= set(workers(client)):
            state.direct = False  # live workers out of the client's reach: use tasks from now on
        return None
    return futures, outcomes, "direct"


async def _direct(client, state, planned, keys, needs):
    """The direct run on the client's event loop: ``(open replies, outcomes, futures)``; outcomes
    is None when some worker could not open the run (those that did are closed again). If a
    spare listener is gone (another client's run took it) or a block moved, the one-message
    start is closed everywhere and the run starts again: open, then drive."""
    worker_addrs, timeout = planned.worker_addrs, planned.timeout
    needs = [[k, holder] for k, holder in needs.items()]
    spares = state.take_spares(worker_addrs)
    if spares is not None:
        run_id, secret = state.new_run()
        addresses = [(get_address_host(w), spares[w][0]) for w in worker_addrs]
        extra = [
            {"secret": secret, "timeout": timeout, "keys": list(k), "needs": needs, "spare": spares[w][1]}
            for w, k in zip(worker_addrs, keys)
        ]
        run = await _drive_all(
            client, state, planned, run_id=run_id, secret=secret, op="dgraph_start", addresses=addresses, extra=extra
        )
        if run is not None:
            return run
    run_id, secret = state.new_run()
    opens = [
        asyncio.wait_for(
            client.rpc(w).dgraph_open(run_id=run_id, secret=secret, timeout=timeout, keys=list(k), needs=needs),
            OPEN_WITHIN,
        )
        for w, k in zip(worker_addrs, keys)
    ]
    replies = await asyncio.gather(*opens, return_exceptions=True)
    opened = dict(zip(worker_addrs, replies))
    for w, r in opened.items():
        state.keep_spare(w, r)
    if not all(_ok(r) for r in replies):
        await _tell(client, [w for w, r in opened.items() if _ok(r)], run_id, secret, "dgraph_close")
        fatal = [r["message"] for r in replies if isinstance(r, dict) and r.get("fatal")]
        if fatal:  # a setting no worker can meet (dgraph.channel-ports): tasks would fail the same way
            raise DgraphRunError(fatal[0])
        return opened, None, None
    addresses = [(r["host"], r["port"]) for r in replies]
    extra = [{"secret": secret}] * len(worker_addrs)
    run = await _drive_all(
        client, state, planned, run_id=run_id, secret=secret, op="dgraph_drive", addresses=addresses, extra=extra
    )
    if run is None:  # a block left between the open and the drive
        return opened, None, None
    return (opened, *run[1:])


def _ok(reply):
    return isinstance(reply, dict) and reply.get("status") == "OK"


async def _tell(client, targets, run_id, secret, op, **msg):
    """Best effort, and never waiting long on a worker that left."""
    try:
        calls = [getattr(client.rpc(w), op)(run_id=run_id, secret=secret, **msg) for w in targets]
        await asyncio.wait_for(asyncio.gather(*calls, return_exceptions=True), OPEN_WITHIN)
    except asyncio.TimeoutError:
        pass


async def _drive_all(client, state, planned, *, run_id, secret, op, addresses, extra):
    """Drive the run on every worker (``op``: "dgraph_drive" for an opened run, "dgraph_start"
    to open it in the same message, with ``extra[i]`` for worker i) and wait for all of them;
    worker i stores its results under ``(run name, i)``. ``(None, outcomes, futures)``, or None
    when a worker answered "moved" (the run is closed everywhere, nothing kept)."""
    worker_addrs, specs, name = planned.worker_addrs, planned.specs, planned.name
    peer_timeout = specs[0].peer_timeout
    results = [(f"dgraph-{name}-{run_id}", i) for i in range(len(worker_addrs))]
    done, moved = {}, []

    def judge(i, call):
        reply = call.exception() or call.result()
        state.keep_spare(worker_addrs[i], reply)
        if _ok(reply):
            done[i] = reply
            return None
        if isinstance(reply, dict) and reply.get("status") == "moved":
            moved.append(i)
        elif not isinstance(reply, dict):
            return _left(run_id, worker_addrs[i], reply, peer_timeout), True
        err = DgraphRunError(reply["message"])
        err.unreachable = list(reply.get("unreachable") or ())
        return err

    calls = {}
    errors, gone = [], set()
    try:
        for i, (w, spec) in enumerate(zip(worker_addrs, specs)):
            message = to_pickle(spec._replace(addresses=addresses))
            msg = dict(run_id=run_id, spec=message, key=results[i], **extra[i])
            calls[asyncio.ensure_future(_call(client, w, op, msg, peer_timeout))] = i
        errors, gone = await watch(client, worker_addrs, calls, judge, run_id=run_id, secret=secret, line=planned.line)
    finally:
        for f in calls:
            f.cancel()
        if errors or len(done) < len(worker_addrs):  # drop the run everywhere
            await _tell(client, [w for w in worker_addrs if w not in gone], run_id, secret, "dgraph_close")
        # the workers that finished stored their results: the scheduler learns of them (and,
        # when the run failed, releases them again at once)
        futures = await adopt_futures(
            client, {results[i]: (worker_addrs[i], r["nbytes"]) for i, r in sorted(done.items())}
        )
    if errors:
        for f in futures:
            f.release()
        if moved:  # the other errors follow from it (peers that waited for this one)
            return None
        raise _root_cause(errors)
    return None, [done[i]["outcome"] for i in range(len(worker_addrs))], futures


async def _call(client, worker, op, msg, peer_timeout):
    """``op`` ("dgraph_start" or "dgraph_drive") on ``worker``, over a connection whose kernel
    gives up once the worker leaves what it is sent unacknowledged for ``peer_timeout`` seconds
    (``channels.keep_alive``: its host or the link to it is down), where dask's own connections
    wait ``distributed.comm.timeouts.tcp`` (30 s). A worker the client cannot connect to answers
    "moved" to a start (nothing started there: the run starts again the long way, whose open
    finds out why), while one lost after the message went out fails the run as a lost worker
    does."""
    try:
        comm = await asyncio.wait_for(client.rpc.connect(worker), OPEN_WITHIN)
    except (OSError, asyncio.TimeoutError) as exc:
        if op != "dgraph_start":
            raise
        return {"status": "moved", "message": f"worker {worker} could not be reached: {exc!r}"}
    sock = comm_socket(comm)
    if sock is not None:
        keep_alive(sock, peer_timeout)
    try:
        reply = await call_on_comm(comm, op, **msg)
    except BaseException:  # (cancelled too): a reply may still be on its way, so the comm is not reused
        comm.abort()
        raise
    client.rpc.reuse(worker, comm)
    return reply


def _left(run_id, worker, exc, peer_timeout):
    """The error for a worker whose run call failed with ``exc``: a host that stopped answering
    (the connection timed out) is named as unreachable."""
    text = f"{exc!r}"
    if "timed out" in text.lower() or isinstance(exc, (TimeoutError, asyncio.TimeoutError)):
        err = DgraphRunError(
            f"run {run_id}: worker {worker}'s host {get_address_host(worker)} is unreachable (nothing "
            f"acknowledged within {peer_timeout:g} s, dgraph.peer-timeout): {text}"
        )
        err.unreachable = [worker]
        return err
    return DgraphRunError(f"run {run_id}: worker {worker} left or failed: {text}")


def run_tasks(client, state, planned, blocks):
    """Open the ``planned`` run through the scheduler and submit one driver task per worker
    (``blocks[i]``: the block futures worker i holds). A worker that does not answer the open
    within ``max(OPEN_WITHIN, peer_timeout)`` seconds fails the run, named as unreachable (the
    next call knocks on it: ``reach``), and no worker found unreachable is waited on again."""
    worker_addrs, specs, name, timeout = planned.worker_addrs, planned.specs, planned.name, planned.timeout
    within = max(OPEN_WITHIN, specs[0].peer_timeout)
    run_id, secret = state.new_run()
    replies = broadcast(client, worker_addrs, within, op="dgraph_open", run_id=run_id, secret=secret, timeout=timeout)
    opened = [w for w, r in replies.items() if _ok(r)]
    unreachable = set()
    try:
        if len(opened) != len(worker_addrs):
            silent = [w for w, r in replies.items() if isinstance(r, asyncio.TimeoutError)]
            bad = {w: r.get("message", r) if isinstance(r, dict) else r for w, r in replies.items() if w not in opened}
            bad.update({w: f"no answer within {within:g} s: its host may be unreachable" for w in silent})
            err = DgraphRunError(f"could not open run {run_id} on workers {bad}")
            err.unreachable = silent
            raise err
        addresses = [(replies[w]["host"], replies[w]["port"]) for w in worker_addrs]
        drivers = []
        for i, w in enumerate(worker_addrs):
            (params, finish), held = hold((specs[i].params, specs[i].finish))
            spec = specs[i]._replace(addresses=addresses, params=params, finish=finish)
            with dask.annotate(workers=[w], allow_other_workers=False):
                drivers.append(
                    dask.delayed(drive_task, pure=False)(
                        run_id, spec, {f.key: f for f in held}, *blocks[i], dask_key_name=(f"dgraph-{name}-{run_id}", i)
                    )
                )
        futures = client.compute(drivers, optimize_graph=False)
        client.sync(_watch_tasks, client, planned, run_id, secret, futures)
        replies = broadcast(client, opened, within, op="dgraph_close", run_id=run_id, secret=secret)
        opened = []
        lost = [w for w in worker_addrs if not (isinstance(replies.get(w), dict) and replies[w].get("outcome"))]
        if lost:
            raise DgraphRunError(
                f"run {run_id}: worker {lost[0]} did not report its outcome ({replies.get(lost[0])!r})"
            )
        return futures, [replies[w]["outcome"] for w in worker_addrs], "tasks"
    except DgraphRunError as err:
        unreachable.update(on_hosts_of(worker_addrs, getattr(err, "unreachable", ())))
        raise
    finally:
        if opened:  # the run failed: drop its state everywhere it can be dropped
            left = [w for w in opened if w not in unreachable]
            broadcast(client, left, within, check=True, op="dgraph_close", run_id=run_id, secret=secret)


async def _watch_tasks(client, planned, run_id, secret, futures):
    """``watch`` over the driver tasks; a worker that leaves fails the run (its task would wait
    for it forever: it may run nowhere else)."""

    def judge(i, call):
        status, exc = call.result()
        if status == "finished":
            return None
        return exc if status == "error" else DgraphRunError(f"run {run_id}: driver task {status}")

    calls = {asyncio.ensure_future(settled(f)): i for i, f in enumerate(futures)}
    try:
        errors, _ = await watch(
            client,
            planned.worker_addrs,
            calls,
            judge,
            run_id=run_id,
            secret=secret,
            line=planned.line,
            watch_workers=True,
        )
    finally:
        for c in calls:
            c.cancel()
    if errors:
        # on the client's loop: Future.cancel would hand back a coroutine nobody awaits
        await client.cancel(futures, asynchronous=True)
        raise _root_cause(errors)


async def watch(client, worker_addrs, calls, judge, *, run_id, secret, line, watch_workers=False):
    """Wait for every worker's call (``calls``: asyncio future -> worker index); ``judge(i,
    call)`` says what a finished call means: None when it succeeded, else the error (or
    ``(error, True)`` when the worker is gone). On the first error, or a lost worker with
    ``watch_workers``, the run is failed on every worker still there and the others get
    ``GRACE`` seconds to report. A run longer than ``progress_after()`` shows its superstep on
    ``line``. Returns (errors, workers gone)."""
    errors, gone, failed_at = [], set(), None
    start, after, last_report = time.monotonic(), progress_after(), -float("inf")
    pending, asking = set(calls), None  # asking: the first worker, for the run's superstep

    def reporting():
        """Whether a worker that may still report has not (an unreachable one cannot)."""
        return any(worker_addrs[calls[c]] not in gone for c in pending)

    while pending and (failed_at is None or (time.monotonic() < failed_at + GRACE and reporting())):
        # any reply may be an error the others wait on (a peer that never connects): look at once
        finished, pending = await asyncio.wait(pending, timeout=0.25, return_when=asyncio.FIRST_COMPLETED)
        for call in finished:
            err = judge(calls[call], call)
            if isinstance(err, tuple):
                err, _ = err
                gone.add(worker_addrs[calls[call]])
            if err is not None:
                errors.append(err)
                gone.update(on_hosts_of(worker_addrs, getattr(err, "unreachable", ())))
        if watch_workers and pending and failed_at is None:
            alive = set(await live_workers(client))
            left = [w for w in worker_addrs if w not in alive]
            if left:
                gone.update(left)
                errors.append(DgraphRunError(f"run {run_id}: worker {left[0]} left the cluster"))
        if errors and failed_at is None:  # wake the others (a peer's channel may not tell them)
            failed_at = time.monotonic()
            targets = [w for w in worker_addrs if w not in gone]
            # in the background: a worker that stopped answering must not hold up the others' reports
            telling = asyncio.ensure_future(
                _tell(client, targets, run_id, secret, "dgraph_fail", reason="another rank of this run failed")
            )
            _telling.add(telling)
            telling.add_done_callback(_telling.discard)
        now = time.monotonic()
        if asking is not None and asking.done():
            step = None if asking.cancelled() or asking.exception() else asking.result()
            line.update(step.get("superstep") if isinstance(step, dict) else None, now - start)
            asking = None
        if asking is None and pending and failed_at is None and now - start >= after:
            if now - last_report > PROGRESS_EVERY:
                last_report = now
                # in the background: a worker out of reach must not hold up the watch
                first = client.rpc(worker_addrs[0])
                asking = asyncio.ensure_future(first.dgraph_progress(run_id=run_id, secret=secret))
    if asking is not None:
        asking.cancel()
    return errors, gone


def on_hosts_of(worker_addrs, unreachable):
    """Those of ``worker_addrs`` on the hosts of the ``unreachable`` workers: a host found silent
    is silent for all its workers."""
    hosts = {get_address_host(w) for w in unreachable}
    return [w for w in worker_addrs if get_address_host(w) in hosts]


def broadcast(client, targets, within, check=False, **msg):
    """Send a control message through the scheduler to each of ``targets`` (with ``check``, to
    those of them still alive: a dead one cannot answer). A worker that cannot be told answers
    with the exception, and one that does not answer within ``within`` seconds with an
    ``asyncio.TimeoutError`` (its host may be silent: the scheduler's own connection to it waits
    for ``distributed.comm.timeouts.tcp``)."""
    if check:
        alive = set(workers(client))
        targets = [w for w in targets if w in alive]
    if not targets:
        return {}
    return client.sync(_broadcast, client, list(targets), within, msg)


async def _broadcast(client, targets, within, msg):
    async def tell(w):
        try:
            replies = await asyncio.wait_for(
                client.scheduler.broadcast(msg=msg, workers=[w], on_error="return"), within
            )
        except Exception as exc:  # a worker that just died cannot be told; nothing to clean there
            return exc
        return replies.get(w)

    return dict(zip(targets, await asyncio.gather(*(tell(w) for w in targets))))


def _root_cause(errors):
    """Of the errors the drivers raised, the one that started the failure; its ``unreachable``
    names every worker any of them found out of reach."""
    unreachable = sorted({w for e in errors for w in getattr(e, "unreachable", ())})
    markers = ("failed at superstep", "unreachable", "lost peer", "")
    root = next(e for marker in markers for e in errors if marker in str(e))
    if unreachable:
        root.unreachable = unreachable
    return root
