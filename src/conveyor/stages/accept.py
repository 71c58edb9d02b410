"""The acceptance machine: a fresh reader judges the result against the issue (ACC-*)."""

from __future__ import annotations

from conveyor.core.config import Role
from conveyor.core.finding_loops import add_acceptance
from conveyor.core.findings import Verdict
from conveyor.core.replies import AcceptReply
from conveyor.core.state import Stage
from conveyor.core.stops import StopCode
from conveyor.stages import launch
from conveyor.stages.effects import Effect
from conveyor.stages.judging import Judging, Rule, frame, machine
from conveyor.stages.prompts import accept as prompt
from conveyor.stages.stage_def import JobRole, StageDef
from conveyor.stages.step import End, SavedAt, Stopped

RULE = Rule("accept", Role.ACCEPT, "acceptance verifier", AcceptReply, add_acceptance)


def _launch(run: Judging) -> Effect:
    spec_file = run.inputs.spec_file if run.state.spec_file else None
    text = prompt.render(prompt.AcceptData(**frame(run), spec=run.state.spec, spec_file=spec_file))
    return launch.reader(RULE.name, RULE.role, text, run.attempt)


def verdict_text(run: Judging) -> str:
    """The verifier's own PR comment: its verdict, its reason, what the change leaves out."""
    reply = run.reply
    assert isinstance(reply, AcceptReply), "the verdict comment needs the verifier's reply"
    failed = run.judged is not None and run.judged.verdict is not Verdict.CLEAN
    head = "### Acceptance: " + ("failed" if failed else "passed")
    missing = "".join(f"\n- {item}" for item in reply.missing)
    left = f"\n\nLeft out:{missing}" if missing else ""
    return f"{head}\n\n{reply.reason.strip()}{left}"


def _out_of_rounds(run: Judging) -> End:
    reason = "the change still does not do what the issue asks and the fix rounds are used up"
    return Stopped(StopCode.ACCEPTANCE, reason, run.state, verdict_text(run))


MACHINE = machine(
    RULE, _launch, verdict_text, lambda run: SavedAt(Stage.SECURITY, run.state), _out_of_rounds
)
TABLE = MACHINE.table
transition = MACHINE.transition
start = MACHINE.start
STAGE = StageDef(Stage.ACCEPT, MACHINE, JobRole.READER, Role.ACCEPT, restores_spec=True)
