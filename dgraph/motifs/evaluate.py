"""A motif plan evaluated as dask DataFrame joins of the graph's arcs, on the workers.

Each positive term is the arcs frame with its ends renamed to the term's names (its edge's
attributes to ``e.<attribute>``), cut to the candidates of names whose ``Need`` prunes; a
component joins its terms in the plan's order, each on the names bound before it, with the
negated terms (anti-joins) and ``x != y`` filters after the join that binds their names; how
the joins spread over the workers is ``sizing``'s choice. The components' matches are crossed
(only with a limit, each cut to it first: a cross product of prefixes of ``limit`` rows each
holds ``limit`` rows whenever the whole one does), cut to the limit, and their vertex columns
turned into the user's labels last. Nothing reaches the client.
"""

from __future__ import annotations

from typing import Any

import dask.dataframe as dd

from ..joins import merge
from . import arcs as graph_arcs
from .pattern import Term
from .plan import Plan, Step
from .sizing import Sizing, sizing

HIT = "\0hit"  # the anti-join's marker column
CROSS = "\0cross"  # the constant key a cross product joins on


def matches(graph: Any, plan: Plan, *, limit: int | None) -> dd.DataFrame:
    """The matches of ``plan`` on ``graph``: one column per named vertex (the user's labels)
    and ``e.<attribute>`` per named edge and edge attribute, in the pattern's order."""
    size = sizing(graph)
    edges = graph_arcs.arcs(graph, one_task=size.one_task)
    attrs = list(graph.edge_attrs)
    counts = graph_arcs.neighbour_counts(edges) if plan.needs else {}
    pruned = {name: graph_arcs.candidates(counts, need) for name, need in plan.needs.items()}
    parts = [_component(edges, steps, attrs, pruned, size) for steps in plan.components]
    if limit is not None and len(parts) > 1:
        parts = [p.head(limit, npartitions=-1, compute=False) for p in parts]
    found = parts[0]
    for part in parts[1:]:
        found = merge(found.assign(**{CROSS: 0}), part.assign(**{CROSS: 0}), on=CROSS).drop(columns=CROSS)
    found = _filtered(found, edges, plan.negations, plan.unequal, size)
    if limit is not None:
        found = found.head(limit, npartitions=-1, compute=False)
    columns = [c for kind, name in plan.output for c in ([name] if kind == "vertex" else _edge_columns(name, attrs))]
    found = found[columns]
    vertices = [name for kind, name in plan.output if kind == "vertex"]
    if not graph.codec.ids_are_labels:
        table = graph_arcs.label_table(graph, one_task=size.one_task)
        found = graph_arcs.labelled(found, vertices, table, broadcast=size.broadcast)[columns]
    return found


def _edge_columns(edge: str, attrs: list[str]) -> list[str]:
    return [f"{edge}.{a}" for a in attrs]


def _component(
    edges: dd.DataFrame, steps: tuple[Step, ...], attrs: list[str], pruned: dict, size: Sizing
) -> dd.DataFrame:
    found = None
    for step in steps:
        frame = _term_frame(edges, step.term, attrs, pruned)
        if found is None:
            found = frame if size.chunks is None else frame.repartition(npartitions=size.chunks)
        else:
            found = merge(found, frame, on=list(step.on), broadcast=size.broadcast or None)
        found = _filtered(found, edges, step.negations, step.unequal, size)
    assert found is not None
    return found


def _term_frame(edges: dd.DataFrame, term: Term, attrs: list[str], pruned: dict) -> dd.DataFrame:
    """A positive term's arcs: its named ends and its edge's attribute columns."""
    kept = attrs if term.edge is not None else []
    frame = edges[["src", "dst", *kept]]
    names = {a: f"{term.edge}.{a}" for a in kept}
    if term.src is not None and term.src == term.dst:
        frame = frame[frame.src == frame.dst].drop(columns="dst")
        names["src"] = term.src
    else:
        for end, name in (("src", term.src), ("dst", term.dst)):
            if name is None:
                frame = frame.drop(columns=end)
            else:
                names[end] = name
    frame = frame.rename(columns=names)
    for name in term.vertices:
        for kept in pruned.get(name, ()):
            frame = merge(frame, kept, left_on=name, right_on=graph_arcs.ID).drop(columns=graph_arcs.ID)
    return frame


def _filtered(
    found: dd.DataFrame,
    edges: dd.DataFrame,
    negations: tuple[Term, ...],
    unequal: tuple[tuple[str, str], ...],
    size: Sizing,
) -> dd.DataFrame:
    for x, y in unequal:
        found = found[found[x] != found[y]]
    for term in negations:
        found = _without(found, edges, term, size)
    return found


def _without(found: dd.DataFrame, edges: dd.DataFrame, term: Term, size: Sizing) -> dd.DataFrame:
    """An anti-join: the rows of ``found`` whose named vertices have no arc as ``term`` says
    (to or from any vertex where an end is anonymous)."""
    if term.src is not None and term.src == term.dst:
        hits = edges[edges.src == edges.dst][["src"]].rename(columns={"src": term.src})
    else:
        ends = {end: name for end, name in (("src", term.src), ("dst", term.dst)) if name is not None}
        hits = edges[list(ends)].rename(columns=ends)
    hits = hits.drop_duplicates().assign(**{HIT: True})
    found = merge(found, hits, on=list(term.vertices), how="left", broadcast=size.broadcast or None)
    return found[found[HIT].isna()].drop(columns=HIT)
