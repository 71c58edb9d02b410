"""The merge op on the embedded forge: behind three ways, the squash at the verified SHA."""

from __future__ import annotations

from conveyor.core.merge_rules import Behind
from conveyor.git import rev_parse
from conveyor.ops.forge.merge import check_behind, squash_merge
from conveyor.ops.local.sync_base import refresh_remote_refs
from tests.contract.ops_merge.merge_world import MergeWorld, git


def _refresh(world: MergeWorld) -> None:
    refresh_remote_refs(world.work, world.home / "cache.git", world.url)


def test_an_unprotected_forge_reads_a_behind_branch_clean_and_the_local_check_catches_it(
    world: MergeWorld,
) -> None:
    """MRG-4: the forge says clean; the verified commit lacks the base, so it is behind."""
    number = world.branch_and_pr({"new.txt": "new\n"})
    head = rev_parse(world.work, "HEAD")
    world.person_push("main", {"other.txt": "other\n"}, "Move main on")
    world.bot.get_pr(number)
    assert world.bot.get_pr(number).mergeable_state == "clean"
    _refresh(world)
    assert check_behind(world.bot, world.work, number, head, "main") is Behind.LOCAL


def test_a_strictly_protected_base_makes_the_forge_say_behind(world: MergeWorld) -> None:
    """MRG-4: with strict protection the forge's own answer is behind."""
    number = world.branch_and_pr({"new.txt": "new\n"})
    head = rev_parse(world.work, "HEAD")
    world.person_push("main", {"other.txt": "other\n"}, "Move main on")
    world.protect([], strict=True)
    assert check_behind(world.bot, world.work, number, head, "main") is Behind.FORGE


def test_a_branch_on_the_current_base_is_not_behind(world: MergeWorld) -> None:
    """No base movement: not behind."""
    number = world.branch_and_pr({"new.txt": "new\n"})
    _refresh(world)
    assert (
        check_behind(world.bot, world.work, number, rev_parse(world.work, "HEAD"), "main") is None
    )


def test_the_squash_merge_pins_the_verified_sha(world: MergeWorld) -> None:
    """MRG-1: a stale expected head is refused; the verified one merges onto the base."""
    number = world.branch_and_pr({"new.txt": "new\n"})
    head = rev_parse(world.work, "HEAD")
    stale = squash_merge(world.bot, number, rev_parse(world.work, "HEAD~1"), base="main")
    assert stale.outcome == "refused"
    made = squash_merge(world.bot, number, head, base="main")
    assert made.outcome == "merged"
    assert world.bot.get_pr(number).merged
    _refresh(world)
    assert git(world.work.path, "show", "origin/main:new.txt") == "new"
    assert world.bot.get_issue(1).state == "closed"


def test_a_draft_left_over_is_readied_before_the_merge(world: MergeWorld) -> None:
    """MRG-14: a draft PR is marked ready, then merged."""
    number = world.branch_and_pr({"new.txt": "new\n"}, ready=False)
    assert world.bot.get_pr(number).draft
    assert (
        squash_merge(world.bot, number, rev_parse(world.work, "HEAD"), base="main").outcome
        == "merged"
    )


def test_a_strict_base_refusing_a_behind_branch_reads_as_behind(world: MergeWorld) -> None:
    """MRG-4: the forge refusing because the base moved is behind, not a plain refusal."""
    number = world.branch_and_pr({"new.txt": "new\n"})
    head = rev_parse(world.work, "HEAD")
    world.person_push("main", {"other.txt": "other\n"}, "Move main on")
    world.protect([], strict=True)
    world.bot.get_pr(number)
    world.bot.get_pr(number)
    tried = squash_merge(world.bot, number, head, base="main")
    assert tried.outcome == "behind"
    assert not world.bot.get_pr(number).merged


def test_a_pr_merged_by_an_earlier_try_is_not_behind_and_reads_as_merged(world: MergeWorld) -> None:
    """A merge job that died after the merge: the next one goes straight to the close-out."""
    number = world.branch_and_pr({"new.txt": "new\n"})
    head = rev_parse(world.work, "HEAD")
    made = squash_merge(world.bot, number, head, base="main")
    _refresh(world)
    assert check_behind(world.bot, world.work, number, head, "main") is None
    again = squash_merge(world.bot, number, head, base="main")
    assert (again.outcome, again.sha) == ("merged", made.sha)
