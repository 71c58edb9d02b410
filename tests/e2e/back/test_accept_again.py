"""Acceptance fails, the fix loop closes the gap, acceptance passes and the issue merges."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conveyor.core.labels import Status
from conveyor.core.state import Stage
from conveyor.emulator.app.server import ForgeServer
from conveyor.testing.world import World
from tests.e2e.back.test_review_fix import FIXED, lens
from tests.e2e.back.test_security_stop import session
from tests.e2e.helpers import assert_invariants, implement_done, reply, spec_ready, triage


def verdict(tag: str, kind: str) -> dict[str, Any]:
    """The acceptance verifier's entry: `pass` or `fail`."""
    failing = kind == "fail"
    answer = {
        "verdict": kind,
        "reason": "an empty stock is not covered" if failing else "it does what the issue asks",
        "missing": ["an empty stock totals 0"] if failing else [],
        "no_tests_reason_holds": None,
        "summary": kind,
    }
    return session(tag, "accept", answer)


def fixer(tag: str) -> dict[str, Any]:
    """A fixer that closes the acceptance gap with one commit."""
    files = [
        {"write": {"path": "inventory/total.py", "content": FIXED}},
        {"commit": "Cover an empty stock"},
    ]
    answer = {
        "status": "done",
        "summary": "An empty stock totals 0.",
        "addressed": [{"finding": 1, "how": "documented and covered"}],
        "disputes": [],
    }
    return {"tag": tag, "kind": "fix", "turns": [{"actions": files}, reply(answer)]}


# A whole issue through a dozen stage jobs: more than the default 300 s on a busy machine.
@pytest.mark.timeout(600)
def test_acceptance_fails_then_passes_after_a_fix_round_and_the_issue_merges(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """ACC-3, FIX-11: the failure is a blocking acceptance finding; the fixed branch re-runs."""
    world = World.create(
        forge_server, tmp_path / "world", config={"limits": {"ci_poll_seconds": 1}}
    )
    tag = "acceptagain"
    first = [
        triage(tag),
        spec_ready(tag),
        implement_done(tag),
        *(lens(tag, name) for name in ("correctness", "tests", "scope")),
    ]
    world.write_scenario([*first, verdict(tag, "fail")])
    issue = world.open_issue(f"Add a stock total [{tag}]", "Sum the quantities of every item.")
    failed = world.drive(issue.number, through="accept")
    assert failed.returncode == 0, failed.stdout + failed.stderr
    state = world.state(issue.number)
    assert state is not None
    assert state.stage is Stage.FIX
    assert [(f.lens, f.status) for f in state.findings] == [("acceptance", "open")]

    clean = {"rulings": [], "still_open": [], "findings": [], "summary": "covered now"}
    world.write_scenario(
        [
            fixer(tag),
            session(tag, "rereview-acceptance", clean),
            verdict(tag, "pass"),
            session(tag, "security", {"findings": [], "summary": "no harm"}),
        ]
    )
    done = world.drive(issue.number)
    assert done.returncode == 0, done.stdout + done.stderr
    assert world.labels(issue.number) == (Status.MERGED.value,)
    assert "an empty stock totals 0" in (world.base_file("inventory/total.py") or "")
    pr = world.pr(issue.number)
    assert pr is not None
    bodies = [c.body for c in world.comments(pr.number)]
    assert len([b for b in bodies if "### Acceptance: failed" in b]) == 1
    assert len([b for b in bodies if "### Acceptance: passed" in b]) == 1
    assert_invariants(world, issue.number)
