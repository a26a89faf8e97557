"""The house's layering, read off the installed package's source.

Every ``import`` of a dgraph module counts, inside functions too: layouts import the core and
never the reverse, and the import graph has no cycle (an import of a module's own enclosing
package, whose ``__init__`` runs first anyway, is not an edge). Imports under ``if
TYPE_CHECKING:`` never run: they name types for annotations and are not edges.
"""

import ast
import os

import dgraph
import dgraph.algorithms
import dgraph.partitioners


def _modules():
    """module name -> (path, is a package's __init__)."""
    roots = {
        "dgraph": os.path.dirname(dgraph.__file__),
        "dgraph.partitioners": os.path.dirname(dgraph.partitioners.__file__),
        "dgraph.algorithms": os.path.dirname(dgraph.algorithms.__file__),
    }
    mods = {}
    for pkg, root in roots.items():
        for here, _, files in os.walk(root):
            rel = os.path.relpath(here, root)
            parts = [] if rel == "." else rel.split(os.sep)
            if "__pycache__" in parts or (pkg == "dgraph" and parts[:1] in (["partitioners"], ["algorithms"])):
                continue
            for f in files:
                if f.endswith(".py"):
                    name = ".".join([pkg, *parts] + ([] if f == "__init__.py" else [f[:-3]]))
                    mods[name] = (os.path.join(here, f), f == "__init__.py")
    return mods


def _runtime_nodes(tree):
    """Every node of ``tree`` but those under ``if TYPE_CHECKING:``."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            test = child.test if isinstance(child, ast.If) else None
            if not (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"):
                todo.append(child)


def _imports(mods):
    """module -> the dgraph modules it imports anywhere in its source."""
    edges = {}
    for name, (path, is_pkg) in mods.items():
        found = set()
        with open(path) as f:
            tree = ast.parse(f.read())
        for node in _runtime_nodes(tree):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = name.split(".") if is_pkg else name.split(".")[:-1]
                    base = base[: len(base) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                for a in node.names:
                    found.add(f"{target}.{a.name}" if f"{target}.{a.name}" in mods else target)
        own_packages = {p for p in mods if mods[p][1] and name.startswith(p + ".")}
        edges[name] = {t for t in found if t in mods and t != name and t not in own_packages}
    return edges


def _cycles(edges):
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in edges:
        if v not in index:
            visit(v)
    return out


def test_the_checker_sees_function_level_imports_and_cycles():
    edges = _imports(_modules())
    assert "dgraph.block" in edges["dgraph.layout"]  # a top-level import
    assert "dgraph.report" in edges["dgraph.graph"]  # imported inside a method
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycle_in_the_package():
    assert _cycles(_imports(_modules())) == []


def test_layouts_import_the_core_and_never_the_reverse():
    edges = _imports(_modules())
    into_layouts = sorted(
        (m, t)
        for m, targets in edges.items()
        for t in targets
        if t.startswith("dgraph.partitioners") and not m.startswith("dgraph.partitioners") and m != "dgraph"
    )
    assert into_layouts == [], "only dgraph/__init__ (which registers the layouts' names) may import them"
