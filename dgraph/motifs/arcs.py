"""What motif finding reads of a graph, as dask DataFrames on the workers in placed ids: its arcs
with their attributes, the candidates of a name by degree, and the user's labels of the ids.

The arcs are made by each worker from its ranks' blocks (``attributes.edges_kernel``, as
``Graph.edges`` does) but their ends stay placed ids, so the joins compare integers; labels
come in only at the end, by a join with each rank's ``[vertex, id]`` table.
"""

from __future__ import annotations

from typing import Any

import dask.dataframe as dd
import numpy as np

from ..attributes import edges_kernel
from ..joins import merge
from .plan import Need

ID = "\0id"  # placed ids in the frames beside the matches (no name a pattern can use)
OTHER = "\0other"  # the far end of an arc while neighbours are counted
COUNT = "\0count"


def arcs(graph: Any, *, one_task: bool) -> dd.DataFrame:
    """``[src, dst, *edge attributes]`` of every stored arc (both arcs of an undirected edge),
    ends in placed ids, made on the workers (in one partition with ``one_task``)."""
    root = graph.store.root
    frame = graph.runner.over(root).run_to_rows(
        edges_kernel,
        name="motif-arcs",
        placement="layout",
        record=False,  # a view of the graph: the last algorithm's stats stay
        weight=root.weight,
        dtypes=root.edge_dtypes,
    )[0]
    return frame.repartition(npartitions=1) if one_task and frame.npartitions > 1 else frame


def _ids_kernel(ctx: Any, *, bounds: np.ndarray, layout: Any) -> dict:
    """Each rank's own placed ids: with the run's finish, its ``[vertex, id]`` table."""
    return {r: {ID: np.arange(bounds[r], bounds[r + 1], dtype=np.int64)} for r in ctx.ranks}


def label_table(graph: Any, *, one_task: bool) -> dd.DataFrame:
    """``[vertex, ID]``: each vertex's label beside its placed id, one partition per worker (one
    in all with ``one_task``)."""
    root = graph.store.root
    frame = graph.runner.over(root).run_to_frame(_ids_kernel, name="motif-labels", placement="layout", record=False)[0]
    return frame.repartition(npartitions=1) if one_task and frame.npartitions > 1 else frame


def neighbour_counts(edges: dd.DataFrame) -> dict[str, dd.DataFrame]:
    """``{"out": [ID, COUNT], "into": [ID, COUNT]}``: each vertex's distinct out- and
    in-neighbours other than itself, counted on the workers (vertices without any are absent)."""
    # renamed before any shuffle: dask-expr's RenameFrame cannot follow the partitioning
    # columns of a shuffled frame (its optimizer raises a KeyError)
    pairs = edges[edges.src != edges.dst][["src", "dst"]]
    counts = {}
    for kind, end, other in (("out", "src", "dst"), ("into", "dst", "src")):
        ends = pairs[[end, other]].rename(columns={end: ID, other: OTHER}).drop_duplicates()
        counts[kind] = ends.groupby(ID).size().to_frame(COUNT).reset_index()
    return counts


def candidates(counts: dict[str, dd.DataFrame], need: Need) -> list[dd.DataFrame]:
    """``[ID]`` frames of the vertices with at least ``need``'s distinct neighbours, one per
    direction it counts: a vertex standing for the name must be in each."""
    found = []
    for kind, least in (("out", need.out), ("into", need.into)):
        if least > 1:
            c = counts[kind]
            found.append(c[c[COUNT] >= least][[ID]])
    return found


def labelled(matches: dd.DataFrame, names: list[str], table: dd.DataFrame, *, broadcast: bool) -> dd.DataFrame:
    """``matches`` with each of the vertex columns ``names`` (placed ids) in the user's labels,
    by a join with the label ``table`` per column, on the workers (``broadcast``: the table
    sent to the matches' tasks)."""
    for name in names:
        found = merge(matches, table, left_on=name, right_on=ID, broadcast=broadcast or None)
        matches = found.assign(**{name: found["vertex"]}).drop(columns=[ID, "vertex"])  # no rename after a shuffle
    return matches
