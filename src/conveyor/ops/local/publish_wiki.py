"""Publishing the issue's wiki commits (MRG-16, FLOW-5, FLOW-9): replay them on the wiki's
latest version and push that to the wiki's published branch.

With no commits of its own the publish finishes without a push. A rebase that
conflicts is aborted and the commits are saved as `wiki-unpushed.patch` in the run
folder, for a person to apply. A push that loses a race with someone editing the
wiki fetches and replays again, a few times. After a crash between the push and the
issue's save, the replay finds the commits already there and publishes nothing new.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from conveyor.git import CommitInfo, log_commits, rev_parse, run_git
from conveyor.git.agent_repo import changed
from conveyor.git.checkout import file_lock
from conveyor.git.keep import BETWEEN_COMMITS
from conveyor.git.rebase import abort_rebase, rebase
from conveyor.git.refs import try_rev_parse
from conveyor.git.token_push import push_ref
from conveyor.ops.local.wiki_branch import WikiCheckout, own_commits

PATCH_FILE = "wiki-unpushed.patch"
PUSH_TRIES = 3


@dataclass(frozen=True)
class Published:
    """What publishing did: `commits` are the published ones (their new SHAs), oldest first."""

    outcome: Literal["published", "nothing", "conflict"]
    base: str
    commits: tuple[CommitInfo, ...] = ()
    conflicts: tuple[str, ...] = ()
    patch: Path | None = None


def _fetch(wiki: WikiCheckout) -> None:
    refspec = "+refs/heads/*:refs/remotes/origin/*"
    with file_lock(wiki.lock):
        run_git(
            ["fetch", "--quiet", "--no-tags", "--prune", wiki.url, refspec],
            cwd=wiki.repo.path,
            env=wiki.repo.env,
            extra_env=wiki.auth.fetch_variables(),
        )


def save_patch(wiki: WikiCheckout, run_dir: Path, head: str) -> Path:
    """The issue's own wiki commits as a patch series in the run folder."""
    done = run_git(
        ["format-patch", BETWEEN_COMMITS, "--stdout", f"{wiki.base_ref}..{head}"],
        cwd=wiki.repo.path,
        env=wiki.repo.env,
    )
    run_dir.mkdir(parents=True, exist_ok=True)
    path = run_dir / PATCH_FILE
    path.write_bytes(done.stdout)
    return path


def publish_wiki(wiki: WikiCheckout, run_dir: Path) -> Published:
    """Replay the checkout's own wiki commits onto the wiki's latest version and push it."""
    original = rev_parse(wiki.repo, "HEAD")
    for _ in range(PUSH_TRIES):
        _fetch(wiki)
        if own_commits(wiki, original) == 0:
            return Published("nothing", wiki.base)
        changed(wiki.repo, "reset", "--quiet", "--hard", original)
        before = rev_parse(wiki.repo, wiki.base_ref)
        done = rebase(wiki.repo, before)
        if not done.finished:
            abort_rebase(wiki.repo)
            patch = save_patch(wiki, run_dir, original)
            return Published("conflict", wiki.base, conflicts=done.conflicts, patch=patch)
        if done.head == before:
            return Published("nothing", wiki.base)
        dst = f"refs/heads/{wiki.base}"
        with file_lock(wiki.lock):
            pushed = push_ref(wiki.repo, "origin", done.head, dst, wiki.auth, lease=before)
        if pushed.ok:
            commits = log_commits(wiki.repo, before, done.head)
            _drop_branch(wiki)
            return Published("published", wiki.base, commits)
    msg = f"the wiki's {wiki.base} kept moving; {PUSH_TRIES} publish attempts lost the race"
    raise RuntimeError(msg)


def _drop_branch(wiki: WikiCheckout) -> None:
    """Delete the issue's wiki branch once its commits are published (a failure is harmless)."""
    lease = try_rev_parse(wiki.repo, wiki.tracking_ref)
    if lease is None:
        return
    with file_lock(wiki.lock):
        push_ref(wiki.repo, "origin", None, wiki.branch_ref, wiki.auth, lease=lease)
