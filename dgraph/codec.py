"""LabelCodec: a graph's user labels <-> the placed ids its ranks work in.

A label's canonical id is its position in the graph's vertex order (``dgraph.labels``); the
layout may place vertices in another order (2D meshes, hubs dealt in turn), so a placed id is
the canonical id through the graph's inverse order. The tables live on a worker; the client
keeps only a few looked-up ids.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from distributed import Client, Future

from .errors import DgraphInputError
from .labels import Labels, lookup
from .runtime.launch import lookup_held

PLACED_REMEMBERED = 1024  # labels a codec remembers the placed ids of (vertex_param)


def _compose(canonical: Any, inverse: Any) -> Any:
    """Position -> placed id, from position -> canonical id and canonical -> placed id."""
    if canonical is None or inverse is None:
        return inverse if canonical is None else canonical
    return inverse[canonical]


def _placed_id(sorted_labels: Any, table: Any, label: Any, what: str, dtype: Any) -> int:
    position = lookup(sorted_labels, None, [label], what, dtype)[0]
    return int(position if table is None else table[position])


def _canonical_to_placed(inverse: np.ndarray, canonical: Any) -> np.ndarray:
    return inverse[canonical]


def _refuse_missing(labels: list, what: str) -> None:
    """Missing labels (None, NaN) are refused here, on the client: looked up on a worker they
    would fail a task there, which the worker logs before the caller sees the error."""
    missing = pd.isna(np.asarray(labels, dtype=object))
    if missing.any():
        label = labels[int(np.argmax(missing))]
        raise DgraphInputError(f"{what} is {label!r}, not a vertex label: give one of the graph's vertices")


class LabelCodec:
    """Encodes a graph's labels to placed ids on the client's behalf.

    ``labels`` is the graph's ``dgraph.labels.Labels``; ``order`` (placed id -> canonical id)
    and ``inverse`` (canonical id -> placed id) are futures, or None where the placement keeps
    the canonical order.

    >>> import dgraph
    >>> g = dgraph.datasets.load("karate")
    >>> int(g.codec.vertex_param(34)) == int(g.codec.encode([34])[0])
    True
    """

    def __init__(self, client: Client, labels: Labels, *, order: Future | None, inverse: Future | None) -> None:
        self.client = client
        self.labels = labels
        self.order = order
        self.inverse = inverse
        self._table: Future | None = None
        self._placed: dict[tuple[type, Any], int] = {}

    @property
    def ids_are_labels(self) -> bool:
        """Whether a placed id is the user's label itself (labels 0..n-1 kept in their order)."""
        return self.labels.index is None and self.order is None

    def table(self) -> Future | None:
        """A future of each label position's placed id, or None where that is the position."""
        if self._table is None and (self.labels.canonical is not None or self.inverse is not None):
            self._table = self.client.submit(_compose, self.labels.canonical, self.inverse)
        return self._table

    def encode(self, values: Any, what: str = "vertex") -> np.ndarray:
        """Placed ids of user labels (a DgraphInputError names the first unknown label)."""
        values = list(values)
        _refuse_missing(values, what)
        labels, table = self.labels, self.table()
        if labels.sorted is None:
            values = labels.positions(values, what)
            if table is None:
                return values
        placed = lookup_held(self.client, labels.sorted, table, list(values), what, labels.dtype)
        if placed is not None:
            return placed
        return self.client.submit(lookup, labels.sorted, table, list(values), what, labels.dtype, pure=False).result()

    def vertex_param(self, label: Any, what: str = "vertex") -> int | Future:
        """The placed id of one user label, as a run's param: the int itself when the client can
        tell (labels 0..n-1 placed in their order) or can ask the worker holding the label
        tables directly, else a future of it, looked up there by a task; so only the id reaches
        the run's workers, not tables of every vertex (an unknown label fails the call as a
        DgraphInputError before the run starts). Ids asked of the workers are remembered (up to
        ``PLACED_REMEMBERED`` labels): calls from the same source skip that round trip."""
        _refuse_missing([label], what)
        key: tuple[type, Any] | None = (type(label), label)
        try:
            return self._placed[key]  # type: ignore[index]
        except KeyError:
            pass
        except TypeError:  # a label no dict can hold: asked each time
            key = None
        labels, table = self.labels, self.table()
        if labels.sorted is None:
            position = int(labels.positions([label], what)[0])
            if table is None:
                return position
        placed = lookup_held(self.client, labels.sorted, table, [label], what, labels.dtype)
        if placed is None:
            return self.client.submit(_placed_id, labels.sorted, table, label, what, labels.dtype)
        if key is not None:
            if len(self._placed) >= PLACED_REMEMBERED:
                self._placed.clear()
            self._placed[key] = int(placed[0])
        return int(placed[0])

    def placed_ids(self, canonical: Any) -> np.ndarray:
        """Placed ids of canonical ids (the sorted positions of labels)."""
        if self.inverse is not None:
            canonical = self.client.submit(_canonical_to_placed, self.inverse, canonical).result()
        return np.asarray(canonical, dtype=np.int64)
