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
