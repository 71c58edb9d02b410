"""The branch guard against a person's push, and the verify op in a real checkout."""

from __future__ import annotations

import os

from conveyor.core.config import Commands, Paths
from conveyor.git import rev_parse, run_git
from conveyor.ops.branch_guard import OwnPushes, guard_branch
from conveyor.ops.verify_op import failure_report, verify_head
from tests.contract.ops_back.backworld import BRANCH, Back, git


def _own(back: Back) -> OwnPushes:
    """The pipeline's pushes as the work checkout commits them."""
    return OwnPushes(back.work, "refs/remotes/origin/main", back.work.env.identity.email)


def _pipeline(back: Back, *args: str) -> None:
    """Run git in the work checkout as the pipeline (its committer identity)."""
    run_git(list(args), cwd=back.work.path, env=back.work.env)


def test_a_person_pushing_to_the_pr_branch_trips_the_guard_and_nothing_is_overwritten(
    back: Back,
) -> None:
    """STOP: the forge's PR head differs from the recorded one; the person's commit stays."""
    number = back.branch_and_pr({"new.txt": "new\n"})
    recorded = rev_parse(back.work, "HEAD")
    assert guard_branch(back.bot, number, BRANCH, recorded).ok
    theirs = back.person_push(BRANCH, {"mine.txt": "mine\n"}, "A person's commit")
    guarded = guard_branch(back.bot, number, BRANCH, recorded, _own(back))
    assert not guarded.ok
    assert guarded.forge_head == theirs
    assert theirs in guarded.findings[0]
    assert recorded in guarded.findings[0]
    branch = back.bot.get_branch(BRANCH)
    assert branch is not None
    assert branch.sha == theirs


def test_the_pipelines_own_rebase_push_passes_the_guard_and_its_head_is_adopted(
    back: Back,
) -> None:
    """A job rebased and pushed, then died before saving: the forge's head is the pipeline's."""
    number = back.branch_and_pr({"new.txt": "new\n"})
    recorded = rev_parse(back.work, "HEAD")
    back.person_push("main", {"other.txt": "other\n"}, "Someone else's change on main")
    _pipeline(back, "fetch", "-q", "origin")
    _pipeline(back, "rebase", "-q", "origin/main")
    rebased = rev_parse(back.work, "HEAD")
    _pipeline(
        back, "push", "-q", f"--force-with-lease={BRANCH}:{recorded}", "origin", f"HEAD:{BRANCH}"
    )
    guarded = guard_branch(back.bot, number, BRANCH, recorded, _own(back))
    assert (guarded.ok, guarded.adopted) == (True, rebased)


def test_the_pipelines_own_commit_on_top_passes_the_guard(back: Back) -> None:
    """An exit push of a writer's commit onto the recorded head is the pipeline's own."""
    number = back.branch_and_pr({"new.txt": "new\n"})
    recorded = rev_parse(back.work, "HEAD")
    (back.work.path / "more.txt").write_text("more\n")
    _pipeline(back, "add", "more.txt")
    _pipeline(back, "commit", "-q", "-m", "More")
    _pipeline(back, "push", "-q", "origin", f"HEAD:{BRANCH}")
    guarded = guard_branch(back.bot, number, BRANCH, recorded, _own(back))
    assert (guarded.ok, guarded.adopted) == (True, rev_parse(back.work, "HEAD"))


def test_a_person_resetting_the_branch_to_an_older_pipeline_commit_still_trips_the_guard(
    back: Back,
) -> None:
    """Going back adds no commit of the pipeline's: that is someone else's change."""
    number = back.branch_and_pr({"new.txt": "new\n"})
    first = rev_parse(back.work, "HEAD")
    (back.work.path / "more.txt").write_text("more\n")
    _pipeline(back, "add", "more.txt")
    _pipeline(back, "commit", "-q", "-m", "More")
    _pipeline(back, "push", "-q", "origin", f"HEAD:{BRANCH}")
    recorded = rev_parse(back.work, "HEAD")
    git(back.work.path, "push", "-q", "--force", "origin", f"{first}:refs/heads/{BRANCH}")
    guarded = guard_branch(back.bot, number, BRANCH, recorded, _own(back))
    assert not guarded.ok
    assert guarded.adopted is None


def test_verify_runs_at_the_head_and_tests_only_skips_lint_and_fails_before_fix(
    back: Back,
) -> None:
    """CHK-1, MRG-7: the full run lints; tests only skips lint, typecheck and fails-before-fix."""
    back.branch_and_pr({"new.txt": "new\n"})
    env = {"PATH": os.environ["PATH"]}
    commands = Commands(test="test -f new.txt", lint="echo secret-token-123; exit 3")
    logs = back.home / "logs"
    full = verify_head(
        back.work, commands, env, Paths(), base_ref="refs/remotes/origin/main", logs_dir=logs
    )
    assert not full.passed
    assert full.head_sha == rev_parse(back.work, "HEAD")
    report = failure_report(full, ["secret-token-123"])
    assert report[0].startswith("lint: failed")
    assert "secret-token-123" not in report[0]
    assert "***" in report[0]
    quick = verify_head(
        back.work,
        commands,
        env,
        Paths(),
        base_ref="refs/remotes/origin/main",
        logs_dir=logs,
        tests_only=True,
    )
    assert quick.passed
    assert quick.tests_only
