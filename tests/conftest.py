"""One real LocalCluster(processes=True) for the whole test run, and leak checks after every test."""

import os
import sys
import time

import cloudpickle
import pytest
from distributed import Client, LocalCluster

HERE = os.path.dirname(__file__)
DATASETS = os.path.join(HERE, "..", "..", "shared", "datasets")
sys.path.insert(0, HERE)

import graphs  # noqa: E402  (test graph helpers, shipped to workers by value)
import warm  # noqa: E402

cloudpickle.register_pickle_by_value(graphs)


def pytest_sessionstart(session):
    """In the one process that starts the others (pytest-xdist's controller, or pytest alone),
    compile the kernels before any test process or worker exists, if numba's cache is empty."""
    if not hasattr(session.config, "workerinput") and warm.cache_is_cold():
        warm.compile_kernels()


@pytest.fixture(scope="session")
def client():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster, set_as_default=True) as c:
            yield c


@pytest.fixture(autouse=True)
def no_leftover_runs(request):
    """After every test that used the cluster: no run, channel or driver thread left on any worker."""
    yield
    if "client" not in request.fixturenames:
        return
    c = request.getfixturevalue("client")
    from dgraph.cluster import workers

    for attempt in range(20):  # driver threads exit just after their run closes
        replies = c.sync(c.scheduler.broadcast, msg={"op": "dgraph_runs"}, workers=workers(c), on_error="return")
        left = {w: r for w, r in replies.items() if isinstance(r, dict) and (list(r["runs"]) or list(r["drivers"]))}
        if not left:
            return
        time.sleep(0.1)
    raise AssertionError(f"runs or driver threads left on workers: {left}")


# the longest tests start first, so that under pytest-xdist the two processes finish together
# instead of one running a notebook collected last while the other waits
LONGEST = ("test_notebooks.py::", "test_layouts.py::test_every_algorithm")


def pytest_collection_modifyitems(items):
    items.sort(key=lambda item: not any(name in item.nodeid for name in LONGEST))


def dataset(*parts):
    path = os.path.join(DATASETS, *parts)
    if not os.path.exists(path):
        pytest.skip(f"shared dataset {path} not present")
    return path
