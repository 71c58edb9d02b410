"""The branch effects: commit check, tests, reset, push and the draft PR; their rows of the
dispatch table.

A push the forge refuses comes back as `PushRefused`, not raised.
"""

from __future__ import annotations

from conveyor.core.replies import SpecReply
from conveyor.core.state import IssueState
from conveyor.git import is_ancestor, plain, run_git
from conveyor.git.agent_repo import changed, harvest
from conveyor.git.keep import BETWEEN_COMMITS
from conveyor.job.effects.held_work import held_work
from conveyor.job.effects.parts import (
    BranchHeld,
    JobHands,
    JobPlace,
    JobPulse,
    JobSubject,
    PushRefused,
)
from conveyor.job.effects.table import Dispatch
from conveyor.job.effects.wiki import push_wiki_branch
from conveyor.ops.forge.open_pr import ensure_start_commit, find_or_open_draft
from conveyor.ops.forge.stack import measure_from, pr_base_for
from conveyor.ops.local.spec_check import check_spec_commits
from conveyor.ops.local.spec_guard import spec_test_findings
from conveyor.ops.local.spec_own import spec_own
from conveyor.ops.local.spec_scope import scope_findings, stub_findings
from conveyor.ops.local.wiki_branch import reset_wiki, wiki_ahead
from conveyor.ops.local.wiki_check import check_wiki
from conveyor.stages.effects import (
    Checked,
    CheckSpecCommits,
    CheckSpecTests,
    Done,
    OpenDraftPr,
    PrOpened,
    PushBranch,
    Pushed,
    ResetBranch,
    RunTests,
    SuiteRan,
)
from conveyor.stages.spec_text import wiki_findings
from conveyor.verify.context import Context
from conveyor.verify.run import SharedDirs
from conveyor.verify.suites import run_suite


def shared_dirs(what: JobSubject, where: JobPlace) -> SharedDirs:
    """The repository's shared set-up environments and base failures, its test globs, and
    the box the commands run in."""
    commands, paths = what.config.commands, what.config.paths
    return SharedDirs(
        envs_dir=where.home / "envs" if commands.reuse_setup else None,
        baselines_dir=where.home / "baselines",
        test_globs=paths.tests,
        lockfiles=paths.lockfiles,
        non_code=paths.non_code,
        boxing=where.boxing,
    )


def verify_context(what: JobSubject, where: JobPlace, who: JobHands, pulse: JobPulse) -> Context:
    """Commands run in the checkout with the sessions' environment, logs in the job folder."""
    return Context(
        checkout=where.checkout,
        git_dir=where.git.git_dir,
        commands=what.config.commands,
        env=who.command_env,
        logs_dir=where.job_dir / "logs",
        work_dir=where.job_dir,
        heartbeat=pulse.heartbeat,
        **shared_dirs(what, where),
    )


def _names(where: JobPlace, spec: str) -> tuple[str, ...]:
    out = run_git(
        ["diff", BETWEEN_COMMITS, "--name-only", "--no-renames", spec],
        cwd=where.checkout,
        env=where.git.env,
    )
    return tuple(line for line in out.stdout.decode().splitlines() if line)


def run_spec_check(
    what: JobSubject, where: JobPlace, who: JobHands, pulse: JobPulse, effect: CheckSpecCommits
) -> Checked:
    """The spec writer's commit check on the checkout's head, with its wiki pages."""
    wiki = where.wiki
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
        verify_context(what, where, who, pulse),
        what.config.paths,
        start=effect.start_sha,
        interfaces=effect.interfaces,
        no_tests_reason=effect.no_tests_reason,
        judges=what.config.judges,
    )
    wiki_found = check_wiki(wiki) if wiki is not None and wiki_changed else ()
    findings = (*verdict.findings, *(f"wiki-check: {f}" for f in wiki_found))
    ok = verdict.ok and not wiki_found
    return Checked(ok, findings, verdict.environment, spec_tests=verdict.spec_tests)


def scope_check(
    what: JobSubject,
    where: JobPlace,
    who: JobHands,
    pulse: JobPulse,
    start: str,
    *,
    reply: SpecReply,
) -> list[str]:
    """The git-only part of the commit check, for the in-session quick check (SPEC-62): on
    what the session has committed so far, taken into the keep first."""
    check = verify_context(what, where, who, pulse)
    harvest(where.git)
    head = plain.head(where.tree)
    changes = plain.changes(where.tree, start, head)
    interfaces = tuple(reply.interfaces)
    own = spec_own(check, what.config.judges, start, head, changes).config
    paths = what.config.paths
    found = scope_findings(
        check, paths, start, head, changes, interfaces=interfaces, config=own, tools=False
    )
    return [*found, *stub_findings(check, head, interfaces)]


def run_tests(what: JobSubject, where: JobPlace, who: JobHands, pulse: JobPulse) -> SuiteRan:
    """Setup and test at the checkout's head."""
    suite = run_suite(verify_context(what, where, who, pulse))
    test = suite.environment or suite.test
    return SuiteRan(test.ok, "" if test.ok else test.tail[-1500:])


def _push(
    what: JobSubject, who: JobHands, pulse: JobPulse, src: str | None, *, lease: str | None = None
) -> PushRefused | None:
    done = who.push(src, what.branch_ref, lease=lease)
    if not done.ok:
        return PushRefused(f"push of {what.branch} refused: {done.error}")
    pulse.emit("pushed", ref=what.branch_ref, sha=done.sha)
    return None


def _push_head(what: JobSubject, who: JobHands, pulse: JobPulse, head: str) -> PushRefused | None:
    """Push `head` to the job's branch unless the forge's branch is there already."""
    remote = who.forge.get_branch(what.branch)
    return None if remote is not None and remote.sha == head else _push(what, who, pulse, head)


def reset_branch(
    what: JobSubject,
    where: JobPlace,
    who: JobHands,
    pulse: JobPulse,
    state: IssueState,
    *,
    effect: ResetBranch,
) -> Done | PushRefused | BranchHeld:
    """Reset the branch to where the spec began; a branch the stage made is deleted (SPEC-99).

    The stage made it when the spec began at the base, or at a stacked issue's
    prerequisite head. The wiki branch goes back to where the spec began the same way.
    A reset never discards a person's work (SPEC-128): when the forge's head is not the
    one this job last fetched or pushed (someone pushed during the session), or the
    branch has commits since the start that no pipeline role made, nothing is reset.
    """
    remote = who.forge.get_branch(what.branch)
    start = measure_from(where.git, what.base, state)
    if remote is not None:
        held = held_work(what, where, who, remote.sha, (effect.to_sha, start))
        if held is not None:
            return held
    wiki_reset = reset_wiki(where.wiki, effect.wiki_sha)
    if wiki_reset is not None and not wiki_reset.ok:
        return PushRefused(f"reset of the wiki's branch refused: {wiki_reset.error}")
    changed(where.git, "reset", "--quiet", "--hard", effect.to_sha)
    refused = None
    if remote is None:
        return Done()
    if is_ancestor(where.git, effect.to_sha, start):
        refused = _push(what, who, pulse, None, lease=remote.sha)
    elif remote.sha != effect.to_sha:
        refused = _push(what, who, pulse, effect.to_sha, lease=remote.sha)
    return refused or Done()


def open_draft(
    what: JobSubject, where: JobPlace, who: JobHands, pulse: JobPulse, state: IssueState
) -> PrOpened | PushRefused:
    """Push the branch (with a start commit if it has none) and find or open its draft PR.

    A stacked issue's PR is based on its prerequisite's branch (see `conveyor.ops.forge.stack`).
    """
    head = ensure_start_commit(where.git, measure_from(where.git, what.base, state), what.issue)
    refused = _push_head(what, who, pulse, head)
    if refused is not None:
        return refused
    wiki = push_wiki_branch(where.wiki, pulse)
    if isinstance(wiki, PushRefused):
        return wiki
    title = who.forge.get_issue(what.issue).title
    base = pr_base_for(who.forge, state.stacked_on, what.base)
    pr = find_or_open_draft(who.ops, what.issue, branch=what.branch, base=base, title=title)
    if state.pr != pr.number:
        pulse.emit("pr-opened", pr=pr.number, draft=pr.draft)
    return PrOpened(pr.number, head)


def check_spec_tests(what: JobSubject, where: JobPlace, effect: CheckSpecTests) -> Checked:
    """The spec writer's test files are exactly as it left them (IMPL-12)."""
    found = spec_test_findings(where.tree, what.config.paths, effect.start_sha, effect.spec_sha)
    return Checked(not found, found)


def push_branch(
    what: JobSubject,
    where: JobPlace,
    who: JobHands,
    pulse: JobPulse,
    state: IssueState,
    *,
    effect: PushBranch,
) -> Pushed | PushRefused:
    """Push the implementation unless it changed nothing since the spec (PR-6)."""
    head = plain.head(where.tree)
    new = _names(where, f"{effect.spec_sha}..{head}") if head != effect.spec_sha else ()
    changed = _names(where, f"{measure_from(where.git, what.base, state)}...{head}")
    refused = _push_head(what, who, pulse, head) if new else None
    if refused is not None:
        return refused
    wiki = push_wiki_branch(where.wiki, pulse)
    if isinstance(wiki, PushRefused):
        return wiki
    ahead, wiki_new = wiki
    return Pushed(head, changed, new, wiki_ahead=ahead, wiki_new=wiki_new)


def rows(table: Dispatch) -> None:
    """The branch effects' rows of the dispatch table."""
    table.on(
        CheckSpecCommits,
        lambda c, s, e: run_spec_check(c.what, c.where, c.who, c.live.pulse, e),
    )
    table.on(RunTests, lambda c, s, e: run_tests(c.what, c.where, c.who, c.live.pulse))
    table.on(
        ResetBranch,
        lambda c, s, e: reset_branch(c.what, c.where, c.who, c.live.pulse, s, effect=e),
    )
    table.on(OpenDraftPr, lambda c, s, e: open_draft(c.what, c.where, c.who, c.live.pulse, s))
    table.on(CheckSpecTests, lambda c, s, e: check_spec_tests(c.what, c.where, e))
    table.on(
        PushBranch,
        lambda c, s, e: push_branch(c.what, c.where, c.who, c.live.pulse, s, effect=e),
    )
