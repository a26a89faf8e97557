"""Layouts: how vertices and edges are placed on ranks.

A layout answers where each vertex lives (its owner rank) and where each edge lives; every
algorithm then runs unchanged on it. Available now: ``OneD`` (``layout="1d"``).
"""

from .base import Layout, resolve_layout
from .oned import OneD

__all__ = ["Layout", "OneD", "resolve_layout"]
