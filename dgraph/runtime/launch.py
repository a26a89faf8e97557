"""Launching a run: where each rank runs, what each worker's driver is told, and what the
client keeps between runs.

``launch`` plans the run (the worker holding each rank's first block drives that rank; workers
come in the order of their first ranks, so worker i holds partition i of a result frame), hands
it to ``dispatch`` (direct, or through driver tasks), and returns the results held where they
were computed (``RankResults``) and the merged ``RunStats``. What a client remembers between
runs (the plugin registered, where blocks are, the workers' spare listeners, whether workers are
in its reach, cores per host) lives in one ``ClientState`` per client, which also makes run ids.
"""

from __future__ import annotations

import asyncio
import atexit
import pickle
import secrets
import threading
import time
import uuid
import weakref

import dask
import numpy as np
from distributed import Future

from .. import kernels
from ..cluster import holders, host_threads, shared_threads, workers
from ..dask_internals import wait_for
from ..errors import DgraphInputError, DgraphRunError
from ..progress import Progress
from .channels import PEER_TIMEOUT
from .dispatch import OPEN_WITHIN, PlannedRun, run_direct, run_tasks
from .domains import Domains, rank_paths
from .driver import TRANSPORTS, DriverSpec, Route
from .grouped import DEFAULT_FLUSH_BYTES
from .metrics import RunStats
from .params import hold
from .plugin import PLUGIN_NAME, ExchangePlugin
from .reach import leave_out, remember

HOLDERS_REMEMBERED = 256  # block placements a client remembers (one per graph and block list)


class ClientState:
    """What one client remembers between runs; made on first use, dropped with the client."""

    def __init__(self):
        self.lock = threading.Lock()
        self.plugin = False  # the dgraph-exchange plugin is registered on the cluster
        self.holders = {}  # block keys -> the workers holding them (blocks rarely move)
        self.spares = {}  # worker -> (port, token) of its listener ready for the next run
        self.direct = True  # false once live workers were out of this client's reach
        self.cores = None  # (known workers, Counter of threads per host)
        self.unreachable = {}  # worker -> when a run found it out of reach (``reach``)

    @staticmethod
    def new_run():
        """A fresh run id (hex, 16 bytes: its bytes name the run on the peer channels) and secret."""
        return uuid.uuid4().hex, secrets.token_bytes(32)

    def take_spares(self, worker_addrs):
        """The spare listeners (worker -> (port, token)) the client was last told of, one per
        worker of the run, taken so no other run of this client uses them; None unless every
        worker has one."""
        with self.lock:
            if not all(w in self.spares for w in worker_addrs):
                return None
            return {w: self.spares.pop(w) for w in worker_addrs}

    def forget_departed(self, listed):
        """Drop the spare listeners of workers not in ``listed``: one that left the cluster (a
        nanny restarts a killed worker at a new address) took its listener with it."""
        with self.lock:
            for worker in [w for w in self.spares if w not in listed]:
                del self.spares[worker]

    def keep_spare(self, worker, reply):
        if isinstance(reply, dict) and reply.get("spare"):
            with self.lock:
                self.spares[worker] = tuple(reply["spare"])


_states: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_states_lock = threading.Lock()
_exit_hooked = False


def client_state(client):
    """The ``ClientState`` of ``client``."""
    global _exit_hooked
    with _states_lock:
        if not _exit_hooked:
            # registered once a client exists, so it runs before what distributed registered for
            # it, and before the interpreter stops thread pools (an in-process scheduler still
            # needs them to take the client's last messages)
            getattr(threading, "_register_atexit", atexit.register)(_close_at_exit)
            _exit_hooked = True
        state = _states.get(client)
        if state is None:
            state = _states[client] = ClientState()
        return state


def _close_at_exit():
    """Close the clients dgraph ran on while the interpreter exits, before their clusters stop:
    a run's results are data the workers hold for the client (as scattered data is), and a
    cluster that stops under a client still holding them logs that it lost them."""
    for client in list(_states):
        if client.status not in ("closing", "closed"):
            try:
                client.close(timeout=5)
            except Exception:  # exiting anyway: nothing more to release
                pass


def ensure_plugin(client):
    state = client_state(client)
    with state.lock:
        if not state.plugin:
            tune = bool(dask.config.get("dgraph.tune-malloc", True))
            client.register_plugin(ExchangePlugin(tune), name=PLUGIN_NAME)
            state.plugin = True


def launch(
    client,
    blocks,
    kernel,
    params,
    *,
    timeout=600.0,
    name="run",
    transport="direct",
    domains=None,
    weights=None,
    flush_bytes=None,
    finish=None,
    finish_blocks=None,
):
    """Run ``kernel`` SPMD over ranks; ``blocks[r]`` is the list of rank r's block futures
    (the same number for every rank; the kernel sees them as the tuple ``ctx.blocks[r]``).
    Rank r runs on the worker holding ``blocks[r][0]``.

    ``transport``: "direct", "grouped" (TuCOMM aggregation through domain monitors) or
    "pipelined" (exchanges cut into blocks that move while earlier ones merge);
    ``domains``: a ``dgraph.runtime.domains`` spec (the run's stats then split traffic by domain
    crossing, whatever the transport); ``weights``: per-rank monitor preference (the heaviest
    vertex a rank holds); ``flush_bytes``: the grouped transport's buffer threshold (default: the
    ``dgraph.flush-bytes`` dask config value, 4 MiB; the pipelined transport's block size is the
    ``dgraph.pipeline-block-bytes`` value when set, else its model's choice); ``finish``:
    ``(fn, *args)``, each worker keeps ``fn(ctx, {rank: result}, {rank: finish blocks}, *args)``
    instead of what its kernel returned (futures in ``args`` are passed as their values, as in
    ``params``; ``ctx`` still exchanges); ``finish_blocks[r]``: futures only rank r's finish
    reads (a tuple of their values; held with its blocks, so kept where rank r runs).

    Dispatch: the client tells each worker directly to open the run and drive its ranks (plugin
    handlers: one round trip, none through the scheduler, whose batched streams add their
    batching delay each way); each keeps what its kernel returned in its memory, and the client tells the
    scheduler (one call, as ``client.scatter`` does) and holds the futures. When a worker
    is out of the client's reach, or a block is not where it was, the run goes as one driver task
    per worker instead; ``dask.config.set({"dgraph.dispatch": "tasks"})`` always does.

    Returns ``(results, stats)``: the ``RankResults`` (what the kernel returned for each rank,
    held where it ran; the workers come in the order of their first ranks, worker i's future
    under the key ``(run name, i)``) and the merged ``RunStats``.
    """
    ensure_plugin(client)
    state = client_state(client)
    peer_timeout = peer_timeout_setting()
    skipped = leave_out(client, state, peer_timeout)
    extra = len(finish_blocks[0]) if finish_blocks else 0
    if extra:
        blocks = [list(b) + list(f) for b, f in zip(blocks, finish_blocks)]
    _ready([f for b in blocks for f in b])
    (held_params, held_finish), param_futures = hold((params, finish))
    _ready(param_futures, raise_errors=True)  # a param's own error (an unknown vertex) is the call's
    flush_bytes = int(flush_bytes or dask.config.get("dgraph.flush-bytes", DEFAULT_FLUSH_BYTES))

    def plan(fresh=False):
        """Where each rank runs, and what each worker's driver is told."""
        holders = _holders(client, state, [b[0] for b in blocks], fresh)
        worker_addrs = list(dict.fromkeys(holders))  # in rank order: worker i holds partition i of a result frame
        worker_of_rank = [worker_addrs.index(h) for h in holders]
        route = Route(
            transport,
            *resolve_domains(client, transport, domains, worker_of_rank, worker_addrs, weights),
            flush_bytes,
            dask.config.get("dgraph.pipeline-block-bytes", None),
        )
        threads = _driver_threads(client, state, worker_addrs)
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
                extra,
                peer_timeout,
            )
            for i in range(len(worker_addrs))
        ]
        return worker_addrs, driven, specs, [[f for r in ranks for f in blocks[r]] for ranks in driven]

    started, line = time.monotonic(), Progress(name)
    worker_addrs, driven, specs, held = plan()
    run = None
    try:
        if dask.config.get("dgraph.dispatch", "auto") != "tasks" and state.direct:
            # the workers find the values of the params' futures themselves
            needs = dict(zip([f.key for f in param_futures], _holders(client, state, param_futures)))
            specs = [spec._replace(params=held_params, finish=held_finish) for spec in specs]
            keys = [[f.key for f in h] for h in held]
            run = run_direct(client, state, PlannedRun(worker_addrs, specs, timeout, name, line), keys, needs)
        if run is None:
            worker_addrs, driven, specs, held = plan(fresh=True)  # the holders remembered may be stale
            run = run_tasks(client, state, PlannedRun(worker_addrs, specs, timeout, name, line), held)
    except DgraphRunError as err:  # the next call knocks on the workers it could not reach
        remember(state, client, getattr(err, "unreachable", ()))
        _forget_departed(client, state)
        raise
    futures, outcomes, dispatch = run
    outcomes = [pickle.loads(o) for o in outcomes]
    stats = RunStats.merge([s for s, _, _ in outcomes])
    stats.result_dtypes = next((d for _, d, _ in outcomes if d is not None), None)
    copies = [c for _, _, c in outcomes]
    stats.dispatch = dispatch
    stats.skipped = skipped
    stats.worker_vertex_state = dict(zip(worker_addrs, stats.worker_vertex_state))
    stats.worker_phases = dict(zip(worker_addrs, stats.worker_phases))
    line.close(stats.supersteps, time.monotonic() - started)
    return RankResults(client, futures, driven, copies if all(c is not None for c in copies) else None), stats


def skip_unreachable(client):
    """Before a call touches the cluster: remove from the scheduler the workers a failed run
    of ``client`` could not reach and that still do not answer (``reach.leave_out``), so dask
    rebuilds what they held on the workers that answer. Returns the workers left out, sorted."""
    return leave_out(client, client_state(client), peer_timeout_setting())


def peer_timeout_setting():
    """The ``dgraph.peer-timeout`` dask config value: seconds a run's peers (and the client's
    calls to its workers) may leave what they are sent unacknowledged before the run ends with a
    ``DgraphRunError`` naming the unreachable host."""
    value = dask.config.get("dgraph.peer-timeout", PEER_TIMEOUT)
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        seconds = 0.0
    if not seconds > 0:
        raise DgraphInputError(f"dgraph.peer-timeout must be a positive number of seconds, got {value!r}")
    return seconds


def _ready(futures, raise_errors=False):
    """Wait for ``futures`` unless the client already knows them finished (no round trip then);
    with ``raise_errors``, raise the error of the first that failed."""
    if any(f.status != "finished" for f in futures):
        wait_for(futures)
    for f in futures if raise_errors else ():
        if f.status == "error":
            f.result()


def _holders(client, state, firsts, fresh=False):
    """The worker holding each of ``firsts``, remembered per client (blocks rarely move; a run
    finding one moved asks again)."""
    known = state.holders
    key = tuple(f.key for f in firsts)
    if fresh or key not in known:
        where = holders(client, firsts)
        if len(known) >= HOLDERS_REMEMBERED:
            known.clear()
        known[key] = where
    return known[key]


def remember_holders(client, futures, where):
    """Remember that ``where[i]`` holds ``futures[i]``: blocks just placed where the client asked
    (their tasks pinned there, loosely), so their first run and first facts ask no one. A block
    that ran elsewhere all the same is found by that run, which asks again."""
    state = client_state(client)
    with state.lock:
        if len(state.holders) >= HOLDERS_REMEMBERED:
            state.holders.clear()
        state.holders[tuple(f.key for f in futures)] = list(where)


def where_held(client, futures, fresh=False):
    """The worker holding each of ``futures``, as this client last learnt it (``_holders``)."""
    return _holders(client, client_state(client), futures, fresh)


def lookup_held(client, sorted_labels, table, values, what, dtype):
    """``labels.lookup`` of ``values`` (placed ids of user labels) asked directly of the workers
    holding the label tables (futures; either may be None) through their ``lookup`` handler, no
    task: one round trip where one worker holds both tables, else one to each (labels to
    positions, positions to placed ids). A table that moved since its holder was remembered is
    looked for once more. None when that cannot be done: a table not finished, not a future or
    out of reach, a label msgpack cannot carry, or the client not reaching workers directly. An
    unknown label raises ``DgraphInputError``. A run's vertex param costs a scheduler round trip
    and a task otherwise."""
    state = client_state(client)
    futures = [f for f in (sorted_labels, table) if f is not None]
    if not futures or not state.direct or not all(isinstance(f, Future) and f.status == "finished" for f in futures):
        return None
    values = [v.item() if isinstance(v, np.generic) else v for v in values]
    if not all(isinstance(v, (int, str)) and not isinstance(v, bool) for v in values):
        return None
    keys = [None if f is None else f.key for f in (sorted_labels, table)]
    for fresh in (False, True):
        holders = _holders(client, state, futures, fresh=fresh)
        if len(set(holders)) == 1:
            steps = [(holders[0], keys)]
        else:  # both tables are futures here, on two workers
            steps = [(holders[0], [keys[0], None]), (holders[1], [None, keys[1]])]
        ids = values
        for worker, step in steps:
            try:
                reply = client.sync(_lookup, client, worker, step, ids, what, str(dtype))
            except (OSError, asyncio.TimeoutError):
                reply = None
            if isinstance(reply, dict) and reply.get("status") == "error":
                raise DgraphInputError(reply["message"])
            if not isinstance(reply, dict) or reply.get("status") != "OK":
                break  # moved, or out of reach
            ids = reply["values"]
        else:
            return np.asarray(ids, dtype=np.int64)
        if reply is None:
            break
    state.holders.pop(tuple(f.key for f in futures), None)
    return None


async def _lookup(client, worker, keys, values, what, dtype):
    call = client.rpc(worker).dgraph_lookup(keys=keys, values=values, what=what, dtype=dtype)
    return await asyncio.wait_for(call, OPEN_WITHIN)


def _forget_departed(client, state):
    """After a failed run: forget the spare listeners of workers that left (a killed one's)."""
    try:
        listed = set(workers(client))
    except Exception:  # noqa: BLE001 (the run's own error is the one to raise)
        return
    state.forget_departed(listed)


def _driver_threads(client, state, worker_addrs):
    """Threads each driver's kernels may use (``shared_threads``). Cores per host are asked of
    the scheduler once per client, and again when a driver's worker is new (then the spare
    listeners of workers that left are forgotten)."""
    if state.cores is None or not set(worker_addrs) <= state.cores[0]:
        state.cores = host_threads(client)
        state.forget_departed(state.cores[0])
    return shared_threads(state.cores[1], worker_addrs)


def resolve_domains(client, transport, spec, worker_of_rank, worker_addrs, weights):
    """The run's ``(Domains,)`` (or ``(None,)`` for a direct run without domains)."""
    if transport not in TRANSPORTS:
        raise DgraphInputError(f"transport must be one of {TRANSPORTS}, got {transport!r}")
    if transport == "direct" and spec is None:
        return (None,)
    by_job = spec in ("job",) or isinstance(spec, dict) or callable(spec)
    info = client.scheduler_info(n_workers=-1)["workers"] if by_job else {}
    return (Domains(rank_paths(spec, worker_of_rank, worker_addrs, info), weights),)


class RankResults:
    """What a run's kernel returned for each rank, left where it was computed: one future per
    worker holding ``{rank: result}`` for the ranks that worker drove (``ranks[i]`` for
    ``futures[i]``). Nothing is split per rank unless asked (``per_rank``): a task per rank costs
    a scheduler round trip, most of a short run's time when workers hold many ranks."""

    def __init__(self, client, futures, ranks, copies=None):
        self.client, self.futures, self.ranks = client, list(futures), [list(r) for r in ranks]
        self.copies = copies  # of every future's value, where all came back with the run (small frames)

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
