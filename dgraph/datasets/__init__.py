"""Small real graphs shipped inside the package, as the CLI's and the examples' defaults.

* ``karate``: Zachary's karate club, 34 members, 78 friendships (undirected); GML by M. E. J.
  Newman. Zachary, J. Anthropological Research 33, 1977.
* ``ca-GrQc``: arXiv General Relativity co-authorship network, 5,242 authors, 14,496 edges
  (undirected; SNAP text, every edge listed both ways). Leskovec, Kleinberg, Faloutsos, ACM TKDD 2007.

>>> import dgraph
>>> sorted(dgraph.datasets.available())
['ca-GrQc', 'karate']
"""

from __future__ import annotations

import os

_HERE = os.path.dirname(__file__)
_FILES = {"karate": ("karate.gml.gz", False), "ca-GrQc": ("ca-GrQc.txt.gz", False)}


def available():
    """Names of the embedded datasets."""
    return list(_FILES)


def path(name):
    """File path of an embedded dataset."""
    if name not in _FILES:
        from ..errors import DgraphInputError

        raise DgraphInputError(f"unknown dataset {name!r}; embedded datasets: {available()}")
    return os.path.join(_HERE, _FILES[name][0])


def load(name, **graph_kwargs):
    """The embedded dataset ``name`` as a ``Graph`` (keyword arguments go to from_edgelist)."""
    from ..io import read_edgelist

    graph_kwargs.setdefault("directed", _FILES.get(name, (None, True))[1])
    return read_edgelist(path(name), **graph_kwargs)
