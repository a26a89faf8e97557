"""What every layout provides, and turning a user's ``layout=`` argument into one."""

from __future__ import annotations

from ..errors import DgraphInputError


class Layout:
    """A placement of vertices and edges on ``nranks`` logical ranks.

    ``plan(out_degree)`` runs on a worker and returns ``(order, bounds)``: ``order`` lists the
    canonical vertex ids in placed order (None when placed ids equal canonical ids) and rank r
    owns placed ids ``bounds[r]:bounds[r + 1]``.
    """

    name = "layout"

    def __init__(self, ranks=None):
        if ranks is not None and (not isinstance(ranks, (int,)) or isinstance(ranks, bool) or ranks < 1):
            raise DgraphInputError(f"ranks must be a positive integer, got {ranks!r}")
        self.ranks = ranks

    def with_ranks(self, ranks):
        """A copy with the rank count fixed (used when the user gave none)."""
        raise NotImplementedError

    def plan(self, out_degree):
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}(ranks={self.ranks})"


def resolve_layout(layout, ranks, default_ranks):
    """A Layout object with a rank count from ``layout="1d"`` / an object, and ``ranks``."""
    from .oned import OneD

    if ranks is not None and (isinstance(ranks, bool) or not isinstance(ranks, int) or ranks < 1):
        raise DgraphInputError(f"ranks must be a positive integer, got {ranks!r}")
    if isinstance(layout, str):
        names = {"1d": OneD}
        if layout.lower() not in names:
            raise DgraphInputError(f"unknown layout {layout!r}; available: {sorted(names)} or a dgraph.partitioners object")
        layout = names[layout.lower()]()
    if not isinstance(layout, Layout):
        raise DgraphInputError(f"layout must be a name or a dgraph.partitioners.Layout, got {type(layout).__name__}")
    if ranks is not None and layout.ranks is not None and ranks != layout.ranks:
        raise DgraphInputError(f"ranks={ranks} disagrees with {layout!r}; give the rank count once")
    return layout.with_ranks(ranks or layout.ranks or default_ranks)
