"""The BSP engine across dask workers.

``launch`` plans a run and ``dispatch`` gets it driven on the workers through the
``plugin`` (control plane); each worker's ``driver`` connects the peer ``channels`` (data plane)
and runs the kernel over a transport (``exchange``: direct; ``grouped``: TuCOMM domains);
``params`` carries a run's arguments, ``metrics`` its counters.
"""

from .driver import RankContext
from .launch import RankResults, launch
from .metrics import RunStats
from .plugin import ExchangePlugin

__all__ = ["ExchangePlugin", "RankContext", "RankResults", "RunStats", "launch"]
