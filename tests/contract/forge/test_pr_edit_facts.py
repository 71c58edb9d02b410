"""Who last edited each text of a PR, as GraphQL tells (TRUST-12 applied to PR reviews): the
description (REST's PATCH and GraphQL's updatePullRequest), conversation comments, review
bodies (`PUT .../reviews/{id}`) and inline comments (`PATCH .../pulls/comments/{id}`), each
edit kept with its editor and answered in the fields of GitHub's schema."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from graphql import build_schema, parse, validate

from conveyor.core.trust import NEVER_EDITED, Edits
from conveyor.forge.github.pr_texts import PR_TEXTS
from conveyor.forge.pr_types import PrTexts
from tests.contract.forge.conftest import OWNER, TRUSTED, VISITOR, World, push_change
from tests.contract.forge.test_edit_facts import SCHEMA

pytestmark = pytest.mark.contract

CALC = "def add(a, b):\n    return a - b\n"
# Every edit field of the four `Comment`s a PR carries, as GitHub's schema names them.
EVERY_EDIT_FIELD = """
fragment Edited on Comment {
  lastEditedAt includesCreatedEdit editor { __typename login }
  userContentEdits(first: 10) {
    totalCount
    nodes { editedAt diff editor { __typename login } }
  }
}
query($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      ...Edited
      comments(first: 10) { nodes { ...Edited } }
      reviews(first: 10) {
        nodes { ...Edited comments(first: 10) { nodes { path line ...Edited } } }
      }
    }
  }
}
"""


@pytest.fixture(scope="module")
def raw(world: World) -> Iterator[dict[str, httpx.Client]]:
    """Plain HTTP clients for the owner, the trusted person and the visitor, through the hook."""
    clients = {
        login: httpx.Client(
            base_url=world.server.url,
            transport=world.hook,
            headers={"Authorization": f"token {world.server.add_user(login)}"},
        )
        for login in (OWNER, TRUSTED, VISITOR)
    }
    yield clients
    for client in clients.values():
        client.close()


def _reviewed_pr(world: World, branch: str) -> tuple[int, int, int, int]:
    """alice's PR with her comment and her review with one inline comment: the PR's number,
    the comment's, the review's and the inline comment's ids."""
    push_change(world, branch, "src/calc.py", CALC)
    number = world.trusted.create_pr(branch, "main", f"Change {branch}", "alice's words").number
    comment = world.trusted.create_comment(number, "alice's comment")
    review = world.trusted.create_review(number, "alice's review", "COMMENT",
                                         [("src/calc.py", 2, "alice's inline")])  # fmt: skip
    (inline,) = world.trusted.list_review_comments(number)
    return number, comment.id, review.id, inline.id


def _last_editors(texts: PrTexts) -> dict[str, str | None]:
    """Who last edited the description and each text, by kind (None: never edited)."""

    def who(edits: Edits | None) -> str | None:
        assert edits is not None, "the GraphQL read always says"
        return edits.last.by if edits.last is not None else None

    return {"description": who(texts.edits)} | {t.kind: who(t.edits) for t in texts.texts}


def test_the_pr_texts_query_and_every_edit_field_are_valid_against_github_s_schema() -> None:
    """The client's query and the fields the forge answers validate against GitHub's schema."""
    schema = build_schema(SCHEMA.read_text(), assume_valid_sdl=True, assume_valid=True)
    assert validate(schema, parse(PR_TEXTS)) == []
    assert validate(schema, parse(EVERY_EDIT_FIELD)) == []


def test_every_text_of_a_pr_names_the_collaborator_who_edited_it_last(
    world: World, raw: dict[str, httpx.Client]
) -> None:
    """Never edited, each text says so; once the owner edits the description (REST), alice's
    comment, her review's body and her inline comment, each names the owner; alice's own
    edit of her comment then names her."""
    number, comment, review, inline = _reviewed_pr(world, "edits/every")
    first = world.pipeline.read_pr_texts(number)
    assert first.edits == NEVER_EDITED
    assert {t.kind: t.edits for t in first.texts} == {
        "comment": NEVER_EDITED, "review": NEVER_EDITED, "inline": NEVER_EDITED,
    }  # fmt: skip
    assert (first.author, first.body) == (TRUSTED, "alice's words")
    world.admin.edit_pr(number, body="the owner's words")
    world.admin.edit_comment(comment, "the owner's comment", number)
    repo = f"/repos/{world.repo}"
    put = raw[OWNER].put(f"{repo}/pulls/{number}/reviews/{review}", json={"body": "owner's"})
    assert put.status_code == 200
    patch = raw[OWNER].patch(f"{repo}/pulls/comments/{inline}", json={"body": "owner's inline"})
    assert patch.status_code == 200
    texts = world.pipeline.read_pr_texts(number)
    assert _last_editors(texts) == dict.fromkeys(("description", "comment", "review", "inline"),
                                                 OWNER)  # fmt: skip
    assert {t.kind: t.body for t in texts.texts} == {
        "comment": "the owner's comment", "review": "owner's", "inline": "owner's inline",
    }  # fmt: skip
    assert [t.where for t in texts.texts if t.kind == "inline"] == ["src/calc.py:2"]
    world.trusted.edit_comment(comment, "alice's again", number)
    assert _last_editors(world.pipeline.read_pr_texts(number))["comment"] == TRUSTED


def test_update_pull_request_in_graphql_records_its_editor(world: World) -> None:
    """The owner sets the title and body of alice's draft as it goes ready (GraphQL's
    updatePullRequest): the owner is the description's last editor."""
    push_change(world, "edits/graphql", "src/calc.py", CALC)
    number = world.trusted.create_draft_pr("edits/graphql", "main", "Draft", "alice's").number
    world.admin.mark_pr_ready(number, "Ready", "the owner's")
    texts = world.pipeline.read_pr_texts(number)
    assert texts.body == "the owner's"
    assert _last_editors(texts)["description"] == OWNER


def test_each_pr_text_keeps_every_version_newest_first_in_github_s_fields(
    world: World, raw: dict[str, httpx.Client]
) -> None:
    """The description edited twice (owner, then alice) and an inline comment once: every
    edit field of the four kinds answers as GitHub's schema types it, with no error."""
    number, _, _, inline = _reviewed_pr(world, "edits/history")
    world.admin.edit_pr(number, body="v2")
    world.trusted.edit_pr(number, body="v3")
    raw[OWNER].patch(f"/repos/{world.repo}/pulls/comments/{inline}", json={"body": "i2"})
    owner, name = world.repo.split("/")
    asked = {"query": EVERY_EDIT_FIELD, "variables": {"owner": owner, "name": name,
                                                       "number": number}}  # fmt: skip
    answer: dict[str, Any] = raw[TRUSTED].post("/graphql", json=asked).json()
    assert "errors" not in answer, answer
    pull = answer["data"]["repository"]["pullRequest"]
    history = pull["userContentEdits"]
    assert [(n["editor"]["login"], n["diff"]) for n in history["nodes"]] == [
        (TRUSTED, "v3"), (OWNER, "v2"), (TRUSTED, "alice's words"),
    ]  # fmt: skip
    assert (pull["editor"]["login"], pull["includesCreatedEdit"]) == (TRUSTED, True)
    (comment,) = pull["comments"]["nodes"]
    assert (comment["lastEditedAt"], comment["editor"], comment["userContentEdits"]) == (
        None, None, {"totalCount": 0, "nodes": []},
    )  # fmt: skip
    (review,) = pull["reviews"]["nodes"]
    assert review["lastEditedAt"] is None
    (said,) = review["comments"]["nodes"]
    assert (said["path"], said["line"], said["editor"]["login"]) == ("src/calc.py", 2, OWNER)
    assert [n["diff"] for n in said["userContentEdits"]["nodes"]] == ["i2", "alice's inline"]


def test_editing_someone_elses_review_text_needs_write_access(
    world: World, raw: dict[str, httpx.Client]
) -> None:
    """The visitor cannot edit alice's inline comment or review (403); a blank review body is
    refused (422), an unknown id is 404; none of it is recorded as an edit."""
    number, _, review, inline = _reviewed_pr(world, "edits/refused")
    repo = f"/repos/{world.repo}"
    visitor = raw[VISITOR]
    assert visitor.patch(f"{repo}/pulls/comments/{inline}", json={"body": "x"}).status_code == 403
    assert visitor.put(f"{repo}/pulls/{number}/reviews/{review}",
                       json={"body": "x"}).status_code == 403  # fmt: skip
    blank = raw[OWNER].put(f"{repo}/pulls/{number}/reviews/{review}", json={"body": " "})
    assert blank.status_code == 422
    assert raw[OWNER].patch(f"{repo}/pulls/comments/999999999", json={"body": "x"}).status_code == (
        404
    )
    texts = world.pipeline.read_pr_texts(number)
    assert {t.kind: t.edits for t in texts.texts}["inline"] == NEVER_EDITED
    assert {t.kind: t.edits for t in texts.texts}["review"] == NEVER_EDITED
