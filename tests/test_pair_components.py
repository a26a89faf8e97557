"""Components of pairs spread over the ranks: FastSV's rounds and one rank's union-find (taken
when the pairs are few) give scipy's components, each named by its smallest id."""

import sys

import cloudpickle
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from graphs import kron_edges
from scipy.sparse.csgraph import connected_components

import dgraph
from dgraph.pair_components import pair_components
from dgraph.partitioners import OneD

cloudpickle.register_pickle_by_value(sys.modules[__name__])


def _pairs(n, seed):
    """Both directions of 0.4 n random pairs (many components, some ids in none), and a self pair."""
    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, n, int(0.4 * n)), rng.integers(0, n, int(0.4 * n))
    return np.r_[a, b, 5], np.r_[b, a, 5]


def pairs_kernel(ctx, seed, gather, bounds):
    a, b = _pairs(int(bounds[-1]), seed)
    u, v = {}, {}
    for r in ctx.ranks:  # each rank the pairs whose first end it owns
        mine = (a >= bounds[r]) & (a < bounds[r + 1])
        u[r], v[r] = a[mine].astype(np.int32), b[mine].astype(np.int32)
    linked = pair_components(ctx, u, v, bounds, gather=gather)
    assert not u and not v  # the pairs were let go
    return {r: {"node": linked[r][0].astype(np.int64), "root": linked[r][1].astype(np.int64)} for r in ctx.ranks}


@pytest.mark.parametrize("ranks", [1, 3, 8])
def test_gathered_and_fastsv_components_equal_scipy(client, ranks):
    g = dgraph.from_edgelist(kron_edges(8, seed=1), directed=False, layout=OneD(ranks=ranks))
    n = g.num_vertices
    a, b = _pairs(n, 7)
    _, label = connected_components(sp.coo_matrix((np.ones(a.size), (a, b)), shape=(n, n)), directed=False)
    smallest = pd.Series(np.arange(n)).groupby(label).transform("min").to_numpy()
    for gather in (True, False, None):
        results, stats = g.run(pairs_kernel, seed=7, gather=gather)
        got = pd.concat([pd.DataFrame(r) for r in results.gather()], ignore_index=True)
        assert got.node.tolist() == sorted(set(a.tolist())), gather  # every id in a pair, once
        np.testing.assert_array_equal(got.root.to_numpy(), smallest[got.node.to_numpy()], err_msg=str(gather))
        assert (stats.info["pair_rounds"] == 0) == (gather is True or (gather is None and a.size <= n // ranks))
