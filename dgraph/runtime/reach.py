"""Workers a client found out of reach, and the calls that leave them out.

A run that ends because a peer stopped answering names the workers it could not reach (its
``DgraphRunError``'s ``unreachable``), and the client remembers them (``ClientState.unreachable``,
with every other worker of their hosts). Before the next call touches the cluster, ``leave_out``
knocks on each one the scheduler still lists: a TCP connect to its address, given
``dgraph.peer-timeout`` seconds (a host that is up answers it from its kernel, however busy the
worker). One that answers is forgotten: its link came back. One that does not is removed from
the scheduler, as the scheduler removes a worker whose connection broke; dask then computes what
only it held again on the workers that answer, from the recipes (a graph's blocks: from its
input), and the graph spreads its ranks over them (``BlockStore.spread``). Until then the
scheduler would list such a worker for as long as its own connection to it takes to time out
(``distributed.comm.timeouts.tcp``) or its worker TTL (minutes), and whatever reached for it (a
scatter, a block it held, a run) would fail or wait.

A removed worker is reported in each call's ``RunStats.skipped`` for ``SKIPPED_FOR`` seconds; if
it joins again meanwhile (its link healed and its nanny restarted it), it is knocked on again and
used once it answers.
"""

from __future__ import annotations

import asyncio
import time

from distributed.comm.addressing import parse_host_port

from ..cluster import workers
from ..dask_internals import remove_worker
from .dispatch import on_hosts_of

SKIPPED_FOR = 60.0  # seconds the calls after a worker was removed as unreachable report it as skipped


def remember(state, client, unreachable):
    """Note the workers a failed run could not reach, and the other workers of their hosts, to
    be knocked on before the next call."""
    if not unreachable:
        return
    now = time.monotonic()
    with state.lock:
        for w in {*unreachable, *on_hosts_of(workers(client), unreachable)}:
            state.unreachable[w] = now


def leave_out(client, state, seconds):
    """Knock on the workers ``state`` remembers as unreachable that the scheduler still lists
    (``seconds`` each, side by side); forget those that answer, remove the others from the
    scheduler. Returns the workers calls leave out now, sorted."""
    with state.lock:
        remembered = dict(state.unreachable)
    if not remembered:
        return []
    listed = set(workers(client))
    knock = [w for w in remembered if w in listed]
    if not state.direct:  # this client reaches no worker itself, so its knock would prove nothing
        answered = set(knock)
    else:
        answered = set(client.sync(answering, knock, seconds)) if knock else set()
    silent = [w for w in knock if w not in answered]
    for w in silent:
        client.sync(remove_worker, client, w, "dgraph-unreachable")
    now = time.monotonic()
    with state.lock:
        for w in answered:
            state.unreachable.pop(w, None)
        for w in silent:
            state.unreachable[w] = now
        for w, since in list(state.unreachable.items()):
            if w not in listed and w not in silent and now - since > SKIPPED_FOR:
                del state.unreachable[w]
        if silent:  # where blocks are and which listeners were ready: asked afresh
            state.holders.clear()
            for w in silent:
                state.spares.pop(w, None)
        return sorted(state.unreachable)


async def answering(addresses, seconds):
    """Of the worker ``addresses``, those whose host completes a TCP connect within ``seconds``."""

    async def knock(address):
        host, port = parse_host_port(address.split("://", 1)[-1])
        try:
            _, writer = await asyncio.wait_for(asyncio.open_connection(host, port), seconds)
        except (OSError, asyncio.TimeoutError):
            return False
        writer.close()
        return True

    found = await asyncio.gather(*(knock(a) for a in addresses))
    return [a for a, ok in zip(addresses, found) if ok]
