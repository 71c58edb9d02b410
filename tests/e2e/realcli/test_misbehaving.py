"""Misbehaving models through the real CLIs: each a fake-model script, its outcome pinned.

Triage sessions run the real `claude`, implementers the real `codex`; the other
roles are the scripted agent. Every outcome is the model's doing: a stop label
a person lifts, never a pause, never a retry as infrastructure.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conveyor.core.state import IssueState
from conveyor.emulator.app.server import ForgeServer
from conveyor.testing.fake_model import (
    CallTool,
    FakeModel,
    Refuse,
    RunCommand,
    SayText,
    Script,
    Usage,
    WriteFile,
)
from conveyor.testing.fake_model.playbook import Part, Playbook
from conveyor.testing.world import World
from tests.e2e.back.merge_helpers import clean_back_half
from tests.e2e.helpers import STUB, spec_ready
from tests.e2e.realcli.agents import CLIS

pytestmark = [pytest.mark.e2e, pytest.mark.realcli]

READY: dict[str, object] = {"decision": "ready", "notes": "Small.", "questions": [], "reason": None,
         "summary": "triage: ready"}  # fmt: skip
DONE: dict[str, object] = {
    "status": "done",
    "summary": "total() done",
    "blocked_reason": None,
    "deviations": [],
}
WRONG = STUB.replace("raise NotImplementedError", "return 0")
TRIAGE_SCRIPTS = {
    # submit_reply with a decision the schema does not know, then the turn ends
    "malformed": Script((CallTool("submit_reply", {**READY, "decision": "maybe"}),)),
    # a prose answer, never submitted
    "silent": Script((SayText("Looks ready to me; nothing else to add."),)),
    "refusal": Script((Refuse("I can't help with that request."),)),
    # the same command again and again
    "loop": Script((RunCommand("git status --short"),), repeat_last=True),
    # every answer reports a context past the hard limit (175k)
    "exhausted": Script((SayText("Reading everything at once."),),
                        usage=Usage(input_tokens=200_000)),
}  # fmt: skip
IMPLEMENT_SCRIPTS = {
    # claims success, changed nothing
    "nocommit": Script((CallTool("submit_reply", DONE),)),
    # commits code that the spec's failing test still fails
    "wrongcode": Script(
        (
            WriteFile("inventory/total.py", WRONG),
            CallTool("commit", {"paths": ["inventory/total.py"], "message": "total() returns 0"}),
            CallTool("submit_reply", DONE),
        )
    ),
}


@dataclass
class Bench:
    """The shared world: one repository, the fake model, both CLIs configured."""

    world: World
    model: FakeModel

    def issue(self, tag: str) -> int:
        """Open the issue tagged `tag`."""
        return self.world.open_issue(f"Add a stock total [{tag}]", "Sum every item.").number

    def stop_comment(self, number: int) -> str:
        """The issue's signed stop comment."""
        (body,) = [c.body for c in self.world.comments(number) if "### Stopped by" in c.body]
        return body

    def state(self, number: int) -> IssueState:
        """The issue's saved state."""
        state = self.world.state(number)
        assert state is not None
        return state


def _playbook() -> Playbook:
    parts = [Part("triage", script, tag) for tag, script in TRIAGE_SCRIPTS.items()]
    ready = Script((CallTool("submit_reply", READY),))
    parts += [Part("triage", ready, tag) for tag in IMPLEMENT_SCRIPTS]
    parts += [Part("implement", script, tag) for tag, script in IMPLEMENT_SCRIPTS.items()]
    return Playbook(parts)


def _scenario() -> list[dict[str, Any]]:
    return [
        entry for tag in IMPLEMENT_SCRIPTS for entry in (spec_ready(tag), *clean_back_half(tag))
    ]


@pytest.fixture(scope="module")
def bench(
    forge_server: ForgeServer, clis_bin: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Bench]:
    """A World whose triage runs claude and whose implementer runs codex, on one fake model."""
    claude, codex = CLIS[0], CLIS[1]
    with FakeModel(_playbook()) as model:
        limits = {"claim_wait_seconds": [0, 0], "ci_poll_seconds": 0.2, "triage_attempts": 1,
                  "max_check_fixes": 0}  # fmt: skip
        world = World.create(forge_server, tmp_path_factory.mktemp("misbehaving") / "world")
        scripted = {"agent": "scripted", "scenario": str(world.scenario_path)}
        roles = {"triage": claude.agent(clis_bin, model.url),
                 "implement": codex.agent(clis_bin, model.url)}  # fmt: skip
        world.write_config({"limits": limits, "agents": {"default": scripted, "roles": roles}})
        world.write_scenario(_scenario())
        world.extra_env |= {**claude.environ(), **codex.environ(), "CLAUDE_CODE_MAX_RETRIES": "0"}
        yield Bench(world, model)


@pytest.mark.parametrize(
    ("tag", "said"),
    [
        ("malformed", "decision"),
        ("silent", "ended without an accepted reply (its last words: Looks ready to me"),
        ("refusal", "refused the task"),
        ("loop", "endless tool loop: the same call 20 times in a row"),
        ("exhausted", "context passed the hard limit (175000) twice"),
    ],
)
def test_a_misbehaving_triage_model_stops_the_issue_as_triage_limit(
    bench: Bench, tag: str, said: str
) -> None:
    """The attempt is counted and charged; the signed stop comment says what the model did."""
    number = bench.issue(tag)
    job = bench.world.job(number, "triage")
    assert job.returncode == 0, job.stdout + job.stderr
    assert "agent:stopped-triage-limit" in bench.world.labels(number)
    assert said in bench.stop_comment(number)
    state = bench.state(number)
    assert state.rounds.triage_attempts == 1
    assert state.charges, "the model's failure is charged to the issue"


def test_an_implementer_claiming_success_without_a_commit_stops_as_not_doable(
    bench: Bench,
) -> None:
    """A `done` reply with no change on the branch: nothing to review, `not-doable`."""
    number = bench.issue("nocommit")
    done = bench.world.drive(number, through="implement")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "agent:stopped-not-doable" in bench.world.labels(number)
    assert "the implementer changed nothing" in bench.stop_comment(number)


def test_wrong_code_passes_review_and_is_caught_by_verify(bench: Bench) -> None:
    """The lenses see nothing; the checks run the spec's test, which still fails."""
    number = bench.issue("wrongcode")
    done = bench.world.drive(number)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "agent:stopped-check-fixes" in bench.world.labels(number)
    stop = bench.stop_comment(number)
    assert "test_total_sums_every_item" in stop, stop
    assert bench.world.base_file("inventory/total.py") is None, "nothing merged"
