"""A change's arcs cut by the rank that stores each, where the layout's plan is (a task)."""

from __future__ import annotations

import numpy as np

from ..block import split_by_owner
from ..owners import grouped_by_owner
from .blocks import Removals


def cut_arcs(rows, cols, weights, attrs, *, bounds, layout, extra) -> list:
    """Added arcs (placed ids, their weights or None, {attribute: column} or None) cut into a
    piece per rank, as ``split_by_owner`` cuts a build's input; None for a rank with none."""
    rows, cols = np.asarray(rows, np.int64), np.asarray(cols, np.int64)
    pieces = split_by_owner(rows, cols, weights, np.asarray(bounds), layout=layout, extra=extra, attrs=attrs)
    return [p if p[0].size else None for p in pieces]


def cut_removals(rows, cols, asked, *, bounds, layout, extra) -> list:
    """Removal requests (placed ids, and the edge each asks for) cut by the rank storing the
    arc they name; None for a rank with none."""
    rows, cols, asked = np.asarray(rows, np.int64), np.asarray(cols, np.int64), np.asarray(asked, np.int64)
    ranks = layout.ranks
    owner = layout.arc_ranks(rows, cols, np.asarray(bounds), extra)
    order = grouped_by_owner(owner, ranks)
    cuts = np.searchsorted(owner[order], np.arange(ranks + 1))
    rows, cols, asked = rows[order], cols[order], asked[order]
    return [Removals(rows[a:b], cols[a:b], asked[a:b]) if b > a else None for a, b in zip(cuts[:-1], cuts[1:])]


def piece_sizes(cut: list) -> list[int]:
    """The arcs of each rank's piece of a cut (0 for None)."""
    out = []
    for piece in cut:
        out.append(0 if piece is None else int(piece.rows.size if isinstance(piece, Removals) else piece[0].size))
    return out
