"""The files of a saved graph, written and read on the workers.

::

    PATH/
      DGRAPH            written first: this directory is (becoming) a saved graph
      manifest.json     written last: the format and its version, the graph's facts, the layout,
                        and each file's size and CRC-32
      tables/           the label index, the canonical and placed orders, the layout's plan
      ranks/00000/      rank 0's block: each of its numpy arrays in a .npy file
      ...

A value (a rank's ``Block`` or ``Subgraphs``, the layout's plan, the label index) is written as
a tree (``Writer.encode``): its numpy arrays as .npy files, one per array however many parts share
it (a rank's subgraphs share their vertex space), arrays of objects and DataFrames as Arrow IPC
files (their types and nulls kept), and everything else as JSON in the manifest.
Only the dataclasses in ``VALUE_CLASSES`` are rebuilt from a tree, and no file is unpickled.
Every file is written under a temporary name and renamed; ``save`` renames the manifest into
place after every other file is written, so a directory without one is an unfinished save. A
reader checks each file's size, then its CRC-32 over the bytes it read (``read_array``), and a
damaged, missing or foreign file is a ``DgraphInputError`` naming the file and what is wrong.

Paths are a local directory every worker sees (one machine, or storage the hosts share) or an
fsspec URL (``file://`` is tested; an object store's renames are copies, so there an interrupted
save can leave files, though never a manifest, behind).
"""

from __future__ import annotations

import dataclasses
import io
import json
import math
import os
import re
import uuid
import zlib
from typing import Any

import fsspec
import numpy as np
import pandas as pd

from ..block import Block, Subgraphs
from ..errors import DgraphInputError

FORMAT = "dgraph-graph"
VERSION = 1  # the newest format this dgraph writes and reads
MARKER, MANIFEST = "DGRAPH", "manifest.json"
VALUE_CLASSES = {cls.__name__: cls for cls in (Block, Subgraphs)}  # the dataclasses a tree may name
READ_CHUNK = 1 << 26  # bytes read (and summed) at a time


class Refusal(str):
    """A worker's answer that the request is wrong (returned, not raised: no failed task in its
    log); the client raises it as a DgraphInputError."""


def asked(client: Any, fn: Any, *args: Any) -> Any:
    """``fn(*args)`` run on a worker; a ``Refusal`` it returns is raised here."""
    answer = client.submit(_answering, fn, *args, pure=False).result()
    if isinstance(answer, Refusal):
        raise DgraphInputError(str(answer))
    return answer


def _answering(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except DgraphInputError as exc:
        return Refusal(str(exc))


def where(root: str | os.PathLike) -> str:
    """``root`` as every process reads it: a local path made absolute here (a worker's working
    directory may differ), a URL as it is."""
    root = os.fspath(root)
    return root if "://" in root else os.path.abspath(os.path.expanduser(root))


def filesystem(root: str) -> tuple[Any, str]:
    """(fsspec filesystem, path in it) of a saved graph's directory."""
    fs, path = fsspec.core.url_to_fs(root)
    return fs, path.rstrip("/") or "/"


def damaged(root: str, rel: str, problem: str) -> DgraphInputError:
    return DgraphInputError(
        f"saved graph {root}: {rel} {problem}; save the graph again, or restore the directory from a copy"
    )


# ----------------------------------------------------------------------------- one file
def write_bytes(fs: Any, path: str, chunks: list) -> dict:
    """Write ``chunks`` (bytes-like) to ``path`` under a temporary name, then rename it:
    {"bytes": size, "crc32": CRC-32} of what was written."""
    tmp, crc, size = f"{path}.part-{uuid.uuid4().hex[:12]}", 0, 0
    with fs.open(tmp, "wb") as f:
        for chunk in chunks:
            f.write(chunk)
            crc, size = zlib.crc32(chunk, crc), size + memoryview(chunk).nbytes
    fs.mv(tmp, path)
    return {"bytes": size, "crc32": crc}


def write_array(fs: Any, path: str, array: np.ndarray) -> dict:
    """``array`` as a .npy file (``write_bytes``), its bytes written as they are held."""
    if array.dtype.hasobject:
        raise TypeError(f"{path}: an array of Python objects is not saved (no file is unpickled)")
    array = np.ascontiguousarray(array)
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, np.lib.format.header_data_from_array_1_0(array))
    return write_bytes(fs, path, [header.getvalue(), array.reshape(-1).view(np.uint8)])


def read_checked(fs: Any, root: str, rel: str, expect: dict) -> np.ndarray:
    """The bytes of the file ``rel`` under ``root``, checked against the manifest's ``expect``
    ({"bytes", "crc32"}): present, of its size, and with its checksum."""
    path = f"{filesystem(root)[1]}/{rel}"
    size = int(expect["bytes"])
    try:
        found = fs.size(path)
    except FileNotFoundError:
        raise damaged(root, rel, "is missing") from None
    if found != size:
        what = "is truncated" if found < size else "is longer than saved"
        raise damaged(root, rel, f"{what} ({found:,} bytes; the manifest says {size:,})")
    buf, got, crc = np.empty(size, np.uint8), 0, 0
    with fs.open(path, "rb") as f:
        while got < size:
            n = _read_into(f, buf[got : got + READ_CHUNK])
            if not n:
                raise damaged(root, rel, f"is truncated (it ended after {got:,} of {size:,} bytes)")
            crc, got = zlib.crc32(buf[got : got + n].data, crc), got + n
    if crc != int(expect["crc32"]):
        raise damaged(
            root, rel, f"fails its checksum (CRC-32 {crc:#010x}, saved {int(expect['crc32']):#010x}): its bytes changed"
        )
    return buf


def _read_into(f: Any, view: np.ndarray) -> int:
    if hasattr(f, "readinto"):
        return f.readinto(view) or 0
    data = f.read(view.size)
    view[: len(data)] = np.frombuffer(data, np.uint8)
    return len(data)


def read_array(fs: Any, root: str, rel: str, expect: dict) -> np.ndarray:
    """The array of a .npy file written by ``write_array``, checked (``read_checked``): a view of
    the bytes read, not a copy."""
    buf = read_checked(fs, root, rel, expect)
    head = io.BytesIO(buf[: min(buf.size, 1 << 16)].tobytes())
    try:
        version = np.lib.format.read_magic(head)
        read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, fortran, dtype = read_header(head)
    except ValueError as exc:
        raise damaged(root, rel, f"is not a numpy array file ({exc})") from None
    start, count = head.tell(), math.prod(shape)
    if dtype.hasobject or fortran or buf.size - start != count * dtype.itemsize:
        raise damaged(root, rel, f"holds {buf.size - start:,} bytes of data, not {count:,} of {dtype}")
    return buf[start:].view(dtype).reshape(shape)


# ----------------------------------------------------------------------------- trees of values
class Writer:
    """Writes values under ``folder`` of a saved graph (``encode``), each array once. ``files``:
    each written file's {"bytes", "crc32"}, by its path under the graph's directory."""

    def __init__(self, root: str, folder: str) -> None:
        self.fs, self.path = filesystem(root)
        self.folder = folder
        self.files: dict[str, dict] = {}
        self._written: dict[int, str] = {}  # id of an array -> its file
        self.fs.makedirs(f"{self.path}/{folder}", exist_ok=True)

    def encode(self, value: Any, name: str) -> Any:
        """``value`` as JSON, its arrays written to files named after ``name`` and where they are
        in it: None, bools, numbers and strings as themselves, anything else as a one-key dict."""
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        if isinstance(value, np.generic) and not isinstance(value, np.object_):
            return {"scalar": value.dtype.str, "value": value.item()}
        if isinstance(value, np.ndarray) and value.dtype.hasobject:  # strings, nullable values: typed by arrow
            return {"objects": self._file(value, name, "arrow")}
        if isinstance(value, np.ndarray):
            return {"npy": self._file(value, name, "npy")}
        if isinstance(value, pd.DataFrame):
            return {"frame": self._file(value, name, "arrow")}
        if isinstance(value, pd.Index):
            return {"index": self._index(value, name)}
        if isinstance(value, (list, tuple)):
            kind = "list" if isinstance(value, list) else "tuple"
            return {kind: [self.encode(v, f"{name}.{i}") for i, v in enumerate(value)]}
        if isinstance(value, dict) and all(isinstance(k, str) for k in value):
            return {"dict": {k: self.encode(v, f"{name}.{k}") for k, v in value.items()}}
        if dataclasses.is_dataclass(value) and VALUE_CLASSES.get(type(value).__name__) is type(value):
            fields = {
                f.name: self.encode(getattr(value, f.name), f"{name}.{f.name}") for f in dataclasses.fields(value)
            }
            return {"dataclass": type(value).__name__, "fields": fields}
        raise TypeError(f"{name}: a {type(value).__name__} cannot be saved")

    def _file(self, value: Any, name: str, kind: str) -> str:
        """The file holding ``value`` (written now unless it was): a numpy array as .npy, an
        array of objects or a DataFrame as an Arrow IPC file."""
        if id(value) not in self._written:
            base = re.sub(r"[^A-Za-z0-9_.-]", "_", name) or "value"
            rel, i = f"{self.folder}/{base}.{kind}", 1
            while rel in self.files:
                rel, i = f"{self.folder}/{base}-{i}.{kind}", i + 1
            path = f"{self.path}/{rel}"
            self.files[rel] = (
                write_array(self.fs, path, value) if kind == "npy" else write_bytes(self.fs, path, [_arrow(value)])
            )
            self._written[id(value)] = rel
        return self._written[id(value)]

    def _index(self, index: pd.Index, name: str) -> dict:
        """A label index: its values as an array, or strings as their UTF-8 bytes and offsets."""
        dtype = dtype_text(index.dtype)
        if "numpy" in dtype:
            return {"dtype": dtype, "values": self._file(index.to_numpy(), name, "npy")}
        data, offsets = _utf8(index)
        return {
            "dtype": dtype,
            "data": self._file(data, f"{name}.utf8", "npy"),
            "offsets": self._file(offsets, name, "npy"),
        }


def _arrow(value: np.ndarray | pd.DataFrame) -> Any:
    """An array of objects (as one column) or a DataFrame as the bytes of an Arrow IPC file,
    which keeps its types and nulls (and a DataFrame's pandas dtypes) without pickling."""
    import pyarrow as pa

    try:
        table = (
            pa.Table.from_pandas(value)
            if isinstance(value, pd.DataFrame)
            else pa.table({"values": pa.array(value, from_pandas=True)})
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as exc:
        raise TypeError(f"values of mixed Python types ({exc})") from None
    sink = pa.BufferOutputStream()
    with pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue()


class Reader:
    """Rebuilds values written by ``Writer.encode`` from their files, checked against ``files``
    (the manifest's entries for them); an array shared when written is shared again."""

    def __init__(self, root: str, files: dict) -> None:
        self.root, self.files = root, files
        self.fs = filesystem(root)[0]
        self._read: dict[str, Any] = {}  # file -> its value, read once

    def decode(self, node: Any) -> Any:
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if not isinstance(node, dict) or len(node) not in (1, 2):
            raise self._bad(f"an entry the manifest cannot hold: {str(node)[:80]}")
        if "scalar" in node:
            return np.dtype(node["scalar"]).type(node["value"])
        if "npy" in node:
            return self._array(node["npy"])
        if "objects" in node:
            return self._read_once(node["objects"], _objects)
        if "frame" in node:
            return self._read_once(node["frame"], lambda buf: _table(buf).to_pandas())
        if "index" in node:
            return self._index(node["index"])
        if "list" in node or "tuple" in node:
            items = [self.decode(v) for v in node["list" if "list" in node else "tuple"]]
            return items if "list" in node else tuple(items)
        if "dict" in node:
            return {k: self.decode(v) for k, v in node["dict"].items()}
        cls = VALUE_CLASSES.get(str(node.get("dataclass")))
        if cls is None:
            raise self._bad(f"a value of type {node.get('dataclass')!r}, which this dgraph does not read")
        return cls(**{k: self.decode(v) for k, v in node["fields"].items()})

    def _array(self, rel: str) -> np.ndarray:
        if rel not in self._read:
            if rel not in self.files:
                raise self._bad(f"no entry for the file {rel}")
            self._read[rel] = read_array(self.fs, self.root, rel, self.files[rel])
        return self._read[rel]

    def _read_once(self, rel: str, make: Any) -> Any:
        """``make(its checked bytes)`` of the Arrow file ``rel``, once."""
        if rel not in self._read:
            if rel not in self.files:
                raise self._bad(f"no entry for the file {rel}")
            buf = read_checked(self.fs, self.root, rel, self.files[rel])
            try:
                self._read[rel] = make(buf)
            except (OSError, ValueError) as exc:  # arrow's errors are both
                raise damaged(self.root, rel, f"is not an Arrow file ({exc})") from None
        return self._read[rel]

    def _index(self, node: dict) -> pd.Index:
        dtype = dtype_of(node["dtype"])
        if "values" in node:
            return pd.Index(self._array(node["values"]), dtype=dtype, copy=False)
        return _from_utf8(self._array(node["data"]), self._array(node["offsets"]), dtype)

    def _bad(self, problem: str) -> DgraphInputError:
        return damaged(self.root, MANIFEST, f"lists {problem}")


def _table(buf: np.ndarray) -> Any:
    import pyarrow as pa

    return pa.ipc.open_file(pa.py_buffer(buf)).read_all()


def _objects(buf: np.ndarray) -> np.ndarray:
    """The array of objects an Arrow file holds as one column (nulls as None)."""
    import pyarrow as pa

    column = _table(buf).column(0)
    strings = pa.types.is_string(column.type) or pa.types.is_large_string(column.type)
    out = np.empty(len(column), dtype=object)
    out[:] = column.to_numpy(zero_copy_only=False) if strings else column.to_pylist()
    return out


def dtype_text(dtype: Any) -> dict:
    """A dtype as JSON: numpy's, pandas' string dtype (by storage and missing value), object,
    a categorical one (its categories) or another pandas dtype by name."""
    if isinstance(dtype, np.dtype) and not dtype.hasobject:
        return {"numpy": dtype.str}
    if isinstance(dtype, pd.StringDtype):
        na = getattr(dtype, "na_value", pd.NA)
        return {"string": dtype.storage, "na": "nan" if isinstance(na, float) and math.isnan(na) else "NA"}
    if isinstance(dtype, np.dtype):
        return {"object": "object"}
    if isinstance(dtype, pd.CategoricalDtype):
        categories = dtype.categories.tolist()
        if all(isinstance(c, (str, int, float, bool)) for c in categories):
            return {"category": categories, "ordered": bool(dtype.ordered)}
    elif pd.api.types.pandas_dtype(str(dtype)) == dtype:
        return {"pandas": str(dtype)}
    raise TypeError(f"values of dtype {dtype}")


def dtype_of(text: dict) -> Any:
    if "numpy" in text:
        return np.dtype(text["numpy"])
    if "string" in text:
        try:
            return pd.StringDtype(text["string"], na_value=np.nan if text["na"] == "nan" else pd.NA)
        except TypeError:  # pandas before 2.3 has one missing value
            return pd.StringDtype(text["string"])
    if "category" in text:
        return pd.CategoricalDtype(text["category"], ordered=text["ordered"])
    if "pandas" in text:
        return pd.api.types.pandas_dtype(text["pandas"])
    return np.dtype(object)


def _utf8(index: pd.Index) -> tuple[np.ndarray, np.ndarray]:
    """(UTF-8 bytes, int64 offsets) of string labels."""
    import pyarrow as pa

    strings_only = isinstance(index.dtype, pd.StringDtype) or pd.api.types.infer_dtype(index, skipna=False) == "string"
    if not strings_only:  # bytes would come back as strings
        kinds = sorted({type(v).__name__ for v in index[:1000]})
        raise TypeError(f"labels of types {kinds}")
    values = index.array if isinstance(index.dtype, pd.StringDtype) else index.to_numpy(dtype=object)
    strings = pa.array(values, type=pa.large_string())
    if isinstance(strings, pa.ChunkedArray):
        strings = strings.combine_chunks()
    _, offsets, data = strings.buffers()
    offsets = np.frombuffer(offsets, np.int64)[strings.offset : strings.offset + len(strings) + 1]
    data = np.frombuffer(data, np.uint8) if data is not None else np.empty(0, np.uint8)
    return data[offsets[0] : offsets[-1]], offsets - offsets[0]


def _from_utf8(data: np.ndarray, offsets: np.ndarray, dtype: Any) -> pd.Index:
    import pyarrow as pa

    strings = pa.LargeStringArray.from_buffers(offsets.size - 1, pa.py_buffer(offsets), pa.py_buffer(data))
    if isinstance(dtype, pd.StringDtype):
        return pd.Index(dtype.__from_arrow__(strings), copy=False)
    return pd.Index(strings.to_numpy(zero_copy_only=False), dtype=object, copy=False)


# ----------------------------------------------------------------------------- the directory
def prepare(root: str, overwrite: bool) -> None:
    """Make ``root`` an empty directory marked as a save in progress: refused when it holds
    anything, unless ``overwrite`` and it holds a saved graph (whose manifest goes first)."""
    fs, path = filesystem(root)
    if fs.exists(path):
        if not fs.isdir(path):
            raise DgraphInputError(f"cannot save a graph to {root}: it is a file; give a directory path")
        entries = fs.ls(path, detail=False)
        names = {e.rstrip("/").rsplit("/", 1)[-1] for e in entries}
        if entries and not overwrite:
            raise DgraphInputError(
                f"cannot save a graph to {root}: it exists and is not empty; give overwrite=True to replace "
                "the graph saved there, or choose another path"
            )
        if entries and not names & {MARKER, MANIFEST}:
            raise DgraphInputError(
                f"cannot save a graph to {root}: it holds files that are not a saved dgraph graph "
                f"({', '.join(sorted(names)[:3])}{', ...' if len(names) > 3 else ''}), which overwrite=True "
                "does not delete; choose an empty or new directory"
            )
        if MANIFEST in names:
            fs.rm(f"{path}/{MANIFEST}")  # first: from here on the directory does not look complete
        for entry in entries:
            if entry.rstrip("/").rsplit("/", 1)[-1] != MANIFEST:
                fs.rm(entry, recursive=True)
    fs.makedirs(path, exist_ok=True)
    write_bytes(fs, f"{path}/{MARKER}", [b"a graph saved by dgraph: see manifest.json\n"])


def discard(root: str) -> None:
    """Remove what an unfinished save wrote (``root`` was empty or a saved graph before it)."""
    fs, path = filesystem(root)
    if fs.exists(f"{path}/{MARKER}") and not fs.exists(f"{path}/{MANIFEST}"):
        for entry in fs.ls(path, detail=False):
            fs.rm(entry, recursive=True)


def write_manifest(root: str, manifest: dict) -> None:
    fs, path = filesystem(root)
    text = json.dumps(manifest, indent=1, allow_nan=True).encode()
    write_bytes(fs, f"{path}/{MANIFEST}", [text])


def read_manifest(root: str) -> dict:
    """The manifest of the saved graph at ``root``, checked to be one this dgraph reads."""
    fs, path = filesystem(root)
    try:
        with fs.open(f"{path}/{MANIFEST}", "rb") as f:
            text = f.read()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        if not fs.exists(path):
            raise DgraphInputError(f"no saved graph at {root}: it does not exist") from None
        if fs.exists(f"{path}/{MARKER}"):
            raise DgraphInputError(
                f"{root} is an unfinished save (no {MANIFEST}: the save that wrote it did not finish); "
                "save the graph again"
            ) from None
        raise DgraphInputError(f"{root} is not a saved dgraph graph: it has no {MANIFEST}") from None
    try:
        manifest = json.loads(text)
    except ValueError as exc:
        raise damaged(root, MANIFEST, f"is not JSON ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise DgraphInputError(f"{root} is not a saved dgraph graph: its {MANIFEST} is not of format {FORMAT!r}")
    version = manifest.get("version")
    if not isinstance(version, int) or version > VERSION:
        raise DgraphInputError(
            f"saved graph {root}: {MANIFEST} is of format version {version!r}, written by a newer dgraph; this "
            f"dgraph reads versions up to {VERSION}: upgrade dgraph to load it"
        )
    return manifest
