"""Union-find: spanning forests of a rank's arcs (Afforest across ranks on symmetric blocks, on
several threads where one rank's rows are its whole space) and the summary of a forest's trees
that touch other ranks, which connected components merge."""

from __future__ import annotations

import numba
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from .atomics import swap_if
from .engines import FOREST_GRAIN, threads_for, twins
from .sets import unique


@numba.njit(cache=True)
def _find(parent, x):
    root = x
    while parent[root] != root:
        root = parent[root]
    while parent[x] != root:
        nxt = parent[x]
        parent[x] = root
        x = nxt
    return root


@numba.njit(cache=True)
def _forest_numba(a, b, parent, lo, hi):
    x = -1
    fresh = True
    for i in range(a.size):
        if i == 0 or a[i] != a[i - 1]:
            fresh = True
        if lo <= b[i] < hi and b[i] < a[i]:
            continue  # its twin (b[i], a[i]) is here too: one of the two suffices
        if fresh:
            x = _find(parent, a[i])  # CSR order: runs of one source keep their root in hand
            fresh = False
        x = _union(parent, x, b[i])
    return _roots(parent, a, b)


@numba.njit(cache=True)
def _union(parent, x, w):
    """Join w's tree and the tree whose root ``x`` is in hand (the smaller id becomes the root);
    returns the root now in hand."""
    y = _find(parent, w)
    if x < y:
        parent[y] = x
    elif y < x:
        parent[x] = y
        x = y
    return x


@numba.njit(cache=True)
def _union_owned(parent, x, w, lo, hi):
    """``_union`` for a rank's rows lo..hi-1, where ``x`` is an owned root: a vertex owned
    elsewhere never becomes a root. By smallest id alone, every head below lo would take over
    its tree's root in turn, and the paths the finds walk would grow on every rank but the first."""
    y = _find(parent, w)
    if y == x:
        return x
    if y < lo or y >= hi or x < y:
        parent[y] = x
        return x
    parent[x] = y
    return y


@numba.njit(cache=True)
def _roots(parent, tails, heads):
    """(vertex, root) for every non-root among the endpoints, each once; parent left as found."""
    for arr in (tails, heads):  # every endpoint points at its root, then emit each non-root once
        for i in range(arr.size):
            _find(parent, arr[i])
    out_v = np.empty(tails.size + heads.size, dtype=parent.dtype)  # slots, int32 while they fit
    out_r = np.empty(tails.size + heads.size, dtype=parent.dtype)
    c = 0
    for arr in (tails, heads):
        for i in range(arr.size):
            v = arr[i]
            p = parent[v]
            if p >= 0 and p != v:
                out_v[c] = v
                out_r[c] = p
                c += 1
                parent[v] = -1 - p
    for arr in (tails, heads):  # leave the scratch array as it was found: parent[v] == v
        for i in range(arr.size):
            parent[arr[i]] = arr[i]
    return out_v[:c], out_r[:c]


# Whether a head lies outside the rank's rows is a coin flip per arc when the ranks' ids are dealt
# in turn (vertex_order="degree", striped) and a row lists its heads in canonical order: a branch
# there mispredicts half the time, so the kernels below test it without one (one unsigned compare,
# added in). With the labels' order, rows see their outside heads in runs and either way is fast.


@numba.njit(cache=True)
def _outside(w, lo, span):
    """Whether head ``w`` is outside lo..lo+span-1, as one unsigned compare (no branch)."""
    return np.uint64(w - lo) >= span


@numba.njit(cache=True)
def _union_rows_numba(indptr, indices, lo, hi, parent):
    """Union the arcs of a CSR over rows lo..hi-1; return the distinct heads outside them."""
    outside, span = 0, np.uint64(hi - lo)
    for r in range(hi - lo):
        if indptr[r] == indptr[r + 1]:
            continue
        x = _find(parent, lo + r)  # a row keeps its root in hand
        for j in range(indptr[r], indptr[r + 1]):
            w = indices[j]
            outside += _outside(w, lo, span)
            x = _union_owned(parent, x, w, lo, hi)
    return _heads_outside(indices, lo, hi, outside, np.zeros(parent.size, np.bool_))


@numba.njit(cache=True)
def _heads_outside(indices, lo, hi, count, seen):
    """The distinct heads outside lo..hi-1 (``count``: how many arcs point there); ``seen`` is
    n-long scratch, all False on entry and on return."""
    if count == 0:
        return np.empty(0, np.int64)
    heads = np.empty(count + 1, np.int64)  # every head is written at c, kept only when new
    span, c = np.uint64(hi - lo), 0
    for j in range(indices.size):
        w = indices[j]
        o = _outside(w, lo, span)
        at = w * o  # heads inside read and leave seen[0] alone: no cache miss for them
        new = o & ~seen[at]
        heads[c] = w
        seen[at] |= new
        c += new
    for i in range(c):
        seen[heads[i]] = False
    return heads[:c]


AFFOREST_LINKS = 2  # neighbours per row linked before the largest tree is sampled (Sutton et al. use 2)
AFFOREST_SAMPLES = 1024
AFFOREST_SCAN = 16  # arcs a row whose heads are not in slot order reads for its first neighbours in range


@numba.njit(cache=True)
def _afforest_numba(indptr, indices, lo, hi, parent, ordered):
    """Afforest (Sutton, Ben-Nun, Barak, IPDPS 2018): link every row to its first few
    neighbours in the range, sample which tree is largest, and then let the rows already in
    that tree skip their arcs. Other rows union all theirs, except those whose twin an earlier
    row outside the tree has united. With ``ordered`` rows list their heads in slot order, so
    the heads in the range are one run, found by bisection: a rank whose range is not the
    space's first slots would otherwise see mostly ghosts first, link few rows, and sample a
    small tree (on Kronecker 20's second rank a third of its rows skipped, not nine tenths)."""
    links = AFFOREST_LINKS
    nrows = hi - lo
    skipped = np.zeros(nrows, np.bool_)
    if nrows == 0:
        return skipped
    for r in range(nrows):  # a row's first neighbours at once: one cache miss for the lot
        a, b = indptr[r], indptr[r + 1]
        j = a
        if ordered and a < b and indices[a] < lo:  # a bisection only where ghosts come first
            j = a + np.searchsorted(indices[a:b], lo)
        end = b if ordered else min(b, a + AFFOREST_SCAN)
        x, linked = -1, 0
        while j < end and linked < links:
            w = indices[j]
            if lo <= w < hi:
                x = _union_owned(parent, _find(parent, lo + r) if x < 0 else x, w, lo, hi)
                linked += 1
            elif ordered:
                break  # past the range
            j += 1
    giant = _largest_sampled(parent, lo, nrows)
    span = np.uint64(nrows)
    for r in range(nrows):
        u = lo + r
        x = _find(parent, u)
        skipped[r] = x == _find(parent, giant)
        if skipped[r]:
            continue
        for j in range(indptr[r], indptr[r + 1]):
            w = indices[j]
            if _outside(w, lo, span) or w >= u or skipped[w - lo]:
                x = _union_owned(parent, x, w, lo, hi)
    return skipped


@numba.njit(cache=True)
def _largest_sampled(parent, lo, nrows):
    """The root of the tree that most of ``AFFOREST_SAMPLES`` rows spread over lo..lo+nrows-1
    are in (nrows > 0)."""
    step = max(nrows // AFFOREST_SAMPLES, 1)
    sampled = np.empty((nrows + step - 1) // step, np.int64)
    for i in range(sampled.size):
        sampled[i] = _find(parent, lo + i * step)
    sampled.sort()
    giant, most, run = sampled[0], 0, 0
    for i in range(sampled.size):
        run = run + 1 if i > 0 and sampled[i] == sampled[i - 1] else 1
        if run > most:
            giant, most = sampled[i], run
    return giant


@numba.njit(cache=True)
def _hook(parent, u, v):
    """GAP's Link: join u's and v's trees, hooking the larger root under the smaller by
    compare-and-swap, so that threads hook at once. Only roots change, and only to a smaller id:
    the pointers other threads follow stay valid, and each tree's root is its smallest id."""
    p1, p2 = parent[u], parent[v]
    while p1 != p2:
        high, low = max(p1, p2), min(p1, p2)
        above = parent[high]
        if above == low:
            return
        if above == high and swap_if(parent, high, high, low) == high:
            return
        p1, p2 = parent[above], parent[low]


@numba.njit(cache=True, parallel=True)
def _compress(parent):
    """GAP's Compress: point every vertex at its root. Between hooking passes the roots stand
    still, so a racing write only stores a pointer nearer the same root."""
    for v in numba.prange(parent.size):
        while parent[v] != parent[parent[v]]:
            parent[v] = parent[parent[v]]


@numba.njit(cache=True, parallel=True)
def _link_round(indptr, indices, parent, r):
    """Hook every row to its r-th neighbour, if it has one (one of Afforest's sampling rounds)."""
    for i in numba.prange(parent.size):
        u = np.int64(i)
        j = indptr[u] + r
        if j < indptr[u + 1]:
            _hook(parent, u, indices[j])


@numba.njit(cache=True, parallel=True)
def _link_unsampled(indptr, indices, parent, giant, skipped):
    """Mark the rows whose root is ``giant`` skipped, and hook the arcs of the others past the
    sampled ones."""
    n = parent.size
    for u in numba.prange(n):
        skipped[u] = parent[u] == giant
    for i in numba.prange(n):
        u = np.int64(i)  # prange counts unsigned: compared with a signed head, both would be floats
        if not skipped[u]:
            for j in range(indptr[u] + AFFOREST_LINKS, indptr[u + 1]):
                w = indices[j]
                if w >= u or skipped[w]:  # else w's row unites it: w skips none of its arcs
                    _hook(parent, u, w)


def _afforest_parallel(indptr, indices, parent):
    """``_afforest_numba`` on numba's threads, for rows that are their whole space (one rank: no
    ghosts, so the smallest id is the root the serial kernel picks), in GAP's order: each
    sampling round hooks one neighbour of every row and compresses (short paths for the next
    round's finds, quicker than both neighbours hooked in one pass), then the rows outside the
    sampled largest tree hook the rest of their arcs. Rows hook by compare-and-swap (``_hook``).
    Returns which rows skipped, with every vertex pointing at its root."""
    n = parent.size
    skipped = np.zeros(n, np.bool_)
    if n == 0:
        return skipped
    for r in range(AFFOREST_LINKS):
        _link_round(indptr, indices, parent, r)
        _compress(parent)
    _link_unsampled(indptr, indices, parent, _largest_sampled(parent, 0, n), skipped)
    _compress(parent)
    return skipped


def block_forest(blocks, parent):
    """``spanning_forest`` of the arcs of CSR blocks over one rank's rows (lo..hi-1), read in
    place: the passes after the unions walk the rows and the heads outside them, not both ends
    of every arc. Each tree is rooted at its smallest row (not its smallest id). Returns
    (vertex, root), in ``parent``'s type on the numba engine. For a symmetric block,
    ``afforest_rows`` and ``afforest_bridges`` skip most of this work."""
    return _block_forest(blocks, parent)


def _block_forest_numpy(blocks, parent):
    lo, hi = blocks[0].lo, blocks[0].hi
    a = np.concatenate([np.repeat(np.arange(lo, hi, dtype=np.int64), blk.degree()) for blk in blocks])
    b = np.concatenate([blk.indices for blk in blocks]).astype(np.int64)
    return _rooted_forest_numpy(a, b, lo, hi, parent.size)


def _rooted_forest_numpy(a, b, lo, hi, n):
    """(vertex, root) of the arcs (a[i], b[i]), each tree rooted at its smallest row in lo..hi-1."""
    return _owned_roots(*_forest_numpy(a, b, None, 0, 0), lo, hi, n)


def _block_forest_numba(blocks, parent):
    lo, hi = blocks[0].lo, blocks[0].hi
    heads = [_union_rows_numba(blk.indptr, blk.indices, lo, hi, parent) for blk in blocks]
    return _roots(parent, np.arange(lo, hi, dtype=parent.dtype), np.concatenate(heads).astype(parent.dtype))


_block_forest = twins("block_forest", numba=_block_forest_numba, numpy=_block_forest_numpy)


def afforest_rows(block, parent):
    """Afforest's passes over a symmetric block (its rows lo..hi-1 hold every arc of theirs, as
    an undirected out-block does): unites into ``parent`` (a forest over the block's space,
    ``parent[v] == v`` on entry, roots the smallest row of their tree) every arc but those of
    the rows in the largest tree, which skip theirs. Returns which rows skipped (bool per row).
    Their arcs inside the range are redundant; those leaving it are redundant where the head's
    owner skipped it too and both largest trees are joined once (``afforest_bridges``), and are
    united at the head's owner where it did not."""
    return _afforest_rows(block, parent)


def _afforest_rows_numba(block, parent):
    whole = block.lo == 0 and block.hi == parent.size  # one rank: every slot is a row
    if whole and threads_for(block.indices.size, FOREST_GRAIN) > 1:
        return _afforest_parallel(block.indptr, block.indices, parent)
    return _afforest_numba(block.indptr, block.indices, block.lo, block.hi, parent, block.space_key is None)


def _afforest_rows_numpy(block, parent):
    """Every arc united, none skipped."""
    v, root = _block_forest_numpy([block], parent)
    parent[v] = root
    return np.zeros(block.hi - block.lo, np.bool_)


_afforest_rows = twins("afforest_rows", numba=_afforest_rows_numba, numpy=_afforest_rows_numpy)


@numba.njit(cache=True)
def _flatten_numba(parent):
    for v in range(parent.size):  # parent[v] <= v: the ones below v already point at their roots
        parent[v] = parent[parent[v]]
    return parent


def _flatten_numpy(parent):
    while True:
        up = parent[parent]
        if np.array_equal(up, parent):
            return parent
        parent[:] = up


_flatten = twins("flatten_forest", numba=_flatten_numba, numpy=_flatten_numpy)


def flatten_forest(parent):
    """Point every vertex of a forest straight at its root, in place, and return ``parent``:
    a forest whose every pointer goes to a smaller id (``parent[v] <= v``, as the unions here
    leave one over a single rank's rows), where then each root is its tree's smallest id."""
    return _flatten(parent)


def afforest_bridges(block, parent, skipped, far, cuts):
    """The forest of ``afforest_rows`` completed for a rank whose peers ran it too: ``far[w]``
    (uint8 per slot of the block's space) says whether head w's owner skipped w's arcs, and
    ``cuts[d]`` is the first slot of rank d's vertices. The skipped rows' largest tree is joined
    to one such head of each rank that has one it reaches (the first in row order): all of a
    rank's skipped vertices are in its own largest tree, so one arc joins the two trees and the
    others between them are redundant. Returns (vertex, root, giant): the pairs ``block_forest``
    returns for every non-root of the space but the skipped rows, which are most of a
    well-connected rank's rows and all in the tree rooted at ``giant`` (-1: no row skipped),
    with ``parent`` back to ``parent[v] == v``."""
    cuts = np.asarray(cuts, dtype=np.int64)
    return _bridges(block.indptr, block.indices, block.lo, block.hi, parent, skipped, far, cuts)


@numba.njit(cache=True)
def _bridges_numba(indptr, indices, lo, hi, parent, skipped, far, cuts):
    wanted = np.zeros(cuts.size - 1, np.bool_)  # ranks with a skipped vertex in this space
    for d in range(cuts.size - 1):
        for w in range(cuts[d], cuts[d + 1]):
            if far[w]:
                wanted[d] = True
                break
    left = wanted.sum()
    for r in range(hi - lo):
        if left == 0:
            break
        if not skipped[r]:
            continue
        for j in range(indptr[r], indptr[r + 1]):
            w = indices[j]
            if far[w]:  # zero inside the range
                d = np.searchsorted(cuts, w, "right") - 1
                if wanted[d]:
                    wanted[d] = False
                    left -= 1
                    _union_owned(parent, _find(parent, lo + r), w, lo, hi)
    return _roots_of_space(parent, lo, skipped)


@numba.njit(cache=True)
def _roots_of_space(parent, lo, skipped):
    """(vertex, root) for every non-root of the forest but the rows lo.. that ``skipped`` marks,
    in slot order, and those rows' root (-1: none), with ``parent`` left as ``parent[v] == v``:
    ``_roots`` over every slot, which visits each once and so needs no marks. Whether a row
    skipped is a coin flip on a skewed graph, so the row loops test it without a branch."""
    c, giant = 0, -1
    for v in range(parent.size):
        c += _find(parent, v) != v  # every vertex then points at its root
    for i in range(skipped.size):
        c -= skipped[i] & (parent[lo + i] != lo + i)
    for i in range(skipped.size):
        if skipped[i]:
            giant = parent[lo + i]
            break
    out_v = np.empty(c + 1, dtype=parent.dtype)  # room for the rows' last write
    out_r = np.empty(c + 1, dtype=parent.dtype)
    c = _emit_non_roots(parent, 0, lo, out_v, out_r, 0)
    for i in range(skipped.size):
        v = lo + i
        p = parent[v]
        out_v[c] = v
        out_r[c] = p
        c += (p != v) > skipped[i]  # kept: a non-root that did not skip
        parent[v] = v
    c = _emit_non_roots(parent, lo + skipped.size, parent.size, out_v, out_r, c)
    return out_v[:c], out_r[:c], giant


@numba.njit(cache=True)
def _emit_non_roots(parent, a, b, out_v, out_r, c):
    """Write (v, parent[v]) from ``c`` on for every non-root v in a..b-1, and make each a root;
    returns where the next pair goes."""
    for v in range(a, b):
        p = parent[v]
        if p != v:
            out_v[c] = v
            out_r[c] = p
            c += 1
            parent[v] = v
    return c


def _bridges_numpy(indptr, indices, lo, hi, parent, skipped, far, cuts):
    degree, starts = np.diff(indptr)[skipped], indptr[:-1][skipped]
    tails = np.repeat(np.arange(lo, hi, dtype=np.int64)[skipped], degree)
    at = np.arange(tails.size) + np.repeat(starts - (np.cumsum(degree) - degree), degree)  # the rows' arcs
    heads = indices[at].astype(np.int64)
    joins = far[heads] != 0
    tails, heads = tails[joins], heads[joins]
    _, first = np.unique(np.searchsorted(cuts, heads, "right"), return_index=True)  # row order
    v = np.flatnonzero(parent != np.arange(parent.size))
    a, b = np.concatenate([v, tails[first]]), np.concatenate([parent[v].astype(np.int64), heads[first]])
    parent[:] = np.arange(parent.size)
    v, root = _rooted_forest_numpy(a, b, lo, hi, parent.size)
    rows = lo + np.flatnonzero(skipped)
    giant = -1
    if rows.size:  # the skipped rows' tree: a non-root's root, or the first row, a root itself
        giant = int(root[v == rows[0]][0]) if np.any(v == rows[0]) else int(rows[0])
    on_row = (v >= lo) & (v < hi)
    left = ~on_row
    left[on_row] = ~skipped[v[on_row] - lo]
    return v[left].astype(parent.dtype), root[left].astype(parent.dtype), giant


_bridges = twins("afforest_bridges", numba=_bridges_numba, numpy=_bridges_numpy)


def _owned_roots(v, root, lo, hi, n):
    """Re-root each tree of (vertex, root) pairs at its smallest member in lo..hi-1, as the
    numba engine roots them."""
    roots = unique(root)
    members, trees = np.concatenate([v, roots]), np.concatenate([root, roots])
    owned = (members >= lo) & (members < hi)
    smallest = np.full(n, n, dtype=np.int64)
    np.minimum.at(smallest, trees[owned], members[owned])
    new = smallest[trees]
    keep = members != new
    return members[keep], new[keep]


def _forest_numpy(a, b, parent, lo, hi):
    ids = np.concatenate([a, b])
    if ids.size == 0:
        return ids, ids
    order = np.sort(ids)
    keep = np.ones(order.size, dtype=bool)
    keep[1:] = order[1:] != order[:-1]
    verts = order[keep]
    ca, cb = np.searchsorted(verts, a), np.searchsorted(verts, b)
    g = sp.coo_matrix((np.ones(a.size), (ca, cb)), shape=(verts.size, verts.size))
    _, comp = connected_components(g, directed=True, connection="weak")
    root = np.full(comp.max() + 1, np.iinfo(np.int64).max)
    np.minimum.at(root, comp, verts)
    r = root[comp]
    nonroot = r != verts
    return verts[nonroot], r[nonroot]


def spanning_forest(a, b, parent, symmetric=None):
    """Union the arcs (a[i], b[i]); return (vertex, root) for every non-root endpoint.

    Roots are the smallest id of their tree. ``parent`` is an n-long scratch array with
    parent[v] == v, left unchanged on return, so one array serves many calls. With
    ``symmetric=(lo, hi)`` every arc between two vertices of lo..hi-1 is known to come with its
    twin, so only one of the two is united (the result is the same).
    """
    a = np.ascontiguousarray(a, dtype=np.int64)
    b = np.ascontiguousarray(b, dtype=np.int64)
    lo, hi = symmetric if symmetric is not None else (0, 0)
    return _forest(a, b, parent, lo, hi)


_forest = twins("spanning_forest", numba=_forest_numba, numpy=_forest_numpy)


@numba.njit(cache=True)
def _interface_numba(v, root, lo, hi, key, tflag, vflag, anchor, best):
    keyed = key.size > 0
    m = v.size
    trees, ghosts = 0, 0
    for i in range(2 * m):  # members: every non-root, then every root (repeated)
        x = v[i] if i < m else root[i - m]
        t = root[i] if i < m else x
        if x < lo or x >= hi:
            tflag[t] |= 1
            ghosts += i < m
        elif anchor[t] == -1 or x < anchor[t]:
            anchor[t] = x
        if best[t] == -1:  # a tree first seen (from a non-root): its root counted once
            trees += 1
            ghosts += t < lo or t >= hi
            best[t] = x
        elif key[x] < key[best[t]] if keyed else x < best[t]:
            best[t] = x
    # sized exactly from the counts, since a check for room in the loop below would make it
    # several times slower: a pair per ghost, one per tree at most
    ghost_x = np.empty(ghosts, v.dtype)
    ghost_a = np.empty(ghosts, v.dtype)
    tree_a = np.empty(trees, v.dtype)
    tree_b = np.empty(trees, v.dtype)
    own_x = np.empty(hi - lo, v.dtype)  # each owned vertex once at most
    own_t = np.empty(hi - lo, v.dtype)
    c, k, o = 0, 0, 0
    for i in range(2 * m):
        x = v[i] if i < m else root[i - m]
        t = root[i] if i < m else x
        if vflag[x]:
            continue  # a root seen before
        vflag[x] = 1
        interface = (tflag[t] & 1) != 0
        owned = lo <= x < hi
        if interface:
            if not owned:
                ghost_x[c] = x
                ghost_a[c] = anchor[t]
                c += 1
            if not tflag[t] & 2:
                tflag[t] |= 2
                tree_a[k] = anchor[t]
                tree_b[k] = best[t]
                k += 1
        if owned:
            own_x[o] = x
            own_t[o] = anchor[t] if interface else best[t]
            o += 1
    for i in range(2 * m):
        x = v[i] if i < m else root[i - m]
        t = root[i] if i < m else x
        tflag[t] = 0
        anchor[t] = -1
        best[t] = -1
        vflag[x] = 0
    if 4 * k < trees:  # copies, so the room sized for every tree is freed (1D: most are local)
        tree_a, tree_b = tree_a[:k].copy(), tree_b[:k].copy()
    return (ghost_x, ghost_a), (tree_a[:k], tree_b[:k]), (own_x[:o], own_t[:o])


def _interface_numpy(v, root, lo, hi, key, tflag, vflag, anchor, best):
    kind = v.dtype  # the members returned keep the forest's type
    v, root = v.astype(np.int64), root.astype(np.int64)
    roots = unique(root)
    members = np.concatenate([v, roots])
    tree = np.concatenate([root, roots])
    ghost = (members < lo) | (members >= hi)
    order = np.argsort(tree, kind="stable")
    members, tree, ghost = members[order], tree[order], ghost[order]
    starts = np.flatnonzero(np.r_[True, tree[1:] != tree[:-1]])
    sizes = np.diff(np.r_[starts, tree.size])
    interface = np.repeat(np.logical_or.reduceat(ghost, starts), sizes)
    big = np.iinfo(np.int64).max
    anchor_of = np.repeat(np.minimum.reduceat(np.where(ghost, big, members), starts), sizes)
    k = members if key.size == 0 else key[members]
    by_key = np.lexsort((k, tree))
    best_of = np.repeat(members[by_key][starts], sizes)
    send = interface & ghost
    first = np.zeros(tree.size, dtype=bool)
    first[starts] = True
    linked = interface & first
    owned = ~ghost
    target = np.where(interface, anchor_of, best_of)[owned]
    return (
        (members[send].astype(kind), anchor_of[send].astype(kind)),
        (anchor_of[linked].astype(kind), best_of[linked].astype(kind)),
        (members[owned].astype(kind), target.astype(kind)),
    )


def component_interface(v, root, lo, hi, key, scratch):
    """Summarise a rank's spanning forest (pairs (v, root) of its arcs) for merging.

    A tree is an *interface* tree when it holds a vertex owned elsewhere; its anchor is its
    smallest owned vertex. Returns three groups, the ids in the forest's type:

    - ghosts ``(x, anchor)``: every member of an interface tree owned elsewhere, with its
      tree's anchor. An owned member's arcs to other ranks need no pair: each is in the other
      rank's forest too, where this end is the ghost.
    - trees ``(anchor, best)``: every interface tree once, with its smallest-key member.
    - owned ``(x, target)``: every owned member with its tree's anchor (interface trees) or
      smallest-key member (the others): one vertex that stands for the tree.

    Each in no particular order (the two engines return the same sets). ``scratch`` is four
    n-long arrays: two of uint8 flags, all zero, and two of int32 or int64 ids, all -1, on
    entry and on return.
    """
    tflag, vflag, anchor, best = scratch
    # the forest's pairs keep their slot type (int32 while the slots fit: half their bytes)
    kept = (np.int32, np.int64)
    args = [np.ascontiguousarray(x, dtype=x.dtype if x.dtype in kept else np.int64) for x in (v, root)]
    return _interface(*args, lo, hi, key, tflag, vflag, anchor, best)


_interface = twins("component_interface", numba=_interface_numba, numpy=_interface_numpy)
