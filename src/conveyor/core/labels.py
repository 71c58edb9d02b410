"""The agent labels people see: status labels, stop labels, and the rule of one at a time."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from conveyor.core.stops import StopCode

PREFIX = "agent:"
STOP_PREFIX = "agent:stopped-"
DESCRIPTION_MAX = 100  # GitHub refuses longer label descriptions


class Status(StrEnum):
    """The status labels (GH-1)."""

    WORKING = "agent:working"
    NEEDS_INFO = "agent:needs-info"
    SPLIT = "agent:split"
    MERGED = "agent:merged"
    APPROVED = "agent:approved"


@dataclass(frozen=True)
class LabelDef:
    """A label as the pipeline creates it: name, colour and description."""

    name: str
    colour: str
    description: str
    trigger: str
    resume: str
    control: str = "status"


_STATUS: dict[Status, LabelDef] = {
    Status.WORKING: LabelDef(
        Status.WORKING,
        "0e8a16",
        "Conveyor is working on this issue (claim comment names the lane).",
        "A lane claimed the issue.",
        "Nothing to do; it ends merged, split, asking or stopped.",
    ),
    Status.NEEDS_INFO: LabelDef(
        Status.NEEDS_INFO,
        "fbca04",
        "Conveyor asked questions; an allowed user's reply resumes it.",
        "Triage needs answers before work can start.",
        "Answer the questions in a comment as an allowed user.",
    ),
    Status.SPLIT: LabelDef(
        Status.SPLIT,
        "c5def5",
        "Conveyor split this issue into sub-issues; it closes when they do.",
        "The spec writer cut the issue into sub-issues.",
        "Nothing to do; the parent closes when every sub-issue is closed.",
    ),
    Status.MERGED: LabelDef(
        Status.MERGED,
        "6f42c1",
        "Conveyor merged the pull request for this issue, or closed out a person's merge.",
        "The PR was squash-merged, or a person merged it after its handover.",
        "Nothing to do.",
    ),
    Status.APPROVED: LabelDef(
        Status.APPROVED,
        "0075ca",
        "Conveyor verified and approved the PR; a person merges it (handover.merge).",
        "The PR passed verify, CI, acceptance and security, with handover.merge = person.",
        "Review and merge the PR: Conveyor then closes the issue out as merged (closing the PR"
        " unmerged stops it with agent:stopped-pr-closed).",
    ),
}


def stop_label(code: StopCode) -> LabelDef:
    """The label of one stop code; its description names the control (GH-4)."""
    control = code.control
    return LabelDef(
        code.label,
        control.colour,
        f"Stopped by the {control.name} control; see the stop comment. Remove to restart.",
        control.checks,
        f"{control.resume} Then remove the label.",
        control.name,
    )


def status_label(status: Status) -> LabelDef:
    """The label of one status."""
    return _STATUS[status]


def all_labels() -> tuple[LabelDef, ...]:
    """Every label the pipeline may set: the statuses, then one per stop code."""
    return (*(_STATUS[s] for s in Status), *(stop_label(c) for c in StopCode))


def agent_labels(labels: Iterable[str]) -> tuple[str, ...]:
    """The agent labels among an issue's labels."""
    return tuple(name for name in labels if name.startswith(PREFIX))


def stop_code_of(labels: Iterable[str]) -> StopCode | None:
    """The stop code of the first stop label present, if any."""
    for name in labels:
        if name.startswith(STOP_PREFIX):
            try:
                return StopCode(name[len(STOP_PREFIX) :])
            except ValueError:
                continue
    return None


def has_stop_label(labels: Iterable[str]) -> bool:
    """Whether any `agent:stopped-*` label is on the issue."""
    return any(name.startswith(STOP_PREFIX) for name in labels)


def relabel(labels: Iterable[str], target: str | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Labels to add and to remove so that `target` is the only agent label (GH-1)."""
    present = agent_labels(labels)
    add = () if target is None or target in present else (target,)
    remove = tuple(name for name in present if name != target)
    return add, remove


def labels_markdown() -> str:
    """The "Agent labels" page (`docs/labels.md`), generated from the label table (GH-4)."""
    lines = [
        "# Agent labels",
        "",
        "Conveyor shows each issue's coarse status with one `agent:` label at a time.",
        "Finer stages live in the hidden state comment. Every stop also posts a signed",
        "comment naming the control, what it checks, the reason and how to resume.",
        "Removing a stop label restarts the issue as a fresh attempt with fresh limits;",
        "`conveyor resume --issue N` removes it through the forge's API, on GitHub and on",
        "the embedded forge alike.",
        "",
        "This page is generated from `conveyor.core.labels`; a test keeps it in step.",
        "",
        "| label | control | trigger | next step |",
        "| --- | --- | --- | --- |",
    ]
    lines += [f"| `{d.name}` | {d.control} | {d.trigger} | {d.resume} |" for d in all_labels()]
    return "\n".join(lines) + "\n"


def labelled_outcome(labels: Iterable[str]) -> str | None:
    """What the labels alone say of an issue a person reads about: merged, stopped (control),
    waiting for an answer; None when they say none of these."""
    names = tuple(labels)
    if Status.MERGED.value in names:
        return "merged"
    stops = [name.removeprefix(STOP_PREFIX) for name in names if name.startswith(STOP_PREFIX)]
    if stops:
        return f"stopped ({stops[0]})"
    if Status.NEEDS_INFO.value in names:
        return "waiting for an answer"
    return None
