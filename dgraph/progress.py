"""A live status line for long runs: the algorithm, its superstep and the time so far.

A run that lasts longer than ``dgraph.progress-after`` seconds (dask config, 3 by default) shows
one line that updates in place: a display in a Jupyter notebook, a carriage-return line on a
terminal's stderr. Anywhere else (a script piped to a file, a batch job, a test) it stays quiet
and only logs to the ``dgraph`` logger (INFO): when the stage changes, and otherwise once every
``LOG_EVERY`` seconds, so a batch job's log gets a line a minute, not one per update.
``dask.config.set({"dgraph.progress": False})`` silences it everywhere; ``True`` shows it even
when the output is not a terminal.

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
import threading
import time

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


LOG_EVERY = 60.0  # seconds between log lines of one unchanged stage


_warm = False  # numba's cache was seen holding dgraph's kernels: no later job compiles them all


def compiling_note():
    """What a job's status line adds while numba's cache holds none of dgraph's kernels (the
    first job compiles them on the workers), else ``""``."""
    global _warm
    if not _warm:
        from .kernels import compiled_before  # numba loads with the kernels: only once a job runs

        _warm = compiled_before()
    return "" if _warm else " (compiling kernels, first run only)"


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
        self._logged = (None, -LOG_EVERY)  # the stage last logged, and when
        self.note = compiling_note()  # judged as the job starts: the workers fill the cache as it runs

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
        self.status(f"superstep {superstep}", elapsed, stage="supersteps")

    def status(self, doing, elapsed, stage=None):
        """Show ``doing``; ``stage`` (default ``doing``) is what the log counts as a change."""
        stage = doing if stage is None else stage
        if self.mode is None:  # no line to show: the log is the record, a line per stage or minute
            if stage != self._logged[0] or elapsed - self._logged[1] >= LOG_EVERY:
                self._logged = (stage, elapsed)
                log.info("dgraph %s: %s%s after %.0f s", self.name, doing, self.note, elapsed)
            return
        self._emit(f"dgraph {self.name}: {doing}{self.note}, {elapsed:.1f} s")

    def close(self, supersteps, elapsed):
        """Finish the line, if one was shown (``supersteps`` None: a job without them)."""
        if self.shown:
            steps = "" if supersteps is None else f"{supersteps} supersteps "
            self._emit(f"dgraph {self.name}: done, {steps}in {elapsed:.1f} s", final=True)


class Stages:
    """The status line of a long job on the client (a graph's construction): ``stages("labels")``
    names the stage in hand; once the job has taken ``progress_after()`` seconds, a timer thread
    shows it with the time so far, every second and at each new stage, until the ``with`` block
    ends.

    >>> import io
    >>> out = io.StringIO()
    >>> with Stages("from_edgelist", show=True, stream=out, after=0) as stages:
    ...     stages("placement"); time.sleep(0.3)
    >>> "dgraph from_edgelist: placement" in out.getvalue()
    True
    """

    def __init__(self, name, show=None, stream=None, after=None):
        self.line = Progress(name, show, stream)
        self.stage = "starting"
        self.after = progress_after() if after is None else after
        self._start = time.monotonic()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._tick, name=f"dgraph-{name}-progress", daemon=True)

    def __call__(self, stage):
        self.stage = stage
        if self._elapsed() >= self.after:  # the line is up: a new stage shows at once
            self.line.status(stage, self._elapsed())

    def _tick(self):
        if self._done.wait(max(0.0, self.after - self._elapsed())):
            return  # over before the line was due
        while True:  # then the line, updated once a second
            self.line.status(self.stage, self._elapsed())
            if self._done.wait(1.0):
                return

    def _elapsed(self):
        return time.monotonic() - self._start

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._done.set()
        self._thread.join()
        if exc[0] is None:
            self.line.close(None, self._elapsed())
