"""Close-out after a merge on the embedded forge: what a person sees on the issue and the PR."""

from __future__ import annotations

import dataclasses
import os
from datetime import UTC, datetime
from pathlib import Path

from conveyor.core.claims import claim_body, live_claims, parse_claims
from conveyor.core.verify import Outcome
from conveyor.git import rev_parse
from conveyor.ops.forge.close_out import close_out, mark_merged, run_teardown
from conveyor.ops.forge.merge import squash_merge
from tests.contract.ops_merge.merge_world import ACCOUNT, BRANCH, MergeWorld


def _claimed(world: MergeWorld) -> None:
    world.bot.create_comment(1, claim_body(world.ctx().signature(), "lane-a", "sweep1"))
    assert parse_claims(world.bot.list_comments(1).comments, ACCOUNT)


def test_close_out_labels_merged_closes_claims_deletes_the_branch_and_signs(
    world: MergeWorld,
) -> None:
    """MRG-1, MRG-14, DONE-3: signed merger comment saying tests only, agent:merged, no claim."""
    number = world.branch_and_pr({"new.txt": "new\n"})
    _claimed(world)
    made = squash_merge(world.bot, number, rev_parse(world.work, "HEAD"), base="main")
    now = datetime.now(UTC)
    close_out(
        world.ctx(),
        1,
        number,
        merge_sha=made.sha,
        tests_only=True,
        parent=None,
        now=now,
        signature=world.ctx().signature("merger"),
    )
    assert "agent:merged" not in world.bot.get_issue(1).labels, "the label comes last"
    mark_merged(world.ctx(), 1)
    merger = [c.body for c in world.bot.list_comments(number).comments if "Merged" in c.body]
    assert len(merger) == 1
    assert "merger" in merger[0]
    assert "tests only" in merger[0]
    issue = world.bot.get_issue(1)
    assert "agent:merged" in issue.labels
    assert issue.state == "closed"
    comments = world.bot.list_comments(1).comments
    assert live_claims(parse_claims(comments, ACCOUNT), now, 3) == ()
    assert world.bot.get_branch(BRANCH) is None


def test_a_merge_into_another_base_closes_the_issue_and_then_its_split_parent(
    world: MergeWorld,
) -> None:
    """MRG-13, DONE-1: not the default branch: the issue is closed naming the PR; the parent too."""
    number = world.branch_and_pr({"new.txt": "new\n"})
    parent = world.bot.create_issue("Parent", "Split.")
    world.bot.add_sub_issue(parent.number, 1)
    world.base = "release"
    close_out(
        world.ctx(),
        1,
        number,
        merge_sha="m" * 40,
        tests_only=False,
        parent=parent.number,
        now=datetime.now(UTC),
        signature=world.ctx().signature("merger"),
    )
    issue = world.bot.get_issue(1)
    assert issue.state == "closed"
    assert any(f"PR #{number}" in c.body for c in world.bot.list_comments(1).comments)
    merger = [c.body for c in world.bot.list_comments(number).comments if "Merged" in c.body]
    assert "tests only" not in merger[0]
    assert world.bot.get_issue(parent.number).state == "closed"


def test_the_teardown_command_runs_in_the_run_folder(tmp_path: Path) -> None:
    """DONE-3: teardown runs in the issue's run folder with the given environment."""
    run_dir = tmp_path / "runs" / "issue-1"
    env = {"PATH": os.environ["PATH"]}
    done = run_teardown("pwd > torn.txt", run_dir, env, timeout_s=30)
    assert done.outcome is Outcome.PASSED
    assert (run_dir / "torn.txt").read_text().strip() == str(run_dir)
    assert run_teardown(None, run_dir, env, timeout_s=30).outcome is Outcome.SKIPPED


def test_a_close_out_finished_by_another_run_posts_no_second_merger_comment(
    world: MergeWorld,
) -> None:
    """The sweep finishing a killed merge job's close-out runs under its own run id: the
    merger's comment the job posted is found by its kind, and the PR keeps one."""
    number = world.branch_and_pr({"new.txt": "new\n"})
    made = squash_merge(world.bot, number, rev_parse(world.work, "HEAD"), base="main")
    for run in ("merge-job", "orchestrator-lane-a"):
        ctx = dataclasses.replace(world.ctx(), run_id=run)
        close_out(
            ctx,
            1,
            number,
            merge_sha=made.sha,
            tests_only=False,
            parent=None,
            now=datetime.now(UTC),
            signature=ctx.signature("merger"),
        )
    merger = [c.body for c in world.bot.list_comments(number).comments if "kind=merged " in c.body]
    assert len(merger) == 1
