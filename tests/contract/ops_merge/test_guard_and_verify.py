"""The branch guard against a person's push, and the verify op in a real checkout."""

from __future__ import annotations

import os

from conveyor.core.config import Commands, Paths
from conveyor.forge.job_view import JobForge
from conveyor.git import rev_parse, run_git
from conveyor.ops.forge.branch_guard import OwnPushes, guard_branch
from conveyor.ops.local.verify_op import failure_report, verify_head
from tests.contract.ops_merge.merge_world import BRANCH, MergeWorld, git


def _own(world: MergeWorld) -> OwnPushes:
    """The pipeline's pushes as the work checkout commits them."""
    return OwnPushes(world.work, "refs/remotes/origin/main", world.work.env.identity.email)


def _pipeline(world: MergeWorld, *args: str) -> None:
    """Run git in the work checkout as the pipeline (its committer identity)."""
    run_git(list(args), cwd=world.work.path, env=world.work.env)


def test_a_person_pushing_to_the_pr_branch_trips_the_guard_and_nothing_is_overwritten(
    world: MergeWorld,
) -> None:
    """STOP: the forge's PR head differs from the recorded one; the person's commit stays."""
    number = world.branch_and_pr({"new.txt": "new\n"})
    recorded = rev_parse(world.work, "HEAD")
    assert guard_branch(world.bot, number, BRANCH, recorded).ok
    theirs = world.person_push(BRANCH, {"mine.txt": "mine\n"}, "A person's commit")
    guarded = guard_branch(world.bot, number, BRANCH, recorded, _own(world))
    assert not guarded.ok
    assert guarded.forge_head == theirs
    assert theirs in guarded.findings[0]
    assert recorded in guarded.findings[0]
    branch = world.bot.get_branch(BRANCH)
    assert branch is not None
    assert branch.sha == theirs


def test_a_push_the_checkout_fetched_but_the_start_read_missed_trips_the_guard(
    world: MergeWorld,
) -> None:
    """The job's start read saw the recorded head; a person pushed before its checkout was
    fetched (a forge moves a PR's head after the push lands): the checkout's head is not the
    recorded one, so the guard stops rather than verify and merge the person's commit."""
    number = world.branch_and_pr({"new.txt": "new\n"})
    recorded = rev_parse(world.work, "HEAD")
    view = JobForge(world.bot)
    view.read_issue_thread(1)  # the start read: the PR's head is the recorded one
    theirs = world.person_push(BRANCH, {"mine.txt": "mine\n"}, "A person's commit")
    _pipeline(world, "fetch", "-q", "origin")
    _pipeline(world, "checkout", "-q", "-B", BRANCH, f"origin/{BRANCH}")
    guarded = guard_branch(view, number, BRANCH, recorded, _own(world))
    assert (guarded.ok, guarded.adopted) == (False, None)
    assert theirs in guarded.findings[0]
    assert recorded in guarded.findings[0]


def test_the_pipelines_own_rebase_push_passes_the_guard_and_its_head_is_adopted(
    world: MergeWorld,
) -> None:
    """A job rebased and pushed, then died before saving: the forge's head is the pipeline's."""
    number = world.branch_and_pr({"new.txt": "new\n"})
    recorded = rev_parse(world.work, "HEAD")
    world.person_push("main", {"other.txt": "other\n"}, "Someone else's change on main")
    _pipeline(world, "fetch", "-q", "origin")
    _pipeline(world, "rebase", "-q", "origin/main")
    rebased = rev_parse(world.work, "HEAD")
    _pipeline(
        world, "push", "-q", f"--force-with-lease={BRANCH}:{recorded}", "origin", f"HEAD:{BRANCH}"
    )
    guarded = guard_branch(world.bot, number, BRANCH, recorded, _own(world))
    assert (guarded.ok, guarded.adopted) == (True, rebased)


def test_the_pipelines_own_commit_on_top_passes_the_guard(world: MergeWorld) -> None:
    """An exit push of a writer's commit onto the recorded head is the pipeline's own."""
    number = world.branch_and_pr({"new.txt": "new\n"})
    recorded = rev_parse(world.work, "HEAD")
    (world.work.path / "more.txt").write_text("more\n")
    _pipeline(world, "add", "more.txt")
    _pipeline(world, "commit", "-q", "-m", "More")
    _pipeline(world, "push", "-q", "origin", f"HEAD:{BRANCH}")
    guarded = guard_branch(world.bot, number, BRANCH, recorded, _own(world))
    assert (guarded.ok, guarded.adopted) == (True, rev_parse(world.work, "HEAD"))


def test_a_person_resetting_the_branch_to_an_older_pipeline_commit_still_trips_the_guard(
    world: MergeWorld,
) -> None:
    """Going back adds no commit of the pipeline's: that is someone else's change."""
    number = world.branch_and_pr({"new.txt": "new\n"})
    first = rev_parse(world.work, "HEAD")
    (world.work.path / "more.txt").write_text("more\n")
    _pipeline(world, "add", "more.txt")
    _pipeline(world, "commit", "-q", "-m", "More")
    _pipeline(world, "push", "-q", "origin", f"HEAD:{BRANCH}")
    recorded = rev_parse(world.work, "HEAD")
    git(world.work.path, "push", "-q", "--force", "origin", f"{first}:refs/heads/{BRANCH}")
    guarded = guard_branch(world.bot, number, BRANCH, recorded, _own(world))
    assert not guarded.ok
    assert guarded.adopted is None


def test_verify_runs_at_the_head_and_tests_only_skips_lint_and_fails_before_fix(
    world: MergeWorld,
) -> None:
    """CHK-1, MRG-7: the full run lints; tests only skips lint, typecheck and fails-before-fix."""
    world.branch_and_pr({"new.txt": "new\n"})
    env = {"PATH": os.environ["PATH"]}
    commands = Commands(test="test -f new.txt", lint="echo secret-token-123; exit 3")
    logs = world.home / "logs"
    full = verify_head(
        world.work, commands, env, Paths(), base_ref="refs/remotes/origin/main", logs_dir=logs
    )
    assert not full.passed
    assert full.head_sha == rev_parse(world.work, "HEAD")
    report = failure_report(full, ["secret-token-123"])
    assert report[0].startswith("lint: failed")
    assert "secret-token-123" not in report[0]
    assert "***" in report[0]
    quick = verify_head(
        world.work,
        commands,
        env,
        Paths(),
        base_ref="refs/remotes/origin/main",
        logs_dir=logs,
        tests_only=True,
    )
    assert quick.passed
    assert quick.tests_only
