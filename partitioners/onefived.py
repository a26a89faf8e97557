"""3-level degree-aware 1.5D layout (Sunway BFS, section 4.1) on an R x C mesh.

Vertices are classed by degree: E (extremely heavy, degree >= ``e_threshold``), H (heavy,
>= ``h_threshold``) and L (light), and dealt to ranks in snake order of degree (P ranks forward, then
back, ...) over a diagonal walk of the mesh (consecutive ranks in different rows and columns), so
each rank, mesh row and column holds an even share of the arcs of every class. E and H are
relabelled by degree into a heavy index (E first), so their rows in a rank's CSRs are found by
array lookup. Arcs split into six subgraphs, each kept as its own CSR on the rank Sunway puts it:

- EH2EH (both ends heavy): 2D, at (row of the source's owner, column of the head's owner);
- E2L: at the L head's owner (E is delegated everywhere);
- H2L: at (row of the L head's owner, column of H's owner), so results travel along a row;
- L2E, L2H, L2L: at the L source's owner (1D).

A push therefore gathers an active E vertex to every rank, an active H vertex along its owner's
mesh row and column, and an L vertex nowhere; results go to the heads' owners. Delegates are
reduced every superstep (the edge map's scatter) rather than lazily.

Automatic thresholds (both are degrees, so the choice follows the degree distribution and the
rank count): a vertex becomes H when its arcs would reach more ranks as 1D remote arcs than a
row-and-column delegation talks to, i.e. degree >= R + C, and at least 4x the mean degree so
only the tail is delegated; it becomes E when its arcs reach most ranks anyway (degree >= 2P,
and >= 16x the mean), where delegating everywhere removes its messages entirely.
"""

from __future__ import annotations

import numpy as np

from dgraph import kernels
from dgraph.checks import integer
from dgraph.layout import Layout, Subgraph
from dgraph.owners import dealt

from ..errors import DgraphInputError
from .twod import TwoD

SUBGRAPHS = ("EH2EH", "E2L", "H2L", "L2E", "L2H", "L2L")  # higher degrees first
L, H, E = 0, 1, 2
ENDS = {
    "EH2EH": ((E, H), (E, H)),
    "E2L": ((E,), (L,)),
    "H2L": ((H,), (L,)),
    "L2E": ((L,), (E,)),
    "L2H": ((L,), (H,)),
    "L2L": ((L,), (L,)),
}  # (source classes, head classes)


class OnePointFiveD(Layout):
    """1.5D layout: E delegated everywhere, H along mesh rows and columns, L not delegated.

    Parameters
    ----------
    rows, cols : int, optional
        Mesh shape (both or neither; default: near-square for the rank count, as in 2D).
    e_threshold, h_threshold : int, optional
        Degrees from which a vertex is E, H (default: automatic, see the module).
    ranks : int, optional

    Examples
    --------
    >>> import numpy as np
    >>> from dgraph.partitioners import OnePointFiveD
    >>> lay = OnePointFiveD(rows=2, cols=2, e_threshold=100, h_threshold=10)
    >>> order, bounds, extra = lay.plan(np.array([500, 50, 1, 2, 3, 40, 1, 1]))
    >>> int(extra["n_extreme"]), extra["heavy"].size
    (1, 3)
    """

    name = "1.5d"
    subgraphs = True

    def __init__(self, rows=None, cols=None, e_threshold=None, h_threshold=None, ranks=None):
        self.mesh = TwoD(rows, cols, ranks)
        super().__init__(self.mesh.ranks)
        e_threshold, h_threshold = (
            None if v is None else integer(v, what, minimum=1)
            for what, v in (("e_threshold", e_threshold), ("h_threshold", h_threshold))
        )
        if e_threshold is not None and h_threshold is not None and h_threshold > e_threshold:
            raise DgraphInputError(
                f"h_threshold={h_threshold} is above e_threshold={e_threshold}; H must be lighter than E"
            )
        self.e_threshold, self.h_threshold = e_threshold, h_threshold
        self.rows, self.cols = self.mesh.rows, self.mesh.cols

    def with_ranks(self, ranks):
        if self.ranks == ranks:
            return self
        return OnePointFiveD(e_threshold=self.e_threshold, h_threshold=self.h_threshold, ranks=ranks)

    def options(self):
        return {"rows": self.rows, "cols": self.cols, "e_threshold": self.e_threshold, "h_threshold": self.h_threshold}

    @classmethod
    def rank_hint(cls, ranks):
        return TwoD.rank_hint(ranks)

    def subgraph_schedule(self):
        """The six subgraphs, higher degrees first (Sunway's sub-iteration order, section 4.2).
        E- and H-to-E/H arcs and the arcs leaving E or entering E stay on their rank when
        pulled; an H2L or L2L pull ships the sources' bitmap to every rank, an L2H pull along
        the mesh column."""
        readers = {"H2L": "all", "L2H": "column", "L2L": "all"}
        return [
            Subgraph(name, ENDS[name][0], ENDS[name][1], name not in readers, readers.get(name, "none"))
            for name in SUBGRAPHS
        ]

    def thresholds(self, degree):
        """(e, h) degree thresholds: the given ones, or automatic ones (see the module)."""
        P, mean = self.ranks, float(degree.mean()) if degree.size else 0.0
        e = self.e_threshold or int(max(2 * P, 16 * mean, 2))
        h = self.h_threshold or int(max(self.rows + self.cols, 4 * mean, 1))
        return e, min(h, e)

    def plan(self, out_degree):
        P, n = self.ranks, out_degree.size
        e, h = self.thresholds(out_degree)
        by_degree = np.lexsort((np.arange(n), -out_degree))  # by degree, then id
        # every vertex dealt in snake order of degree: each rank, mesh row and column gets an
        # even share of the arcs of every class (a hashed deal left 5-6% to chance at P = 64,
        # a snake along rank numbers left the heaviest vertices all in mesh row 0)
        R, C = self.rows, self.cols
        t = np.arange(P)
        diagonal = (t % R) * C + (t // R + t % R) % C  # consecutive ranks in different rows and columns
        k = np.arange(n)
        owner = np.empty(n, np.int64)
        owner[by_degree] = diagonal[np.where((k // P) % 2 == 0, k % P, P - 1 - k % P)]
        order, bounds = dealt(owner, P)
        placed = np.empty(n, np.int64)
        placed[order] = np.arange(n)
        heavy = by_degree[: int(np.count_nonzero(out_degree >= h))]
        n_extreme = int(np.count_nonzero(out_degree[heavy] >= e))
        heavy = placed[heavy]
        classes = np.zeros(n, np.int8)
        classes[heavy] = H
        classes[heavy[:n_extreme]] = E
        return (
            order,
            bounds,
            {"heavy": heavy, "n_extreme": n_extreme, "classes": classes, "e_threshold": e, "h_threshold": h},
        )

    def grown(self, extra, n, added):
        """Vertices appended are light (L): their arcs stay at home until a rebuild classes them."""
        return {**extra, "classes": np.concatenate([extra["classes"], np.full(added, L, np.int8)])}

    def shrunk(self, extra, gone):
        keep = np.ones(extra["classes"].size, bool)
        keep[gone] = False
        classes = extra["classes"][keep]
        heavy = np.asarray(extra["heavy"], np.int64)
        heavy = heavy[keep[heavy]]
        heavy = heavy - np.searchsorted(gone, heavy)
        return {**extra, "classes": classes, "heavy": heavy, "n_extreme": int(np.count_nonzero(classes[heavy] == E))}

    def plan_facts(self, extra):
        ne = int(extra["n_extreme"])
        return {
            "e_threshold": int(extra["e_threshold"]),
            "h_threshold": int(extra["h_threshold"]),
            "vertices_E": ne,
            "vertices_H": int(extra["heavy"].size) - ne,
        }

    def arc_ranks(self, src, dst, bounds, extra=None):
        return kernels.onefived_ranks(src, dst, extra["classes"], bounds, self.cols)

    def csrs(self, rank, bounds, extra=None):
        """The six subgraphs: those whose sources are heavy have rows in the heavy index (E and
        H, E alone, H alone), the others the rank's own vertices."""
        lo, hi = self.row_range(rank, bounds)
        heavy, ne = extra["heavy"], int(extra["n_extreme"])
        heavy_rows = {"EH2EH": (0, heavy), "E2L": (0, heavy[:ne]), "H2L": (ne, heavy[ne:])}  # (first index, ids)
        return [
            (name, heavy_rows[name][0], None, heavy_rows[name][1]) if name in heavy_rows else (name, lo, hi, None)
            for name in SUBGRAPHS
        ]

    def csr_of(self, rows, cols, extra):
        return kernels.onefived_subgraphs(rows, cols, extra["classes"])

    def row_range(self, r, bounds):
        return int(bounds[r]), int(bounds[r + 1])

    def push_peers(self, r):
        return list(range(self.ranks))

    def mirror(self, subgraph):
        """The subgraph of the flipped arcs that holds the arcs of ``subgraph`` (pulls read it):
        flipping H2L gives L2H arcs, stored at the L end's owner, and so on."""
        src, dst = ENDS[subgraph]
        return next(name for name, ends in ENDS.items() if ends == (dst, src))

    def push_targets(self, r, subgraph=None):
        """Which of rank r's active vertices each peer gets before a push, as tuples of classes:
        E everywhere, H along r's mesh row (EH2EH) and column (H2L), L nowhere (its arcs are
        home). Restricted to one subgraph, only where that subgraph's arcs are."""
        row, col = set(self.mesh.push_peers(r)), set(self.mesh.pull_peers(r))
        where = {
            None: (row | col, (E, H), (E,)),
            "EH2EH": (row, (E, H), None),
            "E2L": (set(), None, (E,)),
            "H2L": (col, (H,), None),
        }
        return self._targets(r, *where.get(subgraph, (set(), None, None)))

    def pull_targets(self, r, subgraph=None):
        """The same before a pull along the flipped arcs (placed by the same rules): a pull
        over EH2EH reads heavy tails along the tail's mesh column, over L2E at the L tail's
        owner (nothing to send), over L2H along its mesh row; E2L, H2L and L2L read their tails
        anywhere, and a pull over everything reads every tail anywhere."""
        row, col = set(self.mesh.push_peers(r)), set(self.mesh.pull_peers(r))
        where = {
            "EH2EH": (col, (E, H), None),
            "E2L": (set(), None, (E,)),
            "H2L": (set(), None, (H,)),
            "L2E": (set(), None, None),
            "L2H": (row, (L,), None),
            "L2L": (set(), None, (L,)),
        }
        return self._targets(r, *where.get(subgraph, (set(), None, (L, H, E))))

    def _targets(self, r, near, near_classes, far_classes):
        """``near`` ranks get r's active vertices of ``near_classes``, all others those of
        ``far_classes`` (None: nothing)."""
        out = {}
        for d in range(self.ranks):
            classes = near_classes if d in near else far_classes
            if d != r and classes is not None:
                out[d] = classes
        return out

    def __repr__(self):
        return (
            f"OnePointFiveD(rows={self.rows}, cols={self.cols}, e_threshold={self.e_threshold}, "
            f"h_threshold={self.h_threshold})"
        )
