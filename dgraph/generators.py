"""Graph generators that build their edge lists partition by partition on the workers.

Each returns a dask DataFrame [src, dst] of int64 labels 0..n-1 and the vertex count ``n``;
``*_graph`` helpers turn that into a ``Graph`` without renumbering. Every partition draws from
its own seed (seed, partition), so a generator gives the same edges for the same arguments
whatever the cluster.
"""

from __future__ import annotations

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd

from .errors import DgraphInputError

GRAPH500 = {"A": 0.57, "B": 0.19, "C": 0.19}


def _scramble(x, scale, seed):
    """A bijection of [0, 2**scale): Graph 500 relabels vertices so ids carry no degree hint."""
    if scale == 0:
        return x
    mask = np.uint64((1 << scale) - 1)
    rng = np.random.default_rng([seed, 0xC0FFEE])
    m1, m2 = (np.uint64(int(v) | 1) for v in rng.integers(1, 2**62, size=2))
    add = np.uint64(int(rng.integers(0, 2**62)))
    x = x.astype(np.uint64)
    with np.errstate(over="ignore"):
        x = (x * m1 + add) & mask
        x ^= x >> np.uint64(max(scale // 2, 1))
        x = (x * m2) & mask
    return x.astype(np.int64)


def _kron_part(scale, count, seed, part, a, b, c):
    rng = np.random.default_rng([seed, part])
    ab, c_norm, a_norm = a + b, c / (1 - (a + b)), a / (a + b)
    src = np.zeros(count, dtype=np.int64)
    dst = np.zeros(count, dtype=np.int64)
    for bit in range(scale):
        ii = rng.random(count) > ab
        jj = rng.random(count) > np.where(ii, c_norm, a_norm)
        src |= ii.astype(np.int64) << bit
        dst |= jj.astype(np.int64) << bit
    return pd.DataFrame({"src": _scramble(src, scale, seed), "dst": _scramble(dst, scale, seed)})


def kronecker(scale, edge_factor=16, seed=0, npartitions=None, A=0.57, B=0.19, C=0.19):
    """Graph 500 Kronecker (R-MAT) edge list: 2**scale vertices, edge_factor * 2**scale edges.

    Vertex labels are scrambled by a bijection, as the Graph 500 specification asks. The graph
    is meant to be used undirected; it contains self-loops and repeated edges, as specified.

    Returns ``(edges, n)``.

    Examples
    --------
    >>> edges, n = kronecker(8, seed=1)
    >>> n, len(edges.compute())
    (256, 4096)
    """
    if not isinstance(scale, (int, np.integer)) or not 0 <= scale <= 40:
        raise DgraphInputError(f"scale must be an integer in 0..40, got {scale!r}")
    if not (A > 0 and B > 0 and C > 0 and A + B + C < 1):
        raise DgraphInputError(f"A, B, C must be positive with A + B + C < 1, got {A}, {B}, {C}")
    n, m = 1 << scale, edge_factor << scale
    npartitions = npartitions or max(1, min(64, m // 2_000_000 + 1))
    sizes = [m // npartitions + (1 if i < m % npartitions else 0) for i in range(npartitions)]
    parts = [dask.delayed(_kron_part)(scale, s, seed, i, A, B, C) for i, s in enumerate(sizes)]
    meta = pd.DataFrame({"src": pd.Series([], dtype="int64"), "dst": pd.Series([], dtype="int64")})
    return dd.from_delayed(parts, meta=meta, verify_meta=False), n


def _grid_part(rows, cols, r0, r1):
    r, c = np.meshgrid(np.arange(r0, r1, dtype=np.int64), np.arange(cols, dtype=np.int64), indexing="ij")
    v = (r * cols + c).ravel()
    right = (c < cols - 1).ravel()
    down = (r < rows - 1).ravel()
    return pd.DataFrame({"src": np.concatenate([v[right], v[down]]), "dst": np.concatenate([v[right] + 1, v[down] + cols])})


def grid_2d(rows, cols, npartitions=None):
    """Edges of a rows x cols 4-neighbour grid; vertex (i, j) is ``i * cols + j``.

    Returns ``(edges, n)``.

    Examples
    --------
    >>> edges, n = grid_2d(3, 4)
    >>> n, len(edges.compute())
    (12, 17)
    """
    if rows < 1 or cols < 1:
        raise DgraphInputError(f"a grid needs at least one row and one column, got {rows} x {cols}")
    npartitions = max(1, min(npartitions or (rows * cols) // 250_000 + 1, rows))
    cuts = np.linspace(0, rows, npartitions + 1).astype(int)
    parts = [dask.delayed(_grid_part)(rows, cols, a, b) for a, b in zip(cuts[:-1], cuts[1:])]
    meta = pd.DataFrame({"src": pd.Series([], dtype="int64"), "dst": pd.Series([], dtype="int64")})
    return dd.from_delayed(parts, meta=meta, verify_meta=False), rows * cols


def _er_part(n, count, seed, part):
    rng = np.random.default_rng([seed, part, 7])
    return pd.DataFrame({"src": rng.integers(0, n, count), "dst": rng.integers(0, n, count)})


def erdos_renyi(n, m, seed=0, npartitions=None):
    """``m`` edges with endpoints drawn uniformly from 0..n-1 (repeats and loops possible).

    Returns ``(edges, n)``.
    """
    if n < 1 or m < 0:
        raise DgraphInputError(f"erdos_renyi needs n >= 1 and m >= 0, got n={n}, m={m}")
    npartitions = npartitions or max(1, m // 2_000_000 + 1)
    sizes = [m // npartitions + (1 if i < m % npartitions else 0) for i in range(npartitions)]
    parts = [dask.delayed(_er_part)(n, s, seed, i) for i, s in enumerate(sizes)]
    meta = pd.DataFrame({"src": pd.Series([], dtype="int64"), "dst": pd.Series([], dtype="int64")})
    return dd.from_delayed(parts, meta=meta, verify_meta=False), n


def _graph(edges_n, directed, **kwargs):
    from .graph import from_edgelist

    edges, n = edges_n
    return from_edgelist(edges, directed=directed, vertices=np.arange(n), renumber=False, **kwargs)


def kronecker_graph(scale, edge_factor=16, seed=0, **graph_kwargs):
    """The undirected Graph 500 Kronecker graph as a ``Graph`` (labels 0..2**scale-1)."""
    return _graph(kronecker(scale, edge_factor, seed), False, **graph_kwargs)


def grid_graph(rows, cols, **graph_kwargs):
    """An undirected rows x cols grid as a ``Graph``."""
    return _graph(grid_2d(rows, cols), False, **graph_kwargs)


def erdos_renyi_graph(n, m, seed=0, directed=False, **graph_kwargs):
    """A random graph with ``m`` uniform edges on ``n`` vertices as a ``Graph``."""
    return _graph(erdos_renyi(n, m, seed), directed, **graph_kwargs)
