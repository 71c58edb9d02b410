"""What people wrote on a PR, each text with who last edited it, in GraphQL (`read_pr_texts`).

REST has no editor field, so a PR's description, its conversation comments, its reviews'
bodies and their inline comments are read through GraphQL, whose every one of them is a
`Comment` with `editor` and `lastEditedAt` (TRUST-12, applied to PRs). Conversation comments
and reviews are paged 100 at a time. A review's inline comments past its first 100 are read
through REST, which cannot say who edited them: they carry `edits=None` (the rule then
withholds them). Pending reviews (shown only to their author) are left out, as a submitted
review is what a person said.
"""

from __future__ import annotations

from typing import Any

from conveyor.forge.errors import ForgeError, NotFound
from conveyor.forge.github.reviews import ReviewOps
from conveyor.forge.github.thread import COMMENT_FIELDS, login_of, to_edits, to_thread_comment, when
from conveyor.forge.pr_types import PrText, PrTexts
from conveyor.forge.review_types import ReviewComment

_EDITED = "lastEditedAt editor { __typename login } author { __typename login }"
PR_TEXTS = (
    f"""
query PrTexts($owner: String!, $name: String!, $number: Int!, $comments: String,
              $reviews: String) {{
  repository(owner: $owner, name: $name) {{
    pullRequest(number: $number) {{
      number
      body
      {_EDITED}
      comments(first: 100, after: $comments) {{
        pageInfo {{ hasNextPage endCursor }}
        nodes {{ ...ThreadComment }}
      }}
      reviews(first: 100, after: $reviews) {{
        pageInfo {{ hasNextPage endCursor }}
        nodes {{
          fullDatabaseId
          body
          url
          submittedAt
          {_EDITED}
          comments(first: 100) {{
            pageInfo {{ hasNextPage }}
            nodes {{
              fullDatabaseId body path line originalLine url createdAt updatedAt
              {_EDITED}
            }}
          }}
        }}
      }}
    }}
  }}
}}
"""
    + COMMENT_FIELDS
)
MAX_PAGES = 50  # 5,000 comments and 5,000 reviews: past that a PR is not a conversation


def _comment(node: dict[str, Any]) -> PrText:
    c = to_thread_comment(node)
    return PrText(c.id, "comment", c.author, c.body, c.created_at, c.updated_at, c.edits,
                  url=c.html_url)  # fmt: skip


def _review(node: dict[str, Any]) -> PrText | None:
    submitted = node.get("submittedAt")
    if not submitted:
        return None
    at = when(submitted)
    return PrText(
        int(node["fullDatabaseId"]), "review", login_of(node.get("author")),
        str(node.get("body") or ""), at, at, to_edits(node), url=str(node.get("url") or ""),
    )  # fmt: skip


def _inline(node: dict[str, Any]) -> PrText:
    found = node.get("line") or node.get("originalLine")
    line = int(found) if found else None
    path = str(node.get("path") or "")
    return PrText(
        int(node["fullDatabaseId"]), "inline", login_of(node.get("author")),
        str(node.get("body") or ""), when(node["createdAt"]), when(node["updatedAt"]),
        to_edits(node), f"{path}:{line}" if line else path, str(node.get("url") or ""),
        path, line,
    )  # fmt: skip


def _page_info(connection: dict[str, Any]) -> tuple[bool, str | None]:
    info = connection.get("pageInfo") or {}
    end = info.get("endCursor")
    return bool(info.get("hasNextPage")), str(end) if end else None


class PrTextOps(ReviewOps):
    """A PR's texts with their edit facts."""

    def _pr_page(self, number: int, comments: str | None, reviews: str | None) -> dict[str, Any]:
        variables = {"owner": self._owner, "name": self._name, "number": number,
                     "comments": comments, "reviews": reviews}  # fmt: skip
        data = self._run(
            "read PR texts", number, lambda: self._kit.graphql.request(PR_TEXTS, variables)
        )
        repository = data.get("repository") if isinstance(data, dict) else None
        node = repository.get("pullRequest") if isinstance(repository, dict) else None
        if node is None:
            raise NotFound("read PR texts", number, f"no pull request {number} in {self.repo}")
        if not isinstance(node, dict):
            raise ForgeError("read PR texts", number, f"the forge answered {data!r}")
        return node

    def read_pr_texts(self, number: int) -> PrTexts:
        """PR `number`'s description and every text on it, each with who last edited it."""
        first = self._pr_page(number, None, None)
        comments: list[PrText] = []
        reviews: list[PrText] = []
        inline: list[PrText] = []
        overflow: set[int] = set()  # reviews with more than 100 inline comments
        node, more_comments, more_reviews = first, True, True
        for _ in range(MAX_PAGES):
            if more_comments:
                page = node.get("comments") or {}
                comments += [_comment(c) for c in page.get("nodes") or () if c]
                more_comments, after_comments = _page_info(page)
            if more_reviews:
                page = node.get("reviews") or {}
                for r in page.get("nodes") or ():
                    review = _review(r) if r else None
                    if review is None:
                        continue
                    reviews.append(review)
                    said = r.get("comments") or {}
                    inline += [_inline(c) for c in said.get("nodes") or () if c]
                    if _page_info(said)[0]:
                        overflow.add(review.id)
                more_reviews, after_reviews = _page_info(page)
            if not (more_comments or more_reviews):
                break
            node = self._pr_page(
                number,
                after_comments if more_comments else None,
                after_reviews if more_reviews else None,
            )
        inline += self._overflow(number, overflow, {t.id for t in inline})
        return PrTexts(
            number, login_of(first.get("author")), str(first.get("body") or ""), to_edits(first),
            tuple(comments) + tuple(reviews) + tuple(sorted(inline, key=lambda t: t.id)),
        )  # fmt: skip

    def _overflow(self, number: int, reviews: set[int], seen: set[int]) -> list[PrText]:
        """The inline comments of `reviews` past their first 100, from REST (no edit facts)."""
        if not reviews:
            return []
        every = self.list_review_comments(number)
        late = [c for c in every if c.review_id in reviews and c.id not in seen]
        return [_late(c) for c in late]


def _late(c: ReviewComment) -> PrText:
    """An inline comment read through REST, which cannot say who edited it."""
    where = f"{c.path}:{c.line}" if c.line else c.path
    return PrText(c.id, "inline", c.author, c.body, c.created_at, c.updated_at, None, where,
                  c.html_url, c.path, c.line)  # fmt: skip
