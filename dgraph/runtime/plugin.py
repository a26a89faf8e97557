"""ExchangePlugin: the dgraph-exchange worker plugin.

The plugin only routes: control-plane handlers (open, drive, start = open and drive, fail,
close, progress, and a count of open runs) reach a ``Run`` object by its run id and secret
(``lookup``, which reads the label tables in the worker's memory, acts on no run), and the
``Run`` owns everything of that run on this worker: the listening socket, the peer
channels, the wake-up pipe that aborts a blocked driver, and which thread drives it. The plugin
itself keeps one spare listening socket, which the next started run takes. A run's state is
gone when the run closes or fails, or when a directly driven run's results are stored in the
worker's memory. A handler call naming a run this worker does not know, or with the wrong
secret, gets the same error *reply* (so run ids cannot be probed), never an exception through
the connection. Handlers take plain msgpack values; a run's spec reaches ``drive`` unpickled by
dask's own comm (``dask_internals.to_pickle``), never by the plugin.
"""

from __future__ import annotations

import asyncio
import ctypes
import hmac
import numbers
import secrets
import socket
import sys
import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from distributed import WorkerPlugin, get_worker, secede
from distributed.comm.addressing import get_address_host

from ..dask_internals import as_key, fetch_from_worker, store_on_worker
from ..errors import DgraphInputError, DgraphRunError
from ..labels import lookup
from .driver import DriverSpec, drive
from .params import resolve
from .ports import listening

PLUGIN_NAME = "dgraph-exchange"
ENDED_REMEMBERED = 256  # runs failed or closed before they opened here, refused if they come


class Run:
    """One run's state on one worker."""

    def __init__(self, run_id, secret, timeout, listener):
        self.run_id = run_id
        self.secret = secret
        self.timeout = timeout
        self.listener = listener
        self.port = self.listener.getsockname()[1]
        self.wake_r, self.wake_w = socket.socketpair()
        self.failure = None
        self.mesh = None
        self.driver = None  # the thread driving this run's ranks, while it runs
        self.outcome = None  # what the driver reports when its kernel returns (pickled stats)
        self.keys = []  # a directly driven run's blocks on this worker, in its ranks' order
        self.values = {}  # the values of the futures in its params (key -> value)
        self.lock = threading.Lock()
        self.closed = False

    def fail(self, reason):
        """Abort the run: every blocked driver wakes up and raises with ``reason``."""
        with self.lock:
            if self.failure is None:
                self.failure = reason
            if not self.closed:
                try:
                    self.wake_w.send(b"x")
                except OSError:
                    pass

    def close(self):
        with self.lock:
            if self.closed:
                return
            self.closed = True
            try:
                self.wake_w.send(b"x")
            except OSError:
                pass
        for s in (self.listener, self.wake_r, self.wake_w):
            try:
                s.close()
            except OSError:
                pass
        if self.mesh is not None:
            self.mesh.close()


# glibc's own ceilings for its adaptive thresholds on 64-bit machines (mallopt(3))
MMAP_THRESHOLD = 32 << 20
TRIM_THRESHOLD = 2 * MMAP_THRESHOLD


def tune_allocator():
    """Let glibc keep freed arrays for reuse in this process, as it does by itself in a plain
    Python process. Dask starts workers with ``MALLOC_TRIM_THRESHOLD_=65536``, which also fixes
    the mmap threshold at 128 KiB: every array above that is then a fresh mapping, and in a
    worker (many threads, so unmapping interrupts the other cores) allocating an array costs an
    order of magnitude more than reusing freed memory. Raising both thresholds to glibc's
    ceilings (32 / 64 MiB) keeps up to 64 MiB of freed memory per heap for reuse. A top pad of
    as much keeps whole heaps too: a driver thread allocates from an arena of its own, made of
    64 MiB heaps, and glibc unmaps a heap as soon as it is free, whatever the trim threshold,
    unless the pad exceeds the room in the heap before it. Otherwise a run can fault its larger
    arrays' pages in afresh: about 1,600 page faults per rank in a BFS of Kronecker 20, none
    with the pad. Returns whether it applied (glibc only)."""
    mallopt = _glibc("mallopt")
    if mallopt is None:
        return False
    M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD = -1, -2, -3
    return all(
        mallopt(option, value) == 1
        for option, value in (
            (M_MMAP_THRESHOLD, MMAP_THRESHOLD),
            (M_TRIM_THRESHOLD, TRIM_THRESHOLD),
            (M_TOP_PAD, TRIM_THRESHOLD),
        )
    )


def trim_allocator():
    """Give the memory glibc keeps for reuse back to the system (after a job that freed much,
    such as a graph's construction); False where there is no glibc."""
    malloc_trim = _glibc("malloc_trim")
    return malloc_trim is not None and malloc_trim(0) == 1


def _glibc(name):
    """glibc's allocator control ``name``, or None (not Linux, musl, no libc.so.6): then the
    allocator is left alone."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return getattr(ctypes.CDLL("libc.so.6"), name)
    except (OSError, AttributeError):
        return None


class ExchangePlugin(WorkerPlugin):
    """Registered once per client; holds the runs of this worker, no graph data.

    ``tune_malloc``: apply ``tune_allocator`` on every worker (the client's ``dgraph.tune-malloc``
    dask config value, true by default; false keeps dask's setting)."""

    name = PLUGIN_NAME
    idempotent = True

    def __init__(self, tune_malloc=True):
        self.tune_malloc = tune_malloc

    def setup(self, worker):
        self.worker = worker
        self.runs = {}
        self.malloc_tuned = self.tune_malloc and tune_allocator()
        self.drivers = None  # the threads drivers started by the drive handler run in (made on first use)
        self.fetched = {}  # values of the last direct run's param futures that live on other workers
        self.spare = None  # (token, socket): the listener the next started run takes, opened ahead
        # run id -> secret of runs the client failed or closed before their open reached this
        # worker (its messages travel on other connections): such a run must not start here
        self.ended = OrderedDict()
        worker.handlers["dgraph_open"] = self.open
        worker.handlers["dgraph_start"] = self.start
        worker.handlers["dgraph_drive"] = self.drive
        worker.handlers["dgraph_fail"] = self.fail
        worker.handlers["dgraph_close"] = self.close
        worker.handlers["dgraph_runs"] = self.list_runs
        worker.handlers["dgraph_progress"] = self.progress
        worker.handlers["dgraph_lookup"] = self.lookup

    def teardown(self, worker):
        for run in list(self.runs.values()):
            run.close()
        self.runs.clear()
        self.fetched = {}
        if self.spare is not None:
            self.spare[1].close()
            self.spare = None
        if self.drivers is not None:
            self.drivers.shutdown(wait=False)

    async def open(self, run_id=None, secret=None, timeout=None, keys=(), needs=(), listener=None):
        """Open a run: ``run_id`` (32 hex digits) and its ``secret`` (32 bytes), which every later
        call about the run must give. A run the client drives directly names the blocks this
        worker must hold (``keys``) and the futures its params need (``needs``: [key, a worker
        holding it] pairs): the reply is "moved" unless every block is here and every value was
        found. A run the client already failed or closed here (its open came after) is refused.
        The reply names this worker's spare listener (see ``start``)."""
        bad = _malformed(run_id, secret, timeout, keys, needs)
        if bad:
            return {"status": "error", "message": bad}
        if run_id in self.runs:
            return {"status": "error", "message": f"run {run_id} is already open"}
        moved = {"status": "moved", "message": f"a block of run {run_id} is not on worker {self.worker.address}"}
        keys = [as_key(k) for k in keys]
        if not all(k in self.worker.data for k in keys):
            return moved
        values = await self._values({as_key(k): h for k, h in needs})
        if values is None:
            return dict(moved, message=f"a param of run {run_id} is in no worker's memory")
        if run_id in self.ended and hmac.compare_digest(self.ended[run_id], secret):  # (checked after the awaits)
            return {"status": "error", "message": f"run {run_id} ended before it opened on {self.worker.address}"}
        host = get_address_host(self.worker.address)
        try:
            run = Run(run_id, secret, timeout, listener or listening(host, self.worker.address))
        except DgraphRunError as err:  # dgraph.channel-ports: no other way can start the run
            return {"status": "error", "message": str(err), "fatal": True}
        run.keys, run.values = keys, values
        self.runs[run_id] = run
        return {"status": "OK", "host": host, "port": run.port, "spare": self._spare()}

    async def start(
        self, *, run_id=None, secret=None, timeout=None, keys=None, needs=None, spare=None, spec=None, key=None
    ):
        """Open a run on the spare listener named ``spare`` (the client learnt its port from an
        earlier reply and gave it to the peers) and drive it, in one message. "moved" when that
        listener went to another run meanwhile, or as ``open`` says."""
        if self.spare is None or self.spare[0] != spare:
            return {
                "status": "moved",
                "message": f"worker {self.worker.address}'s spare listener {spare} was taken",
                "spare": self._spare(),
            }
        listener, self.spare = self.spare[1], None
        reply = await self.open(run_id, secret, timeout, keys, needs, listener)
        if reply["status"] != "OK":
            listener.close()
            return reply
        return await self.drive(run_id, secret, spec, key)

    def _spare(self):
        """``(port, token)`` of the listener the next started run takes (opened now if none), or
        None when ``dgraph.channel-ports`` has no port left for one (the next run opens first)."""
        if self.spare is None:
            try:
                host = get_address_host(self.worker.address)
                self.spare = (secrets.token_hex(8), listening(host, self.worker.address))
            except DgraphRunError:  # dgraph.channel-ports has no port left (or is wrong: open says so)
                return None
        return self.spare[1].getsockname()[1], self.spare[0]

    async def _values(self, needs):
        """The values of the futures a run's params need (key -> holder), from this worker's
        memory or fetched from the holder; None if one cannot be had. Fetched values are kept
        for the next run (a graph's runs keep passing the same ones), and only those. The holder
        the client remembered may have lost its copy since (the scheduler's memory manager drops
        extra replicas, not always the first): then the scheduler says where the key is now."""
        values = {}
        for key, holder in needs.items():
            if key in self.worker.data:
                values[key] = self.worker.data[key]
            elif key in self.fetched:
                values[key] = self.fetched[key]
            else:
                found = await self._fetch(key, [holder])
                if not found:
                    who = await self.worker.scheduler.who_has(keys=[key])
                    found = await self._fetch(key, [w for w in who.get(key) or () if w != holder])
                if not found:
                    return None
                values[key] = found[0]
        self.fetched = {k: v for k, v in values.items() if k not in self.worker.data}
        return values

    async def _fetch(self, key, holders):
        """``[value]`` of ``key`` from the first of ``holders`` that has it, or ``[]``."""
        for holder in holders:
            try:
                return [await fetch_from_worker(self.worker, key, holder)]
            except (OSError, KeyError):
                continue
        return []

    async def drive(self, run_id=None, secret=None, spec=None, key=None):
        """Drive this worker's ranks of an open run in a plugin thread (the worker's event loop and
        task threads stay free). What the kernel returned goes into the worker's memory under
        ``key``, as scattered data does (the client then tells the scheduler), and the run closes;
        the reply carries the outcome and its size, or the error's message."""
        run = self._run(run_id, secret)
        if run is None or run.closed:
            return {"status": "error", "message": str(self._gone(run_id))}
        if not isinstance(spec, DriverSpec):
            run.fail("the drive message carried no driver spec")
            return {"status": "error", "message": f"run {run_id}: the drive message carried no driver spec"}
        key = as_key(key)
        spec = spec._replace(params=resolve(spec.params, run.values), finish=resolve(spec.finish, run.values))
        try:
            blocks = [self.worker.data[k] for k in run.keys]
        except KeyError as exc:  # (the scheduler dropped this replica): the client starts again
            del self.runs[run_id]
            run.close()
            return {"status": "moved", "message": f"block {exc} of run {run_id} left worker {self.worker.address}"}
        if self.drivers is None:
            self.drivers = ThreadPoolExecutor(64, thread_name_prefix="dgraph-driver")
        try:
            results = await asyncio.get_running_loop().run_in_executor(
                self.drivers, drive, self.worker, run, spec, blocks
            )
        except DgraphRunError as err:  # named: the peers that went silent, so the client waits for none of them
            self.drop_failed(run_id, run)
            return {"status": "error", "message": str(err), "unreachable": getattr(err, "unreachable", [])}
        if run.closed:  # the client gave up on the run meanwhile: nobody would release the results
            return {"status": "error", "message": str(self._gone(run_id))}
        del self.runs[run_id]
        run.close()
        nbytes = store_on_worker(self.worker, key, results, f"dgraph-run-{run_id}")
        return {"status": "OK", "outcome": run.outcome, "nbytes": nbytes, "spare": self._spare()}

    async def lookup(self, keys=(), values=(), what="vertex", dtype=""):
        """Placed ids of the labels ``values`` through the label tables this worker holds under
        ``keys``: (the sorted labels' key, or None where labels are their own positions; the
        placed ids' table key, or None where positions are placed ids). A run's vertex param,
        looked up in one round trip instead of a task through the scheduler. "missing" (with the
        positions in ``keys`` of the absent) when a table is not in this worker's memory; an
        unknown label's error as a message. (Any peer may read a worker's data already, through
        dask's own ``get_data``.)"""
        tables = [None if k is None else as_key(k) for k in keys]
        data = self.worker.data
        missing = [i for i, k in enumerate(tables) if k is not None and k not in data]
        if missing:
            return {"status": "missing", "missing": missing}
        labels, table = (None if k is None else data[k] for k in tables)
        try:
            ids = lookup(labels, table, list(values), what, dtype)
        except DgraphInputError as err:
            return {"status": "error", "message": str(err)}
        return {"status": "OK", "values": np.asarray(ids, dtype=np.int64).tolist()}

    async def fail(self, run_id=None, secret=None, reason=None):
        run = self._run(run_id, secret)
        if run is None:
            self._ended_early(run_id, secret)
            return {"status": "error", "message": f"unknown run {run_id}"}
        run.fail(str(reason))
        return {"status": "OK"}

    async def close(self, run_id=None, secret=None):
        """Drop the run; the reply carries the driver's outcome (pickled stats) when it finished."""
        run = self._run(run_id, secret)
        if run is None:
            self._ended_early(run_id, secret)
            return {"status": "error", "message": f"unknown run {run_id}"}
        del self.runs[run_id]
        run.close()
        return {"status": "OK", "outcome": run.outcome}

    async def list_runs(self):
        """How many runs are open here and how many drivers still run (never which: a run's id
        is for its client)."""
        drivers = sum(1 for r in self.runs.values() if r.driver is not None and r.driver.is_alive())
        return {"runs": len(self.runs), "drivers": drivers}

    async def progress(self, run_id=None, secret=None):
        run = self._run(run_id, secret)
        ctx = getattr(run, "ctx", None)
        return {"superstep": ctx.stats.supersteps if ctx is not None else 0}

    def drop_failed(self, run_id, run):
        """Drop ``run``, which failed here, at once: the client's close may never come (a cut
        link). On the event loop."""
        if self.runs.get(run_id) is run:
            del self.runs[run_id]
            self._ended_early(run_id, run.secret)
        run.close()

    def _ended_early(self, run_id, secret):
        """Remember a run failed or closed before it opened here (a well-formed id and secret of
        a run this worker does not hold), so its open, if still on its way, is refused."""
        if _bad_run(run_id, secret) or run_id in self.runs:
            return
        self.ended[run_id] = secret
        while len(self.ended) > ENDED_REMEMBERED:
            self.ended.popitem(last=False)

    def _run(self, run_id, secret):
        """The open run ``run_id`` if ``secret`` is its secret, else None (either way the same)."""
        run = self.runs.get(run_id) if isinstance(run_id, str) else None
        if run is None or not isinstance(secret, bytes) or not hmac.compare_digest(run.secret, secret):
            return None
        return run

    def get_run(self, run_id):
        run = self.runs.get(run_id)
        if run is None or run.closed:
            raise self._gone(run_id)
        return run

    def _gone(self, run_id):
        return DgraphRunError(
            f"run {run_id} is not open on worker {self.worker.address}: it ended, failed, or this is a "
            "recomputation of a finished run's task; call the algorithm again"
        )


def _bad_run(run_id, secret):
    """What is wrong with a run id and secret as plain values, or None."""
    if not (isinstance(run_id, str) and len(run_id) == 32 and all(c in "0123456789abcdef" for c in run_id)):
        return "a run id is 32 hex digits"
    if not (isinstance(secret, bytes) and len(secret) == 32):
        return "a run's secret is 32 bytes"
    return None


def _malformed(run_id, secret, timeout, keys, needs):
    """What is wrong with an open's plain values, or None."""
    bad = _bad_run(run_id, secret)
    if bad:
        return bad
    if isinstance(timeout, bool) or not isinstance(timeout, numbers.Real) or not timeout > 0:
        return "a run's timeout is a positive number of seconds"
    if not isinstance(keys, (list, tuple)) or not isinstance(needs, (list, tuple)):
        return "keys and needs are lists"
    if not all(isinstance(p, (list, tuple)) and len(p) == 2 and isinstance(p[1], str) for p in needs):
        return "needs are [key, worker address] pairs"
    return None


def drive_task(run_id, spec, values, *blocks):
    """The driver task (when the client dispatches through the scheduler). ``values``: the
    futures the spec's held params and finish stand for, key -> value (dask puts their values
    in a dict, not inside a NamedTuple)."""
    worker = get_worker()
    # Leave the worker's thread pool: the run may block for long, and the worker must stay
    # free to run other tasks (even with one thread) while its ranks exchange.
    secede()
    spec = spec._replace(params=resolve(spec.params, values), finish=resolve(spec.finish, values))
    plugin = worker.plugins[PLUGIN_NAME]
    run = plugin.get_run(run_id)
    try:
        return drive(worker, run, spec, blocks)
    except DgraphRunError:
        worker.loop.add_callback(plugin.drop_failed, run_id, run)
        raise
