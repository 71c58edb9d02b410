"""After a handover (`handover.merge = "person"`), what a person does to the PR ends the
issue, end to end on the embedded forge under `conveyor run`: their merge is closed out as
Conveyor's own merge is; their close without a merge stops `pr-closed`; their push to the
branch stops `branch-changed` (the approval does not stand for commits nobody verified)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from conveyor.core.claims import parse_claims
from conveyor.core.labels import Status
from conveyor.core.state import Stage
from conveyor.core.stops import StopCode
from conveyor.emulator.app.server import ForgeServer
from conveyor.forge.types import PullRequest
from conveyor.job.events import EVENTS_FILE, read_events
from conveyor.job.jobfile import load_job_file
from conveyor.testing.world import ACCOUNT, TRUSTED, World
from tests.e2e.back.merge_helpers import handed_over
from tests.e2e.helpers import IMPL, assert_invariants

PERSON = {
    "limits": {"claim_wait_seconds": [0, 0], "ci_poll_seconds": 0.2, "poll_seconds": 1},
    "handover": {"merge": "person", "label": "ready-to-merge"},
}


def _approved(
    forge_server: ForgeServer, tmp_path: Path, tag: str
) -> tuple[World, int, PullRequest]:
    """A world whose issue went through the pipeline to its handover: approved, PR open."""
    return handed_over(forge_server, tmp_path, tag, PERSON)


def _run(world: World) -> str:
    done = world.run("run", "--until-idle")
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def test_a_person_merging_the_handed_over_pr_ends_the_issue_merged(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """The merge through the forge's API closes the issue; `conveyor run` then closes it out
    as its own merge does: one merger comment naming who merged, `agent:merged` alone,
    state done, the branch gone, every claim closed."""
    world, number, pr = _approved(forge_server, tmp_path, "personmerge")
    merged = world.forge_as(TRUSTED).merge_pr(pr.number, pr.head_sha, pr.title, pr.body)
    assert world.base_file("inventory/total.py") == IMPL
    preview = world.run("run", "--dry-run")
    assert preview.returncode == 0, preview.stdout + preview.stderr
    assert f"1. #{number} merge: PR #{pr.number} merged by a person" in preview.stdout
    assert world.labels(number) == (Status.APPROVED.value,), "a dry run changes nothing"
    output = _run(world)
    assert world.issue(number).state == "closed"
    assert world.labels(number) == (Status.MERGED.value,), output
    state = world.state(number)
    assert state is not None
    assert state.stage is Stage.DONE
    assert state.stopped is None
    assert state.lease is None or state.lease.released
    [closing] = [c.body for c in world.comments(pr.number) if "kind=merged " in c.body]
    assert f"by @{TRUSTED}" in closing
    assert merged.sha in closing
    assert "passed at the merged head" in closing
    assert world.ref(f"refs/heads/agent/issue-{number}") is None
    claims = parse_claims(world.comments(number), ACCOUNT)
    assert all(claim.closed for claim in claims)
    landing = sorted((world.repo_home / "jobs").glob(f"issue-{number}-merge-*/job.json"))[-1]
    finished = load_job_file(landing).finished
    assert finished is not None
    assert finished.outcome == "merged"
    events = read_events(world.repo_home / "runs" / f"issue-{number}" / EVENTS_FILE)
    [said] = [e for e in events if e.get("kind") == "merged"]
    assert (said["sha"], said["by"]) == (merged.sha, TRUSTED)
    again = _run(world)
    assert len([c for c in world.comments(pr.number) if "kind=merged " in c.body]) == 1, again
    assert_invariants(world, number)


def test_a_handed_over_pr_closed_unmerged_stops_the_issue_until_a_person_lifts_it(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """Closed without a merge: `agent:stopped-pr-closed` with a stop comment on the issue and
    the PR, the state keeps everything; lifting the label reopens the PR and hands it over
    again, at the same verified head."""
    world, number, pr = _approved(forge_server, tmp_path, "personclose")
    verified = world.state(number)
    assert verified is not None
    world.forge_as(TRUSTED).close_pr(pr.number)
    preview = world.run("run", "--dry-run")
    assert f"stop #{number} pr-closed: PR #{pr.number} was closed" in preview.stdout, preview
    assert world.labels(number) == (Status.APPROVED.value,), "a dry run changes nothing"
    output = _run(world)
    assert world.labels(number) == (StopCode.PR_CLOSED.label,), output
    assert world.issue(number).state == "open"
    state = world.state(number)
    assert state is not None
    assert state.stopped is not None
    assert state.stopped.control is StopCode.PR_CLOSED
    assert (state.stage, state.pr, state.verified_sha) == (
        Stage.APPROVED,
        pr.number,
        verified.verified_sha,
    )
    stops = [c.body for c in world.comments(number) if "kind=stop " in c.body]
    assert len(stops) == 1
    assert StopCode.PR_CLOSED.label in stops[0]
    assert [c for c in world.comments(pr.number) if "kind=stop " in c.body]
    quiet = _run(world)
    assert len([c for c in world.comments(number) if "kind=stop " in c.body]) == 1, quiet

    world.forge_as(TRUSTED).remove_label(number, StopCode.PR_CLOSED.label)
    lifted = _run(world)
    assert world.labels(number) == (Status.APPROVED.value,), lifted
    again = world.pr(number)
    assert again is not None
    assert (again.number, again.state, again.merged) == (pr.number, "open", False)
    after = world.state(number)
    assert after is not None
    assert (after.stage, after.stopped) == (Stage.APPROVED, None)
    assert after.verified_sha == verified.verified_sha


def _push_to_branch(world: World, tmp_path: Path, branch: str) -> str:
    """A person pushes one commit onto the PR's branch; the new head."""
    clone = tmp_path / "person"
    git = ["git", "-c", "user.name=p", "-c", "user.email=p@p", "-c", "core.hooksPath=/dev/null"]
    subprocess.run(
        [*git, "clone", "-q", "-b", branch, str(world.bare().path), str(clone)], check=True
    )
    (clone / "NOTES.md").write_text("a person's note, after the handover\n")
    subprocess.run([*git, "add", "NOTES.md"], cwd=clone, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "Add a note"], cwd=clone, check=True)
    subprocess.run([*git, "push", "-q", "origin", f"HEAD:{branch}"], cwd=clone, check=True)
    head = world.ref(f"refs/heads/{branch}")
    assert head is not None
    return head


def test_a_push_after_the_handover_takes_the_approval_off_and_stops_branch_changed(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """The PR's head is no longer the verified one: `agent:stopped-branch-changed` (no
    `agent:approved` on unverified commits), the stop naming both heads. A person who
    merges it anyway still ends the issue merged, and the closing comment says the merged
    head is not the one Conveyor verified."""
    world, number, pr = _approved(forge_server, tmp_path, "personpush")
    verified = pr.head_sha
    head = _push_to_branch(world, tmp_path, pr.head_ref)
    assert head != verified
    output = _run(world)
    assert world.labels(number) == (StopCode.BRANCH_CHANGED.label,), output
    state = world.state(number)
    assert state is not None
    assert state.stopped is not None
    assert state.stopped.control is StopCode.BRANCH_CHANGED
    [stop] = [c.body for c in world.comments(number) if "kind=stop " in c.body]
    assert head[:12] in stop
    assert verified[:12] in stop
    assert "reviewed from scratch" in stop
    moved = world.pr(number)
    assert moved is not None
    assert (moved.state, moved.merged) == ("open", False)

    world.forge_as(TRUSTED).merge_pr(pr.number, head, pr.title, pr.body)
    landed = _run(world)
    assert world.labels(number) == (Status.MERGED.value,), landed
    assert world.issue(number).state == "closed"
    [closing] = [c.body for c in world.comments(pr.number) if "kind=merged " in c.body]
    assert verified[:12] in closing
    assert head[:12] in closing
    assert "did not review or verify" in closing


def test_lifting_the_branch_changed_stop_verifies_the_new_head_and_hands_it_over_again(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """The person's push is reviewed and verified from scratch: the issue ends approved
    again, verified at their head, with a second handover comment; nothing was merged."""
    world, number, pr = _approved(forge_server, tmp_path, "personlift")
    head = _push_to_branch(world, tmp_path, pr.head_ref)
    stopped = _run(world)
    assert world.labels(number) == (StopCode.BRANCH_CHANGED.label,), stopped
    world.forge_as(TRUSTED).remove_label(number, StopCode.BRANCH_CHANGED.label)
    lifted = _run(world)
    assert world.labels(number) == (Status.APPROVED.value,), lifted
    state = world.state(number)
    assert state is not None
    assert (state.stage, state.stopped) == (Stage.APPROVED, None)
    assert state.reviewed_sha == head
    assert state.verified_sha == head
    handovers = [c.body for c in world.comments(number) if "kind=handover " in c.body]
    assert len(handovers) == 2
    assert head[:12] in handovers[-1]
    again = world.pr(number)
    assert again is not None
    assert (again.number, again.state, again.merged, again.head_sha) == (
        pr.number,
        "open",
        False,
        head,
    )
    assert_invariants(world, number)


REACHED = "conveyor-test-reached-the-teardown"


def _teardown_reached(world: World) -> bool:
    return any(
        REACHED in path.read_text(errors="replace").split()
        for path in world.repo_home.rglob("teardown.log")
    )


def test_a_landing_killed_in_its_close_out_is_finished_by_the_next_run(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """kill -9 of the landing job in its teardown (the issue closed, the merger comment
    posted, the state still at approved): `conveyor run` lands it again, once: done,
    `agent:merged`, one merger comment."""
    world, number, pr = _approved(forge_server, tmp_path, "personkill")
    seen = Path(tempfile.mkdtemp(prefix="conveyor-landing-kill-", dir="/var/tmp"))
    flag, release = seen / "flag", seen / "release"
    wait = f"echo {REACHED}; while [ ! -f {release} ]; do sleep 0.05; done"
    teardown = f"if [ -f {flag} ]; then {wait}; fi; true"
    world.write_config({**PERSON, "commands": {"teardown": teardown, "timeout_seconds": 120}})
    world.forge_as(TRUSTED).merge_pr(pr.number, pr.head_sha, pr.title, pr.body)
    flag.touch()
    job = world.start("job", "--issue", str(number), "--stage", "merge")
    try:
        deadline = time.monotonic() + 120
        while not _teardown_reached(world):
            assert time.monotonic() < deadline, "the landing never reached its teardown"
            time.sleep(0.05)
        os.killpg(job.pid, signal.SIGKILL)
        job.communicate(timeout=60)
    finally:
        flag.unlink()
        release.touch()
    cut = world.state(number)
    assert cut is not None
    assert cut.stage is Stage.APPROVED
    assert world.issue(number).state == "closed"
    output = _run(world)
    assert world.labels(number) == (Status.MERGED.value,), output
    state = world.state(number)
    assert state is not None
    assert state.stage is Stage.DONE
    assert len([c for c in world.comments(pr.number) if "kind=merged " in c.body]) == 1
    assert world.ref(f"refs/heads/agent/issue-{number}") is None
    shutil.rmtree(seen, ignore_errors=True)
