"""The job's git effects: the push op bound to its checkout, the commit op, the exit push."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from conveyor.agents.control import refused_paths
from conveyor.core.signatures import SKIP_CHECKS, SKIP_CHECKS_ROLES, trailer
from conveyor.git.refs import try_rev_parse
from conveyor.git.runner import Repo, git_text, run_git
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
    """`JobHands.push`: pushes from the checkout to `origin` with the job's credentials, and
    records each ref it pushed in `seen`."""

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
    """
    if not paths:
        return CommitRefused("commit needs at least one path")
    refused = refused_paths(repo.path, paths)
    if refused:
        return CommitRefused("refused: " + "; ".join(refused))
    run_git(["add", "--all", "--", *paths], cwd=repo.path, env=repo.env)
    staged = run_git(["diff", "--cached", "--quiet"], cwd=repo.path, env=repo.env, ok_codes=(0, 1))
    if staged.returncode == 0:
        return CommitRefused(f"nothing to commit in {', '.join(paths)}")
    skip = f"{SKIP_CHECKS}\n" if role in SKIP_CHECKS_ROLES else ""
    text = f"{message.strip()}\n\n{trailer(role)}\n{skip}"
    run_git(
        ["commit", "--quiet", "--file=-"], cwd=repo.path, env=repo.env, input_bytes=text.encode()
    )
    return git_text(repo, "rev-parse", "HEAD")


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
