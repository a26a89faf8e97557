"""Leak checks after every test; the test run's cluster and the processes' settings are the root conftest.py's."""

import os
import re
import sys
import time

import cloudpickle  # noqa: E402
import pytest  # noqa: E402

HERE = os.path.dirname(__file__)
sys.path.insert(0, HERE)

import graphs  # noqa: E402  (test graph helpers, shipped to workers by value)
import warm  # noqa: E402

cloudpickle.register_pickle_by_value(graphs)


def pytest_sessionstart(session):
    """In the one process that starts the others (pytest-xdist's controller, or pytest alone),
    compile the kernels before any test process or worker exists, if numba's cache is empty."""
    if not hasattr(session.config, "workerinput") and warm.cache_is_cold():
        warm.compile_in_parallel()


@pytest.fixture
def streamed(monkeypatch):
    """Graphs built in the test stream their blocks however small (dgraph.placement.place), from
    a pandas edge list too, and so do blocks rebuilt from theirs (none placed from the client:
    dgraph.placement.place_small)."""
    from dgraph import build, placement

    monkeypatch.setattr(placement, "AT_ONCE_ARCS", -1)
    monkeypatch.setattr(placement, "SMALL_ARCS", -1)
    monkeypatch.setattr(build, "SMALL_EDGES", -1)


@pytest.fixture(autouse=True)
def no_leftover_runs(request):
    """After every test that used the cluster: no run, channel or driver thread left on any worker."""
    yield
    if "client" not in request.fixturenames:
        return
    c = request.getfixturevalue("client")
    from dgraph.cluster import workers

    left = {}

    def clean():
        replies = c.sync(c.scheduler.broadcast, msg={"op": "dgraph_runs"}, workers=workers(c), on_error="return")
        left.clear()
        left.update({w: r for w, r in replies.items() if isinstance(r, dict) and (r["runs"] or r["drivers"])})
        return not left

    # driver threads exit just after their run closes
    wait_until(clean, 2, lambda: f"every run and driver thread to end on the workers (left: {left})")


# the longest tests start first, so that under pytest-xdist the two processes finish together
# instead of one running a notebook collected last while the other waits
LONGEST = ("test_networkx_suite.py::", "test_notebooks.py::", "test_layouts.py::test_every_algorithm")


def pytest_collection_modifyitems(items):
    items.sort(key=lambda item: not any(name in item.nodeid for name in LONGEST))


def wait_until(condition, timeout, what):
    """Wait for ``condition()`` to hold (checked every few milliseconds); fail naming ``what`` (a
    string, or a function giving one then)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what() if callable(what) else what}")
        time.sleep(0.005)


def dataset(*parts):
    """The path of a file of a dataset shipped inside the package (dgraph/datasets/NAME/...)."""
    import dgraph.datasets

    path = os.path.join(os.path.dirname(dgraph.datasets.__file__), *parts)
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: the package should ship this dataset file (pyproject's package-data)")
    return path


def foreign_stderr(text):
    """The lines of ``text`` (a process's stderr) that are not dgraph's own status lines: dgraph
    writes lines that start with ``dgraph`` or are indented under one; a warning, a dask log line
    (``2026-01-01 12:00:00,000 - distributed...``) or a traceback is foreign."""
    own = re.compile(r"^(dgraph[ :]|  )")
    noise = re.compile(r"Warning|ERROR|Traceback|^\d{4}-\d\d-\d\d ")
    return [line for line in text.splitlines() if line.strip() and (not own.match(line) or noise.search(line))]
