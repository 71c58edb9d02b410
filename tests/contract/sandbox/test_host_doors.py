"""What a box shows of the host: no host Unix socket, no /run, no homes, no token path.

Each probe runs bare first, so the test fails if the box is taken away: what the box
denies must be reachable without it. The plan is built as a job builds its own
(`job/box_plans.py`: hidden paths, the sockets the environment names, the tools given
back), so the box cannot pass by being emptier than a job's.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from conveyor.sandbox import Box, BoxPlan
from conveyor.sandbox.sockets import named_sockets
from conveyor.sandbox.tools import tool_paths

pytestmark = pytest.mark.contract

PROBE = """
import socket, sys
for path in sys.argv[1:]:
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(5)
    try:
        s.connect(path)
        print(s.recv(64).decode())
    except OSError as exc:
        print(type(exc).__name__)
"""


class Served:
    """A host process serving one Unix socket: each connection gets `answer`."""

    def __init__(self, path: Path, answer: bytes) -> None:
        self.server = socket.socket(socket.AF_UNIX)
        self.server.bind(str(path))
        self.server.listen()
        self.answer = answer
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            with conn:
                conn.sendall(self.answer)

    def close(self) -> None:
        self.server.close()


def _writable_run() -> Path | None:
    """A folder under /run this user may serve a socket in (root: /run itself)."""
    for folder in (Path("/run"), Path(f"/run/user/{os.getuid()}")):
        if folder.is_dir() and os.access(folder, os.W_OK):
            return folder
    return None


@pytest.fixture
def doors(tmp_path: Path) -> Iterator[tuple[list[Path], dict[str, str]]]:
    """A socket served under /run and one under a fake $XDG_RUNTIME_DIR outside /tmp (the
    box's /tmp is its own anyway), and the environment naming the latter."""
    run = _writable_run()
    if run is None:
        pytest.skip("no folder under /run this user may write")
    mark = f"{os.getpid()}-{tmp_path.name}"
    runtime = Path("/var/tmp") / f"conveyor-test-xdg-{mark}"
    unnamed = Path("/var/tmp") / f"conveyor-test-daemon-{mark}"
    for folder in (runtime, unnamed):
        folder.mkdir(mode=0o700)
    paths = [run / f"conveyor-test-{mark}.sock", runtime / "agent.sock", unnamed / "d.sock"]
    served = [Served(p, b"host answered") for p in paths]
    environ = dict(os.environ) | {"XDG_RUNTIME_DIR": str(runtime)}
    try:
        yield paths, environ
    finally:
        for server in served:
            server.close()
        for path in paths:
            path.unlink(missing_ok=True)
        for folder in (runtime, unnamed):
            folder.rmdir()


def _job_like_plan(tmp_path: Path, environ: dict[str, str]) -> BoxPlan:
    checkout, home, tmp = tmp_path / "repo", tmp_path / "home", tmp_path / "tmp"
    for folder in (checkout, home, tmp):
        folder.mkdir()
    hidden = (Path(environ["HOME"]), *named_sockets(environ))
    return BoxPlan(
        cwd=checkout,
        home=home,
        tmp=tmp,
        writable=(checkout,),
        readable=tool_paths(environ, hidden),
        hidden=hidden,
    )


def _run(box: Box, plan: BoxPlan, argv: list[str]) -> str:
    done = subprocess.run(
        box.wrap(argv, plan), capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_boxed_command_reaches_no_host_socket_under_run_or_the_runtime_folder(
    box: Box, tmp_path: Path, doors: tuple[list[Path], dict[str, str]]
) -> None:
    """Issue 44, route 5: a socket a host process serves under /run, one under
    $XDG_RUNTIME_DIR (where ssh-agent, gpg-agent, D-Bus and systemd's manager listen) and
    one in a folder no variable or list names (a daemon's) answer bare and cannot even be
    found from the box."""
    paths, environ = doors
    plan = _job_like_plan(tmp_path, environ)
    argv = [sys.executable, "-I", "-c", PROBE, *map(str, paths)]
    assert _run(Box("none"), plan, argv).split("\n")[:3] == ["host answered"] * 3
    assert _run(box, plan, argv).split() == ["FileNotFoundError"] * 3


def test_a_box_shows_no_run_no_homes_and_no_var(box: Box, tmp_path: Path) -> None:
    """The box's root holds the system folders and what the plan binds: /run, /home, the
    owner's home and /var are not there (only a path a bind needs is made on the way)."""
    plan = _job_like_plan(tmp_path, dict(os.environ))
    code = "import os\nfor p in ('/run', '/home', '/var', '/srv', '/mnt'): print(os.path.exists(p))"
    bare = _run(Box("none"), plan, [sys.executable, "-I", "-c", code])
    assert "True" in bare.split()
    assert _run(box, plan, [sys.executable, "-I", "-c", code]).split() == ["False"] * 5
    owner = Path(os.environ["HOME"])
    listing = (
        f"import os\nprint(sorted(os.listdir({str(owner)!r}))"
        f" if os.path.isdir({str(owner)!r}) else [])"
    )
    shown = eval(_run(box, plan, [sys.executable, "-I", "-c", listing]))  # noqa: S307 - our own print
    given = {p.relative_to(owner).parts[0] for p in plan.readable if p.is_relative_to(owner)}
    assert set(shown) <= given


def test_the_token_files_path_is_not_in_the_boxs_mount_table(box: Box, tmp_path: Path) -> None:
    """Issue 44, item 7: a box whose plan hides the token file (and the config folder that
    holds it) does not learn where it lives: its path is in no line of
    /proc/self/mountinfo (a deny-list box covered it, and the cover named it)."""
    config = tmp_path / "config"
    config.mkdir()
    token = config / "pipeline-token"
    token.write_text("ghp_secret\n")
    elsewhere = tmp_path / "keys" / "app.pem"
    elsewhere.parent.mkdir()
    elsewhere.write_text("-----BEGIN KEY-----\n")
    plan = _job_like_plan(tmp_path, dict(os.environ))
    plan = BoxPlan(
        cwd=plan.cwd,
        home=plan.home,
        tmp=plan.tmp,
        writable=plan.writable,
        readable=plan.readable,
        hidden=(*plan.hidden, config, token, elsewhere),
    )
    argv = ["/bin/cat", "/proc/self/mountinfo"]
    table = _run(box, plan, argv)
    assert str(plan.cwd.resolve()) in table  # the probe reads the box's own table
    for secret in (token, elsewhere, config):
        assert str(secret.resolve()) not in table
