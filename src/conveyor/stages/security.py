"""The security machine: the last review, four harm categories only (SEC-*)."""

from __future__ import annotations

from conveyor.core.config import Role
from conveyor.core.finding_loops import add_security
from conveyor.core.replies import SecurityReply
from conveyor.core.state import Stage
from conveyor.core.stops import StopCode
from conveyor.stages import launch
from conveyor.stages.effects import Effect
from conveyor.stages.judging import Judging, Rule, frame, machine
from conveyor.stages.prompts import security as prompt
from conveyor.stages.stage_def import JobRole, StageDef
from conveyor.stages.step import End, SavedAt, Stopped

RULE = Rule("security", Role.SECURITY, "security reviewer", SecurityReply, add_security)


def _launch(run: Judging) -> Effect:
    text = prompt.render(prompt.SecurityData(**frame(run)))
    return launch.reader(RULE.name, RULE.role, text, run.attempt)


def verdict_text(run: Judging) -> str:
    """The security reviewer's own PR comment: each finding with its category."""
    reply = run.reply
    assert isinstance(reply, SecurityReply), "the verdict comment needs the reviewer's reply"
    if not reply.findings:
        return f"### Security review: passed\n\n{reply.summary.strip()}"
    lines = "\n".join(
        f"- **{f.category}** `{f.file}:{f.line or ''}`: {f.evidence.strip()}"
        + (f"\n  Suggestion: {f.suggestion.strip()}" if f.suggestion.strip() else "")
        for f in reply.findings
    )
    return f"### Security review: findings\n\n{reply.summary.strip()}\n\n{lines}"


def _stop(run: Judging) -> End:
    code = run.judged.code if run.judged and run.judged.code else StopCode.USER_HARM
    reason = (
        f"a {code.value} finding is still open after {run.state.rounds.security} "
        "security reviews and their fix rounds"
    )
    return Stopped(code, reason, run.state, verdict_text(run))


def _passed(run: Judging) -> End:
    return SavedAt(Stage.MERGE, run.state.model_copy(update={"passed_sha": run.head}))


MACHINE = machine(RULE, _launch, verdict_text, _passed, _stop)
TABLE = MACHINE.table
transition = MACHINE.transition
start = MACHINE.start
STAGE = StageDef(Stage.SECURITY, MACHINE, JobRole.READER, Role.SECURITY)
