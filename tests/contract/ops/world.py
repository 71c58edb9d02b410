"""A small world for the ops' contract tests: a fresh repository on the embedded forge."""

from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import httpx

from conveyor.core.config import AccountConfig, Commands, Config, Limits
from conveyor.core.invariants import (
    IssueSnapshot,
    PrSnapshot,
    Snapshot,
    Violation,
    check_invariants,
)
from conveyor.core.state_codec import Decoded, decode_state, encode_state, is_state_body
from conveyor.emulator.app.server import ForgeServer
from conveyor.forge.errors import NotFound
from conveyor.forge.github import GitHubForge, token_forge
from conveyor.forge.protocol import Forge
from conveyor.ops.forge.context import OpContext
from conveyor.testing import http

ACCOUNT = "conveyor-bot"
OWNER = "owner"
VISITOR = "visitor"
# One `now` for the whole test session: states written in different runs of a
# crash test must be identical, and the forge's own timestamps (which decide
# whether a claim is live) must be close to it.
NOW = datetime.now(UTC).replace(microsecond=0)
_repos = itertools.count(1)

IssueView = tuple[str, str, str, tuple[str, ...], tuple[tuple[str, str], ...], tuple[int, ...]]


@dataclass
class World:
    """One repository with the pipeline's account, its trusted owner and a visitor."""

    server: ForgeServer
    slug: str
    bot: GitHubForge
    owner: GitHubForge
    visitor: GitHubForge
    home: Path
    limits: Limits = field(default_factory=Limits)

    @property
    def config(self) -> Config:
        """The configuration the ops run with."""
        return Config(
            repo=self.slug,
            account=AccountConfig(login=ACCOUNT, token_env="CONVEYOR_TEST_TOKEN"),
            allowed_users=(OWNER,),
            commands=Commands(test="true"),
            limits=self.limits,
        )

    def ctx(self, forge: Forge | None = None, run_id: str = "run1") -> OpContext:
        """An op context acting as the pipeline's account."""
        return OpContext(forge=forge or self.bot, config=self.config, run_id=run_id)

    def folder(self, number: int) -> Path:
        """The issue's run folder under this world's home."""
        return self.home / self.config.repo_dirname / "runs" / f"issue-{number}"

    def normal(self, text: str) -> str:
        """Text with this world's repository name and comment ids made generic (in a state
        comment too: the hashes of the texts taken are kept by comment id)."""
        outcome = decode_state(text) if is_state_body(text) else None
        decoded = outcome.state if isinstance(outcome, Decoded) else None
        if decoded is not None:
            taken = {re.sub(r"comment:\d+", "comment:ID", k): v for k, v in decoded.taken.items()}
            text = encode_state(decoded.model_copy(update={"taken": taken}))
        text = re.sub(r"comment:\d+", "comment:ID", text)
        text = re.sub(r"issuecomment-\d+", "issuecomment-ID", text.replace(self.slug, "SLUG"))
        text = re.sub(r"bad-state-\d+", "bad-state-ID", text)
        # issue.md stamps each comment with the forge's minute: runs of one test
        # straddle a minute boundary now and then, and the minute is not what is compared.
        return re.sub(r"\(\d{4}-\d\d-\d\d \d\d:\d\d UTC\)", "(TIME)", text)

    def seen(self) -> dict[int, IssueView]:
        """What a person sees: each issue's title, body, state, labels, comments, sub-issues."""
        view: dict[int, IssueView] = {}
        for number in itertools.count(1):
            try:
                issue = self.bot.get_issue(number)
            except NotFound:
                if (pr := self._pr_view(number)) is None:
                    return view
                view[number] = pr
                continue
            comments = tuple(
                (c.author, self.normal(c.body)) for c in self.bot.list_comments(number).comments
            )
            subs = tuple(sorted(s.number for s in self.bot.list_sub_issues(number)))
            view[number] = (
                issue.title,
                issue.body,
                issue.state,
                tuple(sorted(issue.labels)),
                comments,
                subs,
            )
        return view

    def _pr_view(self, number: int) -> IssueView | None:
        """A PR as a person sees it (title, body, state, comments), or None when there is none."""
        try:
            pr = self.bot.get_pr(number)
        except NotFound:
            return None
        comments = tuple(
            (c.author, self.normal(c.body)) for c in self.bot.list_comments(number).comments
        )
        return (pr.title, pr.body, "pr", (), comments, ())


def invariants_of(world: World, now: datetime) -> tuple[Violation, ...]:
    """check_invariants over every issue of the world, with each issue's PR if it has one."""
    issues = []
    for number in itertools.count(1):
        try:
            issue = world.bot.get_issue(number)
        except NotFound:
            break
        pr = world.bot.find_pr(f"agent/issue-{number}")
        issues.append(
            IssueSnapshot(
                number,
                issue.state == "open",
                issue.labels,
                world.bot.list_comments(number).comments,
                None if pr is None else PrSnapshot(pr.number, pr.title, pr.body),
            )
        )
    hours = world.limits.lease_hours
    return check_invariants(Snapshot(ACCOUNT, now, hours, tuple(issues)))


class KeptOpen(httpx.BaseTransport):
    """One connection pool lent to every client of these tests; closing a client keeps it.

    The crash tests build about a hundred worlds of three clients each: they reuse the
    pool's loopback connections instead of opening new ones for every world.
    """

    def __init__(self) -> None:
        self.inner = http.transport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """Send through the shared pool."""
        return self.inner.handle_request(request)

    def close(self) -> None:
        """Keep the pool open for the next world."""


@functools.cache
def shared_transport() -> KeptOpen:
    """The process's one loopback transport for the ops' tests."""
    return KeptOpen()


def make_world(server: ForgeServer, tmp_path: Path) -> World:
    """A fresh repository `test/opsN` with the three users."""
    slug = f"test/ops{next(_repos)}"
    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    (src / "README.md").write_text("sample\n")
    server.create_repo(slug, src)
    tokens = {login: server.add_user(login) for login in (ACCOUNT, OWNER, VISITOR)}
    server.add_collaborator(slug, ACCOUNT)
    server.add_collaborator(slug, OWNER)
    forges = {
        login: token_forge(slug, token, base_url=server.url, transport=shared_transport())
        for login, token in tokens.items()
    }
    return World(server, slug, forges[ACCOUNT], forges[OWNER], forges[VISITOR], tmp_path / "home")
