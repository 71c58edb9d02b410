"""The job's wiki checkout on real git: where it starts, when there is none, what it hides."""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.core.config import Wiki
from conveyor.git.agent_repo import harvest
from conveyor.git.remote import init_bare
from conveyor.git.token_push import PushAuth, write_askpass
from conveyor.job.effects.push import commit_split
from conveyor.job.wiki_workspace import keep_wiki_leftovers, prepare_wiki
from conveyor.ops.local.wiki_branch import head, push_wiki, reset_wiki, wiki_ahead
from tests.contract.git.workrepo import TEST_ENV
from tests.contract.wiki.conftest import ISSUE, WikiWorld, config

pytestmark = pytest.mark.contract


def test_the_checkout_starts_at_the_issue_branch_only_when_it_has_commits_of_its_own(
    wiki_world: WikiWorld,
) -> None:
    """WT-8: `agent/issue-N` with its own commit is the start; an empty one means master."""
    world = wiki_world
    world.person.branch(f"agent/issue-{ISSUE}")
    own = world.person.commit({"Page.md": "Mine.\n"}, "The issue's page")
    world.person.push(f"agent/issue-{ISSUE}")
    wiki = world.checkout(home="home-a")
    assert head(wiki) == own
    assert wiki_ahead(wiki)
    world.person.branch(f"agent/issue-{ISSUE}", "master")
    world.person.push(f"agent/issue-{ISSUE}", force=True)
    world.person.branch("master")
    latest = world.person.commit({"Other.md": "New.\n"}, "Someone's page")
    world.person.push("master")
    (world.code.path / "wiki").rename(world.root / "old-wiki")
    again = world.checkout(home="home-b")
    assert head(again) == latest
    assert not wiki_ahead(again)


def test_a_wiki_that_is_off_or_has_no_page_yet_gives_no_checkout(
    wiki_world: WikiWorld, tmp_path: Path
) -> None:
    """WT-11: the config's wiki off, no wiki on the forge, or an empty wiki repository."""
    world = wiki_world
    auth = PushAuth(write_askpass(tmp_path / "askpass.sh"), None, "n")
    empty = tmp_path / "empty.wiki.git"
    init_bare(empty, TEST_ENV, "master")
    cases = [
        (config(wiki=False), world.info()),
        (config(), world.info(has_wiki=False)),
        (config({"url": empty.as_uri()}), world.info()),
        (config({"url": (tmp_path / "missing.wiki.git").as_uri()}), world.info()),
    ]
    for cfg, info in cases:
        made = prepare_wiki(
            cfg, info, code=world.code.repo, home=tmp_path / "h", keep=tmp_path / "k.git",
            issue=ISSUE, auth=auth, trailer_role="spec",
        )  # fmt: skip
        assert made is None, cfg.wiki
    assert not (world.code.path / "wiki").exists()


def test_the_wiki_folder_is_hidden_from_the_code_repository_and_may_not_be_tracked_there(
    wiki_world: WikiWorld,
) -> None:
    """WT-7: `info/exclude` hides the clone; a repository tracking that folder is refused."""
    world = wiki_world
    world.checkout()
    assert world.code.git("status", "--porcelain", "--untracked-files=all") == ""
    other = world.code.path.parent / "code2"
    other.mkdir()
    tracked = type(world.code).init(other)
    tracked.commit({"docs/index.md": "Docs.\n"}, "Docs")
    world.code = tracked
    with pytest.raises(ValueError, match=r"config wiki\.dir"):
        world.checkout(home="h2", wiki={"dir": "docs"})
    assert Wiki(dir="docs").dir == "docs"


def test_a_push_sends_the_issue_commits_with_lease_and_a_reset_deletes_an_empty_branch(
    wiki_world: WikiWorld,
) -> None:
    """WT-9, SPEC-99: the branch gets HEAD; back at master it is deleted from the wiki."""
    world = wiki_world
    wiki = world.checkout()
    start = head(wiki)
    assert push_wiki(wiki) is None, "nothing of its own yet"
    (wiki.repo.path / "Page.md").write_text("Mine.\n")
    world.code.git("-C", "wiki", "add", "Page.md")
    world.code.git("-C", "wiki", "commit", "-qm", "Page")
    harvest(wiki.repo)  # as after the session that committed
    pushed = push_wiki(wiki)
    assert pushed is not None
    assert pushed.ok
    world.person.git("fetch", "-q", "origin")
    assert world.person.git("rev-parse", f"origin/agent/issue-{ISSUE}") == head(wiki)
    reset = reset_wiki(wiki, start)
    assert reset is not None
    assert reset.ok
    world.person.git("fetch", "-q", "--prune", "origin")
    assert f"origin/agent/issue-{ISSUE}" not in world.person.git("branch", "-r")


def test_the_commit_tool_commits_wiki_paths_in_the_wiki_and_the_rest_in_the_code(
    wiki_world: WikiWorld,
) -> None:
    """One `commit` call with paths in both checkouts makes one commit in each."""
    world = wiki_world
    wiki = world.checkout()
    (wiki.repo.path / "Page.md").write_text("Page.\n")
    (world.code.path / "NOTES.md").write_text("Notes.\n")
    code_before = world.code.git("rev-parse", "HEAD")
    commit_split(
        world.code.repo,
        wiki.repo,
        wiki.dir,
        ["wiki/Page.md", "NOTES.md"],
        message="Notes and a page",
        role="spec",
    )
    assert world.code.git("diff", "--name-only", code_before, "HEAD") == "NOTES.md"
    assert world.code.git("-C", "wiki", "show", "--name-only", "--format=%s", "HEAD") == (
        "Notes and a page\n\nPage.md"
    )


def test_a_killed_jobs_unpushed_wiki_commits_are_where_the_next_checkout_starts(
    wiki_world: WikiWorld,
) -> None:
    """JB-12: kept in the wiki cache (no hook runs), then the next wiki checkout's head."""
    world = wiki_world
    wiki = world.checkout(home="home")
    (wiki.repo.path / "Draft.md").write_text("Half done.\n")
    world.code.git("-C", "wiki", "add", "Draft.md")
    world.code.git("-C", "wiki", "commit", "-qm", "Draft")
    left = world.code.git("-C", "wiki", "rev-parse", "HEAD")  # the agent's: never taken
    leftover = world.root / "jobs" / "issue-7-spec-1" / "repo"
    leftover.parent.mkdir(parents=True)
    world.code.path.rename(leftover)
    kept = keep_wiki_leftovers(world.root / "home", [leftover], "wiki", ISSUE, TEST_ENV, box=None)
    assert kept == 1
    world.code = type(world.code).init(world.root / "code-next")
    world.code.commit({"README.md": "# tool\n"}, "Initial commit")
    again = world.checkout(home="home")
    assert head(again) == left
    assert wiki_ahead(again)


def test_the_wiki_checkout_reads_nothing_of_the_code_checkouts_own_repository(
    wiki_world: WikiWorld,
) -> None:
    """The code checkout's `.git` is the agent's: a URL rewrite to an `ext::` command there
    (allowed there too) neither runs nor takes the wiki's remote away."""
    world = wiki_world
    marks = world.root / "marks"
    script = world.root / "mark.sh"
    script.write_text(f'#!/bin/sh\necho "ran: $0 $*" >> {marks}\n')
    script.chmod(0o755)
    world.code.git("config", "protocol.allow", "always")
    world.code.git("config", f"url.ext::{script} %S.insteadOf", world.url)
    wiki = world.checkout()
    assert (wiki.repo.path / "Home.md").read_text() == "Welcome.\n"
    assert not marks.exists(), marks.read_text()
