"""A pytest plugin for running networkx's own tests against the backend
(``pytest -p dgraph.nx.testing --pyargs networkx...`` with ``NETWORKX_TEST_BACKEND=dgraph``):
at the end it writes how often dgraph ran each function it implements to the JSON file named
by ``DGRAPH_NX_REPORT``, so a run that silently fell back to networkx shows as zeros. With
``DGRAPH_NX_SCHEDULER`` (an address) the calls run on that cluster instead of one of their own."""

from __future__ import annotations

import json
import os


def pytest_sessionstart(session):
    address = os.environ.get("DGRAPH_NX_SCHEDULER")
    if address:
        from distributed import Client

        session.config._dgraph_client = Client(address, set_as_default=True)


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get("DGRAPH_NX_REPORT")
    if not path:
        return
    from .functions import CALLS, IMPLEMENTED

    with open(path, "w") as f:
        json.dump({name: CALLS.get(name, 0) for name in sorted(IMPLEMENTED)}, f, indent=1)
