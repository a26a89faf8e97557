"""2D layout (HPCGraph-GPU, section 3.2): ranks form an R x C mesh.

Vertices are dealt to ranks striped after a hash of their id (HPCGraph stripes ids it assumes
random; Graph 500 labels keep their parity through the specification's scrambling, and parity
predicts degree, so a plain v mod P stripe measured 1.30 arcs max/mean on a 2 x 3 mesh at
Kronecker scale 12 against 1.17 hashed). The deal is a renumbering, so each rank owns a
contiguous placed range; the row group of mesh row i is the union of the ranges of
ranks i*C .. i*C + C - 1 (contiguous), the column group of column j the ranges of ranks j, C + j,
... An arc (u, v) lives on the rank at (row of u's owner, column of v's owner), so a rank's block
rows are its row group and its arcs lead into its column group: a push gathers the frontier
within the mesh row (C - 1 peers) and reduces results within the mesh column (R - 1 peers), so a
rank talks to R + C - 2 others per superstep instead of P - 1. Local row ids are ``id - row_lo``
and owners ``searchsorted(bounds)``: arithmetic, no hash tables.

Mesh choice for ``layout="2d"``: the factorisation R x C = P with R the largest divisor of P not
above sqrt(P). With R <= C the reduction direction (the column, R - 1 peers) is the cheaper one,
as HPCGraph 5.5 advises for push algorithms; a prime P gives 1 x P, which is 1D with the
frontier gathered along the single row.
"""

from __future__ import annotations

import math

from dgraph.checks import integer
from dgraph.layout import Layout
from dgraph.owners import owner_of

from ..errors import DgraphInputError
from .oned import OneD


def near_square(P):
    """(R, C) with R * C = P, R <= C, R as large as possible."""
    R = max(d for d in range(1, math.isqrt(P) + 1) if P % d == 0)
    return R, P // R


class TwoD(Layout):
    """2D R x C mesh layout.

    Parameters
    ----------
    rows, cols : int, optional
        Mesh shape; give both, or neither (then chosen from the rank count, see the module).
    ranks : int, optional
        Rank count when rows/cols are not given.

    Examples
    --------
    >>> import numpy as np
    >>> from dgraph.partitioners import TwoD
    >>> bounds = np.arange(7) * 10  # rank r owns placed ids 10r .. 10r + 9
    >>> TwoD(rows=2, cols=3).arc_ranks(np.array([0, 55]), np.array([40, 12]), bounds).tolist()
    [1, 4]
    """

    name = "2d"

    def __init__(self, rows=None, cols=None, ranks=None):
        rows, cols = (
            None if v is None else integer(v, what, minimum=1) for what, v in (("rows", rows), ("cols", cols))
        )
        if (rows is None) != (cols is None):
            raise DgraphInputError("give both rows and cols of the 2D mesh, or neither")
        if rows is not None:
            if ranks is not None and ranks != rows * cols:
                raise DgraphInputError(
                    f"a {rows} x {cols} mesh has {rows * cols} ranks, not {ranks}; "
                    f"meshes for {ranks} ranks: {meshes(ranks)}"
                )
            ranks = rows * cols
        super().__init__(ranks)
        self.rows, self.cols = rows, cols
        if ranks is not None and rows is None:
            self.rows, self.cols = near_square(ranks)

    def with_ranks(self, ranks):
        return self if self.ranks == ranks else TwoD(ranks=ranks)

    def options(self):
        return {"rows": self.rows, "cols": self.cols}

    @classmethod
    def rank_hint(cls, ranks):
        return f"; meshes for {ranks} ranks: {meshes(ranks)}"

    def plan(self, out_degree):
        return OneD(self.ranks, balance="hashed").plan(out_degree)

    def arc_ranks(self, src, dst, bounds, extra=None):
        return self.mesh_rank(owner_of(src, bounds), owner_of(dst, bounds))

    def mesh_rank(self, row_owner, col_owner):
        """The rank in the mesh row of ``row_owner`` and the mesh column of ``col_owner``."""
        return (row_owner // self.cols) * self.cols + col_owner % self.cols

    def row_range(self, r, bounds):
        i = r // self.cols
        return int(bounds[i * self.cols]), int(bounds[(i + 1) * self.cols])

    def push_peers(self, r):
        i = r // self.cols
        return list(range(i * self.cols, (i + 1) * self.cols))

    def pull_peers(self, r):
        return list(range(r % self.cols, self.ranks, self.cols))

    def __repr__(self):
        return f"TwoD(rows={self.rows}, cols={self.cols})"


def meshes(P):
    return ", ".join(f"{d} x {P // d}" for d in range(1, P + 1) if P % d == 0)
