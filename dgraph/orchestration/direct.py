"""The two direct baselines of TD-Orch 2.2.

``push``: every task goes to the rank that owns its address, runs there, and its write-back
merges locally; results travel back to the task's rank. A hot address makes its owner receive
and run its whole share of the batch.

``pull``: each rank asks the owners for the addresses its tasks need (each address once per
rank), runs its tasks at home, and sends one write-back per task to the owner, as the paper's
baseline does; merging write-backs on the way is TD-Orch's addition (2.3.4). A hot address
makes its owner receive a write-back from every task that touched it.
"""

from __future__ import annotations

import numpy as np

from ..kernels import unique


def push(st):
    received = st.exchange(
        {r: st.route(st.tkeys[r], lambda rows, r=r: st.task_arrays(r, rows), st.live(r)) for r in st.ctx.ranks}
    )
    executed = {}
    for o in st.ctx.ranks:
        keys, gid, tasks = st.task_table(received[o])
        values = st.execute(tasks, st.data[o].iloc[st.data_rows(o, keys)])
        st.write(o, keys, st.partial(values, tasks, gid))
        executed[o] = (gid, values)
    return executed


def pull(st):
    wanted = {}
    for r in st.ctx.ranks:
        rows = st.live(r)
        uk = unique(st.tkeys[r][rows])
        wanted[r] = (rows, uk)
    requests = st.exchange({r: st.route(uk, lambda idx, uk=uk: [uk[idx]]) for r, (_, uk) in wanted.items()})
    replies = st.exchange({o: {src: st.data_arrays(o, a[0]) for src, a in requests[o]} for o in st.ctx.ranks})
    executed, writes = {}, {}
    for r in st.ctx.ranks:
        rows, _ = wanted[r]
        keys, data = st.data_table([a for _, a in replies[r]])
        order = np.argsort(keys)
        at = order[np.searchsorted(keys[order], st.tkeys[r][rows])]
        tasks = st.tasks[r].iloc[rows]
        values = st.execute(tasks, data.iloc[at])
        gid, tkeys = st.gid[r][rows], st.tkeys[r][rows]
        executed[r] = (gid, values)
        parts = st.partial(values, tasks, gid)
        writes[r] = st.route(tkeys, lambda idx, parts=parts, tkeys=tkeys: [tkeys[idx], *(p[idx] for p in parts)])
    for o, got in st.exchange(writes).items():
        for _, arrays in got:
            st.write(o, arrays[0], arrays[1:])
    return executed
