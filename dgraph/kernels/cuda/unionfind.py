"""Device twins of the spanning forests: hooking and pointer jumping (Shiloach-Vishkin, as GPU
connected-components codes run it). Every arc hooks the larger of its two ends' roots under the
smaller with an atomic min, then every vertex jumps to its root; parents only decrease, so the
forest stays acyclic, and rounds repeat until no arc joins two trees. Each tree's root is then
its smallest id, as the host engines root them (re-rooted at the smallest row for a rank's
block)."""

from __future__ import annotations

import numpy as np
from numba import cuda

from . import device
from .frontier import _arcs_on_device


@cuda.jit(device=True)
def _root(parent, x):
    while parent[x] != x:
        x = parent[x]
    return x


@cuda.jit
def _identity(parent):
    for i in range(cuda.grid(1), parent.size, cuda.gridsize(1)):
        parent[i] = i


@cuda.jit
def _hook(a, b, parent, changed):
    for j in range(cuda.grid(1), a.size, cuda.gridsize(1)):
        x, y = _root(parent, a[j]), _root(parent, b[j])
        if x != y:
            lo, hi = min(x, y), max(x, y)
            if cuda.atomic.min(parent, hi, lo) > lo:
                changed[0] = 1


@cuda.jit
def _jump(parent):
    for i in range(cuda.grid(1), parent.size, cuda.gridsize(1)):
        parent[i] = _root(parent, i)


def _components(a, b, size):
    """Each of ``size`` vertices' smallest connected id under arcs (a[j], b[j]) (device arrays)."""
    parent = device.empty(size, np.int64)
    device.launch(_identity, size, parent)
    changed = device.full(1, 1, np.int64)
    while a.size and device.download(changed)[0]:
        changed = device.full(1, 0, np.int64)
        device.launch(_hook, a.size, a, b, parent, changed)
        device.launch(_jump, size, parent)
    return parent


@cuda.jit
def _mark(ids, flags):
    for j in range(cuda.grid(1), ids.size, cuda.gridsize(1)):
        flags[ids[j]] = 1


@cuda.jit
def _non_roots(comp, flags, root_of, out_v, out_r, count):
    # every marked vertex whose root is not itself, with that root
    for x in range(cuda.grid(1), comp.size, cuda.gridsize(1)):
        if flags[x]:
            r = root_of[comp[x]] if root_of.size else comp[x]
            if r != x:
                c = cuda.atomic.add(count, 0, 1)
                out_v[c] = x
                out_r[c] = r


def _pairs(comp, flags, root_of):
    size = comp.size
    out_v, out_r, count = device.empty(size, np.int64), device.empty(size, np.int64), device.full(1, 0, np.int64)
    device.launch(_non_roots, size, comp, flags, root_of, out_v, out_r, count)
    c = int(device.download(count)[0])
    return device.download(out_v[:c]), device.download(out_r[:c])


def spanning_forest(a, b, parent, lo, hi):
    d_a, d_b = device.upload(a), device.upload(b)
    comp = _components(d_a, d_b, parent.size)
    flags = device.full(parent.size, 0, np.int8)
    for ends in (d_a, d_b):
        if ends.size:
            device.launch(_mark, ends.size, ends, flags)
    return _pairs(comp, flags, device.empty(0, np.int64))


@cuda.jit
def _owned_roots(comp, lo, hi, root_of):
    for x in range(lo + cuda.grid(1), hi, cuda.gridsize(1)):
        cuda.atomic.min(root_of, comp[x], x)


@cuda.jit
def _touch(dst, flags):
    for j in range(cuda.grid(1), dst.size, cuda.gridsize(1)):
        flags[dst[j]] = 1


def block_forest(blocks, parent):
    lo, hi = blocks[0].lo, blocks[0].hi
    size, rows = parent.size, np.arange(hi - lo, dtype=np.int64)
    flags = device.full(size, 0, np.int8)
    tails, heads = [], []
    for blk in blocks:
        pos, dst, _, total = _arcs_on_device(blk.indptr, blk.indices, np.empty(0), rows)
        if total:
            device.launch(_touch, total, dst, flags)
            tails.append(pos)
            heads.append(dst)
    a = _concat(tails, lo)
    b = _concat(heads, 0)
    comp = _components(a, b, size)
    if hi > lo:
        device.launch(_mark, hi - lo, device.upload(np.arange(lo, hi, dtype=np.int64)), flags)
    root_of = device.full(size, np.iinfo(np.int64).max, np.int64)
    if hi > lo:  # every tree holds a row (each arc's tail is one): its smallest becomes the root
        device.launch(_owned_roots, hi - lo, comp, lo, hi, root_of)
    return _pairs(comp, flags, root_of)


@cuda.jit
def _shift(src, offset, out, at):
    for j in range(cuda.grid(1), src.size, cuda.gridsize(1)):
        out[at + j] = src[j] + offset


def _concat(parts, offset):
    """Device arrays one after another, plus ``offset`` (row positions to vertex ids)."""
    out = device.empty(sum(p.size for p in parts), np.int64)
    at = 0
    for p in parts:
        device.launch(_shift, p.size, p, offset, out, at)
        at += p.size
    return out


def afforest_rows(block, parent):
    """Every arc united on the device, none skipped: the forest written into ``parent``."""
    v, root = block_forest([block], parent)
    parent[v] = root
    return np.zeros(block.hi - block.lo, np.bool_)


# kernel name -> device twin (dgraph.kernels.engines adds them to their kernels)
TWINS = {"spanning_forest": spanning_forest, "block_forest": block_forest, "afforest_rows": afforest_rows}
