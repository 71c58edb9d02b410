"""The restart rule: a stop recorded in the state with no stop label on the issue (STOP-6..12)."""

from __future__ import annotations

from collections.abc import Iterable

from conveyor.core.flows import has_code
from conveyor.core.labels import has_stop_label
from conveyor.core.state import IssueState, Rounds, Stage
from conveyor.core.stops import StopCode


def is_restart(labels: Iterable[str], state: IssueState | None) -> bool:
    """A person took the stop label off: the state still records the stop."""
    return state is not None and state.stopped is not None and not has_stop_label(labels)


def restart_stage(state: IssueState) -> Stage:
    """Where a restart begins (STOP-7, STOP-8, STOP-11)."""
    stopped = state.stopped
    if stopped is not None and stopped.control is StopCode.TOO_LARGE:
        return Stage.TRIAGE
    if stopped is not None and stopped.control is StopCode.BRANCH_CHANGED and state.implemented:
        # The person's push is reviewed from scratch (`_adopted_heads`): the orchestrator
        # must start the job at the stage the claim expects, or it is refused every tick.
        return Stage.REVIEW
    if stopped is not None and stopped.control is StopCode.PR_CLOSED and state.implemented:
        # The PR passed everything before its handover: the merge stage checks it is still
        # current with the base, then hands it over again (reopening it).
        return Stage.MERGE
    if not state.implemented:
        return Stage.TRIAGE
    if state.head_sha and state.head_sha == state.reviewed_sha and not state.open_blocking():
        # A wiki-only change has no code branch to rebase: its checks are wiki-check alone.
        return Stage.SYNC if has_code(state.flows) else Stage.CHECKS
    return Stage.REVIEW


def restart_note(state: IssueState) -> str:
    """Where a restart of this stopped issue begins, and why there (said by the stop comment
    and `conveyor resume`). The rule is STOP-7, STOP-8 and STOP-11's: a restart before any
    implementation begins at triage again, since what stopped it (a spec refused, a question
    never answered, the issue text fixed by a person) may change what triage decides."""
    stage = restart_stage(state)
    stopped = state.stopped
    if stopped is not None and stopped.control is StopCode.BRANCH_CHANGED and state.implemented:
        return "at review: the person's push is reviewed from scratch"
    if stopped is not None and stopped.control is StopCode.TOO_LARGE:
        return "at triage: it reads the work so far and splits the issue"
    if stage is Stage.MERGE:
        return (
            "at merge: the PR passed everything before its handover, so the branch is only"
            " checked against the base (rebased and its tests re-run when it is behind) and"
            " the PR is reopened and handed over again"
        )
    if stage is Stage.TRIAGE:
        where = f" (it stopped at {stopped.stage.value})" if stopped is not None else ""
        return f"at triage{where}: nothing is implemented yet, so triage and the spec run again"
    if stage is Stage.REVIEW:
        return "at review: the branch is reviewed again before it is verified"
    return f"at {stage.value}: the reviewed head is unchanged, so it is only rebased and verified"


def _adopted_heads(state: IssueState) -> dict[str, object]:
    """After branch-changed, the person's push is the work: review it from scratch.

    The recorded SHAs name the head the person replaced; keeping them would
    make the branch guard stop the issue again. Review records the new head.
    """
    stopped = state.stopped
    if stopped is None or stopped.control is not StopCode.BRANCH_CHANGED or not state.implemented:
        return {}
    return {
        "stage": Stage.REVIEW,
        "head_sha": None,
        "reviewed_sha": None,
        "verified_sha": None,
        "passed_sha": None,
        "rereview": None,
        "ci_wait": None,
    }


def _accepted(state: IssueState) -> dict[str, object]:
    """After checks-config, what the stop showed is accepted: the person took the label off."""
    stopped = state.stopped
    if stopped is None or stopped.control is not StopCode.CHECKS_CONFIG:
        return {}
    accepted = tuple(dict.fromkeys((*state.checks_accepted, *state.checks_shown)))
    return {"checks_accepted": accepted, "checks_shown": ()}


def restart(state: IssueState) -> IssueState:
    """A fresh attempt: every limit reset, the stop cleared, the stage chosen by the rule.

    Rounds, continuations and resumes start again and the rebase pool is
    emptied (BUD-6); the PR, branch SHAs and findings are kept, except after
    branch-changed, when the person's head is adopted and reviewed. After checks-config,
    the configuration changes and suppressions the stop showed are accepted.
    """
    return state.model_copy(
        update={
            "stage": restart_stage(state),
            "rounds": Rounds(),
            "continuations": {},
            "rebase_from": len(state.charges),
            "money_from": len(state.charges),
            "merge_rebase": False,
            "stopped": None,
            **_adopted_heads(state),
            **_accepted(state),
        }
    )
