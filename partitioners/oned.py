"""1D layout: each rank owns a contiguous range of placed vertex ids and their out-edges.

``balance="degree"`` (default) cuts canonical ids into ranges of equal out-degree sum (plus one
per vertex, so vertex counts stay bounded), as TDO-GP E.3 initialises its vertex layout.
``"striped"`` deals vertex v to rank v mod P; ``"hashed"`` to a hash of v. Striped and hashed
are expressed as a renumbering (``order``), so every kernel still sees contiguous ranges.

Workers of unequal speed (GPU and CPU workers, or workers with fewer cores) take shares in
proportion to their speed: with ``weights`` rank r's range holds weights[r] / sum(weights) of
the cost, and ``balance="measured"`` finds the weights when the graph is built, from a short
calibration on every worker (``dgraph.calibrate``). The slowest share then takes the least time
any split allows: with d_j = D (1/c_j) / sum(1/c_i) every worker finishes at D / sum(1/c_i)
(the middleware paper's workload-balance lemma).
"""

from __future__ import annotations

import numpy as np

from dgraph.layout import Layout
from dgraph.owners import dealt, index_type

from ..errors import DgraphInputError


class OneD(Layout):
    """1D vertex partition with out-edges stored at the source's owner.

    Parameters
    ----------
    ranks : int, optional
        Number of logical ranks (default: one per worker thread).
    balance : {"degree", "striped", "hashed", "measured"}
        "measured": "degree" with weights from each worker's measured speed.
    weights : sequence of float, optional
        Rank r's share of the cost (degree balance), in proportion: a rank on a worker twice as
        fast gets twice the arcs.

    Examples
    --------
    >>> from dgraph.partitioners import OneD
    >>> OneD(ranks=4).plan(np.array([3, 0, 1, 1, 5, 0]))[1].tolist()
    [0, 1, 3, 4, 6]
    >>> OneD(ranks=2, weights=[3, 1]).plan(np.ones(8, np.int64))[1].tolist()
    [0, 6, 8]
    """

    name = "1d"
    BALANCES = ("degree", "striped", "hashed", "measured")

    def __init__(self, ranks=None, balance="degree", weights=None):
        super().__init__(ranks)
        if balance not in self.BALANCES:
            raise DgraphInputError(f"balance must be one of {self.BALANCES}, got {balance!r}")
        if weights is not None:
            weights = np.asarray(weights, dtype=np.float64)
            if balance not in ("degree", "measured") or weights.ndim != 1 or not np.all(weights > 0):
                raise DgraphInputError(
                    f"weights must be positive numbers, one per rank, with balance='degree'; got {weights!r} "
                    f"with balance={balance!r}"
                )
            if self.ranks is not None and weights.size != self.ranks:
                raise DgraphInputError(f"weights gives {weights.size} shares for {self.ranks} ranks: give one per rank")
            self.ranks = weights.size
        self.balance, self.weights = balance, weights

    def with_ranks(self, ranks):
        same = self.weights is not None and self.weights.size == ranks
        return OneD(ranks, self.balance, self.weights if same else None)

    def options(self):
        weights = None if self.weights is None else self.weights.tolist()
        return {"ranks": self.ranks, "balance": self.balance, "weights": weights}

    def with_weights(self, weights):
        """A copy whose ranks take shares in proportion to ``weights`` (measured speeds)."""
        return OneD(len(weights), self.balance, weights)

    def plan(self, out_degree):
        n, P = out_degree.size, self.ranks
        if self.balance == "measured" and self.weights is None:
            raise DgraphInputError(
                'balance="measured" finds its weights when a graph is built on a cluster '
                "(dgraph.from_edgelist); to plan directly, give weights="
            )
        if self.balance in ("degree", "measured"):
            cost = np.cumsum(out_degree.astype(np.int64) + 1)
            total = int(cost[-1]) if n else 0
            share = np.arange(1, P) / P if self.weights is None else np.cumsum(self.weights)[:-1] / self.weights.sum()
            cuts = np.searchsorted(cost, share * total, side="right")
            bounds = np.concatenate([[0], np.maximum.accumulate(cuts), [n]]).astype(np.int64)
            return None, bounds
        if self.balance == "striped":  # rank r's vertices are r, r + P, r + 2P, ...: no sort
            ids = index_type(n)
            order = np.concatenate([np.arange(r, n, P, dtype=ids) for r in range(P)])
            bounds = np.zeros(P + 1, dtype=np.int64)
            np.cumsum([(n - r + P - 1) // P for r in range(P)], out=bounds[1:])
            return order, bounds
        x = np.arange(n, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        return dealt(((x ^ (x >> np.uint64(29))) % np.uint64(P)).astype(np.int32), P)

    def __repr__(self):
        shares = "" if self.weights is None else f", weights={[round(float(w), 3) for w in self.weights]}"
        return f"OneD(ranks={self.ranks}, balance={self.balance!r}{shares})"
