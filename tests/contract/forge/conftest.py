"""The forge contract suite's world: one repository per module on the session's embedded forge.

Every client of the suite talks to the forge over real loopback HTTP through
the validation hook; a test whose exchanges break GitHub's description fails
at teardown with the list of violations.
"""

from __future__ import annotations

import itertools
import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from conveyor.emulator.app.server import ForgeServer
from conveyor.forge.github import AppIdentity, GitHubForge, app_forge, token_forge
from conveyor.forge.retry import RetryPolicy
from conveyor.testing import http
from tests.contract.forge.validation import ValidatingTransport

OWNER = "acme"
PIPELINE = "conveyor-bot"
TRUSTED = "alice"
VISITOR = "mallory"
# One try: the contract suite wants to see the forge's first answer, not a retried one.
ONCE = RetryPolicy(attempts=1)

_SETUPS = itertools.count(1)


@dataclass
class World:
    """One repository and the people around it, each with their own client."""

    server: ForgeServer
    repo: str
    clone_url: str
    default_branch: str
    hook: ValidatingTransport
    admin: GitHubForge
    pipeline: GitHubForge
    trusted: GitHubForge
    visitor: GitHubForge
    workdir: Path

    def client(self, token: str) -> GitHubForge:
        """Another client of the repository with `token`, through the hook."""
        return token_forge(
            self.repo, token, base_url=self.server.url, transport=self.hook, retry=ONCE
        )

    def app_client(self, app: AppIdentity, private_key: str) -> GitHubForge:
        """A client acting as a GitHub App's installation, through the hook."""
        return app_forge(
            self.repo, app, private_key, base_url=self.server.url, transport=self.hook, retry=ONCE
        )


def write_sample(folder: Path) -> Path:
    """A tiny Python project to import as a repository."""
    (folder / "src").mkdir(parents=True)
    (folder / "README.md").write_text("# Sample\n")
    (folder / "src" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    return folder


def git(cwd: Path, *args: str) -> str:
    """Run git in `cwd` with a fixed identity; its stdout."""
    env = {
        "GIT_AUTHOR_NAME": "Alice",
        "GIT_AUTHOR_EMAIL": "alice@example.invalid",
        "GIT_COMMITTER_NAME": "Alice",
        "GIT_COMMITTER_EMAIL": "alice@example.invalid",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(cwd),
    }
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def push_change(
    world: World, branch: str, path: str, content: str, *, base: str | None = None
) -> str:
    """Commit `content` to `path` on `branch` (from `base`, default the default branch); push."""
    clone = world.workdir / f"clone-{branch.replace('/', '-')}-{len(list(world.workdir.iterdir()))}"
    git(world.workdir, "clone", "--quiet", world.clone_url, clone.name)
    git(clone, "checkout", "--quiet", "-B", branch, f"origin/{base or world.default_branch}")
    target = clone / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(content)
    git(clone, "add", "-A")
    git(clone, "commit", "--quiet", "-m", f"Change {path} on {branch}")
    git(clone, "push", "--quiet", "--force", "origin", f"HEAD:refs/heads/{branch}")
    return git(clone, "rev-parse", "HEAD")


@pytest.fixture(scope="module")
def world(
    forge_server: ForgeServer,
    tmp_path_factory: pytest.TempPathFactory,
    request: pytest.FixtureRequest,
) -> Iterator[World]:
    """A fresh repository named after the test module, with owner, pipeline, trusted, visitor.

    Numbered: a worker can set one module up twice on its forge (worksteal may hand it the
    module's last tests after other modules' tests), and a repository name is taken once.
    """
    name = request.module.__name__.rsplit(".", 1)[-1].replace("_", "-")
    slug = f"{OWNER}/{name}-{next(_SETUPS)}"
    source = write_sample(tmp_path_factory.mktemp("sample"))
    created = forge_server.create_repo(slug, source)
    forge_server.add_collaborator(slug, PIPELINE, "write")
    forge_server.add_collaborator(slug, TRUSTED, "write")
    hook = ValidatingTransport(http.transport())
    tokens = {login: forge_server.add_user(login) for login in (OWNER, PIPELINE, TRUSTED, VISITOR)}

    def client(login: str) -> GitHubForge:
        return token_forge(
            slug, tokens[login], base_url=forge_server.url, transport=hook, retry=ONCE
        )

    built = World(
        server=forge_server,
        repo=slug,
        clone_url=created.clone_url,
        default_branch=created.default_branch,
        hook=hook,
        admin=client(OWNER),
        pipeline=client(PIPELINE),
        trusted=client(TRUSTED),
        visitor=client(VISITOR),
        workdir=tmp_path_factory.mktemp("work"),
    )
    yield built
    hook.close()


@pytest.fixture(autouse=True)
def _no_violations(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail a test at teardown when any of its exchanges broke GitHub's description."""
    if "world" not in request.fixturenames:
        yield
        return
    hook = request.getfixturevalue("world").hook
    hook.take()
    yield
    found = hook.take()
    if found:
        shown = "\n".join(v[:400] for v in found[:20])
        pytest.fail(f"{len(found)} exchange(s) broke GitHub's description:\n{shown}")
