"""The merge machine (no model, MRG-3): stacking, order, behind, tests only, squash, close-out."""

from __future__ import annotations

from dataclasses import replace

from conveyor.core.config import Role
from conveyor.core.flows import has_code, has_wiki
from conveyor.core.merge_rules import Behind, Next, after_behind, count_sync, passed_everything
from conveyor.core.state import Stage
from conveyor.stages.effects import Began, Checked, Done, Result
from conveyor.stages.effects_merge import (
    BehindRead,
    HandedOver,
    MergeTried,
    PersonMerged,
    QueueRead,
    Rebased,
    StackRead,
    Verified,
    WikiPublished,
)
from conveyor.stages.machine import Machine, cannot_take
from conveyor.stages.merge.acts import TABLE
from conveyor.stages.merge.table import EXITS, Event, Merge, Phase
from conveyor.stages.stage_def import JobRole, StageDef
from conveyor.stages.step import adopt_head

_NEXT = {
    Next.TESTS_ONLY: Event.TESTS_ONLY,
    Next.SYNC: Event.SYNC,
    Next.SYNC_LIMIT: Event.SYNC_LIMIT,
}


def _behind(run: Merge, why: Behind) -> tuple[Event, Merge]:
    run = replace(run, behind=why, note=why.value)
    if why is Behind.STACK:
        # Following the prerequisite is not the branch falling behind its base: it takes
        # no sync from max_syncs; a head that passed everything re-runs only the tests.
        done = passed_everything(run.state, run.sha) and not run.rebased_here
        return (Event.TESTS_ONLY if done else Event.SYNC), run
    limits = run.inputs.limits
    chosen = after_behind(
        run.state, run.sha, rebased_here=run.rebased_here, max_syncs=limits.max_syncs
    )
    if chosen is Next.SYNC:
        run = replace(run, state=count_sync(run.state))
    return _NEXT[chosen], run


def _landing_event(run: Merge) -> Event:
    """A current, verified branch: merged here, or left for a person (`handover.merge`)."""
    return Event.HAND_OVER if run.inputs.hand_over else Event.CURRENT


def _guarded(run: Merge, checked: Checked) -> tuple[Event, Merge]:
    if not checked.ok:
        return Event.CHANGED, replace(run, note="\n".join(checked.findings))
    run = replace(run, state=adopt_head(run.state, checked))
    if not has_code(run.state.flows):
        # A wiki-only change has no PR to merge: it neither queues nor waits for a stack.
        return Event.WIKI_ONLY, run
    if run.state.stacked_on is not None:
        return Event.STACKED, run
    # A person merges: no merge order to keep (they merge in whatever order they choose).
    queue = run.inputs.limits.merge_order and not run.inputs.hand_over
    return (Event.PASSED if queue else Event.IN_ORDER), run


def _stack(run: Merge, read: StackRead) -> tuple[Event, Merge]:
    """MRG-11: queued while the prerequisite is open where the branch was put on it."""
    stacked = run.state.stacked_on
    assert stacked is not None, "only a stacked issue reads its prerequisite"
    if read.merged or (read.head is not None and read.head != stacked.head_sha):
        return _behind(run, Behind.STACK)
    pr = f"PR #{read.pr}" if read.pr is not None else "no open PR"
    note = f"stacked on #{stacked.issue} ({pr}): waiting for it to merge"
    return Event.QUEUED, replace(run, waiting_for=(stacked.issue,), note=note)


def _rebased(run: Merge, done: Rebased) -> tuple[Event, Merge]:
    if run.behind is Behind.STACK:
        state = run.state.model_copy(update={"merge_rebase": True})
    else:
        state = count_sync(run.state)
    if done.outcome == "conflict":
        note = "the rebase onto the base conflicts: " + ", ".join(done.conflicts)
        return Event.CONFLICT, replace(run, state=state, rebased_here=True, note=note)
    update: dict[str, object] = {"head_sha": done.head_sha}
    if done.stack is not None:
        update["stacked_on"] = done.stack.stacked_on
    state = state.model_copy(update=update)
    return Event.CLEAN, replace(run, state=state, rebased_here=True)


def _retested(run: Merge, verified: Verified) -> tuple[Event, Merge]:
    if not verified.passed:
        return Event.FAILED, replace(run, note="; ".join(verified.failures))
    # Only the tests ran again: the rebased head stands in for what passed before (MRG-7).
    sha = verified.head_sha
    state = run.state.model_copy(
        update={"verified_sha": sha, "passed_sha": sha, "head_sha": sha, "merge_rebase": False}
    )
    stacked = state.stacked_on
    if stacked is not None:
        # Restacked on a prerequisite still open: it waits for it again (MRG-11).
        note = f"stacked on #{stacked.issue}: restacked on its new head, waiting for it to merge"
        return Event.STACKED, replace(run, state=state, waiting_for=(stacked.issue,), note=note)
    return (Event.HAND_OVER if run.inputs.hand_over else Event.PASSED), replace(run, state=state)


def _person_merged(run: Merge, merged: PersonMerged) -> tuple[Event, Merge]:
    """A person merged the handed-over PR: it is closed out as the pipeline's own merge is
    (the wiki published first when the change has pages), and the issue ends done."""
    event = Event.MERGED_WIKI if has_wiki(run.state.flows) else Event.MERGED
    return event, replace(run, merge_sha=merged.sha, person=merged)


def _tried(run: Merge, tried: MergeTried) -> tuple[Event, Merge]:
    match tried.outcome:
        case "merged":
            event = Event.MERGED_WIKI if has_wiki(run.state.flows) else Event.MERGED
            return event, replace(run, merge_sha=tried.sha)
        case "behind":
            return _behind(run, Behind.REFUSED)
        case "refused":
            return Event.REFUSED, replace(run, note=tried.reason)


def classify(run: Merge, result: Result) -> tuple[Event, Merge]:
    """The event a result is in the current phase, and the memory it leaves."""
    match result:
        case Began() if run.state.stage is Stage.APPROVED:
            return Event.LANDED, run
        case Began():
            return Event.BEGIN, run
        case Checked():
            return _guarded(run, result)
        case StackRead():
            return _stack(run, result)
        case QueueRead(ahead=()):
            return Event.IN_ORDER, run
        case QueueRead(ahead=ahead):
            note = "waiting in the merge order for " + ", ".join(f"#{n}" for n in ahead)
            return Event.QUEUED, replace(run, waiting_for=ahead, note=note)
        case BehindRead(behind=None):
            return _landing_event(run), run
        case BehindRead(behind=why) if why is not None:
            return _behind(run, why)
    return _landing(run, result)


def _landing(run: Merge, result: Result) -> tuple[Event, Merge]:
    """The results after the reads: the rebase, the re-test, the squash and the publish."""
    match result:
        case Rebased():
            return _rebased(run, result)
        case Verified():
            return _retested(run, result)
        case MergeTried():
            return _tried(run, result)
        case HandedOver(merged=merged) if merged is not None:
            return _person_merged(run, merged)
        case HandedOver():
            return Event.HANDED, run
        case WikiPublished(outcome="conflict", note=note):
            return Event.CONFLICT, replace(run, note=note)
        case WikiPublished():
            return Event.MERGED, run
        case Done():
            return Event.DONE, run
    raise cannot_take("the merge stage", result, run.phase)


MACHINE = Machine(TABLE, classify, Merge)
transition = MACHINE.transition
start = MACHINE.start
STAGE = StageDef(Stage.MERGE, MACHINE, JobRole.MERGER, Role.RESOLVER)

__all__ = [
    "EXITS",
    "MACHINE",
    "STAGE",
    "TABLE",
    "Event",
    "Merge",
    "Phase",
    "classify",
    "start",
    "transition",
]
