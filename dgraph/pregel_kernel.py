"""How a vertex program (``dgraph.pregel``) runs on the ranks.

A superstep is a pull over the layout's in-blocks, as ``pagerank``'s iteration is: every rank
evaluates the program's ``message`` along the in-arcs it holds, merges the values per head with
the program's ``combine`` (sum, min or max), and in 2D, 1.5D and TD-Orch the partial merges of a
head meet at its owner (``ghosts.reduce_rows``, merged on the way by a forwarding transport);
the owner then calls ``update`` on its own vertices. What the arcs read travels by the dense
gather plan (``ghosts.GhostExchange``, planned once): each rank receives the values of exactly
the vertices its arcs read, and the active-vertex count of the last update rides in the same
frames, so the run stops without a superstep of its own.

Two ways to evaluate ``message``, chosen by what it reads (``Reads``):

- **tails only** (no ``dst`` or ``edge`` column): an arc's value depends on its tail alone, so
  each owner evaluates ``message`` once per active vertex with out-arcs and only the values
  travel (one per vertex and rank reading it, as PageRank's contributions); a rank's merge is
  then a sum (``kernels.spmv``) or a min/max over its in-arcs of those values. A silent vertex
  offers ``combine``'s identity, which changes no merge.
- **per arc**: the state columns ``message`` reads (and each vertex's active flag) travel to the
  tails and, for ``dst`` columns, to the heads (the rows of a 2D or 1.5D block are other ranks'
  vertices; in 1D they are the rank's own and nothing more moves); ``message`` runs on the arcs
  whose tail is active, with ``edge`` the arcs' attributes (``_edge_columns``).

The read-only columns ``id`` (canonical id), ``out_degree`` and ``in_degree`` are found once; a
per-arc run fetches those it reads once. Functions compiled by numba get the columns as named
tuples (``src["rank"]`` still works inside them: ``_field`` below) and may return a tuple of the
state columns in order (then ``active``) instead of a dict.
"""

from __future__ import annotations

import operator
from collections import namedtuple
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from numba import types
from numba.core.dispatcher import Dispatcher
from numba.extending import overload

from . import kernels
from .block import own_canonical
from .errors import DgraphInputError
from .ghosts import GhostExchange, reduce_rows
from .owners import index_type

COMBINES = {"sum": np.add, "min": np.minimum, "max": np.maximum}
READ_ONLY = ("id", "out_degree", "in_degree")


class Reads(NamedTuple):
    """The columns ``message`` reads: of ``src`` (state or read-only), ``dst`` and ``edge``."""

    src: tuple
    dst: tuple
    edge: tuple


@dataclass(frozen=True)
class Program:
    """A vertex program as it travels to the workers (``dgraph.pregel`` checks it first).
    ``init``: (column, scalar or callable) pairs; ``update`` None: one step, whose result is
    each vertex's merged ``msg`` and how many arcs sent to it (``aggregate_messages``);
    ``dtype``: the type messages merge in; ``labelled``: the ranks' label pieces are the last
    of their blocks (an ``init`` callable reads ``vertex``)."""

    init: tuple
    message: Callable
    combine: str
    update: Callable | None
    max_iter: int
    reads: Reads
    dtype: Any
    weighted: bool
    labelled: bool
    aggregates: tuple = ()  # (name, function of the state) pairs, summed over every vertex

    @property
    def columns(self) -> tuple:
        return tuple(name for name, _ in self.init)


def identity(combine: str, dtype: Any) -> Any:
    """What a merge with ``combine`` leaves unchanged, in ``dtype``: 0, the largest or the
    smallest value (a vertex that received nothing gets it)."""
    dtype = np.dtype(dtype)
    if combine == "sum":
        return dtype.type(0)
    if dtype.kind == "b":
        return dtype.type(combine == "min")
    info = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
    big = np.inf if dtype.kind == "f" else info.max
    small = -np.inf if dtype.kind == "f" else info.min
    return dtype.type(big if combine == "min" else small)


def pregel_kernel(ctx, *, program, bounds, layout):
    outs = {r: ctx.blocks[r][0] for r in ctx.ranks}
    ins = {r: ctx.blocks[r][1] for r in ctx.ranks}
    with ctx.phase("plan"):
        fixed = _read_only(ctx, outs, ins, layout, bounds)
        state = {r: _initial(program, fixed[r], ctx.blocks[r][2] if program.labelled else None) for r in ctx.ranks}
        tails_only = program.update is not None and not (program.reads.dst or program.reads.edge)
        pull = (_TailMessages if tails_only else _ArcMessages)(ctx, ins, bounds, program, fixed)
    ctx.hold("pregel state", *[{r: c[name] for r, c in state.items()} for name in program.columns])
    op, zero = COMBINES[program.combine], identity(program.combine, program.dtype)
    active, steps = {r: None for r in ctx.ranks}, 0
    while steps < program.max_iter:
        # the active count and the aggregates ride in the superstep that moves the messages
        sums = {r: _sums(program, state[r], fixed[r], active[r]) for r in ctx.ranks}
        found, total = pull(state, active, sums)
        if found is None:  # no vertex was active
            break
        aggregates = {name: float(t) for (name, _), t in zip(program.aggregates, total[1:])}
        with ctx.phase("exchange"):  # partial merges of a head meet at its owner (none in 1D)
            msg = reduce_rows(ctx, ins, found[0], layout, bounds, op=op, identity=zero)
        if program.update is None:
            received = reduce_rows(ctx, ins, found[1], layout, bounds)
            return {r: {"msg": msg[r], "received": received[r]} for r in ctx.ranks}
        with ctx.phase("compute"):
            for r in ctx.ranks:
                state[r], active[r] = _update(program, {**state[r], **aggregates}, fixed[r], msg[r], steps)
        steps += 1
    ctx.stats.info.update(iterations=steps)
    return {r: dict(state[r]) for r in ctx.ranks}


# ----------------------------------------------------------------------------- the two pulls
class _TailMessages:
    """``message`` once per active vertex at its owner; its values travel to the ranks whose
    in-arcs read them, which merge them per head."""

    def __init__(self, ctx, ins, bounds, program, fixed):
        self.ctx, self.ins, self.program, self.fixed = ctx, ins, program, fixed
        self.gather = GhostExchange(ctx, {r: ins[r].parts for r in ctx.ranks}, bounds)
        self.zero = identity(program.combine, program.dtype)
        self.own = {r: np.empty(fixed[r]["id"].size, program.dtype) for r in ctx.ranks}
        self.x = {r: np.full(ins[r].space.size, self.zero, program.dtype) for r in ctx.ranks}
        self.senders = {r: fixed[r]["out_degree"] > 0 for r in ctx.ranks}
        ctx.hold("pregel messages", self.own, self.x)

    def __call__(self, state, active, count):
        with self.ctx.phase("compute"):
            for r in self.ctx.ranks:
                send = self.senders[r] if active[r] is None else self.senders[r] & active[r]
                columns = {**state[r], **self.fixed[r]}
                if send.all():
                    self.own[r][:] = self._offers(columns, columns["id"].size)
                else:
                    sel = np.flatnonzero(send)
                    self.own[r].fill(self.zero)
                    self.own[r][sel] = self._offers({c: v[sel] for c, v in columns.items()}, sel.size)
        with self.ctx.phase("exchange"):
            total = self.gather(self.own, self.x, total=count)
        if int(total[0]) == 0:
            return None, total
        with self.ctx.phase("compute"):
            return ({r: [self._merge(p, self.x[r]) for p in self.ins[r].parts] for r in self.ctx.ranks}, None), total

    def _offers(self, src, n):
        """What ``n`` vertices offer along their out-arcs: ``message``'s values, the identity
        where its mask says not to send."""
        values, mask = _message_values(self.program, src, _Fetched("dst", {}), _Fetched("edge", {}), n)
        return values if mask is None else np.where(mask, values, self.zero)

    def _merge(self, part, x):
        """Each row's merge of the values its arcs read from ``x``."""
        if self.program.combine == "sum" and x.dtype.kind == "f":
            return kernels.spmv(part.indptr, part.indices, None, x).astype(x.dtype, copy=False)
        return _by_rows(COMBINES[self.program.combine], kernels.relabel(x, part.indices), part.indptr, self.zero)


class _ArcMessages:
    """``message`` along the in-arcs with an active tail, the columns it reads gathered to the
    arcs' ends first."""

    def __init__(self, ctx, ins, bounds, program, fixed):
        self.ctx, self.ins, self.program = ctx, ins, program
        reads = program.reads
        self.dynamic = [c for c in program.columns if c in reads.src or c in reads.dst]
        static = [c for c in READ_ONLY if c in reads.src or c in reads.dst]
        # the heads' slots too where dst columns are read (in 1D they are the rank's own)
        heads = {r: [_Rows(p) for p in ins[r].parts] if reads.dst else [] for r in ctx.ranks}
        self.gather = GhostExchange(ctx, {r: ins[r].parts + heads[r] for r in ctx.ranks}, bounds)
        self.size = {r: fixed[r]["id"].size for r in ctx.ranks}
        self.zero = identity(program.combine, program.dtype)
        self.at = {r: {} for r in ctx.ranks}  # column -> values over rank r's space
        if static:  # the read-only columns the arcs read, once
            self._exchange({r: [fixed[r][c] for c in static] for r in ctx.ranks}, static)
        self._rows = {}

    def _exchange(self, columns, names, count=None):
        """Gather own ``columns[r]`` (one array per name) to the slots that read them, in one
        superstep (several columns travel as the rows of one byte matrix)."""
        packed = {r: _pack(columns[r]) for r in self.ctx.ranks}
        out = {r: np.zeros((self.ins[r].space.size, *packed[r].shape[1:]), packed[r].dtype) for r in self.ctx.ranks}
        total = self.gather(packed, out, total=count)
        for r in self.ctx.ranks:
            self.at[r].update(zip(names, _unpack(out[r], [c.dtype for c in columns[r]])))
        return total

    def __call__(self, state, active, count):
        names = [*self.dynamic, " active"]
        columns = {
            r: [state[r][c] for c in self.dynamic] + [np.ones(self.size[r], bool) if active[r] is None else active[r]]
            for r in self.ctx.ranks
        }
        with self.ctx.phase("exchange"):
            total = self._exchange(columns, names, count)
        if int(total[0]) == 0:
            return None, total
        merged, sent = {}, {}
        with self.ctx.phase("compute"):
            for r in self.ctx.ranks:
                found = [self._part(p, self.at[r]) for p in self.ins[r].parts]
                merged[r], sent[r] = [f[0] for f in found], [f[1] for f in found]
        return (merged, sent), total

    def _part(self, part, at):
        """One part's merged values per row, and how many arcs sent to each row."""
        program, reads = self.program, self.program.reads
        nrows = part.indptr.size - 1
        tails, rows = part.indices, None
        live = at[" active"][tails]
        every = bool(live.all())
        sel = None if every else np.flatnonzero(live)
        if not every:
            tails, rows = tails[sel], self._row_of(part)[sel]
        src = _Fetched("src", {c: kernels.relabel(at[c], tails) for c in reads.src})
        dst = {}
        if reads.dst:
            rows = self._row_of(part) if rows is None else rows
            heads = part.row_slots()
            dst = {c: kernels.relabel(kernels.relabel(at[c], heads), rows) for c in reads.dst}
        edge = _edge_columns(part, program, sel)
        values, mask = _message_values(program, src, _Fetched("dst", dst), edge, tails.size)
        if mask is not None:
            rows = self._row_of(part) if rows is None else rows
            values, rows, every = values[mask], rows[mask], False
        op = COMBINES[program.combine]
        if every:
            merged, sent = _by_rows(op, values, part.indptr, self.zero), np.diff(part.indptr)
        else:
            merged, sent = _by_sorted_rows(op, values, rows, nrows, self.zero), np.bincount(rows, minlength=nrows)
        return merged, sent

    def _row_of(self, part):
        """The row of each arc of ``part`` (made once per run)."""
        key = id(part)
        if key not in self._rows:
            nrows = part.indptr.size - 1
            self._rows[key] = np.repeat(np.arange(nrows, dtype=index_type(nrows)), np.diff(part.indptr))
        return self._rows[key]


class _Rows:
    """A part's rows as the slots a gather must fill (the heads, for ``dst`` columns): what
    ``GhostExchange`` reads of a block (``space``, and ``indices`` through ``slots_read``)."""

    def __init__(self, part):
        self.space, self.indices = part.space, part.row_slots()


def _edge_columns(part, program, sel):
    """The edge columns ``message`` reads, one value per arc of ``part`` (of arcs ``sel``, or
    all): ``weight`` from the part's weights, an edge attribute from its per-arc columns (which
    in-blocks keep in the same arc order)."""
    edge = {}
    for name in program.reads.edge:
        column = part.weights if name == "weight" and program.weighted else part.attrs[name]
        edge[name] = column if sel is None else column[sel]
    return _Fetched("edge", edge)


# ----------------------------------------------------------------------------- merges per row
def _by_rows(op, values, indptr, zero):
    """``op`` over each row's values (arcs in row order), ``zero`` for a row without arcs."""
    out = np.full(indptr.size - 1, zero, values.dtype)
    filled = np.flatnonzero(indptr[1:] > indptr[:-1])
    if filled.size:
        out[filled] = op.reduceat(values, indptr[filled])
    return out


def _by_sorted_rows(op, values, rows, nrows, zero):
    """``op`` over the values of each row (``rows`` ascending), ``zero`` for a row with none."""
    out = np.full(nrows, zero, values.dtype)
    if rows.size:
        starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
        out[rows[starts]] = op.reduceat(values, starts)
    return out


# ----------------------------------------------------------------------------- the user's functions
def _read_only(ctx, outs, ins, layout, bounds):
    """Each rank's read-only columns: canonical ``id``, ``out_degree`` and ``in_degree``."""
    out_degree, in_degree = _owned_degree(ctx, outs, layout, bounds), _owned_degree(ctx, ins, layout, bounds)
    fixed = {}
    for r in ctx.ranks:
        lo, hi = int(bounds[r]), int(bounds[r + 1])
        fixed[r] = {
            "id": own_canonical(outs[r], lo, hi),
            "out_degree": out_degree[r].astype(np.int64, copy=False),
            "in_degree": in_degree[r].astype(np.int64, copy=False),
        }
    return fixed


def _owned_degree(ctx, blocks, layout, bounds):
    if all(blocks[r].owned_degree is not None for r in ctx.ranks):
        return {r: blocks[r].owned_degree for r in ctx.ranks}
    return reduce_rows(ctx, blocks, {r: [p.degree() for p in blocks[r].parts] for r in ctx.ranks}, layout, bounds)


def _initial(program, fixed, labels):
    """A rank's state columns from ``init``: scalars repeated, callables called on its vertices."""
    n = fixed["id"].size
    frame, state = None, {}
    for name, value in program.init:
        if not callable(value):
            state[name] = np.full(n, value)
            continue
        if frame is None:
            vertex = labels if labels is not None else fixed["id"]  # ids that are the labels
            frame = pd.DataFrame({"vertex": vertex, **fixed})
        got = value(frame)
        state[name] = _column(got.to_numpy() if isinstance(got, pd.Series) else got, n, f"init[{name!r}]")
        if state[name].dtype.kind not in "biuf":
            raise DgraphInputError(
                f"init[{name!r}] made values of type {state[name].dtype}: state columns hold numbers or booleans"
            )
    return state


def _message_values(program, src, dst, edge, n):
    """``message``'s values over ``n`` arcs in the program's type, and its mask (or None)."""
    got = _call(program.message, src, dst, edge)
    mask = None
    if isinstance(got, tuple):
        if len(got) != 2:
            raise DgraphInputError(
                f"message returned a tuple of {len(got)}; return the values, or (values, mask) with mask a "
                "boolean per arc saying which arcs send"
            )
        got, mask = got
        mask = _column(mask, n, "message's mask")
        if mask.dtype != bool:
            raise DgraphInputError(f"message's mask must be booleans, got {mask.dtype}")
    values = _column(got, n, "message").astype(program.dtype, copy=False)
    return values, mask


def _sums(program, state, fixed, active):
    """A rank's share of the run's totals: its active vertices, then each aggregate's sum over
    its vertices."""
    n = fixed["id"].size
    sums = [n if active is None else int(active.sum())]
    for name, fn in program.aggregates:
        values = _column(_call(fn, {**state, **fixed}), n, f"aggregates[{name!r}]")
        if values.dtype.kind not in "biuf":
            raise DgraphInputError(f"aggregates[{name!r}] must give numbers, got {values.dtype}")
        sums.append(float(values.sum()))
    return sums


def _update(program, state, fixed, msg, step):
    """The rank's new state and active flags (None: every vertex stays active); ``state`` holds
    the aggregates' totals beside the columns (they are not kept)."""
    got = _call(program.update, {**state, **fixed}, msg, step)
    names = program.columns
    if isinstance(got, tuple):
        if len(got) not in (len(names), len(names) + 1):
            raise DgraphInputError(
                f"update returned a tuple of {len(got)}; return the state columns {list(names)} in that order, "
                "then optionally active"
            )
        got = dict(zip([*names, "active"], got))
    if not isinstance(got, Mapping):
        raise DgraphInputError(f"update must return a dict of state columns, got {type(got).__name__}")
    n, new = fixed["id"].size, {name: state[name] for name in names}
    for name, value in got.items():
        if name != "active" and name not in names:
            raise DgraphInputError(
                f"update returned column {name!r}, which is not a state column; the state columns are "
                f"{list(names)} (from init) and 'active'"
            )
        new[name] = _column(value, n, f"update's {name!r}")
    active = new.pop("active", None)
    if active is not None and active.dtype != bool:
        raise DgraphInputError(f"update's 'active' must be booleans, got {active.dtype}")
    return new, active


def _column(value, n, what):
    """``value`` as one value per vertex or arc: an array of ``n``, or a scalar repeated."""
    array = np.asarray(value)
    if array.ndim == 0:
        return np.full(n, array)
    if array.shape != (n,):
        raise DgraphInputError(
            f"{what} returned {array.shape[0] if array.ndim == 1 else array.shape} values for {n}; "
            f"return one per {'arc' if what.startswith('message') else 'vertex'} (or a scalar)"
        )
    return array


def _call(fn, *args):
    """``fn(*args)``; a function numba compiled gets its dicts of columns as named tuples."""
    if isinstance(fn, Dispatcher):
        args = tuple(_as_tuple(a) if isinstance(a, Mapping) else a for a in args)
    return fn(*args)


_TUPLES: dict = {}  # field names -> their named tuple type: one type, so numba compiles once


def _as_tuple(columns):
    names = tuple(columns)
    if names not in _TUPLES:
        _TUPLES[names] = namedtuple("Columns", names)
    return _TUPLES[names](*columns.values())


@overload(operator.getitem)
def _field(columns, key):
    """``columns["name"]`` on a named tuple in numba-compiled code: its field ``name``."""
    if isinstance(columns, types.BaseNamedTuple) and isinstance(key, types.StringLiteral):
        if key.literal_value in columns.fields:
            i = columns.fields.index(key.literal_value)
            return lambda columns, key: columns[i]
    return None


class _Fetched(dict):
    """The columns fetched for ``message``: reading another is an error that says why."""

    def __init__(self, what, columns):
        super().__init__(columns)
        self.what = what

    def __missing__(self, key):
        raise DgraphInputError(
            f"message read {self.what}[{key!r}], which was not fetched: calling message on no arcs did not read it "
            f"(or reads= left it out); pass reads= naming every column it reads"
        )


def _pack(columns):
    """Several columns as the rows of one byte matrix (one column travels as it is)."""
    if len(columns) == 1:
        return columns[0]
    return np.concatenate([np.ascontiguousarray(c).view(np.uint8).reshape(c.size, c.itemsize) for c in columns], axis=1)


def _unpack(matrix, dtypes):
    if len(dtypes) == 1:
        return [matrix]
    out, at = [], 0
    for dtype in dtypes:
        width = np.dtype(dtype).itemsize
        out.append(np.ascontiguousarray(matrix[:, at : at + width]).view(dtype).reshape(-1))
        at += width
    return out
