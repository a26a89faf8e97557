"""Random walks: first order (uniform, or by weight) and node2vec's second-order walks.

Method: walker-centric, as KnightKing (Yang et al., SOSP 2019). A walker lives on the rank that
owns its current vertex (1D owner blocks: every vertex's out-arcs at its owner, on every
layout), and each step is one exchange sending every walker to the owner of its next vertex,
with the count of walkers still going riding along. A first-order step draws one arc of the
current vertex: uniformly, or by weight through the row's running sums of its weights
(``kernels.row_prefix``, made once per run) and a binary search in the row.

node2vec (Grover and Leskovec, KDD 2016) moves from v, having come from t, to x with
probability proportional to w(v, x) * a(t, x), where a = 1/p if x = t, 1 if t -> x is an arc and
1/q otherwise. No table over arcs or pairs of arcs holds these: a step is rejection sampling
(KnightKing's) over the first-order draw. Each proposal x comes with a uniform u below
max(a); x = t is decided at once, and so is any u below min(1, 1/q) (accepted whatever x is)
or at least max(1, 1/q) (rejected). Only the proposals between those need to know whether t ->
x is an arc, and a membership query to t's owner answers them (a binary search of x's
canonical id in t's row): one request and one reply superstep for every walker that asks. A
walker draws its proposals in batches (4, doubling) until one is accepted without asking,
asks about every proposal before that one (up to 8 a round) and takes the first accepted in
draw order: the walk is the one-at-a-time sampler's exactly, and most steps take one query
round.

Every draw is a function of (seed, walk, step, attempt) (``dgraph.streams``), a row lists its
heads by canonical id and running sums start afresh at each row, so for a seed the walks are
the same on every layout and rank count.

Output encoding: ``walk`` (the start's position in ``starts``), ``step`` (0 for the start) and
``vertex`` (the user's label). A walk has ``length + 1`` rows, fewer only when it reaches a sink
(a vertex with no out-arc, or no arc of positive weight), where it ends.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from dgraph import kernels
from dgraph.block import block_arcs
from dgraph.checks import integer, number
from dgraph.errors import DgraphInputError
from dgraph.owners import by_owner
from dgraph.streams import below, fresh_seed, uniforms
from dgraph.weights import GRAPH_WEIGHT, Weight, weighed

if TYPE_CHECKING:
    import dask.dataframe as dd

    from dgraph.graph import Graph

BATCH = 4  # proposals a second-order walker draws at once (most are accepted within a few)
MOST_BATCH = 1 << 12  # the doubling stops here
ASKS = 8  # membership queries a walker may send in one round (those before its first sure accept)


class _Rank:
    """One rank's side of a step: its owner block, the running sums of its weights (None
    unweighted) and its walkers (walk ids, current and previous placed ids)."""

    def __init__(self, block, prefix, walk, cur, prev):
        self.block, self.prefix = block, prefix
        self.walk, self.cur, self.prev = walk, cur, prev
        self.span = self.moving = None

    def begin(self, lo):
        """A step: each walker's row's arcs (``span``: start, end) and the walkers not at a sink
        (``moving``)."""
        row = self.cur - lo
        start, end = self.block.indptr[row].astype(np.int64), self.block.indptr[row + 1].astype(np.int64)
        self.span = start, end
        if self.prefix is None:
            self.moving = np.flatnonzero(end > start)
        else:
            self.moving = np.flatnonzero(np.where(end > start, self.prefix[np.maximum(end - 1, 0)], 0.0) > 0)

    def propose(self, seed, step, who, attempts):
        """The arcs walkers ``who`` draw at their ``attempts`` (an array of their shape)."""
        start, end = (s[who].reshape(who.shape + (1,) * (attempts.ndim - 1)) for s in self.span)
        start, end = np.broadcast_to(start, attempts.shape), np.broadcast_to(end, attempts.shape)
        walk = self.walk[who].reshape(start.shape[:1] + (1,) * (attempts.ndim - 1))
        u = uniforms(seed, walk, step, 2 * attempts)
        if self.prefix is None:
            return start + below(u, end - start)
        total = self.prefix[end - 1]  # each row's running sums start afresh: its last is its total
        arc = kernels.search_rows(start.ravel(), end.ravel(), self.prefix, (u * total).ravel(), right=True)
        short = np.flatnonzero(arc >= end.ravel())  # u * total rounded up to the total
        if short.size:  # the last arc of positive weight
            s, e, t = (a.ravel()[short] for a in (start, end, total))
            arc[short] = kernels.search_rows(s, e, self.prefix, t)
        return arc.reshape(attempts.shape)

    def heads(self, arcs):
        return self.block.space[self.block.indices[arcs]].astype(np.int64)


def counts(send):
    """``{r: [messages' first arrays' total size]}``: what a round moves, to ride along with it."""
    return {r: np.array([sum(m[0].size for m in out.values())]) for r, out in send.items()}


def joined(received, columns):
    """The ``columns`` arrays of a round's messages to one rank, each joined in sender order."""
    parts = [arrays for _, arrays in received]
    return [np.concatenate([p[i] for p in parts]) if parts else np.empty(0, np.int64) for i in range(columns)]


def walk_kernel(ctx, *, starts, length, bias, weighted, seed, bounds):
    ranks = {}
    rows = {r: [] for r in ctx.ranks}
    for r in ctx.ranks:
        block = ctx.blocks[r][0]
        mine = np.flatnonzero((starts >= bounds[r]) & (starts < bounds[r + 1]))
        prefix = kernels.row_prefix(block.indptr, block.weights) if weighted else None
        ranks[r] = _Rank(block, prefix, mine, starts[mine], np.full(mine.size, -1, np.int64))
        rows[r].append((mine, np.zeros(mine.size, np.int64), starts[mine]))
    ctx.hold("walks' running sums of weights", {r: k.prefix for r, k in ranks.items() if k.prefix is not None})
    tally = np.zeros(3, np.int64)  # proposals, membership queries, query rounds
    steps = 0
    for step in range(length):
        for r, k in ranks.items():
            k.begin(int(bounds[r]))
        if step == 0 or bias == (1.0, 1.0):  # each walker's attempt 0
            arcs = {r: k.propose(seed, step, k.moving, np.zeros(k.moving.size, np.int64)) for r, k in ranks.items()}
            tally[0] += sum(k.moving.size for k in ranks.values())
        else:
            arcs = _node2vec(ctx, ranks, _Step(seed, step, *bias), bounds, tally)
        send = {}
        for r, k in ranks.items():
            who, nxt = k.moving, k.heads(arcs[r])
            rows[r].append((k.walk[who], np.full(who.size, step + 1, np.int64), nxt))
            send[r] = by_owner(bounds, nxt, k.walk[who], k.cur[who])  # [next, walk, current] to next's owner
        steps = step + 1
        if step + 1 == length:
            break
        got, going = ctx.alltoall(send, total=counts(send))
        for r, k in ranks.items():
            k.cur, k.walk, k.prev = joined(got[r], 3)
        if int(going[0]) == 0:
            break
    tally = ctx.allreduce({r: tally if r == ctx.ranks[0] else np.zeros(3, np.int64) for r in ctx.ranks})
    proposals, queries, rounds = (int(t) for t in tally)
    ctx.stats.info.update(steps=steps, proposals=proposals, queries=queries, query_rounds=rounds, seed=seed)
    out = {}
    for r in ctx.ranks:
        walk, stp, vertex = (np.concatenate(c) for c in zip(*rows[r]))
        order = np.lexsort((stp, walk))
        out[r] = {"walk": walk[order], "step": stp[order], "vertex": vertex[order]}
    return out


class _Step(NamedTuple):
    """A second-order step's draws: the seed, the step, and node2vec's weights 1/p and 1/q."""

    seed: int
    step: int
    ret: float
    far: float


def _node2vec(ctx, ranks, draw, bounds, tally):
    """Each moving walker's arc for this second-order step (rejection sampling; see the module's
    docstring): ``{r: arcs}`` in the order of each rank's ``moving``."""
    far = draw.far
    chosen = {r: np.full(k.moving.size, -1, np.int64) for r, k in ranks.items()}
    offset = {r: np.zeros(k.moving.size, np.int64) for r, k in ranks.items()}
    pending = {r: np.arange(k.moving.size) for r, k in ranks.items()}
    while True:
        asks, send = {}, {}
        for r, k in ranks.items():
            asks[r] = _draw(k, pending[r], offset[r], chosen[r], draw, tally)
            t, x = k.prev[k.moving[asks[r].walker]], k.heads(asks[r].arc)
            asks[r].order = np.argsort(t, kind="stable")  # the replies come back in owner order
            send[r] = by_owner(bounds, t[asks[r].order], x[asks[r].order])
        got, asking = ctx.alltoall(send, total={r: np.array([a.waiting.size]) for r, a in asks.items()})
        if int(asking[0]) == 0:
            break
        tally[2] += 0 in ctx.ranks  # counted once, by the worker of rank 0
        answers = {r: {src: [_adjacent(ranks[r].block, int(bounds[r]), t, x)] for src, (t, x) in got[r]} for r in ranks}
        replies = ctx.alltoall(answers)
        for r, a in asks.items():
            adjacent = np.empty(a.walker.size, bool)
            adjacent[a.order] = np.concatenate([m[0] for _, m in replies[r]]).astype(bool) if a.walker.size else []
            tally[1] += a.walker.size
            # q > 1 (1/q < 1): a draw in between accepts an x next to t; q < 1: one that is not
            taken = a.walker[adjacent == (far < 1)]
            arc = a.arc[adjacent == (far < 1)]
            first = np.unique(taken, return_index=True)[1]  # the earliest accepted draw of each
            decided = np.full(chosen[r].size, -1, np.int64)
            decided[taken[first]] = arc[first]
            fallback = a.fallback >= 0
            won = decided[a.waiting] >= 0
            chosen[r][a.waiting[won]] = decided[a.waiting[won]]
            late = ~won & fallback
            chosen[r][a.waiting[late]] = a.fallback[late]
            pending[r] = a.waiting[~won & ~fallback]
    return chosen


class _Asks:
    """A rank's membership queries of one round: the asking walker (an index into its moving
    walkers) and the proposed arc of each, in draw order; per waiting walker, the arc of its
    first proposal accepted without asking (-1: none in its batch)."""

    def __init__(self, walker, arc, waiting, fallback):
        self.walker, self.arc, self.waiting, self.fallback = walker, arc, waiting, fallback
        self.order = None


def _draw(k, pending, offset, chosen, draw, tally):
    """Draw proposals for the ``pending`` walkers until each has one accepted without asking or
    ``ASKS`` that need asking (all those before the first accepted are asked: one round settles
    most walkers); walkers that need not ask go to ``chosen``. Returns the round's ``_Asks``."""
    seed, step, ret, far = draw
    top, low, high = max(ret, 1.0, far), min(1.0, far), max(1.0, far)
    walker, arcs, waiting, fallback = [], [], [], []
    asked = np.zeros(chosen.size, np.int64)
    todo, batch = pending, BATCH
    while todo.size:
        attempts = offset[todo][:, None] + np.arange(batch)
        offset[todo] += batch
        tally[0] += attempts.size
        who = k.moving[todo]
        arc = k.propose(seed, step, who, attempts)
        x = k.heads(arc)
        u = uniforms(seed, k.walk[who][:, None], step, 2 * attempts + 1) * top
        back = x == k.prev[who][:, None]
        accept = np.where(back, u < ret, u < low)
        ask = ~back & (u >= low) & (u < high)
        first = np.where(accept.any(axis=1), accept.argmax(axis=1), batch)
        ask &= np.arange(batch) < first[:, None]
        rows, cols = np.nonzero(ask)
        walker.append(todo[rows])
        arcs.append(arc[rows, cols])
        asked[todo] += ask.sum(axis=1)
        accepted = first < batch
        now = accepted & (asked[todo] == 0)
        chosen[todo[now]] = arc[now, first[now]]
        leaving = accepted | (asked[todo] >= ASKS)
        wait = leaving & ~now
        waiting.append(todo[wait])
        fallback.append(np.where(accepted[wait], arc[wait, np.minimum(first[wait], batch - 1)], -1))
        todo, batch = todo[~leaving], min(2 * batch, MOST_BATCH)
    join = lambda parts: np.concatenate(parts) if parts else np.empty(0, np.int64)  # noqa: E731
    return _Asks(join(walker), join(arcs), join(waiting), join(fallback))


def _adjacent(block, lo, t, x):
    """Whether t -> x is an arc, for each pair (t owned here): x's canonical id searched for in
    t's row, which lists its heads by canonical id."""
    start, end = block.indptr[t - lo].astype(np.int64), block.indptr[t - lo + 1].astype(np.int64)
    space, key = block.space, block.space_key
    slot = np.minimum(np.searchsorted(space, x), max(space.size - 1, 0))
    known = space[slot] == x if space.size else np.zeros(x.size, bool)
    target = slot if key is None else key[slot]
    at = kernels.search_rows(start, end, block.indices, target, keys=key)
    inside = np.minimum(at, np.maximum(end - 1, 0))
    found = block.indices[inside] if key is None else key[block.indices[inside]]
    return (known & (at < end) & (found == target)).astype(np.uint8)


def _lowest_weight(block):
    w = block_arcs(block)[2]
    return float(w.min()) if w is not None and w.size else np.inf


def start_ids(graph: Graph, starts: Hashable | Iterable[Hashable], what: str) -> np.ndarray:
    """The placed ids of ``starts`` (a label, or an iterable of labels), repeats kept, in order."""
    if isinstance(starts, (str, bytes)) or not isinstance(starts, Iterable):
        values: list = [starts]
    else:
        values = starts.tolist() if hasattr(starts, "tolist") else list(starts)
    if not values:
        raise DgraphInputError(f"give at least one {what}")
    return np.asarray(graph.encode_vertices(values, what), dtype=np.int64)


def random_walks(
    graph: Graph,
    starts: Hashable | Iterable[Hashable],
    length: int,
    *,
    p: float = 1.0,
    q: float = 1.0,
    weight: Weight = GRAPH_WEIGHT,
    seed: int | None = None,
) -> dd.DataFrame:
    """Random walks of ``length`` steps from each of ``starts``, following arcs: first order
    (uniform, or by weight) or node2vec's second order (``p``, ``q``).

    Parameters
    ----------
    graph : dgraph.Graph
    starts : label or iterable of labels
        One walk from each; a repeated start walks again (node2vec's several walks per vertex).
    length : int
        Steps per walk: a walk visits ``length + 1`` vertices, its start included, unless it
        reaches a sink first.
    p : float
        node2vec's return parameter: a step back to the vertex just left weighs ``1/p``.
    q : float
        node2vec's in-out parameter: a step to a vertex not adjacent to the one just left
        (no arc from it) weighs ``1/q``; steps to its out-neighbours weigh 1. ``p = q = 1`` is
        the first-order walk.
    weight : str or None
        Steps are drawn in proportion to this edge attribute (times node2vec's weight). Left
        out, the graph's weight (unit weights if it has none); ``None``: uniformly. Weights must
        be non-negative; arcs of weight 0 are never taken.
    seed : int, optional
        The walks are a function of the seed, the graph and the arguments alone: the same on
        every layout and rank count. None: a fresh seed, which ``graph.last_stats.info["seed"]``
        reports.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``walk`` (the start's position in ``starts``), ``step`` (0 for the start) and
        ``vertex``. Sorted by walk and step within each partition; a walk's rows may be in
        several partitions, so sort by ``["walk", "step"]`` to read walks as sequences.

    Notes
    -----
    One superstep per step, moving 24 bytes per walker. A second-order step adds a request
    and a reply superstep per query round (16 bytes per query there, 1 back) for the draws
    that need to know whether the previous vertex is adjacent to the proposed one; with
    ``max(1/p, 1, 1/q)`` near 1 most draws are accepted at once. Memory per rank: its walkers,
    and with weights a running sum per arc. ``graph.last_stats.info`` reports ``proposals``,
    ``queries`` and ``query_rounds``.

    References
    ----------
    A. Grover, J. Leskovec, "node2vec: Scalable feature learning for networks", KDD 2016.
    K. Yang, M. Zhang, K. Chen, X. Ma, Y. Bai, Y. Jiang, "KnightKing: a fast distributed graph
    random walk engine", SOSP 2019.

    Examples
    --------
    >>> import dgraph
    >>> g = dgraph.datasets.load("karate")
    >>> w = dgraph.algorithms.random_walks(g, [1, 34, 34], 5, p=0.5, q=2.0, seed=7).compute()
    >>> w.groupby("walk").size().tolist()
    [6, 6, 6]
    >>> w.equals(dgraph.algorithms.random_walks(g, [1, 34, 34], 5, p=0.5, q=2.0, seed=7).compute())
    True
    """
    length = integer(length, "length", minimum=0)
    p, q = (number(v, name, low=0, low_open=True) for v, name in ((p, "p"), (q, "q")))
    if seed is not None:
        seed = integer(seed, "seed", minimum=0, maximum=2**63 - 1)
    ids = start_ids(graph, starts, "start vertex")
    graph, chosen = weighed(graph, weight, "random_walks")
    if chosen is not None:
        lowest = min(graph.block_facts(_lowest_weight))
        if not lowest >= 0:
            raise DgraphInputError(
                f"random_walks needs non-negative weights; column {chosen!r} holds {lowest}; "
                "pass weight=None to walk uniformly"
            )
    return graph.run_to_rows(
        walk_kernel,
        label_columns=("vertex",),
        name="random_walks",
        starts=ids,
        length=length,
        bias=(1.0 / p, 1.0 / q),
        weighted=chosen is not None,
        seed=fresh_seed(seed),
    )
