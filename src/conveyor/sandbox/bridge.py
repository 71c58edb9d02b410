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
with its code. A bad argument is named on stderr, exit 2; a port that cannot be listened
on, exit 1.

Every session starts one, so it starts as `python -I -S` (no site packages; see
`agents/mcp_relay.py` for the same reason) from its cached bytecode (`proxy.bridge_argv`),
and it imports only modules built into the interpreter: `_socket`, `_thread`, `_signal` and
`posix` instead of `socket`, `threading`, `signal` and `os`, whose Python layers (enum,
selectors, the thread registry) were half of its start-up. Its threads are therefore
invisible to `threading`; the proxy runs `join_sockets` in a job, which never forks.
"""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]  # typeshed has no stub for it (`signal`'s core)
import _socket
import _thread
import posix
import sys

CHUNK = 65536
USAGE = "usage: bridge --socket PATH [--forward HOST:PORT]... -- COMMAND..."
NO_PROXY = "localhost,127.0.0.1,::1"
PROXY_VARS = ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy")
LOCAL_NAMES = ("localhost", "::1")
FORWARDED: tuple[int, ...] = (_signal.SIGTERM, _signal.SIGINT, _signal.SIGHUP)


def _pump(source: _socket.socket, sink: _socket.socket) -> None:
    try:
        while True:
            data = source.recv(CHUNK)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        for sock in (source, sink):
            _shutdown(sock, _socket.SHUT_RDWR)
        return
    _shutdown(sink, _socket.SHUT_WR)


def _shutdown(sock: _socket.socket, how: int) -> None:
    try:
        sock.shutdown(how)
    except OSError:
        pass


def join_sockets(one: _socket.socket, other: _socket.socket) -> None:
    """Copy bytes both ways until both directions have ended (half-closes passed on)."""
    ended = _thread.allocate_lock()
    ended.acquire()

    def back() -> None:
        try:
            _pump(other, one)
        finally:
            ended.release()

    _thread.start_new_thread(back, ())
    _pump(one, other)
    ended.acquire()


def _open_tunnel(socket_path: str) -> _socket.socket:
    tunnel = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        tunnel.connect(socket_path)
    except OSError:
        tunnel.close()
        raise
    return tunnel


def _read_answer(tunnel: _socket.socket) -> tuple[bytes, bytes]:
    data = b""
    while b"\r\n\r\n" not in data and len(data) < CHUNK:
        chunk = tunnel.recv(4096)
        if not chunk:
            break
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    return head, rest


def _serve(client: _socket.socket, socket_path: str, target: str | None) -> None:
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


def _accept(listener: _socket.socket, socket_path: str, target: str | None) -> None:
    while True:
        try:
            fd, _ = listener._accept()  # type: ignore[attr-defined]  # the C accept: a descriptor
        except OSError:
            return
        client = _socket.socket(fileno=fd)
        _thread.start_new_thread(_serve, (client, socket_path, target))


def _listen(family: int, host: str, port: int) -> _socket.socket:
    listener = _socket.socket(family, _socket.SOCK_STREAM)
    try:
        listener.setsockopt(_socket.SOL_SOCKET, _socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
        listener.listen(64)
    except OSError:
        listener.close()
        raise
    return listener


def _start(listener: _socket.socket, socket_path: str, target: str | None) -> None:
    _thread.start_new_thread(_accept, (listener, socket_path, target))


def parse(argv: list[str]) -> tuple[str, list[tuple[str, int]], list[str]]:
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


def start_listeners(socket_path: str, forwards: list[tuple[str, int]]) -> int:
    """Listen on the proxy port and every forwarded port; the proxy port's number."""
    proxy = _listen(_socket.AF_INET, "127.0.0.1", 0)
    _start(proxy, socket_path, None)
    for host, port in forwards:
        target = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        _start(_listen(_socket.AF_INET, "127.0.0.1", port), socket_path, target)
        if host in LOCAL_NAMES and _socket.has_ipv6:
            try:
                _start(_listen(_socket.AF_INET6, "::1", port), socket_path, target)
            except OSError:
                pass  # a box without an IPv6 loopback: 127.0.0.1 alone answers
    proxy_port: int = proxy.getsockname()[1]
    return proxy_port


def child_environ(proxy_port: int) -> dict[bytes, bytes]:
    """This process's environment with the proxy variables pointing at `proxy_port`."""
    env = dict(posix.environ)
    url = f"http://127.0.0.1:{proxy_port}".encode()
    env.update(dict.fromkeys((name.encode() for name in PROXY_VARS), url))
    env[b"NO_PROXY"] = env[b"no_proxy"] = NO_PROXY.encode()
    return env


def run(command: list[str], proxy_port: int, mask: set[int]) -> int:
    """Run the command with the proxy variables set; its exit code (128+N for signal N).

    Called with the forwarded signals blocked (`mask` is the mask from before): the command
    starts with `mask`, and a signal that came while it started is forwarded once the handler
    is in place, so none is lost between the start and the handler.
    """
    try:
        child = posix.posix_spawnp(command[0], command, child_environ(proxy_port), setsigmask=mask)
    except OSError as exc:
        sys.stderr.write(f"bridge: cannot start {command[0]}: {exc}\n")
        return 127

    def forward(signum: int, _frame: object) -> None:
        try:
            posix.kill(child, signum)
        except OSError:
            pass

    for sig in FORWARDED:
        _signal.signal(sig, forward)
    _signal.pthread_sigmask(_signal.SIG_SETMASK, mask)
    while True:
        try:
            _, status = posix.waitpid(child, 0)
        except InterruptedError:
            continue
        code = posix.waitstatus_to_exitcode(status)
        return 128 - code if code < 0 else code


def main(argv: list[str] | None = None) -> int:
    """Parse, listen, run the command; its exit code."""
    try:
        socket_path, forwards, command = parse(sys.argv[1:] if argv is None else argv)
    except ValueError as exc:
        sys.stderr.write(f"{USAGE}\nbridge: {exc}\n")
        return 2
    # The listeners' threads start with the forwarded signals blocked and keep them so: the
    # kernel then delivers a signal to this thread, whose wait it interrupts. A signal taken
    # by a listener thread would leave the handler waiting until the command ended.
    mask = _signal.pthread_sigmask(_signal.SIG_BLOCK, FORWARDED)
    try:
        port = start_listeners(socket_path, forwards)
    except OSError as exc:
        sys.stderr.write(f"bridge: cannot listen inside the box: {exc}\n")
        return 1
    return run(command, port, mask)


if __name__ == "__main__":
    sys.exit(main())
