"""Users' own vertex programs: ``pregel`` (Malewicz et al.'s model, GraphFrames' API) and
``aggregate_messages`` (one step of it).

A vertex program is four functions over numpy arrays: ``init`` makes each vertex's state
columns, ``message(src, dst, edge)`` gives a value per arc from the columns of its tail, head
and the arc itself, ``combine`` ("sum", "min" or "max") merges the values arriving at a vertex,
and ``update(state, msg, step)`` makes the vertex's new state from them. It is an algorithm like
the built-in ones: it names no layout and no transport, and runs on the edge map's pull
(``dgraph.pregel_kernel`` says how).

Only the columns ``message`` reads travel. They are found by calling it once, on the client,
with no arcs: ``src``, ``dst`` and ``edge`` are then mappings of empty arrays that note each
column read. A read the call cannot see (inside a branch its empty arrays do not take) is an
error naming the column when it happens, and ``reads=`` names them instead of the call. A
message that reads only ``src`` is evaluated once per vertex instead of once per arc.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numba.core.dispatcher import Dispatcher

from .checks import integer
from .errors import DgraphInputError, DgraphRunError
from .pregel_kernel import COMBINES, READ_ONLY, Program, Reads, pregel_kernel
from .weights import GRAPH_WEIGHT, Weight, weighed

if TYPE_CHECKING:
    import dask.dataframe as dd

    from .graph import Graph

__all__ = ["aggregate_messages", "pregel"]

Init = Mapping[str, Any]  # column -> a scalar, or a callable(vertices frame) -> array


def pregel(
    graph: Graph,
    init: Init,
    message: Callable,
    combine: str,
    update: Callable,
    *,
    max_iter: int = 100,
    reads: Mapping[str, Iterable[str]] | None = None,
    weight: Weight = GRAPH_WEIGHT,
    aggregates: Mapping[str, Callable] | None = None,
) -> dd.DataFrame:
    """Run a vertex program: superstep after superstep, every active vertex sends along its
    out-arcs, and every vertex updates its state from what it received.

    Parameters
    ----------
    graph : dgraph.Graph
    init : dict
        State column -> a scalar (every vertex starts with it), or a callable given the
        vertices of one rank as a pandas DataFrame with columns ``vertex`` (your labels),
        ``id`` (the canonical id, 0..n-1), ``out_degree`` and ``in_degree``, returning an array
        with a value per row.
    message : callable
        ``message(src, dst, edge)``, vectorised over arcs: ``src`` and ``dst`` map each state
        column (and the read-only ``id``, ``out_degree``, ``in_degree``) to its values at the
        arcs' tails and heads, ``edge`` maps ``"weight"`` to the arcs' weights when the call
        has a weight, and each edge attribute of the graph (``edge_attrs``) to its values at
        the arcs. Returns one value per arc, or ``(values, mask)`` where
        the boolean ``mask`` says which arcs send. Each arc's value must depend on that arc's
        entries alone (a message reading only ``src`` is evaluated once per tail).
    combine : "sum", "min" or "max"
        How the values arriving at a vertex merge (on the way, as the built-in algorithms'
        do). A vertex that received nothing gets the identity: 0, the type's largest value
        (inf) or its smallest (-inf).
    update : callable
        ``update(state, msg, step)``: ``state`` maps the state columns (and the read-only ones)
        to the values of one rank's vertices, ``msg`` holds their merged messages, ``step``
        counts from 0. Returns a dict of new state columns (those left out keep their values)
        and optionally ``"active"``: booleans, False for vertices that stop sending; a vertex
        that receives nothing is updated all the same.
    max_iter : int
        Updates at most; the run stops earlier when no vertex is active.
    reads : dict, optional
        ``{"src": [...], "dst": [...], "edge": [...]}``: the columns ``message`` reads, where
        calling it on no arcs would not show them (see the module docstring).
    weight : str or None, optional
        The weight ``edge["weight"]`` holds: left out, the graph's weight if it has one;
        ``None``, no weight; or the name of a numeric edge attribute.
    aggregates : dict, optional
        Name -> a function of ``state`` (as ``update`` gets it) giving a number per vertex:
        summed over every vertex of the graph before each update, which reads the total as
        ``state[name]`` (a float). Global sums such as PageRank's dangling mass, or how much
        the state changed. They travel with the messages: no superstep of their own.

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``vertex`` and the state columns. ``graph.last_stats.info["iterations"]``:
        how many updates ran.

    Notes
    -----
    Functions compiled by numba (``numba.njit``) work as they are: they get the columns as
    named tuples, where ``src["rank"]`` reads as in Python, and ``update`` may return a tuple
    of the state columns in ``init``'s order (then ``active``). One superstep per update
    (two on layouts whose ranks do not own their blocks' rows: 2D, 1.5D, TD-Orch), moving per
    (vertex, rank reading it) the message value (a message of ``src`` alone) or the columns
    ``message`` reads.

    References
    ----------
    G. Malewicz et al., "Pregel: a system for large-scale graph processing", SIGMOD 2010.

    Examples
    --------
    PageRank, ten iterations:

    >>> import dgraph
    >>> g = dgraph.datasets.load("karate")
    >>> n = g.num_vertices
    >>> pr = dgraph.pregel(
    ...     g,
    ...     init={"rank": 1.0 / n},
    ...     message=lambda src, dst, edge: src["rank"] / src["out_degree"],
    ...     combine="sum",
    ...     update=lambda state, msg, step: {"rank": 0.15 / n + 0.85 * msg},
    ...     max_iter=10,
    ... ).compute()
    >>> round(float(pr["rank"].sum()), 6), int(pr.loc[pr["rank"].idxmax(), "vertex"])
    (1.0, 34)
    """
    graph, name = weighed(graph, weight, "pregel")
    program = _program(graph, init, message, combine, update, max_iter=max_iter, reads=reads, weighted=bool(name))
    if aggregates:
        program = dataclasses.replace(program, aggregates=_aggregates(aggregates, program))
    return _run(graph, program)


def aggregate_messages(
    graph: Graph,
    message: Callable,
    combine: str,
    *,
    init: Init | None = None,
    reads: Mapping[str, Iterable[str]] | None = None,
    weight: Weight = GRAPH_WEIGHT,
) -> dd.DataFrame:
    """One step of a vertex program: every arc's message, merged at its head.

    ``message``, ``combine``, ``reads`` and ``weight`` as ``pregel``'s; ``init`` makes the
    columns ``message`` reads besides ``id``, ``out_degree`` and ``in_degree`` (as ``pregel``'s).
    Returns a dask DataFrame [vertex, msg] of the vertices at least one arc sent to.

    Examples
    --------
    Each vertex's smallest in-neighbour:

    >>> import dgraph, pandas as pd
    >>> g = dgraph.from_edgelist(pd.DataFrame({"src": [1, 2, 3], "dst": [2, 3, 2]}), directed=True)
    >>> m = dgraph.aggregate_messages(g, lambda src, dst, edge: src["id"], "min").compute()
    >>> m.sort_values("vertex").values.tolist()
    [[2, 0], [3, 1]]
    """
    graph, name = weighed(graph, weight, "aggregate_messages")
    program = _program(graph, init or {}, message, combine, None, max_iter=1, reads=reads, weighted=bool(name))
    frame = _run(graph, program)
    return frame[frame["received"] > 0].drop(columns="received")


def _run(graph: Graph, program: Program) -> dd.DataFrame:
    pieces = graph.store.label_pieces(graph.codec) if program.labelled else None
    try:
        frame, _ = graph.runner.run_to_frame(
            pregel_kernel, name="pregel", placement="layout", reverse=True, beside=pieces, program=program
        )
    except DgraphRunError as err:  # the program's own error on a rank is the caller's input
        text = str(err)
        if "DgraphInputError: " in text:
            raise DgraphInputError(text.split("DgraphInputError: ", 1)[1]) from err
        raise
    return frame


# ----------------------------------------------------------------------------- checks
def _program(graph, init, message, combine, update, *, max_iter, reads, weighted) -> Program:
    """The program as it travels, after every check the client can make."""
    if combine not in COMBINES:
        raise DgraphInputError(f"combine must be one of {sorted(COMBINES)}, got {combine!r}")
    for name, fn in (("message", message), ("update", update)):
        if fn is not None and not callable(fn):
            raise DgraphInputError(f"{name} must be a function, got {type(fn).__name__}")
    max_iter = integer(max_iter, "max_iter", minimum=0)
    if not isinstance(init, Mapping):
        raise DgraphInputError(f"init must be a dict of state columns, got {type(init).__name__}")
    if update is not None and not init:
        raise DgraphInputError("init makes no state column: give it at least one, e.g. init={'rank': 1.0}")
    dtypes = {c: np.dtype(np.int64) for c in READ_ONLY}
    for name, value in init.items():
        if not isinstance(name, str) or name in (*READ_ONLY, "vertex", "active"):
            raise DgraphInputError(
                f"init column {name!r}: state columns are named by strings other than 'vertex', 'active' and "
                f"the read-only {list(READ_ONLY)}"
            )
        dtypes[name] = _init_dtype(graph, name, value)
    edges = _edge_dtypes(graph, weighted)
    probed, dtype = _probe(message, dtypes, edges)
    found = probed if reads is None else _reads(reads, dtypes, edges)
    if combine == "sum" and dtype.kind == "b":
        dtype = np.dtype(np.int64)
    if update is not None:
        _probe_update(update, {c: dtypes[c] for c in dtypes}, list(init), dtype)
    labelled = any(callable(v) for v in init.values()) and not graph.codec.ids_are_labels
    return Program(tuple(init.items()), message, combine, update, max_iter, found, dtype, weighted, labelled)


def _init_dtype(graph, name, value):
    """The type of a state column ``init`` makes: a scalar's, or what a callable returns for a
    rank without vertices (float64 where that call fails or gives no numbers)."""
    if callable(value):
        codec = graph.codec
        labels = np.empty(0, np.int64) if codec.ids_are_labels else pd.Index([], dtype=codec.labels.dtype)
        empty = pd.DataFrame({"vertex": labels, **{c: np.empty(0, np.int64) for c in READ_ONLY}})
        try:
            dtype = np.asarray(value(empty)).dtype
        except Exception:  # it may need vertices; the run will tell
            return np.dtype(np.float64)
        return dtype if dtype.kind in "biuf" else np.dtype(np.float64)  # the run checks its values
    if isinstance(value, (bool, int, float, np.number, np.bool_)):
        return np.asarray(value).dtype
    raise DgraphInputError(
        f"init[{name!r}] must be a number, a boolean or a function of the vertices frame, got {type(value).__name__}"
    )


def _aggregates(aggregates, program):
    """``aggregates=`` checked: named apart from the columns, each a function."""
    if not isinstance(aggregates, Mapping):
        raise DgraphInputError(f"aggregates must be a dict of name -> function, got {type(aggregates).__name__}")
    taken = (*program.columns, *READ_ONLY, "vertex", "active")
    for name, fn in aggregates.items():
        if not isinstance(name, str) or name in taken:
            raise DgraphInputError(
                f"aggregates name {name!r}: name aggregates by strings other than the columns {list(taken)}"
            )
        if not callable(fn):
            raise DgraphInputError(f"aggregates[{name!r}] must be a function of the state, got {type(fn).__name__}")
    return tuple(aggregates.items())


def _edge_dtypes(graph, weighted):
    """What ``edge`` offers ``message``: the call's weight as ``"weight"``, then every edge
    attribute the blocks keep per arc (an attribute named "weight" yields to the call's weight)."""
    edges = {"weight": np.dtype(np.float64)} if weighted else {}
    for name, dtype in graph.store.arc_columns:
        edges.setdefault(name, dtype)
    return edges


def _reads(reads, dtypes, edges):
    """``reads=`` checked against the columns there are."""
    if not isinstance(reads, Mapping) or not set(reads) <= {"src", "dst", "edge"}:
        raise DgraphInputError(f"reads must be a dict with keys among 'src', 'dst', 'edge', got {reads!r}")
    out = {}
    for side in ("src", "dst", "edge"):
        names = tuple(reads.get(side, ()))
        there = tuple(edges if side == "edge" else dtypes)
        for name in names:
            if name not in there:
                raise DgraphInputError(
                    f"reads names {side}[{name!r}], which is not a column; the columns are {list(there)}"
                )
        out[side] = names
    return Reads(**out)


class _Noting(Mapping):
    """Empty columns that note which are read (``_probe``)."""

    def __init__(self, what, dtypes, read):
        self.what, self.dtypes, self.read = what, dtypes, read

    def __getitem__(self, key):
        if key not in self.dtypes:
            raise DgraphInputError(
                f"message reads {self.what}[{key!r}], which is not a column; the columns are {list(self.dtypes)}"
            )
        self.read.add(key)
        return np.empty(0, self.dtypes[key])

    def __iter__(self) -> Iterator:
        self.read.update(self.dtypes)  # whoever lists the columns may read any
        return iter(self.dtypes)

    def __len__(self) -> int:
        return len(self.dtypes)


def _probe(message, dtypes, edges):
    """Which columns ``message`` reads and the type of its values, from one call on no arcs
    (every column, and float64, where that call fails)."""
    read = {side: set() for side in ("src", "dst", "edge")}
    src, dst = (_Noting(side, dtypes, read[side]) for side in ("src", "dst"))
    edge = _Noting("edge", edges, read["edge"])
    fn = message.py_func if isinstance(message, Dispatcher) else message
    try:
        got = fn(src, dst, edge)
        values = got[0] if isinstance(got, tuple) else got
        dtype = np.asarray(values).dtype
    except DgraphInputError:  # an unknown column
        raise
    except Exception:  # it may need arcs; the run will tell
        return Reads(tuple(dtypes), tuple(dtypes), tuple(edges)), np.dtype(np.float64)
    if dtype.kind not in "biuf":
        raise DgraphInputError(f"message must return numbers or booleans, got {dtype}")
    return Reads(*(tuple(sorted(read[side])) for side in ("src", "dst", "edge"))), dtype


def _probe_update(update, dtypes, names, dtype):
    """``update`` called on no vertices: the columns it returns must be state columns."""
    fn = update.py_func if isinstance(update, Dispatcher) else update
    try:
        got = fn({c: np.empty(0, t) for c, t in dtypes.items()}, np.empty(0, dtype), 0)
    except Exception:  # it may need vertices; the run checks what it returns
        return
    if isinstance(got, Mapping):
        for name in got:
            if name != "active" and name not in names:
                raise DgraphInputError(
                    f"update returned column {name!r}, which is not a state column; the state columns are "
                    f"{list(names)} (from init) and 'active'"
                )
