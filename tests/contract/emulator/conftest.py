"""Fixtures for the emulator's contract tests: a repository, its owner, a writer, a visitor."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from conveyor.emulator.app.server import ForgeServer
from conveyor.emulator.model.store import Store
from conveyor.testing import http
from tests.contract.emulator.openapi_check import check_response

_names = itertools.count(1)


@dataclass(frozen=True)
class World:
    """One repository on the session's forge and three accounts with their tokens."""

    server: ForgeServer
    owner: str
    name: str
    owner_token: str
    writer: str
    writer_token: str
    visitor: str
    visitor_token: str

    @property
    def slug(self) -> str:
        """OWNER/NAME."""
        return f"{self.owner}/{self.name}"

    @property
    def repo_path(self) -> str:
        """`/repos/OWNER/NAME`."""
        return f"/repos/{self.slug}"

    def client(self, token: str | None = None, scheme: str = "token") -> httpx.Client:
        """An HTTP client for the forge that checks every answer against the OpenAPI subset."""
        headers = {"Authorization": f"{scheme} {token}"} if token else {}
        return http.client(
            base_url=self.server.url,
            headers=headers,
            event_hooks={"response": [check_response]},
            timeout=30,
        )


def make_world(server: ForgeServer, folder: Path) -> World:
    """A fresh repository with its owner, a writing collaborator and a visitor."""
    n = next(_names)
    owner, writer, visitor = f"owner{n}", f"writer{n}", f"visitor{n}"
    src = folder / f"src{n}"
    src.mkdir()
    (src / "README.md").write_text("hello\n")
    server.create_repo(f"{owner}/widgets{n}", src)
    owner_token = server.add_user(owner)
    writer_token = server.add_user(writer)
    server.add_collaborator(f"{owner}/widgets{n}", writer, "write")
    visitor_token = server.add_user(visitor)
    return World(
        server, owner, f"widgets{n}", owner_token, writer, writer_token, visitor, visitor_token
    )


@pytest.fixture
def world(forge_server: ForgeServer, tmp_path: Path) -> World:
    """A fresh repository on the session's forge."""
    return make_world(forge_server, tmp_path)


@pytest.fixture
def owner(world: World) -> Iterator[httpx.Client]:
    """A client holding the repository owner's token."""
    with world.client(world.owner_token) as client:
        yield client


def set_issue_column(world: World, number: int, column: str, value: object) -> None:
    """Change one stored column of issue NUMBER of the world's repository (test set-up only)."""
    store = Store.open(world.server.data_dir)
    with store.tx() as conn:
        conn.execute(
            f"UPDATE issues SET {column} = ? WHERE number = ? AND repo_id = "
            "(SELECT repos.id FROM repos JOIN users ON users.id = repos.owner_id "
            "WHERE users.login = ? AND repos.name = ?)",
            (value, number, world.owner, world.name),
        )
    store.close()
