"""Reading and writing edge lists: csv/tsv, SNAP text, Matrix Market, GML edges, parquet; networkx.

Text formats are read with ``dask.dataframe.read_csv`` so large files are split across
partitions (gzip files are read one partition per file, since gzip cannot be split).
"""

from __future__ import annotations

import csv
import glob as _glob
import gzip
import os
import re
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from .errors import DgraphInputError

if TYPE_CHECKING:
    from .graph import Graph

FORMATS = ("auto", "csv", "tsv", "snap", "mtx", "gml", "gr", "parquet")


def _open(path):
    return gzip.open(path, "rt", errors="replace") if path.endswith(".gz") else open(path, errors="replace")


def _detect(path):
    base = path[:-3] if path.endswith(".gz") else path
    ext = os.path.splitext(base)[1].lower()
    return {
        ".csv": "csv",
        ".tsv": "tsv",
        ".mtx": "mtx",
        ".gml": "gml",
        ".gr": "gr",
        ".parquet": "parquet",
        ".pq": "parquet",
    }.get(ext, "snap")


def _paths(path_or_glob):
    if isinstance(path_or_glob, (list, tuple)):
        paths = [str(p) for p in path_or_glob]
    elif any(ch in str(path_or_glob) for ch in "*?["):
        paths = sorted(_glob.glob(str(path_or_glob)))
    else:
        paths = [str(path_or_glob)]
    if not paths:
        raise DgraphInputError(f"no file matches {path_or_glob!r}")
    for p in paths:
        if not os.path.exists(p):
            raise DgraphInputError(f"edge list file {p!r} does not exist")
    return paths


def _mtx_header(path):
    """(symmetric, pattern, header lines, (rows, cols, entries)) of a Matrix Market coordinate file."""
    with _open(path) as f:
        first = f.readline()
        if not first.startswith("%%MatrixMarket"):
            raise DgraphInputError(f"{path!r} is not a Matrix Market file (no %%MatrixMarket banner)")
        banner = first.lower().split()
        if "coordinate" not in banner:
            raise DgraphInputError(f"{path!r}: only Matrix Market coordinate files hold graphs, got {first.strip()!r}")
        lines, size = 1, None
        for line in f:
            lines += 1
            if not line.startswith("%"):
                size = line.split()
                break
        if size is None or len(size) != 3 or not all(x.isdigit() for x in size):
            raise DgraphInputError(
                f"{path!r}: the size line must be 'rows columns entries' (three integers), got {' '.join(size or [])!r}"
            )
        rows, cols, entries = (int(x) for x in size)
        if rows != cols:
            raise DgraphInputError(f"{path!r} declares a {rows} x {cols} matrix; a graph's adjacency matrix is square")
        symmetric = "symmetric" in banner or "hermitian" in banner or "skew-symmetric" in banner
        return symmetric, ("pattern" in banner), lines, (rows, cols, entries)


def _data_lines(path, comment, count=2):
    """The first ``count`` lines of a text edge list that are neither blank nor comments."""
    out = []
    with _open(path) as f:
        for line in f:
            text = line.strip()
            if not text or (comment and text.startswith(comment)):
                continue
            out.append(text)
            if len(out) == count:
                break
    return out


def _fields(line, sep):
    return line.split() if sep in (None, r"\s+") else [x.strip().strip('"') for x in line.split(sep)]


def _is_number(token):
    try:
        float(token)
    except ValueError:
        return False
    return True


# Names edge-list files give their columns (compared in lower case). A first line made only of
# these, whose label fields name no vertex on the lines below it, is a header.
COLUMN_NAMES = frozenset(
    "src dst source target destination from to u v head tail node1 node2 node_1 node_2 source_id target_id "
    "from_id to_id src_id dst_id sourceid targetid start end id1 id2 vertex1 vertex2 i j "
    "weight weights w cost length distance time capacity value label type timestamp".split()
)
HEADER_SAMPLE = 1000  # lines read to tell a header from a first edge


def _has_header(path, sep, comment, labels):
    """Whether the first line of a text edge list is a header (``header=None``).

    It is when a field that holds a number on every line of the sample below it does not hold
    one on it (the weights, or integer labels, under their names), or when all its fields are
    usual column names (``COLUMN_NAMES``: src, dst, source, target, weight, ...) and its fields at
    the ``labels`` positions (source, destination) name no vertex of the sample below it. String
    labels named otherwise, or named like a vertex that appears below, read as an edge:
    ``header=True`` says otherwise.
    """
    lines = _data_lines(path, comment, count=HEADER_SAMPLE + 1)
    if len(lines) < 2:
        return False
    first, rest = _fields(lines[0], sep), [_fields(line, sep) for line in lines[1:]]
    width = min(len(first), *(len(r) for r in rest))
    numbers_below = [c for c in range(width) if all(_is_number(r[c]) for r in rest)]
    if any(not _is_number(first[c]) for c in numbers_below):
        return True
    if not all(f.lower() in COLUMN_NAMES for f in first):
        return False
    below = {r[c] for r in rest for c in labels if c < len(r)}
    return not any(first[c] in below for c in labels if c < len(first))


def read_gml_edges(path):
    """Edges (and node ids) of a GML file: the ``id`` of nodes, ``source``/``target`` of edges."""
    with _open(path) as f:
        text = f.read()
    directed = bool(re.search(r"\bdirected\s+1\b", text))
    nodes, src, dst = [], [], []
    for kind, body in re.findall(r"\b(node|edge)\s*\[(.*?)\]", text, flags=re.S):
        if kind == "node":
            m = re.search(r"\bid\s+(-?\d+)", body)
            if m:
                nodes.append(int(m.group(1)))
        else:
            s, t = re.search(r"\bsource\s+(-?\d+)", body), re.search(r"\btarget\s+(-?\d+)", body)
            if not (s and t):
                raise DgraphInputError(f"{path!r}: an edge without source/target: {body.strip()[:80]!r}")
            src.append(int(s.group(1)))
            dst.append(int(t.group(1)))
    return pd.DataFrame({"src": src, "dst": dst}, dtype="int64"), pd.Series(nodes, dtype="int64"), directed


def read_edgelist(
    path_or_glob: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    format: str = "auto",
    *,
    source: int | str = 0,
    destination: int | str = 1,
    weight: int | str | None = None,
    directed: bool | None = None,
    comment: str | None = None,
    sep: str | None = None,
    header: bool | None = None,
    blocksize: str | int = "64MB",
    **graph_kwargs: Any,
) -> Graph:
    """Read an edge list file (or a glob / list of files) into a ``Graph``.

    Parameters
    ----------
    path_or_glob : str, list of str
        ``.csv``, ``.tsv``, SNAP-style text (``.txt``, ``.edges``, ...: ``#`` comments, any
        whitespace, CRLF), Matrix Market ``.mtx``, DIMACS shortest-path ``.gr`` (arc lengths as
        ``weight="weight"``), GML ``.gml`` or ``.parquet``; any of the text ones may be ``.gz``.
    format : {"auto", "csv", "tsv", "snap", "mtx", "gml", "gr", "parquet"}
    source, destination, weight : int or str
        Column positions (text without header) or names (csv with header, parquet). For ``mtx``
        the third column, when present, is the weight if ``weight`` is given.
    directed : bool, optional
        Default: ``False`` for a symmetric Matrix Market file or a GML file without
        ``directed 1``, else ``True`` (the command line's default too).
    header : bool, optional
        Whether a text file's first line names its columns. Default: detected from the first
        1000 lines: the first line is a header when a column that holds numbers below does not
        hold one there, or when its fields are all usual column names (``src``, ``dst``,
        ``source``, ``target``, ``from``, ``to``, ``weight``, ...: ``dgraph.io.COLUMN_NAMES``) and
        its source and destination fields name no vertex below it. Say ``header=True`` for
        string labels under other names. A Matrix Market file has none.
    **graph_kwargs
        Passed to ``dgraph.from_edgelist`` (``layout``, ``ranks``, ``duplicates``, ...).

    Examples
    --------
    >>> import dgraph
    >>> g = dgraph.read_edgelist(dgraph.datasets.path("ca-GrQc"), directed=False)
    >>> g.num_vertices, g.num_edges
    (5242, 14496)
    """
    import dask.dataframe as dd

    from .build import from_edgelist

    if format not in FORMATS:
        raise DgraphInputError(f"format must be one of {FORMATS}, got {format!r}")
    paths = _paths(path_or_glob)
    fmt = _detect(paths[0]) if format == "auto" else format
    gz = paths[0].endswith(".gz")
    vertices = None
    src: Hashable
    dst: Hashable
    w: Hashable | None
    if fmt == "parquet":
        df = dd.read_parquet(paths)
        src, dst, w = source, destination, weight
        if isinstance(src, int):
            src, dst = df.columns[src], df.columns[dst]
            w = df.columns[w] if isinstance(w, int) else w
    elif fmt == "gr":  # DIMACS shortest-path arcs: "a u v length", with "c" comments and a "p" line
        df = dd.read_csv(
            paths,
            sep=r"\s+",
            comment="c",
            header=None,
            names=["kind", "src", "dst", "weight"],
            dtype=str,
            blocksize=None if gz else blocksize,
            quoting=csv.QUOTE_NONE,
        )
        df = df[df["kind"] == "a"].astype({"src": "int64", "dst": "int64", "weight": "float64"})[
            ["src", "dst", "weight"]
        ]
        src, dst = "src", "dst"
        if weight not in (None, "weight"):
            raise DgraphInputError("a DIMACS .gr file has one weight column: pass weight='weight' (or None)")
        w = weight
    elif fmt == "gml":
        frames = [read_gml_edges(p) for p in paths]
        df = pd.concat([f[0] for f in frames], ignore_index=True)
        vertices = pd.concat([f[1] for f in frames], ignore_index=True).drop_duplicates()
        if directed is None:
            directed = frames[0][2]
        src, dst, w = "src", "dst", None
    else:
        opts = dict(comment=comment, blocksize=None if gz else blocksize, sample=2**20)
        size = None
        if fmt == "mtx":
            symmetric, pattern, skip, size = _mtx_header(paths[0])
            opts.update(sep=r"\s+", skiprows=skip, quoting=csv.QUOTE_NONE)
            if directed is None:
                directed = not symmetric
            if pattern and weight is not None:
                raise DgraphInputError(f"{paths[0]!r} is a pattern matrix: it has no weights; drop weight=")
            header = False
        elif fmt == "csv":
            opts.update(sep=sep or ",")
        elif fmt == "tsv":
            opts.update(sep=sep or "\t")
        else:
            opts.update(sep=sep or r"\s+", comment=comment or "#", quoting=csv.QUOTE_NONE)
        if header not in (None, True, False, 0):
            raise DgraphInputError(f"header must be True, False or None (detect), got {header!r}")
        named = any(isinstance(c, str) for c in (source, destination, weight) if c is not None)
        if header is None:
            ends = [c for c in (source, destination) if isinstance(c, int)]
            header = named or _has_header(paths[0], opts["sep"], opts["comment"], ends)
        df = _read_text(dd, paths, fmt, header is not False, opts)
        if header is not False:
            names = list(df.columns)
            src, dst, w = (
                names[c] if isinstance(c, int) and c < len(names) else c for c in (source, destination, weight)
            )
        else:
            if named:
                raise DgraphInputError(
                    "columns are named (source/destination/weight given as names) but header=False; "
                    "give column positions (0, 1, 2) or header=True"
                )
            df.columns = [str(c) for c in range(len(df.columns))]
            src, dst = str(source), str(destination)
            w = str(weight) if weight is not None else None
        for what, col in (("source", src), ("destination", dst), ("weight", w)):
            if col is not None and col not in df.columns:
                raise DgraphInputError(
                    f"{paths[0]!r} has no {what} column {col!r}; its columns are {list(df.columns)} "
                    "(pass positions or names with source=, destination=, weight=)"
                )
        if size is not None:
            vertices = _check_mtx(df, src, dst, paths[0], size)
    if directed is None:
        directed = True
    if vertices is not None:
        graph_kwargs.setdefault("vertices", vertices)
    try:
        return from_edgelist(df, source=src, destination=dst, weight=w, directed=directed, **graph_kwargs)
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:  # raised where the files are first read
        raise DgraphInputError(_unreadable(paths[0], fmt, exc)) from None


def _read_text(dd, paths, fmt, header, opts):
    """``dd.read_csv`` of the files; a file whose rows do not all have the same fields is an input error."""
    try:
        return dd.read_csv(paths, header=0 if header else None, on_bad_lines="error", **opts)
    except (pd.errors.ParserError, ValueError, UnicodeDecodeError) as exc:
        raise DgraphInputError(_unreadable(paths[0], fmt, exc)) from None


def _unreadable(path, fmt, exc):
    """One line: the file, pandas' own reason (which names the line and its fields), and what to
    check. dask wraps pandas' reason in lines of its own, and adds advice about sampling that
    does not apply to a malformed file."""
    reason = str(exc)
    if "Original Message:" in reason:
        reason = reason.split("Original Message:", 1)[1]
    reason = " ".join(reason.strip().splitlines()[0].split()) if reason.strip() else type(exc).__name__
    return (
        f"could not read {path!r} as {fmt}: {reason.rstrip('. ')}; check the separator (sep=), that every line "
        "has the same number of fields, its quotes, and header="
    )


def _check_mtx(df, src, dst, path, size):
    """The declared size holds: every id in 1..n and as many entries as declared. Returns the
    vertices 1..n, so isolated trailing vertices are kept."""
    import dask

    n, _, entries = size
    malformed = f"{path!r}: an entry's row or column is not an integer (entries are 'row column [value]')"
    if not (pd.api.types.is_integer_dtype(df[src].dtype) and pd.api.types.is_integer_dtype(df[dst].dtype)):
        raise DgraphInputError(malformed)
    try:
        found, lo, hi = dask.compute(df[src].size, df[[src, dst]].min().min(), df[[src, dst]].max().max())
    except (ValueError, TypeError, pd.errors.ParserError) as exc:
        raise DgraphInputError(f"{malformed}: {exc}") from None
    if found != entries:
        raise DgraphInputError(f"{path!r} declares {entries} entries but holds {found}")
    if found and (lo < 1 or hi > n):
        raise DgraphInputError(f"{path!r}: an entry's row or column ({lo if lo < 1 else hi}) is outside 1..{n}")
    return pd.Series(range(1, n + 1), dtype="int64")


def from_networkx(G: Any, weight: str | None = None, **graph_kwargs: Any) -> Graph:
    """A dgraph ``Graph`` of a networkx graph (its nodes, including isolated ones, and edges).

    Examples
    --------
    >>> import networkx as nx, dgraph
    >>> g = dgraph.from_networkx(nx.path_graph(4))
    >>> g.num_edges
    3
    """
    from .build import from_edgelist

    rows = list(G.edges(data=weight if weight else False, default=1.0)) if weight else list(G.edges())
    cols = ["src", "dst"] + (["weight"] if weight else [])
    nodes = list(G.nodes())
    df = pd.DataFrame(rows, columns=cols)
    if df.empty and nodes:
        df = pd.DataFrame(
            {"src": pd.Series([], dtype=pd.Series(nodes).dtype), "dst": pd.Series([], dtype=pd.Series(nodes).dtype)}
        )
    graph_kwargs.setdefault("directed", G.is_directed())
    return from_edgelist(df, weight="weight" if weight else None, vertices=pd.Series(nodes), **graph_kwargs)


__all__ = ["from_networkx", "read_edgelist", "read_gml_edges"]
