"""numba's on-disk cache, made safe for processes that compile at the same time.

numba names a new overload's data file after the first number the cache's index does not use,
and rewrites the index whole. Two processes that compile different signatures of one function at
once (dask workers, test processes) can thus both take ``.1.nbc``: the index then points one
signature at the other's machine code, and every later load of it crashes the process (numba
issues 4807 and 10128). ``install`` makes each save hold an exclusive lock on a file beside the
index while it reads the index again, picks the name and writes both, so each save sees the
others'. Loads take no lock: data files are replaced whole.
"""

from __future__ import annotations

import functools

try:
    import fcntl
except ImportError:  # not POSIX: numba's own behaviour
    fcntl = None  # type: ignore[assignment]

from numba.core import caching


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


def install():
    """Lock numba's cache saves in this process (once; a no-op without ``fcntl``)."""
    cache_file = caching.IndexDataCacheFile
    if fcntl is not None and not getattr(cache_file.save, "locked", False):
        cache_file.save = _locked(cache_file.save)


install()  # on import, before any kernel of the package compiles
