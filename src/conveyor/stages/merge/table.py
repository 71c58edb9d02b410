"""The merge stage's table: stacking, merge order, behind detection, the tests-only path,
close-out."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from conveyor.core.merge_rules import Behind
from conveyor.core.state import IssueState
from conveyor.stages.effects_merge import PersonMerged
from conveyor.stages.step import Inputs


class Phase(StrEnum):
    """Where the merge stage is; phases from MERGED on are ends."""

    START = "start"
    GUARD = "guard-branch"
    STACK = "stacked-on"
    QUEUE = "merge-order"
    BEHIND = "check-behind"
    REBASE = "rebase-here"
    RETEST = "tests-only"
    MERGE = "merge"
    HAND_OVER = "hand-over"
    PUBLISH = "publish-wiki"
    CLOSE_OUT = "close-out"
    FINISH_WIKI = "finish-wiki"
    MERGED = "merged"
    HANDED_OVER = "handed-over"
    WAITING = "queued"
    TO_SYNC = "to-sync"
    BRANCH_CHANGED = "branch-changed"
    SYNC_LIMIT = "sync-limit"
    REFUSED = "merge-refused"
    WIKI_CONFLICT = "wiki-conflict"


class Event(StrEnum):
    """What a result means to the merge stage."""

    BEGIN = "begin"
    LANDED = "landed"
    PASSED = "passed"
    CHANGED = "changed"
    IN_ORDER = "in-order"
    STACKED = "stacked"
    QUEUED = "queued"
    CURRENT = "current"
    TESTS_ONLY = "tests-only"
    SYNC = "sync"
    SYNC_LIMIT = "sync-limit"
    CLEAN = "clean"
    CONFLICT = "conflict"
    FAILED = "failed"
    MERGED = "merged"
    HAND_OVER = "hand-over"
    HANDED = "handed"
    REFUSED = "refused"
    DONE = "done"
    WIKI_ONLY = "wiki-only"
    MERGED_WIKI = "merged-with-wiki"


ENDS = (
    Phase.MERGED,
    Phase.HANDED_OVER,
    Phase.WAITING,
    Phase.TO_SYNC,
    Phase.BRANCH_CHANGED,
    Phase.SYNC_LIMIT,
    Phase.REFUSED,
    Phase.WIKI_CONFLICT,
)
# A behind branch, wherever it was found: tests only here, back to sync, or the limit.
_BEHIND = {
    Event.TESTS_ONLY: Phase.REBASE,
    Event.SYNC: Phase.TO_SYNC,
    Event.SYNC_LIMIT: Phase.SYNC_LIMIT,
}
EXITS: dict[Phase, dict[Event, Phase]] = {
    # An approved issue's job: its PR was handed over, and a person merged it since.
    Phase.START: {Event.BEGIN: Phase.GUARD, Event.LANDED: Phase.HAND_OVER},
    Phase.GUARD: {
        Event.PASSED: Phase.QUEUE,
        Event.IN_ORDER: Phase.BEHIND,
        Event.STACKED: Phase.STACK,
        Event.WIKI_ONLY: Phase.FINISH_WIKI,
        Event.CHANGED: Phase.BRANCH_CHANGED,
    },
    # A stacked issue waits while its prerequisite is open and unmoved; when it moved or
    # merged, the branch is behind: restacked here (tests only) or back to sync (MRG-11).
    Phase.STACK: {Event.QUEUED: Phase.WAITING, **_BEHIND},
    Phase.QUEUE: {Event.IN_ORDER: Phase.BEHIND, Event.QUEUED: Phase.WAITING},
    Phase.BEHIND: {Event.CURRENT: Phase.MERGE, Event.HAND_OVER: Phase.HAND_OVER, **_BEHIND},
    Phase.REBASE: {Event.CLEAN: Phase.RETEST, Event.CONFLICT: Phase.TO_SYNC},
    Phase.RETEST: {
        Event.PASSED: Phase.MERGE,
        Event.HAND_OVER: Phase.HAND_OVER,
        Event.STACKED: Phase.WAITING,
        Event.FAILED: Phase.TO_SYNC,
    },
    Phase.MERGE: {
        Event.MERGED: Phase.CLOSE_OUT,
        Event.MERGED_WIKI: Phase.PUBLISH,
        Event.REFUSED: Phase.REFUSED,
        **_BEHIND,
    },
    # handover.merge = "person": the verified, current PR is left for a person to merge; one
    # a person merged is closed out as the pipeline's own merge is.
    Phase.HAND_OVER: {
        Event.HANDED: Phase.HANDED_OVER,
        Event.MERGED: Phase.CLOSE_OUT,
        Event.MERGED_WIKI: Phase.PUBLISH,
    },
    # MRG-16: once the PR merged, the wiki's commits are published, then the close-out.
    Phase.PUBLISH: {Event.DONE: Phase.CLOSE_OUT},
    Phase.CLOSE_OUT: {Event.DONE: Phase.MERGED},
    # FLOW-5: a wiki-only change has no PR; finish-wiki publishes and closes the issue.
    Phase.FINISH_WIKI: {Event.MERGED: Phase.MERGED, Event.CONFLICT: Phase.WIKI_CONFLICT},
    **{end: {} for end in ENDS},
}


@dataclass(frozen=True)
class Merge:
    """The merge stage's memory.

    `rebased_here` is set once this job rebased (the tests-only path runs once per job);
    `sha` is the head to merge (the verified one, or the re-tested rebased one); `person`
    the merge a person made of the handed-over PR.
    """

    inputs: Inputs
    state: IssueState
    phase: Phase = Phase.START
    behind: Behind | None = None
    rebased_here: bool = False
    merge_sha: str = ""
    note: str = ""
    waiting_for: tuple[int, ...] = ()
    person: PersonMerged | None = None

    @property
    def sha(self) -> str:
        """The head the merge expects: the verified SHA (set by checks or the retest)."""
        return self.state.verified_sha or self.inputs.head_sha
