"""Setup reaches exactly the registries `setup_network` names, through the proxy; tests none."""

from __future__ import annotations

import http.server
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import conveyor
from conveyor.core.config import Commands
from conveyor.core.verify import Outcome
from conveyor.sandbox import Box, BoxPlan
from conveyor.sandbox.tools import tool_paths
from conveyor.verify.boxing import Boxing
from conveyor.verify.context import Context

FETCH = (
    "import sys, urllib.request\n"
    "for url in sys.argv[1:]:\n"
    "    try:\n"
    "        print(url, urllib.request.urlopen(url, timeout=5).read().decode())\n"
    "    except Exception as exc:\n"
    "        print(url, 'failed', exc)\n"
)


class _Registry(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"package index"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        del args


@pytest.fixture
def registry() -> Iterator[int]:
    """A package index on the host's loopback."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Registry)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def _context(
    box: Box, root: Path, hosts: tuple[str, ...], hidden: tuple[Path, ...] = ()
) -> Context:
    checkout, home, tmp = root / "checkout", root / "home", root / "tmp"
    for folder in (checkout, home, tmp):
        folder.mkdir(parents=True)
    script = root / "fetch.py"
    script.write_text(FETCH)
    readable = (script, *tool_paths(os.environ, hidden))
    plan = BoxPlan(cwd=checkout, home=home, tmp=tmp, readable=readable, hidden=hidden)
    boxing = Boxing(box, plan, "proxy" if hosts else "none", setup_hosts=hosts)
    commands = Commands(test="true", timeout_seconds=60)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home)}
    return Context(checkout, commands, env, root / "logs", boxing=boxing)


def test_setup_reaches_the_named_registry_and_no_other_host(
    box: Box, registry: int, tmp_path: Path
) -> None:
    """The named index answers setup; an outside host is refused and logged; a test
    command, with the same box, reaches nothing."""
    ctx = _context(box, tmp_path, (f"127.0.0.1:{registry}",))
    urls = f"http://127.0.0.1:{registry}/simple/ http://pypi.org/simple/"
    fetch = f"{sys.executable} {tmp_path / 'fetch.py'} {urls}"
    setup = ctx.run("setup", fetch, setup=True)
    test = ctx.run("test", fetch)
    assert setup.outcome is Outcome.PASSED, setup.tail
    setup_lines = Path(setup.log_path or "").read_text().splitlines()
    assert f"http://127.0.0.1:{registry}/simple/ package index" in setup_lines
    assert any(line.startswith("http://pypi.org/simple/ failed") for line in setup_lines)
    assert "blocked pypi.org:80" in (tmp_path / "logs" / "network.log").read_text()
    test_text = Path(test.log_path or "").read_text()
    assert "package index" not in test_text
    assert test_text.count("failed") == 2


def test_setup_reaches_the_registry_with_conveyors_package_in_a_hidden_folder(
    box: Box, registry: int, tmp_path: Path
) -> None:
    """Conveyor installed where the box hides (an editable install in the owner's home):
    the bridge in front of setup still starts, from its own folder given back read-only."""
    package_root = Path(conveyor.__file__).resolve().parent.parent
    ctx = _context(box, tmp_path, (f"127.0.0.1:{registry}",), hidden=(package_root,))
    fetch = f"{sys.executable} -I {tmp_path / 'fetch.py'} http://127.0.0.1:{registry}/simple/"
    setup = ctx.run("setup", fetch, setup=True)
    assert setup.outcome is Outcome.PASSED, setup.tail
    assert "package index" in Path(setup.log_path or "").read_text()
