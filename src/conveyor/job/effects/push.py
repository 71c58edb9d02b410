"""The job's git effects: the push op bound to its checkout, the commit op, the exit push."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from conveyor.agents.control import refused_paths
from conveyor.core.signatures import SKIP_CHECKS, SKIP_CHECKS_ROLES, trailer
from conveyor.git.agent_repo import agent_git, harvest
from conveyor.git.refs import rev_parse, try_rev_parse
from conveyor.git.runner import GitError, Repo, git_text
from conveyor.git.token_push import PushAuth, PushResult, push_ref


class Pusher(Protocol):
    """The push op bound to this job's checkout and credentials.

    `src` is a revision of the checkout (None deletes `dst`); `dst` a full ref
    name (`refs/heads/agent/issue-7`). `lease` is the SHA the remote ref must
    still hold (`""`: must not exist); without `lease` or `force` only a
    fast-forward is accepted. Refusals come back as `ok=False`, not raised.
    """

    def __call__(
        self, src: str | None, dst: str, *, lease: str | None = None, force: bool = False
    ) -> PushResult:
        """Push one ref to the forge."""
        ...


@dataclass(frozen=True)
class HeadsSeen:
    """The head of each remote ref as this job last fetched or pushed it (SPEC-128).

    Kept in the job's memory, not in the checkout: a session can rewrite the checkout's
    refs, never this. A ref never named here is unknown (`known` False).
    """

    heads: dict[str, str | None] = field(default_factory=dict)

    def known(self, ref: str) -> bool:
        """Whether the job fetched or pushed `ref`."""
        return ref in self.heads

    def get(self, ref: str) -> str | None:
        """The head last fetched or pushed (None: the ref did not exist)."""
        return self.heads.get(ref)

    def saw(self, ref: str, sha: str | None) -> None:
        """Record `ref` at `sha` (None: deleted)."""
        self.heads[ref] = sha


@dataclass(frozen=True)
class JobPusher:
    """`JobHands.push`: pushes from the checkout's keep to its `origin` (the configured
    forge's URL, written into the keep's config, which no box can write; the checkout's
    own config is never read), with the job's credentials, and records each ref it pushed
    in `seen`."""

    repo: Repo
    auth: PushAuth
    remote: str = "origin"
    seen: HeadsSeen = field(default_factory=HeadsSeen)

    def __call__(
        self, src: str | None, dst: str, *, lease: str | None = None, force: bool = False
    ) -> PushResult:
        """Push one ref (see `Pusher`)."""
        done = push_ref(self.repo, self.remote, src, dst, self.auth, lease=lease, force=force)
        if done.ok:
            self.seen.saw(dst, done.sha)
        return done


@dataclass(frozen=True)
class CommitRefused:
    """The commit tool refused the request; `reason` names the paths or what was missing."""

    reason: str


def commit_paths(repo: Repo, paths: list[str], message: str, role: str) -> str | CommitRefused:
    """Commit `paths` (additions, edits, deletions) with the role's trailer; the new SHA.

    Refuses paths outside the checkout, in `.git`, or an empty commit (`CommitRefused`).
    The commit is made in the agent's own repository, in the box and with its hooks off
    (a project's commit-msg hook neither runs nor refuses it), then taken into the keep.
    """
    if not paths:
        return CommitRefused("commit needs at least one path")
    refused = refused_paths(repo.path, paths)
    if refused:
        return CommitRefused("refused: " + "; ".join(refused))
    agent_git(repo, "add", "--all", "--", *paths)
    staged = agent_git(repo, "diff", "--cached", "--quiet", ok_codes=(0, 1))
    if staged.returncode == 0:
        return CommitRefused(f"nothing to commit in {', '.join(paths)}")
    skip = f"{SKIP_CHECKS}\n" if role in SKIP_CHECKS_ROLES else ""
    text = f"{message.strip()}\n\n{trailer(role)}\n{skip}"
    agent_git(repo, "commit", "--quiet", "--file=-", input_bytes=text.encode())
    return harvest(repo) or rev_parse(repo, "HEAD")


def commit_split(
    repo: Repo, wiki: Repo | None, wiki_dir: str, paths: list[str], *, message: str, role: str
) -> str | CommitRefused:
    """The commit tool with a wiki checkout: paths under `<wiki_dir>/` commit in the wiki.

    Each checkout with paths gets its own commit; the last SHA is returned, or the first
    refusal.
    """
    prefix = f"{wiki_dir}/"
    mine = [p for p in paths if wiki is None or not p.startswith(prefix)]
    theirs = [p.removeprefix(prefix) for p in paths if wiki is not None and p.startswith(prefix)]
    sha: str | CommitRefused = ""
    if mine or not theirs:
        sha = commit_paths(repo, mine, message, role)
        if isinstance(sha, CommitRefused):
            return sha
    if wiki is not None and theirs:
        sha = commit_paths(wiki, theirs, message, role)
    return sha


def take_agent_heads(repo: Repo, wiki: Repo | None) -> str | None:
    """Take the agent's HEAD of the checkout (and of the wiki checkout) into their keeps, as
    after a writer's session; None, or what could not be taken (that keep stays as it was:
    the agent's repository no longer gives a commit)."""
    failed = []
    for one in (repo, wiki):
        if one is None or not one.path.is_dir():
            continue
        try:
            harvest(one)
        except GitError as exc:
            failed.append(f"{one.path}: {exc}")
    return "; ".join(failed) or None


def unpushed_head(repo: Repo) -> str | None:
    """HEAD when it has commits on no branch of the remote as last fetched (`--remotes=origin`:
    the issue's branch, the base, a prerequisite's branch a stacked issue starts on), else None."""
    head = try_rev_parse(repo, "HEAD")
    if head is None:
        return None
    count = git_text(repo, "rev-list", "--count", head, "--not", "--remotes=origin", "--")
    return head if int(count) > 0 else None


def only_local_note(head: str, branch: str, error: str) -> str:
    """What a stop comment says when the exit push failed (STOP-9)."""
    return (
        f"The last commits are only local: pushing them to `{branch}` failed ({error.strip()}). "
        f"The local head was `{head}`."
    )
