"""A handed-over PR a person acted on, on the embedded forge: the hand-over op reads their
merge (who, where, which head), the close-out closes what their merge left open (the issue
when they edited `Closes #1` out, the split parent after its last child), and a PR they
closed is reopened when the stop is lifted and it is handed over again."""

from __future__ import annotations

from datetime import UTC, datetime

from conveyor.forge.github import GitHubForge, token_forge
from conveyor.git import rev_parse
from conveyor.ops.forge.close_out import close_out
from conveyor.ops.forge.handover import hand_over
from conveyor.stages.effects_merge import PersonMerged
from tests.contract.ops_merge.merge_world import MergeWorld


def _owner(world: MergeWorld) -> tuple[GitHubForge, str]:
    """The repository's owner, a person who may merge, and their login."""
    forge = token_forge(world.slug, world.admin_token, base_url=world.server.url)
    return forge, world.slug.split("/")[0]


def test_a_person_merge_is_read_as_theirs_and_its_close_out_closes_what_it_left_open(
    world: MergeWorld,
) -> None:
    """`Closes #1` edited out, merged by the owner at a head Conveyor did not verify: the
    hand-over changes nothing and returns the merge; the close-out names who merged and the
    unverified head, closes the issue and then its split parent."""
    number = world.branch_and_pr({"new.txt": "new\n"})
    verified = rev_parse(world.work, "HEAD")
    head = world.person_push("agent/issue-1", {"later.txt": "a person's commit\n"}, "later")
    parent = world.bot.create_issue("Parent", "Split.")
    world.bot.add_sub_issue(parent.number, 1)
    person, login = _owner(world)
    person.edit_pr(number, body="A person's own description.")
    made = person.merge_pr(number, head, "Fix it", "")
    assert world.bot.get_issue(1).state == "open", "no Closes #1: the forge left it open"
    signature = world.ctx().signature("merger")

    read = hand_over(world.ctx(), 1, number, verified, signature)
    assert read == PersonMerged(made.sha, login, head)
    assert not [c for c in world.bot.list_comments(number).comments if "kind=handover " in c.body]

    close_out(
        world.ctx(), 1, number, merge_sha=made.sha, tests_only=False, parent=parent.number,
        now=datetime.now(UTC), signature=signature, person=read, verified=verified,
    )  # fmt: skip
    [merged] = [c.body for c in world.bot.list_comments(number).comments if "### Merged" in c.body]
    assert f"by @{login} as {made.sha}" in merged
    assert verified[:12] in merged
    assert head[:12] in merged
    assert "did not review or verify" in merged
    assert world.bot.get_issue(1).state == "closed"
    assert any(f"PR #{number}" in c.body for c in world.bot.list_comments(1).comments)
    assert world.bot.get_issue(parent.number).state == "closed"


def test_a_pr_a_person_closed_is_reopened_when_it_is_handed_over_again(
    world: MergeWorld,
) -> None:
    """The lifted `pr-closed` stop restarts at merge: the hand-over reopens the same PR."""
    number = world.branch_and_pr({"new.txt": "new\n"})
    sha = rev_parse(world.work, "HEAD")
    person, _ = _owner(world)
    person.close_pr(number)
    notes = hand_over(world.ctx(), 1, number, sha, world.ctx().signature("merger"))
    assert isinstance(notes, list)
    pr = world.bot.get_pr(number)
    assert (pr.state, pr.merged) == ("open", False)
    assert [c for c in world.bot.list_comments(number).comments if "kind=handover " in c.body]
