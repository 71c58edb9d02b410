"""`handover.merge = "person"`, end to end on the embedded forge (issue 48): a verified,
accepted, security-reviewed PR is labelled, assigned and put up for review, not merged; the
issue ends `approved`; `notify.command` hears of it, and of a stop."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from conveyor.core.labels import Status
from conveyor.core.state import Stage
from conveyor.core.stops import StopCode
from conveyor.testing.world import TOKEN_ENV, TRUSTED, World
from tests.e2e.back.merge_helpers import FAST, clean_back_half
from tests.e2e.helpers import assert_invariants, implement_done, spec_ready, triage

WRITE_ENV = (
    "import json, os, sys; "
    "open(sys.argv[1], 'a').write(json.dumps({k: v for k, v in os.environ.items()"
    " if k.startswith('CONVEYOR_')}) + '\\n')"
)


def _person_config(heard: Path) -> dict[str, Any]:
    return {
        **FAST,
        "handover": {
            "merge": "person",
            "label": "ready-to-merge",
            "assignees": [TRUSTED],
            "reviewers": [TRUSTED, "nobody-here"],
        },
        "notify": {"command": f'{sys.executable} -c "{WRITE_ENV}" {heard}'},
    }


def _heard(path: Path) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_a_finished_pr_is_handed_to_a_person_and_the_issue_ends_approved(
    world: World, tmp_path: Path
) -> None:
    """Label, assignee and review request on the PR; no merge, no close; `agent:approved`;
    the handover comment names who could not be asked; notify gets the PR's address."""
    heard = tmp_path / "heard.jsonl"
    world.write_config(_person_config(heard))
    tag = "handed"
    world.write_scenario([triage(tag), spec_ready(tag), implement_done(tag), *clean_back_half(tag)])
    issue = world.open_issue(f"Add a stock total [{tag}]", "Sum the quantities of every item.")
    done = world.drive(issue.number)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"#{issue.number}: approved" in done.stdout
    state = world.state(issue.number)
    assert state is not None
    assert state.stage is Stage.APPROVED
    assert world.labels(issue.number) == (Status.APPROVED.value,)
    assert world.issue(issue.number).state == "open"
    pr = world.pr(issue.number)
    assert pr is not None
    assert (pr.state, pr.merged) == ("open", False)
    assert world.base_file("inventory/total.py") is None
    raw = world.forge_as(TRUSTED).get_issue(pr.number)
    assert "ready-to-merge" in raw.labels
    assert raw.assignees == (TRUSTED,)
    handover = [c.body for c in world.comments(issue.number) if "kind=handover " in c.body]
    assert len(handover) == 1
    assert "Ready for a person to merge" in handover[0]
    assert f"review requested from {TRUSTED}" in handover[0]
    assert "review not requested from nobody-here" in handover[0]
    assert [c for c in world.comments(pr.number) if "kind=handover " in c.body]
    claims = [c.body for c in world.comments(issue.number) if "conveyor:claim" in c.body]
    assert all("claim-closed" in body for body in claims)
    [news] = _heard(heard)
    assert news["CONVEYOR_NOTIFY_EVENT"] == "approved"
    assert news["CONVEYOR_NOTIFY_ISSUE"] == str(issue.number)
    assert news["CONVEYOR_NOTIFY_PR"] == str(pr.number)
    assert news["CONVEYOR_NOTIFY_PR_URL"].endswith(f"/{world.repo}/pull/{pr.number}")
    assert TOKEN_ENV not in news
    again = world.drive(issue.number)
    assert f"#{issue.number}: approved" in again.stdout
    assert_invariants(world, issue.number)


def test_notify_hears_of_every_stop_with_its_control_and_reason(
    world: World, tmp_path: Path
) -> None:
    """A rejected issue stops: the command gets the control, the stage and the reason."""
    heard = tmp_path / "heard.jsonl"
    world.write_config(_person_config(heard))
    world.write_scenario([triage("nope", "reject", reason="Not a change to the library.")])
    issue = world.open_issue("Paint the office [nope]", "Blue.")
    done = world.drive(issue.number)
    assert done.returncode == 0, done.stdout + done.stderr
    [news] = _heard(heard)
    assert (news["CONVEYOR_NOTIFY_EVENT"], news["CONVEYOR_NOTIFY_CONTROL"]) == (
        "stopped",
        StopCode.TRIAGE_REJECTED.value,
    )
    assert news["CONVEYOR_NOTIFY_STAGE"] == "triage"
    assert news["CONVEYOR_NOTIFY_REASON"] == "Not a change to the library."
    assert news["CONVEYOR_NOTIFY_URL"].endswith(f"/{world.repo}/issues/{issue.number}")
