"""The `tally` project on the embedded forge and the scripted sessions of its issue.

The issue asks for `tally.unique.count_unique`; the spec writer commits its stub and a
failing test (`tests/test_unique.py::test_count_unique`); pytest, ruff and `mypy --strict`
are configured in `pyproject.toml` and are the config's test, lint and typecheck commands.
Each cheating implementer leaves the behaviour out or writes code the judges fail, and
changes what judges it instead; every reader approves, as a fooled reviewer would.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from conveyor.core.replies import SPEC_END
from conveyor.emulator.app.server import ForgeServer
from conveyor.testing.world import World
from tests.contract.verify.tally_kit import BASE, COMMANDS, SPEC_TEST, STUB, UNIQUE
from tests.e2e.back.merge_helpers import FAST, clean_back_half
from tests.e2e.helpers import reply, spec_answer, triage

BEHAVIOUR = "`count_unique(words)` returns how many distinct words the list holds."
SPEC_TEXT = f"""## Behaviour
- {BEHAVIOUR}

## Out of scope
Nothing else.

## Design
A new module `src/tally/unique.py`.

## Test interfaces
`tally.unique.count_unique`

## Tests
`tests/test_unique.py` drives `count_unique`.

## Wiki updates
None.

## Assumptions and risks
None.

## Sources
The issue.
{SPEC_END}
"""
INTERFACE = {
    "name": "count_unique",
    "kind": "function",
    "where": UNIQUE,
    "status": "new",
    "signature": "def count_unique(words: list[str]) -> int",
    "behaviours": [BEHAVIOUR],
}
SPEC_ID = "tests/test_unique.py::test_count_unique"


def tally_world(server: ForgeServer, tmp_path: Path) -> World:
    """A World on the `tally` project with its three commands."""
    source = tmp_path / "tally"
    for path, text in BASE.items():
        target = source / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    commands = {
        "test": COMMANDS.test,
        "lint": COMMANDS.lint,
        "typecheck": COMMANDS.typecheck,
        "timeout_seconds": 120,
    }
    config = {**FAST, "commands": commands}
    return World.create(server, tmp_path / "world", config=config, src=source)


def spec_entry(
    tag: str, extra: Mapping[str, str] | None = None, spec: str = SPEC_TEXT
) -> dict[str, Any]:
    """The spec writer: the stub, the failing test (and `extra` files), then ready."""
    files = {UNIQUE: STUB, "tests/test_unique.py": SPEC_TEST, **(extra or {})}
    actions: list[dict[str, Any]] = [{"write": {"path": p, "content": t}} for p, t in files.items()]
    actions.append({"commit": "A failing test of count_unique"})
    answer = spec_answer(spec=spec, interfaces=[INTERFACE])
    return {"tag": tag, "kind": "spec", "turns": [{"actions": actions}, reply(answer)]}


def implement_entry(tag: str, files: Mapping[str, str]) -> dict[str, Any]:
    """The implementer: writes `files`, commits, and says it is done."""
    actions: list[dict[str, Any]] = [{"write": {"path": p, "content": t}} for p, t in files.items()]
    actions.append({"commit": "count_unique"})
    answer: dict[str, Any] = {"status": "done", "summary": "count_unique counts distinct words."}
    answer |= {"blocked_reason": None, "deviations": []}
    return {"tag": tag, "kind": "implement", "turns": [{"actions": actions}, reply(answer)]}


def cannot_fix(tag: str) -> dict[str, Any]:
    """A check fixer that will not undo the implementer's work."""
    answer = {"status": "cannot-fix", "cause": "the checks are wrong", "summary": "no"}
    return {"tag": tag, "kind": "check_fix", "turns": [reply(answer)]}


def whole_issue(
    tag: str, files: Mapping[str, str], spec: Mapping[str, str] | None = None, text: str = SPEC_TEXT
) -> list[dict[str, Any]]:
    """Every session: triage, the spec, the implementer's `files`, a fixer that gives up, and
    readers who approve everything."""
    return [
        triage(tag),
        spec_entry(tag, spec, text),
        implement_entry(tag, files),
        cannot_fix(tag),
        *clean_back_half(tag),
    ]


def open_tally_issue(world: World, tag: str) -> int:
    """The issue, opened by the trusted user."""
    issue = world.open_issue(f"Count distinct words [{tag}]", "`count_unique(words)`, please.")
    return issue.number
