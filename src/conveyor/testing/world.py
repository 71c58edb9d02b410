"""`World`: a repository on the embedded forge, its people, a config and scenarios, per test.

One forge serves the whole test session (the `forge_server` fixture); each
World creates its own repository from the sample template, so tests never
share issues. Jobs and drives run as real `conveyor` processes with an
environment the World builds (its own HOME and CONVEYOR_HOME under tmp), forked from a
preloaded fork server (`conveyor.testing.forked_run`): `run` waits for the command, `start`
answers a handle for tests that signal or kill what they started.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from conveyor.agents.boxed import TEST_SHARE_ENV
from conveyor.core.state import IssueState
from conveyor.core.state_codec import find_state
from conveyor.emulator.app.server import ForgeServer
from conveyor.emulator.model.records import bare_repo_path
from conveyor.forge.github import GitHubForge, token_forge
from conveyor.forge.types import Comment, Issue, PullRequest
from conveyor.git import GitError, Repo, read_blob, try_rev_parse
from conveyor.job.finish import TRASH
from conveyor.testing.forked_run import Process, run_conveyor, start_conveyor

ACCOUNT = "conveyor-bot"
TRUSTED = "alice"
VISITOR = "mallory"
TOKEN_ENV = "CONVEYOR_WORLD_TOKEN"  # noqa: S105 - the variable's name, not a secret
_COUNTER = itertools.count(1)
KEPT_ENV = ("PATH", "LANG", "LC_ALL", "TMPDIR", "TZ")


def sample_template() -> Path:
    """The sample repository (`inventory`) shipped as package data."""
    return Path(str(resources.files("conveyor") / "sample" / "template"))


def config_toml(values: Mapping[str, Any]) -> str:
    """A config file's TOML text for nested `values` (strings, numbers, booleans, lists, tables)."""
    lines: list[str] = []
    tables: list[tuple[str, Mapping[str, Any]]] = []
    for key, value in values.items():
        if isinstance(value, Mapping):
            tables.append((key, value))
        else:
            lines.append(f"{key} = {_toml_value(value)}")
    for name, table in tables:
        lines.append(f"\n[{name}]")
        lines += [f"{k} = {_toml_value(v)}" for k, v in table.items()]
    return "\n".join(lines) + "\n"


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, Sequence):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + "}"
    msg = f"cannot write {value!r} as TOML"
    raise TypeError(msg)


@dataclass
class World:
    """One test's repository, people, config file and scenario on a shared embedded forge."""

    server: ForgeServer
    root: Path
    repo: str
    tokens: dict[str, str]
    config_path: Path
    scenario_path: Path
    home: Path
    extra_env: dict[str, str] = field(default_factory=dict)
    wiki_on: bool = False
    _forges: dict[str, GitHubForge] = field(default_factory=dict, repr=False)

    @classmethod
    def create(
        cls,
        server: ForgeServer,
        root: Path,
        *,
        config: Mapping[str, Any] | None = None,
        src: Path | None = None,
        ci: str | None = None,
        wiki: bool = False,
        ci_base: bool = False,
        ci_network: str | None = None,
    ) -> World:
        """A fresh repository `acme/inventory-<n>` with the three people and a config file.

        `src` is the folder or git repository to import (the sample by default);
        `ci` the command the forge runs as the `ci` check on every PR head (and, with
        `ci_base`, on the imported base's head), reaching what `ci_network` allows (the
        server's default: none); `wiki` makes
        the repository's wiki (its first page, `Home.md`) and turns it on in the config.
        """
        repo = f"acme/{'inventory' if src is None else 'project'}-{os.getpid()}-{next(_COUNTER)}"
        tokens = {login: server.add_user(login) for login in (ACCOUNT, TRUSTED, VISITOR)}
        server.create_repo(
            repo, src or sample_template(), ci=ci, wiki=wiki, ci_base=ci_base, ci_network=ci_network
        )
        server.add_collaborator(repo, ACCOUNT)
        server.add_collaborator(repo, TRUSTED)
        root.mkdir(parents=True, exist_ok=True)
        scenario = root / "scenario.json"
        scenario.write_text(json.dumps({"sessions": []}))
        world = cls(
            server=server,
            root=root,
            repo=repo,
            tokens=tokens,
            config_path=root / "config" / "conveyor.toml",
            scenario_path=scenario,
            home=root / "conveyor-home",
        )
        world.wiki_on = wiki
        world.write_config(config or {})
        return world

    # -- configuration and scenarios -------------------------------------------------
    def base_config(self) -> dict[str, Any]:
        """The config every World starts from (the embedded forge, the scripted agent)."""
        python = sys.executable
        return {
            "repo": self.repo,
            "base": "main",
            "home": str(self.home),
            "allowed_users": [TRUSTED],
            "forge": {"kind": "local", "api_url": self.server.url},
            "account": {"login": ACCOUNT, "token_env": TOKEN_ENV},
            "commands": {"test": f"{python} -m pytest", "timeout_seconds": 120},
            "limits": {"claim_wait_seconds": [0, 0]},
            "agents": {"default": {"agent": "scripted", "scenario": str(self.scenario_path)}},
            **({"wiki": True} if self.wiki_on else {}),
        }

    def write_config(self, overrides: Mapping[str, Any]) -> Path:
        """Write the config file (outside the repository), tables merged with `overrides`."""
        data = self.base_config()
        for key, value in overrides.items():
            if isinstance(value, Mapping) and isinstance(data.get(key), Mapping):
                data[key] = {**data[key], **value}
            else:
                data[key] = value
        self.config_path.parent.mkdir(parents=True, exist_ok=True)
        self.config_path.write_text(config_toml(data))
        return self.config_path

    def write_scenario(self, sessions: Sequence[Mapping[str, Any]]) -> Path:
        """Replace the scenario with these `sessions` entries (see docs/scenarios.md)."""
        self.scenario_path.write_text(json.dumps({"sessions": list(sessions)}, indent=2))
        return self.scenario_path

    # -- people -------------------------------------------------------------------------
    def forge_as(self, login: str) -> GitHubForge:
        """The forge client acting as `login` (one per login, kept for the World's life)."""
        if login not in self._forges:
            token = self.tokens[login]
            self._forges[login] = token_forge(self.repo, token, base_url=self.server.url)
        return self._forges[login]

    def open_issue(self, title: str, body: str, author: str = TRUSTED) -> Issue:
        """Open an issue as `author`."""
        return self.forge_as(author).create_issue(title, body)

    def comment(self, number: int, body: str, author: str = TRUSTED) -> Comment:
        """Comment on an issue as `author`."""
        return self.forge_as(author).create_comment(number, body)

    # -- running Conveyor ---------------------------------------------------------------
    @property
    def repo_home(self) -> Path:
        """`$CONVEYOR_HOME/<owner>__<repo>`."""
        return self.home / self.repo.replace("/", "__")

    def kept_files(self, pattern: str) -> list[Path]:
        """The files under the repository's home matching `pattern` (a `rglob` pattern), not
        looking in the trash: its folders are deleted in the background after a job ends, and
        a walk through them races that deletion."""
        home = self.repo_home
        parts = (p for p in home.iterdir() if p.name != TRASH) if home.is_dir() else ()
        return sorted(f for part in parts for f in ([part] if part.is_file() else part.rglob("*"))
                      if f.match(pattern))  # fmt: skip

    def env(self) -> dict[str, str]:
        """The environment of a job or drive: a tmp HOME, the token variable, nothing else."""
        env = {k: v for k in KEPT_ENV if (v := os.environ.get(k)) is not None}
        user_home = self.root / "user-home"
        user_home.mkdir(exist_ok=True)
        env |= {"HOME": str(user_home), TOKEN_ENV: self.tokens[ACCOUNT]}
        # Where a test and its scripted sessions meet (the sessions' box makes it writable).
        env[TEST_SHARE_ENV] = str(self.root.parent)
        return env | self.extra_env

    def run(self, *args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
        """Run `conveyor ARGS --config <world config>` and wait for it."""
        return run_conveyor([*args, "--config", str(self.config_path)], self.env(), timeout=timeout)

    def start(self, *args: str) -> Process:
        """Start `conveyor ARGS --config <world config>` in its own process group.

        A fork of the preloaded fork server, as `run` is (`CONVEYOR_TEST_EXEC=1`: by exec);
        the answer is signalled, polled and read as a `Popen` is.
        """
        return start_conveyor([*args, "--config", str(self.config_path)], self.env())

    def job(self, issue: int, stage: str, *more: str) -> subprocess.CompletedProcess[str]:
        """Run one stage job."""
        return self.run("job", "--issue", str(issue), "--stage", stage, *more)

    def drive(
        self,
        issue: int,
        through: str | None = None,
        *,
        take_stopped: bool = False,
        timeout: float = 240,
    ) -> subprocess.CompletedProcess[str]:
        """Drive the issue's stage jobs (until it halts, or through `through`)."""
        more = ("--through", through) if through else ()
        flags = ("--take-stopped",) if take_stopped else ()
        return self.run("drive", "--issue", str(issue), *more, *flags, timeout=timeout)

    # -- what a person sees -------------------------------------------------------------
    def issue(self, number: int) -> Issue:
        """The issue as the forge shows it."""
        return self.forge_as(TRUSTED).get_issue(number)

    def labels(self, number: int) -> tuple[str, ...]:
        """The issue's labels."""
        return self.issue(number).labels

    def comments(self, number: int) -> tuple[Comment, ...]:
        """The issue's (or PR's) comments, oldest first."""
        return self.forge_as(TRUSTED).list_comments(number).comments

    def state(self, number: int) -> IssueState | None:
        """The issue's state as the pipeline's account saved it."""
        return find_state(self.comments(number), ACCOUNT).state

    def pr(self, number: int) -> PullRequest | None:
        """The PR of the issue's branch, if any."""
        return self.forge_as(TRUSTED).find_pr(f"agent/issue-{number}")

    def bare(self) -> Repo:
        """The forge's bare repository."""
        owner, name = self.repo.split("/")
        return Repo(bare_repo_path(self.server.data_dir, owner, name))

    def wiki(self) -> Repo:
        """The forge's bare wiki repository."""
        owner, name = self.repo.split("/")
        return Repo(bare_repo_path(self.server.data_dir, owner, name, wiki=True))

    def wiki_file(self, path: str, branch: str = "master") -> str | None:
        """A page of the wiki's branch on the forge, or None when absent."""
        try:
            return read_blob(self.wiki(), f"refs/heads/{branch}", path).decode()
        except GitError:
            return None

    def ref(self, ref: str) -> str | None:
        """The SHA a ref of the forge's repository holds (`refs/heads/main`), if any."""
        return try_rev_parse(self.bare(), ref)

    def base_file(self, path: str, branch: str = "main") -> str | None:
        """A file of a branch on the forge, or None when absent."""
        if self.ref(f"refs/heads/{branch}") is None:
            return None
        try:
            return read_blob(self.bare(), f"refs/heads/{branch}", path).decode()
        except GitError:
            return None
