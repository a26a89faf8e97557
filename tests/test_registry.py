"""The registry of algorithms is the one list: the command line's choices, verify's names, the
networkx backend's functions and the table networkx reads before importing dgraph all agree
with it."""

import inspect

import pytest

import _dgraph_nx
import dgraph.algorithms as alg
import dgraph.nx as dnx
from dgraph.algorithms import registry
from dgraph.cli import _parser
from dgraph.errors import DgraphInputError
from dgraph.nx import functions, info
from dgraph.runtime.driver import TRANSPORTS

SHORT = ("bfs", "sssp", "pagerank", "wcc", "scc", "cdlp", "lcc", "triangles", "core", "bc", "mwm", "louvain", "leiden")


def _choices(command, dest):
    sub = next(a for a in _parser()._actions if a.dest == "command").choices[command]
    return next(a for a in sub._actions if a.dest == dest).choices


def test_every_public_function_is_an_entry_or_named_as_no_algorithm():
    public = {name for name in alg.__all__ if inspect.isfunction(getattr(alg, name))}
    entries = set(alg.REGISTRY)
    assert public - set(registry.NOT_ALGORITHMS) == entries
    assert set(registry.NOT_ALGORITHMS) <= public
    for name, entry in alg.REGISTRY.items():
        assert entry.name == name and getattr(alg, name) is entry.function
        assert isinstance(entry, alg.Algorithm) and entry.networkx == tuple(entry.networkx)


def test_short_names_are_unique_and_the_command_lines():
    shorts = [entry.short for entry in alg.REGISTRY.values()]
    assert len(shorts) == len(set(shorts))
    assert not set(shorts) & (set(alg.REGISTRY) - {e.name for e in alg.REGISTRY.values() if e.short == e.name})
    assert sorted(SHORT) == registry.cli_names()
    for short in SHORT:
        assert registry.lookup(short).short == short
    assert registry.lookup("weakly_connected_components") is registry.lookup("wcc")
    with pytest.raises(DgraphInputError, match="no algorithm named 'apsp'"):
        registry.lookup("apsp")


def test_the_command_line_offers_the_registry_and_every_transport():
    assert sorted(_choices("run", "algorithm")) == sorted(e.short for e in alg.REGISTRY.values() if e.cli)
    assert tuple(_choices("run", "transport")) == TRANSPORTS
    assert tuple(_choices("graph500", "transport")) == TRANSPORTS
    for entry in alg.REGISTRY.values():
        if entry.cli:  # dgraph run verifies what it offers
            assert entry.verifier is not None, entry.name


def test_verify_takes_the_registry_names():
    assert set(registry.verifier_names()) == {e.short for e in alg.REGISTRY.values() if e.verifier is not None}
    with pytest.raises(DgraphInputError, match="no verifier named 'k_hop'; verifiers: bfs, sssp"):
        alg.verify("k_hop", None, None)


def test_the_backend_runs_the_registry_networkx_names():
    names = [fn for entry in alg.REGISTRY.values() for fn in entry.networkx]
    assert len(names) == len(set(names)), "a networkx function served by two entries"
    assert set(dnx.IMPLEMENTED) == set(names) | set(functions.CONSTRUCTORS)
    assert set(functions.WRITTEN) == set(dnx.IMPLEMENTED), "an implementation no registry entry offers"
    assert all(hasattr(dnx.BackendInterface, name) for name in dnx.IMPLEMENTED)


def test_the_table_networkx_reads_is_written_from_the_backend():
    # if this fails: python -m dgraph.nx.info (then ruff format)
    assert _dgraph_nx.NOTES == info.table()
    assert list(_dgraph_nx.NOTES) == list(info.table())
    assert set(_dgraph_nx.get_info()["functions"]) == set(dnx.IMPLEMENTED)


def _unannotated(fn):
    signature = inspect.signature(fn)
    missing = [p.name for p in signature.parameters.values() if p.annotation is inspect.Parameter.empty]
    return missing + (["return"] if signature.return_annotation is inspect.Signature.empty else [])


def test_public_functions_are_annotated():
    public = [getattr(alg, name) for name in alg.__all__ if inspect.isfunction(getattr(alg, name))]
    backend = [dnx.can_run, dnx.should_run, dnx.convert_from_nx, dnx.convert_to_nx, dnx.BackendInterface.on_start_tests]
    backend += [inspect.unwrap(fn) for fn in dnx.IMPLEMENTED.values()]
    assert {fn.__qualname__: _unannotated(fn) for fn in public + backend if _unannotated(fn)} == {}


def test_no_function_takes_more_than_six_positional_parameters():
    """Options are keyword-only: kernels take their params by name (graph.run passes them so),
    public functions the graph and their one or two natural arguments."""
    import ast
    import pathlib

    roots = [pathlib.Path(alg.__file__).parent, pathlib.Path(dnx.__file__).parent]
    wide = []
    for path in sorted(p for root in roots for p in root.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = node.args.posonlyargs + node.args.args
                count = len(args) - (1 if args and args[0].arg in ("self", "cls") else 0)
                if count > 6:
                    wide.append(f"{path.name}:{node.lineno} {node.name} {count}")
    assert wide == []


def test_the_table_networkx_reads_imports_without_dask():
    import subprocess
    import sys

    code = (
        "import sys, _dgraph_nx; _dgraph_nx.get_info(); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'dgraph')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_weighted_entries_are_the_functions_that_take_the_graphs_weight_by_default():
    """``weighted`` is how ``dgraph run`` knows to pass ``--weight`` on; every such function
    defaults to the graph's weight (``None`` for unit weights), as networkx's Dijkstra does."""
    from dgraph.weights import GRAPH_WEIGHT

    for name, entry in alg.REGISTRY.items():
        param = inspect.signature(entry.function).parameters.get("weight")
        assert entry.weighted == (param is not None), name
        if param is not None:
            assert param.default is GRAPH_WEIGHT and param.kind is param.KEYWORD_ONLY, name
            assert "``None``" in entry.function.__doc__ and "graph's weight" in entry.function.__doc__, name
    assert inspect.signature(alg.modularity).parameters["weight"].default is GRAPH_WEIGHT
