"""TD-Orch (2.3): contention detection up a communication forest, push-pull, merged write-backs.

The forest has one tree per rank i (for the addresses rank i owns): a balanced F-ary tree whose
P leaves are the ranks (rank j at leaf (j - i) mod P), whose root is rank i, and whose inner
virtual nodes sit on ranks chosen by a hash (see ``node_rank``). With F >= P a tree is a star.

1. Up (contention detection): each rank wraps its tasks as L0 meta-tasks and sends them up the
   tree of their address, level by level. A node merges what arrives per (address, node) and
   applies the meta-task set rule: when more than C meta-tasks of one level gather, they stay on
   this rank as a stored set and one meta-task of the next level (a pointer to the set) goes on.
   So cold tasks (at most C per node) are pushed all the way to the owner, and hot ones stop
   early, leaving behind a compressed tree (the subset tree) whose size follows the contention.
2. Down (co-location): the owner runs the tasks that reached it and sends the data row down each
   pointer; a stored pointer set forwards it to its children, a stored task set runs with it.
3. Write-back: values merge per set and climb the same pointers in reverse, merged at every
   step, and the owner applies ``write_back`` once per address.
Results return to the tasks' own ranks.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import frames
from .stage import group_rows, owner_of

NO_PARENT = -1  # a set whose pointer reached the root: its write-back goes straight to the owner


def height(nranks, fanout):
    h, span = 0, 1
    while span < nranks:
        h, span = h + 1, span * fanout
    return h


def node_rank(tree, level, index, H, P):
    """The rank hosting virtual node (tree, level, index): leaves are ranks, the top is the
    tree's own rank, and an inner node sits at its tree's rank rotated by a hash of (level,
    index). A rotation, not a free hash: every rank then hosts the same number of inner nodes
    of every level (a free hash left some ranks twice the average at P = 16)."""
    if level == H:
        return tree
    if level == 0:
        return (tree + index) % P
    return (tree + owner_of(np.asarray(level * P + index, dtype=np.int64), P)) % P


def _groups(keys, q):
    """Sort order and group starts/counts of rows by (key, node index)."""
    order = np.lexsort((q, keys))
    k, n = keys[order], q[order]
    new = np.ones(k.size, dtype=bool)
    new[1:] = (k[1:] != k[:-1]) | (n[1:] != n[:-1])
    starts = np.flatnonzero(new)
    return order, starts, np.diff(np.append(starts, k.size))


class _Rank:
    """What one rank stores: task sets, pointer sets, and where each set's data came from."""

    def __init__(self):
        self.sets = 0
        self.task_sid, self.task_keys, self.task_gid, self.task_frames = [], [], [], []
        self.ptr_sid, self.ptr_holder, self.ptr_child = [], [], []

    def freeze(self):
        """After the up sweep: flat arrays of the stored sets, and per set where its data came
        from (rank, that rank's set or NO_PARENT), at which depth, for which address."""
        cat = lambda parts: np.concatenate(parts) if parts else np.zeros(0, np.int64)  # noqa: E731
        self.task_sid, self.task_keys, self.task_gid = cat(self.task_sid), cat(self.task_keys), cat(self.task_gid)
        self.task_frame = _frames(self.task_frames) if self.task_frames else None
        self.ptr_sid, self.ptr_holder, self.ptr_child = cat(self.ptr_sid), cat(self.ptr_holder), cat(self.ptr_child)
        self.parent_rank = np.full(self.sets, -1, np.int64)
        self.parent_sid = np.full(self.sets, NO_PARENT, np.int64)
        self.depth = np.zeros(self.sets, np.int64)
        self.key = np.zeros(self.sets, np.int64)

    def new_sets(self, count):
        sids = np.arange(self.sets, self.sets + count, dtype=np.int64)
        self.sets += count
        return sids


class Forest:
    def __init__(self, st):
        self.st, self.P = st, st.P
        self.F, self.C = st.plan["fanout"], st.plan["chunk"]
        self.H = height(self.P, self.F)
        self.mine = {r: _Rank() for r in st.ctx.ranks}

    def settle(self, r, tasks, ptrs):
        """The meta-task set rule at rank r: per (address, node), more than C meta-tasks of a
        level become a stored set and one pointer of the next level."""
        me = self.mine[r]
        keys, q, gid, frame = tasks
        order, starts, counts = _groups(keys, q)
        big = counts > self.C
        if big.any():
            sids = me.new_sets(int(big.sum()))
            rows = np.concatenate([order[s : s + c] for s, c in zip(starts[big], counts[big])])
            me.task_sid.append(np.repeat(sids, counts[big]))
            me.task_keys.append(keys[rows])
            me.task_gid.append(gid[rows])
            me.task_frames.append(frame.iloc[rows])
            lead = order[starts[big]]
            ptrs = [
                np.concatenate([a, b])
                for a, b in zip(
                    ptrs, [keys[lead], q[lead], np.ones(sids.size, np.int64), np.full(sids.size, r, np.int64), sids]
                )
            ]
            keep = np.ones(keys.size, dtype=bool)
            keep[rows] = False
            tasks = (keys[keep], q[keep], gid[keep], frame.iloc[np.flatnonzero(keep)])
        level = 1
        while ptrs[0].size and level <= int(ptrs[2].max()):
            pk, pq, plev, phold, psid = ptrs
            at = np.flatnonzero(plev == level)
            order, starts, counts = _groups(pk[at], pq[at])
            big = counts > self.C
            if big.any():
                sids = me.new_sets(int(big.sum()))
                rows = at[np.concatenate([order[s : s + c] for s, c in zip(starts[big], counts[big])])]
                me.ptr_sid.append(np.repeat(sids, counts[big]))
                me.ptr_holder.append(phold[rows])
                me.ptr_child.append(psid[rows])
                lead = at[order[starts[big]]]
                keep = np.ones(pk.size, dtype=bool)
                keep[rows] = False
                ptrs = [
                    np.concatenate([x[keep], y])
                    for x, y in zip(
                        ptrs,
                        [
                            pk[lead],
                            pq[lead],
                            np.full(sids.size, level + 1, np.int64),
                            np.full(sids.size, r, np.int64),
                            sids,
                        ],
                    )
                ]
            level += 1
        return tasks, ptrs

    def up(self):
        """Contention detection: settle at every level, send the rest to the parent nodes.
        Returns what reached each root."""
        st, schema = self.st, self.st.plan["task_schema"]
        w = frames.width(schema)
        held = {}
        for r in st.ctx.ranks:
            rows = st.live(r)
            keys = st.tkeys[r][rows]
            leaf = (r - owner_of(keys, self.P)) % self.P
            held[r] = ((keys, leaf, st.gid[r][rows], st.tasks[r].iloc[rows]), [np.zeros(0, np.int64)] * 5)
        for level in range(self.H):
            send = {}
            for r, (tasks, ptrs) in held.items():
                (keys, q, gid, frame), ptrs = self.settle(r, tasks, ptrs)
                tdest = node_rank(owner_of(keys, self.P), level + 1, q // self.F, self.H, self.P)
                pdest = node_rank(owner_of(ptrs[0], self.P), level + 1, ptrs[1] // self.F, self.H, self.P)
                by_task, by_ptr, none = group_rows(tdest, self.P), group_rows(pdest, self.P), np.zeros(0, np.int64)
                send[r] = {}
                for d in set(by_task) | set(by_ptr):
                    t, p = by_task.get(d, none), by_ptr.get(d, none)
                    send[r][d] = [
                        keys[t],
                        q[t] // self.F,
                        gid[t],
                        *frames.pack(frame.iloc[t], schema),
                        ptrs[0][p],
                        ptrs[1][p] // self.F,
                        *(x[p] for x in ptrs[2:]),
                    ]
            got = st.exchange(send)
            for r in st.ctx.ranks:
                parts = [a for _, a in got[r]]
                if parts:
                    keys = np.concatenate([p[0] for p in parts])
                    q = np.concatenate([p[1] for p in parts])
                    gid = np.concatenate([p[2] for p in parts])
                    frame = st.unpack_tasks([p[3 : 3 + w] for p in parts])
                    ptrs = [np.concatenate([p[3 + w + i] for p in parts]) for i in range(5)]
                else:
                    keys = q = gid = np.zeros(0, np.int64)
                    frame, ptrs = st.plan["task_meta"], [np.zeros(0, np.int64)] * 5
                held[r] = ((keys, q, gid, frame), ptrs)
        roots = {r: self.settle(r, *held[r]) for r in st.ctx.ranks}
        for me in self.mine.values():
            me.freeze()
        return roots

    def down(self, roots):
        """Co-location: owners send data down every pointer; stored pointer sets forward it.
        Returns each rank's tasks to run as (tasks, data, gid, keys, set id), and the rounds."""
        st = self.st
        todo = {r: [] for r in st.ctx.ranks}
        send = {}
        for o, ((keys, _, gid, frame), (pk, _, _, holder, sid)) in roots.items():
            todo[o].append((frame, st.data[o].iloc[st.data_rows(o, keys)], gid, keys, np.full(keys.size, NO_PARENT)))
            send[o] = {
                d: [sid[i], np.full(i.size, NO_PARENT), *st.data_arrays(o, pk[i])]
                for d, i in group_rows(holder, self.P).items()
            }
        rounds = 0
        while True:
            got, total = st.ctx.alltoall(send, total={r: np.array([len(send.get(r, {}))]) for r in st.ctx.ranks})
            if int(total[0]) == 0:
                return todo, rounds
            rounds += 1
            send = {}
            for m in st.ctx.ranks:
                me = self.mine[m]
                if not got[m]:
                    send[m] = {}
                    continue
                sid = np.concatenate([a[0] for _, a in got[m]])
                me.parent_rank[sid] = np.concatenate([np.full(a[0].size, p) for p, a in got[m]])
                me.parent_sid[sid] = np.concatenate([a[1] for _, a in got[m]])
                keys, data = st.data_table([a[2:] for _, a in got[m]])
                me.depth[sid], me.key[sid] = rounds, keys
                send[m] = self._deliver(m, sid, keys, data, todo[m])

    def _deliver(self, m, sid, keys, data, todo):
        """Data for stored sets ``sid`` arrived at rank m: task sets run, pointer sets forward
        (returns the messages to forward)."""
        me, st = self.mine[m], self.st
        where = np.full(me.sets, -1, np.int64)
        where[sid] = np.arange(sid.size)
        hit = np.flatnonzero(where[me.task_sid] >= 0)
        if hit.size:
            todo.append(
                (
                    me.task_frame.iloc[hit],
                    data.iloc[where[me.task_sid[hit]]],
                    me.task_gid[hit],
                    me.task_keys[hit],
                    me.task_sid[hit],
                )
            )
        hit = np.flatnonzero(where[me.ptr_sid] >= 0)
        send = {}
        for d, i in group_rows(me.ptr_holder[hit], self.P).items():
            rows = where[me.ptr_sid[hit[i]]]
            send[d] = [me.ptr_child[hit[i]], me.ptr_sid[hit[i]], *st.row_arrays(keys[rows], data.iloc[rows])]
        return send

    def write_back(self, partials, rounds):
        """Partials climb from the deepest sets to the owners, merged at every set."""
        st = self.st
        acc = dict(partials)  # rank -> (set ids, parts) waiting to climb
        for depth in range(rounds, 0, -1):
            send = {}
            for m in st.ctx.ranks:
                me, (sids, parts) = self.mine[m], acc[m]
                sids, parts = st.merge.reduce(sids, parts) if sids.size else (sids, parts)
                ready = me.depth[sids] == depth
                src = sids[ready]
                send[m] = {
                    d: [me.parent_sid[src[i]], me.key[src[i]], *(p[ready][i] for p in parts)]
                    for d, i in group_rows(me.parent_rank[src], self.P).items()
                }
                acc[m] = (sids[~ready], [p[~ready] for p in parts])
            for m, got in st.exchange(send).items():
                for _, arrays in got:
                    up, key, parts = arrays[0], arrays[1], arrays[2:]
                    root = up == NO_PARENT
                    st.write(m, key[root], [p[root] for p in parts])
                    sids, mine = acc[m]
                    acc[m] = (
                        np.concatenate([sids, up[~root]]),
                        [np.concatenate([x, p[~root]]) for x, p in zip(mine, parts)],
                    )


def _frames(parts):
    return pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0].reset_index(drop=True)


def tdorch(st):
    forest = Forest(st)
    roots = forest.up()
    st.ctx.stats.mark("up")
    todo, rounds = forest.down(roots)
    st.ctx.stats.mark("down")
    executed, partials = {}, {}
    for r in st.ctx.ranks:
        if todo[r]:
            tasks = pd.concat([t[0] for t in todo[r]], ignore_index=True)
            data = pd.concat([t[1].reset_index(drop=True) for t in todo[r]], ignore_index=True)
            gid, keys, sid = (np.concatenate([t[i] for t in todo[r]]) for i in (2, 3, 4))
        else:
            tasks, data = st.plan["task_meta"], st.plan["data_meta"]
            gid = keys = sid = np.zeros(0, np.int64)
        values = st.execute(tasks, data)
        executed[r] = (gid, values)
        parts = st.partial(values, tasks, gid)
        at_root = sid == NO_PARENT
        st.write(r, keys[at_root], [p[at_root] for p in parts])
        partials[r] = (sid[~at_root], [p[~at_root] for p in parts])
    forest.write_back(partials, rounds)
    return executed
