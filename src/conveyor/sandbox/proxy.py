"""The allowlisting proxy a box's network goes through, run by Conveyor outside the box.

It listens on a Unix socket that is bound into the box (the box's own network namespace
has only its loopback; `sandbox/bridge.py` joins that loopback to this socket). Each
connection opens with one HTTP request: `CONNECT host:port` (https, and the bridge's
forwarded loopback ports) or an absolute-form `GET http://host:port/...` (plain http).
A target outside the allowlist gets `403` and a `blocked` line in the session's
`network.log`; an allowed one is connected and the two sockets are joined until either
side closes. Whatever the client sends later on that connection goes to the same
allowed host, so a second request cannot reach another one.
"""

from __future__ import annotations

import contextlib
import socket
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from conveyor.sandbox.allowlist import Allowlist
from conveyor.sandbox.bridge import join_sockets
from conveyor.sandbox.listener import UnixListener

SOCKET_NAME = "net.sock"
MAX_HEAD = 65536
CONNECT_S = 10.0
LOG_NAME = "network.log"
Blocked = Callable[[str, int], None]
"""Told of each blocked connection (host, port): the job's event log."""


@dataclass(frozen=True)
class Target:
    """Where one request asks to go, and the head to send there (None: a tunnel)."""

    host: str
    port: int
    method: str
    head: bytes | None


class BadRequest(ValueError):
    """A request head the proxy cannot read; answered 400."""


def parse_head(head: bytes) -> Target:
    """The target of a request head (`CONNECT h:p` or an absolute-form URL)."""
    line, _, rest = head.partition(b"\r\n")
    parts = line.decode("latin-1").split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/"):
        raise BadRequest(line[:200].decode("latin-1"))
    method, target, version = parts
    if method.upper() == "CONNECT":
        host, sep, port = target.rpartition(":")
        if not sep or not port.isdigit() or not host:
            raise BadRequest(target)
        return Target(host.strip("[]"), int(port), "CONNECT", None)
    url = urlsplit(target)
    if url.scheme != "http" or not url.hostname:
        raise BadRequest(target)
    path = url.path or "/"
    if url.query:
        path = f"{path}?{url.query}"
    first = f"{method} {path} {version}".encode("latin-1")
    return Target(url.hostname, url.port or 80, method, first + b"\r\n" + rest)


def read_head(conn: socket.socket) -> tuple[bytes, bytes]:
    """The request head (through its blank line) and whatever followed it."""
    data = b""
    while b"\r\n\r\n" not in data:
        if len(data) > MAX_HEAD:
            raise BadRequest("request head too long")
        chunk = conn.recv(8192)
        if not chunk:
            raise BadRequest("connection closed before the request head ended")
        data += chunk
    end = data.index(b"\r\n\r\n") + 4
    return data[:end], data[end:]


def _answer(conn: socket.socket, status: str, text: str) -> None:
    body = text.encode()
    head = f"HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {len(body)}\r\n"
    with contextlib.suppress(OSError):
        conn.sendall(head.encode() + b"Connection: close\r\n\r\n" + body)


class NetworkProxy(UnixListener):
    """The proxy of one box: its socket in a private folder, one thread per connection."""

    def __init__(
        self, allowlist: Allowlist, log_path: Path | None = None, on_blocked: Blocked | None = None
    ) -> None:
        self.allowlist = allowlist
        self._log_path = log_path
        self._on_blocked = on_blocked
        super().__init__("cv-net-", SOCKET_NAME, backlog=64, name="net-proxy", mode=None)

    def serve(self, conn: socket.socket) -> None:
        upstream = self._open(conn)
        if upstream is None:
            return
        self.track(upstream)
        try:
            join_sockets(conn, upstream)
        finally:
            self.untrack(upstream)
            upstream.close()

    def _open(self, conn: socket.socket) -> socket.socket | None:
        """Read the request, check its target, connect it; None when it was refused."""
        try:
            head, extra = read_head(conn)
            target = parse_head(head)
        except BadRequest as exc:
            _answer(conn, "400 Bad Request", f"conveyor sandbox proxy: bad request: {exc}\n")
            return None
        except OSError:
            return None
        if not self.allowlist.allows(target.host, target.port):
            self._blocked(target)
            text = f"conveyor sandbox: {target.host}:{target.port} is not on the allowlist\n"
            _answer(conn, "403 Forbidden", text)
            return None
        try:
            upstream = socket.create_connection((target.host, target.port), timeout=CONNECT_S)
        except OSError as exc:
            _answer(conn, "502 Bad Gateway", f"conveyor sandbox proxy: {exc}\n")
            return None
        upstream.settimeout(None)
        self._log("allowed", target)
        try:
            if target.head is None:
                conn.sendall(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            else:
                upstream.sendall(target.head)
            if extra:
                upstream.sendall(extra)
        except OSError:
            upstream.close()
            return None
        return upstream

    def _blocked(self, target: Target) -> None:
        self._log("blocked", target)
        if self._on_blocked is not None:
            with contextlib.suppress(Exception):
                self._on_blocked(target.host, target.port)

    def _log(self, verdict: str, target: Target) -> None:
        if self._log_path is None:
            return
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        line = f"{stamp} {verdict} {target.host}:{target.port} ({target.method})\n"
        with self._lock, contextlib.suppress(OSError), self._log_path.open("a") as out:
            out.write(line)

    def __enter__(self) -> NetworkProxy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def bridge_argv(proxy: NetworkProxy, argv: list[str]) -> list[str]:
    """`argv` behind the in-box bridge (`sandbox/bridge.py`, run by this interpreter without
    site packages): the proxy port, and each loopback endpoint forwarded at its own port.

    The bridge is imported from its folder rather than run as a script, so its cached
    bytecode is used (a script is compiled at every start; this is once per session)."""
    out = [sys.executable, "-I", "-S", "-c", bridge_code(), "--socket", str(proxy.socket_path)]
    for host, port in sorted(proxy.allowlist.endpoints):
        out += ["--forward", f"{host}:{port}"]
    return [*out, "--", *argv]


def bridge_file() -> str:
    """The bridge's own file."""
    return str(Path(__file__).with_name("bridge.py"))


def bridge_code() -> str:
    """The `-c` program that runs the bridge (`bridge.main`) from its own folder."""
    folder = str(Path(bridge_file()).parent)
    return f"import sys; sys.path[:0] = [{folder!r}]; import bridge; sys.exit(bridge.main())"
