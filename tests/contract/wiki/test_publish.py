"""Publishing the issue's wiki commits, wiki-check on the checkout, and the review's wiki diff."""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.git import GitError, Repo, read_blob
from conveyor.git.agent_repo import harvest
from conveyor.ops.local.prepare_review import prepare_review
from conveyor.ops.local.publish_wiki import PATCH_FILE, publish_wiki
from conveyor.ops.local.wiki_branch import WikiCheckout, push_wiki
from conveyor.ops.local.wiki_check import check_wiki
from tests.contract.git.workrepo import TEST_ENV
from tests.contract.wiki.conftest import ISSUE, WikiWorld

pytestmark = pytest.mark.contract


def _commit(world: WikiWorld, wiki: WikiCheckout, files: dict[str, str], message: str) -> None:
    for name, text in files.items():
        (wiki.repo.path / name).write_text(text)
    world.code.git("-C", "wiki", "add", "--all")
    world.code.git("-C", "wiki", "commit", "-qm", message)
    harvest(wiki.repo)  # as after the session that committed


def _master(world: WikiWorld, path: str) -> str | None:
    try:
        return read_blob(Repo(world.bare, TEST_ENV), "refs/heads/master", path).decode()
    except GitError:
        return None


def test_publish_replays_the_issue_commits_on_the_latest_wiki_and_drops_its_branch(
    wiki_world: WikiWorld, tmp_path: Path
) -> None:
    """MRG-16: the page lands on master over someone else's newer page; the list names it."""
    world = wiki_world
    wiki = world.checkout()
    _commit(world, wiki, {"Stock.md": "Levels.\n", "Home.md": "Welcome.\n[[Stock]]\n"}, "Stock")
    assert push_wiki(wiki) is not None
    world.person.commit({"Other.md": "Theirs.\n"}, "Someone's page")
    world.person.push("master")
    done = publish_wiki(wiki, tmp_path / "run")
    assert done.outcome == "published"
    assert [c.subject for c in done.commits] == ["Stock"]
    assert _master(world, "Stock.md") == "Levels.\n"
    assert _master(world, "Other.md") == "Theirs.\n"
    world.person.git("fetch", "-q", "--prune", "origin")
    assert f"origin/agent/issue-{ISSUE}" not in world.person.git("branch", "-r")
    again = publish_wiki(wiki, tmp_path / "run")
    assert again.outcome == "nothing", "published already: a second run pushes nothing"


def test_publish_with_nothing_of_its_own_pushes_nothing(
    wiki_world: WikiWorld, tmp_path: Path
) -> None:
    """FLOW-9: no wiki commits ahead of master, no push."""
    world = wiki_world
    before = world.person.git("ls-remote", "origin", "master")
    assert publish_wiki(world.checkout(), tmp_path / "run").outcome == "nothing"
    assert world.person.git("ls-remote", "origin", "master") == before


def test_pages_that_no_longer_apply_are_saved_as_a_patch_and_master_is_untouched(
    wiki_world: WikiWorld, tmp_path: Path
) -> None:
    """MRG-16: a conflict aborts the replay and keeps the commits as wiki-unpushed.patch."""
    world = wiki_world
    wiki = world.checkout()
    _commit(world, wiki, {"Home.md": "Welcome, issue.\n"}, "Reword Home")
    world.person.commit({"Home.md": "Welcome, person.\n"}, "Person rewords Home")
    world.person.push("master")
    done = publish_wiki(wiki, tmp_path / "run")
    assert done.outcome == "conflict"
    assert done.conflicts == ("Home.md",)
    assert done.patch == tmp_path / "run" / PATCH_FILE
    assert "Reword Home" in done.patch.read_text()
    assert _master(world, "Home.md") == "Welcome, person.\n"


def test_wiki_check_finds_a_broken_link_and_an_unlinked_new_page_in_the_checkout(
    wiki_world: WikiWorld,
) -> None:
    """CHK-9 on real git: only the issue's changes since master are checked."""
    world = wiki_world
    wiki = world.checkout()
    assert check_wiki(wiki) == ()
    _commit(world, wiki, {"Lonely.md": "[[Nowhere]]\n"}, "Lonely page")
    assert check_wiki(wiki) == (
        "Lonely.md: links to 'Nowhere', which is no page or file of the wiki",
        "Lonely.md: a new page that neither _Sidebar nor another page links to",
    )


def test_the_review_diff_carries_the_wiki_section_with_wiki_paths(
    wiki_world: WikiWorld, tmp_path: Path
) -> None:
    """REV-2, REV-10: the wiki's own diff follows the code's; a wiki-only diff is not empty."""
    world = wiki_world
    wiki = world.checkout()
    base = world.code.git("rev-parse", "HEAD")
    empty = prepare_review(world.code.repo, base, tmp_path / "a.diff", wiki=wiki)
    assert empty.empty
    _commit(world, wiki, {"Stock.md": "Levels.\n"}, "Stock")
    made = prepare_review(world.code.repo, base, tmp_path / "b.diff", wiki=wiki)
    assert not made.empty
    assert made.paths == ("wiki/Stock.md",)
    assert "+++ b/wiki/Stock.md" in made.path.read_text()


def test_a_wiki_gitattributes_hides_no_line_from_the_review(
    wiki_world: WikiWorld, tmp_path: Path
) -> None:
    """REV-2 against the writer's own attributes: `*.md -diff` in the wiki would show a page
    as "Binary files differ"; the reviewers read its lines."""
    world = wiki_world
    wiki = world.checkout()
    base = world.code.git("rev-parse", "HEAD")
    _commit(world, wiki, {".gitattributes": "*.md -diff\n", "Stock.md": "Levels.\n"}, "Stock")
    text = prepare_review(world.code.repo, base, tmp_path / "b.diff", wiki=wiki).path.read_text()
    assert "+Levels." in text
    assert "Binary files" not in text
