"""networkx's own tests, for every function the backend implements, run against it
(``NETWORKX_TEST_BACKEND=dgraph``, falling back to networkx for the rest): the run must pass,
and dgraph must really have run each implemented function (a backend that silently fell back
would pass every test and prove nothing). Tests whose answers differ by design are marked in
``dgraph.nx.differences``."""

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # a pytest run of its own over networkx's test modules for every function it serves

# networkx's test modules, in groups that run side by side (each its own pytest process)
MODULES = {
    "shortest-paths": [
        "networkx.algorithms.shortest_paths.tests.test_weighted",
        "networkx.algorithms.shortest_paths.tests.test_unweighted",
        "networkx.algorithms.shortest_paths.tests.test_generic",
        "networkx.algorithms.shortest_paths.tests.test_dense",
        "networkx.algorithms.shortest_paths.tests.test_dense_numpy",
    ],
    "traversal-and-components": [
        "networkx.algorithms.traversal.tests.test_bfs",
        "networkx.algorithms.components.tests.test_connected",
        "networkx.algorithms.components.tests.test_weakly_connected",
        "networkx.algorithms.components.tests.test_strongly_connected",
        "networkx.algorithms.tests.test_dag",
        "networkx.algorithms.tests.test_lowest_common_ancestors",
        "networkx.algorithms.tests.test_isolate",
        "networkx.algorithms.tree.tests.test_recognition",
    ],
    "graphs-and-conversions": [
        "networkx.classes.tests.test_function",
        "networkx.tests.test_convert_pandas",
        "networkx.algorithms.operators.tests.test_unary",
        "networkx.tests.test_convert",
        "networkx.tests.test_convert_scipy",
        "networkx.algorithms.bipartite.tests.test_basic",
        "networkx.generators.tests.test_ego",
    ],
    "centrality": [
        "networkx.algorithms.link_analysis.tests.test_pagerank",
        "networkx.algorithms.centrality.tests.test_betweenness_centrality",
        "networkx.algorithms.link_analysis.tests.test_hits",
        "networkx.algorithms.centrality.tests.test_katz_centrality",
        "networkx.algorithms.centrality.tests.test_eigenvector_centrality",
        "networkx.algorithms.centrality.tests.test_degree_centrality",
        "networkx.algorithms.centrality.tests.test_closeness_centrality",
        "networkx.algorithms.centrality.tests.test_harmonic_centrality",
        "networkx.algorithms.tests.test_link_prediction",
        "networkx.algorithms.tests.test_reciprocity",
    ],
    "structure-and-communities": [
        "networkx.algorithms.tests.test_cluster",
        "networkx.algorithms.tests.test_core",
        "networkx.algorithms.tests.test_matching",
        "networkx.algorithms.community.tests.test_louvain",
        "networkx.algorithms.community.tests.test_leiden",
        "networkx.algorithms.tree.tests.test_mst",
        "networkx.algorithms.coloring.tests.test_coloring",
        "networkx.algorithms.tests.test_mis",
    ],
}


# served functions whose networkx module is too long to run through the backend here
# (test_distance_measures: some 600 cases, most for functions dgraph does not serve);
# tests/test_nx_breadth.py compares them with networkx instead; networkx's tests never call
# generic_bfs_edges (tests/test_nx_paths.py does) nor reverse through a backend
# (tests/test_nx_rest.py does)
CHECKED_ELSEWHERE = ("eccentricity", "diameter", "radius", "center", "periphery", "generic_bfs_edges", "reverse")


def _shared(tmp_path_factory):
    """A directory every test process of this run sees (xdist gives each its own under one)."""
    root = tmp_path_factory.getbasetemp()
    shared = (root.parent if root.name.startswith("popen-gw") else root) / "networkx-suite"
    shared.mkdir(exist_ok=True)
    return shared


@pytest.mark.parametrize("group", list(MODULES))
def test_networkx_own_tests_pass_with_dgraph_running_every_function(client, tmp_path, tmp_path_factory, group):
    report = _shared(tmp_path_factory) / f"{group}.json"
    env = dict(
        os.environ,
        NETWORKX_TEST_BACKEND="dgraph",
        NETWORKX_FALLBACK_TO_NX="True",
        DGRAPH_NX_REPORT=str(report),
        DGRAPH_NX_SCHEDULER=client.scheduler.address,  # this test process's cluster: none started
    )
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "dgraph.nx.testing"]
    # plugins networkx's tests never use, whose imports each group's process would pay for
    command += ["-p", "no:hypothesispytest", "-p", "no:benchmark", "-p", "no:xdist", "-p", "no:xdist.looponfail"]
    run = subprocess.run(
        [*command, "--pyargs", *MODULES[group]],
        env=env,
        cwd=tmp_path,  # networkx's configuration, not this project's
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    # the group that finishes last sees every group's counts: no function may have run zero times
    reports = [report.with_name(f"{g}.json") for g in MODULES]
    if all(r.exists() for r in reports):
        dispatched: dict[str, int] = {}
        for r in reports:
            for name, count in json.loads(r.read_text()).items():
                dispatched[name] = dispatched.get(name, 0) + count
        print("dgraph ran:", dispatched)
        assert not [n for n, count in dispatched.items() if count == 0 and n not in CHECKED_ELSEWHERE], dispatched
