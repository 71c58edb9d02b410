"""Stacked branches with `handover.merge = "person"`: a dependent D waits at merge while its
prerequisite P's PR waits for a person; once the person merges P, D follows as it does
after Conveyor's own merge (restacked on the base, its PR based on main, only its own
commits), then is handed over in its turn."""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.core.labels import Status
from conveyor.core.state import Stage
from conveyor.emulator.app.server import ForgeServer
from conveyor.testing.world import ACCOUNT, TRUSTED, World
from tests.e2e.back.merge_helpers import clean_back_half
from tests.e2e.orchestrator.chain import chain_config, entries

P_TAG, D_TAG = "handprereq", "handdependent"


def _config() -> dict[str, object]:
    return {**chain_config(stage_caps={}, ci_poll_seconds=0.2), "handover": {"merge": "person"}}


def _run(world: World) -> str:
    done = world.run("run", "--until-idle", timeout=280)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


@pytest.mark.timeout(600)
def test_a_dependent_follows_a_prerequisite_a_person_merged_and_is_handed_over_in_turn(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    world = World.create(forge_server, tmp_path / "world", config=_config())
    world.write_scenario(
        [*entries((P_TAG, D_TAG)), *clean_back_half(P_TAG), *clean_back_half(D_TAG)]
    )
    prereq = world.open_issue(f"Add {P_TAG} [{P_TAG}]", f"{P_TAG}() returns 1.").number
    body = f"{D_TAG}() returns 1.\n\nAfter #{prereq} merges.\n"
    dependent = world.open_issue(f"Add {D_TAG} [{D_TAG}]", body, author=ACCOUNT).number
    first = _run(world)
    p_state, d_state = world.state(prereq), world.state(dependent)
    assert p_state is not None
    assert d_state is not None
    assert p_state.stage is Stage.APPROVED, first
    assert d_state.stage is Stage.MERGE, first
    assert d_state.stacked_on is not None
    assert d_state.stacked_on.issue == prereq

    pr = world.pr(prereq)
    assert pr is not None
    world.forge_as(TRUSTED).merge_pr(pr.number, pr.head_sha, pr.title, pr.body)
    second = _run(world)
    assert world.labels(prereq) == (Status.MERGED.value,), second
    p_done, d_after = world.state(prereq), world.state(dependent)
    assert p_done is not None
    assert d_after is not None
    assert p_done.stage is Stage.DONE
    assert d_after.stage is Stage.APPROVED, second
    assert d_after.stacked_on is None
    assert world.labels(dependent) == (Status.APPROVED.value,)
    d_pr = world.pr(dependent)
    assert d_pr is not None
    assert (d_pr.base_ref, d_pr.state, d_pr.merged) == ("main", "open", False)
    files = {f.filename for f in world.forge_as(TRUSTED).list_pr_files(d_pr.number)}
    assert files == {f"inventory/{D_TAG}.py", f"tests/test_{D_TAG}.py"}
