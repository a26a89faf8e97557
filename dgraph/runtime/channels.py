"""The data plane: persistent TCP channels between the workers of one run.

Every pair of workers in a run shares one socket for the run's lifetime. A collective is one
*round*: each worker sends exactly one frame to every peer and reads exactly one frame from
every peer. Frames carry raw numpy buffers behind a fixed binary header; nothing read from a
socket is ever unpickled, and only a whitelist of plain dtypes is accepted.

Frame layout (little endian)::

    header   : magic b"DGX2", superstep u64, entries u32, arrays u32, payload bytes u64
    entries  : entries x (src rank i32, dst rank i32, arrays in this entry i32)
    arrays   : arrays x (dtype code i64, element count i64)
    payload  : the small arrays' bytes (up to ``SMALL_ARRAY`` each), each padded to 8 bytes,
               then the larger arrays' bytes back to back

The small arrays travel as one block, sent and read in one piece and copied out: a worker of
many ranks sends thousands of small messages a round (Kronecker 15 on 64 ranks of 1.5D over 2
workers: 3,000 a round), and a read per array cost more than the bytes. The large ones are read
straight into their arrays.

One thread drives a worker's mesh; sends and receives are interleaved with a selector, so two
workers sending large frames to each other never deadlock on full socket buffers.

When the cluster uses TLS the channels do too (``tls``: the worker's client and server contexts
from its dask ``Security``); the run's secret authenticates a peer either way.
"""

from __future__ import annotations

import errno
import hmac
import math
import selectors
import socket
import ssl
import struct
import time

import numpy as np

MAGIC = b"DGX2"
HEADER = struct.Struct("<4sQIIQ")
HELLO = struct.Struct("<16s32si")  # run id, secret, sender's worker index
# a non-blocking TLS socket that must wait for the network, as a plain one raises BlockingIOError
WOULD_BLOCK = (BlockingIOError, ssl.SSLWantReadError, ssl.SSLWantWriteError)
HANDSHAKE_WITHIN = 2.0  # seconds an accepted connection has to present a run's id and secret
SMALL_ARRAY = 1 << 16  # bytes up to which an array travels in the frame's block of small ones
_PAD = bytes(8)
PEER_TIMEOUT = 5.0  # seconds a peer may leave what it is sent unacknowledged (dgraph.peer-timeout)
KNOCK_AFTER = 1.0  # seconds a peer may take to connect before its host is knocked on (far more than a connect takes)
# what a connection to a host that stopped answering fails with (the keepalive's verdict, no route)
SILENT = {errno.ETIMEDOUT, errno.EHOSTUNREACH, errno.ENETUNREACH}

DTYPES = [
    np.dtype(t)
    for t in ("bool", "uint8", "int32", "int64", "uint32", "uint64", "float32", "float64", "int8", "int16", "uint16")
] + [np.dtype("complex128")]  # two float64s per entry: a value pair that travels in one exchange
CODE_OF = {dt: i for i, dt in enumerate(DTYPES)}


class PeerLost(Exception):
    """A peer's socket closed or failed; carries the peer's worker index and whether the peer
    went silent (nothing acknowledged within the peer timeout: its host or the link to it is
    down) rather than closing or resetting the connection (its process ended or failed)."""

    def __init__(self, peer, detail, silent=False):
        super().__init__(detail)
        self.peer = peer
        self.silent = silent


def keep_alive(sock, seconds):
    """Let the kernel find a silent peer: keepalive probes every second once the connection is
    idle for one, and the connection fails (ETIMEDOUT) when what it sent, data or probe, stays
    unacknowledged for ``seconds``. A peer whose process is busy still acknowledges (its kernel
    does), so only a host or link that is down trips it. Linux; elsewhere the options it lacks
    are skipped."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    for name, value in (("TCP_KEEPIDLE", 1), ("TCP_KEEPINTVL", 1), ("TCP_KEEPCNT", max(1, math.ceil(seconds)))):
        if hasattr(socket, name):
            sock.setsockopt(socket.IPPROTO_TCP, getattr(socket, name), value)
    if hasattr(socket, "TCP_USER_TIMEOUT"):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT, max(1, int(seconds * 1000)))


def silent_peers(addresses, peers, seconds):
    """Of ``peers`` (indices into ``addresses``, each a run listener's ``(host, port)``), those
    whose host neither completes nor refuses a TCP connect within ``seconds``: a host that is up
    answers one from its kernel, whether or not its driver has started. Knocks side by side."""
    knocks, silent = {}, []
    sel = selectors.DefaultSelector()
    try:
        for peer in peers:
            host, port = addresses[peer]
            s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
            s.setblocking(False)
            code = s.connect_ex((host, port))
            if code == errno.EINPROGRESS:
                knocks[s] = peer
                sel.register(s, selectors.EVENT_WRITE)
                continue
            s.close()
            if code in SILENT:
                silent.append(peer)
        deadline = time.monotonic() + seconds
        while knocks and time.monotonic() < deadline:
            for key, _ in sel.select(max(deadline - time.monotonic(), 0.0)):
                s = key.fileobj
                sel.unregister(s)
                if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) in SILENT:
                    silent.append(knocks[s])
                del knocks[s]
                s.close()
        silent.extend(knocks.values())  # no answer at all
    finally:
        for s in knocks:
            s.close()
        sel.close()
    return sorted(silent)


def _lost(peer, what, exc):
    """``PeerLost`` for an ``OSError`` on the channel to ``peer``."""
    silent = isinstance(exc, TimeoutError) or getattr(exc, "errno", None) in SILENT
    return PeerLost(peer, f"{what}: {exc}", silent=silent)


class RunAborted(Exception):
    """The run was failed from the control plane (another rank failed, the client gave up)."""


def _padded(nbytes):
    return nbytes + (-nbytes % 8)


def encode(superstep, entries):
    """Buffers of one frame. ``entries`` is a list of (src rank, dst rank, [arrays])."""
    meta = np.empty((len(entries), 3), dtype="<i4")
    descs, small, large = [], [], []
    for i, (src, dst, arrays) in enumerate(entries):
        meta[i] = (src, dst, len(arrays))
        for a in arrays:
            a = np.ascontiguousarray(a)
            if a.ndim != 1 or a.dtype not in CODE_OF:
                raise TypeError(f"channel payloads must be 1-D arrays of {DTYPES}, got {a.dtype} {a.shape}")
            descs.append((CODE_OF[a.dtype], a.size))
            if a.nbytes > SMALL_ARRAY:
                large.append(memoryview(a).cast("B"))
            elif a.nbytes:
                small += [memoryview(a).cast("B"), _PAD[: -a.nbytes % 8]]
    block = b"".join(small)
    payload = ([block] if block else []) + large
    desc = np.asarray(descs, dtype="<i8").reshape(-1, 2)
    nbytes = len(block) + sum(p.nbytes for p in large)
    head = HEADER.pack(MAGIC, superstep, len(entries), len(descs), nbytes)
    return [head, meta.tobytes(), desc.tobytes(), *payload], HEADER.size + meta.nbytes + desc.nbytes + nbytes


class _FrameReader:
    """Reads exactly one frame from a non-blocking socket, in pieces as bytes arrive."""

    def __init__(self, superstep):
        self.superstep = superstep
        self.stage = 0
        self.buf = bytearray(HEADER.size)
        self.view = memoryview(self.buf)
        self.pos = 0
        self.arrays = []
        self.entries = None
        self.done = False

    def _advance(self):
        if self.stage == 0:
            magic, step, self.n_entries, self.n_arrays, self.nbytes = HEADER.unpack(self.buf)
            if magic != MAGIC:
                raise ValueError("bad frame magic")
            if step != self.superstep:
                raise ValueError(f"frame of superstep {step} while in superstep {self.superstep}")
            self.stage = 1
            self._target(12 * self.n_entries + 16 * self.n_arrays)
        elif self.stage == 1:
            raw = bytes(self.buf)
            self.meta = np.frombuffer(raw[: 12 * self.n_entries], dtype="<i4").reshape(-1, 3)
            self.desc = np.frombuffer(raw[12 * self.n_entries :], dtype="<i8").reshape(-1, 2)
            if int(self.meta[:, 2].sum()) != self.n_arrays:
                raise ValueError("frame directory does not match its array count")
            self.arrays = []
            for code, count in self.desc:
                if not 0 <= code < len(DTYPES) or count < 0:
                    raise ValueError("bad array descriptor")
                self.arrays.append(np.empty(int(count), dtype=DTYPES[code]))
            self.small = [a for a in self.arrays if 0 < a.nbytes <= SMALL_ARRAY]
            self.large = [a for a in self.arrays if a.nbytes > SMALL_ARRAY]
            block = sum(_padded(a.nbytes) for a in self.small)
            if block + sum(a.nbytes for a in self.large) != self.nbytes:
                raise ValueError("frame payload size does not match its arrays")
            self.stage, self.array_i = 2, -1
            self._target(block)
        elif self.stage == 2:
            at = 0
            for a in self.small:  # the block of small arrays, copied out
                memoryview(a).cast("B")[:] = self.view[at : at + a.nbytes]
                at += _padded(a.nbytes)
            self.stage = 3
            self._next_array()
        else:
            self._next_array()

    def _target(self, size):
        self.buf = bytearray(size)
        self.view = memoryview(self.buf)
        self.pos = 0
        if size == 0:
            self._advance()

    def _next_array(self):
        self.array_i += 1
        if self.array_i == len(self.large):
            self._finish()
            return
        self.view = memoryview(self.large[self.array_i]).cast("B")
        self.pos = 0

    def _finish(self):
        self.done = True
        entries, k = [], 0
        for src, dst, count in self.meta.tolist():
            entries.append((src, dst, self.arrays[k : k + count]))
            k += count
        self.entries = entries

    def feed(self, sock):
        """Read what is available; return False on EOF."""
        while not self.done:
            try:
                got = sock.recv_into(self.view[self.pos :])
            except WOULD_BLOCK:
                return True
            if got == 0:
                return False
            self.pos += got
            if self.pos == len(self.view):
                self._advance()
        return True


class PeerMesh:
    """One worker's sockets to every other worker of a run, and the round primitive."""

    def __init__(self, index, sockets, wake, timeout):
        self.index = index
        self.sockets = sockets  # peer index -> connected socket
        self.wake = wake  # readable when the run is aborted from the control plane
        self.timeout = timeout
        self.selector = selectors.DefaultSelector()
        self.selector.register(wake, selectors.EVENT_READ, None)
        for peer, s in sockets.items():
            s.setblocking(False)
            self.selector.register(s, selectors.EVENT_READ, peer)

    def round(self, superstep, outgoing):
        """Send one frame to every peer and receive one from every peer.

        ``outgoing[peer]`` is the list of buffers of an encoded frame. Returns
        ``{peer: [(src rank, dst rank, [arrays]), ...]}``.
        """
        pending = {
            p: [memoryview(b).cast("B") if not isinstance(b, memoryview) else b for b in outgoing[p]]
            for p in self.sockets
        }
        readers = {p: _FrameReader(superstep) for p in self.sockets}
        waiting = set(self.sockets)
        for peer, s in self.sockets.items():
            self.selector.modify(s, selectors.EVENT_READ | selectors.EVENT_WRITE, peer)
        deadline = time.monotonic() + self.timeout
        try:
            while waiting or pending:
                left = deadline - time.monotonic()
                if left <= 0:
                    late = sorted(waiting) or sorted(pending)
                    raise PeerLost(late[0], f"no frame within {self.timeout:.0f}s (dgraph.timeout)")
                for key, mask in self.selector.select(left):
                    peer = key.data
                    if peer is None:
                        raise RunAborted()
                    sock = key.fileobj
                    if mask & selectors.EVENT_WRITE and peer in pending:
                        self._send_some(peer, sock, pending)
                    if mask & selectors.EVENT_READ and peer in waiting:
                        try:
                            alive = readers[peer].feed(sock)
                        except ValueError as exc:
                            raise PeerLost(peer, f"protocol error: {exc}") from exc
                        except OSError as exc:
                            raise _lost(peer, "connection failed", exc) from exc
                        if not alive:
                            raise PeerLost(peer, "connection closed")
                        if readers[peer].done:
                            waiting.discard(peer)
        finally:
            for peer, s in self.sockets.items():
                try:
                    self.selector.modify(s, selectors.EVENT_READ, peer)
                except (ValueError, KeyError, OSError):
                    pass
        return {p: r.entries for p, r in readers.items()}

    def _send_some(self, peer, sock, pending):
        bufs = pending[peer]
        try:
            while bufs:
                sent = sock.send(bufs[0])
                if sent < len(bufs[0]):
                    bufs[0] = bufs[0][sent:]
                    return
                bufs.pop(0)
        except WOULD_BLOCK:
            return
        except OSError as exc:
            raise _lost(peer, "send failed", exc) from exc
        sock_done = not bufs
        if sock_done:
            del pending[peer]
            self.selector.modify(sock, selectors.EVENT_READ, peer)

    def close(self):
        for s in self.sockets.values():
            try:
                s.close()
            except OSError:
                pass
        self.sockets = {}
        self.selector.close()


def connect_mesh(index, addresses, listener, run_id, secret, wake, *, timeout, peer_timeout=None, tls=None):
    """Open this worker's channels: connect to higher-indexed peers, accept lower-indexed ones.

    TCP connects complete against the peer's listen backlog, so connecting first and then
    accepting cannot deadlock whatever order the drivers start in. A peer must present the
    run's id and secret within ``HANDSHAKE_WITHIN`` seconds of connecting; anything else is
    dropped. Handshakes are read side by side as their bytes arrive, so connections that send
    nothing or garbage (a port scan, a stale peer, a hostile process) cost the run nothing.
    ``tls``: (client context, server context) when the channels use TLS; the TLS handshake of an
    accepted connection is read side by side as well. Every channel fails once its peer leaves
    what it sent unacknowledged for ``peer_timeout`` seconds (``keep_alive``), and so does a
    connect that long unanswered (a listening peer's kernel answers at once, however busy). A
    peer that has not connected after ``KNOCK_AFTER`` seconds is knocked on (``silent_peers``),
    and again every ``peer_timeout`` seconds: its driver may start late, but its host must
    answer.
    """
    sockets = {}
    deadline = time.monotonic() + timeout
    peer_timeout = PEER_TIMEOUT if peer_timeout is None else peer_timeout
    hello = HELLO.pack(run_id, secret, index)
    for peer in range(index + 1, len(addresses)):
        host, port = addresses[peer]
        left = max(min(deadline - time.monotonic(), peer_timeout), 0.1)
        try:
            s = socket.create_connection((host, port), timeout=left)
        except OSError as exc:
            for opened in sockets.values():
                opened.close()
            raise _lost(peer, f"could not connect to {host}:{port}", exc) from exc
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        keep_alive(s, peer_timeout)
        if tls is not None:  # peers are authenticated by the run's secret, not by host name
            s = tls[0].wrap_socket(s, server_hostname=None)
        s.sendall(hello)
        sockets[peer] = s
    expected = set(range(index))
    handshakes = {}  # accepted socket -> (bytes so far, when it must be complete)
    sel = selectors.DefaultSelector()
    listener.setblocking(False)
    sel.register(listener, selectors.EVENT_READ, "listen")
    sel.register(wake, selectors.EVENT_READ, "wake")

    def drop(conn):
        sel.unregister(conn)
        handshakes.pop(conn, None)
        conn.close()

    knock_at = time.monotonic() + min(KNOCK_AFTER, peer_timeout)
    try:
        while expected:
            now = time.monotonic()
            if now >= deadline:
                raise PeerLost(min(expected), f"peer driver did not connect within {timeout:.0f}s")
            if now >= knock_at:  # a peer slow to connect: is its host still there?
                silent = silent_peers(addresses, sorted(expected), peer_timeout)
                if silent:
                    detail = f"its host answered no connect within {peer_timeout:g}s"
                    raise PeerLost(silent[0], detail, silent=True)
                now = time.monotonic()
                knock_at = now + peer_timeout
            for conn in [c for c, (_, due) in handshakes.items() if due <= now]:
                drop(conn)  # too slow to say who it is
            wait = min([deadline - now, knock_at - now] + [due - now for _, due in handshakes.values()])
            for key, _ in sel.select(max(wait, 0.0)):
                if key.data == "wake":
                    raise RunAborted()
                if key.data == "listen":
                    try:
                        conn, _ = listener.accept()
                    except (BlockingIOError, InterruptedError, ConnectionAbortedError):
                        continue
                    conn.setblocking(False)
                    keep_alive(conn, peer_timeout)
                    if tls is not None:
                        conn = tls[1].wrap_socket(conn, server_side=True, do_handshake_on_connect=False)
                    handshakes[conn] = (bytearray(), now + HANDSHAKE_WITHIN)
                    sel.register(conn, selectors.EVENT_READ, "hello")
                    continue
                conn = key.fileobj
                got, due = handshakes[conn]
                try:
                    if tls is not None and not got:
                        conn.do_handshake()  # a no-op once done
                    chunk = conn.recv(HELLO.size - len(got))
                except WOULD_BLOCK:
                    continue
                except OSError:  # ssl.SSLError too: not a TLS peer of this cluster
                    chunk = b""
                if not chunk:
                    drop(conn)
                    continue
                got += chunk
                if len(got) < HELLO.size:
                    continue
                sel.unregister(conn)
                del handshakes[conn]
                rid, key_, peer = HELLO.unpack(bytes(got))
                if rid != run_id or not hmac.compare_digest(key_, secret) or peer not in expected:
                    conn.close()  # another run's, a stale or a foreign connection
                    continue
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                sockets[peer] = conn
                expected.discard(peer)
    except BaseException:
        for s in sockets.values():
            s.close()
        raise
    finally:
        for conn in list(handshakes):
            conn.close()
        sel.close()
    return PeerMesh(index, sockets, wake, timeout)
