"""The runnable examples in docstrings run, against the test cluster."""

import doctest
import importlib

import pytest

MODULES = [
    "dgraph",
    "dgraph.graph",
    "dgraph.build",
    "dgraph.owners",
    "dgraph.kernels.csr",
    "dgraph.kernels.frontier",
    "dgraph.io",
    "dgraph.generators",
    "dgraph.datasets",
    "dgraph.partitioners.oned",
    "dgraph.algorithms.bfs",
    "dgraph.algorithms.pagerank",
    "dgraph.algorithms.connected_components",
    "dgraph.algorithms.sssp",
    "dgraph.algorithms.label_propagation",
    "dgraph.algorithms.triangles",
    "dgraph.algorithms.pointer_jumping",
    "dgraph.algorithms.core_number",
    "dgraph.algorithms.betweenness_centrality",
    "dgraph.algorithms.strongly_connected_components",
    "dgraph.algorithms.max_weight_matching",
    "dgraph.algorithms.louvain",
    "dgraph.algorithms.neighbourhood",
    "dgraph.algorithms.shortest_paths",
    "dgraph.algorithms.personalized_pagerank",
    "dgraph.nx",
    "dgraph.nx.graphs",
    "dgraph.kernels.communities",
    "dgraph.kernels.engines",
    "dgraph.calibrate",
    "dgraph.algorithms.verify",
    "dgraph.frames",
    "dgraph.orchestration.api",
    "dgraph.partitioners.tdorch",
    "dgraph.progress",
    "dgraph.provenance",
    "dgraph.weights",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(client, name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} has no runnable example"
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"
