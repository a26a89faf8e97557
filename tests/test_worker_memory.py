"""Blocks in dask's memory manager: weighed as the arrays they hold, spilled to disk and read back
like any result; and construction refuses, before allocating, a share a worker has no room for.
On a cluster of its own: these tests change its workers' memory settings."""

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from distributed import Client, LocalCluster
from graphs import grid_edges, kron_edges, nx_graph

import dgraph
from dgraph import algorithms as alg
from dgraph import placement
from dgraph.block import Subgraphs
from dgraph.cluster import workers
from dgraph.errors import DgraphMemoryError
from dgraph.partitioners import OneD, OnePointFiveD


@pytest.fixture(scope="module")
def memory_client():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0") as cluster:
        with Client(cluster, set_as_default=False) as c:
            yield c


def _array_bytes(block):
    """The bytes of the arrays a block holds, named one by one, each once (subgraphs share one
    space, and 1.5D's heavy vertices are the rows of its first)."""
    parts = block.parts
    held = [block.owned_degree, parts[0].space, parts[0].space_key]
    held += [block.heavy] if isinstance(block, Subgraphs) else []
    for p in parts:
        held += [p.indptr, p.indices, p.weights, p.row_ids] + ([p.owned_degree] if p is not block else [])
    return sum({id(a): a.nbytes for a in held if a is not None}.values())


@pytest.mark.slow
def test_a_block_keeps_the_slots_its_arcs_read_and_is_weighed_with_them(memory_client):
    from dgraph.block import _block_bytes, slots_read

    g = dgraph.from_edgelist(kron_edges(9, seed=3), directed=False, layout=OneD(ranks=2), client=memory_client)
    block = memory_client.gather(g.store.blocks[1])
    alone = _block_bytes(block)
    read = slots_read(block)
    np.testing.assert_array_equal(read, np.unique(block.indices))
    assert slots_read(block) is read  # kept: the next exchange planned over the block reuses it
    assert _block_bytes(block) == alone + read.nbytes

    first = alg.pagerank(g, max_iter=12, tol=0).compute()
    again = alg.pagerank(g, max_iter=12, tol=0).compute()  # from the hub labels the first call kept
    pd.testing.assert_frame_equal(first, again)
    kept = memory_client.gather(g.store.blocks[1]).__dict__["_kept"]
    assert kept[("hubs first", 64)].size == block.space.size and "slots read" in kept


def _spill_everything(dask_worker):
    """Move every result this worker holds to its spill directory; the keys now on disk."""
    data = dask_worker.data
    while data.fast and data.evict() >= 0:
        pass
    return set(data.slow)


@pytest.mark.slow
@pytest.mark.parametrize("layout", [OneD(ranks=2), OnePointFiveD(rows=1, cols=2, e_threshold=12, h_threshold=5)])
def test_blocks_are_dask_data_that_spills_to_disk_and_back(memory_client, layout):
    c = memory_client
    edges = kron_edges(9, seed=3)
    g = dgraph.from_edgelist(edges, directed=False, layout=layout, client=c)
    weighed = c.nbytes(keys=[b.key for b in g.store.blocks], summary=False)
    held = c.gather([c.submit(_array_bytes, b, pure=False) for b in g.store.blocks])
    assert [weighed[b.key] for b in g.store.blocks] == held

    on_disk = set().union(*c.run(_spill_everything).values())
    assert {b.key for b in g.store.blocks} <= on_disk
    G = nx_graph(edges, directed=False)
    root = int(edges.src.iloc[0])
    got = c.compute(alg.bfs(g, root)).result().set_index("vertex").distance
    reached = nx.single_source_shortest_path_length(G, root)
    assert {v: int(d) for v, d in got.items() if d >= 0} == reached
    components = c.compute(alg.connected_components(g)).result()
    assert components.component.nunique() == nx.number_connected_components(G)


def _squeeze(room, dask_worker):
    """Leave this worker ``room`` bytes before its nanny would stop it (dask neither pauses nor
    spills it meanwhile); returns its settings as they were."""
    memory = dask_worker.memory_manager
    was = memory.memory_limit, memory.memory_pause_fraction, memory.memory_spill_fraction
    memory.memory_pause_fraction = memory.memory_spill_fraction = False
    memory.memory_limit = int((dask_worker.monitor.get_process_memory() + room) / 0.95)
    return was


def _restore(was, dask_worker):
    memory = dask_worker.memory_manager
    memory.memory_limit, memory.memory_pause_fraction, memory.memory_spill_fraction = was[dask_worker.address]


def _builders_left():
    return len(placement._FILLING) + len(placement._BUILT)


@pytest.mark.slow
def test_construction_refuses_a_share_past_a_workers_memory(memory_client, streamed):
    c = memory_client
    edges = grid_edges(300, 300)
    edges["w"] = np.arange(len(edges)) % 7 + 1.0
    before = set(workers(c))
    was = c.run(_squeeze, 0)
    try:
        with pytest.raises(DgraphMemoryError, match=r"needs [\d.]+ [MG]iB on worker tcp://127\.0\.0\.1:\d+ \(rank "):
            dgraph.from_edgelist(edges, directed=False, weight="w", renumber=False, client=c)
        assert set(c.run(_builders_left).values()) == {0}  # nothing allocated is left behind
        c.run(_restore, was)
        c.run(_squeeze, 1 << 30)
        g = dgraph.from_edgelist(edges, directed=False, weight="w", renumber=False, client=c)
    finally:
        c.run(_restore, was)
    assert set(workers(c)) == before  # no worker was stopped
    assert g.degrees().compute().degree.sum() == 2 * len(edges)
    got = c.compute(alg.sssp(g, 0, weight="w")).result().set_index("vertex").distance
    want = nx.single_source_dijkstra_path_length(nx_graph(edges, directed=False, weight="w"), 0)
    assert np.allclose([got[v] for v in want], list(want.values()))
