"""Where the 3-level degree-aware 1.5D layout puts an arc (``dgraph.partitioners.OnePointFiveD``):
its subgraph, from the classes of its ends, and the rank that holds it. Construction asks for
both of every input arc, twice (once to count, once to fill); one loop per arc does what
numpy does in a dozen passes.

Classes are 0 (L, light), 1 (H, heavy) and 2 (E, extremely heavy); subgraphs are numbered as
the layout's ``SUBGRAPHS``: 0 EH2EH, 1 E2L, 2 H2L, 3 L2E, 4 L2H, 5 L2L.
"""

from __future__ import annotations

import numba
import numpy as np

from .engines import twins

L, H, E = 0, 1, 2


@numba.njit(cache=True, inline="always")
def _subgraph(cs, cd):
    if cs > L and cd > L:
        return 0
    if cs == E:
        return 1
    if cs == H:
        return 2
    if cd == E:
        return 3
    if cd == H:
        return 4
    return 5


@numba.njit(cache=True, inline="always")
def _owner(bounds, v):
    """The rank whose placed ids ``bounds[r]:bounds[r + 1]`` hold v (the last such r). The
    search's steps depend on the rank count alone and each is a select, not a branch: placed
    ids come in no order, so a branch would be mispredicted half the time."""
    lo, n = 0, bounds.size - 1
    while n > 1:
        half = n >> 1
        lo = lo + half if bounds[lo + half] <= v else lo
        n -= half
    return lo


@numba.njit(cache=True)
def _subgraphs_numba(src, dst, classes):
    out = np.empty(src.size, np.int8)
    for e in range(src.size):
        out[e] = _subgraph(classes[src[e]], classes[dst[e]])
    return out


@numba.njit(cache=True)
def _ranks_numba(src, dst, classes, bounds, cols):
    ranks = np.arange(bounds.size - 1)
    row_first, col = ranks - ranks % cols, ranks % cols  # a rank's mesh row's first rank, its column
    out = np.empty(src.size, np.int32)
    for e in range(src.size):
        s, d = src[e], dst[e]
        sg = _subgraph(classes[s], classes[d])
        so = _owner(bounds, s)
        if sg > 2:  # from L: at the source's owner
            out[e] = so
            continue
        do = _owner(bounds, d)
        if sg == 0:  # at (mesh row of the source's owner, mesh column of the head's)
            out[e] = row_first[so] + col[do]
        elif sg == 1:  # at the L head's owner
            out[e] = do
        else:  # at (mesh row of the L head's owner, mesh column of H's)
            out[e] = row_first[do] + col[so]
    return out


def _subgraphs_numpy(src, dst, classes):
    cs, cd = classes[src], classes[dst]
    heavy_src, heavy_dst = cs > L, cd > L
    return np.select([heavy_src & heavy_dst, cs == E, cs == H, cd == E, cd == H], [0, 1, 2, 3, 4], default=5).astype(
        np.int8
    )


def _ranks_numpy(src, dst, classes, bounds, cols):
    so = np.searchsorted(bounds, src, side="right") - 1
    do = np.searchsorted(bounds, dst, side="right") - 1
    sg = _subgraphs_numpy(src, dst, classes)
    mesh = (so // cols) * cols + do % cols, (do // cols) * cols + so % cols
    return np.select([sg == 0, sg == 1, sg == 2], [mesh[0], do, mesh[1]], default=so).astype(np.int32)


_subgraphs = twins("onefived_subgraphs", numba=_subgraphs_numba, numpy=_subgraphs_numpy)
_ranks = twins("onefived_ranks", numba=_ranks_numba, numpy=_ranks_numpy)


def onefived_subgraphs(src, dst, classes):
    """The 1.5D subgraph of each arc (placed ids ``src`` -> ``dst``; ``classes``: each placed
    id's class), as int8.

    >>> onefived_subgraphs(np.array([0, 0, 1, 2]), np.array([1, 2, 2, 2]), np.array([2, 0, 1], np.int8)).tolist()
    [1, 0, 4, 0]
    """
    return _subgraphs(src, dst, classes)


def onefived_ranks(src, dst, classes, bounds, cols):
    """The rank holding each arc (placed ids; rank r owns ``bounds[r]:bounds[r + 1]``) on a
    mesh of ``cols`` columns, as int32: both ends heavy, the 2D rank (source's row, head's
    column); E to L at the head's owner; H to L the 2D rank (head's row, source's column);
    from L at the source's owner.

    >>> bounds, classes = np.array([0, 2, 4, 6, 8]), np.array([2, 0, 1, 0, 0, 0, 1, 0], np.int8)
    >>> onefived_ranks(np.array([0, 2, 6, 1, 0]), np.array([3, 7, 5, 0, 6]), classes, bounds, 2).tolist()
    [1, 3, 3, 0, 1]
    """
    return _ranks(src, dst, classes, np.asarray(bounds, np.int64), int(cols))
