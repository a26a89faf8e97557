"""TuCOMM's hierarchy-aware aggregation as a transport (TuCOMM sections 5 and 6).

A message to a rank of another domain is not sent there: it goes to the monitor of its source
domain, which packs everything its domain sends to one target domain into one message for that
domain's monitor, which unpacks and hands each piece to its rank. With nested domains the route
climbs to the level where the two ends meet, crosses once, and descends (``Domains.next_hop``).
Messages inside a smallest domain go direct. So a superstep sends one message per domain pair
across the expensive links instead of one per rank pair, and takes ``2 x levels + 1`` rounds.

Every hop is counted as a message between the two ranks (an entry that is forwarded carries 12
bytes of routing: its source and destination ranks and its array count). A monitor splits
what it sends to one peer into messages of at most ``flush_bytes`` (TuCOMM's buffer threshold,
6.2); within one BSP round all sealed buffers of a monitor leave in the same frame, so the
active/reserved buffer pair reduces to this split.

Collectives: ``alltoall`` routes as above; ``allgather`` routes each piece to every rank the same
way (pieces are small: samples and bounds); ``allreduce`` is counted as the domains would run
it: each rank to its monitor, recursive doubling among the top monitors, and back down.
"""

from __future__ import annotations

import math

import numpy as np

from .exchange import DirectTransport, _nbytes, reducer

ROUTING_BYTES = 12  # per forwarded entry: source rank, destination rank, array count (int32 each)
DEFAULT_FLUSH_BYTES = 4 << 20


class GroupedTransport(DirectTransport):
    name = "grouped"

    def __init__(
        self, mesh, worker_of_rank, my_worker, local_ranks, stats, domains, *, flush_bytes=DEFAULT_FLUSH_BYTES
    ):
        super().__init__(mesh, worker_of_rank, my_worker, local_ranks, stats)
        self.domains = domains
        self.flush_bytes = int(flush_bytes)

    def _route(self, entries, total=None, op="sum", combine=None):
        """Move ``entries`` [(at rank, source rank, destination rank, arrays)] held by local
        ranks to their destinations, hop by hop; ``total`` rides in the first round. With
        ``combine``, entries a monitor forwards to one destination merge into one (it then
        carries the smallest source rank). Returns the delivered ``{dst: [(src, arrays)]}``,
        the reduced total (or None) and the bytes moved."""
        out = {r: [] for r in self.local_ranks}
        fn = reducer(op)
        local_sum = self._local_reduce(total, fn) if total is not None else None
        moved = self._count_reduce(int(local_sum.nbytes)) if total is not None else 0
        for hop in range(self.domains.rounds()):
            held = []
            for at, src, dst, arrays in entries:
                if at == dst:
                    out[dst].append((src, arrays))
                else:
                    held.append((at, src, dst, arrays))
            if hop and not held and not self.peers:
                break
            nxt = self.domains.next_hop([e[0] for e in held], [e[2] for e in held]) if held else []
            bundles = {}
            for e, n in zip(held, np.asarray(nxt).tolist()):
                bundles.setdefault((e[0], n), []).append(e)
            if combine is not None:
                bundles = {key: _combined(group, combine) for key, group in bundles.items()}
            per_peer = {w: [(-1, -1, [local_sum])] for w in self.peers} if (hop == 0 and total is not None) else {}
            entries = []
            for (at, n), group in bundles.items():
                moved += self._count_bundle(at, n, group)
                w = self.worker_of_rank[n]
                for _, src, dst, arrays in group:
                    if w == self.me:
                        entries.append((n, src, dst, arrays))
                    else:  # frame entries name the hop's next rank; the header carries the route
                        per_peer.setdefault(w, []).append((src, n, [np.array([dst], np.int64), *arrays]))
            received = self._round(per_peer)
            for got in received.values():
                for src, n, arrays in got:
                    if src < 0:
                        local_sum = fn(local_sum, arrays[0].astype(local_sum.dtype, copy=False))
                    else:
                        entries.append((n, src, int(arrays[0][0]), arrays[1:]))
        for at, src, dst, arrays in entries:
            out[dst].append((src, arrays))
        for lst in out.values():
            lst.sort(key=lambda item: item[0])
        return out, local_sum, moved

    def _count_bundle(self, at, nxt, group):
        """Count one hop's bundle as messages of at most ``flush_bytes`` each."""
        moved, size, open_ = 0, 0, False
        for _, src, dst, arrays in group:
            piece = _nbytes(arrays) + (0 if (src == at and dst == nxt) else ROUTING_BYTES)
            if open_ and size + piece > self.flush_bytes:
                self.stats.record(at, nxt, size)
                moved, size = moved + size, 0
            size += piece
            open_ = True
        if open_:
            self.stats.record(at, nxt, size)
            moved += size
        return moved

    def _count_reduce(self, size):
        """Each rank to its monitor at every level, recursive doubling among the top monitors,
        and the result back down the same way."""
        moved, d = 0, self.domains
        for r in self.local_ranks:
            at = r
            for k in range(d.depth):
                mon = int(d.monitor[k][d.level[k][at]])
                if mon != at:
                    for a, b in ((at, mon), (mon, at)):
                        self.stats.record(a, b, size)
                        moved += size
                    break
            else:
                tops = d.monitor[d.depth - 1]
                me = int(np.flatnonzero(tops == r)[0])
                for i in range(math.ceil(math.log2(tops.size)) if tops.size > 1 else 0):
                    partner = me ^ (1 << i)
                    if partner < tops.size:
                        self.stats.record(r, int(tops[partner]), size)
                        moved += size
        return moved

    def alltoall(self, send, total=None, op="sum", combine=None):
        self.stats.begin_step()
        entries = [
            (src, src, dst, list(arrays)) for src in self.local_ranks for dst, arrays in send.get(src, {}).items()
        ]
        out, reduced, moved = self._route(entries, total, op, combine)
        self.stats.step_bytes.append(("alltoall", moved))
        return out if total is None else (out, reduced)

    def allgather(self, pieces):
        self.stats.begin_step()
        entries = [(r, r, d, list(pieces[r])) for r in self.local_ranks for d in range(self.nranks) if d != r]
        got, _, moved = self._route(entries)
        out = [None] * self.nranks
        for r in self.local_ranks:
            out[r] = list(pieces[r])
        for lst in got.values():
            for src, arrays in lst:
                out[src] = arrays
        self.stats.step_bytes.append(("allgather", moved))
        return out


def _combined(group, combine):
    """One entry per destination: entries of a bundle bound for the same rank merged."""
    by_dst = {}
    for e in group:
        by_dst.setdefault(e[2], []).append(e)
    out = []
    for dst, same in by_dst.items():
        if len(same) == 1:
            out.append(same[0])
        else:
            out.append((same[0][0], min(e[1] for e in same), dst, combine(dst, [e[3] for e in same])))
    return out
