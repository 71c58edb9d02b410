"""Inside a box: the box's loopback joined to the proxy's Unix socket, then the real command.

`python -m conveyor.sandbox.bridge --socket PATH [--forward HOST:PORT]... -- COMMAND...`

A box has its own network namespace: only its own loopback, no route out. The bridge
listens there and tunnels each connection over the Unix socket to the proxy outside
(`sandbox/proxy.py`), which decides where it may go:

- a proxy port on 127.0.0.1 (a free one) that the command finds in `HTTPS_PROXY` and
  `HTTP_PROXY`: its bytes go to the proxy as they are (`CONNECT host:443`, `GET http://...`);
- each `--forward HOST:PORT` (a loopback endpoint the job names, like the fake model's
  `http://127.0.0.1:PORT`) is listened on at the same port inside, and each connection is
  opened with `CONNECT HOST:PORT`: clients never send loopback traffic through a proxy
  (`NO_PROXY`), so the port itself must answer inside the box.

Then it runs COMMAND as its child, passes SIGTERM, SIGINT and SIGHUP on to it, and exits
with its code. Every session starts one, so this file needs only the standard library and
runs as `python -I -S bridge.py` (see `agents/mcp_relay.py` for the same reason); it
imports neither subprocess nor contextlib (`posix_spawn` starts the child).
A bad argument is named on stderr, exit 2; a port that cannot be listened on, exit 1.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import threading
from collections.abc import Sequence

CHUNK = 65536
USAGE = "usage: bridge --socket PATH [--forward HOST:PORT]... -- COMMAND..."
NO_PROXY = "localhost,127.0.0.1,::1"
PROXY_VARS = ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy")
LOCAL_NAMES = ("localhost", "::1")


def _pump(source: socket.socket, sink: socket.socket) -> None:
    try:
        while True:
            data = source.recv(CHUNK)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        for sock in (source, sink):
            _shutdown(sock, socket.SHUT_RDWR)
        return
    _shutdown(sink, socket.SHUT_WR)


def _shutdown(sock: socket.socket, how: int) -> None:
    try:
        sock.shutdown(how)
    except OSError:
        pass


def join_sockets(one: socket.socket, other: socket.socket) -> None:
    """Copy bytes both ways until both directions have ended (half-closes passed on)."""
    back = threading.Thread(target=_pump, args=(other, one), daemon=True)
    back.start()
    _pump(one, other)
    back.join()


def _open_tunnel(socket_path: str) -> socket.socket:
    tunnel = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    tunnel.connect(socket_path)
    return tunnel


def _read_answer(tunnel: socket.socket) -> tuple[bytes, bytes]:
    data = b""
    while b"\r\n\r\n" not in data and len(data) < CHUNK:
        chunk = tunnel.recv(4096)
        if not chunk:
            break
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    return head, rest


def _serve(client: socket.socket, socket_path: str, target: str | None) -> None:
    """One in-box connection: raw to the proxy, or opened as a CONNECT to `target`."""
    try:
        tunnel = _open_tunnel(socket_path)
    except OSError:
        client.close()
        return
    try:
        if target is not None:
            tunnel.sendall(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
            head, rest = _read_answer(tunnel)
            if not head.startswith(b"HTTP/1.1 200"):
                return
            if rest:
                client.sendall(rest)
        join_sockets(client, tunnel)
    except OSError:
        return
    finally:
        client.close()
        tunnel.close()


def _accept(listener: socket.socket, socket_path: str, target: str | None) -> None:
    while True:
        try:
            client, _ = listener.accept()
        except OSError:
            return
        args = (client, socket_path, target)
        threading.Thread(target=_serve, args=args, daemon=True).start()


def _listen(family: socket.AddressFamily, host: str, port: int) -> socket.socket:
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((host, port))
    listener.listen(64)
    return listener


def _start(listener: socket.socket, socket_path: str, target: str | None) -> None:
    args = (listener, socket_path, target)
    threading.Thread(target=_accept, args=args, daemon=True).start()


def parse(argv: Sequence[str]) -> tuple[str, list[tuple[str, int]], list[str]]:
    """The socket path, the forwarded endpoints and the command; ValueError names a fault."""
    if "--" not in argv:
        raise ValueError("no command after `--`")
    split = list(argv).index("--")
    options, command = list(argv[:split]), list(argv[split + 1 :])
    socket_path = ""
    forwards: list[tuple[str, int]] = []
    while options:
        name = options.pop(0)
        if not options:
            raise ValueError(f"{name} needs a value")
        value = options.pop(0)
        if name == "--socket":
            socket_path = value
        elif name == "--forward":
            host, _, port = value.rpartition(":")
            if not host or not port.isdigit():
                raise ValueError(f"--forward expects HOST:PORT, got {value!r}")
            forwards.append((host.strip("[]"), int(port)))
        else:
            raise ValueError(f"unknown option {name}")
    if not socket_path:
        raise ValueError("--socket is required")
    if not command:
        raise ValueError("no command after `--`")
    return socket_path, forwards, command


def start_listeners(socket_path: str, forwards: Sequence[tuple[str, int]]) -> int:
    """Listen on the proxy port and every forwarded port; the proxy port's number."""
    proxy = _listen(socket.AF_INET, "127.0.0.1", 0)
    _start(proxy, socket_path, None)
    for host, port in forwards:
        target = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        _start(_listen(socket.AF_INET, "127.0.0.1", port), socket_path, target)
        if host in LOCAL_NAMES and socket.has_ipv6:
            try:
                _start(_listen(socket.AF_INET6, "::1", port), socket_path, target)
            except OSError:
                pass  # a box without an IPv6 loopback: 127.0.0.1 alone answers
    proxy_port: int = proxy.getsockname()[1]
    return proxy_port


def run(command: list[str], proxy_port: int) -> int:
    """Run the command with the proxy variables set; its exit code (128+N for signal N)."""
    env = dict(os.environ)
    url = f"http://127.0.0.1:{proxy_port}"
    env.update(dict.fromkeys(PROXY_VARS, url))
    env["NO_PROXY"] = env["no_proxy"] = NO_PROXY
    try:
        child = os.posix_spawnp(command[0], command, env)
    except OSError as exc:
        sys.stderr.write(f"bridge: cannot start {command[0]}: {exc}\n")
        return 127

    def forward(signum: int, _frame: object) -> None:
        try:
            os.kill(child, signum)
        except OSError:
            pass

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, forward)
    while True:
        try:
            _, status = os.waitpid(child, 0)
        except InterruptedError:
            continue
        code = os.waitstatus_to_exitcode(status)
        return 128 - code if code < 0 else code


def main(argv: Sequence[str] | None = None) -> int:
    """Parse, listen, run the command; its exit code."""
    try:
        socket_path, forwards, command = parse(sys.argv[1:] if argv is None else argv)
    except ValueError as exc:
        sys.stderr.write(f"{USAGE}\nbridge: {exc}\n")
        return 2
    try:
        port = start_listeners(socket_path, forwards)
    except OSError as exc:
        sys.stderr.write(f"bridge: cannot listen inside the box: {exc}\n")
        return 1
    return run(command, port)


if __name__ == "__main__":
    sys.exit(main())
