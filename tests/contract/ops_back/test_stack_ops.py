"""Stacked branches against real git and the embedded forge: replay only one's own commits, and
the PR based on the prerequisite's branch, as GitHub treats it (STK-2, STK-4, STK-5)."""

from __future__ import annotations

from datetime import UTC, datetime

from conveyor.core.signatures import Signature
from conveyor.core.state import StackedOn
from conveyor.git import is_ancestor, rev_parse
from conveyor.git.runner import git_text
from conveyor.ops.finish_sync import changes_code, finish_sync
from conveyor.ops.finish_wiki import finish_wiki
from conveyor.ops.flow_step import settle_pr
from conveyor.ops.publish_wiki import Published
from conveyor.ops.stack import plan_restack, read_prereq, replay_own_commits, retarget_pr
from conveyor.ops.sync_base import refresh_remote_refs
from tests.contract.ops_back.backworld import BRANCH, Back, commit, git

DEPENDENT = "agent/issue-2"


def _refresh(back: Back) -> None:
    refresh_remote_refs(back.work, back.home / "cache.git", back.url)


def _stack(back: Back) -> tuple[int, int, StackedOn]:
    """P (#1) with one commit and a PR on main; D (#2) on P's branch with its own commit and a
    PR based on P's branch. The checkout is left on D's branch."""
    back.bot.create_issue("Use it", "After #1 merges.")
    p_pr = back.branch_and_pr({"lib.py": "def f():\n    return 1\n"})
    p_head = rev_parse(back.work, "HEAD")
    git(back.work.path, "checkout", "-q", "-B", DEPENDENT, p_head)
    commit(back.work.path, {"use.py": "from lib import f\n"}, "Use f")
    git(back.work.path, "push", "-q", "origin", f"{DEPENDENT}:{DEPENDENT}")
    d_pr = back.bot.create_draft_pr(DEPENDENT, BRANCH, "Use it (#2)", "Closes #2\n").number
    _refresh(back)
    return p_pr, d_pr, StackedOn(issue=1, head_sha=p_head)


def _own_files(back: Back, base: str) -> set[str]:
    return set(git_text(back.work, "diff", "--name-only", base, "HEAD").split())


def test_after_a_squash_merge_only_the_dependents_own_commit_is_replayed_onto_the_base(
    back: Back,
) -> None:
    """STK-4: P squash-merged; D goes onto main with its one commit, none of P's left behind,
    and its PR, which GitHub retargeted when P's branch was deleted, is on main."""
    p_pr, d_pr, stacked = _stack(back)
    merged = back.bot.merge_pr(p_pr, stacked.head_sha, "Fix it (#1)", "")
    back.bot.delete_branch(BRANCH)
    assert back.bot.get_pr(d_pr).base_ref == "main"
    _refresh(back)
    move = plan_restack(back.bot, back.work, stacked, "main")
    assert move.stacked_on is None
    assert move.onto == merged.sha
    done = replay_own_commits(back.work, move)
    assert done.outcome == "clean"
    assert not is_ancestor(back.work, stacked.head_sha, "HEAD")
    assert _own_files(back, "refs/remotes/origin/main") == {"use.py"}
    pushed = finish_sync(back.work, back.push, base="main", branch=DEPENDENT, onto=move.onto)
    assert pushed.ok, pushed.findings


def test_a_moved_prerequisite_takes_the_dependent_onto_its_new_head(back: Back) -> None:
    """STK-2: P's branch gained a commit; D's own commit goes on top of it, still stacked."""
    _, d_pr, stacked = _stack(back)
    moved = back.person_push(BRANCH, {"lib.py": "def f():\n    return 2\n"}, "Return 2")
    _refresh(back)
    move = plan_restack(back.bot, back.work, stacked, "main")
    assert move.stacked_on == StackedOn(issue=1, head_sha=moved)
    assert move.pr_base == BRANCH
    assert replay_own_commits(back.work, move).outcome == "clean"
    assert is_ancestor(back.work, moved, "HEAD")
    assert _own_files(back, moved) == {"use.py"}
    assert not retarget_pr(back.bot, d_pr, move.pr_base)


def test_a_prerequisite_closed_as_completed_counts_as_merged_and_the_pr_is_retargeted(
    back: Back,
) -> None:
    """STK-5: closed as completed without its PR merging: the dependent unstacks, and the sync
    bases its PR on main itself (GitHub retargets only after a merge)."""
    _, d_pr, stacked = _stack(back)
    back.bot.close_issue(1, "completed")
    assert read_prereq(back.bot, 1).merged
    move = plan_restack(back.bot, back.work, stacked, "main")
    assert move.stacked_on is None
    assert retarget_pr(back.bot, d_pr, move.pr_base)
    assert back.bot.get_pr(d_pr).base_ref == "main"


def test_deleting_an_unmerged_base_branch_closes_the_prs_based_on_it(back: Back) -> None:
    """The emulator does what GitHub does: an open PR whose base branch is deleted, not as a
    merged PR's head, is closed."""
    _, d_pr, _ = _stack(back)
    back.bot.delete_branch(BRANCH)
    assert back.bot.get_pr(d_pr).state == "closed"


def test_a_stacked_sync_measures_the_code_flow_from_the_prerequisites_head(back: Back) -> None:
    """SYNC-12 with STK-2: P's commits are not the dependent's code; with none of its own (its
    change lives only in the wiki) the dependent changes no code, though it differs from main."""
    _, _, stacked = _stack(back)
    assert changes_code(back.work, "main", onto=stacked.head_sha)
    git(back.work.path, "reset", "-q", "--hard", stacked.head_sha)
    assert not changes_code(back.work, "main", onto=stacked.head_sha)
    assert changes_code(back.work, "main")


def test_finish_wiki_bases_the_prs_stacked_on_the_issue_on_main_before_its_branch_goes(
    back: Back,
) -> None:
    """A P whose change ended wiki only (its PR closed) is finished by finish-wiki: the PR of
    a dependent stacked on P's branch is based on main and stays open, not closed with it."""
    p_pr, d_pr, _ = _stack(back)
    back.bot.close_pr(p_pr)
    signature = Signature("merger", "scripted", "none", "run1")
    published = Published("nothing", "master")
    finish_wiki(back.ctx(), 1, published, parent=None, now=datetime.now(UTC), signature=signature)
    assert back.bot.get_branch(BRANCH) is None
    assert back.bot.list_prs_into(BRANCH) == ()
    pr = back.bot.get_pr(d_pr)
    assert (pr.state, pr.base_ref) == ("open", "main")
    assert back.bot.get_issue(1).state == "closed"


def test_a_stacked_pr_reopened_after_its_prerequisite_completed_is_based_on_main(
    back: Back,
) -> None:
    """FLOW-7 with STK-5: D's PR, closed while D was wiki only, is reopened by the flow step
    onto the base it now builds on, not onto P's branch."""
    _, d_pr, _ = _stack(back)
    back.bot.close_pr(d_pr)
    back.bot.close_issue(1, "completed")
    signature = Signature("coordinator", "scripted", "none", "run1")
    settled = settle_pr(
        back.ctx(), 2, "reopen", pr=d_pr, title=None, body=None, wiki_branch="agent/issue-2",
        signature=signature, base="main",
    )  # fmt: skip
    assert (settled.number, settled.open) == (d_pr, True)
    pr = back.bot.get_pr(d_pr)
    assert (pr.state, pr.base_ref) == ("open", "main")
