"""1D layout: each rank owns a contiguous range of placed vertex ids and their out-edges.

``balance="degree"`` (default) cuts canonical ids into ranges of equal out-degree sum (plus one
per vertex, so vertex counts stay bounded), as TDO-GP E.3 initialises its vertex layout.
``"striped"`` deals vertex v to rank v mod P; ``"hashed"`` to a hash of v. Striped and hashed
are expressed as a renumbering (``order``), so every kernel still sees contiguous ranges.
"""

from __future__ import annotations

import numpy as np

from dgraph.layout import Layout

from ..errors import DgraphInputError


class OneD(Layout):
    """1D vertex partition with out-edges stored at the source's owner.

    Parameters
    ----------
    ranks : int, optional
        Number of logical ranks (default: one per worker thread).
    balance : {"degree", "striped", "hashed"}

    Examples
    --------
    >>> from dgraph.partitioners import OneD
    >>> OneD(ranks=4).plan(np.array([3, 0, 1, 1, 5, 0]))[1].tolist()
    [0, 1, 3, 4, 6]
    """

    name = "1d"
    BALANCES = ("degree", "striped", "hashed")

    def __init__(self, ranks=None, balance="degree"):
        super().__init__(ranks)
        if balance not in self.BALANCES:
            raise DgraphInputError(f"balance must be one of {self.BALANCES}, got {balance!r}")
        self.balance = balance

    def with_ranks(self, ranks):
        return OneD(ranks, self.balance)

    def plan(self, out_degree):
        n, P = out_degree.size, self.ranks
        if self.balance == "degree":
            cost = np.cumsum(out_degree.astype(np.int64) + 1)
            total = int(cost[-1]) if n else 0
            cuts = np.searchsorted(cost, np.arange(1, P) * total / P, side="right")
            bounds = np.concatenate([[0], np.maximum.accumulate(cuts), [n]]).astype(np.int64)
            return None, bounds
        if self.balance == "striped":
            owner = np.arange(n, dtype=np.int64) % P
        else:
            x = np.arange(n, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
            owner = ((x ^ (x >> np.uint64(29))) % np.uint64(P)).astype(np.int64)
        order = np.argsort(owner, kind="stable").astype(np.int64)
        bounds = np.zeros(P + 1, dtype=np.int64)
        np.cumsum(np.bincount(owner, minlength=P), out=bounds[1:])
        return order, bounds

    def __repr__(self):
        return f"OneD(ranks={self.ranks}, balance={self.balance!r})"
