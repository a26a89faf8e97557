"""What every layout provides, the owner arithmetic, and turning ``layout=`` into a layout.

The core reads layouts only through this contract; the layouts themselves live in
``dgraph.partitioners``, which registers each under its name (``register_layout``).

A layout answers two placement questions, and the communication plans follow from them:

- ``plan(out_degree) -> (order, bounds)``: which rank owns each vertex. ``order`` lists canonical
  ids in placed order (None when placed ids equal canonical ids); rank r owns the placed ids
  ``bounds[r]:bounds[r + 1]``. Every layout owns vertices in contiguous placed ranges, so the
  owner of a vertex is arithmetic on ``bounds``.
- ``arc_ranks(src, dst, bounds, extra)``: which rank stores each arc (placed ids), and
  ``row_range(r, bounds)``: the source range its block's rows cover. 1D stores an arc at its
  source's owner; 2D at the mesh position (row of the source's owner, column of the
  destination's owner); 1.5D by the classes of both ends. ``extra`` is what a plan returned
  beyond ``(order, bounds)`` (1.5D: its heavy vertices), None for the others.
- ``csrs(rank, bounds, extra)``: the CSRs of a rank's block (one, or a layout's subgraphs, then
  ``csr_of`` says which holds each arc); ``builder`` makes the block's ``BlockBuilder`` and
  ``build`` builds it from pieces in hand.

From these, ``push_peers(r)`` (ranks whose rows cover r's vertices: where a push-direction
frontier of r must be gathered) and ``pull_peers(r)`` (ranks whose arcs may lead to r's vertices:
where a pull-direction frontier must be gathered) follow; the scatter plan is always "to the
destination's owner".
"""

from __future__ import annotations

import functools
from typing import NamedTuple

from .block import BlockBuilder
from .checks import integer
from .errors import DgraphInputError
from .owners import owner_of

LAYOUTS: dict[str, type] = {}  # name -> layout class, filled by dgraph.partitioners


class Subgraph(NamedTuple):
    """One subgraph of a layout whose blocks are several (1.5D)."""

    name: str
    sources: tuple  # the vertex classes of its arcs' tails
    heads: tuple  # the vertex classes of its arcs' heads
    node_local: bool  # a pull reads only the rank's own arcs (no source bitmap travels)
    pull_readers: str  # who receives a pulled source bitmap: "all" ranks, the mesh "column" or "none"


class Layout:
    """A placement of vertices and edges on ``nranks`` logical ranks (see the module docstring)."""

    name = "layout"
    subgraphs = False  # True when a rank's block is several subgraph CSRs (1.5D)

    def __init__(self, ranks=None):
        self.ranks = None if ranks is None else integer(ranks, "ranks", minimum=1)

    def with_ranks(self, ranks):
        """A copy with the rank count fixed (used when the user gave none)."""
        raise NotImplementedError

    def options(self):
        """The options that make this layout again, ``layout_named(name, **options)``: plain
        values, which a saved graph's manifest keeps."""
        return {"ranks": self.ranks}

    def plan(self, out_degree):
        raise NotImplementedError

    def grown(self, extra, n, added):
        """The plan's ``extra`` for the graph of ``n`` vertices with ``added`` more appended
        (placed ids n..n+added-1, owned by the last rank): what the plan says of every vertex,
        said of those too. Updates keep the plan: a layout's classes are placement choices."""
        return extra

    def shrunk(self, extra, gone):
        """The plan's ``extra`` without the vertices ``gone`` (sorted placed ids; every id above
        one moves down by one)."""
        return extra

    # Whether where an arc is stored depends on its ends' ids beyond their owners and classes
    # (TD-Orch deals spread arcs by a hash of them): then renumbering ids would move arcs.
    hashes_arcs = False

    def plan_facts(self, extra):
        """What the plan decided, for the partition report (a dict of plain numbers)."""
        return {}

    def resolve(self, extra):
        """This layout with whatever its plan decided from the graph (TD-Orch: the tree shape)."""
        return self

    # 1D defaults: an arc lives at its source's owner, a rank's rows are its own vertices.
    def arc_ranks(self, src, dst, bounds, extra=None):
        return owner_of(src, bounds)

    def csrs(self, rank, bounds, extra=None):
        """The CSRs of rank's block, as ``(name, lo, hi, row_ids)`` (see ``block.Block``): one
        over its row range here; a subgraph layout lists its subgraphs and says which holds
        each arc (``csr_of``)."""
        lo, hi = self.row_range(rank, bounds)
        return [("", lo, hi, None)]

    def csr_of(self, rows, cols, extra):
        """For a subgraph layout: the index into ``csrs`` of each arc (placed ids)."""
        raise NotImplementedError

    def builder(self, rank, bounds, n, extra=None):
        """Rank's block, empty, to be counted and filled (``block.BlockBuilder``)."""
        own = int(bounds[rank]), int(bounds[rank + 1])
        csrs = self.csrs(rank, bounds, extra)
        if not self.subgraphs:
            return BlockBuilder(rank, n, csrs, own)
        which = functools.partial(self.csr_of, extra=extra)
        return BlockBuilder(rank, n, csrs, own, which=which, heavy=extra["heavy"], n_extreme=int(extra["n_extreme"]))

    def build(self, rank, bounds, n, *pieces, direction="out", key=None, dedup=False, extra=None, attrs=()):
        """Rank's block from the pieces placed on it, in hand: ``direction`` of its arcs, ``key``
        (placed id -> canonical id, or None) that rows are sorted by, ``dedup`` to drop repeated
        arcs, ``extra`` the plan's, ``attrs`` its per-arc columns ((name, dtype) pairs)."""
        return self.builder(rank, bounds, n, extra).build(pieces, direction, key, dedup, attrs)

    def row_range(self, r, bounds):
        return int(bounds[r]), int(bounds[r + 1])

    def push_peers(self, r):
        return [r]

    def owns_rows(self):
        """True when every rank's block is one CSR over its own vertices (1D-like), so the
        layout's blocks are also the owner blocks and no row reduction is needed."""
        return not self.subgraphs and all(self.push_peers(r) == [r] for r in range(self.ranks))

    def pull_peers(self, r):
        return list(range(self.ranks))

    def push_targets(self, r, subgraph=None):
        """``{peer: which of rank r's active vertices it needs}`` before a push: None for all, or
        a tuple of the layout's vertex classes; ``subgraph`` is the one subgraph pushed along
        (None: all)."""
        return {d: None for d in self.push_peers(r) if d != r}

    def pull_targets(self, r, subgraph=None):
        """The same before a pull: the peers whose in-arcs may come from r's vertices."""
        return {d: None for d in self.pull_peers(r) if d != r}

    def subgraph_schedule(self):
        """For layouts whose blocks are several subgraphs: ``Subgraph`` facts in the order a
        level of a search runs them (higher degrees first); None for one CSR per rank."""
        return None

    @classmethod
    def rank_hint(cls, ranks):
        """Words on the shapes this layout takes for ``ranks`` ranks, for error messages."""
        return ""

    def __repr__(self):
        return f"{type(self).__name__}(ranks={self.ranks})"


def by_owner(ranks):
    """The placement of owner blocks: every arc at its source's owner, rows the owned vertices."""
    return Layout(ranks)


def register_layout(name, cls):
    """Make ``layout=name`` mean ``cls()``."""
    LAYOUTS[name] = cls


def layout_named(name, **options):
    """The layout registered as ``name`` (case-insensitive), made with ``options``."""
    if name.lower() not in LAYOUTS:
        raise DgraphInputError(f"unknown layout {name!r}; available: {sorted(LAYOUTS)} or a dgraph.partitioners object")
    return LAYOUTS[name.lower()](**options)


def resolve_layout(layout, ranks, default_ranks) -> Layout:
    """A Layout object with a rank count from ``layout="1d"``/``"2d"`` / an object, and ``ranks``."""
    if ranks is not None:
        ranks = integer(ranks, "ranks", minimum=1)
    if isinstance(layout, str):
        layout = layout_named(layout)
    if not isinstance(layout, Layout):
        raise DgraphInputError(f"layout must be a name or a dgraph.partitioners.Layout, got {type(layout).__name__}")
    if ranks is not None and layout.ranks is not None and ranks != layout.ranks:
        raise DgraphInputError(
            f"ranks={ranks} disagrees with {layout!r}; give the rank count once{layout.rank_hint(ranks)}"
        )
    return layout.with_ranks(ranks or layout.ranks or default_ranks)
