"""The sorting-based baseline of TD-Orch 2.2 (MPC semisort, broadcast, reverse).

1. Sample sort by (address, task position): splitters from a sample of every rank, then every
   task moves to the rank of its splitter range, so each rank gets an even share even when one
   address takes most tasks (its run spans several consecutive ranks).
2. Broadcast: the first rank of each address's run fetches its data row from the owner; runs
   that span ranks copy it along by recursive doubling (log2(span) rounds).
3. Tasks run; values merge per address, back along the doubling to the run's first rank, which
   sends one write-back to the owner (the reverse broadcast).
4. Reverse sort: results return to the tasks' own ranks.
"""

from __future__ import annotations

import math

import numpy as np

from ..kernels import unique
from .stage import group_rows

SAMPLE = 128  # per rank; splitters are even quantiles of the union


def _pairs(keys, gid):
    out = np.empty(keys.size, dtype=[("k", "<i8"), ("g", "<i8")])
    out["k"], out["g"] = keys, gid
    return out


def _spans(bounds):
    """Runs crossing ranks: ``{key: [ranks holding it, in order]}`` from every rank's
    (first key, last key, count)."""
    spans = {}
    full = [(r, int(b[0]), int(b[1])) for r, b in enumerate(bounds) if b[2] > 0]
    for r, first, last in full:
        for key in {first, last}:
            if key not in spans:
                holders = [s for s, f, l in full if f <= key <= l]
                if len(holders) > 1:
                    spans[key] = holders
    return spans


def sort(st):
    ranks, P = st.ctx.ranks, st.P
    samples = {}
    for r in ranks:
        rows = st.live(r)
        pick = rows[np.linspace(0, rows.size - 1, min(rows.size, SAMPLE)).astype(np.int64)] if rows.size else rows
        samples[r] = [st.tkeys[r][pick], st.gid[r][pick]]
    pool = st.ctx.allgather(samples)
    pool = np.sort(_pairs(np.concatenate([p[0] for p in pool]), np.concatenate([p[1] for p in pool])))
    splitters = pool[(np.arange(1, P) * pool.size) // P] if pool.size else pool

    send = {}
    for r in ranks:
        rows = st.live(r)
        dest = np.searchsorted(splitters, _pairs(st.tkeys[r][rows], st.gid[r][rows]), side="right")
        send[r] = {d: st.task_arrays(r, rows[idx]) for d, idx in group_rows(dest, P).items()}
    moved = st.exchange(send)
    held = {}
    for r in ranks:
        keys, gid, tasks = st.task_table(moved[r])
        order = np.lexsort((gid, keys))
        held[r] = (keys[order], gid[order], tasks.iloc[order].reset_index(drop=True))
    bounds = st.ctx.allgather(
        {r: [np.array([k[0], k[-1], k.size] if k.size else [0, 0, 0], dtype=np.int64)] for r, (k, _, _) in held.items()}
    )
    spans = _spans([b[0] for b in bounds])

    # broadcast: run starts fetch, then copies double along each run
    starts = {}
    for r in ranks:
        uk = unique(held[r][0])
        starts[r] = np.array([k for k in uk.tolist() if spans.get(k, [r])[0] == r], dtype=np.int64)
    requests = st.exchange({r: st.route(starts[r], lambda idx, r=r: [starts[r][idx]]) for r in ranks})
    replies = st.exchange({o: {src: st.data_arrays(o, a[0]) for src, a in requests[o]} for o in ranks})
    have = {r: st.data_table([a for _, a in replies[r]]) for r in ranks}
    rounds = math.ceil(math.log2(max((len(h) for h in spans.values()), default=1)))
    for t in range(rounds):
        send = {r: {} for r in ranks}
        for key, holders in spans.items():
            for p in range(min(2**t, len(holders) - 2**t)):
                src, dst = holders[p], holders[p + 2**t]
                if src in send:
                    dkeys, data = have[src]
                    at = np.flatnonzero(dkeys == key)[:1]
                    send[src][dst] = st.row_arrays(dkeys[at], data.iloc[at])
        for r, got in st.exchange(send).items():
            if got:
                have[r] = st.data_table([st.row_arrays(*have[r])] + [a for _, a in got])

    # run, merge per address, reduce back along the runs, write back from the run starts
    executed, partials = {}, {}
    for r in ranks:
        keys, gid, tasks = held[r]
        dkeys, data = have[r]
        order = np.argsort(dkeys)
        values = st.execute(tasks, data.iloc[order[np.searchsorted(dkeys[order], keys)]])
        executed[r] = (gid, values)
        partials[r] = st.merge.reduce(keys, st.partial(values, tasks, gid))
    for t in reversed(range(rounds)):
        send = {r: {} for r in ranks}
        for key, holders in spans.items():
            for p in range(min(2**t, len(holders) - 2**t)):
                src, dst = holders[p + 2**t], holders[p]
                if src in send:
                    k, parts = partials[src]
                    at = int(np.flatnonzero(k == key)[0])
                    send[src][dst] = [k[at : at + 1], *(x[at : at + 1] for x in parts)]
                    partials[src] = (np.delete(k, at), [np.delete(x, at) for x in parts])
        for r, got in st.exchange(send).items():
            for _, arrays in got:
                k, parts = partials[r]
                partials[r] = st.merge.reduce(
                    np.concatenate([k, arrays[0]]), [np.concatenate([x, y]) for x, y in zip(parts, arrays[1:])]
                )
    writes = {
        r: st.route(k, lambda idx, k=k, parts=parts: [k[idx], *(x[idx] for x in parts)])
        for r, (k, parts) in partials.items()
    }
    for o, got in st.exchange(writes).items():
        for _, arrays in got:
            st.write(o, arrays[0], arrays[1:])
    return executed
