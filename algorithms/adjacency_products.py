"""The step every power iteration repeats: the adjacency matrix times a vector, over a run's 1D
owner blocks (each rank holds its own vertices' out-arcs and, for a directed graph, in-arcs).

``Products(ctx, bounds, weighted)("in", x)`` is ``A^T x`` (each vertex sums its in-neighbours'
values: what HITS' authorities, Katz and eigenvector centrality take) and ``("out", x)`` is
``A x`` (each vertex sums its out-neighbours': HITS' hubs). A product is one superstep: the
values of the vertices a rank's arcs read reach it by the dense gather plan
(``ghosts.GhostExchange``, planned once per side and run), then each rank multiplies its own
rows (``kernels.spmv``). A small array per rank (a norm, a change) rides in the same superstep.
An undirected graph's in-arcs are its out-arcs, so both sides read the same blocks.
"""

from __future__ import annotations

import math

import numpy as np

from dgraph import kernels
from dgraph.ghosts import GhostExchange


class Products:
    """``A x`` and ``A^T x`` for a run's ranks; a side's gather plan is made on first use (a
    collective: every rank must ask for the same sides in the same order)."""

    def __init__(self, ctx, bounds, weighted):
        self.ctx, self.bounds, self.weighted = ctx, bounds, weighted
        self.sides = {}

    def _side(self, side):
        if side not in self.sides:
            which = -1 if side == "in" else 0  # the in-blocks come last (run with reverse on directed graphs)
            blocks = {r: self.ctx.blocks[r][which] for r in self.ctx.ranks}
            exchange = GhostExchange(self.ctx, {r: [b] for r, b in blocks.items()}, self.bounds)
            seen = {r: np.zeros(b.space.size) for r, b in blocks.items()}
            self.ctx.hold(f"products {side}", seen)
            self.sides[side] = (blocks, exchange, seen)
        return self.sides[side]

    def __call__(self, side, x, total=None, op="sum"):
        """(``{r: product over rank r's own vertices}``, ``total`` reduced over the ranks or
        None); ``x[r]`` holds one value per own vertex."""
        blocks, exchange, seen = self._side(side)
        totals = exchange(x, seen, total=total, op=op)
        products = {
            r: kernels.spmv(b.indptr, b.indices, b.weights if self.weighted else None, seen[r])
            for r, b in blocks.items()
        }
        return products, totals


def own_sizes(bounds, ranks):
    """rank -> how many vertices it owns."""
    return {r: int(bounds[r + 1] - bounds[r]) for r in ranks}


def iterate_in(ctx, products, x, step, *, n, tol, max_iter):
    """The power iteration ``x <- step(A^T x, x)`` (per rank), until the summed change
    ``|x' - x|`` is under ``n * tol`` (networkx's test; the change rides in the next product's
    superstep) or after ``max_iter`` steps. Returns ``(x, steps, converged)``."""
    change = {r: np.zeros(1) for r in ctx.ranks}
    steps = 0
    while True:
        y, total = products("in", x, total=change)
        if steps > 0 and float(total[0]) < n * tol:
            return x, steps, True
        if steps == max_iter:
            return x, steps, False
        y = step(y, x)
        change = {r: np.array([np.abs(y[r] - x[r]).sum()]) for r in ctx.ranks}
        x, steps = y, steps + 1


def unit_length(ctx, x):
    """``x`` divided by its Euclidean length over every rank (left as it is when zero)."""
    norm = math.sqrt(float(ctx.allreduce({r: np.array([np.dot(v, v)]) for r, v in x.items()})[0])) or 1.0
    return {r: v / norm for r, v in x.items()}
