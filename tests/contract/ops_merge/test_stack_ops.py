"""Stacked branches against real git and the embedded forge: replay only one's own commits, and
the PR based on the prerequisite's branch, as GitHub treats it (STK-2, STK-4, STK-5)."""

from __future__ import annotations

from datetime import UTC, datetime

from conveyor.core.signatures import Signature
from conveyor.core.state import StackedOn
from conveyor.git import is_ancestor, rev_parse
from conveyor.git.runner import git_text
from conveyor.ops.forge.finish_wiki import finish_wiki
from conveyor.ops.forge.flow_step import settle_pr
from conveyor.ops.forge.stack import plan_restack, read_prereq, replay_own_commits, retarget_pr
from conveyor.ops.local.finish_sync import changes_code, finish_sync
from conveyor.ops.local.publish_wiki import Published
from conveyor.ops.local.sync_base import refresh_remote_refs
from tests.contract.ops_merge.merge_world import BRANCH, MergeWorld, commit, git

DEPENDENT = "agent/issue-2"


def _refresh(world: MergeWorld) -> None:
    refresh_remote_refs(world.work, world.home / "cache.git", world.url)


def _stack(world: MergeWorld) -> tuple[int, int, StackedOn]:
    """P (#1) with one commit and a PR on main; D (#2) on P's branch with its own commit and a
    PR based on P's branch. The checkout is left on D's branch."""
    world.bot.create_issue("Use it", "After #1 merges.")
    p_pr = world.branch_and_pr({"lib.py": "def f():\n    return 1\n"})
    p_head = rev_parse(world.work, "HEAD")
    git(world.work.path, "checkout", "-q", "-B", DEPENDENT, p_head)
    commit(world.work.path, {"use.py": "from lib import f\n"}, "Use f")
    git(world.work.path, "push", "-q", "origin", f"{DEPENDENT}:{DEPENDENT}")
    d_pr = world.bot.create_draft_pr(DEPENDENT, BRANCH, "Use it (#2)", "Closes #2\n").number
    _refresh(world)
    return p_pr, d_pr, StackedOn(issue=1, head_sha=p_head)


def _own_files(world: MergeWorld, base: str) -> set[str]:
    return set(git_text(world.work, "diff", "--name-only", base, "HEAD").split())


def test_after_a_squash_merge_only_the_dependents_own_commit_is_replayed_onto_the_base(
    world: MergeWorld,
) -> None:
    """STK-4: P squash-merged; D goes onto main with its one commit, none of P's left behind,
    and its PR, which GitHub retargeted when P's branch was deleted, is on main."""
    p_pr, d_pr, stacked = _stack(world)
    merged = world.bot.merge_pr(p_pr, stacked.head_sha, "Fix it (#1)", "")
    world.bot.delete_branch(BRANCH)
    assert world.bot.get_pr(d_pr).base_ref == "main"
    _refresh(world)
    move = plan_restack(world.bot, world.work, stacked, "main")
    assert move.stacked_on is None
    assert move.onto == merged.sha
    done = replay_own_commits(world.work, move)
    assert done.outcome == "clean"
    assert not is_ancestor(world.work, stacked.head_sha, "HEAD")
    assert _own_files(world, "refs/remotes/origin/main") == {"use.py"}
    pushed = finish_sync(world.work, world.push, base="main", branch=DEPENDENT, onto=move.onto)
    assert pushed.ok, pushed.findings


def test_a_moved_prerequisite_takes_the_dependent_onto_its_new_head(world: MergeWorld) -> None:
    """STK-2: P's branch gained a commit; D's own commit goes on top of it, still stacked."""
    _, d_pr, stacked = _stack(world)
    moved = world.person_push(BRANCH, {"lib.py": "def f():\n    return 2\n"}, "Return 2")
    _refresh(world)
    move = plan_restack(world.bot, world.work, stacked, "main")
    assert move.stacked_on == StackedOn(issue=1, head_sha=moved)
    assert move.pr_base == BRANCH
    assert replay_own_commits(world.work, move).outcome == "clean"
    assert is_ancestor(world.work, moved, "HEAD")
    assert _own_files(world, moved) == {"use.py"}
    assert not retarget_pr(world.bot, d_pr, move.pr_base)


def test_a_prerequisite_closed_as_completed_counts_as_merged_and_the_pr_is_retargeted(
    world: MergeWorld,
) -> None:
    """STK-5: closed as completed without its PR merging: the dependent unstacks, and the sync
    bases its PR on main itself (GitHub retargets only after a merge)."""
    _, d_pr, stacked = _stack(world)
    world.bot.close_issue(1, "completed")
    assert read_prereq(world.bot, 1).merged
    move = plan_restack(world.bot, world.work, stacked, "main")
    assert move.stacked_on is None
    assert retarget_pr(world.bot, d_pr, move.pr_base)
    assert world.bot.get_pr(d_pr).base_ref == "main"


def test_deleting_an_unmerged_base_branch_closes_the_prs_based_on_it(world: MergeWorld) -> None:
    """The emulator does what GitHub does: an open PR whose base branch is deleted, not as a
    merged PR's head, is closed."""
    _, d_pr, _ = _stack(world)
    world.bot.delete_branch(BRANCH)
    assert world.bot.get_pr(d_pr).state == "closed"


def test_a_stacked_sync_measures_the_code_flow_from_the_prerequisites_head(
    world: MergeWorld,
) -> None:
    """SYNC-12 with STK-2: P's commits are not the dependent's code; with none of its own (its
    change lives only in the wiki) the dependent changes no code, though it differs from main."""
    _, _, stacked = _stack(world)
    assert changes_code(world.work, "main", onto=stacked.head_sha)
    git(world.work.path, "reset", "-q", "--hard", stacked.head_sha)
    assert not changes_code(world.work, "main", onto=stacked.head_sha)
    assert changes_code(world.work, "main")


def test_finish_wiki_bases_the_prs_stacked_on_the_issue_on_main_before_its_branch_goes(
    world: MergeWorld,
) -> None:
    """A P whose change ended wiki only (its PR closed) is finished by finish-wiki: the PR of
    a dependent stacked on P's branch is based on main and stays open, not closed with it."""
    p_pr, d_pr, _ = _stack(world)
    world.bot.close_pr(p_pr)
    signature = Signature("merger", "scripted", "none", "run1")
    published = Published("nothing", "master")
    finish_wiki(world.ctx(), 1, published, parent=None, now=datetime.now(UTC), signature=signature)
    assert world.bot.get_branch(BRANCH) is None
    assert world.bot.list_prs_into(BRANCH) == ()
    pr = world.bot.get_pr(d_pr)
    assert (pr.state, pr.base_ref) == ("open", "main")
    assert world.bot.get_issue(1).state == "closed"


def test_a_stacked_pr_reopened_after_its_prerequisite_completed_is_based_on_main(
    world: MergeWorld,
) -> None:
    """FLOW-7 with STK-5: D's PR, closed while D was wiki only, is reopened by the flow step
    onto the base it now builds on, not onto P's branch."""
    _, d_pr, _ = _stack(world)
    world.bot.close_pr(d_pr)
    world.bot.close_issue(1, "completed")
    signature = Signature("coordinator", "scripted", "none", "run1")
    settled = settle_pr(
        world.ctx(), 2, "reopen", pr=d_pr, title=None, body=None, wiki_branch="agent/issue-2",
        signature=signature, base="main",
    )  # fmt: skip
    assert (settled.number, settled.open) == (d_pr, True)
    pr = world.bot.get_pr(d_pr)
    assert (pr.state, pr.base_ref) == ("open", "main")
