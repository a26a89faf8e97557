"""What the tests under tests/ and the docstring examples of the three packages share: the settings
their processes start with, and one real LocalCluster(processes=True) for the whole run.

`--doctest-modules dgraph algorithms partitioners` collects the examples. algorithms/ and
partitioners/ are installed as dgraph.algorithms and dgraph.partitioners (pyproject's package-dir),
so their modules are imported under those names here, never as top-level `algorithms.*`: one copy
of each module, whichever copy `import dgraph` finds (the checkout, or site-packages).
"""

import importlib
import os

# Two test processes, each with its own two-worker cluster, share two cores. dask's diagnostics
# (a stack sampler every 10 ms in each worker, an event-loop tick every 20 ms in every process)
# take a sixth of a core per idle cluster, a twentieth with the settings below, and no test reads
# them. Set before dask reads its config; the workers, notebooks and command lines the tests start
# inherit them.
os.environ.setdefault("DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED", "False")
os.environ.setdefault("DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL", "500ms")
# the cuda engine's tests run its device kernels in numba's simulator, here and in the cluster's
# worker processes (which inherit the environment); NUMBA_ENABLE_CUDASIM=0 tests on a real GPU
os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

import pytest  # noqa: E402
from _pytest.doctest import DoctestItem, DoctestModule  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
# directory in the checkout -> the package name it is installed as
PACKAGES = {"dgraph": "dgraph", "algorithms": "dgraph.algorithms", "partitioners": "dgraph.partitioners"}
# what a module may need that the test extra does not install: its examples are skipped, saying so
OPTIONAL = {"cupy", "dask_cuda", "cudf", "pyspark", "igraph", "networkit"}


def module_name(path):
    """The importable name of a .py file of the three packages, or None for any other file."""
    rel = os.path.relpath(str(path), HERE)
    parts = rel[: -len(".py")].split(os.sep)
    if parts[0] not in PACKAGES or ".." in parts:
        return None
    parts = [PACKAGES[parts[0]], *parts[1:]]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


class PackageDoctests(DoctestModule):
    """A module's docstring examples, the module imported by its package name."""

    def _getobj(self):
        name = module_name(self.path)
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name and e.name.split(".")[0] in OPTIONAL:
                pytest.skip(f"{name}: its examples need {e.name}, an optional dependency not installed here")
            raise
        except Exception as e:
            # the cuda engine refuses to import without a GPU or numba's simulator
            if type(e).__name__ == "DgraphInputError" and "CUDA" in str(e):
                pytest.skip(f"{name}: needs a CUDA GPU or NUMBA_ENABLE_CUDASIM=1 ({e})")
            raise


@pytest.hookimpl(tryfirst=True)
def pytest_collect_directory(path, parent):
    """A plain directory for the packages' folders: pytest's Package would import partitioners/ as
    a top-level package, where its relative imports of dgraph fail."""
    if module_name(path / "__init__.py") is not None:
        return pytest.Dir.from_parent(parent, path=path)
    return None


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path, parent):
    """pytest collects a module under its directory's name; for the three packages' modules,
    collect their examples by package name instead, and only from modules with an example."""
    collected = yield
    if file_path.suffix != ".py" or module_name(file_path) is None:
        return collected
    # the packages hold no tests: only their examples are collected, by PackageDoctests
    kept = [c for c in collected if not isinstance(c, pytest.Module)]
    if parent.config.getoption("doctestmodules") and ">>>" in file_path.read_text(encoding="utf-8"):
        kept.append(PackageDoctests.from_parent(parent, path=file_path))
    return kept


@pytest.fixture(scope="session")
def client():
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0") as cluster:
        with Client(cluster, set_as_default=True) as c:
            yield c


@pytest.fixture(autouse=True)
def doctest_cluster(request):
    """Docstring examples run against the test run's cluster, set as the default client."""
    if isinstance(request.node, DoctestItem):
        request.getfixturevalue("client")
