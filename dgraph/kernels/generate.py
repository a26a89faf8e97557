"""Kronecker (R-MAT) edges from a counter-based random stream: edge j's endpoints are a pure
function of (seed, j), so any worker can generate any range of a Graph 500 edge list, and
regenerate it for validation, without holding or shipping it.

Edge j draws its bits from splitmix64's stream started at ``mix(seed_key + j)``: one 64-bit word
per level, its high half deciding the row quadrant, its low half the column (probabilities in
units of 2**-32). Labels then go through the scramble (an odd multiply, a xor-shift and another
odd multiply modulo 2**scale: a bijection). Weights, when asked, are 53-bit uniforms of another
word of the stream.
"""

from __future__ import annotations

import numba
import numpy as np

from .engines import twins

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
M1 = np.uint64(0xBF58476D1CE4E5B9)
M2 = np.uint64(0x94D049BB133111EB)


def _mix(x):
    """splitmix64's finalizer (uint64 in, uint64 out; arrays or scalars)."""
    x = (x ^ (x >> np.uint64(30))) * M1
    x = (x ^ (x >> np.uint64(27))) * M2
    return x ^ (x >> np.uint64(31))


def _scrambled(x, mask, m1, add, shift, m2):
    x = (x * m1 + add) & mask
    x ^= x >> shift
    return (x * m2) & mask


_mix1 = numba.njit(inline="always")(_mix)
_scrambled1 = numba.njit(inline="always")(_scrambled)


CHUNK = 512  # edges generated side by side: each level's loop over them is branch-free and vectorizes


@numba.njit(cache=True)
def _kron_numba(scale, key, first, count, thresholds, scramble, weighted):
    t_ab, t_a, t_c = thresholds[0], thresholds[1], thresholds[2]
    mask, m1, add, shift, m2 = scramble[0], scramble[1], scramble[2], scramble[3], scramble[4]
    src = np.empty(count, np.int64)
    dst = np.empty(count, np.int64)
    w = np.empty(count if weighted else 0, np.float64)
    start, s, d = np.empty(CHUNK, np.uint64), np.empty(CHUNK, np.uint64), np.empty(CHUNK, np.uint64)
    low = np.uint64(0xFFFFFFFF)
    for a in range(0, count, CHUNK):
        k = min(CHUNK, count - a)
        for i in range(k):
            start[i] = _mix1(key + np.uint64(first + a + i))
            s[i] = 0
            d[i] = 0
        for bit in range(scale):  # level ``bit`` reads word bit + 1 of each edge's stream
            step, one = GOLDEN * np.uint64(bit + 1), np.uint64(1) << np.uint64(bit)
            for i in range(k):
                z = _mix1(start[i] + step)
                down = (z >> np.uint64(32)) >= t_ab
                right = (z & low) >= (t_c if down else t_a)
                s[i] |= one if down else np.uint64(0)
                d[i] |= one if right else np.uint64(0)
        for i in range(k):
            if weighted:
                w[a + i] = (
                    np.float64(_mix1(start[i] + GOLDEN * np.uint64(scale + 1)) >> np.uint64(11)) / 9007199254740992.0
                )
            si, di = s[i], d[i]
            if scale > 0:
                si = _scrambled1(si, mask, m1, add, shift, m2)
                di = _scrambled1(di, mask, m1, add, shift, m2)
            src[a + i] = np.int64(si)
            dst[a + i] = np.int64(di)
    return src, dst, w


def _kron_numpy(scale, key, first, count, thresholds, scramble, weighted):
    t_ab, t_a, t_c = thresholds
    mask, m1, add, shift, m2 = scramble
    with np.errstate(over="ignore"):
        state = _mix(key + np.arange(first, first + count, dtype=np.uint64))
        s = np.zeros(count, np.uint64)
        d = np.zeros(count, np.uint64)
        for bit in range(scale):
            state += GOLDEN
            z = _mix(state)
            down = (z >> np.uint64(32)) >= t_ab
            right = (z & np.uint64(0xFFFFFFFF)) >= np.where(down, t_c, t_a)
            s |= down.astype(np.uint64) << np.uint64(bit)
            d |= right.astype(np.uint64) << np.uint64(bit)
        w = np.empty(0)
        if weighted:
            state += GOLDEN
            w = (_mix(state) >> np.uint64(11)).astype(np.float64) / 9007199254740992.0
        if scale > 0:
            s, d = _scrambled(s, mask, m1, add, shift, m2), _scrambled(d, mask, m1, add, shift, m2)
    return s.astype(np.int64), d.astype(np.int64), w


_kron = twins("kronecker_edges", numba=_kron_numba, numpy=_kron_numpy)


def kronecker_edges(scale, seed, first, count, a=0.57, b=0.19, c=0.19, weighted=False):
    """Edges ``first .. first + count - 1`` of the Kronecker edge list of ``seed``: (src, dst,
    weights or None), labels scrambled. Every engine gives the same edges.

    >>> src, dst, _ = kronecker_edges(10, seed=1, first=0, count=5)
    >>> src.size, bool(((0 <= src) & (src < 1024)).all())
    (5, True)
    """
    unit = float(1 << 32)
    ab = a + b
    thresholds = tuple(np.uint64(min(p, 1.0) * unit) for p in (ab, a / ab, c / (1 - ab)))
    key, scramble = _seed_key(seed), scrambler(scale, seed)
    src, dst, w = _kron(int(scale), key, int(first), int(count), np.array(thresholds), scramble, bool(weighted))
    return src, dst, (w if weighted else None)


def _seed_key(seed):
    with np.errstate(over="ignore"):
        return _mix(np.uint64(seed & 0xFFFFFFFFFFFFFFFF) ^ np.uint64(0x6B726F6E))  # "kron"


def scrambler(scale, seed):
    """The scramble's constants (mask, odd multiplier, addend, shift, odd multiplier): a random
    bijection of [0, 2**scale) for the seed, so labels carry no degree hint."""
    rng = np.random.default_rng([seed, 0xC0FFEE])
    m1, m2 = (np.uint64(int(v) | 1) for v in rng.integers(1, 2**62, size=2))
    add = np.uint64(int(rng.integers(0, 2**62)))
    return np.array([(1 << scale) - 1, m1, add, max(scale // 2, 1), m2], dtype=np.uint64)
