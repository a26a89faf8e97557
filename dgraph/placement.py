"""Placing rank blocks on workers.

Each rank's block (``Layout.builder``: one CSR, or a layout's subgraphs) is built on its worker
from a source cut into a piece per rank: an input's partitions (``place_input``) or chunks of a
graph's own blocks, placed anew (``rebuild_blocks``: in-blocks, owner blocks). ``stream_blocks``
builds from a source too large to hold twice: every rank's block is allocated from its rows'
arc counts (the degree pass's, when the rows are the rank's own vertices; else a counting pass
of their own), and the source's parts are cut and poured into it a few at a time, each piece
freed once written. A worker then holds its blocks plus a few pieces in flight, not every piece
of the source beside them (an input's partitions, encoded once, are held from the degree pass
until each is cut: dask's data, which it may spill), and nothing is allocated before every
worker is known to have room for its blocks (``check_room``). A small source is cut whole and
each block built in one wave (``place``), which saves streaming's round trips; a small graph's
pieces are cut on the client (or gathered there) and each block built by one task that carries
them (``place_small``). Work over every block runs one task per worker, not one per rank or
per pair of ranks.
"""

from __future__ import annotations

import collections
import operator
import uuid
from dataclasses import dataclass
from typing import Any

import dask
import numpy as np
import psutil
from dask.utils import format_bytes
from distributed import Future, worker_client

from . import kernels
from .block import block_chunks, degree_pieces, owned_sum, with_owned_degree
from .cluster import host_threads, shared_threads, workers
from .dask_internals import wait_for, worker_memory
from .errors import DgraphInputError, DgraphMemoryError, DgraphRunError
from .layout import Layout
from .runtime.launch import remember_holders
from .runtime.plugin import trim_allocator

# parts being cut and written at once, per worker: two, or more while their arcs stay in budget
IN_FLIGHT_PER_WORKER, IN_FLIGHT_ARCS_PER_WORKER = 2, 1 << 23
AT_ONCE_ARCS = 1 << 22  # a source this small is cut whole and built in one wave (pieces: 32 MB)
SMALL_ARCS = 1 << 17  # blocks this small are placed anew from pieces gathered on the client (place_small)
LIVENESS_SECONDS = 5  # how often construction checks that the workers building blocks are there


@dataclass(frozen=True, eq=False)
class PlacementSpec:
    """What builds every rank's block beside its pieces: the ``layout`` and its owner ``bounds``
    over ``n`` vertices, the arcs' ``direction`` ("out", or "in" for in-blocks), whether rows
    drop duplicate arcs (``dedup``), whether arcs carry weights (``weighted``) and their other
    per-arc columns (``attrs``: (name, numpy dtype) pairs, ``Block.attrs``). Plain values,
    so it travels inside tasks as it is; the plan's tables (``key``: placed id -> canonical id,
    ``extra``: the layout's) are futures and travel beside it, for dask to resolve."""

    layout: Layout
    bounds: np.ndarray
    n: int
    direction: str = "out"
    dedup: bool = False
    weighted: bool = False
    attrs: tuple = ()

    def builder(self, r: int, extra: Any = None):
        """Rank r's block, empty, to be counted and filled."""
        return self.layout.builder(r, self.bounds, self.n, extra)

    def build(self, r: int, key: Any, extra: Any, *pieces):
        """Rank r's block from its pieces, in hand (``key``, ``extra``: values, not futures)."""
        return self.layout.build(
            r,
            self.bounds,
            self.n,
            *pieces,
            direction=self.direction,
            key=key,
            dedup=self.dedup,
            extra=extra,
            attrs=self.attrs,
        )

    def owned_size(self, r: int) -> int:
        return int(self.bounds[r + 1] - self.bounds[r])


def _pick(ranks, pieces):
    """The pieces of these ranks out of one cut (a list with a piece per rank)."""
    return {r: pieces[r] for r in ranks}


def _with_pieces(fn, r, args, *groups):
    """``fn(*args, *pieces)`` with rank r's piece of every cut, from the groups of its worker."""
    return fn(*args, *[g[r] for g in groups])


def route(client, cuts, where):
    """For each rank, the futures holding its pieces of every cut: one selection per (cut,
    worker) rather than per (cut, rank), so P ranks cost 2 x cuts x workers tasks, not cuts x P."""
    ranks_of = ranks_by_worker(where)
    group = {
        w: [client.submit(_pick, ranks, cut, workers=[w], allow_other_workers=True, pure=False) for cut in cuts]
        for w, ranks in ranks_of.items()
    }
    return [group[where[r]] for r in range(len(where))]


def ranks_by_worker(where):
    """``{worker: its ranks}`` of the worker ``where[r]`` of each rank r."""
    held = {}
    for r, w in enumerate(where):
        held.setdefault(w, []).append(r)
    return held


def each_held(client, fn, blocks, where, *args):
    """``[fn(block, *args) for each of blocks]`` in their order, block i held by worker
    ``where[i]``: one task per worker, not one per block."""
    held, out, loose = ranks_by_worker(where), [None] * len(blocks), dict(allow_other_workers=True, pure=False)
    tasks = [
        client.submit(_each_of, fn, args, *[blocks[i] for i in ranks], workers=[w], **loose)
        for w, ranks in held.items()
    ]
    for ranks, values in zip(held.values(), client.gather(tasks)):
        for i, value in zip(ranks, values):
            out[i] = value
    return out


def _each_of(fn, args, *blocks):
    return [fn(b, *args) for b in blocks]


def with_owned_degrees(client, blocks, bounds, where):
    """Blocks whose rows are not their ranks' own vertices, each given the whole degree of the
    vertices its rank owns (summed over the blocks that hold their rows)."""
    sums, loose = _worker_sums(client, blocks, bounds, where), dict(allow_other_workers=True, pure=False)
    return [
        client.submit(_with_owned_sum, b, r, int(bounds[r + 1] - bounds[r]), *sums, workers=[w], **loose)
        for r, (b, w) in enumerate(zip(blocks, where))
    ]


def owned_counts(client, blocks, bounds, where, loops=False):
    """For each rank, a future of the arcs (self-loops alone with ``loops``) of every vertex it
    owns, summed over the rows of ``blocks`` (rank r's on worker ``where[r]``), wherever they
    are."""
    sums, loose = _worker_sums(client, blocks, bounds, where, loops), dict(allow_other_workers=True, pure=False)
    return [
        client.submit(_owned_sum_of, r, int(bounds[r + 1] - bounds[r]), *sums, workers=[w], **loose)
        for r, w in enumerate(where)
    ]


def _worker_sums(client, blocks, bounds, where, loops=False):
    """Per worker, a future of its blocks' counts by owner (``_degree_sums``): one task per
    worker, so a rank adds up one sum per worker, not a piece per block."""
    return [
        client.submit(
            _degree_sums, bounds, loops, *[blocks[r] for r in ranks], workers=[w], allow_other_workers=True, pure=False
        )
        for w, ranks in ranks_by_worker(where).items()
    ]


def _degree_sums(bounds, loops, *blocks):
    """``degree_pieces`` of these blocks, one (ids, counts) per rank, summed."""
    cuts = [degree_pieces(b, bounds, loops) for b in blocks]
    return [_summed([c[r] for c in cuts]) for r in range(len(bounds) - 1)]


def _summed(pieces):
    ids = np.concatenate([i for i, _ in pieces])
    counts = np.concatenate([c for _, c in pieces])
    if len(pieces) > 1 and ids.size:
        order = np.argsort(ids, kind="stable")
        ids, counts = ids[order], counts[order]
        starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
        ids, counts = ids[starts], np.add.reduceat(counts, starts)
    return ids, counts


def _owned_sum_of(r, size, *sums):
    return owned_sum(size, *[s[r] for s in sums])


def _with_owned_sum(block, r, size, *sums):
    return with_owned_degree(block, _owned_sum_of(r, size, *sums))


# ----------------------------------------------------------------------------- streaming
_FILLING: dict = {}  # (build token, rank) -> its BlockBuilder, on the worker building that rank's block
_BUILT: dict = {}  # (build token, rank) -> its Block, between the streaming and the block's own task


def _start(token, r, spec, extra, counts, keyed):
    """Rank r's block, to be filled: its rows' arc ``counts`` (None: counted by ``_count``);
    with them, the bytes it needs (``_needs``), else None."""
    builder = _FILLING[token, r] = spec.builder(r, extra)
    if counts is None:
        return None
    builder.csrs[0].counts[:] = counts
    return _needs(token, r, spec, keyed)


def _needs(token, r, spec, keyed):
    return _filling(token, r).nbytes(spec.weighted, keyed, spec.attrs)


def _allocate(token, r, spec):
    _filling(token, r).allocate(spec.weighted, spec.attrs)


def _filling(token, r):
    builder = _FILLING.get((token, r))
    if builder is None:
        raise DgraphRunError(
            f"rank {r}'s block was being built on a worker that left the cluster during construction; "
            "build the graph again"
        )
    return builder


def _unsteady(more):
    return DgraphInputError(
        f"the edge list gave {more} arcs when read to place them than when read to count them: its partitions "
        "are not deterministic (random values, a source that changed); persist it first (df = df.persist())"
    )


def _count(token, ranks, cut):
    for r in ranks:
        _filling(token, r).count(*cut[r])


def _fill(token, ranks, cut):
    for r in ranks:
        if not _filling(token, r).fill(*cut[r]):
            raise _unsteady("more")


class _Partitions:
    """An input to place: its partitions (dask Delayed) and ``cut(part)``, a Delayed of a
    partition's piece per rank; ``held``: a list of the partitions computed already (futures),
    which the placement cuts instead, each let go (its entry set to None) once cut for the last
    time. Carried by each block's last task as a plain object, without what it holds, so that
    dask sees no dependency in it yet a lost block can be rebuilt from it."""

    def __init__(self, parts, cut, arcs, held=None):
        self.recipes, self.cut, self.arcs = list(parts), cut, arcs
        self.held = held
        self.parts = list(range(len(self.recipes)))

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k != "held"}

    def arcs_of(self, part):
        return self.arcs / len(self.parts)  # partitions are about even

    def submit(self, client, part, last=True):
        if self.held is None or self.held[part] is None:
            return client.compute(self.cut(self.recipes[part]))
        held = self.held[part]
        if last:  # the cut's task holds it until it has run
            self.held[part] = None
        return client.compute(self.cut(held))

    def pieces(self, r):
        """Rank r's piece of every partition, cut anew (on a worker)."""
        with worker_client() as c:
            return c.gather(c.compute([dask.delayed(operator.getitem)(self.cut(p), r) for p in self.recipes]))


class _Chunks:
    """Blocks to place anew (their arcs reversed, or by owner): each block's arcs in chunks of
    rows (``block_chunks``), and ``cut(block, chunk, *args)``, a chunk's piece per rank. So
    a rebuild holds a few chunks in flight, not every block's arcs twice over. Pickled with
    the blocks' keys, not their futures, for the graph holds those."""

    def __init__(self, blocks, where, chunks, cut, args):
        self.blocks, self.where, self.keys, self.cut, self.args = blocks, where, [b.key for b in blocks], cut, args
        self.parts = [(i, chunk[:3], chunk[3]) for i, of_block in enumerate(chunks) for chunk in of_block]
        self.arcs = sum(part[2] for part in self.parts)

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k not in ("blocks", "where")}

    def arcs_of(self, part):
        return part[2]

    def submit(self, client, part, last=True):
        i, chunk, _ = part
        # strictly where the block is: a block's many chunks would let idle workers steal cuts,
        # each copying the whole block
        return client.submit(self.cut, self.blocks[i], chunk, *self.args, workers=[self.where[i]], pure=False)

    def pieces(self, r):
        """Rank r's piece of every chunk, cut anew (on a worker)."""
        with worker_client() as c:
            blocks = [Future(k, client=c) for k in self.keys]
            parts = [c.submit(_piece, self.cut, blocks[i], chunk, self.args, r) for i, chunk, _ in self.parts]
            return c.gather(parts)


def _piece(cut, block, chunk, args, r):
    return cut(block, chunk, *args)[r]


def _finish(token, r, spec, key, threads):
    """Rank r's block, its rows sorted on ``threads`` threads (the cores its host's other ranks
    leave it: every rank finishes at once)."""
    builder = _filling(token, r)
    del _FILLING[token, r]
    if not builder.full():
        raise _unsteady("fewer")
    with kernels.using(kernels.engine(), threads):
        _BUILT[token, r] = builder.finish(spec.direction, key, spec.dedup)


def _take(token, r, spec, key, extra, source):
    """Rank r's block: the one streamed into this worker, or, when dask runs this elsewhere
    (the block was lost with its worker and is asked for again), one built anew."""
    block = _BUILT.pop((token, r), None)
    if block is None:
        block = spec.build(r, key, extra, *source.pieces(r))
    return block


def _forget(token):
    for table in (_FILLING, _BUILT):
        for k in [k for k in table if k[0] == token]:
            del table[k]
    trim_allocator()  # the partitions poured in were freed: return what the allocator kept of them


def _wait_alive(client, futures, at, each=None):
    """Wait for ``futures`` (calling ``each(future)`` as each finishes, which may return more
    to wait for) while the workers ``at`` that hold half-built blocks stay in the cluster: the
    tasks pinned to a worker that left would wait for it forever."""
    pending = set(futures)
    while pending:
        try:
            finished, pending = wait_for(pending, timeout=LIVENESS_SECONDS, return_when="FIRST_COMPLETED")
        except TimeoutError:
            gone = sorted(set(at) - set(workers(client)))
            if gone:
                raise DgraphRunError(
                    f"worker {gone[0]} left the cluster while it built rank blocks; build the graph again"
                ) from None
            continue
        for f in finished:
            if f.status != "finished":
                f.result()  # a failed task raises here; a finished one is not fetched (a block stays put)
            pending |= set(each(f) if each else ())


def _done(*_):
    return None


# ----------------------------------------------------------------------------- room
def check_room(client, at, needs):
    """Refuse, before anything is allocated, to build blocks that would take a worker past its
    memory: rank r's block on worker ``at[r]`` needs ``needs[r]`` = (held, scratch) bytes
    (``BlockBuilder.nbytes``). A block being filled is not dask's data, which dask could spill;
    a worker past its pause threshold would stop running the tasks that fill it (a hang), past
    its limit its nanny would kill it. So a worker's room is what it may use before it pauses
    (or is stopped, when it never pauses), less what it holds that it cannot spill; a worker
    without a memory limit has its host's available memory, shared with the others there."""
    want = {}  # worker -> [bytes its blocks hold, the most one finish takes, its ranks]
    for address, (held, scratch) in zip(at, needs):
        w = want.setdefault(address, [0, 0, 0])
        w[0], w[1], w[2] = w[0] + held, max(w[1], scratch), w[2] + 1
    rooms = client.run(_room, workers=sorted(want), on_error="return")
    for address, room in rooms.items():
        if isinstance(room, BaseException):
            raise DgraphRunError(f"worker {address} left the cluster while it built rank blocks; build the graph again")
    hosts = {}  # host -> [what its workers without a limit need, its available memory, them]
    for address, (held, scratch, ranks) in sorted(want.items()):
        room = rooms[address]
        need = held + scratch * min(room["threads"], ranks)  # finishes run a thread each
        if not room["limit"]:
            host = hosts.setdefault(room["host"], [0, room["available"], []])
            host[0] += need
            host[2].append(address)
        elif need > room["room"]:
            raise _no_room(address, need, room, at)
    for host, (need, available, addresses) in hosts.items():
        if need > available:
            raise DgraphMemoryError(
                f"building this graph's blocks needs {format_bytes(need)} on host {host} (workers "
                f"{', '.join(addresses)}, which have no memory limit), but it has {format_bytes(available)} "
                "available; use more hosts' workers or hosts with more memory (the blocks spread over every worker)"
            )


def _no_room(address, need, room, at):
    ranks = [r for r, a in enumerate(at) if a == address]
    left, limit, used = (format_bytes(b) for b in (max(room["room"], 0), room["limit"], room["unspillable"]))
    return DgraphMemoryError(
        f"building this graph's blocks needs {format_bytes(need)} on worker {address} ({_ranks(ranks)}), but it "
        f"has {left} left before {room['stop']} (memory limit {limit}, {used} in use that dask cannot spill); "
        "use more workers (the graph's ranks spread over them) or workers with a larger memory_limit"
    )


def _room(dask_worker):
    """What a worker may still take: its memory limit, the fraction of it where dask pauses it
    (or the nanny stops it), its process memory less the data dask could spill to make room."""
    limit, pause, process, spillable = worker_memory(dask_worker)
    terminate = dask.config.get("distributed.worker.memory.terminate")
    if pause:
        fraction, stop = pause, "dask pauses it"
    elif terminate:
        fraction, stop = terminate, "its nanny stops it"
    else:
        fraction, stop = 1.0, "it reaches its limit"
    return {
        "limit": limit,
        "unspillable": process - spillable,
        "room": limit * fraction - (process - spillable),
        "stop": stop,
        "threads": dask_worker.state.nthreads,
        "host": dask_worker.ip,
        "available": psutil.virtual_memory().available,
    }


def _ranks(ranks):
    if len(ranks) == 1:
        return f"rank {ranks[0]}"
    contiguous = ranks[-1] - ranks[0] == len(ranks) - 1
    return f"ranks {ranks[0]}-{ranks[-1]}" if contiguous else "ranks " + ", ".join(map(str, ranks))


def place_input(client, parts, cut, arcs, spec, where, *, key=None, extra=None, counts=None, say=None, held=None):
    """The blocks of an input of ``arcs`` arcs: its partitions ``parts`` (dask Delayed), each
    cut into a piece per rank by ``cut(part)`` (a Delayed; ``held``: futures of the partitions
    when computed already, which are cut instead); see ``place``."""
    source = _Partitions(parts, cut, arcs, held)
    return place(client, source, spec, where, key=key, extra=extra, counts=counts, say=say)


def rebuild_blocks(client, blocks, where, cut, args, spec, *, key=None, extra=None, counts=None, arcs=None):
    """Blocks placed anew from a graph's ``blocks`` (rank r's on worker ``where[r]``, where its
    new block is built): ``cut(block, chunk, *args)`` cuts a chunk of a block's rows
    (``block.block_chunks``) into a piece per rank; see ``place``. ``counts``: a function giving
    ``place``'s counts (only a source too large for ``place_small`` needs them); ``arcs``: the
    blocks' arcs when the client knows them (a small source is then cut without first asking
    for its chunks)."""
    held, loose = ranks_by_worker(where), dict(allow_other_workers=True, pure=False)
    chunks = [None] * len(blocks) if arcs is not None and arcs <= SMALL_ARCS else None
    if chunks is None:
        chunks = each_held(client, block_chunks, blocks, where)
        source = _Chunks(blocks, where, chunks, cut, args)
        if source.arcs > SMALL_ARCS:
            return place(client, source, spec, where, key=key, extra=extra, counts=counts() if counts else None)
    # a small source: cut on the workers, each worker's blocks in one task
    P = spec.layout.ranks
    cuts = [
        client.submit(_cut_each, cut, args, P, [(blocks[i], chunks[i]) for i in ranks], workers=[w], **loose)
        for w, ranks in held.items()
    ]
    of_workers = client.gather(cuts)
    pieces = [[w[r] for w in of_workers if w[r] is not None] for r in range(P)]
    return place_small(client, spec, pieces, where, key=key, extra=extra)


def _cut_each(cut, args, nranks, blocks):
    """``cut(block, chunk, *args)`` of every chunk of each (block, its chunks, or None: all of
    them), joined into one piece per rank (None where there are no chunks): a few arrays
    travel, not thousands."""
    blocks = [(block, block_chunks(block) if chunks is None else chunks) for block, chunks in blocks]
    cuts = [cut(block, chunk[:3], *args) for block, chunks in blocks for chunk in chunks]
    return [_joined([c[r] for c in cuts]) for r in range(nranks)]


def _joined(pieces):
    """Pieces (rows, cols, weights or None[, per-arc columns]) as one, their arcs in the same order."""
    if not pieces:
        return None
    rows, cols, weights, *attrs = zip(*pieces)
    joined = np.concatenate(rows), np.concatenate(cols), None if weights[0] is None else np.concatenate(weights)
    if not attrs:
        return joined
    return (*joined, {name: np.concatenate([a[name] for a in attrs[0]]) for name in attrs[0][0]})


def place_small(client, spec, pieces, where, *, key=None, extra=None, tables=None, facts=None):
    """Rank r's block on worker ``where[r]`` from ``pieces[r]`` (its pieces, here on the client):
    one task per rank that carries them (so dask can rebuild it anywhere), a single wave. A
    layout whose blocks hold rows of other ranks' vertices has its blocks built here as well, to
    count each vertex's whole degree (the same code, so the same counts), which the tasks then
    attach. ``key`` and ``extra``: as ``place``'s, futures; ``tables``: their values when the
    client has them (else fetched when needed). Returns the blocks, or with ``facts`` (a function
    of a block) ``(blocks, [facts(block) for each])``: fetched in the round trip that waits for
    the blocks, since a graph's first run asks for them."""
    P = spec.layout.ranks
    degrees = [None] * P
    if not spec.layout.owns_rows():
        key_value, extra_value = tables if tables is not None else client.gather([key, extra])
        built = [spec.build(r, key_value, extra_value, *p) for r, p in enumerate(pieces)]
        sums = _degree_sums(spec.bounds, False, *built)
        degrees = [owned_sum(spec.owned_size(r), sums[r]) for r in range(P)]
    blocks = [
        client.submit(
            _small_block,
            spec,
            (r, key, extra),
            degrees[r],
            *pieces[r],
            workers=[where[r]],
            allow_other_workers=True,
            pure=False,
        )
        for r in range(P)
    ]
    if facts is None:
        _wait_alive(client, blocks, where)
        remember_holders(client, blocks, where)
        return blocks
    # tasks pinned loosely: a worker that leaves cannot keep them waiting, as _wait_alive guards
    values = each_held(client, facts, blocks, where)
    remember_holders(client, blocks, where)
    return blocks, values


def _small_block(spec, args, owned_degree, *pieces):
    block = spec.build(*args, *pieces)
    return block if owned_degree is None else with_owned_degree(block, owned_degree)


def place(client, source, spec, where, *, key=None, extra=None, counts=None, say=None):
    """Rank r's block (``spec.layout.builder``'s) on worker ``where[r]``, from the
    ``source.arcs`` arcs of ``source``'s parts: streamed (``stream_blocks``), or for a small
    source cut whole and built in one wave, which saves the round trips of streaming."""
    if source.arcs > AT_ONCE_ARCS:
        return stream_blocks(client, source, spec, where, key=key, extra=extra, counts=counts, say=say)
    cuts = [source.submit(client, p) for p in source.parts]
    blocks = [
        client.submit(
            _with_pieces,
            spec.build,
            r,
            (r, key, extra),
            *groups,
            workers=[where[r]],
            allow_other_workers=True,
            pure=False,
        )
        for r, groups in enumerate(route(client, cuts, where))
    ]
    if not spec.layout.owns_rows():
        blocks = with_owned_degrees(client, blocks, spec.bounds, where)
    _wait_alive(client, blocks, where)  # a chunk's cut waits for its block's worker
    remember_holders(client, blocks, where)
    return blocks


def stream_blocks(client, source, spec, where, *, key=None, extra=None, counts=None, say=None):
    """Rank r's block (``spec.layout.builder``'s) on worker ``where[r]``, from the parts of
    ``source``, each cut into a piece per rank (a future, ``source.submit``). ``counts``: for
    each rank, a future of its rows' arc counts, which size its CSR beforehand (only where a
    rank's block is one CSR over its own vertices); None: a first pass over the source counts
    them. ``key``: placed id -> canonical id (a future; None where equal), which rows are
    sorted by; ``extra``: the plan's (a future), for the layout. ``say(stage, done)`` hears of
    each part handled."""
    token = uuid.uuid4().hex
    keyed = key is not None
    try:
        started = [
            client.submit(
                _start,
                token,
                r,
                spec,
                extra,
                None if counts is None else counts[r],
                keyed,
                workers=[where[r]],  # strictly: a loose restriction lets an idle worker steal a rank
                pure=False,
            )
            for r in range(spec.layout.ranks)
        ]
        at = list(where)  # each rank's block is filled on its own worker
        _wait_alive(client, started, at)
        ranks_of = {}
        for r, address in enumerate(at):
            ranks_of.setdefault(address, []).append(r)

        def pour(action, stage, last):
            """``action`` on every rank's piece of every part, a few parts in flight (two per
            worker, or more while their arcs stay within budget); ``last``: the source's last
            pass over its parts."""
            todo, flying, done = collections.deque(source.parts), {}, [0]
            most, budget = IN_FLIGHT_PER_WORKER * len(ranks_of), IN_FLIGHT_ARCS_PER_WORKER * len(ranks_of)

            def launch():
                started = []
                while todo and (len(flying) < most or sum(flying.values()) + source.arcs_of(todo[0]) <= budget):
                    part = todo.popleft()
                    piece = source.submit(client, part, last)
                    acts = [
                        client.submit(action, token, ranks, piece, workers=[w], pure=False)
                        for w, ranks in ranks_of.items()
                    ]
                    started.append(client.submit(_done, *acts, pure=False))
                    flying[started[-1]] = source.arcs_of(part)
                return started

            def more(finished):
                del flying[finished]
                done[0] += 1
                if say:
                    say(stage, done[0], len(source.parts))
                return launch()

            _wait_alive(client, launch(), at, more)

        if counts is None:
            pour(_count, "counting arcs", False)
            started = [client.submit(_needs, token, r, spec, keyed, workers=[w], pure=False) for r, w in enumerate(at)]
            _wait_alive(client, started, at)
        check_room(client, at, client.gather(started))
        allocated = [client.submit(_allocate, token, r, spec, workers=[w], pure=False) for r, w in enumerate(at)]
        _wait_alive(client, allocated, at)
        pour(_fill, "placing arcs", True)
        threads = shared_threads(host_threads(client)[1], at)
        finishing = [
            client.submit(_finish, token, r, spec, key, threads[r], workers=[w], pure=False) for r, w in enumerate(at)
        ]
        _wait_alive(client, finishing, at)
        # the blocks' own tasks depend on nothing pinned, so dask can rebuild a lost one anywhere
        blocks = [
            client.submit(
                _take,
                token,
                r,
                spec,
                key,
                extra,
                source,
                workers=[at[r]],
                allow_other_workers=True,
                pure=False,
            )
            for r in range(len(at))
        ]
        if not spec.layout.owns_rows():
            blocks = with_owned_degrees(client, blocks, spec.bounds, at)
        wait_for(blocks)
        client.run(_forget, token)  # a block built twice (its task moved) leaves no copy behind
    except BaseException:
        client.run(_forget, token)
        raise
    return blocks
