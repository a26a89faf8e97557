"""Where a measurement comes from: the command, the code, the machine and the date.

Every benchmark report starts with ``header()``, so a number quoted anywhere can be traced to
the run that produced it.

>>> print(header(["dgraph", "graph500", "--scale", "20"]).splitlines()[0])  # DASK_* settings first
$ ...dgraph graph500 --scale 20
"""

from __future__ import annotations

import datetime
import os
import platform
import shlex
import subprocess
import sys


def _commit():
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        sha = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"], cwd=here, capture_output=True, text=True, timeout=5
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=here,
            capture_output=True,
            text=True,
            timeout=5,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown (git not available)"
    if not sha:
        from . import __version__

        return f"dask-dgraph {__version__} (installed, not a git checkout)"
    return sha + (" with uncommitted changes" if dirty else "")


def _cpu():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_gib():
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError, AttributeError):
        return float("nan")


def header(argv=None):
    """Four lines: ``$ command`` (after the ``DASK_*`` settings of the environment), the commit,
    the machine (CPU model, cores, RAM, Python, dask), and the date (UTC)."""
    import dask

    argv = list(sys.argv if argv is None else argv)
    if argv and argv[0].endswith(".py"):
        argv.insert(0, "python")
    settings = [f"{k}={shlex.quote(v)}" for k, v in sorted(os.environ.items()) if k.startswith("DASK_")]
    command = " ".join(settings + [shlex.quote(a) for a in argv])  # with the dask settings it ran under
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    machine = (
        f"{_cpu()}, {cores} cores, {_memory_gib():.0f} GiB RAM; Python {platform.python_version()}, "
        f"dask {dask.__version__}"
    )
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return f"$ {command}\ncommit   {_commit()}\nmachine  {machine}\ndate     {date}"
