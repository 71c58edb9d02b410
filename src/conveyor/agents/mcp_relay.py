"""`conveyor mcp-relay`: joins the CLI's stdio to the job's MCP endpoint; standard library only.

`conveyor mcp-relay --socket PATH --session-dir D` pumps stdin to the socket and the socket to
stdout until the endpoint closes the connection; stdin's end is passed on as a half-close, so
answers still in flight arrive. A socket that cannot be reached is one line on stderr, exit 1;
a bad argument is named on stderr's last line, exit 2.

Every session starts one, so it imports little: no argparse, pathlib, contextlib or json (each
pulls in more modules), and sessions run this file directly (`python -I -S mcp_relay.py`, see
`agents/runner.py::relay_argv`): no site packages, no package imports; about 25 ms of CPU a
session, where the `conveyor` script took 55.
"""

from __future__ import annotations

import os
import socket
import sys
import threading
from collections.abc import Mapping

ENV_RECORD = "mcp-env.json"  # the same record `conveyor mcp` writes
CHUNK = 65536
USAGE = "usage: conveyor mcp-relay --socket PATH [--session-dir DIR]"
OPTIONS = ("--socket", "--session-dir")
SHORT_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\b": "\\b",
    "\f": "\\f",
}


def json_names(names: list[str]) -> str:
    """A JSON array of strings, as `json.dumps` writes it (without importing json)."""
    return "[" + ", ".join(_json_string(name) for name in names) + "]"


def _json_string(text: str) -> str:
    out = []
    for char in text:
        if char in SHORT_ESCAPES:
            out.append(SHORT_ESCAPES[char])
        elif char < " " or char > "~":
            out.append("".join(f"\\u{unit:04x}" for unit in _utf16(char)))
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def _utf16(char: str) -> list[int]:
    data = char.encode("utf-16-be", "surrogatepass")
    return [int.from_bytes(data[i : i + 2], "big") for i in range(0, len(data), 2)]


def record_env(session_dir: str, env: Mapping[str, str]) -> None:
    """Write the names (never the values) of the variables this relay received."""
    try:
        with open(os.path.join(session_dir, ENV_RECORD), "w", encoding="utf-8") as out:
            out.write(json_names(sorted(env)) + "\n")
    except OSError:
        pass


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _pump_stdin(sock: socket.socket, stdin_fd: int) -> None:
    """Stdin to the socket; at stdin's end, shut the socket's write side only."""
    try:
        while data := os.read(stdin_fd, CHUNK):
            sock.sendall(data)
    except OSError:
        pass
    try:
        sock.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def relay(sock: socket.socket, stdin_fd: int = 0, stdout_fd: int = 1) -> None:
    """Pump both ways until the endpoint closes the connection (or stdout goes away)."""
    threading.Thread(target=_pump_stdin, args=(sock, stdin_fd), daemon=True).start()
    try:
        while data := sock.recv(CHUNK):
            _write_all(stdout_fd, data)
    except OSError:
        pass


def parse_args(argv: list[str]) -> dict[str, str]:
    """`--socket PATH` (required) and `--session-dir DIR`, as `--opt V` or `--opt=V`."""
    found: dict[str, str] = {}
    rest = list(argv)
    while rest:
        word = rest.pop(0)
        if word in ("-h", "--help"):
            sys.stdout.write(USAGE + "\n")
            sys.stdout.flush()
            os._exit(0)
        name, eq, value = word.partition("=")
        if name not in OPTIONS:
            _refuse(f"unknown argument {word!r}")
        if not eq:
            if not rest:
                _refuse(f"{name} needs a value")
            value = rest.pop(0)
        found[name] = value
    if "--socket" not in found:
        _refuse("--socket is required")
    return found


def _refuse(message: str) -> None:
    sys.stderr.write(f"{USAGE}\nconveyor mcp-relay: {message}\n")
    sys.stderr.flush()
    os._exit(2)


def main(argv: list[str]) -> None:
    """Connect, relay, and leave without the interpreter's teardown (the pump may be blocked)."""
    args = parse_args(argv)
    session_dir = args.get("--session-dir") or os.environ.get("CONVEYOR_SESSION_DIR")
    if session_dir:
        record_env(session_dir, os.environ)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(args["--socket"])
    except OSError as exc:
        sys.stderr.write(
            f"conveyor mcp-relay: cannot reach the MCP endpoint {args['--socket']}: {exc}\n"
        )
        sys.stderr.flush()
        os._exit(1)
    relay(sock)
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1:])
