"""How a motif's joins are spread over the workers, by the graph's size.

The rows a pattern's joins hold on the way are its partial matches, which can outnumber the
arcs by far (a path through a hub: its degree squared). So the partial matches never move:
the first term's arcs are cut into chunks of ``CHUNK_ARCS``, and each later term's arcs (one
partition per worker) are broadcast to each chunk's task, which carries its own partial
matches through every join (dask's broadcast join, a merge per arcs partition). A small graph
is joined in one task instead (a shuffle costs more than the merge), and arcs too many to send
to every worker are joined by hash, the partial matches shuffled between the workers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

SMALL_ARCS = 1 << 16  # up to this many arcs, one task's pandas merges beat any shuffle
BROADCAST_ARCS = 1 << 22  # up to this many arcs (some 64 MB of ids), each worker may get them all
CHUNK_ARCS = 1 << 12  # arcs of the first term per task: its partial matches are this times a degree


@dataclass(frozen=True)
class Sizing:
    """``one_task``: every frame in one partition; ``chunks``: the partitions of the first term's
    arcs (None: as they are); ``broadcast``: later terms broadcast to the partial matches."""

    one_task: bool
    chunks: int | None
    broadcast: bool


def sizing(graph: Any) -> Sizing:
    arcs = graph.num_arcs
    if arcs <= SMALL_ARCS:
        return Sizing(True, None, False)
    if arcs <= BROADCAST_ARCS:
        return Sizing(False, math.ceil(arcs / CHUNK_ARCS), True)
    return Sizing(False, None, False)
