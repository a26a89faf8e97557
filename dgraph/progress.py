"""A live status line for long runs: the algorithm, its superstep and the time so far.

A run that lasts longer than ``dgraph.progress-after`` seconds (dask config, 3 by default) shows
one line that updates in place: a display in a Jupyter notebook, a carriage-return line on a
terminal's stderr. Anywhere else (a script piped to a file, a batch job, a test) it stays quiet
and only logs the superstep to the ``dgraph`` logger (INFO). ``dask.config.set({"dgraph.progress": False})`` silences
it everywhere; ``True`` shows it even when the output is not a terminal.

>>> import io
>>> out = io.StringIO()
>>> line = Progress("bfs", show=True, stream=out)
>>> line.update(12, 4.0); line.close(20, 6.5)
>>> out.getvalue().split("\\r")[-1].strip()
'dgraph bfs: done, 20 supersteps in 6.5 s'
"""

from __future__ import annotations

import logging
import sys

import dask

log = logging.getLogger("dgraph")


def _in_notebook():
    shell = sys.modules.get("IPython") and sys.modules["IPython"].get_ipython()
    return type(shell).__name__ == "ZMQInteractiveShell"


def _wanted():
    """``"notebook"``, ``"terminal"`` or ``None`` per the config and where the output goes."""
    setting = dask.config.get("dgraph.progress", "auto")
    if setting is False or setting in ("off", "false", "False"):
        return None
    if _in_notebook():
        return "notebook"
    if setting is True or setting in ("on", "true", "True") or sys.stderr.isatty():
        return "terminal"
    return None


def progress_after():
    """Seconds a run waits before it shows anything."""
    return float(dask.config.get("dgraph.progress-after", 3.0))


class Progress:
    """One run's status line; ``show`` overrides where it goes (``True``: ``stream``)."""

    def __init__(self, name, show=None, stream=None):
        self.name = name
        self.mode = ("terminal" if show else None) if show is not None else _wanted()
        self.stream = stream
        self._handle = None
        self.shown = False

    def _emit(self, text, final=False):
        self.shown = True
        if self.mode == "notebook":
            from IPython.display import Pretty, display

            if self._handle is None:
                self._handle = display(Pretty(text), display_id=True)
            else:
                self._handle.update(Pretty(text))
        elif self.mode == "terminal":
            stream = self.stream or sys.stderr
            stream.write("\r" + text.ljust(60) + ("\n" if final else ""))
            stream.flush()

    def update(self, superstep, elapsed):
        if self.mode is None:  # no line to show: the log is the record
            log.info("dgraph %s: superstep %s after %.0f s", self.name, superstep, elapsed)
        self._emit(f"dgraph {self.name}: superstep {superstep}, {elapsed:.1f} s")

    def close(self, supersteps, elapsed):
        """Finish the line, if one was shown."""
        if self.shown:
            self._emit(f"dgraph {self.name}: done, {supersteps} supersteps in {elapsed:.1f} s", final=True)
