"""numba's cache saves, from two savers at once, keep each signature's own data file."""

import threading
import time

import pytest
from numba.core import caching

import dgraph.kernels  # noqa: F401 (installs the lock)


def test_two_savers_at_once_keep_their_own_data_files(tmp_path, monkeypatch):
    if not getattr(caching.IndexDataCacheFile.save, "locked", False):
        pytest.skip("no fcntl here: numba's own cache behaviour")
    read = caching.IndexDataCacheFile._load_index

    def slow_read(self):  # a save that reads the index, then loses the processor
        index = read(self)
        time.sleep(0.2)
        return index

    monkeypatch.setattr(caching.IndexDataCacheFile, "_load_index", slow_read)
    # one file object per saver, as in two processes: flock locks the open file, not the thread
    savers = [caching.IndexDataCacheFile(str(tmp_path), "kernel", ("stamp", 1)) for _ in range(2)]
    threads = [
        threading.Thread(target=s.save, args=(key, f"code for {key}")) for s, key in zip(savers, ("float32", "float64"))
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    monkeypatch.undo()
    cache = caching.IndexDataCacheFile(str(tmp_path), "kernel", ("stamp", 1))
    assert cache.load("float32") == "code for float32"
    assert cache.load("float64") == "code for float64"
