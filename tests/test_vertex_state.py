"""Vertex state shrinks as ranks join: a rank's vertex space is its own vertices and the ghosts
its arcs read, and what every algorithm holds per vertex on a worker is counted over those
spaces, not over the graph's n vertices."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from conftest import wait_until
from graphs import grid_edges
from scipy.sparse.csgraph import connected_components

import dgraph
from dgraph import algorithms as alg
from dgraph.block import Block, block_arcs, vertex_space
from dgraph.partitioners import OneD, TwoD


def _facts(block):
    rows, cols, _ = block_arcs(block)
    return block.space, rows, cols, block.lo, block.hi


def test_a_block_indexes_its_space_and_keeps_its_arcs(client):
    edges = grid_edges(30, 40)
    g = dgraph.from_edgelist(edges, directed=False, renumber=False, layout=OneD(ranks=4))
    both = pd.concat([edges, edges.rename(columns={"src": "dst", "dst": "src"})], ignore_index=True)
    for r, (space, rows, cols, lo, hi) in enumerate(client.gather([client.submit(_facts, b) for b in g.store.blocks])):
        mine = both[(both.src >= lo) & (both.src < hi)]
        expect = np.union1d(np.arange(lo, hi), mine.dst.to_numpy())
        np.testing.assert_array_equal(space, expect)  # own vertices and the ghosts their arcs read
        assert space.size < 0.4 * g.num_vertices  # a quarter of the grid and a row of ghosts each side
        got = pd.DataFrame({"src": rows, "dst": cols}).sort_values(["src", "dst"]).reset_index(drop=True)
        ref = mine[["src", "dst"]].sort_values(["src", "dst"]).reset_index(drop=True)
        pd.testing.assert_frame_equal(got, ref, check_dtype=False)


def test_a_block_made_with_placed_ids_gets_its_space():
    indptr, indices = np.array([0, 2, 3]), np.array([7, 2, 9])
    b = Block(0, 2, 4, 10, "out", indptr, indices, None, 1)
    assert b.space.tolist() == [2, 3, 7, 9] and b.indices.tolist() == [2, 0, 3]
    assert b.columns().tolist() == [7, 2, 9] and b.loop_counts().tolist() == [1, 0]
    space, local = vertex_space(10, np.array([5, 1]), ranges=[(8, 10)])
    assert space.tolist() == [1, 5, 8, 9] and local.tolist() == [1, 0]


CALLS = {
    "bfs": lambda g: alg.bfs(g, 0),
    "sssp": lambda g: alg.sssp(g, 0),
    "wcc": lambda g: alg.connected_components(g),
    "pagerank": lambda g: alg.pagerank(g, max_iter=5, tol=0),
    "cdlp": lambda g: alg.label_propagation(g, max_iter=3),
    "core": lambda g: alg.core_number(g),
    "matching": lambda g: alg.max_weight_matching(g),
}


def _space_slots(block):
    return int(block.space.size)


@pytest.mark.parametrize("layout", [OneD(ranks=4), TwoD(rows=2, cols=2)], ids=repr)
@pytest.mark.parametrize("name", sorted(CALLS))
def test_each_worker_holds_state_for_its_spaces_not_for_the_graph(client, layout, name):
    edges = grid_edges(60, 80)
    g = dgraph.from_edgelist(edges, directed=False, renumber=False, layout=layout)
    n = g.num_vertices
    CALLS[name](g).compute()
    held = g.last_stats.worker_vertex_state
    blocks = (
        g.store.owner() if name in ("wcc", "core", "matching", "cdlp") and not g.layout.owns_rows() else g.store.blocks
    )
    who = client.who_has(blocks)
    slots = {}
    for b, size in zip(blocks, client.gather([client.submit(_space_slots, b) for b in blocks])):
        worker = who[b.key][0]
        slots[worker] = slots.get(worker, 0) + size
    assert set(held) == set(slots)
    for worker, nbytes in held.items():
        assert 0 < nbytes <= 72 * slots[worker], (name, worker, nbytes, slots[worker])
    if isinstance(layout, OneD):  # a grid numbered by rows: two ranks of four and their ghosts per worker
        assert max(slots.values()) < 0.6 * n
        assert max(held.values()) < 25 * n  # the merge scratch alone of an n-long edge map


def test_components_across_ranks_merge_in_log_rounds_not_diameter(client):
    # a path dealt over a 2 x 2 mesh at random: almost every arc crosses ranks, so the merge
    # works on a path of ~n anchors; FastSV still needs O(log n) rounds (label propagation: n)
    n = 4096
    order = np.random.default_rng(7).permutation(n)
    edges = pd.DataFrame({"src": order[:-1], "dst": order[1:]})
    extra = pd.DataFrame({"src": [n, n + 2], "dst": [n + 1, n + 3]})  # two more components
    g = dgraph.from_edgelist(pd.concat([edges, extra]), directed=False, layout=TwoD(rows=2, cols=2))
    cc = alg.connected_components(g).compute().set_index("vertex").component
    assert g.last_stats.info["pair_rounds"] <= 2 * np.log2(n)
    assert (cc.loc[np.arange(n)] == 0).all()  # the smallest label names a component
    assert cc.loc[[n, n + 1]].tolist() == [n, n] and cc.loc[[n + 2, n + 3]].tolist() == [n + 2, n + 2]


@pytest.mark.parametrize("ranks", [2, 5])
def test_components_when_cut_arcs_are_united_at_one_end(client, ranks):
    # dense blocks of vertices, one per rank, so each rank's rows mostly sit in one largest tree
    # and skip their arcs (Afforest); the blocks meet by a few arcs between those trees, and
    # pendant paths, stars and pairs hang off them across ranks, so many cut arcs are united only
    # at their end outside the largest tree
    rng = np.random.default_rng(ranks)
    n, per = 3000, 3000 // ranks
    block = rng.integers(0, per, (4 * n, 2)) + per * rng.integers(0, ranks, 4 * n)[:, None]
    joins = rng.integers(0, n - n % ranks, (ranks, 2))
    hang = np.arange(n, n + 400)
    pendant = np.c_[hang, np.where(hang % 3 == 0, rng.integers(0, n, hang.size), hang + 1)]  # paths and stars
    pairs = np.c_[np.arange(n + 500, n + 600, 2), np.arange(n + 501, n + 601, 2)]  # components of their own
    arcs = np.vstack([block, joins, pendant[:-1], pairs])
    edges = pd.DataFrame({"src": arcs[:, 0], "dst": arcs[:, 1]})
    vertices = np.arange(n + 601)
    m = vertices.size
    _, ref = connected_components(sp.coo_matrix((np.ones(len(arcs)), (arcs[:, 0], arcs[:, 1])), shape=(m, m)))
    for order in ("labels", "degree"):
        g = dgraph.from_edgelist(edges, directed=False, vertices=vertices, ranks=ranks, vertex_order=order)
        cc = alg.connected_components(g).compute().set_index("vertex").component.sort_index()
        assert (ref[cc.to_numpy()] == ref).all()  # each vertex named by a member of its component
        assert pd.crosstab(cc.to_numpy(), ref).astype(bool).sum(axis=1).max() == 1  # no two components merged
        assert cc.nunique() == np.unique(ref).size  # none split


def _label_holdings(n, dtype, dask_worker):
    """How many n-long arrays of labels this worker holds: its data and its runs' fetched params."""
    plugin = dask_worker.plugins["dgraph-exchange"]
    held = [*dask_worker.data.values(), *plugin.fetched.values()]
    return sum(isinstance(v, (pd.Index, np.ndarray)) and len(v) == n and v.dtype == dtype for v in held)


def _fetched_tables(n, dask_worker):
    """How many n-long arrays the runs on this worker fetched as params."""
    fetched = dask_worker.plugins["dgraph-exchange"].fetched.values()
    return sum(isinstance(v, np.ndarray) and len(v) == n for v in fetched)


@pytest.mark.parametrize("layout", [TwoD(rows=2, cols=2), OneD(ranks=4, balance="hashed")], ids=repr)
def test_runs_on_a_reordering_placement_fetch_no_table_of_every_vertex(client, layout):
    """Ties break by canonical id on every layout, through keyed ids (the canonical id above the
    placed id), so no run brings the placed-to-canonical order to its workers."""
    edges = grid_edges(20, 30)
    edges["w"] = (edges.src * 7 + edges.dst) % 4 + 1.0
    g = dgraph.from_edgelist(edges, directed=False, weight="w", layout=layout)
    ref = dgraph.from_edgelist(edges, directed=False, weight="w", layout=OneD(ranks=1))
    assert g.store.order is not None  # the placement reorders vertices
    key = g.store.order.key  # construction's copies of the order go (dask's active memory manager)
    wait_until(lambda: len(client.who_has([g.store.order])[key]) == 1, 30, "one copy of the vertex order")
    calls = {
        "bfs": lambda h: alg.bfs(h, 0),
        "sssp": lambda h: alg.sssp(h, 0, weight="w"),
        "wcc": alg.connected_components,
        "cdlp": lambda h: alg.label_propagation(h, max_iter=4),
        "matching": lambda h: alg.max_weight_matching(h, weight="w"),
        "paths": lambda h: alg.shortest_paths(h, [0, 599], weight="w"),
    }
    for name, call in calls.items():
        got, want = (call(h).compute() for h in (g, ref))
        by = list(got.columns[:2])
        got, want = (f.sort_values(by, ignore_index=True) for f in (got, want))
        pd.testing.assert_frame_equal(got, want, obj=name)
    assert set(client.run(_fetched_tables, g.num_vertices).values()) == {0}


@pytest.mark.parametrize("order", ["labels", "degree"])
def test_result_frames_name_vertices_without_every_label_on_every_worker(client, order):
    """Each rank keeps its own vertices' labels; a parent, component or neighbour it names is
    looked up at that vertex's owner, so only the worker that built the label index holds all."""
    import networkx as nx

    edges = grid_edges(20, 30).astype(str).map(lambda v: f"v{v}")
    g = dgraph.from_edgelist(edges, directed=False, layout=OneD(ranks=4), vertex_order=order)
    G = nx.from_pandas_edgelist(edges, "src", "dst")
    n = g.num_vertices
    bfs = alg.bfs(g, "v0").compute().set_index("vertex")
    depth = nx.single_source_shortest_path_length(G, "v0")
    assert bfs.distance.to_dict() == depth
    assert pd.isna(bfs.predecessor["v0"])
    assert all(G.has_edge(v, p) and depth[p] == depth[v] - 1 for v, p in bfs.predecessor.dropna().items())
    comp = alg.connected_components(g).compute()
    assert comp.component.nunique() == 1 and comp.component.iloc[0] in depth
    near = alg.k_hop(g, ["v0", "v599"], 2).compute()
    for seed in ("v0", "v599"):
        ball = nx.single_source_shortest_path_length(G, seed, cutoff=2)
        assert dict(zip(near.vertex[near.seed == seed], near.hops[near.seed == seed])) == ball
    arcs = g.edges().compute()
    assert set(zip(arcs.src, arcs.dst)) == set(G.edges) | {(b, a) for a, b in G.edges}
    assert set(g.degrees().compute().vertex) == set(G)
    if order == "labels":  # one label table, on one worker; the pieces are the only labels a run brings
        holdings = client.run(_label_holdings, n, g.labels.dtype)
        assert sorted(holdings.values()) == [0, 1], holdings


def test_pointer_jumping_names_roots_held_by_other_ranks(client):
    parents = {f"c{i}": f"c{i // 2}" for i in range(1, 200)}
    e = pd.DataFrame({"src": list(parents), "dst": list(parents.values())})
    g = dgraph.from_edgelist(e, directed=True, vertices=[f"c{i}" for i in range(200)], layout=OneD(ranks=4))
    roots = alg.pointer_jumping(g).compute()
    assert set(roots.root) == {"c0"} and len(roots) == 200


def _slice_kernel(ctx, bounds):
    return {r: {"value": np.asarray(ctx.blocks[r][-1]), "rank": np.full(ctx.blocks[r][-1].size, r)} for r in ctx.ranks}


@pytest.mark.parametrize("layout", [OneD(ranks=4), TwoD(rows=2, cols=2)], ids=repr)
def test_per_vertex_input_reaches_each_rank_as_its_own_slice(client, layout):
    """An input with a value per vertex (modularity's communities) is scattered to the ranks
    in slices, not broadcast: rank r reads the values of its own vertices only."""
    g = dgraph.from_edgelist(grid_edges(10, 12), directed=False, renumber=False, layout=layout)
    values = np.arange(g.num_vertices) * 3 + 1
    results, _ = g.run(_slice_kernel, per_vertex=values)
    got = pd.concat([pd.DataFrame(r) for r in results.gather()], ignore_index=True).sort_values("rank", kind="stable")
    np.testing.assert_array_equal(got.value.to_numpy(), values)  # placed order: ranks own consecutive ranges
    assert (np.bincount(got["rank"], minlength=g.nranks) == np.diff(g.bounds)).all()
