"""A job's checkout on a git HTTP forge that wants the token, boxed as a job's is, and what a
hostile agent plants in it: every hook git knows, and every config key that runs a command
or sends a request elsewhere.

Everything planted runs `mark.sh`, which appends what it was and its environment (the push
token among it) to `outside/marks` and its name to `<checkout>/.marks`. `outside/` lies in
the test's tmp folder, which no box shows (its `/tmp` is its own): a line there was written
by a process outside every box. `.marks` is in the checkout: a line there was written by
a process in a box or outside it.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from conveyor.agents.hooks import commit_msg_hook
from conveyor.core.config import Config
from conveyor.forge.credentials import read_token
from conveyor.git import GitEnv, Identity, Repo, init_bare, run_git
from conveyor.git.agent_repo import agent_git
from conveyor.git.checkout import agent_checkout, install_checkout_hooks, update_cache
from conveyor.git.token_push import PushAuth, write_askpass
from conveyor.job.box_plans import base_plan, git_boxer, make_folders
from conveyor.job.effects.push import JobPusher
from conveyor.sandbox import Box
from conveyor.verify.boxing import Boxing
from tests.git_http import GitHttp

IDENTITY = Identity("bot", "bot@users.noreply.conveyor")
BRANCH = "agent/issue-7"
# githooks(5), every one.
HOOKS = (
    "applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit", "pre-merge-commit",
    "prepare-commit-msg", "commit-msg", "post-commit", "pre-rebase", "post-checkout",
    "post-merge", "pre-push", "pre-receive", "update", "proc-receive", "post-receive",
    "post-update", "reference-transaction", "push-to-checkout", "pre-auto-gc", "post-rewrite",
    "sendemail-validate", "fsmonitor-watchman", "p4-changelist", "p4-prepare-changelist",
    "p4-post-changelist", "p4-pre-submit", "post-index-change",
)  # fmt: skip
# A project's hooks that refuse: a commitlint commit-msg, a test-running pre-commit.
REFUSING = ("pre-commit", "commit-msg", "prepare-commit-msg", "pre-push", "pre-rebase")
MARK = """#!/bin/sh
# Planted: say what ran, and with which environment.
{{ echo "ran: $0 $*"; env; }} >> {outside}/marks 2>/dev/null
echo "$0 $*" >> {checkout}/.marks 2>/dev/null
exit {status}
"""


@dataclass
class HostileJob:
    """The forge, a listener anyone may reach, the job's checkout and what it pushes with."""

    root: Path
    forge: GitHttp
    evil: GitHttp
    token: str
    repo: Repo
    auth: PushAuth
    cache: Path
    outside: Path
    boxing: Boxing

    @property
    def forge_url(self) -> str:
        """The repository's URL on the forge."""
        return f"{self.forge.url}/acme/tool.git"

    @property
    def bare(self) -> Repo:
        """The forge's repository."""
        return Repo(self.root / "forge" / "acme" / "tool.git", GitEnv(identity=IDENTITY))

    @property
    def pusher(self) -> JobPusher:
        """The job's push op."""
        return JobPusher(self.repo, self.auth)

    def outside_marks(self) -> str:
        """What ran outside every box."""
        path = self.outside / "marks"
        return path.read_text() if path.exists() else ""

    def marks(self) -> str:
        """What ran anywhere."""
        path = self.repo.path / ".marks"
        return path.read_text() if path.exists() else ""

    def script(self, name: str, status: int = 0) -> Path:
        """A marking script in the checkout (`status` its exit code)."""
        path = self.repo.path / ".planted" / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(MARK.format(outside=self.outside, checkout=self.repo.path, status=status))
        path.chmod(0o755)
        return path

    def agent_config(self, *pairs: tuple[str, str]) -> None:
        """Write keys into the agent's repository config, as a session's `git config` does."""
        config = self.repo.path / ".git" / "config"
        for key, value in pairs:
            run_git(
                ["config", "--file", str(config), "--add", key, value], cwd=self.root, env=GitEnv()
            )


def token_config(kind: str, root: Path, token: str) -> tuple[Config, dict[str, str]]:
    """An account whose token comes from `kind` ("token_env" or "token_file"); the
    environment the job would read it from."""
    account: dict[str, str] = {"login": "bot"}
    environ: dict[str, str] = {}
    if kind == "token_env":
        account["token_env"] = "HOSTILE_TEST_TOKEN"
        environ["HOSTILE_TEST_TOKEN"] = token
    else:
        (root / "token.txt").write_text(token + "\n")
        account["token_file"] = str(root / "token.txt")
    data = {"repo": "acme/tool", "account": account, "allowed_users": ["alice"]}
    return Config.model_validate(data | {"commands": {"test": "true"}}), environ


def seed(root: Path) -> Path:
    """The forge's repository `acme/tool` with `main` holding two files."""
    bare = init_bare(root / "forge" / "acme" / "tool.git", GitEnv(identity=IDENTITY))
    work = root / "seed"
    env = GitEnv(identity=IDENTITY)
    run_git(["init", "--quiet", "--initial-branch=main", str(work)], cwd=root, env=env)
    (work / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (work / "README.md").write_text("# tool\n")
    run_git(["add", "."], cwd=work, env=env)
    run_git(["commit", "--quiet", "-m", "Initial commit"], cwd=work, env=env)
    run_git(["push", "--quiet", str(bare.path), "HEAD:refs/heads/main"], cwd=work, env=env)
    return work


def hostile_job(root: Path, box: Box, token_kind: str) -> Iterator[HostileJob]:
    """The checkout a writer's job makes (its keep, the agent's repository, the box), with
    the token read as the config says."""
    root.mkdir(parents=True, exist_ok=True)
    seed(root)
    secret = f"tok-{secrets.token_hex(12)}"
    config, environ = token_config(token_kind, root, secret)
    token = read_token(config, environ, root)
    forge = GitHttp(root / "forge", token)
    evil = GitHttp(root / "evil", None)
    outside = root / "outside"
    outside.mkdir()
    home = root / "home" / "acme__tool"
    job_dir = home / "jobs" / "issue-7-implement-1"
    job_dir.mkdir(parents=True)
    git_config = job_dir / "gitconfig"
    git_config.write_text(f"[user]\n\tname = {IDENTITY.name}\n\temail = {IDENTITY.email}\n")
    env = GitEnv(config_global=git_config, identity=IDENTITY)
    url = f"{forge.url}/acme/tool.git"
    auth = PushAuth(write_askpass(job_dir / "askpass.sh"), token, "nonce").for_urls(url)
    cache = update_cache(home / "cache.git", url, replace(env, extra=auth.fetch_variables()))
    made = agent_checkout(cache, job_dir / "repo", url, branch=BRANCH, base="main", env=env)
    plan = make_folders(base_plan(config, job_dir, made.path, (home.parent,), dict(os.environ)))
    boxing = Boxing(box, plan)
    repo = replace(made, box=git_boxer(boxing))
    install_checkout_hooks(repo, auth.nonce, commit_msg_hook("implementer"))
    try:
        yield HostileJob(root, forge, evil, token, repo, auth, cache.path, outside, boxing)
    finally:
        forge.close()
        evil.close()


def agent_commits(job: HostileJob, files: dict[str, str], message: str) -> None:
    """A commit the agent makes with its own git (before anything is planted)."""
    for name, text in files.items():
        (job.repo.path / name).write_text(text)
    agent_git(job.repo, "add", "--", *files)
    agent_git(job.repo, "commit", "--quiet", "-m", message)
