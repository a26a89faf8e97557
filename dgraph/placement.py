"""Placing rank blocks on workers: routing each rank's pieces of every cut to the worker that
builds its block, with one selection per (cut, worker) rather than per (cut, rank)."""

from __future__ import annotations

from .block import degree_pieces, with_owned_degree
from .dask_internals import wait_for


def _pick(ranks, pieces):
    """The pieces of these ranks out of one cut (a list with a piece per rank)."""
    return {r: pieces[r] for r in ranks}


def _with_pieces(fn, r, args, *groups):
    """``fn(*args, *pieces)`` with rank r's piece of every cut, from the groups of its worker."""
    return fn(*args, *[g[r] for g in groups])


def route(client, cuts, where):
    """For each rank, the futures holding its pieces of every cut: one selection per (cut,
    worker) rather than per (cut, rank), so P ranks cost 2 x cuts x workers tasks, not cuts x P."""
    ranks_of = {}
    for r, w in enumerate(where):
        ranks_of.setdefault(w, []).append(r)
    group = {
        w: [client.submit(_pick, ranks, cut, workers=[w], allow_other_workers=True, pure=False) for cut in cuts]
        for w, ranks in ranks_of.items()
    }
    return [group[where[r]] for r in range(len(where))]


def build_blocks(client, cuts, layout, bounds, n, direction, order, dedup, where, extra=None):
    """Rank r's block from piece r of every cut, built by ``layout`` (a 1D layout for owner
    blocks) on worker ``where[r]`` (or elsewhere if that worker is gone). Where a rank's rows are
    not its own vertices (2D, 1.5D) the blocks also get the degrees of their owned vertices."""
    blocks = [
        client.submit(
            _with_pieces,
            layout.build,
            r,
            (r, bounds, n, direction, order, dedup, extra),
            *groups,
            workers=[where[r]],
            allow_other_workers=True,
            pure=False,
        )
        for r, groups in enumerate(route(client, cuts, where))
    ]
    if not layout.owns_rows():
        degrees = [client.submit(degree_pieces, b, bounds, pure=False) for b in blocks]
        blocks = [
            client.submit(
                _with_pieces,
                with_owned_degree,
                r,
                (b, int(bounds[r + 1] - bounds[r])),
                *groups,
                workers=[where[r]],
                allow_other_workers=True,
                pure=False,
            )
            for r, (b, groups) in enumerate(zip(blocks, route(client, degrees, where)))
        ]
    wait_for(blocks)
    return blocks
