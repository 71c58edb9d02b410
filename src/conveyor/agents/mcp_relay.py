"""`conveyor mcp-relay`: joins the CLI's stdio to the job's MCP endpoint; standard library only.

`conveyor mcp-relay --socket PATH --session-dir D` pumps stdin to the socket and the socket to
stdout until the endpoint closes the connection; stdin's end is passed on as a half-close, so
answers still in flight arrive. A socket that cannot be reached is one line on stderr, exit 1.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import sys
import threading
from collections.abc import Mapping
from pathlib import Path

ENV_RECORD = "mcp-env.json"  # the same record `conveyor mcp` writes
CHUNK = 65536


def record_env(session_dir: Path, env: Mapping[str, str]) -> None:
    """Write the names (never the values) of the variables this relay received."""
    with contextlib.suppress(OSError):
        (session_dir / ENV_RECORD).write_text(json.dumps(sorted(env)) + "\n")


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _pump_stdin(sock: socket.socket, stdin_fd: int) -> None:
    """Stdin to the socket; at stdin's end, shut the socket's write side only."""
    with contextlib.suppress(OSError):
        while data := os.read(stdin_fd, CHUNK):
            sock.sendall(data)
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_WR)


def relay(sock: socket.socket, stdin_fd: int = 0, stdout_fd: int = 1) -> None:
    """Pump both ways until the endpoint closes the connection (or stdout goes away)."""
    threading.Thread(target=_pump_stdin, args=(sock, stdin_fd), daemon=True).start()
    with contextlib.suppress(OSError):
        while data := sock.recv(CHUNK):
            _write_all(stdout_fd, data)


def main(argv: list[str]) -> None:
    """Connect, relay, and leave without the interpreter's teardown (the pump may be blocked)."""
    parser = argparse.ArgumentParser(prog="conveyor mcp-relay")
    parser.add_argument("--socket", required=True)
    parser.add_argument("--session-dir", default=os.environ.get("CONVEYOR_SESSION_DIR"))
    args = parser.parse_args(argv)
    if args.session_dir:
        record_env(Path(args.session_dir), os.environ)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(args.socket)
    except OSError as exc:
        sys.stderr.write(
            f"conveyor mcp-relay: cannot reach the MCP endpoint {args.socket}: {exc}\n"
        )
        sys.stderr.flush()
        os._exit(1)
    relay(sock)
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1:])
