"""Random walks and neighbour sampling: every step and sample along an arc, walks ending early
only at sinks, fan-outs of min(k, degree) distinct arcs, step frequencies against the exact
first-order and node2vec transition probabilities (chi-square bounds on fixed seeds), and the
same rows on every layout for a seed."""

from collections import Counter
from itertools import combinations

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from graphs import LAYOUTS, er_edges, kron_edges
from scipy.stats import chi2

import dgraph
from dgraph import algorithms as alg
from dgraph.errors import DgraphInputError
from dgraph.partitioners import TDOrch

# one rank, reordered ids (hashed), a 2D mesh, 1.5D, TD-Orch (ranks in canonical order)
EVERY_KIND = [LAYOUTS[0], LAYOUTS[4], LAYOUTS[5], LAYOUTS[7], TDOrch(fanout=2, chunk=3, ranks=3)]
RARE = 1e-4  # a chi-square statistic this unlikely under the expected frequencies fails


def _plausible(counts, expected):
    """Whether observed ``counts`` fit ``expected`` (same keys, expected counts) by chi-square."""
    keys = sorted(expected)
    obs, exp = np.array([counts.get(k, 0) for k in keys], float), np.array([expected[k] for k in keys])
    stat = float(((obs - exp) ** 2 / exp).sum())
    return chi2.sf(stat, len(keys) - 1) > RARE, (dict(zip(keys, obs)), dict(zip(keys, exp.round(1))))


def _directed_graph():
    """A directed graph with sinks (out-degree 0), without loops or repeated arcs, weights 0..3."""
    e = er_edges(70, 160, seed=4)
    e = e[e.src != e.dst].drop_duplicates(["src", "dst"]).reset_index(drop=True)
    return e.assign(w=np.random.default_rng(2).integers(0, 4, len(e)).astype(float))


def _sorted(frame):
    return frame.sort_values(list(frame.columns)).reset_index(drop=True)


def _check_walks(w, starts, length, arcs, out_degree):
    w = w.sort_values(["walk", "step"])
    assert sorted(w.walk.unique()) == list(range(len(starts)))
    size = w.groupby("walk").size()
    steps = w.groupby("walk").step
    assert (steps.min() == 0).all() and (steps.max() == size - 1).all() and not w.duplicated(["walk", "step"]).any()
    first = w[w.step == 0].set_index("walk").vertex
    assert first.tolist() == list(starts)
    pairs = zip(w.vertex.iloc[:-1], w.vertex.iloc[1:], w.walk.iloc[:-1], w.walk.iloc[1:])
    assert all((a, b) in arcs for a, b, x, y in pairs if x == y), "a step that is no arc"
    last = w.groupby("walk").vertex.last()
    short = size[size < length + 1].index
    assert (size <= length + 1).all()
    assert all(out_degree.get(v, 0) == 0 for v in last[short]), "a walk ended early where it could go on"


def test_walks_follow_arcs_stop_only_at_sinks_and_are_the_same_on_every_layout(client):
    e = _directed_graph()
    vertices = sorted(set(e.src) | set(e.dst))
    starts = vertices + vertices[:20]
    positive = e[e.w > 0]
    runs = {"uniform": {"weight": None}, "node2vec": {"p": 0.5, "q": 2.0, "weight": None}}
    runs["weighted node2vec"] = {"p": 2.0, "q": 0.5, "weight": "w"}
    first = {}
    for layout in EVERY_KIND:
        g = dgraph.from_edgelist(e, directed=True, edge_attrs=["w"], layout=layout)
        for name, kw in runs.items():
            if name == "uniform" and first:  # the second-order runs cover its draws
                continue
            w = alg.random_walks(g, starts, 6, seed=11, **kw).compute()
            if name not in first:
                arcs = positive if kw["weight"] else e
                degree = arcs.groupby("src").size().to_dict()
                _check_walks(w, starts, 6, set(zip(arcs.src, arcs.dst)), degree)
                assert (w.groupby("walk").size() < 7).any(), "no walk reached a sink"
                first[name] = _sorted(w)
            else:
                pd.testing.assert_frame_equal(_sorted(w), first[name], obj=f"{name} on {layout!r}")
    again = alg.random_walks(g, starts, 6, seed=12, p=0.5, q=2.0, weight=None).compute()
    assert not _sorted(again).equals(first["node2vec"])
    assert g.last_stats.info["seed"] == 12 and g.last_stats.info["queries"] > 0


def test_uniform_steps_are_degree_proportional(client):
    # a non-bipartite undirected graph: a walk's position tends to degree / 2m, and one step
    # from a vertex takes each of its neighbours with probability 1 / degree
    e = kron_edges(5, seed=3, edge_factor=3)
    e = e[e.src != e.dst]
    g = dgraph.from_edgelist(e, directed=False, layout=LAYOUTS[2])
    nbrs = pd.concat([e, e.rename(columns={"src": "dst", "dst": "src"})]).drop_duplicates().groupby("src").dst
    hub = nbrs.size().idxmax()
    one = alg.random_walks(g, [hub] * 6000, 1, seed=3).compute()
    counts = one[one.step == 1].vertex.value_counts().to_dict()
    ok, seen = _plausible(counts, {v: 6000 / nbrs.size()[hub] for v in nbrs.get_group(hub)})
    assert ok, seen
    # the largest component's vertices, walked long: the last step's vertex ~ degree
    big = sorted(max(nx.connected_components(nx.Graph(zip(e.src, e.dst))), key=len))
    far = alg.random_walks(g, big * 40, 40, seed=5).compute()
    ends = far[far.step == 40].vertex.value_counts().to_dict()
    degree = nbrs.size()[big]
    ok, seen = _plausible(ends, (degree / degree.sum() * len(big) * 40).to_dict())
    assert ok, seen


def test_weighted_steps_follow_the_weights_and_skip_weight_zero(client):
    e = pd.DataFrame({"src": [0, 0, 0, 0, 1, 2, 3, 4], "dst": [1, 2, 3, 4, 0, 0, 0, 0]})
    e["w"], e["t"] = [1.0, 2.0, 3.0, 0.0, 1, 1, 1, 1], [4.0, 1.0, 1.0, 1.0, 1, 1, 1, 1]
    g = dgraph.from_edgelist(e, directed=True, weight="w", edge_attrs=["t"], layout=LAYOUTS[3])
    for weight, share in (("w", {1: 1, 2: 2, 3: 3}), ("t", {1: 4, 2: 1, 3: 1, 4: 1}), (None, {1: 1, 2: 1, 3: 1, 4: 1})):
        kw = {} if weight == "w" else {"weight": weight}  # the graph's weight by default
        w = alg.random_walks(g, [0] * 3000, 1, seed=8, **kw).compute()
        counts = w[w.step == 1].vertex.value_counts().to_dict()
        total = sum(share.values())
        ok, seen = _plausible(counts, {v: 3000 * s / total for v, s in share.items()})
        assert ok and set(counts) == set(share), (weight, seen)


def _node2vec_expected(p, q, weights):
    """The exact node2vec step from 1 having come from 0, on ``_bias_graph``: out of 1 to 0
    (back), 2 (a neighbour of 0) and 4, 5, 6 (not)."""
    bias = {0: 1 / p, 2: 1.0, 4: 1 / q, 5: 1 / q, 6: 1 / q}
    mass = {x: bias[x] * weights[x] for x in bias}
    total = sum(mass.values())
    return {x: m / total for x, m in mass.items()}


def _bias_graph():
    # 0 - 1, 0 - 2, 0 - 3, 1 - 2, 1 - 4, 1 - 5, 1 - 6; the arcs out of 1 weighted
    e = pd.DataFrame({"src": [0, 0, 0, 1, 1, 1, 1], "dst": [1, 2, 3, 2, 4, 5, 6]})
    return e.assign(w=[2.0, 1.0, 1.0, 1.0, 3.0, 1.0, 0.5])


@pytest.mark.parametrize("p, q", [(0.25, 1.0), (1.0, 4.0), (1.0, 0.25), (4.0, 0.5)])
def test_node2vec_steps_have_the_exact_transition_probabilities(client, p, q):
    e = _bias_graph()
    g = dgraph.from_edgelist(e, directed=False, weight="w", layout=LAYOUTS[4])  # ids reordered over 4 ranks
    weights = dict(zip(e.dst[e.src == 1], e.w[e.src == 1])) | {0: 2.0}
    for weight, w_of in ((None, dict.fromkeys(weights, 1.0)), ("w", weights)):
        w = alg.random_walks(g, [0] * 12000, 2, p=p, q=q, weight=weight, seed=21).compute()
        walks = w.pivot(index="walk", columns="step", values="vertex")
        went = walks[walks[1] == 1][2].value_counts().to_dict()  # the second step, from 1 after 0
        n = sum(went.values())
        ok, seen = _plausible(went, {x: n * pr for x, pr in _node2vec_expected(p, q, w_of).items()})
        assert ok, (weight, seen)


def test_low_p_returns_and_high_q_stays_local(client):
    g = dgraph.from_edgelist(_bias_graph(), directed=False, layout=LAYOUTS[2])

    def shares(p, q):
        w = alg.random_walks(g, [0] * 4000, 2, p=p, q=q, weight=None, seed=2).compute()
        walks = w.pivot(index="walk", columns="step", values="vertex")
        nxt = walks[walks[1] == 1][2]
        return (nxt == 0).mean(), nxt.isin([0, 2]).mean()

    # the first-order walk goes back a fifth of the time, and to 0 or 2 two fifths
    assert shares(0.2, 1.0)[0] > 0.45  # exactly 5 / 9
    assert shares(5.0, 1.0)[0] < 0.1  # 0.2 / 4.2
    assert shares(1.0, 5.0)[1] > 0.65  # 2 / 2.6
    assert shares(1.0, 0.2)[1] < 0.2  # 2 / 17


def _arcs_of(e, directed):
    arcs = e if directed else pd.concat([e, e.rename(columns={"src": "dst", "dst": "src"})])
    return arcs.drop_duplicates(["src", "dst"])


def _check_sample(s, seeds, fanouts, arcs, replace):
    degree = arcs.groupby("src").size()
    assert set(zip(s.src, s.dst)) <= set(zip(arcs.src, arcs.dst)), "a sampled arc that is no arc"
    sources = sorted(seeds)
    for hop, fanout in enumerate(fanouts):
        mine = s[s.hop == hop]
        want = [v for v in sources if degree.get(v, 0) > 0]
        assert sorted(mine.src.unique()) == want, f"hop {hop}'s sources"
        per = mine.groupby("src").size()
        cap = degree[want] if fanout == -1 else degree[want].clip(upper=fanout) if not replace else fanout
        assert (per == cap).all(), f"hop {hop}'s fan-outs"
        if not replace:
            assert not mine.duplicated(["src", "dst"]).any()
        sources = sorted(mine.dst.unique())
    assert set(s.hop) <= set(range(len(fanouts)))


@pytest.mark.parametrize("kind", ["er-directed", "kronecker"])
def test_samples_respect_fanouts_hops_and_seeds_on_every_layout(client, kind):
    if kind == "er-directed":
        e, directed = er_edges(150, 500, seed=6), True
    else:
        e, directed = kron_edges(7, seed=2, edge_factor=4), False
    e = e[e.src != e.dst]
    arcs = _arcs_of(e, directed)
    seeds = sorted(set(e.src))[:12]
    first = {}
    for layout in EVERY_KIND:
        g = dgraph.from_edgelist(e, directed=directed, layout=layout)
        for replace, fanouts in ((False, [4, 3, -1]), (True, [5, 2])):
            s = alg.sample_neighbors(g, seeds + seeds[:2], fanouts, replace=replace, seed=9).compute()
            if replace not in first:
                _check_sample(s, seeds, fanouts, arcs, replace)
                first[replace] = _sorted(s)
            else:
                pd.testing.assert_frame_equal(_sorted(s), first[replace], obj=f"replace={replace} on {layout!r}")
    other = alg.sample_neighbors(g, seeds, [4, 3, -1], seed=10).compute()
    assert not _sorted(other).equals(first[False])


def test_samples_without_replacement_are_uniform_subsets(client):
    # 300 sources with the same 10 out-neighbours, 3 kept each: each neighbour is kept by
    # 300 * 3 / 10 of them, and each pair of neighbours by 300 * (3 * 2) / (10 * 9)
    e = pd.DataFrame({"src": np.repeat(np.arange(300), 10), "dst": np.tile(np.arange(1000, 1010), 300)})
    g = dgraph.from_edgelist(e, directed=True, layout=LAYOUTS[1])
    s = alg.sample_neighbors(g, list(range(300)), [3], seed=4).compute()
    ok, seen = _plausible(s.dst.value_counts().to_dict(), {v: 90.0 for v in range(1000, 1010)})
    assert ok, seen
    kept = s.sort_values("dst").groupby("src").dst.agg(tuple)
    counts = Counter(pair for each in kept for pair in combinations(each, 2))
    ok, seen = _plausible(counts, {(a, b): 300 * 6 / 90 for a in range(1000, 1010) for b in range(a + 1, 1010)})
    assert ok, seen


def test_bad_walks_and_samples_are_refused_with_the_fix(client):
    e = pd.DataFrame({"src": [0, 1], "dst": [1, 2], "w": [1.0, -2.0]})
    g = dgraph.from_edgelist(e, weight="w")
    cases = [
        (lambda: alg.random_walks(g, [0], -1), "length must be an integer at least 0"),
        (lambda: alg.random_walks(g, [0], 3, p=0), r"p must be a number in \(0, inf\)"),
        (lambda: alg.random_walks(g, [9], 3), "9"),
        (lambda: alg.random_walks(g, [], 3), "give at least one start vertex"),
        (lambda: alg.random_walks(g, [0], 3), "non-negative weights.*weight=None"),
        (lambda: alg.random_walks(g, [0], 3, weight="x"), "not an edge attribute"),
        (lambda: alg.sample_neighbors(g, [0], []), "fanouts must give each hop"),
        (lambda: alg.sample_neighbors(g, [0], [2, 0]), "fanouts must give each hop"),
        (lambda: alg.sample_neighbors(g, [0], 3), "fanouts must be a sequence"),
        (lambda: alg.sample_neighbors(g, [0], [2], seed=-1), "seed must be an integer"),
    ]
    for call, message in cases:
        with pytest.raises(DgraphInputError, match=message):
            call()
    assert alg.random_walks(g, [0, 0], 3, weight=None, seed=1).compute().shape == (6, 3)  # 0 -> 1 -> 2, a sink
