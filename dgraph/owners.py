"""Owner arithmetic: every layout owns vertices in contiguous ranges of placed ids, rank r the
ids ``bounds[r]:bounds[r + 1]``, so who owns a vertex is a search in ``bounds``; and keyed ids,
which order vertices canonically wherever a placement reorders them."""

from __future__ import annotations

import numpy as np


def index_type(n):
    """The type of ids or positions among ``n`` vertices: int32 while they fit (half the bytes)."""
    return np.int32 if n <= np.iinfo(np.int32).max else np.int64


def owner_of(ids, bounds):
    """The rank owning each placed id.

    >>> owner_of(np.array([0, 3, 4, 9]), np.array([0, 4, 6, 10])).tolist()
    [0, 0, 1, 2]
    """
    return np.searchsorted(bounds, ids, side="right") - 1


def grouped_by_owner(owner, ranks):
    """The stable order that groups ``owner`` (rank numbers below ``ranks``) by rank. numpy
    sorts 16-bit integers stably by radix, several times faster than int64 by comparison."""
    return np.argsort(owner.astype(np.int16) if ranks <= np.iinfo(np.int16).max else owner, kind="stable")


def dealt(owner, ranks):
    """A placement from each vertex's rank: (order, bounds), the vertices grouped by rank, each
    rank's in id order, and where each rank's contiguous range of placed ids starts."""
    bounds = np.zeros(ranks + 1, dtype=np.int64)
    np.cumsum(np.bincount(owner, minlength=ranks), out=bounds[1:])
    return grouped_by_owner(owner, ranks).astype(index_type(owner.size), copy=False), bounds


def by_owner(bounds, ids, *columns):
    """``{owner: [ids, *columns]}``: the ids (sorted) each rank owns, with the columns along them;
    ranks that own none are left out.

    >>> by_owner(np.array([0, 4, 6]), np.array([5, 1]), np.array([50, 10]))
    {0: [array([1]), array([10])], 1: [array([5]), array([50])]}
    """
    order = np.argsort(ids, kind="stable")
    ids, columns = ids[order], [c[order] for c in columns]
    cuts = np.searchsorted(ids, bounds)
    return {d: [ids[a:b]] + [c[a:b] for c in columns] for d, (a, b) in enumerate(zip(cuts[:-1], cuts[1:])) if b > a}


KEYED_LIMIT = 1 << 31  # a placement that reorders vertices numbers at most this many (keyed ids)
PLACED_BITS = np.int64((1 << 32) - 1)


def keyed(placed, canonical):
    """Keyed ids: ``canonical << 32 | placed``, which sort as the canonical ids do and carry the
    placed ids, so ties between vertices anywhere are broken by comparing ids, with no table of
    every vertex's canonical id on a worker. Where placed ids are canonical (``canonical`` None)
    they are the placed ids themselves.

    >>> keyed(np.array([0, 1]), np.array([7, 2])).tolist() == [7 << 32, 2 << 32 | 1]
    True
    """
    placed = np.asarray(placed, dtype=np.int64)
    if canonical is None:
        return placed
    return (np.asarray(canonical, dtype=np.int64) << 32) | placed


def placed_of(ids):
    """The placed ids of keyed ids (-1, no vertex, stays -1).

    >>> placed_of(np.array([7 << 32, 2 << 32 | 1, -1])).tolist()
    [0, 1, -1]
    """
    ids = np.asarray(ids, dtype=np.int64)
    return np.where(ids < 0, ids, ids & PLACED_BITS)
