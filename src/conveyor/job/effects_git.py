"""The runner's branch effects: commit check, tests, reset, push, draft PR and finishing it."""

from __future__ import annotations

from conveyor.core.replies import SpecReply
from conveyor.core.state import IssueState
from conveyor.git import is_ancestor, rev_parse, run_git
from conveyor.job.context import JobContext
from conveyor.job.stacking import measure_from
from conveyor.ops.open_pr import ensure_start_commit, find_or_open_draft, finish_pr
from conveyor.ops.spec_check import (
    check_spec_commits,
    scope_findings,
    spec_test_findings,
    stub_findings,
)
from conveyor.ops.stack import pr_base_for
from conveyor.stages.effects import (
    Checked,
    CheckSpecCommits,
    CheckSpecTests,
    Done,
    FinishPr,
    PrOpened,
    PushBranch,
    Pushed,
    ResetBranch,
    SuiteRan,
)
from conveyor.verify import gitwork
from conveyor.verify.context import Context
from conveyor.verify.run import SharedDirs
from conveyor.verify.suites import run_suite


class PushFailed(RuntimeError):
    """The forge refused a push the stage needs (the job saves the issue and exits 1)."""


def shared_dirs(ctx: JobContext) -> SharedDirs:
    """The repository's shared set-up environments and base failures, and its test globs."""
    commands, paths = ctx.config.commands, ctx.config.paths
    return SharedDirs(
        envs_dir=ctx.home / "envs" if commands.reuse_setup else None,
        baselines_dir=ctx.home / "baselines",
        test_globs=paths.tests,
        lockfiles=paths.lockfiles,
    )


def verify_context(ctx: JobContext) -> Context:
    """Commands run in the checkout with the sessions' environment, logs in the job folder."""
    return Context(
        checkout=ctx.checkout,
        commands=ctx.config.commands,
        env=ctx.command_env,
        logs_dir=ctx.job_dir / "logs",
        work_dir=ctx.job_dir,
        heartbeat=ctx.job_file.heartbeat,
        **shared_dirs(ctx),
    )


def base_sha(ctx: JobContext) -> str:
    """The base branch's head as the checkout last fetched it."""
    return rev_parse(ctx.git, f"refs/remotes/origin/{ctx.base}")


def _names(ctx: JobContext, spec: str) -> tuple[str, ...]:
    out = run_git(["diff", "--name-only", "--no-renames", spec], cwd=ctx.checkout, env=ctx.git.env)
    return tuple(line for line in out.stdout.decode().splitlines() if line)


def run_spec_check(ctx: JobContext, effect: CheckSpecCommits) -> Checked:
    """The spec writer's commit check on the checkout's head."""
    verdict = check_spec_commits(
        verify_context(ctx),
        ctx.config.paths,
        start=effect.start_sha,
        interfaces=effect.interfaces,
        no_tests_reason=effect.no_tests_reason,
    )
    return Checked(verdict.ok, verdict.findings, verdict.environment)


def scope_check(ctx: JobContext, start: str, reply: SpecReply) -> list[str]:
    """The git-only part of the commit check, for the in-session quick check (SPEC-62)."""
    check = verify_context(ctx)
    head = gitwork.head(ctx.checkout)
    changes = gitwork.changes(ctx.checkout, start, head)
    interfaces = tuple(reply.interfaces)
    found = scope_findings(check, ctx.config.paths, start, head, changes, interfaces=interfaces)
    return [*found, *stub_findings(check, head, interfaces)]


def run_tests(ctx: JobContext) -> SuiteRan:
    """Setup and test at the checkout's head."""
    suite = run_suite(verify_context(ctx))
    test = suite.environment or suite.test
    return SuiteRan(test.ok, "" if test.ok else test.tail[-1500:])


def _push(ctx: JobContext, src: str | None, *, lease: str | None = None) -> str | None:
    done = ctx.push(src, ctx.branch_ref, lease=lease)
    if not done.ok:
        msg = f"push of {ctx.branch} refused: {done.error}"
        raise PushFailed(msg)
    ctx.events.emit("pushed", ref=ctx.branch_ref, sha=done.sha)
    return done.sha


def reset_branch(ctx: JobContext, state: IssueState, effect: ResetBranch) -> Done:
    """Reset the branch to where the spec began; a branch the stage made is deleted (SPEC-99).

    The stage made it when the spec began at the base, or at a stacked issue's
    prerequisite head.
    """
    run_git(["reset", "--hard", effect.to_sha], cwd=ctx.checkout, env=ctx.git.env)
    remote = ctx.forge.get_branch(ctx.branch)
    if remote is None:
        return Done()
    if is_ancestor(ctx.git, effect.to_sha, measure_from(ctx, state)):
        _push(ctx, None, lease=remote.sha)
    elif remote.sha != effect.to_sha:
        _push(ctx, effect.to_sha, lease=remote.sha)
    return Done()


def open_draft(ctx: JobContext, state: IssueState) -> PrOpened:
    """Push the branch (with a start commit if it has none) and find or open its draft PR.

    A stacked issue's PR is based on its prerequisite's branch (see `conveyor.ops.stack`).
    """
    head = ensure_start_commit(ctx.git, measure_from(ctx, state), ctx.issue)
    remote = ctx.forge.get_branch(ctx.branch)
    if remote is None or remote.sha != head:
        _push(ctx, head)
    title = ctx.forge.get_issue(ctx.issue).title
    base = pr_base_for(ctx.forge, state.stacked_on, ctx.base)
    pr = find_or_open_draft(ctx.ops, ctx.issue, branch=ctx.branch, base=base, title=title)
    if state.pr != pr.number:
        ctx.events.emit("pr-opened", pr=pr.number, draft=pr.draft)
    return PrOpened(pr.number, head)


def check_spec_tests(ctx: JobContext, effect: CheckSpecTests) -> Checked:
    """The spec writer's test files are exactly as it left them (IMPL-12)."""
    found = spec_test_findings(ctx.checkout, ctx.config.paths, effect.start_sha, effect.spec_sha)
    return Checked(not found, found)


def push_branch(ctx: JobContext, state: IssueState, effect: PushBranch) -> Pushed:
    """Push the implementation unless it changed nothing since the spec (PR-6)."""
    head = gitwork.head(ctx.checkout)
    new = _names(ctx, f"{effect.spec_sha}..{head}") if head != effect.spec_sha else ()
    changed = _names(ctx, f"{measure_from(ctx, state)}...{head}")
    if new:
        remote = ctx.forge.get_branch(ctx.branch)
        if remote is None or remote.sha != head:
            _push(ctx, head)
    return Pushed(head, changed, new)


def finish(ctx: JobContext, state: IssueState, effect: FinishPr) -> PrOpened:
    """Title, body and ready: the PR leaves draft for review."""
    number = state.pr
    if number is None:
        title = ctx.forge.get_issue(ctx.issue).title
        base = pr_base_for(ctx.forge, state.stacked_on, ctx.base)
        number = find_or_open_draft(
            ctx.ops, ctx.issue, branch=ctx.branch, base=base, title=title
        ).number
    pr = finish_pr(ctx.ops, number, ctx.issue, title=effect.title, body=effect.body)
    return PrOpened(pr.number, pr.head_sha)
