"""Separate hosts on one machine: network namespaces joined by a bridge, with a dask cluster on them.

``Hosts`` makes a namespace holding a bridge (the switch) and one namespace per host, each with
a veth pair from its ``eth0`` to a port of the bridge and an address in ``SUBNET``. The root
namespace gets no device, address or route: the hosts reach each other and nothing else (they
have no default route), so nothing the tests send leaves the namespaces they made. Processes
start inside a host with ``Hosts.popen`` (``ip netns exec``); the test process talks to the
cluster through a client process in the scheduler's host (``Remote``: pickled calls over pipes,
which cross namespaces), so the test process itself opens no socket to the hosts.

Names carry the test process's id (``dgh-<pid>-<n>-...``), so parallel test processes never
collide, and ``remove_stale`` deletes what a killed test process left behind (namespaces whose
process is gone, with the processes still in them). ``Hosts.close`` ends every process started
in them and deletes the namespaces, which deletes their devices.

Run as ``python tests/hosts.py serve ADDRESS`` inside a namespace, this file is the client
process ``Remote`` starts.
"""

from __future__ import annotations

import itertools
import os
import pickle
import select
import shutil
import signal
import struct
import subprocess
import sys
import time

import cloudpickle

SUBNET = "10.231.7"  # a private /24; the hosts are SUBNET.1, SUBNET.2, ...
PREFIX = "dgh-"
SCHEDULER_PORT = 8786
WORKER_PORTS = "40000:40019"  # dask's own listeners on the workers (--worker-port)
HTTP_PORT = 40100  # the first worker's HTTP server (metrics, health) on a host, the next one's +1, ...
CHANNEL_PORTS = "41000-41099"  # dgraph's peer channels (dgraph.channel-ports)
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
_count = itertools.count()


def unavailable():
    """Why namespaces cannot be made here, or None."""
    if not sys.platform.startswith("linux"):
        return "network namespaces are Linux's"
    if shutil.which("ip") is None:
        return "no `ip` command (iproute2) to make network namespaces"
    if os.geteuid() != 0:
        return "making network namespaces needs root"
    probe = f"{PREFIX}{os.getpid()}-probe"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"`ip netns add` failed: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


def _ip(*args, check=True):
    done = subprocess.run(["ip", *args], capture_output=True, text=True)
    if check and done.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout


def _namespaces():
    return [line.split()[0] for line in _ip("netns", "list").splitlines() if line.strip()]


def _kill_inside(ns):
    for pid in _ip("netns", "pids", ns, check=False).split():
        try:
            os.kill(int(pid), signal.SIGKILL)
        except (ProcessLookupError, ValueError):
            pass


def remove_stale():
    """Delete the namespaces (and end the processes in them) of test processes that are gone."""
    for ns in _namespaces():
        if not ns.startswith(PREFIX):
            continue
        owner = ns[len(PREFIX) :].split("-", 1)[0]
        if owner.isdigit() and not os.path.exists(f"/proc/{owner}"):
            _kill_inside(ns)
            _ip("netns", "del", ns, check=False)


def cut_link(switch, i):
    """Take host i off the switch namespace ``switch``: what it sends and what is sent to it
    vanishes, and no side is told (its own link stays up, as when a switch port or a cable
    between switches fails). Callable from inside any of the hosts (as root)."""
    _ip("-n", switch, "link", "set", f"h{i}", "nomaster")


def shape(namespace, rate=None, bits=None):
    """Shape what the host ``namespace`` sends to ``rate`` (tc's token bucket, e.g. "100mbit",
    which is ``bits`` a second; None: unshaped), with a bucket of 10 ms of it. Both ways between
    two shaped hosts are then shaped, as a slower link between them. Callable from inside any of
    the hosts (as root)."""
    tc = ["ip", "netns", "exec", namespace, "tc", "qdisc"]
    if rate is None:
        subprocess.run([*tc, "del", "dev", "eth0", "root"], capture_output=True)
    else:
        burst = max(16 << 10, int(bits / 8 / 100))
        bucket = ["tbf", "rate", rate, "burst", str(burst), "latency", "200ms"]
        subprocess.run([*tc, "replace", "dev", "eth0", "root", *bucket], check=True, capture_output=True)


class Hosts:
    """A switch and ``count`` hosts; ``address(i)`` is host i's address (i from 1)."""

    def __init__(self, count):
        remove_stale()
        self.tag = f"{PREFIX}{os.getpid()}-{next(_count)}"
        self.switch = f"{self.tag}-sw"
        self.names = [f"{self.tag}-h{i}" for i in range(1, count + 1)]
        self.processes = []
        try:
            _ip("netns", "add", self.switch)
            _ip("-n", self.switch, "link", "add", "br0", "type", "bridge")
            _ip("-n", self.switch, "link", "set", "br0", "up")
            for i, ns in enumerate(self.names, 1):
                _ip("netns", "add", ns)
                _ip("-n", ns, "link", "set", "lo", "up")
                _ip("-n", self.switch, "link", "add", f"h{i}", "type", "veth", "peer", "name", "eth0", "netns", ns)
                _ip("-n", self.switch, "link", "set", f"h{i}", "master", "br0", "up")
                _ip("-n", ns, "addr", "add", f"{self.address(i)}/24", "dev", "eth0")
                _ip("-n", ns, "link", "set", "eth0", "up")
        except BaseException:
            self.close()
            raise

    @staticmethod
    def address(i):
        return f"{SUBNET}.{i}"

    def popen(self, i, argv, env=None, **kwargs):
        """Start ``argv`` inside host i; it is ended by ``close``."""
        p = subprocess.Popen(["ip", "netns", "exec", self.names[i - 1], *argv], env=env, **kwargs)
        self.processes.append(p)
        return p

    def cut(self, i):
        """Take host i off the switch (``cut_link``)."""
        cut_link(self.switch, i)

    def mend(self, i):
        _ip("-n", self.switch, "link", "set", f"h{i}", "master", "br0")

    def listening(self, i):
        """The TCP ports something listens on in host i."""
        out = subprocess.run(
            ["ip", "netns", "exec", self.names[i - 1], "ss", "-Htln"], capture_output=True, text=True, check=True
        ).stdout
        return sorted({int(line.split()[3].rsplit(":", 1)[1]) for line in out.splitlines() if line.strip()})

    def connected(self, i):
        """(local port, peer address) of each established TCP connection in host i."""
        out = subprocess.run(
            ["ip", "netns", "exec", self.names[i - 1], "ss", "-Htn", "state", "established"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        rows = [line.split() for line in out.splitlines() if line.strip()]
        return [(int(r[-2].rsplit(":", 1)[1]), r[-1]) for r in rows]

    def close(self):
        for p in self.processes:
            if p.poll() is None:
                p.kill()
        for p in self.processes:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                pass
        self.processes = []
        made = set(_namespaces())
        for ns in [*self.names, self.switch]:
            if ns in made:
                _kill_inside(ns)
                _ip("netns", "del", ns, check=False)


def environment(**extra):
    """The environment of the processes started on the hosts: this checkout's dgraph, dask's
    quiet settings from the root conftest, no stray proxies."""
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env["PYTHONPATH"] = os.pathsep.join([ROOT, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.update(extra)
    return env


def certificates(directory):
    """Certificate files for a TLS cluster, written into ``directory`` as a user would keep them:
    ``{"ca": path, "cert": path, "key": path}``, one self-signed certificate that the scheduler,
    the workers and the client all present (dask's ``Security.temporary``)."""
    from distributed.security import Security

    made = Security.temporary()
    files = {}
    for name, attribute in (("ca", "tls_ca_file"), ("cert", "tls_client_cert"), ("key", "tls_client_key")):
        files[name] = os.path.join(directory, f"{name}.pem")
        with open(files[name], "w") as out:
            out.write(getattr(made, attribute))
    return files


def tls_options(files):
    """The ``--tls-*`` options of ``dask scheduler``, ``dask worker`` and ``dgraph run``."""
    return ["--tls-ca-file", files["ca"], "--tls-cert", files["cert"], "--tls-key", files["key"]]


class NamespaceCluster:
    """A scheduler and the client process on host 1, ``workers[i]`` single-thread dask workers
    (no nanny) on host i + 2, their dask listeners on ``WORKER_PORTS`` and dgraph's channels on
    ``CHANNEL_PORTS``; ``remote`` runs calls in the client process. ``config``: environment
    variables of every process (dask config); ``tls``: ``certificates`` for a cluster whose comms
    (and so dgraph's channels) use TLS."""

    def __init__(self, workers, config=None, tls=None):
        self.hosts = Hosts(1 + len(workers))
        try:
            env = environment(**(config or {}))
            options = tls_options(tls) if tls else []
            self.scheduler = f"{'tls' if tls else 'tcp'}://{Hosts.address(1)}:{SCHEDULER_PORT}"
            quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
            self.hosts.popen(
                1, ["dask", "scheduler", "--host", Hosts.address(1), "--port", str(SCHEDULER_PORT), "--no-dashboard",
                    *options],
                env=env, **quiet,
            )  # fmt: skip
            self.worker_hosts = []
            for h, n in enumerate(workers, 2):
                for k in range(n):
                    argv = ["dask", "worker", self.scheduler, "--host", Hosts.address(h), "--no-nanny", *options]
                    argv += ["--nthreads", "1", "--worker-port", WORKER_PORTS, "--no-dashboard"]
                    argv += ["--dashboard-address", f"{Hosts.address(h)}:{HTTP_PORT + k}"]
                    self.hosts.popen(h, argv, env=dict(env, DASK_DGRAPH__CHANNEL_PORTS=CHANNEL_PORTS), **quiet)
                    self.worker_hosts.append(h)
            self.remote = Remote(self.hosts, 1, self.scheduler, len(self.worker_hosts), env, tls)
        except BaseException:
            self.hosts.close()
            raise

    def close(self):
        try:
            self.remote.close()
        finally:
            self.hosts.close()


_LENGTH = struct.Struct("<Q")


def _send(stream, value):
    data = cloudpickle.dumps(value)
    stream.write(_LENGTH.pack(len(data)) + data)
    stream.flush()


def _read_exactly(fd, n, deadline):
    out = bytearray()
    while len(out) < n:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise TimeoutError("the client process did not answer in time")
        chunk = os.read(fd, n - len(out))
        if not chunk:
            raise EOFError("the client process exited")
        out += chunk
    return bytes(out)


class Remote:
    """A client process on a host: ``call(fn, *args)`` runs ``fn(client, *args)`` there (``fn``
    a module-level function of a test module or of this one) and returns what it returned, or
    raises what it raised."""

    def __init__(self, hosts, host, scheduler, n_workers, env, tls=None):
        argv = [sys.executable, os.path.abspath(__file__), "serve", scheduler, str(n_workers)]
        argv += [tls["ca"], tls["cert"], tls["key"]] if tls else []
        self.process = hosts.popen(host, argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.workers = self._receive(120)[1]

    def call(self, fn, *args, timeout=120):
        self.send(fn, *args)
        return self.result(timeout)

    def send(self, fn, *args):
        """Start ``fn(client, *args)`` there; ``result`` waits for it."""
        _send(self.process.stdin, (fn, args))

    def result(self, timeout=120):
        ok, value = self._receive(timeout)
        if not ok:
            raise value
        return value

    def _receive(self, timeout):
        deadline = time.monotonic() + timeout
        fd = self.process.stdout.fileno()
        (n,) = _LENGTH.unpack(_read_exactly(fd, _LENGTH.size, deadline))
        return pickle.loads(_read_exactly(fd, n, deadline))

    def close(self):
        if self.process.poll() is None:
            try:
                self.process.stdin.close()
                self.process.wait(15)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()


def serve(scheduler, n_workers, tls=()):
    """The client process: connect, wait for the workers, then run the calls read from stdin.
    ``tls``: the CA, certificate and key files of a TLS cluster."""
    sys.path.insert(0, HERE)
    replies = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    sys.stdout = sys.stderr  # anything printed must not mix with the replies
    from distributed import Client
    from distributed.security import Security

    security = None
    if tls:
        ca, cert, key = tls
        security = Security(tls_ca_file=ca, tls_client_cert=cert, tls_client_key=key, require_encryption=True)
    with Client(scheduler, timeout=60, security=security) as client:
        client.wait_for_workers(n_workers, timeout=120)
        _send(replies, (True, sorted(client.scheduler_info(n_workers=-1)["workers"])))
        while True:
            head = sys.stdin.buffer.read(_LENGTH.size)
            if len(head) < _LENGTH.size:
                return
            fn, args = pickle.loads(sys.stdin.buffer.read(_LENGTH.unpack(head)[0]))
            try:
                reply = (True, fn(client, *args))
            except Exception as exc:  # travels back to the test, which raises it
                reply = (False, exc)
            _send(replies, reply)


if __name__ == "__main__" and sys.argv[1:2] == ["serve"]:
    serve(sys.argv[2], int(sys.argv[3]), tuple(sys.argv[4:7]))
