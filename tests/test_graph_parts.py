"""The Graph facade over its parts: a call's stats belong to its thread, the facade does not
change, and the label pieces beside the blocks are made whatever state the label index is in."""

import copy
import threading
import time

import networkx as nx
import pandas as pd
import pytest

import dgraph
from dgraph.algorithms import bfs, pagerank
from dgraph.codec import LabelCodec
from dgraph.store import BlockStore


def test_each_thread_reads_the_stats_of_its_own_call(client):
    g = dgraph.datasets.load("karate", ranks=2)
    both_called = threading.Barrier(2, timeout=120)
    seen, errors = {}, []

    def call(name, algorithm):
        try:
            for _ in range(3):
                algorithm(g).compute()
                mine = g.last_stats
                both_called.wait()  # the other thread's call has ended too: a shared attribute holds its stats
                seen[name] = (mine, g.last_stats)
                both_called.wait()
        except Exception as exc:  # noqa: BLE001  (reported by the main thread)
            errors.append(exc)
            both_called.abort()

    threads = [
        threading.Thread(target=call, args=("bfs", lambda h: bfs(h, 1))),
        threading.Thread(target=call, args=("pagerank", lambda h: pagerank(h, tol=0, max_iter=7))),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for name, (mine, read_later) in seen.items():
        assert read_later is mine, f"{name}'s thread read the other thread's stats"
    assert seen["pagerank"][0].info.get("iterations") == 7
    assert "iterations" not in seen["bfs"][0].info
    assert g.last_stats is None  # this thread made no call


def test_a_graph_does_not_change_and_its_views_share_its_blocks(client):
    g = dgraph.datasets.load("karate", ranks=2)
    with pytest.raises(AttributeError, match="does not change"):
        g.weight = "w"
    with pytest.raises(AttributeError, match="does not change"):
        g.anything = 1
    grouped = g.with_transport("grouped", domains=2)
    assert grouped.store is g.store and grouped.codec is g.codec and grouped.transport == "grouped"
    assert g.transport == "direct"
    got = bfs(grouped, 1).compute().set_index("vertex").distance
    want = nx.single_source_shortest_path_length(nx.karate_club_graph(), 0)
    assert {int(v): int(d) for v, d in got.items()} == {v + 1: d for v, d in want.items()}
    assert g.last_stats is None and grouped.last_stats is not None


def _slowly(index):
    time.sleep(1.5)
    return index


def test_label_pieces_are_made_while_the_label_index_is_still_computed(client):
    """No worker holds the index yet: the pieces' task goes wherever dask places it."""
    names = [f"v{i:02d}" for i in range(30)]
    edges = pd.DataFrame({"src": names, "dst": names[1:] + names[:1]})
    g = dgraph.from_edgelist(edges, directed=False, ranks=2)
    labels = copy.copy(g.labels)
    labels.index = client.submit(_slowly, g.labels.index, pure=False)
    codec = LabelCodec(client, labels, order=g.codec.order, inverse=g.codec.inverse)
    s = g.store
    store = BlockStore(
        client,
        s.layout,
        s.blocks,
        bounds=s.bounds,
        n=s.n,
        directed=s.directed,
        weighted=s.weighted,
        dedup=s.dedup,
        order=s.order,
        extra=s.extra,
    )
    pieces = client.gather(store.label_pieces(codec))
    assert [str(v) for piece in pieces for v in piece] == names


def test_graphs_of_the_same_labels_keep_label_tables_of_their_own(client):
    """Releasing one graph's tables never takes another's (a shared key would)."""
    edges = pd.DataFrame({"src": ["a", "b", "c"], "dst": ["b", "c", "a"]})
    first, second = dgraph.from_edgelist(edges), dgraph.from_edgelist(edges)
    assert first.labels.index.key != second.labels.index.key
    del first
    assert bfs(second, "a").compute().distance.max() == 2
