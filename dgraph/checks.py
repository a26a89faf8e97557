"""Checking the numbers users pass: Python and numpy numbers alike, a clear error otherwise.

>>> import numpy as np
>>> number(np.float32(0.85), "alpha", low=0, high=1, low_open=True)
0.85...
>>> integer(np.int64(3), "k", minimum=1)
3
"""

from __future__ import annotations

import numbers

import numpy as np

from .errors import DgraphInputError


def integer(value, what, minimum=None, maximum=None):
    """``value`` as an int: a Python or numpy integer (not a bool) within the bounds given."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise DgraphInputError(f"{what} must be an integer, got {value!r}")
    value = int(value)
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        span = f"at least {minimum}" if maximum is None else f"in {minimum}..{maximum}"
        raise DgraphInputError(f"{what} must be an integer {span}, got {value}")
    return value


def number(value, what, low=None, high=None, low_open=False):
    """``value`` as a float: a finite Python or numpy real number (not a bool) in [low, high]
    (``low_open``: (low, high])."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise DgraphInputError(f"{what} must be a finite number, got {value!r}")
    value = float(value)
    below = low is not None and (value <= low if low_open else value < low)
    if below or (high is not None and value > high):
        span = f"{'(' if low_open else '['}{low}, {'inf)' if high is None else f'{high}]'}"
        raise DgraphInputError(f"{what} must be a number in {span}, got {value!r}")
    return value
