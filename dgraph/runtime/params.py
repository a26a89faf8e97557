"""A run's parameters as they travel: futures held by key.

The client replaces every future in a run's params by a ``Held`` (its key): a worker puts the
value back from its own memory or a peer's, so no value passes through the client.
"""

from __future__ import annotations

from distributed import Future


class Held:
    """Stands for a future's value in a directly driven run's params; the worker puts it back."""

    __slots__ = ("key",)

    def __init__(self, key):
        self.key = key


def _swap(obj, leaf):
    """``obj`` with ``leaf`` applied inside dicts, lists and tuples (where dask finds futures in a
    task's arguments)."""
    if type(obj) is dict:
        return {k: _swap(v, leaf) for k, v in obj.items()}
    if type(obj) in (list, tuple):
        return type(obj)(_swap(v, leaf) for v in obj)
    return leaf(obj)


def hold(params):
    """``(params with each future replaced by a Held, the futures)``."""
    found = []

    def leaf(x):
        if isinstance(x, Future):
            found.append(x)
            return Held(x.key)
        return x

    return _swap(params, leaf), found


def resolve(params, values):
    """``params`` with each Held replaced by its value from ``values`` (key -> value)."""
    return _swap(params, lambda x: values[x.key] if isinstance(x, Held) else x)
