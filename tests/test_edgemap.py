"""The edge map on every layout: push, pull and auto give the same merged results as a plain
pandas reference, for every merge, with and without skip_dst."""

import sys

import cloudpickle
import numpy as np
import pandas as pd
import pytest
from graphs import kron_edges

import dgraph
from dgraph.edgemap import EdgeMap, VertexSubset, add_weight
from dgraph.partitioners import OneD, OnePointFiveD, TwoD

cloudpickle.register_pickle_by_value(sys.modules[__name__])

MERGES = ["min", "max", "sum", "first", np.maximum]


def _value(v):
    return (v * 7919) % 101  # a vertex's value, from its placed id


def edge_map_kernel(ctx, active, merge, direction, filtered, bounds, layout, offer="mixed"):
    em = EdgeMap(ctx, bounds, layout=layout)
    frontier, values = {}, {}
    for r in ctx.ranks:
        own = np.arange(em.lo(r), em.lo(r) + em.size(r))
        ids = np.flatnonzero(active[own])
        frontier[r] = VertexSubset(em.size(r), mask=active[own]) if r % 2 else ids
        values[r] = _value(own[ids]).astype(np.float64)
    skip = em.marks() if filtered else None  # every third placed id, flagged over each rank's spaces
    for r in ctx.ranks if filtered else ():
        skip.mark(r, [np.arange(0, em.n, 3)])
    merged, total = em(
        frontier,
        values,
        {"mixed": lambda s, d, w, x: x + (d % 5), "path": add_weight, "carry": None}[offer],  # (fused pulls)
        merge,
        total={r: [1] for r in ctx.ranks},
        skip_dst=skip,
        direction=direction,
    )
    out = {}
    for r in ctx.ranks:
        ids, vals, tails = merged[r]
        got = np.full(em.size(r), np.nan)
        tail = np.full(em.size(r), -1, np.int64)
        got[ids], tail[ids] = vals, em.placed(tails)
        out[r] = {"value": got, "tail": tail, "ranks": np.full(em.size(r), int(total[0]))}
    return out


def _reference(edges, active, merge, filtered, canonical, offer="mixed"):
    """Per head (placed id): the merged value and winning tail, from the arcs out of active tails."""
    e = edges[active[edges.src.to_numpy()]].copy()
    if filtered:
        e = e[e.dst % 3 != 0]
    e["value"] = _value(e.src) + {"mixed": e.dst % 5, "path": 1.0, "carry": 0.0}[offer]
    e["key"] = canonical[e.src.to_numpy()]
    if merge in ("min", "max"):
        e = e.sort_values(["dst", "value", "key"], ascending=[True, merge == "min", True])
        return e.groupby("dst").first()[["value", "src"]]
    if merge == "first":
        return e.sort_values(["dst", "key"]).groupby("dst").first()[["value", "src"]]
    agg = "sum" if merge == "sum" else "max"
    return e.groupby("dst").agg(value=("value", agg))


def _placed_arcs(g, edges):
    """The graph's arcs in placed ids, and the canonical id of each placed id (to build the
    reference in placed ids)."""
    n = g.num_vertices
    order = g.store.order.result() if g.store.order is not None else np.arange(n)
    placed = np.empty(n, np.int64)
    placed[order] = np.arange(n)
    labels = g.labels.index.result() if g.labels.index is not None else np.arange(n)
    lab = pd.Series(np.arange(n), index=labels)
    arcs = pd.DataFrame({"src": placed[lab[edges.src].to_numpy()], "dst": placed[lab[edges.dst].to_numpy()]})
    return arcs.drop_duplicates(), order


@pytest.mark.parametrize(
    "layout",
    [
        OneD(ranks=3),
        OneD(ranks=4, balance="hashed"),
        TwoD(rows=2, cols=3),
        OnePointFiveD(rows=2, cols=3, e_threshold=30, h_threshold=8),
    ],
    ids=repr,
)
def test_push_pull_and_auto_agree_with_reference(client, layout):
    edges = kron_edges(8, seed=4)
    g = dgraph.from_edgelist(edges, directed=True, layout=layout)
    arcs, order = _placed_arcs(g, edges)
    active = np.random.default_rng(5).random(g.num_vertices) < 0.3
    for merge, offer in [(m, "mixed") for m in MERGES] + [("min", "path"), ("sum", "carry")]:
        for filtered in (False, True):
            ref = _reference(arcs, active, merge, filtered, order, offer)
            for direction in ("push", "pull", "auto") if offer == "mixed" else ("pull",):  # (fused pulls)
                results, _ = g.run(
                    edge_map_kernel,
                    reverse=True,
                    placement="layout",
                    active=active,
                    merge=merge,
                    direction=direction,
                    filtered=filtered,
                    offer=offer,
                )
                got = pd.concat([pd.DataFrame(r) for r in results.gather()], ignore_index=True)
                assert (got["ranks"] == g.nranks).all()  # the total rode along
                hit = got[got.value.notna()]
                assert hit.index.tolist() == ref.index.tolist(), (merge, direction)
                np.testing.assert_allclose(hit.value.to_numpy(), ref.value.to_numpy(), rtol=1e-12)
                if "src" in ref:
                    assert hit["tail"].tolist() == ref["src"].tolist(), (merge, direction)


def valueless_pull_kernel(ctx, active, bounds, layout):
    """A BFS-style pull (no values, merge "first"): the winning tails; whether ``mark_seen``
    marks exactly the frontier over each rank's spaces; whether some peer's bitmap stayed a mask."""
    em = EdgeMap(ctx, bounds, layout=layout)
    frontier = {r: np.flatnonzero(active[em.lo(r) : em.lo(r) + em.size(r)]) for r in ctx.ranks}
    merged, _ = em(frontier, None, None, "first", direction="pull")
    seen = em.marks()
    em.mark_seen(seen)
    masks = any(isinstance(part, tuple) for parts in em.seen.values() for part in parts)
    out = {}
    for r in ctx.ranks:
        ids, _, tails = merged[r]
        tail = np.full(em.size(r), -1, np.int64)
        tail[ids] = em.placed(tails)
        exact = all(np.array_equal(seen.of(r, space), active[space]) for space in em.spaces(r))
        flags = np.full(em.size(r), exact), np.full(em.size(r), masks)
        out[r] = {"tail": tail, "seen_all": flags[0], "masks": flags[1]}
    return out


@pytest.mark.parametrize("layout", [OneD(ranks=3), TwoD(rows=2, cols=2)], ids=repr)
def test_a_valueless_pull_marks_the_frontier_from_bitmaps(client, layout):
    edges = kron_edges(8, seed=4)
    g = dgraph.from_edgelist(edges, directed=True, layout=layout)
    arcs, order = _placed_arcs(g, edges)
    active = np.random.default_rng(6).random(g.num_vertices) < 0.3  # dense: peers send bitmaps
    ref = _reference(arcs, active, "first", False, order)
    results, _ = g.run(valueless_pull_kernel, reverse=True, placement="layout", active=active)
    got = pd.concat([pd.DataFrame(r) for r in results.gather()], ignore_index=True)
    hit = got[got["tail"] >= 0]
    assert hit.index.tolist() == ref.index.tolist() and hit["tail"].tolist() == ref["src"].tolist()
    assert got.masks.all()
    if isinstance(layout, OneD):  # every rank's whole frontier reaches every rank
        assert got.seen_all.all()


def falling_push_kernel(ctx, active, bounds, layout):
    """Pushes of add_weight with ``falling``: the first gives what a plain push gives, a second
    from the same tails with higher values gives nothing, a third with lower ones everything again;
    pulls and other merges are refused."""
    falling, plain = EdgeMap(ctx, bounds, layout=layout), EdgeMap(ctx, bounds, layout=layout)
    frontier = {r: np.flatnonzero(active[falling.lo(r) : falling.lo(r) + falling.size(r)]) for r in ctx.ranks}
    values = {r: _value(frontier[r] + falling.lo(r)).astype(np.float64) for r in ctx.ranks}
    ok = True
    for shift, expect_none in ((0, False), (1, True), (-1, False)):
        shifted = {r: values[r] + shift for r in ctx.ranks}
        got, _ = falling(frontier, shifted, add_weight, "min", direction="push", falling=True)
        ref, _ = plain(frontier, shifted, add_weight, "min", direction="push")
        for r in ctx.ranks:
            if expect_none:
                ok &= got[r][0].size == 0 and ref[r][0].size > 0
            else:
                ok &= all(np.array_equal(a, b) for a, b in zip(got[r], ref[r]))
    for merge, direction in (("max", "push"), ("min", "pull")):
        try:
            falling(frontier, values, add_weight, merge, direction=direction, falling=True)
            ok = False
        except ValueError as e:
            ok &= "falling" in str(e)
    return {r: {"ok": np.full(falling.size(r), ok)} for r in ctx.ranks}


@pytest.mark.parametrize("layout", [OneD(ranks=3), TwoD(rows=2, cols=2)], ids=repr)
def test_a_falling_push_drops_offers_above_earlier_ones(client, layout):
    edges = kron_edges(8, seed=4).assign(w=lambda e: 1.0 + e.src % 7)
    g = dgraph.from_edgelist(edges, directed=True, layout=layout, weight="w")
    active = np.random.default_rng(7).random(g.num_vertices) < 0.3
    results, _ = g.run(falling_push_kernel, reverse=True, placement="layout", active=active)
    assert pd.concat([pd.DataFrame(r) for r in results.gather()]).ok.all()


def test_vertex_subset_converts_both_ways():
    s = VertexSubset(10, mask=np.arange(10) % 4 == 1)
    assert s.ids.tolist() == [1, 5, 9] and len(s) == 3
    t = VertexSubset(10, ids=[0, 7])
    assert np.flatnonzero(t.mask).tolist() == [0, 7] and len(t) == 2


def test_bad_merge_and_direction_are_named(client):
    g = dgraph.from_edgelist(kron_edges(5, seed=1), directed=True)
    active = np.ones(g.num_vertices, dtype=bool)
    for merge, direction, word in (("median", "push", "merge"), ("min", "sideways", "direction")):
        with pytest.raises(dgraph.DgraphRunError, match=word):
            g.run(
                edge_map_kernel,
                reverse=True,
                placement="layout",
                active=active,
                merge=merge,
                direction=direction,
                filtered=False,
            )


def test_space_slots_reads_a_whole_stretch_by_offset_and_searches_otherwise():
    from dgraph.block import CONTIGUOUS_CHECK, space_slots

    rng = np.random.default_rng(3)
    space = np.unique(np.r_[np.arange(5000, 9000), rng.integers(0, 20000, 3000)])  # a whole stretch among gaps
    for ids in (
        rng.integers(5000, 9000, CONTIGUOUS_CHECK * 2),  # inside the stretch: offsets
        rng.integers(0, 20000, CONTIGUOUS_CHECK * 2),  # across gaps, some not in the space
        np.array([5000, 8999]),
    ):
        slots, inside = space_slots(space, ids)
        expected = np.isin(ids, space)
        np.testing.assert_array_equal(inside, expected)
        np.testing.assert_array_equal(space[slots[inside]], ids[inside])
