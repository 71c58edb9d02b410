"""The runner's branch effects: commit check, tests, reset, push and the draft PR."""

from __future__ import annotations

from conveyor.core.replies import SpecReply
from conveyor.core.state import IssueState
from conveyor.git import is_ancestor, plain, rev_parse, run_git
from conveyor.job.context import JobContext
from conveyor.job.effects_wiki import WikiPushFailed, push_wiki_branch
from conveyor.job.stacking import measure_from
from conveyor.ops.open_pr import ensure_start_commit, find_or_open_draft
from conveyor.ops.spec_check import (
    check_spec_commits,
    scope_findings,
    spec_test_findings,
    stub_findings,
)
from conveyor.ops.stack import pr_base_for
from conveyor.ops.wiki_branch import reset_wiki, wiki_ahead
from conveyor.ops.wiki_check import check_wiki
from conveyor.stages.effects import (
    Checked,
    CheckSpecCommits,
    CheckSpecTests,
    Done,
    PrOpened,
    PushBranch,
    Pushed,
    ResetBranch,
    SuiteRan,
)
from conveyor.stages.spec_text import wiki_findings
from conveyor.verify.context import Context
from conveyor.verify.run import SharedDirs
from conveyor.verify.suites import run_suite


class PushFailed(RuntimeError):
    """The forge refused a push the stage needs (the job saves the issue and exits 1)."""


def _push_wiki(ctx: JobContext) -> tuple[bool, tuple[str, ...]]:
    try:
        return push_wiki_branch(ctx)
    except WikiPushFailed as refused:
        raise PushFailed(str(refused)) from refused


def shared_dirs(ctx: JobContext) -> SharedDirs:
    """The repository's shared set-up environments and base failures, and its test globs."""
    commands, paths = ctx.what.config.commands, ctx.what.config.paths
    return SharedDirs(
        envs_dir=ctx.where.home / "envs" if commands.reuse_setup else None,
        baselines_dir=ctx.where.home / "baselines",
        test_globs=paths.tests,
        lockfiles=paths.lockfiles,
    )


def verify_context(ctx: JobContext) -> Context:
    """Commands run in the checkout with the sessions' environment, logs in the job folder."""
    return Context(
        checkout=ctx.where.checkout,
        commands=ctx.what.config.commands,
        env=ctx.who.command_env,
        logs_dir=ctx.where.job_dir / "logs",
        work_dir=ctx.where.job_dir,
        heartbeat=ctx.live.job_file.heartbeat,
        **shared_dirs(ctx),
    )


def base_sha(ctx: JobContext) -> str:
    """The base branch's head as the checkout last fetched it."""
    return rev_parse(ctx.where.git, f"refs/remotes/origin/{ctx.what.base}")


def _names(ctx: JobContext, spec: str) -> tuple[str, ...]:
    out = run_git(
        ["diff", "--name-only", "--no-renames", spec], cwd=ctx.where.checkout, env=ctx.where.git.env
    )
    return tuple(line for line in out.stdout.decode().splitlines() if line)


def run_spec_check(ctx: JobContext, effect: CheckSpecCommits) -> Checked:
    """The spec writer's commit check on the checkout's head, with its wiki pages."""
    wiki = ctx.where.wiki
    wiki_changed = wiki_ahead(wiki)
    found = wiki_findings(
        has_wiki=wiki is not None,
        wiki_changed=wiki_changed,
        wiki_only=effect.wiki_only,
        lists_updates=effect.lists_wiki_updates,
    )
    if found:
        return Checked(False, found)
    verdict = check_spec_commits(
        verify_context(ctx),
        ctx.what.config.paths,
        start=effect.start_sha,
        interfaces=effect.interfaces,
        no_tests_reason=effect.no_tests_reason,
    )
    wiki_found = check_wiki(wiki) if wiki is not None and wiki_changed else ()
    findings = (*verdict.findings, *(f"wiki-check: {f}" for f in wiki_found))
    return Checked(verdict.ok and not wiki_found, findings, verdict.environment)


def scope_check(ctx: JobContext, start: str, reply: SpecReply) -> list[str]:
    """The git-only part of the commit check, for the in-session quick check (SPEC-62)."""
    check = verify_context(ctx)
    head = plain.head(ctx.where.checkout)
    changes = plain.changes(ctx.where.checkout, start, head)
    interfaces = tuple(reply.interfaces)
    found = scope_findings(
        check, ctx.what.config.paths, start, head, changes, interfaces=interfaces
    )
    return [*found, *stub_findings(check, head, interfaces)]


def run_tests(ctx: JobContext) -> SuiteRan:
    """Setup and test at the checkout's head."""
    suite = run_suite(verify_context(ctx))
    test = suite.environment or suite.test
    return SuiteRan(test.ok, "" if test.ok else test.tail[-1500:])


def _push(ctx: JobContext, src: str | None, *, lease: str | None = None) -> str | None:
    done = ctx.who.push(src, ctx.what.branch_ref, lease=lease)
    if not done.ok:
        msg = f"push of {ctx.what.branch} refused: {done.error}"
        raise PushFailed(msg)
    ctx.live.events.emit("pushed", ref=ctx.what.branch_ref, sha=done.sha)
    return done.sha


def reset_branch(ctx: JobContext, state: IssueState, effect: ResetBranch) -> Done:
    """Reset the branch to where the spec began; a branch the stage made is deleted (SPEC-99).

    The stage made it when the spec began at the base, or at a stacked issue's
    prerequisite head. The wiki branch goes back to where the spec began the same way.
    """
    wiki_reset = reset_wiki(ctx.where.wiki, effect.wiki_sha)
    if wiki_reset is not None and not wiki_reset.ok:
        msg = f"reset of the wiki's branch refused: {wiki_reset.error}"
        raise PushFailed(msg)
    run_git(["reset", "--hard", effect.to_sha], cwd=ctx.where.checkout, env=ctx.where.git.env)
    remote = ctx.who.forge.get_branch(ctx.what.branch)
    if remote is None:
        return Done()
    if is_ancestor(ctx.where.git, effect.to_sha, measure_from(ctx, state)):
        _push(ctx, None, lease=remote.sha)
    elif remote.sha != effect.to_sha:
        _push(ctx, effect.to_sha, lease=remote.sha)
    return Done()


def open_draft(ctx: JobContext, state: IssueState) -> PrOpened:
    """Push the branch (with a start commit if it has none) and find or open its draft PR.

    A stacked issue's PR is based on its prerequisite's branch (see `conveyor.ops.stack`).
    """
    head = ensure_start_commit(ctx.where.git, measure_from(ctx, state), ctx.what.issue)
    remote = ctx.who.forge.get_branch(ctx.what.branch)
    if remote is None or remote.sha != head:
        _push(ctx, head)
    _push_wiki(ctx)
    title = ctx.who.forge.get_issue(ctx.what.issue).title
    base = pr_base_for(ctx.who.forge, state.stacked_on, ctx.what.base)
    pr = find_or_open_draft(
        ctx.who.ops, ctx.what.issue, branch=ctx.what.branch, base=base, title=title
    )
    if state.pr != pr.number:
        ctx.live.events.emit("pr-opened", pr=pr.number, draft=pr.draft)
    return PrOpened(pr.number, head)


def check_spec_tests(ctx: JobContext, effect: CheckSpecTests) -> Checked:
    """The spec writer's test files are exactly as it left them (IMPL-12)."""
    found = spec_test_findings(
        ctx.where.checkout, ctx.what.config.paths, effect.start_sha, effect.spec_sha
    )
    return Checked(not found, found)


def push_branch(ctx: JobContext, state: IssueState, effect: PushBranch) -> Pushed:
    """Push the implementation unless it changed nothing since the spec (PR-6)."""
    head = plain.head(ctx.where.checkout)
    new = _names(ctx, f"{effect.spec_sha}..{head}") if head != effect.spec_sha else ()
    changed = _names(ctx, f"{measure_from(ctx, state)}...{head}")
    if new:
        remote = ctx.who.forge.get_branch(ctx.what.branch)
        if remote is None or remote.sha != head:
            _push(ctx, head)
    ahead, wiki_new = _push_wiki(ctx)
    return Pushed(head, changed, new, wiki_ahead=ahead, wiki_new=wiki_new)
