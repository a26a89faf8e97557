"""Device twins of the sparse products and PageRank's power iteration: a thread per row (per
run of a segment, segment after segment), each row summed in CSR order as the host engines do."""

from __future__ import annotations

import numpy as np
from numba import cuda

from . import device


@cuda.jit
def _spmv_rows(indptr, indices, weights, weighted, x, out):
    for r in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        s = np.float64(0.0)  # float32 values too add in float64 (the simulator's 0.0 would not)
        for e in range(indptr[r], indptr[r + 1]):
            s += x[indices[e]] * weights[e] if weighted else x[indices[e]]
        out[r] = s


@cuda.jit
def _spmv_runs(first, count, row_of, rptr, indices, weights, weighted, x, out):
    # runs first..first+count-1 of one segment: distinct rows, so no two threads add to one
    for i in range(cuda.grid(1), count, cuda.gridsize(1)):
        k = first + i
        s = np.float64(0.0)
        for e in range(rptr[k], rptr[k + 1]):
            s += x[indices[e]] * weights[e] if weighted else x[indices[e]]
        out[row_of[k]] += s


@cuda.jit
def _step(pulled, pr, p, outw, alpha, dangling_sum, contrib, sums):
    # sums[0]: L1 change, sums[1]: rank on dangling vertices
    for i in range(cuda.grid(1), pr.size, cuda.gridsize(1)):
        new = alpha * (pulled[i] + dangling_sum * p[i]) + (1.0 - alpha) * p[i]
        cuda.atomic.add(sums, 0, abs(new - pr[i]))
        pr[i] = new
        if outw[i] == 0:
            cuda.atomic.add(sums, 1, new)
            contrib[i] = 0.0
        else:
            contrib[i] = new / outw[i]


def _weights(weights):
    return (device.resident(weights), True) if weights is not None else (device.empty(0, np.float64), False)


def spmv(indptr, indices, weights, x, out):
    w, weighted = _weights(weights)
    y = device.empty(out.size, np.float64)
    device.launch(
        _spmv_rows,
        out.size,
        device.resident(indptr),
        device.resident(indices),
        w,
        weighted,
        device.mirror(x) if x.dtype.kind == "f" else device.upload(x, np.float64),
        y,
    )
    device.download(y, out)


def spmv_segments(runs, row_of, rptr, indices, weights, x, out):
    # a launch per segment, in order, so each row adds its segments' sums as the host does
    w, weighted = _weights(weights if weights.size else None)
    rows, ptr, idx = device.resident(row_of), device.resident(rptr), device.resident(indices)
    d_x = device.mirror(x) if x.dtype.kind == "f" else device.upload(x, np.float64)
    y = device.full(out.size, 0.0, np.float64)
    for g in range(runs.size - 1):
        count = int(runs[g + 1] - runs[g])
        if count:
            device.launch(_spmv_runs, count, int(runs[g]), count, rows, ptr, idx, w, weighted, d_x, y)
    device.download(y, out)


def _run_step(d_pulled, d_pr, d_p, d_outw, alpha, dangling_sum, d_contrib):
    sums = device.full(2, 0.0, np.float64)
    device.launch(_step, d_pr.size, d_pulled, d_pr, d_p, d_outw, alpha, dangling_sum, d_contrib, sums)
    change, dangling = device.download(sums)
    return float(change), float(dangling)


def pagerank_step(pulled, pr, p, outw, alpha, dangling_sum, contrib):
    # the rank's ranks, teleport and out-weights stay on the device between iterations (the
    # last two never change, the first is what the device wrote): only the pulled sums go up
    d_pr, d_contrib = device.mirror(pr), device.empty(contrib.size, contrib.dtype)
    d_p, d_outw = device.mirror(p), device.mirror(outw)
    out = _run_step(device.upload(pulled), d_pr, d_p, d_outw, alpha, dangling_sum, d_contrib)
    device.download(d_pr, pr)
    device.synced(pr)
    device.download(d_contrib, contrib)
    return out


def power_iterations(indptr, indices, weights, pr, p, outw, contrib, alpha, dangling, max_iter, tol_total):
    """Every iteration on the device: only two floats a round come back until the end."""
    w, weighted = _weights(weights)
    ptr, idx = device.resident(indptr), device.resident(indices)
    d_pr, d_p, d_outw, d_contrib = (device.upload(a) for a in (pr, p, outw, contrib))
    pulled = device.empty(pr.size, np.float64)
    updates, change = 0, 0.0
    while updates < max_iter and (updates == 0 or change >= tol_total):
        device.launch(_spmv_rows, pr.size, ptr, idx, w, weighted, d_contrib, pulled)
        change, dangling = _run_step(pulled, d_pr, d_p, d_outw, alpha, dangling, d_contrib)
        updates += 1
    device.download(d_pr, pr)
    device.download(d_contrib, contrib)
    return updates, change


# kernel name -> device twin (dgraph.kernels.engines adds them to their kernels)
TWINS = {
    "spmv": spmv,
    "spmv_segments": spmv_segments,
    "pagerank_step": pagerank_step,
    "power_iterations": power_iterations,
}
