"""numba's on-disk cache, made safe and shared by processes that compile at the same time.

numba names a new overload's data file after the first number the cache's index does not use,
and rewrites the index whole. Two processes that compile different signatures of one function at
once (dask workers, test processes) can thus both take ``.1.nbc``: the index then points one
signature at the other's machine code, and every later load of it crashes the process (numba
issues 4807 and 10128). ``install`` makes each save hold an exclusive lock on a file beside the
index while it reads the index again, picks the name and writes both, so each save sees the
others'. Loads take no lock: data files are replaced whole.

Processes that start together (a cluster's workers, test processes) also need the same kernels
at the same moment, and each would compile them: on a machine with fewer cores than processes
that multiplies a cold start. ``install`` therefore makes a compile that misses the cache hold an
exclusive lock on a second file beside the function's index: the first process compiles and
saves, the others wait and then load its machine code. Locks are only taken under numba's own
compiler lock, one thread a process at a time; a function compiling itself again (recursion)
does not lock twice, and a kernel calls only kernels below it, so no two processes wait on each
other.
"""

from __future__ import annotations

import functools

try:
    import fcntl
except ImportError:  # not POSIX: numba's own behaviour
    fcntl = None  # type: ignore[assignment]

from numba.core import caching, dispatcher, sigutils
from numba.core.compiler_lock import global_compiler_lock

_compiling: set[str] = set()  # index paths this process holds a compile lock on


def _locked(save):
    @functools.wraps(save)
    def save_locked(self, key, data):
        try:
            lock = open(self._index_path + ".lock", "a")
        except OSError:  # a cache directory we may not write a lock into: numba's own behaviour
            return save(self, key, data)
        with lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            return save(self, key, data)

    save_locked.locked = True
    return save_locked


def _compiled_once(compile):
    @functools.wraps(compile)
    def compile_once(self, sig):
        path = getattr(getattr(self._cache, "_cache_file", None), "_index_path", None)
        if path is None or tuple(sigutils.normalize_signature(sig)[0]) in self.overloads:
            return compile(self, sig)  # no on-disk cache, or compiled already in this process
        with global_compiler_lock:
            if path in _compiling:
                return compile(self, sig)
            try:
                lock = open(path + ".compiling", "a")
            except OSError:  # a cache directory we may not write a lock into: compile as numba does
                return compile(self, sig)
            with lock:
                fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
                _compiling.add(path)
                try:
                    return compile(self, sig)  # loads what another process saved meanwhile
                finally:
                    _compiling.discard(path)

    compile_once.locked = True
    return compile_once


def install():
    """Lock numba's cache saves and cold compiles in this process (once; a no-op without ``fcntl``)."""
    cache_file, jit = caching.IndexDataCacheFile, dispatcher.Dispatcher
    if fcntl is not None and not getattr(cache_file.save, "locked", False):
        cache_file.save = _locked(cache_file.save)
    if fcntl is not None and not getattr(jit.compile, "locked", False):
        jit.compile = _compiled_once(jit.compile)


install()  # on import, before any kernel of the package compiles
