"""`conveyor run` takes issues forward by itself, as far as the stage chain goes (to review)."""

from __future__ import annotations

from conveyor.core.state import Stage
from conveyor.orchestrator.shell.ledger import LEDGER_FILE, LedgerDb
from conveyor.testing.world import World
from tests.e2e.orchestrator.chain import (
    assert_invariants,
    assert_no_overlap,
    assert_one_state_comment,
    entries,
    job_spans,
)

TAGS = ("alpha", "beta", "gamma")


def test_run_takes_every_issue_to_a_ready_pr_one_job_at_a_time_per_issue(world: World) -> None:
    """Three issues: each reaches review with a ready PR, one state comment, jobs in sequence."""
    world.write_scenario(entries(TAGS))
    numbers = [world.open_issue(f"Add {tag} [{tag}]", f"{tag}() returns 1.").number for tag in TAGS]
    done = world.run("run", "--until-idle", timeout=280)
    assert done.returncode == 0, done.stdout + done.stderr
    for number in numbers:
        state = world.state(number)
        assert state is not None
        assert state.stage is Stage.REVIEW, (number, state.stopped)
        pr = world.pr(number)
        assert pr is not None
        assert not pr.draft
        assert_one_state_comment(world, number)
        spans = job_spans([world.repo_home], number)
        assert len(spans) == 3
        assert_no_overlap(spans)
    assert_invariants(world, *numbers)
    with LedgerDb(world.repo_home / LEDGER_FILE, readonly=True) as ledger:
        by_issue = {
            line.key: line.sessions for line in ledger.by("issue", spans[0][0].replace(year=2000))
        }
    assert by_issue == {str(n): 3 for n in numbers}
