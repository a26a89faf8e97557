"""The edge map's messages: ``(ids, *arrays)`` of a rank's vertices, sent as ids or, when that
is smaller, as a bitmap of the owner's range (HPCGraph's cut-off, in bytes)."""

from __future__ import annotations

import numpy as np

from . import kernels


def pack(local_ids, arrays, size):
    """A message of (ids, *arrays) in its smaller form: ids, or a bitmap of the owner's range."""
    if local_ids.size * 64 > size:
        if local_ids.size > 1 and not np.all(local_ids[1:] > local_ids[:-1]):
            order = np.argsort(local_ids)
            local_ids, arrays = local_ids[order], [a[order] for a in arrays]
        bits = np.zeros(size, dtype=bool)
        bits[local_ids] = True
        return [np.packbits(bits), *arrays]
    return [local_ids, *arrays]


def unpack(message, size):
    """``(ids, arrays)`` of a message, whichever form it came in."""
    head = message[0]
    ids = kernels.set_bits(head, size) if head.dtype == np.uint8 else head
    return ids, message[1:]


def concat(parts, dtype):
    """The arrays joined, or an empty array of ``dtype``."""
    return np.concatenate(parts) if parts else np.empty(0, dtype)
