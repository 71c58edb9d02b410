"""Fixtures for the forge's git half: an imported repository, its accounts and a clone."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from conveyor.emulator.app.server import ForgeServer
from conveyor.testing import http
from tests.contract.emulator.openapi_check import check_response
from tests.contract.git.workrepo import WorkRepo

_names = itertools.count(1)


@dataclass
class GitWorld:
    """One repository (default branch `main`) with an owner (admin), a writer and a clone."""

    server: ForgeServer
    slug: str
    owner_token: str
    writer_token: str
    clone: WorkRepo

    @property
    def repo_path(self) -> str:
        """`/repos/OWNER/NAME`."""
        return f"/repos/{self.slug}"

    def client(self, token: str | None) -> httpx.Client:
        """A client whose every answer is checked against the OpenAPI subset."""
        headers = {"Authorization": f"token {token}"} if token else {}
        return http.client(
            base_url=self.server.url,
            headers=headers,
            event_hooks={"response": [check_response]},
            timeout=30,
        )

    def push_branch(
        self, branch: str, files: Mapping[str, str], message: str, start: str = "main"
    ) -> str:
        """Commit `files` on `branch` (created from origin's `start` when new) and push it."""
        self.clone.git("fetch", "--quiet", "origin")
        known = self.clone.git("branch", "--list", branch)
        self.clone.branch(branch, branch if known else f"origin/{start}")
        sha = self.clone.commit(files, message)
        self.clone.push(branch)
        return sha


def make_git_world(
    server: ForgeServer, folder: Path, *, ci: str | None = None, ci_network: str | None = None
) -> GitWorld:
    """A fresh repository imported from a two-file git history, and a clone of it."""
    n = next(_names)
    owner, writer = f"gowner{n}", f"gwriter{n}"
    src = WorkRepo.init(folder / f"src{n}")
    src.commit({"README.md": "hello\n", "app.py": "x = 1\ny = 2\nz = 3\n"}, "Start")
    slug = f"{owner}/gadgets{n}"
    created = server.create_repo(slug, src.path, ci=ci, ci_network=ci_network)
    owner_token = server.add_user(owner)
    writer_token = server.add_user(writer)
    server.add_collaborator(slug, writer, "write")
    clone = WorkRepo.clone(created.clone_url, folder / f"clone{n}")
    return GitWorld(server, slug, owner_token, writer_token, clone)


@pytest.fixture
def gw(forge_server: ForgeServer, tmp_path: Path) -> GitWorld:
    """A fresh repository on the session's forge."""
    return make_git_world(forge_server, tmp_path)


@pytest.fixture
def writer(gw: GitWorld) -> Iterator[httpx.Client]:
    """A client with the writing collaborator's token."""
    with gw.client(gw.writer_token) as client:
        yield client


@pytest.fixture
def admin(gw: GitWorld) -> Iterator[httpx.Client]:
    """A client with the owner's (admin) token."""
    with gw.client(gw.owner_token) as client:
        yield client


def wait_for(probe: Callable[[], Any], timeout_s: float = 30.0) -> Any:
    """Poll `probe` until it returns something truthy (the forge works in the background)."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            msg = f"gave up waiting after {timeout_s} s"
            raise AssertionError(msg)
        time.sleep(0.05)


def open_pr(client: httpx.Client, gw: GitWorld, head: str, **extra: Any) -> dict[str, Any]:
    """Open a PR from `head` into main and return its JSON."""
    answer = client.post(
        f"{gw.repo_path}/pulls",
        json={"title": f"Change {head}", "head": head, "base": "main", **extra},
    )
    assert answer.status_code == 201, answer.text
    data: dict[str, Any] = answer.json()
    return data


def settled(client: httpx.Client, gw: GitWorld, number: int) -> dict[str, Any]:
    """The PR once its mergeability is computed (GitHub's second read)."""

    def probe() -> dict[str, Any] | None:
        data: dict[str, Any] = client.get(f"{gw.repo_path}/pulls/{number}").json()
        return data if data["mergeable_state"] != "unknown" else None

    result: dict[str, Any] = wait_for(probe)
    return result
