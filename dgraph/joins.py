"""How dgraph joins dask DataFrames on the workers (motifs, Jaccard top-k, reciprocity,
subgraphs): by a task shuffle. distributed logs two WARNING lines on the scheduler for every
peer-to-peer shuffle it runs, which a user's notebook or script would show after each call,
and a clean run of dgraph prints no warning.

>>> import dask.dataframe as dd, pandas as pd
>>> a = dd.from_pandas(pd.DataFrame({"k": [1, 2], "x": [3, 4]}), npartitions=2)
>>> b = dd.from_pandas(pd.DataFrame({"k": [2, 1], "y": [5, 6]}), npartitions=2)
>>> merge(a, b, on="k").compute().sort_values("k").values.tolist()
[[1, 3, 6], [2, 4, 5]]
"""

from __future__ import annotations

from typing import Any

import dask.dataframe as dd


def merge(left: dd.DataFrame, right: Any, **kwargs: Any) -> dd.DataFrame:
    """``left.merge(right, **kwargs)`` shuffled by tasks where it shuffles at all."""
    return left.merge(right, shuffle_method="tasks", **kwargs)
