"""Sets of ids as sorted arrays without repeats.

``np.unique`` asked for the values alone finds them with a hash table (numpy 2.3 on), which on
mostly distinct ids, as vertex ids are, is tens of times slower than one sort. dgraph's sets of
ids come from here.
"""

from __future__ import annotations

import numpy as np


def unique(values, inplace=False):
    """The sorted distinct ``values`` of a 1-d array: integers in a range not much wider than
    their count are marked in a table (linear time), other integers sorted once (``inplace``:
    ``values`` itself, a temporary its caller gives up, is sorted), anything else as
    ``np.unique`` does.

    >>> unique(np.array([5, 3, 5, 2**40, 3])).tolist()
    [3, 5, 1099511627776]
    """
    values = np.asarray(values).ravel()
    if values.dtype.kind not in "iu":
        return np.unique(values)
    if values.size == 0:
        return values.copy()
    lo, hi = values.min(), values.max()
    if lo >= 0 and hi < 4 * values.size + 4096:
        seen = np.zeros(int(hi) + 1, dtype=bool)
        seen[values] = True
        return np.flatnonzero(seen).astype(values.dtype)
    ordered = values if inplace else values.copy()
    ordered.sort()
    keep = np.empty(ordered.size, dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def union(*arrays):
    """The sorted distinct values of all ``arrays``."""
    return unique(np.concatenate(arrays))
