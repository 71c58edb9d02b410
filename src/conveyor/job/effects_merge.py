"""The runner's checks, sync and merge effects: verify, CI, rebase, merge and close-out."""

from __future__ import annotations

from typing import assert_never

from conveyor.core.state import IssueState
from conveyor.job.context import JobContext
from conveyor.stages.effects_merge import (
    CheckBehind,
    CloseOut,
    FinishSync,
    GuardBranch,
    MergeEffect,
    MergePr,
    ReadCi,
    ReadQueue,
    RebaseHere,
    SyncBase,
    VerifyHead,
)
from conveyor.stages.effects import Result


def perform_merge(ctx: JobContext, state: IssueState, effect: MergeEffect) -> Result:
    """Carry out one of the back half's effects and return its result."""
    match effect:
        case GuardBranch() | VerifyHead() | ReadCi() | SyncBase() | FinishSync():
            raise NotImplementedError(type(effect).__name__)
        case ReadQueue() | CheckBehind() | RebaseHere() | MergePr() | CloseOut():
            raise NotImplementedError(type(effect).__name__)
        case _:
            assert_never(effect)
