"""The dask client dgraph runs on: the active one, or a local cluster started once."""

from __future__ import annotations

import os
import sys
import threading

_lock = threading.Lock()
_own = None


def get_client():
    """The active ``distributed.Client``; without one, start a LocalCluster sized to the machine.

    The cluster dgraph starts has one single-threaded worker process per core (the BSP runtime
    drives all of a worker's ranks from one thread) and is announced once on stderr.
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
            cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None)
            _own = Client(cluster, set_as_default=True)
            print(f"dgraph: no dask client was active; started a local cluster with {n} workers "
                  f"({_own.dashboard_link or 'no dashboard'})", file=sys.stderr)
        return _own


def workers(client):
    """Addresses of all workers, asked of the scheduler now.

    (``Client.scheduler_info()`` returns a cached copy that a periodic refresh may replace by one
    listing no workers at all, so it cannot tell whether a worker is gone.)"""
    try:
        info = client.sync(client.scheduler.identity, n_workers=-1)
    except TypeError:  # schedulers before n_workers= existed list every worker
        info = client.sync(client.scheduler.identity)
    return sorted(info["workers"])


def _require(module, extra, what):
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(f"{what} needs the {extra!r} extra: pip install 'dask-dgraph[{extra}]'") from exc


def local_cuda_cluster(**kwargs):
    """A dask-cuda ``LocalCUDACluster`` (one worker per GPU); needs the ``gpu`` extra."""
    return _require("dask_cuda", "gpu", "a GPU cluster").LocalCUDACluster(**kwargs)
