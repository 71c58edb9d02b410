"""A first review's three lenses run at the same time, their comments still posted in order;
a lens the stage never asks for (it stopped first) is stopped with the stage."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conveyor.core.state import Stage
from conveyor.job.jobfile import load_job_file
from conveyor.testing.world import World
from tests.e2e.back.merge_helpers import clean_back_half, fast_world
from tests.e2e.helpers import implement_done, reply, spec_ready, triage

__all__ = ["fast_world"]  # the fixture, imported for pytest

LENSES = ("correctness", "tests", "scope")
WAIT_S = 20


def _meets_the_others(share: Path, lens: str) -> dict[str, Any]:
    """A shell step: say this lens started, wait (up to WAIT_S) until every lens has, and
    only then note that it saw them all; run one after another, no lens sees the others."""
    started = " ".join(f"[ -e {share / f'{name}.started'} ] &&" for name in LENSES)
    script = (
        f"touch {share / f'{lens}.started'}; i=0; "
        f"while [ $i -lt {WAIT_S * 10} ]; do {started} break; sleep 0.1; i=$((i+1)); done; "
        f"{started} touch {share / f'{lens}.saw-all'}"
    )
    return {"run": script}


def _lens(tag: str, lens: str, *actions: dict[str, Any]) -> dict[str, Any]:
    answer = {"lens": lens, "findings": [], "summary": f"{lens}: fine"}
    return {
        "tag": tag,
        "kind": f"review-{lens}",
        "turns": [{"actions": list(actions)}, reply(answer)],
    }


def _lens_comments(world: World, pr: int) -> list[str]:
    """The lenses whose signed PR comments the PR shows, oldest first."""
    found = []
    for comment in world.comments(pr):
        for lens in LENSES:
            if f"kind=review-{lens} " in comment.body:
                found.append(lens)
    return found


def test_the_three_lenses_run_at_once_and_post_their_comments_in_order(
    fast_world: World, tmp_path: Path
) -> None:
    """Each lens waits for the other two to have started: together they all see each other."""
    world, tag, share = fast_world, "together", tmp_path
    lenses = [_lens(tag, lens, _meets_the_others(share, lens)) for lens in LENSES]
    back = [e for e in clean_back_half(tag) if not str(e["kind"]).startswith("review-")]
    world.write_scenario([triage(tag), spec_ready(tag), implement_done(tag), *lenses, *back])
    issue = world.open_issue(f"Add a stock total [{tag}]", "Sum the quantities of every item.")
    done = world.drive(issue.number, through="review")
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(p.name for p in share.glob("*.saw-all")) == sorted(f"{n}.saw-all" for n in LENSES)
    state = world.state(issue.number)
    assert state is not None
    assert state.stage is Stage.CHECKS, done.stdout
    pr = world.pr(issue.number)
    assert pr is not None
    assert _lens_comments(world, pr.number) == list(LENSES)


def test_lenses_started_ahead_of_a_failing_first_lens_are_stopped_with_the_stage(
    fast_world: World, tmp_path: Path
) -> None:
    """The first lens never replies (twice): the review stops with `error` at once, and the
    two lenses started beside it, waiting for a file that never comes, are stopped then, their
    sessions recorded in the job file."""
    world, tag = fast_world, "aheadstop"
    never = str(tmp_path / "never-created")
    silent = {"tag": tag, "kind": "review-correctness", "turns": [{"actions": []}]}
    waiting = [_lens(tag, lens, {"pause_until": never}) for lens in LENSES[1:]]
    world.write_scenario([triage(tag), spec_ready(tag), implement_done(tag), silent, *waiting])
    issue = world.open_issue(f"Add a stock total [{tag}]", "Sum the quantities of every item.")
    done = world.drive(issue.number, through="review", timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "agent:stopped-error" in world.labels(issue.number)
    (job,) = (world.repo_home / "jobs").glob(f"issue-{issue.number}-review-*/job.json")
    sessions = {s.key: s.status for s in load_job_file(job).sessions}
    assert sessions["review-tests-2"] != "running"
    assert sessions["review-scope-3"] != "running"
    assert sorted(sessions) == ["review-correctness-1", "review-correctness-2",
                                "review-scope-3", "review-tests-2"]  # fmt: skip


def test_lenses_the_stage_never_asked_for_keep_what_they_spent(fast_world: World) -> None:
    """The first lens never replies (twice); the two started beside it reply at once, each
    costing 0.25: the stopped issue's charges carry both costs, so the token ceiling and
    `money.per_issue` count them (their charges saved ahead alone were given back)."""
    world, tag = fast_world, "aheadspent"
    silent = {"tag": tag, "kind": "review-correctness", "turns": [{"actions": []}]}
    costly = []
    for lens in LENSES[1:]:
        answer = {"lens": lens, "findings": [], "summary": f"{lens}: fine"}
        turn = reply(answer) | {"cost": 0.25}
        costly.append({"tag": tag, "kind": f"review-{lens}", "turns": [turn]})
    world.write_scenario([triage(tag), spec_ready(tag), implement_done(tag), silent, *costly])
    issue = world.open_issue(f"Add a stock total [{tag}]", "Sum the quantities of every item.")
    done = world.drive(issue.number, through="review", timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "agent:stopped-error" in world.labels(issue.number)
    state = world.state(issue.number)
    assert state is not None
    spent = [c for c in state.charges if c.cost_usd]
    assert [c.cost_usd for c in spent] == [0.25, 0.25]
    assert all(c.used and not c.ahead for c in spent)
    assert not any(c.ahead for c in state.charges)
