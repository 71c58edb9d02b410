"""Issue 16, point 6: a broken down migration is a finding the check fixer fixes (CHK-5)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conveyor.core.replies import SPEC_END
from conveyor.core.state import Stage
from conveyor.emulator.app.server import ForgeServer
from conveyor.testing.world import World
from tests.contract.verify.sqlite_project import (
    BAD_PRICE_DOWN,
    MIGRATE_DOWN,
    MIGRATE_UP,
    PRICE_DOWN,
    PRICE_IMPL,
    PRICE_STUB,
    PRICE_TEST,
    PRICE_UP,
    PRICES,
    PYTEST,
    write_project,
)
from tests.e2e.back.merge_helpers import FAST, clean_back_half
from tests.e2e.helpers import assert_invariants, reply, session_tasks, spec_answer, triage

TAG = "migrate"
BEHAVIOUR = "`price_of(db, name)` returns the item's price, kept in a new `price` column."
SPEC = f"""## Behaviour
- {BEHAVIOUR}

## Out of scope
Nothing else.

## Design
Migration 002 adds the column; `shop.prices.price_of` reads it.

## Test interfaces
`shop.prices.price_of`

## Tests
`tests/test_price.py` migrates a database and reads a price.

## Wiki updates
None.

## Assumptions and risks
None.

## Sources
The issue.
{SPEC_END}
"""
INTERFACE = {
    "name": "price_of",
    "kind": "function",
    "where": PRICES,
    "status": "new",
    "signature": "def price_of(db, name)",
    "behaviours": [BEHAVIOUR],
}


def _writer(kind: str, files: dict[str, str], message: str, answer: dict[str, Any]) -> Any:
    writes = [{"write": {"path": p, "content": c}} for p, c in files.items()]
    return {
        "tag": TAG,
        "kind": kind,
        "turns": [{"actions": [*writes, {"commit": message}]}, reply(answer)],
    }


def scenario() -> list[dict[str, Any]]:
    """Triage to security; the implementer's down migration names the wrong table."""
    spec = _writer(
        "spec",
        {PRICES: PRICE_STUB, "tests/test_price.py": PRICE_TEST},
        "A failing test: an item's price is read",
        spec_answer(spec=SPEC, interfaces=[INTERFACE]),
    )
    implement = _writer(
        "implement",
        {
            "migrations/002_price.up.sql": PRICE_UP,
            "migrations/002_price.down.sql": BAD_PRICE_DOWN,
            PRICES: PRICE_IMPL,
        },
        "Items have a price",
        {"status": "done", "summary": "price column", "blocked_reason": None, "deviations": []},
    )
    fixer = _writer(
        "check_fix",
        {"migrations/002_price.down.sql": PRICE_DOWN},
        "The down migration drops the column of the right table",
        {"status": "done", "cause": "a typo in the down migration", "summary": "items"},
    )
    clean = {"rulings": [], "still_open": [], "findings": [], "summary": "fine"}
    rereviews = [
        {"tag": TAG, "kind": f"rereview-{lens}", "turns": [reply(clean)]}
        for lens in ("correctness", "scope")
    ]
    return [triage(TAG), spec, implement, fixer, *rereviews, *clean_back_half(TAG)]


def test_a_broken_down_migration_is_fixed_by_the_check_fixer_and_the_issue_merges(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """Verify runs 002 up, down (fails: no such table), the fixer repairs it, the rerun passes."""
    commands = {
        "test": PYTEST,
        "timeout_seconds": 120,
        "migrate_up": MIGRATE_UP,
        "migrate_down": MIGRATE_DOWN,
    }
    world = World.create(
        forge_server,
        tmp_path / "world",
        config={**FAST, "commands": commands},
        src=write_project(tmp_path / "shop"),
    )
    world.write_scenario(scenario())
    issue = world.open_issue(f"Items need a price [{TAG}]", "Keep a price per item.")

    done = world.drive(issue.number)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "agent:merged" in world.labels(issue.number), world.labels(issue.number)
    assert world.base_file("migrations/002_price.down.sql") == PRICE_DOWN
    (task,) = session_tasks(world, issue.number, "check_fix")
    assert "migrations: failed" in task
    assert "no such table: item" in task
    state = world.state(issue.number)
    assert state is not None
    assert (state.stage, state.rounds.check_fix) == (Stage.DONE, 1)
    checks = [c.body for c in world.comments(issue.number) if "### Checks" in c.body]
    assert "- migrations: passed" in checks[-1]
    assert_invariants(world, issue.number)
