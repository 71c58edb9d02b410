"""A PR's reviews on its page, as GitHub shows them: who reviewed with which verdict at which
commit, the review's body, and each inline comment under the lines of the diff it is on.

Every text is the markdown renderer's (raw HTML off, hidden comments dropped, so a review's
hidden record never shows); the diff lines are escaped.
"""

from __future__ import annotations

import sqlite3
from html import escape

from conveyor.emulator.model.store import Store
from conveyor.emulator.web.layout import when
from conveyor.emulator.web.markdown import render_markdown

VERDICTS = {
    "COMMENTED": "reviewed",
    "APPROVED": "approved these changes",
    "CHANGES_REQUESTED": "requested changes",
    "DISMISSED": "reviewed (dismissed)",
}
HUNK_TAIL = 4  # the diff lines shown above an inline comment, as GitHub shows a few


def _hunk(text: str) -> str:
    lines = text.splitlines()[-HUNK_TAIL:]
    shown = "\n".join(escape(line) for line in lines)
    return f"<pre class='diff'>{shown}</pre>" if shown else ""


def _inline(row: sqlite3.Row) -> str:
    side = "" if row["side"] == "RIGHT" else " (old side)"
    span = f"{row['start_line']}-{row['line']}" if row["start_line"] else str(row["line"] or "")
    where = f"<code>{escape(row['path'])}{':' + span if span else ''}</code>{side}"
    return (
        f"<div class='box'><header>{where} <span class='meta'>{escape(row['login'])}</span>"
        f"</header>{_hunk(row['diff_hunk'])}<div class='md'>{render_markdown(row['body'])}</div>"
        "</div>"
    )


def reviews_html(store: Store, issue_id: int) -> str:
    """Every submitted review of the PR whose issue row is `issue_id`, oldest first."""
    reviews = store.all(
        "SELECT reviews.*, users.login FROM reviews JOIN users ON users.id = reviews.author_id "
        "WHERE reviews.issue_id = ? AND reviews.state != 'PENDING' ORDER BY reviews.id",
        (issue_id,),
    )
    parts = []
    for review in reviews:
        comments = store.all(
            "SELECT c.*, users.login FROM review_comments c JOIN users ON users.id = c.author_id "
            "WHERE c.review_id = ? ORDER BY c.id",
            (review["id"],),
        )
        verdict = VERDICTS.get(review["state"], review["state"].lower())
        head = (
            f"<b>{escape(review['login'])}</b> {escape(verdict)} on "
            f"<code>{escape(review['commit_id'][:7])}</code> "
            f"<span class='meta'>{when(review['submitted_at'])}</span>"
        )
        body = render_markdown(review["body"]) if review["body"].strip() else ""
        inline = "".join(_inline(c) for c in comments)
        parts.append(
            f"<article class='box' id='pullrequestreview-{review['id']}'><header>{head}</header>"
            f"<div class='md'>{body}</div>{inline}</article>"
        )
    return "<h2>Reviews</h2>" + "".join(parts) if parts else ""
