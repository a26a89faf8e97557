"""A text edge list's header is told from its first edge, for string labels too."""

import pytest

import dgraph
from dgraph.io import _has_header


def _write(tmp_path, text, name="edges.csv"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize(
    "text, header",
    [
        ("source,target\nann,bob\nbob,cat\n", True),  # string labels under usual names
        ("src,dst,weight\nann,bob,1.5\nbob,cat,2\n", True),  # the weight column tells, weight= or not
        ("Source,Target\nann,bob\n", True),
        ("src,dst\n1,2\n2,3\n", True),  # integer labels
        ("ann,bob\nbob,cat\ncat,ann\n", False),  # string labels, no header
        ("u,v\nv,w\nw,u\n", False),  # usual names, but u and v are vertices below
        ("from,to\n", False),  # one line: an edge
        ("alpha,beta\ngamma,delta\n", False),  # unusual names: header=True says so
    ],
)
def test_header_is_detected(tmp_path, text, header):
    assert _has_header(_write(tmp_path, text), ",", None, [0, 1]) is header


def test_string_labels_under_a_header_read_as_labels(client, tmp_path):
    g = dgraph.read_edgelist(_write(tmp_path, "source,target\nann,bob\nbob,cat\ncat,dan\n"), directed=False)
    labels = sorted(g.degrees().compute().vertex)
    assert labels == ["ann", "bob", "cat", "dan"] and g.num_edges == 3
    w = dgraph.read_edgelist(_write(tmp_path, "src,dst,weight\nann,bob,1.5\nbob,cat,2\n", "w.csv"))
    assert sorted(w.degrees().compute().vertex) == ["ann", "bob", "cat"] and w.num_edges == 2
    forced = dgraph.read_edgelist(_write(tmp_path, "alpha,beta\nann,bob\n", "f.csv"), header=True)
    assert sorted(forced.degrees().compute().vertex) == ["ann", "bob"]
    none = dgraph.read_edgelist(_write(tmp_path, "ann,bob\nbob,cat\n", "n.csv"))
    assert sorted(none.degrees().compute().vertex) == ["ann", "bob", "cat"]
