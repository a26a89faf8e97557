"""Building a Graph: labels to canonical ids, the policies, the layout's plan, and the blocks.

``from_edgelist`` turns an edge list into canonical ids (``dgraph.labels``), applies the
duplicate and self-loop policies, symmetrizes an undirected graph, orders the vertices, asks
the layout for its plan (who owns which vertices) and has each rank's CSR block built on its
worker from the pieces of the input partitions (``dgraph.placement``).
"""

from __future__ import annotations

import operator
from collections.abc import Hashable, Sequence
from typing import Any, NamedTuple

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
from distributed import Client

from . import kernels
from .attributes import column_values, edge_attr_names, is_frame, place_vertex_tables, storage_dtype, vertex_frame
from .block import split_by_owner
from .calibrate import rank_weights
from .cluster import get_client, tasks_of, workers
from .codec import LabelCodec
from .errors import DgraphInputError
from .graph import Graph
from .labels import Labels, check_labels, encode_part, inverse_permutation
from .layout import Layout, layout_named, resolve_layout
from .owners import KEYED_LIMIT
from .placement import PlacementSpec, place_input, place_small
from .progress import Stages
from .runtime.driver import TRANSPORTS
from .runtime.launch import ensure_plugin, skip_unreachable
from .store import BlockStore, shape

DUPLICATES = ("drop", "keep")
SELF_LOOPS = ("keep", "drop")
VERTEX_ORDERS = ("labels", "degree")
# Below this many arcs a graph given no rank count goes on one rank (whose kernels then use the
# idle workers' cores): measured on 2 workers x 1 thread, one rank's BFS and WCC are faster
# up to Kronecker 21's 64 M arcs; SSSP, PageRank and betweenness are as fast at Kronecker 20 and
# the 2000 x 2000 grid's 16 M, faster at Kronecker 18's 7.6 M, and slower at Kronecker 21.
ONE_RANK_ARCS = 1 << 25
SMALL_EDGES = 1 << 16  # a pandas edge list this long is encoded and placed from the client (_from_small_frame)
SLICE_ROWS = 1 << 20  # rows of a pandas edge list per partition
SCATTER_ROWS = 1 << 16  # a pandas edge list this long is scattered, not embedded in the task graph


def _ids(column):
    """A column of vertex ids as int32 or int64, not copied when it is one already."""
    ids = column.to_numpy()
    return ids if ids.dtype in (np.int32, np.int64) else column.to_numpy(dtype=np.int64)


def _degree_count(part, n, both_ends=False, count=None):
    """Arcs per vertex of one partition (ends: both ends of each), added into ``count`` when
    given: one n-long tally a chain, no temporaries of n."""
    src, dst = _ids(part["src"]), _ids(part["dst"])
    count = np.zeros(n, np.int64) if count is None else count
    for ids in (src, dst):
        if ids.size and (ids.min() < 0 or ids.max() >= n):
            bad = ids[(ids < 0) | (ids >= n)][0]
            raise DgraphInputError(
                f"vertex id {bad} is outside 0..{n - 1}: with renumber=False ids must be the integers 0..n-1 "
                "(n = len(vertices)); use renumber=True for other labels"
            )
    kernels.count_reads(src, count)
    if both_ends:
        kernels.count_reads(dst, count)
    return count


def _halved_descending(counts):
    out = np.sort(counts)
    out //= 2
    return out[::-1]


def fold(parts, add, merge, chains, *args):
    """``add(total, part, *args)`` over the partitions (Delayed) in ``chains`` running totals
    (``total`` is None for a chain's first partition; ``add`` may update it in place), then the
    totals combined pairwise by ``merge``; a Delayed. The cluster holds one total per chain, not
    one result per partition, however many partitions there are."""
    totals = [None] * max(1, min(chains, len(parts)))
    for i, p in enumerate(parts):
        totals[i % len(totals)] = dask.delayed(add, pure=False)(totals[i % len(totals)], p, *args)
    while len(totals) > 1:
        pairs = zip(totals[::2], totals[1::2])
        totals = [dask.delayed(merge)(a, b) for a, b in pairs] + totals[len(totals) // 2 * 2 :]
    return totals[0]


def _count_more(total, part, n, both_ends):
    return _degree_count(part, n, both_ends, count=total)


def _degree_sum(parts, n, chains, both_ends=False):
    """Arcs per vertex over the partitions (a Delayed)."""
    return fold(parts, _count_more, np.add, chains, n, both_ends)


def _split(part, inverse, bounds, weight, layout, extra, *, attrs=()):
    """A partition's arcs cut into a piece per rank, with the columns ``attrs`` ((name, the
    partition's column) pairs) as their per-arc columns."""
    rows, cols = _ids(part["src"]), _ids(part["dst"])
    if inverse is not None:
        rows, cols = inverse[rows], inverse[cols]
    w = part[weight].to_numpy(dtype=np.float64) if weight else None
    columns = {name: column_values(part[column]) for name, column in attrs} if attrs else None
    return split_by_owner(rows, cols, w, bounds, layout=layout, extra=extra, narrow=True, attrs=columns)


def _row_counts(degree, order, lo, hi):
    """Arcs of rows lo..hi-1, from ``degree`` (arcs per canonical id; ``order``: placed to
    canonical): run where the degrees are, so a rank receives its rows' counts, not n of them."""
    return degree[lo:hi] if order is None else degree[order[lo:hi]]


def _symmetrize(part):
    """Every arc of ``part`` and its reverse, a self-loop once (column by column: a frame-level
    concat costs several times more)."""
    src, dst = part["src"].to_numpy(), part["dst"].to_numpy()
    back = np.flatnonzero(src != dst)
    columns = {"src": np.concatenate([src, dst[back]]), "dst": np.concatenate([dst, src[back]])}
    for c in part.columns.drop(["src", "dst"]):
        values = part[c].array
        columns[c] = type(values)._concat_same_type([values, values.take(back)])
    return pd.DataFrame(columns, copy=False)[part.columns]


def _plan_extra(plan):
    return plan[2] if len(plan) > 2 else None


def _plan_facts(plan):
    """What the client needs of a plan: its bounds, whether it has no extra, no order."""
    return plan[1], _plan_extra(plan) is None, plan[0] is None


def _to_dask(df, what, labels=(), client=None):
    """A dask DataFrame of ``df``; the columns ``labels`` of a pandas frame are checked first
    (``check_labels``), before dask would turn mixed object columns into strings. A pandas frame
    reaches the workers by scatter, in slices of about ``SLICE_ROWS`` rows (nothing of it is
    embedded in a task graph, which would travel through the scheduler with every compute)."""
    import dask.dataframe as dd

    if isinstance(df, dd.DataFrame):
        return df
    if isinstance(df, pd.DataFrame):
        checked = {c: check_labels(df[c], f"{what} column {c!r}") for c in labels if c in df.columns}
        if any(checked[c] is not df[c] for c in checked):
            df = df.assign(**checked)
        parts = max(1, min(64, len(df) // SLICE_ROWS + 1))
        if client is None or len(df) < SCATTER_ROWS:
            return dd.from_pandas(df, npartitions=parts)
        cuts = np.linspace(0, len(df), parts + 1).astype(np.int64)
        slices = [df.iloc[a:b] for a, b in zip(cuts[:-1], cuts[1:])]
        futures = client.scatter(slices, hash=False)
        return dd.from_delayed(futures, meta=df.iloc[:0], verify_meta=False)
    raise DgraphInputError(f"{what} must be a pandas or dask DataFrame, got {type(df).__name__}")


def _vertices_series(vertices):
    import dask.dataframe as dd

    if isinstance(vertices, dd.Series):
        return vertices
    s = _vertices_pandas(vertices)
    return dd.from_pandas(s, npartitions=max(1, min(8, len(s) // 1_000_000 + 1)))


def _vertices_pandas(vertices):
    """``vertices=`` (not a dask Series) as a checked pandas Series."""
    return check_labels(pd.Series(vertices if not isinstance(vertices, pd.Index) else vertices.to_numpy()), "vertices=")


def from_edgelist(
    df: pd.DataFrame | dd.DataFrame,
    source: Hashable = "src",
    destination: Hashable = "dst",
    weight: Hashable | None = None,
    *,
    directed: bool = True,
    edge_attrs: Sequence[str] | str | bool | None = None,
    vertices: pd.DataFrame | dd.DataFrame | pd.Series | dd.Series | Sequence[Any] | np.ndarray | None = None,
    vertex_column: Hashable = "vertex",
    layout: str | Layout = "1d",
    ranks: int | None = None,
    duplicates: str = "drop",
    self_loops: str = "keep",
    renumber: bool = True,
    vertex_order: str = "labels",
    client: Client | None = None,
    transport: str = "direct",
    domains: Any = None,
) -> Graph:
    """Build a distributed graph from an edge list.

    Parameters
    ----------
    df : pandas.DataFrame or dask.dataframe.DataFrame
        One row per edge.
    source, destination : str
        Columns holding the endpoint labels: integers of any size or strings.
    weight : str, optional
        Column of edge weights (float). Without it the graph is unweighted. It is the graph's
        default weight and one of its edge attributes.
    directed : bool
        ``False`` stores both arcs of every edge (a self-loop once).
    edge_attrs : list of str, str or True, optional
        Columns kept as edge attributes, beside the blocks on the workers: ``g.edges()`` returns
        them, and any numeric one weighs a call (``sssp(g, s, weight="t")``). True keeps every
        column but the ends. Kept with their arcs by the same policies (an undirected edge's two
        arcs carry the same values; of repeated arcs dropped, the one kept is the lightest, and
        among equal weights any one of them).
    vertices : DataFrame, Series, list or array, optional
        All vertex labels, so vertices without edges exist too. A DataFrame (pandas or dask)
        holds the labels in its column ``vertex_column`` and vertex attributes in the others
        (``g.vertices()``; a vertex without a row has nulls); each label at most once.
    vertex_column : str
        The label column of a ``vertices`` DataFrame.
    layout : str or dgraph.partitioners.Layout
        ``"1d"``, ``"2d"``, ``"1.5d"``, ``"tdorch"`` or a layout object such as ``OneD(ranks=8,
        balance="striped")``, ``TwoD(rows=2, cols=4)`` or ``OnePointFiveD(e_threshold=...)``.
    ranks : int, optional
        Logical ranks. May exceed the number of workers. Default: one per worker, or a single
        rank for a graph of fewer than ``ONE_RANK_ARCS`` (2**25) arcs, where exchanging costs
        more than a second core gives. Give ``ranks`` (or a layout with its ranks) to spread
        a small graph anyway.
    duplicates : {"drop", "keep"}
        Repeated arcs are dropped (keeping the smallest weight) or kept as a multigraph.
    self_loops : {"keep", "drop"}
    renumber : bool
        ``False`` declares the labels to be the integers 0..n-1 (n = largest id + 1, or the
        length of ``vertices``) and skips renumbering.
    vertex_order : {"labels", "degree"}
        The canonical order of the vertices: the sorted labels, or by descending degree (ties by
        label). Results are the same vertices in your labels either way; where an algorithm
        breaks ties by canonical id (a BFS parent: the smallest), ``"degree"`` prefers hubs. On
        skewed graphs (social, web, Kronecker) it makes searches faster: every adjacency lists
        its hubs first, so a bottom-up BFS step finds a parent in a row's first arcs (Graph 500's BFS
        kernel takes markedly less time). Keep ``"labels"`` for roads and meshes whose labels
        carry locality. With ``layout="1d"`` the vertices are then dealt to ranks in turn
        (``OneD(balance="striped")``), so every rank gets its share of hubs.
    transport : {"direct", "grouped", "pipelined"}
        How supersteps move messages (``dgraph.runtime.driver.TRANSPORTS``): one per rank pair,
        TuCOMM's aggregation through one monitor per communication domain (see
        ``dgraph.runtime.grouped``), or cut into blocks that move while earlier ones merge (see
        ``dgraph.runtime.pipelined``).
    domains : optional
        The communication domains (``dgraph.runtime.domains``: by host by default, an int K for
        K contiguous rank groups, a dict of worker lists, or a function). With domains, run
        stats split traffic into inter- and intra-domain (``g.last_stats.by_domain()``).

    Returns
    -------
    Graph

    Examples
    --------
    >>> import pandas as pd, dgraph
    >>> edges = pd.DataFrame({"src": ["a", "b", "c"], "dst": ["b", "c", "a"]})
    >>> g = dgraph.from_edgelist(edges, directed=False)
    >>> g.num_vertices, g.num_edges
    (3, 3)
    >>> edges["t"] = [1.5, 2.0, 0.5]
    >>> g = dgraph.from_edgelist(edges, edge_attrs=["t"], directed=False)
    >>> dgraph.algorithms.sssp(g, "a", weight="t").compute().distance.tolist()
    [0.0, 1.5, 0.5]
    """
    client = client or get_client()
    given = df
    df = _to_dask(df, "df", labels=(source, destination), client=client)
    for what, col in (("source", source), ("destination", destination), ("weight", weight)):
        if col is not None and col not in df.columns:
            raise DgraphInputError(f"{what} column {col!r} is not in the edge list; its columns are {list(df.columns)}")
    names = edge_attr_names(list(df.columns), edge_attrs, (source, destination), weight)
    frame = None
    if is_frame(vertices):
        frame, vertices = vertex_frame(vertices, vertex_column)
    if source == destination:
        raise DgraphInputError(f"source and destination are the same column {source!r}")
    if weight is not None and not pd.api.types.is_numeric_dtype(df[weight].dtype):
        raise DgraphInputError(f"weight column {weight!r} has dtype {df[weight].dtype}; weights must be numeric")
    if duplicates not in DUPLICATES:
        raise DgraphInputError(f"duplicates must be one of {DUPLICATES}, got {duplicates!r}")
    if self_loops not in SELF_LOOPS:
        raise DgraphInputError(f"self_loops must be one of {SELF_LOOPS}, got {self_loops!r}")
    if vertex_order not in VERTEX_ORDERS:
        raise DgraphInputError(f"vertex_order must be one of {VERTEX_ORDERS}, got {vertex_order!r}")
    if vertex_order == "degree" and isinstance(layout, str) and layout.lower() == "1d":
        layout = layout_named("1d", balance="striped")  # contiguous ranges of a degree order: every hub on rank 0
    ensure_plugin(client)  # before the first task: it also tunes the workers' allocator
    skip_unreachable(client)  # workers a failed run could not reach get no piece of it
    wk = workers(client)
    one_rank_below = ONE_RANK_ARCS if ranks is None and getattr(layout, "ranks", None) is None else 0
    layout = resolve_layout(layout, ranks, len(wk))
    if transport not in TRANSPORTS:
        raise DgraphInputError(f"transport must be one of {TRANSPORTS}, got {transport!r}")

    small = isinstance(given, pd.DataFrame) and len(given) <= SMALL_EDGES and not hasattr(vertices, "dask")
    # attributes under names of their own, which no other column of the edge list can take
    attrs = tuple((name, f"attr {i}", storage_dtype(df[name].dtype)) for i, name in enumerate(names))
    columns = {source: "src", destination: "dst", **({weight: "weight"} if weight else {})}
    columns.update((name, column) for name, column, _ in attrs)
    spec = BuildSpec(directed, weight, layout, duplicates, wk, one_rank_below, attrs)
    g = None
    if small and vertex_order == "labels":
        edges = given[list(columns)].astype(df[list(columns)].dtypes.to_dict()).rename(columns=columns)
        g = _from_small_frame(client, edges, vertices, renumber, self_loops, spec)
    if g is None:
        edges = df[list(columns)].rename(columns=columns)
        options = dict(vertices=vertices, renumber=renumber, self_loops=self_loops, vertex_order=vertex_order)
        g = _from_dask_frame(client, edges, spec, **options)
    dtypes = df._meta.dtypes
    edge_dtypes = {name: dtypes[name] for name in ([weight] if weight else []) + names}
    g.store.edge_dtypes = dict(sorted(edge_dtypes.items(), key=lambda kv: list(df.columns).index(kv[0])))
    g.store.policies = {"self_loops": self_loops, "vertex_order": vertex_order}  # what updates follow
    if frame is not None and len(frame.columns) > 1:
        vframe = _to_dask(frame, "vertices=", labels=(vertex_column,), client=client)
        g.store.vertex_tables, g.store.vertex_dtypes = place_vertex_tables(g.store, g.codec, vframe, vertex_column)
    return g if (transport, domains) == ("direct", None) else g.with_transport(transport, domains)


def _from_dask_frame(client, edges, spec, *, vertices, renumber, self_loops, vertex_order):
    """``from_edgelist`` of a dask edge list (columns src, dst[, weight][, attributes])."""
    directed = spec.directed
    wk = spec.workers
    with Stages("from_edgelist") as stages:  # a status line once construction takes over 3 s
        stages("labels")
        if renumber:
            vseries = [_vertices_series(vertices)] if vertices is not None else []
            labels = Labels.build(client, [edges["src"], edges["dst"]] + vseries)
        else:
            n = len(vertices) if vertices is not None else None
            if n is None:
                hi = client.compute(edges[["src", "dst"]].max().max()).result()
                n = 0 if pd.isna(hi) else int(hi) + 1
            labels = Labels.identity(n)
        edges = labels.encode(edges, ["src", "dst"])  # with renumber=False: a null check, ids checked below
        if self_loops == "drop":
            edges = edges[edges["src"] != edges["dst"]]
        if not directed:
            edges = edges.map_partitions(_symmetrize, meta=edges._meta)
        out_degree = None
        if vertex_order == "degree":
            ends = client.compute(_degree_sum(edges.to_delayed(), labels.n, len(wk), both_ends=True))
            labels = labels.by_degree(client, ends)
            edges = labels.reorder(edges, ["src", "dst"])
            if not directed:  # every arc was counted at both ends: twice the out-degrees, in canonical order
                out_degree = client.submit(_halved_descending, ends)
        return _place(client, edges, labels, spec, out_degree=out_degree, stages=stages)


def _graph(client, labels, blocks, placed, *, directed, weight, order, inverse, extra):
    """The Graph of blocks placed as ``placed`` (a PlacementSpec) says: its label codec, its block
    store, and from_edgelist to build its subgraphs as it was built."""
    codec = LabelCodec(client, labels, order=order, inverse=inverse)
    store = BlockStore(
        client,
        placed.layout,
        blocks,
        bounds=placed.bounds,
        n=placed.n,
        directed=directed,
        weighted=placed.weighted,
        dedup=placed.dedup,
        order=order,
        extra=extra,
        weight=weight,
    )
    return Graph(codec, store, weight=weight, rebuild=from_edgelist)


def _spread(wk, ranks):
    """The worker of each rank: ranks in contiguous runs, as even as the counts allow."""
    return [wk[r * len(wk) // ranks] for r in range(ranks)]


class BuildSpec(NamedTuple):
    """What a graph is built as, whatever its input: ``directed`` or not, its ``weight`` column
    (None: unweighted), its ``layout``, the ``duplicates`` policy, the ``workers`` its ranks
    spread over, the arcs below which it gets one rank (``one_rank_below``; 0: never), and its
    edge attributes (``attrs``: (name, column of the edge frame, numpy dtype kept))."""

    directed: bool
    weight: Hashable | None
    layout: Layout
    duplicates: str
    workers: list
    one_rank_below: int = 0
    attrs: tuple = ()


def _from_small_frame(client, frame, vertices, renumber, self_loops, spec):
    """``from_edgelist`` of a small pandas edge list (columns src, dst[, weight], in the dtypes
    dask gives them): labels found and encoded here, the blocks placed by ``_place_small``; None
    when that declines (then the general path)."""
    if renumber:
        ends = [frame["src"], frame["dst"]]
        if vertices is not None:
            given = _vertices_pandas(vertices)
            ends.append(given.astype(_vertices_series(given).dtype))  # as dask keeps them: str -> arrow
        labels, table = Labels.local(client, ends)
    elif vertices is not None:
        labels, table = Labels.identity(len(vertices)), None
    else:
        labels, table = Labels.identity(int(frame[["src", "dst"]].max().max()) + 1 if len(frame) else 0), None
    frame = encode_part(frame, table, ["src", "dst"])
    if self_loops == "drop":
        frame = frame[frame["src"] != frame["dst"]]
    return _place_small(client, frame, labels, spec)


def _place_small(client, frame, labels, spec):
    """``_place`` for a small pandas edge list of ids 0..n-1: planned and cut here, each rank's
    block built by one task that carries its piece (``place_small``), in one wave instead of
    dozens of round trips. None for a layout measuring the workers' speeds."""
    directed, weight, layout, duplicates, wk, one_rank_below, attrs = spec
    if getattr(layout, "balance", None) == "measured":
        return None
    n = labels.n
    if not directed:
        frame = _symmetrize(frame)
    degree = _degree_count(frame, n)
    if layout.ranks > 1 and one_rank_below and degree.sum() < one_rank_below:
        layout = layout.with_ranks(1)
    plan = layout.plan(degree)
    order, bounds, extra = plan[0], np.asarray(plan[1], dtype=np.int64), _plan_extra(plan)
    if extra is not None:
        layout = layout.resolve(extra)
    inverse = None if order is None else inverse_permutation(order)
    pieces = _split(frame, inverse, bounds, "weight" if weight else None, layout, extra, attrs=_columns(attrs))
    # the tables every block's task reads travel once each, not inside every task, and are made
    # again with the blocks if a worker holding them is lost
    held = iter(tasks_of(client, [t for t in (order, inverse, extra) if t is not None]))
    placed = [None if t is None else next(held) for t in (order, inverse, extra)]
    where = _spread(wk, layout.ranks)
    pieces = [[p] for p in pieces]
    dedup = duplicates == "drop"
    spec = PlacementSpec(layout, bounds, n, "out", dedup, weight is not None, _kept(attrs))
    blocks, shapes = place_small(
        client, spec, pieces, where, key=placed[0], extra=placed[2], tables=(order, extra), facts=shape
    )
    graph = _graph(
        client,
        labels,
        blocks,
        spec,
        directed=directed,
        weight=weight,
        order=placed[0],
        inverse=placed[1],
        extra=placed[2],
    )
    graph.store.known_facts(shape, shapes)
    return graph


def _place(client, edges, labels, spec, *, out_degree=None, stages=None):
    """The graph of ``edges`` (canonical ids, symmetrized where undirected), built as ``spec``
    says: planned on the workers, its blocks placed there (``place_input``). ``out_degree``: a
    future of the degrees when already counted; ``stages(name)`` hears of each stage."""
    directed, weight, layout, duplicates, wk, one_rank_below, attrs = spec
    stages = stages or (lambda stage: None)
    stages("degrees")
    parts = edges.to_delayed()
    # every partition encoded (and symmetrized) once, held while the degree pass and the
    # placement read it (dask may spill it); a lost block is rebuilt from ``parts``
    held = client.compute(parts)
    degree = out_degree if out_degree is not None else client.compute(_degree_sum(held, labels.n, len(wk)))
    arcs = int(client.submit(np.sum, degree, pure=False).result())
    if layout.ranks > 1 and one_rank_below and arcs < one_rank_below:
        layout = layout.with_ranks(1)
    n, P = labels.n, layout.ranks
    where = _spread(wk, P)
    if getattr(layout, "balance", None) == "measured" and layout.weights is None:
        stages("measuring worker speeds")
        layout = layout.with_weights(rank_weights(client, where))
    plan = client.submit(layout.plan, degree, pure=False)
    order = client.submit(operator.itemgetter(0), plan, pure=False)
    extra = client.submit(_plan_extra, plan, pure=False)
    bounds, no_extra, no_order = client.submit(_plan_facts, plan, pure=False).result()  # one round trip
    bounds = np.asarray(bounds, dtype=np.int64)
    if no_extra:
        extra.release()
        extra = None
    else:
        layout = client.submit(layout.resolve, extra, pure=False).result()
    if no_order:
        order.release()
        order = None
    elif n > KEYED_LIMIT:
        raise DgraphInputError(
            f"layout {layout!r} reorders vertices, which dgraph does for up to {KEYED_LIMIT:,} of them (keyed ids); "
            f"this graph has {n:,}: use a layout that keeps the vertex order (layout='1d' or '2d')"
        )
    inverse = client.submit(inverse_permutation, order) if order is not None else None
    w = "weight" if weight else None
    stages("placing arcs")

    def cut(part):
        return dask.delayed(_split)(part, inverse, bounds, w, layout, extra, attrs=_columns(attrs))

    def say(stage, done, total):
        stages(f"{stage}: {done}/{total} partitions")

    dedup, weighted = duplicates == "drop", weight is not None
    counts = None  # a rank's rows are its own vertices: their degrees size its CSR; else counted
    if layout.owns_rows():
        counts = [client.submit(_row_counts, degree, order, *layout.row_range(r, bounds), pure=False) for r in range(P)]
    spec = PlacementSpec(layout, bounds, n, "out", dedup, weighted, _kept(attrs))
    blocks = place_input(
        client, parts, cut, arcs, spec, where, key=order, extra=extra, counts=counts, say=say, held=held
    )
    del degree, plan, held
    return _graph(
        client, labels, blocks, spec, directed=directed, weight=weight, order=order, inverse=inverse, extra=extra
    )


def _columns(attrs):
    """(name, edge frame column) of each attribute of a BuildSpec: what ``_split`` cuts."""
    return tuple((name, column) for name, column, _ in attrs)


def _kept(attrs):
    """(name, numpy dtype) of each attribute of a BuildSpec: the blocks' per-arc columns."""
    return tuple((name, dtype) for name, _, dtype in attrs)
