"""The sync and merge stages' effects: rebase, the pushed rebase, queue, merge and close-out;
their rows of the dispatch table.

A rebased branch the forge refuses is `PushRefused` (the runner stops the issue);
an issue with no PR to merge is a genuine failure (`MergeEffectFailed`: the job
saves and exits 1).
"""

from __future__ import annotations

from conveyor.core.state import IssueState, StackedOn
from conveyor.git.rebase import abort_rebase
from conveyor.job.effects.parts import JobHands, JobPlace, JobPulse, JobSubject, PushRefused
from conveyor.job.effects.table import Dispatch
from conveyor.job.effects.writes import signature
from conveyor.ops.forge.close_out import close_out, run_teardown
from conveyor.ops.forge.handover import hand_over
from conveyor.ops.forge.merge import check_behind, squash_merge
from conveyor.ops.forge.merge_order import read_queue
from conveyor.ops.forge.stack import plan_restack, read_prereq, replay_own_commits, retarget_pr
from conveyor.ops.local.finish_sync import changes_code, finish_sync
from conveyor.ops.local.sync_base import refresh_remote_refs, restore_branch, sync_base
from conveyor.ops.local.wiki_branch import wiki_ahead
from conveyor.stages.effects import Done
from conveyor.stages.effects_merge import (
    BehindRead,
    CheckBehind,
    CloseOut,
    FinishSync,
    HandedOver,
    HandOver,
    MergePr,
    MergeTried,
    PersonMerged,
    QueueRead,
    ReadQueue,
    ReadStack,
    Rebased,
    RebaseHere,
    RestoreBranch,
    StackRead,
    SyncBase,
    SyncFinished,
)

CACHE = "cache.git"


class MergeEffectFailed(RuntimeError):
    """An effect the stage needs could not be carried out (the job saves and exits 1)."""


def pr_of(what: JobSubject, who: JobHands, state: IssueState) -> int:
    """The issue's PR: the saved one, or the open PR of its branch."""
    if state.pr is not None:
        return state.pr
    found = who.forge.find_pr(what.branch)
    if found is None:
        msg = f"issue #{what.issue} has no PR for {what.branch}"
        raise MergeEffectFailed(msg)
    return found.number


def refresh(where: JobPlace, who: JobHands) -> None:
    """Bring the checkout's remote-tracking refs up to the forge (through the cache)."""
    refresh_remote_refs(where.git, where.home / CACHE, who.forge.repo_info().clone_url)


def run_sync_base(
    what: JobSubject, where: JobPlace, who: JobHands, pulse: JobPulse, stacked: StackedOn | None
) -> Rebased:
    """Refresh the base, then rebase onto it (a conflicted rebase stays for the resolver).

    A stacked branch replays only its own commits onto P's head, or onto the base
    once P merged (STK-2, STK-4); the result says where it went.
    """
    refresh(where, who)
    if stacked is None:
        done = sync_base(where.git, what.base)
        return Rebased(done.outcome, done.head_sha, done.conflicts)
    move = plan_restack(who.forge, where.git, stacked, what.base)
    done = replay_own_commits(where.git, move)
    pulse.emit("restacked", on=stacked.issue, onto=move.onto, outcome=done.outcome)
    return Rebased(done.outcome, done.head_sha, done.conflicts, stack=move)


def run_finish_sync(
    what: JobSubject,
    where: JobPlace,
    who: JobHands,
    pulse: JobPulse,
    state: IssueState,
    *,
    effect: FinishSync,
) -> SyncFinished:
    """Check the finished rebase and push it with lease; a stacked PR follows its new base.

    The flows it leaves are measured from the commit the rebase went onto (a
    stacked issue's prerequisite head while stacked), as its own change starts there.
    """
    done = finish_sync(where.git, who.push, base=what.base, branch=what.branch, onto=effect.onto)
    if not done.ok:
        return SyncFinished(done.ok, done.head_sha, done.findings)
    pulse.emit("pushed", ref=what.branch_ref, sha=done.head_sha)
    if retarget_pr(who.forge, state.pr, effect.pr_base):
        pulse.emit("pr-retargeted", pr=state.pr, base=effect.pr_base)
    changed = changes_code(where.git, what.base, effect.onto)
    return SyncFinished(done.ok, done.head_sha, done.findings, changed, wiki_ahead(where.wiki))


def run_restore(what: JobSubject, where: JobPlace) -> Done:
    """Put the checkout's branch back where the forge has it (an abandoned rebase)."""
    restore_branch(where.git, what.branch)
    return Done()


def run_rebase_here(
    what: JobSubject,
    where: JobPlace,
    who: JobHands,
    pulse: JobPulse,
    state: IssueState,
    *,
    effect: RebaseHere,
) -> Rebased | PushRefused:
    """The merge stage's own rebase: a conflict is aborted (sync handles it), clean is pushed."""
    done = run_sync_base(what, where, who, pulse, effect.stacked_on)
    if done.outcome == "conflict":
        abort_rebase(where.git)
        return done
    move = done.stack
    finish = FinishSync() if move is None else FinishSync(onto=move.onto, pr_base=move.pr_base)
    pushed = run_finish_sync(what, where, who, pulse, state, effect=finish)
    if not pushed.ok:
        return PushRefused("the rebased branch could not be pushed: " + "; ".join(pushed.findings))
    return Rebased(done.outcome, pushed.head_sha, stack=move)


def run_read_queue(
    what: JobSubject, who: JobHands, pulse: JobPulse, state: IssueState
) -> QueueRead:
    """Where the issue stands in the merge order (MRG-1)."""
    pr = pr_of(what, who, state)
    return QueueRead(read_queue(who.ops, what.issue, pr, now=pulse.now()))


def run_check_behind(
    what: JobSubject, where: JobPlace, who: JobHands, state: IssueState, effect: CheckBehind
) -> BehindRead:
    """Whether the verified head is behind the base as the forge has it now."""
    refresh(where, who)
    pr = pr_of(what, who, state)
    return BehindRead(check_behind(who.forge, where.git, pr, effect.verified_sha, what.base))


def run_read_stack(who: JobHands, effect: ReadStack) -> StackRead:
    """The prerequisite's merged verdict, branch head and PR (MRG-11)."""
    read = read_prereq(who.forge, effect.stacked_on.issue)
    return StackRead(read.merged, read.head, read.pr)


def run_merge(what: JobSubject, who: JobHands, state: IssueState, effect: MergePr) -> MergeTried:
    """Squash-merge the PR at exactly the verified head."""
    tried = squash_merge(who.forge, pr_of(what, who, state), effect.sha, base=what.base)
    return MergeTried(tried.outcome, tried.sha, tried.reason)


def run_hand_over(
    what: JobSubject, who: JobHands, state: IssueState, effect: HandOver
) -> HandedOver:
    """Leave the PR, verified at the effect's head, for a person to merge; a PR a person
    merged already is that merge."""
    pr = pr_of(what, who, state)
    done = hand_over(who.ops, what.issue, pr, effect.sha, signature(what, who.ops, "merger"))
    if isinstance(done, PersonMerged):
        return HandedOver(pr, merged=done)
    return HandedOver(pr, tuple(done))


def run_close_out(
    what: JobSubject,
    where: JobPlace,
    who: JobHands,
    pulse: JobPulse,
    state: IssueState,
    *,
    effect: CloseOut,
) -> Done:
    """Comment, labels, claims, branch and parent; then the teardown command."""
    close_out(
        who.ops,
        what.issue,
        pr_of(what, who, state),
        merge_sha=effect.merge_sha,
        tests_only=effect.tests_only,
        parent=state.parent,
        now=pulse.now(),
        signature=signature(what, who.ops, "merger"),
        person=effect.person,
        verified=effect.verified,
    )
    commands = what.config.commands
    timeout = float(commands.timeout_seconds)
    run_teardown(
        commands.teardown,
        where.run_dir,
        who.command_env,
        timeout_s=timeout,
        boxing=where.boxing,
    )
    by = effect.person.login if effect.person is not None else None
    pulse.emit("merged", sha=effect.merge_sha, tests_only=effect.tests_only, by=by)
    return Done()


def rows(table: Dispatch) -> None:
    """The sync and merge effects' rows of the dispatch table."""
    table.on(
        SyncBase,
        lambda c, s, e: run_sync_base(c.what, c.where, c.who, c.live.pulse, e.stacked_on),
    )
    table.on(
        FinishSync,
        lambda c, s, e: run_finish_sync(c.what, c.where, c.who, c.live.pulse, s, effect=e),
    )
    table.on(RestoreBranch, lambda c, s, e: run_restore(c.what, c.where))
    table.on(ReadQueue, lambda c, s, e: run_read_queue(c.what, c.who, c.live.pulse, s))
    table.on(CheckBehind, lambda c, s, e: run_check_behind(c.what, c.where, c.who, s, e))
    table.on(
        RebaseHere,
        lambda c, s, e: run_rebase_here(c.what, c.where, c.who, c.live.pulse, s, effect=e),
    )
    table.on(ReadStack, lambda c, s, e: run_read_stack(c.who, e))
    table.on(MergePr, lambda c, s, e: run_merge(c.what, c.who, s, e))
    table.on(HandOver, lambda c, s, e: run_hand_over(c.what, c.who, s, e))
    table.on(
        CloseOut,
        lambda c, s, e: run_close_out(c.what, c.where, c.who, c.live.pulse, s, effect=e),
    )
