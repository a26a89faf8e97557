"""Graph 500: generators are deterministic and skewed, validation catches every broken rule,
and the runner passes end to end."""

import numpy as np
import pandas as pd
import pytest

from dgraph import algorithms as alg
from dgraph import graph500 as g5
from dgraph.cli import main
from dgraph.generators import barabasi_albert, erdos_renyi, kronecker


def _values(ddf):
    return ddf.compute().reset_index(drop=True)


def test_generators_do_not_depend_on_the_partitioning(client):
    for make in (
        lambda p: kronecker(14, seed=5, npartitions=p, weights=True)[0],
        lambda p: erdos_renyi(5000, 300_000, seed=5, npartitions=p)[0],
        lambda p: barabasi_albert(40_000, 8, seed=5, npartitions=p)[0],
    ):
        one, several = _values(make(1)), _values(make(5))
        pd.testing.assert_frame_equal(one, several)
    a, b = _values(kronecker(12, seed=1)[0]), _values(kronecker(12, seed=2)[0])
    assert not a.equals(b)


def test_kronecker_is_skewed_scrambled_and_shuffled(client):
    e = _values(kronecker(16, seed=3, weights=True)[0])
    deg = np.bincount(np.concatenate([e.src, e.dst]), minlength=1 << 16)
    assert deg.max() > 50 * deg.mean()  # R-MAT: a heavy tail
    assert np.argmax(deg) != 0  # scrambled: the hub is not vertex 0 (R-MAT's corner)
    assert abs(np.corrcoef(np.arange(len(e)), e.src)[0, 1]) < 0.01  # shuffled: no order by source
    assert 0 <= e.weight.min() and e.weight.max() < 1


def test_barabasi_albert_follows_its_power_law(client):
    e = _values(barabasi_albert(200_000, 8, exponent=2.2, seed=1)[0])
    assert (e.dst <= e.src).all()  # edges go to earlier vertices
    deg = np.bincount(np.concatenate([e.src, e.dst]), minlength=200_000)
    ks = np.array([50, 100, 200, 400, 800])
    ccdf = np.array([(deg >= k).mean() for k in ks])
    slope = np.polyfit(np.log(ks), np.log(ccdf), 1)[0]  # CCDF ~ k^(1 - exponent)
    assert -1.5 < slope < -1.0, slope


@pytest.fixture(scope="module")
def searched(client):
    edges, n = kronecker(10, seed=4, weights=True)
    edges = client.persist(edges)
    from distributed import futures_of

    import dgraph

    g = dgraph.from_edgelist(
        edges, directed=False, weight="weight", vertices=np.arange(n), renumber=False, self_loops="drop"
    )
    root = int(g5._roots(g, 1, 0)[0])
    bfs = g5._arrays(alg.bfs(g, root), n, "distance", False)
    sssp = g5._arrays(alg.sssp(g, root, weight="weight"), n, "distance", True)
    return root, bfs, sssp, futures_of(edges), n


def test_valid_searches_pass(client, searched):
    root, bfs, sssp, parts, n = searched
    assert g5.validate(root, *bfs, parts, client)[0] == []
    assert g5.validate(root, *sssp, parts, client, weighted=True)[0] == []


def test_validation_rejects_each_broken_rule(client, searched):
    root, (level, parent), (dist, sparent), parts, n = searched
    reached = np.flatnonzero(level > 0)
    leaf = int(reached[np.argmax(level[reached])])
    unreached = np.flatnonzero(level < 0)

    def broken(level=level, parent=parent):
        return " / ".join(g5.validate(root, level, parent, parts, client)[0])

    p = parent.copy()
    p[root] = leaf  # noqa: E702
    assert "root's parent" in broken(parent=p)
    lv = level.copy()
    lv[root] = 1  # noqa: E702
    assert "not at level/distance 0" in broken(level=lv)
    p = parent.copy()
    p[leaf] = n + 5  # noqa: E702
    assert "not a vertex" in broken(parent=p)
    p = parent.copy()
    p[leaf] = leaf  # noqa: E702  (a cycle; also two levels off)
    assert "never reaches the root" in broken(parent=p) and "not one apart" in broken(parent=p)
    lv = level.copy()
    lv[leaf] += 1  # noqa: E702
    assert "not one apart" in broken(level=lv) and "more than one level apart" in broken(level=lv)
    same_level = np.flatnonzero(level == level[parent[leaf]])
    fake = int(same_level[~np.isin(same_level, [parent[leaf]])][0])  # a vertex one level up, likely no edge
    p = parent.copy()
    p[leaf] = fake  # noqa: E702
    assert "is not an arc of the graph" in broken(parent=p)
    lv, p = level.copy(), parent.copy()
    lv[leaf], p[leaf] = -1, -1  # a reached vertex dropped: the tree no longer spans its component
    assert "the search stopped short" in broken(level=lv, parent=p)
    if unreached.size:
        p = parent.copy()
        p[unreached[0]] = root  # noqa: E702
        assert "unreached vertex" in broken(parent=p)
    d = dist.copy()
    d[leaf] += 0.5  # noqa: E702
    assert g5.validate(root, d, sparent, parts, client, weighted=True)[0]  # SSSP: tree edge weight and relaxation


def test_edge_rules_engines_agree_on_valid_and_broken_searches(searched):
    from dgraph import kernels

    root, (level, parent), (dist, sparent), parts, n = searched
    part = parts[0].result()
    leaf = int(np.argmax(level))
    lv, p, d = level.copy(), parent.copy(), dist.copy()
    lv[leaf] += 1
    p[leaf] = root
    d[leaf] += 0.5
    for reach, par, weighted in [
        (level, parent, False),
        (lv, parent, False),
        (level, p, False),
        (dist, sparent, True),
        (d, sparent, True),
    ]:
        out = {}
        for engine in kernels.ENGINES:
            with kernels.using(engine):
                out[engine] = g5._edge_rules(None, part, g5._held([(root, reach, par)], weighted), n, weighted)
        np.testing.assert_array_equal(out["numba"][0], out["numpy"][0])
        np.testing.assert_array_equal(out["numba"][1], out["numpy"][1])


def test_a_regenerated_edge_list_validates_many_searches_in_one_pass(client, searched):
    root, bfs, sssp, parts, n = searched
    again, m = g5._edge_list(10, 16, 4, True)  # the fixture's list, from its seed, never persisted
    level, parent = bfs
    broken = parent.copy()
    broken[int(np.argmax(level))] = root
    got = g5.validate_many([(root, *bfs), (root, level, broken)], again.to_delayed(), client)
    assert m == n and got[0] == g5.validate(root, *bfs, parts, client) and got[0][0] == []
    assert got[1][0] and got[1][1] == got[0][1]


def test_validation_regenerates_the_list_in_the_tasks_that_check_it(client, searched, monkeypatch):
    root, bfs, sssp, parts, n = searched
    monkeypatch.setattr(g5, "PARTITION_EDGES", 5000)  # the fixture's 16,384 edges in 4 partitions
    again = g5.regenerated(10, 16, 4)
    assert [p.count for p in again] == [5000, 5000, 5000, 1384]
    level, parent = bfs
    broken = parent.copy()
    broken[int(np.argmax(level))] = root
    got = g5.validate_many([(root, *bfs), (root, level, broken)], again, client)
    assert got[0] == g5.validate(root, *bfs, parts, client) and got[0][0] == [] and got[1][0]
    assert g5.validate_many([(root, *sssp)], again, client, weighted=True) == [
        g5.validate(root, *sssp, parts, client, weighted=True)
    ]


def test_statistics_follow_the_specification():
    times, nedges = np.array([1.0, 2.0, 4.0]), np.array([100, 100, 100])
    s = g5.teps_statistics(times, nedges)
    assert s["max"] == 100 and s["min"] == 25
    assert s["harmonic_mean"] == pytest.approx(3 / (1 / 100 + 1 / 50 + 1 / 25))


def test_graph500_command_end_to_end(client, capsys):
    assert main(["graph500", "--scale", "10", "--roots", "4", "--quiet", "--scheduler", client.scheduler.address]) == 0
    out = capsys.readouterr().out
    assert "SCALE: 10" in out and "bfs  harmonic_mean_TEPS:" in out and "sssp harmonic_mean_TEPS:" in out
    assert "construction_time:" in out and "bytes_per_directed_edge:" in out and "validation: PASSED" in out
    assert "vertex_order: degree" in out and "balance='striped'" in out  # hubs first, dealt to ranks in turn
    assert "bfs  warmup_time:" in out and "sssp warmup_time:" in out  # one untimed search per kernel first
    assert (
        main(
            [
                "graph500",
                "--scale",
                "10",
                "--roots",
                "2",
                "--kernels",
                "bfs",
                "--vertex-order",
                "labels",
                "--no-warmup",
                "--quiet",
                "--scheduler",
                client.scheduler.address,
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "vertex_order: labels" in out and "balance='degree'" in out and "validation: PASSED" in out
    assert "warmup_time" not in out
