"""Owner arithmetic: every layout owns vertices in contiguous ranges of placed ids, rank r the
ids ``bounds[r]:bounds[r + 1]``, so who owns a vertex is a search in ``bounds``; and the
canonical ids of a rank's own vertices."""

from __future__ import annotations

import numpy as np


def owner_of(ids, bounds):
    """The rank owning each placed id.

    >>> owner_of(np.array([0, 3, 4, 9]), np.array([0, 4, 6, 10])).tolist()
    [0, 0, 1, 2]
    """
    return np.searchsorted(bounds, ids, side="right") - 1


def own_canonical(key, lo, hi):
    """Canonical ids of the placed ids lo..hi-1 (``key``: placed id -> canonical id, None where
    they are equal)."""
    return np.arange(lo, hi, dtype=np.int64) if key is None else np.array(key[lo:hi], dtype=np.int64)


def placed_of(key, canonical):
    """Placed ids of canonical ids: the same ids without a ``key``, else through its inverse."""
    if key is None:
        return canonical
    placed = np.empty(key.size, dtype=np.int64)
    placed[key] = np.arange(key.size, dtype=np.int64)
    return placed[canonical]
