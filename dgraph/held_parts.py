"""The dask-expr expression of a DataFrame whose partitions are futures already submitted.

Its keys are the futures' own, ``(name, i)``: computing the frame asks the scheduler for results it
holds and runs no task of its own. ``dd.from_delayed`` on the same futures adds an alias task per
partition, which every compute has to run on a worker first (a scheduler round trip, ~15 ms).
The class is pickled by reference, so the scheduler imports this module as it reads a graph.
"""

from __future__ import annotations

import functools

import pandas as pd
from dask.dataframe.dask_expr._collection import new_collection
from dask.dataframe.dask_expr._expr import ArrowStringConversion
from dask.dataframe.dask_expr.io.io import IO
from dask.dataframe.utils import make_meta, pyarrow_strings_enabled


def held_frame(name, futures, meta):
    """A dask DataFrame of the futures under the keys ``(name, 0), (name, 1), ...`` with empty
    frame ``meta``; divisions unknown."""
    frame = HeldParts(name, list(futures), make_meta(meta))
    if pyarrow_strings_enabled() and any(pd.api.types.is_object_dtype(t) for t in frame._meta.dtypes):
        frame = ArrowStringConversion(frame)  # as dd.from_delayed does: object columns become strings
    return new_collection(frame)


class HeldParts(IO):
    """The expression of a frame whose partitions are futures held under ``(name, i)``."""

    _parameters = ["name", "futures", "_meta"]

    @functools.cached_property
    def _name(self):
        return self.operand("name")

    @property
    def _meta(self):
        return self.operand("_meta")

    def _divisions(self):
        return (None,) * (len(self.operand("futures")) + 1)

    def _layer(self):
        # each future under its own key: dask drops the self-reference, and the tasks that read a
        # partition depend on the held result itself
        return {f.key: f for f in self.operand("futures")}

    def __dask_tokenize__(self):
        return self.operand("name")  # fresh per frame; futures cannot be hashed by value
