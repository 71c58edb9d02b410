"""Stop codes: every control that can stop an issue, with its label and how to resume."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class StopCode(StrEnum):
    """The controls (STOP-4, STOP-5); every stop carries exactly one."""

    BUDGET = "budget"
    FIX_LOOP = "fix-loop"
    REVIEW_ROUNDS = "review-rounds"
    CHECKS_UNRELATED = "checks-unrelated"
    CHECK_FIXES = "check-fixes"
    CHECKS_CONFIG = "checks-config"
    NO_CI = "no-ci"
    TRIAGE_REJECTED = "triage-rejected"
    TRIAGE_LIMIT = "triage-limit"
    NOT_DOABLE = "not-doable"
    TOO_LARGE = "too-large"
    ACCEPTANCE = "acceptance"
    BRANCH_CHANGED = "branch-changed"
    CONFLICT = "conflict"
    SYNC_LIMIT = "sync-limit"
    PUSH_REJECTED = "push-rejected"
    MERGE_REFUSED = "merge-refused"
    ERROR = "error"
    JOB = "job"
    NO_WORK = "no-work"
    SPEC_FILES = "spec-files"
    ENVIRONMENT = "environment"
    USER_HARM = "user-harm"
    USERS_RIGHTS = "users-rights"
    FINANCIAL_HARM = "financial-harm"
    ABUSE_RISK = "abuse-risk"
    PR_CLOSED = "pr-closed"

    @property
    def label(self) -> str:
        """The issue label this stop sets (GH-2)."""
        return f"agent:stopped-{self.value}"

    @property
    def control(self) -> Control:
        """The control's name, what it checks and how to resume."""
        return CONTROLS[self]


@dataclass(frozen=True)
class Control:
    """What a control checks and what the operator does after it trips.

    `resume` is what to fix first; `how_to_resume` adds lifting the label, the same on
    every forge.
    """

    name: str
    checks: str
    resume: str
    colour: str


def how_to_resume(code: StopCode, issue: int | None = None, restarts: str | None = None) -> str:
    """The control's fix, then taking its label off: `conveyor resume --issue N` does that
    through the forge's API (GitHub and the embedded forge alike); `restarts` says where the
    restart begins (`core/restart.py::restart_note`)."""
    number = "N" if issue is None else str(issue)
    where = "" if restarts is None else f" {restarts}"
    return (
        f"{code.control.resume} Then remove the label `{code.label}`"
        f" (`conveyor resume --issue {number}` does it): the issue restarts with fresh"
        f" limits{where}."
    )


_RED = "b60205"
_AMBER = "d93f0b"
_GREY = "6a737d"
_PURPLE = "5319e7"

CONTROLS: dict[StopCode, Control] = {
    StopCode.BUDGET: Control(
        "token budget",
        "The next session would pass the issue's token ceiling or the rebase pool.",
        "Raise the ceiling or narrow the issue.",
        _AMBER,
    ),
    StopCode.FIX_LOOP: Control(
        "fix loop",
        "A finding that a fix resolved came back.",
        "Read the finding's history on the PR.",
        _AMBER,
    ),
    StopCode.REVIEW_ROUNDS: Control(
        "review rounds",
        "Blocking findings are still open after max_fix_rounds fix rounds.",
        "Fix or dismiss the open findings.",
        _AMBER,
    ),
    StopCode.CHECKS_UNRELATED: Control(
        "unrelated checks",
        "Checks fail for reasons the change did not cause.",
        "Make the base branch's checks green.",
        _GREY,
    ),
    StopCode.CHECK_FIXES: Control(
        "check fixes",
        "Checks still fail after max_check_fixes fix attempts.",
        "Look at the failing checks on the PR.",
        _AMBER,
    ),
    StopCode.CHECKS_CONFIG: Control(
        "what judges the change",
        "The change alters what judges it (check configuration, suppressions) in a way verify "
        "could not judge with the base's, and the check fixer did not undo it.",
        "Read the diffs and suppressions the details show: revert them on the branch, or accept "
        "them as they are (removing the label accepts exactly those shown).",
        _AMBER,
    ),
    StopCode.NO_CI: Control(
        "CI reporting",
        "The required CI checks never reported on the head commit.",
        "Check the CI set-up for the branch.",
        _GREY,
    ),
    StopCode.TRIAGE_REJECTED: Control(
        "triage",
        "Triage judged the issue not suitable for the pipeline.",
        "Rewrite the issue as the reason asks.",
        _PURPLE,
    ),
    StopCode.TRIAGE_LIMIT: Control(
        "triage attempts",
        "Triage failed triage_attempts times on the same issue.",
        "Clarify the issue.",
        _PURPLE,
    ),
    StopCode.NOT_DOABLE: Control(
        "not doable",
        "The implementation changed neither the code nor the wiki.",
        "Clarify what should change.",
        _PURPLE,
    ),
    StopCode.TOO_LARGE: Control(
        "size",
        "A writer handed off more than max_continuations times.",
        "Split the issue, or let it go on as it is: the restart goes to triage and keeps the PR.",
        _PURPLE,
    ),
    StopCode.ACCEPTANCE: Control(
        "acceptance",
        "The change does not do what the issue asks, or the fixer disputes that it must.",
        "Read the acceptance finding; fix or clarify.",
        _AMBER,
    ),
    StopCode.BRANCH_CHANGED: Control(
        "branch ownership",
        "The PR branch moved away from the head the pipeline recorded.",
        "Keep or reset the pushed commits.",
        _RED,
    ),
    StopCode.CONFLICT: Control(
        "conflict fixes",
        "Merge conflicts remain after max_conflict_fixes resolver attempts, or the issue's "
        "wiki pages no longer apply to the wiki (saved as wiki-unpushed.patch).",
        "Resolve the conflict on the branch (or apply the patch to the wiki).",
        _AMBER,
    ),
    StopCode.SYNC_LIMIT: Control(
        "sync limit",
        "The branch was rebased max_syncs times.",
        "Wait for the base to settle.",
        _GREY,
    ),
    StopCode.PUSH_REJECTED: Control(
        "push",
        "git refused the pipeline's push.",
        "Check branch protection and the account's rights.",
        _RED,
    ),
    StopCode.MERGE_REFUSED: Control(
        "merge",
        "The forge refused the merge for a reason other than being behind.",
        "Deal with the forge's refusal the reason gives.",
        _RED,
    ),
    StopCode.ERROR: Control(
        "step failure",
        "A step or session failed, or the saved state could not be read.",
        "Fix what the reason and the details name.",
        _RED,
    ),
    StopCode.JOB: Control(
        "job watchdog",
        "A job went silent, timed out, or died more than max_resumes times in one stage.",
        "Read the job's log.",
        _RED,
    ),
    StopCode.NO_WORK: Control(
        "no work",
        "The change was already present; there was nothing to do.",
        "Close the issue, or reword it.",
        _GREY,
    ),
    StopCode.SPEC_FILES: Control(
        "spec files",
        "A file the spec documents is missing on restart.",
        "Restore the file or drop the spec.",
        _AMBER,
    ),
    StopCode.ENVIRONMENT: Control(
        "environment",
        "A command the checks run could not judge the work: setup failed, a usage error, "
        "a missing interpreter, a timeout.",
        "Fix the repository's commands or environment (the details name the command and its "
        "output).",
        _GREY,
    ),
    StopCode.USER_HARM: Control(
        "security: user harm",
        "The security review found the change could harm users.",
        "Review the change by hand.",
        _RED,
    ),
    StopCode.USERS_RIGHTS: Control(
        "security: users' rights",
        "The security review found the change could infringe users' rights.",
        "Review the change by hand.",
        _RED,
    ),
    StopCode.FINANCIAL_HARM: Control(
        "security: financial harm",
        "The security review found the change could cause financial harm.",
        "Review the change by hand.",
        _RED,
    ),
    StopCode.ABUSE_RISK: Control(
        "security: abuse risk",
        "The security review found the change could be abused.",
        "Review the change by hand.",
        _RED,
    ),
    StopCode.PR_CLOSED: Control(
        "handed-over PR",
        "A person closed the PR left for them to merge (handover.merge = person) without "
        "merging it.",
        "Close the issue if the change is not wanted; to have the PR handed over again, "
        "leave it closed or reopen it.",
        _PURPLE,
    ),
}
