"""Sets of vertices on a rank: a frontier (``VertexSubset``) and flags over a rank's vertex
spaces (``VertexMarks``, and ``SpaceFlags`` for a frontier already marked over one space).

A frontier is a rank's own vertices (local ids: placed id minus the rank's first); flags have a
slot per vertex of a space (``Block.space``: the rank's own vertices and its ghosts), never one
per vertex of the graph.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import kernels
from .block import space_slots


class VertexSubset:
    """Active vertices of one rank's owned range, held sparse (sorted local ids) or dense
    (a bitmap); each form is built from the other on first use.

    >>> f = VertexSubset(6, ids=np.array([1, 4]))
    >>> f.mask.tolist(), len(f)
    ([False, True, False, False, True, False], 2)
    """

    __slots__ = ("size", "_ids", "_mask")

    def __init__(self, size, ids=None, mask=None):
        self.size = int(size)
        self._ids = None if ids is None else np.asarray(ids, dtype=np.int64)
        self._mask = mask

    @property
    def ids(self):
        if self._ids is None:
            self._ids = np.flatnonzero(self._mask)
        return self._ids

    @property
    def mask(self):
        if self._mask is None:
            self._mask = np.zeros(self.size, dtype=bool)
            self._mask[self._ids] = True
        return self._mask

    def __len__(self):
        return int(self._ids.size if self._ids is not None else np.count_nonzero(self._mask))


class SpaceFlags(NamedTuple):
    """A frontier already marked as flags over one vertex space, and the parts it was marked
    from (for any other space)."""

    space: np.ndarray
    flags: np.ndarray
    parts: list


def mark_parts(space, flags, parts, value=True):
    """Set ``flags`` (over ``space``) at the vertices of ``parts``: arrays of placed ids,
    ``(lo, bits)``, a bitmap of the placed ids from lo, or ``SpaceFlags``."""
    for part in parts:
        if isinstance(part, SpaceFlags):
            if part.space is not space:
                mark_parts(space, flags, part.parts, value)
            elif value:
                flags |= part.flags
            else:
                flags &= ~part.flags
        elif isinstance(part, tuple):
            lo, bits = part
            a, b = np.searchsorted(space, [lo, lo + bits.size])
            kernels.mark_bits(flags[a:b], space[a:b], lo, bits, value)
        elif len(part):  # (most peers' parts are empty when ranks are many and the graph small)
            slots, inside = space_slots(space, part)
            flags[slots[inside]] = value


class VertexMarks:
    """A flag per vertex of each of a rank's vertex spaces (``EdgeMap.spaces``), for state an
    algorithm shares with the edge map (BFS's visited: ``skip_dst``)."""

    def __init__(self, em):
        self.em = em
        self.flags = {(r, id(space)): np.zeros(space.size, dtype=bool) for r in em.ctx.ranks for space in em.spaces(r)}
        em.ctx.stats.hold_vertex_state(f"marks {id(self)}", sum(f.size for f in self.flags.values()))

    def of(self, r, space):
        return self.flags[(r, id(space))]

    def mark(self, r, parts, value=True):
        """Set the flags of rank r at the vertices of ``parts`` (as ``mark_parts`` reads them)."""
        for space in self.em.spaces(r):
            mark_parts(space, self.of(r, space), parts, value)

    def own(self, r, space):
        """Rank r's flags of its own vertices in ``space``, a view (they are a run of slots)."""
        first = int(np.searchsorted(space, self.em.lo(r)))
        return self.of(r, space)[first : first + self.em.size(r)]

    def mark_own(self, r, local):
        """Set the flags of rank r's own vertices ``local`` (ids minus the rank's first)."""
        for space in self.em.spaces(r):
            self.own(r, space)[local] = True
