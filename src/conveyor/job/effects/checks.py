"""The checks stage's effects: the branch guard, verify on the exact head and the CI gate;
their rows of the dispatch table."""

from __future__ import annotations

from conveyor.core.ci_gate import Verdict
from conveyor.core.redact import redact
from conveyor.core.state import IssueState
from conveyor.git import plain, rev_parse
from conveyor.job.effects.branch import shared_dirs, verify_context
from conveyor.job.effects.judging_inputs import judging_of
from conveyor.job.effects.parts import JobHands, JobPlace, JobPulse, JobSubject
from conveyor.job.effects.table import Dispatch
from conveyor.ops.forge.branch_guard import OwnPushes, guard_branch
from conveyor.ops.forge.ci_status import CiStatus, read_ci
from conveyor.ops.forge.stack import measure_from
from conveyor.ops.local.sync_base import base_ref
from conveyor.ops.local.verify_op import acceptable, failure_report, verify_head
from conveyor.stages.effects import Checked
from conveyor.stages.effects_merge import CiRead, GuardBranch, ReadCi, Verified, VerifyHead
from conveyor.verify.suites import baseline

# A CI wait polled this often is waited in the job, up to SHORT_WAIT_S (see run_read_ci).
SHORT_POLL_S = 5.0
SHORT_WAIT_S = 15.0
# Inside the job a poll shorter than this doubles after each pending read, up to it: a
# 15 s wait polled every 0.2 s made 75 reads of two routes; doubled, it makes about ten.
IN_JOB_PAUSE_S = 2.0


def run_guard(
    what: JobSubject, where: JobPlace, who: JobHands, state: IssueState, effect: GuardBranch
) -> Checked:
    """The branch holds only the pipeline's own pushes since it last recorded the head."""
    own = OwnPushes(where.git, base_ref(what.base), where.git.env.identity.email)
    guarded = guard_branch(who.forge, state.pr, what.branch, effect.recorded, own)
    return Checked(guarded.ok, guarded.findings, adopted=guarded.adopted)


def run_verify(
    what: JobSubject,
    where: JobPlace,
    who: JobHands,
    pulse: JobPulse,
    state: IssueState,
    *,
    effect: VerifyHead,
) -> Verified:
    """Verify the checkout's head against the base (a stacked issue's: its prerequisite head);
    the summary and failures are redacted."""
    result = verify_head(
        where.git,
        what.config.commands,
        who.command_env,
        what.config.paths,
        base_ref=measure_from(where.git, what.base, state),
        logs_dir=where.job_dir / "logs",
        work_dir=where.job_dir,
        tests_only=effect.tests_only,
        heartbeat=pulse.heartbeat,
        shared=shared_dirs(what, where),
        judging=judging_of(what, where, state),
    )
    pulse.emit("checks", head=result.head_sha, passed=result.passed, verify=True)
    secrets = who.token_secrets
    summary = redact(result.summary(), secrets)
    failures = failure_report(result, secrets)
    environment = redact(result.environment, secrets)
    held = acceptable(result)
    facts = redact(result.facts, secrets) if held else ""
    return Verified(result.passed, result.head_sha, summary, failures, environment, held, facts)


def _read(status: CiStatus) -> CiRead:
    return CiRead(status.gate, status.unrelated, status.note, status.problems)


def run_read_ci(
    what: JobSubject,
    where: JobPlace,
    who: JobHands,
    pulse: JobPulse,
    state: IssueState,
    *,
    effect: ReadCi,
) -> CiRead:
    """The CI gate on the head; a failing gate also reads the base's head.

    While the gate is pending and `ci_poll_seconds` is at most `SHORT_POLL_S`,
    the job waits for the next read itself, for up to `SHORT_WAIT_S` in all:
    starting a new job a second later would cost more than the wait. A pause shorter
    than `IN_JOB_PAUSE_S` doubles after each pending read, up to it. Longer polls are
    the hold of CHK-15 (the issue is saved with its `ci_wait`).
    """

    def base_sha() -> str:
        branch = who.forge.get_branch(what.base)
        return branch.sha if branch else rev_parse(where.git, base_ref(what.base))

    def known_at_base() -> frozenset[str] | None:
        """The tests failing at the merge base verify measured from (run once, then kept)."""
        ctx = verify_context(what, where, who, pulse)
        base = rev_parse(where.git, measure_from(where.git, what.base, state))
        return baseline(ctx, plain.merge_base(ctx.tree, base, effect.sha)).failures

    limits = what.config.limits
    wait, start = effect.wait, pulse.now()
    pause = limits.ci_poll_seconds
    while True:
        status = read_ci(
            who.forge,
            effect.sha,
            base=what.base,
            base_sha=base_sha,
            wait=wait,
            now=pulse.now(),
            limits=limits,
            known_at_base=known_at_base,
        )
        gate = status.gate
        waited = (pulse.now() - start).total_seconds()
        short = limits.ci_poll_seconds <= SHORT_POLL_S
        if gate.verdict is not Verdict.PENDING or not short:
            return _read(status)
        if waited + pause > SHORT_WAIT_S:
            return _read(status)
        if pulse.interrupted.wait(pause):
            return _read(status)
        pause = min(pause * 2, max(limits.ci_poll_seconds, IN_JOB_PAUSE_S))
        wait = gate.wait


def rows(table: Dispatch) -> None:
    """The checks effects' rows of the dispatch table."""
    table.on(GuardBranch, lambda c, s, e: run_guard(c.what, c.where, c.who, s, e))
    table.on(
        VerifyHead,
        lambda c, s, e: run_verify(c.what, c.where, c.who, c.live.pulse, s, effect=e),
    )
    table.on(
        ReadCi,
        lambda c, s, e: run_read_ci(c.what, c.where, c.who, c.live.pulse, s, effect=e),
    )
