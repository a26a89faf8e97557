"""TD-Orch ingestion-time orchestration (TDO-GP 3.1) as a layout.

Edges are tasks and a vertex's value is their data; the contention a vertex's value sees is its
degree, whatever the algorithm, so TD-Orch runs once when the graph is placed. Every arc is
first dealt to a random rank (a hash of its two ends: its leaf in the communication forest of
``dgraph.orchestration.forest``), then one orchestration round by source settles it:

- the arcs of a source climb the source owner's tree, and stay at the first node where more
  than ``chunk`` (C) of them gather, which is TD-Orch's meta-task set rule. dgraph applies the
  rule to the expected gathering, ``degree x leaves under the node / P`` (so a source's arcs all
  stop at one level and placement is a function of degree and the arc's hash, computed
  partition by partition with no extra pass);
- so a light source (degree <= C) has its arcs at its owner (1D), a hot one (degree > C x P)
  keeps them where the random deal put them, evenly over all ranks, and sources in between
  stop at an inner node of their tree (with a tree of fan-out F: P / F^level ranks).

The source trees are the gather plan: an active vertex goes only to the ranks of its level's
nodes (everywhere for level 0, the tree's inner nodes for the levels in between, nowhere for
light vertices): the dense mode sends each value only where its arcs are (TDO-GP E.1). The
destination round is the scatter plan: results merge per head on every rank, then go to the
head's owner. With the fan-out Theorem 2.1 gives (F = m / (P log^2 P), at least P for any graph
worth distributing) a tree is a star, and sending straight to the holders *is* the tree; with a
small F the placement follows the deeper tree but values still go one hop, straight to the
holders.

In the edge map's terms the levels are classes: E = level 0 (arcs spread everywhere), H = inner
levels, L = home (the owner). Each rank keeps two CSRs: SPREAD (rows: the heavy vertices, by
level then id) and HOME (its own vertices).
"""

from __future__ import annotations

import numpy as np

from dgraph.checks import integer
from dgraph.layout import Layout
from dgraph.owners import owner_of

from ..errors import DgraphInputError

SUBGRAPHS = ("SPREAD", "HOME")
L, H, E = 0, 1, 2
# A spread arc's result merges at its rank instead of at the source's owner, so spreading costs
# bytes; measured on Kronecker 18 at 16 ranks (BFS from the hub, bytes vs 1D): C = 4 moved 3.1x,
# C = 16 1.6x, C = 64 1.2x with the busiest rank at 0.57x 1D's and PageRank's bytes equal to 1D's.
DEFAULT_CHUNK = 64


def _forest():
    from ..orchestration import api, forest, stage

    return api, forest, stage


class TDOrch(Layout):
    """TD-Orch ingestion layout: hot sources' arcs spread over their source trees, light ones home.

    Parameters
    ----------
    fanout : int, optional
        Tree fan-out F (default: Theorem 2.1's, which is a star for any real graph).
    chunk : int, optional
        Meta-task chunk size C: a node keeps a source's arcs once more than C gather there
        (default 64: see ``DEFAULT_CHUNK``).
    ranks : int, optional

    Examples
    --------
    >>> import numpy as np
    >>> from dgraph.partitioners import TDOrch
    >>> lay = TDOrch(ranks=4, fanout=4, chunk=2)  # a star: leaves, then the owner
    >>> order, bounds, extra = lay.plan(np.array([40, 1, 2, 9, 3, 1]))
    >>> extra["levels"].tolist()  # 40 and 9 arcs: spread over the 4 leaves; the rest at home
    [0, 1, 1, 0, 1, 1]
    """

    name = "tdorch"
    subgraphs = True

    def __init__(self, fanout=None, chunk=None, ranks=None):
        super().__init__(ranks)
        fanout, chunk = (
            None if v is None else integer(v, what, minimum=least)
            for what, v, least in (("fanout", fanout, 2), ("chunk", chunk, 1))
        )
        self.fanout, self.chunk = fanout, chunk

    def with_ranks(self, ranks):
        return self if self.ranks == ranks else TDOrch(self.fanout, self.chunk, ranks)

    def options(self):
        return {"fanout": self.fanout, "chunk": self.chunk, "ranks": self.ranks}

    def shape(self, arcs):
        """(F, C, tree height) for a graph of ``arcs`` arcs."""
        api, forest, _ = _forest()
        F = self.fanout or api.default_fanout(arcs, self.ranks)
        return F, self.chunk or DEFAULT_CHUNK, forest.height(self.ranks, F)

    def plan(self, out_degree):
        P, n = self.ranks, out_degree.size
        F, C, height = self.shape(int(out_degree.sum()))
        levels = np.full(n, height, np.int8)
        for level in range(height - 1, -1, -1):  # the lowest node where more than C gather
            gathered = out_degree * min(F**level, P) / P
            levels[gathered > C] = level
        # owners get contiguous ranges balanced by the arcs they keep at home (+1 per vertex);
        # spread arcs are balanced by the random deal
        home = np.where(levels == height, out_degree, 0).astype(np.int64) + 1
        cost = np.cumsum(home)
        cuts = np.searchsorted(cost, np.arange(1, P) * (int(cost[-1]) if n else 0) / P, side="right")
        bounds = np.concatenate([[0], np.maximum.accumulate(cuts), [n]]).astype(np.int64)
        heavy = np.flatnonzero(levels < height)
        heavy = heavy[np.argsort(levels[heavy], kind="stable")].astype(np.int64)  # level 0 (E) first
        classes = np.where(levels == 0, E, np.where(levels < height, H, L)).astype(np.int8)
        return (
            None,
            bounds,
            {
                "levels": levels,
                "heavy": heavy,
                "n_extreme": int(np.count_nonzero(levels == 0)),
                "classes": classes,
                "fanout": F,
                "chunk": C,
                "height": height,
            },
        )

    # a spread arc's rank is a hash of its ends' ids: removing vertices (renumbering ids) rebuilds
    hashes_arcs = True

    def grown(self, extra, n, added):
        """Vertices appended keep their arcs at home (level: the tree's height) until a rebuild."""
        levels = np.concatenate([extra["levels"], np.full(added, extra["height"], np.int8)])
        return {**extra, "levels": levels, "classes": np.concatenate([extra["classes"], np.full(added, L, np.int8)])}

    def _holders(self, owner, level, leaf, extra):
        """The rank of the node at ``level`` of ``owner``'s tree above ``leaf`` (a rank)."""
        _, forest, _ = _forest()
        P, F, height = self.ranks, extra["fanout"], extra["height"]
        out = np.asarray(owner, np.int64).copy()
        pos = (leaf - owner) % P
        for lv in range(height):
            m = level == lv
            if m.any():
                out[m] = forest.node_rank(owner[m], lv, pos[m] // F**lv, height, P)
        return out

    def arc_ranks(self, src, dst, bounds, extra=None):
        _, _, stage = _forest()
        owner = owner_of(src, bounds)
        leaf = stage.owner_of(stage.mix(src).view(np.int64) ^ dst, self.ranks)  # the random first deal
        return self._holders(owner, extra["levels"][src], leaf, extra)

    def csrs(self, rank, bounds, extra=None):
        """SPREAD (rows: the heavy vertices) and HOME (the rank's own vertices)."""
        lo, hi = self.row_range(rank, bounds)
        return [("SPREAD", 0, None, extra["heavy"]), ("HOME", lo, hi, None)]

    def csr_of(self, rows, cols, extra):
        return (extra["levels"][rows] >= extra["height"]).astype(np.int8)  # 0: SPREAD, 1: HOME

    def push_peers(self, r):
        return list(range(self.ranks))

    def plan_facts(self, extra):
        counts = np.bincount(extra["levels"], minlength=extra["height"] + 1)
        return {
            "fanout": int(extra["fanout"]),
            "chunk": int(extra["chunk"]),
            "tree_height": int(extra["height"]),
            **{f"vertices_level_{lv}": int(k) for lv, k in enumerate(counts)},
        }

    def resolve(self, extra):
        """This layout with the tree shape the plan chose (the push targets follow it)."""
        return TDOrch(extra["fanout"], extra["chunk"], self.ranks)

    def inner_holders(self, r):
        """Ranks hosting the inner nodes (levels 1 .. height-1) of rank r's tree."""
        _, forest, _ = _forest()
        P, F = self.ranks, self.fanout
        if F is None:
            raise DgraphInputError(
                "this TDOrch layout has no tree shape yet; use the one a placed graph carries (graph.layout)"
            )
        height, out = forest.height(P, F), set()
        for lv in range(1, height):
            q = np.arange(-(-P // F**lv))
            out |= set(forest.node_rank(np.full(q.size, r), lv, q, height, P).tolist())
        return out

    def push_targets(self, r, subgraph=None):
        """E vertices go to every rank, H vertices to their tree's inner nodes, L nowhere; a
        push over HOME sends nothing (its arcs are at the owner)."""
        if subgraph == "HOME":
            return {}
        inner = self.inner_holders(r)
        return {d: ((E, H) if d in inner else (E,)) for d in range(self.ranks) if d != r}

    def mirror(self, subgraph):
        return subgraph

    def __repr__(self):
        return f"TDOrch(ranks={self.ranks}, fanout={self.fanout}, chunk={self.chunk})"
