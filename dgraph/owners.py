"""Owner arithmetic: every layout owns vertices in contiguous ranges of placed ids, rank r the
ids ``bounds[r]:bounds[r + 1]``, so who owns a vertex is a search in ``bounds``."""

from __future__ import annotations

import numpy as np


def owner_of(ids, bounds):
    """The rank owning each placed id.

    >>> owner_of(np.array([0, 3, 4, 9]), np.array([0, 4, 6, 10])).tolist()
    [0, 0, 1, 2]
    """
    return np.searchsorted(bounds, ids, side="right") - 1
