"""Writes ``_dgraph_nx/functions.py``, the table of functions networkx reads about the backend
before it imports dgraph (and dask), from the backend's own list and notes
(``dgraph.nx.functions``: the registry's networkx names). Run ``python -m dgraph.nx.info`` after
changing either; ``tests/test_nx_backend.py`` checks the table agrees."""

from __future__ import annotations

import importlib.util
import json
import os
import textwrap

from .functions import IMPLEMENTED, NOTES

WIDTH = 120  # pyproject's line length for ruff


def target() -> str:
    """The path of ``_dgraph_nx/functions.py`` (found without importing it: it may not exist yet)."""
    spec = importlib.util.find_spec("_dgraph_nx")
    assert spec is not None and spec.submodule_search_locations
    return os.path.join(spec.submodule_search_locations[0], "functions.py")


def table() -> dict[str, str]:
    """Each function the backend runs -> its note (empty when there is nothing to add)."""
    return {name: NOTES[name] for name in IMPLEMENTED}


def render() -> str:
    """The text of ``_dgraph_nx/functions.py``."""
    lines = [
        '"""The functions the dgraph backend runs, with what a user of networkx should know: written by',
        '``python -m dgraph.nx.info`` from ``dgraph.algorithms.REGISTRY`` and ``dgraph.nx``\'s notes."""',
        "",
        "NOTES = {",
    ]
    for name, note in table().items():
        # as ruff formats it: on the key's line, else alone in brackets, else wrapped
        pieces = textwrap.wrap(note, width=96, drop_whitespace=False, break_on_hyphens=False) or [""]
        if len(f"    {json.dumps(name)}: {json.dumps(note)},") <= WIDTH:
            lines.append(f"    {json.dumps(name)}: {json.dumps(note)},")
        elif len(f"        {json.dumps(note)}") <= WIDTH:
            lines += [f"    {json.dumps(name)}: (", f"        {json.dumps(note)}", "    ),"]
        else:
            lines.append(f"    {json.dumps(name)}: (")
            lines += [f"        {json.dumps(piece)}" for piece in pieces]
            lines.append("    ),")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main() -> None:
    with open(target(), "w") as f:
        f.write(render())
    print(f"wrote {target()}: {len(table())} functions")


if __name__ == "__main__":
    main()
