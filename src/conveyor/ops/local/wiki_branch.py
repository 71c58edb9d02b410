"""The issue's wiki branch: what it holds of its own, pushing it, resetting it (WT-9, FLOW-1).

The wiki checkout's commits of its own are those its HEAD has beyond the wiki's
published branch. A push sends them to the wiki's `agent/issue-N` with
`--force-with-lease` (the branch as last fetched) while holding the wiki lock, the
same lock the wiki cache is fetched under.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from conveyor.git.agent_repo import changed
from conveyor.git.checkout import file_lock
from conveyor.git.keep import BETWEEN_COMMITS
from conveyor.git.refs import is_ancestor, try_rev_parse
from conveyor.git.runner import Repo, git_text, run_git
from conveyor.git.token_push import PushAuth, PushResult, push_ref


@dataclass(frozen=True)
class WikiCheckout:
    """A job's wiki checkout: its folder in the code checkout, the published branch, its start.

    `lock` is the wiki lock (the wiki cache's); `auth` the job's push op credentials.
    """

    repo: Repo
    dir: str
    url: str
    base: str
    branch: str
    start_sha: str
    auth: PushAuth
    lock: Path

    @property
    def base_ref(self) -> str:
        """The wiki's published branch as last fetched."""
        return f"refs/remotes/origin/{self.base}"

    @property
    def branch_ref(self) -> str:
        """The issue's wiki branch as a full ref name on the wiki."""
        return f"refs/heads/{self.branch}"

    @property
    def tracking_ref(self) -> str:
        """The issue's wiki branch as last fetched or pushed."""
        return f"refs/remotes/origin/{self.branch}"


def head(wiki: WikiCheckout) -> str:
    """The wiki checkout's HEAD."""
    return git_text(wiki.repo, "rev-parse", "HEAD").strip()


def own_commits(wiki: WikiCheckout, rev: str = "HEAD") -> int:
    """How many commits `rev` has that the wiki's published branch lacks."""
    count = git_text(wiki.repo, "rev-list", "--count", rev, "--not", wiki.base_ref, "--")
    return int(count.strip())


def wiki_ahead(wiki: WikiCheckout | None) -> bool:
    """Whether the issue's wiki branch has commits of its own (the wiki flow, FLOW-1)."""
    return wiki is not None and own_commits(wiki) > 0


def changed_pages(wiki: WikiCheckout, since: str) -> tuple[str, ...]:
    """The wiki files HEAD changed since `since` (added, edited or deleted)."""
    out = run_git(
        ["diff", BETWEEN_COMMITS, "--name-only", "--no-renames", since, "HEAD"],
        cwd=wiki.repo.path,
        env=wiki.repo.env,
    )
    return tuple(line for line in out.stdout.decode().splitlines() if line)


def _push(wiki: WikiCheckout, src: str | None) -> PushResult:
    lease = try_rev_parse(wiki.repo, wiki.tracking_ref) or ""
    with file_lock(wiki.lock):
        return push_ref(wiki.repo, "origin", src, wiki.branch_ref, wiki.auth, lease=lease)


def push_wiki(wiki: WikiCheckout | None) -> PushResult | None:
    """Push the wiki checkout's HEAD to the wiki's `agent/issue-N` when it has commits of
    its own and the branch does not hold it yet; None when there was nothing to push."""
    if wiki is None or own_commits(wiki) == 0:
        return None
    sha = head(wiki)
    if try_rev_parse(wiki.repo, wiki.tracking_ref) == sha:
        return None
    return _push(wiki, sha)


def reset_wiki(wiki: WikiCheckout | None, to_sha: str | None) -> PushResult | None:
    """Put the wiki branch back at `to_sha` (SPEC-99); a branch left with nothing of its
    own is deleted from the wiki."""
    if wiki is None or to_sha is None:
        return None
    changed(wiki.repo, "reset", "--quiet", "--hard", to_sha)
    remote = try_rev_parse(wiki.repo, wiki.tracking_ref)
    if remote is None or remote == to_sha:
        return None
    base = try_rev_parse(wiki.repo, wiki.base_ref)
    if base is not None and is_ancestor(wiki.repo, to_sha, base):
        return _push(wiki, None)
    return _push(wiki, to_sha)
