"""Where ids stand in a vertex space (a sorted set of ids): the lookup every conversion from
placed ids to a rank's slots goes through, and the renumbering of ids by their rank among the
distinct ones."""

from __future__ import annotations

import numba
import numpy as np

from ..owners import PLACED_BITS
from .engines import twins


def positions(space, ids):
    """(slots, inside): where ``ids`` stand in the sorted set ``space`` (``np.searchsorted``'s
    left positions, ids outside it included) and which of them are in it.

    The numba twin answers from a rank dictionary of the space: a bit per id of its span and a
    running count per 64 of them (a quarter of a byte per id of the span, made in one pass), so
    a lookup is two reads and a popcount where a binary search misses the cache at every step
    (tens of times faster on millions of random ids). Worth it when the ids outnumber the
    span's 64-id words; otherwise, and on the numpy engine, it searches.

    >>> slots, inside = positions(np.array([2, 5, 9]), np.array([5, 3, 9, 10]))
    >>> slots.tolist(), inside.tolist()
    ([1, 1, 2, 3], [True, False, True, False])
    """
    ids = np.asarray(ids)
    if space.size and ids.size and (int(space[-1]) - int(space[0])) // 64 < ids.size:
        return _positions(space, ids)
    return _search(space, ids)


def _search(space, ids):
    slots = np.searchsorted(space, ids)
    inside = slots < space.size
    inside[inside] = space[slots[inside]] == ids[inside]
    return slots, inside


@numba.njit(cache=True, inline="always")
def _popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)


@numba.njit(cache=True)
def _positions_numba(space, ids):
    base = space[0]
    words = (space[-1] - base) // 64 + 1
    bits = np.zeros(words, np.uint64)
    below = np.empty(words, np.int64)  # space members in the words before
    for i in range(space.size):
        p = space[i] - base
        bits[p >> 6] |= np.uint64(1) << np.uint64(p & 63)
    c = 0
    for w in range(words):
        below[w] = c
        c += _popcount(bits[w])
    slots = np.empty(ids.size, np.int64)
    inside = np.zeros(ids.size, np.bool_)
    for i in range(ids.size):
        q = ids[i] - base
        if q < 0:
            slots[i] = 0
        elif q >= words * 64:
            slots[i] = space.size
        else:
            word, b = bits[q >> 6], np.uint64(q & 63)
            slots[i] = below[q >> 6] + _popcount(word & ((np.uint64(1) << b) - np.uint64(1)))
            inside[i] = (word >> b) & np.uint64(1)
    return slots, inside


_positions = twins("positions", numba=_positions_numba, numpy=_search)


@numba.njit(cache=True)
def _keyed_at_numba(space, key, slots):
    out = np.empty(slots.size, np.int64)
    for i in range(slots.size):
        s = numba.uint64(slots[i])  # unsigned: no test for a negative index to wrap
        out[i] = (np.int64(key[s]) << 32) | space[s]
    return out


def _keyed_at_numpy(space, key, slots):
    return (key[slots].astype(np.int64) << 32) | space[slots]


_keyed_at = twins("keyed_at", numba=_keyed_at_numba, numpy=_keyed_at_numpy)


def keyed_at(space, key, slots):
    """``owners.keyed(space[slots], key[slots])`` in one pass, with no temporaries: the keyed
    ids of a space's slots, given the canonical id ``key`` of each.

    >>> keyed_at(np.array([4, 9]), np.array([7, 2], np.int32), np.array([1, 0])).tolist() == [2 << 32 | 9, 7 << 32 | 4]
    True
    """
    return _keyed_at(space, key, np.asarray(slots, dtype=np.int64))


@numba.njit(cache=True)
def _unkey_numba(ids):
    for i in range(ids.size):
        if ids[i] >= 0:
            ids[i] &= PLACED_BITS
    return ids


def _unkey_numpy(ids):
    return np.bitwise_and(ids, PLACED_BITS, out=ids, where=ids >= 0)


_unkey = twins("unkey", numba=_unkey_numba, numpy=_unkey_numpy)


def unkey(ids):
    """``owners.placed_of`` in place, on int64 keyed ids: the low 32 bits of each id >= 0 (-1
    stays -1). One pass and no temporaries, where ``placed_of``'s three fresh arrays cost more
    than the pass (a BFS's parents per rank, millions of ids).

    >>> unkey(np.array([7 << 32, 2 << 32 | 1, -1])).tolist()
    [0, 1, -1]
    """
    return _unkey(ids)


@numba.njit(cache=True)
def _mark_bits_numba(flags, space, lo, bits, value):
    # without a branch: a frontier's bits are too random to predict
    if value:
        for i in range(space.size):
            flags[i] |= bits[space[i] - lo]
    else:
        for i in range(space.size):
            flags[i] &= not bits[space[i] - lo]


def _mark_bits_numpy(flags, space, lo, bits, value):
    flags[bits[space - lo]] = value


_mark_bits = twins("mark_bits", numba=_mark_bits_numba, numpy=_mark_bits_numpy)


def mark_bits(flags, space, lo, bits, value=True):
    """Set ``flags[i]`` to ``value`` where ``bits[space[i] - lo]`` is set: a bitmap of the ids
    from ``lo`` (bools) read into flags over a vertex space whose ids all lie in its range.
    One pass, with no temporaries (about twice as fast as numpy's gather on a peer's frontier).

    >>> flags = np.zeros(3, bool)
    >>> mark_bits(flags, np.array([4, 6, 7]), 4, np.array([True, False, False, True]))
    >>> flags.tolist()
    [True, False, True]
    """
    _mark_bits(flags, space, int(lo), bits, bool(value))


def dense_ranks(values, dtype=np.int64):
    """``np.unique(values, return_inverse=True)``: the distinct values, sorted, and each value's
    rank among them, as ``dtype`` (int32 halves what a caller renumbering every round holds).
    Where the values outnumber their span's 64-id words, the numba twin marks them in a bitmap
    of the span and counts the bits per 64 (a quarter of a byte per id of the span, transient)
    instead of sorting: linear, with no sorted copies of the values. Otherwise, and on the numpy engine, it sorts.

    >>> distinct, rank = dense_ranks(np.array([7, 3, 7, 12]))
    >>> distinct.tolist(), rank.tolist()
    ([3, 7, 12], [1, 0, 1, 2])
    """
    values = np.asarray(values)
    return _dense_ranks(values, np.empty(values.size, dtype))


def _unique_inverse(values, rank):
    distinct, inverse = np.unique(values, return_inverse=True)
    rank[:] = inverse.reshape(-1)
    return distinct, rank


@numba.njit(cache=True)
def _dense_ranks_numba(values, rank):
    if values.size == 0:
        return values.copy(), rank
    base, top = values[0], values[0]
    for v in values:
        base, top = min(base, v), max(top, v)
    words = (np.int64(top) - np.int64(base)) // 64 + 1
    if words > values.size:
        return _sorted_ranks(values, rank)
    bits = np.zeros(words, np.uint64)
    for v in values:
        p = v - base
        bits[p >> 6] |= np.uint64(1) << np.uint64(p & 63)
    below = np.empty(words, np.int64)  # distinct values in the words before
    c = 0
    for w in range(words):
        below[w] = c
        c += _popcount(bits[w])
    distinct = np.empty(c, values.dtype)
    k = 0
    for w in range(words):
        b = bits[w]
        while b:
            low = b & (~b + np.uint64(1))
            distinct[k] = base + w * 64 + _popcount(low - np.uint64(1))
            k += 1
            b ^= low
    for i in range(values.size):
        p = values[i] - base
        rank[i] = below[p >> 6] + _popcount(bits[p >> 6] & ((np.uint64(1) << np.uint64(p & 63)) - np.uint64(1)))
    return distinct, rank


@numba.njit(cache=True)
def _sorted_ranks(values, rank):
    order = np.argsort(values, kind="mergesort")
    distinct = np.empty(values.size, values.dtype)
    c = -1
    for j in range(values.size):
        v = values[order[j]]
        if c < 0 or v != distinct[c]:
            c += 1
            distinct[c] = v
        rank[order[j]] = c
    return distinct[: c + 1].copy(), rank


_dense_ranks = twins("dense_ranks", numba=_dense_ranks_numba, numpy=_unique_inverse)


def set_bits(packed, size):
    """The ids 0..size-1 whose bits are set in ``packed`` (``np.packbits``' big-endian bit
    order), ascending: ``np.flatnonzero(np.unpackbits(packed, count=size))`` without the byte
    per id. The numba twin counts the bits first and writes each byte's eight candidates
    unconditionally, advancing by the bit (no branch to mispredict).

    >>> set_bits(np.packbits([0, 1, 1, 0, 0, 0, 0, 0, 1]), 9).tolist()
    [1, 2, 8]
    """
    return _set_bits(np.ascontiguousarray(packed, dtype=np.uint8), int(size))


@numba.njit(cache=True)
def _set_bits_numba(packed, size):
    nbytes = min(packed.size, (size + 7) // 8)
    c = 0
    for i in range(nbytes):
        c += _popcount(np.uint64(packed[i]))
    out = np.empty(c + 8, np.int64)  # the last byte's candidates past its set bits land in the spare
    c = 0
    for i in range(nbytes):
        b = packed[i]
        if b:
            for j in range(8):
                out[c] = i * 8 + j
                c += (b >> (7 - j)) & 1
    while c and out[c - 1] >= size:  # bits past size in the last byte
        c -= 1
    return out[:c]


def _set_bits_numpy(packed, size):
    return np.flatnonzero(np.unpackbits(packed, count=size))


_set_bits = twins("set_bits", numba=_set_bits_numba, numpy=_set_bits_numpy)


def pack_ids(ids, size):
    """``set_bits``' inverse: the ids (any order, repeats allowed, each in 0..size-1) as bits in
    ``np.packbits``' big-endian order, ``ceil(size / 8)`` bytes. The numba twin sets each id's
    bit in place, with no byte per vertex of the span.

    >>> pack_ids(np.array([8, 1, 2]), 9).tolist()
    [96, 128]
    """
    return _pack_ids(np.asarray(ids), int(size))


@numba.njit(cache=True)
def _pack_ids_numba(ids, size):
    out = np.zeros((size + 7) // 8, np.uint8)
    for v in ids:
        out[v >> 3] |= np.uint8(128) >> np.uint8(v & 7)
    return out


def _pack_ids_numpy(ids, size):
    flags = np.zeros(size, bool)
    flags[ids] = True
    return np.packbits(flags)


_pack_ids = twins("pack_ids", numba=_pack_ids_numba, numpy=_pack_ids_numpy)
