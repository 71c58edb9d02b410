"""Git over HTTP for the hostile tests: a forge that asks for the token, and a listener that
asks anyone for credentials and keeps what it is sent.

`GitHttp(root, token)` serves the bare repositories under `root` with `git http-backend`:
anyone may fetch (a public repository), a push needs the Basic credentials
`x-access-token:<token>` and gets 401 (asking for credentials) without them. With no
token it answers every request 401. Every request's path and credentials are recorded.
"""

from __future__ import annotations

import base64
import subprocess
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


@dataclass
class Seen:
    """What one request carried: its method and path, and its Basic credentials (decoded)."""

    method: str
    path: str
    credentials: str | None


@dataclass
class GitHttp:
    """A git HTTP server on a loopback port (`url`); `token` None: it lets no one in."""

    root: Path
    token: str | None
    seen: list[Seen] = field(default_factory=list)

    def __post_init__(self) -> None:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                owner.serve(self)

            def do_POST(self) -> None:
                owner.serve(self)

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                del format, args

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        """`http://127.0.0.1:<port>`."""
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        """Stop serving."""
        self.server.shutdown()
        self.server.server_close()

    def serve(self, request: BaseHTTPRequestHandler) -> None:
        """Record the request; run it through `git http-backend` when its token is right."""
        header = request.headers.get("Authorization", "")
        credentials = None
        if header.startswith("Basic "):
            credentials = base64.b64decode(header[6:]).decode(errors="replace")
        self.seen.append(Seen(request.command, request.path, credentials))
        length = int(request.headers.get("Content-Length") or 0)
        body = request.rfile.read(length) if length else b""
        pushing = "git-receive-pack" in request.path
        allowed = credentials == f"x-access-token:{self.token}" or not pushing
        if self.token is None or not allowed:
            request.send_response(401)
            request.send_header("WWW-Authenticate", 'Basic realm="git"')
            request.send_header("Content-Length", "0")
            request.end_headers()
            return
        path, _, query = request.path.partition("?")
        env = {
            "GIT_PROJECT_ROOT": str(self.root),
            "GIT_HTTP_EXPORT_ALL": "1",
            "REMOTE_USER": "x-access-token",
            "REQUEST_METHOD": request.command,
            "PATH_INFO": path,
            "QUERY_STRING": query,
            "CONTENT_TYPE": request.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(body)),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": "/dev/null",
        }
        done = subprocess.run(
            ["git", "http-backend"], input=body, env=env, capture_output=True, check=False
        )
        head, _, payload = done.stdout.partition(b"\r\n\r\n")
        status = 200
        headers = []
        for line in head.decode(errors="replace").split("\r\n"):
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.strip().split(" ")[0])
            elif name:
                headers.append((name, value.strip()))
        request.send_response(status)
        for name, value in headers:
            request.send_header(name, value)
        request.send_header("Content-Length", str(len(payload)))
        request.end_headers()
        request.wfile.write(payload)

    def got_token(self, token: str) -> bool:
        """Whether any request carried `token` in its credentials."""
        return any(s.credentials is not None and token in s.credentials for s in self.seen)
