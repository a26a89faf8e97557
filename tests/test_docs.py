"""The runnable examples in docstrings run, against the test cluster."""

import doctest
import importlib

import pytest

MODULES = [
    "dgraph",
    "dgraph.graph",
    "dgraph.io",
    "dgraph.generators",
    "dgraph.datasets",
    "dgraph.partitioners.oned",
    "dgraph.algorithms.bfs",
    "dgraph.algorithms.pagerank",
    "dgraph.algorithms.components",
    "dgraph.algorithms.sssp",
    "dgraph.algorithms.cdlp",
    "dgraph.algorithms.triangles",
    "dgraph.algorithms.pointer_jumping",
    "dgraph.algorithms.cores",
    "dgraph.algorithms.betweenness",
    "dgraph.algorithms.scc",
    "dgraph.algorithms.matching",
    "dgraph.frames",
    "dgraph.orchestration.api",
    "dgraph.partitioners.tdorch",
    "dgraph.progress",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(client, name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} has no runnable example"
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"
