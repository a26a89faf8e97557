"""Mergeable write-back operators (TD-Orch Definition 2): x (+) y1 (+) ... (+) yn = x (.) (y1 (x) ... (x) yn).

``combine`` ((x) in the paper) merges task values for one address anywhere (at the task's rank,
at a tree node, at the owner), in any grouping; ``write_back`` is (.), applied once at the
owner. A partial is a list of arrays: the values, plus for ``"first"`` and ``"any"`` the
priority and the task's global position that decide which task wins, so every strategy picks
the same task whatever order values arrive in.

- ``"sum"``, ``"min"``, ``"max"``: numeric reductions.
- ``"first"``: the value of the task with the smallest ``priority`` column (ties: the earlier
  task in input order).
- ``"any"``: one task's value (concurrent writes where one succeeds); dgraph keeps the earliest
  task in input order, so the choice does not depend on the strategy.
- ``(combine, apply)``: ``combine(a, b)`` an associative, commutative elementwise function (a
  numpy ufunc such as ``np.multiply`` or any vectorized callable) and ``apply(merged)`` the
  array handed to ``write_back`` (``None`` for the identity).
"""

from __future__ import annotations

import numpy as np

from ..errors import DgraphInputError

NAMED = {"sum": np.add, "min": np.minimum, "max": np.maximum}
CHOICE = ("first", "any")


def _starts(keys):
    """Start of each run of equal keys in sorted ``keys``."""
    if keys.size == 0:
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]]))


def _pairwise(values, starts, combine):
    """Segment reduce with an arbitrary elementwise ``combine``: halve every segment per round."""
    lengths = np.diff(np.append(starts, values.size))
    seg = np.repeat(np.arange(starts.size), lengths)
    pos = np.arange(values.size) - np.repeat(starts, lengths)
    vals = values
    while lengths.size and lengths.max() > 1:
        pair = pos % 2 == 1  # element 2i+1 folds into 2i
        left = np.flatnonzero(pair) - 1
        folded = vals.copy()
        folded[left] = np.asarray(combine(vals[left], vals[left + 1]))
        keep = ~pair
        vals, seg, pos = folded[keep], seg[keep], pos[keep] // 2
        lengths = (lengths + 1) // 2
    return vals


class Merge:
    def __init__(self, spec, priority=None):
        self.name, self.apply = spec, None
        if isinstance(spec, tuple):
            if len(spec) != 2 or not callable(spec[0]) or not (spec[1] is None or callable(spec[1])):
                raise DgraphInputError(
                    "merge=(combine, apply) needs combine(a, b) -> array and apply(array) -> array (or None)"
                )
            self.name, self.combine, self.apply = "user", spec[0], spec[1]
        elif spec in NAMED:
            self.combine = NAMED[spec]
        elif spec not in CHOICE:
            raise DgraphInputError(
                f"merge must be one of {sorted(NAMED) + list(CHOICE)} or a (combine, apply) pair, got {spec!r}"
            )
        if spec == "first" and priority is None:
            raise DgraphInputError('merge="first" needs priority=<task column>: the task with the smallest value wins')
        self.priority = priority if spec == "first" else None
        self.choice = self.name in CHOICE

    def width(self):
        """Arrays per partial: the value, and for a choice the priority and global position."""
        return 3 if self.choice else 1

    def partial(self, values, priority, gid):
        """One partial per task."""
        if not self.choice:
            return [values]
        return [values, priority if priority is not None else np.zeros(gid.size, dtype=np.int8), gid]

    def reduce(self, keys, parts):
        """Merge partials with equal ``keys``: ``(unique keys, parts)``."""
        keys = np.asarray(keys, dtype=np.int64)
        if self.choice:
            values, prio, gid = parts
            order = np.lexsort((gid, prio, keys))  # smallest (priority, position) first per key
            keys = keys[order]
            first = _starts(keys)
            return keys[first], [values[order][first], prio[order][first], gid[order][first]]
        order = np.argsort(keys, kind="stable")
        keys, values = keys[order], parts[0][order]
        starts = _starts(keys)
        if isinstance(self.combine, np.ufunc) and self.combine.nin == 2 and values.size:
            merged = self.combine.reduceat(values, starts)
        else:
            merged = _pairwise(values, starts, self.combine) if values.size else values
        return keys[starts], [np.asarray(merged)]

    def final(self, parts):
        values = parts[0]
        return values if self.apply is None else np.asarray(self.apply(values))
