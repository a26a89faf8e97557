"""Worker speeds for the heterogeneous split: the same SpMV on every worker at once, in the
kernel engine and with the threads a run's driver would use there, for the same window of wall
time (after each has compiled and warmed up), as arcs a second. Measured together, the speeds
include what the workers take from each other (two workers on one core each get half of it),
which is what a run will see."""

from __future__ import annotations

import time
from collections import Counter

import numpy as np

from . import kernels

CALIBRATION_ARCS = 1 << 20
WINDOW = 0.3  # seconds of SpMVs per worker
WARM_UP = 1.0  # seconds from the call to the common start of the windows (compiling, uploading)


def _speed(engine, threads, arcs, window, start_at, dask_worker=None):
    if engine == "cuda":
        from numba import config

        arcs = 1 << 10 if config.ENABLE_CUDASIM else arcs  # the simulator runs threads one by one
    rows = max(arcs >> 4, 1)
    rng = np.random.default_rng(0)
    indptr = np.linspace(0, arcs, rows + 1).astype(np.int64)
    indices = rng.integers(0, rows, arcs).astype(np.int32)
    x, out = rng.random(rows), np.empty(rows)
    mine = threads.get(dask_worker.address, 1) if dask_worker is not None else 1
    with kernels.using(engine, mine):
        kernels.spmv(indptr, indices, None, x, out)  # compiled, uploaded: not timed
        time.sleep(max(0.0, start_at - time.time()))  # every worker times the same window
        done, start = 0, time.perf_counter()
        while True:
            kernels.spmv(indptr, indices, None, x, out)
            done += arcs
            elapsed = time.perf_counter() - start
            if elapsed >= window:
                return done / elapsed


def worker_speeds(client, workers, arcs=CALIBRATION_ARCS, window=WINDOW):
    """Arcs a second of one driver's SpMV on each of ``workers`` (addresses), measured on all
    of them at once, in the engine runs from this process use (``dgraph.kernels.engine()``).

    >>> from dgraph.cluster import get_client, workers
    >>> client = get_client()
    >>> speeds = worker_speeds(client, workers(client), window=0.05)
    >>> sorted(speeds) == workers(client) and all(s > 0 for s in speeds.values())
    True
    """
    from .runtime.launch import _driver_threads, client_state

    workers = sorted(set(workers))
    threads = dict(zip(workers, _driver_threads(client, client_state(client), workers)))
    start_at = time.time() + WARM_UP
    return client.run(_speed, kernels.engine(), threads, int(arcs), float(window), start_at, workers=workers)


def rank_weights(client, where):
    """Each rank's share of the work when rank r runs on worker ``where[r]``: its worker's
    measured speed, split evenly among the ranks placed there."""
    speeds = worker_speeds(client, where)
    count = Counter(where)
    return [speeds[w] / count[w] for w in where]
