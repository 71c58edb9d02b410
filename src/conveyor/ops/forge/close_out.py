"""Close-out after a merge: the merger's comment, labels, claims, branch, teardown, parent."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path

from conveyor.core.budget import reset_rebase_pool
from conveyor.core.labels import Status, status_label
from conveyor.core.signatures import Signature, parse_marker
from conveyor.core.state import Stage
from conveyor.core.verify import CommandResult, skipped
from conveyor.ops.forge.claim_comments import close_live_claims
from conveyor.ops.forge.context import OpContext, fetch_comments
from conveyor.ops.forge.labels import set_agent_label
from conveyor.ops.forge.post import post_comment
from conveyor.ops.forge.split import close_parent
from conveyor.ops.forge.state_store import fetch_state, save_state, state_of
from conveyor.stages.effects_merge import PersonMerged
from conveyor.verify import run_command
from conveyor.verify.boxing import Boxing, Opening, wrapped

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


def person_merged_text(pr: int, person: PersonMerged, *, verified: str, base: str) -> str:
    """The closing comment of a handed-over PR a person merged: who, where, and whether the
    head they merged is the one Conveyor verified."""
    who = f"@{person.login}" if person.login else "a person"
    if person.head and verified and person.head != verified:
        how = (
            f"Conveyor verified `{verified[:12]}` (verify, CI, acceptance and the security "
            f"review) before the handover. The head merged, `{person.head[:12]}`, came after "
            "it: Conveyor did not review or verify those commits."
        )
    else:
        how = "Verify, CI, acceptance and the security review passed at the merged head."
    sha = person.sha or "a merge commit the forge did not name"
    return f"### Merged\n\nPR #{pr} was merged into `{base}` by {who} as {sha}.\n\n{how}\n"


def _post_once(ctx: OpContext, number: int, kind: str, text: str, signature: Signature) -> None:
    """Post the merger's comment unless one of that kind is there from any run: a close-out
    finished by the sweep runs under another run id than the job that merged."""
    for comment in fetch_comments(ctx, number):
        marker = parse_marker(comment.body)
        mine = marker is not None and (marker.role, marker.kind) == (MERGER, kind)
        if mine and ctx.trust().pipeline(comment):
            return
    post_comment(ctx, number, kind, text, signature)


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
    person: PersonMerged | None = None,
    verified: str = "",
) -> None:
    """Everything after a merge but the state save and the label (see `mark_merged`).

    Each step can run again: a close-out cut short (a kill, a forge error) is finished by
    the next merge job or by the orchestrator's sweep of closed issues. A PR a person merged
    after its handover (`person`) gets their merge's comment, and its issue is closed here
    whenever the merge left it open (they may have edited `Closes #N` out of the body).
    """
    base = ctx.config.base
    if person is None:
        text = merger_text(pr, merge_sha, tests_only=tests_only, base=base)
    else:
        text = person_merged_text(pr, person, verified=verified, base=base)
    _post_once(ctx, pr, "merged", text, signature)
    other_base = base != ctx.forge.repo_info().default_branch
    if other_base or (person is not None and ctx.forge.get_issue(issue).state == "open"):
        # The forge closes `Closes #N` issues only for merges into the default branch (MRG-13).
        closing = f"Closed by PR #{pr}, merged into `{base}`."
        _post_once(ctx, issue, "closed", closing, signature)
        ctx.forge.close_issue(issue, "completed")
    close_live_claims(ctx, issue, now, f"PR #{pr} merged.")
    ctx.forge.delete_branch(f"agent/issue-{issue}")
    if parent is not None:
        close_parent(ctx, parent, now=now)


def mark_merged(ctx: OpContext, issue: int) -> None:
    """`agent:merged` in place of `agent:working`: the close-out's last write, after the issue
    is saved at done, so a closed issue still labelled working is one whose close-out did not
    finish (the orchestrator's sweep looks for exactly those)."""
    labels = ctx.forge.get_issue(issue).labels
    set_agent_label(ctx, issue, labels, status_label(Status.MERGED))


TEARDOWN_DIR = "teardown"  # the one folder of the run folder a boxed teardown may write


def run_teardown(
    command: str | None,
    run_dir: Path,
    env: Mapping[str, str],
    *,
    timeout_s: float,
    boxing: Boxing | None = None,
) -> CommandResult:
    """The configured teardown command in the issue's run folder (DONE-3), its log kept there.

    It runs in the job's box (`boxing`), which shows it the run folder read-only and gives it
    `TEARDOWN_DIR` inside it to write: the job writes the run folder after teardown (events,
    its view), so a link planted there would have the job write through it.
    """
    if command is None:
        return skipped("teardown", "not configured")
    run_dir.mkdir(parents=True, exist_ok=True)
    opening = Opening(run_dir, (run_dir / TEARDOWN_DIR,), cwd_writable=False)
    return run_command(
        "teardown",
        command,
        run_dir,
        env=env,
        timeout_s=timeout_s,
        log_path=run_dir / "teardown.log",
        wrap=lambda argv: wrapped(boxing, opening, env, argv),
    )


def finish_close_out(ctx: OpContext, issue: int, *, now: datetime) -> str | None:
    """The close-out of a merged issue whose merge job did not finish it (the sweep's op).

    Reads the state and the PR again: nothing is done unless the PR merged. Saved at
    done with the lease cleared, then labelled merged; returns the merge commit's SHA.
    """
    lookup = fetch_state(ctx, issue)
    state = state_of(lookup)
    if state.pr is None:
        return None
    pr = ctx.forge.get_pr(state.pr)
    if not pr.merged:
        return None
    sha = pr.merge_commit_sha or ""
    # A head the tests passed at is what merged, unless the merge job rebased it first.
    tests_only = state.verified_sha is not None and state.verified_sha != pr.head_sha
    close_out(
        ctx,
        issue,
        pr.number,
        merge_sha=sha,
        tests_only=tests_only,
        parent=state.parent,
        now=now,
        signature=ctx.signature(MERGER),
    )
    done = reset_rebase_pool(state).model_copy(update={"stage": Stage.DONE, "lease": None})
    save_state(ctx, issue, done)
    mark_merged(ctx, issue)
    return sha
