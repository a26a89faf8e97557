"""numba's cache saves, from two savers at once, keep each signature's own data file; two processes
that want one kernel at once compile it once."""

import os
import subprocess
import sys
import threading
import time

import pytest
from numba.core import caching

from dgraph.kernels import cache_lock  # installs the locks


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


COMPILER = """
import importlib.util, os, sys, time
from numba.core import dispatcher
# the locks' module alone (it installs them on import): no need to pay for importing dgraph
spec = importlib.util.spec_from_file_location("cache_lock", sys.argv[2])
spec.loader.exec_module(importlib.util.module_from_spec(spec))
import kernel_module

compile_ = dispatcher._FunctionCompiler.compile

def slow_compile(self, args, return_type):  # a compile long enough for the other process to want it too
    time.sleep(1.0)
    return compile_(self, args, return_type)

dispatcher._FunctionCompiler.compile = slow_compile
while not os.path.exists(sys.argv[1]):  # both processes start compiling at once
    time.sleep(0.01)
assert kernel_module.plus_one(41) == 42
print(sum(kernel_module.plus_one.stats.cache_misses.values()))
"""


def test_processes_that_want_a_kernel_at_once_compile_it_once(tmp_path):
    if not getattr(caching.IndexDataCacheFile.save, "locked", False):
        pytest.skip("no fcntl here: numba's own cache behaviour")
    (tmp_path / "kernel_module.py").write_text(
        "import numba\n\n@numba.njit(cache=True)\ndef plus_one(x):\n    return x + 1\n"
    )
    (tmp_path / "compiler.py").write_text(COMPILER)
    go = tmp_path / "go"
    env = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(tmp_path / "cache"),
        "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path]),
    }
    procs = [
        subprocess.Popen(
            [sys.executable, str(tmp_path / "compiler.py"), str(go), cache_lock.__file__],
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    time.sleep(0.5)
    go.touch()
    misses = [int(p.communicate(timeout=120)[0].strip()) for p in procs]
    assert sorted(misses) == [0, 1]  # one compiled; the other waited and loaded its machine code
