"""Verifiers: does an algorithm's result hold what it promises, on this graph?

``dgraph.algorithms.verify(name, graph, result, **params)`` finds algorithm ``name``'s verifier in
the registry and returns the violations it finds, as sentences (an empty list when the result is
valid). The checks are properties in the spirit of GAP's verifiers, not a second run of the same
code: a BFS or SSSP tree must be a tree of the graph's arcs that no arc could shorten;
components must be closed under arcs, connected, and labelled by their first member in the
graph's vertex order; PageRank must be a fixed point to the tolerance it was asked for;
communities must be named by their first member, have the modularity the run reported, and
(Leiden) be connected; core numbers must match a peeling; a matching must be a valid, maximal
matching; a colouring must be proper, an independent set maximal; triangle counts, clustering
coefficients, label propagation and betweenness are compared with independent computations on
the whole graph. The graph is gathered to the client for this (``Graph.snapshot``):
verification is for tests, the command line (``dgraph run --verify``) and graphs that fit one
machine. Graph 500's validation uses the same search-tree rules over its distributed edge list.
"""

from __future__ import annotations

import inspect
from types import SimpleNamespace

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from dgraph import kernels
from dgraph.errors import DgraphInputError
from dgraph.weights import GRAPH_WEIGHT, weighed

SHOWN = 3  # offending vertices named per violation


def check(verifier, name, graph, result, **params):
    """The violations ``verifier`` (a registry entry's) finds in ``result``, the dask or pandas
    DataFrame algorithm ``name`` returned for ``graph``: each vertex once, then the algorithm's
    own guarantees. ``dgraph.algorithms.verify`` finds the verifier by the algorithm's name.

    >>> import dgraph
    >>> g = dgraph.datasets.load("karate")
    >>> dgraph.algorithms.verify("bfs", g, dgraph.algorithms.bfs(g, 1), source=1)
    []
    """
    frame = graph.client.compute(result).result() if hasattr(result, "dask") else result
    if not isinstance(frame, pd.DataFrame) or "vertex" not in frame.columns:
        raise DgraphInputError("result must be the DataFrame an algorithm returned, with a 'vertex' column")
    if "weight" in inspect.signature(verifier).parameters or "weight" in params:
        # the algorithms' own rule: the graph's weight unless the call said otherwise; the
        # snapshot's weights are the chosen attribute's
        graph, params["weight"] = weighed(graph, params.get("weight", GRAPH_WEIGHT), f"verify({name!r})")
    snap = graph.snapshot()
    problems, pos = _rows(snap, frame)
    if problems:
        return problems
    order = np.argsort(pos)
    frame = frame.iloc[order].reset_index(drop=True)
    try:
        return verifier(snap, frame, **params)
    except TypeError as exc:
        raise DgraphInputError(f"verify({name!r}): {exc}") from None


def _rows(snap, frame):
    """Each vertex exactly once: (problems, the placed id of each row)."""
    pos = snap.labels.get_indexer(frame["vertex"])
    problems = []
    times = np.bincount(np.maximum(pos, 0), minlength=snap.n)  # negatives are reported first
    if (pos < 0).any():
        problems.append(f"vertices not in the graph: {_show(frame['vertex'][pos < 0])}")
    elif times.max(initial=0) > 1:
        problems.append(f"vertices listed more than once: {_show(frame['vertex'][frame['vertex'].duplicated()])}")
    elif pos.size != snap.n:
        missing = np.flatnonzero(times == 0)
        problems.append(f"{missing.size} vertices missing, such as {_show(snap.labels[missing])}")
    return problems, pos


def _show(values):
    values = list(values)
    return ", ".join(repr(v) for v in values[:SHOWN]) + (
        f" and {len(values) - SHOWN} more" if len(values) > SHOWN else ""
    )


def _ids(snap, column):
    """A column of labels (nullable) as placed ids, -1 for nulls; -2 for labels not in the graph."""
    values = column.astype(object).where(column.notna(), None)
    out = np.full(len(column), -1, dtype=np.int64)
    present = column.notna().to_numpy()
    out[present] = snap.labels.get_indexer(values[present])
    out[present & (out == -1)] = -2
    return out


def _source(snap, source):
    found = snap.labels.get_indexer([source])[0]
    if found < 0:
        raise DgraphInputError(f"source {source!r} is not a vertex of the graph")
    return int(found)


def _matrix(snap, weights=None, loops=True):
    """The arcs as an n x n CSR (repeated arcs add up)."""
    keep = slice(None) if loops else snap.src != snap.dst
    data = np.ones(snap.src[keep].size) if weights is None else weights[keep]
    return sp.csr_matrix((data, (snap.src[keep], snap.dst[keep])), shape=(snap.n, snap.n))


# --------------------------------------------------------------------------- search trees
def search_tree(root, reach, parent, edge_rules, weighted, *, limit=np.inf, tolerance=1e-9, name=int):
    """The violations of one search from ``root`` by the Graph 500 rules: ``reach`` holds levels
    (-1 unreached) or distances (inf unreached) and ``parent`` the tree (-1 none), per vertex.
    ``edge_rules(reach, parent)`` checks every arc (``kernels.search_tree_rules``, wherever the
    arcs are) and returns (straddles, fars, traversed, found); ``limit``: a search that stopped
    at this level; ``name(v)``: how a sentence names vertex v. Returns (violations, arcs
    traversed)."""
    n = reach.size
    reached = (reach >= 0) & (reach < np.inf)
    errors = []
    if not reached[root] or reach[root] != 0:
        errors.append(f"the root {name(root)} is not at level/distance 0")
    if parent[root] not in (root, -1):
        errors.append(f"the root's parent is {name(parent[root])}, not itself")
    others = np.flatnonzero(reached)
    others = others[others != root]
    p = parent[others]
    if ((p < 0) | (p >= n)).any():
        bad = others[(p < 0) | (p >= n)][0]
        errors.append(f"reached vertex {name(bad)} has parent {parent[bad]}, not a vertex")
        return errors, 0
    if not reached[p].all():
        errors.append(f"vertex {name(others[~reached[p]][0])} has an unreached parent")
    if not weighted and (reach[p] != reach[others] - 1).any():
        bad = others[reach[p] != reach[others] - 1][0]
        errors.append(
            f"tree edge ({name(parent[bad])}, {name(bad)}) joins levels {reach[parent[bad]]:g} and "
            f"{reach[bad]:g}, not one apart"
        )
    if weighted and (reach[p] > reach[others] + tolerance).any():
        errors.append(f"vertex {name(others[reach[p] > reach[others] + tolerance][0])} is closer than its parent")
    if (parent[~reached] != -1).any():
        errors.append(f"unreached vertex {name(np.flatnonzero(~reached & (parent != -1))[0])} has a parent")
    # no cycles: every reached vertex leads to the root. Levels that pass the rules above fall by
    # one a step down to the root, the one reached vertex at level 0, so only distances need a walk
    astray = kernels.tree_astray(parent, reached, root) if weighted or errors else -1
    if astray >= 0:
        errors.append(f"following parents from vertex {name(astray)} never reaches the root")
    straddle, far, traversed, found = edge_rules(reach, parent)
    if straddle:
        errors.append(f"{straddle} arcs lead from a reached vertex to an unreached one (the search stopped short)")
    if far:
        errors.append(
            f"{far} arcs join vertices "
            + ("whose distances differ by more than the arc's weight" if weighted else "more than one level apart")
        )
    if not found[others].all():
        bad = others[~found[others]][0]
        errors.append(
            f"tree edge ({name(parent[bad])}, {name(bad)}) is not an arc of the graph" + (" of that weight" * weighted)
        )
    return errors, traversed


def _local_rules(snap, weights, limit, tolerance):
    def rules(reach, parent):
        found = np.zeros(snap.n, dtype=bool)
        counts = kernels.search_tree_rules(
            snap.src, snap.dst, weights, reach, parent, found, directed=True, limit=limit, tolerance=tolerance
        )
        return (*counts, found)

    return rules


def check_bfs(snap, frame, *, source, depth_limit=None):
    root = _source(snap, source)
    dist = frame["distance"]
    reach = np.where(dist.notna(), dist.fillna(-1).to_numpy(np.float64), -1.0)
    parent = _ids(snap, frame["predecessor"])
    if (parent == -2).any():
        return ["a predecessor is not a vertex of the graph"]
    limit = np.inf if depth_limit is None else float(depth_limit)
    rules = _local_rules(snap, None, limit, 0.0)
    errors, _ = search_tree(root, reach, parent, rules, False, limit=limit, name=lambda v: repr(snap.labels[v]))
    if depth_limit is not None and reach.max() > depth_limit:
        errors.append(f"vertices beyond depth_limit={depth_limit}")
    return errors


def weighted_search(snap, frame, source, weight):
    """A weighted search's result read against the graph: (the source's id, each vertex's
    distance, inf where unreached, its predecessor's id, -1 for none and -2 for a label that is
    no vertex, and the arcs' weights)."""
    dist = frame["distance"]
    reach = np.where(dist.notna(), dist.fillna(np.inf).to_numpy(np.float64), np.inf)
    weights = snap.weights if weight is not None and snap.weights is not None else np.ones(snap.src.size)
    return _source(snap, source), reach, _ids(snap, frame["predecessor"]), weights


def check_sssp(snap, frame, *, source, weight=None, **_):
    root, reach, parent, weights = weighted_search(snap, frame, source, weight)
    if (parent == -2).any():
        return ["a predecessor is not a vertex of the graph"]
    if (weights < 0).any():
        return ["the graph has negative weights: shortest paths are not defined by these rules"]
    finite = reach[np.isfinite(reach)]
    tolerance = 1e-9 * max(1.0, float(np.abs(finite).max(initial=0.0)))
    rules = _local_rules(snap, weights, np.inf, tolerance)
    errors, _ = search_tree(root, reach, parent, rules, True, tolerance=tolerance, name=lambda v: repr(snap.labels[v]))
    return errors


# --------------------------------------------------------------------------- components
def _components(snap, frame, connection):
    labels = _ids(snap, frame["component"])
    if (labels < 0).any():
        return ["a component label is not a vertex of the graph"]
    count, truth = connected_components(_matrix(snap), directed=True, connection=connection)
    errors = []
    # the same partition: each true component one label, each label one true component
    pairs = np.unique(np.stack([truth, labels]), axis=1)
    if kernels.unique(pairs[0]).size != pairs.shape[1]:
        split = pairs[0][np.r_[False, pairs[0][1:] == pairs[0][:-1]]]
        errors.append(
            f"a {connection} component is split between labels, e.g. at {_show(snap.labels[truth == split[0]])}"
        )
    if kernels.unique(pairs[1]).size != pairs.shape[1]:
        errors.append(f"{pairs.shape[1] - kernels.unique(pairs[1]).size} labels join vertices of different components")
    if errors:
        return errors
    # the representative: the member first in the graph's vertex order, and a member itself
    first = np.full(count, np.iinfo(np.int64).max)
    np.minimum.at(first, truth, snap.key)
    by_key = np.empty(snap.n, dtype=np.int64)
    by_key[snap.key] = np.arange(snap.n)
    wrong = np.flatnonzero(labels != by_key[first[truth]])
    if wrong.size:
        errors.append(
            f"{wrong.size} vertices are labelled with a member other than their component's first in the graph's "
            f"vertex order, such as {_show(snap.labels[wrong])}"
        )
    return errors


def check_wcc(snap, frame):
    return _components(snap, frame, "weak")


def check_scc(snap, frame):
    return _components(snap, frame, "strong")


def check_communities(snap, frame, connected, *, modularity=None, resolution=1.0, weight=None):
    labels = _ids(snap, frame["community"])
    if (labels < 0).any():
        return ["a community label is not a vertex of the graph"]
    errors = []
    first = np.full(snap.n, np.iinfo(np.int64).max)
    np.minimum.at(first, labels, snap.key)
    if (first[labels] != snap.key[labels]).any():
        wrong = np.flatnonzero(first[labels] != snap.key[labels])
        errors.append(
            f"{wrong.size} vertices are labelled with a member other than their community's first in the graph's "
            f"vertex order, such as {_show(snap.labels[wrong])}"
        )
    inside = labels[snap.src] == labels[snap.dst]
    if connected:
        # the arcs inside communities, as a graph: each community must be one of its components
        within = SimpleNamespace(src=snap.src[inside], dst=snap.dst[inside], n=snap.n)
        _, piece = connected_components(_matrix(within), directed=True, connection="weak")
        pairs = np.unique(np.stack([labels, piece]), axis=1)
        cut = kernels.unique(pairs[0][np.r_[False, pairs[0][1:] == pairs[0][:-1]]])
        if cut.size:
            errors.append(f"{cut.size} communities are not connected, such as those of {_show(snap.labels[cut])}")
    if modularity is not None:
        w = np.ones(snap.src.size) if weight is None else np.asarray(snap.weights, dtype=np.float64)
        w = np.where(snap.src == snap.dst, 2.0 * w, w)  # a loop counts twice in its vertex's degree
        two_m = w.sum()
        tot = np.bincount(labels[snap.src], weights=w, minlength=snap.n)
        q = w[inside].sum() / two_m - resolution * (tot**2).sum() / two_m**2 if two_m > 0 else 0.0
        if not np.isclose(q, modularity, rtol=0, atol=1e-9):
            errors.append(f"the partition's modularity is {q:.12g}, not the {modularity:.12g} reported")
    return errors


def check_louvain(snap, frame, *, weight=None, **params):
    return check_communities(snap, frame, False, weight=weight, **params)


def check_leiden(snap, frame, *, weight=None, **params):
    return check_communities(snap, frame, True, weight=weight, **params)


# --------------------------------------------------------------------------- PageRank
def check_pagerank(snap, frame, *, alpha=0.85, tol=1e-6, personalization=None, weight=None, max_iter=100):
    x = frame["pagerank"].to_numpy(np.float64)
    n = snap.n
    errors = []
    if (x < 0).any() or not np.isfinite(x).all():
        errors.append("negative or non-finite PageRank values")
        return errors
    if abs(x.sum() - 1) > max(1e-9, n * tol):
        errors.append(f"PageRank values sum to {x.sum():.12g}, not 1")
    p = np.full(n, 1.0 / n)
    if personalization is not None:
        s = pd.Series(personalization, dtype=np.float64)
        p = np.zeros(n)
        p[snap.labels.get_indexer(s.index)] = s.to_numpy()
        p /= p.sum()
    w = snap.weights if weight is not None else None
    A = _matrix(snap, w)
    outw = np.asarray(A.sum(axis=1)).ravel()
    contrib = np.divide(x, outw, out=np.zeros(n), where=outw > 0)
    dangling = x[outw == 0].sum()
    nxt = alpha * (A.T @ contrib + dangling * p) + (1 - alpha) * p
    residual = float(np.abs(nxt - x).sum())
    # the iteration stops once an update changes less than n * tol; the next one changes at most that
    if residual > n * tol + 1e-12:
        errors.append(f"one more iteration changes the ranks by {residual:.3g} in L1, above n * tol = {n * tol:.3g}")
    return errors


# --------------------------------------------------------------------------- counting
def _neighbour_sets(snap):
    """The symmetric 0/1 matrix of distinct neighbours (in and out), without self-loops."""
    A = _matrix(snap, loops=False)
    N = ((A + A.T) > 0).astype(np.int64)
    return A, N.tocsr()


def _arcs_among_neighbours(snap):
    A, N = _neighbour_sets(snap)
    A = (A > 0).astype(np.int64)
    among = np.asarray((N @ A).multiply(N).sum(axis=1)).ravel()
    return among, np.asarray(N.sum(axis=1)).ravel()


def check_triangles(snap, frame):
    if snap.directed:
        return ["triangle counts are defined for undirected graphs"]
    among, _ = _arcs_among_neighbours(snap)
    t = frame["triangles"].to_numpy(np.int64)
    errors = []
    if t.sum() % 3:
        errors.append(f"the triangle counts sum to {t.sum()}, not a multiple of 3 (each triangle has three corners)")
    wrong = np.flatnonzero(t != among // 2)
    if wrong.size:
        errors.append(f"{wrong.size} vertices have a wrong triangle count, such as {_show(snap.labels[wrong])}")
    return errors


def check_lcc(snap, frame):
    among, d = _arcs_among_neighbours(snap)
    expect = np.divide(among, d * (d - 1.0), out=np.zeros(snap.n), where=d > 1)
    got = frame["lcc"].to_numpy(np.float64)
    wrong = np.flatnonzero(~np.isclose(got, expect, rtol=1e-12, atol=1e-12))
    if wrong.size:
        return [f"{wrong.size} vertices have a wrong clustering coefficient, such as {_show(snap.labels[wrong])}"]
    return []


def check_core(snap, frame):
    core = frame["core"].to_numpy(np.int64)
    keep = snap.src != snap.dst
    src, dst = snap.src[keep], snap.dst[keep]
    if snap.directed:  # every arc an edge, at both ends (networkx's degree: in + out)
        src, dst = np.r_[src, dst], np.r_[dst, src]
    # validity: each vertex has at least core[v] neighbours of core >= core[v]
    strong = np.bincount(src[core[dst] >= core[src]], minlength=snap.n)
    errors = []
    short = np.flatnonzero(strong < core)
    if short.size:
        errors.append(
            f"{short.size} vertices have fewer neighbours in their core than their core number, "
            f"such as {_show(snap.labels[short])}"
        )
    expect = _peel(snap.n, src, dst)
    wrong = np.flatnonzero(core != expect)
    if wrong.size:
        errors.append(
            f"{wrong.size} core numbers differ from a peeling of the graph, such as {_show(snap.labels[wrong])}"
        )
    return errors


def _peel(n, src, dst):
    """Core numbers by peeling: remove every vertex of degree at most k, then k + 1, ..."""
    degree = np.bincount(src, minlength=n)
    core, alive, k = np.zeros(n, np.int64), np.ones(n, bool), 0
    while alive.any():
        k = max(k, int(degree[alive].min()))
        while True:
            out = alive & (degree <= k)
            if not out.any():
                break
            core[out], alive[out] = k, False
            gone = out[src]
            degree -= np.bincount(dst[gone], minlength=n)
    return core


def check_mwm(snap, frame, *, weight=None):
    if snap.directed:
        return ["a matching is defined on undirected graphs"]
    mate = _ids(snap, frame["mate"])
    if (mate == -2).any():
        return ["a mate is not a vertex of the graph"]
    errors = []
    matched = np.flatnonzero(mate >= 0)
    if (mate[mate[matched]] != matched).any():
        bad = matched[mate[mate[matched]] != matched]
        errors.append(f"mates are not mutual at {_show(snap.labels[bad])}")
    if (mate[matched] == matched).any():
        errors.append("a vertex is matched to itself")
    w = snap.weights if weight is not None and snap.weights is not None else np.ones(snap.src.size)
    edge = pd.Series(w, index=pd.MultiIndex.from_arrays([snap.src, snap.dst])).groupby(level=[0, 1]).max()
    pairs = pd.MultiIndex.from_arrays([matched, mate[matched]])
    present = pairs.isin(edge.index)
    if not present.all():
        errors.append(f"{int((~present).sum())} matched pairs are not edges of the graph")
    elif (edge.reindex(pairs).to_numpy() <= 0).any():
        errors.append("a matched edge has a non-positive weight")
    # maximal: no positive edge has both ends free
    free = mate < 0
    open_ = free[snap.src] & free[snap.dst] & (snap.src != snap.dst) & (w > 0)
    if open_.any():
        errors.append(f"{int(open_.sum()) // 2} edges have both ends unmatched (the matching is not maximal)")
    return errors


def check_coloring(snap, frame):
    """A proper colouring: colours from 0, no edge (but a self-loop) between equal colours, none
    above the largest degree."""
    colour = frame["color"].to_numpy(np.int64)
    other = snap.src != snap.dst
    errors = []
    if (colour < 0).any():
        errors.append(f"negative colours at {_show(snap.labels[colour < 0])}")
    clash = other & (colour[snap.src] == colour[snap.dst])
    if clash.any():
        errors.append(f"neighbours share a colour at {_show(snap.labels[np.unique(snap.src[clash])])}")
    most = np.bincount(snap.src[other], minlength=snap.n).max(initial=0)
    if colour.max(initial=0) > most:
        errors.append(f"a colour above the largest degree ({most}): {int(colour.max())}")
    return errors


def check_mis(snap, frame, *, nodes=None):
    """An independent set (self-loops aside) that is maximal and holds the ``nodes`` asked for."""
    member = frame["in_set"].to_numpy(bool)
    other = snap.src != snap.dst
    errors = []
    both = other & member[snap.src] & member[snap.dst]
    if both.any():
        errors.append(f"neighbours both in the set at {_show(snap.labels[np.unique(snap.src[both])])}")
    covered = member.copy()
    covered[snap.src[other & member[snap.dst]]] = True
    if not covered.all():
        errors.append(f"vertices with no neighbour in the set, outside it: {_show(snap.labels[~covered])}")
    if nodes is not None:
        asked = snap.labels.get_indexer(list(nodes))
        if (asked < 0).any() or not member[asked].all():
            errors.append("a vertex asked for is not in the set")
    return errors


# --------------------------------------------------------------------------- replays
def check_cdlp(snap, frame, *, max_iter=10):
    """Label propagation is deterministic: replay it over the whole graph (LDBC's semantics)."""
    order = np.argsort(snap.key)  # canonical id -> placed id
    canon = snap.key  # placed id -> canonical id
    out = kernels.build_csr(canon[snap.src], canon[snap.dst], snap.n, dedup=False)
    block_out = SimpleNamespace(indptr=out[0], indices=out[1])
    block_in = None
    if snap.directed:
        back = kernels.build_csr(canon[snap.dst], canon[snap.src], snap.n, dedup=False)
        block_in = SimpleNamespace(indptr=back[0], indices=back[1])
    labels = np.arange(snap.n, dtype=np.int64)
    for _ in range(int(max_iter)):
        nxt = kernels.label_mode(block_out, block_in, labels, labels.copy())
        if np.array_equal(nxt, labels):
            break
        labels = nxt
    got = _ids(snap, frame["label"])
    expect = order[labels[canon]]
    wrong = np.flatnonzero(got != expect)
    if wrong.size:
        return [f"{wrong.size} labels differ from a replay of label propagation, such as {_show(snap.labels[wrong])}"]
    return []


def check_bc(snap, frame, *, sources=None, normalized=True, k=None, weight=None):
    if k is not None:
        raise DgraphInputError("verify('bc') needs the sources a sampled run used: pass sources=, not k=")
    from .betweenness_centrality import _scales

    keep = snap.src != snap.dst
    weights = snap.weights[keep] if weight is not None and snap.weights is not None else None
    indptr, indices, weights = kernels.build_csr(snap.src[keep], snap.dst[keep], snap.n, weights)
    ids = np.arange(snap.n) if sources is None else snap.labels.get_indexer(list(sources))
    if (ids < 0).any():
        raise DgraphInputError("a source is not a vertex of the graph")
    bc = np.zeros(snap.n)
    if weights is None:
        kernels.brandes(indptr, indices, ids, bc)
    else:
        kernels.brandes_paths(indptr, indices, weights, ids, bc, None)
    source_scale, scale = _scales(snap.n, normalized, snap.directed, None if sources is None else len(ids))
    factor = np.full(snap.n, scale)
    factor[ids] = source_scale
    expect = bc * factor
    got = frame["betweenness"].to_numpy(np.float64)
    wrong = np.flatnonzero(~np.isclose(got, expect, rtol=1e-9, atol=1e-12))
    if wrong.size:
        return [
            f"{wrong.size} betweenness values differ from Brandes' on the whole graph, such as "
            f"{_show(snap.labels[wrong])}"
        ]
    return []
