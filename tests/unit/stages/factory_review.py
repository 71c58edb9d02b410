"""Data for the review, fix, acceptance and security stage tests: replies and a driver."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conveyor.core import replies
from conveyor.core.state import Finding
from conveyor.stages.effects import (
    ChargeBudget,
    Charged,
    Done,
    LaunchSession,
    PostComment,
    PushBranch,
    Pushed,
    ResetBranch,
    Result,
    SessionEnded,
)
from conveyor.stages.effects_review import PostPrComment, PrepareReview, ReviewPrepared
from conveyor.stages.step import End, Step
from tests.unit.stages.factory import replied

HEAD = "e" * 40
FIXED = "f" * 40


def issue_finding(evidence: str = "off by one", severity: str = "blocking", **kw: object) -> Any:
    """A reviewer's finding as the reply carries it."""
    values: dict[str, object] = {
        "severity": severity,
        "file": "app.py",
        "line": 3,
        "evidence": evidence,
        "suggestion": "fix it",
    }
    values.update(kw)
    return replies.Finding.model_validate(values).model_dump()


def review_reply(lens: str, *found: Any) -> replies.ReviewReply:
    """One lens's reply."""
    return replies.ReviewReply.model_validate(
        {"lens": lens, "findings": list(found), "summary": f"{lens} read it."}
    )


def rereview_reply(**kw: object) -> replies.RereviewReply:
    """A re-review reply: nothing still open by default."""
    values: dict[str, object] = {"rulings": [], "still_open": [], "findings": [], "summary": "ok"}
    values.update(kw)
    return replies.RereviewReply.model_validate(values)


def stored(number: int, lens: str = "correctness", **kw: object) -> Finding:
    """A blocking finding kept in the state."""
    values: dict[str, object] = {
        "id": f"F{number}",
        "lens": lens,
        "severity": "blocking",
        "file": "app.py",
        "line": number,
        "evidence": f"problem {number}",
    }
    values.update(kw)
    return Finding.model_validate(values)


def answer(action: object, state: Any, session: Callable[[LaunchSession], Result]) -> Result:
    """The ordinary result of an effect; sessions are answered by `session`."""
    match action:
        case ChargeBudget():
            return Charged(state)
        case LaunchSession():
            return session(action)
        case PrepareReview():
            return ReviewPrepared("/job/review/" + action.name, HEAD, False, ("app.py",))
        case PostPrComment() | PostComment() | ResetBranch():
            return Done()
        case PushBranch():
            return Pushed(FIXED, ("app.py",), ("app.py",))
    msg = f"no ordinary result for {action!r}"
    raise AssertionError(msg)


def run_to_end(
    step: Step[Any],
    transition: Callable[[Any, Result], Step[Any]],
    session: Callable[[LaunchSession], Result],
) -> tuple[End, list[object]]:
    """Answer every effect until the machine ends; return the end and the effects asked."""
    asked: list[object] = []
    for _ in range(80):
        action = step.action
        if isinstance(action, End):
            return action, asked
        asked.append(action)
        step = transition(step.memory, answer(action, step.memory.state, session))
    msg = "the machine did not end within 80 steps"
    raise AssertionError(msg)


def by_kind(**answers: object) -> Callable[[LaunchSession], Result]:
    """Session answers keyed by launch kind (`review-scope`, `aggregate`, …)."""

    def session(launch: LaunchSession) -> Result:
        reply = answers[launch.kind.replace("-", "_")]
        return reply if isinstance(reply, SessionEnded) else replied(reply)

    return session
