"""The block size of the pipelined transport: the middleware paper's T_total(b) model, with its
costs measured on the run's own channels.

The paper pipelines download, compute and upload of blocks of size b = d / s and models
(its Eq. 2) T_total = T_n(b) + max(T_n, T_c) + sum over the middle blocks of max(T_n, T_c,
T_u) + max(T_c, T_u) + T_u(b), with T_c = a + k2 b (a fixed call cost) and the transfers
proportional to b. Here a block's two transfers are one stage (a sub-round of the channel mesh
sends and receives at once) with a fixed cost of its own (the round's latency), the merge is
the compute stage, and nothing is uploaded after it (merged values stay with their rank):
T_n(b) = a_x + k_x b, T_c(b) = a_c + k_c b, T_u = 0, so

    T_total(s) = T_n + (s - 1) max(T_n, T_c) + T_c,   b = d / s.

With fixed costs in both stages the paper's closed form does not apply; T_total is evaluated
for every block count up to ``MAX_BLOCKS`` instead (cheap) and the least is taken, which is the
paper's final step (try the integers around the optimum) done over all of them.
"""

from __future__ import annotations

from collections import deque

import numpy as np

DEFAULT_BLOCK = 1 << 20  # bytes, until two sizes of each stage have been timed
MAX_BLOCKS = 256
MIN_BLOCK = 1 << 12


def t_total(d, s, a_x, k_x, a_c, k_c):
    """Seconds to move and merge ``d`` bytes in ``s`` blocks (the model above)."""
    b = d / s
    t_n, t_c = a_x + k_x * b, a_c + k_c * b
    return t_n + (s - 1) * max(t_n, t_c) + t_c


def choose(d, a_x, k_x, a_c, k_c, *, max_blocks=MAX_BLOCKS, min_block=MIN_BLOCK):
    """The block size (bytes) and block count that minimise ``t_total`` for ``d`` bytes."""
    if d <= min_block:
        return max(int(d), 1), 1
    counts = np.arange(1, min(max_blocks, int(d) // min_block) + 1)
    times = [t_total(d, s, a_x, k_x, a_c, k_c) for s in counts]
    s = int(counts[int(np.argmin(times))])
    return int(-(-d // s)), s


def _fit(samples):
    """(fixed seconds, seconds a byte) of a least-squares line through (bytes, seconds), both
    clipped at zero; None until two sizes differ."""
    if len(samples) < 2:
        return None
    x, y = np.array(samples, dtype=np.float64).T
    if np.ptp(x) == 0:
        return None
    k, a = np.polyfit(x, y, 1)
    return max(float(a), 0.0), max(float(k), 0.0)


class Costs:
    """The run's measured costs of a block's two stages (the latest ``window`` samples of each)."""

    def __init__(self, window=64):
        self.rounds = deque(maxlen=window)  # (bytes sent and received, seconds) per sub-round
        self.merges = deque(maxlen=window)  # (bytes merged, seconds) per block

    def moved(self, seconds, nbytes):
        self.rounds.append((nbytes, seconds))

    def merged(self, seconds, nbytes):
        self.merges.append((nbytes, seconds))

    def model(self):
        """(a_x, k_x, a_c, k_c), or None while a stage has too few samples to fit."""
        x, c = _fit(self.rounds), _fit(self.merges)
        return None if x is None or c is None else (*x, *c)

    def choose(self, d):
        m = self.model()
        return DEFAULT_BLOCK if m is None else choose(d, *m)[0]

    def predict(self, d, b):
        """The model's seconds for ``d`` bytes in blocks of ``b`` (0 before it can say)."""
        m = self.model()
        return 0.0 if m is None or d == 0 else t_total(d, max(-(-d // max(b, 1)), 1), *m)
