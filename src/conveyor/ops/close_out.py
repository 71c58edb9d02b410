"""Close-out after a merge: the merger's comment, labels, claims, branch, teardown, parent."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path

from conveyor.core.labels import Status, status_label
from conveyor.core.signatures import Signature
from conveyor.core.verify import CommandResult, skipped
from conveyor.ops.claim_comments import close_live_claims
from conveyor.ops.context import OpContext
from conveyor.ops.labels import set_agent_label
from conveyor.ops.post import post_comment
from conveyor.ops.split import close_parent
from conveyor.verify import run_command

MERGER = "merger"


def merger_text(pr: int, merge_sha: str, *, tests_only: bool, base: str) -> str:
    """The merger's comment: what merged where, and which checks stood behind it."""
    how = (
        "The branch was behind the base and rebased cleanly; tests only were re-run "
        "(setup, tests, lockfiles) before the merge."
        if tests_only
        else "Verify, CI, acceptance and security passed at the merged head."
    )
    return f"### Merged\n\nPR #{pr} was squash-merged into `{base}` as {merge_sha}.\n\n{how}\n"


def close_out(
    ctx: OpContext,
    issue: int,
    pr: int,
    *,
    merge_sha: str,
    tests_only: bool,
    parent: int | None,
    now: datetime,
    signature: Signature,
) -> None:
    """Everything after a merge but the state save (the runner saves the issue at done)."""
    base = ctx.config.base
    post_comment(
        ctx, pr, "merged", merger_text(pr, merge_sha, tests_only=tests_only, base=base), signature
    )
    if base != ctx.forge.repo_info().default_branch:
        # The forge closes `Closes #N` issues only for merges into the default branch (MRG-13).
        text = f"Closed by PR #{pr}, merged into `{base}`."
        post_comment(ctx, issue, "closed", text, signature)
        ctx.forge.close_issue(issue, "completed")
    labels = ctx.forge.get_issue(issue).labels
    set_agent_label(ctx, issue, labels, status_label(Status.MERGED))
    close_live_claims(ctx, issue, now, f"PR #{pr} merged.")
    ctx.forge.delete_branch(f"agent/issue-{issue}")
    if parent is not None:
        close_parent(ctx, parent, now=now)


def run_teardown(
    command: str | None, run_dir: Path, env: Mapping[str, str], *, timeout_s: float
) -> CommandResult:
    """The configured teardown command in the issue's run folder (DONE-3), its log kept there."""
    if command is None:
        return skipped("teardown", "not configured")
    run_dir.mkdir(parents=True, exist_ok=True)
    return run_command(
        "teardown",
        command,
        run_dir,
        env=env,
        timeout_s=timeout_s,
        log_path=run_dir / "teardown.log",
    )
