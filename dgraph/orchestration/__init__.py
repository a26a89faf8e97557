"""TD-Orch task-data orchestration (paper section 2): ``dgraph.orchestrate`` and its strategies.

``api`` (the function), ``stage`` (one worker's share: placement, validation, the moves every
strategy uses), ``merges`` (mergeable write-backs), ``direct`` (push, pull), ``sorting`` (the
MPC baseline), ``forest`` (TD-Orch itself), ``bench`` (the Zipf hash-table microbenchmark).
"""

from .api import STRATEGIES, orchestrate, run_orchestration

__all__ = ["STRATEGIES", "orchestrate", "run_orchestration"]
