"""Launching one driver per worker, the rank context kernels see, and failure handling.

``launch`` mints the run id and secret and tells every worker holding rank blocks to open the
run (control plane: plugin handlers), then to drive its ranks: the drive handler runs the driver
in a plugin thread, so the worker's event loop and task threads stay free (a one-thread worker
stays usable during a long run). The driver connects the peer channels (data plane) and calls
``kernel(ctx, **params)``; the kernel drives all of the worker's ranks, and what it returns
(``{rank: result}``, or what the run's finish makes of it: a partition of the result frame)
stays in the worker's memory, registered with the scheduler as scattered data is
(``RankResults``); the drive reply carries the worker's counters (``RunStats``). Both messages
go from the client to each worker directly; when a worker is out of the client's reach, the
run is opened through the scheduler and driven by one driver task per worker (which secedes
from the thread pool).

Failure: any error on a worker closes its channels, so every peer blocked on it wakes at once;
the client also watches for lost workers and fails the run on the survivors. The caller gets a
``DgraphRunError`` naming the rank, worker and superstep (or the ``DgraphInputError`` of a
``Deferred`` param: an unknown vertex); every run's state is dropped on every worker, whatever
happened.
"""

from __future__ import annotations

import asyncio
import pickle
import secrets
import threading
import time
import uuid
from collections import Counter
from typing import NamedTuple

import dask
import numpy as np
from distributed import Future, get_worker, secede, wait
from distributed.comm import get_address_host
from distributed.core import send_recv
from distributed.protocol.pickle import dumps

from .. import kernels
from ..cluster import identity, workers
from ..errors import DgraphInputError, DgraphRunError
from ..progress import Progress, progress_after
from .channels import PeerLost, RunAborted, connect_mesh
from .domains import Domains, rank_paths
from .exchange import DirectTransport
from .grouped import DEFAULT_FLUSH_BYTES, GroupedTransport
from .metrics import RunStats
from .plugin import PLUGIN_NAME, ExchangePlugin

_registered = threading.Lock()
PROGRESS_EVERY = 2.0  # seconds between updates of a long run's status line
OPEN_WITHIN = 5.0  # seconds for a worker to answer the client (else an open goes through tasks)


class _Ranks(list):
    """The worker's rank list; iterating it records the rank in hand, so errors can name it."""

    def __init__(self, ranks, ctx):
        super().__init__(ranks)
        self._ctx = ctx

    def __iter__(self):
        for r in list.__iter__(self):
            self._ctx.current = r
            yield r
        self._ctx.current = None


class RankContext:
    """What a kernel sees on one worker: its ranks, their blocks, the collectives and the stats."""

    def __init__(self, nranks, ranks, blocks, transport, stats):
        self.nranks = nranks
        self.ranks = _Ranks(ranks, self)
        self.current = None
        self.blocks = blocks
        self.transport = transport
        self.stats = stats

    def alltoall(self, send, total=None, op="sum", combine=None):
        return self.transport.alltoall(send, total, op, combine)

    def allgather(self, pieces):
        return self.transport.allgather(pieces)

    def allreduce(self, values, op="sum"):
        return self.transport.allreduce(values, op)

    def barrier(self):
        self.transport.barrier()

    def phase(self, name):
        return self.stats.phase(name)

    @property
    def worker(self):
        """(this worker's index, the number of workers in the run): for work split by process."""
        return self.transport.me, max(self.transport.worker_of_rank) + 1


def _describe(ranks):
    ranks = list(ranks)
    if len(ranks) == 1:
        return f"rank {ranks[0]}"
    if ranks == list(range(ranks[0], ranks[-1] + 1)):
        return f"ranks {ranks[0]}..{ranks[-1]}"
    return f"ranks {ranks}"


def _transport(kind, mesh, worker_of_rank, index, ranks, stats, domains, flush_bytes):
    if domains is not None:
        stats.domain_of, stats.monitors = domains.level[0], domains.monitor[0]
    if kind == "grouped":
        return GroupedTransport(mesh, worker_of_rank, index, ranks, stats, domains, flush_bytes)
    return DirectTransport(mesh, worker_of_rank, index, ranks, stats)


class DriverSpec(NamedTuple):
    """What one worker's driver is told."""

    index: int  # the worker's place among the run's workers
    addresses: list  # every worker's (host, port) for the peer channels
    worker_addrs: list
    worker_of_rank: list
    ranks: list  # the ranks this worker drives
    kernel: object
    params: dict
    engine: str
    threads: int
    route: tuple  # (transport, domains, flush bytes)
    finish: tuple = None  # (fn, *args): the worker keeps fn({rank: result}, *args) instead


class Held:
    """Stands for a future's value in a directly driven run's params; the worker puts it back."""

    __slots__ = ("key",)

    def __init__(self, key):
        self.key = key


class Deferred:
    """A param each worker computes just before the kernel runs, as ``fn(*args)`` (futures in
    ``args`` passed as their values): a lookup in tables the workers hold, with no round trip from
    the client first (the source vertex of a search in a graph with labels). A
    ``DgraphInputError`` it raises fails the run as that error."""

    __slots__ = ("fn", "args")

    def __init__(self, fn, *args):
        self.fn, self.args = fn, args


def _swap(obj, leaf):
    """``obj`` with ``leaf`` applied inside dicts, lists and tuples (where dask finds futures in a
    task's arguments) and to the arguments of a Deferred."""
    if type(obj) is dict:
        return {k: _swap(v, leaf) for k, v in obj.items()}
    if type(obj) in (list, tuple):
        return type(obj)(_swap(v, leaf) for v in obj)
    if type(obj) is Deferred:
        return leaf(Deferred(obj.fn, *_swap(obj.args, leaf)))
    return leaf(obj)


def hold(params):
    """``(params with each future replaced by a Held, the futures)``."""
    found = []

    def leaf(x):
        if isinstance(x, Future):
            found.append(x)
            return Held(x.key)
        return x

    return _swap(params, leaf), found


def resolve(params, values):
    """``params`` with each Held replaced by its value from ``values`` (key -> value)."""
    return _swap(params, lambda x: values[x.key] if isinstance(x, Held) else x)


def _evaluate(params):
    """``params`` with each Deferred replaced by what it computes."""
    return _swap(params, lambda x: x.fn(*x.args) if type(x) is Deferred else x)


def _drive(run_id, spec, values, *blocks):
    """The driver task (when the client dispatches through the scheduler). ``values``: the
    futures the spec's held params and finish stand for, key -> value (dask puts their values
    in a dict, not inside a NamedTuple or a Deferred)."""
    worker = get_worker()
    # Leave the worker's thread pool: the run may block for long, and the worker must stay
    # free to run other tasks (even with one thread) while its ranks exchange.
    secede()
    spec = spec._replace(params=resolve(spec.params, values), finish=resolve(spec.finish, values))
    return drive(worker, worker.plugins[PLUGIN_NAME].get_run(run_id), spec, blocks)


def drive(worker, run, spec, blocks):
    """Run this worker's ranks of ``run``: connect the peer channels, call the kernel, and leave
    the outcome (stats) on ``run``. Returns ``{rank: result}`` (through the spec's finish, if
    any); raises ``DgraphRunError``, or the ``DgraphInputError`` of a Deferred param."""
    index, addresses, worker_addrs, worker_of_rank, ranks, kernel, params, engine, threads, route, finish = spec
    try:
        params = _evaluate(params)
    except DgraphInputError as exc:  # every worker computes the same: none of them connects
        run.fail(str(exc))
        raise
    rank_map = {
        r: [int(x) for x in np.flatnonzero(np.asarray(worker_of_rank) == w)] for w, r in enumerate(worker_addrs)
    }
    stats = RunStats(len(worker_of_rank))
    me = f"{_describe(ranks)} on worker {worker.address}"
    run.driver = threading.current_thread()
    try:
        with stats.phase("connect"):
            mesh = connect_mesh(
                index, addresses, run.listener, bytes.fromhex(run.run_id), run.secret, run.wake_r, run.timeout
            )
        run.mesh = mesh
        transport = _transport(*route[:1], mesh, worker_of_rank, index, ranks, stats, *route[1:])
        k = len(blocks) // max(len(ranks), 1)
        per_rank = {r: tuple(blocks[i * k : (i + 1) * k]) for i, r in enumerate(ranks)}
        ctx = RankContext(len(worker_of_rank), ranks, per_rank, transport, stats)
        run.ctx = ctx
        with stats.phase("kernel"), kernels.using(engine, threads):
            stats.threads = kernels.threads()
            results = kernel(ctx, **params)
        kept = results
        if finish is not None:
            with stats.phase("finish"):
                kept = finish[0](results, *finish[1:])
        run.outcome = _outcome(results, stats)  # the client reads it from the close (or drive) reply
        return kept
    except PeerLost as exc:
        peer = worker_addrs[exc.peer]
        err = DgraphRunError(
            f"{me} lost peer worker {peer} ({_describe(rank_map[peer])}) at superstep {stats.supersteps}: {exc}"
        )
    except RunAborted:
        err = DgraphRunError(f"{me} stopped at superstep {stats.supersteps}: {run.failure}")
    except Exception as exc:  # the kernel itself failed here: this is the root cause
        ctx = getattr(run, "ctx", None)
        if ctx is not None and ctx.current is not None and len(ranks) > 1:
            me = f"rank {ctx.current} ({me})"
        err = DgraphRunError(f"{me} failed at superstep {stats.supersteps}: {type(exc).__name__}: {exc}")
        err.__cause__ = exc
    finally:
        run.driver = None
    run.fail(str(err))
    if run.mesh is not None:
        run.mesh.close()  # peers blocked on us wake up now
    raise err


class RankResults:
    """What a run's kernel returned for each rank, left where it was computed: one future per
    worker holding ``{rank: result}`` for the ranks that worker drove (``ranks[i]`` for
    ``futures[i]``). Nothing is split per rank unless asked (``per_rank``): a task per rank costs
    a scheduler round trip, most of a short run's time when workers hold many ranks."""

    def __init__(self, client, futures, ranks):
        self.client, self.futures, self.ranks = client, list(futures), [list(r) for r in ranks]

    def __len__(self):
        return sum(len(r) for r in self.ranks)

    def gather(self):
        """Every rank's result, in rank order."""
        out = [None] * len(self)
        for held in self.client.gather(self.futures):
            for r, value in held.items():
                out[r] = value
        return out

    def map(self, fn, *args):
        """``fn(result, *args)`` for every rank, computed where the results are."""
        return RankResults(
            self.client, [self.client.submit(_map_held, fn, f, *args, pure=False) for f in self.futures], self.ranks
        )

    def runs(self):
        """``(future, [ranks])`` for each run of consecutive ranks held together, in rank order:
        the partitions of a result frame (one per worker when ranks are placed in blocks)."""
        out = []
        for r, f in enumerate(self._holders()):
            if out and out[-1][0] is f:
                out[-1][1].append(r)
            else:
                out.append((f, [r]))
        return out

    def per_rank(self, name=None):
        """One future per rank, in rank order (a small task each, on the worker holding it); under
        the keys ``(name, rank)`` when ``name`` is given (the partitions of a frame, ``results.to_dask``)."""
        return [
            self.client.submit(_pick, f, r, pure=False, **({} if name is None else {"key": (name, r)}))
            for r, f in enumerate(self._holders())
        ]

    def _holders(self):
        """The future holding each rank's result, in rank order."""
        out = [None] * len(self)
        for f, ranks in zip(self.futures, self.ranks):
            for r in ranks:
                out[r] = f
        return out


def _map_held(fn, held, *args):
    return {r: fn(value, *args) for r, value in held.items()}


def _pick(held, rank):
    return held[rank]


def _outcome(results, stats):
    """The worker's stats, and the dtypes of one rank's result (so the client can describe the
    results without fetching one), pickled for the close reply."""
    first = next(iter(results.values()), None) if isinstance(results, dict) else None
    arrays = isinstance(first, dict) and all(isinstance(v, np.ndarray) and v.ndim == 1 for v in first.values())
    dtypes = {k: v.dtype for k, v in first.items()} if arrays else None
    return pickle.dumps((stats, dtypes))


def ensure_plugin(client):
    with _registered:
        if not getattr(client, "_dgraph_plugin", False):
            client.register_plugin(ExchangePlugin(bool(dask.config.get("dgraph.tune-malloc", True))), name=PLUGIN_NAME)
            client._dgraph_plugin = True


def _broadcast(client, targets, check=True, **msg):
    """Send a control message to those of ``targets`` still alive (a dead one cannot answer;
    ``check=False`` when they are known to be: one scheduler round trip less)."""
    if check:
        alive = set(workers(client))
        targets = [w for w in targets if w in alive]
    if not targets:
        return {}
    try:
        return client.sync(client.scheduler.broadcast, msg=msg, workers=targets, on_error="return")
    except Exception as exc:  # a worker that just died cannot be told; nothing to clean there
        return {w: exc for w in targets}


def _root_cause(errors):
    """Of the errors the drivers raised, the one that started the failure."""
    for e in errors:
        if isinstance(e, DgraphInputError):
            return e
    for marker in ("failed at superstep", "lost peer", ""):
        for e in errors:
            if marker in str(e):
                return e
    return errors[0]


TRANSPORTS = ("direct", "grouped")


def launch(
    client,
    blocks,
    kernel,
    params,
    timeout=600.0,
    name="run",
    transport="direct",
    domains=None,
    weights=None,
    flush_bytes=None,
    finish=None,
):
    """Run ``kernel`` SPMD over ranks; ``blocks[r]`` is the list of rank r's block futures
    (the same number for every rank; the kernel sees them as the tuple ``ctx.blocks[r]``).
    Rank r runs on the worker holding ``blocks[r][0]``.

    ``transport``: "direct" or "grouped" (TuCOMM aggregation through domain monitors);
    ``domains``: a ``dgraph.runtime.domains`` spec (the run's stats then split traffic by domain
    crossing, whatever the transport); ``weights``: per-rank monitor preference (the heaviest
    vertex a rank holds); ``flush_bytes``: the grouped transport's buffer threshold (default: the
    ``dgraph.flush-bytes`` dask config value, 4 MiB); ``finish``: ``(fn, *args)``, each worker
    keeps ``fn({rank: result}, *args)`` instead of what its kernel returned (futures in ``args``
    are passed as their values, as in ``params``).

    Dispatch: the client tells each worker directly to open the run and drive its ranks (plugin
    handlers: one round trip, none through the scheduler, whose batched streams add 2-10 ms
    each way); each keeps what its kernel returned in its memory, and the client tells the
    scheduler (one call, as ``client.scatter`` does) and holds the futures. When a worker
    is out of the client's reach, or a block is not where it was, the run goes as one driver task
    per worker instead; ``dask.config.set({"dgraph.dispatch": "tasks"})`` always does.

    Returns ``(results, stats)``: the ``RankResults`` (what the kernel returned for each rank,
    held where it ran; the workers come in the order of their first ranks, worker i's future
    under the key ``(run name, i)``) and the merged ``RunStats``.
    """
    ensure_plugin(client)
    _ready([f for b in blocks for f in b])
    flush_bytes = int(flush_bytes or dask.config.get("dgraph.flush-bytes", DEFAULT_FLUSH_BYTES))

    def plan(fresh=False):
        """Where each rank runs, and what each worker's driver is told."""
        holders = _holders(client, [b[0] for b in blocks], fresh)
        worker_addrs = list(dict.fromkeys(holders))  # in rank order: worker i holds partition i of a result frame
        worker_of_rank = [worker_addrs.index(h) for h in holders]
        route = (
            transport,
            *resolve_domains(client, transport, domains, worker_of_rank, worker_addrs, weights),
            flush_bytes,
        )
        threads = _driver_threads(client, worker_addrs)
        driven = [[r for r in range(len(blocks)) if worker_of_rank[r] == i] for i in range(len(worker_addrs))]
        specs = [
            DriverSpec(
                i,
                None,
                worker_addrs,
                worker_of_rank,
                driven[i],
                kernel,
                params,
                kernels.engine(),
                threads[i],
                route,
                finish,
            )
            for i in range(len(worker_addrs))
        ]
        return worker_addrs, driven, specs, [[f for r in ranks for f in blocks[r]] for ranks in driven]

    started, line = time.monotonic(), Progress(name)
    worker_addrs, driven, specs, held = plan()
    run = None
    if dask.config.get("dgraph.dispatch", "auto") != "tasks" and getattr(client, "_dgraph_direct", True):
        (held_params, held_finish), futures = hold(
            (params, finish)
        )  # the workers find these futures' values themselves
        _ready(futures)
        needs = dict(zip([f.key for f in futures], _holders(client, futures)))
        specs = [spec._replace(params=held_params, finish=held_finish) for spec in specs]
        run = _run_direct(client, worker_addrs, specs, [[f.key for f in h] for h in held], needs, timeout, name, line)
    if run is None:
        worker_addrs, driven, specs, held = plan(fresh=True)  # the holders remembered may be stale
        run = _run_tasks(client, worker_addrs, specs, held, timeout, name, line)
    futures, outcomes, dispatch = run
    outcomes = [pickle.loads(o) for o in outcomes]
    stats = RunStats.merge([s for s, _ in outcomes])
    stats.result_dtypes = next((d for _, d in outcomes if d is not None), None)
    stats.dispatch = dispatch
    line.close(stats.supersteps, time.monotonic() - started)
    return RankResults(client, futures, driven), stats


def _ready(futures):
    """Wait for ``futures`` unless the client already knows them finished (no round trip then)."""
    if any(f.status != "finished" for f in futures):
        wait(futures)


def _holders(client, firsts, fresh=False):
    """The worker holding each of ``firsts``, remembered per client (blocks rarely move; a run
    finding one moved asks again)."""
    known = client.__dict__.setdefault("_dgraph_holders", {})
    key = tuple(f.key for f in firsts)
    if fresh or key not in known:
        deadline = time.monotonic() + 60
        who = client.who_has(firsts)
        while not all(who.get(f.key) for f in firsts):  # lost with a worker; the client may not know yet
            if time.monotonic() > deadline:
                raise DgraphRunError(
                    f"blocks {[f.key for f in firsts if not who.get(f.key)]} are in no worker's memory"
                )
            time.sleep(0.05)
            wait(firsts)
            who = client.who_has(firsts)
        if len(known) >= 256:
            known.clear()
        known[key] = [who[f.key][0] for f in firsts]
    return known[key]


def _run_direct(client, worker_addrs, specs, keys, needs, timeout, name, line):
    """Open and drive the run by telling each worker directly (``keys[i]``: the blocks worker i
    must hold; ``needs``: the params' futures, key -> a worker holding it). Returns ``(futures,
    outcomes, "direct")``, or None when the run could not start this way (nothing ran)."""
    try:
        opened, outcomes, futures = client.sync(_direct, client, worker_addrs, timeout, specs, keys, needs, name, line)
    except DgraphRunError:
        client._dgraph_holders.clear()  # a worker may have left: ask where blocks are next time
        raise
    if outcomes is None:
        client._dgraph_holders.clear()  # something moved: ask where blocks and params are next time
        unreachable = [w for w, r in opened.items() if isinstance(r, (OSError, asyncio.TimeoutError))]
        if unreachable and set(unreachable) <= set(workers(client)):
            client._dgraph_direct = False  # live workers out of the client's reach: use tasks from now on
        return None
    return futures, outcomes, "direct"


def _take_spares(client, worker_addrs):
    """The spare listeners (worker -> (port, token)) the client was last told of, one per worker
    of the run, taken so no other run of this client uses them; None unless every worker has one."""
    with _registered:
        spares = client.__dict__.setdefault("_dgraph_spares", {})
        if not all(w in spares for w in worker_addrs):
            return None
        return {w: spares.pop(w) for w in worker_addrs}


def _keep_spare(client, worker, reply):
    if isinstance(reply, dict) and reply.get("spare"):
        with _registered:
            client.__dict__.setdefault("_dgraph_spares", {})[worker] = tuple(reply["spare"])


async def _direct(client, worker_addrs, timeout, specs, keys, needs, name, line):
    """The direct run on the client's event loop: ``(open replies, outcomes, futures)``; outcomes
    is None when some worker could not open the run (those that did are closed again).

    A worker keeps a listening socket ready for its next run and names it in its replies
    (``spare``): when the client knows one for every worker, one message per worker opens the
    run and drives it (``dgraph_start``). If a spare is gone (another client's run took it) or a
    block moved, that run is closed everywhere and the run starts again: open, then drive."""
    needs = pickle.dumps(needs)
    spares = _take_spares(client, worker_addrs)
    if spares is not None:
        addresses = [(get_address_host(w), spares[w][0]) for w in worker_addrs]
        secret = secrets.token_bytes(32)
        extra = [
            {"secret": secret, "timeout": timeout, "keys": pickle.dumps(k), "needs": needs, "spare": spares[w][1]}
            for w, k in zip(worker_addrs, keys)
        ]
        run = await _drive_all(client, worker_addrs, "dgraph_start", addresses, extra, specs, name, line)
        if run is not None:
            return run
    run_id, secret = uuid.uuid4().hex, secrets.token_bytes(32)
    replies = await asyncio.gather(
        *[
            asyncio.wait_for(
                client.rpc(w).dgraph_open(
                    run_id=run_id, secret=secret, timeout=timeout, keys=pickle.dumps(k), needs=needs
                ),
                OPEN_WITHIN,
            )
            for w, k in zip(worker_addrs, keys)
        ],
        return_exceptions=True,
    )
    opened = dict(zip(worker_addrs, replies))
    for w, r in opened.items():
        _keep_spare(client, w, r)
    if not all(isinstance(r, dict) and r.get("status") == "OK" for r in replies):
        await _tell(
            client,
            [w for w, r in opened.items() if isinstance(r, dict) and r.get("status") == "OK"],
            run_id,
            "dgraph_close",
        )
        return opened, None, None
    addresses = [(r["host"], r["port"]) for r in replies]
    run = await _drive_all(
        client, worker_addrs, "dgraph_drive", addresses, [{}] * len(worker_addrs), specs, name, line, run_id
    )
    if run is None:  # a block left between the open and the drive
        return opened, None, None
    return (opened, *run[1:])


async def _tell(client, targets, run_id, op, **msg):
    """Best effort, and never waiting long on a worker that left."""
    try:
        await asyncio.wait_for(
            asyncio.gather(
                *[getattr(client.rpc(w), op)(run_id=run_id, **msg) for w in targets], return_exceptions=True
            ),
            OPEN_WITHIN,
        )
    except asyncio.TimeoutError:
        pass


async def _drive_all(client, worker_addrs, op, addresses, extra, specs, name, line, run_id=None):
    """Drive the run on every worker (``op``: "dgraph_drive" for an opened run, "dgraph_start"
    to open it in the same message, with ``extra[i]`` for worker i) and wait for all of them;
    worker i stores its results under ``(run name, i)``. ``(None, outcomes, futures)``, or None
    when a worker answered "moved" (the run is closed everywhere, nothing kept)."""
    run_id = run_id or uuid.uuid4().hex
    results = [(f"dgraph-{name}-{run_id}", i) for i in range(len(worker_addrs))]
    gone = set()  # workers the client lost its connection to
    drives, done, errors, moved, failed_at = {}, {}, [], False, None
    start, after, last_report = time.monotonic(), progress_after(), -float("inf")
    try:
        for i, (w, spec) in enumerate(zip(worker_addrs, specs)):
            message = dumps(spec._replace(addresses=addresses))  # may raise: a kernel that cannot be pickled
            msg = dict(run_id=run_id, spec=message, key=results[i], **extra[i])
            call = _start(client, w, msg) if op == "dgraph_start" else client.rpc(w).dgraph_drive(**msg)
            drives[asyncio.ensure_future(call)] = i
        pending = set(drives)
        while pending and (failed_at is None or time.monotonic() < failed_at + 5):
            # any reply may be an error the others wait on (a peer that never connects): look at once
            finished, pending = await asyncio.wait(pending, timeout=0.25, return_when=asyncio.FIRST_COMPLETED)
            for f in finished:
                w = worker_addrs[drives[f]]
                reply = f.exception() or f.result()
                _keep_spare(client, w, reply)
                if isinstance(reply, dict) and reply.get("status") == "OK":
                    done[drives[f]] = reply
                    continue
                if isinstance(reply, dict) and reply.get("status") == "moved":
                    moved = True
                elif not isinstance(reply, dict):
                    gone.add(w)
                    reply = {"message": f"run {run_id}: worker {w} left or failed: {reply!r}"}
                errors.append((DgraphInputError if reply.get("input") else DgraphRunError)(reply["message"]))
            if errors and failed_at is None:  # wake the others (a peer's channel may not tell them)
                failed_at = time.monotonic()
                await _tell(
                    client,
                    [w for w in worker_addrs if w not in gone],
                    run_id,
                    "dgraph_fail",
                    reason="another rank of this run failed",
                )
            now = time.monotonic()
            if pending and now - start >= after and now - last_report > PROGRESS_EVERY:
                last_report = now
                step = (
                    await asyncio.gather(
                        client.rpc(worker_addrs[0]).dgraph_progress(run_id=run_id), return_exceptions=True
                    )
                )[0]
                line.update(step.get("superstep") if isinstance(step, dict) else None, now - start)
    finally:
        for f in drives:
            f.cancel()
        if errors or len(done) < len(worker_addrs):
            await _tell(
                client, [w for w in worker_addrs if w not in gone], run_id, "dgraph_close"
            )  # drop the run everywhere
        # the workers that finished stored their results: the scheduler learns of them (and, when
        # the run failed, releases them again at once)
        futures = await _adopt(client, {results[i]: (worker_addrs[i], r["nbytes"]) for i, r in sorted(done.items())})
    if errors:
        for f in futures:
            f.release()
        if moved:  # the other errors follow from it (peers that waited for this one)
            return None
        raise _root_cause(errors)
    return None, [done[i]["outcome"] for i in range(len(worker_addrs))], futures


async def _start(client, worker, msg):
    """``dgraph_start`` on ``worker``; a worker the client cannot connect to answers "moved"
    (nothing started there: the run starts again the long way, whose open finds out why),
    while one lost after the message went out fails the run as a lost worker does."""
    try:
        comm = await asyncio.wait_for(client.rpc.connect(worker), OPEN_WITHIN)
    except (OSError, asyncio.TimeoutError) as exc:
        return {"status": "moved", "message": f"worker {worker} could not be reached: {exc!r}"}
    try:
        return await send_recv(comm, op="dgraph_start", reply=True, **msg)
    finally:
        client.rpc.reuse(worker, comm)


async def _adopt(client, stored):
    """Futures of results the workers stored themselves (key -> (worker, nbytes)), made as
    ``client.scatter`` makes them: no task, one call to the scheduler."""
    if not stored:
        return []
    await client.scheduler.update_data(
        who_has={k: [w] for k, (w, _) in stored.items()},
        nbytes={k: n for k, (_, n) in stored.items()},
        client=client.id,
    )
    futures = [Future(k, client) for k in stored]
    for f in futures:
        client.futures[f.key].finish()  # the scheduler's own report may come before or after: either is fine
    return futures


def _run_tasks(client, worker_addrs, specs, blocks, timeout, name, line):
    """Open the run through the scheduler and submit one driver task per worker."""
    run_id = uuid.uuid4().hex
    replies = _broadcast(
        client,
        worker_addrs,
        check=False,
        op="dgraph_open",
        run_id=run_id,
        secret=secrets.token_bytes(32),
        timeout=timeout,
    )
    opened = [w for w, r in replies.items() if isinstance(r, dict) and r.get("status") == "OK"]
    try:
        if len(opened) != len(worker_addrs):
            bad = {w: r for w, r in replies.items() if w not in opened}
            raise DgraphRunError(f"could not open run {run_id} on workers {bad}")
        addresses = [(replies[w]["host"], replies[w]["port"]) for w in worker_addrs]
        drivers = []
        for i, w in enumerate(worker_addrs):
            (params, finish), held = hold((specs[i].params, specs[i].finish))
            spec = specs[i]._replace(addresses=addresses, params=params, finish=finish)
            with dask.annotate(workers=[w], allow_other_workers=False):
                drivers.append(
                    dask.delayed(_drive, pure=False)(
                        run_id, spec, {f.key: f for f in held}, *blocks[i], dask_key_name=(f"dgraph-{name}-{run_id}", i)
                    )
                )
        futures = client.compute(drivers, optimize_graph=False)
        _watch(client, futures, worker_addrs, run_id, line)
        replies = _broadcast(client, opened, check=False, op="dgraph_close", run_id=run_id)
        opened = []
        lost = [w for w in worker_addrs if not (isinstance(replies.get(w), dict) and replies[w].get("outcome"))]
        if lost:
            raise DgraphRunError(
                f"run {run_id}: worker {lost[0]} did not report its outcome ({replies.get(lost[0])!r})"
            )
        return futures, [replies[w]["outcome"] for w in worker_addrs], "tasks"
    finally:
        if opened:  # the run failed: drop its state everywhere
            _broadcast(client, opened, op="dgraph_close", run_id=run_id)


def _driver_threads(client, worker_addrs):
    """Threads each driver's kernels may use: the worker threads of its host, shared among the
    run's drivers there (a graph on one rank of a two-worker machine gets both cores; one rank
    per worker keeps one each). Cores per host are asked of the scheduler once per client, and
    again when a driver's worker is new."""
    known = getattr(client, "_dgraph_cores", None)
    if known is None or not set(worker_addrs) <= known[0]:
        info = identity(client)["workers"]
        cores = Counter()
        for addr, w in info.items():
            cores[get_address_host(addr)] += int(w.get("nthreads", 1))
        client._dgraph_cores = known = (set(info), cores)
    hosts = [get_address_host(w) for w in worker_addrs]
    drivers = Counter(hosts)
    return [max(1, known[1][h] // drivers[h]) for h in hosts]


def resolve_domains(client, transport, spec, worker_of_rank, worker_addrs, weights):
    """The run's ``(Domains,)`` (or ``(None,)`` for a direct run without domains)."""
    from ..errors import DgraphInputError

    if transport not in TRANSPORTS:
        raise DgraphInputError(f"transport must be one of {TRANSPORTS}, got {transport!r}")
    if transport == "direct" and spec is None:
        return (None,)
    info = (
        client.scheduler_info(n_workers=-1)["workers"]
        if spec in ("job",) or isinstance(spec, dict) or callable(spec)
        else {}
    )
    return (Domains(rank_paths(spec, worker_of_rank, worker_addrs, info), weights),)


def _watch(client, futures, worker_addrs, run_id, line):
    """Wait for the drivers; on the first error or a lost worker, fail the run everywhere.
    A run that takes longer than ``progress_after()`` seconds shows its superstep on ``line``."""
    lost_reason = None
    start, after, last_report = time.monotonic(), progress_after(), -float("inf")
    while True:
        now = time.monotonic()
        if now - start >= after and now - last_report > PROGRESS_EVERY:
            last_report = now
            step = _broadcast(client, worker_addrs[:1], op="dgraph_progress", run_id=run_id)
            step = next(iter(step.values()), {})
            if isinstance(step, dict):
                line.update(step.get("superstep"), now - start)
        pending = [f for f in futures if f.status == "pending"]
        if pending:
            try:
                wait(pending, timeout=0.25)  # all done, or a quarter second to look for failures
            except TimeoutError:
                pass
        if all(f.status == "finished" for f in futures):
            return
        failed = [f for f in futures if f.status == "error"]
        if failed or lost_reason:
            break
        alive = set(workers(client))
        gone = [w for w in worker_addrs if w not in alive]
        if gone:
            lost_reason = f"worker {gone[0]} left the cluster"
            _broadcast(client, worker_addrs, op="dgraph_fail", run_id=run_id, reason=lost_reason)
    # let the other drivers report (they wake within milliseconds once channels close)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(f.status == "pending" for f in futures):
        _broadcast(client, worker_addrs, op="dgraph_fail", run_id=run_id, reason="another rank of this run failed")
        try:
            wait(futures, timeout=0.5)
        except TimeoutError:
            pass
    errors = [f.exception() for f in futures if f.status == "error"]
    for f in futures:
        f.cancel()
    if errors:
        raise _root_cause(errors)
    raise DgraphRunError(f"run {run_id}: {lost_reason}")
