"""Every use dgraph makes of dask's and distributed's non-public API, in one place.

dgraph keeps a run's results in the workers' memory and hands them to the user as futures and
dask DataFrames without a task of its own; that needs a few calls dask does not document. Each
function here says what it relies on; ``tests/test_dask_internals.py`` pins that behaviour and CI
runs it on the oldest and the newest dask the project supports (pyproject's lower bound and the
latest release).
"""

from __future__ import annotations

import functools
import time
import weakref

from distributed import Future
from distributed.client import _wait
from distributed.core import send_recv
from distributed.protocol.serialize import ToPickle
from distributed.spill import SpillBuffer
from distributed.utils_comm import gather_from_workers
from distributed.worker import get_data_from_worker

__all__ = [
    "adopt_futures",
    "call_on_comm",
    "comm_socket",
    "fetch_from_worker",
    "remove_worker",
    "held_frame",
    "as_key",
    "to_pickle",
    "wait_for",
    "settled",
    "store_on_worker",
    "worker_memory",
]


def store_on_worker(worker, key, value, stimulus_id):
    """Put ``value`` into ``worker``'s memory under ``key``, as scattered data is put there
    (``Worker.update_data``); returns its size in bytes as the worker measured it."""
    return worker.update_data(data={key: value}, stimulus_id=stimulus_id)["nbytes"][key]


async def fetch_from_worker(worker, key, holder):
    """The value of ``key`` from the memory of worker ``holder`` (``get_data_from_worker``, the
    call workers fetch their dependencies with). Raises ``KeyError`` when ``holder`` does not
    have it, ``OSError`` when it cannot be reached."""
    reply = await get_data_from_worker(worker.rpc, [key], holder, who=worker.address)
    if isinstance(reply, dict) and reply.get("status") == "OK" and key in reply.get("data", {}):
        return reply["data"][key]
    raise KeyError(key)


async def adopt_futures(client, stored):
    """Futures for values that workers stored themselves (key -> (worker, nbytes)), made as
    ``Client.scatter`` makes them: the scheduler learns where they are (``update_data``) and the
    client's futures are marked finished at once (the scheduler's own report may come before or
    after: either is fine). No task runs."""
    if not stored:
        return []
    await client.scheduler.update_data(
        who_has={k: [w] for k, (w, _) in stored.items()},
        nbytes={k: n for k, (_, n) in stored.items()},
        client=client.id,
    )
    futures = [Future(k, client) for k in stored]
    for f in futures:
        client.futures[f.key].finish()
        _HOLDERS[f] = stored[f.key][0]
    return futures


# adopted future -> the worker that stored its value: a frame of held parts fetches them from
# there without asking the scheduler who holds them first
_HOLDERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


async def _from_holders(client, parts):
    """The values of adopted futures ``parts`` straight from the workers that stored them, with
    no ``who_has`` round trip to the scheduler; None where a holder is unknown or no longer has
    its value (``Client.gather`` then asks the scheduler where it is)."""
    if not all(p in _HOLDERS and p.status == "finished" for p in parts):  # a lost holder: the scheduler says
        return None
    who_has = {p.key: [_HOLDERS[p]] for p in parts}
    data, missing, failed, _ = await gather_from_workers(who_has, rpc=client.rpc)
    return None if missing or failed else [data[p.key] for p in parts]


def worker_memory(worker):
    """(memory limit, or 0 for none; the fraction of it past which dask pauses the worker, or
    False; its process memory; the bytes of its data in memory that dask would spill to disk,
    0 where it does not spill), as the worker's memory manager sees them
    (``Worker.memory_manager``, ``Worker.monitor``, ``SpillBuffer.fast``)."""
    memory = worker.memory_manager
    spills = isinstance(memory.data, SpillBuffer) and memory.memory_spill_fraction is not False
    spillable = memory.data.fast.total_weight if spills else 0
    return memory.memory_limit or 0, memory.memory_pause_fraction, worker.monitor.get_process_memory(), spillable


def wait_for(futures, timeout=None, return_when="ALL_COMPLETED"):
    """``distributed.wait`` on the futures' own client (``wait`` itself takes the default client,
    which may be another one, or none); ``TimeoutError`` after ``timeout`` seconds. Returns
    (done, not_done) sets."""
    futures = list(futures)
    if not futures:
        return set(), set()
    return futures[0].client.sync(_wait, futures, timeout=timeout, return_when=return_when)


async def settled(future):
    """Wait on the client's event loop until ``future`` is finished, erred or cancelled; returns
    ``(status, exception or None)`` without fetching the result."""
    await future._state.wait()
    return future.status, (future._state.exception if future.status == "error" else None)


def to_pickle(obj):
    """``obj`` wrapped for a message to a dask server: dask's comm pickles it on the way and the
    receiving end's comm unpickles it (under dask's own rules and security) before the handler
    runs, so a handler never unpickles bytes itself."""
    return ToPickle(obj)


def as_key(key):
    """A dask key as it was sent: msgpack, which carries dask's messages, turns tuples into lists."""
    return tuple(as_key(k) for k in key) if isinstance(key, list) else key


async def call_on_comm(comm, op, **msg):
    """Send ``op`` with ``msg`` over an open comm and return the reply (``distributed.core``)."""
    return await send_recv(comm, op=op, reply=True, **msg)


def comm_socket(comm):
    """The socket under a TCP or TLS comm (``distributed.comm.tcp``), or None for another kind."""
    stream = getattr(comm, "stream", None)
    return getattr(stream, "socket", None)


async def remove_worker(client, address, why):
    """Have the scheduler remove worker ``address`` as it removes one whose connection broke (its
    ``unregister`` handler, ``Scheduler.remove_worker``): what only that worker held is computed
    again elsewhere from its recipe (data without one, scattered, is lost), and the worker is
    told to close, should it hear. ``why`` prefixes the stimulus id in the scheduler's log."""
    return await client.scheduler.unregister(address=address, stimulus_id=f"{why}-{time.time()}")


def held_frame(name, futures, meta, direct=False, copies=None):
    """A dask DataFrame whose partitions are the futures, under the keys ``(name, 0), (name, 1),
    ...``, with empty frame ``meta`` and unknown divisions: computing it fetches results already
    held and runs no task of its own (``dd.from_delayed`` adds an alias task per
    partition, a scheduler round trip on every compute). Built on dask-expr's ``IO`` expression.
    ``direct``: its ``compute()`` fetches the parts from their workers, not relayed by the
    scheduler (for a client that reaches the workers; ``Client(direct_to_workers=...)`` has the
    last word); ``copies``: the parts' values, already here (small ones came back with the run),
    which its ``compute()`` joins without fetching anything."""
    import pandas as pd
    from dask.dataframe.dask_expr._collection import new_collection
    from dask.dataframe.dask_expr._expr import ArrowStringConversion
    from dask.dataframe.utils import make_meta, pyarrow_strings_enabled

    frame = _held_parts_class()(name, list(futures), make_meta(meta))
    if pyarrow_strings_enabled() and any(pd.api.types.is_object_dtype(t) for t in frame._meta.dtypes):
        return new_collection(ArrowStringConversion(frame))  # as dd.from_delayed does: object columns become strings
    collection = new_collection(frame)
    collection.__class__ = _held_frame_class()
    collection._direct, collection._copies = bool(direct), None if copies is None else list(copies)
    for future, copy in zip(futures, copies or ()):
        _COPIES[future] = copy
    return collection


# held part -> its value, already on the client (it came back with the run): a frame derived from
# held parts (filtered, a column's unique count) is computed here from them, with no round trip
_COPIES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def fetch(client, collection):
    """The value of a dask collection on ``client``: a frame of held parts (``held_frame``) as its
    own ``compute()`` gets it, from the copies the run brought back or straight from its
    workers (no task, no scheduler round trip: several times quicker for a small result); a
    collection derived from held parts whose copies are all here, computed here from them;
    anything else computed by ``client``'s scheduler."""
    if isinstance(collection, _held_frame_class()) and isinstance(collection.expr, _held_parts_class()):
        return collection.compute()
    local = _with_copies(collection.__dask_graph__())
    if local is not None:
        from dask.local import get_sync

        finalize, args = collection.__dask_postcompute__()
        return finalize(get_sync(local, collection.__dask_keys__()), *args)
    return client.compute(collection).result()


def _with_copies(graph):
    """``graph`` with its held parts replaced by their copies on the client, when it reads
    nothing else from the cluster (every future in it has a copy here); else None."""
    local = dict(graph)
    held = {k: v for k, v in local.items() if isinstance(v, Future)}
    if not held or not all(v in _COPIES for v in held.values()):
        return None
    local.update((k, _COPIES[v].copy()) for k, v in held.items())  # copied: a task may change its input
    if not all(d in local for v in local.values() for d in getattr(v, "dependencies", ())):
        return None  # a future inside a task's arguments: the cluster computes it
    if any(getattr(getattr(v, "func", None), "__module__", "").startswith("distributed.") for v in local.values()):
        return None  # a task of the workers' own services (a p2p shuffle's)
    return local


@functools.cache
def _held_parts_class():
    """The expression class, made on first use so that importing dgraph (and every worker's
    plugin) does not import dask.dataframe. It is published as this module's ``HeldParts``, so
    the scheduler unpickles it by reference."""
    from dask.dataframe.dask_expr.io.io import IO

    class HeldParts(IO):
        """The expression of a frame whose partitions are futures held under ``(name, i)``."""

        _parameters = ["name", "futures", "_meta"]

        @functools.cached_property
        def _name(self):
            return self.operand("name")

        @property
        def _meta(self):
            return self.operand("_meta")

        def _divisions(self):
            return (None,) * (len(self.operand("futures")) + 1)

        def _layer(self):
            # each future under its own key: dask drops the self-reference, and the tasks that
            # read a partition depend on the held result itself
            return {f.key: f for f in self.operand("futures")}

        def __dask_tokenize__(self):
            return self.operand("name")  # fresh per frame; futures cannot be hashed by value

    HeldParts.__module__, HeldParts.__qualname__ = __name__, "HeldParts"
    globals()["HeldParts"] = HeldParts
    return HeldParts


@functools.cache
def _held_frame_class():
    """The collection class of a frame of held parts, published as this module's ``HeldFrame``."""
    from dask.dataframe.core import _concat
    from dask.dataframe.dask_expr._collection import DataFrame

    class HeldFrame(DataFrame):
        """A dask DataFrame of held parts whose ``compute()`` gathers them to the client and joins
        them there, as dask's finalize would join them on a worker after moving every part to it
        (about twice as fast for Kronecker 20's BFS result, 1 M rows from 2 workers), and with
        ``direct`` straight from their workers, not relayed by the scheduler (about three times
        faster again), and from the workers that stored them without asking the scheduler where
        they are (``_from_holders``)."""

        def compute(self, **kwargs):
            parts = self.expr.operand("futures") if isinstance(self.expr, _held_parts_class()) else None
            if kwargs or not parts:  # a frame changed in place (``df[c] = ...``), or a scheduler asked for
                return super().compute(**kwargs)
            copies = getattr(self, "_copies", None)
            if copies is not None:  # copied: the caller may change what it gets
                return _concat([c.copy() for c in copies])
            client = parts[0].client
            direct = getattr(self, "_direct", False) if client.direct_to_workers is None else client.direct_to_workers
            got = client.sync(_from_holders, client, parts) if direct else None
            return _concat(got if got is not None else client.gather(parts, direct=direct))

    HeldFrame.__module__, HeldFrame.__qualname__ = __name__, "HeldFrame"
    globals()["HeldFrame"] = HeldFrame
    return HeldFrame


def __getattr__(name):
    if name == "HeldParts":  # unpickling a frame's expression in a process that never made one
        return _held_parts_class()
    if name == "HeldFrame":
        return _held_frame_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
