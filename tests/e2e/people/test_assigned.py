"""The loop reviews people's PRs: on request, every trusted author's PR with
`review_assigned_prs` (not Conveyor's own, not a draft), and again after a push, marking
what the push resolved (BB-DISP-9..11)."""

from __future__ import annotations

from pathlib import Path

from conveyor.testing.world import ACCOUNT, TRUSTED, World
from tests.e2e.people.helpers import (
    CHANGED,
    LABEL,
    LABELS_PY,
    PLURAL,
    UNTESTED,
    angle,
    brief,
    person_pr,
    push_branch,
    reviewer,
)

TAG = "asg"
FIXED = CHANGED.replace('return name + "s"', 'return name if count == 1 else name + "s"')


def reviews_by_pipeline(world: World, number: int) -> list[str]:
    """The bodies of the reviews Conveyor's account posted on the PR, oldest first."""
    return [r.body for r in world.forge_as(TRUSTED).list_reviews(number) if r.author == ACCOUNT]


def test_a_requested_review_runs_once_from_the_loop(world: World, tmp_path: Path) -> None:
    """The loop starts the review a trusted label asks for; the label is one pass: running
    the loop again posts nothing more."""
    world.write_scenario([brief(TAG), angle(TAG, "correctness", PLURAL), angle(TAG, "tests"),
                          reviewer(TAG, "One problem.")])  # fmt: skip
    pr = person_pr(world, tmp_path, f"Title-case labels [{TAG}]")
    world.forge_as(TRUSTED).add_labels(pr.number, [LABEL])
    done = world.run("run", "--until-idle")
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(reviews_by_pipeline(world, pr.number)) == 1
    again = world.run("run", "--until-idle")
    assert again.returncode == 0, again.stdout + again.stderr
    assert len(reviews_by_pipeline(world, pr.number)) == 1
    log = (world.repo_home / "orchestrator.log").read_text()
    assert f"start #{pr.number} pr-review" in log


def test_assigned_prs_are_reviewed_but_not_conveyors_own_nor_drafts_and_a_push_is_re_reviewed(
    world: World, tmp_path: Path
) -> None:
    """review_assigned_prs: the person's PR is reviewed without a label; Conveyor's own PR
    and a draft are not. After the person pushes a fix, the next review is of what changed:
    the fixed finding is marked resolved, the one raised again stays open."""
    world.write_config({"pr_reviews": {"label": LABEL, "review_assigned_prs": True}})
    first = [angle(TAG, "correctness", PLURAL), angle(TAG, "tests", UNTESTED)]
    world.write_scenario([brief(TAG), *first, reviewer(TAG, "Two problems.")])
    pr = person_pr(world, tmp_path, f"Title-case labels [{TAG}]")
    push_branch(world, tmp_path, "agent/issue-99", {"inventory/own.py": "OWN = 1\n"})
    own = world.forge_as(ACCOUNT).create_pr("agent/issue-99", "main", "Own [asg]", "Closes #99")
    push_branch(world, tmp_path, "alice/draft", {"inventory/draft.py": "D = 1\n"})
    draft = world.forge_as(TRUSTED).create_draft_pr("alice/draft", "main", "Draft [asg]", "")
    done = world.run("run", "--until-idle")
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(reviews_by_pipeline(world, pr.number)) == 1
    assert reviews_by_pipeline(world, own.number) == []
    assert reviews_by_pipeline(world, draft.number) == []

    world.write_scenario([brief(TAG), angle(TAG, "correctness"), angle(TAG, "tests", UNTESTED),
                          reviewer(TAG, "Better.")])  # fmt: skip
    second = push_branch(world, tmp_path, "alice/labels", {LABELS_PY: FIXED})
    done = world.run("run", "--until-idle")
    assert done.returncode == 0, done.stdout + done.stderr
    bodies = reviews_by_pipeline(world, pr.number)
    assert len(bodies) == 2
    latest = bodies[-1]
    assert f"Review of `{second[:12]}`" in latest
    assert "✅ resolved by the push: `inventory/labels.py:11` plural() ignores count" in latest
    assert "still open: `inventory/labels.py:9` plural() has no test" in latest
    (job,) = sorted((world.repo_home / "jobs").glob(f"issue-{pr.number}-pr-review-*"))[1:]
    task = (job / "sessions" / "angle-tests-1" / "task.md").read_text()
    assert "since.diff" in task
