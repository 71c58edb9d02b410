"""The merge op (merger, no model): behind checks, the squash merge at the verified SHA."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from conveyor.core.merge_rules import Behind, behind, refused_as_behind
from conveyor.forge.errors import Conflict, NotMergeable
from conveyor.forge.protocol import Forge
from conveyor.forge.types import PullRequest
from conveyor.git import Repo, is_ancestor, try_rev_parse
from conveyor.ops.local.sync_base import base_ref


def fetch_pr_settled(forge: Forge, number: int) -> PullRequest:
    """The PR, read again once when the forge is still computing its mergeability."""
    pr = forge.get_pr(number)
    if pr.mergeable is None or pr.mergeable_state == "unknown":
        pr = forge.get_pr(number)
    return pr


def has_base(repo: Repo, verified: str, base_shas: tuple[str, ...]) -> bool:
    """Whether `verified` contains every given base head (a head unknown here counts as missing)."""
    for sha in base_shas:
        if try_rev_parse(repo, f"{sha}^{{commit}}") is None:
            return False
        if not is_ancestor(repo, sha, verified):
            return False
    return True


def check_behind(forge: Forge, repo: Repo, number: int, verified: str, base: str) -> Behind | None:
    """Behind before merging: the forge's word, or the base's head missing from `verified`.

    The local check matters on an unprotected base, where the forge reads a stale
    branch as clean and would merge it (MRG-4).
    """
    pr = fetch_pr_settled(forge, number)
    if pr.merged:
        return None  # merged by an earlier try that died before its close-out
    local = try_rev_parse(repo, base_ref(base))
    heads = tuple(dict.fromkeys(s for s in (pr.base_sha, local) if s))
    return behind(mergeable_state=pr.mergeable_state, has_base=has_base(repo, verified, heads))


@dataclass(frozen=True)
class MergeAttempt:
    """The squash merge: made (`sha` on the base), refused because the base moved, or refused."""

    outcome: Literal["merged", "behind", "refused"]
    sha: str = ""
    reason: str = ""


def squash_merge(forge: Forge, number: int, sha: str, *, base: str) -> MergeAttempt:
    """Squash-merge PR `number` expecting `sha` as its head; a leftover draft is readied first.

    A PR still based on another branch (a stack that ended without its retarget)
    is based on `base` first: the pipeline merges into the base only.
    """
    pr = forge.get_pr(number)
    if pr.merged:
        return MergeAttempt("merged", pr.merge_commit_sha or "", "the PR was already merged")
    if pr.base_ref != base:
        forge.edit_pr(number, base=base)
    if pr.draft:
        forge.mark_pr_ready(number)
    try:
        made = forge.merge_pr(number, sha, pr.title, pr.body)
    except (Conflict, NotMergeable) as exc:
        if refused_as_behind(exc.message):
            return MergeAttempt("behind", reason=exc.message)
        return MergeAttempt("refused", reason=exc.message)
    return MergeAttempt("merged", made.sha)
