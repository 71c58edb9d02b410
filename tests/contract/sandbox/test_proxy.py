"""The proxy and the bridge: a boxed command reaches only allowed hosts, blocks are logged."""

from __future__ import annotations

import http.server
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from conveyor.sandbox import Box
from conveyor.sandbox.allowlist import Allowlist
from conveyor.sandbox.proxy import NetworkProxy
from tests.contract.sandbox.netbox import boxed

PROBE = """
import socket, sys, urllib.request
def get(url):
    try:
        return urllib.request.urlopen(url, timeout=5).read().decode()
    except Exception as exc:
        return f"failed: {exc}"
print("named:", get(sys.argv[1]))
print("other:", get(sys.argv[2]))
print("outside:", get("http://blocked.example/"))
try:
    socket.create_connection(("192.0.2.1", 80), timeout=2)
    print("direct: connected")
except OSError as exc:
    print("direct: failed", exc)
sys.exit(7)
"""


class _Answer(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        port = self.connection.getsockname()[1]
        body = f"answer from {port}".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        del args


@pytest.fixture
def servers() -> Iterator[tuple[int, int]]:
    """Two HTTP servers on the host's loopback: the job's named endpoint and another."""
    started = [http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Answer) for _ in range(2)]
    for server in started:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    yield started[0].server_address[1], started[1].server_address[1]
    for server in started:
        server.shutdown()
        server.server_close()


def test_a_boxed_command_reaches_only_the_named_endpoint(
    box: Box, servers: tuple[int, int], tmp_path: Path
) -> None:
    """The named loopback port answers inside the box; another port, an outside host and a
    direct connection do not; the block is in network.log with its host; the exit code
    is the command's."""
    named, other = servers
    log = tmp_path / "network.log"
    blocked: list[tuple[str, int]] = []
    allow = Allowlist.of([], [f"http://127.0.0.1:{named}"])
    with NetworkProxy(allow, log, on_blocked=lambda h, p: blocked.append((h, p))) as proxy:
        urls = [f"http://127.0.0.1:{named}/", f"http://127.0.0.1:{other}/"]
        command = [sys.executable, "-c", PROBE, *urls]
        argv = boxed(box, proxy, tmp_path / "box", command)
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 7, done.stderr
    lines = dict(line.split(": ", 1) for line in done.stdout.splitlines())
    assert lines["named"] == f"answer from {named}"
    assert lines["other"].startswith("failed")
    assert "403" in lines["outside"]
    assert lines["direct"].startswith("failed")
    assert blocked == [("blocked.example", 80)]
    assert "blocked blocked.example:80" in log.read_text()


def test_a_tunnel_to_a_host_off_the_list_is_refused_with_403(tmp_path: Path) -> None:
    """`CONNECT` to a host not on the list answers 403 and nothing is connected."""
    with NetworkProxy(Allowlist.of(["api.anthropic.com"]), tmp_path / "network.log") as proxy:
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.connect(str(proxy.socket_path))
        client.sendall(b"CONNECT 127.0.0.1:22 HTTP/1.1\r\n\r\n")
        answer = client.recv(4096)
        client.close()
    assert answer.startswith(b"HTTP/1.1 403")
    assert "blocked 127.0.0.1:22 (CONNECT)" in (tmp_path / "network.log").read_text()


def test_an_allowed_plain_http_request_is_sent_on_in_origin_form(
    servers: tuple[int, int], tmp_path: Path
) -> None:
    """`GET http://host:port/path` to an allowed endpoint reaches it and its answer returns."""
    named, _ = servers
    allow = Allowlist.of([], [f"http://127.0.0.1:{named}"])
    with NetworkProxy(allow, tmp_path / "network.log") as proxy:
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.connect(str(proxy.socket_path))
        head = f"GET http://127.0.0.1:{named}/x HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        client.sendall(f"{head}Connection: close\r\n\r\n".encode())
        answer = b""
        while chunk := client.recv(4096):
            answer += chunk
        client.close()
    assert answer.startswith(b"HTTP/1.0 200") or answer.startswith(b"HTTP/1.1 200")
    assert answer.endswith(f"answer from {named}".encode())
    assert f"allowed 127.0.0.1:{named} (GET)" in (tmp_path / "network.log").read_text()
