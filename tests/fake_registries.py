"""Package registries on the loopback: a PEP 503 index serving a wheel, an npm-shaped registry.

Each records the paths it was asked for, so a test sees that setup reached it.
"""

from __future__ import annotations

import base64
import hashlib
import http.server
import io
import json
import re
import tarfile
import threading
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

WHEEL_NAME = "fakepkg-1.0-py3-none-any.whl"
NPM_NAME = "fakenpm"


def _record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return f"sha256={digest.decode()}"


def make_wheel(value: str = "from the loopback index") -> bytes:
    """A pure-Python wheel of `fakepkg` 1.0, whose `VALUE` is `value`."""
    files = {
        "fakepkg/__init__.py": f"VALUE = {value!r}\n".encode(),
        "fakepkg-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: fakepkg\nVersion: 1.0\n",
        "fakepkg-1.0.dist-info/WHEEL": (
            b"Wheel-Version: 1.0\nGenerator: conveyor-tests\nRoot-Is-Purelib: true\n"
            b"Tag: py3-none-any\n"
        ),
    }
    record = "".join(f"{n},{_record_hash(d)},{len(d)}\n" for n, d in files.items())
    record += "fakepkg-1.0.dist-info/RECORD,,\n"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as wheel:
        for name, data in files.items():
            wheel.writestr(name, data)
        wheel.writestr("fakepkg-1.0.dist-info/RECORD", record)
    return buffer.getvalue()


def make_npm_tarball() -> bytes:
    """`fakenpm` 1.0.0 as npm packs it: `package/package.json` and `package/index.js`."""
    files = {
        "package/package.json": json.dumps({"name": NPM_NAME, "version": "1.0.0"}).encode(),
        "package/index.js": b"module.exports = 'from the loopback npm registry';\n",
    }
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


@dataclass
class Served:
    """A registry on the loopback: its port and the paths it was asked for."""

    port: int
    asked: list[str] = field(default_factory=list)
    close: Callable[[], None] = lambda: None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def _serve(routes: Callable[[str, int], tuple[str, bytes] | None]) -> Served:
    served = Served(0)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            served.asked.append(self.path)
            found = routes(self.path.split("?", 1)[0], served.port)
            if found is None:
                self.send_error(404)
                return
            kind, body = found
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            del args

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    served.port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()

    def close() -> None:
        server.shutdown()
        server.server_close()

    served.close = close
    return served


def _project(filename: str) -> str:
    return re.sub(r"[-_.]+", "-", filename.split("-", 1)[0]).lower()


def serve_index(wheelhouse: Path | None = None) -> Served:
    """A PEP 503 simple index with `fakepkg` (its wheel made here) and every wheel of
    `wheelhouse`, each project on its own page."""
    wheels = {WHEEL_NAME: make_wheel()}
    if wheelhouse is not None:
        wheels |= {p.name: p.read_bytes() for p in sorted(wheelhouse.glob("*.whl"))}
    pages: dict[str, list[str]] = {}
    for name, data in wheels.items():
        digest = hashlib.sha256(data).hexdigest()
        pages.setdefault(_project(name), []).append(
            f'<a href="/files/{name}#sha256={digest}">{name}</a>'
        )

    def routes(path: str, port: int) -> tuple[str, bytes] | None:
        del port
        if path in ("/simple/", "/simple"):
            links = "".join(f'<a href="/simple/{p}/">{p}</a>\n' for p in sorted(pages))
            return "text/html", links.encode()
        project = path.removeprefix("/simple/").strip("/")
        if path.startswith("/simple/") and _project(project) in pages:
            return "text/html", "\n".join(pages[_project(project)]).encode()
        name = path.removeprefix("/files/")
        if path.startswith("/files/") and name in wheels:
            return "application/octet-stream", wheels[name]
        return None

    return _serve(routes)


def serve_npm() -> Served:
    """An npm-registry-shaped server with one package, `fakenpm` 1.0.0."""
    tarball = make_npm_tarball()
    sha1 = hashlib.sha1(tarball).hexdigest()  # noqa: S324 - npm's own shasum field
    integrity = "sha512-" + base64.b64encode(hashlib.sha512(tarball).digest()).decode()

    def routes(path: str, port: int) -> tuple[str, bytes] | None:
        if path == f"/{NPM_NAME}":
            tar_url = f"http://127.0.0.1:{port}/{NPM_NAME}/-/{NPM_NAME}-1.0.0.tgz"
            dist = {"tarball": tar_url, "shasum": sha1, "integrity": integrity}
            version = {"name": NPM_NAME, "version": "1.0.0", "dist": dist}
            body = {
                "name": NPM_NAME,
                "dist-tags": {"latest": "1.0.0"},
                "versions": {"1.0.0": version},
            }
            return "application/json", json.dumps(body).encode()
        if path == f"/{NPM_NAME}/-/{NPM_NAME}-1.0.0.tgz":
            return "application/octet-stream", tarball
        return None

    return _serve(routes)
