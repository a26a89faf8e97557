"""What a run moved and where its time went, counted per logical rank.

Every exchange is counted between logical ranks, whether the two ranks share a worker (the bytes
stay in memory) or not (they cross a channel), so a 64-rank run on two workers reports what a
64-machine run would send. ``wire_bytes`` counts what actually crossed sockets.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

# info counted per worker (the device engine's transfers among them); other info is the same on every worker
SUMMED = ("edges_examined", "local_arcs_examined", "h2d_bytes", "d2h_bytes", "resident_bytes", "device_calls")


@dataclass
class RunStats:
    nranks: int
    supersteps: int = 0
    messages: np.ndarray | None = None  # [src rank, dst rank] message count
    bytes: np.ndarray | None = None  # [src rank, dst rank] payload bytes
    wire_bytes: int = 0
    wire_frames: int = 0
    step_bytes: list = field(default_factory=list)  # per superstep: (kind, bytes between ranks)
    phases: dict = field(default_factory=dict)  # phase name -> seconds (max over workers)
    info: dict = field(default_factory=dict)  # algorithm facts (levels, iterations, converged ...)
    marks: dict = field(default_factory=dict)  # name -> (supersteps, messages, bytes) when marked
    domain_of: np.ndarray | None = None  # each rank's smallest communication domain, when domains are known
    crossings: list = field(default_factory=list)  # per superstep: [inter msgs, inter bytes, intra msgs, intra bytes]
    monitors: np.ndarray | None = None  # the monitor rank of each smallest domain, when domains are known
    result_dtypes: dict | None = None  # column -> dtype of a rank's result, when kernels return dicts of arrays
    threads: int = 1  # the most threads one worker's kernels could use (dgraph.kernels.threads)
    held: dict = field(default_factory=dict)  # this worker's vertex state: name -> bytes held now
    vertex_state_peak: int = 0  # the most bytes of vertex state this worker held at once
    worker_vertex_state: dict | None = None  # merged: each worker's vertex_state_peak, by its address
    worker_phases: dict | None = None  # merged: each worker's phase seconds, by its address (phases holds the max)
    skipped: list = field(default_factory=list)  # workers the call left out: found unreachable (runtime.reach)

    def __post_init__(self):
        if self.messages is None:
            self.messages = np.zeros((self.nranks, self.nranks), dtype=np.int64)
        if self.bytes is None:
            self.bytes = np.zeros((self.nranks, self.nranks), dtype=np.int64)

    @property
    def total_bytes(self):
        return int(self.bytes.sum())

    @property
    def total_messages(self):
        return int(self.messages.sum())

    def begin_step(self):
        """A new superstep (one collective, however many hops its transport takes)."""
        self.supersteps += 1
        self.crossings.append([0, 0, 0, 0])

    def record(self, src, dst, nbytes):
        """Count one message ``src -> dst`` of ``nbytes``."""
        self.messages[src, dst] += 1
        self.bytes[src, dst] += nbytes
        if self.domain_of is not None and self.crossings:
            inter = 0 if self.domain_of[src] == self.domain_of[dst] else 1
            step = self.crossings[-1]
            step[2 - 2 * inter] += 1
            step[3 - 2 * inter] += nbytes

    def record_many(self, src, dst, nbytes):
        """``record`` for arrays (broadcast together): one call per superstep keeps counting
        cheap when a worker holds many ranks."""
        src, dst, nbytes = np.broadcast_arrays(
            np.asarray(src, np.int64), np.asarray(dst, np.int64), np.asarray(nbytes, np.int64)
        )
        if not src.size:
            return
        np.add.at(self.messages, (src, dst), 1)
        np.add.at(self.bytes, (src, dst), nbytes)
        if self.domain_of is not None and self.crossings:
            inter = self.domain_of[src] != self.domain_of[dst]
            step = self.crossings[-1]
            step[0] += int(np.count_nonzero(inter))
            step[1] += int(nbytes[inter].sum())
            step[2] += int(inter.size - np.count_nonzero(inter))
            step[3] += int(nbytes[~inter].sum())

    def by_domain(self):
        """Per-rank traffic split by domain crossing: a dict of arrays over ranks (messages and
        bytes sent to other domains and within the own domain)."""
        if self.domain_of is None:
            raise ValueError("this run had no domains (pass domains= to the graph or the call)")
        inter = self.domain_of[:, None] != self.domain_of[None, :]
        return {
            "inter_messages": (self.messages * inter).sum(axis=1),
            "inter_bytes": (self.bytes * inter).sum(axis=1),
            "intra_messages": (self.messages * ~inter).sum(axis=1),
            "intra_bytes": (self.bytes * ~inter).sum(axis=1),
        }

    def hold_vertex_state(self, name, nbytes):
        """Count ``nbytes`` of per-vertex arrays held under ``name`` (replacing what that name
        held), for the worker's peak vertex-state bytes."""
        self.held[name] = int(nbytes)
        self.vertex_state_peak = max(self.vertex_state_peak, sum(self.held.values()))

    def release_vertex_state(self, name):
        self.held.pop(name, None)

    def mark(self, name):
        """Remember the counters now, so a later part of the run can be told apart (``since``)."""
        self.marks[name] = (self.supersteps, self.messages.copy(), self.bytes.copy())

    def since(self, name):
        """``(supersteps, messages, bytes)`` counted after ``mark(name)``."""
        steps, messages, nbytes = self.marks[name]
        return self.supersteps - steps, self.messages - messages, self.bytes - nbytes

    @contextmanager
    def phase(self, name):
        t = time.perf_counter()
        try:
            yield
        finally:
            self.phases[name] = self.phases.get(name, 0.0) + time.perf_counter() - t

    @classmethod
    def merge(cls, parts):
        """Combine the stats of every worker of one run."""
        parts = list(parts)
        out = cls(parts[0].nranks)
        out.supersteps = max(p.supersteps for p in parts)
        out.threads = max(p.threads for p in parts)
        out.domain_of, out.monitors = parts[0].domain_of, parts[0].monitors
        out.worker_vertex_state = [p.vertex_state_peak for p in parts]  # launch names the workers
        out.worker_phases = [dict(p.phases) for p in parts]
        out.vertex_state_peak = max(out.worker_vertex_state)
        for p in parts:
            for i, row in enumerate(p.crossings):
                if i == len(out.crossings):
                    out.crossings.append([0, 0, 0, 0])
                out.crossings[i] = [a + b for a, b in zip(out.crossings[i], row)]
        for p in parts:
            out.messages += p.messages
            out.bytes += p.bytes
            out.wire_bytes += p.wire_bytes
            out.wire_frames += p.wire_frames
            for k, (steps, messages, nbytes) in p.marks.items():
                if k in out.marks:
                    s0, m0, b0 = out.marks[k]
                    out.marks[k] = (max(s0, steps), m0 + messages, b0 + nbytes)
                else:
                    out.marks[k] = (steps, messages.copy(), nbytes.copy())
            for k, v in p.phases.items():
                out.phases[k] = max(out.phases.get(k, 0.0), v)
            for k, v in p.info.items():
                if k in SUMMED and k in out.info:
                    out.info[k] += v  # each worker counted its own ranks' work
                else:
                    out.info.setdefault(k, v)
        steps = max(len(p.step_bytes) for p in parts)
        for i in range(steps):
            kinds = [p.step_bytes[i] for p in parts if i < len(p.step_bytes)]
            out.step_bytes.append((kinds[0][0], sum(k[1] for k in kinds)))
        return out

    def summary(self):
        return {
            "supersteps": self.supersteps,
            "messages": self.total_messages,
            "bytes": self.total_bytes,
            "wire_bytes": self.wire_bytes,
            "vertex_state_bytes": self.vertex_state_peak,
            **{f"{k}_s": round(v, 4) for k, v in self.phases.items()},
            **self.info,
        }
