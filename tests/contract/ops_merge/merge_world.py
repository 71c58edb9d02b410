"""A repository on the embedded forge with a job-like checkout, for the ops from sync to merge."""

from __future__ import annotations

import itertools
import subprocess
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from conveyor.core.config import AccountConfig, Commands, Config, Limits
from conveyor.emulator.app.server import ForgeServer
from conveyor.forge.github import GitHubForge, token_forge
from conveyor.git import GitEnv, Identity, Repo, run_git
from conveyor.git.token_push import PushResult
from conveyor.ops.forge.context import OpContext
from conveyor.testing import http

ACCOUNT = "conveyor-bot"
PERSON = "alice"
BRANCH = "agent/issue-1"
_names = itertools.count(1)
T = TypeVar("T")


def git(cwd: Path, *args: str) -> str:
    """Run git in `cwd` as a fixed identity and return its output."""
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


def commit(repo: Path, files: Mapping[str, str], message: str) -> str:
    """Write files, commit them, and return the new head."""
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
        git(repo, "add", name)
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def wait_for(probe: Callable[[], T | None], timeout_s: float = 60.0) -> T:
    """Poll `probe` until it returns a value (the forge's CI works in the background)."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = probe()
        if value is not None:
            return value
        if time.monotonic() > deadline:
            msg = f"gave up waiting after {timeout_s} s"
            raise AssertionError(msg)
        time.sleep(0.05)


@dataclass
class MergeWorld:
    """One repository: the pipeline's account, an admin, a person, and a job-like checkout."""

    server: ForgeServer
    slug: str
    url: str
    admin_token: str
    bot: GitHubForge
    work: Repo
    person_clone: Path
    home: Path
    base: str = "main"
    limits: Limits = field(default_factory=Limits)

    @property
    def config(self) -> Config:
        """The configuration the ops run with."""
        return Config(
            repo=self.slug,
            base=self.base,
            account=AccountConfig(login=ACCOUNT, token_env="CONVEYOR_TEST_TOKEN"),
            allowed_users=(PERSON,),
            commands=Commands(test="true"),
            limits=self.limits,
        )

    def ctx(self) -> OpContext:
        """An op context acting as the pipeline's account."""
        return OpContext(forge=self.bot, config=self.config, run_id="run1")

    def push(
        self, src: str | None, dst: str, *, lease: str | None = None, force: bool = False
    ) -> PushResult:
        """The job's push op, reduced to plain git: with lease, forced, or fast-forward only."""
        args = ["push", "--porcelain"]
        if lease is not None:
            args.append(f"--force-with-lease={dst}:{lease}")
        elif force:
            args.append("--force")
        sha = None if src is None else git(self.work.path, "rev-parse", src)
        done = run_git(
            [*args, "origin", f"{sha or ''}:{dst}"],
            cwd=self.work.path,
            env=self.work.env,
            ok_codes=(0, 1, 128),
        )
        return PushResult(done.returncode == 0, dst, sha, done.stderr.decode())

    def person_push(self, branch: str, files: Mapping[str, str], message: str) -> str:
        """A person commits on `branch` (from origin's copy, or main when new) and pushes."""
        clone = self.person_clone
        git(clone, "fetch", "-q", "origin")
        start = (
            f"origin/{branch}"
            if git(clone, "branch", "-r", "--list", f"origin/{branch}")
            else "origin/main"
        )
        git(clone, "checkout", "-q", "-B", branch, start)
        sha = commit(clone, files, message)
        git(clone, "push", "-q", "origin", f"{branch}:{branch}")
        return sha

    def protect(self, contexts: list[str], *, strict: bool, branch: str = "main") -> None:
        """Protect `branch` with required checks, as the repository's admin."""
        answer = http.put(
            f"{self.server.url}/repos/{self.slug}/branches/{branch}/protection",
            headers={"Authorization": f"token {self.admin_token}"},
            json={
                "required_status_checks": {"strict": strict, "contexts": contexts},
                "enforce_admins": None,
                "required_pull_request_reviews": None,
                "restrictions": None,
            },
            timeout=30,
        )
        assert answer.status_code == 200, answer.text

    def branch_and_pr(
        self, files: Mapping[str, str], title: str = "Fix it (#1)", *, ready: bool = True
    ) -> int:
        """The checkout commits `files` on agent/issue-1, pushes it and opens a ready PR."""
        git(self.work.path, "checkout", "-q", "-B", BRANCH, "origin/main")
        commit(self.work.path, files, "change")
        git(self.work.path, "push", "-q", "origin", f"{BRANCH}:{BRANCH}")
        git(self.work.path, "fetch", "-q", "origin")
        pr = self.bot.create_draft_pr(BRANCH, "main", title, "Closes #1\n")
        if ready:
            self.bot.mark_pr_ready(pr.number)
        return pr.number


def make_merge_world(server: ForgeServer, folder: Path, *, ci: str | None = None) -> MergeWorld:
    """A fresh repository `ownerN/backN` (app.py, README.md) with issue #1 open."""
    n = next(_names)
    owner, slug = f"bowner{n}", f"bowner{n}/back{n}"
    src = folder / "src"
    src.mkdir(parents=True)
    git(src, "init", "-q", "-b", "main")
    commit(src, {"README.md": "hello\n", "app.py": "x = 1\ny = 2\nz = 3\n"}, "Start")
    created = server.create_repo(slug, src, ci=ci)
    admin_token = server.add_user(owner)
    tokens = {login: server.add_user(login) for login in (ACCOUNT, PERSON)}
    for login in tokens:
        server.add_collaborator(slug, login)
    bot = token_forge(slug, tokens[ACCOUNT], base_url=server.url)
    env = GitEnv(identity=Identity("Conveyor", "conveyor@example.invalid"))
    git(folder, "clone", "-q", created.clone_url, "work")
    git(folder, "clone", "-q", created.clone_url, "person")
    bot.create_issue("Fix it", "Please fix it.")
    return MergeWorld(
        server,
        slug,
        created.clone_url,
        admin_token,
        bot,
        Repo(folder / "work", env),
        folder / "person",
        folder / "home",
    )
