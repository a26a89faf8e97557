"""The driver: what runs on a worker for one run, and the rank context its kernels see.

``drive`` connects the run's peer channels (data plane), builds the transport, and calls
``kernel(ctx, **params)`` for all of the worker's ranks; what the kernel returns (or what the
run's finish makes of it) is the worker's result, and its counters are the run's outcome. Any
error closes the worker's channels, so every peer blocked on it wakes at once, and is raised as
a ``DgraphRunError`` naming the rank, worker and superstep.
"""

from __future__ import annotations

import pickle
import threading
from typing import NamedTuple

import numpy as np
import pandas as pd
from dask.sizeof import sizeof
from distributed.comm.addressing import get_address_host

from .. import kernels
from ..errors import DgraphRunError
from .channels import PEER_TIMEOUT, PeerLost, RunAborted, connect_mesh
from .exchange import DirectTransport
from .grouped import GroupedTransport
from .metrics import RunStats
from .pipelined import PipelinedTransport

TRANSPORTS = ("direct", "grouped", "pipelined")


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

    def hold(self, name, *arrays):
        """Count per-vertex arrays (or ``{rank: array}`` dicts of them) a kernel holds under
        ``name`` in the run's peak vertex-state bytes (``RunStats.worker_vertex_state``)."""
        total = sum(sum(a.nbytes for a in x.values()) if isinstance(x, dict) else x.nbytes for x in arrays)
        self.stats.hold_vertex_state(name, total)

    @property
    def worker(self):
        """(this worker's index, the number of workers in the run): for work split by process."""
        return self.transport.me, max(self.transport.worker_of_rank) + 1


def describe(ranks):
    ranks = list(ranks)
    if len(ranks) == 1:
        return f"rank {ranks[0]}"
    if ranks == list(range(ranks[0], ranks[-1] + 1)):
        return f"ranks {ranks[0]}..{ranks[-1]}"
    return f"ranks {ranks}"


class Route(NamedTuple):
    """How a run's exchanges travel: the transport's name (one of ``TRANSPORTS``), the run's
    ``Domains`` (or None), the grouped transport's flush threshold and the pipelined
    transport's block size (None: its model's choice)."""

    transport: str
    domains: object
    flush_bytes: int
    block_bytes: int | None


def _transport(route, mesh, worker_of_rank, index, ranks, stats):
    domains = route.domains
    if domains is not None:
        stats.domain_of, stats.monitors = domains.level[0], domains.monitor[0]
    if route.transport == "grouped":
        return GroupedTransport(mesh, worker_of_rank, index, ranks, stats, domains, flush_bytes=route.flush_bytes)
    if route.transport == "pipelined":
        return PipelinedTransport(mesh, worker_of_rank, index, ranks, stats, route.block_bytes)
    return DirectTransport(mesh, worker_of_rank, index, ranks, stats)


class DriverSpec(NamedTuple):
    """What one worker's driver is told."""

    index: int  # type: ignore[assignment]  # the worker's place among the run's workers
    addresses: list  # every worker's (host, port) for the peer channels
    worker_addrs: list
    worker_of_rank: list
    ranks: list  # the ranks this worker drives
    kernel: object
    params: dict
    engine: str
    threads: int
    route: Route
    finish: tuple | None = None  # (fn, *args): the worker keeps fn(ctx, {rank: result}, {rank: finish blocks}, *args)
    finish_blocks: int = 0  # how many of each rank's blocks (the last) are for finish, not the kernel
    peer_timeout: float = PEER_TIMEOUT  # seconds a peer may leave what it is sent unacknowledged (dgraph.peer-timeout)


def drive(worker, run, spec, blocks):
    """Run this worker's ranks of ``run``: connect the peer channels, call the kernel, and leave
    the outcome (stats) on ``run``. Returns ``{rank: result}`` (through the spec's finish, if
    any); raises ``DgraphRunError``."""
    index, addresses, worker_addrs, worker_of_rank, ranks, kernel, params, engine, threads, route, finish = spec[:11]
    extra = spec.finish_blocks
    rank_map = {
        r: [int(x) for x in np.flatnonzero(np.asarray(worker_of_rank) == w)] for w, r in enumerate(worker_addrs)
    }
    stats = RunStats(len(worker_of_rank))
    me = f"{describe(ranks)} on worker {worker.address}"
    run.driver = threading.current_thread()
    try:
        with stats.phase("connect"):
            run_id, tls = bytes.fromhex(run.run_id), channel_tls(worker)
            mesh = connect_mesh(
                index,
                addresses,
                run.listener,
                run_id,
                run.secret,
                run.wake_r,
                timeout=run.timeout,
                peer_timeout=spec.peer_timeout,
                tls=tls,
            )
            if tls is not None and len(addresses) > 1:
                stats.info["channels"] = "tls"
        run.mesh = mesh
        transport = _transport(route, mesh, worker_of_rank, index, ranks, stats)
        k = len(blocks) // max(len(ranks), 1)
        per_rank = {r: tuple(blocks[i * k : (i + 1) * k - extra]) for i, r in enumerate(ranks)}
        for_finish = {r: tuple(blocks[(i + 1) * k - extra : (i + 1) * k]) for i, r in enumerate(ranks)}
        ctx = RankContext(len(worker_of_rank), ranks, per_rank, transport, stats)
        run.ctx = ctx
        with stats.phase("kernel"), kernels.using(engine, threads), kernels.device_transfers(stats.info):
            stats.threads = kernels.threads()
            results = kernel(ctx, **params)
        kept = results
        if finish is not None:
            with stats.phase("finish"):
                kept = finish[0](ctx, results, for_finish, *finish[1:])
        run.outcome = outcome(results, stats, kept)  # the client reads it from the close (or drive) reply
        return kept
    except PeerLost as exc:
        peer = worker_addrs[exc.peer]
        where = f"{me} lost peer worker {peer} ({describe(rank_map[peer])}) at superstep {stats.supersteps}"
        if exc.silent:
            err = DgraphRunError(
                f"{where}: host {get_address_host(peer)} is unreachable (nothing acknowledged within "
                f"{spec.peer_timeout:g} s, dgraph.peer-timeout: {exc})"
            )
            err.unreachable = [peer]
        else:
            err = DgraphRunError(f"{where}: {exc}")
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


def channel_tls(worker):
    """(client context, server context) for a run's peer channels when the cluster's comms use
    TLS (the worker's dask ``Security``), else None."""
    if not str(worker.address).startswith("tls://"):
        return None
    security = worker.security
    return security.get_connection_args("worker")["ssl_context"], security.get_listen_args("worker")["ssl_context"]


INLINE_BYTES = 1 << 20  # a worker's result frame this small also rides back in the reply


def outcome(results, stats, kept=None):
    """The worker's stats, the dtypes of one rank's result (so the client can describe the
    results without fetching one) and, when what the worker keeps is a frame of at most
    ``INLINE_BYTES``, a copy of it (computing the result then fetches nothing: on small graphs
    the fetch is a third of a call), pickled for the close reply."""
    first = next(iter(results.values()), None) if isinstance(results, dict) else None
    arrays = isinstance(first, dict) and all(isinstance(v, np.ndarray) and v.ndim == 1 for v in first.values())
    dtypes = {k: v.dtype for k, v in first.items()} if arrays else None
    small = kept if isinstance(kept, pd.DataFrame) and sizeof(kept) <= INLINE_BYTES else None
    return pickle.dumps((stats, dtypes, small), protocol=5)  # protocol 5: a frame's arrays copied whole
