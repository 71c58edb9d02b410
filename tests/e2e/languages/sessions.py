"""Scripted sessions for an issue on a repository in any language: the spec writer commits
failing tests, the implementer the fix, the back half finds nothing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conveyor.core.replies import SPEC_END
from conveyor.testing.world import World
from tests.e2e.back.merge_helpers import clean_back_half
from tests.e2e.helpers import assert_invariants, reply, session_tasks, spec_answer, triage


def spec_text(behaviour: str, fix: str, names: str, tests: str) -> str:
    """A ready spec: one behaviour, the file the fix goes to, the interfaces and the tests."""
    return f"""## Behaviour
- {behaviour}

## Out of scope
Nothing else.

## Design
Fix `{fix}`.

## Test interfaces
{names}

## Tests
{tests}

## Wiki updates
None.

## Assumptions and risks
None.

## Sources
The issue.
{SPEC_END}
"""


def _writes(files: Mapping[str, str], message: str) -> list[dict[str, Any]]:
    actions: list[dict[str, Any]] = [
        {"write": {"path": path, "content": text}} for path, text in files.items()
    ]
    return [*actions, {"commit": message}]


def spec_entry(
    tag: str, tests: Mapping[str, str], interfaces: list[dict[str, Any]], spec: str
) -> dict[str, Any]:
    """A spec writer that commits `tests` (and stubs among them) and replies ready."""
    answer = spec_answer(spec=spec, interfaces=interfaces)
    turns = [{"actions": _writes(tests, "Failing tests for the issue")}, reply(answer)]
    return {"tag": tag, "kind": "spec", "turns": turns}


def implement_entry(tag: str, fix: Mapping[str, str]) -> dict[str, Any]:
    """An implementer that writes `fix` (code, and any test of its own) and commits."""
    answer: dict[str, Any] = {"status": "done", "summary": "fixed."}
    answer |= {"blocked_reason": None, "deviations": []}
    turns = [{"actions": _writes(fix, "Fix the issue")}, reply(answer)]
    return {"tag": tag, "kind": "implement", "turns": turns}


def whole_issue(
    tag: str,
    tests: Mapping[str, str],
    fix: Mapping[str, str],
    interfaces: list[dict[str, Any]],
    spec: str,
) -> list[dict[str, Any]]:
    """Every session of the issue, triage to security, all clean."""
    sessions = [spec_entry(tag, tests, interfaces, spec), implement_entry(tag, fix)]
    return [triage(tag), *sessions, *clean_back_half(tag)]


def drive_merged(world: World, number: int) -> str:
    """Drive the issue to its merge; the last checks comment."""
    done = world.drive(number)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "agent:merged" in world.labels(number), (world.labels(number), _last(world, number))
    assert_invariants(world, number)
    checks = [c.body for c in world.comments(number) if "### Checks" in c.body]
    assert checks, "no checks comment"
    return checks[-1]


def drive_stopped_environment(world: World, number: int, says: str) -> None:
    """Drive the issue: it stops as the machine's (environment), saying `says`, after one
    spec session (charged to no one)."""
    done = world.drive(number)
    assert done.returncode == 0, done.stdout + done.stderr
    assert world.labels(number) == ("agent:stopped-environment",)
    stop = [c.body for c in world.comments(number) if "environment" in c.body.lower()]
    assert any(says in body for body in stop), stop
    assert len(session_tasks(world, number, "spec")) == 1


def _last(world: World, number: int) -> str:
    comments = world.comments(number)
    return comments[-1].body if comments else ""
