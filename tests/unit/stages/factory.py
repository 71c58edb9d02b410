"""Data for the stage machine tests: inputs, replies and session results."""

from __future__ import annotations

from conveyor.core.config import Commands, Limits, Paths
from conveyor.core.replies import (
    SPEC_END,
    ImplementReply,
    Interface,
    SpecReply,
    SubIssue,
    TriageReply,
)
from conveyor.core.session import SessionStatus
from conveyor.stages.effects import SessionEnded
from conveyor.stages.step import Inputs

START = "a" * 40
SPEC_HEAD = "b" * 40
SPEC_BODY = f"""## Behaviour
- `total()` counts every item.
- `total()` of an empty stock is 0.
  - even after removals

## Out of scope
Nothing.

## Tests
tests/test_total.py
{SPEC_END}
"""


def inputs(**changes: object) -> Inputs:
    """Inputs for issue 7 with the reference limits."""
    values: dict[str, object] = {
        "issue": 7,
        "title": "Add a total",
        "base": "main",
        "limits": Limits(),
        "commands": Commands(test="pytest -q", lint="ruff check ."),
        "paths": Paths(),
        "head_sha": START,
        "issue_file": "/runs/issue-7/issue.md",
        "spec_file": "/runs/issue-7/spec.md",
        "handoff_file": "/runs/issue-7/handoff.md",
        "withheld": 2,
        "instructions": ("`/jobs/j/instructions/AGENTS.md` (`AGENTS.md` on `main`)",),
    }
    values.update(changes)
    return Inputs(**values)  # type: ignore[arg-type]


def replied(reply: object) -> SessionEnded:
    """A session that replied."""
    return SessionEnded(SessionStatus.REPLIED, reply)  # type: ignore[arg-type]


def failed(error: str = "the CLI crashed") -> SessionEnded:
    """A session that failed."""
    return SessionEnded(SessionStatus.FAILED, None, error)


def triage_reply(decision: str = "ready", **changes: object) -> TriageReply:
    """A triage reply."""
    values: dict[str, object] = {
        "decision": decision,
        "notes": "Lands in inventory/stock.py.",
        "questions": [],
        "reason": None,
        "summary": f"Triage says {decision}.",
    }
    values.update(changes)
    return TriageReply.model_validate(values)


INTERFACES = [
    Interface(
        name="total",
        kind="function",
        where="inventory/total.py",
        status="new",
        signature="def total(stock: Stock) -> int",
        behaviours=["`total()` counts every item.", "`total()` of an empty stock is 0."],
    )
]


def spec_reply(decision: str = "ready", **changes: object) -> SpecReply:
    """A spec writer's reply; ready by default, with interfaces covering every item."""
    values: dict[str, object] = {
        "decision": decision,
        "spec": SPEC_BODY,
        "questions": [],
        "sub_issues": [],
        "interfaces": [i.model_dump() for i in INTERFACES],
        "no_tests_reason": None,
        "wiki_only": False,
        "spec_in_draft": False,
        "status": "done",
        "summary": "Spec written.",
    }
    values.update(changes)
    return SpecReply.model_validate(values)


def parts(count: int) -> list[dict[str, object]]:
    """`count` split parts, each after the one before."""
    return [
        SubIssue(title=f"Part {i}", body=f"Do part {i}.", after=[i - 1] if i else []).model_dump()
        for i in range(count)
    ]


def implement_reply(status: str = "done", **changes: object) -> ImplementReply:
    """An implementer's reply."""
    values: dict[str, object] = {
        "status": status,
        "summary": "Added total().",
        "blocked_reason": None,
        "deviations": [],
    }
    values.update(changes)
    return ImplementReply.model_validate(values)
