"""Webhooks for PR reviews: `pull_request_review` and `pull_request_review_comment`.

A submitted review is delivered as `pull_request_review` `submitted`, after one
`pull_request_review_comment` `created` per inline comment it holds; a comment
posted alone (or a reply) sends its `created` and the `submitted` of the
COMMENTED review it makes, as GitHub does. A pending review sends nothing. The
payload's `pull_request` is the PR as `GET .../pulls` lists it; the review's
`state` is lower-case and an empty body is null, as in GitHub's deliveries.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from starlette.requests import Request

from conveyor.emulator.hooks.events import Objects, emit, has_hooks, reactions
from conveyor.emulator.model.http import emulator
from conveyor.emulator.model.pull_rows import Pull, get_pull
from conveyor.emulator.model.review_rows import Shaper
from conveyor.emulator.repos.mergeability import base_sha_of
from conveyor.emulator.repos.pull_shape import RepoView, pull_json
from conveyor.emulator.repos.review_place import position


def review_object(shaper: Shaper, row: sqlite3.Row) -> Objects:
    """The review as a delivery shows it."""
    review = shaper.review(row)
    review["body"] = review["body"] or None
    review["state"] = str(review["state"]).lower()
    review["updated_at"] = review.get("submitted_at")
    return review


def comment_object(view: RepoView, pull: Pull, shaper: Shaper, row: sqlite3.Row) -> Objects:
    """The review comment as a delivery shows it: its reactions and diff position added."""
    comment = shaper.comment(row)
    line = row["line"]
    at = position(view.bare, base_sha_of(view.bare, pull), row["commit_id"], row["path"], line)
    return {
        **comment,
        "line": line,
        "original_line": line,
        "position": at,
        # A file-level comment has no line in the diff; the description wants a number.
        "original_position": at if at is not None else 1,
        "reactions": reactions(str(comment["url"])),
    }


def emit_review(
    request: Request,
    repo: sqlite3.Row,
    view: RepoView,
    pull: Pull,
    *,
    review_id: int,
    comment_ids: Sequence[int],
) -> None:
    """Deliver a submitted review and its inline comments (nothing for a pending one)."""
    state = emulator(request)
    if not has_hooks(state, int(repo["id"])):
        return
    store = state.store
    review = store.one("SELECT * FROM reviews WHERE id = ?", (review_id,))
    pull = get_pull(store, int(repo["id"]), pull.number) or pull  # its `updated_at` moved
    if review is None or review["state"] == "PENDING":
        return
    shaper = Shaper(store, view.base, repo, pull.number)

    def simple_pull() -> Objects:
        return pull_json(state, view, pull, full=False)

    for ident in comment_ids:
        row = store.one("SELECT * FROM review_comments WHERE id = ?", (ident,))
        if row is None:
            continue

        def comment_payload(row: sqlite3.Row = row) -> Objects:
            return {
                "comment": comment_object(view, pull, shaper, row),
                "pull_request": simple_pull(),
            }

        emit(request, repo, "pull_request_review_comment", "created", comment_payload)

    def review_payload() -> Objects:
        return {"review": review_object(shaper, review), "pull_request": simple_pull()}

    emit(request, repo, "pull_request_review", "submitted", review_payload)
