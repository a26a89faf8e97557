"""Communication domains: which ranks share cheap links, and who speaks for each group.

A hierarchy of rank groups, level 0 the smallest (a node), higher levels containing whole
lower-level domains (a rack). ``domains=`` accepts:

- ``None`` or ``"host"``: workers grouped by the host in their address (one node, one domain);
- ``"job"``: by dask-jobqueue job: its workers are named ``<cluster>-<job>-<process>``, so the
  name without its last ``-<process>`` is the job, and a job is one node;
- an int K: ranks split into K contiguous groups (to study domains on one machine);
- a dict ``{domain: [worker addresses or names]}``, or nested ``{rack: {node: [...]}}`` for more
  levels (every worker running ranks must appear once);
- a callable ``f(address, info) -> label`` (``info``: the scheduler's worker info: name, host,
  resources, ...), a tuple label for several levels, outermost first.

Each domain has a monitor rank: the rank that holds the heaviest vertex among the domain's ranks
(TuCOMM 6.3 puts monitors where the heavy vertices are, whose traffic is largest), ties and
weightless runs going to the lowest rank. A higher level's monitor is chosen among the monitors
of its lower domains, so one rank forwards for every level it represents.
"""

from __future__ import annotations

import numpy as np

from ..errors import DgraphInputError


class Domains:
    """``level[k][r]``: rank r's domain id at level k (0 = smallest); ``monitor[k][d]``: the
    monitor rank of domain d of level k; ``names[k]``: the domains' labels."""

    def __init__(self, paths, weights=None):
        P = len(paths)
        depth = {len(p) for p in paths}
        if len(depth) != 1:
            raise DgraphInputError(f"domain labels must all have the same number of levels, got {sorted(depth)}")
        weights = np.zeros(P) if weights is None else np.asarray(weights, dtype=float)
        self.nranks, self.depth = P, depth.pop()
        self.level, self.names, self.monitor = [], [], []
        for k in range(self.depth):
            prefix = [tuple(p[: self.depth - k]) for p in paths]  # level 0 = the full path
            names = list(dict.fromkeys(prefix))
            ids = np.array([names.index(x) for x in prefix], dtype=np.int64)
            candidates = np.arange(P) if k == 0 else np.unique(self.monitor[k - 1])
            mon = np.empty(len(names), dtype=np.int64)
            for d in range(len(names)):
                pool = candidates[ids[candidates] == d]
                mon[d] = pool[np.lexsort((pool, -weights[pool]))[0]]
            self.level.append(ids)
            self.names.append(["/".join(map(str, x)) for x in names])
            self.monitor.append(mon)

    def __len__(self):
        return len(self.names[0])

    def next_hop(self, at, dst):
        """Where a message at rank ``at`` bound for rank ``dst`` goes next (arrays): straight to
        ``dst`` inside a smallest domain; otherwise up to the monitors of ``at``'s domains below
        the level where the two meet, across to the monitor of ``dst``'s domain there, and down
        the same way (a monitor represents its domains of every lower level)."""
        at, dst = np.asarray(at, np.int64), np.asarray(dst, np.int64)
        out = dst.copy()
        meet = np.full(at.shape, self.depth, np.int64)  # the lowest level both ends share
        for k in range(self.depth - 1, -1, -1):
            meet[self.level[k][at] == self.level[k][dst]] = k
        for k in range(self.depth):
            cross = np.flatnonzero(meet == k + 1)  # the route crosses level-k domains
            if not cross.size:
                continue
            a = at[cross]
            hop = self.monitor[k][self.level[k][dst[cross]]]  # across, if a speaks for its domain
            waiting = np.ones(a.size, dtype=bool)
            for j in range(k + 1):  # else up to the monitor of its lowest domain it does not lead
                mon = self.monitor[j][self.level[j][a]]
                climb = waiting & (a != mon)
                hop[climb] = mon[climb]
                waiting &= ~climb
            out[cross] = hop
        return out

    def rounds(self):
        """Hops of the longest route: up ``depth`` levels, across, down ``depth`` levels."""
        return 2 * self.depth + 1


def _host(address):
    rest = address.split("://", 1)[-1]
    return rest.rsplit(":", 1)[0]


def _flatten(spec, prefix=()):
    """Nested dict -> {worker: path (outermost first)}."""
    out = {}
    for name, inner in spec.items():
        if isinstance(inner, dict):
            out.update(_flatten(inner, prefix + (name,)))
        else:
            if isinstance(inner, (str, bytes)) or not hasattr(inner, "__iter__"):
                raise DgraphInputError(f"domain {name!r} must list workers (addresses or names), got {inner!r}")
            for w in inner:
                out[w] = prefix + (name,)
    return out


def rank_paths(spec, worker_of_rank, worker_addrs, info):
    """Each rank's domain path (outermost first) from a ``domains=`` spec (see the module)."""
    P = len(worker_of_rank)
    addr_of_rank = [worker_addrs[w] for w in worker_of_rank]
    if spec is None or spec == "host":
        return [(_host(a),) for a in addr_of_rank]
    if spec == "job":
        return [(str(info.get(a, {}).get("name", a)).rsplit("-", 1)[0],) for a in addr_of_rank]
    if isinstance(spec, (int, np.integer)) and not isinstance(spec, bool):
        if not 1 <= spec <= P:
            raise DgraphInputError(f"domains={spec} must be between 1 and the rank count {P}")
        return [(f"group{r * spec // P}",) for r in range(P)]
    if isinstance(spec, dict):
        flat = _flatten(spec)
        paths = []
        for a in addr_of_rank:
            name = info.get(a, {}).get("name")
            path = flat.get(a, flat.get(name) if name is not None else None)
            if path is None:
                raise DgraphInputError(
                    f"worker {a} (name {name!r}) runs ranks but is in no domain of domains=; "
                    f"list it under one of {sorted(map(str, spec))}"
                )
            paths.append(path)
        return paths
    if callable(spec):
        out = []
        for a in addr_of_rank:
            label = spec(a, info.get(a, {}))
            out.append(tuple(label) if isinstance(label, tuple) else (label,))
        return out
    raise DgraphInputError(f"domains must be None, 'host', 'job', an int, a dict or a callable, got {spec!r}")
