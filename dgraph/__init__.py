"""dgraph: Dask-native distributed graph analytics.

>>> import dgraph
>>> g = dgraph.datasets.load("karate")
>>> dgraph.algorithms.bfs(g, 1).compute().sort_values("vertex").head(3)
   vertex  distance  predecessor
0       1         0         <NA>
1       2         1            1
2       3         1            1
"""

import os as _os

# Installed, dgraph.partitioners and dgraph.algorithms come from the repository's top-level
# partitioners/ and algorithms/ (pyproject's package-dir). Imported straight from a source
# checkout (python -m pytest, a notebook next to the repo), find them there too.
_top = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
_checkout = all(
    _os.path.isfile(_os.path.join(_top, *p))
    for p in (("pyproject.toml",), ("algorithms", "bfs.py"), ("partitioners", "oned.py"))
)
if _checkout and _top not in __path__:
    __path__.append(_top)

# partitioners register the layouts' names; mypy reads them as the top-level partitioners/
from . import datasets, kernels, partitioners  # type: ignore[attr-defined]  # noqa: E402
from .build import from_edgelist  # noqa: E402
from .errors import (  # noqa: E402
    ConvergenceWarning,
    DgraphError,
    DgraphInputError,
    DgraphMemoryError,
    DgraphRunError,
    DgraphWarning,
)
from .graph import Graph  # noqa: E402
from .io import from_networkx, read_edgelist  # noqa: E402
from .orchestration import orchestrate  # noqa: E402
from .persist import load  # noqa: E402
from .pregel import aggregate_messages, pregel  # noqa: E402
from .weights import GRAPH_WEIGHT  # noqa: E402

__version__ = "0.1.0"

__all__ = [
    "ConvergenceWarning",
    "DgraphError",
    "DgraphInputError",
    "DgraphMemoryError",
    "DgraphRunError",
    "DgraphWarning",
    "GRAPH_WEIGHT",
    "Graph",
    "aggregate_messages",
    "datasets",
    "from_edgelist",
    "from_networkx",
    "kernels",
    "load",
    "orchestrate",
    "partitioners",
    "pregel",
    "read_edgelist",
]


def __getattr__(name):
    if name in ("algorithms", "generators"):
        import importlib

        return importlib.import_module(f"dgraph.{name}")
    raise AttributeError(f"module 'dgraph' has no attribute {name!r}")
