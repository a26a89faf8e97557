"""The BSP engine across dask workers: plugin, SPMD launch, transports, metrics."""

from .metrics import RunStats
from .plugin import ExchangePlugin
from .spmd import RankContext, RankResults, launch

__all__ = ["ExchangePlugin", "RankContext", "RankResults", "RunStats", "launch"]
