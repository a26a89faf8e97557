"""Transports: how a superstep's per-rank buckets reach their ranks.

``DirectTransport`` sends one message per peer rank, bundled into one frame per worker pair on
the run's channels; ranks that share a worker exchange in memory. Every collective is one round
of the channel mesh, and every logical message is counted in the run's stats.

For study, the ``dgraph.study-link`` dask config of a worker, ``(latency seconds, bytes a
second)``, makes each of its rounds last as long as that link would take for the larger of the
bytes it sends and receives (a slower network than the one under the test, for benchmarks).
"""

from __future__ import annotations

import math
import time

import dask
import numpy as np

_REDUCE = {"sum": np.add, "min": np.minimum, "max": np.maximum, "any": np.logical_or}


def reducer(op):
    """The function that reduces two ranks' arrays by ``op``: a name of ``_REDUCE``, or a tuple
    of names, one per element (a round's facts that reduce differently ride in one array)."""
    if isinstance(op, str):
        return _REDUCE[op]
    fns = [_REDUCE[name] for name in op]
    return lambda a, b: np.array([fn(x, y) for fn, x, y in zip(fns, a, b)], dtype=np.result_type(a, b))


def _nbytes(arrays):
    return sum(int(a.nbytes) for a in arrays)


class DirectTransport:
    name = "direct"

    def __init__(self, mesh, worker_of_rank, my_worker, local_ranks, stats):
        self.mesh = mesh
        self.worker_of_rank = worker_of_rank
        self.me = my_worker
        self.local_ranks = local_ranks
        self.stats = stats
        self.nranks = len(worker_of_rank)
        self.peers = sorted(mesh.sockets) if mesh is not None else []
        self.wire_rounds = 0
        self.link = dask.config.get("dgraph.study-link", None)

    def _round(self, per_peer):
        """One round of the channel mesh: a frame to and from every peer worker."""
        from .channels import encode

        self.wire_rounds += 1
        step = self.wire_rounds
        if not self.peers:
            return {}
        frames, sent = {}, 0
        for p in self.peers:
            bufs, size = encode(step, per_peer.get(p, []))
            frames[p] = bufs
            sent += size
            self.stats.wire_bytes += size
            self.stats.wire_frames += 1
        started = time.perf_counter()
        got = self.mesh.round(step, frames)
        if self.link is not None:
            latency, bandwidth = self.link
            received = sum(_nbytes(a) for entries in got.values() for _, _, a in entries)
            time.sleep(max(0.0, latency + max(sent, received) / bandwidth - (time.perf_counter() - started)))
        return got

    def alltoall(self, send, total=None, op="sum", combine=None):
        """``send[src][dst] = [arrays]`` for local src ranks -> ``{dst: [(src, [arrays])]}``.

        With ``total`` (one small array per local rank) the round also reduces those arrays
        over all ranks with ``op``, riding in the same frames, and returns ``(received,
        reduced)``: a collective and an allreduce for the price of one round. ``combine(dst,
        [arrays, ...]) -> arrays`` may merge messages bound for one rank where a transport
        forwards them (not here: direct messages are never held together).
        """
        self.stats.begin_step()
        out = {r: [] for r in self.local_ranks}
        per_peer = {}
        moved = 0
        local_sum = None
        fn = reducer(op)
        if total is not None:
            local_sum = self._local_reduce(total, fn)
            moved += self._count_reduce(local_sum.nbytes)
            for w in self.peers:
                per_peer[w] = [(-1, -1, [local_sum])]
        moved += self._sort(send, out, per_peer)
        received = self._round(per_peer)
        for entries in received.values():
            for src, dst, arrays in entries:
                if src < 0:
                    local_sum = fn(local_sum, arrays[0].astype(local_sum.dtype, copy=False))
                else:
                    out[dst].append((src, arrays))
        for lst in out.values():
            lst.sort(key=lambda item: item[0])
        self.stats.step_bytes.append(("alltoall", moved))
        return out if total is None else (out, local_sum)

    def _sort(self, send, local, remote):
        """Put each message of ``send`` in ``local[dst]`` (as (src, arrays)) when its rank is on
        this worker, else in ``remote[worker]`` (as (src, dst, arrays)); count every message
        between ranks at once. Returns the bytes counted."""
        counted = []  # (src, dst, bytes)
        for src in self.local_ranks:
            for dst, arrays in send.get(src, {}).items():
                arrays = list(arrays)
                if dst != src:
                    counted.append((src, dst, _nbytes(arrays)))
                w = self.worker_of_rank[dst]
                if w == self.me:
                    local[dst].append((src, arrays))
                else:
                    remote.setdefault(w, []).append((src, dst, arrays))
        if not counted:
            return 0
        srcs, dsts, sizes = np.array(counted, dtype=np.int64).T
        self.stats.record_many(srcs, dsts, sizes)
        return int(sizes.sum())

    def _local_reduce(self, values, fn):
        local = None
        for r in self.local_ranks:
            v = np.atleast_1d(np.asarray(values[r]))
            local = v.copy() if local is None else fn(local, v)
        return local

    def _count_reduce(self, size):
        """Count an allreduce of ``size`` bytes as recursive doubling sends it: ceil(log2 P)
        messages per rank."""
        if self.nranks == 1:
            return 0  # nothing to count (and this runs every superstep)
        steps = math.ceil(math.log2(self.nranks))
        ranks = np.repeat(np.asarray(self.local_ranks, dtype=np.int64), steps)
        partners = ranks ^ np.tile(1 << np.arange(steps, dtype=np.int64), len(self.local_ranks))
        keep = partners < self.nranks
        self.stats.record_many(ranks[keep], partners[keep], size)
        return int(np.count_nonzero(keep)) * size

    def allgather(self, pieces):
        """``pieces[rank] = [arrays]`` for local ranks -> a list over all ranks of their arrays."""
        self.stats.begin_step()
        out = [None] * self.nranks
        entries = []
        moved = 0
        others = np.arange(self.nranks, dtype=np.int64)
        for r in self.local_ranks:
            arrays = list(pieces[r])
            out[r] = arrays
            size = _nbytes(arrays)
            self.stats.record_many(r, others[others != r], size)
            moved += size * (self.nranks - 1)
            entries.append((r, -1, arrays))
        received = self._round({p: entries for p in self.peers})
        for entries_in in received.values():
            for src, _, arrays in entries_in:
                out[src] = arrays
        self.stats.step_bytes.append(("allgather", moved))
        return out

    def allreduce(self, values, op="sum"):
        """Reduce one small array per local rank over all ranks; every rank gets the result.

        Counted as recursive doubling would send it: ceil(log2 P) messages per rank.
        """
        self.stats.begin_step()
        fn = reducer(op)
        local = self._local_reduce(values, fn)
        moved = self._count_reduce(int(local.nbytes))
        received = self._round({p: [(-1, -1, [local])] for p in self.peers})
        for entries in received.values():
            for _, _, arrays in entries:
                local = fn(local, arrays[0].astype(local.dtype, copy=False))
        self.stats.step_bytes.append(("allreduce", moved))
        return local

    def barrier(self):
        self.allreduce({r: np.zeros(1, dtype=np.int8) for r in self.local_ranks}, "max")
