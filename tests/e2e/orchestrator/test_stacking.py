"""Stacked branches under `conveyor run`: an issue that follows another starts on its branch.

Each test opens a prerequisite P and a dependent D ("After #P merges.", written by
the pipeline's account as a split writes it) and lets the orchestrator run. D starts
on P's branch once P reaches checks with no open findings (STK-8); the tests then
take one path each: P moves, P merges, P stops, P is closed without merging.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from conveyor.cli.config_load import load_config
from conveyor.core.state import IssueState, StackedOn, Stage
from conveyor.core.stops import StopCode
from conveyor.emulator.app.server import ForgeServer
from conveyor.git import is_ancestor
from conveyor.git.runner import git_text
from conveyor.job.events import EVENTS_FILE, read_events
from conveyor.job.jobfile import load_job_file
from conveyor.ops.forge.context import OpContext
from conveyor.ops.forge.stop import stop
from conveyor.testing.world import ACCOUNT, World
from tests.e2e.back.merge_helpers import clean_back_half
from tests.e2e.helpers import reply
from tests.e2e.orchestrator.chain import (
    assert_invariants,
    chain_config,
    entries,
    log_lines,
)

P_TAG, D_TAG = "prereq", "dependent"


def _world(forge_server: ForgeServer, tmp_path: Path, **caps: int) -> World:
    """A World whose loop runs every stage but the capped ones (`stage_caps`)."""
    config = chain_config(stage_caps=caps, ci_poll_seconds=0.2)
    return World.create(forge_server, tmp_path / "world", config=config)


def _open_pair(world: World) -> tuple[int, int]:
    """P, then D following it, as a split opens them (the account writes D's order)."""
    prereq = world.open_issue(f"Add {P_TAG} [{P_TAG}]", f"{P_TAG}() returns 1.").number
    body = f"{D_TAG}() returns 1.\n\nAfter #{prereq} merges.\n"
    dependent = world.open_issue(f"Add {D_TAG} [{D_TAG}]", body, author=ACCOUNT).number
    return prereq, dependent


def _run(world: World, **caps: int) -> str:
    """`conveyor run --until-idle` with these stage caps; its output."""
    world.write_config(chain_config(stage_caps=caps, ci_poll_seconds=0.2))
    done = world.run("run", "--until-idle", timeout=280)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def _state(world: World, number: int) -> IssueState:
    state = world.state(number)
    assert state is not None, f"#{number} has no state"
    return state


def _first_stack(world: World, number: int) -> StackedOn:
    """Where the issue was first stacked, from its `stacked` event."""
    events = read_events(world.repo_home / "runs" / f"issue-{number}" / EVENTS_FILE)
    found = [e for e in events if e.get("kind") == "stacked"]
    assert found, f"#{number} was never stacked"
    on, head = found[0]["on"], found[0]["head"]
    assert isinstance(on, int)
    assert isinstance(head, str)
    return StackedOn(issue=on, head_sha=head)


def _job_times(world: World, number: int, stage: str) -> list[tuple[datetime, datetime]]:
    spans = []
    for path in world.repo_home.glob(f"jobs/issue-{number}-{stage}-*/job.json"):
        record = load_job_file(path)
        end = record.finished.at if record.finished is not None else record.heartbeat
        spans.append((record.started_at, end))
    return sorted(spans)


def _merged_paths(world: World, number: int) -> set[str]:
    """The files the issue's squash commit on main changed."""
    pr = world.pr(number)
    assert pr is not None
    assert pr.merged
    assert pr.merge_commit_sha is not None
    sha = pr.merge_commit_sha
    return set(git_text(world.bare(), "diff", "--name-only", f"{sha}^", sha).split())


def _own_files(tag: str) -> set[str]:
    return {f"inventory/{tag}.py", f"tests/test_{tag}.py"}


def _no_stop_label(world: World, number: int) -> None:
    labels = world.labels(number)
    assert not [label for label in labels if label.startswith("agent:stopped-")], labels


def _clean_pair() -> list[dict[str, Any]]:
    return [*entries((P_TAG, D_TAG)), *clean_back_half(P_TAG), *clean_back_half(D_TAG)]


@pytest.mark.timeout(600)
def test_a_dependent_starts_on_its_prerequisites_branch_and_merges_with_only_its_own_commits(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """STK-1, STK-4, STK-8, MRG-11 (P merges): D's first job began on P's branch before P
    merged; once P merged D was put on the base, its PR based on main, and its squash
    holds only its own files."""
    world = _world(forge_server, tmp_path)
    world.write_scenario(_clean_pair())
    prereq, dependent = _open_pair(world)
    _run(world)
    for number in (prereq, dependent):
        assert _state(world, number).stage is Stage.DONE
        _no_stop_label(world, number)
    first = _first_stack(world, dependent)
    assert first.issue == prereq
    began = _job_times(world, dependent, "triage")[0][0]
    merged = _job_times(world, prereq, "merge")[-1][1]
    assert began < merged, "the dependent waited for its prerequisite to merge"
    assert _state(world, dependent).stacked_on is None
    pr = world.pr(dependent)
    assert pr is not None
    assert pr.base_ref == "main"
    assert _merged_paths(world, dependent) == _own_files(D_TAG)
    assert _merged_paths(world, prereq) == _own_files(P_TAG)
    assert_invariants(world, prereq, dependent)


def _accept(tag: str, verdict: str) -> dict[str, Any]:
    failing = verdict == "fail"
    answer = {
        "verdict": verdict,
        "reason": "the zero case is missing" if failing else "it does what the issue asks",
        "missing": ["say what 0 means"] if failing else [],
        "no_tests_reason_holds": None,
        "summary": verdict,
    }
    return {"tag": tag, "kind": "accept", "turns": [reply(answer)]}


def _moving_prereq(world: World) -> None:
    """P's acceptance fails once: the fixer commits (P's head moves) and flips the scenario,
    so the next acceptance passes."""
    lenses = clean_back_half(P_TAG)[:3]
    done = (
        f'"""{P_TAG}, documented."""\n\n\ndef {P_TAG}() -> int:\n    """One, never zero."""\n'
        "    return 1\n"
    )
    flipped = world.scenario_path.with_suffix(".next.json")
    fixer = {
        "tag": P_TAG,
        "kind": "fix",
        "turns": [
            {
                "actions": [
                    {"write": {"path": f"inventory/{P_TAG}.py", "content": done}},
                    {"commit": "Say what the result means"},
                    {"run": f"cp '{flipped}' '{world.scenario_path}'"},
                ]
            },
            reply(
                {
                    "status": "done",
                    "summary": "documented",
                    "addressed": [{"finding": 1, "how": "docstring"}],
                    "disputes": [],
                }
            ),
        ],
    }
    clean = {"rulings": [], "still_open": [], "findings": [], "summary": "covered now"}
    rereview = {"tag": P_TAG, "kind": "rereview-acceptance", "turns": [reply(clean)]}
    security = clean_back_half(P_TAG)[-1]
    rest = [*entries((P_TAG, D_TAG)), *clean_back_half(D_TAG), *lenses, fixer, rereview, security]
    flipped.write_text(json.dumps({"sessions": [*rest, _accept(P_TAG, "pass")]}))
    world.write_scenario([*rest, _accept(P_TAG, "fail")])


@pytest.mark.timeout(600)
def test_a_dependent_follows_its_prerequisites_moved_head_replaying_only_its_own_commits(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """STK-2, STK-11 (P moves): P's fix round moves its head after D stacked on it; D ends on
    P's new head, stacked on it, and holds none of its own commits twice."""
    world = _world(forge_server, tmp_path, security=0)
    _moving_prereq(world)
    prereq, dependent = _open_pair(world)
    _run(world, security=0)
    p_state, d_state = _state(world, prereq), _state(world, dependent)
    assert p_state.stage is Stage.SECURITY, p_state
    assert d_state.stage is Stage.SECURITY, d_state
    assert p_state.rounds.fix == 1
    first = _first_stack(world, dependent)
    assert p_state.head_sha is not None
    assert first.head_sha != p_state.head_sha, "P's head did not move after D stacked"
    assert d_state.stacked_on == StackedOn(issue=prereq, head_sha=p_state.head_sha)
    d_head = world.ref(f"refs/heads/agent/issue-{dependent}")
    assert d_head is not None
    bare = world.bare()
    assert is_ancestor(bare, p_state.head_sha, d_head)
    own = git_text(bare, "diff", "--name-only", p_state.head_sha, d_head)
    assert set(own.split()) == _own_files(D_TAG)
    _no_stop_label(world, dependent)


def _park_at_accept(world: World) -> tuple[int, int]:
    """P and D both wait at acceptance (its cap is 0), D stacked on P."""
    world.write_scenario(_clean_pair())
    prereq, dependent = _open_pair(world)
    _run(world, accept=0)
    assert _state(world, prereq).stage is Stage.ACCEPT
    stacked = _state(world, dependent)
    assert stacked.stage is Stage.ACCEPT
    assert stacked.stacked_on is not None
    assert stacked.stacked_on.issue == prereq
    return prereq, dependent


@pytest.mark.timeout(600)
def test_a_stopped_prerequisite_holds_its_dependent_without_stopping_it(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """STK-12, STK-13 (P stops): D is held `after:#P:stopped` in orchestrator.log and gets no
    stop label of its own."""
    world = _world(forge_server, tmp_path, accept=0)
    prereq, dependent = _park_at_accept(world)
    ops = OpContext(world.forge_as(ACCOUNT), load_config(world.config_path), run_id="person")
    stop(ops, prereq, StopCode.ERROR, "stopped by hand for the test", now=datetime.now(UTC))
    _run(world)
    assert f"hold #{dependent} accept: after:#{prereq}:stopped" in log_lines(world.repo_home)
    assert _state(world, dependent).stage is Stage.ACCEPT
    assert _state(world, dependent).stopped is None
    _no_stop_label(world, dependent)


@pytest.mark.timeout(600)
def test_a_prerequisite_closed_unmerged_holds_its_dependent_until_it_is_reopened(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """STK-12 (P closed unmerged): D is held `after:#P:closed-unmerged`, unstopped; once P is
    reopened both go on and merge, D with only its own files."""
    world = _world(forge_server, tmp_path, accept=0)
    prereq, dependent = _park_at_accept(world)
    person = world.forge_as("alice")
    person.close_issue(prereq, "not_planned")
    _run(world)
    held = f"hold #{dependent} accept: after:#{prereq}:closed-unmerged"
    assert held in log_lines(world.repo_home)
    _no_stop_label(world, dependent)
    person.reopen_issue(prereq)
    _run(world)
    for number in (prereq, dependent):
        assert _state(world, number).stage is Stage.DONE, number
    assert _merged_paths(world, dependent) == _own_files(D_TAG)
    assert_invariants(world, prereq, dependent)
