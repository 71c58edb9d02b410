"""`ForgeServer`: the embedded forge on loopback in a background thread, for tests and bench."""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from conveyor.emulator.app.asgi import bind, build_app, remember_port, server_for, url_of
from conveyor.emulator.model import admin
from conveyor.emulator.repos.create import RepoCreated, create_repo
from conveyor.emulator.repos.repo_plan import set_plan
from conveyor.emulator.repos.wiki import create_wiki

if TYPE_CHECKING:
    from conveyor.core.pipeline_view import PipelineReader
    from conveyor.emulator.model.state import EmulatorState, TranscriptReader
    from conveyor.emulator.model.store import Store

START_TIMEOUT_S = 10.0


class ForgeServer:
    """One emulator serving `data_dir` on 127.0.0.1 and a free port until `stop()`."""

    def __init__(
        self,
        data_dir: Path,
        *,
        fail_rate: float = 0.0,
        list_lag_ms: int = 0,
        seed: int | None = None,
        pipeline: PipelineReader | None = None,
        transcripts: TranscriptReader | None = None,
        port: int = 0,
        ci_network: str = "none",
    ) -> None:
        self.data_dir = data_dir
        self._port = port
        self._options: dict[str, Any] = {
            "fail_rate": fail_rate,
            "list_lag_ms": list_lag_ms,
            "seed": seed,
            "pipeline": pipeline,
            "transcripts": transcripts,
            "ci_network": ci_network,
        }
        self.url = ""
        self.state: EmulatorState | None = None
        self._server: Any = None
        self._thread: threading.Thread | None = None

    def start(self) -> ForgeServer:
        """Start serving and wait until the server answers."""
        app = build_app(self.data_dir, **self._options)
        self.state = app.state.emulator
        sock = bind("127.0.0.1", self._port)
        remember_port(self.data_dir, sock)
        self.url = url_of(sock)
        server = server_for(app)
        self._server = server
        self._thread = threading.Thread(
            target=server.run, kwargs={"sockets": [sock]}, name="forge-server", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                msg = f"the embedded forge did not start on {self.url}"
                raise RuntimeError(msg)
            time.sleep(0.005)
        return self

    def stop(self) -> None:
        """Stop serving (running the app's shutdown hooks, e.g. the CI runner's) and wait."""
        if self._server is not None and self._thread is not None:
            self._server.should_exit = True
            self._thread.join(timeout=30)
        self._server = None
        self._thread = None

    def __enter__(self) -> ForgeServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def _shared_store(self) -> Store | None:
        """The running server's store (admin calls then skip opening their own), else None."""
        return self.state.store if self._server is not None and self.state is not None else None

    def add_user(self, login: str) -> str:
        """Create `login` when missing; return a fresh token for it."""
        return admin.add_user(self.data_dir, login, store=self._shared_store())

    def add_collaborator(self, slug: str, login: str, permission: str = "write") -> None:
        """Make `login` a collaborator of OWNER/NAME."""
        admin.add_collaborator(self.data_dir, slug, login, permission, store=self._shared_store())

    def add_app(self, slug: str, install: str | None = None) -> admin.AppCreated:
        """Create a GitHub App (and its installation on OWNER/NAME)."""
        return admin.add_app(self.data_dir, slug, install)

    def create_repo(
        self,
        slug: str,
        src: Path,
        *,
        at: str | None = None,
        default_branch: str | None = None,
        ci: str | None = None,
        wiki: bool = False,
        wiki_src: Path | None = None,
        ci_base: bool = False,
        ci_network: str | None = None,
    ) -> RepoCreated:
        """Import `src` as repository OWNER/NAME (see `emulator.repos.create.create_repo`)."""
        return create_repo(
            self.data_dir,
            slug,
            src,
            at=at,
            default_branch=default_branch,
            ci=ci,
            wiki=wiki or wiki_src is not None,
            wiki_src=wiki_src,
            store=self._shared_store(),
            ci_base=ci_base,
            ci_network=ci_network,
        )

    def create_wiki(self, slug: str, src: Path | None = None) -> str:
        """Give OWNER/NAME its wiki (see `emulator.repos.wiki.create_wiki`); its clone URL."""
        return create_wiki(self.data_dir, slug, src, store=self._shared_store())

    def set_plan(self, slug: str, *, private: bool, drafts: bool) -> None:
        """Make OWNER/NAME private or public, taking or refusing draft PRs."""
        set_plan(self.data_dir, slug, private=private, drafts=drafts, store=self._shared_store())

    def set_knobs(self, **knobs: Any) -> dict[str, Any]:
        """Change fault knobs (`POST /_conveyor/knobs`); the knobs as they now are."""
        request = urllib.request.Request(  # noqa: S310 - the server's own loopback URL
            f"{self.url}/_conveyor/knobs",
            data=json.dumps(knobs).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=10) as answer:  # noqa: S310
            data: dict[str, Any] = json.load(answer)
        return data

    def requests(self) -> list[dict[str, Any]]:
        """The newest answered requests, oldest first (`GET /_conveyor/requests`)."""
        url = f"{self.url}/_conveyor/requests"
        with urllib.request.urlopen(url, timeout=10) as answer:  # noqa: S310 - loopback
            data: list[dict[str, Any]] = json.load(answer)
        return data

    def stats(self) -> dict[str, Any]:
        """The server's request and point counters (`GET /_conveyor/stats`)."""
        with urllib.request.urlopen(f"{self.url}/_conveyor/stats", timeout=10) as answer:  # noqa: S310
            data: dict[str, Any] = json.load(answer)
        return data
