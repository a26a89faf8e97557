"""The dask client dgraph runs on: the active one, or a local cluster started once."""

from __future__ import annotations

import os
import sys
import threading
import time
from collections import Counter

from .dask_internals import wait_for
from .errors import DgraphError, DgraphInputError, DgraphRunError

_lock = threading.Lock()
_own = None


def get_client():
    """The active ``distributed.Client``; without one, start a LocalCluster sized to the machine.

    The cluster dgraph starts has one single-threaded worker process per core (the BSP runtime
    drives all of a worker's ranks from one thread), listens on 127.0.0.1 only (its HTTP server on
    a free port) and is announced once on stderr.
    """
    global _own
    from distributed import Client, LocalCluster, default_client

    try:
        return default_client()
    except ValueError:
        pass
    with _lock:
        if _own is None or _own.status == "closed":
            n = max(1, min(os.cpu_count() or 1, 8))
            cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0")
            _own = Client(cluster, set_as_default=True)
            print(
                f"dgraph: no dask client was active; started a local cluster with {n} workers ({_dashboard(_own)})",
                file=sys.stderr,
            )
        return _own


def _dashboard(client):
    """Where the cluster's dashboard is, when one is served: dask serves it only with bokeh
    installed (``pip install bokeh``), and its address answers 404 without."""
    import importlib.util

    if importlib.util.find_spec("bokeh") is None or not client.dashboard_link:
        return "no dashboard: pip install bokeh for one"
    return f"dashboard at {client.dashboard_link}"


def workers(client):
    """Addresses of all workers, asked of the scheduler now."""
    return sorted(identity(client)["workers"])


def holders(client, futures, within=60.0):
    """The worker holding each of ``futures`` (the first, when several do). A future lost with a
    worker is in no worker's memory until dask has computed it again, and the client may not have
    heard of the loss yet, so this waits for every one to be held again; ``DgraphRunError`` after
    ``within`` seconds, or at once for a future dask cannot compute again (failed or cancelled)."""
    deadline = time.monotonic() + within
    who = client.who_has(futures)
    while not all(who.get(f.key) for f in futures):
        gone = [f.key for f in futures if not who.get(f.key) and f.status in ("error", "cancelled")]
        if gone or time.monotonic() > deadline:
            raise DgraphRunError(
                f"blocks {gone or [f.key for f in futures if not who.get(f.key)]} are in no worker's memory"
            )
        time.sleep(0.05)
        wait_for(futures)
        who = client.who_has(futures)
    return [who[f.key][0] for f in futures]


def tasks_of(client, values):
    """A future of each of ``values`` (small tables a graph reads for as long as it lives), each
    under a key of its own and made by a task that carries it: dask makes it again when the
    worker holding it is lost, where scattered data would be lost with it. Returns once they are
    in workers' memory, as ``Client.scatter`` does."""
    futures = [client.submit(_value, v, pure=False) for v in values]
    wait_for(futures)
    return futures


def _value(value):
    return value


def identity(client):
    """The scheduler's description of itself and of every worker, asked now.

    (``Client.scheduler_info()`` returns a cached copy that a periodic refresh may replace by one
    listing no workers at all, so it cannot tell whether a worker is gone.)"""
    return client.sync(_identity, client)


def host_threads(client):
    """(the workers' addresses, a Counter of worker threads per host), asked of the scheduler now."""
    from distributed.comm import get_address_host

    info = identity(client)["workers"]
    cores = Counter()
    for addr, w in info.items():
        cores[get_address_host(addr)] += int(w.get("nthreads", 1))
    return set(info), cores


def shared_threads(cores, addresses):
    """Threads for each of ``addresses`` (the worker of each job that runs at the same time as
    the others): its host's worker threads (``cores``, from ``host_threads``) shared among the
    jobs there. A graph on one rank of a two-worker machine gets both cores; one rank per
    worker keeps one each."""
    from distributed.comm import get_address_host

    hosts = [get_address_host(a) for a in addresses]
    jobs = Counter(hosts)
    return [max(1, cores[h] // jobs[h]) for h in hosts]


async def _identity(client):
    try:
        return await client.scheduler.identity(n_workers=-1)
    except TypeError:  # schedulers before n_workers= existed list every worker
        return await client.scheduler.identity()


async def live_workers(client):
    """``workers(client)`` on the client's event loop."""
    return sorted((await _identity(client))["workers"])


class MissingExtra(DgraphInputError, ImportError):
    """An optional dependency is not installed; the message names the extra that installs it."""


def _require(module, extra, what):
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        fix = f"pip install '.[{extra}]' in a checkout of dgraph"
        raise MissingExtra(f"{what} needs the {extra!r} extra: {fix}") from exc


def gpu_cluster(**kwargs):
    """A dask-cuda ``LocalCUDACluster``: one single-threaded worker per visible GPU, listening on
    127.0.0.1 unless told otherwise. Run with ``dgraph.kernels.set_engine("cuda")`` so the
    workers' kernels run on their devices (``dgraph run --gpu`` does both). Keyword arguments
    go to ``LocalCUDACluster`` (``CUDA_VISIBLE_DEVICES``, ``rmm_pool_size``, ...). Needs the
    ``gpu`` extra and a CUDA GPU; says which is missing.

    >>> from distributed import Client
    >>> from dgraph import kernels
    >>> from dgraph.cluster import gpu_cluster
    >>> client = Client(gpu_cluster())  # doctest: +SKIP
    >>> kernels.set_engine("cuda")  # doctest: +SKIP
    """
    dask_cuda = _require("dask_cuda", "gpu", "a GPU cluster")
    from numba import cuda

    if not cuda.is_available():
        raise DgraphError(
            "a GPU cluster needs a CUDA GPU and its driver, and numba finds none on this machine; "
            "run on a GPU node, or use the CPU engines on a LocalCluster"
        )
    kwargs.setdefault("threads_per_worker", 1)  # the BSP runtime drives a worker's ranks from one thread
    kwargs.setdefault("host", "127.0.0.1")
    kwargs.setdefault("dashboard_address", "127.0.0.1:0")
    return dask_cuda.LocalCUDACluster(**kwargs)


SCHEDULERS = {"slurm": "SLURMCluster", "pbs": "PBSCluster", "lsf": "LSFCluster", "sge": "SGECluster"}


def hpc_cluster(system="slurm", cores=16, memory="64GB", walltime="01:00:00", interface=None, security=None, **kwargs):
    """A dask-jobqueue cluster shaped for dgraph: each job is one node running ``cores`` worker
    processes of one thread each (the BSP runtime drives a worker's ranks from one thread, so
    processes, not threads, use the cores). Jobs start when you ``scale(jobs=N)``.

    Worker names are ``<cluster>-<job>-<process>``, so ``domains="job"`` makes every node a
    communication domain for the grouped transport. ``interface`` names the network interface
    workers (and so dgraph's channels) bind to, e.g. ``"ib0"`` for InfiniBand. Other keyword
    arguments go to the dask-jobqueue class (``queue``, ``account``, ``job_extra_directives``...).
    ``security``: a ``distributed.security.Security`` for TLS between the scheduler, the workers
    and dgraph's peer channels (its files must be readable on the nodes). Needs the ``hpc`` extra.

    >>> from dgraph.cluster import hpc_cluster
    >>> cluster = hpc_cluster("slurm", cores=8, memory="32GB", queue="normal")  # doctest: +SKIP
    >>> print(cluster.job_script())  # doctest: +SKIP
    >>> cluster.scale(jobs=4)  # doctest: +SKIP
    """
    if system not in SCHEDULERS:
        raise DgraphInputError(f"system must be one of {sorted(SCHEDULERS)}, got {system!r}")
    jobqueue = _require("dask_jobqueue", "hpc", "an HPC cluster")
    kwargs.setdefault("name", "dgraph")
    if security is not None:
        kwargs["security"] = security
    return getattr(jobqueue, SCHEDULERS[system])(
        cores=cores, processes=cores, memory=memory, walltime=walltime, interface=interface, **kwargs
    )


def connect(scheduler=None, scheduler_file=None, timeout=None, security=None):
    """A client of a running dask scheduler, by address or by the scheduler file that
    ``dask scheduler --scheduler-file`` (or an ``mpirun dask-mpi`` job) wrote. A scheduler that
    does not answer within ``timeout`` seconds (default: the ``dgraph.connect-timeout`` dask
    config value, 5) is a ``DgraphError`` naming its address. ``security``: a
    ``distributed.security.Security`` for a cluster that uses TLS (``tls://`` addresses)."""
    import dask
    from distributed import Client

    timeout = float(timeout if timeout is not None else dask.config.get("dgraph.connect-timeout", 5))
    if (scheduler is None) == (scheduler_file is None):
        raise DgraphInputError("give exactly one of scheduler= (an address) or scheduler_file= (a path)")
    if scheduler_file is not None:
        if not os.path.exists(scheduler_file):
            raise DgraphInputError(
                f"scheduler file {scheduler_file!r} does not exist; start the scheduler with "
                "dask scheduler --scheduler-file PATH first"
            )
        where, kwargs = f"the scheduler of {scheduler_file!r}", {"scheduler_file": scheduler_file}
    else:
        where, kwargs = f"scheduler {scheduler!r}", {"address": scheduler}
    try:
        return Client(timeout=timeout, security=security, **kwargs)
    except (OSError, TimeoutError, ValueError) as exc:
        raise DgraphError(
            f"could not connect to {where} within {timeout:g} s ({type(exc).__name__}: {exc}); check that it "
            "runs and that this machine can reach it (dgraph.connect-timeout sets the wait)"
        ) from None
