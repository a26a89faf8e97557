"""Where dgraph listens: the peer channels' sockets, inside ``dgraph.channel-ports`` when set.

A worker keeps one listening socket ready for its next run and opens one for each run that
does not take it, so it needs two ports at a time, and one more for each other run it is in at
once. Set on the workers (their dask config, or ``DASK_DGRAPH__CHANNEL_PORTS="41000-41099"`` in
their environment) where a firewall lets only known ports through between hosts.
"""

from __future__ import annotations

import errno
import socket

import dask

from ..errors import DgraphRunError

SETTING = "dgraph.channel-ports"


class PortsExhausted(DgraphRunError):
    """No port of ``dgraph.channel-ports`` is free on a worker's host."""


def channel_ports(value=None):
    """The ports ``dgraph.channel-ports`` allows (a range), or None for any free port.
    ``value``: the setting (default: this process's dask config): ``"41000-41099"``, ``"41000"``
    or an int.

    >>> channel_ports("41000-41003")
    range(41000, 41004)
    >>> channel_ports(None) is None
    True
    """
    value = dask.config.get(SETTING, None) if value is None else value
    if value is None or value == "":
        return None
    text = str(value).strip()
    low, _, high = text.partition("-")
    try:
        first, last = int(low), int(high or low)
    except ValueError:
        first, last = 0, -1
    if not 0 < first <= last <= 65535:
        raise DgraphRunError(
            f"{SETTING} must be a port range such as '41000-41099' (or one port), got {value!r}; "
            "fix the workers' dask config or DASK_DGRAPH__CHANNEL_PORTS"
        )
    return range(first, last + 1)


def listening(host, worker=""):
    """A socket on ``host`` that the peers of a run connect to, on the first free port of
    ``dgraph.channel-ports`` when it is set (else any free port). Raises ``PortsExhausted``
    naming the setting when every port of the range is taken (``worker`` names who asked)."""
    ports = channel_ports()
    if ports is None:
        return socket.create_server((host, 0), backlog=128)
    for port in ports:
        try:
            return socket.create_server((host, port), backlog=128)
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE:
                raise
    raise PortsExhausted(
        f"every port of {SETTING} ({ports.start}-{ports.stop - 1}) is taken on {host} (worker {worker}): a "
        "worker needs two of them, and one more for each other run it is in at once; widen the range in "
        "the workers' dask config (or DASK_DGRAPH__CHANNEL_PORTS) and open it in the firewall"
    )
