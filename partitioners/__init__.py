"""Layouts: how vertices and edges are placed on ranks.

A layout answers where each vertex lives (its owner rank) and where each edge lives; every
algorithm then runs unchanged on it. Available now: ``OneD`` (``layout="1d"``) and ``TwoD`` (``layout="2d"``) and ``OnePointFiveD`` (``layout="1.5d"``).
"""

from .base import Layout, resolve_layout
from .oned import OneD
from .onefived import OnePointFiveD
from .twod import TwoD

__all__ = ["Layout", "OneD", "OnePointFiveD", "TwoD", "resolve_layout"]
