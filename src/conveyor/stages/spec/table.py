"""The spec stage's table: its phases, events, exits and memory (SPEC-134, SPEC-135)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from conveyor.core.replies import SpecReply
from conveyor.core.spec_tests import SpecTests
from conveyor.core.state import IssueState, Stage
from conveyor.stages.step import Inputs


class Phase(StrEnum):
    """Where the spec stage is; phases from TO_IMPLEMENT on are ends (SPEC-134)."""

    START = "start"
    CHARGE = "charge"
    LAUNCH = "launch"
    CHECK_COMMITS = "check-commits"
    SAVE_SPEC_FILE = "save-spec-file"
    POST_SPEC = "post-spec"
    OPEN_PR = "open-pr"
    PUSH_WIKI = "push-wiki"
    CLOSE_PR = "close-old-pr"
    RESET_ASK = "reset-for-questions"
    RESET_SPLIT = "reset-for-split"
    RESET_REFUSED = "reset-for-refused-split"
    CONFIRM_NO_WORK = "confirm-no-work"
    RESET_NO_WORK = "reset-for-no-work"
    TO_IMPLEMENT = "pr-opened"
    WIKI_ONLY = "wiki-only"
    ASKED = "asked"
    SPLIT = "split-opened"
    SPLIT_REFUSED = "split-refused"
    NO_WORK = "no-work"
    FAILED_TWICE = "failed-twice"
    TOO_LARGE = "too-large"
    OVER_BUDGET = "over-budget"
    DEFERRED = "deferred"
    ENVIRONMENT = "environment-error"


class Event(StrEnum):
    """What a result means to the spec stage."""

    BEGIN = "begin"
    CHARGED = "charged"
    REFUSED = "refused"
    READY = "ready"
    NEEDS_INFO = "needs-info"
    SPLIT = "split"
    SPLIT_REFUSED = "split-refused"
    NO_WORK = "no-work"
    HANDOFF = "handoff"
    TOO_MANY_HANDOFFS = "too-many-handoffs"
    FAILED = "failed"
    EXHAUSTED = "exhausted"
    DEFERRED = "deferred"
    PASSED = "passed"
    PASSED_LONG = "passed-long"
    DONE = "done"
    WIKI_ONLY = "wiki-only"
    CLOSE = "close"
    ENVIRONMENT = "environment-error"


_RETRY = {Event.FAILED: Phase.CHARGE, Event.EXHAUSTED: Phase.FAILED_TWICE}
ENDS = (
    Phase.TO_IMPLEMENT,
    Phase.WIKI_ONLY,
    Phase.ASKED,
    Phase.SPLIT,
    Phase.SPLIT_REFUSED,
    Phase.NO_WORK,
    Phase.FAILED_TWICE,
    Phase.TOO_LARGE,
    Phase.OVER_BUDGET,
    Phase.DEFERRED,
    Phase.ENVIRONMENT,
)
EXITS: dict[Phase, dict[Event, Phase]] = {
    Phase.START: {Event.BEGIN: Phase.CHARGE},
    Phase.CHARGE: {Event.CHARGED: Phase.LAUNCH, Event.REFUSED: Phase.OVER_BUDGET},
    Phase.LAUNCH: {
        Event.READY: Phase.CHECK_COMMITS,
        Event.NEEDS_INFO: Phase.RESET_ASK,
        Event.SPLIT: Phase.RESET_SPLIT,
        Event.SPLIT_REFUSED: Phase.RESET_REFUSED,
        Event.NO_WORK: Phase.CONFIRM_NO_WORK,
        Event.HANDOFF: Phase.CHARGE,
        Event.TOO_MANY_HANDOFFS: Phase.TOO_LARGE,
        Event.DEFERRED: Phase.DEFERRED,
        **_RETRY,
    },
    Phase.CHECK_COMMITS: {
        Event.PASSED: Phase.POST_SPEC,
        Event.PASSED_LONG: Phase.SAVE_SPEC_FILE,
        Event.ENVIRONMENT: Phase.ENVIRONMENT,
        **_RETRY,
    },
    Phase.SAVE_SPEC_FILE: {Event.DONE: Phase.POST_SPEC},
    Phase.POST_SPEC: {Event.DONE: Phase.OPEN_PR, Event.WIKI_ONLY: Phase.PUSH_WIKI},
    Phase.OPEN_PR: {Event.DONE: Phase.TO_IMPLEMENT},
    # FLOW-10, SPEC-115: a wiki-only spec pushes its pages, closes an earlier PR, and goes
    # straight to review with no implementer.
    Phase.PUSH_WIKI: {Event.WIKI_ONLY: Phase.WIKI_ONLY, Event.CLOSE: Phase.CLOSE_PR, **_RETRY},
    Phase.CLOSE_PR: {Event.DONE: Phase.WIKI_ONLY},
    Phase.RESET_ASK: {Event.DONE: Phase.ASKED},
    Phase.RESET_SPLIT: {Event.DONE: Phase.SPLIT},
    Phase.RESET_REFUSED: {Event.DONE: Phase.SPLIT_REFUSED},
    Phase.CONFIRM_NO_WORK: {Event.PASSED: Phase.RESET_NO_WORK, **_RETRY},
    Phase.RESET_NO_WORK: {Event.DONE: Phase.NO_WORK},
    **{end: {} for end in ENDS},
}


@dataclass(frozen=True)
class Spec:
    """The spec stage's memory."""

    inputs: Inputs
    state: IssueState
    phase: Phase = Phase.START
    reply: SpecReply | None = None
    findings: tuple[str, ...] = ()
    failures: int = 0
    attempt: int = 0
    note: str = ""
    pr: int | None = None
    spec_sha: str | None = None
    spec_tests: SpecTests | None = None

    @property
    def continuation(self) -> int:
        """Continuations of the spec stage so far."""
        return self.state.continuations.get(Stage.SPEC, 0)

    @property
    def start_sha(self) -> str:
        """Where the spec began: the branch is reset here for needs-info, split and no-work."""
        return self.state.start_sha or self.inputs.head_sha

    @property
    def start_wiki_sha(self) -> str | None:
        """Where the wiki branch was when the spec began (SPEC-124), reset with the branch."""
        return self.state.start_wiki_sha or self.inputs.wiki_head
