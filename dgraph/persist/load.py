"""Loading a saved graph: each worker reads its ranks' blocks, and no construction runs again.

``load`` reads the manifest on a worker, then has the worker that will hold each rank read that
rank's files (checked against the manifest's sizes and checksums) and the tables (labels, orders,
the layout's plan) read where dask puts them. The ranks spread over the workers present, however
many that is. A block's task reads its files again if its worker is lost, as a built block's
task places its arcs again. A damaged copy fails before the Graph exists, with every future of
it released.
"""

from __future__ import annotations

import os
import uuid
from typing import Any

import numpy as np
from distributed import Client, wait

from ..build import _graph, _spread
from ..cluster import get_client, workers
from ..errors import DgraphInputError, DgraphRunError
from ..graph import Graph
from ..labels import Labels, inverse_permutation
from ..layout import LAYOUTS, Layout, layout_named
from ..placement import PlacementSpec
from ..runtime.launch import ensure_plugin
from . import files
from .files import MANIFEST, Reader

# what a manifest says of the graph, beside the format and its version
FACTS = (
    "n",
    "directed",
    "weighted",
    "weight",
    "dedup",
    "layout",
    "ranks",
    "bounds",
    "labels",
    "tables",
    "blocks",
    "files",
)


def load(path: str | os.PathLike, *, client: Client | None = None, layout: str | Layout | None = None) -> Graph:
    """The graph saved at ``path`` (by ``Graph.save``), placed on the workers of ``client``.

    Each worker reads its ranks' files itself, so ``path`` is a directory every worker sees: a
    local path on one machine, shared storage, or an fsspec URL (``file://``). The ranks are the
    saved ones, spread over however many workers there are now. ``layout`` (a name or a layout
    object) only checks: a graph saved in another layout is refused, as load reads blocks and
    does not place arcs. A damaged copy (a missing, truncated or changed file, a manifest of a
    newer format) is a ``DgraphInputError`` naming the file and what is wrong. Once loaded, the
    blocks are in the workers' memory; a worker lost later reads its ranks' files again, so keep
    the directory while the graph is in use.

    >>> import os, tempfile, dgraph
    >>> g = dgraph.datasets.load("karate", ranks=2)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     g.save(os.path.join(d, "karate"))
    ...     h = dgraph.load(os.path.join(d, "karate"))
    >>> h
    <dgraph.Graph undirected n=34 m=78 layout=OneD(ranks=2, balance='degree')>
    >>> int(dgraph.algorithms.bfs(h, 1).compute().distance.max())
    3
    """
    client = client or get_client()
    ensure_plugin(client)  # before the first task, as a build does
    root = files.where(path)
    manifest = files.asked(client, files.read_manifest, root)
    missing = [k for k in FACTS if k not in manifest]
    if missing:
        raise files.damaged(root, MANIFEST, f"lacks the graph's {', '.join(missing)}")
    try:
        saved = layout_named(manifest["layout"]["name"], **manifest["layout"]["options"])
        P, bounds, trees = int(manifest["ranks"]), np.asarray(manifest["bounds"], np.int64), manifest["blocks"]
        n, by_folder = int(manifest["n"]), dict[str, dict]()  # each folder's files
        for rel, meta in manifest["files"].items():
            by_folder.setdefault(rel.rsplit("/", 1)[0], {})[rel] = meta
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise files.damaged(root, MANIFEST, f"does not describe a graph this dgraph reads ({exc!r})") from None
    if saved.ranks != P or len(trees) != P or bounds.size != P + 1:
        raise files.damaged(root, MANIFEST, f"disagrees with itself on the rank count ({P}, {saved!r})")
    if layout is not None:
        _same_layout(layout, saved, root)
    live = workers(client)
    if not live:
        raise DgraphRunError("the cluster has no workers to load the graph on; start some, then load again")
    where, token, futures = _spread(live, P), uuid.uuid4().hex[:12], []

    def read(tree: Any, folder: str, name: str, **placed: Any) -> Any:
        """A future of the value ``tree`` describes, read from its files in ``folder``."""
        mine = by_folder.get(folder, {})
        futures.append(client.submit(_read, root, tree, mine, key=f"dgraph-load-{name}-{token}", **placed))
        return futures[-1]

    try:
        blocks = [
            read(tree["block"], f"ranks/{r:05d}", f"rank-{r}", workers=[w], allow_other_workers=True)
            for r, (tree, w) in enumerate(zip(trees, where))
        ]
        vertex_tables = [
            read(tree["vertices"], f"ranks/{r:05d}", f"vertices-{r}", workers=[w], allow_other_workers=True)
            for r, (tree, w) in enumerate(zip(trees, where))
            if "vertices" in tree
        ]
        tables = {name: None if t is None else read(t, "tables", name) for name, t in manifest["tables"].items()}
        wait(futures)
        for f in futures:
            if f.status == "error":
                f.result()  # raises the first damage found, in rank order
        order, index, canonical = tables["order"], tables["labels"], tables["canonical"]
        inverse = None if order is None else client.submit(inverse_permutation, order, key=f"dgraph-inverse-{token}")
        sorted_is = manifest["labels"]["sorted"]
        sorted_labels = {"none": None, "index": index}.get(sorted_is)
        if sorted_is == "derived":
            sorted_labels = client.submit(_taken, index, canonical, key=f"dgraph-sorted-{token}")
        labels = Labels(
            n, index, files.dtype_of(manifest["labels"]["dtype"]), sorted=sorted_labels, canonical=canonical
        )
    except BaseException:
        client.cancel(futures)
        raise
    spec = PlacementSpec(saved, bounds, n, "out", bool(manifest["dedup"]), bool(manifest["weighted"]))
    g = _graph(
        client,
        labels,
        blocks,
        spec,
        directed=bool(manifest["directed"]),
        weight=manifest["weight"],
        order=order,
        inverse=inverse,
        extra=tables["extra"],
    )
    g.store.policies = dict(manifest.get("policies") or {})  # what updates follow (a build's self_loops, vertex_order)
    attributes = manifest.get("attributes") or {}
    if attributes.get("edge") or attributes.get("vertex"):  # the store keeps them, beside the blocks
        kept = {
            "edge_dtypes": {k: files.dtype_of(v) for k, v in attributes["edge"].items()},
            "vertex_dtypes": {k: files.dtype_of(v) for k, v in attributes["vertex"].items()},
            "vertex_tables": vertex_tables or None,
            "weight": manifest["weight"],
        }
        for name, value in kept.items():
            setattr(g.store, name, value)
    return g


def _read(root: str, tree: Any, mine: dict) -> Any:
    return Reader(root, mine).decode(tree)


def _taken(index: Any, positions: np.ndarray) -> Any:
    """The labels in sorted order, from the labels by canonical id: index[canonical[p]]."""
    return index[positions]


def _same_layout(given: str | Layout, saved: Layout, root: str) -> None:
    """Refuse a ``layout=`` that is not the saved graph's: the options it gives (None: any)
    must be the saved layout's."""
    if isinstance(given, str):
        same = LAYOUTS.get(given.lower()) is type(saved)
    elif isinstance(given, Layout):
        theirs = saved.options()
        same = type(given) is type(saved) and all(v is None or v == theirs.get(k) for k, v in given.options().items())
    else:
        raise DgraphInputError(f"layout must be a name or a dgraph.partitioners layout, got {type(given).__name__}")
    if not same:
        raise DgraphInputError(
            f"{root} holds a graph placed as {saved!r}, not as layout={given!r}; load reads the saved blocks and "
            "places no arcs: load it with layout=None, or build the other layout from its edges, "
            "g = dgraph.load(path); dgraph.from_edgelist(g.edges(), weight=g.weight, directed=g.directed, layout=...)"
        )
