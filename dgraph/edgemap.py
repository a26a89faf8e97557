"""DistEdgeMap: one edge map for every layout, and the gather plans beside it.

``EdgeMap`` applies a vectorized ``f(src, dst, weight, value) -> values`` to the arcs leaving a
frontier and merges the results at the owners of their heads (TDO-GP, Figure 6, Algorithm 2),
in one of two directions chosen per superstep:

- **push** (sparse): the frontier's ids and values are gathered to the ranks whose blocks hold
  their arcs (the layout's ``push_targets``: nobody else in 1D, the mesh row in 2D; in 1.5D E
  vertices everywhere, H along the mesh row and column, L nowhere), each rank evaluates ``f`` on
  its arcs, pre-merges per head, and sends each head's result to its owner (the scatter plan:
  within the mesh column in 2D).
- **pull** (dense): the frontier is gathered to the ranks whose in-arcs may come from it (the
  layout's ``pull_targets``: every rank in 1D, the mesh column in 2D), and every rank scans the
  in-arcs of its candidate heads; with ``merge="first"`` a head stops at its first frontier
  in-neighbour, which is Beamer's bottom-up step. Results go to the heads' owners.

``direction="auto"`` picks pull when the frontier and its out-degree sum exceed 1/20 of the arcs
(Ligra's rule, TDO-GP 3.1); algorithms with a sharper rule (BFS: Beamer's) pass it explicitly.
Each message travels in its dense form (a bitmap of the owner's range instead of ids) when that
is smaller than its sparse form (ids), the HPCGraph cut-off expressed in bytes.

Merges: ``"min"``, ``"max"``, ``"sum"``, ``"first"`` (the arc whose tail has the smallest
canonical id) or a numpy ufunc (``np.maximum``, ``np.bitwise_or``, ...). Min, max and first also
return the tail of the winning arc (smallest canonical id on ties), so algorithms get paths.
Where the placement reorders vertices the tails are keyed ids (``owners.keyed``: the canonical
id above the placed id), so every merge breaks ties by comparing them and no worker holds a
table of every vertex's canonical id; ``EdgeMap.placed`` reads their placed ids.
What to do with the merged values (the paper's write_back) stays with the algorithm, which owns
its vertex arrays.

Vertex state is per rank and per vertex space (``Block.space``: the rank's own vertices and
the ghosts its arcs read), never per vertex of the graph: the merges' scratch, a pull's
frontier flags and values, and ``VertexMarks`` (BFS's visited) have a slot per vertex of the
space. Messages carry placed ids; slots stay inside a rank.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from . import kernels
from .block import kept, keyed_ids, keyed_run, own_canonical, owner_rows, space_slots
from .frontier_messages import concat, pack, unpack
from .ghosts import reduce_rows
from .heavy_index import HeavyIndex, heavy_index
from .layout import by_owner
from .owners import keyed
from .vertex_subset import SpaceFlags, VertexMarks, VertexSubset, mark_parts

__all__ = [
    "EdgeMap",
    "EdgeMapStep",
    "HeavyIndex",
    "VertexMarks",
    "VertexSubset",
    "add_weight",
    "heavy_index",
    "pull_is_cheaper",
    "pull_pays",
]

MERGES = ("min", "max", "sum", "first")
DIRECTIONS = ("auto", "push", "pull")
PULL_SHARE = 20  # Ligra: pull when |F| + outdeg(F) > arcs / 20


# A pulled arc costs about two pushed ones: its tail's flag and value are read at random, where a
# push's reads run along the row (Kronecker 20, 2 ranks: 20-40 ns an arc against 12-18). What an
# algorithm that knows both counts (SSSP's heavy arcs, BC's levels) weighs them by.
PULLED_ARC_COST = 2


@dataclass(frozen=True, eq=False)
class EdgeMapStep:
    """One call of an edge map (``EdgeMap.__call__`` describes each option): what is applied
    along the arcs (``f``), how results merge at a head (``merge``), the direction, which is
    "push" or "pull" by now, and the call's options. ``valueless``: the call gave neither values
    nor ``f``, so only the winning tails matter and messages carry no values."""

    f: Callable
    merge: Any
    direction: str
    valueless: bool = False
    total: Any = None
    total_op: str = "sum"
    skip_dst: Any = None
    subgraph: str | None = None
    arcs: Any = None
    window: tuple | None = None
    falling: bool = False

    def __post_init__(self):
        if self.falling and (self.direction != "push" or self.merge != "min" or self.f not in (_carry, add_weight)):
            raise ValueError("falling= is for min pushes of the carried value or add_weight")
        if self.direction == "pull" and (self.arcs is not None or self.window is not None):
            raise ValueError("arcs= and window= are for pushes")


def pull_pays(push, pull):
    """Whether pulling ``pull`` arcs in all costs less than pushing ``push``."""
    return pull * PULLED_ARC_COST < push


def pull_is_cheaper(ctx, pushed, pulled):
    """Whether a step that would push ``pushed[r]`` arcs on each rank r costs more than one that
    pulls ``pulled[r]`` (one reduction, so every rank decides the same)."""
    return pull_pays(*ctx.allreduce({r: [pushed[r], pulled[r]] for r in ctx.ranks}))


class EdgeMap:
    """The edge map of one run on one worker (see the module docstring).

    ``block``: which of a rank's blocks holds the arcs to push along (0: out-arcs, 1: in-arcs,
    for a run started with ``reverse``); pulls read the other one. ``layout``: the graph's layout
    (kernels run with ``placement="layout"`` receive it); None means 1D. ``classes``: the
    layout's ``HeavyIndex`` (1.5D: ``classes[ids]`` is 0 L, 1 H, 2 E), or None.
    """

    def __init__(self, ctx, bounds, block=0, layout=None):
        self.ctx = ctx
        self.bounds = np.asarray(bounds, dtype=np.int64)
        # tails are keyed ids (``owners.keyed``) where the placement reorders vertices
        self.keyed = keyed_run(ctx)
        self._own_keys = {}
        self.block = block
        self.layout = layout if layout is not None else by_owner(ctx.nranks)
        self.local_rows = all(self.layout.push_peers(r) == [r] for r in range(ctx.nranks))
        self.edges_examined = 0
        # per rank, the frontier vertices it saw in the last call: placed ids, or (lo, mask) of a
        # peer's range (``mark_seen`` reads both)
        self.seen = {}
        self.n = int(self.bounds[-1])
        self._scratch = None
        self._floors = {}
        self._fronts = {}
        self._filled = {}  # id(part) -> the positions of its rows with arcs
        self._universes = {}
        self._degree = None
        self._arcs = None
        self.classes = heavy_index(ctx.blocks[ctx.ranks[0]][0]) if ctx.ranks else None

    def scratch(self, size):
        """The merges' scratch for ids below ``size`` (floats, ints, ints, False flags), one for
        the whole run, grown to the largest space or owned range merged over: every value slot
        is written before it is read, so only the flags are zeroed."""
        if self._scratch is None or self._scratch[0].size < size:
            self._scratch = (
                np.empty(size),
                np.empty(size, np.int64),
                np.empty(size, np.int64),
                np.zeros(size, dtype=np.bool_),
            )
            self.ctx.stats.hold_vertex_state("edge map scratch", 25 * size)
        return self._scratch

    def floor(self, r, space):
        """Rank r's least value offered so far to each slot of ``space`` (``falling`` pushes),
        rounded up to a float32 (a filter needs no more), +inf until offered: one array per rank
        for the run, for the one space it pushes into."""
        held = self._floors.get(r)
        if held is None or held[0] is not space:
            held = self._floors[r] = (space, np.full(space.size, np.inf, np.float32))
            self.ctx.stats.hold_vertex_state(f"edge map floor {r}", 4 * space.size)
        return held[1]

    def marks(self):
        """A new ``VertexMarks`` over this run's blocks, all unset."""
        return VertexMarks(self)

    def mark_seen(self, marks, value=True):
        """Set ``marks`` (a ``VertexMarks``) to ``value`` at every frontier vertex of the last call."""
        for r in self.ctx.ranks:
            marks.mark(r, self.seen.get(r, ()), value)

    def placed(self, tails):
        """The placed ids of tails the edge map returned (-1 stays -1), in place: a run's own
        tails, converted when it hands them to its result."""
        return kernels.unkey(tails) if self.keyed else tails

    def own_key(self, r):
        """The canonical id of each of rank r's own vertices where placed ids are not (empty
        where they are): what ``kernels.relax_local`` keys the tails it writes by."""
        if not self.keyed:
            return np.empty(0, np.int64)
        if r not in self._own_keys:
            self._own_keys[r] = own_canonical(self.out_block(r), self.lo(r), self.lo(r) + self.size(r))
        return self._own_keys[r]

    def _row_tails(self, part, loc, tails):
        """The tails of rows ``loc`` of a part (placed ids ``tails``) as keyed ids."""
        if not self.keyed:
            return tails
        if part.row_ids is None:  # a range of placed ids: a range of slots
            slots = loc + int(np.searchsorted(part.space, part.lo))
        else:  # the frontier's rows only (a part's heavy rows may be many)
            slots = part.slots(tails)
        return keyed(tails, part.space_key[slots])

    def lo(self, r):
        return int(self.bounds[r])

    def size(self, r):
        return int(self.bounds[r + 1] - self.bounds[r])

    def out_block(self, r):
        return self.ctx.blocks[r][self.block]

    def in_block(self, r):
        blocks = self.ctx.blocks[r]
        return blocks[1 - self.block] if len(blocks) > 1 else blocks[0]

    def spaces(self, r):
        """Rank r's distinct vertex spaces: its out-block's and, when it is another, its in-block's."""
        out, inb = self.out_block(r).space, self.in_block(r).space
        return [out] if inb is out else [out, inb]

    # ------------------------------------------------------------------ the call
    def __call__(
        self,
        frontier,
        values,
        f,
        merge,
        *,
        total=None,
        total_op="sum",
        skip_dst=None,
        direction="push",
        subgraph=None,
        arcs=None,
        window=None,
        falling=False,
    ):
        """Apply ``f`` along the arcs leaving ``frontier`` and merge at the heads' owners.

        ``frontier[r]``: rank r's active vertices, a VertexSubset or sorted local ids (placed id
        minus ``lo(r)``); ``values[r]``: one value per active vertex (or ``values=None``: zeros).
        ``f(src, dst, weight, value)``: global placed ids, weights (1.0 when unweighted) and the
        source's value, as arrays; None passes the value on. ``skip_dst``: a boolean array over
        placed ids, set for heads not worth trying (what this worker knows is done: TDO-GP's
        filter_dst); a pull does not even scan their arcs.
        ``total``: one small array per rank, reduced with ``total_op`` in the same superstep, or
        ``total(r, heads, values)`` computed from the heads rank r's results go to and their
        values (before they merge at the owners: an upper bound on how many change, the least
        value offered). ``subgraph``: only the arcs of that
        subgraph of a layout with subgraphs (1.5D: "EH2EH", "E2L", ...; a pull reads its mirror).
        ``arcs[r]``: a push along these blocks (of the layout's shape; ``block.light_arcs``)
        instead of the ranks' own. ``window`` (low, high): a push along only the arcs whose
        weight (1.0 unweighted) lies in [low, high). ``falling`` (a ``"min"`` push of ``f`` = None or
        ``add_weight``): the values a head is offered only matter when they fall over the run,
        as distances do; each rank drops its offers above one it made before to the same head,
        so they neither merge nor travel (GAP's SSSP skips an arc the same way when it cannot
        lower the head's distance).

        Returns ``({r: (local ids, merged values, tails)}, totals)``.
        """
        if not (merge in MERGES or isinstance(merge, np.ufunc)):
            raise ValueError(f"merge must be one of {MERGES} or a numpy ufunc, got {merge!r}")
        if direction not in DIRECTIONS:
            raise ValueError(f"direction must be one of {DIRECTIONS}, got {direction!r}")
        ids = {
            r: (frontier[r].ids if isinstance(frontier[r], VertexSubset) else np.asarray(frontier[r], np.int64))
            for r in self.ctx.ranks
        }
        vals = {r: np.zeros(ids[r].size, np.int64) if values is None else np.asarray(values[r]) for r in self.ctx.ranks}
        step = EdgeMapStep(
            f or _carry,
            merge,
            self._choose(ids) if direction == "auto" else direction,
            valueless=values is None and f is None,
            total=total,
            total_op=total_op,
            skip_dst=skip_dst,
            subgraph=subgraph,
            arcs=arcs,
            window=window,
            falling=falling,
        )
        return self._pull(step, ids, vals) if step.direction == "pull" else self._push(step, ids, vals)

    def _parts(self, block, pull, subgraph):
        if subgraph is None:
            return block.parts
        name = self.layout.mirror(subgraph) if pull else subgraph
        return [p for p in block.parts if p.name == name]

    def out_degree(self):
        """``{r: out-degree of each of r's own vertices}``: the block's own rows in 1D, the
        degrees placement stored with the blocks otherwise (or a row reduction, for blocks
        without them)."""
        if self._degree is None and all(self.out_block(r).owned_degree is not None for r in self.ctx.ranks):
            self._degree = {r: self.out_block(r).owned_degree for r in self.ctx.ranks}  # kept since placement
        if self._degree is None:
            blocks = {r: self.out_block(r) for r in self.ctx.ranks}
            partial = {r: [p.degree() for p in blocks[r].parts] for r in self.ctx.ranks}
            self._degree = reduce_rows(self.ctx, blocks, partial, self.layout, self.bounds)
        return self._degree

    def out_arcs(self, r, ids=None):
        """The arcs leaving rank r's vertices ``ids`` (local ids; None: all of them), summed: read
        off the row offsets where the out-block's rows are the rank's own vertices (1D), else
        from ``out_degree`` (collective the first time: every rank of the run asks together)."""
        lo = self.lo(r)
        block = self.out_block(r)
        if owner_rows(block, lo, lo + self.size(r)):
            indptr = block.parts[0].indptr
            return int(indptr[-1] - indptr[0]) if ids is None else kernels.rows_arcs(indptr, ids)
        degree = self.out_degree()[r]
        return int(degree.sum() if ids is None else degree[ids].sum())

    def _universe(self, r, classes):
        """Rank r's own vertices (local ids) of these classes."""
        key = (r, tuple(classes))
        if key not in self._universes:
            lo = self.lo(r)
            self._universes[key] = np.flatnonzero(np.isin(self.classes[lo : lo + self.size(r)], classes))
        return self._universes[key]

    def _local(self, part, gids):
        """Local rows of ``part`` for global ids, and which of the ids have a row there."""
        loc = (gids if part.row_ids is None else self.classes.index(gids)) - part.lo
        ok = (loc >= 0) & (loc < part.nlocal)
        return loc, ok

    def _choose(self, ids):
        if self._arcs is None:
            self._arcs = int(self.ctx.allreduce({r: [self.out_block(r).narcs] for r in self.ctx.ranks})[0])
        nf, mf = self.ctx.allreduce({r: [ids[r].size, self.out_arcs(r, ids[r])] for r in self.ctx.ranks})
        return "pull" if nf + mf > self._arcs / PULL_SHARE else "push"

    def _targets(self, pull, subgraph):
        """Per rank, which peers get which of its active vertices before a push or a pull."""
        of = self.layout.pull_targets if pull else self.layout.push_targets
        return {r: of(r, subgraph) for r in self.ctx.ranks}

    def _gather(self, ids, vals, targets, *, valueless, total=None, total_op="sum", masks=False):
        """Every rank's frontier (global ids, values) plus those its peers sent it.
        ``targets[r][d]``: which of r's active vertices peer d gets: None for all, or a tuple of
        the layout's vertex classes. A class-restricted message numbers the vertices among the
        sender's own vertices of those classes (its universe, which every worker can rebuild),
        so a bitmap of a few heavy vertices costs a few bytes, not one bit per owned vertex.
        ``masks`` (a valueless pull, which only marks the frontier): a peer's bitmap stays a mask
        of its range, ``(lo, mask)``, not listed as ids; rank r's rows are then the list of its
        parts (global ids or such pairs), the form of ``self.seen``. ``valueless``: messages
        carry ids alone."""
        send = {}
        for r in self.ctx.ranks:
            send[r] = {}
            if ids[r].size == 0:  # peers take a missing message as an empty frontier
                continue
            cls = None if self.classes is None else self.classes[ids[r] + self.lo(r)]
            packed = {}  # r's message per class restriction (None: all), made once for every peer it goes to
            for d, classes in targets[r].items():
                if classes not in packed:
                    packed[classes] = self._message(r, ids[r], vals[r], cls, classes, valueless=valueless)
                if packed[classes] is not None:
                    send[r][d] = packed[classes]
        if not any(targets[r] for r in self.ctx.ranks) and total is None:  # the layout never gathers (1D)
            got, totals = {r: [] for r in self.ctx.ranks}, None
        else:
            got, totals = self._exchange(send, total, total_op)
        rows = {}
        for r in self.ctx.ranks:
            parts, spans = [(ids[r] + self.lo(r), vals[r])], []
            for src, message in got[r]:
                if message[0].dtype == np.int8:  # class-restricted: positions in the sender's universe
                    universe = self._universe(src, tuple(c for c in range(8) if int(message[0][0]) >> c & 1))
                    pos, rest = unpack(message[1:], universe.size)
                    local = universe[pos]
                elif masks and message[0].dtype == np.uint8:  # unpacked in place of listing its ids
                    spans.append((self.lo(src), np.unpackbits(message[0], count=self.size(src)).view(bool)))
                    continue
                else:
                    local, rest = unpack(message, self.size(src))
                parts.append((local + self.lo(src), rest[0] if rest else np.zeros(local.size, vals[r].dtype)))
            if masks:
                rows[r] = [p[0] for p in parts] + spans
            else:
                rows[r] = (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]))
        self.seen = {r: rows[r] if masks else [rows[r][0]] for r in self.ctx.ranks}
        return rows, totals

    def _message(self, r, ids, vals, cls, classes, *, valueless):
        """Rank r's frontier message to a peer that gets its active vertices ``ids`` of
        ``classes`` (None: all; ``cls``: each active vertex's class), or None if it has none."""
        carried = lambda sel: [] if valueless else [vals[sel]]  # noqa: E731
        if classes is None:
            return pack(ids, carried(slice(None)), self.size(r))
        sel = np.flatnonzero(np.isin(cls, classes))
        if sel.size == 0:
            return None
        universe = self._universe(r, classes)
        header = np.array([sum(1 << c for c in classes)], np.int8)
        return [header, *pack(np.searchsorted(universe, ids[sel]), carried(sel), universe.size)]

    def _exchange(self, send, total, total_op, combine=None):
        """One alltoall superstep; ``total`` (if any) is reduced in the same frames. A transport
        that forwards messages (grouped) may merge those bound for one rank with ``combine``."""
        if total is None:
            return self.ctx.alltoall(send, combine=combine), None
        return self.ctx.alltoall(send, total=total, op=total_op, combine=combine)

    def _combiner(self, merge, valueless):
        """Merge several scatter messages bound for rank ``dst`` into one, with the call's merge
        (the same merge the owner would apply): a monitor forwarding them sends fewer bytes."""

        def combine(dst, messages):
            parts = [unpack(m, self.size(dst)) for m in messages]
            local = concat([p[0] for p in parts], np.int64)
            tails = concat([p[1][-1] for p in parts], np.int64)
            vals = np.zeros(local.size, np.int64) if valueless else concat([p[1][0] for p in parts], np.float64)
            heads, vals, tails = self._merge(local, vals, tails, merge, self.size(dst))
            return pack(heads, ([] if valueless else [vals]) + [tails], self.size(dst))

        def cut(dst, message, pieces):
            """A message for ``dst`` as up to ``pieces`` messages of about equal rows, for a
            transport that pipelines (a bitmap's heads are cut too, each piece in its smaller form)."""
            ids, rest = unpack(message, self.size(dst))
            step = max(-(-ids.size // pieces), 1)
            return [
                pack(ids[i : i + step], [a[i : i + step] for a in rest], self.size(dst))
                for i in range(0, ids.size, step)
            ]

        combine.cut = cut
        return combine

    def _merge(self, dst, vals, tails, merge, size):
        """Merge per distinct id in ``dst`` (ids below ``size``): sorted ids, values, tails."""
        vals = np.asarray(vals)
        if isinstance(merge, np.ufunc):
            order = np.argsort(dst, kind="stable")
            dst, vals, tails = dst[order], vals[order], tails[order]
            starts = np.flatnonzero(np.r_[True, dst[1:] != dst[:-1]]) if dst.size else dst
            return dst[starts], merge.reduceat(vals, starts) if dst.size else vals, tails[starts]
        return kernels.merge_by_id(dst, vals, tails, merge, self.scratch(size))

    def _scatter(self, step, results):
        """Send each rank's merged (heads, values, tails) to the heads' owners and merge there,
        with the ``step``'s merge and total."""
        merge, total, valueless = step.merge, step.total, step.valueless
        send = {}
        for r in self.ctx.ranks:
            ids, vals, tails = results[r]
            cuts = np.searchsorted(ids, self.bounds)
            send[r] = {
                d: pack(ids[a:b] - self.bounds[d], ([] if valueless else [vals[a:b]]) + [tails[a:b]], self.size(d))
                for d, (a, b) in enumerate(zip(cuts[:-1], cuts[1:]))
                if b > a
            }
        if callable(total):
            total = {r: total(r, *results[r][:2]) for r in self.ctx.ranks}
        got, totals = self._exchange(send, total, step.total_op, self._combiner(merge, valueless))
        merged = {}
        for r in self.ctx.ranks:
            parts = []
            for _, m in got[r]:
                local, rest = unpack(m, self.size(r))
                parts.append((local, rest[0] if len(rest) == 2 else np.zeros(local.size, np.int64), rest[-1]))
            if len(parts) == 1:  # one sender: already merged and sorted
                merged[r] = parts[0]
                continue
            local = concat([p[0] for p in parts], np.int64)
            v = concat([p[1] for p in parts], np.float64)
            t = concat([p[2] for p in parts], np.int64)
            merged[r] = self._merge(local, v, t, merge, self.size(r))
        return merged, totals

    def _push(self, step, ids, vals):
        f, merge, skip_dst, arcs, window = step.f, step.merge, step.skip_dst, step.arcs, step.window
        rows = self._gather(ids, vals, self._targets(False, step.subgraph), valueless=step.valueless)[0]
        fused = (f is _carry or f is add_weight) and merge in ("min", "max", "sum", "first")
        results = {}
        for r in self.ctx.ranks:
            found = []
            block = arcs[r] if arcs is not None else self.out_block(r)
            space = block.space
            skip = None if skip_dst is None else skip_dst.of(r, space)
            for part in self._parts(block, False, step.subgraph):
                loc, ok = self._local(part, rows[r][0])
                sel = np.flatnonzero(ok)
                tails, tvals = rows[r][0][sel], rows[r][1][sel]
                ranked = self._row_tails(part, loc[sel], tails)
                if fused:  # arcs, f and the merge in one pass
                    *merged, examined = kernels.push_merge(
                        part.indptr,
                        part.indices,
                        part.weights,
                        loc[sel],
                        tvals,
                        ranked,
                        skip,
                        merge,
                        f is add_weight,
                        self.scratch(space.size),
                        self.floor(r, space) if step.falling else None,
                        window,
                    )
                    self.edges_examined += examined
                    found.append(tuple(merged))
                    continue
                pos, dst, w = kernels.frontier_arcs(part.indptr, part.indices, part.weights, loc[sel])
                self.edges_examined += dst.size
                if skip is not None or window is not None:
                    keep = np.ones(dst.size, dtype=bool) if skip is None else ~skip[dst]
                    if window is not None:
                        keep &= (w >= window[0]) & (w < window[1])
                    pos, dst, w = pos[keep], dst[keep], w[keep]
                found.append((dst, np.asarray(f(tails[pos], space[dst], w, tvals[pos])), ranked[pos]))
            heads, v, t = found[0] if fused and len(found) == 1 else self._merge(*_join(found), merge, space.size)
            results[r] = (space[heads], v, t)  # slots ascending: placed ids ascending
        return self._scatter(step, results)

    def _pull(self, step, ids, vals):
        f, merge, total, skip_dst, valueless = step.f, step.merge, step.total, step.skip_dst, step.valueless
        dtype = vals[self.ctx.ranks[0]].dtype
        # in 1D the results stay home, so the totals ride on the gather instead
        early = total if self.local_rows and not callable(total) else None
        # valueless (only the winning tails matter): the frontier is only marked, from the bitmaps
        targets = self._targets(True, step.subgraph)
        rows, totals = self._gather(
            ids, vals, targets, valueless=valueless, total=early, total_op=step.total_op, masks=valueless
        )
        # path lengths and carried sums of floats (SSSP, BC): one pass over each row's arcs
        fused = (
            not valueless
            and np.issubdtype(dtype, np.floating)
            and ((merge == "min" and f is add_weight) or (merge == "sum" and f is _carry))
        )
        results = {}
        for r in self.ctx.ranks:
            block = self.in_block(r)
            space = block.space
            front, fval = self._front(r, space, dtype)
            if valueless:
                mark_parts(space, front, rows[r])
                self.seen[r] = [SpaceFlags(space, front.copy(), rows[r])]  # what mark_seen reads, marked once
            else:
                slots, inside = space_slots(space, rows[r][0])
                front[slots[inside]] = True
                fval[slots[inside]] = rows[r][1][inside]
            skip = None if skip_dst is None else skip_dst.of(r, space)
            found = []
            parts = self._parts(block, True, step.subgraph)
            for part in parts:
                local, heads = _pull_rows(part, skip, *self._rows_with_arcs(part, listed=skip is None))
                if fused:  # each row's merged offer found as its arcs are read
                    pos, v, src, scanned = kernels.pull_merge(
                        part.indptr, part.indices, part.weights, local, front, fval, merge, f is add_weight,
                        part.space_key,
                    )  # fmt: skip
                    self.edges_examined += scanned
                    found.append((heads[pos], v, keyed_ids(part, src)))
                    continue
                if merge == "first":
                    pos, src, w, scanned = kernels.first_in_frontier(
                        part.indptr, part.indices, part.weights, local, front
                    )
                else:
                    pos, src, w = kernels.frontier_arcs(part.indptr, part.indices, part.weights, local)
                    scanned = src.size
                    keep = np.flatnonzero(front[src])
                    pos, src, w = pos[keep], src[keep], w[keep]
                self.edges_examined += scanned
                dst = heads[pos]
                value = (
                    np.zeros(src.size, fval.dtype) if valueless else np.asarray(f(space[src], space[dst], w, fval[src]))
                )
                found.append((dst, value, keyed_ids(part, src)))
            if (merge == "first" or fused) and len(parts) == 1 and parts[0].row_ids is None:  # one per head, in order
                dst, v, src = found[0]
                v = v.astype(np.int64 if np.issubdtype(v.dtype, np.integer) else np.float64, copy=False)
            else:
                dst, v, src = self._merge(*_join(found), merge, space.size)
            results[r] = (space[dst], v, src)
            if valueless:
                front.fill(False)  # pulls run on dense frontiers: a fill beats unmarking
            else:
                front[slots[inside]] = False
        if self.local_rows:
            if callable(total):
                totals = self.ctx.allreduce({r: total(r, *results[r][:2]) for r in self.ctx.ranks}, step.total_op)
            return {r: (results[r][0] - self.lo(r), results[r][1], results[r][2]) for r in self.ctx.ranks}, totals
        return self._scatter(step, results)

    def _rows_with_arcs(self, part, listed):
        """A part's rows that have arcs: flags (kept with the part) and, with ``listed``, their
        positions (made once per edge map): the only rows a pull can find anything for (on a
        Kronecker graph nearly half of a rank's rows have none)."""
        flags = kept(part, "rows with arcs", lambda: part.indptr[1:] > part.indptr[:-1])
        if listed and id(part) not in self._filled:
            self._filled[id(part)] = np.flatnonzero(flags)
        return flags, self._filled.get(id(part))

    def _front(self, r, space, dtype):
        """Rank r's pull flags and values over ``space``, all unset between pulls."""
        key = (r, id(space))
        if key not in self._fronts or self._fronts[key][1].dtype != dtype:
            self._fronts[key] = (np.zeros(space.size, dtype=bool), np.zeros(space.size, dtype=dtype))
            self.ctx.stats.hold_vertex_state(f"pull frontier {key}", 9 * space.size)
        return self._fronts[key]


def _pull_rows(part, skip, flags, positions):
    """The rows of ``part`` a pull scans (local positions, ascending) and their heads (slots
    of its space): those with arcs (``flags``; ``positions``, listed where ``skip`` is None)
    that ``skip`` (flags over the space, or None) leaves."""
    if part.row_ids is None:  # a range of placed ids: a range of slots, read as a slice
        first = int(np.searchsorted(part.space, part.lo))
        local = positions if skip is None else np.flatnonzero(flags & ~skip[first : first + part.nlocal])
        return local, local + first
    slots = part.row_slots()
    if skip is None:
        return positions, slots[positions]
    local = np.flatnonzero(flags & ~skip[slots])
    return local, slots[local]


def _carry(src, dst, w, value):
    return value


def add_weight(src, dst, w, value):
    """``f`` for path lengths: the tail's value plus the arc's weight (the push fuses it)."""
    return value + w


def _join(found):
    if len(found) == 1:
        return found[0]
    return tuple(np.concatenate([x[i] for x in found]) for i in range(3))
