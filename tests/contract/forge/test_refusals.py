"""Every operation on a number that does not exist is NotFound naming it; visitors can't write."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from conveyor.forge.errors import NotFound, Unauthorized
from conveyor.forge.github import GitHubForge, token_forge
from tests.contract.forge.conftest import ONCE, World, push_change, write_sample

pytestmark = pytest.mark.contract

MISSING = 44_444

CALLS: dict[str, Callable[[GitHubForge], object]] = {
    "close issue": lambda f: f.close_issue(MISSING),
    "reopen issue": lambda f: f.reopen_issue(MISSING),
    "edit issue body": lambda f: f.edit_issue_body(MISSING, "x"),
    "list comments": lambda f: f.list_comments(MISSING),
    "add labels": lambda f: f.add_labels(MISSING, ["bug"]),
    "list sub-issues": lambda f: f.list_sub_issues(MISSING),
    "get PR": lambda f: f.get_pr(MISSING),
    "edit PR": lambda f: f.edit_pr(MISSING, title="x"),
    "close PR": lambda f: f.close_pr(MISSING),
    "reopen PR": lambda f: f.reopen_pr(MISSING),
    "merge PR": lambda f: f.merge_pr(MISSING, "0" * 40, "x", "y"),
}


@pytest.mark.parametrize("operation", sorted(CALLS))
def test_an_unknown_number_is_not_found_and_named(world: World, operation: str) -> None:
    """The error is NotFound, and says which operation and which number."""
    with pytest.raises(NotFound) as caught:
        CALLS[operation](world.pipeline)
    assert (caught.value.operation, caught.value.number) == (operation, MISSING)
    assert f"{operation} (#{MISSING})" in str(caught.value)


def test_a_visitor_cannot_close_someone_else_s_issue(world: World) -> None:
    """Closing needs write access unless the issue is one's own."""
    issue = world.trusted.create_issue("Not yours", "body")
    with pytest.raises(Unauthorized) as caught:
        world.visitor.close_issue(issue.number)
    assert caught.value.number == issue.number


def test_a_visitor_cannot_merge(world: World) -> None:
    """Merging needs write access: a visitor's merge of a ready PR is refused, nothing merged."""
    sha = push_change(world, "conveyor/issue-11", "src/eleven.py", "ELEVEN = 11\n")
    pr = world.pipeline.create_draft_pr("conveyor/issue-11", "main", "Eleven", "")
    world.pipeline.mark_pr_ready(pr.number)
    with pytest.raises(Unauthorized) as caught:
        world.visitor.merge_pr(pr.number, sha, "Eleven", "")
    assert caught.value.number == pr.number
    assert not world.pipeline.get_pr(pr.number).merged


def test_a_wiki_repository_reports_its_wiki_clone_url(
    world: World, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A repository created with a wiki says so and gives the wiki's clone URL."""
    slug = "acme/with-wiki"
    created = world.server.create_repo(
        slug, write_sample(tmp_path_factory.mktemp("wiki")), wiki=True
    )
    forge = token_forge(
        slug,
        world.server.add_user("wiki-reader"),
        base_url=world.server.url,
        transport=world.hook,
        retry=ONCE,
    )
    info = forge.repo_info()
    assert info.has_wiki
    assert info.wiki_clone_url == created.wiki_clone_url
