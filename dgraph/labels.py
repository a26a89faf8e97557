"""Renumbering: the user's vertex labels <-> canonical ids 0..n-1.

A label's position is its place among the sorted distinct labels, so it does not depend on how
the input is partitioned; integer labels that already are 0..n-1 are their own positions (then
nothing is stored). The canonical id is the position (``vertex_order="labels"``), or the rank
of the vertex by descending degree, ties by position (``"degree"``: hubs first, see
``by_degree``). Distinct labels are found per partition and merged pairwise (numbers) or with a
distributed ``drop_duplicates`` (strings); the tables are
built and kept on workers (they are O(n), edges are O(m)), never on the client. Edges are
encoded partition by partition against them: integer labels in a range not much wider than
their count through a table indexed by label (``DenseCodes``), others with a hash lookup.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .cluster import tasks_of
from .errors import DgraphInputError
from .kernels import relabel, union, unique
from .owners import index_type


def _sorted_labels(*parts):
    values = pd.concat(parts, ignore_index=True) if parts else pd.Series([], dtype="int64")
    values = values.drop_duplicates()
    try:
        values = values.sort_values(ignore_index=True)
    except TypeError as exc:
        raise DgraphInputError(
            f"vertex labels mix types that cannot be ordered ({exc}); give every label one type, "
            "for example convert them all with .astype(str)"
        ) from None
    return pd.Index(values.to_numpy(), dtype=values.dtype, copy=False)


def _distinct_numbers(dtype, *columns):
    """The sorted distinct non-null values of numeric label columns, as ``dtype``."""
    return unique(np.concatenate([c.dropna().to_numpy(dtype=dtype) for c in columns]))


def _number_index(values):
    return pd.Index(values, copy=False)


def _facts(index):
    """The label count, whether the labels are 0..n-1, and whether a null is among them."""
    n = len(index)
    identity = bool(pd.api.types.is_integer_dtype(index.dtype) and n > 0 and index[0] == 0 and index[n - 1] == n - 1)
    return n, identity, bool(index.hasnans)


def _first_null(series):
    """The index of the first null of a pandas or dask Series, or None (reads a dask one)."""
    nulls = series[series.isna()]
    head = nulls.head(1, npartitions=-1) if hasattr(nulls, "npartitions") else nulls.head(1)
    return head.index[0] if len(head) else None


def _refuse_nulls(series):
    """A null label is a missing field or an empty value in the input: name its column and row,
    and a fix that works (on the client, so no worker logs a failed task)."""
    for s in series:
        row = _first_null(s)
        if row is not None:
            raise DgraphInputError(
                f"column {s.name!r} holds a null vertex id (first at row {row!r}: a missing field or an empty "
                "value); drop or fill those edges first, for example df.dropna(subset=['src', 'dst'])"
            )


def _kinds(series):
    """{"num"} or {"str"}: the one kind of the label Series; mixed or float labels are an error."""
    dtypes = {str(s.dtype) for s in series}
    kinds = {"num" if pd.api.types.is_numeric_dtype(s.dtype) else "str" for s in series}
    if len(kinds) > 1:
        raise DgraphInputError(
            f"vertex label columns have different types {sorted(dtypes)}; give sources, destinations and "
            "vertices one type (for example .astype(str) on each)"
        )
    if any(pd.api.types.is_float_dtype(s.dtype) for s in series):
        _refuse_nulls(series)  # integers read with a gap become floats
        raise DgraphInputError(
            f"vertex labels are floating point ({sorted(dtypes)}); use integer or string labels, "
            "for example df.astype({'src': 'int64', 'dst': 'int64'})"
        )
    return kinds


def _common_dtype(series):
    """The numpy type every numeric label Series fits (nullable dtypes by their numpy type)."""
    return np.result_type(*(getattr(s.dtype, "numpy_dtype", s.dtype) for s in series))


DENSE_SPAN = 4  # integer labels spanning at most this many times their count are looked up in a table


class DenseCodes:
    """Positions of integer labels that span a range not much wider than their count: a table
    indexed by label minus the smallest, so encoding an edge is one array read, not a hash
    probe. Only the labels it was built from are looked up in it (every edge end is one).

    >>> codes = DenseCodes(pd.Index([-2, 5, 9]))
    >>> codes.get_indexer(pd.Series([9, -2, 9, 5])).tolist()
    [2, 0, 2, 1]
    """

    def __init__(self, index):
        values = index.to_numpy()
        self.lo = int(values[0])
        self.table = np.full(int(values[-1]) - self.lo + 1, -1, dtype=index_type(values.size))
        self.table[values - self.lo] = np.arange(values.size)

    @staticmethod
    def fits(index):
        """Whether a sorted numeric label index is dense enough for a table."""
        if not len(index) or index.dtype.kind not in "iu" or int(index[-1]) >= 2**63:
            return False
        return int(index[-1]) - int(index[0]) < DENSE_SPAN * len(index) + 4096

    def get_indexer(self, column):
        """The positions of the labels of ``column`` (a Series), as the table's integer type."""
        values = column.to_numpy()
        return relabel(self.table, values - values.dtype.type(self.lo) if self.lo else values)


def _lookup_table(index):
    """What encodes labels of ``index`` fastest: a DenseCodes, or the index itself (hashed)."""
    return DenseCodes(index) if DenseCodes.fits(index) else index


def encode_part(part, index, columns, canonical=None, dtype=np.int64):
    """``part`` with its label ``columns`` replaced by positions in ``index`` (a pandas Index or
    a DenseCodes; None: the labels are their own positions, kept as int64 to be checked), then
    mapped through ``canonical`` when given, as ``dtype``; a null label is a DgraphInputError
    naming its column and row."""
    out = {}
    for c in columns:
        col = part[c]
        if col.isna().any():
            row = col.index[col.isna()][0]
            raise DgraphInputError(
                f"column {c!r} holds a null vertex id (first at row {row!r}); drop or fill those edges first, "
                "for example df.dropna(subset=[...])"
            )
        if index is None:
            out[c] = col.to_numpy(dtype=np.int64)
            continue
        out[c] = index.get_indexer(col)
        if canonical is not None:
            out[c] = canonical[out[c]]
        out[c] = out[c].astype(dtype, copy=False)
    kept = {c: out[c] if c in out else part[c] for c in part.columns}
    return pd.DataFrame(kept, index=part.index, copy=False)


class Labels:
    """Canonical ids of one graph's labels. ``sorted``: a future of the sorted distinct labels,
    or None when the labels are exactly the integers 0..n-1; ``canonical``: a future of each
    position's canonical id, or None when that is the position; ``index``: the labels in
    canonical order (what results are decoded with), or None when that is 0..n-1."""

    def __init__(self, n, index=None, dtype=np.dtype("int64"), sorted=None, canonical=None):
        self.n = n
        self.index = index
        self.dtype = dtype
        self.sorted = index if sorted is None and canonical is None else sorted
        self.canonical = canonical

    def by_degree(self, client, degree):
        """These labels with canonical ids by descending ``degree`` (a future of one count per
        position), ties by position; the edges encoded so far are positions (``reorder``)."""
        order = client.submit(_descending, degree)
        canonical = client.submit(inverse_permutation, order)
        index = client.submit(_in_order, self.sorted, order)
        return Labels(self.n, index, self.dtype, sorted=self.sorted, canonical=canonical)

    def reorder(self, ddf, columns):
        """Positions in the label columns of ``ddf`` -> canonical ids (after ``by_degree``)."""
        return ddf.map_partitions(_to_canonical, self.canonical, list(columns), meta=ddf._meta)

    @classmethod
    def identity(cls, n):
        return cls(n)

    @classmethod
    def build(cls, client, series):
        """Distinct sorted labels of the given dask Series (edge endpoints and vertices)."""
        import dask
        import dask.dataframe as dd

        kinds = _kinds(series)
        named, series = series, [s.rename("label") for s in series]
        if kinds == {"num"}:  # sorted distinct numbers per partition, merged pairwise
            common = _common_dtype(series)
            ends = series[:2] if len(series) > 1 and series[0].npartitions == series[1].npartitions else series[:1]
            parts = [dask.delayed(_distinct_numbers)(common, *ps) for ps in zip(*(s.to_delayed() for s in ends))]
            parts += [dask.delayed(_distinct_numbers)(common, p) for s in series[len(ends) :] for p in s.to_delayed()]
            while len(parts) > 1:
                parts = [dask.delayed(union)(a, b) for a, b in zip(parts[::2], parts[1::2])] + parts[len(parts) & ~1 :]
            index = client.compute(dask.delayed(_number_index)(parts[0]))
        else:
            allv = dd.concat(series) if len(series) > 1 else series[0]
            parts = allv.drop_duplicates(split_out=max(1, allv.npartitions // 4)).to_delayed()
            index = client.compute(dask.delayed(_sorted_labels)(*parts))
        n, identity, nulls = client.submit(_facts, index).result()
        if nulls:  # the string path keeps them among the distinct labels
            _refuse_nulls(named)
        if identity:
            index.release()
            return cls(n)
        return cls(n, index, client.submit(lambda ix: ix.dtype, index).result())

    @classmethod
    def local(cls, client, series):
        """``build`` for pandas Series, on the client (a small edge list): the Labels, with the
        table held on the workers (``cluster.tasks_of``), and the table itself (None: the labels
        are 0..n-1)."""
        if _kinds(series) == {"num"}:
            common = _common_dtype(series)
            index = _number_index(_distinct_numbers(common, *series))
        else:
            index = _sorted_labels(*(s.dropna() for s in series))
        n, identity, _ = _facts(index)
        if identity:
            return cls(n), None
        # a key of its own (under a content hash, a graph released just before that had the same
        # labels could take the table from the scheduler), made again if its worker is lost
        return cls(n, tasks_of(client, [index])[0], index.dtype), index

    def encode(self, ddf, columns):
        """Replace the label columns of ``ddf`` by canonical ids (nulls are an error): int32
        where every id fits, int64 for labels that are their own ids (checked later)."""
        dtype = np.dtype(np.int64 if self.sorted is None else index_type(self.n))
        meta = ddf._meta.assign(**{c: dtype.type(0) for c in columns})
        # one lookup table, made where the labels are, held while the encoded frame is, and read
        # by every partition of every pass over it (a delayed one would be made again per task
        # the streaming placement submits)
        codes = None if self.sorted is None else self.sorted.client.submit(_lookup_table, self.sorted)
        return ddf.map_partitions(encode_part, codes, list(columns), self.canonical, dtype=dtype, meta=meta)

    def positions(self, values, what):
        """Positions of integer labels 0..n-1 (``sorted`` is None), checked on the spot."""
        for v in values:
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or not 0 <= v < self.n:
                raise DgraphInputError(f"{what} {v!r} is not a vertex of this graph (labels are 0..{self.n - 1})")
        return np.asarray(values, dtype=np.int64)


def lookup(sorted_labels, table, values, what, dtype):
    """Positions of the labels ``values`` (they are their own when ``sorted_labels`` is None),
    through ``table`` (position -> id) if given; an unknown label is a DgraphInputError naming it."""
    ids = np.asarray(values, dtype=np.int64) if sorted_labels is None else _positions(sorted_labels, values)
    missing = [v for v, i in zip(values, ids) if i < 0]
    if missing:
        raise DgraphInputError(
            f"{what} {missing[0]!r} is not a vertex of this graph"
            + (f" ({len(missing)} unknown labels)" if len(missing) > 1 else "")
            + "; check the label and its type (labels of this graph are "
            + str(dtype)
            + ")"
        )
    return ids if table is None else table[ids]


def _positions(index, values):
    try:
        return index.get_indexer(pd.Index(values)).astype(np.int64)
    except (TypeError, ValueError):
        return np.full(len(values), -1, dtype=np.int64)


def _descending(degree):
    return np.argsort(-np.asarray(degree, dtype=np.int64), kind="stable").astype(index_type(len(degree)))


def inverse_permutation(order):
    inverse = np.empty_like(order)
    inverse[order] = np.arange(order.size, dtype=order.dtype)
    return inverse


def _in_order(sorted_labels, order):
    return order if sorted_labels is None else sorted_labels[order]


def _to_canonical(part, canonical, columns):
    return part.assign(**{c: canonical[part[c].to_numpy()].astype(part[c].dtype, copy=False) for c in columns})


def check_labels(values, what):
    """``values`` (a pandas Series of vertex labels) as dgraph keeps them: integers that fit
    int64 (an object column of them becomes int64), strings, or one other orderable type. Never
    a mix (dask would turn 1 and "1" into the same string), never tuples (a networkx grid's
    nodes), never integers beyond int64 (they would become strings)."""
    if not pd.api.types.is_object_dtype(values.dtype):
        return values
    kinds = {type(v) for v in values.dropna().tolist()}
    if not kinds or kinds == {str}:
        return values
    if any(issubclass(k, tuple) for k in kinds):
        raise DgraphInputError(
            f"{what} holds tuple labels such as {next(v for v in values if isinstance(v, tuple))!r}; vertex labels "
            "must be integers or strings: relabel first (networkx: nx.convert_node_labels_to_integers(G, "
            "label_attribute='label'))"
        )
    ints = [k for k in kinds if issubclass(k, (int, np.integer)) and not issubclass(k, bool)]
    if ints and kinds <= set(ints):
        big = [v for v in values.dropna() if not -(2**63) <= v < 2**63]
        if big:
            raise DgraphInputError(
                f"{what} holds the integer label {big[0]}, beyond int64; integer labels must fit in 64 bits: "
                "convert the labels to strings (df[col].astype(str)) to keep them"
            )
        return values if values.isna().any() else values.astype(np.int64)
    if len(kinds) > 1:
        names = ", ".join(sorted(k.__name__ for k in kinds))
        raise DgraphInputError(
            f"{what} mixes label types ({names}), so 1 and '1' could not be told apart; give every label one type, "
            "for example .astype(str)"
        )
