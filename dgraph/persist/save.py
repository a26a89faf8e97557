"""Saving a graph: each worker writes the blocks it holds, the client writes nothing but asks.

``save`` writes a directory (``dgraph.persist.files``): every rank's block from the worker
that holds it, the tables (labels, orders, the layout's plan) from the worker that holds each,
and, once all of them are in place, the manifest listing every file with its checksum. Nothing
is gathered to the client but each file's size and checksum.
"""

from __future__ import annotations

import os
from typing import Any

from distributed import wait

from ..errors import DgraphInputError
from ..layout import LAYOUTS, Layout, layout_named
from . import files
from .files import FORMAT, VERSION, Writer

TABLES = ("labels", "canonical", "order", "extra")  # the graph's tables beside its blocks


def layout_text(layout: Layout) -> dict:
    """A layout as JSON that ``layout_named`` makes it again from: its registered name and options."""
    name = str(getattr(type(layout), "name", ""))
    if LAYOUTS.get(name) is not type(layout):
        raise DgraphInputError(
            f"layout {layout!r} is not registered under its name (dgraph.layout.register_layout), so a saved graph "
            "could not name it; register it first"
        )
    options = layout.options()
    again = layout_named(name, **options)
    if repr(again) != repr(layout):
        raise DgraphInputError(f"layout {layout!r} comes back from its options {options} as {again!r}: not saved")
    return {"name": name, "options": options}


def save(graph: Any, path: str | os.PathLike, *, overwrite: bool = False) -> None:
    """Write ``graph`` to the directory ``path``, which every worker sees (``dgraph.load`` reads it).

    Each worker writes its ranks' blocks; the manifest goes last, so a directory without one is
    an unfinished save. A path that exists and is not empty is refused unless ``overwrite=True``
    and it holds a saved graph (never other files).

    >>> import os, tempfile, dgraph
    >>> g = dgraph.datasets.load("karate")
    >>> with tempfile.TemporaryDirectory() as d:
    ...     g.save(os.path.join(d, "karate"))
    ...     sorted(os.listdir(os.path.join(d, "karate")))
    ['DGRAPH', 'manifest.json', 'ranks', 'tables']
    """
    store, client = graph.store, graph.client
    store.check()
    layout = layout_text(store.layout)
    attributes = _attributes(store)
    root = files.where(path)
    files.asked(client, files.prepare, root, overwrite)
    labels = graph.codec.labels
    tables = {"labels": labels.index, "canonical": labels.canonical, "order": graph.codec.order, "extra": store.extra}
    beside = getattr(store, "vertex_tables", None) or [None] * len(store.blocks)  # vertex attributes, per rank
    try:
        where = store.where(store.blocks)
        ranks = [
            client.submit(
                _write,
                root,
                f"ranks/{r:05d}",
                {"block": b} if v is None else {"block": b, "vertices": v},
                workers=[w],
                allow_other_workers=True,
                pure=False,
            )
            for r, (b, v, w) in enumerate(zip(store.blocks, beside, where))
        ]
        held = {name: t for name, t in tables.items() if t is not None}
        written = [client.submit(_write, root, "tables", {name: t}, pure=False) for name, t in held.items()]
        wait([*ranks, *written])
        ranks, written = client.gather(ranks), client.gather(written)
        trees = {name: w["values"][name] for name, w in zip(held, written)}
        if labels.sorted is None:
            sorted_is = "none"
        elif labels.index is not None and labels.sorted.key == labels.index.key:
            sorted_is = "index"
        else:
            sorted_is = "derived"  # by degree: the sorted labels are index[canonical]
        manifest = {
            "format": FORMAT,
            "version": VERSION,
            "n": int(store.n),
            "directed": bool(store.directed),
            "weighted": bool(store.weighted),
            "weight": graph.weight if isinstance(graph.weight, (str, int)) else None,
            "dedup": bool(store.dedup),
            "policies": dict(getattr(store, "policies", {}) or {}),
            "layout": layout,
            "ranks": len(store.blocks),
            "bounds": [int(b) for b in store.bounds],
            "labels": {"n": int(labels.n), "dtype": files.dtype_text(labels.dtype), "sorted": sorted_is},
            "attributes": attributes,
            "tables": {name: trees.get(name) for name in TABLES},
            "blocks": [rank["values"] for rank in ranks],
            "files": {rel: meta for part in [*ranks, *written] for rel, meta in part["files"].items()},
        }
        files.asked(client, files.write_manifest, root, manifest)
    except BaseException:
        client.submit(files.discard, root, pure=False).result()
        raise


def _attributes(store: Any) -> dict:
    """The graph's edge and vertex attributes and their dtypes, as its store keeps them (the
    weight among the edge attributes; none on a graph built without attributes)."""
    try:
        return {
            "edge": {str(k): files.dtype_text(v) for k, v in getattr(store, "edge_dtypes", {}).items()},
            "vertex": {str(k): files.dtype_text(v) for k, v in getattr(store, "vertex_dtypes", {}).items()},
        }
    except TypeError as exc:
        raise DgraphInputError(f"cannot save this graph's attributes: {exc} has no saved form") from None


def _write(root: str, folder: str, values: dict) -> dict:
    """``values`` written under ``folder``: {"values": their trees, "files": the files written}."""
    writer = Writer(root, folder)
    try:
        trees = {name: writer.encode(value, name) for name, value in values.items()}
    except TypeError as exc:
        raise DgraphInputError(
            f"cannot save this graph's {folder}: {exc}; labels and attributes must be numbers, strings or other "
            "values of one type per column (convert others, for example with .astype(str))"
        ) from None
    return {"values": trees, "files": writer.files}
