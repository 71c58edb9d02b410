"""Pull requests on the embedded forge against real git pushes."""

from __future__ import annotations

import httpx
import pytest

from conveyor.git import Repo, commit_message, log_commits, rev_parse
from conveyor.testing import http
from tests.contract.emulator.openapi_check import check_error_shape
from tests.contract.emulator_repos.conftest import GitWorld, open_pr, settled

pytestmark = pytest.mark.contract


def test_a_pushed_branch_becomes_a_pr_whose_mergeability_reads_unknown_then_clean(
    gw: GitWorld, writer: httpx.Client
) -> None:
    """The first read after opening is unknown with null mergeable; the next is clean."""
    sha = gw.push_branch("feature", {"new.txt": "new\n"}, "Add new")
    pr = open_pr(writer, gw, "feature")
    assert pr["head"]["sha"] == sha
    assert pr["head"]["ref"] == "feature"
    assert pr["base"]["ref"] == "main"
    assert pr["state"] == "open"
    assert pr["draft"] is False
    first = writer.get(f"{gw.repo_path}/pulls/{pr['number']}").json()
    assert (first["mergeable"], first["mergeable_state"]) == (None, "unknown")
    second = writer.get(f"{gw.repo_path}/pulls/{pr['number']}").json()
    assert (second["mergeable"], second["mergeable_state"]) == (True, "clean")
    assert (second["commits"], second["changed_files"], second["additions"]) == (1, 1, 1)


def test_a_push_to_the_head_moves_it_and_resets_mergeability(
    gw: GitWorld, writer: httpx.Client
) -> None:
    """After a push the PR shows the new head and reads unknown once more."""
    gw.push_branch("feature", {"new.txt": "new\n"}, "Add new")
    pr = open_pr(writer, gw, "feature")
    settled(writer, gw, pr["number"])
    moved = gw.push_branch("feature", {"new.txt": "newer\n"}, "Improve new")
    again = writer.get(f"{gw.repo_path}/pulls/{pr['number']}").json()
    assert again["head"]["sha"] == moved
    assert again["mergeable_state"] == "unknown"
    assert settled(writer, gw, pr["number"])["mergeable_state"] == "clean"


def test_a_conflicting_branch_reads_dirty_and_its_merge_is_refused(
    gw: GitWorld, writer: httpx.Client
) -> None:
    """Both sides edit the same line: dirty, and the merge answers 405 Merge conflict."""
    gw.push_branch("left", {"app.py": "x = 10\ny = 2\nz = 3\n"}, "Left edit")
    gw.push_branch("right", {"app.py": "x = 20\ny = 2\nz = 3\n"}, "Right edit")
    left = open_pr(writer, gw, "left")
    right = open_pr(writer, gw, "right")
    done = writer.put(
        f"{gw.repo_path}/pulls/{left['number']}/merge", json={"sha": left["head"]["sha"]}
    )
    assert done.status_code == 200
    state = settled(writer, gw, right["number"])
    assert (state["mergeable"], state["mergeable_state"]) == (False, "dirty")
    refused = writer.put(f"{gw.repo_path}/pulls/{right['number']}/merge", json={})
    assert check_error_shape(refused, 405)["message"] == "Merge conflict"


def test_a_merge_with_a_stale_sha_is_refused_with_409(gw: GitWorld, writer: httpx.Client) -> None:
    """`sha` must equal the head."""
    first = gw.push_branch("feature", {"new.txt": "new\n"}, "Add new")
    pr = open_pr(writer, gw, "feature")
    gw.push_branch("feature", {"new.txt": "newer\n"}, "Improve new")
    answer = writer.put(f"{gw.repo_path}/pulls/{pr['number']}/merge", json={"sha": first})
    assert "Head branch was modified" in check_error_shape(answer, 409)["message"]


def test_a_squash_merge_makes_one_commit_titled_with_the_number_and_closes_named_issues(
    gw: GitWorld, writer: httpx.Client
) -> None:
    """One commit on main, `<title> (#n)` with the subjects in the body; `Closes #N` closed."""
    issue = writer.post(f"{gw.repo_path}/issues", json={"title": "Needs a thing"}).json()
    gw.push_branch("feature", {"a.txt": "a\n"}, "Add a")
    head = gw.push_branch("feature", {"b.txt": "b\n"}, "Add b")
    pr = open_pr(writer, gw, "feature", body=f"Does it.\n\nCloses #{issue['number']}")
    bare = Repo(gw.clone.path)
    gw.clone.git("fetch", "--quiet", "origin")
    before = rev_parse(bare, "origin/main")
    answer = writer.put(
        f"{gw.repo_path}/pulls/{pr['number']}/merge",
        json={"sha": head, "merge_method": "squash", "commit_title": "Add the thing"},
    )
    assert answer.status_code == 200, answer.text
    merged = answer.json()
    assert merged["merged"] is True
    gw.clone.git("fetch", "--quiet", "origin")
    assert rev_parse(bare, "origin/main") == merged["sha"]
    assert [c.sha for c in log_commits(bare, before, "origin/main")] == [merged["sha"]]
    message = commit_message(bare, merged["sha"])
    assert message.splitlines()[0] == f"Add the thing (#{pr['number']})"
    assert "Add a" in message
    assert "Add b" in message
    assert gw.clone.git("show", "origin/main:b.txt") == "b"
    after = writer.get(f"{gw.repo_path}/pulls/{pr['number']}").json()
    assert (after["merged"], after["state"], after["merge_commit_sha"]) == (
        True,
        "closed",
        merged["sha"],
    )
    closed = writer.get(f"{gw.repo_path}/issues/{issue['number']}").json()
    assert (closed["state"], closed["state_reason"]) == ("closed", "completed")
    assert writer.get(f"{gw.repo_path}/pulls/{pr['number']}/merge").status_code == 204
    again = writer.put(f"{gw.repo_path}/pulls/{pr['number']}/merge", json={})
    assert check_error_shape(again, 405)["message"] == "Pull Request is not mergeable"


def test_opening_needs_existing_branches_and_one_open_pr_per_head_and_base(
    gw: GitWorld, writer: httpx.Client
) -> None:
    """Unknown head or base and a duplicate PR get 422."""
    gw.push_branch("feature", {"new.txt": "new\n"}, "Add new")
    missing_head = writer.post(
        f"{gw.repo_path}/pulls", json={"title": "t", "head": "nope", "base": "main"}
    )
    assert check_error_shape(missing_head, 422)["errors"][0]["field"] == "head"
    missing_base = writer.post(
        f"{gw.repo_path}/pulls", json={"title": "t", "head": "feature", "base": "nope"}
    )
    assert check_error_shape(missing_base, 422)["errors"][0]["field"] == "base"
    open_pr(writer, gw, "feature")
    again = writer.post(
        f"{gw.repo_path}/pulls", json={"title": "t", "head": "feature", "base": "main"}
    )
    assert "already exists" in check_error_shape(again, 422)["errors"][0]["message"]
    anonymous = http.post(f"{gw.server.url}{gw.repo_path}/pulls", json={"title": "t"})
    assert anonymous.status_code == 401


def test_prs_list_by_state_head_and_base_and_share_numbers_with_issues(
    gw: GitWorld, writer: httpx.Client
) -> None:
    """Filters by head `owner:branch`; a PR takes the next issue number; closing hides it."""
    issue = writer.post(f"{gw.repo_path}/issues", json={"title": "An issue"}).json()
    gw.push_branch("one", {"1.txt": "1\n"}, "One")
    gw.push_branch("two", {"2.txt": "2\n"}, "Two")
    first = open_pr(writer, gw, "one", draft=True)
    second = open_pr(writer, gw, "two")
    assert first["number"] == issue["number"] + 1
    assert first["draft"] is True
    owner = gw.slug.split("/")[0]
    listed = writer.get(f"{gw.repo_path}/pulls", params={"head": f"{owner}:two"}).json()
    assert [p["number"] for p in listed] == [second["number"]]
    assert len(writer.get(f"{gw.repo_path}/pulls", params={"base": "main"}).json()) == 2
    closed = writer.patch(f"{gw.repo_path}/pulls/{first['number']}", json={"state": "closed"})
    assert closed.json()["state"] == "closed"
    assert [p["number"] for p in writer.get(f"{gw.repo_path}/pulls").json()] == [second["number"]]
    listed_closed = writer.get(f"{gw.repo_path}/pulls", params={"state": "closed"}).json()
    assert [p["number"] for p in listed_closed] == [first["number"]]
    reopened = writer.patch(
        f"{gw.repo_path}/pulls/{first['number']}", json={"state": "open", "title": "Renamed"}
    ).json()
    assert (reopened["state"], reopened["title"]) == ("open", "Renamed")
    as_issue = writer.get(f"{gw.repo_path}/issues/{second['number']}").json()
    assert "pull_request" in as_issue
    assert writer.get(f"{gw.repo_path}/pulls/{issue['number']}").status_code == 404
    assert writer.get(f"{gw.repo_path}/pulls/{second['number']}/reviews").json() == []
    assert writer.get(f"{gw.repo_path}/pulls/{second['number']}/comments").json() == []


def test_comments_and_labels_on_a_pr_go_through_the_issue_routes(
    gw: GitWorld, writer: httpx.Client
) -> None:
    """A PR's number works with the issue comment and label routes, and its JSON shows them."""
    gw.push_branch("feature", {"new.txt": "new\n"}, "Add new")
    number = open_pr(writer, gw, "feature")["number"]
    made = writer.post(f"{gw.repo_path}/issues/{number}/comments", json={"body": "Looks good"})
    assert made.status_code == 201
    labelled = writer.post(
        f"{gw.repo_path}/issues/{number}/labels", json={"labels": ["agent:working"]}
    )
    assert labelled.status_code == 200
    pr = writer.get(f"{gw.repo_path}/pulls/{number}").json()
    assert pr["comments"] == 1
    assert [label["name"] for label in pr["labels"]] == ["agent:working"]
