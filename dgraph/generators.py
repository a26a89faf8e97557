"""Graph generators that build their edge lists partition by partition on the workers.

Each returns a dask DataFrame [src, dst] of int64 labels 0..n-1 and the vertex count ``n``;
``*_graph`` helpers turn that into a ``Graph`` without renumbering. Every partition draws from
its own seed (seed, partition), so a generator gives the same edges for the same arguments
whatever the cluster.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd

from .errors import DgraphInputError

if TYPE_CHECKING:
    from .graph import Graph

GRAPH500 = {"A": 0.57, "B": 0.19, "C": 0.19}


BLOCK = 1 << 16  # edges per generation block: the unit of randomness, whatever the partitioning


def _blocks(m, npartitions, seed):
    """Shuffled output order of the generation blocks of ``m`` edges, cut into partitions: a list
    (one per partition) of block indices. The same seed gives the same list of blocks in the
    same order whatever ``npartitions`` is, so the edge list does not depend on it."""
    nblocks = max(1, -(-m // BLOCK))
    order = np.random.default_rng([seed, 0xB10C]).permutation(nblocks)
    npartitions = max(1, min(npartitions, nblocks))
    cuts = np.linspace(0, nblocks, npartitions + 1).astype(int)
    return [order[a:b].tolist() for a, b in zip(cuts[:-1], cuts[1:])]


def _block_size(m, block):
    return max(0, min(BLOCK, m - block * BLOCK))


def _kron_block(scale, m, seed, block, *, a, b, c, weights=False):
    from .kernels.generate import kronecker_edges

    src, dst, w = kronecker_edges(scale, seed, block * BLOCK, _block_size(m, block), a, b, c, weights)
    return pd.DataFrame({"src": src, "dst": dst, **({"weight": w} if weights else {})})


def _concat_blocks(make, blocks):
    return pd.concat([make(k) for k in blocks], ignore_index=True)


def _from_blocks(make, m, npartitions, seed, columns):
    meta = pd.DataFrame({c: pd.Series([], dtype="float64" if c == "weight" else "int64") for c in columns})
    parts = [dask.delayed(_concat_blocks)(make, blocks) for blocks in _blocks(m, npartitions, seed)]
    return dd.from_delayed(parts, meta=meta, verify_meta=False)


def kronecker(
    scale: int,
    edge_factor: int = 16,
    seed: int = 0,
    *,
    npartitions: int | None = None,
    A: float = 0.57,
    B: float = 0.19,
    C: float = 0.19,
    weights: bool = False,
) -> tuple[dd.DataFrame, int]:
    """Graph 500 Kronecker (R-MAT) edge list: 2**scale vertices, edge_factor * 2**scale edges.

    As the Graph 500 specification asks, vertex labels go through a random bijection and the
    edges come in no order that carries locality: edge j is drawn from a random stream of its
    own, a function of (seed, j) (``dgraph.kernels.generate``), and partitions take blocks of
    65,536 edges in a seeded random order. So the same seed gives the same edge list whatever
    ``npartitions``, and any part of it can be regenerated alone. It contains self-loops and
    repeated edges, as specified, and is meant to be used undirected. ``weights=True`` adds a
    ``weight`` column uniform in [0, 1) (the SSSP kernel's).

    Returns ``(edges, n)``.

    Examples
    --------
    >>> edges, n = kronecker(8, seed=1)
    >>> n, len(edges.compute())
    (256, 4096)
    >>> kronecker(8, seed=1, npartitions=3)[0].compute().equals(edges.compute())
    True
    """
    if not isinstance(scale, (int, np.integer)) or not 0 <= scale <= 40:
        raise DgraphInputError(f"scale must be an integer in 0..40, got {scale!r}")
    if not isinstance(edge_factor, (int, np.integer)) or edge_factor < 1:
        raise DgraphInputError(f"edge_factor must be a positive integer, got {edge_factor!r}")
    if not (A > 0 and B > 0 and C > 0 and A + B + C < 1):
        raise DgraphInputError(f"A, B, C must be positive with A + B + C < 1, got {A}, {B}, {C}")
    n, m = 1 << scale, edge_factor << scale
    npartitions = npartitions or max(1, min(64, m // 2_000_000 + 1))
    make = partial(_kron_block, scale, m, seed, a=A, b=B, c=C, weights=weights)
    return _from_blocks(make, m, npartitions, seed, ["src", "dst"] + (["weight"] if weights else [])), n


def _grid_part(rows, cols, r0, r1):
    r, c = np.meshgrid(np.arange(r0, r1, dtype=np.int64), np.arange(cols, dtype=np.int64), indexing="ij")
    v = (r * cols + c).ravel()
    right = (c < cols - 1).ravel()
    down = (r < rows - 1).ravel()
    return pd.DataFrame(
        {"src": np.concatenate([v[right], v[down]]), "dst": np.concatenate([v[right] + 1, v[down] + cols])}
    )


def grid_2d(rows: int, cols: int, npartitions: int | None = None) -> tuple[dd.DataFrame, int]:
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


def _er_block(n, m, seed, block):
    rng = np.random.default_rng([seed, block, 7])
    count = _block_size(m, block)
    return pd.DataFrame({"src": rng.integers(0, n, count), "dst": rng.integers(0, n, count)})


def erdos_renyi(n: int, m: int, seed: int = 0, npartitions: int | None = None) -> tuple[dd.DataFrame, int]:
    """Erdos-Renyi G(n, m): ``m`` edges with endpoints drawn uniformly from 0..n-1 (a repeat or
    a loop is possible; construction drops them by its policy). The same seed gives the same
    edges whatever ``npartitions``.

    Returns ``(edges, n)``.

    Examples
    --------
    >>> edges, n = erdos_renyi(100, 300, seed=2)
    >>> len(edges.compute()), int(edges.compute().max().max()) < 100
    (300, True)
    """
    if n < 1 or m < 0:
        raise DgraphInputError(f"erdos_renyi needs n >= 1 and m >= 0, got n={n}, m={m}")
    npartitions = npartitions or max(1, m // 2_000_000 + 1)
    return _from_blocks(partial(_er_block, n, m, seed), m, npartitions, seed, ["src", "dst"]), n


def _uniform(seed, j, salt):
    """A uniform float in [0, 1) that is a function of (seed, j, salt): counter-based randomness,
    so any partition can draw the number of any edge."""
    from .orchestration.stage import mix

    return (
        mix(mix(np.full(np.shape(j), seed, np.int64)).view(np.int64) ^ (np.asarray(j, np.int64) * 4 + salt))
        >> np.uint64(11)
    ).astype(np.float64) / float(1 << 53)


def _ba_block(n, d, attract, seed, m, block):
    """Targets of edges ``block * BLOCK ...``: edge j leaves vertex j // d and picks its target
    by preferential attachment with initial attractiveness: copy the target of a uniformly
    chosen earlier edge (probability j / (j + attract * vertices so far)), else a uniform earlier
    vertex. A copy is resolved by following earlier edges back (Sanders and Schulz's
    communication-free scheme): every partition can do it alone."""
    j0 = block * BLOCK
    edge = np.arange(j0, j0 + _block_size(m, block), dtype=np.int64)
    src = edge // d
    target = np.zeros(edge.size, np.int64)
    at, live = edge.copy(), np.arange(edge.size)
    while live.size:
        u = at // d
        weight = at + attract * u
        copy = (_uniform(seed, at, 1) * np.maximum(weight, 1) < at) & (at > 0)
        done = ~copy
        target[live[done]] = np.minimum(
            (_uniform(seed, at[done], 2) * u[done]).astype(np.int64), np.maximum(u[done] - 1, 0)
        )
        at = np.minimum((_uniform(seed, at[copy], 3) * at[copy]).astype(np.int64), at[copy] - 1)
        live = live[copy]
    return pd.DataFrame({"src": src, "dst": target})


def barabasi_albert(
    n: int, edges_per_vertex: int = 8, exponent: float = 2.2, seed: int = 0, npartitions: int | None = None
) -> tuple[dd.DataFrame, int]:
    """Scale-free graph by preferential attachment (Barabasi-Albert with initial attractiveness):
    vertex v joins with ``edges_per_vertex`` (d) edges to earlier vertices, each picked with
    probability proportional to its in-degree + a, which gives degrees a power law of exponent
    2 + a / d; a is set from ``exponent`` (default 2.2, TDO-GP's weak-scaling graphs, as
    PowerGraph measured on natural graphs). Vertex 0's edges are loops. Generated per block
    without communication; the same seed gives the same edges whatever ``npartitions``.

    Returns ``(edges, n)``.

    Examples
    --------
    >>> edges, n = barabasi_albert(1000, 4, seed=1)
    >>> e = edges.compute()
    >>> len(e), bool((e.dst <= e.src).all())
    (4000, True)
    """
    if n < 1 or edges_per_vertex < 1:
        raise DgraphInputError(f"barabasi_albert needs n >= 1 and edges_per_vertex >= 1, got {n}, {edges_per_vertex}")
    if not exponent > 2:
        raise DgraphInputError(f"exponent must be above 2 (2 + a/d with a > 0), got {exponent}")
    m = n * edges_per_vertex
    attract = (exponent - 2) * edges_per_vertex
    npartitions = npartitions or max(1, m // 2_000_000 + 1)
    return _from_blocks(
        partial(_ba_block, n, edges_per_vertex, attract, seed, m), m, npartitions, seed, ["src", "dst"]
    ), n


def _graph(edges_n, directed, **kwargs):
    from .build import from_edgelist

    edges, n = edges_n
    return from_edgelist(edges, directed=directed, vertices=np.arange(n), renumber=False, **kwargs)


def kronecker_graph(
    scale: int, edge_factor: int = 16, seed: int = 0, directed: bool = False, **graph_kwargs: Any
) -> Graph:
    """The Graph 500 Kronecker graph as a ``Graph`` (labels 0..2**scale-1): undirected, or with
    ``directed=True`` each generated edge as one arc."""
    return _graph(kronecker(scale, edge_factor, seed), directed, **graph_kwargs)


def grid_graph(rows: int, cols: int, **graph_kwargs: Any) -> Graph:
    """An undirected rows x cols grid as a ``Graph``."""
    return _graph(grid_2d(rows, cols), False, **graph_kwargs)


def barabasi_albert_graph(
    n: int, edges_per_vertex: int = 8, exponent: float = 2.2, seed: int = 0, **graph_kwargs: Any
) -> Graph:
    """The undirected ``barabasi_albert`` graph as a ``Graph``."""
    return _graph(barabasi_albert(n, edges_per_vertex, exponent, seed), False, **graph_kwargs)


def erdos_renyi_graph(n: int, m: int, seed: int = 0, directed: bool = False, **graph_kwargs: Any) -> Graph:
    """A random graph with ``m`` uniform edges on ``n`` vertices as a ``Graph``."""
    return _graph(erdos_renyi(n, m, seed), directed, **graph_kwargs)
