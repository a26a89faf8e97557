"""The errors dgraph raises. Every error a user can cause is a DgraphError naming the input and the fix."""


class DgraphError(Exception):
    """Base class of every error dgraph raises on purpose."""


class DgraphInputError(DgraphError, ValueError):
    """Bad input: a missing column, a null id, an unknown vertex, a bad parameter."""


class DgraphRunError(DgraphError, RuntimeError):
    """A distributed run failed: a lost peer, a crashed rank, a timeout.

    The message names the rank, the worker and the superstep where the run ended.
    """


class DgraphMemoryError(DgraphError, MemoryError):
    """The cluster's workers have too little memory for what was asked of them.

    The message names the worker, the bytes needed and the room it has.
    """


class DgraphWarning(UserWarning):
    """Something the user should know that does not stop the computation."""


class ConvergenceWarning(DgraphWarning):
    """An iterative algorithm reached ``max_iter`` before ``tol``."""
