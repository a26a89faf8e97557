"""Device memory for the cuda engine: resident graph blocks, counted transfers, launch shapes.

A block's arrays never change after construction, so the device copy of a host array is kept
for as long as the host array lives (keyed by its identity, dropped by a weakref finalizer):
a graph goes up once however many kernels and runs read it. A rank's vertex values that live
across calls (the values a SpMV reads, the visited flags, distances) are *mirrored*: the device
keeps a copy and a host shadow of what it holds, and a call uploads only the entries that
changed since (the middleware's lazy uploading: a rank's space is exactly what it queries).
Everything else a kernel reads is uploaded per call. Transfers are counted per calling thread
(the thread that drives a worker's ranks).
"""

from __future__ import annotations

import threading
import weakref

import numpy as np
from numba import config, cuda

SIMULATED = bool(config.ENABLE_CUDASIM)  # type: ignore[attr-defined]
# threads per block and a cap on blocks (kernels loop with a grid stride): the simulator runs
# every device thread as a Python thread, so it gets one small block
THREADS = 32 if SIMULATED else 256
MAX_BLOCKS = 1 if SIMULATED else 4096

_resident: dict[int, object] = {}
_lock = threading.Lock()
_counts = threading.local()


class Transfers:
    """Bytes moved between host and device in this thread: graph blocks made resident
    (``resident_bytes``, part of ``h2d_bytes``), all uploads, all downloads, and device calls."""

    __slots__ = ("h2d_bytes", "d2h_bytes", "resident_bytes", "calls")

    def __init__(self):
        self.h2d_bytes = self.d2h_bytes = self.resident_bytes = self.calls = 0

    def as_dict(self):
        return {
            "h2d_bytes": self.h2d_bytes,
            "d2h_bytes": self.d2h_bytes,
            "resident_bytes": self.resident_bytes,
            "device_calls": self.calls,
        }


def transfers():
    """This thread's counters (a run's driver reads them before and after its kernel)."""
    if not hasattr(_counts, "t"):
        _counts.t = Transfers()
    return _counts.t


def resident(a):
    """The device copy of host array ``a``, a block array that is never written: uploaded on
    first use and kept while ``a`` lives."""
    key = id(a)
    with _lock:
        d = _resident.get(key)
    if d is None:
        d = cuda.to_device(np.ascontiguousarray(a))
        with _lock:
            _resident[key] = d
        weakref.finalize(a, _resident.pop, key, None)
        t = transfers()
        t.h2d_bytes += a.nbytes
        t.resident_bytes += a.nbytes
    return d


class _Mirror:
    __slots__ = ("device", "shadow")

    def __init__(self, device, shadow):
        self.device, self.shadow = device, shadow


_mirrors: dict[int, _Mirror] = {}


def mirror(a):
    """The device copy of host vertex values ``a`` (an array that lives across calls), brought
    up to date by uploading only the entries that differ from what the device holds (their
    positions and values), or all of ``a`` when most differ."""
    key = id(a)
    with _lock:
        m = _mirrors.get(key)
    if m is None or m.shadow.shape != a.shape or m.shadow.dtype != a.dtype:
        m = _Mirror(upload(a), a.copy())
        with _lock:
            fresh = key not in _mirrors
            _mirrors[key] = m
        if fresh:
            weakref.finalize(a, _mirrors.pop, key, None)
        return m.device
    changed = np.flatnonzero(a != m.shadow)  # (a NaN never equals itself: it is sent again)
    if changed.size * (8 + a.itemsize) >= a.nbytes:  # positions and values would cost more
        m.device.copy_to_device(np.ascontiguousarray(a))
        transfers().h2d_bytes += a.nbytes
    elif changed.size:
        launch(_scatter, changed.size, upload(changed), upload(a[changed]), m.device)
    m.shadow[changed] = a[changed]
    return m.device


def synced(a):
    """After a kernel wrote ``a``'s mirror and the result was downloaded into ``a``: the device
    holds ``a`` now."""
    with _lock:
        m = _mirrors.get(id(a))
    if m is not None:
        m.shadow[...] = a


@cuda.jit
def _copy(src, out):
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        out[i] = src[i]


@cuda.jit
def _scatter(at, values, out):
    for i in range(cuda.grid(1), at.size, cuda.gridsize(1)):
        out[at[i]] = values[i]


def upload(a, dtype=None):
    """A device copy of host values ``a`` (read by one call)."""
    a = np.ascontiguousarray(a, dtype=dtype)
    transfers().h2d_bytes += a.nbytes
    return cuda.to_device(a)


def download(d, out=None):
    """Device array ``d`` copied into host ``out`` (or a new array)."""
    host = d.copy_to_host() if out is None else d.copy_to_host(out)
    transfers().d2h_bytes += host.nbytes
    return host


def empty(n, dtype):
    return cuda.device_array(max(int(n), 0), dtype=dtype)


def full(n, value, dtype):
    d = empty(n, dtype)
    if n:
        launch(_fill, n, d, value)
    return d


def copy(d):
    """A new device array holding device array ``d``'s values."""
    out = empty(d.size, d.dtype)
    if d.size:
        launch(_copy, d.size, d, out)
    return out


def launch(kernel, n, *args):
    """Run ``kernel`` over ``n`` items (its loop strides over the grid)."""
    transfers().calls += 1
    blocks = max(1, min(MAX_BLOCKS, (int(n) + THREADS - 1) // THREADS))
    kernel[blocks, THREADS](*args)


@cuda.jit
def _fill(out, value):
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        out[i] = value


_scratch: dict[tuple, object] = {}


def scratch(host, name, make):
    """Device scratch kept beside host array ``host`` (a rank's scratch, which lives as long as
    the rank's run state): ``make()``'s arrays on first use, the same ones after."""
    key = (id(host), name)
    with _lock:
        arrays = _scratch.get(key)
    if arrays is None:
        arrays = make()
        with _lock:
            _scratch[key] = arrays
        weakref.finalize(host, _scratch.pop, key, None)
    return arrays
