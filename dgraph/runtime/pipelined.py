"""The pipelined transport: a superstep's exchange cut into blocks that move while earlier
blocks are merged (the accelerator middleware's pipeline shuffle).

The bytes bound for the busiest peer, d, go in s = ceil(d / b) sub-rounds of the channel
mesh: every message to another worker is cut into s pieces of about equal rows by the
exchange's ``combine.cut(dst, message, s)`` when it has one (the edge map's: heads, values and
tails, a bitmap of heads cut too), else by rows when its arrays are rows of one length, and
piece k of every message travels in sub-round k. An agent thread runs the sub-rounds (sending block
k + 1 and receiving the peers' block k + 1) while the driver thread merges block k per
destination rank with the exchange's ``combine``: the paper's three buffers, next (arriving),
compute (merging) and upload (leaving), rotating once a sub-round. The owner merges the merged
blocks as it merges any messages (a final pass over fewer, pre-merged rows). An exchange
without ``combine`` (nothing to merge while data moves), and every collective that is not an
alltoall, goes as the direct transport sends it.

Sub-rounds continue until every worker has sent its last block: each frame says whether it
carries its sender's last, and every worker sees every other's frames, so all stop together.
The block size comes from ``blocksize.choose`` (the paper's T_total(b) model) with costs
measured on the run's own exchanges, or from the ``dgraph.pipeline-block-bytes`` dask config.
"""

from __future__ import annotations

import queue
import threading
import time

from . import blocksize
from .exchange import DirectTransport, _nbytes, reducer

LAST = -2  # an entry's source rank that marks its frame as the sender's last
PROBES = 4  # exchanges of one block that still time a merge, so the model knows its cost


def _rows(arrays):
    """The row count of a message cut by rows, or None (arrays of unequal lengths)."""
    sizes = {a.shape[0] for a in arrays}
    return sizes.pop() if len(sizes) == 1 else None


def _cut(arrays, pieces):
    """A message's arrays in up to ``pieces`` blocks of about equal rows (one block if they are
    not rows of one length)."""
    rows = _rows(arrays)
    if not rows:
        return [arrays]
    step = max(-(-rows // pieces), 1)
    return [[a[i : i + step] for a in arrays] for i in range(0, rows, step)]


def _merge_all(held, combine):
    """Merge what each destination rank holds into one message (kept under its least source)."""
    for dst, messages in held.items():
        if len(messages) > 1:
            held[dst] = [(min(src for src, _ in messages), combine(dst, [m for _, m in messages]))]


class PipelinedTransport(DirectTransport):
    name = "pipelined"

    def __init__(self, mesh, worker_of_rank, my_worker, local_ranks, stats, block_bytes=None):
        super().__init__(mesh, worker_of_rank, my_worker, local_ranks, stats)
        self.costs = blocksize.Costs()
        self.fixed = block_bytes  # the dgraph.pipeline-block-bytes config of the client, if set

    def alltoall(self, send, total=None, op="sum", combine=None):
        if combine is None or not self.peers:
            return super().alltoall(send, total, op, combine)
        self.stats.begin_step()
        started = time.perf_counter()
        fn = reducer(op)
        local_sum = None if total is None else self._local_reduce(total, fn)
        moved = 0 if total is None else self._count_reduce(local_sum.nbytes)
        held = {r: [] for r in self.local_ranks}  # dst -> messages merged so far (at most one after a block)
        remote = {}
        moved += self._sort(send, held, remote)
        # the busiest peer's bytes: transfers to different peers overlap
        d = max((sum(_nbytes(m[2]) for m in entries) for entries in remote.values()), default=0)
        b = self._block_bytes(d)
        rounds = self._sub_rounds(remote, max(-(-d // b), 1), local_sum, getattr(combine, "cut", None))
        predicted = self.costs.predict(d, b)
        totals = [local_sum]

        def take(item, merge):
            """Add one sub-round's arrivals to what each destination holds, merged per
            destination with ``merge`` (the pipeline's compute stage, timed for the model)."""
            t, nbytes, fresh = time.perf_counter(), 0, {}
            for entries in item.values():
                for src, dst, arrays in entries:
                    if src == -1:
                        totals[0] = fn(totals[0], arrays[0].astype(totals[0].dtype, copy=False))
                    elif src != LAST:
                        fresh.setdefault(dst, []).append((src, arrays))
                        nbytes += _nbytes(arrays)
            if merge:
                _merge_all(fresh, combine)
                self.costs.merged(time.perf_counter() - t, nbytes)
            for dst, messages in fresh.items():
                held[dst].extend(messages)

        if len(rounds) == 1:  # one block: nothing to overlap, the owner merges once as in direct
            probe = len(self.costs.merges) < PROBES  # but the model needs the merge's cost
            self._agent(rounds, lambda item: take(item, probe), inline=True)
        else:  # the agent moves block k + 1 while this thread merges block k
            arrived = queue.Queue()
            agent = threading.Thread(
                target=self._agent, args=(rounds, arrived.put), name="dgraph-pipeline", daemon=True
            )
            agent.start()
            _merge_all(held, combine)  # this worker's own messages, while the first block travels
            for item in iter(arrived.get, None):
                if isinstance(item, BaseException):
                    agent.join()
                    raise item
                take(item, True)
            agent.join()
        local_sum = totals[0]
        out = {r: held[r] for r in self.local_ranks}
        if d >= self.stats.info.get("pipeline_bytes", -1):  # the run's largest exchange
            model = self.costs.model()
            self.stats.info.update(
                pipeline_bytes=int(d),
                pipeline_block_bytes=int(b),
                pipeline_blocks=len(rounds),
                pipeline_predicted_s=round(predicted, 6),
                pipeline_measured_s=round(time.perf_counter() - started, 6),
                pipeline_costs=None if model is None else tuple(float(f"{c:.3g}") for c in model),
            )
        self.stats.step_bytes.append(("alltoall", moved))
        return out if total is None else (out, local_sum)

    def _block_bytes(self, d):
        return int(self.fixed) if self.fixed else self.costs.choose(d)

    def _sub_rounds(self, remote, s, local_sum, cutter):
        """Per sub-round, each peer's entries: piece k of every message cut in ``s``, the
        reduced totals in the first, and the LAST marker in this worker's last."""
        per_peer = {p: [] for p in self.peers}
        for w, entries in remote.items():
            for src, dst, arrays in entries:
                blocks = cutter(dst, arrays, s) if cutter is not None and s > 1 else _cut(arrays, s)
                for k, block in enumerate(blocks):
                    while len(per_peer[w]) <= k:
                        per_peer[w].append([])
                    per_peer[w][k].append((src, dst, block))
        count = max([len(v) for v in per_peer.values()] + [1])
        rounds = [{p: (per_peer[p][k] if k < len(per_peer[p]) else []) for p in self.peers} for k in range(count)]
        if local_sum is not None:
            for p in self.peers:
                rounds[0][p] = [(-1, -1, [local_sum]), *rounds[0][p]]
        for p in self.peers:
            rounds[-1][p] = [*rounds[-1][p], (LAST, LAST, [])]
        return rounds

    def _agent(self, rounds, put, inline=False):
        """Run sub-rounds until every peer has sent its last block, handing each round's
        entries to ``put`` as they arrive, then None; on a thread of its own (not ``inline``)
        an error is handed over too, for the driver to raise."""
        try:
            open_peers, k = set(self.peers), 0
            while k < len(rounds) or open_peers:
                frames = rounds[k] if k < len(rounds) else {p: [] for p in self.peers}
                sent = sum(_nbytes(a) for entries in frames.values() for _, _, a in entries)
                t = time.perf_counter()
                got = self._round(frames)
                received = sum(_nbytes(a) for entries in got.values() for _, _, a in entries)
                self.costs.moved(time.perf_counter() - t, sent + received)
                for p, entries in got.items():
                    if any(src == LAST for src, _, _ in entries):
                        open_peers.discard(p)
                put(got)
                k += 1
        except BaseException as exc:  # a lost peer or an aborted run: the driver raises it
            if inline:
                raise
            put(exc)
            return
        if not inline:
            put(None)
