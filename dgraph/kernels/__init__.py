"""Local kernels, by topic, each registered with one implementation per engine.

Engines: ``numba`` (the default on CPU), ``numpy`` (vectorized numpy/scipy twins, the same
results) and ``cuda`` (device twins of the kernels that touch arcs, ``dgraph.kernels.cuda``; the
others run their numba twin). ``set_engine(name)`` (or ``DGRAPH_KERNELS=name``) selects one for later runs;
``using(name, threads)`` for a block of code in one thread. ``KERNELS`` lists every kernel with
its twins; the parity tests run each engine's implementation against the others'.

Conventions: vertex ids are int64 *placed* ids (rank r owns the contiguous range [lo, hi)).
Ties (BFS parents, predecessors) break by comparing ids, which callers pass as keyed ids where
the placement reorders vertices (``dgraph.owners.keyed``), so they break the same way on every
layout; the kernels that compare vertices they hold take ``key``, those vertices' canonical ids
(empty where placed ids are canonical).

Threads: a run's driver may give its kernels more than one thread (``using(engine, threads=k)``;
a graph on one rank gets the cores its idle workers would use). The compute-bound numba kernels
(label mode, SpMV, triangle counts) then split their rows into k runs of about equal arcs and run
them in parallel (the same row loop as the serial kernel, so the results are identical);
Afforest over a rank whose rows are its whole space hooks roots by compare-and-swap
(``atomics.swap_if``), with the same forest once flattened; a weighted rank-local closure
over enough arcs (``relax_local``) runs delta-stepping on k threads that meet at barriers
(``atomics.barrier``), with the serial search's distances and predecessors; BFS and union-find
across ranks stay serial.

Every kernel is compiled with numba's on-disk cache; ``cache_lock`` makes its saves safe when
several processes compile at once, and has processes that want one kernel at once compile it once.
"""

import atexit
import gc

from . import cache_lock  # noqa: F401 (locks numba's cache before any kernel compiles)
from .brandes import brandes, brandes_paths
from .colouring import greedy_pass
from .communities import (
    community_pieces,
    ghost_rows,
    inside_weight,
    level_weights,
    local_moving,
    refine_communities,
    wake_near,
)
from .counting import (
    label_counts,
    label_mode,
    neighbour_sets,
    neighbour_sets_already,
    neighbourhood_arcs,
    ordered_triangles,
    orient_rows,
    oriented_triangles,
)
from .csr import (
    LocalCSR,
    build_csr,
    count_loops,
    csr_from_pieces,
    fill_rows,
    fill_slots,
    order_rows,
    row_order,
    take_rows,
)
from .delta_threads import weighted_arcs
from .dijkstra import HUB_ARCS, bucket_queue, rows_leaving
from .engines import (
    COUNT_GRAIN,
    ENGINES,
    FOREST_GRAIN,
    KERNELS,
    SPMV_GRAIN,
    TRIANGLE_GRAIN,
    compiled_before,
    device_transfers,
    engine,
    row_cuts,
    set_engine,
    threads,
    threads_for,
    twins,
    using,
)
from .frontier import (
    MERGE_CODES,
    first_in_frontier,
    frontier_arcs,
    merge_by_id,
    pull_merge,
    push_merge,
    rows_arcs,
    settle_level,
)
from .generate import kronecker_edges
from .level_sums import sum_row_pairs, sum_rows
from .levels import bfs_levels
from .linalg import (
    assign_at,
    count_reads,
    pagerank_step,
    power_iterations,
    relabel,
    segment_columns,
    spmv,
    spmv_segments,
)
from .matching import heaviest_free_neighbour
from .merging import mark_removed, merge_rows
from .overlaps import pair_overlaps
from .path_rounds import improve, light_rows, take_below
from .paths import DELTA_GRAIN, relax_local
from .peeling import peel_cores, settle_cores
from .placing import onefived_ranks, onefived_subgraphs
from .sampling import row_prefix, search_rows
from .sets import union, unique
from .signed_paths import relax_signed
from .slots import dense_ranks, keyed_at, mark_bits, pack_ids, positions, set_bits, unkey
from .spanning import lightest_leaving, local_forest
from .trees import search_tree_rules, search_tree_rules_many, tree_astray
from .unionfind import (
    afforest_bridges,
    afforest_rows,
    block_forest,
    component_interface,
    flatten_forest,
    spanning_forest,
)

# The interpreter's teardown collects garbage over every object numba made for the kernels: seconds
# on a busy machine, and a nanny kills a worker that takes 4 s to exit. Frozen, they end with the process.
atexit.register(gc.freeze)

__all__ = [
    "COUNT_GRAIN",
    "DELTA_GRAIN",
    "FOREST_GRAIN",
    "HUB_ARCS",
    "ENGINES",
    "KERNELS",
    "MERGE_CODES",
    "SPMV_GRAIN",
    "TRIANGLE_GRAIN",
    "afforest_bridges",
    "afforest_rows",
    "assign_at",
    "bfs_levels",
    "block_forest",
    "brandes",
    "brandes_paths",
    "LocalCSR",
    "mark_removed",
    "merge_rows",
    "build_csr",
    "component_interface",
    "count_loops",
    "count_reads",
    "csr_from_pieces",
    "dense_ranks",
    "keyed_at",
    "unkey",
    "mark_bits",
    "rows_arcs",
    "compiled_before",
    "device_transfers",
    "engine",
    "fill_rows",
    "fill_slots",
    "first_in_frontier",
    "frontier_arcs",
    "heaviest_free_neighbour",
    "kronecker_edges",
    "improve",
    "label_counts",
    "label_mode",
    "light_rows",
    "local_moving",
    "refine_communities",
    "inside_weight",
    "level_weights",
    "sum_row_pairs",
    "community_pieces",
    "ghost_rows",
    "wake_near",
    "merge_by_id",
    "neighbour_sets",
    "neighbour_sets_already",
    "neighbourhood_arcs",
    "onefived_ranks",
    "onefived_subgraphs",
    "orient_rows",
    "positions",
    "set_bits",
    "pack_ids",
    "order_rows",
    "row_order",
    "row_prefix",
    "ordered_triangles",
    "oriented_triangles",
    "pagerank_step",
    "peel_cores",
    "power_iterations",
    "pull_merge",
    "push_merge",
    "relabel",
    "relax_local",
    "bucket_queue",
    "weighted_arcs",
    "row_cuts",
    "rows_leaving",
    "search_rows",
    "search_tree_rules",
    "search_tree_rules_many",
    "tree_astray",
    "set_engine",
    "settle_cores",
    "settle_level",
    "spanning_forest",
    "flatten_forest",
    "greedy_pass",
    "lightest_leaving",
    "local_forest",
    "sum_rows",
    "take_below",
    "take_rows",
    "segment_columns",
    "spmv",
    "spmv_segments",
    "threads",
    "threads_for",
    "twins",
    "union",
    "unique",
    "using",
    "pair_overlaps",
    "relax_signed",
]
