"""The classes of vertices in layouts with heavy vertices (1.5D): extreme, heavy or light."""

from __future__ import annotations

import numpy as np


class HeavyIndex:
    """For layouts with heavy vertices (1.5D): each vertex's heavy index (``index``: -1 for
    light ones) and class (``classes[ids]``: 0 L, 1 H, 2 E), by a binary search over the heavy
    vertices rather than a table over all n.

    >>> h = HeavyIndex(np.array([9, 4, 7]), n_extreme=1)
    >>> h.index(np.array([4, 5, 9])).tolist(), h[np.array([4, 5, 9])].tolist(), h[3:6].tolist()
    ([1, -1, 0], [1, 0, 2], [0, 1, 0])
    """

    def __init__(self, heavy, n_extreme):
        self.order = np.argsort(heavy, kind="stable")
        self.sorted = np.asarray(heavy)[self.order]
        self.n_extreme = int(n_extreme)

    def index(self, ids):
        ids = np.asarray(ids)
        if self.sorted.size == 0:
            return np.full(ids.shape, -1, np.int64)
        pos = np.minimum(np.searchsorted(self.sorted, ids), self.sorted.size - 1)
        return np.where(self.sorted[pos] == ids, self.order[pos], -1)

    def __getitem__(self, ids):
        if isinstance(ids, slice):
            ids = np.arange(ids.start, ids.stop)
        idx = self.index(ids)
        return np.where(idx < 0, 0, np.where(idx < self.n_extreme, 2, 1)).astype(np.int8)


def heavy_index(block):
    """The ``HeavyIndex`` of a block of a layout with heavy vertices (1.5D), else None."""
    heavy = getattr(block, "heavy", None)
    return None if heavy is None else HeavyIndex(heavy, block.n_extreme)
