"""Fixtures for the wiki ops: a bare wiki with its Home page, a code checkout, a wiki clone."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from conveyor.core.config import Config
from conveyor.forge.types import RepoInfo
from conveyor.git.remote import init_bare
from conveyor.git.token_push import PushAuth, write_askpass
from conveyor.job.wiki_workspace import prepare_wiki
from conveyor.ops.local.wiki_branch import WikiCheckout
from tests.contract.git.workrepo import TEST_ENV, WorkRepo

ISSUE = 7


def config(wiki: bool | dict[str, str] = True) -> Config:
    """A config with the wiki on (or as given)."""
    return Config.model_validate(
        {
            "repo": "acme/tool",
            "account": {"login": "bot", "token_env": "T"},
            "allowed_users": ["alice"],
            "commands": {"test": "true"},
            "wiki": wiki,
        }
    )


@dataclass
class WikiWorld:
    """A bare wiki (`master` with Home.md), a person's clone of it and a code checkout."""

    root: Path
    bare: Path
    person: WorkRepo
    code: WorkRepo
    keeps: int = 0  # how many wiki checkouts were made (each gets a keep of its own)

    @property
    def url(self) -> str:
        """The wiki's clone URL."""
        return self.bare.as_uri()

    def info(self, *, has_wiki: bool = True) -> RepoInfo:
        """The repository as the forge describes it."""
        url = self.url if has_wiki else None
        return RepoInfo("acme/tool", 1, "main", "file:///x.git", False, has_wiki, url)

    def checkout(self, *, home: str = "home", wiki: bool | dict[str, str] = True) -> WikiCheckout:
        """The job's wiki checkout inside the code checkout (it must exist)."""
        auth = PushAuth(write_askpass(self.root / "askpass.sh"), None, "nonce")
        self.keeps += 1
        made = prepare_wiki(
            config(wiki),
            self.info(),
            code=self.code.repo,
            home=self.root / home,
            keep=self.root / f"wiki-{self.keeps}.git",
            issue=ISSUE,
            auth=auth,
            trailer_role="spec",
        )
        assert made is not None
        return made


@pytest.fixture
def wiki_world(tmp_path: Path) -> WikiWorld:
    """The wiki, a person's clone that made the Home page, and a code work tree."""
    bare = tmp_path / "tool.wiki.git"
    init_bare(bare, TEST_ENV, "master")
    person = WorkRepo.clone(bare.as_uri(), tmp_path / "person")
    person.git("symbolic-ref", "HEAD", "refs/heads/master")
    person.commit({"Home.md": "Welcome.\n"}, "Initial Home page")
    person.push("master")
    code = WorkRepo.init(tmp_path / "code")
    code.commit({"README.md": "# tool\n"}, "Initial commit")
    return WikiWorld(tmp_path, bare, person, code)
