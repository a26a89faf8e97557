"""A missing field in an edge list is named by its column and row, on the client: no worker
logs a failed task, and the fix offered works."""

import pandas as pd
import pytest

import dgraph


@pytest.mark.parametrize(
    "text",
    [
        "1,2\n3,\n4,5\n",  # integer labels: the gap makes the column float
        "ann,bob\ncat\ndan,eve\n",  # string labels, a field missing
        "ann,bob\ncat,\ndan,eve\n",  # string labels, an empty field
    ],
)
def test_a_missing_field_names_its_column_and_row(client, tmp_path, capfd, text):
    path = tmp_path / "edges.csv"
    path.write_text(text)
    with pytest.raises(dgraph.DgraphInputError, match=r"column 'dst' holds a null vertex id \(first at row 1") as err:
        dgraph.read_edgelist(str(path))
    assert "floating point" not in str(err.value) and "astype" not in str(err.value)
    assert "Compute Failed" not in capfd.readouterr().err
    edges = pd.read_csv(path, header=None, names=["src", "dst"]).dropna(subset=["src", "dst"])  # the fix offered
    if text[0].isdigit():  # pandas read the column with a gap as floats
        edges = edges.astype("int64")
    assert dgraph.from_edgelist(edges).num_edges == 2


@pytest.mark.parametrize("labels", ["strings", "integers"])
@pytest.mark.parametrize("missing", [None, float("nan")])
def test_a_missing_source_is_refused_on_the_client(client, capfd, labels, missing):
    edges = pd.DataFrame({"src": [10, 20, 30], "dst": [20, 30, 10]})
    g = dgraph.from_edgelist(edges.astype(str) if labels == "strings" else edges, ranks=2)
    with pytest.raises(dgraph.DgraphInputError, match="not a vertex label"):
        dgraph.algorithms.bfs(g, missing).compute()
    with pytest.raises(dgraph.DgraphInputError, match="not a vertex label"):
        g.subgraph(["10", missing] if labels == "strings" else [10, missing])
    assert "Compute Failed" not in capfd.readouterr().err


@pytest.mark.parametrize(
    "text, says",
    [
        ("a,b\nc,d,e,f\ng,h\n", "Expected 2 fields in line 2, saw 4"),
        ('ann,bob\n"cat,dan\neve,fay\n', "EOF"),
    ],
)
def test_a_malformed_csv_is_one_line_naming_the_file_and_the_line(client, tmp_path, text, says):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(dgraph.DgraphInputError) as err:
        dgraph.read_edgelist(str(path))
    message = str(err.value)
    assert "\n" not in message and str(path) in message and says in message, message
    assert "Original Message" not in message and "sample" not in message, message
