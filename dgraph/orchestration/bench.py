"""The TD-Orch microbenchmark (paper 2.5): a distributed hash table hit by Zipf-skewed tasks.

Each rank holds ``tasks_per_rank`` tasks; each reads the value at its address, computes
``a * value + b`` (multiply-and-add) and writes it back with ``sum``. The table has one item per
task (``ranks * tasks_per_rank`` addresses) and addresses follow a Zipf law of exponent ``s``
(address k-1 with probability proportional to k**-s), so address 0 is the hottest.

What a row reports: the stage's wall time (the slowest worker), and per logical rank the words
(8 bytes) it sent and received during the stage. A rank's communication is what it sent plus
what it received (the paper charges a move to both ends); ``max`` is the busiest rank's, the BSP
h-relation that Table 7's times stand for, and ``max/mean`` is how far it is above the average
rank. Placing the table and checking addresses happen before the stage and are not counted.

>>> from dgraph.orchestration.bench import zipf_bench
>>> rows = zipf_bench(ranks=[4], tasks_per_rank=2000, zipf=[2.0], strategies=["pull", "tdorch"])  # doctest: +SKIP
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from .api import STRATEGIES, run_orchestration


def zipf_addresses(n, size, s, rng):
    """``n`` addresses in 0..size-1, address k-1 drawn with probability proportional to k**-s."""
    cdf = np.cumsum(np.arange(1, size + 1, dtype=np.float64) ** -s)
    return np.minimum(np.searchsorted(cdf, rng.random(n) * cdf[-1], side="right"), size - 1).astype(np.int64)


def workload(ranks, tasks_per_rank, s, seed=0):
    """The benchmark's (tasks, table) as pandas frames."""
    rng = np.random.default_rng([seed, ranks, int(s * 1000)])
    n = ranks * tasks_per_rank
    tasks = pd.DataFrame({"address": zipf_addresses(n, n, s, rng), "a": rng.random(n), "b": rng.random(n)})
    table = pd.DataFrame({"value": rng.random(n)}, index=pd.RangeIndex(n, name="address"))
    return tasks, table


def multiply_add(tasks, data):
    return tasks["a"].to_numpy() * data["value"].to_numpy() + tasks["b"].to_numpy()


def add_to_value(data, merged):
    return data.assign(value=data["value"] + merged)


def words(stats):
    """Per-rank words sent and received during the stage (after the 'placed' mark)."""
    _, _, nbytes = stats.since("placed")
    return nbytes.sum(axis=1) / 8, nbytes.sum(axis=0) / 8


def zipf_bench(
    *,
    ranks=(2, 4, 8, 16),
    tasks_per_rank=100_000,
    zipf=(1.5, 2.0, 2.5),
    strategies=STRATEGIES,
    fanout=None,
    chunk=None,
    seed=0,
    client=None,
    repeat=1,
    progress=None,
):
    """Run every strategy on every (ranks, zipf) workload; a list of result rows (dicts).

    With ``repeat`` > 1 each configuration runs that many times and the fastest stage counts.
    ``progress`` is called with each finished row.
    """
    from ..cluster import get_client

    client = client or get_client()
    rows = []
    for s in zipf:
        for P in ranks:
            tasks, table = workload(P, tasks_per_rank, s, seed)
            for strategy in strategies:
                best = None
                for _ in range(repeat):
                    t = time.perf_counter()
                    _, data, stats = run_orchestration(
                        tasks,
                        table,
                        multiply_add,
                        "sum",
                        add_to_value,
                        strategy=strategy,
                        ranks=P,
                        fanout=fanout,
                        chunk=chunk,
                        client=client,
                    )
                    total = time.perf_counter() - t
                    if best is None or stats.phases["stage"] < best[1].phases["stage"]:
                        best = (total, stats)
                total, stats = best
                sent, received = words(stats)
                comm = sent + received
                row = {
                    "zipf": s,
                    "ranks": P,
                    "strategy": strategy,
                    "stage_s": stats.phases["stage"],
                    "total_s": total,
                    "max_words": int(comm.max()),
                    "max/mean": float(comm.max() / max(comm.mean(), 1)),
                    "max_sent": int(sent.max()),
                    "max_received": int(received.max()),
                    "total_words": int(sent.sum()),
                    "supersteps": stats.since("placed")[0],
                }
                rows.append(row)
                if progress:
                    progress(row)
    return rows


def table(rows):
    """The rows as a markdown table."""
    head = (
        "| zipf | ranks | strategy | stage s | max words | max/mean | max sent | max received | total words "
        "| supersteps |"
    )
    out = [head, "|" + "---|" * 10]
    for r in rows:
        out.append(
            f"| {r['zipf']} | {r['ranks']} | {r['strategy']} | {r['stage_s']:.3f} | {r['max_words']:,} | "
            f"{r['max/mean']:.2f} | {r['max_sent']:,} | {r['max_received']:,} | "
            f"{r['total_words']:,} | {r['supersteps']} |"
        )
    return "\n".join(out)
