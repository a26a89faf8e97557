"""A graph as a directory: ``Graph.save`` writes one from the workers, ``dgraph.load`` reads it
back onto any cluster without building it again (``files``: the format; ``save``; ``load``)."""

from .load import load
from .save import save

__all__ = ["load", "save"]
