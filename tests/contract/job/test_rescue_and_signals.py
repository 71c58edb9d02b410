"""Nothing is lost: rescue of a killed job's commits, SIGTERM saves, the checkout's guards."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

from conveyor.agents.control import request_control
from conveyor.core.state import IssueState, Stage
from conveyor.git import GitEnv, Repo, commit_tree, rev_parse, tree_of, update_ref
from conveyor.job.events import read_events
from conveyor.job.jobfile import load_job_file
from conveyor.testing.world import World
from tests.contract.job.helpers import (
    job_dirs,
    run_script,
    seed_state,
    start_script,
    wait_for,
    wait_for_new_job,
)


def _issue_at_implement(world: World) -> int:
    issue = world.open_issue("Add a low-stock report", "List items below N.")
    seed_state(world, issue.number, IssueState(stage=Stage.IMPLEMENT))
    return issue.number


def _killed_job_with_a_local_commit(world: World, number: int) -> str:
    """Run a writer job that commits locally, then SIGKILL it; the commit's SHA."""
    proc = start_script(world, number, "implement", "commit-wait")
    job_dir = wait_for_new_job(world, number, proc)
    wait_for(job_dir / "waiting", proc)
    proc.kill()
    proc.communicate(timeout=30)
    assert (job_dir / "repo").is_dir()
    return (job_dir / "waiting").read_text()


def _rescue_refs(world: World, number: int) -> dict[str, str]:
    done = subprocess.run(
        ["git", "for-each-ref", "--format=%(refname) %(objectname)", "refs/conveyor/rescue/"],
        cwd=world.bare().path,
        capture_output=True,
        text=True,
        check=True,
    )
    refs = dict(line.split() for line in done.stdout.splitlines())
    return {k: v for k, v in refs.items() if k.startswith(f"refs/conveyor/rescue/{number}/")}


def test_a_killed_jobs_local_commit_is_pushed_as_a_rescue_ref_and_continued_from(
    world: World,
) -> None:
    """The next job saves the leftover commit on the forge and starts from it."""
    number = _issue_at_implement(world)
    sha = _killed_job_with_a_local_commit(world, number)
    code, err = run_script(world, number, "implement", "save")
    assert code == 0, err
    first, second = job_dirs(world, number)
    assert sha in _rescue_refs(world, number).values()
    assert (second / "head.txt").read_text() == sha
    assert not (first / "repo").exists()
    state = world.state(number)
    assert state is not None
    assert state.rescue is not None
    assert (state.rescue.sha, state.rescue.kept) == (sha, True)
    assert state.rescue.ref in _rescue_refs(world, number)
    lost = load_job_file(second / "job.json").lost_changes
    assert any(p.endswith("scratch.txt") for p in lost)


def test_a_rescue_does_not_continue_when_the_remote_branch_moved(world: World) -> None:
    """When someone pushed to the branch since, the job starts from it; the ref keeps the work."""
    number = _issue_at_implement(world)
    sha = _killed_job_with_a_local_commit(world, number)
    bare = world.bare()
    main = rev_parse(bare, "refs/heads/main")
    other = commit_tree(bare, tree_of(bare, main), [main], "Someone else's commit")
    update_ref(bare, f"refs/heads/agent/issue-{number}", other)
    code, err = run_script(world, number, "implement", "save")
    assert code == 0, err
    second = job_dirs(world, number)[-1]
    assert (second / "head.txt").read_text() == other
    state = world.state(number)
    assert state is not None
    assert state.rescue is not None
    assert (state.rescue.sha, state.rescue.kept) == (sha, False)
    assert _rescue_refs(world, number)[state.rescue.ref] == sha


def test_sigterm_saves_the_issue_at_its_stage_without_a_lease_and_pushes_the_commits(
    world: World,
) -> None:
    """SIGTERM: exit 1, lease cleared, stage kept, the local commit on the branch, repo/ gone."""
    number = _issue_at_implement(world)
    bare = world.bare()
    update_ref(bare, f"refs/heads/agent/issue-{number}", rev_parse(bare, "refs/heads/main"))
    proc = start_script(world, number, "implement", "commit-wait")
    job_dir = wait_for_new_job(world, number, proc)
    wait_for(job_dir / "waiting", proc)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, err
    sha = (job_dir / "waiting").read_text()
    assert world.ref(f"refs/heads/agent/issue-{number}") == sha
    state = world.state(number)
    assert state is not None
    assert (state.stage, state.lease) == (Stage.IMPLEMENT, None)
    record = load_job_file(job_dir / "job.json")
    assert record.finished is not None
    assert record.finished.outcome == "interrupted"
    assert "scratch.txt" in record.lost_changes
    assert not (job_dir / "repo").exists()
    kinds = [
        e["kind"]
        for e in read_events(world.repo_home / "runs" / f"issue-{number}" / "events.jsonl")
    ]
    assert kinds == ["claimed", "pushed", "released"]


def test_the_checkout_refuses_plain_pushes_and_commits_outside_it(world: World) -> None:
    """The pre-push hook stops `git push`; the control socket's commit refuses outside paths."""
    number = _issue_at_implement(world)
    proc = start_script(world, number, "implement", "commit-wait")
    job_dir = wait_for_new_job(world, number, proc)
    try:
        wait_for(job_dir / "waiting", proc)
        checkout = job_dir / "repo"
        env = GitEnv().variables() | {"HOME": str(world.root)}
        pushed = subprocess.run(
            ["git", "push", "origin", "HEAD:refs/heads/sneaky"],
            cwd=checkout,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert pushed.returncode != 0
        assert "push op" in pushed.stderr
        assert world.ref("refs/heads/sneaky") is None
        sock = Path(os.path.realpath(job_dir / "control.sock"))
        outside = request_control(
            sock, {"op": "commit", "session": "s", "paths": ["../x"], "message": "m"}
        )
        assert outside["ok"] is False
        assert "outside" in outside["error"]
        into_git = request_control(
            sock, {"op": "commit", "session": "s", "paths": [".git/config"], "message": "m"}
        )
        assert into_git["ok"] is False
        check = request_control(sock, {"op": "check-reply", "session": "s", "reply": {}})
        assert check == {"ok": True, "findings": ["ok: must be true"]}
        status = request_control(sock, {"op": "status"})
        assert (status["ok"], status["issue"], status["stage"]) == (True, number, "implement")
        message = Repo(checkout).path / ".git"
        assert message.is_dir()
        log = subprocess.run(
            ["git", "log", "-1", "--format=%B"],
            cwd=checkout,
            capture_output=True,
            text=True,
            check=True,
        )
        assert "Pipeline-Agent: implementer" in log.stdout
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)
