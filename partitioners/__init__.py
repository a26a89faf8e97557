"""Layouts: how vertices and edges are placed on ranks.

A layout answers where each vertex lives (its owner rank) and where each edge lives; every
algorithm then runs unchanged on it. Available: ``OneD`` (``layout="1d"``), ``TwoD``
(``layout="2d"``), ``OnePointFiveD`` (``layout="1.5d"``) and ``TDOrch`` (``layout="tdorch"``).
"""

from dgraph.layout import Layout, register_layout, resolve_layout

from .oned import OneD
from .onefived import OnePointFiveD
from .tdorch import TDOrch
from .twod import TwoD

for _name, _cls in (("1d", OneD), ("2d", TwoD), ("1.5d", OnePointFiveD), ("tdorch", TDOrch)):
    register_layout(_name, _cls)

__all__ = ["Layout", "OneD", "OnePointFiveD", "TDOrch", "TwoD", "resolve_layout"]
