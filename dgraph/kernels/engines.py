"""Engines and the registry of kernel twins.

A kernel is registered once with one implementation per engine (``twins``); calling it runs the
implementation of the engine selected in the calling thread (``using``) or for the process
(``set_engine``). Every engine's implementation takes the same arguments and gives the same
results (integers identical, floats to rounding), which the parity tests check for every kernel
in ``KERNELS``.

The CPU engines (numba, numpy) implement every kernel. The device engine (cuda, in
``dgraph.kernels.cuda``, loaded when first selected) implements the kernels that touch arcs:
the edge map's steps, PageRank's products, components' forests and label counts; a kernel
without a device twin runs its numba twin on the host, so a run on the cuda engine is complete.
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager

import numba
import numpy as np

from ..errors import DgraphInputError

ENGINES = ("numba", "numpy", "cuda")
HOST = "numba"  # what a kernel without a twin for the selected engine runs
_default = os.environ.get("DGRAPH_KERNELS", "numba")
_local = threading.local()


AUTO = "auto"  # per worker: cuda where numba finds a GPU, numba elsewhere


def _check(name, load=False):
    """``name``, if it is an engine (or "auto"); with ``load`` (where a kernel runs: a client
    without a GPU may select cuda for GPU workers), "auto" resolved and the device engine's
    twins registered."""
    if name not in ENGINES and name != AUTO:
        raise DgraphInputError(f"kernel engine must be one of {ENGINES} or {AUTO!r}, not {name!r}")
    if load and name == AUTO:
        name = "cuda" if _has_gpu() else "numba"
    if load and name == "cuda" and not _device_loaded:
        _load_device_twins()
    return name


_device_loaded = False
_load_lock = threading.Lock()


def _has_gpu():
    """Whether numba finds a real CUDA GPU here (the simulator does not count)."""
    from numba import config, cuda

    return not config.ENABLE_CUDASIM and cuda.is_available()


def _load_device_twins():
    """Add the cuda engine's twins to their kernels (importing it says what is missing)."""
    global _device_loaded
    from . import cuda

    with _load_lock:
        for name, impl in cuda.TWINS.items():
            KERNELS[name].impls.setdefault("cuda", impl)
        _device_loaded = True


class Kernel:
    """One kernel's implementations, an engine each; calling it runs the current engine's."""

    __slots__ = ("name", "impls")

    def __init__(self, name, impls):
        self.name, self.impls = name, impls

    def __call__(self, *args):
        impl = self.impls.get(engine())
        return (impl or self.impls[HOST])(*args)

    def __repr__(self):
        return f"Kernel({self.name!r}, engines={sorted(self.impls)})"


KERNELS: dict[str, Kernel] = {}


def twins(name, **impls):
    """Register kernel ``name`` with an implementation per engine (keyword = engine name)."""
    unknown = set(impls) - set(ENGINES)
    if unknown or name in KERNELS:
        raise ValueError(f"kernel {name!r}: unknown engines {sorted(unknown)} or registered twice")
    KERNELS[name] = Kernel(name, impls)
    return KERNELS[name]


def compiled_before():
    """Whether numba's on-disk cache holds any of dgraph's kernels. Without, the first run
    compiles them on every worker, which takes seconds per kernel family; True when numba's cache
    cannot be read (nothing to announce then)."""
    indexes = []
    for kernel in KERNELS.values():
        cache = getattr(kernel.impls.get("numba"), "_cache", None)  # numba's own cache of the dispatcher
        index = getattr(getattr(cache, "_cache_file", None), "_index_path", None)
        if index:
            indexes.append(index)
    return not indexes or any(os.path.exists(index) for index in indexes)


def set_engine(name):
    """Select the kernel implementation for later runs: "numba" (default), "numpy", "cuda"
    (device kernels through numba.cuda: a GPU, or numba's simulator with
    ``NUMBA_ENABLE_CUDASIM=1``) or "auto" (cuda on the workers where numba finds a GPU, numba on
    the others).

    Runs started from this process pass the choice on to their drivers on the workers.

    >>> from dgraph import kernels
    >>> kernels.set_engine("numpy"); kernels.engine()
    'numpy'
    >>> kernels.set_engine("numba")
    """
    global _default
    _default = _check(name)


def engine():
    return getattr(_local, "engine", None) or _default


def threads():
    """Threads this thread's kernels may use (1 unless ``using`` gave more)."""
    return getattr(_local, "threads", 1)


# Arcs of work per thread below which a parallel kernel runs serially: starting numba's threads
# costs tens of microseconds per call in a dask worker, about what a SpMV does on 2**18 arcs and
# the label and triangle counts (5-10x the work per arc) on 2**15 (CDLP on cal_road's 43 K arcs
# measured slower on two threads than on one).
SPMV_GRAIN = 1 << 18
COUNT_GRAIN = 1 << 15
# Afforest on two threads already gains a little on cal_road's 43 K arcs (one rank), more on
# luxembourg's 239 K
FOREST_GRAIN = 1 << 14
# Merge steps (a row's squared degree, summed) per thread below which the count of triangles by
# id runs serially: waking a worker's second core, idle between calls, costs as much as the
# whole count on roads (luxembourg, 0.5 M steps, is slower on two threads; the 1000 x 1000
# grid's 16 M is faster)
TRIANGLE_GRAIN = 1 << 20


def threads_for(arcs, grain):
    """Threads worth using on a kernel call over ``arcs`` arcs: at most ``threads()``, at least
    ``grain`` arcs each."""
    return max(1, min(threads(), int(arcs) // grain))


@contextmanager
def using(name, threads=1):
    """Use engine ``name`` in this thread for the duration of the block, and let its parallel
    kernels use up to ``threads`` threads (fewer if the process may not use that many cores, and
    1 if numba's threading layer cannot be entered from several threads at once)."""
    old = getattr(_local, "engine", None), getattr(_local, "threads", 1)
    name = _check(name, load=True)
    usable = _usable_threads(threads) if name == "numba" else 1
    before = numba.get_num_threads() if usable > 1 else None
    _local.engine, _local.threads = name, usable
    if usable > 1:
        numba.set_num_threads(usable)  # per calling thread in numba
    try:
        yield
    finally:
        _local.engine, _local.threads = old
        if before is not None:
            numba.set_num_threads(before)


@contextmanager
def device_transfers(info):
    """On the device engine, add what the block moved between host and device in this thread to
    ``info`` (``h2d_bytes``, ``d2h_bytes``, ``resident_bytes``: graph blocks made resident, and
    ``device_calls``); nothing on the CPU engines."""
    if engine() != "cuda":
        yield
        return
    from .cuda import device

    before = device.transfers().as_dict()
    try:
        yield
    finally:
        for k, v in device.transfers().as_dict().items():
            info[k] = info.get(k, 0) + v - before[k]


_layer_lock = threading.Lock()
_threadsafe = None


@numba.njit(parallel=True, cache=True)
def _touch_parallel(x):
    for i in numba.prange(x.size):
        x[i] += 1.0


def _usable_threads(wanted):
    """``wanted`` capped by this process's cores and numba's pool; 1 unless numba's threading
    layer is omp or tbb (workqueue aborts when two threads launch at once, as two workers of an
    in-process cluster may). The layer is started once per process, under a lock."""
    global _threadsafe
    wanted = min(
        int(wanted),
        len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1,
        numba.config.NUMBA_NUM_THREADS,
    )
    if wanted <= 1:
        return 1
    with _layer_lock:
        if _threadsafe is None:
            try:
                _touch_parallel(np.zeros(2))
                _threadsafe = numba.threading_layer() in ("omp", "tbb")
            except Exception:  # no layer at all: serial kernels
                _threadsafe = False
    return wanted if _threadsafe else 1


def row_cuts(indptr, k):
    """Row boundaries (k + 1 of them) splitting CSR rows into k runs of about equal arcs."""
    targets = np.arange(k + 1, dtype=indptr.dtype) * indptr[-1] // k  # of indptr's dtype: float ones copy indptr
    cuts = np.searchsorted(indptr, targets).astype(np.int64)
    cuts[-1] = indptr.size - 1
    return cuts
