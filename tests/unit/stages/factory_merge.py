"""Data for the checks, sync and merge machine tests: replies, gates and a driver."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from conveyor.core.ci_gate import Gate, Verdict
from conveyor.core.replies import CheckFixReply, ResolverReply
from conveyor.core.state import CiWait
from conveyor.stages.effects import Effect, Result
from conveyor.stages.step import End, Step

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
HEAD = "c" * 40
NEW = "d" * 40


def check_fix_reply(status: str = "done") -> CheckFixReply:
    """A check fixer's reply."""
    return CheckFixReply.model_validate(
        {"status": status, "cause": "a typo in total()", "summary": "Fixed the typo."}
    )


def resolver_reply(status: str = "done") -> ResolverReply:
    """A conflict resolver's reply."""
    return ResolverReply.model_validate(
        {"status": status, "choices": "kept both", "summary": "Resolved a.py."}
    )


def gate(verdict: Verdict, failing: tuple[str, ...] = ()) -> Gate:
    """A gate answer; a pending one carries a wait on HEAD."""
    wait = CiWait(sha=HEAD, since=NOW, last_read=NOW) if verdict is Verdict.PENDING else None
    return Gate(verdict, ("ci",), failing, wait, note=verdict.value)


def run_through(
    step: Step[Any], transition: Callable[[Any, Result], Step[Any]], answers: Sequence[Result]
) -> tuple[Step[Any], list[Effect]]:
    """Feed `answers` in order; returns the last step and every effect asked for on the way."""
    asked: list[Effect] = []
    for answer in answers:
        assert not isinstance(step.action, End), f"ended early at {step.action}"
        asked.append(step.action)
        step = transition(step.memory, answer)
    return step, asked
