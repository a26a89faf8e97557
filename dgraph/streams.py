"""Counter-based random numbers: a draw is a pure function of a seed and counters, never of
where it is made, so an algorithm that draws by (walk, step, attempt) or (hop, vertex, draw)
gives the same answer on every layout, rank count and worker.

Each counter is folded into a 64-bit word by splitmix64's finalizer (Steele, Lea, Flood,
"Fast splittable pseudorandom number generators", OOPSLA 2014), as ``kernels.generate`` draws
Graph 500's edges; a uniform takes the word's top 53 bits.

>>> a = uniforms(7, np.arange(3), 0)
>>> bool(((0 <= a) & (a < 1)).all()), bool((a == uniforms(7, np.arange(3), 0)).all())
(True, True)
>>> bool((a != uniforms(8, np.arange(3), 0)).all())
True
"""

from __future__ import annotations

import secrets

import numpy as np

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
M1 = np.uint64(0xBF58476D1CE4E5B9)
M2 = np.uint64(0x94D049BB133111EB)
UNIT = 2.0**-53  # a 53-bit integer times this is a float64 in [0, 1)


def mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finalizer of uint64 words (a bijection; every input bit reaches every output bit)."""
    with np.errstate(over="ignore"):  # arithmetic modulo 2**64 is the point (numpy warns on scalars)
        x = (x ^ (x >> np.uint64(30))) * M1
        x = (x ^ (x >> np.uint64(27))) * M2
    return x ^ (x >> np.uint64(31))


def words(seed: int, *counters: np.ndarray | int) -> np.ndarray:
    """A uint64 word for each element of the broadcast ``counters`` (non-negative integers),
    a function of ``seed`` and them alone."""
    with np.errstate(over="ignore"):
        x = mix(np.asarray(seed, dtype=np.uint64) + GOLDEN)
        for c in counters:
            x = mix((x ^ np.asarray(c).astype(np.uint64)) + GOLDEN)
    return np.asarray(x, dtype=np.uint64)


def uniforms(seed: int, *counters: np.ndarray | int) -> np.ndarray:
    """Floats in [0, 1), one per element of the broadcast ``counters`` (see ``words``)."""
    return (words(seed, *counters) >> np.uint64(11)).astype(np.float64) * UNIT


def below(u: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Integers uniform in [0, count) from uniforms ``u`` (clipped: ``u * count`` may round up)."""
    count = np.asarray(count, dtype=np.int64)
    return np.minimum((u * count).astype(np.int64), np.maximum(count - 1, 0))


def fresh_seed(seed: int | None) -> int:
    """``seed``, or a new random one when None (reported, so a run can be repeated)."""
    return secrets.randbits(63) if seed is None else seed
