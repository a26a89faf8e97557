"""The house's shape, read off the source: files a reader can hold, narrow signatures, and a
public API whose every parameter and result is typed."""

import ast
import inspect
import pathlib

import dgraph
import dgraph.algorithms

TOP = pathlib.Path(__file__).resolve().parent.parent
PACKAGES = ("dgraph", "algorithms", "partitioners")
MOST_LINES = 700
MOST_POSITIONAL = 6  # outside dgraph/kernels/, whose numba kernels take their arrays one by one


def _sources():
    for package in PACKAGES:
        yield from sorted((TOP / package).rglob("*.py"))


def test_no_file_is_longer_than_a_reader_can_hold():
    long = {str(p.relative_to(TOP)): n for p in _sources() if (n := len(p.read_text().splitlines())) > MOST_LINES}
    assert not long, f"files over {MOST_LINES} lines (split them by idea): {long}"


def test_options_are_keyword_only():
    wide = []
    for path in _sources():
        rel = path.relative_to(TOP)
        if rel.parts[:2] == ("dgraph", "kernels"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = node.args.posonlyargs + node.args.args
                count = len(args) - (1 if args and args[0].arg in ("self", "cls") else 0)
                if count > MOST_POSITIONAL:
                    wide.append(f"{rel}:{node.lineno} {node.name} ({count})")
    assert not wide, f"functions taking more than {MOST_POSITIONAL} positional parameters: {wide}"


def _untyped(fn):
    """The parameters (and 'return') of ``fn`` without an annotation."""
    sig = inspect.signature(fn)
    missing = [
        name
        for name, p in sig.parameters.items()
        if name not in ("self", "cls") and p.annotation is inspect.Parameter.empty
    ]
    return missing + (["return"] if sig.return_annotation is inspect.Signature.empty else [])


def _public(namespace, names):
    for name in names:
        obj = getattr(namespace, name)
        if inspect.isfunction(obj):
            yield f"{namespace.__name__}.{name}", obj


def test_the_public_api_is_typed():
    found = dict(_public(dgraph, dgraph.__all__)) | dict(_public(dgraph.algorithms, dgraph.algorithms.__all__))
    for name, member in vars(dgraph.Graph).items():
        if name.startswith("_"):
            continue
        fn = member.fget if isinstance(member, property) else member
        if inspect.isfunction(fn):
            found[f"Graph.{name}"] = fn
    assert len(found) > 40
    untyped = {name: missing for name, fn in found.items() if (missing := _untyped(fn))}
    assert not untyped, f"public functions with untyped parameters or results: {untyped}"


def test_every_source_folder_is_an_installed_package():
    """A folder missing from pyproject's list works in a checkout and is absent from a wheel."""
    import tomllib

    config = tomllib.loads((TOP / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    folders = {p.parent for p in _sources()} | {p.parent for p in (TOP / "_dgraph_nx").rglob("*.py")}
    missing, loose = [], []
    for folder in sorted(folders):
        rel = folder.relative_to(TOP).parts
        name = ".".join(("dgraph",) + rel if rel[0] in ("algorithms", "partitioners") else rel)
        if name not in listed:
            missing.append(name)
        if not (folder / "__init__.py").exists():
            loose.append(str(folder.relative_to(TOP)))
    assert not missing, f"packages missing from pyproject's [tool.setuptools] packages: {missing}"
    assert not loose, f"folders without an __init__.py: {loose}"
