"""A review of a person's PR through the client: the open PRs, a PR's files, who labelled it,
one review with inline comments on both sides of the diff, and a PR from a fork."""

from __future__ import annotations

import pytest

from conveyor.forge.errors import Validation
from conveyor.forge.pr_types import InlineComment
from tests.contract.forge.conftest import PIPELINE, TRUSTED, VISITOR, World, git, push_change

pytestmark = pytest.mark.contract

CALC = "def add(a, b):\n    return a + b\n"
NEW_CALC = "def add(a, b):\n    return a - b\n\n\ndef twice(a):\n    return 2 * a\n"


def _person_pr(world: World, branch: str, *, draft: bool = False) -> int:
    """A PR the trusted person opened that changes `src/calc.py` (line 2 and four new lines)."""
    push_change(world, branch, "src/calc.py", NEW_CALC)
    if draft:
        return world.trusted.create_draft_pr(branch, "main", f"Draft {branch}", "").number
    return world.trusted.create_pr(branch, "main", f"Change {branch}", "Subtract instead.").number


def test_the_open_prs_list_heads_labels_drafts_and_authors(world: World) -> None:
    """Every open PR is listed with its head, labels and draft flag; a 304 when nothing moved."""
    ready = _person_pr(world, "people/list-1")
    draft = _person_pr(world, "people/list-2", draft=True)
    world.admin.add_labels(ready, ["review-requested"])
    page = world.pipeline.list_open_prs()
    shown = {p.number: p for p in page.pulls}
    assert shown[ready].labels == ("review-requested",)
    assert (shown[ready].author, shown[ready].draft, shown[ready].head_repo) == (
        TRUSTED,
        False,
        world.repo,
    )
    assert shown[draft].draft is True
    assert shown[ready].head_sha == world.pipeline.get_pr(ready).head_sha
    again = world.pipeline.list_open_prs(page.etag)
    assert again.not_modified
    assert again.pulls == ()


def test_a_prs_files_carry_status_counts_and_patch(world: World) -> None:
    """The changed file reads as modified with its line counts and the hunk of its diff."""
    number = _person_pr(world, "people/files-1")
    files = world.pipeline.list_pr_files(number)
    assert [(f.filename, f.status, f.additions, f.deletions) for f in files] == [
        ("src/calc.py", "modified", 5, 1)
    ]
    patch = files[0].patch or ""
    assert patch.startswith("@@ -1,2 +1,6 @@")
    assert "-    return a + b" in patch
    assert "+    return a - b" in patch


def test_a_rename_and_a_removal_are_listed_as_github_lists_them(world: World) -> None:
    """A renamed file names its old path; a removed file has no blob."""
    clone = world.workdir / "rename-clone"
    git(world.workdir, "clone", "--quiet", world.clone_url, clone.name)
    git(clone, "checkout", "--quiet", "-b", "people/rename")
    git(clone, "mv", "src/calc.py", "src/arith.py")
    git(clone, "rm", "--quiet", "README.md")
    git(clone, "commit", "--quiet", "-m", "Rename and remove")
    git(clone, "push", "--quiet", "origin", "HEAD:refs/heads/people/rename")
    number = world.trusted.create_pr("people/rename", "main", "Rename", "").number
    files = {f.filename: f for f in world.pipeline.list_pr_files(number)}
    assert files["src/arith.py"].status == "renamed"
    assert files["src/arith.py"].previous_filename == "src/calc.py"
    assert files["README.md"].status == "removed"


def test_label_events_name_who_added_and_removed_each_label(world: World) -> None:
    """The events read back the actor of each label change, in order."""
    number = _person_pr(world, "people/events-1")
    world.trusted.add_labels(number, ["review-requested"])
    world.pipeline.remove_label(number, "review-requested")
    world.admin.add_labels(number, ["needs-work"])
    events = world.pipeline.list_label_events(number)
    assert [(e.action, e.label, e.actor) for e in events] == [
        ("labeled", "review-requested", TRUSTED),
        ("unlabeled", "review-requested", PIPELINE),
        ("labeled", "needs-work", "acme"),
    ]


def test_a_review_puts_comments_on_new_and_old_lines_and_a_range(world: World) -> None:
    """A COMMENT review with a right-side line, a left-side (removed) line and a range."""
    number = _person_pr(world, "people/review-1")
    head = world.pipeline.get_pr(number).head_sha
    review = world.pipeline.create_review(
        number,
        "Two findings.",
        "COMMENT",
        [
            InlineComment("src/calc.py", 2, "This subtracts.", "RIGHT"),
            InlineComment("src/calc.py", 2, "The old line added.", "LEFT"),
            InlineComment("src/calc.py", 6, "No test for twice.", "RIGHT", start_line=5),
        ],
        commit_id=head,
    )
    assert (review.author, review.state, review.commit_id) == (PIPELINE, "COMMENTED", head)
    comments = world.pipeline.list_review_comments(number)
    assert [(c.path, c.line, c.body) for c in comments] == [
        ("src/calc.py", 2, "This subtracts."),
        ("src/calc.py", 2, "The old line added."),
        ("src/calc.py", 6, "No test for twice."),
    ]
    sides = [c.side for c in world.pipeline.list_review_comments(number)]
    assert sides == ["RIGHT", "LEFT", "RIGHT"]


def test_a_comment_off_the_diff_or_on_a_bad_side_is_refused(world: World) -> None:
    """A line the diff does not show (on either side) and an unknown side are 422s."""
    number = _person_pr(world, "people/review-2")
    with pytest.raises(Validation):
        world.pipeline.create_review(number, "x", "COMMENT", [InlineComment("src/calc.py", 9, "?")])
    with pytest.raises(Validation):
        world.pipeline.create_review(
            number, "x", "COMMENT", [InlineComment("src/calc.py", 5, "?", "LEFT")]
        )
    assert world.pipeline.list_reviews(number) == ()


def test_a_pr_from_a_fork_lists_its_fork_and_is_fetchable_as_refs_pull(world: World) -> None:
    """A visitor's fork branch becomes a PR whose head repository is the fork; the base
    repository holds its head as `refs/pull/N/head`, and a push to the fork moves it."""
    owner, name = world.repo.split("/")
    fork = world.visitor.kit.rest.repos.create_fork(owner, name).json()
    assert fork["full_name"] == f"{VISITOR}/{name}"
    clone = world.workdir / "fork-clone"
    git(world.workdir, "clone", "--quiet", fork["clone_url"], clone.name)
    git(clone, "checkout", "--quiet", "-b", "fix")
    (clone / "src" / "calc.py").write_text(NEW_CALC)
    git(clone, "commit", "--quiet", "-am", "From the fork")
    git(clone, "push", "--quiet", "origin", "HEAD:refs/heads/fix")
    first = git(clone, "rev-parse", "HEAD")
    number = world.visitor.create_pr(f"{VISITOR}:fix", "main", "Fork fix", "").number
    listed = {p.number: p for p in world.pipeline.list_open_prs().pulls}[number]
    assert (listed.head_repo, listed.head_sha, listed.author) == (
        f"{VISITOR}/{name}",
        first,
        VISITOR,
    )
    assert world.pipeline.find_pr("fix") is None  # not a branch of the base repository
    assert _pull_ref(world, number) == first
    (clone / "src" / "calc.py").write_text(NEW_CALC + "\n# more\n")
    git(clone, "commit", "--quiet", "-am", "More from the fork")
    git(clone, "push", "--quiet", "origin", "HEAD:refs/heads/fix")
    second = git(clone, "rev-parse", "HEAD")
    assert world.pipeline.get_pr(number).head_sha == second
    assert _pull_ref(world, number) == second
    assert [f.filename for f in world.pipeline.list_pr_files(number)] == ["src/calc.py"]


def _pull_ref(world: World, number: int) -> str:
    """What the base repository's `refs/pull/N/head` holds, as a reader fetching it sees."""
    out = git(world.workdir, "ls-remote", world.clone_url, f"refs/pull/{number}/head")
    return out.split()[0] if out else ""
