"""One worker's share of an orchestration stage: its ranks' tasks, the data they own, and the
moves every strategy is made of (route rows to ranks, ship task and data rows, execute ``f``,
merge write-backs at the owner, return results to the tasks' own ranks).

Addresses travel as int64 keys: integer addresses as themselves, any other address as a 64-bit
hash of its text, checked exactly against the data's own label when tasks are validated (so a
hash collision reads as a missing address, never as the wrong row). Data items live on rank
``owner(key)``, a hash: the distributed hash table of the paper's microbenchmark.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import frames
from ..errors import DgraphInputError

ADDRESS = "\0address"  # the data's index while it travels as a column
_GOLDEN, _M1, _M2 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)


def keys_of(values, mode):
    """int64 keys of address values: integers as themselves, others hashed."""
    values = pd.Series(values) if not isinstance(values, pd.Series) else values
    if mode == "hash":
        return pd.util.hash_array(values.astype(str).to_numpy(dtype=object)).view(np.int64)
    if values.dtype.kind == "u":  # the same 64 bits: unsigned addresses stay distinct
        return values.to_numpy().astype(np.uint64, copy=False).view(np.int64)
    return values.to_numpy().astype(np.int64, copy=False)


def mix(keys):
    """splitmix64's finalizer: every bit of the key reaches the low bits (a multiply alone left
    the 120 hottest Zipf addresses on 3 of 16 ranks)."""
    with np.errstate(over="ignore"):
        x = np.asarray(keys, dtype=np.int64).view(np.uint64) + _GOLDEN
        x = (x ^ (x >> np.uint64(30))) * _M1
        x = (x ^ (x >> np.uint64(27))) * _M2
    return x ^ (x >> np.uint64(31))


def owner_of(keys, nranks):
    """The rank owning each key: the hash table's placement."""
    return (mix(keys) % np.uint64(nranks)).astype(np.int64)


def group_rows(dest, nranks):
    """Rows per destination: ``{rank: row indices}`` (rows keep their order)."""
    order = np.argsort(dest, kind="stable")
    counts = np.bincount(dest, minlength=nranks)
    cuts = np.concatenate([[0], np.cumsum(counts)])
    return {int(d): order[cuts[d] : cuts[d + 1]] for d in np.flatnonzero(counts)}


class Stage:
    def __init__(self, ctx, plan):
        self.ctx, self.P, self.plan = ctx, ctx.nranks, plan
        self.merge = plan["merge"]
        self.tasks, self.tkeys, self.gid, self.valid = {}, {}, {}, {}
        self.data, self.dkeys = {}, {}
        self.pending = {r: [] for r in ctx.ranks}
        self.problems = {r: [] for r in ctx.ranks}

    # --- before the stage: the hash table and the tasks' addresses ------------------------
    def load(self):
        """Take the rank chunks; send every data row to its owner (the hash table's placement)."""
        plan, send = self.plan, {}
        for r in self.ctx.ranks:
            tasks, data = self.ctx.blocks[r]
            self.tasks[r] = tasks
            self.tkeys[r] = keys_of(tasks[plan["address"]], plan["key_mode"])
            self.gid[r] = plan["offsets"][r] + np.arange(len(tasks), dtype=np.int64)
            flat = data.reset_index(names=ADDRESS)
            dkeys = keys_of(flat[ADDRESS], plan["key_mode"])
            send[r] = self.route(dkeys, lambda rows: [dkeys[rows], *frames.pack(flat.iloc[rows], plan["data_schema"])])
        received = self.exchange(send)
        for o in self.ctx.ranks:
            keys, frame = self.data_table([a for _, a in received[o]])
            order = np.argsort(keys, kind="stable")
            self.dkeys[o] = keys[order]
            self.data[o] = frame.iloc[order].set_index(ADDRESS).rename_axis(plan["index_name"])
            dup = np.flatnonzero(self.dkeys[o][1:] == self.dkeys[o][:-1])
            if dup.size:
                self.problems[o].append(("duplicate", self.data[o].index[dup[:5]].tolist(), int(dup.size)))

    def validate(self):
        """Which tasks' addresses are in the data (exactly: labels compared where keys are
        hashes). Returns the number of problems over all ranks."""
        hashed = self.plan["key_mode"] == "hash"
        send, asked = {}, {}
        for r in self.ctx.ranks:
            uk, first, inverse = np.unique(self.tkeys[r], return_index=True, return_inverse=True)
            labels = self.tasks[r][self.plan["address"]].to_numpy()[first].astype(str) if hashed else None
            asked[r] = (uk, inverse, labels)
            send[r] = self.route(uk, lambda rows: [uk[rows]] + (frames.encode_strings(labels[rows]) if hashed else []))
        questions = self.exchange(send)
        replies = {}
        for o in self.ctx.ranks:
            replies[o] = {}
            for src, arrays in questions[o]:
                keys = arrays[0]
                rows = np.minimum(np.searchsorted(self.dkeys[o], keys), max(self.dkeys[o].size - 1, 0))
                found = (self.dkeys[o][rows] == keys) if self.dkeys[o].size else np.zeros(keys.size, bool)
                if hashed and found.any():
                    mine = self.data[o].index.to_numpy()[rows].astype(str)
                    found &= mine == frames.decode_strings(*arrays[1:4]).astype(str)
                replies[o][src] = [found]
        answers = self.exchange(replies)
        for r in self.ctx.ranks:
            uk, inverse, _ = asked[r]
            found = np.zeros(uk.size, dtype=bool)
            back = dict((src, a[0]) for src, a in answers[r])
            for d, idx in group_rows(owner_of(uk, self.P), self.P).items():
                found[idx] = back[d]
            self.valid[r] = found[inverse]
            missing = np.flatnonzero(~self.valid[r])
            if missing.size and self.plan["missing"] == "raise":
                sample = self.tasks[r][self.plan["address"]].iloc[missing[:5]].tolist()
                self.problems[r].append(("missing", sample, int(missing.size)))
        counts = {r: np.array([len(self.problems[r])], dtype=np.int64) for r in self.ctx.ranks}
        return int(self.ctx.allreduce(counts)[0])

    def live(self, r):
        """Rows of rank r's tasks that run (all, unless missing addresses are skipped)."""
        return np.flatnonzero(self.valid[r])

    # --- moving rows -------------------------------------------------------------------
    def exchange(self, send):
        """``send[src][dst] = [arrays]`` -> ``{dst: [(src, arrays)]}`` in one superstep."""
        return self.ctx.alltoall(send)

    def route(self, keys, make, rows=None):
        """``{owner rank: make(rows)}`` for the rows of ``keys`` (all rows by default)."""
        rows = np.arange(keys.size) if rows is None else rows
        return {d: make(rows[idx]) for d, idx in group_rows(owner_of(keys[rows], self.P), self.P).items()}

    def task_arrays(self, r, rows):
        return [
            self.tkeys[r][rows],
            self.gid[r][rows],
            *frames.pack(self.tasks[r].iloc[rows], self.plan["task_schema"]),
        ]

    def task_table(self, received):
        """Concatenate shipped task rows (``task_arrays``): ``(keys, gids, frame)``."""
        parts = [a for _, a in received]
        if not parts:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), self.plan["task_meta"]
        keys = np.concatenate([p[0] for p in parts])
        gid = np.concatenate([p[1] for p in parts])
        return keys, gid, self.unpack_tasks([p[2:] for p in parts])

    def unpack_tasks(self, packed):
        """One frame of the task rows packed in each of ``packed``."""
        if not packed:
            return self.plan["task_meta"]
        return pd.concat([frames.unpack(p, self.plan["task_schema"]) for p in packed], ignore_index=True)

    def data_rows(self, o, keys):
        """Positions of ``keys`` in owner ``o``'s data (every key is known to be there)."""
        return np.searchsorted(self.dkeys[o], keys)

    def data_arrays(self, o, keys):
        """Owner ``o``'s rows for ``keys``, ready to ship."""
        rows = self.data[o].iloc[self.data_rows(o, keys)].reset_index(names=ADDRESS)
        return self.row_arrays(np.asarray(keys, dtype=np.int64), rows)

    def row_arrays(self, keys, rows):
        """Data ``rows`` (address as a column) and their keys, ready to ship."""
        return [keys, *frames.pack(rows, self.plan["data_schema"])]

    def data_table(self, parts):
        """Concatenate shipped data rows: ``(keys, frame)``; ``parts`` are lists of arrays."""
        if not parts:
            return np.zeros(0, np.int64), self.plan["data_meta"]
        keys = np.concatenate([p[0] for p in parts])
        frame = pd.concat([frames.unpack(p[1:], self.plan["data_schema"]) for p in parts], ignore_index=True)
        return keys, frame

    # --- executing and writing back ------------------------------------------------------
    def execute(self, task_frame, data_frame):
        """``f`` on aligned rows (both frames indexed 0..k-1); one value per task."""
        task_frame = task_frame.reset_index(drop=True)
        data_frame = data_frame.reset_index(drop=True).drop(columns=[ADDRESS], errors="ignore")
        if len(task_frame) == 0:
            return np.zeros(0, dtype=np.float64)
        out = np.asarray(self.plan["f"](task_frame, data_frame))
        if out.shape != (len(task_frame),):
            raise DgraphInputError(f"f must return one value per task ({len(task_frame)}), returned shape {out.shape}")
        if out.dtype.kind not in "biuf":
            raise DgraphInputError(f"f must return numbers or booleans, returned dtype {out.dtype}")
        return out

    def partial(self, values, task_frame, gid):
        prio = self.merge.priority
        prio = None if prio is None else np.asarray(task_frame[prio].to_numpy())
        return self.merge.partial(values, prio, gid)

    def write(self, o, keys, parts):
        """Owner ``o`` receives partials for its keys (merged now; written back at the end)."""
        if len(keys):
            self.pending[o].append(self.merge.reduce(keys, parts))

    def finish_writes(self):
        wb = self.plan["write_back"]
        for o in self.ctx.ranks:
            if not self.pending[o]:
                continue
            keys = np.concatenate([k for k, _ in self.pending[o]])
            parts = [np.concatenate([p[i] for _, p in self.pending[o]]) for i in range(self.merge.width())]
            keys, parts = self.merge.reduce(keys, parts)
            if wb is None:
                continue
            rows = self.data_rows(o, keys)
            current = self.data[o].iloc[rows]
            merged = pd.Series(self.merge.final(parts), index=current.index, name="merged")
            new = wb(current.copy(), merged)
            if not isinstance(new, pd.DataFrame) or not new.index.isin(current.index).all():
                raise DgraphInputError("write_back must return a DataFrame indexed by (some of) the written addresses")
            extra = set(new.columns) - set(self.data[o].columns)
            if extra:
                raise DgraphInputError(f"write_back returned columns {sorted(map(str, extra))} that data does not have")
            self.data[o].loc[new.index, new.columns] = new

    def return_results(self, executed):
        """``executed[r] = (gids, values)`` wherever tasks ran -> each rank's result array."""
        offsets = self.plan["offsets"]
        send = {}
        for r, (gid, values) in executed.items():
            dest = np.searchsorted(offsets, gid, side="right") - 1
            send[r] = {d: [gid[idx], values[idx]] for d, idx in group_rows(dest, self.P).items()}
        received = self.exchange(send)
        out = {}
        for r in self.ctx.ranks:
            got = [a for _, a in received[r]]
            gid = np.concatenate([a[0] for a in got]) if got else np.zeros(0, np.int64)
            vals = np.concatenate([a[1] for a in got]) if got else np.zeros(0)
            result = np.zeros(len(self.tasks[r]), dtype=vals.dtype)
            result[gid - offsets[r]] = vals
            out[r] = result
        return out
