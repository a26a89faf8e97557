"""What networkx reads about the dgraph backend when it starts (its ``networkx.backend_info``
entry point): kept apart from the ``dgraph`` package so that ``import networkx`` does not import
dask. The backend itself is ``dgraph.nx``; ``functions.py`` is written from its list
(``python -m dgraph.nx.info``)."""

from .functions import NOTES  # function -> what a user of networkx should know when dgraph runs it


def get_info():
    """The backend's name and each function it runs, with its notes."""
    return {
        "backend_name": "dgraph",
        "project": "dgraph",
        "package": "dask-dgraph",
        "short_summary": "Distributed graph analytics on Dask: runs networkx calls on a dask cluster.",
        "functions": {name: {"additional_docs": notes} for name, notes in NOTES.items() if notes}
        | {name: {} for name, notes in NOTES.items() if not notes},
    }
