"""Real graphs shipped inside the package: ``dgraph.datasets.load(name)`` gives a Graph, offline.

The files are kept as published (gzip; see ``README.md`` in this directory for formats, sources,
citations and terms). ``load`` parses each format (SNAP text, Matrix Market, DIMACS ``.gr``,
GML, ``cal.cedge``, Cora's citation list, Wikispeedia's TSV of article names, a Rutherford-Boeing
matrix) and attaches the dataset's ground truth, where it has one, as ``graph.ground_truth``: a
pandas Series indexed by vertex label (email-Eu-core's departments, football's conferences,
polbooks' leanings, polblogs' sides).

| name | kind | directed | weighted | vertices | edges |
|---|---|---|---|---|---|
| karate, dolphins, football, polbooks | small social graphs (GML) | no | no | 34 - 115 | 78 - 613 |
| polblogs | political blogs (GML) | yes | no | 1,490 | 19,090 records |
| email-Eu-core | e-mail, 42 departments | yes | no | 1,005 | 25,571 |
| ca-GrQc | co-authorship | no | no | 5,242 | 14,496 |
| facebook_combined | social | no | no | 4,039 | 88,234 |
| wiki-Vote | voting | yes | no | 7,115 | 103,689 |
| soc-Slashdot0902 | social | yes | no | 82,168 | 948,464 |
| luxembourg_osm | road | no | no | 114,599 | 119,666 |
| rome99 | road, metres | yes | yes | 3,353 | 8,870 |
| cal_road | road, distances | no | yes | 21,048 | 21,693 |
| cora | citations | yes | no | 2,708 | 5,429 |
| wikispeedia | Wikipedia links | yes | no | 4,604 | 119,882 |
| wb-cs-stanford | web pages | yes | no | 9,914 | 36,854 |

>>> import dgraph
>>> g = dgraph.datasets.load("football")
>>> g.num_vertices, g.num_edges, g.ground_truth.nunique()
(115, 613, 12)
"""

from __future__ import annotations

import gzip
import os
import re
import tarfile
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..errors import DgraphInputError

if TYPE_CHECKING:
    from ..graph import Graph

_HERE = os.path.dirname(__file__)

# name -> (file, how to read it, directed, weighted)
_FILES = {
    "karate": ("karate/karate.gml.gz", "gml", False, False),
    "dolphins": ("dolphins/dolphins.gml.gz", "gml", False, False),
    "football": ("football/football.gml.gz", "gml", False, False),
    "polbooks": ("polbooks/polbooks.gml.gz", "gml", False, False),
    "polblogs": ("polblogs/polblogs.gml.gz", "gml", True, False),
    "email-Eu-core": ("email-Eu-core/email-Eu-core.txt.gz", "snap", True, False),
    "ca-GrQc": ("ca-GrQc/ca-GrQc.txt.gz", "snap", False, False),
    "facebook_combined": ("facebook_combined/facebook_combined.txt.gz", "snap", False, False),
    "wiki-Vote": ("wiki-Vote/wiki-Vote.txt.gz", "snap", True, False),
    "soc-Slashdot0902": ("soc-Slashdot0902/soc-Slashdot0902.txt.gz", "snap", True, False),
    "luxembourg_osm": ("luxembourg_osm/road-luxembourg-osm.mtx.gz", "mtx", False, False),
    "rome99": ("rome99/rome99.gr.gz", "gr", True, True),
    "cal_road": ("cal_road/cal.cedge.gz", "cedge", False, True),
    "cora": ("cora/cora.cites.gz", "cora", True, False),
    "wikispeedia": ("wikispeedia/links.tsv.gz", "wikispeedia", True, False),
    "wb-cs-stanford": ("wb-cs-stanford/wb-cs-stanford.tar.gz", "rb", True, False),
}


def available() -> list[str]:
    """Names of the embedded datasets."""
    return list(_FILES)


def properties(name: str) -> dict[str, bool]:
    """``{"directed": bool, "weighted": bool}``: how the embedded dataset ``name`` loads by default.

    >>> properties("rome99")
    {'directed': True, 'weighted': True}
    """
    path(name)  # an unknown name: the error that lists the datasets
    _, _, directed, weighted = _FILES[name]
    return {"directed": directed, "weighted": weighted}


def path(name: str) -> str:
    """File path of an embedded dataset's edge file."""
    if name not in _FILES:
        raise DgraphInputError(f"unknown dataset {name!r}; embedded datasets: {available()}")
    return os.path.join(_HERE, _FILES[name][0])


def _lines(file):
    with gzip.open(file, "rt", encoding="utf-8", errors="replace") as f:
        yield from f


def _gml_values(file):
    """Node id -> its ``value`` attribute in a GML file (None when the file has none)."""
    text = "".join(_lines(file))
    values = {}
    for body in re.findall(r"\bnode\s*\[(.*?)\]", text, flags=re.S):
        ident, value = re.search(r"\bid\s+(-?\d+)", body), re.search(r'\bvalue\s+("?)([^"\s]+)\1', body)
        if ident and value:
            raw = value.group(2)
            values[int(ident.group(1))] = int(raw) if raw.lstrip("-").isdigit() else raw
    return pd.Series(values, name="ground_truth") if values else None


def _wikispeedia():
    def names(file):
        return [ln.rstrip("\n") for ln in _lines(file) if ln.strip() and not ln.startswith("#")]

    links = [ln.split("\t") for ln in names(path("wikispeedia"))]
    edges = pd.DataFrame(links, columns=["src", "dst"])
    return edges, pd.Series(names(os.path.join(_HERE, "wikispeedia", "articles.tsv.gz")))


def _rutherford_boeing():
    """Compressed-column pattern matrix -> (row i links to column j) edges, 1-based ids kept."""
    with tarfile.open(path("wb-cs-stanford")) as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith(".rb"))
        lines = tar.extractfile(member).read().decode().splitlines()
    ncol = int(lines[2].split()[2])
    numbers = np.array(" ".join(lines[4:]).split(), dtype=np.int64)
    colptr, rows = numbers[: ncol + 1], numbers[ncol + 1 :]
    cols = np.repeat(np.arange(1, ncol + 1), np.diff(colptr))
    return pd.DataFrame({"src": rows, "dst": cols}), pd.Series(np.arange(1, ncol + 1))


def load(name: str, **graph_kwargs: Any) -> Graph:
    """The embedded dataset ``name`` as a Graph, with ``graph.ground_truth`` (a Series of each
    vertex's group, or None). Keyword arguments go to ``from_edgelist`` / ``read_edgelist``
    (``layout=``, ``ranks=``, ``directed=`` to override ...).

    >>> import dgraph
    >>> g = dgraph.datasets.load("rome99")
    >>> g.directed, g.weight, g.num_vertices
    (True, 'weight', 3353)
    """
    from ..build import from_edgelist
    from ..io import read_edgelist

    file = path(name)
    _, kind, directed, weighted = _FILES[name]
    graph_kwargs.setdefault("directed", directed)
    if kind in ("gml", "snap", "mtx"):
        g = read_edgelist(file, **graph_kwargs)
    elif kind == "gr":
        g = read_edgelist(file, weight="weight", **graph_kwargs)
    elif kind == "cedge":  # EdgeID StartNodeID EndNodeID L2Distance
        edges = pd.read_csv(file, sep=" ", header=None, names=["edge", "src", "dst", "distance"])
        g = from_edgelist(edges, weight="distance", **graph_kwargs)
    elif kind == "cora":  # <cited> <citing>: the citation goes from the second column to the first
        g = read_edgelist(file, format="tsv", source=1, destination=0, **graph_kwargs)
    else:
        edges, vertices = _wikispeedia() if kind == "wikispeedia" else _rutherford_boeing()
        graph_kwargs.setdefault("vertices", vertices)
        g = from_edgelist(edges, **graph_kwargs)
    return g._replace(ground_truth=ground_truth(name))


def ground_truth(name: str) -> pd.Series | None:
    """The dataset's known groups as a Series indexed by vertex label, or None."""
    file = path(name)
    if name == "email-Eu-core":
        rows = [
            ln.split()
            for ln in _lines(os.path.join(_HERE, "email-Eu-core", "email-Eu-core-department-labels.txt.gz"))
            if ln.strip()
        ]
        return pd.Series({int(v): int(d) for v, d in rows}, name="ground_truth").sort_index()
    if _FILES[name][1] == "gml":
        values = _gml_values(file)
        return None if values is None else values.sort_index()
    return None
