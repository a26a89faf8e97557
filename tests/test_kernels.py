"""Local kernels: numba and numpy paths against each other and against plain references."""

import importlib

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components, shortest_path

from dgraph import kernels


@pytest.fixture(params=["numba", "numpy"])
def engine(request):
    with kernels.using(request.param):
        yield request.param


def _random(n, m, seed):
    rng = np.random.default_rng(seed)
    return rng.integers(0, n, m), rng.integers(0, n, m), rng.uniform(0, 1, m)


def test_build_csr_sorts_dedups_and_keeps_smallest_weight(engine):
    rows, cols, w = _random(50, 400, 1)
    key = np.random.default_rng(2).permutation(50)
    indptr, idx, wt = kernels.build_csr(rows, cols, 50, weights=w, key=key)
    ref = {}
    for r, c, x in zip(rows, cols, w):
        ref[(r, c)] = min(x, ref.get((r, c), np.inf))
    got = {}
    for r in range(50):
        seg = idx[indptr[r] : indptr[r + 1]]
        assert (np.diff(key[seg]) > 0).all()  # neighbours in key order, no repeats
        got.update({(r, c): x for c, x in zip(seg, wt[indptr[r] : indptr[r + 1]])})
    assert got == ref
    p2, i2, _ = kernels.build_csr(rows, cols, 50, dedup=False)
    assert i2.size == 400 and p2[-1] == 400


@pytest.mark.parametrize("weighted", [False, True])
def test_csr_from_pieces_equals_the_csr_of_their_concatenation(engine, weighted):
    rows, cols, w = _random(60, 700, 5)
    rows = rows + 1000  # placed ids of a rank whose range starts at 1000
    cuts = [0, 150, 150, 400, 700]  # an empty piece too
    pieces = [
        (rows[a:b].astype(np.int32) if i % 2 else rows[a:b], cols[a:b].astype(np.int32), w[a:b] if weighted else None)
        for i, (a, b) in enumerate(zip(cuts[:-1], cuts[1:]))
    ]
    key = np.random.default_rng(6).permutation(60)
    for dedup in (True, False):
        got = kernels.csr_from_pieces(pieces, 60, 1000, key, dedup, index_dtype=np.int32)
        ref = kernels.build_csr(rows - 1000, cols, 60, weights=w if weighted else None, key=key, dedup=dedup)
        assert got[1].dtype == np.int32 and ref[1].dtype == np.int64
        for x, y in zip(got, ref):
            np.testing.assert_array_equal(x, y)


def _local_bfs(indptr, indices, n, source, direction):
    """BFS on one CSR by frontier_arcs + merge "first" (push) or first_in_frontier (pull), each
    level written back by settle_level."""
    level = np.full(n, -1, np.int64)
    parent = np.full(n, -1, np.int64)
    level[source] = 0
    frontier = np.array([source])
    scratch = (np.zeros(n), np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, dtype=bool))
    depth = 0
    while frontier.size:
        depth += 1
        if direction == "push":
            pos, dst, _ = kernels.frontier_arcs(indptr, indices, None, frontier)
            v, _, p = kernels.merge_by_id(dst, np.zeros(dst.size, np.int64), frontier[pos], "first", scratch)
        else:
            front = np.zeros(n, bool)
            front[frontier] = True
            rows = np.flatnonzero(level == -1)
            pos, p, _, _ = kernels.first_in_frontier(indptr, indices, None, rows, front)
            v = rows[pos]
        visited = level >= 0
        frontier = kernels.settle_level(v, p, depth, level, parent, visited, 0)
        assert (visited == (level >= 0)).all()
    return level, parent


@pytest.mark.parametrize(
    "values",
    [
        np.random.default_rng(1).integers(0, 500, 2000),  # dense: the table
        np.random.default_rng(2).integers(-(2**40), 2**40, 3000),  # wide and negative: the sort
        np.random.default_rng(3).integers(0, 2**63, 1000, dtype=np.uint64),
        np.random.default_rng(4).integers(0, 2**31 - 1, 500).astype(np.int32),
        np.array([7, 7, 7]),
        np.empty(0, np.int64),
        np.array(["b", "a", "b"]),  # not integers: as np.unique does
    ],
    ids=["dense", "wide", "uint64", "int32", "repeats", "empty", "strings"],
)
def test_unique_and_union_equal_numpy_s(values):
    got = kernels.unique(values)
    want = np.unique(values)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(kernels.union(values, values[::-1]), want)


@pytest.mark.parametrize("direction", ["push", "pull"])
def test_bfs_steps_match_scipy_and_pick_smallest_parent(engine, direction):
    n = 300
    rows, cols, _ = _random(n, 900, 3)
    rows, cols = np.r_[rows, cols], np.r_[cols, rows]
    indptr, idx, _ = kernels.build_csr(rows, cols, n)
    level, parent = _local_bfs(indptr, idx, n, 0, direction)
    A = sp.csr_matrix((np.ones(idx.size), idx, indptr), shape=(n, n))
    ref = shortest_path(A, unweighted=True, indices=0)
    reached = np.isfinite(ref)
    assert (level[reached] == ref[reached]).all() and (level[~reached] == -1).all()
    for v in np.flatnonzero(reached)[1:]:
        nbrs = idx[indptr[v] : indptr[v + 1]]
        assert parent[v] == nbrs[level[nbrs] == level[v] - 1].min()


def test_first_in_frontier_engines_agree_on_hits_and_scan_counts():
    rows, cols, w = _random(100, 800, 12)
    indptr, idx, wt = kernels.build_csr(rows, cols, 100, weights=w)
    front = np.random.default_rng(13).random(100) < 0.1
    which = np.arange(0, 100, 3)
    out = {}
    for e in kernels.ENGINES:
        with kernels.using(e):
            out[e] = kernels.first_in_frontier(indptr, idx, wt, which, front)
    for x, y in zip(out["numba"][:3], out["numpy"][:3]):
        np.testing.assert_array_equal(x, y)
    assert out["numba"][3] == out["numpy"][3]
    pos, src, _, scanned = out["numba"]
    for i, v in enumerate(which):  # the first frontier neighbour in CSR order, or none
        hits = [u for u in idx[indptr[v] : indptr[v + 1]] if front[u]]
        assert src[pos == i].tolist() == hits[:1]
    assert scanned <= indptr[which + 1].sum() - indptr[which].sum()


def test_spmv(engine):
    rows, cols, w = _random(80, 500, 4)
    indptr, idx, wt = kernels.build_csr(rows, cols, 80, weights=w, dedup=False)
    x = np.random.default_rng(5).uniform(size=80)
    A = sp.csr_matrix((wt, idx, indptr), shape=(80, 80))
    np.testing.assert_allclose(kernels.spmv(indptr, idx, wt, x), A @ x, rtol=1e-12)
    ones = sp.csr_matrix((np.ones(idx.size), idx, indptr), shape=(80, 80))
    np.testing.assert_allclose(kernels.spmv(indptr, idx, None, x), ones @ x, rtol=1e-12)


def test_spanning_forest_matches_components_and_leaves_scratch(engine):
    n = 500
    a, b, _ = _random(n, 300, 6)
    scratch = np.arange(n, dtype=np.int64)
    v, root = kernels.spanning_forest(a, b, scratch)
    assert (scratch == np.arange(n)).all()
    labels = np.arange(n)
    labels[v] = root
    _, ref = connected_components(sp.coo_matrix((np.ones(a.size), (a, b)), shape=(n, n)), directed=False)
    for c in np.unique(ref):
        members = np.flatnonzero(ref == c)
        assert (labels[members] == members.min()).all()


def _trees(n, v, root):
    """Each vertex's tree named by its smallest member, from (vertex, root) pairs."""
    tree = np.arange(n)
    tree[v] = root
    smallest = np.full(n, n)
    np.minimum.at(smallest, tree, np.arange(n))
    return smallest[tree]


@pytest.mark.parametrize("arcs", [3000, 150])  # one giant tree (Afforest skips), many small ones
@pytest.mark.parametrize("afforest", [False, True])
@pytest.mark.parametrize("lo, hi", [(100, 300), (0, 500)])  # a rank's rows; every row (one rank)
def test_block_forest_equals_the_forest_of_its_arcs(engine, afforest, arcs, lo, hi):
    # a rank's CSR over rows lo..hi-1, heads anywhere, int32 as blocks hold them; Afforest's
    # symmetric blocks alone (one rank: the whole range) or with no other rank skipping
    from types import SimpleNamespace

    n = 500
    a, b, _ = _random(n, arcs, 11)
    if afforest:
        a, b = np.r_[a, b], np.r_[b, a]
    own = (a >= lo) & (a < hi)
    indptr, indices, _ = kernels.build_csr(a[own] - lo, b[own], hi - lo, dedup=False)
    block = SimpleNamespace(
        lo=lo,
        hi=hi,
        indptr=indptr,
        indices=indices.astype(np.int32),
        degree=lambda: np.diff(indptr),
        narcs=indices.size,
        space_key=None,
    )
    scratch = np.arange(n, dtype=np.int64)
    plain = kernels.spanning_forest(a[own], b[own], scratch)
    if not afforest:
        v, root = kernels.block_forest([block], scratch)
    else:
        skipped = kernels.afforest_rows(block, scratch)
        if hi - lo < n:  # a skipping row's arcs to other ranks are theirs to unite
            kept = own & ~np.isin(a, np.arange(lo, hi)[skipped])
            plain = _joined(n, kernels.spanning_forest(a[kept], b[kept], np.arange(n)), np.arange(lo, hi)[skipped])
        v, root, giant = kernels.afforest_bridges(block, scratch, skipped, np.zeros(n, np.uint8), [0, lo, hi, n])
        rows = np.arange(lo, hi)[skipped]
        assert (giant >= 0) == (rows.size > 0) and not np.isin(rows, v).any()  # left out, all in giant's tree
        rows = rows[rows != giant]
        v, root = np.r_[v, rows], np.r_[root, np.full(rows.size, giant)]
    assert (scratch == np.arange(n)).all() and plain[0].size > 50
    np.testing.assert_array_equal(_trees(n, v, root), _trees(n, *plain))  # the same trees,
    tree = _trees(n, v, root)
    first_row = {t: m for m, t in sorted(zip(range(lo, hi), tree[lo:hi]), reverse=True)}
    assert all(r == first_row[t] for r, t in zip(root, tree[v]))  # each rooted at its smallest row
    assert np.isin(np.r_[plain[0], plain[1]], np.r_[v, root]).all() and np.unique(v).size == v.size


def test_afforest_links_a_later_rank_s_rows_to_their_first_neighbours_in_its_range():
    # the last rank of three: its rows' smallest heads are mostly ghosts, which Afforest's first
    # links pass over to reach the rank's own; most rows then join the sampled tree and skip
    from types import SimpleNamespace

    n, lo = 3000, 2000
    a, b, _ = _random(n, 30000, 5)
    a, b = np.r_[a, b], np.r_[b, a]
    own = a >= lo
    indptr, indices, _ = kernels.build_csr(a[own] - lo, b[own], n - lo, dedup=True)
    block = SimpleNamespace(lo=lo, hi=n, indptr=indptr, indices=indices.astype(np.int32), space_key=None)
    with kernels.using("numba"):
        skipped = kernels.afforest_rows(block, np.arange(n, dtype=np.int32))
    assert skipped.mean() > 0.9


def _joined(n, forest, members):
    """``forest``'s pairs with ``members`` joined into one tree (the rows that skipped are one)."""
    v, root = forest
    return kernels.spanning_forest(np.r_[v, members[:-1]], np.r_[root, members[1:]], np.arange(n, dtype=np.int64))


def test_engines_agree_exactly():
    rows, cols, w = _random(200, 2000, 7)
    out = {}
    for e in kernels.ENGINES:
        with kernels.using(e):
            csr = kernels.build_csr(rows, cols, 200, weights=w)
            forest = kernels.spanning_forest(rows, cols, np.arange(200, dtype=np.int64))
            order = np.lexsort((forest[1], forest[0]))
            out[e] = (csr, (forest[0][order], forest[1][order]))
    for x, y in zip(out["numba"][0], out["numpy"][0]):
        np.testing.assert_array_equal(x, y)
    for x, y in zip(out["numba"][1], out["numpy"][1]):
        np.testing.assert_array_equal(x, y)


def test_bad_engine_is_named():
    from dgraph.errors import DgraphInputError

    with pytest.raises(DgraphInputError, match="kernel engine"):
        kernels.set_engine("opencl")


def test_wcc_slots_become_placed_ids_of_any_width():
    """A rank's slots fit int32 sooner than the graph's ids: then the ids come in int64."""
    from dgraph.algorithms.connected_components import _slots_to_ids

    space = np.array([5, 2**31 + 7, 2**33], np.int64)
    slots = np.array([2, 0, 1], np.int32)
    wide = _slots_to_ids(space, slots.copy(), 2**34)
    assert wide.dtype == np.int64 and wide.tolist() == [2**33, 5, 2**31 + 7]
    small = np.array([3, 9, 4], np.int64)
    assert _slots_to_ids(small, slots, 10) is slots and slots.tolist() == [4, 3, 9]  # in place


def test_component_interface_engines_agree_and_components_are_right():
    """Two ranks' forests summarised by component_interface and merged give scipy's components."""
    n, half = 400, 200
    rng = np.random.default_rng(9)
    u, w = rng.integers(0, n, 300), rng.integers(0, n, 300)
    u, w = np.r_[u, w], np.r_[w, u]  # symmetric, as an undirected graph is stored
    key = rng.permutation(n)
    _, ref = connected_components(sp.coo_matrix((np.ones(u.size), (u, w)), shape=(n, n)), directed=False)
    results = {}
    for e in kernels.ENGINES:
        with kernels.using(e):
            parent = np.arange(n, dtype=np.int64)
            scratch = (np.zeros(n, np.uint8), np.zeros(n, np.uint8), np.full(n, -1, np.int64), np.full(n, -1, np.int64))
            pairs, local = [], []
            for lo, hi in ((0, half), (half, n)):
                m = (u >= lo) & (u < hi)
                v, root = kernels.spanning_forest(u[m], w[m], parent)
                (gx, ga), (anchors, best), own = kernels.component_interface(v, root, lo, hi, key, scratch)
                assert np.unique(anchors).size == anchors.size  # each interface tree once
                pairs.append((np.r_[gx, best], np.r_[ga, anchors]))
                local.append(own)
            assert (scratch[0] == 0).all() and (scratch[2] == -1).all()  # scratch left clean
            # a ghost's owner links it to its target there (what the merge fetches); each tree's
            # smallest-key member is linked to its anchor, and every owned member to its target
            x = np.concatenate([p[0] for p in pairs] + [o[0] for o in local])
            y = np.concatenate([p[1] for p in pairs] + [o[1] for o in local])
            mv, mroot = kernels.spanning_forest(x, y, parent)
            final = np.arange(n)
            final[mv] = mroot
            members = np.unique(np.r_[mv, mroot])
            rep = {}
            for t in np.unique(final[members]):
                group = members[final[members] == t]
                rep[t] = group[np.argmin(key[group])]
            comp = np.arange(n)
            for owned, target in local:
                comp[owned] = [rep.get(final[t], t) for t in target]
            results[e] = (comp, {(int(a), int(b)) for p in pairs for a, b in zip(*p)})
            for c in np.unique(ref):
                group = np.flatnonzero(ref == c)
                assert (comp[group] == group[np.argmin(key[group])]).all() or group.size == 1
    np.testing.assert_array_equal(results["numba"][0], results["numpy"][0])
    assert results["numba"][1] == results["numpy"][1]


@pytest.mark.parametrize("merge", ["min", "max", "sum", "first"])
def test_merge_by_id_engines_agree(merge):
    rng = np.random.default_rng(11)
    n = 60
    ids = rng.integers(0, n, 500)
    tails = rng.integers(0, n, 500)
    for vals in (rng.integers(0, 5, 500).astype(float) / 2, rng.integers(0, 5, 500)):
        out = {}
        for e in kernels.ENGINES:
            with kernels.using(e):
                scratch = (np.zeros(n), np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, dtype=bool))
                out[e] = kernels.merge_by_id(ids, vals, tails, merge, scratch)
                assert not scratch[3].any()
        for x, y in zip(out["numba"], out["numpy"]):
            np.testing.assert_array_equal(x, y)
            assert x.dtype == y.dtype


@pytest.mark.parametrize("delta", [0.3, 0.8])  # light arcs a few (copied out) or most (kept in place)
def test_light_rows_keep_rows_and_order_on_both_engines(delta):
    rows, cols, w = _random(50, 600, 3)
    rows[:20] = cols[:20]  # some self-loops
    indptr, indices, weights = kernels.build_csr(rows, cols, 50, weights=w, dedup=False)
    ids = np.arange(50) + 100
    indices = indices + 100
    out = {}
    for e in kernels.ENGINES:
        with kernels.using(e):
            out[e] = kernels.light_rows(kernels.LocalCSR(indptr, indices, weights), delta, ids)
    for x, y in zip(out["numba"], out["numpy"]):
        np.testing.assert_array_equal(x, y)
    lp, li, lw, loops = out["numba"]
    assert (lw < delta).all() and lp[-1] == np.count_nonzero(weights < delta) == li.size
    for r in range(50):  # each row's light arcs, in their order
        row = slice(indptr[r], indptr[r + 1])
        np.testing.assert_array_equal(li[lp[r] : lp[r + 1]], indices[row][weights[row] < delta])
    self_loops = np.repeat(ids, np.diff(indptr)) == indices
    assert loops == np.count_nonzero(self_loops & (weights < delta)) > 0


def test_rows_leaving_engines_agree_with_a_row_by_row_check():
    rows, cols, _ = _random(80, 400, 5)
    indptr, indices, _ = kernels.build_csr(rows, cols, 80)
    indices = indices + 20  # rows are vertices 20..99; heads reach 20..99 and beyond
    out = {}
    for e in kernels.ENGINES:
        with kernels.using(e):
            out[e] = kernels.rows_leaving(indptr, indices, 30, 90)
    want = [
        bool(((indices[indptr[r] : indptr[r + 1]] < 30) | (indices[indptr[r] : indptr[r + 1]] >= 90)).any())
        for r in range(80)
    ]
    np.testing.assert_array_equal(out["numba"], want)
    np.testing.assert_array_equal(out["numpy"], want)
    assert 0 < sum(want) < 80


@pytest.mark.parametrize("ties", [False, True])
def test_improve_engines_agree(ties):
    # offers to distinct heads, some better, some tied (from smaller and larger tails), some worse
    rng = np.random.default_rng(5)
    n = 80
    dist0 = rng.integers(0, 4, n).astype(float)
    dist0[rng.random(n) < 0.2] = np.inf
    pred0 = np.where(np.isfinite(dist0), rng.integers(0, n, n), -1)
    pending0 = rng.random(n) < 0.3
    ids = rng.permutation(n)[:50]
    d, tails = rng.integers(0, 4, 50).astype(float), rng.integers(0, n, 50)
    out = {}
    for e in kernels.ENGINES:
        with kernels.using(e):
            dist, pred, pending = dist0.copy(), pred0.copy(), pending0.copy()
            queued = kernels.improve(ids, d, tails, dist, pred, pending, ties)
            out[e] = (np.sort(queued), dist, pred, pending)
    for x, y in zip(out["numba"], out["numpy"]):
        np.testing.assert_array_equal(x, y)
    queued, dist, pred, pending = out["numba"]
    better = d < dist0[ids]
    np.testing.assert_array_equal(queued, np.sort(ids[better & ~pending0[ids]]))
    np.testing.assert_array_equal(dist[ids], np.minimum(d, dist0[ids]))
    assert ties == (pred != pred0)[ids[d == dist0[ids]]].any()  # some ties move a predecessor only with ties


@pytest.mark.parametrize("merge", ["min", "max", "first"])
@pytest.mark.parametrize("add", [False, True])
@pytest.mark.parametrize("window", [None, (0.5, 1.5)])
def test_fused_push_equals_arcs_then_f_then_merge(merge, add, window):
    rng = np.random.default_rng(12)
    n = 80
    rows, cols = rng.integers(0, n, 600), rng.integers(0, n, 600)
    indptr, indices, weights = kernels.build_csr(rows, cols, n, weights=rng.integers(0, 4, 600) / 2, dedup=False)
    frontier = np.unique(rng.integers(0, n, 30))
    tails = (frontier * 7 + 3) % n  # the tails offered need not be the rows
    skip = rng.random(n) < 0.2
    for tvals in (rng.integers(0, 3, frontier.size) / 2, rng.integers(0, 3, frontier.size)):
        scratch = (np.zeros(n), np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, dtype=bool))
        *fused, examined = kernels.push_merge(
            indptr, indices, weights, frontier, tvals, tails, skip, merge, add, scratch, window=window
        )
        assert not scratch[3].any()
        pos, dst, w = kernels.frontier_arcs(indptr, indices, weights, frontier)
        assert examined == dst.size
        keep = ~skip[dst] & ((w >= window[0]) & (w < window[1]) if window else True)
        pos, dst, w = pos[keep], dst[keep], w[keep]
        vals = tvals[pos] + w if add else tvals[pos]
        ref = kernels.merge_by_id(dst, vals, tails[pos], merge, scratch)
        for x, y in zip(fused, ref):
            np.testing.assert_array_equal(x, y)
            assert x.dtype == y.dtype


def test_label_mode_and_neighbour_sets_engines_agree_on_short_and_long_rows():
    # rows of 0 to 300 neighbours: the numba kernels sort short rows by insertion, long ones by
    # quicksort, and count labels in a scratch array; ties go to the smaller label
    from types import SimpleNamespace

    rng = np.random.default_rng(5)
    n = 400
    deg = rng.choice([0, 1, 2, 3, 20, 70, 300], size=n)
    indptr = np.r_[0, np.cumsum(deg)].astype(np.int64)
    indices = rng.integers(0, n, indptr[-1]).astype(np.int64)
    a = SimpleNamespace(indptr=indptr, indices=indices, nlocal=n)
    b = SimpleNamespace(indptr=indptr[::-1].max() - indptr[::-1], indices=indices[::-1].copy(), nlocal=n)
    labels = rng.integers(0, 40, n).astype(np.int64)  # few labels: many ties
    own = np.arange(n, dtype=np.int64)
    out = {}
    for e in kernels.ENGINES:
        with kernels.using(e):
            out[e] = (
                kernels.label_mode(a, None, labels, own.copy()),
                kernels.label_mode(a, b, labels, own.copy()),
                *kernels.neighbour_sets(a, b, 0),
            )
    for x, y in zip(out["numba"], out["numpy"]):
        np.testing.assert_array_equal(x, y)
    assert (out["numba"][0][deg == 0] == own[deg == 0]).all()


def test_brandes_matches_networkx_on_both_engines(engine):
    # a directed random graph with duplicate arcs and self-loops, from several sources at once
    import networkx as nx

    rows, cols, _ = _random(300, 900, seed=8)
    indptr, indices, _ = kernels.build_csr(rows, cols, 300, dedup=True)
    G = nx.DiGraph()
    G.add_nodes_from(range(300))
    G.add_edges_from((u, v) for u, v in zip(rows, cols) if u != v)
    sources = [0, 7, 42, 299]
    ref = nx.betweenness_centrality_subset(G, sources, list(G), normalized=False)
    bc = np.zeros(300)
    kernels.brandes(indptr, indices.astype(np.int32), sources, bc)
    np.testing.assert_allclose(bc, [ref[v] for v in range(300)], rtol=1e-12, atol=1e-12)


def test_row_cuts_cover_every_row_with_about_equal_arcs():
    indptr = np.r_[0, np.cumsum(np.random.default_rng(3).integers(0, 50, 1000))].astype(np.int64)
    for k in (1, 2, 3, 7):
        cuts = kernels.row_cuts(indptr, k)
        assert cuts[0] == 0 and cuts[-1] == 1000 and (np.diff(cuts) >= 0).all() and cuts.size == k + 1
        arcs = np.diff(indptr[cuts])
        assert arcs.max() - arcs.min() <= 2 * 50  # each run ends within a row of its share
    assert kernels.row_cuts(np.zeros(5, np.int64), 2).tolist() == [0, 0, 4]  # no arcs at all


@pytest.mark.parametrize("engine", ["numba", "numpy"])
def test_ordered_triangles_over_ranks_and_batches_count_every_triangle(engine):
    # three ranks, each counting at its rows' triangles' highest vertex from the rows of the heads
    # below its range, fetched in two batches; their tallies add up to every vertex's triangles
    import scipy.sparse as sp

    rng = np.random.default_rng(12)
    n = 400
    tails, heads = rng.integers(0, n, 3000), rng.integers(0, n, 3000)
    keep = tails != heads
    A = sp.coo_matrix((np.ones(keep.sum() * 2), (np.r_[tails[keep], heads[keep]], np.r_[heads[keep], tails[keep]])))
    A = (A.tocsr() > 0).astype(np.int64)
    expected = (A @ A).multiply(A).sum(axis=1).A1 // 2
    indptr, indices = A.indptr.astype(np.int64), A.indices.astype(np.int64)
    tri = np.zeros(n, np.int64)
    with kernels.using(engine):
        for lo, hi in ((0, 90), (90, 250), (250, n)):
            ptr, idx = indptr[lo : hi + 1] - indptr[lo], indices[indptr[lo] : indptr[hi]]
            below = np.arange(lo, dtype=np.int64)
            for i, batch in enumerate((below[: lo // 2], below[lo // 2 :])):
                rows = np.concatenate([indices[indptr[v] : indptr[v + 1]] for v in batch] + [indices[:0]])
                ghosts = (batch, np.r_[0, np.cumsum(np.diff(indptr)[batch])].astype(np.int64), rows)
                kernels.ordered_triangles(ptr, idx, lo, ghosts, tri, own_heads=i == 0)
    assert expected.sum() > 0
    np.testing.assert_array_equal(tri, expected)


def test_parallel_kernels_give_the_serial_results(monkeypatch):
    # skewed rows (a few hubs), ghost rows outside the rank's range, few labels (many ties); the
    # grains are lowered so that these small rows are split between two threads
    from types import SimpleNamespace

    with kernels.using("numba", threads=2):
        if kernels.threads() < 2:
            pytest.skip("numba has no thread-safe threading layer (omp or tbb) on this machine")
    from dgraph.kernels import counting, levels, linalg, unionfind

    monkeypatch.setattr(levels, "PULL_GRAIN", 1)
    monkeypatch.setattr(levels, "PULL_CHUNK", 8)  # many chunks, each a byte of the frontier's bits
    monkeypatch.setattr(linalg, "SPMV_GRAIN", 1)
    monkeypatch.setattr(linalg, "VERTEX_GRAIN", 1)
    monkeypatch.setattr(counting, "COUNT_GRAIN", 1)
    monkeypatch.setattr(counting, "TRIANGLE_GRAIN", 1)
    monkeypatch.setattr(unionfind, "FOREST_GRAIN", 1)
    rng = np.random.default_rng(9)
    n, lo, hi = 600, 100, 500
    tails = np.minimum(rng.zipf(1.6, 6000) - 1, n - 1)
    heads = rng.integers(0, n, 6000)
    rows, cols = np.r_[tails, heads], np.r_[heads, tails]  # symmetric
    indptr, indices, _ = kernels.build_csr(rows, cols, n)
    mine = slice(lo, hi + 1)
    own = SimpleNamespace(
        indptr=indptr[mine] - indptr[lo], indices=indices[indptr[lo] : indptr[hi]], lo=lo, nlocal=hi - lo
    )
    other = SimpleNamespace(indptr=own.indptr, indices=own.indices[::-1].copy(), nlocal=hi - lo)
    labels = rng.integers(0, 30, n).astype(np.int64)
    x, w = rng.uniform(size=n), rng.uniform(size=own.indices.size)
    slots = rng.permutation(n)
    degree = np.diff(indptr)
    ptr, idx = kernels.neighbour_sets(own, None, lo)
    up_all = kernels.orient_rows(
        *kernels.neighbour_sets(SimpleNamespace(indptr=indptr, indices=indices, nlocal=n), None, 0), degree, 0
    )
    ghost_ids = np.r_[0:lo, hi:n].astype(np.int64)
    g_counts = np.diff(up_all[0])[ghost_ids]
    ghosts_up = (
        ghost_ids,
        np.r_[0, np.cumsum(g_counts)].astype(np.int64),
        np.concatenate([up_all[1][up_all[0][v] : up_all[0][v + 1]] for v in ghost_ids]).astype(np.int64),
    )
    ghosts_all = (
        ghost_ids,
        np.r_[0, np.cumsum(degree[ghost_ids])].astype(np.int64),
        np.concatenate([indices[indptr[v] : indptr[v + 1]] for v in ghost_ids]).astype(np.int64),
    )
    up_ptr, up_idx = kernels.orient_rows(ptr, idx, degree, lo)
    all_sets = kernels.neighbour_sets(SimpleNamespace(indptr=indptr, indices=indices, nlocal=n), None, 0)
    below = np.arange(lo, dtype=np.int64)
    ghosts_below = (
        below,
        all_sets[0][: lo + 1].astype(np.int64),
        all_sets[1][: all_sets[0][lo]].astype(np.int64),
    )

    # a sparse graph, whose rows' first neighbours leave most trees apart: rows outside the largest
    # tree unite their other arcs
    sparse = rng.integers(0, n, (2, 700))
    sparse = np.c_[sparse, sparse[::-1]]
    whole = SimpleNamespace(lo=0, hi=n, space_key=None)  # one rank's block
    whole.indptr, whole.indices, _ = kernels.build_csr(*sparse, n)

    def run():
        parent = np.arange(n, dtype=np.int32)
        skipped = kernels.afforest_rows(whole, parent)
        tri, by_id = np.zeros(n, np.int64), np.zeros(n, np.int64)
        kernels.oriented_triangles(up_ptr, up_idx, lo, ghosts_up, np.zeros(n, bool), tri)
        kernels.ordered_triangles(ptr, idx, lo, ghosts_below, by_id)
        pr, outw = np.full(n, 1 / n), degree.astype(np.float64)
        contrib = np.divide(pr, outw, out=np.zeros(n), where=outw > 0)
        kernels.power_iterations(
            indptr, indices, None, pr, np.full(n, 1 / n), outw, contrib, 0.85, pr[outw == 0].sum(), 20, 0.0
        )
        level, tree = np.full(n, -1), np.full(n, -1)
        pulls = kernels.bfs_levels(indptr, indices, indptr, indices, int(np.argmax(degree)), level, tree)[2]
        assigned = np.zeros(n)
        kernels.assign_at(assigned, slots, x)
        return (
            pr,
            assigned,
            level,
            tree,
            pulls,
            kernels.label_mode(own, None, labels, labels[lo:hi].copy()),
            kernels.label_mode(own, other, labels, labels[lo:hi].copy(), kernels.label_counts(n)),
            kernels.spmv(own.indptr, own.indices, None, x),
            kernels.spmv(own.indptr, own.indices, w, x),
            tri,
            kernels.neighbourhood_arcs(ptr, idx, lo, own, ghosts_all, np.zeros(n, bool)),
            by_id,
            kernels.flatten_forest(parent),  # every vertex's smallest connected id
            np.unique(parent[skipped]).size,  # the rows that skipped are in one tree
        )

    serial = run()
    with kernels.using("numba", threads=2):
        assert kernels.threads_for(own.indices.size, counting.COUNT_GRAIN) == 2
        assert kernels.threads_for(own.indices.size, counting.TRIANGLE_GRAIN) == 2
        parallel = run()
    # PageRank's step adds the dangling mass in each thread's order: the same to rounding
    np.testing.assert_allclose(parallel[0], serial[0], rtol=1e-12)
    for s, p in zip(serial[1:], parallel[1:]):
        np.testing.assert_array_equal(s, p)  # same rows, same order within each: equal to the bit
    assert serial[4] > 0  # the search ran levels bottom-up
    assert serial[9].sum() > 0 and serial[10].sum() > 0 and serial[11].sum() > 0  # there were triangles to count
    # Brandes' sources shared between threads: each thread's sums added in thread order, so the
    # same to rounding
    monkeypatch.setattr(importlib.import_module("dgraph.kernels.brandes"), "BRANDES_GRAIN", 1)
    sums = []
    for threads in (1, 2):
        bc = np.zeros(n)
        with kernels.using("numba", threads=threads):
            kernels.brandes(indptr, indices, np.arange(0, n, 7), bc)
        sums.append(bc)
    np.testing.assert_allclose(sums[1], sums[0], rtol=1e-12)
    assert sums[0].max() > 0
    count, label = connected_components(sp.coo_matrix((np.ones(sparse.shape[1]), tuple(sparse)), shape=(n, n)))
    smallest = np.full(count, n)
    np.minimum.at(smallest, label, np.arange(n))
    np.testing.assert_array_equal(serial[12], smallest[label])
    assert serial[13] == 1 and count > 3


def test_pagerank_step_values_match_the_formula_to_the_bit():
    """The numba step may reassociate its two sums (so it vectorizes); each vertex's rank and
    contribution must still be exactly the formula's, as numpy computes it element by element."""
    rng = np.random.default_rng(21)
    n = 100_003  # not a multiple of any vector width
    pulled, p = rng.random(n) / n, rng.random(n) / n
    outw = rng.integers(0, 4, n) * rng.random(n)  # a quarter dangling, scattered
    old = rng.random(n) / n
    out = {}
    for engine in ("numba", "numpy"):
        pr, contrib = old.copy(), np.full(n, np.nan)
        with kernels.using(engine):
            sums = kernels.pagerank_step(pulled, pr, p, outw, 0.85, 0.37, contrib)
        out[engine] = pr, contrib, sums
    np.testing.assert_array_equal(out["numba"][0], out["numpy"][0])
    np.testing.assert_array_equal(out["numba"][1], out["numpy"][1])
    np.testing.assert_allclose(out["numba"][2], out["numpy"][2], rtol=1e-12)
    assert (out["numba"][1][outw == 0] == 0).all() and out["numba"][2][1] > 0


@pytest.mark.parametrize("weighted, keyed, dedup", [(False, False, True), (True, False, True), (False, True, False)])
def test_rows_sort_the_same_on_two_threads(monkeypatch, weighted, keyed, dedup):
    """``order_rows`` on two threads sorts each row as one thread does, and compacts the kept
    arcs to the same CSR (rows of every length, repeats, hubs)."""
    csr = importlib.import_module("dgraph.kernels.csr")
    monkeypatch.setattr(csr, "ORDER_GRAIN", 1)
    rng = np.random.default_rng(5)
    degree = np.r_[rng.integers(0, 6, 3000), 400, 0, 1, 2000]
    indptr = np.r_[0, np.cumsum(degree)]
    idx = rng.integers(0, 800, indptr[-1]).astype(np.int32)
    w = rng.integers(0, 3, idx.size).astype(np.float64) if weighted else np.empty(0)
    key = rng.permutation(800) if keyed else None
    out = []
    for threads in (1, 2):
        i, ww = idx.copy(), w.copy()
        with kernels.using("numba", threads=threads):
            assert kernels.threads_for(idx.size, csr.ORDER_GRAIN) == threads
            ptr, kept = kernels.order_rows(indptr, i, ww, key, dedup)
        out.append((ptr, i[:kept], ww[:kept] if weighted else ww))
    i, ww = idx.copy(), w.copy()
    with kernels.using("numpy"):
        ptr, kept = kernels.order_rows(indptr, i, ww, key, dedup)
    out.append((ptr, i[:kept], ww[:kept] if weighted else ww))
    for other in out[1:]:
        for a, b in zip(out[0], other):
            np.testing.assert_array_equal(a, b)
    assert out[0][0][-1] < indptr[-1] if dedup else out[0][0][-1] == indptr[-1]
