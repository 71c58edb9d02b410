"""`conveyor run --dry-run` on the embedded forge: the order, reasons and budgets a tick would
use, and not one write in the forge's request log (issue 48); then a tick takes exactly the
opted-in issues, priority first, and leaves the rest untouched."""

from __future__ import annotations

import time

from conveyor.core.labels import Status
from conveyor.testing.world import TRUSTED, VISITOR, World
from tests.e2e.helpers import spec_ready, triage

WRITES = ("POST", "PATCH", "PUT", "DELETE")


def test_the_dry_run_lists_the_starts_in_order_and_writes_nothing(world: World) -> None:
    """Opt-in label, priority and size: the order and each reason; the log shows only reads."""
    world.write_config({"intake": {"labels": ["conveyor"]}, "money": {"per_day": 5.0}})
    plain = world.open_issue("Add a stock total [plain]", "Sum the quantities.")
    urgent = world.open_issue("Fix remove() [urgent]", "Refuse negative quantities.")
    other = world.open_issue("Rework everything [other]", "Not opted in.")
    stranger = world.open_issue("Please add CSV [visitor]", "From a visitor.", author=VISITOR)
    person = world.forge_as(TRUSTED)
    person.add_labels(plain.number, ["conveyor"])
    person.add_labels(urgent.number, ["conveyor", "priority"])
    before = time.time()
    shown = world.run("run", "--dry-run")
    after = time.time()
    assert shown.returncode == 0, shown.stdout + shown.stderr
    log = [r for r in world.server.requests() if before <= r["at"] <= after]
    ours = [r["route"] for r in log if world.repo in r["route"]]
    assert ours, "the dry run read the repository"
    assert [route for route in ours if route.startswith(WRITES)] == []
    lines = shown.stdout.splitlines()
    assert (
        lines[0]
        == f"dry run: nothing is started and nothing is written to the forge ({world.repo})"
    )
    starts = [line.strip() for line in lines if line.strip()[:2] in ("1.", "2.")]
    assert starts == [
        f"1. #{urgent.number} triage: new issue, `priority`, size m, smallest first, then oldest",
        f"2. #{plain.number} triage: new issue, size m, smallest first, then oldest",
    ]
    assert "0.00 of 5.00 USD today (money.per_day)" in shown.stdout
    assert "of its 2,000,000 (limits.issue_token_ceiling)" in shown.stdout
    assert (
        f"#{other.number} triage: intake: lacks the label `conveyor` (intake.labels)"
        in shown.stdout
    )
    assert f"#{stranger.number} triage: untrusted" in shown.stdout
    for issue in (plain, urgent, other, stranger):
        assert Status.WORKING.value not in world.labels(issue.number)
        assert world.comments(issue.number) == ()
    world.write_scenario(
        [triage("urgent"), spec_ready("urgent"), triage("plain"), spec_ready("plain")]
    )
    ticked = world.run("tick")
    assert ticked.returncode == 0, ticked.stdout + ticked.stderr
    assert world.labels(other.number) == ()
    assert world.comments(other.number) == ()
    for issue in (plain, urgent):
        assert Status.WORKING.value in world.labels(issue.number)
