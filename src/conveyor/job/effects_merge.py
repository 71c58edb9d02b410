"""The runner's checks, sync and merge effects: verify, CI, rebase, merge and close-out."""

from __future__ import annotations

from typing import assert_never

from conveyor.core.ci_gate import Verdict
from conveyor.core.redact import redact
from conveyor.core.state import IssueState, StackedOn
from conveyor.git import rev_parse
from conveyor.git.rebase import abort_rebase
from conveyor.job.context import JobContext
from conveyor.job.effects_forge import signature
from conveyor.job.effects_git import shared_dirs
from conveyor.job.effects_wiki import run_check_wiki, run_finish_wiki, run_publish_wiki
from conveyor.job.stacking import measure_from
from conveyor.ops.branch_guard import OwnPushes, guard_branch
from conveyor.ops.ci_status import read_ci
from conveyor.ops.close_out import close_out, run_teardown
from conveyor.ops.finish_sync import changes_code, finish_sync
from conveyor.ops.merge import check_behind, squash_merge
from conveyor.ops.merge_order import read_queue
from conveyor.ops.stack import plan_restack, read_prereq, replay_own_commits, retarget_pr
from conveyor.ops.sync_base import base_ref, refresh_remote_refs, restore_branch, sync_base
from conveyor.ops.verify_op import failure_report, verify_head
from conveyor.ops.wiki_branch import wiki_ahead
from conveyor.stages.effects import Checked, Done, Result
from conveyor.stages.effects_merge import (
    BehindRead,
    CheckBehind,
    CheckWiki,
    CiRead,
    CloseOut,
    FinishSync,
    FinishWiki,
    GuardBranch,
    MergeEffect,
    MergePr,
    MergeTried,
    PublishWiki,
    QueueRead,
    ReadCi,
    ReadQueue,
    ReadStack,
    Rebased,
    RebaseHere,
    RestoreBranch,
    StackRead,
    SyncBase,
    SyncFinished,
    Verified,
    VerifyHead,
)

CACHE = "cache.git"


class MergeEffectFailed(RuntimeError):
    """An effect the stage needs could not be carried out (the job saves and exits 1)."""


# A CI wait polled this often is waited in the job, up to SHORT_WAIT_S (see run_read_ci).
SHORT_POLL_S = 5.0
SHORT_WAIT_S = 15.0


def _pr(ctx: JobContext, state: IssueState) -> int:
    if state.pr is not None:
        return state.pr
    found = ctx.who.forge.find_pr(ctx.what.branch)
    if found is None:
        msg = f"issue #{ctx.what.issue} has no PR for {ctx.what.branch}"
        raise MergeEffectFailed(msg)
    return found.number


def refresh(ctx: JobContext) -> None:
    """Bring the checkout's remote-tracking refs up to the forge (through the cache)."""
    refresh_remote_refs(ctx.where.git, ctx.where.home / CACHE, ctx.who.forge.repo_info().clone_url)


def run_verify(ctx: JobContext, state: IssueState, effect: VerifyHead) -> Verified:
    """Verify the checkout's head against the base (a stacked issue's: its prerequisite head);
    the summary and failures are redacted."""
    result = verify_head(
        ctx.where.git,
        ctx.what.config.commands,
        ctx.who.command_env,
        ctx.what.config.paths,
        base_ref=measure_from(ctx, state),
        logs_dir=ctx.where.job_dir / "logs",
        work_dir=ctx.where.job_dir,
        tests_only=effect.tests_only,
        heartbeat=ctx.live.job_file.heartbeat,
        shared=shared_dirs(ctx),
    )
    ctx.live.events.emit("checks", head=result.head_sha, passed=result.passed, verify=True)
    summary = redact(result.summary(), ctx.who.token_secrets)
    failures = failure_report(result, ctx.who.token_secrets)
    environment = redact(result.environment, ctx.who.token_secrets)
    return Verified(result.passed, result.head_sha, summary, failures, environment)


def run_read_ci(ctx: JobContext, effect: ReadCi) -> CiRead:
    """The CI gate on the head; a failing gate also reads the base's head.

    While the gate is pending and `ci_poll_seconds` is at most `SHORT_POLL_S`,
    the job waits for the next read itself, for up to `SHORT_WAIT_S` in all:
    starting a new job a second later would cost more than the wait. Longer
    polls are the hold of CHK-15 (the issue is saved with its `ci_wait`).
    """

    def base_sha() -> str:
        branch = ctx.who.forge.get_branch(ctx.what.base)
        return branch.sha if branch else rev_parse(ctx.where.git, base_ref(ctx.what.base))

    limits = ctx.what.config.limits
    wait, start = effect.wait, ctx.live.now()
    while True:
        status = read_ci(
            ctx.who.forge,
            effect.sha,
            base=ctx.what.base,
            base_sha=base_sha,
            wait=wait,
            now=ctx.live.now(),
            limits=limits,
        )
        gate = status.gate
        waited = (ctx.live.now() - start).total_seconds()
        short = limits.ci_poll_seconds <= SHORT_POLL_S
        if gate.verdict is not Verdict.PENDING or not short:
            return CiRead(gate, status.unrelated)
        if waited + limits.ci_poll_seconds > SHORT_WAIT_S:
            return CiRead(gate, status.unrelated)
        if ctx.live.hub.interrupted.wait(limits.ci_poll_seconds):
            return CiRead(gate, status.unrelated)
        wait = gate.wait


def run_sync_base(ctx: JobContext, stacked: StackedOn | None) -> Rebased:
    """Refresh the base, then rebase onto it (a conflicted rebase stays for the resolver).

    A stacked branch replays only its own commits onto P's head, or onto the base
    once P merged (STK-2, STK-4); the result says where it went.
    """
    refresh(ctx)
    if stacked is None:
        done = sync_base(ctx.where.git, ctx.what.base)
        return Rebased(done.outcome, done.head_sha, done.conflicts)
    move = plan_restack(ctx.who.forge, ctx.where.git, stacked, ctx.what.base)
    done = replay_own_commits(ctx.where.git, move)
    ctx.live.events.emit("restacked", on=stacked.issue, onto=move.onto, outcome=done.outcome)
    return Rebased(done.outcome, done.head_sha, done.conflicts, stack=move)


def run_finish_sync(ctx: JobContext, state: IssueState, effect: FinishSync) -> SyncFinished:
    """Check the finished rebase and push it with lease; a stacked PR follows its new base.

    The flows it leaves are measured from the commit the rebase went onto (a
    stacked issue's prerequisite head while stacked), as its own change starts there.
    """
    done = finish_sync(
        ctx.where.git, ctx.who.push, base=ctx.what.base, branch=ctx.what.branch, onto=effect.onto
    )
    if not done.ok:
        return SyncFinished(done.ok, done.head_sha, done.findings)
    ctx.live.events.emit("pushed", ref=ctx.what.branch_ref, sha=done.head_sha)
    if retarget_pr(ctx.who.forge, state.pr, effect.pr_base):
        ctx.live.events.emit("pr-retargeted", pr=state.pr, base=effect.pr_base)
    changed = changes_code(ctx.where.git, ctx.what.base, effect.onto)
    return SyncFinished(done.ok, done.head_sha, done.findings, changed, wiki_ahead(ctx.where.wiki))


def run_rebase_here(ctx: JobContext, state: IssueState, effect: RebaseHere) -> Rebased:
    """The merge stage's own rebase: a conflict is aborted (sync handles it), clean is pushed."""
    done = run_sync_base(ctx, effect.stacked_on)
    if done.outcome == "conflict":
        abort_rebase(ctx.where.git)
        return done
    move = done.stack
    finish = FinishSync() if move is None else FinishSync(onto=move.onto, pr_base=move.pr_base)
    pushed = run_finish_sync(ctx, state, finish)
    if not pushed.ok:
        msg = "the rebased branch could not be pushed: " + "; ".join(pushed.findings)
        raise MergeEffectFailed(msg)
    return Rebased(done.outcome, pushed.head_sha, stack=move)


def run_read_stack(ctx: JobContext, effect: ReadStack) -> StackRead:
    """The prerequisite's merged verdict, branch head and PR (MRG-11)."""
    read = read_prereq(ctx.who.forge, effect.stacked_on.issue)
    return StackRead(read.merged, read.head, read.pr)


def run_close_out(ctx: JobContext, state: IssueState, effect: CloseOut) -> Done:
    """Comment, labels, claims, branch and parent; then the teardown command."""
    close_out(
        ctx.who.ops,
        ctx.what.issue,
        _pr(ctx, state),
        merge_sha=effect.merge_sha,
        tests_only=effect.tests_only,
        parent=state.parent,
        now=ctx.live.now(),
        signature=signature(ctx, "merger"),
    )
    timeout = float(ctx.what.config.commands.timeout_seconds)
    run_teardown(
        ctx.what.config.commands.teardown, ctx.where.run_dir, ctx.who.command_env, timeout_s=timeout
    )
    ctx.live.events.emit("merged", sha=effect.merge_sha, tests_only=effect.tests_only)
    return Done()


def perform_merge(ctx: JobContext, state: IssueState, effect: MergeEffect) -> Result:
    """Carry out one of the back half's effects and return its result."""
    match effect:
        case GuardBranch(recorded=recorded):
            own = OwnPushes(
                ctx.where.git, base_ref(ctx.what.base), ctx.where.git.env.identity.email
            )
            guarded = guard_branch(ctx.who.forge, state.pr, ctx.what.branch, recorded, own)
            return Checked(guarded.ok, guarded.findings, adopted=guarded.adopted)
        case VerifyHead():
            return run_verify(ctx, state, effect)
        case ReadCi():
            return run_read_ci(ctx, effect)
        case SyncBase(stacked_on=stacked):
            return run_sync_base(ctx, stacked)
        case FinishSync():
            return run_finish_sync(ctx, state, effect)
        case RestoreBranch():
            restore_branch(ctx.where.git, ctx.what.branch)
            return Done()
        case ReadQueue():
            return QueueRead(
                read_queue(ctx.who.ops, ctx.what.issue, _pr(ctx, state), now=ctx.live.now())
            )
        case CheckBehind(verified_sha=verified):
            refresh(ctx)
            pr = _pr(ctx, state)
            return BehindRead(
                check_behind(ctx.who.forge, ctx.where.git, pr, verified, ctx.what.base)
            )
        case RebaseHere():
            return run_rebase_here(ctx, state, effect)
        case ReadStack():
            return run_read_stack(ctx, effect)
        case MergePr(sha=sha):
            tried = squash_merge(ctx.who.forge, _pr(ctx, state), sha, base=ctx.what.base)
            return MergeTried(tried.outcome, tried.sha, tried.reason)
        case CloseOut():
            return run_close_out(ctx, state, effect)
        case CheckWiki():
            return run_check_wiki(ctx)
        case PublishWiki():
            return run_publish_wiki(ctx)
        case FinishWiki():
            return run_finish_wiki(ctx, state)
        case _:
            assert_never(effect)
