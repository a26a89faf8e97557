"""``orchestrate``: run a batch of tasks against distributed data with a TD-Orch strategy."""

from __future__ import annotations

import math
from collections.abc import Callable
from operator import itemgetter
from typing import Any

import dask.dataframe as dd
import numpy as np
import pandas as pd

from .. import frames
from ..build import _to_dask
from ..cluster import get_client, workers
from ..errors import DgraphInputError
from ..results import part_name, to_dask
from ..runner import _timeout
from ..runtime import launch
from .merges import Merge
from .stage import ADDRESS, Stage

MISSING = ("raise", "skip")


def _strategies():
    from .direct import pull, push
    from .forest import tdorch
    from .sorting import sort

    return {"push": push, "pull": pull, "sort": sort, "tdorch": tdorch}


STRATEGIES = ("push", "pull", "sort", "tdorch")


def default_fanout(ntasks, nranks):
    """Theorem 2.1: F = n / (P log^2 P), at least 2 and at most P (one level: a star)."""
    if nranks <= 2:
        return 2
    return int(min(nranks, max(2, ntasks // (nranks * math.log2(nranks) ** 2))))


DEFAULT_CHUNK = 4  # Theorem 2.1's C = Theta(1); 4 pushes what costs less to push than to pull


def _slice(lo, hi, starts, *parts):
    """Rows lo..hi of the concatenation of ``parts`` (which start at global rows ``starts``)."""
    pieces = [p.iloc[max(lo - s, 0) : max(hi - s, 0)] for s, p in zip(starts, parts)]
    return pd.concat(pieces) if pieces else None


def _rank_chunks(client, ddf, nranks, where):
    """``nranks`` futures holding contiguous, equal-sized runs of ``ddf``'s rows, in order."""
    parts = client.compute(ddf.to_delayed())
    lengths = np.asarray(client.gather(client.map(len, parts, pure=False)), dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)])
    total = int(starts[-1])
    chunks = []
    for r in range(nranks):
        lo, hi = r * total // nranks, (r + 1) * total // nranks
        use = [i for i in range(len(parts)) if starts[i] < hi and starts[i + 1] > lo] or [0]
        chunks.append(
            client.submit(
                _slice,
                lo,
                hi,
                [int(starts[i]) for i in use],
                *[parts[i] for i in use],
                workers=[where[r]],
                allow_other_workers=True,
                pure=False,
            )
        )
    return chunks, np.array([(r * total // nranks) for r in range(nranks + 1)], dtype=np.int64)


def _kernel(ctx, plan):
    st = Stage(ctx, plan)
    with ctx.phase("place"):
        st.load()
        trouble = st.validate()
    if trouble:
        return {r: (None, None, st.problems[r]) for r in ctx.ranks}
    ctx.stats.mark("placed")
    with ctx.phase("stage"):
        executed = _strategies()[plan["strategy"]](st)
        st.finish_writes()
        ctx.stats.mark("written")
        results = st.return_results(executed)
    out = {}
    for r in ctx.ranks:
        res = pd.Series(results[r], index=st.tasks[r].index, name="result")
        if not st.valid[r].all():
            res = res.astype("Float64" if res.dtype.kind == "f" else "Int64" if res.dtype.kind in "iu" else "boolean")
            res[~st.valid[r]] = pd.NA
        out[r] = (st.tasks[r].assign(result=res), st.data[r], [])
    return out


def _problem_message(problems, address):
    kinds = {}
    for kind, sample, count in problems:
        seen = kinds.setdefault(kind, [[], 0])
        seen[0] += sample
        seen[1] += count
    lines = []
    if "duplicate" in kinds:
        sample, count = kinds["duplicate"]
        lines.append(
            f"data has {count} repeated addresses (e.g. {sample[:5]}); an address must index one row "
            "(drop_duplicates first)"
        )
    if "missing" in kinds:
        sample, count = kinds["missing"]
        lines.append(
            f"{count} tasks have a {address!r} that is not in data's index (e.g. {sample[:5]}); "
            "add those rows, or pass missing='skip' to leave those tasks out (their result is null)"
        )
    return "; ".join(lines)


def run_orchestration(
    tasks,
    data,
    f,
    merge="sum",
    write_back=None,
    *,
    address="address",
    strategy="tdorch",
    ranks=None,
    fanout=None,
    chunk=None,
    missing="raise",
    priority=None,
    client=None,
    transport="direct",
    domains=None,
):
    """``orchestrate`` returning ``(result futures, data futures, RunStats)`` per rank, for
    benchmarks that read the counters. Arguments as for ``orchestrate``."""
    client = client or get_client()
    tasks, data = _to_dask(tasks, "tasks"), _to_dask(data, "data")
    if address not in tasks.columns:
        raise DgraphInputError(f"tasks have no column {address!r}; name the address column with address=")
    if strategy not in STRATEGIES:
        raise DgraphInputError(f"strategy must be one of {STRATEGIES}, got {strategy!r}")
    if missing not in MISSING:
        raise DgraphInputError(f"missing must be one of {MISSING}, got {missing!r}")
    if not callable(f) or not (write_back is None or callable(write_back)):
        raise DgraphInputError("f(task_frame, data_frame) and write_back(data_frame, merged) must be callables")
    merge = Merge(merge, priority)
    if priority is not None:
        if priority not in tasks.columns:
            raise DgraphInputError(f"priority column {priority!r} is not a column of tasks")
        if tasks[priority].dtype.kind not in "biuf":
            raise DgraphInputError(f"priority column {priority!r} must be numeric, it is {tasks[priority].dtype}")
    task_schema = frames.schema_of(tasks._meta, "tasks")
    flat_meta = data._meta.reset_index(names=ADDRESS)
    data_schema = frames.schema_of(flat_meta, "data")
    alive = workers(client)
    nranks = int(ranks or len(alive))
    if nranks < 1:
        raise DgraphInputError(f"ranks must be >= 1, got {ranks}")
    for name, value in (("fanout", fanout), ("chunk", chunk)):
        if value is not None and int(value) < (2 if name == "fanout" else 1):
            raise DgraphInputError(f"{name} must be >= {2 if name == 'fanout' else 1}, got {value}")
    where = [alive[r * len(alive) // nranks] for r in range(nranks)]
    task_chunks, offsets = _rank_chunks(client, tasks, nranks, where)
    data_chunks, _ = _rank_chunks(client, data, nranks, where)
    index_kind = data.index.dtype.kind
    plan = {
        "f": f,
        "write_back": write_back,
        "merge": merge,
        "address": address,
        "strategy": strategy,
        "missing": missing,
        "offsets": offsets,
        "index_name": data.index.name,
        "key_mode": "int" if tasks[address].dtype.kind in "iu" and index_kind in "iu" else "hash",
        "task_schema": task_schema,
        "task_meta": tasks._meta,
        "data_schema": data_schema,
        "data_meta": flat_meta,
        "fanout": int(fanout or default_fanout(int(offsets[-1]), nranks)),
        "chunk": int(chunk or DEFAULT_CHUNK),
    }
    results, stats = launch(
        client,
        [[t, d] for t, d in zip(task_chunks, data_chunks)],
        _kernel,
        {"plan": plan},
        timeout=_timeout(),
        name=f"orchestrate-{strategy}",
        transport=transport,
        domains=domains,
    )
    problems = [p for ps in results.map(itemgetter(2)).gather() for p in ps]
    if problems:
        raise DgraphInputError(_problem_message(problems, address))
    return (
        results.map(itemgetter(0)).per_rank(part_name("orchestrate-results")),
        results.map(itemgetter(1)).per_rank(part_name("orchestrate-data")),
        stats,
    )


def orchestrate(
    tasks: pd.DataFrame | dd.DataFrame,
    data: pd.DataFrame | dd.DataFrame,
    f: Callable[[pd.DataFrame, pd.DataFrame], Any],
    merge: str | tuple[Callable[..., Any], Callable[..., Any]] = "sum",
    *,
    write_back: Callable[[pd.DataFrame, pd.Series], pd.DataFrame] | None = None,
    address: str = "address",
    strategy: str = "tdorch",
    ranks: int | None = None,
    fanout: int | None = None,
    chunk: int | None = None,
    missing: str = "raise",
    priority: str | None = None,
    transport: str = "direct",
    domains: Any = None,
) -> tuple[dd.DataFrame, dd.DataFrame]:
    """Run a batch of tasks, each reading the data row at its address, and merge what they
    write back: TD-Orch's task-data orchestration over the ranks of a dask cluster.

    Parameters
    ----------
    tasks : pandas or dask DataFrame
        One row per task: an ``address`` column plus any context columns ``f`` reads.
    data : pandas or dask DataFrame
        Indexed by address (each address once). Data rows live on ranks by a hash of the
        address: a distributed hash table.
    f : callable(task_frame, data_frame) -> array
        Runs on co-located chunks: ``data_frame`` holds, row by row, the data of each task's
        address (both frames are indexed 0..k-1, so pandas aligns them). Returns one number or
        boolean per task.
    merge : "sum", "min", "max", "first", "any" or (combine, apply)
        How the values of one address merge (TD-Orch's mergeable operators, see
        ``dgraph.orchestration.merges``); ``"first"`` needs ``priority=``.
    write_back : callable(data_frame, merged) -> DataFrame, optional
        New values for the written addresses: ``data_frame`` holds their current rows, and
        ``merged`` is a Series of merged values with the same index. Default: data unchanged.
    strategy : "tdorch", "push", "pull" or "sort"
        ``tdorch`` (default) is load-balanced whatever the skew; the others are the paper's
        baselines (see ``dgraph.orchestration.direct`` and ``sorting``).
    ranks : int, optional
        Logical ranks (default: one per worker); ranks outnumbering workers share them.
    fanout, chunk : int, optional
        TD-Orch's tree fan-out F and meta-task chunk size C (defaults after Theorem 2.1).
    missing : "raise" or "skip"
        A task whose address is not in ``data``: a ``DgraphInputError`` naming it (default), or
        left out (its result is null).
    transport, domains : optional
        As for ``dgraph.from_edgelist``: ``"grouped"`` aggregates every superstep's messages
        between communication domains through their monitors.

    Returns
    -------
    (results, data) : dask DataFrames
        ``results`` is ``tasks`` with a ``result`` column (in input order); ``data`` is the data
        after write-backs, partitioned by rank.

    Examples
    --------
    The paper's example: charge a fee to every account of a conference's attendees.

    >>> import pandas as pd, dgraph
    >>> accounts = pd.DataFrame({"conf": ["PPoPP", "SPAA", "PPoPP"], "deposit": [100.0, 80.0, 50.0]},
    ...                         index=pd.Index(["ann", "bob", "cy"], name="account"))
    >>> fees = pd.DataFrame({"address": ["ann", "bob", "cy", "ann"], "fee": [10.0, 5.0, 7.0, 1.0]})
    >>> results, accounts = dgraph.orchestrate(
    ...     fees, accounts, lambda t, d: t.fee.where(d.conf == "PPoPP", 0), merge="sum",
    ...     write_back=lambda d, m: d.assign(deposit=d.deposit - m))
    >>> accounts.compute().sort_index()
              conf  deposit
    account
    ann      PPoPP     89.0
    bob       SPAA     80.0
    cy       PPoPP     43.0
    >>> results.compute()["result"].tolist()
    [10.0, 0.0, 7.0, 1.0]
    """
    client = get_client()
    outs, datas, _ = run_orchestration(
        tasks,
        data,
        f,
        merge,
        write_back,
        address=address,
        strategy=strategy,
        ranks=ranks,
        fanout=fanout,
        chunk=chunk,
        missing=missing,
        priority=priority,
        client=client,
        transport=transport,
        domains=domains,
    )
    return to_dask(client, outs), to_dask(client, datas)
